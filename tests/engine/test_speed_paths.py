"""Issue 15 §1's fast paths give exactly what the general code gives: the parser's chain path
(engine/parse_expressions.py `chain`: `x = x * 1.0001 + 0.001` without the stack walk), byte for
byte on whole trace bodies and error for error on bad programs; the Tracer's formulas made in
one pass (node_texts.node_texts) against the op rows' templates; the graph's edges written from one
template (graph_out.edges_json) against orjson; a scalar edge's partial taken as it is
(narrate.plain_partial) against fill; the integer-constant rule's walk skipped where no
assigned value can be an int (parse_constants.int_uses), with the same roles; the adjoint
symbols and operand parentheses of the one pass, and the reverse walk's kept adjoint texts
(reverse.scalar_edges) against formatting every number at its edge."""
from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings

import ast

from gradwalk.engine import parse_constants, parse_expressions
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.graph import graph_edges
from gradwalk.engine.ops import REGISTRY
from gradwalk.engine.labels import ATOM, OPERAND_PARENS, operand_text, strength
from gradwalk.engine.trace import narrate, reverse
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.graph_out import edges_json
from gradwalk.engine.trace.node_texts import template_formula
from gradwalk.engine.trace.runner import Tracer, trace_json
from helpers import CASES
from gradwalk.server.presets import presets
from test_random_programs import programs

CHAINS = [
    "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 40,
    "a = 2.0\nb = -0.5\nc = a * b - a / b + a ** 2 - b\nv = [1.0, 2.0]\nw = v @ v * c\nL = w * w\n",
    "a = [1.0, 2.0]\nb = [[3.0], [4.0]]\nc = a * b + 1 - b / 3\nL = sum(c * c)\n",
    "α = 0.5\nβ = 1.5\nγ = α * β + α / 1.25 - β\nL = γ ** 2\n",   # non-ASCII columns
    "x = 0.3\n" + "".join(f"x = x * 1.{'0' * 30}{k} + 0.{'0' * 40}{k}\n" for k in range(5)),
    "x = 0.3\ny = x" + " + x * 2" * 60 + "\n",   # a long label, clipped at its ends
    "x = 0.3\nx = x + 1\nx = x * x\nx = x - 2\nx = x / x\nx = x * 3.0\nx = x ** 2\n",
    "W = " + repr([[0.5] * 40] * 40) + "\nv = W * 2.0 + W\nL = sum(v)\n",   # a lifted list
    "x = 0.5\nz = x * 1\nz += 1.0\nz *= x\ny = z * 2 + 1\n",
    "a = 1.0\nb = a * 2 + 3\nwith checkpoint():\n    c = b * b - a\nL = c * 2\n",
    # a repeated number past MAX_LABEL characters: shared, its label clipped (chain's fallback)
    "x = 0.3\n" + f"x = x * 1.{'0' * 30}1 + 0.5\n" * 3,
]
BAD = [
    "a = 1.0\nb = a * c + 1\n",            # unknown name
    "a = 1.0\nb = a + 2 * c\n",            # the right operand is not plain: the general walk
    "a = 1.0\nb = a // 2 + c\n",           # an unsupported operator before an unknown name
    "a = 1.0\nb = a * tanh + 1\n",         # a function used as a value
    "a = 1.0\nb = a * b + 1\nb = 2.0\n",   # used before it is assigned
    "a = 1.0\nb = a * __import__ + 1\n",   # a reserved name
    "a = 1.0\nb = a * 'x' + 1\n",          # a string operand
]


def both(fn):
    """fn() with the chain path on, then off."""
    results = []
    for fast in (True, False):
        saved = parse_expressions.FAST_CHAIN
        parse_expressions.FAST_CHAIN = fast
        try:
            results.append(fn())
        finally:
            parse_expressions.FAST_CHAIN = saved
    return results


def error_of(text: str):
    try:
        parse(text, max_depth=4)
    except ProgramError as e:
        return e.to_dict()
    return None


@pytest.mark.parametrize("text", [*CHAINS, *[c["program"] for c in CASES],
                                  *[p["program"] for p in presets()]])
def test_the_chain_path_gives_the_general_walks_body_byte_for_byte(text):
    fast, slow = both(lambda: trace_json(text))
    assert fast == slow


@settings(max_examples=40, deadline=None)
@given(programs())
def test_the_chain_path_matches_the_general_walk_on_random_programs(text):
    fast, slow = both(lambda: trace_json(text))
    assert fast == slow


@pytest.mark.parametrize("text", BAD)
def test_the_chain_path_refuses_as_the_general_walk_does(text):
    fast, slow = both(lambda: error_of(text))
    assert fast is not None and fast == slow


def test_a_chain_is_built_without_the_general_walk(monkeypatch):
    def general(*args):
        raise AssertionError("the general walk was used")
    monkeypatch.setattr(parse_expressions.ExpressionSyntax, "visit", general)
    program = parse("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 3 + "y = x ** 3 / 2 - x\n")
    assert [n.op for n in program.nodes[-5:]] == ["const", "pow", "const", "div", "sub"]
    assert program.nodes[-1].label == "y" and program.nodes[-2].label == "x''' ** 3 / 2"


# ---- the Tracer's one pass over formulas and symbols, the graph's edges --------------------
TEXTS = [*CHAINS, *[c["program"] for c in CASES], *[p["program"] for p in presets()],
         "a = [1.0, 2.0]\nb = where(a > 0.5, a, 0.1 * a)\nL = sum(b * b)\n"]


@pytest.mark.parametrize("text", TEXTS)
def test_formulas_of_the_one_pass_are_the_templates(text):
    tracer = Tracer(text)
    assert tracer.formulas == [template_formula(tracer.program, n) for n in tracer.program.nodes]


@pytest.mark.parametrize("text", TEXTS)
def test_edges_written_from_the_template_are_orjsons_bytes(text):
    tracer = Tracer(text)
    order = tracer.order
    expected = orjson.dumps(graph_edges(tracer.program, order, tracer.ids))[1:-1]
    assert edges_json(tracer.program, order, tracer.ids) == expected
    held = sum(1 for n in tracer.program.nodes if n.params and "target_node" in n.params)
    assert expected.count(b'"source"') == sum(len(n.inputs) for n in tracer.program.nodes) + held
    assert expected.count(b'"grad":false') == held   # a name-held target: no gradient along it


@pytest.mark.parametrize("text", TEXTS)
def test_symbols_of_the_one_pass_are_bars(text):
    tracer = Tracer(text)
    assert tracer.symbols == [narrate.bar(n.label, tracer.output_label, strength(n))
                              for n in tracer.program.nodes]


def test_operand_parens_are_operand_texts():
    """node_texts.node_texts parenthesizes a binary operator's operands by labels.OPERAND_PARENS."""
    for op, (most_left, most_right) in OPERAND_PARENS.items():
        for s in range(ATOM + 1):
            assert (operand_text(op, 0, "a b", s) == "(a b)") == (s <= most_left), (op, s)
            assert (operand_text(op, 1, "a b", s) == "(a b)") == (s <= most_right), (op, s)


FAN_OUT = ["a = -2.0\nb = a * a\nc = b * a - a / b\nL = c * c + a * b - c\n",
           "a = 0.0\nb = -a\nc = a * 3.0 - b\nL = c + c * a\n",
           "a = 1e-200\nb = a * a\nL = b * 1e300 + a\n"]


@pytest.mark.parametrize("text", [*CHAINS, *FAN_OUT])
def test_adjoint_texts_kept_by_the_walk_are_the_formatted_ones(text, monkeypatch):
    """The backward pass reads the narration text of the adjoint set last; without it (every
    number formatted at its edge) the body is the same."""
    kept = trace_json(text)
    monkeypatch.setattr(reverse, "KEEP_TEXTS", False)
    assert trace_json(text) == kept
    if text in FAN_OUT:   # an input's second contribution narrates the running sum
        assert "\u0304 = ".encode() in kept


def test_a_plain_partial_is_what_fill_writes():
    labels, seen = ["(a + b)", "w1", "c'"], 0
    for op in REGISTRY.values():
        for template in op.partials:
            plain = narrate.plain_partial(template)
            if plain is None:
                continue
            seen += 1
            filled = narrate.fill(template, labels[:op.arity or 3], {}, out="(y)")
            assert (plain if type(plain) is str else labels[plain]) == filled
    assert seen >= 6   # add's, sub's and mul's at least


def test_a_big_tensors_summary_makes_no_array_of_its_squares():
    # issue 15 §1, the MLP: the norm of a million-element tensor summed its squares from an
    # array of them (8 MB made and faulted in, per tensor summarized)
    import tracemalloc

    import numpy as np

    from gradwalk.engine.trace.values import encode

    a = np.random.default_rng(0).standard_normal((512, 512))
    tracemalloc.start()
    try:
        summary = encode(a)["summary"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < a.nbytes / 8
    assert summary["norm"] == pytest.approx(float(np.linalg.norm(a)), rel=1e-14)
    for bad, shown in ((np.inf, "Infinity"), (np.nan, "NaN")):
        b = a.copy()
        b[3, 4] = bad
        assert encode(b)["summary"]["norm"] == shown
    small = np.array([0.1, 0.2, 0.3])   # below DOT_NORM_FROM: np.sum's pairwise sum, as before
    assert encode(small)["summary"]["norm"] == float(np.sqrt(np.sum(small * small)))


# ---- the integer-constant rule's walk, skipped where no value can be an int ------------------
INT_TEXTS = [
    "Y = [0, 1]\nw = [0.5, 2.0]\nL = sum(Y * w)\n",
    "c = 2\nL = c * 3.0\n",
    "t = 0.0\nw = 2.0\nt = t + w\nL = t * 3.0\n",
    "w = [0.5, -1.5]\nlabels = [1, 0, 1]\nloss = 0\n"
    "for x, y in zip([2.0, -1.0, 3.0], labels):\n    loss = loss + (w[y] * x - y) ** 2\n",
    "w = 1.5\ntotal = -0\ntotal = total + w\nL = total * w\n",   # a signed int accumulator
    "w = 1.5\nwith group(\"g\"):\n    n = 0\n    n = n + w\nL = n * 2.0\n",   # in a block
    "w = Value(2.0)\nk = Value(0)\nk = k + w\nL = k * w\n",   # micrograd's Value(int)
]


def test_a_float_chain_is_parsed_without_walking_its_expressions(monkeypatch):
    """The chain's values are operators and float literals: no assignment can be integer data
    or an accumulator, so the walk over every expression node (about 2 µs a node, 40% of the
    parse of the 10,001-node chain) is not made (issue 15 §1)."""
    walked, walk = [], ast.walk

    def counted(node):
        walked.append(type(node).__name__)
        return walk(node)
    monkeypatch.setattr(ast, "walk", counted)
    program = parse("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 50)
    uses = parse_constants.int_uses(ast.parse("a = 1.0\nb = a * 2 + 1\n"))
    monkeypatch.undo()
    assert walked == []
    assert len(program.nodes) == 201 and list(program.leaves) == ["x"]
    assert uses == parse_constants.IntUses()


@pytest.mark.parametrize("text", [*INT_TEXTS, *CHAINS, *[c["program"] for c in CASES],
                                  *[p["program"] for p in presets()]])
def test_the_integer_constants_are_those_of_the_whole_walk(text, monkeypatch):
    roles = [(n.name, n.role) for n in parse(text).nodes]
    monkeypatch.setattr(parse_constants, "may_be_int", lambda value: True)   # always walk
    assert [(n.name, n.role) for n in parse(text).nodes] == roles


def test_the_int_programs_have_their_constants():
    """The rule still applies where a value is an int (engine/parse_constants.py): int data
    read only by zip, int accumulators (signed, in a block, micrograd's Value(0)) are
    constants; int data read elsewhere, an int never rebound, a float accumulator are leaves."""
    roles = {}   # each name's first node: its leaf or constant
    for text in INT_TEXTS:
        for n in parse(text).nodes:
            if n.name:
                roles.setdefault(n.name, n.role)
    assert {k: roles[k] for k in ("Y", "c", "t", "labels", "loss", "total", "n", "k")} == {
        "Y": "leaf", "c": "leaf", "t": "leaf", "labels": "const", "loss": "const",
        "total": "const", "n": "const", "k": "const"}
