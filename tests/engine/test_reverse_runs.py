"""The reverse walk's records made a run of nodes at a time (engine/trace/reverse.py `walk`,
engine/trace/evaluated.py, engine/trace/scalar_rows.py) give exactly what the general path
gives: every value through evaluated._marked, and the backward records one by one through
watch_adjoints' own generator (reverse.backward without watching)."""
from __future__ import annotations

import itertools

import orjson
import pytest

from gradwalk.engine.trace import evaluated, reverse, underflow
from gradwalk.engine.trace.deadline import CHECK_EVERY
from gradwalk.engine.trace.runner import Tracer
from gradwalk.engine.trace.watch import returning, watch_adjoints
from helpers import CASES

PROGRAMS = [
    "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * (CHECK_EVERY // 3),   # runs over CHECK_EVERY
    "a = 0.5\nb = a * a\nc = b / a - a\nL = c * b + a / 2.0 - (-a)\n",   # fan-in, / and neg
    "x = 0.0\nz = 1e-200\na = 1.0 / x\nb = x / x\nc = 2.0 / z\nd = c / (z * z)\n"
    "L = a + b + c + d + x * 1e308 * 1e308\n",   # inf, nan, a division by zero
    "x = 1e-300\ny = x * 1e-10\nL = y * y + x\n",   # underflow forward and backward
    "x = 0.0\nL = x * 3.0 + x * -2.0\n",   # zeros: no underflow
    "größe = 2.0\nw_1 = größe * 3.0\nL = w_1 * w_1 - größe\n",   # unicode names
    'x = 0.7\ny = gelu(x, approximate="tanh") * x\nL = y * y\n',   # quotes in a label
    "W = [[1.0, 2.0], [3.0, 4.0]]\nx = [1.0, -1.0]\nh = tanh(W @ x)\nL = sum(h * h)\n",
    "x = 2.0\nv = [1.0, 2.0]\ny = x * v\nL = sum(y) * x\n",   # scalars meeting tensors
    *[case["program"] for case in CASES],
]


def _general(t) -> list[dict]:
    """The reverse walk's records, each made one by one on the general path."""
    t.first_non_finite = None
    tiny = underflow.tiny(t.program.dtype)
    made = [{"seq": s, "kind": "evaluate", "node": t.ids[i],
             "value": evaluated._marked(t, i, t.values[i], s, tiny)}
            for s, i in enumerate(t.order)]
    seq = itertools.count(len(made))
    records = reverse.backward(t, seq)
    if t.cuts is not None and t.cuts.program is t.program:
        records = t.cuts.narrate(records, t.ids)
    returned: list = []
    made.extend(returning(watch_adjoints(t, records), returned))
    made.append(t.done(next(seq), returned[0]))
    return made


def _tracer(text: str):
    try:
        return Tracer(text)
    except Exception as error:   # noqa: BLE001 - a program the tracer refuses has no records
        pytest.skip(f"refused: {error}")


@pytest.mark.parametrize("text", PROGRAMS)
def test_the_walks_runs_give_the_general_paths_records(text):
    fast = list(_tracer(text).records())
    slow = _general(_tracer(text))
    assert orjson.dumps(fast, option=orjson.OPT_SERIALIZE_NUMPY) == \
        orjson.dumps(slow, option=orjson.OPT_SERIALIZE_NUMPY)
    assert [type(r["value"]) for r in fast if r["kind"] == "evaluate"] == \
        [type(r["value"]) for r in slow if r["kind"] == "evaluate"]


@pytest.mark.parametrize("value", [1.0, -2.5, 1e-320, -1e-320, 0.0, -0.0, float("inf"),
                                   float("-inf"), float("nan"), 1.7e308])
def test_an_evaluate_record_holds_what_marked_makes_of_its_value(value):
    t = _tracer("x = 1.0\nL = x * 2.0\n")
    t.values[1] = value   # the constant 2.0, whatever it held
    t.first_non_finite = None
    run = evaluated.records(t, [0, 1, 2], 7, underflow.tiny("float64"))
    made = run[1]["value"]
    t.first_non_finite = None
    expected = evaluated._marked(t, 1, value, 8, underflow.tiny("float64"))
    assert orjson.dumps(made) == orjson.dumps(expected) and type(made) is type(expected)
    assert [r["seq"] for r in run] == [7, 8, 9]


def test_one_edge_gives_the_records_of_the_whole_pass():
    """scalar_edges (the bug lab's, the size estimate's) against the pass's own records."""
    text = "a = 0.5\nb = a * a\nc = b / a - a\nL = c * b + a / 2.0 - (-a)\n"
    t = _tracer(text)
    walked = [r for r in _tracer(text).records() if r["kind"] == "accumulate"]
    node = t.program.nodes[t.output]
    adjoints = [None] * len(t.program.nodes)
    one = reverse.scalar_edges(t, node, 1.0, adjoints, itertools.count(walked[0]["seq"]))
    first = [r for r in walked if r["node"] == t.ids[t.output]]
    assert orjson.dumps(one) == orjson.dumps(first)
