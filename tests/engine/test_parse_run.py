"""The parser's run of operator lines (engine/parse_run.py, issue 15 §1): `name = <operator
chain>` lines built in one loop from a plan made once per distinct line text give the general
path's nodes, bodies and errors (the run off: parse_expressions.FAST_CHAIN), hand every line a
check would refuse to the general path, and build a chain's repeated line without the
builder's statement walk; the early size check's leaves, counted in one pass, are those of the
statement walk it replaced."""
from __future__ import annotations

import ast
import dataclasses

import pytest

from gradwalk.engine import parse as parse_module
from gradwalk.engine.blocks import Block
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.groups import shape
from gradwalk.engine.parse import parse
from gradwalk.engine.trace import budget_early
from gradwalk.engine.trace.runner import trace_json
from test_speed_paths import both   # fn() with the run (and the chain path) on, then off

LONG = "w" * 65   # past MAX_NAME

GOOD = [
    # the same text on many lines: one plan, each line's own nodes, labels and spans
    "x = 0.5\n" + "x = x * 1.0001 + 0.001\n" * 30,
    "x = 0.5\ny = 2.0\n" + "y = x * y - 0.25\n" * 6 + "L = y / x\n",
    "x = 0.5\n" + "x = x * 2.0 + 1.0  # a comment after the statement\n" * 5,
    "x = 0.5\n" + "x = x * 2.0 + 1.0\n\n# a comment\n" * 4,
    # the leftmost operand a number; power, division, matmul's text; parentheses
    "x = 0.5\ny = 2.0 - x\ny = 2.0 - x\nz = y ** 2.0\nz = y ** 2.0\nL = z / y - x * z\n",
    "a = [1.0, 2.0]\nb = [3.0, 4.0]\nc = a @ b + 1.0\nc = a @ b + 1.0\nL = c * c\n",
    # unnamed labels past MAX_LABEL: print_label clips them, as the general path does
    "long_name_number_one = 0.5\nlong_name_number_two = 1.5\n"
    + "y = long_name_number_one * long_name_number_two - long_name_number_one\n" * 3,
    # an alias relabels an op the run made; a name rebound in between
    "x = 0.5\ny = x * 2.0\nz = y * 2.0 + x\nL = y\nz = y * 2.0 + x\n",
    # a repeated line inside a block, and after a block, and a loop's body
    "x = 0.5\nwith group(\"g\"):\n    x = x * 2.0 + 1.0\n    x = x * 2.0 + 1.0\n"
    "x = x * 2.0 + 1.0\nfor i in range(3):\n    x = x * 2.0 + 1.0\nx = x * 2.0 + 1.0\n",
    # a statement over two lines, and one written twice on its line's text with a `;`
    "x = 0.5\ny = (x * 2.0 +\n     1.0)\ny = (x * 2.0 +\n     1.0)\nL = y * x\n",
    # a number not seen yet after one seen: the nodes made before it are not kept
    "x = 0.5\ny = x * 2.0\nz = x * 2.0 + 3.0\nz = x * 2.0 + 3.0\nL = z\n",
    # an int accumulator read by the run's lines
    "w = 1.5\ntotal = 0\ntotal = total + w\ntotal = total + w\nL = total * w\n",
]

BAD = [
    "a = 1.0\nb = a * 2.0\nb = a * 2.0; c = b * 2.0\n",    # two statements on a line
    "a = 1.0\nb = a * 2.0\ntanh = a * 2.0\n",               # a function's name
    "a = 1.0\nb = a * 2.0\n__x = a * 2.0\n",                # reserved
    f"a = 1.0\nb = a * 2.0\n{LONG} = a * 2.0\n",            # too long
    f"a = 1.0\nb = a * {LONG} + 1.0\n",                      # an operand too long
    "X, y = xor()\nb = X * 2.0\nb = X * 2.0\nX = X * 2.0\n",  # data is assigned once
    "a = 1.0\nb = a * 2.0\nb = a * 2.0\nb = c * 2.0\n",     # an unknown name
    "a = 1.0\nb = a * 2.0\nb = a * 2.0 + c\nc = 1.0\n",     # used before it is assigned
    "a = 1.0\nb = a * 2.0\nb = a // 2.0\n",                  # an unsupported operator
    "a = 1.0\nb = a * 2.0\nb = a * 'x'\n",                   # a string operand
]


def error_of(text: str, **limits):
    try:
        parse(text, **limits)
    except ProgramError as e:
        return e.to_dict()
    return None


def ir_of(text: str):
    """Every field of every node, the body's statements and the program's names. A statement's
    shape, which only the run hands over, is checked to be groups.shape of its nodes and left
    out."""
    p = parse(text)
    return ([(n.index, n.op, n.role, n.inputs, n.span, n.label, n.name, n.params,
              None if n.literal is None else n.literal.tolist()) for n in p.nodes],
            repr(_shapes_checked(p.body, p.nodes)), p.names, p.leaves, p.last)


def _shapes_checked(body: list, nodes: list) -> list:
    out = []
    for item in body:
        if isinstance(item, Block):
            item = dataclasses.replace(item, body=_shapes_checked(item.body, nodes))
        elif item.shape is not None:
            assert item.shape == shape(nodes, item.first, item.end)
            item = dataclasses.replace(item, shape=None)
        out.append(item)
    return out


@pytest.mark.parametrize("text", GOOD)
def test_the_run_makes_the_general_paths_nodes_and_body(text):
    fast, slow = both(lambda: (ir_of(text), trace_json(text)))
    assert fast == slow


@pytest.mark.parametrize("text", BAD)
def test_the_run_leaves_every_refusal_to_the_general_path(text):
    fast, slow = both(lambda: error_of(text))
    assert fast is not None and fast == slow


def test_the_node_limit_is_said_at_the_same_line():
    text = "x = 1.0\n" + "x = x * 2.0 + 1.0\n" * 10
    fast, slow = both(lambda: error_of(text, max_nodes=14))
    assert fast == slow and fast["kind"] == "too_large" and fast["line"] == 5


def test_a_chains_repeated_line_is_built_without_the_statement_walk(monkeypatch):
    """Only the leaf and the first chain line (its numbers not seen yet) go through the
    builder's statement; the 39 lines after them are the run's, from one plan."""
    walked, statement = [], parse_module._Builder.statement

    def counted(self, stmt):
        walked.append(stmt.lineno)
        return statement(self, stmt)
    monkeypatch.setattr(parse_module._Builder, "statement", counted)
    program = parse("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 40)
    assert walked == [1, 2]
    assert len(program.nodes) == 161 and program.nodes[-1].label == "x⁽⁴⁰⁾"
    assert program.nodes[-2].label == "0.001" and program.nodes[-3].label == "x⁽³⁹⁾ * 1.0001"


def _leaves_walked(tree: ast.Module) -> set[str]:
    """The early check's leaves as its statement walk found them before (d119549): every
    statement's stores counted from a stack, then the top-level `name = number` lines."""
    stores: dict[str, int] = {}
    todo = list(tree.body)
    while todo:
        s = todo.pop()
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                          ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)):
            return set()
        targets = s.targets if isinstance(s, ast.Assign) else \
            [s.target] if isinstance(s, (ast.AugAssign, ast.AnnAssign, ast.For)) else \
            [i.optional_vars for i in s.items if i.optional_vars is not None] \
            if isinstance(s, ast.With) else []
        for t in targets:
            for name in budget_early._names(t):
                stores[name] = stores.get(name, 0) + 1
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo += [x for x in getattr(s, field, ()) if isinstance(x, ast.stmt)]
    return {s.targets[0].id for s in tree.body
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Constant) and
            type(s.value.value) in (int, float) and stores.get(s.targets[0].id) == 1}


LEAF_TEXTS = [
    "a = 1.0\nb = 2\nc = 'x'\nd = True\ne = 1.0\ne = 2.0\nL = a * b + e\n",
    "a = 1.0\nb = c = 2.0\nd, e = 1.0, 2.0\nf = 3.0\n[f, g] = 1.0, 2.0\nL = a\n",
    "a = 1.0\nb = 2.0\nwith group('g'):\n    b = b * a\nfor i in range(2):\n    a += 1.0\n"
    "c = 3.0\nwith checkpoint() as c:\n    pass\nL = a\n",
    "a = 1.0\nb = 2.0\ntry:\n    a = 3.0\nexcept E:\n    b = 1.0\nelse:\n    q = 1\n"
    "finally:\n    r = 2\nif a:\n    s = 1\nelse:\n    b = 2\nL = a\n",
    "a = 1.0\nb: float = 2.0\nb = 2.0\nwhile a:\n    c = 1\nL = a\n",
    "a = 1.0\ndef f(x):\n    return x\nL = a\n",
    "a = 1.0\nimport random\nL = a\n",
    "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 5,
]


@pytest.mark.parametrize("text", LEAF_TEXTS)
def test_the_early_checks_leaves_are_the_statement_walks(text):
    assert budget_early._leaves(ast.parse(text)) == _leaves_walked(ast.parse(text))


NO_LEAF_TEXTS = [   # (text, whether the shortcut sees that no leaf is read)
    ("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 50, True),
    ("a = 1.0\nb = 2.0\na = a * b\nb = b * a\nL = a + b\n", True),
    ("a = 1.0\nb = 2.0\na = a * b\nL = a + b\n", False),     # b is a leaf: the bound decides
    ("a = 1.0\nL = a * 2.0\n", False),
    ("a = 1.0\nL = 2.0 * 3.0\n", False),                      # reads no name
    ("a = 1.0\na = 2.0\nL = a + " + " + ".join(["a"] * 40) + "\n", False),   # too long to read
]


@pytest.mark.parametrize("text, shortcut", NO_LEAF_TEXTS)
def test_the_early_checks_shortcut_holds_only_where_the_bound_counts_nothing(text, shortcut):
    tree = ast.parse(text)
    assert budget_early._no_leaf_read(tree) is shortcut
    if shortcut:
        assert budget_early.lower_bound(tree)[0] <= 0


def test_the_chains_early_check_walks_no_statement(monkeypatch):
    def walked(tree):
        raise AssertionError("every statement was walked")
    monkeypatch.setattr(budget_early, "_leaves", walked)
    budget_early.check(ast.parse("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 50), 0, None)


def test_primed_reads_its_tables_as_translate_writes_the_digits():
    # syntax.primed's digit tables against the plain translate they replaced: every k the
    # tables hold, their edges, and past them (one test: 2,110 cases of one line each)
    from gradwalk.engine.syntax import _SUPERSCRIPT, primed
    for k in [*range(0, 2100), 9_999, 10_000, 10_001, 25_000, 99_999, 100_000, 100_001,
              999_999, 1_000_000, 1_234_567]:
        want = "c" + "'" * k if k <= 3 else f"c⁽{str(k).translate(_SUPERSCRIPT)}⁾"
        assert primed("c", k) == want, k
