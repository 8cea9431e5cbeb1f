"""Seed 000's networks trained (issue 15, section 4): the three spirals to 100% training
accuracy within 3,000 full-batch SGD steps at lr 1.0, and XOR with tanh units heading toward
(-1, 1, 1, -1); PyTorch float64 trains the same weights alongside as the reference."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.parse import parse
from gradwalk.engine.tape import compile
from gradwalk.engine.train import TrainConfig, iterations, train
from gradwalk.engine.trace.values import decode
from train_programs import SPIRALS, XOR_TANH


def _leaves(text: str) -> dict[str, np.ndarray]:
    program = parse(text)
    return {k: np.array(program.nodes[i].literal) for k, i in program.leaves.items()}


def _data(text: str):
    program = parse(text)
    return (np.array(program.nodes[program.names[k]].literal) for k in ("X", "y"))


@pytest.fixture(autouse=True)
def one_torch_thread():
    # tiny matrices: PyTorch's thread pool only waits on a shared, loaded machine
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _torch_spirals(steps: int, record: tuple[int, ...]):
    X, y = _data(SPIRALS)
    X, y = torch.tensor(X), torch.tensor(y, dtype=torch.long)
    ps = {k: torch.tensor(v, requires_grad=True) for k, v in _leaves(SPIRALS).items()}
    opt = torch.optim.SGD(list(ps.values()), lr=1.0)
    losses, grads = [], {}
    for i in range(steps):
        z = torch.relu(X @ ps["W1"] + ps["b1"]) @ ps["W2"] + ps["b2"]
        loss = torch.nn.functional.cross_entropy(z, y)
        opt.zero_grad()
        loss.backward()
        losses.append(loss.item())
        if i in record:
            grads[i] = {k: p.grad.numpy().copy() for k, p in ps.items()}
        opt.step()
    return losses, grads


def test_three_spirals_reach_100_percent_within_3000_steps_as_pytorch_does():
    record = (0, 926, 2999)
    events = list(iterations(parse(SPIRALS), TrainConfig(steps=3000, lr=1.0, record=record,
                                                         boundary_every=1000)))
    accuracy = [e["accuracy"] for e in events if e["type"] == "iteration"]
    assert accuracy[0] < 0.6 and accuracy.index(1.0) == 926   # first at iteration 926
    done = events[-1]
    assert done["accuracy"] == 1.0 and done["losses"][-1] < 0.02
    losses, grads = _torch_spirals(3000, record)
    assert np.allclose(done["losses"], losses, rtol=1e-9, atol=1e-12)
    recorded = {e["i"]: e["trace"] for e in events if e["type"] == "recorded"}
    for k in record:   # each recorded walk's gradients: PyTorch's on that iteration's weights
        for name, want in grads[k].items():
            assert np.allclose(decode(recorded[k]["grads"][name]), want, rtol=1e-9,
                               atol=1e-13), (k, name)
    boundary = [e for e in events if e["type"] == "boundary"][-1]
    assert boundary["i"] == 2999 and sorted(set(boundary["classes"])) == [0, 1, 2]
    assert events[0]["classes"] == 3 and len(events[0]["data"]["X"]) == 300


def test_xor_with_tanh_units_heads_toward_minus_one_one_one_minus_one():
    answer = train(parse(XOR_TANH), TrainConfig(steps=500, lr=0.5))
    assert answer["accuracy"] is None   # a regression loss
    tape = compile(parse(XOR_TANH))
    params = {k: np.array(decode(v)) for k, v in answer["params"].items()}
    out = tape.forward(params)[parse(XOR_TANH).names["out"]].ravel()
    assert np.allclose(out, [-1, 1, 1, -1], atol=0.04)
    assert answer["losses"][0] == pytest.approx(1.1222020037495872, rel=1e-12)
    assert answer["losses"][-1] < 1e-3 < answer["losses"][100] < answer["losses"][0]
    # PyTorch float64, the same weights and steps
    X, _ = _data(XOR_TANH)
    X, t = torch.tensor(X), torch.tensor([[-1.0], [1.0], [1.0], [-1.0]], dtype=torch.float64)
    ps = {k: torch.tensor(v, requires_grad=True) for k, v in _leaves(XOR_TANH).items()}
    opt = torch.optim.SGD(list(ps.values()), lr=0.5)
    def net():
        return torch.tanh(torch.tanh(X @ ps["W1"] + ps["b1"]) @ ps["W2"] + ps["b2"])

    for _ in range(500):
        loss = torch.nn.functional.mse_loss(net(), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert np.allclose(out, net().detach().numpy().ravel(), rtol=1e-10)


def test_xor_with_tanh_units_has_its_outputs_boundary_over_the_plane():
    """A regression over 2-D points (mse) gets a boundary too (issue 15 §3 review, item 3):
    the prediction at each grid cell and at the data points, as PyTorch computes them."""
    events = list(iterations(parse(XOR_TANH), TrainConfig(steps=500, lr=0.5)))
    start = events[0]
    assert start["classes"] is None
    assert start["data"] == {"X": [[0, 0], [0, 1], [1, 0], [1, 1]], "y": [-1, 1, 1, -1]}
    last = [e for e in events if e["type"] == "boundary"][-1]
    assert last["i"] == 499 and "classes" not in last
    assert np.allclose(last["outputs"], [-1, 1, 1, -1], atol=0.04)
    g = last["grid"]
    assert (g["nx"], g["ny"]) == (48, 48) and len(last["values"]) == 48 * 48
    # each cell's centre through the trained network in PyTorch float64 (row 0 the lowest y)
    params = {k: torch.tensor(decode(v)) for k, v in events[-1]["params"].items()}
    xs = g["x0"] + (np.arange(48) + 0.5) * (g["x1"] - g["x0"]) / 48
    ys = g["y0"] + (np.arange(48) + 0.5) * (g["y1"] - g["y0"]) / 48
    gx, gy = np.meshgrid(xs, ys)
    P = torch.tensor(np.stack([gx.ravel(), gy.ravel()], axis=1))
    want = torch.tanh(torch.tanh(P @ params["W1"] + params["b1"]) @ params["W2"] + params["b2"])
    assert np.allclose(last["values"], want.numpy().ravel(), atol=5e-5)
    at = train(parse(XOR_TANH), TrainConfig(steps=3, lr=0.5))   # the JSON answer has the data
    assert at["data"] == start["data"] and at["classes"] is None and at["boundary"]["i"] == 2
