"""Why a local derivative has the value it has at an edge point, for the narration.

At an edge point an op's rule does not follow its formula: pow's exponent rule `x^y log x` is
0 at x = 0 (log 0 is -∞; PyTorch masks it), relu's slope at 0 is 0, where sends nothing to the
branch it did not take even when that branch is ∞. The narration prints the formula with the
rule's (right) value, `(c ** d) * log(c) = 0`, which reads as false arithmetic unless it says
why. `note` gives the words, in the first-order walk (engine/trace/reverse.py), forward mode
and the walks of the backward pass recorded as a graph (engine/trace/forward_text.py), for the
op and for its masked rows (engine/ops/masked.py: `pow_vjp_exponent` is pow's exponent rule,
with the same edge points).

Each row: op -> per argument, the edges `(where(out, *inputs, **params) -> bool mask, says)`;
`says` is filled with `{p}` the partial's text and `{0}`, `{1}` the inputs' labels. The kinks
of engine/trace/kinks.py (relu, abs, clip, maximum, max, sqrt, ...) are rows too, in their
words. Sources: PyTorch's tools/autograd/derivatives.yaml (pow_backward, pow_backward_exponent,
threshold_backward, where) and engine/ops/elementwise.py, minmax.py.
"""
from __future__ import annotations

import re

import numpy as np

from gradwalk.engine.ops import get_op
from gradwalk.engine.trace import kinks

_CONVENTION = "PyTorch's convention"


def _a(xs):
    return [np.asarray(x) for x in xs]


def _zero_power_zero(out, x, y):
    x, y = _a((x, y))
    return (x == 0) & (y == 0)


def _log_zero(out, x, y):
    x, y = _a((x, y))
    return (x == 0) & (y >= 0)


def _at_zero(out, x):
    return np.asarray(x) == 0


def _untaken(first: bool):
    def where(out, cond, a, b):
        held, branch = np.asarray(cond) != 0, np.asarray(a if first else b)
        return (~held if first else held) & ~np.isfinite(branch)
    return where


_POW = (
    ((_zero_power_zero, "{p} is taken as 0 at {0} = 0 with {1} = 0 (" + _CONVENTION
      + ": 0 · 0^(-1) has no value)"),
     (kinks.TABLE["pow"].where, "{p} is ∞ at {0} = 0: the slope of a root at 0")),
    ((_log_zero, "{p} is taken as 0 at {0} = 0 (" + _CONVENTION + ", its limit: log({0}) "
      "is -∞ there)"),),
)


def _kink_edges(op: str) -> tuple:
    """One edge per argument from engine/trace/kinks.py's row: `relu is not differentiable at
    0: [x > 0] takes PyTorch's convention (slope 0)`."""
    row = kinks.TABLE[op]
    says = f"{op} is not differentiable {row.point}: {{p}} takes {_CONVENTION} ({row.convention})"
    return ((row.where, says, f"{op} is not differentiable {row.point}: its second "
             f"derivative there is taken as 0 ({_CONVENTION})"),)


TABLE: dict[str, tuple] = {
    "pow": _POW,
    "log": (((_at_zero, "{p} is ∞ at {0} = 0 (1/0; PyTorch's is ∞ too)"),),),
    "sqrt": (((_at_zero, "sqrt is not differentiable at 0: {p} is ∞ at {0} = 0 (an infinite "
              "slope; PyTorch's is ∞ too)"),),),
    "where": ((), ((_untaken(True), "{p} is 0 where {0} is false: where did not take {1}, "
                    "so its ∞ or NaN there does not reach the output"),),
              ((_untaken(False), "{p} is 0 where {0} holds: where did not take {2}, "
                "so its ∞ or NaN there does not reach the output"),)),
    **{op: (_kink_edges(op),) * (2 if op in ("maximum", "minimum") else 1)
       for op in kinks.TABLE if op not in ("pow", "sqrt")},
}

# ---- pow's second derivatives at base 0 (engine/ops/masked.py's docstring; issue 14 §4) ------
def _between(lo, hi, closed=False):
    def where(out, x, y):
        x, y = _a((x, y))
        inside = (y >= lo) & (y <= hi) if closed else (y > lo) & (y < hi)
        return (x == 0) & inside
    return where


def _mixed_limit(out, x, y):
    x, y = _a((x, y))
    return (x == 0) & (y > 1)


_NO_MIXED = ("{p} is NaN at {0} = 0 with 0 ≤ {1} ≤ 1: the mixed second derivative of "
             "{0} ** {1} has no value there ({0}^({1}-1) (1 + {1} log {0}) falls to -∞ as "
             "{0} -> 0+, and {1} · 0^({1}-1) jumps at {1} = 1: ∞ below, 1 at 1, 0 above)")
_MIXED = ((_between(0, 1, closed=True), _NO_MIXED),
          (_mixed_limit, _POW[1][0][1]))   # y > 1: the limit 0, as the exponent rule's
_BASE_SECOND = (
    (_zero_power_zero, "{p} is taken as 0 at {0} = 0 with {1} = 0 (" + _CONVENTION
     + ": the slope {1} · {0}^({1}-1) is 0 for every {0} there)"),
    (_between(0, 1), "{p} is -∞ at {0} = 0 (the slope of a root at 0 falls from ∞)"),
    (_between(1, 2), "{p} is ∞ at {0} = 0 (the slope {1} · {0}^({1}-1) rises from 0 like a "
     "root)"),
)

# the backward graph's masked rows (engine/ops/masked.py), whose inputs are (ȳ, *the op's
# inputs) -> the op, and the edges of each of the row's own arguments: its partial in ȳ is
# the op's first-order rule (the op's edges); pow's in x and y are second derivatives (the
# table above). A selection's rule is piecewise constant in the op's inputs (its partials
# there are plain 0s), so only its partial in ȳ, the first-order mask, is at the op's edge
_ROWS = {"pow_vjp_base": ("pow", (_POW[0], _BASE_SECOND, _MIXED)),
         "pow_vjp_exponent": ("pow", (_POW[1], _MIXED, _POW[1]))}


def _row(op: str, arg: int) -> tuple[str, object, bool] | None:
    """(the op, its argument or the row's own edges, whether the partial is a second
    derivative of a kink) whose edges masked row `op`'s argument `arg` keeps; None for an op
    that is not a masked row."""
    if op in _ROWS:
        return _ROWS[op][0], _ROWS[op][1][arg], False
    base, _, k = op.rpartition("_vjp")
    if base in TABLE and (k == "" or k.isdigit()):
        return base, int(k or 0), arg > 0
    return None


def zero_term(partial: str, local, factor, what: str) -> str:
    """"" unless a term of the second-order walks (engine/trace/hvp.py `zero_terms`) was taken
    as 0 through a NaN or ∞ partial: `local` the partial's value, `factor` its upstream
    gradient or tangent (`what` names which); else the words, "; the tangent is 0 there, so
    the term is 0: a zero direction moves nothing (∂… is ∞ there)"."""
    if np.ndim(local) == 0 and np.ndim(factor) == 0 and \
            (factor != 0 or np.isfinite(local)):   # a scalar term that was not taken as 0
        return ""
    with np.errstate(all="ignore"):
        local, factor = np.broadcast_arrays(np.asarray(local, dtype=float),
                                            np.asarray(factor, dtype=float))
        hit = (factor == 0) & ~np.isfinite(local)
    count = int(np.count_nonzero(hit))
    if not count:
        return ""
    value = "NaN" if np.isnan(local[hit]).all() else "∞" if np.isinf(local[hit]).all() \
        else "NaN or ∞"
    which = "" if hit.size <= 1 else f" at {count} of its {hit.size} elements"
    return (f"; {partial} is {value} here{which}, but the {what} is 0, so the term is 0 "
            "(a zero direction moves nothing)")


def has_edges(op: str) -> bool:
    """Whether an `op` node may have words here (the size estimate's quick test)."""
    return op in TABLE or op in _ROWS or _row(op, 0) is not None


def note(op: str, arg: int, out, xs: list, labels: list[str], params: dict, partial) -> str:
    """"" away from edge points; else "; " and why `partial` (input `arg`'s local derivative
    of an `op` node with output `out` and inputs `xs`, labelled `labels`) has its value there,
    with "at k of n elements" for a tensor: `; (c ** d) * log(c) is taken as 0 at c = 0
    (PyTorch's convention, its limit: log(c) is -∞ there)`. partial: its text, or a function
    that makes it (called only at an edge point)."""
    return words(parts(op, arg, out, xs, labels, params, partial))


def words(said: list[tuple[str, str, str]]) -> str:
    """The parts of several notes as the narration's words: those that give one reason are
    said once for all their partials (`; a and b are taken as 0 at c = 0 (...)`)."""
    merged: dict[tuple[str, str], list[str]] = {}
    for before, partial, after in said:
        partials = merged.setdefault((before, after), [])
        if partial not in partials:
            partials.append(partial)
    out = ""
    for (before, after), partials in merged.items():
        if len(partials) > 1:   # one verb for all: "a and b are taken", "a and b take"
            after = re.sub(r"^ (is|takes) ", lambda m: " are " if m[1] == "is" else " take ",
                           after)
        out += f"; {before}{' and '.join(partials)}{after}"
    return out


def parts(op: str, arg: int, out, xs: list, labels: list[str], params: dict, partial
          ) -> list[tuple[str, str, str]]:
    """note's words as (before the partial, the partial, after it), for `words` to merge."""
    row, second = _row(op, arg), False
    if row is not None:   # a masked row: its base op's edges, on the op's own inputs
        (op, arg, second), xs, labels = row, xs[1:], labels[1:]
        with np.errstate(all="ignore"):
            out = get_op(op).forward(*xs, **params)
    if isinstance(arg, tuple):   # a masked row's own edges (pow's second derivatives)
        mine = arg
    else:
        edges = TABLE.get(op, ())
        if arg >= len(edges):
            return []
        mine = edges[arg]
    said = []
    for where, says, *more in mine:
        if second:   # only a kink's words have a second derivative (where's branch is 0)
            if not more:
                continue
            says = more[0]
        count, size = _hits(where, out, xs, params)
        if not count:
            continue
        partial = partial() if callable(partial) else partial
        if second or any(c.isalpha() for c in partial):   # a plain number (x ** 0.0's 0)
            which = "" if size <= 1 else f" (at {count} of its {size} elements)"
            before, _, after = says.partition("{p}")
            fill = {"slope": params.get("slope", 0.01)}
            said.append((before.format(*labels, **fill), partial if _ else "",
                         after.format(*labels, **fill) + which))
    return said


def _hits(where, out, xs: list, params: dict) -> tuple[int, int]:
    """(how many elements are at the edge, of how many); (0, 0) for a row that does not fit
    these inputs."""
    with np.errstate(all="ignore"):
        try:
            hit = np.asarray(where(out, *xs, **params))
        except (TypeError, ValueError):
            return 0, 0
    return int(np.count_nonzero(hit)), max(int(np.size(out)), hit.size)
