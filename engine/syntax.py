"""The language's whitelist and its small helpers: which operators, functions and literals a
program may use, how to name a rejected construct, and where to point when the parser gives up.
"""
from __future__ import annotations

import ast

BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
          ast.MatMult: "matmul"}
# function name -> (op, allowed keyword parameters)
FUNCTIONS = {name: (name, ()) for name in
             ("tanh", "sigmoid", "relu", "exp", "log", "sqrt", "abs", "softmax")}
FUNCTIONS.update(sum=("sum", ("axis",)), mean=("mean", ("axis",)),
                 gelu=("gelu", ("approximate",)), cross_entropy=("cross_entropy", ()))
# the rows of engine/ops/{reductions,softmax,minmax,activations,losses,norm}.py
FUNCTIONS.update({name: (name, ("axis", "keepdims")) for name in ("sum", "mean", "max", "min")})
FUNCTIONS.update(
    var=("var", ("axis", "keepdims", "correction")), softmax=("softmax", ("axis",)),
    log_softmax=("log_softmax", ("axis",)), logsumexp=("logsumexp", ("axis", "keepdims")),
    cross_entropy=("cross_entropy", ("target",)), mse=("mse", ()), silu=("silu", ()),
    leaky_relu=("leaky_relu", ("slope",)), maximum=("maximum", ()), minimum=("minimum", ()),
    clip=("clip", ("lo", "hi")), layer_norm=("layer_norm", ("eps",)))
# engine/ops/cut.py: the value of x with no gradient back through it (the bug lab, issue 9)
FUNCTIONS.update(detach=("detach", ()), stop_gradient=("stop_gradient", ()))
# function name -> (how many value arguments come first, the parameters that may follow them
# by position); (1, ()) when not listed. Every parameter may also be given by keyword.
SIGNATURES = {name: (1, ("axis",)) for name in
              ("sum", "mean", "var", "max", "min", "softmax", "log_softmax", "logsumexp")}
SIGNATURES.update(cross_entropy=(1, ("target",)), leaky_relu=(1, ("slope",)),
                  clip=(1, ("lo", "hi")), mse=(2, ()), maximum=(2, ()), minimum=(2, ()),
                  layer_norm=(3, ()))
REQUIRED = {"cross_entropy": ("target",)}   # parameters a call must give
# tensor syntax (engine/parse_tensors.py): structure calls and leaf helpers
STRUCTURE = ("reshape", "transpose", "concat", "stack", "where")
HELPERS = ("randn", "uniform", "zeros", "ones", "eye", "arange")
# data helpers (engine/parse_data.py, engine/datasets.py): `X, y = xor()`, two constants
DATA = ("xor", "spirals", "moons")
RESERVED = set(FUNCTIONS) | {"const"} | set(STRUCTURE) | set(HELPERS) | set(DATA)
MAX_DIMS = 32
MAX_CLASS_INDEX = 2**31   # beyond any tensor: a value of 2**31 elements is refused
MAX_LABEL = 24    # characters of source text an unnamed intermediate's label shows
MAX_NAME = 64     # characters in a name (an identifier); a name is repeated in many events
MAX_STATEMENTS = 120_000   # statements in a program (default of the max_statements setting)
MAX_ELEMENTS = 1_000_000         # default of max_elements: the largest value (elements)
MAX_TOTAL_ELEMENTS = 5_000_000   # default of max_total_elements: all values together
MAX_DEPTH = 100   # nesting of calls, lists and right operands (default of max_depth)

# what to call a construct in an error message
CONSTRUCTS = {
    ast.Lambda: "a lambda", ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression",
    ast.Subscript: "indexing", ast.Compare: "a comparison", ast.BoolOp: "a boolean operator",
    ast.IfExp: "a conditional expression", ast.Dict: "a dict", ast.Set: "a set",
    ast.Tuple: "a tuple", ast.JoinedStr: "an f-string", ast.Await: "await", ast.Yield: "yield",
    ast.NamedExpr: "the walrus operator :=", ast.Starred: "a starred expression",
    ast.Slice: "a slice", ast.Import: "an import", ast.ImportFrom: "an import",
    ast.FunctionDef: "a function definition", ast.ClassDef: "a class definition",
    ast.For: "a for loop", ast.While: "a while loop", ast.If: "an if statement",
    ast.With: "a with statement", ast.AugAssign: "augmented assignment (write c = c + 1)",
    ast.AnnAssign: "an annotated assignment", ast.Delete: "del", ast.Return: "return",
    ast.Try: "a try statement", ast.Global: "global", ast.Expr: "a bare expression "
    "(assign it to a name)", ast.Raise: "raise", ast.Assert: "assert", ast.Pass: "pass",
    ast.Call: "the result of a call",
}


def primed(name: str, k: int) -> str:
    """The label of a name's k-th reassignment: c, c', c'', c''', then c⁽⁴⁾, c⁽⁵⁾, ..."""
    if k <= 3:
        return name + "'" * k
    if k < 1_000_000:   # three digits at a time from a table: a 25,000-line chain primes its
        # name 25,000 times, and translate took 0.25 µs of a call's 0.4
        high, low = divmod(k, 1000)
        return f"{name}⁽{_DIGITS[high]}{_PADDED[low]}⁾" if high else f"{name}⁽{_DIGITS[low]}⁾"
    return f"{name}⁽{str(k).translate(_SUPERSCRIPT)}⁾"


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
# 0..999 in superscript digits, zero-padded to three and not (0 unpadded is "": primed never
# asks for it); made at import, about 0.3 ms
_PADDED = [f"{k:03d}".translate(_SUPERSCRIPT) for k in range(1000)]
_DIGITS = [p.lstrip("⁰") for p in _PADDED]


OPERATORS = {ast.FloorDiv: "//", ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>",
              ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.Not: "`not`",
              ast.Invert: "~"}


def supported_operator(op: ast.AST) -> bool:
    return type(op) in BINOPS or isinstance(op, (ast.USub, ast.UAdd))


def construct(node: ast.AST) -> str:
    return CONSTRUCTS.get(type(node), f"`{type(node).__name__}`")


def number(node: ast.expr):
    """The number a literal node holds (with its unary signs), or None. Iterative: a run of
    thousands of signs is fine."""
    negative = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        negative ^= isinstance(node.op, ast.USub)
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return -node.value if negative else node.value
    return None


def is_literal(node: ast.expr, inner: bool = False) -> bool:
    """A number, a signed number, or a non-empty nested list of them; inside a list, a tuple
    is a list too (`X = [(0, 0), (0, 1)]`, as seed 003 writes its data)."""
    if isinstance(node, ast.List) or inner and isinstance(node, ast.Tuple):
        return bool(node.elts) and all(is_literal(e, True) for e in node.elts)
    return number(node) is not None


def depth(node: ast.expr) -> int:
    """How deeply lists nest in a literal (0 for a number); iterative, for any depth."""
    depth = 0
    while isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        depth, node = depth + 1, node.elts[0]
    return depth


def literal_value(node: ast.expr):
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal_value(e) for e in node.elts]
    return float(number(node))


def is_const_call(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "const" and len(node.args) == 1 and not node.keywords
            and is_literal(node.args[0]))


# ---- folding, for a message only ----------------------------------------------------------
_FOLDS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
          ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
          ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b}
MAX_FOLD_NODES = 15   # `10**9`, `2 * 1000 + 1`: what a hand writes, not a computation
MAX_FOLD_BITS = 256   # past any bound a message weighs (10**77 fits)


def folded(node: ast.expr) -> int | None:
    """The int an expression of int literals and + - * // % ** (and signs) comes to, as Python
    would compute it: `10**9` is 1000000000. Only said in a message (range's bounds are
    literals, engine/parse_unroll.py): never used as a value. None for anything else, for more
    than MAX_FOLD_NODES nodes, a division by 0, or a result of more than MAX_FOLD_BITS bits
    (checked before a power is taken: `10**10**10` is not computed)."""
    if sum(1 for _ in zip(range(MAX_FOLD_NODES + 1), ast.walk(node))) > MAX_FOLD_NODES:
        return None
    try:
        return _fold(node)
    except (ValueError, ZeroDivisionError):
        return None


def _fold(node: ast.expr) -> int:
    """folded's recursion, over at most MAX_FOLD_NODES nodes; ValueError for what is not
    folded."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _fold(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDS:
        a, b = _fold(node.left), _fold(node.right)
        if isinstance(node.op, ast.Pow) and (b < 0 or a.bit_length() * b > MAX_FOLD_BITS):
            raise ValueError("not folded")
        value = _FOLDS[type(node.op)](a, b)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        value = node.value
    else:
        raise ValueError("not folded")
    if value.bit_length() > MAX_FOLD_BITS:
        raise ValueError("not folded")
    return value
