"""The graph's `groups` (engine/groups.py, docs/trace-format.md "Groups"): statement, block and
repeat groups, their order and nesting, and `with group(...)` in the language."""
from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.groups import MAX_CHILDREN, cycles, groups
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Tracer, run_trace

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
    # cut between tokens, its count kept (issue 14; engine/clip.py)
    assert found[0]["name"] == "x = x * 1.0 + x * 2.0 + x * 3.0 + x * 4.0 + x * 5.0 + x * … ×3"
    multi = groups_of("x = 1.0\n" + "x = (x *\n     2.0)\n" * 3)
    assert multi[0]["name"] == "x = (x * …) ×3"   # a statement over two lines: its bracket closed
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


# ---- cycles of several statements ---------------------------------------------------------------
def shared_weights(statements: int) -> str:
    """The issue's program (as tests/e2e/test_big_graphs.py makes it): a chain through
    `* w`, `+ a` and tanh, one node a statement, ending `L = x297 * x297`."""
    lines = ["x0 = 0.5", "w = 0.9", "a = 0.1"]
    for i in range(1, statements - 2):
        lines.append((f"x{i} = tanh(x{i - 1})", f"x{i} = x{i - 1} * w",
                      f"x{i} = x{i - 1} + a")[i % 3])
    lines.append(f"L = x{statements - 3} * x{statements - 3}")
    return "\n".join(lines) + "\n"


def test_the_issues_shared_weights_program_is_a_repeat_of_a_three_statement_cycle():
    found = groups(parse(shared_weights(300)))
    cycle = "x1 = x0 * w; x2 = x1 + a; x3 = tanh(x2)"
    # nodes: x0 w a | x1 x2 x3 | x4 x5 x6 | ... | x297 | L (300): L is alike `x1 = x0 * w`,
    # but one statement is no repetition of the cycle
    assert found[:4] == [group("g0", "repeat", f"{cycle} ×99", 3, 300, None, (4, 0, 300, 17)),
                         group("g1", "repeat", "×64 (cycles 1–64)", 3, 195, "g0",
                               (4, 0, 195, 17)),
                         group("g2", "repeat", "x1 … x3", 3, 6, "g1", (4, 0, 6, 13)),
                         group("g3", "repeat", "x4 … x6", 6, 9, "g1", (7, 0, 9, 13))]
    assert found[66] == group("g66", "repeat", "×35 (cycles 65–99)", 195, 300, "g0",
                              (196, 0, 300, 17))
    assert len(found) == 102 and {g["kind"] for g in found} == {"repeat"}
    assert [(g["name"], g["first"], g["end"]) for g in found if g["parent"] in ("g1", "g66")] \
        == [(f"x{3 * k + 1} … x{3 * k + 3}", 3 + 3 * k, 6 + 3 * k) for k in range(99)]
    _check_laminar(found, 301)
    assert _most_children(found) == 64


def test_the_3000_statement_program_is_one_repeat_of_chunks_of_cycles():
    found = groups(parse(shared_weights(3000)))
    assert [(g["name"], g["first"], g["end"]) for g in found if g["parent"] in (None, "g0")] \
        == [("x1 = x0 * w; x2 = x1 + a; x3 = tanh(x2) ×999", 3, 3000)] + [
            (f"×64 (cycles {64 * k + 1}–{64 * k + 64})", 3 + 192 * k, 195 + 192 * k)
            for k in range(15)] + [("×39 (cycles 961–999)", 2883, 3000)]
    assert len(found) == 1 + 16 + 999
    _check_laminar(found, 3001)
    assert _most_children(found) == 64


def test_a_cycle_holds_the_statement_groups_of_its_statements_with_versioned_names():
    text = "x = 0.5\nw = 2.0\n" + "x = tanh(x * w + 1.0)\nx = x * w\n" * 3
    # x0 w1 | const2 mul3 add4 tanh5 | mul6 | ... (5 nodes a cycle)
    assert groups_of(text) == [
        group("g0", "repeat", "x = tanh(x * w + 1.0); x = x * w ×3", 2, 17, None, (3, 0, 8, 9)),
        group("g1", "repeat", "x' … x''", 2, 7, "g0", (3, 0, 4, 9)),
        group("g2", "statement", "x'", 2, 6, "g1", (3, 0, 3, 21)),
        group("g3", "repeat", "x''' … x⁽⁴⁾", 7, 12, "g0", (5, 0, 6, 9)),
        group("g4", "statement", "x'''", 7, 11, "g3", (5, 0, 5, 21)),
        group("g5", "repeat", "x⁽⁵⁾ … x⁽⁶⁾", 12, 17, "g0", (7, 0, 8, 9)),
        group("g6", "statement", "x⁽⁵⁾", 12, 16, "g5", (7, 0, 7, 21))]


@pytest.mark.parametrize("kinds,found", [
    ([0, 0, 0], [(0, 3, 1)]),
    ([0, 0], []),
    ([0, 1, 0, 1, 0, 1], [(0, 6, 2)]),
    ([0, 1, 0, 1, 0], []),                       # 2 repetitions and a bit
    ([0, 1, 0, 1, 0, 1, 0], [(0, 6, 2)]),        # the odd one out is left
    ([5, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0], [(1, 10, 3)]),
    ([0, 0, 1, 0, 0, 1, 0, 0, 1], [(0, 9, 3)]),  # the cycle covers more than the run of 0s
    ([0] * 10, [(0, 10, 1)]),                    # the shortest period of a uniform run
    ([0, 0, 0, 0, 1, 0, 0, 0, 0, 1], [(0, 4, 1), (5, 9, 1)]),   # period 5: two repetitions
    ([0, 0, 0, 1, 2, 1, 2, 1, 2], [(0, 3, 1), (3, 9, 2)]),
    ([-1, -2, -3, -4], []),                      # leaf declarations match nothing
    (list(range(8)) * 3, [(0, 24, 8)]),
    (list(range(9)) * 3, []),                    # longer than MAX_PERIOD
])
def test_cycles_finds_runs_of_three_or_more_repetitions(kinds, found):
    assert cycles(kinds) == found


# ---- parts of a statement of more than 64 nodes ----------------------------------------------
def fan_in(n: int) -> str:
    """`x = 1.5`, `L = x * 1 + x * 2 + ... + x * n` (as tests/e2e/test_big_graphs.py)."""
    return "x = 1.5\nL = " + " + ".join(f"x * {i}" for i in range(1, n + 1)) + "\n"


def test_a_sum_of_200_products_is_cut_into_parts_of_whole_terms():
    found = groups_of(fan_in(200))
    # x0 | const1 mul2 | const3 mul4 add5 | ...: term 1 is 2 nodes, the others 3 (with the +)
    starts = [1] + [63 * k for k in range(1, 10)]
    ends = starts[1:] + [600]
    terms = [(1, 21)] + [(21 * k + 1, 21 * k + 21) for k in range(1, 9)] + [(190, 200)]
    cols = [(4, 181), (184, 370), (373, 559), (562, 748), (751, 943), (946, 1153),
            (1156, 1363), (1366, 1573), (1576, 1783), (1786, 1893)]
    assert found == [group("g0", "statement", "L", 1, 600, None, (2, 0, 2, 1893))] + [
        group(f"g{k + 1}", "part", f"L: terms {a}–{b}", first, end, "g0", (2, c, 2, e))
        for k, ((a, b), first, end, (c, e)) in enumerate(zip(terms, starts, ends, cols))]
    _check_laminar(found, 600)
    assert _most_children(found) == 63


def test_a_sum_of_1400_products_nests_parts_in_parts():
    found = groups(parse(fan_in(1400)))
    assert [(g["id"], g["name"], g["first"], g["end"], g["parent"]) for g in found
            if g["parent"] in (None, "g0")] == [("g0", "L", 1, 4200, None),
                                                ("g1", "L: terms 1–1344", 1, 4032, "g0"),
                                                ("g66", "L: terms 1345–1400", 4032, 4200, "g0")]
    assert len(found) == 1 + 2 + 67
    _check_laminar(found, 4200)
    assert _most_children(found) == 64


def test_a_long_statement_that_is_no_flat_sum_is_cut_into_ranges_of_nodes():
    text = "x = 1.5\nL = tanh(" + " + ".join(f"x * {i}" for i in range(1, 31)) + ") * 2.0\n"
    # 30 products: 2 + 29 * 3 nodes, tanh, const, * : 92 nodes from 1
    found = groups_of(text)
    assert [(g["kind"], g["name"], g["first"], g["end"], g["parent"]) for g in found] == [
        ("statement", "L", 1, 93, None), ("part", "L: nodes 1–64", 1, 65, "g0"),
        ("part", "L: nodes 65–92", 65, 93, "g0")]
    assert found[1]["span"] == span(2, 9, 2, 195)   # x * 1 up to x * 22, the 64th node
    assert found[2]["span"] == span(2, 4, 2, 274)   # up to tanh(...) * 2.0, the line's end


def test_partial_sums_of_a_long_chain_have_distinct_labels_and_read_so_in_the_narration():
    body = run_trace(fan_in(200))
    sums = [n["label"] for n in body["graph"]["nodes"] if n["op"] == "add"]
    assert sums[:4] == ["x * 1 + x * 2", "x * 1 + x * 2 + x * 3", "x * 1 + … + x * 4",
                        "x * 1 + … + x * 5"]
    assert sums[-2:] == ["x * 1 + … + x * 199", "L"]
    assert len(set(sums)) == len(sums) == 199
    steps = [e["narration"] for e in body["events"] if e["kind"] == "accumulate"]
    assert steps[3] == ("x * 1 + … + x * 198 + x * 199: ∂L/∂(x * 1 + … + x * 198) += 1 · "
                        "∂L/∂(x * 1 + … + x * 199) = 1 · 1 = 1")


@pytest.mark.parametrize("expr,last", [
    # a product keeps as many last factors as fit in 24 characters
    ("a * b * a * b * a * b * a * b * a", "a * … * b * a * b * a"),
    # first operator kept as written; the term after the gap is whole
    ("a * b - tanh(a) / b + b * b * a - a ** 2", "a * b - … - a ** 2"),
    # a clipped last term is left out, not shown cut
    ("a * 7 + tanh(a * 2 + a * 3 + a * 4 + a * 5) + a * 8", "a * 7 + … + a * 8"),
])
def test_long_chains_keep_their_first_and_last_terms(expr, last):
    nodes = parse(f"a = 1.0\nb = 2.0\nL = {expr} + a * 9\n").nodes
    assert nodes[-4].label == last


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
    if words.startswith(("group(...)", "one block")):
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
              "y = x", "x = y * y", "LEAF", "x = exp(x * 0.1) * w",
              "x = " + " + ".join(["x * w"] * 30),             # 89 nodes: parts of terms
              "x = tanh(" + " - ".join(["x / w"] * 25) + ")"]  # 75 nodes: parts of nodes


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
            else:   # a cycle of 1 to 3 statements, repeated
                cycle = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1,
                                      max_size=draw(st.sampled_from([1, 1, 3]))))
                for _ in range(draw(st.sampled_from([1, 1, 2, 3, 5, 70]))):
                    for text in cycle:
                        lines.append(indent + (f"w{len(lines)} = 2.0" if text == "LEAF" else
                                               text))
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
                for g in found if g["kind"] != "block"), default=0)


def test_hvp_mode_traces_the_backward_graph_which_has_no_groups():
    text = 'a = 1.0\nb = 0.5\nwith group("g"):\n    L = tanh(a * b) * a\n'
    assert groups_of(text) != []
    body = run_trace(text, options=Options(mode="hvp", vector={"a": 1.0, "b": 0.5}))
    assert body["graph"]["groups"] == []
