"""The graph's `groups` (engine/groups.py, docs/trace-format.md "Groups"): statement, block and
repeat groups, their order and nesting, and `with group(...)` in the language."""
from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from engine.errors import ProgramError
from engine.groups import MAX_CHILDREN, groups
from engine.parse import parse
from engine.trace.options import Options
from engine.trace.runner import Tracer, run_trace

CHAIN_LINE = "x = x * 1.0001 + 0.001"


def span(line, col, end_line, end_col):
    return {"line": line, "col": col, "end_line": end_line, "end_col": end_col}


def group(gid, kind, name, first, end, parent, where):
    return {"id": gid, "kind": kind, "name": name, "first": first, "end": end,
            "parent": parent, "span": span(*where)}


def groups_of(text: str) -> list[dict]:
    return run_trace(text)["graph"]["groups"]


# ---- exact groups of small programs ------------------------------------------------------------
def test_a_statement_of_several_nodes_is_a_group_and_one_of_a_single_node_is_not():
    text = "a = 1.0\nb = 2.0\nh = tanh(a * b + 1.0)\nL = h * a\n"
    # nodes: a0 b1 | mul2 const3 add4 tanh5 | mul6
    assert groups_of(text) == [group("g0", "statement", "h", 2, 6, None, (3, 0, 3, 21))]


def test_nested_group_blocks_with_a_checkpoint_inside_and_a_repeat_of_three():
    text = ('a = 1.0\n'
            'with group("layer1"):\n'
            '    h = tanh(a * 2.0)\n'
            '    with checkpoint():\n'
            '        y = h * h + 1.0\n'
            '    with group("inner"):\n'
            '        z = y * a\n'
            'x = z\n'
            f'{CHAIN_LINE}\n{CHAIN_LINE}\n{CHAIN_LINE}\n')
    # a0 | const1 mul2 tanh3 | mul4 const5 add6 | mul7 | 3 x (const mul const add) from 8
    assert groups_of(text) == [
        group("g0", "block", "layer1", 1, 8, None, (2, 0, 7, 17)),
        group("g1", "statement", "h", 1, 4, "g0", (3, 4, 3, 21)),
        group("g2", "statement", "y", 4, 7, "g0", (5, 8, 5, 23)),
        group("g3", "block", "inner", 7, 8, "g0", (6, 4, 7, 17)),
        group("g4", "repeat", f"{CHAIN_LINE} ×3", 8, 20, None, (9, 0, 11, 22)),
        # named by the label each assignment gives its node: x was assigned at `x = z`
        group("g5", "statement", "x'", 8, 12, "g4", (9, 0, 9, 22)),
        group("g6", "statement", "x''", 12, 16, "g4", (10, 0, 10, 22)),
        group("g7", "statement", "x'''", 16, 20, "g4", (11, 0, 11, 22)),
    ]
    body = run_trace(text)   # the checkpoint block is still a block, not a group
    assert body["graph"]["blocks"] == [{"kind": "checkpoint", "nodes": ["n4", "n5", "n6"],
                                        "span": span(4, 9, 4, 21)}]


def test_a_group_of_one_statement_comes_before_the_statement_it_equals():
    text = 'a = 1.0\nwith group("only"):\n    y = a * 2.0 + a\n'
    assert groups_of(text) == [group("g0", "block", "only", 1, 4, None, (2, 0, 3, 19)),
                               group("g1", "statement", "y", 1, 4, "g0", (3, 4, 3, 19))]


def test_a_repeat_of_one_node_statements_holds_their_nodes_directly():
    text = "x = 0.5\nx = tanh(x)\nx = exp(x)\ny = tanh(x)\nz = tanh(y)\nw = tanh(z)\n"
    # names differ but the structure is the same; exp breaks the first run (2 < 3)
    assert groups_of(text) == [group("g0", "repeat", "y = tanh(x) ×3", 3, 6, None,
                                     (4, 0, 6, 11))]


def test_mixed_structure_is_no_repeat():
    a, b = "x = x * 2.0 + y", "x = y + x * 2.0"   # same ops, wired differently
    text = "x = 1.0\ny = 3.0\n" + "\n".join([a, b, a, a, b, a]) + "\n"
    found = groups_of(text)
    assert [g["kind"] for g in found] == ["statement"] * 6
    assert [(g["first"], g["end"]) for g in found] == [(k, k + 3) for k in range(2, 20, 3)]


def test_a_run_breaks_at_a_different_statement_and_resumes_after_it():
    text = ("x = 1.0\n" + f"{CHAIN_LINE}\n" * 3 + "x = tanh(x) * 2.0\n" + f"{CHAIN_LINE}\n" * 2)
    found = groups_of(text)
    assert [(g["kind"], g["name"], g["first"], g["end"], g["parent"]) for g in found] == [
        ("repeat", f"{CHAIN_LINE} ×3", 1, 13, None),
        ("statement", "x'", 1, 5, "g0"), ("statement", "x''", 5, 9, "g0"),
        ("statement", "x'''", 9, 13, "g0"),
        ("statement", "x⁽⁴⁾", 13, 16, None),
        ("statement", "x⁽⁵⁾", 16, 20, None), ("statement", "x⁽⁶⁾", 20, 24, None)]


def test_leaf_declarations_never_repeat_and_renames_do_not_break_a_run():
    text = "a = 1.0\nb = 2.0\nc = 3.0\nx = tanh(a)\ny = x\nx = tanh(y)\nx = tanh(x)\n"
    assert groups_of(text) == [group("g0", "repeat", "x = tanh(a) ×3", 3, 6, None,
                                     (4, 0, 7, 11))]


def test_a_program_without_groups_gives_an_empty_list():
    assert groups_of("a = 1.0\nb = 2.0\nL = a * b\n") == []
    assert groups_of("a = 1.0\nL = tanh(a)\n") == []


def test_a_200_line_chain_is_cut_into_chunks_of_at_most_64():
    text = "x = 1.0\n" + f"{CHAIN_LINE}\n" * 200
    found = groups_of(text)
    head = [(g["id"], g["name"], g["first"], g["end"], g["parent"]) for g in found
            if g["kind"] == "repeat"]
    assert head == [("g0", f"{CHAIN_LINE} ×200", 1, 801, None),
                    ("g1", "×64 (statements 1–64)", 1, 257, "g0"),
                    ("g66", "×64 (statements 65–128)", 257, 513, "g0"),
                    ("g131", "×64 (statements 129–192)", 513, 769, "g0"),
                    ("g196", "×8 (statements 193–200)", 769, 801, "g0")]
    statements = [g for g in found if g["kind"] == "statement"]
    assert [(g["first"], g["end"]) for g in statements] == [(1 + 4 * k, 5 + 4 * k)
                                                            for k in range(200)]
    assert found[196]["span"] == span(194, 0, 201, 22)
    assert _most_children(found) == 64


def test_a_5000_statement_chain_nests_chunks_of_chunks():
    n = 5000
    found = groups(parse("x = 1.0\n" + f"{CHAIN_LINE}\n" * n, max_statements=n + 1))
    top = [g for g in found if g["parent"] is None]
    assert [(g["name"], g["first"], g["end"]) for g in top] == [(f"{CHAIN_LINE} ×{n}", 1,
                                                                 4 * n + 1)]
    second = [g["name"] for g in found if g["parent"] == "g0"]
    assert second == ["×4096 (statements 1–4096)", "×904 (statements 4097–5000)"]
    assert _most_children(found) <= MAX_CHILDREN
    assert sum(g["kind"] == "statement" for g in found) == n
    _check_laminar(found, 4 * n + 1)


def test_a_lone_last_statement_is_not_a_chunk_of_one():
    found = groups_of("x = 1.0\n" + "x = tanh(x)\n" * 65)
    assert [(g["name"], g["first"], g["end"], g["parent"]) for g in found] == [
        ("x = tanh(x) ×65", 1, 66, None), ("×64 (statements 1–64)", 1, 65, "g0")]


def test_a_long_repeat_name_is_clipped_to_one_line():
    long = "x = x * 1.0 + x * 2.0 + x * 3.0 + x * 4.0 + x * 5.0 + x * 6.0 + x * 7.0 + x * 8.0"
    found = groups_of("x = 1.0\n" + f"{long}\n" * 3)
    assert found[0]["name"] == long[:59].rstrip() + "… ×3"
    multi = groups_of("x = 1.0\n" + "x = (x *\n     2.0)\n" * 3)
    assert multi[0]["name"] == "x = (x *… ×3"
    assert multi[0]["span"] == span(2, 0, 7, 9)


def test_the_stream_graph_and_the_body_carry_the_same_groups():
    text = 'a = 1.0\nwith group("g"):\n    b = a * 2.0\n    c = b * b\nL = c + a\n'
    tracer = Tracer(text)
    streamed = orjson.loads(tracer.graph_bytes())["graph"]["groups"]   # what the stream sends
    assert streamed == orjson.loads(orjson.dumps(tracer.graph_json()["groups"]))
    assert streamed == run_trace(text)["graph"]["groups"]
    assert streamed == [group("g0", "block", "g", 1, 4, None, (2, 0, 4, 13)),
                        group("g1", "statement", "b", 1, 3, "g0", (3, 4, 3, 15))]


def test_a_group_inside_a_no_grad_block_and_a_non_ascii_name():
    text = 'a = 1.0\nwith no_grad():\n    with group("слой 1"):\n        b = a * 2.0\nL = b * a\n'
    body = run_trace(text)
    assert body["graph"]["groups"] == [group("g0", "block", "слой 1", 1, 3, None,
                                             (3, 4, 4, 19)),
                                       group("g1", "statement", "b", 1, 3, "g0",
                                             (4, 8, 4, 19))]
    assert body["graph"]["blocks"][0]["kind"] == "no_grad"


def test_an_empty_group_is_left_out():
    assert groups_of('a = 1.0\nwith group("renames"):\n    b = a\nL = b * a\n') == []


# ---- `with group(...)`: bad forms ---------------------------------------------------------------
USAGE = 'group(...) takes its name as one string in quotes, as in `with group("layer1"):`'
NOT_TEXT = "which is not text in quotes)"


@pytest.mark.parametrize("line,kind,col,words", [
    ('with group():', "bad_argument", 5, USAGE),
    ('with group(1):', "bad_argument", 11, f"{USAGE} (got a number, {NOT_TEXT}"),
    ('with group("a", "b"):', "bad_argument", 16, USAGE),
    ('with group(name):', "bad_argument", 11, f"{USAGE} (got a variable, {NOT_TEXT}"),
    ('with group(f"layer{a}"):', "bad_argument", 11, f"{USAGE} (got an f-string, {NOT_TEXT}"),
    ('with group(name="a"):', "bad_argument", 11, USAGE),
    ('with group([1]):', "bad_argument", 11, USAGE),
    ('with group("a"), group("b"):', "unsupported", 0,
     'one block per `with`, as in `with group("layer1"):` (nest a second `with` inside '
     'the first)'),
    ('with no_grad(), group("b"):', "unsupported", 0,
     "one block per `with`, as in `with checkpoint():`, `with no_grad():` or "
     '`with group("layer1"):` (nest a second `with` inside the first)'),
    ('with group(""):', "bad_argument", 11, "1 to 64 printable"),
    ('with group("' + "x" * 65 + '"):', "bad_argument", 11, "1 to 64 printable"),
    ('with group("a\\tb"):', "bad_argument", 11, "printable"),
    ('with group("a") as g:', "unsupported", 19, "no `as` name"),
    ('with group:', "unsupported", 5, "the only blocks are"),
])
def test_bad_group_forms_are_refused_with_line_and_column(line, kind, col, words):
    with pytest.raises(ProgramError) as e:
        parse(f"a = 1.0\n{line}\n    b = a * 2.0\n")
    assert words in e.value.message
    if words in (USAGE,) or words.startswith(("group(...)", "one block")):
        assert e.value.message == words   # the whole message
    assert (e.value.kind, e.value.line, e.value.col) == (kind, 2, col)


def test_checkpoint_and_no_grad_blocks_still_do_not_nest_even_through_a_group():
    text = ('a = 1.0\nwith checkpoint():\n    with group("g"):\n        with no_grad():\n'
            '            b = a * 2.0\n')
    with pytest.raises(ProgramError) as e:
        parse(text)
    assert "do not nest" in e.value.message
    assert (e.value.kind, e.value.line, e.value.col) == ("unsupported", 4, 8)


def test_a_name_used_before_its_assignment_in_a_group_is_reported_as_such():
    with pytest.raises(ProgramError) as e:
        parse('a = 1.0\nwith group("g"):\n    b = c * a\n    c = a * 2\n')
    assert (e.value.kind, e.value.line, e.value.col) == ("used_before_assignment", 3, 8)


def test_statements_in_nested_groups_count_towards_the_statement_limit():
    text = 'x = 1.0\nwith group("a"):\n    with group("b"):\n' + "        x = x * 2\n" * 5
    with pytest.raises(ProgramError) as e:
        parse(text, max_statements=6)
    assert e.value.kind == "too_large"
    assert e.value.line == 7   # the 7th statement counting both `with` lines


# ---- properties over generated programs ----------------------------------------------------------
STATEMENTS = ["x = x * 1.0001 + 0.001", "x = tanh(x)", "x = x * w + 0.5", "x = w * x + 0.5",
              "y = x", "x = y * y", "LEAF", "x = exp(x * 0.1) * w"]


@st.composite
def programs(draw):
    """Bodies of the statements above, with `with group`, checkpoint and no_grad blocks nested
    at random (checkpoint and no_grad never inside each other)."""
    lines = ["x = 0.5", "w = 1.5", "y = x"]

    def body(indent: str, depth: int, plain_inside: bool) -> None:
        for _ in range(draw(st.integers(1, 6))):
            choice = draw(st.integers(0, 9))
            if choice >= 8 and depth < 4:
                kinds = ["group"] if plain_inside else ["group", "checkpoint", "no_grad"]
                kind = draw(st.sampled_from(kinds))
                head = f'with group("b{len(lines)}"):' if kind == "group" else f"with {kind}():"
                lines.append(indent + head)
                body(indent + "    ", depth + 1, plain_inside or kind != "group")
            else:
                text = draw(st.sampled_from(STATEMENTS))
                for _ in range(draw(st.sampled_from([1, 1, 2, 3, 5, 70]))):
                    lines.append(indent + (f"w{len(lines)} = 2.0" if text == "LEAF" else text))
    body("", 0, False)
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(programs())
def test_groups_are_laminar_sorted_and_within_the_graph(text):
    program = parse(text)
    found = groups(program)
    _check_laminar(found, len(program.nodes))
    assert _most_children(found) <= MAX_CHILDREN
    names = {g["name"] for g in found if g["kind"] == "block"}
    made = {f"b{k}" for k, line in enumerate(text.splitlines()) if "group(" in line}
    assert names <= made
    assert orjson.loads(Tracer(program).graph_bytes())["graph"]["groups"] == found


def _check_laminar(found: list[dict], n: int) -> None:
    """Ids in order, ranges non-empty in [0, n), sorted by (first, -end) in pre-order, any two
    nested or disjoint, and each parent the innermost group holding its child."""
    assert [g["id"] for g in found] == [f"g{k}" for k in range(len(found))]
    assert all(0 <= g["first"] < g["end"] <= n for g in found)
    keys = [(g["first"], -g["end"]) for g in found]
    assert keys == sorted(keys)
    stack: list[dict] = []   # the groups holding the current one, outermost first
    for g in found:
        while stack and stack[-1]["end"] <= g["first"]:
            stack.pop()
        if stack:   # nested, not overlapping
            assert g["end"] <= stack[-1]["end"]
        assert g["parent"] == (stack[-1]["id"] if stack else None)
        stack.append(g)


def _most_children(found: list[dict]) -> int:
    """The most children any repeat group has: its child groups, and the nodes within it of no
    child group (statements of a single node; a run's statements all have one structure)."""
    groups_in: dict[str, int] = {}
    nodes_in: dict[str, int] = {}
    for g in found:
        if g["parent"] is not None:
            groups_in[g["parent"]] = groups_in.get(g["parent"], 0) + 1
            nodes_in[g["parent"]] = nodes_in.get(g["parent"], 0) + g["end"] - g["first"]
    return max((groups_in.get(g["id"], 0) + g["end"] - g["first"] - nodes_in.get(g["id"], 0)
                for g in found if g["kind"] == "repeat"), default=0)


def test_hvp_mode_traces_the_backward_graph_which_has_no_groups():
    text = 'a = 1.0\nb = 0.5\nwith group("g"):\n    L = tanh(a * b) * a\n'
    assert groups_of(text) != []
    body = run_trace(text, options=Options(mode="hvp", vector={"a": 1.0, "b": 0.5}))
    assert body["graph"]["groups"] == []
