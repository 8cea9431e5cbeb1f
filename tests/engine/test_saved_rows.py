"""Issue 15, section 5: the cross_entropy row computes one softmax, kept by the tape between the
forward and the backward pass (saved tensors), with the numbers bit for bit those of its plain
rules (which the Tracer, forward mode, hvp's backward graph and the gradient check use); the
short-axis reductions it runs on; and a training step that no longer faults its pages in again.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from gradwalk.engine.ops import REGISTRY, get_op, losses
from gradwalk.engine.ops.lastaxis import last_max, last_sum
from gradwalk.engine.parse import parse
from gradwalk.engine.tape import compile
from gradwalk.engine.train.watch import _silent

EDGES = [[40.0, 0.0], [0.0, 40.0], [np.inf, 0.0], [-np.inf, 0.0], [-np.inf, -np.inf],
         [np.nan, 1.0], [1e300, -1e300], [0.0, -0.0], [5.0, 5.0], [1.0, 1.0, 1.0]]


def _same(a, b) -> bool:
    """Equal bit for bit in meaning: shape, every value (NaN as NaN) and the sign of 0."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True) and \
        np.array_equal(np.signbit(a), np.signbit(b))


def _logits():
    rng = np.random.default_rng(0)
    out = [np.array(e) for e in EDGES] + [np.array([e, e[::-1]]) for e in EDGES]
    for c in (2, 3, 7, 8, 10):
        out += [rng.standard_normal(c) * 30, rng.standard_normal((300, c)) * 30]
    return out


def _targets(z):
    c = z.shape[-1]
    if z.ndim == 1:
        return [0, c - 1]
    return [tuple(int(i) for i in np.arange(len(z)) % c)]


def test_cross_entropy_keeps_its_softmax_for_the_backward_pass():
    assert [name for name, op in REGISTRY.items() if op.forward_saving] == ["cross_entropy"]


@pytest.mark.parametrize("name", [n for n, op in REGISTRY.items() if op.forward_saving]
                         or ["cross_entropy"])
def test_the_saved_rules_give_the_plain_rules_numbers_bit_for_bit(name):
    op = get_op(name)
    for z in _logits():
        for t in _targets(z):
            with np.errstate(all="ignore"):
                out, saved = op.forward_saving(z, t)
                assert _same(out, op.forward(z, t)), (z, t)
                for g in (1.0, 0.7, np.float64(-3.0)):
                    assert _same(op.vjp_saved[0](g, saved), op.vjp[0](g, out, z, t)), (z, t)


def test_the_loss_stays_as_pytorch_float64_gives_it_with_its_tiny_positive_loss():
    op = get_op("cross_entropy")
    for z, t in (([40.0, 0.0], 0), ([[40.0, 0.0], [1.0, 3.0]], (0, 1)),
                 ([[0.5, -1.0, 2.0]] * 4, (0, 1, 2, 2))):
        out, saved = op.forward_saving(np.array(z), t)
        zt = torch.tensor(z, dtype=torch.float64, requires_grad=True)
        ref = torch.nn.functional.cross_entropy(zt, torch.tensor(t))
        ref.backward()
        # PyTorch rounds [40, 0]'s loss to 0; ours keeps log1p(exp(-40)) (checked below)
        assert float(out) == pytest.approx(ref.item(), rel=1e-15, abs=1e-17)
        np.testing.assert_allclose(saved, zt.grad.numpy(), rtol=1e-14, atol=1e-300)
    out, _ = op.forward_saving(np.array([40.0, 0.0]), 0)
    assert float(out) == pytest.approx(4.248354255291589e-18, rel=1e-15)
    assert float(out) > 0 and not np.signbit(out)


def test_the_tape_makes_one_softmax_a_pass_and_keeps_it(monkeypatch):
    program = parse("Z = [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]\nL = cross_entropy(Z, [2, 0])\n")
    tape = compile(program)
    tape.forward()   # the first, checked pass
    calls = []
    real = losses._softmax_parts
    monkeypatch.setattr(losses, "_softmax_parts", lambda z: calls.append(1) or real(z))
    values = tape.forward()
    grads = tape.backward(values)
    assert len(calls) == 1
    zt = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=torch.float64,
                      requires_grad=True)
    torch.nn.functional.cross_entropy(zt, torch.tensor([2, 0])).backward()
    np.testing.assert_allclose(grads["Z"], zt.grad.numpy(), rtol=1e-14)


@pytest.mark.parametrize("shape", [(5,), (1, 1), (4, 1), (300, 2), (300, 3), (7, 7), (3, 8),
                                   (5, 9), (2, 3, 5), (4, 2, 7)])
def test_short_axis_reductions_are_numpys_bit_for_bit(shape):
    rng = np.random.default_rng(sum(shape))
    a = np.exp(rng.standard_normal(shape) * 30) * rng.choice([-1.0, 1.0], shape)
    for specials in ([np.nan], [np.inf, -np.inf], [-0.0, 0.0], [5e-324]):
        b = a.copy()
        b.reshape(-1)[::7] = np.resize(specials, b.reshape(-1)[::7].shape)
        for keep in (False, True):
            assert _same(last_sum(b, keep), np.sum(b, axis=-1, keepdims=keep))
            assert _same(last_max(b, keep), np.max(b, axis=-1, keepdims=keep))


def test_a_dead_unit_is_a_column_of_zeros_and_nan_or_a_subnormal_is_alive():
    out = np.zeros((6, 5))
    out[:, 1] = np.nan
    out[3, 2] = 5e-324
    out[:, 3] = -0.0
    out[0, 4] = np.inf
    assert _silent(out).tolist() == [0, 3]


SPIRALS_RUN = textwrap.dedent("""
    import resource, sys
    from bench.train import spiral_program
    from gradwalk.engine.parse import parse
    from gradwalk.engine.train import TrainConfig, iterations
    events = iterations(parse(spiral_program()), TrainConfig(steps=300, lr=1.0))
    faults = []
    for e in events:
        if e["type"] == "iteration" and e["i"] in (100, 299):
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)
    print((faults[1] - faults[0]) / 199)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc, ru_minflt")
def test_a_training_step_reuses_the_pages_of_the_step_before():
    """Before engine/train/heap.py: about 80 page faults a step (the heap trimmed and grown
    again each step), about as long as numpy's whole step. In a child process: a fresh
    allocator."""
    done = subprocess.run([sys.executable, "-c", SPIRALS_RUN], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 5
