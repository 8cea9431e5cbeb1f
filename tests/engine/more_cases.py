"""Inputs and PyTorch references for the session-6 rows (engine/ops/reductions.py, softmax.py,
minmax.py, activations.py, losses.py, norm.py), shared by tests/engine/test_ops_more.py (a fixed
table of cases, ties included) and the every-op tests of tests/engine/test_ops.py (hypothesis).

CASES: one Case per call (op, input shapes, params, how inputs are drawn). torch_call(name,
tensors, params): PyTorch's forward. STRATEGIES[name]: a hypothesis strategy of (inputs, params)
for test_ops.py, drawn from the op's smooth cases with well-separated values (no ties, nothing
near a kink or a clip bound, so central differences hold).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


@dataclass
class Case:
    """One call: op name, input shapes, params, how inputs are drawn ("normal", "ties": small
    integers so that extremes tie, "positive"), and whether central differences apply (not at
    a tie or a kink)."""

    op: str
    shapes: tuple
    params: dict = field(default_factory=dict)
    draw: str = "normal"
    smooth: bool = True

    @property
    def id(self) -> str:
        shapes = "x".join(str(tuple(s)) for s in self.shapes)
        extra = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.op}-{shapes}-{extra}-{self.draw}"


REDUCTION_PARAMS = [{}, {"axis": 0}, {"axis": -1}, {"axis": 1, "keepdims": True},
                    {"keepdims": True}]
CASES = [
    *[Case(op, (s,), p) for op in ("sum", "mean") for s in [(3, 4), (2, 3, 2)]
      for p in REDUCTION_PARAMS],
    Case("sum", ((5,),)), Case("mean", ((),)),
    *[Case("var", (s,), p) for s in [(3, 4), (2, 3, 2)]
      for p in [*REDUCTION_PARAMS, {"axis": 1, "correction": 0},
                {"correction": 0, "keepdims": True}, {"axis": 1, "correction": 2}]],
    Case("var", ((6,),)),
    *[Case(op, (s,), p, draw) for op in ("max", "min") for s in [(3, 4), (2, 3, 2)]
      for p in REDUCTION_PARAMS for draw in ("normal", "ties")],
    *[Case(op, (s,), p) for op in ("softmax", "log_softmax")
      for s in [(4,), (3, 4), (2, 3, 2)] for p in [{}, {"axis": 0}, {"axis": 1}]
      if not (len(s) == 1 and p.get("axis") == 1)],
    Case("softmax", ((),)), Case("log_softmax", ((),)),
    *[Case("logsumexp", (s,), p) for s in [(4,), (3, 4), (2, 3, 2)]
      for p in [{}, {"axis": 0}, {"axis": None}, {"axis": 0, "keepdims": True},
                {"keepdims": True}]],
    Case("logsumexp", ((),)),
    Case("cross_entropy", ((5,),), {"target": 3}), Case("cross_entropy", ((1,),), {"target": 0}),
    Case("cross_entropy", ((4, 3),), {"target": (2, 0, 1, 1)}),
    Case("cross_entropy", ((1, 5),), {"target": (4,)}),
    *[Case("mse", (s, s)) for s in [(), (4,), (3, 2)]],
    *[Case("silu", (s,)) for s in [(), (5,), (2, 3)]],
    *[Case("leaky_relu", (s,), p) for s in [(5,), (2, 3)] for p in [{}, {"slope": 0.2},
                                                                       {"slope": -0.5}]],
    *[Case(op, shapes, {}, draw, draw == "normal") for op in ("maximum", "minimum")
      for shapes in [((4,), (4,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 3, 1), (3, 4))]
      for draw in ("normal", "ties")],
    *[Case("clip", (s,), p) for s in [(7,), (2, 3)] for p in
      [{"lo": -0.5, "hi": 0.5}, {"lo": 0, "hi": None}, {"lo": None, "hi": 0.25}]],
    *[Case("layer_norm", (s, s[-1:], s[-1:]), p) for s in [(4,), (3, 5), (2, 3, 4)]
      for p in [{}, {"eps": 1e-3}]],
]


def inputs(case: Case, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    xs = []
    for shape in case.shapes:
        if case.draw == "ties":
            x = rng.integers(-1, 2, size=shape).astype(np.float64)
        else:
            x = rng.normal(size=shape)
        xs.append(np.asarray(x, dtype=np.float64))
    if case.op == "clip":   # keep off the bounds for central differences (bounds: see edges)
        x = xs[0]
        for b in (case.params.get("lo"), case.params.get("hi")):
            if b is not None:
                x = np.where(np.abs(x - b) < 0.05, b + 0.3, x)
        xs[0] = x
    if case.op == "leaky_relu":
        xs[0] = np.where(np.abs(xs[0]) < 0.05, 0.5, xs[0])
    return xs


def torch_call(name: str, ts: list[torch.Tensor], p: dict) -> torch.Tensor:
    """PyTorch's own call for op `name` with params `p` on float64 tensors `ts`."""
    x = ts[0]
    axis, keep = p.get("axis"), p.get("keepdims", False)
    every = tuple(range(x.ndim))   # torch's spelling of axis=None with keepdim
    dim = every if axis is None else axis
    if name in ("sum", "mean"):
        f = torch.sum if name == "sum" else torch.mean
        return f(x, dim=dim, keepdim=keep) if (axis is not None or keep) else f(x)
    if name == "var":
        return torch.var(x, dim=dim if x.ndim else None, correction=p.get("correction", 1),
                         keepdim=keep)
    if name in ("max", "min"):   # amax / amin: ties share the gradient (the rows' rule)
        f = torch.amax if name == "max" else torch.amin
        return f(x, dim=dim, keepdim=keep)
    if name in ("softmax", "log_softmax"):
        return getattr(torch, name)(x, dim=p.get("axis", -1))
    if name == "logsumexp":
        lse_dim = p.get("axis", -1)
        return torch.logsumexp(x, dim=every if lse_dim is None else lse_dim, keepdim=keep)
    if name == "cross_entropy":
        target = p["target"]
        if isinstance(target, int):
            return F.cross_entropy(x[None], torch.tensor([target]))
        return F.cross_entropy(x, torch.tensor(target))
    if name == "mse":
        return F.mse_loss(ts[0], ts[1])
    if name == "silu":
        return F.silu(x)
    if name == "leaky_relu":
        return F.leaky_relu(x, negative_slope=p.get("slope", 0.01))
    if name in ("maximum", "minimum"):
        return getattr(torch, name)(ts[0], ts[1])
    if name == "clip":
        return torch.clamp(x, min=p.get("lo"), max=p.get("hi"))
    if name == "layer_norm":
        return F.layer_norm(x, x.shape[-1:], ts[1], ts[2], eps=p.get("eps", 1e-5))
    raise KeyError(name)


# ---- hypothesis strategies for tests/engine/test_ops.py ----------------------------------------
# values k / 20 + 0.013: apart by 0.05, never 0, never on a bound of the clip cases
_SPREAD = st.integers(-40, 40).map(lambda k: k / 20 + 0.013)


def _strategy(name: str):
    cases = [c for c in CASES if c.op == name and c.smooth and c.draw == "normal"]

    @st.composite
    def draw(draw):
        case = draw(st.sampled_from(cases))
        sizes = [int(np.prod(s)) for s in case.shapes]
        pool = draw(hnp.arrays(np.float64, sum(sizes), elements=_SPREAD, unique=True))
        xs, at = [], 0
        for shape, size in zip(case.shapes, sizes):
            xs.append(np.reshape(pool[at:at + size], shape))
            at += size
        return xs, dict(case.params)
    return draw


STRATEGIES = {name: _strategy(name) for name in sorted({c.op for c in CASES})}
