"""The texts the parse hands the Tracer (Program.texts, engine/parse_run.py; issue 15 §1): the
formula and binding strength of each node the run makes, written as it makes the node, are
what node_texts.node_texts works out from the final labels with the hand-over off (texts None), node
for node and body for body; a label changed after its consumers were made (an alias `L = y`,
a function's result taken by the caller's name: the two paths that relabel a node) leaves
nothing handed over; a program traced again with other leaf values (training) gets its own
leaves' formulas, and the hand-over is never written to."""
from __future__ import annotations

import dataclasses

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.runner import Tracer, trace_json
from gradwalk.engine.train.record import with_leaves
from gradwalk.server.presets import presets
from helpers import CASES
from test_parse_run import GOOD
from test_speed_paths import CHAINS


def off(program):
    """The program with nothing handed over: the Tracer works out every text."""
    return dataclasses.replace(program, texts=None)


def texts(program, output=None):
    tracer = Tracer(program, output=output)
    return tracer.formulas, tracer.strengths, tracer.symbols


def outcome(fn):
    try:
        return fn()
    except ProgramError as e:
        return e.to_dict()


# every node's texts, whatever the statement was: replayed lines between general ones, an
# in-place update, blocks, loops, functions, long labels clipped, numbers past MAX_LABEL
PROGRAMS = [*GOOD, *CHAINS, *[c["program"] for c in CASES], *[p["program"] for p in presets()]]


@pytest.mark.parametrize("text", PROGRAMS)
def test_the_handed_texts_are_the_tracers_own(text):
    program = outcome(lambda: parse(text))
    if isinstance(program, dict):   # refused by the parse: nothing to hand over
        return
    assert outcome(lambda: texts(program)) == outcome(lambda: texts(off(program)))
    assert outcome(lambda: trace_json(program)) == outcome(lambda: trace_json(off(program)))


def test_a_chain_hands_over_every_node_after_its_first_line():
    program = parse("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 30)
    written, strengths, gaps = program.texts
    assert gaps == [(0, 5)] and strengths[:5] == [None] * 5   # the leaf, the first line
    # the named ops' formulas are the Tracer's to write: the others' are their labels
    assert list(written) == list(range(8, 121, 4))
    assert strengths[-4:] == [4, 1, 4, 4]   # ATOM, PRODUCT, ATOM, ATOM (named)
    assert texts(program) == texts(off(program))
    assert Tracer(program).formulas[-4:] == ["1.0001", "x⁽²⁹⁾ * 1.0001", "0.001",
                                             "x⁽³⁰⁾ = x⁽²⁹⁾ * 1.0001 + 0.001"]


def test_a_clipped_labels_formula_is_written_in_full():
    line = "y = long_name_number_one * long_name_number_two - long_name_number_one\n"
    program = parse("long_name_number_one = 0.5\nlong_name_number_two = 1.5\n" + line * 3)
    at = program.texts[0][0]
    clipped = program.nodes[at]
    assert clipped.name is None and clipped.label.endswith("…")
    assert Tracer(program).formulas[at] == "long_name_number_one * long_name_number_two"
    assert texts(program) == texts(off(program))


def test_another_output_gets_its_own_symbols():
    program = parse("x = 1.0\n" + "x = x * 2.0 + 0.5\n" * 5 + "y = x * 3.0\ny = x * 3.0\n")
    assert program.texts is not None
    assert texts(program, output="x") == texts(off(program), output="x")


# a label changed after its consumers were made: z's line read y' when it was made; after
# `L = y` that node's formula is `L = ...`, and its consumer `y' * 3.0` reads `L * 3.0` (the
# Tracer's formulas are written from the final labels, a label is kept as it was made)
ALIAS = "x = 2.0\ny = x * 3.0 + 1.0\ny = x * 3.0 + 1.0\nz = y * 3.0 + 1.0\nL = y\nM = z * L\n"
# `return h`: the function's result, replayed as `h = ...`, is taken by the caller as y'
RENAMED = ("def f(a):\n    h = a * 3.0 + 1.0\n    return h\n"
           "x = 2.0\ny = x * 3.0 + 1.0\ny = f(x)\nL = y * y\n")


@pytest.mark.parametrize("text, formula", [
    (ALIAS, "L * 3.0"),
    (RENAMED, "y' = x * 3.0 + 1.0"),
])
def test_a_relabelled_node_leaves_nothing_handed_over(text, formula):
    program = parse(text)
    assert program.texts is None
    assert formula in Tracer(program).formulas
    assert trace_json(program) == trace_json(off(program))


def test_a_retraced_program_keeps_each_traces_leaf_formulas():
    """Training traces one parsed program again with other leaf values (engine/train/record.py
    with_leaves): each Tracer's gaps are its own, the program's hand-over is never written."""
    program = parse("w = 0.5\ny = w * 2.0 + 1.0\ny = w * 2.0 + 1.0\ny = w * 2.0 + 1.0\n")
    handed = [list(part) for part in program.texts]
    first = Tracer(program)
    second = Tracer(with_leaves(program, {"w": 0.25}))
    assert first.formulas[0] == "w = 0.5" and second.formulas[0] == "w = 0.25"
    assert [list(part) for part in program.texts] == handed and handed[1][0] is None
    assert second.formulas[1:] == first.formulas[1:]


def test_a_chains_groups_use_the_shape_its_plan_hands_over(monkeypatch):
    """Every replayed line carries its plan's groups.shape (engine/blocks.py Statement.shape),
    so groups finds the chain's repeat without working out a structure a line; the groups
    are those of the body without the shapes."""
    from gradwalk.engine import groups as groups_module
    program = parse("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 40)
    bare = dataclasses.replace(program, body=[dataclasses.replace(s, shape=None)
                                              for s in program.body])
    expected = groups_module.groups(bare)
    made, structure = [], groups_module.structure
    monkeypatch.setattr(groups_module, "structure", lambda *a: made.append(a) or structure(*a))
    assert groups_module.groups(program) == expected
    assert len(made) == 1   # the first chain line, made by the general path
