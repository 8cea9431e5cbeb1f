"""How much a trace may hold and show (Limits), and how much a training run may cost
(TrainLimits, engine/train): the engine's limits, frozen objects that server/settings.py fills
from the GRADWALK_ settings, whose defaults are the ones declared here. This module imports
nothing heavy, so the settings can read their defaults from it."""
from __future__ import annotations

from dataclasses import dataclass, field

from gradwalk.engine.syntax import MAX_DEPTH, MAX_STATEMENTS


@dataclass(frozen=True)
class Limits:
    """How much a trace may hold and show.

    inline: tensors with at most this many elements carry their data in events (elements).
    max_elements: the largest value any node may hold (elements).
    max_nodes: the most nodes a program may have (nodes); a 100,000-node chain fits.
    max_total_elements: the sum of all values' sizes (elements), which bounds memory.
    max_flops: the forward pass's floating-point operations (FLOPs); the backward pass costs
        about twice as much (../shared/seeds/003_70db1bc89ad395af.txt).
    max_response_bytes: the largest body a trace may make (bytes), estimated from the graph
        before anything is serialized (engine/trace/budget.py); a 100,000-node scalar chain
        makes about 70 MB.
    max_statements: the most statements (lines) a program may have, checked before any node
        is made (`y = x` makes no node, so the node limit alone would not bound them).
    max_depth: how deeply an expression may nest: calls, lists, right operands (engine/parse.py);
        a left-associative chain `x + x + ... + x` stays at one level.
    timeout_seconds: the wall-clock budget of one trace from the Tracer's construction to its
        last event (seconds; None: none), checked every 1,024 nodes or edges
        (engine/trace/deadline.py); past it, ProgramError "timeout".
    """

    inline: int = 64
    max_elements: int = 1_000_000
    max_nodes: int = 120_000
    max_total_elements: int = 5_000_000
    max_flops: int = 1_000_000_000
    max_response_bytes: int = 100_000_000
    max_statements: int = MAX_STATEMENTS
    max_depth: int = MAX_DEPTH
    timeout_seconds: float | None = None


@dataclass(frozen=True)
class TrainLimits:
    """How much one training run may cost.

    max_steps: the most iterations (steps).
    max_element_steps: the elements every node's value holds in one iteration, times the
        steps (elements · steps): what the run writes to memory, bounded.
    max_flop_steps: one iteration's floating-point operations (the forward pass's FLOPs by
        the op rows' counts, times 3: the backward pass costs about twice the forward, seed
        003_70db1bc89ad395af.txt, Step 5), times the steps (FLOPs).
    max_recorded: the most iterations that may be recorded as full traces.
    timeout_seconds: the wall-clock budget of the whole run (seconds; None: none), checked
        after every iteration; past it ProgramError "timeout" (an `error` event mid-way).
    trace: the limits of one recorded iteration's trace (engine/trace/runner.Limits).
    """

    max_steps: int = 10_000
    max_element_steps: int = 2_000_000_000
    max_flop_steps: int = 20_000_000_000
    max_recorded: int = 10
    timeout_seconds: float | None = None
    trace: Limits = field(default_factory=Limits)


def two_sizes(estimate: int, limit: int) -> tuple[str, str]:
    """An estimate over a limit (bytes), both written in one unit (MB from 1 MB, else KB from
    1 KB, else bytes) with as many decimals as it takes for the two to read differently
    (100,049 bytes over 100,000: "0.10005 MB" and "0.1 MB" would both read 0.1 at one
    decimal; they read "100.049 KB" and "100 KB"). Trailing zeros are dropped."""
    scale, unit = next((s, u) for s, u in ((1e6, "MB"), (1e3, "KB"), (1, "bytes"))
                       if limit >= s or s == 1)
    for decimals in range(1, 7):
        a, b = (f"{n / scale:,.{decimals}f}" for n in (estimate, limit))
        if a != b:
            break
    return tuple(_trim(t) + " " + unit for t in (a, b))


def _trim(number: str) -> str:
    return number.rstrip("0").rstrip(".") if "." in number else number
