"""The Python API of the package (issue 18 §1): gradwalk.trace and gradwalk.train, against
PyTorch float64 (autograd's gradients, torch.optim.SGD's and Adam's updates)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import gradwalk
from gradwalk.engine.errors import ProgramError

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
from train_programs import XOR_X, XOR_Y, seed003_weights, seed003_xor  # noqa: E402

FANOUT = "a = 2.0\nb = -3.0\nt = a * b\nL = tanh(t) * t + a\n"


def test_trace_gives_the_body_with_pytorchs_gradients():
    body = gradwalk.trace(FANOUT)
    a = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(-3.0, dtype=torch.float64, requires_grad=True)
    t = a * b
    L = torch.tanh(t) * t + a
    L.backward()
    assert body["output"]["name"] == "L" and body["output"]["value"] == pytest.approx(L.item())
    assert body["grads"] == pytest.approx({"a": a.grad.item(), "b": b.grad.item()}, rel=1e-12)
    assert body["events"][0]["kind"] and body["graph"]["nodes"]   # the walk itself
    assert gradwalk.trace(FANOUT, output="t")["grads"] == pytest.approx({"a": -3.0, "b": 2.0})


def xor_torch(seed: int, steps: int, lr: float, optimizer: str) -> list[float]:
    """Seed 003's XOR network trained by PyTorch (float64): the loss before each update."""
    params = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for k, v in seed003_weights(seed).items()}
    X, y = torch.tensor(XOR_X, dtype=torch.float64), torch.tensor(XOR_Y)
    opt = (torch.optim.SGD(params.values(), lr=lr) if optimizer == "sgd"
           else torch.optim.Adam(params.values(), lr=lr))
    losses = []
    for _ in range(steps):
        h = torch.relu(X @ params["W1"].T + params["b1"])
        loss = torch.nn.functional.cross_entropy(h @ params["W2"].T + params["b2"], y)
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return losses


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_train_gives_pytorchs_losses(optimizer):
    answer = gradwalk.train(seed003_xor(1), steps=40, lr=0.1, optimizer=optimizer, record=[3])
    assert answer["losses"] == pytest.approx(xor_torch(1, 40, 0.1, optimizer), rel=1e-9)
    assert list(answer["recorded"]) == ["3"]
    assert answer["recorded"]["3"]["grads"].keys() == {"W1", "b1", "W2", "b2"}


def test_bad_input_is_a_program_error_that_says_what():
    assert gradwalk.ProgramError is ProgramError
    with pytest.raises(ProgramError) as e:
        gradwalk.trace("a = 1.0\nb = a +* 2\n")
    assert e.value.kind == "syntax" and e.value.line == 2
    assert isinstance(e.value, ValueError)   # a refused value, as json.JSONDecodeError is
    with pytest.raises(ProgramError, match="GRADWALK_MAX_TRAIN_STEPS"):
        gradwalk.train(seed003_xor(1), steps=10**9, lr=0.1)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gradwalk.nope


@pytest.mark.parametrize("arguments, match", [
    ({"steps": 0}, r"steps must be a whole number of at least 1, not 0"),
    ({"steps": -5}, r"not -5"),
    ({"lr": 0.0}, r"the learning rate must be a number above 0 and at most 1,000,000, not 0.0"),
    ({"lr": -0.1}, r"not -0.1"),
    ({"lr": float("nan")}, r"not nan"),
    ({"lr": 1e7}, r"at most 1,000,000"),
    ({"optimizer": "rmsprop"}, r"unknown optimizer 'rmsprop'; one of sgd, momentum, adam"),
    ({"record": [3]}, r"iteration 3 cannot be recorded: iterations run from 0 to 2"),
    # a huge int: float(10**400) was an OverflowError (a review); said by its digits
    ({"lr": 10 ** 400}, r"at most 1,000,000, not an integer of 401 digits"),
    ({"lr": -10 ** 5000}, r"not a negative integer of 5,001 digits"),
    ({"record": [10 ** 400]}, r"an integer of 401 digits as an iteration cannot be recorded"),
])
def test_a_bad_train_argument_value_is_a_plain_value_error(arguments, match):
    """gradwalk.train(p, steps=0, lr=0.1) raised ProgramError "bad_argument", as for a bad
    program: a Python caller catches ValueError for an argument's value (issue 18 residue)."""
    with pytest.raises(ValueError, match=match) as e:
        gradwalk.train(seed003_xor(1), **{"steps": 3, "lr": 0.1, **arguments})
    assert type(e.value) is ValueError   # not the program's error: no line to point at


@pytest.mark.parametrize("arguments, match", [
    ({"steps": "10"}, r"steps must be an int, not str"),
    ({"steps": 2.5}, r"steps must be an int, not float"),
    ({"steps": True}, r"steps must be an int, not bool"),
    ({"lr": "0.1"}, r"lr must be a real number, not str"),
    ({"lr": None}, r"lr must be a real number, not NoneType"),
    ({"optimizer": None}, r"optimizer must be a str, not NoneType"),
    ({"record": 3}, r"record must be iterations \(ints\), not int"),
    ({"record": [1.0]}, r"an iteration of record must be an int, not float"),
    ({"output": 7}, r"output must be a str or None, not int"),
])
def test_a_train_argument_of_the_wrong_type_is_a_type_error(arguments, match):
    with pytest.raises(TypeError, match=match):
        gradwalk.train(seed003_xor(1), **{"steps": 3, "lr": 0.1, **arguments})


def test_numpy_numbers_are_good_train_arguments():
    import numpy as np

    answer = gradwalk.train(seed003_xor(1), steps=np.int64(3), lr=np.float64(0.1), record=[np.int32(1)])
    assert len(answer["losses"]) == 3 and list(answer["recorded"]) == ["1"]


def test_trace_refuses_a_bad_dtype_or_output_by_pythons_rule():
    with pytest.raises(ValueError, match=r"dtype must be one of float64, float32 \(or None\), not 'float16'") as e:
        gradwalk.trace(FANOUT, dtype="float16")
    assert type(e.value) is ValueError
    with pytest.raises(TypeError, match="dtype must be a str or None, not int"):
        gradwalk.trace(FANOUT, dtype=32)
    with pytest.raises(TypeError, match="output must be a str or None, not int"):
        gradwalk.trace(FANOUT, output=1)
    with pytest.raises(ProgramError) as e:   # a name the program has not: the program's error
        gradwalk.trace(FANOUT, output="zz")
    assert e.value.kind == "unknown_output" and isinstance(e.value, ValueError)


@pytest.mark.parametrize("call", [gradwalk.trace, gradwalk.show,
                                  lambda p: gradwalk.train(p, steps=1, lr=0.1)])
@pytest.mark.parametrize("program", [123, None, b"a = 1.0"])
def test_a_program_that_is_not_text_is_a_type_error_that_says_so(call, program):
    """gradwalk.trace(123) raised AttributeError: 'int' object has no attribute 'replace'
    from inside the parser (a review)."""
    with pytest.raises(TypeError, match=rf"a str\), not {type(program).__name__}"):
        call(program)


def test_one_module_identity_per_file():
    """The checkout's engine/ and server/ load only as gradwalk.engine and gradwalk.server:
    the bare names are refused (tests/conftest.py), so no file is imported twice."""
    import importlib
    for bare in ("engine", "server", ".".join(("engine", "trace", "runner"))):
        with pytest.raises(ImportError, match="import gradwalk.engine|import gradwalk.server"):
            importlib.import_module(bare)
    assert not [m for m in sys.modules if m.split(".")[0] in ("engine", "server")]
    assert sys.modules["gradwalk.engine.errors"].ProgramError is ProgramError


def test_the_api_reads_the_settings_from_the_environment(monkeypatch):
    # A GRADWALK_* variable bounds the API as it bounds the CLI and the server (the API read
    # the bare defaults before: a 5-statement program passed a limit of 3).
    from gradwalk.server.settings import get_settings

    monkeypatch.setenv("GRADWALK_MAX_STATEMENTS", "3")
    get_settings.cache_clear()   # the settings are read once a process
    try:
        with pytest.raises(ProgramError, match=r"5 statements; the limit \(max_statements\) is 3"):
            gradwalk.trace(FANOUT + "k = L * 2.0\n")
        with pytest.raises(ProgramError, match="max_statements"):
            gradwalk.to_torch(FANOUT + "k = L * 2.0\n")
    finally:
        monkeypatch.delenv("GRADWALK_MAX_STATEMENTS")
        get_settings.cache_clear()
