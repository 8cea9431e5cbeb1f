"""The decision boundary of a classifier with 2-D inputs, for the page's heat map; for a
regression loss (mse) over 2-D inputs, the output's value over the plane instead.

The program's inputs (the name a data helper assigned with the role "inputs", Program.data)
are replaced by the centres of a grid of cells around the data points, and the nodes between
them and the logits cross_entropy takes are evaluated again with the op rows' forward rules
(the rest of the values, the weights above all, are the iteration's). Each cell gets the class
of its largest logit and that class's softmax probability, the "confidence".

A regression (seed 000's XOR with tanh units: `mse(out, t)`, `out` of shape (N,) or (N, 1) for
the N points) has no classes: each cell gets the prediction `out` there ("values", its sign
the side of the boundary at 0), and the event carries the predictions at the data points
("outputs"), which head toward the targets as the run trains.

Grid: x from x0 to x1 in nx columns, y from y0 to y1 in ny rows, each extent the data's range
widened by PAD of it on both sides; cell (r, c) is centred at (x0 + (c + ½)(x1 - x0)/nx,
y0 + (r + ½)(y1 - y0)/ny); the lists are row-major from row 0 (the lowest y).
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.lastaxis import last_max, last_sum
from gradwalk.engine.tape import Tape
from gradwalk.engine.trace.values import number
from gradwalk.engine.train.watch import ancestors

GRID = 48     # cells a side
PAD = 0.15    # of the data's range, added on each side of the grid


class Boundary:
    """Built by `find`; `at(values)` -> the grid's fields for one set of values."""

    def __init__(self, tape: Tape, inputs: int, logits: int, points: np.ndarray,
                 target: int | None = None):
        self.tape, self.inputs, self.logits = tape, inputs, logits
        self.target = target   # a regression's target node (mse's second input), else None
        lo, hi = points.min(axis=0), points.max(axis=0)
        pad = np.maximum(PAD * (hi - lo), 0.1)
        (self.x0, self.y0), (self.x1, self.y1) = lo - pad, hi + pad
        xs = self.x0 + (np.arange(GRID) + 0.5) * (self.x1 - self.x0) / GRID
        ys = self.y0 + (np.arange(GRID) + 0.5) * (self.y1 - self.y0) / GRID
        gx, gy = np.meshgrid(xs, ys)   # row-major: rows over y, columns over x
        self.grid = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(points.dtype)
        # the rows to run again: those fed by the inputs on the way to the logits
        used, fed = ancestors(tape.program, logits), {inputs}
        self.rows = []
        for row in tape.rows:
            if row.index in used and any(k in fed for k in row.inputs):
                fed.add(row.index)
                self.rows.append(row)

    @property
    def grid_fields(self) -> dict:
        return {"x0": float(self.x0), "x1": float(self.x1), "y0": float(self.y0),
                "y1": float(self.y1), "nx": GRID, "ny": GRID}

    def over_grid(self, values: list) -> np.ndarray:
        """The logits (or a regression's predictions) at the grid's cells, float64."""
        values = list(values)
        values[self.inputs] = self.grid
        with np.errstate(all="ignore"):
            for row in self.rows:
                values[row.index] = row.op.forward(*[values[k] for k in row.inputs],
                                                   **row.params)
        return np.asarray(values[self.logits], dtype=np.float64)

    def at(self, values: list) -> dict:
        """{"grid": {x0, x1, y0, y1, nx, ny}, "classes": [class per cell], "confidence": [top
        softmax probability per cell]} for the weights in `values`; for a regression
        {"grid", "values": [prediction per cell], "outputs": [prediction per data point]},
        to 4 decimals."""
        if self.target is not None:
            return {"grid": self.grid_fields, "values": _rounded(self.over_grid(values)),
                    "outputs": _rounded(np.asarray(values[self.logits], dtype=np.float64))}
        z = self.over_grid(values)
        with np.errstate(all="ignore"):
            # 2,304 cells of a few classes: reduced column by column (engine/ops/lastaxis.py)
            p = np.exp(z - last_max(z, keepdims=True))
            p /= last_sum(p, keepdims=True)
        top = np.round(last_max(p), 4)
        return {"grid": self.grid_fields,
                "classes": np.argmax(z, axis=-1).tolist(),
                # a diverged run's NaN as the string every other number uses (JSON has none)
                "confidence": top.tolist() if np.isfinite(top).all() else
                [number(c) for c in top]}


def _rounded(a: np.ndarray) -> list:
    """A prediction's numbers, flat, to 4 decimals (a diverged run's as strings, JSON has no
    NaN)."""
    flat = np.round(a.reshape(-1), 4)
    return flat.tolist() if np.isfinite(flat).all() else [number(v) for v in flat]


def inputs_node(tape: Tape) -> int | None:
    """The node holding the program's input points (Program.data's "inputs" name), or None."""
    program = tape.program
    for name, role in getattr(program, "data", {}).items():
        if role == "inputs" and name in program.names:
            return program.names[name]
    return None


def regression(program, output: int) -> int | None:
    """The mse node the loss is made from (the last one), or None."""
    heads = [i for i in ancestors(program, output) if program.nodes[i].op == "mse"]
    return max(heads) if heads else None


def find(tape: Tape, head: int | None, values: list) -> Boundary | None:
    """The boundary of a classifier (cross_entropy node `head`) whose inputs are points of 2
    coordinates, (N, 2) with N ≥ 1, or of a regression (an mse loss, no `head`) over them whose
    prediction is one number a point, (N,) or (N, 1); None otherwise (no boundary event is
    sent)."""
    inputs = inputs_node(tape)
    if inputs is None:
        return None
    points = np.asarray(values[inputs])
    if points.ndim != 2 or points.shape[1] != 2 or len(points) == 0:
        return None
    if head is not None:
        logits = tape.program.nodes[head].inputs[0]
        return Boundary(tape, inputs, logits, points) if np.ndim(values[logits]) == 2 else None
    loss = regression(tape.program, tape.output)
    if loss is None:
        return None
    pred, target = tape.program.nodes[loss].inputs
    if np.shape(values[pred]) not in ((len(points),), (len(points), 1)) or \
            np.size(values[target]) != len(points):
        return None
    return Boundary(tape, inputs, pred, points, target)
