"""Real gradwalk server processes for the short-link tests, and the backends they run on."""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import time
import urllib.error
import urllib.request
import uuid

import pytest
from server_process import Served, free_port  # noqa: F401 - free_port is re-exported

REPO = pathlib.Path(__file__).resolve().parents[2]
POSTGRES_ENV = "GRADWALK_TEST_POSTGRES_URL"


class Server(Served):
    """`gradwalk serve` in a subprocess (tests/server/server_process.py), with what the link
    tests add: its log by count, kill -9."""

    def wait_log(self, text: str, count: int, timeout: float = 60.0) -> str:
        """The log once it holds `text` `count` times (e.g. every worker's startup line)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.stderr()
            if log.count(text) >= count:
                return log
            time.sleep(0.1)   # polling the log while the worker processes start
        raise TimeoutError(f"{text!r} not {count} times in {timeout}s: {self.stderr()[-2000:]}")

    def kill9(self) -> None:
        self.proc.kill()    # SIGKILL: no shutdown handler, no flush
        self.proc.wait(timeout=30)

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


@contextlib.contextmanager
def servers(env: dict[str, str], tmp_path: pathlib.Path, count: int = 1, workers: int = 1):
    """Start `count` servers at once (they migrate the same database concurrently)."""
    started = [Server(env, tmp_path / f"server-{i}-{uuid.uuid4().hex[:6]}.log", workers)
               for i in range(count)]
    try:
        for s in started:
            s.wait_healthy()
        yield started
    finally:
        for s in started:
            s.stop()


def request(method: str, url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def get_text(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def postgres_admin_url() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        reason = (f"{POSTGRES_ENV} is not set: .ci/run starts a PostgreSQL server and sets it "
                  "(see README, 'Tests against PostgreSQL')")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return url


@contextlib.contextmanager
def fresh_postgres_database():
    """A new empty database on the test server; dropped afterwards. Yields its URL."""
    import sqlalchemy as sa

    admin_url = sa.make_url(postgres_admin_url())
    name = f"gradwalk_t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
