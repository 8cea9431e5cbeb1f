"""engine/tape.py (issue 15, section 1): a program compiled once, forward and backward many times.

References: the Tracer's own body (engine/trace/runner.run_trace, the walk the tape must agree
with) and PyTorch float64 (tests/engine/torch_program.py, written op by op with torch's calls).
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.errors import ProgramError
from engine.parse import parse
from engine.tape import compile
from engine.trace.runner import run_trace
from engine.trace.values import decode
from torch_program import torch_function

PRESETS = json.loads((Path(__file__).parents[2] / "server" / "presets.json").read_text())
# headers that change the walk, not the numbers of a plain pass (bug lab, second order)
PLAIN = [p for p in PRESETS if not p["program"].startswith(("# bugs:", "# hessian:"))]


def _with_leaves(text: str, leaves: dict):
    program = parse(text)
    nodes = list(program.nodes)
    for name, value in leaves.items():
        i = program.leaves[name]
        nodes[i] = dataclasses.replace(nodes[i], literal=np.asarray(value))
    return dataclasses.replace(program, nodes=nodes)


@pytest.mark.parametrize("preset", PLAIN, ids=[p["id"] for p in PLAIN])
def test_tape_equals_the_tracer_on_every_preset(preset):
    text = preset["program"]
    tape = compile(parse(text))
    values = tape.forward()
    grads = tape.backward(values)
    body = run_trace(text)
    assert np.allclose(values[tape.output], decode(body["output"]["value"]), rtol=1e-13,
                       atol=0)
    assert set(grads) == set(body["grads"])
    for name, g in grads.items():
        assert np.shape(g) == np.shape(decode(body["grads"][name]))
        assert np.allclose(g, decode(body["grads"][name]), rtol=1e-12, atol=1e-15), name


@pytest.mark.parametrize("preset", PLAIN, ids=[p["id"] for p in PLAIN])
def test_tape_gradients_equal_pytorch_float64(preset):
    text = preset["program"]
    f, names, primals = torch_function(text)
    primals = [p.clone().requires_grad_(True) for p in primals]
    out = f(*primals)
    out.backward(torch.ones_like(out))
    tape = compile(parse(text))
    grads = tape.backward(tape.forward())
    for name, p in zip(names, primals):
        want = np.zeros(p.shape) if p.grad is None else p.grad.numpy()
        assert np.allclose(grads[name], want, rtol=1e-10, atol=1e-12), name


def test_one_tape_many_passes_each_equals_a_fresh_trace():
    # the same compiled tape, fed new leaf values, gives what the Tracer gives for a program
    # written with those values (so nothing of an earlier pass leaks into the next)
    text = next(p["program"] for p in PRESETS if p["id"] == "mlp-classifier")
    tape = compile(parse(text))
    rng = np.random.default_rng(7)
    for _ in range(3):
        leaves = {n: rng.normal(size=tape.shapes[i]) for n, i in tape.leaves.items()}
        grads = tape.backward(tape.forward(leaves))
        body = run_trace(_with_leaves(text, leaves))
        for name, g in grads.items():
            assert np.allclose(g, decode(body["grads"][name]), rtol=1e-12, atol=1e-15)


def test_scalar_rows_run_on_python_floats_and_division_by_zero_is_numpys():
    tape = compile(parse("a = 1.0\nb = 0.0\nc = a / b\nd = tanh(a) * 2.0\nL = c * 0.0 + d\n"))
    values = tape.forward()
    assert all(type(v) is float for v in values)
    assert np.isnan(values[tape.output])   # inf * 0 = nan, as numpy (no ZeroDivisionError)
    grads = tape.backward(values)
    assert np.isnan(grads["a"]) and np.isnan(grads["b"])


def test_the_seed_and_a_broadcast_bias():
    text = "X = const([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\nb = [0.5, -0.5]\nY = X * b\n"
    tape = compile(parse(text))
    grads = tape.backward(tape.forward(), seed=np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]))
    assert grads["b"].tolist() == [1.0 + 5.0, 8.0 + 6.0]   # summed over the rows: unbroadcast


@pytest.mark.parametrize("leaves, message", [
    ({"nope": 1.0}, "has no leaf `nope`"),
    ({"b": [1.0, 2.0, 3.0]}, "leaf `b` has shape (2,); a value of shape (3,) was given"),
])
def test_a_bad_leaf_value_is_a_clear_error(leaves, message):
    tape = compile(parse("b = [0.5, -0.5]\nL = sum(b * b)\n"))
    with pytest.raises(ProgramError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tape.forward(leaves)


def test_compile_refuses_an_unknown_output_and_a_shape_error():
    with pytest.raises(ProgramError) as e:
        compile(parse("a = 1.0\n"), output="zz")
    assert e.value.kind == "unknown_output"
    with pytest.raises(ProgramError) as e:
        compile(parse("A = [[1.0, 2.0]]\nB = [[1.0, 2.0]]\nC = A @ B\n"))
    assert e.value.kind == "shape"
