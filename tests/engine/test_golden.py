"""Golden traces of named examples: the whole body, byte for byte in meaning.

A change to narration, event fields or numbers shows up here as a diff to review. Regenerate
with `GRADWALK_REGEN_GOLDEN=1 python -m pytest tests/engine/test_golden.py` and read the diff.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gradwalk.engine.trace.runner import run_trace
from helpers import case

GOLDEN = Path(__file__).parents[1] / "golden"
NAMES = ["seed-tanh-fanout", "seed-bias-broadcast", "seed-softmax-ce"]


@pytest.mark.parametrize("name", NAMES)
def test_trace_matches_golden(name):
    body = run_trace(case(name)["program"])
    path = GOLDEN / f"{name}.json"
    if os.environ.get("GRADWALK_REGEN_GOLDEN"):
        path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert body == json.loads(path.read_text(encoding="utf-8"))
