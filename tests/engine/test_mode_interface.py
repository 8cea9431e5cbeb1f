"""The modes behind one interface (issue 15 §1): each mode is a module with a `MODE` row
(engine/trace/mode.py) listed in engine/trace/modes.py, and the tracer reaches modes only
through those rows, so a new mode is a new module and one line, touching no other mode."""
from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from engine.trace import modes, tracer as tracer_module
from engine.trace.mode import Mode
from engine.trace.options import Options
from engine.trace.reverse import drain
from engine.trace.runner import Tracer, run_trace

TRACE = Path(__file__).parents[2] / "engine" / "trace"
MODE_MODULES = {"reverse", "forward_mode", "hvp", "gradcheck", "bugs"}
PROGRAM = "a = 2.0\nb = -0.5\ne = a * b\nL = tanh(e + a)\n"


def test_every_mode_is_a_row_of_the_registry():
    names = [m.name for m in modes.MODES]
    assert names == ["reverse", "bugs", "hvp", "forward", "check"]
    for module in MODE_MODULES:
        row = getattr(__import__(f"engine.trace.{module}", fromlist=["MODE"]), "MODE")
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
