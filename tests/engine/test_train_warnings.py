"""engine/train: what a run says besides its losses (review of issue 15, items 10, 12, 13).

- A run whose loss or parameters become NaN or infinite says so (`diverged`, the stream's
  `diverged` event), and no unit is called dead from then on.
- One bound on the learning rate (engine/train/config.py check_lr), one message.
- An update's narration carries its numbers (engine/train/record.py update_numbers).
- A refused header is located at its line.
References: PyTorch float64 (torch.optim.SGD and Momentum on the same weights).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.train import TrainConfig, iterations, train
from gradwalk.engine.train.config import MAX_LR
from gradwalk.engine.trace.values import decode
from train_programs import REGRESSION, seed003_weights, seed003_xor



def _torch_regression(lr: float, steps: int):
    """(losses, first iteration whose loss or updated params are not finite) in PyTorch."""
    t = lambda v: torch.tensor(v, dtype=torch.float64)   # noqa: E731
    X, y = t([[1.0, 2.0], [-1.0, 0.5], [0.3, -2.0]]), t([1.0, -1.0, 0.5])
    W = t([[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]]).requires_grad_()
    v = t([1.0, -1.0, 0.5]).requires_grad_()
    opt = torch.optim.SGD([W, v], lr=lr)
    losses, first = [], None
    for i in range(steps):
        opt.zero_grad()
        loss = ((torch.relu(X @ W) @ v - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        finite = np.isfinite(losses[-1]) and all(bool(torch.isfinite(p).all()) for p in (W, v))
        if first is None and not finite:
            first = i
    return losses, first


# ---- divergence ------------------------------------------------------------------------------
def test_a_diverging_regression_says_where_as_pytorch_finds_it():
    answer = train(parse(REGRESSION), TrainConfig(steps=12, lr=1000.0))
    losses, first = _torch_regression(1000.0, 12)
    assert first == 4
    assert np.allclose(answer["losses"][:4], losses[:4], rtol=1e-12)
    assert answer["losses"][4] == "Infinity" and answer["losses"][5] == "NaN"
    assert answer["diverged"] == {"iteration": 4, "why": "the loss is Infinity at iteration 4; "
                                  "the run diverged (lr 1000 may be too large)"}


def test_a_run_that_learns_has_no_warning():
    assert train(parse(seed003_xor(1)), TrainConfig(steps=20, lr=0.5))["diverged"] is None


def test_the_stream_warns_once_right_after_the_iteration_that_diverged():
    events = list(iterations(parse(REGRESSION), TrainConfig(steps=8, lr=1000.0)))
    warned = [k for k, e in enumerate(events) if e["type"] == "diverged"]
    assert len(warned) == 1
    k = warned[0]
    assert events[k - 1] == {"type": "iteration", "i": 4, "loss": "Infinity", "accuracy": None}
    assert events[k]["i"] == 4 and events[-1]["diverged"]["iteration"] == 4


def test_updated_parameters_that_overflow_are_the_divergence_of_that_iteration():
    # the loss 1e305 is finite; its gradient 1e305 times lr 1e6 is not (1e311 > 1.8e308)
    answer = train(parse("w = 1.0\nL = w * 1e305\n"), TrainConfig(steps=3, lr=1e6))
    assert answer["losses"][0] == 1e305 and answer["params"]["w"] == "-Infinity"
    assert answer["diverged"]["iteration"] == 0
    assert "the update of iteration 0 made w non-finite" in answer["diverged"]["why"]


def test_nan_units_are_not_called_dead():
    # seed 003's net on XOR scaled by 1e160: the first update overflows, iteration 1's loss
    # is NaN. Unit 0 is alive at iteration 0 (its pre-activation > 0 on a sample).
    program = seed003_xor(1).replace("[1.0, 1.0]]", "[1e160, 1e160]]") \
        .replace("[0.0, 1.0], [1.0, 0.0]", "[0.0, 1e160], [1e160, 0.0]")
    answer = train(parse(program), TrainConfig(steps=5, lr=0.5))
    assert answer["losses"][1] == "NaN"
    assert answer["dead_units"] == []
    assert answer["diverged"]["iteration"] == 1


# ---- one learning-rate bound -----------------------------------------------------------------
@pytest.mark.parametrize("lr", [0.0, -0.5, float("nan"), float("inf"), 1e308, MAX_LR * 1.5])
def test_a_learning_rate_out_of_bounds_is_refused_with_one_message(lr):
    with pytest.raises(ProgramError) as e:
        train(parse("w = 1.0\nL = w * w\n"), TrainConfig(steps=1, lr=lr))
    assert e.value.kind == "bad_argument"
    assert e.value.message == ("the learning rate must be a number above 0 and at most "
                               f"1,000,000, not {lr!r}")


def test_the_largest_learning_rate_runs():
    assert train(parse("w = 1.0\nL = w * w\n"), TrainConfig(steps=1, lr=MAX_LR))["losses"] \
        == [1.0]


# ---- an update's numbers ---------------------------------------------------------------------
def _updates(program: str, **config) -> dict:
    answer = train(parse(program), TrainConfig(record=(0,), **config))
    return {e["name"]: e for e in answer["recorded"]["0"]["events"] if e["kind"] == "update"}


def test_a_scalar_update_narrates_lr_times_its_gradient_and_the_new_value():
    w = torch.tensor(0.4, dtype=torch.float64, requires_grad=True)
    (torch.tanh(w) * 3.0).backward()
    grad = w.grad.item()   # 3 (1 - tanh² 0.4) = 2.5477...
    update = _updates("w = 0.4\nL = tanh(w) * 3.0\n", steps=1, lr=0.5)["w"]
    step, new = 0.5 * grad, 0.4 - 0.5 * grad
    assert update["narration"] == (f"w -= 0.5 · w̄ = 0.5 · {grad:.4f} = {step:.4f}, "
                                   f"so w = 0.4 - {step:.4f} = {new:.4f}")


def _torch_grads(seed: int) -> dict:
    ps = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
          for k, v in seed003_weights(seed).items()}
    X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    h = torch.relu(X @ ps["W1"].T + ps["b1"])
    torch.nn.functional.cross_entropy(h @ ps["W2"].T + ps["b2"],
                                      torch.tensor([0, 1, 1, 0])).backward()
    return {k: p.grad.numpy() for k, p in ps.items()}


def _bracketed(text: str) -> list[float]:
    """The numbers inside the text's [...] groups, in order."""
    import re
    return [float(x) for group in re.findall(r"\[([^\]]*)\]", text) for x in group.split(",")]


def test_small_tensors_narrate_their_numbers_and_big_ones_their_norms():
    grads, weights = _torch_grads(1), seed003_weights(1)
    update = _updates(seed003_xor(1), steps=1, lr=0.5)
    b2 = update["b2"]["narration"]   # 2 numbers: in brackets
    assert b2.startswith("b2 -= 0.5 · b̄2 = 0.5 · [")
    got = _bracketed(b2)
    want = [*grads["b2"], *(0.5 * grads["b2"]), *(np.array(weights["b2"]) - 0.5 * grads["b2"])]
    assert np.allclose(got, want, atol=5.1e-5)
    w1 = update["W1"]["narration"]   # 8 numbers: the norms
    norm = np.linalg.norm(grads["W1"])
    assert w1 == (f"W1 -= 0.5 · W̄1; ‖W̄1‖ = {norm:.4f}, ‖step‖ = {0.5 * norm:.4f} "
                  "over 8 elements")


def test_momentum_narrates_the_step_it_took():
    update = _updates("w = 0.4\nL = w * w\n", steps=1, lr=0.1, optimizer="momentum")["w"]
    # torch.optim.SGD(momentum=0.9): the first step's buffer is the gradient, 0.8
    assert update["narration"] == ("w -= 0.1 · b, b = 0.9 · b + w̄ (momentum); the step is "
                                   "0.08, so w = 0.4 - 0.08 = 0.32")
    assert decode(update["value"]) == pytest.approx(0.32, rel=1e-15)


# ---- refused headers are located -------------------------------------------------------------
@pytest.mark.parametrize("program, line", [
    ('# hvp: {"w": 1.0}\nw = 1.0\nL = w * w\n', 1),
    ("# hessian: full\nw = 1.0\nL = w * w\n", 1),
    ("# bugs: zero_grad\nw = 1.0\nL = w * w\n", 1),
    ("w = [1.0, 2.0]\nu = w * 2.0\nu += w\nL = sum(u)\n", 3),
])
def test_a_header_training_refuses_is_located_at_its_line(program, line):
    with pytest.raises(ProgramError) as e:
        train(parse(program), TrainConfig(steps=1, lr=0.1))
    assert e.value.kind == "bad_argument" and e.value.line == line


def test_a_loss_not_finite_before_any_update_blames_the_program_not_lr():
    answer = train(parse("w = 1e200\nL = w * w\n"), TrainConfig(steps=2, lr=0.1))
    assert answer["diverged"] == {"iteration": 0, "why": "the loss is Infinity at iteration 0, "
                                  "before any update: the program's numbers overflow or are "
                                  "undefined"}


def test_divergence_finds_every_non_finite_parameter_and_no_overflowing_sum():
    # one sum per parameter decides first: 1e308 + 1e308 overflows to inf with every element
    # finite (the element-by-element check then clears it), and inf - inf is NaN
    from gradwalk.engine.train.watch import divergence

    big = {"W": np.array([1e308, 1e308]), "b": 1e308}
    assert divergence(3, 0.5, big, 0.1) is None
    for bad in (np.array([1.0, np.nan]), np.array([np.inf, -np.inf]), np.array([-np.inf, 1.0])):
        found = divergence(3, 0.5, {"W": np.array([1.0, 2.0]), "b": bad}, 0.1)
        assert found is not None and found["iteration"] == 3 and "made b non-finite" in found["why"]
    assert divergence(3, float("nan"), {}, 0.1)["why"].startswith("the loss is NaN")
