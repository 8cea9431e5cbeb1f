"""One table of primitive ops: each row holds the forward rule, one vjp per argument, the jvp,
and the teaching text (formula and local derivatives).

Follows HIPS autograd's `defvjp` table and JAX autodidax's per-transformation rule tables
(see ../shared/STYLE.md, "One op table").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

Array = np.ndarray


@dataclass(frozen=True)
class Op:
    """One primitive.

    forward(*inputs, **params) -> output array.
    vjp[i](g, out, *inputs, **params) -> the vector-Jacobian product for input i: g has the
        output's shape; the result has input i's shape or a shape it broadcasts to (the stepper
        sums it back with `unbroadcast`).
    jvp(tangents, out, *inputs, **params) -> the output tangent, given one tangent per input
        (zeros for an input without one).
    text: forward rule with `{0}`, `{1}` for the input labels, e.g. "tanh({0})".
    partials[i]: the local derivative d out / d input_i as text, with `{out}` for the output
        label; used in narration when the local derivative is elementwise.
    Any text may instead be a function called like str.format (input labels, then out=, g=
        and the params as keywords), for texts that depend on values (2 * x, not 2 * x^(2-1)).
    vjp_text[i]: the vjp as text, with `{g}` for the upstream gradient; used when it is not.
    elementwise: the output is an elementwise function of (broadcast) inputs, so the local
        derivative is a value of the output's shape.
    flops(out, *inputs): floating-point operations of the forward rule (FLOPs), for the ledger.
    saves: the tensors the backward rule keeps from the forward pass (PyTorch's "saved
        tensors"): "in0", "in1", ... for inputs, "out" for the output; () when the vjp needs
        nothing but the upstream gradient (add, sub, sum). Each saved tensor is counted once
        by the ledger however many rules save it (seed 003_70db1bc89ad395af.txt, Step 5).
    backward_flops(out, *inputs): FLOPs of all the vjps together (every input), for the
        ledger; None means twice the forward FLOPs (a linear layer's backward costs twice its
        forward: seed 003, Step 5).
    saves_for: per input, the tensors that input's vjp needs (PyTorch saves `other` for
        `self * other` only when `self` requires grad); the ledger keeps the union over the
        inputs that require grad, and counts each such input's vjp as an equal share of
        backward_flops. () when every vjp needs all of `saves`.
    forward_saving(*inputs, **params) -> (output, saved): optional, the forward rule that also
        returns what the vjps need, for an engine that keeps it between the passes
        (engine/tape.py; PyTorch's ctx.save_for_backward, JAX's custom_vjp forward). Its
        output is forward's, bit for bit (tests/engine/test_saved_rows.py).
    vjp_saved[i](g, saved) -> vjp[i]'s result, bit for bit, from forward_saving's `saved`;
        given with forward_saving and only with it.
    jvp_grouped(tangents, out, *inputs, **params) -> optional, the jvp written over the factor
        its terms share (div: (ẋ - out·ẏ) / y, the quotient rule over its common 1/y), taken
        by the second-order walks where the terms' sum is ∞ - ∞ and an input's tangent is
        itself infinite (engine/trace/forward_mode.py `grouped`).
    jvp_zero(tangents, out, *inputs, **params) -> optional, for a contraction (matmul): the
        jvp under the second-order walks' zero-direction rule, where a product with an exactly
        0 tangent adds 0 even against ∞ (engine/ops/linalg.py contract_zero). An elementwise
        op needs none (its terms are masked one by one); sum and mean have finite partials.
    internal: the row is the engine's, not the language's (engine/ops/masked.py: a masked
        vjp as one node of the backward graph); a program cannot call it.
    """

    name: str
    arity: int
    forward: Callable[..., Array]
    vjp: tuple[Callable[..., Array], ...]
    jvp: Callable[..., Array]
    text: str | Callable[..., str]
    partials: tuple[str | Callable[..., str], ...]
    vjp_text: tuple[str | Callable[..., str], ...] = ()
    symbol: str | None = None
    elementwise: bool = True
    params: tuple[str, ...] = ()
    flops: Callable[..., int] = field(default=lambda out, *xs: int(np.size(out)))
    saves: tuple[str, ...] = ()
    backward_flops: Callable[..., int] | None = None
    saves_for: tuple[tuple[str, ...], ...] = ()
    forward_saving: Callable[..., tuple] | None = None
    vjp_saved: tuple[Callable[..., Array], ...] = ()
    internal: bool = False
    jvp_grouped: Callable[..., Array] | None = None
    jvp_zero: Callable[..., Array] | None = None


REGISTRY: dict[str, Op] = {}
_PLACEHOLDER = re.compile(r"\{(\d+)\}")


def register(op: Op) -> Op:
    """Add a row to the registry.

    Raises ValueError when the name is taken, when the row does not hold one vjp (and one
    partial; and one vjp_saved, with forward_saving) per argument, or when its text names an
    argument the op does not have.
    """
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name!r} registered twice")
    if len(op.vjp) != op.arity or len(op.partials) != op.arity:
        raise ValueError(f"op {op.name!r}: needs one vjp and one partial per argument")
    if op.vjp_text and len(op.vjp_text) != op.arity:
        raise ValueError(f"op {op.name!r}: needs one vjp_text per argument")
    if (op.forward_saving is None) != (not op.vjp_saved) or \
            (op.vjp_saved and len(op.vjp_saved) != op.arity):
        raise ValueError(f"op {op.name!r}: forward_saving needs one vjp_saved per argument")
    if op.saves_for and (len(op.saves_for) != op.arity
                         or not set().union(*op.saves_for) <= set(op.saves)):
        raise ValueError(f"op {op.name!r}: saves_for needs one entry per argument, within saves")
    texts = [t for t in (op.text, *op.partials, *op.vjp_text) if isinstance(t, str)]
    used = {int(i) for t in texts for i in _PLACEHOLDER.findall(t)}
    if any(i >= op.arity for i in used):
        raise ValueError(f"op {op.name!r}: text names an argument it does not have")
    REGISTRY[op.name] = op
    return op


def get_op(name: str) -> Op:
    """The registered op called `name`; KeyError if there is none."""
    return REGISTRY[name]
