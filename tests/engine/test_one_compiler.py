"""One compiler (issue 15 §1): the Tracer is built on engine.tape.compile, and every program it
traces is a tape whose passes give the Tracer's numbers.

Over every preset of the repo (server/presets.json) and every program a golden trace is made
of (tests/cases, the golden bodies' options): the Tracer's tape is `tape.compile` of the
program it walks; its values are that tape's first pass; a later pass of the same tape (the
plain code, no checks) gives the same numbers bit for bit; and the tape's backward pass gives
the adjoints of the Tracer's reverse walk (engine/trace/reverse.backward, drained) to
rounding: the walk multiplies a local derivative by the upstream adjoint (∂/∂y (x/y) =
-x/y² times ḡ) where the tape's rule computes -ḡ·x/y² at once.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.tape import Tape, compile
from gradwalk.engine.trace import reverse
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace
from gradwalk.engine.trace.shape_pass import PROBE_ELEMENTS
from helpers import CASES

ROOT = Path(__file__).parents[2]
PRESETS = json.loads((ROOT / "server" / "presets.json").read_text(encoding="utf-8"))
HVP = Options(mode="hvp", vector={"a": 1.0, "b": 0.5})   # tests/engine/test_hvp.py's golden
PROGRAMS = ([(f"preset:{p['id']}", p["program"], Options()) for p in PRESETS] +
            [(f"case:{c['id']}", c["program"], Options()) for c in CASES] +
            [("golden:hvp-seed-tanh-fanout",
              next(p["program"] for p in PRESETS if p["id"] == "seed-tanh-fanout"), HVP)])


def _same(a, b) -> bool:
    """Equal bit for bit as numbers (NaN equal to NaN; a float and a 0-d array alike)."""
    return np.shape(a) == np.shape(b) and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("text, options", [p[1:] for p in PROGRAMS],
                         ids=[p[0] for p in PROGRAMS])
def test_every_traced_program_is_a_tape_with_the_tracers_numbers(text, options):
    tracer = Tracer(text, options=options)
    tape = tracer.tape
    assert isinstance(tape, Tape) and tape.program is tracer.program
    again = compile(tracer.program, tracer.output_name)   # the one compiler, called afresh
    assert again.order == tracer.order and again.requires == tracer.requires
    assert again.shapes == [np.shape(v) for v in tracer.values] == tracer.shapes
    assert [(r.index, r.inputs) for r in again.rows] == \
        [(i, tuple(tracer.program.nodes[i].inputs)) for i in tracer.order
         if tracer.program.nodes[i].role == "op"]
    first = again.forward()   # the checked pass: what the Tracer's events show
    assert all(_same(a, b) for a, b in zip(first, tracer.values, strict=False))
    assert again.flops == tracer.flops
    later = again.forward()   # a plain pass over the same tape
    assert all(_same(a, b) for a, b in zip(later, tracer.values, strict=False)), \
        [i for i, (a, b) in enumerate(zip(later, tracer.values)) if not _same(a, b)]
    walked = reverse.drain(reverse.backward(tracer, itertools.count()))
    adjoints = again.adjoints(later)
    for i, want in enumerate(walked):
        if want is None:
            assert adjoints[i] is None, i
        else:
            assert np.allclose(adjoints[i], want, rtol=1e-12, atol=1e-300, equal_nan=True), i


def test_the_tracer_takes_its_values_from_the_tape(monkeypatch):
    """The Tracer computes no value of its own: the tape's first pass is its forward pass."""
    calls = []
    forward = Tape.forward

    def counted(self, *args, **kwargs):
        calls.append(self)
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(Tape, "forward", counted)
    tracer = Tracer("a = 2.0\nb = -0.5\nL = tanh(a * b + a)\n")
    assert calls == [tracer.tape]


BIG = PROBE_ELEMENTS + 1   # a shape no rule or probe works out before the values exist


def test_a_shape_known_only_from_the_values_compiles_and_trains():
    """logsumexp has no shape rule and its input is too big to probe: the compile leaves the
    shape unknown (the Tracer always traced it) and the first pass fills it in."""
    text = f"X = randn({BIG}, seed=0)\nL = logsumexp(X * 0.5)\n"
    tape = compile(parse(text))
    assert tape.shapes[tape.output] is None
    values = tape.forward()
    assert tape.shapes[tape.output] == ()
    x = values[tape.program.leaves["X"]]
    assert values[tape.output] == pytest.approx(np.logaddexp.reduce(x * 0.5), rel=1e-12)
    grads = tape.backward(tape.forward())   # the second pass: floats, generated code
    soft = np.exp(x * 0.5 - np.logaddexp.reduce(x * 0.5))
    assert np.allclose(grads["X"], 0.5 * soft, rtol=1e-10, atol=0)
    assert run_trace(text)["output"]["value"] == pytest.approx(values[tape.output], rel=0)


def test_the_first_pass_holds_the_totals_at_the_node_that_crosses_them():
    text = "a = [1.0, 2.0, 3.0]\nb = a * a\nc = b * a\nL = sum(c)\n"
    with pytest.raises(ProgramError) as e:
        Tracer(text, limits=Limits(max_total_elements=8))
    assert e.value.kind == "too_large" and "by c its values hold 9 elements" in e.value.message
    assert (e.value.line, e.value.col) == (3, 4)   # at `b * a`
    with pytest.raises(ProgramError, match="by c its values hold 9 elements and cost 6 FLOPs"):
        Tracer(text, limits=Limits(max_flops=5))   # 3 for b, 3 more for c


def test_a_program_out_of_creation_order_is_refused_clearly():
    """A hand-built Program whose nodes are not in creation order (the parser never makes
    one) is refused by the compile, so by the Tracer too (it failed with an IndexError in
    the gradient flags before the tape was its compiler)."""
    program = parse("a = 2.0\nb = -0.5\ne = a * b\nL = tanh(e + a) * b\n")
    n = len(program.nodes)
    new = [n - 1 - i for i in range(n)]   # reversed: every input after its consumer
    nodes = [None] * n
    for node in program.nodes:
        nodes[new[node.index]] = dataclasses.replace(
            node, index=new[node.index], inputs=[new[k] for k in node.inputs])
    reversed_program = dataclasses.replace(
        program, nodes=nodes, names={k: new[v] for k, v in program.names.items()},
        leaves={k: new[v] for k, v in program.leaves.items()}, body=[], lines=None)
    for make in (compile, Tracer):
        with pytest.raises(ProgramError) as e:
            make(reversed_program)
        assert e.value.kind == "bad_argument" and "not in creation order" in e.value.message
