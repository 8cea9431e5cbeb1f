"""The built-in example programs (the seed examples of ../shared/cases/seed_examples.json)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

PRESETS_FILE = Path(__file__).with_name("presets.json")


@lru_cache
def presets() -> list[dict]:
    """[{id, title, source, program}], the first being `seed-tanh-fanout`."""
    return json.loads(PRESETS_FILE.read_text(encoding="utf-8"))
