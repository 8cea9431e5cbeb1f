"""The scalar backward edges' rows (engine/trace/reverse.py `_edges`): per op of the scalar path
(engine/trace/scalar.py) what its edges read once, not per edge, and the edges' cold cases
(a rule called, a partial filled, a running sum)."""
from __future__ import annotations

import functools

from gradwalk.engine.labels import ATOM, strength
from gradwalk.engine.ops import get_op
from gradwalk.engine.trace import narrate, scalar
from gradwalk.engine.trace.values import number, short


def row(rows: dict, name: str) -> tuple:
    """rows[name] made: op `name`'s scalar row (_scalar_row), () for an op of the numpy path."""
    rows[name] = made = _scalar_row(name) if name in scalar.FORWARD else ()
    return made


def only(name: str, arg: int) -> dict:
    """The rows of a walk of one argument's edge (reverse.scalar_edges' `only`): op `name`'s
    row with that argument alone in its positions."""
    rows: dict = {}
    made = row(rows, name)
    if made:
        rows[name] = made[:3] + ((arg,),) + made[4:]
    return rows


@functools.lru_cache(maxsize=None)
def _scalar_row(name: str) -> tuple:
    """Once per op of the scalar path, not per edge: (its local derivatives at g = 1.0 where
    known without calling the rule (_LOCALS; None per argument where the rule is called),
    narrate.plain_partial of each of its partials, op row, its argument positions, the text
    of each local derivative that is a constant (values.short; None for the others), each
    partial that is the same text on every edge ("1", "-1"; None for the others), and that
    partial as the narration writes it (narrate.group))."""
    op = get_op(name)
    locals_ = _LOCALS.get(name, (None,) * len(op.vjp))
    plains = tuple(narrate.plain_partial(p) for p in op.partials)
    fixed = tuple(p if type(p) is str else None for p in plains)
    return (locals_, plains, op, tuple(range(len(locals_))),
            tuple(short(x) if type(x) is float else None for x in locals_), fixed,
            tuple(None if p is None else narrate.group(p) for p in fixed))


def called(row: tuple, arg: int, out: float, values: list, ins: list) -> float:
    """The local derivative of argument `arg` by the op's vjp rule with an upstream gradient
    of 1.0, on the inputs as floats; NaN where Python raises (a division by zero), which
    sends the edge to the numpy path (as a NaN from the rule does)."""
    xs = [float(values[k]) for k in ins]
    try:
        return float(row[2].vjp[arg](1.0, out, *xs))
    except ArithmeticError:   # numpy answers (inf or nan)
        return _NAN


def filled(row: tuple, arg: int, node, nodes: list) -> str:
    """The partial of argument `arg` with the labels in (narrate.fill), for a template that
    is not plain (narrate.plain_partial)."""
    wrapped = [_wrapped(nodes[k]) for k in node.inputs]
    return narrate.fill(row[2].partials[arg], wrapped, node.params, out=_wrapped(node))


_NAN = float("nan")


def _wrapped(node) -> str:
    """narrate.wrap of a node's label, from the IR (labels.strength) rather than by reading the
    label's text back: a label in the rule's math, parenthesized unless it is an atom."""
    return node.label if strength(node) == ATOM else f"({node.label})"


def local_text(texts: dict, local: float) -> str:
    """values.short of a local derivative, kept in `texts` (a walk's), since it repeats (a
    constant factor): written once. (Equal floats write alike: 0.0 and -0.0 are both "0".)
    At most LOCAL_TEXTS are kept: a walk whose factors all differ keeps no more."""
    if len(texts) >= LOCAL_TEXTS:
        texts.clear()
    texts[local] = text = short(local)
    return text


LOCAL_TEXTS = 1024


# The local derivative of + - * at an upstream gradient of 1.0 (engine/ops/elementwise.py's
# vjp rules evaluated by hand): a constant, or the index of the input it equals (mul's other
# operand: 1.0 * y is y, bit for bit, -0.0 and NaN included). Other ops call their rule.
_LOCALS = {"add": (1.0, 1.0), "sub": (1.0, -1.0), "mul": (1, 0)}


def summed(adjoints: list, j: int, before, before_text: str | None, contrib: float,
           contrib_text: str, text: str, inbar: str, tiny) -> tuple:
    """A contribution added to what input j already holds (its text `before_text` when known):
    (the adjoint after, its text, the narration with the running sum, the adjoint before
    and after as JSON, whether the record must be watched: its adjoint is not a normal
    number and `tiny` is set)."""
    after = float(before) + contrib
    adjoints[j] = after
    after_text = short(after)
    text += (f"; {inbar} = {before_text if before_text is not None else short(before)}"
             f" + {f'({contrib_text})' if contrib_text[0] == '-' else contrib_text}"
             f" = {after_text}")
    odd = tiny is not None and not (after - after == 0.0 and abs(after) >= tiny)
    return (after, after_text, text, _number(before),
            after if after - after == 0.0 else number(after), odd)


def _number(x):
    """A scalar as JSON: the float itself when finite (the common case, without a call)."""
    return x if type(x) is float and x - x == 0.0 else number(x)
