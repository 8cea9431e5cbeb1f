"""Each gradwalk op as PyTorch source text, for engine/torch_code.py (`gradwalk export --format
torch`). Text only: nothing here imports torch.

A row is write(args, params, shapes) -> (text, precedence): args are the inputs' texts, each
with its precedence (an int below, higher binds tighter), params the node's op parameters
(engine/ops rows), shapes the inputs' shapes (engine/trace/shape_pass.py). PyTorch's calls
are the ones the engine's rows are tested against (tests/engine/more_cases.py torch_call,
tests/engine/shape_cases.py TORCH), so the gradients agree.
"""
from __future__ import annotations

from typing import Callable

from gradwalk.engine.ops.shape import key

# Python's operator precedence, from the loosest (Python's grammar, "Operator precedence")
COMPARE, ADD, MUL, UNARY, POW, ATOM = 1, 2, 3, 4, 5, 6

Arg = tuple[str, int]
Row = Callable[[list[Arg], dict, list[tuple]], Arg]


def tight(arg: Arg, at_least: int) -> str:
    """arg's text, parenthesised when it binds looser than `at_least`."""
    text, prec = arg
    return text if prec >= at_least else f"({text})"


def _infix(symbol: str, prec: int) -> Row:
    def write(args, params, shapes):
        left, right = args
        if prec == POW:   # right-associative: a ** b ** c is a ** (b ** c); -a binds looser
            return f"{tight(left, POW + 1)} ** {tight(right, UNARY)}", POW
        return f"{tight(left, prec)} {symbol} {tight(right, prec + 1)}", prec
    return write


def _call(function: str, **fixed) -> Row:
    """function(x, ...) over every input, then the params given as keyword texts."""
    def write(args, params, shapes):
        extra = [f"{k}={v(params) if callable(v) else v}" for k, v in fixed.items()]
        extra = [e for e in extra if not e.endswith("=None")]
        return f"{function}({', '.join([a for a, _ in args] + extra)})", ATOM
    return write


def _dims(axis, ndim: int):
    """PyTorch's dim for numpy's axis: None means every axis (torch spells it as a tuple)."""
    return tuple(range(ndim)) if axis is None else axis


def _reduce(function: str, default_axis=None, every: bool = False) -> Row:
    """sum, mean, amax, amin, logsumexp: torch.f(x) over every element, else with dim= and
    keepdim= (`every`: the function needs dim even over every axis)."""
    def write(args, params, shapes):
        axis, keep = params.get("axis", default_axis), params.get("keepdims", False)
        if axis is None and not keep and not every:
            return f"{function}({args[0][0]})", ATOM
        keep_text = ", keepdim=True" if keep else ""
        return (f"{function}({args[0][0]}, dim={_dims(axis, len(shapes[0]))!r}{keep_text})",
                ATOM)
    return write


def _var(args, params, shapes):
    axis, keep = params.get("axis"), params.get("keepdims", False)
    dim = "" if axis is None else f", dim={axis!r}"
    keep_text = ", keepdim=True" if keep else ""
    return (f"torch.var({args[0][0]}{dim}, correction={params.get('correction', 1)!r}"
            f"{keep_text})", ATOM)


def _cross_entropy(args, params, shapes):
    # an int target with 1-D logits is PyTorch's unbatched form: input (C,), target ()
    target = params["target"]
    target = list(target) if isinstance(target, tuple) else target
    text = (f"{params['target_name']}.long()" if "target_name" in params else
            f"torch.tensor({target!r})")
    return f"F.cross_entropy({args[0][0]}, {text})", ATOM


def _layer_norm(args, params, shapes):
    (x, _), (w, _), (b, _) = args
    eps = params.get("eps", 1e-5)
    return f"F.layer_norm({x}, {(shapes[0][-1],)!r}, {w}, {b}, eps={eps!r})", ATOM


def _transpose(args, params, shapes):
    ndim = len(shapes[0])
    axes = params.get("axes")
    if axes is None and ndim == 2:
        return f"{tight(args[0], ATOM)}.T", ATOM
    axes = tuple(reversed(range(ndim))) if axes is None else tuple(axes)
    return f"{tight(args[0], ATOM)}.permute({axes!r})", ATOM


def _index(args, params, shapes):
    """x[index]; a negative step (which PyTorch's slicing refuses) as an index_select of the
    positions numpy's slice picks, before the other axes are indexed."""
    text = tight(args[0], ATOM)
    dims = []
    for axis, k in enumerate(key(params["index"])):
        if isinstance(k, slice) and (k.step or 1) < 0:
            picks = list(range(*k.indices(shapes[0][axis])))
            text = f"{text}.index_select({axis}, torch.tensor({picks!r}))"
            dims.append(":")
        elif isinstance(k, slice):
            text_of = ["" if v is None else str(v) for v in (k.start, k.stop, k.step)]
            dims.append(":".join(text_of if k.step is not None else text_of[:2]))
        else:
            dims.append(str(k))
    return f"{text}[{', '.join(dims)}]", ATOM


def _listed(function: str) -> Row:
    def write(args, params, shapes):
        return f"{function}([{', '.join(a for a, _ in args)}], dim={params['axis']!r})", ATOM
    return write


def _method(text: str) -> Row:
    def write(args, params, shapes):
        return f"{tight(args[0], ATOM)}.{text.format(**params)}", ATOM
    return write


def _neg(args, params, shapes):
    return f"-{tight(args[0], UNARY)}", UNARY


ROWS: dict[str, Row] = {
    "add": _infix("+", ADD), "sub": _infix("-", ADD), "mul": _infix("*", MUL),
    "div": _infix("/", MUL), "matmul": _infix("@", MUL), "pow": _infix("**", POW),
    "greater": _infix(">", COMPARE), "greater_equal": _infix(">=", COMPARE),
    "less": _infix("<", COMPARE), "less_equal": _infix("<=", COMPARE),
    "equal": _infix("==", COMPARE), "not_equal": _infix("!=", COMPARE),
    "neg": _neg,
    **{name: _call(f"torch.{name}") for name in
       ("tanh", "sigmoid", "relu", "exp", "log", "sqrt", "abs", "maximum", "minimum", "where")},
    "gelu": _call("F.gelu", approximate=lambda p: (repr(p["approximate"])
                                                   if p.get("approximate", "none") != "none"
                                                   else None)),
    "silu": _call("F.silu"),
    "leaky_relu": _call("F.leaky_relu", negative_slope=lambda p: repr(p.get("slope", 0.01))),
    "clip": _call("torch.clamp", min=lambda p: repr(p.get("lo")), max=lambda p: repr(p.get("hi"))),
    "softmax": _call("torch.softmax", dim=lambda p: repr(p.get("axis", -1))),
    "log_softmax": _call("torch.log_softmax", dim=lambda p: repr(p.get("axis", -1))),
    "logsumexp": _reduce("torch.logsumexp", default_axis=-1, every=True),
    "sum": _reduce("torch.sum"), "mean": _reduce("torch.mean"), "var": _var,
    "max": _reduce("torch.amax", every=True), "min": _reduce("torch.amin", every=True),
    "cross_entropy": _cross_entropy, "mse": _call("F.mse_loss"), "layer_norm": _layer_norm,
    "reshape": _method("reshape({shape!r})"), "transpose": _transpose, "index": _index,
    "concat": _listed("torch.cat"), "stack": _listed("torch.stack"),
    "detach": _method("detach()"), "stop_gradient": _method("detach()"),
}
