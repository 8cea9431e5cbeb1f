"""Benchmark: trace a chain of N nodes, parsing and JSON included (seconds and µs per node).

Run: .venv/bin/python bench/chain.py [N]. The target (a later issue) is about 5 µs per node on
a 100,000-node chain; docs/performance.md records the numbers measured.
"""
from __future__ import annotations

import sys
import time

from engine.trace.runner import trace_json


def main(n_nodes: int = 100_000, repeats: int = 3) -> None:
    lines = n_nodes // 2   # each line adds a constant and a mul node
    text = "x = 1.0\n" + "x = x * 1.00001\n" * lines
    best = min(_time(text) for _ in range(repeats))
    nodes = 2 * lines + 1
    print(f"{nodes} nodes: {best:.2f} s, {best / nodes * 1e6:.1f} µs per node")


def _time(text: str) -> float:
    start = time.perf_counter()
    trace_json(text)
    return time.perf_counter() - start


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
