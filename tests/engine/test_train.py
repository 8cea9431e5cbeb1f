"""engine/train (issue 15, sections 2 and 4): seed 003's XOR network trained step by step.

References: the seed's printed figures (../shared/seeds/003_70db1bc89ad395af.txt, "Check it
before trusting it" and "Training") and PyTorch float64 training the same network with
torch.optim.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.tape import compile
from gradwalk.engine.train import TrainConfig, TrainLimits, iterations, train
from gradwalk.engine.trace.values import decode
from train_programs import XOR_X, XOR_Y, seed003_weights, seed003_xor


def _torch_run(seed: int, steps: int, make_opt, zero_grad: bool = True):
    """(losses, grads per iteration, final params) of PyTorch float64 on seed 003's net."""
    ps = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
          for k, v in seed003_weights(seed).items()}
    X, y = torch.tensor(XOR_X, dtype=torch.float64), torch.tensor(XOR_Y)
    opt = make_opt(list(ps.values()))
    losses, grads = [], []
    for _ in range(steps):
        h = torch.relu(X @ ps["W1"].T + ps["b1"])
        loss = torch.nn.functional.cross_entropy(h @ ps["W2"].T + ps["b2"], y)
        if zero_grad:
            opt.zero_grad()
        loss.backward()
        losses.append(loss.item())
        grads.append({k: p.grad.clone().numpy() for k, p in ps.items()})
        opt.step()
    return losses, grads, {k: p.detach().numpy() for k, p in ps.items()}


# ---- section 4: seed 003 exactly ---------------------------------------------------------------
def test_seed_003_loss_and_largest_gradient_at_step_0():
    tape = compile(parse(seed003_xor(1)))
    values = tape.forward()
    assert f"{values[tape.output]:.6f}" == "0.838159"
    largest = max(float(np.max(np.abs(g))) for g in tape.backward(values).values())
    assert largest == pytest.approx(0.2463455518578762, rel=1e-14)


def test_seed_003_trains_to_the_printed_losses():
    answer = train(parse(seed003_xor(1)), TrainConfig(steps=301, lr=0.5))
    assert [f"{answer['losses'][k]:.4f}" for k in (0, 100, 200, 300)] == \
        ["0.8382", "0.1102", "0.0261", "0.0132"]
    assert answer["accuracy"] == 1.0


def test_of_seeds_0_to_9_three_stall_at_the_printed_losses():
    final = {s: train(parse(seed003_xor(s)), TrainConfig(steps=301, lr=0.5))["losses"][-1]
             for s in range(10)}
    stalled = {s: round(v, 3) for s, v in final.items() if v > 0.1}
    assert sorted(stalled.values()) == [0.348, 0.478, 0.693]
    assert all(v < 0.02 for s, v in final.items() if s not in stalled)


def test_seed_5_ends_at_ln_2_with_one_dead_unit_and_the_rest_linear():
    answer = train(parse(seed003_xor(5)), TrainConfig(steps=301, lr=0.5))
    assert answer["losses"][-1] == pytest.approx(math.log(2), abs=1e-4)
    assert answer["accuracy"] == 0.5
    assert answer["dead_units"] == [{"node": "n8", "name": "h", "unit": 3, "iteration": 0}]
    # the other three units are positive for all four examples: a straight-line function
    W1, b1 = (np.array(decode(answer["params"][k])) for k in ("W1", "b1"))
    pre = np.array(XOR_X) @ W1.T + b1
    assert (pre[:, 3] <= 0).all() and (pre[:, :3] > 0).all()


def test_every_recorded_iteration_has_pytorchs_gradients_on_its_weights():
    record = (0, 1, 100, 300)
    answer = train(parse(seed003_xor(1)), TrainConfig(steps=301, lr=0.5, record=record))
    losses, grads, final = _torch_run(1, 301, lambda ps: torch.optim.SGD(ps, lr=0.5))
    assert np.allclose(answer["losses"], losses, rtol=1e-12, atol=0)
    assert sorted(answer["recorded"]) == ["0", "1", "100", "300"]
    for k in record:
        body = answer["recorded"][str(k)]
        for name, want in grads[k].items():
            assert np.allclose(decode(body["grads"][name]), want, rtol=1e-11, atol=1e-15)
        assert body["output"]["value"] == pytest.approx(losses[k], rel=1e-13)
    for name, want in final.items():
        assert np.allclose(decode(answer["params"][name]), want, rtol=1e-11, atol=1e-15)


@pytest.mark.parametrize("optimizer, make", [
    ("momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    ("adam", lambda ps: torch.optim.Adam(ps, lr=0.1)),
])
def test_momentum_and_adam_follow_torch_optim(optimizer, make):
    answer = train(parse(seed003_xor(1)), TrainConfig(steps=50, lr=0.1, optimizer=optimizer))
    losses, _, final = _torch_run(1, 50, make)
    assert np.allclose(answer["losses"], losses, rtol=1e-10, atol=1e-14)
    for name, want in final.items():
        assert np.allclose(decode(answer["params"][name]), want, rtol=1e-9, atol=1e-13)


def test_no_zero_grad_piles_the_gradients_up_as_pytorch_without_zero_grad():
    config = TrainConfig(steps=40, lr=0.5, bugs=("no_zero_grad",), record=(0, 5))
    answer = train(parse(seed003_xor(1)), config)
    losses, grads, _ = _torch_run(1, 40, lambda ps: torch.optim.SGD(ps, lr=0.5),
                                  zero_grad=False)
    assert np.allclose(answer["losses"], losses, rtol=1e-11)
    right = train(parse(seed003_xor(1)), TrainConfig(steps=40, lr=0.5))["losses"]
    assert abs(answer["losses"][-1] - right[-1]) > 0.05   # the curve shows the bug
    zero = next(e for e in answer["recorded"]["5"]["events"] if e["kind"] == "zero_grad")
    assert zero["zeroed"] is False and "BUG no_zero_grad" in zero["narration"]
    update = next(e for e in answer["recorded"]["5"]["events"] if e["kind"] == "update")
    # the update uses .grad, the sum of iterations 0..5's gradients (torch's .grad after 5)
    assert np.allclose(decode(update["grad"]), grads[5][update["name"]], rtol=1e-11)


# ---- a recorded iteration's walk -----------------------------------------------------------
def test_a_recorded_iteration_is_forward_zero_grad_backward_update():
    answer = train(parse(seed003_xor(1)), TrainConfig(steps=3, lr=0.5, record=(1,)))
    body = answer["recorded"]["1"]
    events = body["events"]
    kinds = [e["kind"] for e in events]
    assert [e["seq"] for e in events] == list(range(len(events)))
    z = kinds.index("zero_grad")
    assert kinds[z + 1] == "seed" and all(k == "evaluate" for k in kinds[:z])
    assert kinds[-5:] == ["update"] * 4 + ["done"]
    assert events[z]["nodes"] == ["n1", "n2", "n3", "n4"] and events[z]["zeroed"] is True
    update = {e["name"]: e for e in events if e["kind"] == "update"}
    assert update["W1"]["narration"].startswith("W1 -= 0.5 · W̄1; ‖W̄1‖ = ")   # numbers:
    # tests/engine/test_train_warnings.py
    assert update["W1"]["node"] == "n1" and update["W1"]["type"] == "update"
    # the update's new value: the weights minus 0.5 times this iteration's gradient
    w = np.array(decode(next(e for e in events if e["kind"] == "evaluate"
                            and e["node"] == "n1")["value"]))
    assert np.allclose(decode(update["W1"]["value"]),
                       w - 0.5 * np.array(decode(body["grads"]["W1"])), rtol=1e-15)
    assert body["iteration"] == 1 and body["dead_units"] == [
        {"node": "n8", "name": "h", "unit": 0, "iteration": 0},
        {"node": "n8", "name": "h", "unit": 1, "iteration": 0}]


def test_the_stream_events_in_order_with_the_dead_unit_of_seed_5():
    events = list(iterations(parse(seed003_xor(5)), TrainConfig(steps=4, lr=0.5, record=(2,))))
    types = [e["type"] for e in events]
    assert types == ["start", "iteration", "dead", "iteration", "iteration", "recorded",
                     "iteration", "done"]
    assert events[0] == {"type": "start", "steps": 4, "params": ["W1", "b1", "W2", "b2"],
                         "data": None, "classes": None}
    assert events[2] == {"type": "dead", "i": 0, "node": "n8", "name": "h", "unit": 3}
    assert [e["i"] for e in events if e["type"] == "iteration"] == [0, 1, 2, 3]
    assert events[-1]["losses"] == [e["loss"] for e in events if e["type"] == "iteration"]


def test_a_regression_loss_has_no_accuracy():
    answer = train(parse("w = 1.0\nx = const([1.0, 2.0, 3.0])\ny = const([2.0, 4.0, 6.0])\n"
                         "L = mse(w * x, y)\n"), TrainConfig(steps=200, lr=0.05))
    assert answer["accuracy"] is None and answer["boundary"] is None
    assert answer["params"]["w"] == pytest.approx(2.0, abs=1e-9)
    assert answer["losses"][0] == pytest.approx(14 / 3)


# ---- refusals ------------------------------------------------------------------------------
XOR = seed003_xor(1)


@pytest.mark.parametrize("text, config, kind, words", [
    (XOR, TrainConfig(steps=0, lr=0.5), "bad_argument", "steps must be"),
    (XOR, TrainConfig(steps=4, lr=0.5, limits=TrainLimits(max_steps=3)), "too_large",
     "4 steps asked; the limit (max_steps) is 3"),
    (XOR, TrainConfig(steps=5, lr=float("nan")), "bad_argument", "learning rate"),
    (XOR, TrainConfig(steps=5, lr=-1.0), "bad_argument", "learning rate"),
    (XOR, TrainConfig(steps=5, lr=0.5, optimizer="rmsprop"), "bad_argument", "optimizer"),
    (XOR, TrainConfig(steps=5, lr=0.5, bugs=("overwrite",)), "bad_argument", "bug"),
    (XOR, TrainConfig(steps=5, lr=0.5, record=(5,)), "bad_argument", "from 0 to 4"),
    (XOR, TrainConfig(steps=5, lr=0.5, record=(0, 1, 2, 3),
                      limits=TrainLimits(max_recorded=3)), "too_large", "max_recorded"),
    (XOR, TrainConfig(steps=5, lr=0.5, limits=TrainLimits(max_flop_steps=1000)),
     "too_large", "max_flop_steps"),
    (XOR, TrainConfig(steps=5, lr=0.5, limits=TrainLimits(max_element_steps=100)),
     "too_large", "max_element_steps"),
    (XOR, TrainConfig(steps=5, lr=0.5, output="h"), "bad_argument", "scalar loss"),
    (XOR, TrainConfig(steps=5, lr=0.5, output="nope"), "unknown_output", "nope"),
    ("x = const(2.0)\nL = x * x\n", TrainConfig(steps=5, lr=0.5), "bad_argument", "no leaves"),
    ("# bugs: overwrite\na = 1.0\nL = a * a\n", TrainConfig(steps=5, lr=0.5), "bad_argument",
     "# bugs:"),
])
def test_a_bad_run_is_refused_before_the_first_iteration(text, config, kind, words):
    with pytest.raises(ProgramError) as e:
        iterations(parse(text), config)   # not a generator's first next(): the call itself
    assert e.value.kind == kind and words in e.value.message


def test_the_wall_clock_budget_ends_the_stream_with_an_error_event():
    config = TrainConfig(steps=50, lr=0.5, limits=TrainLimits(timeout_seconds=0.0))
    events = list(iterations(parse(XOR), config))
    assert [e["type"] for e in events] == ["start", "iteration", "dead", "dead", "error"]
    assert events[-1]["error"]["kind"] == "timeout"
    with pytest.raises(ProgramError) as e:
        train(parse(XOR), config)
    assert e.value.kind == "timeout" and "train_timeout_seconds" in e.value.message


# ---- the data helpers' inputs: start event and decision boundary ----------------------------
def _xor_with_helper(seed: int) -> str:
    return ("X, y = xor()\n" + "".join(f"{k} = {v!r}\n" for k, v in seed003_weights(seed).items())
            + "h = relu(X @ W1.T + b1)\nz = h @ W2.T + b2\nL = cross_entropy(z, y)\n")


def test_xor_helper_trains_as_the_literal_program_and_draws_its_boundary():
    events = list(iterations(parse(_xor_with_helper(1)),
                             TrainConfig(steps=301, lr=0.5, boundary_every=100)))
    assert events[0]["data"] == {"X": XOR_X, "y": XOR_Y} and events[0]["classes"] == 2
    literal = train(parse(seed003_xor(1)), TrainConfig(steps=301, lr=0.5))
    assert events[-1]["losses"] == literal["losses"]
    boundaries = [e for e in events if e["type"] == "boundary"]
    assert [e["i"] for e in boundaries] == [0, 100, 200, 300]
    last = boundaries[-1]
    g = last["grid"]
    assert g == {"x0": -0.15, "x1": 1.15, "y0": -0.15, "y1": 1.15, "nx": 48, "ny": 48}
    # each cell's class and confidence: the trained net by hand (numpy) at the cell's centre
    p = {k: np.array(decode(v)) for k, v in events[-1]["params"].items()}
    xs = g["x0"] + (np.arange(48) + 0.5) * (g["x1"] - g["x0"]) / 48
    ys = g["y0"] + (np.arange(48) + 0.5) * (g["y1"] - g["y0"]) / 48
    cells = np.array([(x, y) for y in ys for x in xs])   # row-major, row 0 the lowest y
    z = np.maximum(cells @ p["W1"].T + p["b1"], 0) @ p["W2"].T + p["b2"]
    assert last["classes"] == np.argmax(z, axis=1).tolist()
    top = np.exp(z.max(axis=1)) / np.exp(z).sum(axis=1)
    assert np.allclose(last["confidence"], top, atol=5e-5)
    # the four corners: XOR's classes
    assert [last["classes"][r * 48 + c] for r, c in ((0, 0), (47, 0), (0, 47), (47, 47))] == \
        [0, 1, 1, 0]


def test_the_answer_carries_the_last_boundary():
    answer = train(parse(_xor_with_helper(1)), TrainConfig(steps=10, lr=0.5, boundary_every=4))
    assert answer["boundary"]["i"] == 9 and len(answer["boundary"]["classes"]) == 48 * 48


def test_a_diverging_run_says_nan_as_json_can_carry_it():
    # weights of std 1e150 and lr 1e6 (the largest lr): the weights overflow after one
    # update; every number stays valid JSON
    import json

    text = ("X, y = xor()\nW1 = randn(2, 4, seed=0, std=1e150)\nb1 = zeros(4)\n"
            "W2 = randn(4, 2, seed=1, std=1e150)\nb2 = zeros(2)\nh = relu(X @ W1 + b1)\n"
            "z = h @ W2 + b2\nL = cross_entropy(z, y)\n")
    answer = train(parse(text), TrainConfig(steps=5, lr=1e6, record=(4,)))
    assert np.isfinite(answer["losses"][0]) and answer["losses"][1:] == ["NaN"] * 4
    assert answer["diverged"]["iteration"] == 1
    assert set(answer["boundary"]["confidence"]) == {"NaN"}
    json.dumps(answer, allow_nan=False)   # no bare NaN anywhere, recorded walk included


# ---- the same network written with scalars, and in float32 ------------------------------------
@pytest.mark.parametrize("optimizer, lr", [("sgd", 0.5), ("momentum", 0.05), ("adam", 0.05)])
def test_seed_003_written_with_scalars_trains_as_the_tensor_program(optimizer, lr):
    # bench/train.py's program: 22 scalar leaves, the seed's forward line by line (the
    # generated float code of engine/tape_code.py) against the matrices of seed003_xor
    from bench.train import scalar_xor_program

    config = TrainConfig(steps=301, lr=lr, optimizer=optimizer)
    scalar = train(parse(scalar_xor_program()), config)
    tensor = train(parse(seed003_xor(1)), config)
    assert np.allclose(scalar["losses"], tensor["losses"], rtol=1e-11, atol=1e-14)
    assert type(scalar["params"]["w0"]) is float
    assert scalar["params"]["w0"] == pytest.approx(decode(tensor["params"]["W1"])[0][0],
                                                   rel=1e-10)


def test_a_float32_program_trains_in_float32():
    answer = train(parse("# dtype: float32\n" + seed003_xor(1)),
                   TrainConfig(steps=301, lr=0.5, record=(300,)))
    assert answer["losses"][300] == pytest.approx(0.0132222, abs=2e-6)
    assert answer["params"]["W1"]["dtype"] == "float32"
    assert answer["recorded"]["300"]["grads"]["b2"]["dtype"] == "float32"
