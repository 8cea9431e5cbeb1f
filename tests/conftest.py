"""Shared fixtures: one per seed case (tests/cases is a copy of ../shared/cases)."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from helpers import CASES

# Every app and server process the tests start (they inherit os.environ) keeps its short links
# in a throwaway folder, never in the user's data dir or a database named by the environment.
_DATA_DIR = tempfile.mkdtemp(prefix="gradwalk-test-data-")
atexit.register(shutil.rmtree, _DATA_DIR, True)
os.environ["GRADWALK_DATA_DIR"] = _DATA_DIR
os.environ.pop("GRADWALK_DATABASE_URL", None)


@pytest.fixture(params=CASES, ids=[c["id"] for c in CASES])
def seed_case(request) -> dict:
    return request.param
