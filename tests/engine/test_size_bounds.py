"""The size check's bounds (issue 15 §1, twelfth round): the light bound, budget_graded's bound
and scalar_bound are each an upper bound of the next and of the per-node estimate (numbers
unknown) on varied programs (fan-out, unicode names, quotes in labels, non-finite values,
checkpoints, a comparison as the output, unused nodes, loops, functions, tuples); their
pieces (the texts' bytes, the ids', the groups' bound) against what they bound; and the size
check asks them cheapest first, listing the nodes once."""
from __future__ import annotations

from functools import cached_property

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.graph import node_ids
from gradwalk.engine.trace import budget, budget_graded, budget_scalar
from gradwalk.engine.trace.budget_results import groups_bound, groups_bytes
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Limits, Tracer
from test_fast_paths import SCALAR_PROGRAMS

CHAIN = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 300
PROGRAMS = [*SCALAR_PROGRAMS, CHAIN,
            "x = 1.0\nwith checkpoint():\n" + "    x = x * 1.0001 + 0.001\n" * 50 + "L = x * 3.0\n",
            "x = 1.0\nwith checkpoint():\n    y = tanh(x)\n    z = y * y\nL = z + x\n",
            "x = 2.0\ny = x * 3.0\nL = detach(y)\n",   # the output requires no grad; its input does
            "x = 2.0\ny = x * 3.0\nz = y * y\ny = y + 0.0\nL = z\n",   # L's node is not the last
            "x = 2.0\nc = const(4.0)\ny = x * 3.0\nu = x * c\nL = y + 1.0\n",   # unused nodes
            'x = 2.0\nL = gelu(x, approximate="tanh") * x\n',   # quotes in a label
            "x = 0.0\nL = 1.0 / x + x * 1e308 * 1e308\n",   # inf and nan
            "x = 1.0\nfor i in range(100):\n    x = x * 1.0001 + 0.001\n",
            "def f(a, w):\n    h = tanh(a * w)\n    return h * 2.0\nx = 0.5\nw = 0.3\n"
            + "x = f(x, w)\n" * 80,
            "a, b = 1.0, 2.0\n" + "a, b = b * 0.5, a + b\n" * 30 + "L = a * b\n",
            "x = 1.0\n" + "x = tanh(x)\n" * 300,
            "x = 1.0\n" + "x = x * 2.0\ny = x + 1.0\n" * 100 + "x = tanh(x)\n" * 100,
            "ñ = 1.0\n" + "ñ = ñ * 1.0001 + 0.001\n" * 300,
            "θ = 1.0\nφ = θ * θ\nψ = tanh(φ + θ) / 1e-300\nL = ψ * ψ - φ\n"]


@pytest.mark.parametrize("text", PROGRAMS)
def test_each_bound_bounds_the_next_and_the_estimate(text):
    tracer = Tracer(text)
    passes = budget.passes(tracer)
    light = budget.light_bound(tracer, None, passes)
    graded = budget.graded_bound(tracer, passes)
    scalar = budget.scalar_bound(tracer, passes)
    assert light >= graded >= scalar >= sum(budget.per_node(tracer, 64, exact=False)) >= \
        sum(budget.per_node(tracer, 64))


@pytest.mark.parametrize("text, options", [("x = [1.0, 2.0]\nL = sum(x * x)\n", Options()),
                                           ("x = 2.0\nL = x * x\n", Options(mode="forward")),
                                           ("x = 2.0\nL = x * x\n", Options(check=True))])
def test_the_graded_bound_takes_the_scalar_bounds_programs_only(text, options):
    tracer = Tracer(text, options=options)
    assert budget.graded_bound(tracer, budget.passes(tracer)) is None


def test_a_100_000_node_chain_fits_by_the_graded_bound():
    # issue 15 §1: the light bound passes 100 MB (3.2 times the body); this one decides, so
    # scalar_bound (twice its cost) is not asked
    tracer = Tracer("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 25_000)   # 100,001 nodes
    assert budget.graded_bound(tracer, budget.passes(tracer)) <= Limits().max_response_bytes


TEXTS = [[], [""], ["", ""], ["x", "L = x * 2"], ["x⁽²⁴⁹⁷⁾", "x̄'", "∂L/∂(x * 1.0001)", ""],
         ["é", "²", "ÿ", "Ā", "\u07ff", "\u0800", "\uffff"], ["θ", "😀 y", "a\U0010ffff"],
         ["lone \ud800 surrogate", "x"], ["a\0b", "θ\0", "c"], ['say "1"\\', "\t\n"]]


@pytest.mark.parametrize("texts", TEXTS)
@pytest.mark.parametrize("times", [1, 1500])   # past a piece of 4,096 texts
def test_the_texts_bytes_are_the_encoders(texts, times):
    many = texts * times
    counted = budget_graded.Texts(many, each=True)
    utf8 = [len(t.encode("utf-8", "surrogatepass")) for t in many]
    assert counted.each.tolist() == utf8 and counted.longest == max(utf8, default=0)
    assert counted.utf8 == sum(utf8) == budget_graded.Texts(many).utf8
    assert counted.escaped == sum(len(t.encode("ascii", "backslashreplace")) for t in many)


@pytest.mark.parametrize("n", [0, 1, 2, 9, 10, 11, 99, 100, 101, 1000, 12_345])
def test_the_ids_bytes_are_their_lengths(n):
    ids = node_ids(n)
    for indexed in (True, False):   # worked out from the index, or measured: the same
        assert budget_graded.id_bytes(ids, indexed).tolist() == [len(i) for i in ids]
        assert budget_graded.id_longest(ids, indexed) == max(map(len, ids), default=0)
    other = ["node" * (k % 3) for k in range(n)]   # not graph.node_ids': measured
    assert budget_graded.id_bytes(other).tolist() == [len(i) for i in other]
    assert budget_graded.id_longest(other) == max(map(len, other), default=0)


def test_ids_are_worked_out_from_the_index_only_when_the_tracer_says_so():
    # ids that begin and end as graph.node_ids' but differ between (the review of the twelfth
    # round: the bound guessed from the first and last id) are measured without the flag
    ids = ["n0", *(f"node{k}" for k in range(1, 99)), "n99"]
    assert budget_graded.id_bytes(ids).tolist() == [len(i) for i in ids]
    assert budget_graded.id_longest(ids) == 6
    assert not budget_graded.indexed_ids(object())   # a tracer-like object without the flag
    tracer = Tracer(CHAIN)   # every Tracer's ids are graph.node_ids'
    assert budget_graded.indexed_ids(tracer) and tracer.ids == node_ids(len(tracer.ids))
    assert budget_graded.id_bytes(tracer.ids, True).tolist() == list(map(len, tracer.ids))


GROUPED = {
    "chain": CHAIN,
    "long chain": "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 5_000,
    "leaves between": "".join(f"a{k} = 1.0\n" + "a{k} = a{k} * 2.0 + 1.0\n".format(k=k) * 70
                              for k in range(4)),
    "period 2": "x = 1.0\n" + "y = x * 2.0 + 1.0\nx = y * 0.5 - 1.0\n" * 200,
    "one-node lines": "x = 1.0\n" + "x = tanh(x)\n" * 300,
    "long sum": "x = 0.5\nL = " + " + ".join(["x * 2"] * 300) + "\n",
    "groups": "x = 1.0\n" + "".join(f'with group("ñame {i}"):\n    y{i} = tanh(x * {i}.0 + 1)\n'
                                    f"    x = y{i} * 0.5\n" for i in range(30)),
    "loop": "x = 1.0\nfor i in range(200):\n    x = x * 1.0001 + 0.001\n",
    "non-ASCII": "θ = 1.0\n" + "θ = θ * 2.0 + 1.0\n" * 300,
    "aliases": "x = 1.0\n" + "x = x * 2.0 + 1.0\ny = x\n" * 100,
}


@pytest.mark.parametrize("text", GROUPED.values(), ids=GROUPED)
def test_the_groups_bound_bounds_the_groups(text):
    program = Tracer(text).program
    longest = max(len(n.label.encode()) for n in program.nodes)
    assert groups_bound(program, longest) >= groups_bytes(program)


def test_a_chains_groups_are_bounded_closely():
    # one structure repeated: one repeat and its chunks, not 0.68 of the statements
    program = Tracer(GROUPED["long chain"]).program
    longest = max(len(n.label.encode()) for n in program.nodes)
    assert groups_bytes(program) <= groups_bound(program, longest) <= 1.15 * groups_bytes(program)


def test_the_size_check_asks_the_bounds_cheapest_first_listing_the_nodes_once(monkeypatch):
    # past the light bound the graded bound is asked, past it scalar_bound; each reads the
    # lists the light bound made (budget_scalar.Passes)
    tracer = Tracer(CHAIN)
    passes = budget.passes(tracer)
    light = budget.light_bound(tracer, None, passes)
    graded, scalar = budget.graded_bound(tracer, passes), budget.scalar_bound(tracer, passes)
    assert light > graded > scalar
    listed, asked = [], []
    sweep = budget_scalar.Passes._sweep.func   # the nodes' inputs, their counts, params
    counted = cached_property(lambda self: listed.append(1) or sweep(self))
    counted.__set_name__(budget_scalar.Passes, "_sweep")   # as a class body would
    monkeypatch.setattr(budget_scalar.Passes, "_sweep", counted)
    for name in ("graded_bound", "scalar_bound"):
        bound = getattr(budget, name)
        monkeypatch.setattr(budget, name, lambda t, *a, bound=bound, name=name:
                            asked.append((name, bound(t, *a))) or asked[-1][1])
    for limit, said in ((light, []), (light - 1, [("graded_bound", graded)]),
                        (graded - 1, [("graded_bound", graded), ("scalar_bound", scalar)])):
        listed.clear(), asked.clear()
        Tracer(CHAIN, limits=Limits(max_response_bytes=limit))
        assert asked == said and listed == [1]


def test_a_body_past_the_bounds_is_refused_where_the_estimate_passes_the_limit():
    # the estimate passes a limit just under it at the output, x⁽³⁰⁰⁾ (the results go there)
    limit = sum(budget.per_node(Tracer(CHAIN), 64)) - 1
    with pytest.raises(ProgramError) as e:
        Tracer(CHAIN, limits=Limits(max_response_bytes=limit))
    assert e.value.kind == "too_large" and e.value.line == 301
    assert str(e.value).endswith("passed at x⁽³⁰⁰⁾")
