"""The optimizers, as PyTorch writes them (torch/optim/sgd.py and adam.py, single-tensor path,
weight_decay 0), so a run matches torch.optim step for step in float64.

- SGD: p ← p - lr · g.
- Momentum (torch.optim.SGD with momentum μ, dampening 0, nesterov False): b ← g on the first
  step, else b ← μ · b + g; p ← p - lr · b.
- Adam (Kingma & Ba, "Adam: a method for stochastic optimization", 2015, Algorithm 1, in
  PyTorch's arrangement): m ← m + (1 - β1)(g - m) (torch's lerp), v ← β2 · v + (1 - β2) g²;
  p ← p - (lr / (1 - β1^t)) · m / (√v / √(1 - β2^t) + ε), t the step count from 1.

Every parameter is a Python float (a float64 program's 0-d leaf) or a numpy array; updates make
new objects (the tape's values of the last pass still point at the old ones).
"""
from __future__ import annotations

import math

import numpy as np


class SGD:
    """Plain gradient descent. step(params, grads) -> the new params (name -> value)."""

    def __init__(self, lr: float, **_):
        self.lr = lr

    def step(self, params: dict, grads: dict) -> dict:
        lr = self.lr
        return {k: p - lr * grads[k] for k, p in params.items()}

    def narration(self, name: str, bar: str) -> str:
        return f"{name} -= {self.lr:g} · {bar}"


class Momentum(SGD):
    """Heavy-ball momentum μ (torch.optim.SGD's momentum buffer, dampening 0)."""

    def __init__(self, lr: float, momentum: float = 0.9, **_):
        super().__init__(lr)
        self.mu = momentum
        self.buffers: dict = {}

    def step(self, params: dict, grads: dict) -> dict:
        lr, mu, buffers = self.lr, self.mu, self.buffers
        out = {}
        for k, p in params.items():
            b = grads[k] if k not in buffers else mu * buffers[k] + grads[k]
            buffers[k] = b
            out[k] = p - lr * b
        return out

    def narration(self, name: str, bar: str) -> str:
        return f"{name} -= {self.lr:g} · b, b = {self.mu:g} · b + {bar} (momentum)"


class Adam(SGD):
    """Adam with PyTorch's defaults betas (0.9, 0.999), eps 1e-8."""

    def __init__(self, lr: float, betas=(0.9, 0.999), eps: float = 1e-8, **_):
        super().__init__(lr)
        self.b1, self.b2 = betas
        self.eps = eps
        self.t = 0
        self.m: dict = {}
        self.v: dict = {}

    def step(self, params: dict, grads: dict) -> dict:
        self.t += 1
        b1, b2, eps = self.b1, self.b2, self.eps
        step_size = self.lr / (1 - b1 ** self.t)
        root2 = math.sqrt(1 - b2 ** self.t)
        out = {}
        for k, p in params.items():
            g = grads[k]
            m = self.m.get(k, 0.0 * g)
            m = m + (1 - b1) * (g - m)
            v = b2 * self.v.get(k, 0.0 * g) + (1 - b2) * (g * g)
            self.m[k], self.v[k] = m, v
            out[k] = p - step_size * (m / (np.sqrt(v) / root2 + eps))
        return out

    def narration(self, name: str, bar: str) -> str:
        return (f"{name} -= {self.lr:g} · m̂ / (√v̂ + {self.eps:g}) (Adam: m̂, v̂ the running "
                f"means of {bar} and {bar}², bias-corrected)")


def make(config) -> SGD:
    """The optimizer a TrainConfig names (engine/train/config.py checked the name)."""
    kind = {"sgd": SGD, "momentum": Momentum, "adam": Adam}[config.optimizer]
    return kind(config.lr, momentum=config.momentum, betas=config.betas, eps=config.eps)
