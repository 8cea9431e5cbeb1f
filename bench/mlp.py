"""A tensor MLP, batch 256: gradwalk against numpy by hand and PyTorch CPU, forward + backward.

Two programs of one network (issue 6, section 4):

    literals                                  randn
    X = const(<batch x width literal>)        X = const(randn(256, width, seed=0))
    W1 = <width x width literal>              W1 = randn(width, width, seed=1)
    b1 = <width literal>                      b1 = randn(width, seed=2)
    W2 = <width x 10 literal>                 W2 = randn(width, 10, seed=3)
    h = tanh(X @ W1 + b1)
    y = h @ W2
    L = mean(y * y)

The literals are a seeded standard normal (weights scaled by 1/sqrt(width)) written with repr;
the randn program's weights are the leaf helper's numbers (numpy default_rng(seed), unscaled:
the language has no scale argument, and the cost does not depend on the numbers). Each runs in
float64 and, with `# dtype: float32` as its first line, in float32. CPU time per run, best of
`repeats`:
- gradwalk "trace": `Tracer(text)` and every event of `Tracer.events()` (typed models), the
  issue's measure; "body": `trace_json(text)`, what POST /api/trace does; "parse": parse alone;
- numpy: the same forward and backward by hand on arrays already in memory (for randn, the
  same arrays the helper makes; making them is timed apart, "numpy randn draw": the randn
  program asks gradwalk to draw its weights, so "numpy with the draw" is the same work);
- torch: the same on CPU tensors with autograd.

Every way runs on one thread (OpenBLAS, OpenMP and PyTorch set to one thread before numpy is
imported): CPU time counts every thread, and a BLAS thread pool's spinning waits would be
counted as work; gradwalk's own code is single-threaded too. `measure_in_one_thread` runs a
fresh process so set up.

    .venv/bin/python -m bench.mlp [WIDTH ...]
"""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
os.environ.update(ONE_THREAD)   # before numpy is imported (a no-op if it already was)

import numpy as np  # noqa: E402

BATCH = 256
CLASSES = 10
WIDTHS = (64, 256, 1024)


def arrays(width: int, dtype=np.float64, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    scale = 1 / np.sqrt(width)
    return {"X": rng.standard_normal((BATCH, width)).astype(dtype),
            "W1": (rng.standard_normal((width, width)) * scale).astype(dtype),
            "b1": (rng.standard_normal(width) * 0.1).astype(dtype),
            "W2": (rng.standard_normal((width, CLASSES)) * scale).astype(dtype)}


BODY = "h = tanh(X @ W1 + b1)\ny = h @ W2\nL = mean(y * y)\n"
SEEDS = {"X": 0, "W1": 1, "b1": 2, "W2": 3}


def program(width: int, dtype: str = "float64") -> str:
    a = arrays(width)
    return (_dtype_line(dtype) + f"X = const({a['X'].tolist()!r})\nW1 = {a['W1'].tolist()!r}\n"
            f"b1 = {a['b1'].tolist()!r}\nW2 = {a['W2'].tolist()!r}\n" + BODY)


def shapes(width: int) -> dict[str, tuple[int, ...]]:
    return {"X": (BATCH, width), "W1": (width, width), "b1": (width,), "W2": (width, CLASSES)}


def randn_program(width: int, dtype: str = "float64") -> str:
    """The MLP with every tensor from the randn leaf helper (the input a constant)."""
    def call(name):
        dims = ", ".join(map(str, shapes(width)[name]))
        return f"randn({dims}, seed={SEEDS[name]})"
    return (_dtype_line(dtype) + f"X = const({call('X')})\nW1 = {call('W1')}\n"
            f"b1 = {call('b1')}\nW2 = {call('W2')}\n" + BODY)


def randn_arrays(width: int, dtype=np.float64) -> dict[str, np.ndarray]:
    """What randn_program's helpers make: drawn in float64, then cast (engine/parse_tensors)."""
    return {name: np.random.default_rng(SEEDS[name]).standard_normal(shape).astype(dtype)
            for name, shape in shapes(width).items()}


def _dtype_line(dtype: str) -> str:
    return "" if dtype == "float64" else f"# dtype: {dtype}\n"


def by_hand(a: dict) -> dict:
    """Forward and backward in numpy: the gradients of L for W1, b1, W2."""
    X, W1, b1, W2 = a["X"], a["W1"], a["b1"], a["W2"]
    z = X @ W1 + b1
    h = np.tanh(z)
    y = h @ W2
    L = np.mean(y * y)
    gy = 2 * y / y.size
    gW2 = h.T @ gy
    gh = gy @ W2.T
    gz = gh * (1 - h * h)
    return {"L": L, "W1": X.T @ gz, "b1": gz.sum(axis=0), "W2": gW2}


def torch_run(t: dict) -> None:
    h = (t["X"] @ t["W1"] + t["b1"]).tanh()
    y = h @ t["W2"]
    (y * y).mean().backward()


def limits():
    from gradwalk.engine.trace.runner import Limits
    return Limits(max_elements=2_000_000, max_total_elements=20_000_000,
                  max_flops=2_000_000_000, max_response_bytes=500_000_000)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def measure(width: int, repeats: int = 3) -> dict[str, float | None]:
    """CPU seconds of each way at this width (None: not measured), and how far the engine's
    dW1 is from numpy's by hand (relative, max over elements) in each variant."""
    from gradwalk.engine.parse import parse
    from gradwalk.engine.trace.runner import Tracer, trace_json

    text = program(width)
    result: dict[str, float | None] = {"program_mb": len(text) / 1e6}
    lim = limits()
    result["gradwalk parse"] = best(lambda: parse(text, max_elements=lim.max_elements,
                                                  max_total_elements=lim.max_total_elements),
                                    repeats)
    result["gradwalk trace"] = best(lambda: list(Tracer(text, limits=lim).events()), repeats)
    result["gradwalk body"] = best(lambda: trace_json(text, limits=lim), repeats)
    for dtype, name in ((np.float64, "float64"), (np.float32, "float32")):
        if name == "float32":
            text32 = program(width, name)
            result["gradwalk trace float32"] = best(
                lambda: list(Tracer(text32, limits=lim).events()), repeats)
        a = arrays(width, dtype)
        result[f"numpy {name}"] = best(lambda: by_hand(a), max(repeats, 5))
        result[f"torch {name}"] = _torch(a, repeats)
        result[f"max rel dW1 {name}"] = _error(program(width, name), a, lim)
        # weights from randn
        src = randn_program(width, name)
        r = randn_arrays(width, dtype)
        result[f"gradwalk randn trace {name}"] = best(
            lambda: list(Tracer(src, limits=lim).events()), repeats)
        result[f"gradwalk randn body {name}"] = best(lambda: trace_json(src, limits=lim),
                                                     repeats)
        result[f"numpy randn {name}"] = best(lambda: by_hand(r), max(repeats, 5))
        result[f"numpy randn draw {name}"] = best(lambda: randn_arrays(width, dtype), repeats)
        result[f"torch randn {name}"] = _torch(r, repeats)
        result[f"max rel dW1 randn {name}"] = _error(src, r, lim)
    return result


def _error(text: str, a: dict, lim) -> float:
    """max |dW1 - numpy's| / max |numpy's dW1|: the engine computes what the figures claim,
    in the same dtype (the check that they compare like with like)."""
    from gradwalk.engine.trace.runner import Tracer

    done = list(Tracer(text, limits=lim).records(arrays=True))[-1]   # the body's full data
    grad = done["grads"]["W1"]
    assert grad["dtype"] == str(a["W1"].dtype), (grad["dtype"], a["W1"].dtype)
    want = by_hand(a)["W1"].astype(np.float64)
    return float(np.max(np.abs(np.asarray(grad["data"]) - want)) / np.max(np.abs(want)))


def _torch(a: dict, repeats: int) -> float | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    t = {k: torch.from_numpy(v.copy()).requires_grad_(k != "X") for k, v in a.items()}

    def run() -> None:
        for v in t.values():
            v.grad = None
        torch_run(t)
    return best(run, max(repeats, 5))


def measure_in_one_thread(width: int) -> dict[str, float | None]:
    """`measure(width)` in a fresh process whose BLAS and PyTorch use one thread."""
    out = subprocess.run([sys.executable, "-m", "bench.mlp", "--json", str(width)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, **ONE_THREAD})
    return json.loads(out.stdout)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--json"]:
        print(json.dumps(measure(int(argv[1]))))
        return
    for width in [int(w) for w in argv] or WIDTHS:
        r = measure(width)
        print(f"width {width}: " + ", ".join(
            f"{k} {v * 1e3:.1f} ms" if k != "program_mb" and "max rel" not in k
            else f"{k} {v:.3g}" for k, v in r.items() if v is not None))


if __name__ == "__main__":
    main(sys.argv[1:])
