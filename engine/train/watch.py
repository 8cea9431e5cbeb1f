"""What a training run watches besides the loss: the classifier's accuracy, dead ReLU units and
divergence (a loss or a parameter that is no longer a finite number).

A dead unit (seed 003_70db1bc89ad395af.txt, "Training", seed 5): a ReLU unit whose
pre-activation is ≤ 0 for every sample of an iteration, so its mask zeroes every gradient that
would move its weights, and plain gradient descent never brings it back. In a value of shape
(..., H) the samples are the leading axes and the H units the last one; a 1-D value is one
sample of H units. In a program written with scalars a unit is several 0-d relu nodes, one per
sample (a loop's iterations, a function's calls): engine/train/units.py finds them.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from gradwalk.engine.graph import node_id
from gradwalk.engine.parse import Program
from gradwalk.engine.train.units import ScalarUnit, scalar_units
from gradwalk.engine.trace.values import number


def ancestors(program: Program, output: int) -> set[int]:
    """The nodes `output` is computed from (itself included)."""
    seen, todo = {output}, [output]
    nodes = program.nodes
    while todo:
        for k in nodes[todo.pop()].inputs:
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def classifier(program: Program, output: int) -> int | None:
    """The cross_entropy node the loss is made from (the last one, when there are several),
    or None for a regression loss (mse, a sum of squares, ...)."""
    used = ancestors(program, output)
    heads = [i for i in used if program.nodes[i].op == "cross_entropy"]
    return max(heads) if heads else None


def targets(program: Program, head: int, values: list) -> np.ndarray:
    """The class indices the cross_entropy node `head` compares with: its `target` parameter,
    or the value of its second input when the indices are held by a name."""
    node = program.nodes[head]
    if "target" in node.params:
        return np.asarray(node.params["target"])
    return np.asarray(values[node.inputs[1]]).astype(int)


def accuracy(program: Program, head: int | None, values: list, classes=None) -> float | None:
    """The fraction of samples whose largest logit is their class (None without a classifier):
    the logits are cross_entropy's first input, (C,) for one sample or (N, C). classes: the
    targets when already read (`targets`), which a training loop reads once."""
    if head is None:
        return None
    if classes is None:
        classes = targets(program, head, values)
    logits = np.asarray(values[program.nodes[head].inputs[0]])
    return float(np.count_nonzero(logits.argmax(axis=-1) == classes)) / max(classes.size, 1)


def _silent(out: np.ndarray) -> np.ndarray:
    """The columns of a ReLU's output (samples, units) that are 0 for every sample: the units
    whose pre-activation is <= 0 throughout (NaN passes as NaN, a live unit).

    A sum of numbers >= 0 is 0 only when every one is 0 (in floating point too: adding a
    positive number never rounds to 0), so one matrix-vector product with ones (BLAS) finds
    them: a column reduction of numpy's costs five times as much, a tenth of a training step
    of the spirals network."""
    return np.flatnonzero(_ones(len(out), out.dtype) @ out == 0)


@functools.lru_cache(maxsize=16)
def _ones(n: int, dtype) -> np.ndarray:
    """A read-only vector of n ones, made once per batch size and dtype (not every step)."""
    ones = np.ones(n, dtype=dtype)
    ones.flags.writeable = False
    return ones


class DeadUnits:
    """The ReLU units of a program, watched iteration by iteration; each death reported once.

    found: every death so far, as {"node", "name", "unit", "iteration"} (unit: the index along
    the last axis; name: the name the ReLU's value was assigned to, else its label). A unit of
    a program written with scalars (engine/train/units.py) adds "nodes", its relu node on each
    sample ("node" the first of them); "name" is the list it is stacked into, and "unit" its
    index there.
    """

    def __init__(self, program: Program, output: int, requires: list[bool], shapes: list):
        used = ancestors(program, output)
        self.program = program
        watched = [n.index for n in program.nodes if n.op == "relu" and n.index in used
                   and requires[n.index]]
        self.relus = [i for i in watched if shapes[i] != ()]
        # a scalar unit by its first node, as a tensor ReLU's units are by the ReLU's node
        self.scalar: dict[int, ScalarUnit] = {
            u.nodes[0]: u for u in scalar_units(program, [i for i in watched if shapes[i] == ()])}
        self.found: list[dict] = []
        self.seen: set[tuple[int, int]] = set()
        # a ReLU whose value is (samples, units) is checked as it is, with its vector of ones
        # made here once (a training step's values are arrays of the compiled shapes)
        self._plain = {i: shapes[i] for i in self.relus if shapes[i] and len(shapes[i]) == 2}

    def dead_now(self, values: list) -> list[tuple[int, int]]:
        """(relu node, unit) of every unit dead in this iteration's values (a scalar unit's
        node: its first)."""
        dead, plain = [], self._plain
        for i in self.relus:
            out = values[i]
            if type(out) is np.ndarray and out.shape == plain.get(i):
                sums = _ones(len(out), out.dtype) @ out
                if not sums.size or sums.min() > 0:   # no column is 0 (nor NaN): no unit dead
                    continue
                silent = np.flatnonzero(sums == 0)
            else:
                out = np.asarray(out)
                silent = _silent(out.reshape(-1, out.shape[-1]))
            if len(silent):   # Python ints, from one tolist (not int() of each)
                dead += [(i, u) for u in silent.tolist()]
        for first, unit in self.scalar.items():   # 0 on every sample (NaN is not 0: alive)
            if all(values[k] == 0 for k in unit.nodes):
                dead.append((first, unit.unit))
        return dead

    def update(self, values: list, iteration: int) -> list[dict]:
        """The units that died at `iteration` (not reported before); added to `found`."""
        new, seen = [], self.seen
        for pair in self.dead_now(values):   # a unit dead since an earlier step: seen
            if pair not in seen:
                seen.add(pair)
                new.append(self._report(*pair, iteration))
        self.found.extend(new)
        return new

    def _report(self, i: int, unit: int, iteration: int) -> dict:
        scalar = self.scalar.get(i)
        if scalar is not None:
            return {"node": node_id(i), "name": scalar.name, "unit": unit,
                    "iteration": iteration, "nodes": [node_id(k) for k in scalar.nodes]}
        node = self.program.nodes[i]
        return {"node": node_id(i), "name": node.name or node.label, "unit": unit,
                "iteration": iteration}

    def at(self, values: list) -> list[dict]:
        """The dead units of this iteration's values, each as reported when it died."""
        now = set(self.dead_now(values))
        return [d for d in self.found if (int(d["node"][1:]), d["unit"]) in now]


def divergence(i: int, loss, params: dict, lr: float) -> dict | None:
    """{"iteration": i, "why": ...} when iteration i's loss (before its update) or the
    parameters its update made are not finite (NaN or ±inf), else None. Gradient descent
    diverges when lr is too large for the loss's curvature: each step overshoots further
    (for a quadratic of curvature λ, once lr > 2/λ), until the numbers overflow."""
    if not (math.isfinite(loss) if type(loss) is float else np.isfinite(loss)):
        if i == 0:   # no update has run: the program's own numbers overflow
            return {"iteration": 0, "why": f"the loss is {number(loss)} at iteration 0, "
                    "before any update: the program's numbers overflow or are undefined"}
        return {"iteration": i, "why": f"the loss is {number(loss)} at iteration {i}; the "
                f"run diverged (lr {lr:.10g} may be too large)"}
    if _all_finite(params.values()):
        return None
    bad = [k for k, p in params.items() if not np.all(np.isfinite(p))]
    if not bad:   # a sum that overflowed from finite numbers
        return None
    return {"iteration": i, "why": f"the update of iteration {i} made {', '.join(bad)} "
            f"non-finite (NaN or infinity): the step lr · gradient overflowed (lr {lr:.10g} may "
            "be too large)"}


def _all_finite(params) -> bool:
    """True only when every element of every parameter is finite, from one sum each: a NaN
    makes the sum NaN, an infinity makes it infinite or NaN, so a finite total means no
    element is either (a total that overflows from finite numbers is a false alarm, and the
    caller then checks element by element). np.all(np.isfinite(p)) per parameter cost about
    6 µs each, a tenth of a spirals training step beyond numpy's."""
    total, add = 0.0, np.add.reduce   # ndarray.sum's own reduction, without its Python frame
    for p in params:
        total += p if type(p) is float else float(add(p, axis=None))
    return math.isfinite(total)
