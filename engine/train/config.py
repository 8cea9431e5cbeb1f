"""What a training run is asked to do (TrainConfig) and how much it may do (TrainLimits,
declared in engine/trace/limits.py beside a trace's Limits: server/settings.py reads the
defaults of both from there).

`check(config)` refuses a bad request before anything runs (ProgramError "bad_argument", or
"too_large" naming the limit). The cost limits that need the program's size (elements and
FLOPs per iteration, times the steps) are checked in engine/train/loop.py after the first,
checked forward pass, still before the first iteration is reported.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.limits import TrainLimits   # declared there, light, for the settings
from gradwalk.engine.wording import LONG_INT, said

OPTIMIZERS = ("sgd", "momentum", "adam")
# The largest learning rate a run takes (the API's and the CLI's one bound): past it a step of
# any non-zero gradient is larger than any weight worth showing, so the run can only diverge.
MAX_LR = 1e6
LR_RULE = f"a number above 0 and at most {MAX_LR:,.0f}"   # what check_lr takes, in words
BUGS = ("no_zero_grad",)


@dataclass(frozen=True)
class TrainConfig:
    """One training run.

    steps: iterations (each: forward, zero_grad, backward, update; seed 003's loop).
    lr: the learning rate (0 < lr <= MAX_LR, check_lr).
    optimizer: "sgd", "momentum" (heavy ball, `momentum` below) or "adam" (engine/train/optim.py).
    record: iterations (0-based, below `steps`) whose full trace is kept (engine/train/record.py).
    bugs: () or ("no_zero_grad",): the gradients are never zeroed, so each update uses the sum
        of every gradient so far (PyTorch's .grad accumulates when zero_grad is not called).
    boundary_every: a decision-boundary event every this many iterations, and after the last
        (2-D inputs and a cross_entropy or mse loss only; engine/train/boundary.py).
    output: the loss's name (None: the last assigned name).
    momentum, betas, eps: the optimizers' constants (PyTorch's: momentum 0.9 is the value
        most texts use, torch.optim.SGD's default is 0; Adam's betas (0.9, 0.999), eps 1e-8).
    """

    steps: int
    lr: float
    optimizer: str = "sgd"
    record: tuple[int, ...] = ()
    bugs: tuple[str, ...] = ()
    boundary_every: int = 25
    limits: TrainLimits = field(default_factory=TrainLimits)
    output: str | None = None
    momentum: float = 0.9
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8


def check(config: TrainConfig) -> None:
    """Raise ProgramError for a config no run can follow: "bad_argument" naming the field, or
    "too_large" naming the limit (max_steps, max_recorded)."""
    limits = config.limits
    if type(config.steps) is not int or config.steps < 1:
        raise _bad("steps", f"steps must be a whole number of at least 1, not "
                   f"{said(config.steps)}")
    if config.steps > limits.max_steps:
        raise ProgramError("too_large", f"{_count(config.steps)} asked; the limit (max_steps) "
                           f"is {limits.max_steps:,}", hint="train for fewer steps")
    check_lr(config.lr)
    if config.optimizer not in OPTIMIZERS:
        raise _bad("optimizer", f"unknown optimizer {config.optimizer!r}; one of "
                   f"{', '.join(OPTIMIZERS)}")
    unknown = [b for b in config.bugs if b not in BUGS]
    if unknown:
        raise _bad("bugs", f"unknown training bug {unknown[0]!r}; the one there is: "
                   f"{', '.join(BUGS)}")
    outside = [k for k in config.record if type(k) is not int or not 0 <= k < config.steps]
    if outside:
        k = outside[0]
        which = f"{said(k)} as an iteration" if type(k) is int and abs(k) >= LONG_INT else \
            f"iteration {k!r}"
        raise _bad("record", f"{which} cannot be recorded: iterations run from 0 to "
                   f"{config.steps - 1}")
    if len(set(config.record)) > limits.max_recorded:
        raise ProgramError("too_large", f"{len(set(config.record))} iterations to record; the "
                           f"limit (max_recorded) is {limits.max_recorded}",
                           hint="record fewer iterations")
    if type(config.boundary_every) is not int or config.boundary_every < 1:
        raise _bad("boundary_every", "boundary_every must be a whole number of at least 1")


def check_lr(lr) -> None:
    """Raise ProgramError "bad_argument" (hint: check `lr`) unless 0 < lr <= MAX_LR; NaN and
    infinities included. The one check of the learning rate: the engine's, the API's
    (server/routers/train.py) and the CLI's (server/cli_train.py), with one message."""
    # compared, never made a float: 10**400 (a JSON integer) overflowed math.isfinite (a 500);
    # NaN fails the comparison, and infinities are past MAX_LR
    if not isinstance(lr, (int, float)) or isinstance(lr, bool) or not 0 < lr <= MAX_LR:
        raise _bad("lr", f"the learning rate must be {LR_RULE}, not {said(lr)}")


def _count(n: int) -> str:
    """n steps, said: "10,001 steps", "an integer of 401 digits as steps"."""
    return f"{n:,} steps" if n < LONG_INT else f"{said(n)} as steps"


def _bad(field_name: str, message: str) -> ProgramError:
    return ProgramError("bad_argument", message, hint=f"check `{field_name}`")
