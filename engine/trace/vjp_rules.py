"""Each op's vjp written with registry ops, for the backward pass recorded as a graph
(engine/trace/backward_graph.py).

A rule is `rule(b, arg, g) -> node index | None`: b is the Builder positioned at the forward
node (b.x(k) its input k, b.out its output, b.op/b.const/b.num make nodes), g the node of the
upstream gradient ȳ; it returns the node of the vjp for input `arg` (before the unbroadcast
step, which the builder adds), or None when it is 0. The formulas are the registry's
(engine/ops/*.py), written as products and sums so that they can be differentiated again;
they agree with the numpy rules wherever the function is smooth. Where a numpy rule selects
(relu, leaky_relu, abs, clip, where, maximum, minimum, max, min), the rule is one masked-rule
node per argument, `ȳ * [x > 0]` (engine/ops/masked.py): the first-order rule itself, whose
own derivative in the inputs is 0, as PyTorch's double backward gives. A rule masks
where its first-order rule masks. pow, whose masks guard log 0 and 0 ** -1, is one masked-rule
node per argument (engine/ops/masked.py: the first-order vjp as a row with its own
derivatives), so differentiating it again meets no 0 · inf of the engine's own making (its NaN
is the mixed partial's at base 0, which has no value: masked.py), and the graph holds no
engine constant (inf) or kink (abs) the program did not write
(tests/engine/test_second_order_edges.py, test_second_order_sweep.py).

Ops without a rule here (gelu: its slope needs erf, which no row computes; index: a
scatter) are refused by backward_program.
"""
from __future__ import annotations

import math

import numpy as np

from gradwalk.engine.ops.registry import REGISTRY
from gradwalk.engine.ops.reductions import count
from gradwalk.engine.source import clip
from gradwalk.engine.syntax import MAX_LABEL
from gradwalk.engine.trace import narrate



def _mul(b, g, x):
    return b.op("mul", [g, x])


def _add(b, arg, g):
    return g


def _sub(b, arg, g):
    return g if arg == 0 else b.op("neg", [g])


def _times(b, arg, g):
    """x̄ += ȳ * y, ȳ += ȳ * x (the product rule's two halves)."""
    return _mul(b, g, b.x(1 - arg))


def _div(b, arg, g):
    """x̄ += ȳ / y; ȳ += -(ȳ * (out / y)) (PyTorch's div backward)."""
    if arg == 0:
        return b.op("div", [g, b.x(1)])
    return b.op("neg", [_mul(b, g, b.op("div", [b.out, b.x(1)]))])


def _pow(b, arg, g):
    """x̄ += ȳ * y * x ** (y - 1), 0 where y = 0; ȳ += ȳ * x ** y * log(x), 0 where x = 0 and
    y >= 0 (PyTorch's pow_backward_self and pow_backward_exponent, engine/ops/elementwise.py):
    each one masked-rule node (engine/ops/masked.py), not its expansion into comparisons and
    selections. A constant exponent k is worked out (2 * x for k = 2)."""
    x, y = b.x(0), b.x(1)
    k = b.nodes[y].literal
    if arg == 0 and k is not None and k.ndim == 0 and b.nodes[y].role == "const":
        k = float(k)
        if k == 0:
            return None
        if k == 1:
            return g
        power = x if k == 2 else b.op("pow", [x, b.num(k - 1)])
        return _mul(b, g, b.op("mul", [b.num(k), power]))
    return _rule_node(b, "pow_vjp_base" if arg == 0 else "pow_vjp_exponent", [g, x, y])


def _rule_node(b, op: str, inputs: list[int], params: dict | None = None) -> int:
    """One node of a masked-rule row (engine/ops/masked.py) over `inputs`, labelled as the rule
    reads (`L̄ * d * c ** (d - 1)`, `ȳ * [x > 0]`), not as a call of an engine row."""
    node = b.op(op, inputs, params)
    labels = [narrate.wrap(b.nodes[k].label) for k in inputs]
    b.nodes[node].label = clip(narrate.fill(REGISTRY[op].text, labels, params or {}), MAX_LABEL)
    return node


def _neg(b, arg, g):
    return b.op("neg", [g])


def _tanh(b, arg, g):
    """(1 - t * t) * t̄."""
    t = b.out
    return _mul(b, g, b.op("sub", [b.num(1.0), b.op("mul", [t, t])]))


def _sigmoid(b, arg, g):
    """σ (1 - σ) ȳ."""
    s = b.out
    return _mul(b, g, b.op("mul", [s, b.op("sub", [b.num(1.0), s])]))


def _selection(b, arg, g):
    """An op that selects (relu, leaky_relu, abs, clip, where, maximum, minimum, max, min): ȳ
    through the first-order row's mask, one node of the masked-rule row `<op>_vjp` (or
    `<op>_vjp<arg>`, engine/ops/masked.py) over ȳ and the op's inputs: `ȳ * [x > 0]`."""
    op = b.node.op
    name = f"{op}_vjp" if len(b.node.inputs) == 1 else f"{op}_vjp{arg}"
    return _rule_node(b, name, [g, *b.node.inputs], dict(b.node.params))


def _exp(b, arg, g):
    return _mul(b, g, b.out)


def _log(b, arg, g):
    return b.op("div", [g, b.x(0)])


def _sqrt(b, arg, g):
    return b.op("div", [g, b.op("mul", [b.num(2.0), b.out])])


def _silu(b, arg, g):
    """σ(x) (1 + x (1 - σ(x))) ȳ."""
    x = b.x(0)
    s = b.op("sigmoid", [x])
    inner = b.op("add", [b.num(1.0), b.op("mul", [x, b.op("sub", [b.num(1.0), s])])])
    return _mul(b, g, b.op("mul", [s, inner]))


def _reduce_args(b):
    p = b.node.params
    return p.get("axis"), bool(p.get("keepdims", False))


def _sum(b, arg, g):
    axis, keepdims = _reduce_args(b)
    return b.spread(g, axis, keepdims, b.x(0))


def _mean(b, arg, g):
    axis, keepdims = _reduce_args(b)
    n = count(_zeros(b, b.x(0)), axis)
    return b.spread(b.op("div", [g, b.num(float(n))]), axis, keepdims, b.x(0))


def _zeros(b, i):
    """Something of node i's shape for count() (only its shape is read)."""
    return np.broadcast_to(0.0, b.shapes[i])


def _var(b, arg, g):
    """2 (x - mean(x)) / (n - correction) ȳ, ȳ copied over the reduced axis."""
    axis, keepdims = _reduce_args(b)
    x = b.x(0)
    n = count(_zeros(b, x), axis) - b.node.params.get("correction", 1)
    mean = b.op("mean", [x], {"axis": axis, "keepdims": True})
    centred = b.op("sub", [x, mean])
    scaled = b.op("mul", [b.num(2.0 / n if n else math.inf), centred])
    return _mul(b, b.keep(g, axis, keepdims, x), scaled)


def _clip(b, arg, g):
    """ȳ where lo < x < hi, strictly (torch.clamp since 2.14), one `clip_vjp` node."""
    p = b.node.params
    if p.get("lo") is None and p.get("hi") is None:
        return g
    return _selection(b, arg, g)


def _matmul(b, arg, g):
    """X̄ = Ȳ Wᵀ, W̄ = Xᵀ Ȳ (1-D operands as numpy's matmul treats them)."""
    x, w = b.x(0), b.x(1)
    nx, nw = len(b.shapes[x]), len(b.shapes[w])
    if nx == 1 and nw == 1:
        return _mul(b, g, w if arg == 0 else x)
    if arg == 0:
        if nw == 1:   # (..., m) = (..., m, k) @ (k,): X̄ = outer(ȳ, w)
            return b.op("mul", [_column(b, g), _row(b, w)])
        if nx == 1:   # (n,) = (k,) @ (k, n): x̄ = W ȳ
            return b.op("matmul", [w, g])
        return b.op("matmul", [g, _swap(b, w)])
    if nx == 1:       # W̄ = outer(x, ȳ)
        return b.op("mul", [_column(b, x), _row(b, g)])
    if nw == 1:       # w̄ = Xᵀ ȳ
        return b.op("matmul", [_swap(b, x), g])
    return b.op("matmul", [_swap(b, x), g])


def _swap(b, i):
    """The last two axes of node i swapped (Wᵀ)."""
    n = len(b.shapes[i])
    if n == 2:
        return b.op("transpose", [i])
    axes = list(range(n - 2)) + [n - 1, n - 2]
    return b.op("transpose", [i], {"axes": axes})


def _column(b, i):
    return b.op("reshape", [i], {"shape": [*b.shapes[i], 1]})


def _row(b, i):
    shape = b.shapes[i]
    return b.op("reshape", [i], {"shape": [*shape[:-1], 1, shape[-1]]})


def _transpose(b, arg, g):
    axes = b.node.params.get("axes")
    if axes is None:
        return b.op("transpose", [g])
    return b.op("transpose", [g], {"axes": [int(a) for a in np.argsort(axes)]})


def _reshape(b, arg, g):
    return b.op("reshape", [g], {"shape": list(b.shapes[b.x(0)])})


def _piece(stack: bool):
    """concat/stack: input `arg`'s part of ȳ, taken back out by indexing."""
    def rule(b, arg, g):
        axis = b.node.params.get("axis", 0)
        ndim = len(b.shapes[b.out])
        axis = axis % ndim
        if stack:
            where = arg
        else:
            start = sum(b.shapes[b.x(k)][axis] for k in range(arg))
            where = [start, start + b.shapes[b.x(arg)][axis], None]
        index = [[None, None, None]] * axis + [where]
        return b.op("index", [g], {"index": index})
    return rule


def _where(b, arg, g):
    """Nothing to the condition (a mask); ȳ to the branch taken, one masked-rule node."""
    return None if arg == 0 else _selection(b, arg, g)


def _along(b, v, axis):
    """sum(v) along the op's axis, kept; a 0-d v is its own sum (as the numpy rules)."""
    return v if not b.shapes[v] else b.op("sum", [v], {"axis": axis, "keepdims": True})


def _softmax(b, arg, g):
    """out ⊙ (ȳ - sum(ȳ ⊙ out))."""
    axis, p = b.node.params.get("axis", -1), b.out
    inner = _along(b, b.op("mul", [g, p]), axis)
    return b.op("mul", [p, b.op("sub", [g, inner])])


def _log_softmax(b, arg, g):
    """ȳ - exp(out) ⊙ sum(ȳ)."""
    axis = b.node.params.get("axis", -1)
    return b.op("sub", [g, b.op("mul", [b.op("exp", [b.out]), _along(b, g, axis)])])


def _logsumexp(b, arg, g):
    """ȳ ⊙ exp(x - out), ȳ and out copied over the axis (the first-order rule's form: where
    out rounds, as logsumexp([1e308, 1e308]) = 1e308, it is PyTorch's 1 and 1, not
    softmax's 0.5)."""
    p = b.node.params
    axis, keepdims = p.get("axis", -1), bool(p.get("keepdims", False))
    x = b.x(0)
    if not b.shapes[x]:
        return _mul(b, g, b.op("exp", [b.op("sub", [x, b.out])]))
    out = b.keep(b.out, axis, keepdims, x)
    share = b.op("exp", [b.op("sub", [x, out])])
    return b.op("mul", [share, b.keep(g, axis, keepdims, x)])


def _cross_entropy(b, arg, g):
    """(softmax(z) - y) ȳ / N, y the one-hot targets."""
    z = b.x(0)
    shape = b.shapes[z]
    target = b.node.params.get("target", 0)
    onehot = np.zeros(shape)
    if len(shape) == 1:
        onehot[int(target)] = 1.0
        n = 1
    else:
        onehot[np.arange(shape[0]), np.asarray(target, dtype=int)] = 1.0
        n = shape[0]
    y = b.const(onehot, label="onehot")
    diff = b.op("sub", [b.op("softmax", [z], {"axis": -1}), y])
    scale = g if n == 1 else b.op("div", [g, b.num(float(n))])
    return b.op("mul", [diff, scale])


def _mse(b, arg, g):
    """±2 (pred - target) / n ȳ."""
    pred, target = b.x(0), b.x(1)
    n = max(math.prod(b.shapes[pred]), 1)
    d = b.op("sub", [pred, target] if arg == 0 else [target, pred])
    return _mul(b, g, b.op("mul", [b.num(2.0 / n), d]))


def _normalized(b):
    """(x̂, r) of the current layer_norm node as nodes, made once per node: r = 1 / sqrt(
    mean((x - mean(x))²) + eps), x̂ = (x - mean(x)) r, over the last axis (engine/ops/norm.py)."""
    key = ("layer_norm", b.out)
    if key not in b.memo:
        x = b.x(0)
        eps = b.node.params.get("eps", 1e-5)
        last = {"axis": -1, "keepdims": True}
        d = b.op("sub", [x, b.op("mean", [x], last)])
        var = b.op("mean", [b.op("mul", [d, d])], last)
        r = b.op("div", [b.num(1.0), b.op("sqrt", [b.op("add", [var, b.num(eps)])])])
        b.memo[key] = (b.op("mul", [d, r]), r)
    return b.memo[key]


def _layer_norm(b, arg, g):
    """x̄ = r (ĝ - mean(ĝ) - x̂ mean(ĝ x̂)) with ĝ = ȳ w; w̄ = ȳ x̂; b̄ = ȳ (summed over the
    rows by the unbroadcast step)."""
    if arg == 2:
        return g
    x_hat, r = _normalized(b)
    if arg == 1:
        return b.op("mul", [g, x_hat])
    last = {"axis": -1, "keepdims": True}
    g_hat = b.op("mul", [g, b.x(1)])
    centred = b.op("sub", [g_hat, b.op("mean", [g_hat], last)])
    along = b.op("mul", [x_hat, b.op("mean", [b.op("mul", [g_hat, x_hat])], last)])
    return b.op("mul", [r, b.op("sub", [centred, along])])


RULES = {
    "add": _add, "sub": _sub, "mul": _times, "div": _div, "pow": _pow, "neg": _neg,
    "tanh": _tanh, "sigmoid": _sigmoid, "relu": _selection, "exp": _exp, "log": _log,
    "sqrt": _sqrt, "abs": _selection, "silu": _silu, "leaky_relu": _selection,
    "sum": _sum, "mean": _mean, "var": _var, "max": _selection, "min": _selection,
    "maximum": _selection, "minimum": _selection, "clip": _clip,
    "matmul": _matmul, "transpose": _transpose, "reshape": _reshape,
    "concat": _piece(False), "stack": _piece(True), "where": _where,
    "softmax": _softmax, "log_softmax": _log_softmax, "logsumexp": _logsumexp,
    "cross_entropy": _cross_entropy, "mse": _mse, "layer_norm": _layer_norm,
}
