"""Fixtures shared by the server tests."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gradwalk.server.main import create_app


@pytest.fixture(scope="module")
def client() -> TestClient:
    """The app in-process with the default settings; a bug of ours answers 500, not raises."""
    return TestClient(create_app(), raise_server_exceptions=False)
