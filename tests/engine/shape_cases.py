"""Inputs and PyTorch references for the structure ops, comparisons and where
(engine/ops/shape.py), for the every-op tests of tests/engine/test_ops.py.

CASES[name]: a hypothesis strategy of (inputs, params). TORCH[name](tensors, params): PyTorch's
forward. A comparison has no gradient in PyTorch; its reference adds 0 * sum(input), so the
gradient it reports is zeros of the input's shape, which is what the registry's rows give. A
where's condition is an input of 0s and 1s here (the mask the tracer makes from a comparison).
"""
from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradwalk.engine.ops.shape import COMPARISONS, key

_values = st.floats(-2.0, 2.0, allow_nan=False)


def _array(draw, shape):
    return draw(hnp.arrays(np.float64, shape, elements=_values))


def _shape(draw, min_dims=0):
    return draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1, max_side=3))


@st.composite
def _reshape(draw):
    x = _array(draw, _shape(draw))
    size = x.size
    shape = draw(st.sampled_from([[-1], [size, 1], [1, -1], list(reversed(x.shape)) or [1]]))
    return [x], {"shape": shape}


@st.composite
def _transpose(draw):
    x = _array(draw, _shape(draw))
    if draw(st.booleans()):
        return [x], {}
    return [x], {"axes": list(draw(st.permutations(range(x.ndim))))}


@st.composite
def _index(draw):
    shape = _shape(draw, min_dims=1)
    index = []
    for size in shape[:draw(st.integers(1, len(shape)))]:
        if draw(st.booleans()):
            index.append(draw(st.integers(-size, size - 1)))
        else:
            start = draw(st.none() | st.integers(-size, size))
            stop = draw(st.none() | st.integers(-size, size))
            step = draw(st.none() | st.sampled_from([1, 2, -1, -2]))
            index.append([start, stop, step])
    return [_array(draw, shape)], {"index": index}


@st.composite
def _concat(draw):
    shape = _shape(draw, min_dims=1)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    xs = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(shape)
        s[axis] = draw(st.integers(1, 3))
        xs.append(_array(draw, tuple(s)))
    return xs, {"axis": axis}


@st.composite
def _stack(draw):
    shape = _shape(draw)
    xs = [_array(draw, shape) for _ in range(draw(st.integers(1, 3)))]
    return xs, {"axis": draw(st.integers(-len(shape) - 1, len(shape)))}


@st.composite
def _compare(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    x, y = (_array(draw, s) for s in shapes.input_shapes)
    y = np.where(np.abs(x - y) < 0.1, x + 0.5, y)   # no ties: central differences stay put
    return [x, y], {}


@st.composite
def _where(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    cond = draw(hnp.arrays(np.float64, shapes.input_shapes[0],
                           elements=st.sampled_from([0.0, 1.0])))
    return [cond, *(_array(draw, s) for s in shapes.input_shapes[1:])], {}


CASES = {"reshape": _reshape, "transpose": _transpose, "index": _index, "concat": _concat,
         "stack": _stack, "where": _where, **{name: _compare for name in COMPARISONS}}


def _no_grad(*ts):
    return sum(0 * t.sum() for t in ts)


_TORCH_COMPARE = {"greater": torch.gt, "greater_equal": torch.ge, "less": torch.lt,
                  "less_equal": torch.le, "equal": torch.eq, "not_equal": torch.ne}

TORCH = {
    "reshape": lambda ts, p: ts[0].reshape(p["shape"]),
    "transpose": lambda ts, p: ts[0].permute(p.get("axes") or tuple(reversed(range(ts[0].ndim)))),
    "concat": lambda ts, p: torch.cat(ts, dim=p["axis"]),
    "stack": lambda ts, p: torch.stack(ts, dim=p["axis"]),
    "where": lambda ts, p: torch.where(ts[0] != 0, ts[1], ts[2]) + _no_grad(ts[0]),
    **{name: (lambda f: lambda ts, p: f(ts[0], ts[1]).to(torch.float64) + _no_grad(*ts))(f)
       for name, f in _TORCH_COMPARE.items()},
}


def torch_index(t, index):
    """x[index] in PyTorch: negative steps are not supported there, so flip first."""
    out = t
    dims = []
    for axis, k in enumerate(key(index)):
        if isinstance(k, slice) and (k.step or 1) < 0:
            start, stop, step = k.indices(t.shape[axis])
            picks = list(range(start, stop, step))
            out = out.index_select(axis, torch.tensor(picks, dtype=torch.long))
            dims.append(slice(None))
        else:
            dims.append(k)
    return out[tuple(dims)]


TORCH["index"] = lambda ts, p: torch_index(ts[0], p["index"])
