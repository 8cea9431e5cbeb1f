"""Fuzzing over generated syntax trees (issue 6, section 2): random `ast` modules built from the
language's whitelisted nodes and from every construct it refuses, printed with ast.unparse and
fed to the engine. Only ProgramError escapes, located inside the text; nothing is evaluated."""
from __future__ import annotations

import ast

from hypothesis import given, strategies as st

from gradwalk.engine.syntax import DATA, FUNCTIONS, HELPERS, STRUCTURE
from oracle import bounded, trace_or_refuse

NAMES = ["a", "b", "x", "L", "W", "y_hat", "const", "__import__", "__builtins__", "__class__",
         "eval", "exec", "open", "os", "np", "self", "_", "ｘ", "ﬁ", "x" * 70, *FUNCTIONS]
ATTRS = ["T", "__class__", "__globals__", "shape", "sum", "mro", "x" * 70]
KEYWORDS = ["axis", "approximate", "target", "__x", "dtype", "seed", "std", "low", "high",
            "noise", "x" * 70]
BINOPS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult,             # the language
          ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd]
UNARY = [ast.USub, ast.UAdd, ast.Not, ast.Invert]
NUMBERS = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-(2**70), 2**70), st.sampled_from([0.5, 1e308, 2**31, -0.0]))
CONSTANTS = st.one_of(NUMBERS, st.sampled_from([None, True, False, "s", b"b", 1j, ...]))

names = st.sampled_from(NAMES).map(lambda n: ast.Name(n, ast.Load()))
numbers = NUMBERS.map(ast.Constant)


def _lists(children):
    """Nested lists, mostly of numbers (literals), sometimes ragged or of expressions."""
    return st.lists(st.one_of(numbers, children), min_size=0, max_size=4).map(
        lambda elts: ast.List(elts, ast.Load()))


def _calls(children):
    func = st.one_of(st.sampled_from([*FUNCTIONS, *STRUCTURE, *HELPERS, *DATA, "const", "print",
                                      "__import__", "getattr"])
                     .map(lambda n: ast.Name(n, ast.Load())),
                     children.map(lambda c: ast.Attribute(c, "sum", ast.Load())))
    keywords = st.lists(st.builds(ast.keyword, st.sampled_from(KEYWORDS),
                                  st.one_of(numbers, st.sampled_from(["tanh", "none", "x"])
                                            .map(ast.Constant))), max_size=2)
    return st.builds(ast.Call, func, st.lists(children, min_size=0, max_size=3), keywords)


def _refused(children):
    """Constructs the language refuses, each with whitelisted parts inside."""
    load = ast.Load()
    return st.one_of(
        st.builds(ast.Subscript, children, children, st.just(load)),
        st.builds(ast.Tuple, st.lists(children, max_size=3), st.just(load)),
        st.builds(ast.Compare, children, st.just([ast.Lt()]), st.lists(children, min_size=1,
                                                                        max_size=1)),
        st.builds(ast.BoolOp, st.sampled_from([ast.And(), ast.Or()]),
                  st.lists(children, min_size=2, max_size=3)),
        st.builds(ast.IfExp, children, children, children),
        st.builds(ast.Lambda, st.just(ast.arguments([], [ast.arg("x")], None, [], [], None,
                                                    [])), children),
        st.builds(ast.ListComp, children, st.just([ast.comprehension(
            ast.Name("i", ast.Store()), ast.Name("x", load), [], 0)])),
        st.builds(ast.Starred, children, st.just(load)),
        st.builds(ast.NamedExpr, st.just(ast.Name("w", ast.Store())), children),
        st.builds(ast.JoinedStr, st.lists(st.builds(ast.FormattedValue, children,
                                                     st.just(-1), st.none()), max_size=2)),
        st.lists(children, max_size=2).map(lambda keys: ast.Dict(keys, keys)),
        st.builds(ast.Await, children),
        CONSTANTS.map(ast.Constant),
    )


def _tensor_syntax(children):
    """Indexing with int and slice literals (and negative, huge or zero-step ones), and where
    with a comparison (engine/parse_tensors.py)."""
    load = ast.Load()
    ints = st.one_of(st.integers(-3, 3), st.integers(-(2**70), 2**70)).map(ast.Constant)
    maybe = st.one_of(st.none(), ints)
    slices = st.builds(ast.Slice, maybe, maybe, maybe)
    index = st.one_of(ints, slices, st.lists(st.one_of(ints, slices), min_size=1, max_size=3)
                      .map(lambda items: ast.Tuple(items, load)))
    compare = st.builds(ast.Compare, children, st.sampled_from(
        [ast.Gt, ast.GtE, ast.Lt, ast.LtE, ast.Eq, ast.NotEq, ast.Is, ast.In]).map(lambda o: [o()]),
        st.lists(children, min_size=1, max_size=1))
    return st.one_of(
        st.builds(ast.Subscript, children, index, st.just(load)),
        st.builds(lambda c, a, b: ast.Call(ast.Name("where", load), [c, a, b], []),
                  compare, children, children),
    )


expressions = st.recursive(
    st.one_of(names, numbers),
    lambda children: st.one_of(
        st.builds(ast.BinOp, children, st.sampled_from(BINOPS).map(lambda o: o()), children),
        st.builds(ast.UnaryOp, st.sampled_from(UNARY).map(lambda o: o()), children),
        children.map(lambda c: ast.Attribute(c, "T", ast.Load())),
        st.builds(ast.Attribute, children, st.sampled_from(ATTRS), st.just(ast.Load())),
        _calls(children),
        _lists(children),
        _refused(children),
        _tensor_syntax(children),
    ),
    max_leaves=25,
)


def _target(name: str) -> ast.Name:
    return ast.Name(name, ast.Store())


statements = st.one_of(
    # mostly `name = expression`, the one statement the language has
    st.builds(lambda n, v: ast.Assign([_target(n)], v), st.sampled_from(NAMES), expressions),
    st.builds(lambda n, v: ast.Assign([_target(n)], v), st.sampled_from(NAMES), expressions),
    st.builds(lambda n, v: ast.Assign([_target(n)], v), st.sampled_from(NAMES), expressions),
    st.builds(lambda n, v: ast.AugAssign(_target(n), ast.Add(), v), st.sampled_from(NAMES),
              expressions),
    st.builds(lambda v: ast.Assign([_target("a"), _target("b")], v), expressions),
    st.builds(lambda v: ast.Assign([ast.Tuple([_target("a"), _target("b")], ast.Store())], v),
              expressions),
    st.builds(lambda v: ast.AnnAssign(_target("a"), ast.Name("float", ast.Load()), v, 1),
              expressions),
    st.builds(ast.Expr, expressions),
    st.just(ast.Import([ast.alias("os")])),
    st.just(ast.ImportFrom("os", [ast.alias("system")], 0)),
    st.builds(lambda v: ast.FunctionDef("f", ast.arguments([], [], None, [], [], None, []),
                                        [ast.Return(v)], [ast.Name("d", ast.Load())], None),
              expressions),
    st.builds(lambda v: ast.For(_target("i"), v, [ast.Pass()], []), expressions),
    st.builds(lambda v: ast.With([ast.withitem(v, None)], [ast.Pass()]), expressions),
    st.builds(lambda v: ast.Delete([ast.Name("a", ast.Del())]), expressions),
)


@st.composite
def modules(draw) -> str:
    """The text of a random module: a few leaves first (so names resolve), then statements."""
    leaves = [ast.Assign([_target(n)], ast.Constant(draw(st.floats(-2, 2))))
              for n in draw(st.lists(st.sampled_from(["a", "b", "x", "W"]), max_size=3,
                                     unique=True))]
    body = leaves + draw(st.lists(statements, min_size=0, max_size=6))
    module = ast.fix_missing_locations(ast.Module(body, []))
    return ast.unparse(module)


@bounded(1500)
@given(modules())
def test_generated_syntax_trees(text):
    trace_or_refuse(text)


@bounded(600)
@given(expressions)
def test_generated_expressions_after_leaves(expr):
    text = "a = 1.0\nb = [1.0, 2.0]\nx = [[1.0, 2.0], [3.0, 4.0]]\nW = const(2.0)\nL = " \
           + ast.unparse(ast.fix_missing_locations(expr)) + "\n"
    trace_or_refuse(text)
