"""schemathesis against a real `gradwalk serve` process (uvicorn, the body limits as a client
sees them, the stream over a socket), fewer examples than the in-process run beside it."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from oracle import SCALE
from gradwalk.server.main import create_app
from test_api_schema import EXCLUDED, check_error_shape

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served_schema(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("served") / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "gradwalk.server.cli", "serve", "--host",
                                 "127.0.0.1", "--port", str(port)], cwd=REPO,
                                stdout=subprocess.DEVNULL, stderr=err, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):   # up to a minute for the server to answer its health check
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


# The operations, read from the app in-process at collection; the cases go to the real server.
# (schemathesis.pytest.from_fixture would load the schema from the fixture, but it fails under
# pytest 9: "'Function' object has no attribute '_nodeid'".)
# Invalid requests only where there is a body to break (a path parameter takes any string).
OPERATIONS = [(method.upper(), path, mode)
              for path, item in create_app().openapi()["paths"].items()
              for method, operation in item.items()
              for mode in GenerationMode
              if mode == GenerationMode.POSITIVE or "requestBody" in operation]


@pytest.mark.parametrize("method, path, mode", OPERATIONS)
def test_the_served_api_keeps_its_schema(served_schema, method, path, mode):
    operation = served_schema[path][method]

    @given(operation.as_strategy(generation_mode=mode))
    @settings(max_examples=max(1, int(15 * SCALE)), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case):
        response = case.call_and_validate(excluded_checks=EXCLUDED, timeout=60)
        check_error_shape(response)

    run()
