"""Benchmarks (issue 6, section 4). `.venv/bin/python -m bench.run` runs them all side by side
and writes docs/performance.md; `bench/load.py` is the load test (section 3)."""
