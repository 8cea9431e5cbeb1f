"""`gradwalk trace` on a one-line program: wall time from starting the process to its exit,
best of `repeats` (imports included: that is most of it), beside the import of numpy alone.

    .venv/bin/python -m bench.cli
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import time

GRADWALK = pathlib.Path(sys.executable).with_name("gradwalk")


def seconds(cmd: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def measure(repeats: int = 7) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "one.py")
        pathlib.Path(path).write_text("a = 1.0\n")
        return {"cli_s": seconds([str(GRADWALK), "trace", path], repeats),
                "python_s": seconds([sys.executable, "-c", "pass"], repeats),
                "numpy_s": seconds([sys.executable, "-c", "import numpy"], repeats)}


if __name__ == "__main__":
    r = measure()
    print(f"gradwalk trace (one line): {r['cli_s'] * 1e3:.0f} ms; python alone "
          f"{r['python_s'] * 1e3:.0f} ms, import numpy {r['numpy_s'] * 1e3:.0f} ms")
