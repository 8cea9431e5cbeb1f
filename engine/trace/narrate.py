"""Teaching text: each node's forward rule and each backward edge's rule with its numbers."""
from __future__ import annotations

import numpy as np

from engine.ops.registry import Op
from engine.trace.values import short

MACRON = "\u0304"


def wrap(label: str) -> str:
    """Parenthesize a label that is an expression, so it reads right inside a formula."""
    return f"({label})" if " " in label else label


def bar(label: str) -> str:
    """The adjoint's symbol: x̄ for a name, (w1 * x)̄ for an unnamed intermediate."""
    return wrap(label) + MACRON


def formula(op: Op, out_label: str, in_labels: list[str], params: dict, named: bool) -> str:
    """The forward rule with labels, e.g. "t = tanh(d)"; just the right side when unnamed."""
    rhs = op.text.format(*_operands(op, in_labels), **params)
    return f"{out_label} = {rhs}" if named else rhs


def _operands(op: Op, labels: list[str]) -> list[str]:
    """Operator ops need parentheses around expression labels; function calls have their own."""
    return [wrap(x) for x in labels] if op.symbol else list(labels)


def _signed(x) -> str:
    s = short(x)
    return f"({s})" if s.startswith("-") else s


def accumulate(rule: str, op: Op, arg: int, out_label: str, in_labels: list[str], params: dict,
               local, g, contrib, before, after, axes=()) -> tuple[str, str]:
    """(partial, narration) for one backward edge.

    Scalars read "t = tanh(d), so d̄ += (1 - t²) · t̄ = 0.7864 · 2 = 1.5729", with the running sum
    appended at a fan-out ("; ā = 1.5729 + (-0.7864) = 0.7864").
    """
    labels = _operands(op, in_labels)
    inbar, outbar = bar(in_labels[arg]), bar(out_label)
    partial = op.partials[arg].format(*labels, out=wrap(out_label), **params)
    scalar = np.ndim(contrib) == 0 and np.ndim(g) == 0
    if local is None:
        partial = op.vjp_text[arg].format(*labels, out=wrap(out_label), g=outbar, **params)
        text = f"{rule}, so {inbar} += {partial}"
    elif scalar:
        text = (f"{rule}, so {inbar} += {wrap(partial)} · {outbar} = "
                f"{short(local)} · {_signed(g)} = {short(contrib)}")
    else:
        text = f"{rule}, so {inbar} += {wrap(partial)} ⊙ {outbar}"
    if axes:
        text += f", summed over axes {tuple(axes)} back to shape {np.shape(contrib)}"
    if before is not None:
        if scalar:
            text += f"; {inbar} = {short(before)} + {_signed(contrib)} = {short(after)}"
        else:
            text += f"; added to what {inbar} already holds"
    return partial, text
