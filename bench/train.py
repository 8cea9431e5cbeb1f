"""Training speed (issue 15, section 5), side by side in one run:

1. Three spirals (seed 000): 300 points, 2-64-3 ReLU network, mean cross-entropy, 3,000
   full-batch SGD steps at lr 1.0. gradwalk's engine.train (a tape compiled once; the
   iteration events made but not serialized) against numpy doing the same forward, backward
   and update by hand, and PyTorch CPU float64 (autograd, torch.optim.SGD). The bound: gradwalk
   at most 1.5 times numpy.
2. Seed 003's XOR written with scalars (22 weights, 4 examples, the log-sum-exp cross-entropy):
   one iteration (forward, zero_grad, backward, update) of gradwalk's engine.train (the tape
   compiled once before the iterations, its cost shown apart) against
   micrograd (the PyPI package, garbage collector off) building and back-propagating the same
   graph. micrograd's Value has no exp or log: they are added in its own style (a closure that
   does `self.grad += local * out.grad`), as the seed's Value class has them. The bound:
   gradwalk no slower than micrograd.

The data and weights are written into the programs as literals (spirals by the recipe of
engine/datasets.py, numpy default_rng; weights N(0, 0.5²)). CPU time (time.process_time),
every engine on one thread (OpenBLAS and PyTorch), rounds interleaved; the median of ROUNDS.

    .venv/bin/python -m bench.train [--rounds 5]   # prints the rows and writes them into
                                                    # docs/performance.md between its markers
"""
from __future__ import annotations

import argparse
import datetime
import gc
import math
import os
import pathlib
import random
import re
import statistics
import time

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
os.environ.update(ONE_THREAD)   # before numpy is imported

import numpy as np  # noqa: E402

STEPS, LR, WIDTH, N, CLASSES = 3_000, 1.0, 64, 100, 3
XOR_STEPS = 1_000
DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "performance.md"
BEGIN = "<!-- BEGIN bench.train (generated: .venv/bin/python -m bench.train) -->"
END = "<!-- END bench.train -->"


# ---- the spirals network ---------------------------------------------------------------------
def spirals(n: int = N, classes: int = CLASSES, seed: int = 0, noise: float = 0.2):
    """engine/datasets.py's recipe: class j, i = 0..n-1, r = (i+1)/n, θ = 4j + 4i/(n-1) +
    noise·N(0,1) from default_rng(seed) per class in order; x = (r sin θ, r cos θ)."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for j in range(classes):
        r = np.arange(1, n + 1) / n
        t = 4 * j + 4 * np.arange(n) / (n - 1) + noise * rng.standard_normal(n)
        X.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        y += [j] * n
    return np.concatenate(X), np.array(y)


def spiral_weights(seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"W1": rng.standard_normal((2, WIDTH)) * 0.5, "b1": np.zeros(WIDTH),
            "W2": rng.standard_normal((WIDTH, CLASSES)) * 0.5, "b2": np.zeros(CLASSES)}


def spiral_program() -> str:
    X, y = spirals()
    w = spiral_weights()
    return (f"X = const({X.tolist()!r})\n" + "".join(f"{k} = {v.tolist()!r}\n"
                                                      for k, v in w.items())
            + "h = relu(X @ W1 + b1)\nz = h @ W2 + b2\n"
            f"L = cross_entropy(z, {y.tolist()!r})\n")


def run_gradwalk_spirals(program) -> float:
    from gradwalk.engine.train import TrainConfig, iterations

    *_, done = iterations(program, TrainConfig(steps=STEPS, lr=LR))
    return done["accuracy"]


def run_numpy_spirals() -> float:
    X, y = spirals()
    p = spiral_weights()
    W1, b1, W2, b2 = p["W1"], p["b1"], p["W2"], p["b2"]
    n = len(X)
    rows = np.arange(n)
    for _ in range(STEPS):
        pre = X @ W1 + b1
        h = np.maximum(pre, 0.0)
        z = h @ W2 + b2
        e = np.exp(z - z.max(axis=1, keepdims=True))
        prob = e / e.sum(axis=1, keepdims=True)
        _loss = -np.log(prob[rows, y]).mean()
        dz = prob
        dz[rows, y] -= 1.0
        dz /= n
        dW2, db2 = h.T @ dz, dz.sum(axis=0)
        dpre = np.where(pre > 0, dz @ W2.T, 0.0)
        dW1, db1 = X.T @ dpre, dpre.sum(axis=0)
        W1, b1, W2, b2 = W1 - LR * dW1, b1 - LR * db1, W2 - LR * dW2, b2 - LR * db2
    z = np.maximum(X @ W1 + b1, 0.0) @ W2 + b2
    return float(np.mean(np.argmax(z, axis=1) == y))


def run_torch_spirals() -> float:
    import torch

    X, y = spirals()
    X, y = torch.tensor(X), torch.tensor(y)
    ps = [torch.tensor(v, requires_grad=True) for v in spiral_weights().values()]
    W1, b1, W2, b2 = ps
    opt = torch.optim.SGD(ps, lr=LR)
    for _ in range(STEPS):
        loss = torch.nn.functional.cross_entropy(torch.relu(X @ W1 + b1) @ W2 + b2, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return float((torch.argmax(torch.relu(X @ W1 + b1) @ W2 + b2, 1) == y).double().mean())


# ---- seed 003's scalar XOR -------------------------------------------------------------------
XOR_X, XOR_Y = [(0, 0), (0, 1), (1, 0), (1, 1)], [0, 1, 1, 0]


def xor_weights() -> list[float]:
    random.seed(1)
    return [random.uniform(-1, 1) for _ in range(22)]


def scalar_xor_program() -> str:
    """Seed 003's forward written with scalars, one leaf per weight (w0 .. w21)."""
    w = xor_weights()
    lines = [f"w{k} = {v!r}" for k, v in enumerate(w)]
    terms = []
    for s, ((x0, x1), y) in enumerate(zip(XOR_X, XOR_Y)):
        for i in range(4):
            lines.append(f"h{s}_{i} = relu(w{2 * i} * {x0:.1f} + w{2 * i + 1} * {x1:.1f} "
                         f"+ w{8 + i})")
        for j in range(2):
            lines.append(f"z{s}_{j} = " + " + ".join(f"w{12 + 4 * j + i} * h{s}_{i}"
                                                     for i in range(4)) + f" + w{20 + j}")
        lines.append(f"l{s} = log(exp(z{s}_0) + exp(z{s}_1)) - z{s}_{y}")
        terms.append(f"l{s}")
    lines.append(f"L = ({' + '.join(terms)}) * 0.25")
    return "\n".join(lines) + "\n"


def micrograd_value():
    """micrograd's Value with exp and log added, each in micrograd's own style (its ops make
    plain `Value`s, so the methods go on that class, in this process only)."""
    from micrograd.engine import Value

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += (1 / self.data) * out.grad
        out._backward = _backward
        return out

    Value.exp, Value.log = exp, log
    return Value


def run_micrograd_xor(steps: int = XOR_STEPS) -> float:
    V = micrograd_value()
    params = [V(w) for w in xor_weights()]
    loss = None
    for _ in range(steps):
        W1, b1, W2, b2 = params[0:8], params[8:12], params[12:20], params[20:22]
        total = 0
        for (x0, x1), y in zip(XOR_X, XOR_Y):
            hid = [(W1[2 * i] * x0 + W1[2 * i + 1] * x1 + b1[i]).relu() for i in range(4)]
            z = [sum((W2[4 * j + i] * hid[i] for i in range(4)), b2[j]) for j in range(2)]
            total = total + ((z[0].exp() + z[1].exp()).log() - z[y])
        loss = total * 0.25
        for p in params:
            p.grad = 0.0
        loss.backward()
        for p in params:
            p.data -= 0.5 * p.grad
    return loss.data


def gradwalk_xor_run(program, steps: int = XOR_STEPS):
    """The run's events, not started: building it compiles the tape (once per program)."""
    from gradwalk.engine.train import TrainConfig, iterations

    return iterations(program, TrainConfig(steps=steps, lr=0.5))


def run_gradwalk_xor(events) -> float:
    *_, done = events
    return done["losses"][-1]


# ---- timing ----------------------------------------------------------------------------------
def cpu(fn, *args) -> float:
    """CPU seconds of one call, the garbage collector off (as micrograd is measured; every
    engine runs alike) after a collection (micrograd's closures leave cycles behind, whose
    collection would otherwise land in the next engine's time)."""
    return timed(fn, *args)[0]


def timed(fn, *args) -> tuple[float, object]:
    """(CPU seconds, result) of one call, as `cpu` measures it."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        result = fn(*args)
        return time.process_time() - start, result
    finally:
        gc.enable()


def measure(rounds: int) -> dict[str, float]:
    import torch

    torch.set_num_threads(1)
    from gradwalk.engine.parse import parse

    spiral, xor = parse(spiral_program()), parse(scalar_xor_program())
    ways = {"gradwalk spirals": lambda: run_gradwalk_spirals(spiral),
            "numpy spirals": run_numpy_spirals, "torch spirals": run_torch_spirals,
            "micrograd xor": run_micrograd_xor}
    times: dict[str, list[float]] = {k: [] for k in [*ways, "gradwalk xor", "xor compile"]}
    for _ in range(rounds):   # interleaved: a busy moment of the machine hits every engine
        for k, fn in ways.items():
            times[k].append(cpu(fn))
        seconds, events = timed(gradwalk_xor_run, xor)   # the tape compiled, once a program
        times["xor compile"].append(seconds)
        times["gradwalk xor"].append(cpu(run_gradwalk_xor, events))
    return {k: statistics.median(v) for k, v in times.items()}


def rows(t: dict[str, float], rounds: int) -> list[tuple[str, str, str]]:
    g, n, tt = t["gradwalk spirals"], t["numpy spirals"], t["torch spirals"]
    gx, mx = t["gradwalk xor"] / XOR_STEPS, t["micrograd xor"] / XOR_STEPS
    return [
        (f"spirals, {STEPS:,} SGD steps: gradwalk engine.train (s)", "≤ 1.5 × numpy",
         f"{g:.2f} ({g / n:.2f} × numpy)"),
        (f"spirals, {STEPS:,} SGD steps: numpy by hand (s)", "-", f"{n:.2f}"),
        (f"spirals, {STEPS:,} SGD steps: PyTorch CPU float64 (s)", "-",
         f"{tt:.2f} ({tt / n:.2f} × numpy)"),
        ("scalar XOR (seed 003): gradwalk, one iteration (ms)", "≤ micrograd",
         f"{gx * 1e3:.3f} ({gx / mx:.2f} × micrograd)"),
        ("scalar XOR (seed 003): gradwalk's tape compiled, once per program (ms)", "-",
         f"{t['xor compile'] * 1e3:.1f}"),
        ("scalar XOR (seed 003): micrograd, GC off, one iteration (ms)", "-",
         f"{mx * 1e3:.3f}"),
        ("rounds (medians of)", "-", str(rounds)),
    ]


def table(r: list[tuple[str, str, str]]) -> str:
    lines = ["| measure | bound | measured |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in r]
    return "\n".join(lines)


def write(text: str) -> None:
    doc = DOC.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in doc:
        doc = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, doc,
                     flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n## Training (issue 15, section 5)\n\n" + block + "\n"
    DOC.write_text(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from bench import machine

    t = measure(args.rounds)
    m = machine.describe()
    text = (f"Measured {datetime.date.today().isoformat()} by `python -m bench.train` on "
            f"{m['cores']} cores ({m['cpu']}), BLAS {m['blas']}, {m['python']}, numpy "
            f"{m['numpy']}, PyTorch {m['torch']}; load average {m['load']} at the end (the "
            "machine is shared: CPU time, the median of the rounds, engines interleaved, one "
            "thread in every library).\n\n" + table(rows(t, args.rounds)))
    print(text)
    write(text)


if __name__ == "__main__":
    main()
