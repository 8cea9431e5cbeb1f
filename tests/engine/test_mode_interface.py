"""The modes behind one interface (issue 15 §1): each mode is a module with a `MODE` row
(engine/trace/mode.py) listed in engine/trace/modes.py, and the tracer reaches modes only
through those rows, so a new mode is a new module and one line, touching no other mode."""
from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import modes, tracer as tracer_module
from gradwalk.engine.trace.mode import Mode
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.reverse import drain
from gradwalk.engine.trace.runner import Tracer, run_trace

TRACE = Path(__file__).parents[2] / "engine" / "trace"
MODE_MODULES = {"reverse", "forward_mode", "hvp", "gradcheck", "bugs", "train_walk"}
PROGRAM = "a = 2.0\nb = -0.5\ne = a * b\nL = tanh(e + a)\n"


def test_every_mode_is_a_row_of_the_registry():
    names = [m.name for m in modes.MODES]
    assert names == ["reverse", "bugs", "hvp", "forward", "check", "train"]
    for module in MODE_MODULES:
        row = getattr(__import__(f"gradwalk.engine.trace.{module}", fromlist=["MODE"]), "MODE")
        assert isinstance(row, Mode) and row in modes.MODES


def test_the_tracer_names_no_mode_but_the_reverse_walk():
    """tracer.py imports the registry, and of the modes only the reverse walk (the backward
    pass every mode drains): no hvp, forward, check or bug-lab branch lives in it."""
    tree = ast.parse((TRACE / "tracer.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.update(a.name for a in node.names)
            imported.add(node.module.rpartition(".")[2])
    assert imported & MODE_MODULES == {"reverse"}
    assert "modes" in imported


def test_a_new_mode_joins_without_touching_another(monkeypatch):
    """A mode added by one row: its prepare runs before the first event, its walk answers its
    mode name, and its done fields join the done event, with the compiled program's values."""
    seen = []

    def walk(t):
        yield {"seq": 0, "kind": "evaluate", "node": t.ids[t.output],
               "value": t.values[t.output]}
        adjoints = drain(t.backward(itertools.count(1)))   # the backward pass, no events
        yield t.done(1, adjoints)

    row = Mode("count", wanted=lambda options, program: options.mode == "count",
               prepare=lambda t, limits, state: seen.append(len(t.values)) or "ready",
               walk=walk, done=lambda t, state, adjoints: {"count": state,
                                                            "a_bar": adjoints[0]})
    monkeypatch.setattr(tracer_module, "MODES", (*modes.MODES, row))
    tracer = Tracer(PROGRAM, options=Options(mode="count"))
    assert seen == [len(tracer.values)] and tracer.state("count") == "ready"
    events = list(tracer.records())
    assert [e["kind"] for e in events] == ["evaluate", "done"]
    done = events[-1]
    reverse = run_trace(PROGRAM)["grads"]["a"]
    assert done["count"] == "ready"
    assert done["a_bar"] == pytest.approx(reverse, rel=1e-15)
    assert done["grads"]["a"] == pytest.approx(reverse, rel=1e-15)


# ---- training plugs in through the same rows -----------------------------------------------
def test_a_recorded_training_iteration_is_the_reverse_walk_with_the_loops_steps():
    """Mode "train" (engine/trace/train_walk.py) consumes the reverse walk as it is: the
    recorded body's events are the reverse trace's of the same leaf values, zero_grad before
    the seed and one update per leaf before done, numbered again; its done fields are the
    body's."""
    from gradwalk.engine.parse import parse
    from gradwalk.engine.train import TrainConfig, train
    from gradwalk.engine.train.record import with_leaves
    from gradwalk.engine.trace.runner import body_events

    text = "w = 0.5\nb = -0.25\nx = const([1.0, 2.0])\nL = mean((x * w + b - 1.0) ** 2)\n"
    answer = train(parse(text), TrainConfig(steps=2, lr=0.1, record=(1,)))
    recorded = answer["recorded"]["1"]
    # iteration 0's SGD step by hand: r = x·w + b - 1 = (-0.75, -0.25), w̄ = Σ r·x, b̄ = Σ r
    params = {"w": 0.5 - 0.1 * -1.25, "b": -0.25 - 0.1 * -1.0}
    plain = body_events(run_trace(with_leaves(parse(text), params)))
    kinds = [e["kind"] for e in recorded["events"]]
    assert kinds == [e["kind"] for e in plain[:kinds.index("zero_grad")]] + ["zero_grad"] + \
        [e["kind"] for e in plain[kinds.index("zero_grad"):-1]] + ["update", "update", "done"]
    assert [e["seq"] for e in recorded["events"]] == list(range(len(kinds)))
    walked = [e for e in recorded["events"] if e["kind"] not in ("zero_grad", "update")]
    for mine, theirs in zip(walked[:-1], plain[:-1]):
        assert {k: v for k, v in mine.items() if k != "seq"} == \
            {k: v for k, v in theirs.items() if k != "seq"}
    assert recorded["iteration"] == 1 and recorded["dead_units"] == []
    assert recorded["grads"] == pytest.approx(plain[-1]["grads"], rel=1e-15)


def test_mode_train_without_a_training_iteration_is_a_clear_error():
    with pytest.raises(ProgramError) as e:
        Tracer(PROGRAM, options=Options(mode="train"))
    assert e.value.kind == "bad_argument" and "POST /api/train" in e.value.message
