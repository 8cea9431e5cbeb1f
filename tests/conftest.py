"""Shared fixtures: one per seed case (tests/cases is a copy of ../shared/cases)."""
from __future__ import annotations

import atexit
import importlib.abc
import os
import shutil
import sys
import tempfile

import pytest

from helpers import CASES

# Every app and server process the tests start (they inherit os.environ) keeps its short links
# in a throwaway folder, never in the user's data dir or a database named by the environment.
_DATA_DIR = tempfile.mkdtemp(prefix="gradwalk-test-data-")
atexit.register(shutil.rmtree, _DATA_DIR, True)
os.environ["GRADWALK_DATA_DIR"] = _DATA_DIR
os.environ.pop("GRADWALK_DATABASE_URL", None)



class OneImportName(importlib.abc.MetaPathFinder):
    """Refuses the checkout's engine/ and server/ under their bare names: `python -m pytest`
    puts the checkout on sys.path, where `import engine.x` would load a second copy of
    gradwalk.engine.x (two module objects for one file: two registries, two classes)."""

    BARE = ("engine", "server")

    def find_spec(self, name, path=None, target=None):
        if path is None and name in self.BARE:
            raise ImportError(f"import gradwalk.{name}, not {name}: the package has one "
                              f"import name (tests/conftest.py)")
        return None


sys.meta_path.insert(0, OneImportName())


@pytest.fixture(params=CASES, ids=[c["id"] for c in CASES])
def seed_case(request) -> dict:
    return request.param
