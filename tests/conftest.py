"""Shared fixtures: one per seed case (tests/cases is a copy of ../shared/cases)."""
from __future__ import annotations

import pytest

from helpers import CASES


@pytest.fixture(params=CASES, ids=[c["id"] for c in CASES])
def seed_case(request) -> dict:
    return request.param
