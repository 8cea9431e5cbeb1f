"""ATen ops written as gradwalk expressions, for gradwalk.from_torch (server/torch_bridge.py).

A row is write(node) -> the expression's text (gradwalk's language, README "The language"),
"=name" when the op only passes a value on (a copy, the first item of nll_loss_forward's
pair), or raises ProgramError "unsupported" for an argument it cannot write. The ATen
signatures are PyTorch's native_functions.yaml (aten::linear(input, weight, bias=None),
aten::addmm(self, mat1, mat2, *, beta=1, alpha=1), ...). Imports no torch itself.
"""
from __future__ import annotations

from typing import Callable

from gradwalk.engine.errors import ProgramError


def aten_name(target) -> str:
    """`aten.linear.default` for torch.ops.aten.linear.default; `getitem` for operator's."""
    name = str(target)
    return "getitem" if name.endswith("getitem") else name


class Node:
    """An FX node's arguments as program text: arg(i, default) is a node's program name, a
    number's repr; shape() the node's output shape (its FakeTensor, meta["val"])."""

    def __init__(self, node, names: dict[str, str]):
        self.node, self.names = node, names

    def raw(self, i: int, default=None):
        args, kwargs = self.node.args, self.node.kwargs
        schema = getattr(self.node.target, "_schema", None)
        if i < len(args):
            return args[i]
        if schema is not None and i < len(schema.arguments):
            return kwargs.get(schema.arguments[i].name, default)
        return default

    def arg(self, i: int, default=None) -> str:
        value = self.raw(i, default)
        if hasattr(value, "name") and hasattr(value, "op"):   # an fx.Node
            return self.names[value.name]
        return repr(value)

    def shape(self, i: int | None = None) -> tuple:
        node = self.node if i is None else self.raw(i)
        return tuple(node.meta["val"].shape)

    def refuse(self, why: str):
        raise ProgramError("unsupported", f"from_torch: {aten_name(self.node.target)} {why}")


def _infix(symbol: str) -> Callable[[Node], str]:
    def write(n: Node) -> str:
        alpha = n.raw(2, 1)
        right = n.arg(1) if alpha == 1 else f"{alpha!r} * {n.arg(1)}"
        return f"{n.arg(0)} {symbol} {right}"
    return write


def _call(function: str, *keywords: tuple[int, str, object]) -> Callable[[Node], str]:
    """function(arg 0, keyword=arg i ...), a keyword left out at its default."""
    def write(n: Node) -> str:
        extra = [f"{k}={n.arg(i)}" for i, k, default in keywords if n.raw(i, default) != default]
        return f"{function}({', '.join([n.arg(0)] + extra)})"
    return write


def _leaky_relu(n: Node) -> str:
    return f"leaky_relu({n.arg(0)}, {n.raw(1, 0.01)!r})"


def _linear(n: Node) -> str:
    bias = n.raw(2)
    return f"{n.arg(0)} @ {n.arg(1)}.T" + ("" if bias is None else f" + {n.arg(2)}")


def _addmm(n: Node) -> str:
    if n.raw(3, 1) != 1 or n.raw(4, 1) != 1:
        n.refuse("with beta or alpha other than 1")
    return f"{n.arg(0)} + {n.arg(1)} @ {n.arg(2)}"


def _permute(n: Node) -> str:
    return f"transpose({n.arg(0)}, {tuple(n.raw(1))!r})"


def _transpose(n: Node) -> str:
    ndim = len(n.shape(0))
    axes = list(range(ndim))
    a, b = n.raw(1) % ndim, n.raw(2) % ndim
    axes[a], axes[b] = axes[b], axes[a]
    return f"transpose({n.arg(0)}, {tuple(axes)!r})"


def _reshape(n: Node) -> str:
    """view, reshape, flatten, (un)squeeze: a reshape to the output's shape."""
    return f"reshape({n.arg(0)}, {', '.join(map(str, n.shape())) or '1'})"


def _reduce(function: str) -> Callable[[Node], str]:
    def write(n: Node) -> str:
        dims, keep = n.raw(1), n.raw(2, False)
        if not dims:   # sum.default, or dim=None / []: every element
            return f"{function}({n.arg(0)})"
        # one axis a call (gradwalk's axis is an int): the last first, so the others stay put
        ndim, text = len(n.shape(0)), n.arg(0)
        for axis in sorted((d % ndim for d in dims), reverse=True):
            text = f"{function}({text}, axis={axis}" + (", keepdims=True)" if keep else ")")
        return text
    return write


def _softmax(function: str) -> Callable[[Node], str]:
    return lambda n: f"{function}({n.arg(0)}, axis={n.arg(1)})"


def _log_softmax(n: Node) -> str:
    """Not written when only nll_loss reads it: that is written as cross_entropy of its input."""
    if n.node.users and all(aten_name(u.target) in _NLL for u in n.node.users):
        return "=" + n.arg(0)
    return _softmax("log_softmax")(n)


def _loss_options(n: Node, weight: int | None, reduction: int) -> None:
    if weight is not None and n.raw(weight) is not None:
        n.refuse("with class weights")
    if n.raw(reduction, 1) != 1:
        n.refuse("with a reduction other than 'mean'")


def _mse(n: Node) -> str:
    _loss_options(n, None, 2)
    return f"mse({n.arg(0)}, {n.arg(1)})"


def _cross_entropy(n: Node) -> str:
    _loss_options(n, 2, 3)
    if n.raw(5, 0.0):
        n.refuse("with label_smoothing")
    return f"cross_entropy({n.arg(0)}, {n.arg(1)})"


def _nll_loss(n: Node) -> str:
    """nll_loss(log_softmax(z), y) is cross_entropy(z, y); any other input is refused."""
    _loss_options(n, 2, 3)
    source = n.raw(0)
    if aten_name(getattr(source, "target", "")) not in _LOG_SOFTMAX:
        n.refuse("of anything but log_softmax")
    z = Node(source, n.names)
    if z.raw(1) % len(z.shape(0)) != len(z.shape(0)) - 1:
        n.refuse("of a log_softmax over another axis than the last")
    return f"cross_entropy({z.arg(0)}, {n.arg(1)})"


def _getitem(n: Node) -> str:
    if n.raw(1) != 0 or aten_name(n.raw(0).target) != "aten.nll_loss_forward.default":
        n.refuse("of this result")
    return "=" + n.arg(0)


_LOG_SOFTMAX = ("aten.log_softmax.int", "aten._log_softmax.default")
_NLL = ("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss_forward.default")
ROWS: dict[str, Callable[[Node], str]] = {
    "aten.linear.default": _linear, "aten.addmm.default": _addmm,
    "aten.mm.default": _infix("@"), "aten.matmul.default": _infix("@"),
    "aten.add.Tensor": _infix("+"), "aten.sub.Tensor": _infix("-"),
    "aten.mul.Tensor": _infix("*"), "aten.div.Tensor": _infix("/"),
    "aten.pow.Tensor_Scalar": _infix("**"), "aten.pow.Tensor_Tensor": _infix("**"),
    "aten.neg.default": lambda n: f"-{n.arg(0)}",
    **{f"aten.{f}.default": _call(f) for f in
       ("relu", "tanh", "sigmoid", "exp", "log", "sqrt", "abs")},
    "aten.gelu.default": _call("gelu", (1, "approximate", "none")),
    "aten.silu.default": _call("silu"), "aten.leaky_relu.default": _leaky_relu,
    "aten.softmax.int": _softmax("softmax"), "aten._softmax.default": _softmax("softmax"),
    **{name: _log_softmax for name in _LOG_SOFTMAX},
    "aten.cross_entropy_loss.default": _cross_entropy,
    **{name: _nll_loss for name in _NLL}, "getitem": _getitem,
    "aten.mse_loss.default": _mse,
    "aten.sum.default": _reduce("sum"), "aten.sum.dim_IntList": _reduce("sum"),
    "aten.mean.default": _reduce("mean"), "aten.mean.dim": _reduce("mean"),
    **{f"aten.{f}": _reshape for f in
       ("view.default", "reshape.default", "_unsafe_view.default", "flatten.using_ints",
        "unsqueeze.default", "squeeze.dim", "squeeze.default")},
    "aten.t.default": lambda n: f"{n.arg(0)}.T", "aten.permute.default": _permute,
    "aten.transpose.int": _transpose,
    **{f"aten.{f}": lambda n: "=" + n.arg(0) for f in
       ("clone.default", "alias.default", "contiguous.default")},
}
