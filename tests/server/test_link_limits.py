"""Issue 14 section 2: one client cannot fill the link database. A new link counts against its
client's rate limit (429 with Retry-After) and against a storage cap counted in the database
(507 storage_full), which holds across server processes; a state already stored still answers
200 and counts nothing. Each bound is tested by its refusal with a small setting, on SQLite and
on PostgreSQL (GRADWALK_TEST_POSTGRES_URL; see test_short_links.py)."""
from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from link_servers import request, servers
from gradwalk.server.main import create_app
from gradwalk.server.ratelimit import RateLimit, client_key
from gradwalk.server.settings import SettingError, get_settings
from gradwalk.server.storage import LinkStore
from gradwalk.server.storage.canonical import canonical_json, link_id
from gradwalk.server.storage.migrate import alembic_config
from test_links_server import backend   # noqa: F401 - the sqlite/postgres server fixture
from test_short_links import db_url   # noqa: F401 - the sqlite/postgres app database fixture

ROW_BYTES = 100


def state(k: int) -> dict:
    return {"v": 1, "k": k}   # canonical '{"k":0,"v":1}': 13 bytes for k < 10


def counted(k: int) -> int:
    return len(canonical_json(state(k))) + ROW_BYTES


def stored_ids(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return {r[0] for r in conn.execute(sa.text("SELECT id FROM links"))}
    finally:
        engine.dispose()


def test_the_storage_cap_refuses_a_new_link_with_507_and_still_answers_stored_ones(
        db_url, monkeypatch):  # noqa: F811
    monkeypatch.setattr(get_settings(), "link_rate_limit", "")
    monkeypatch.setattr(get_settings(), "max_link_storage_bytes", 3 * counted(0))
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        made = [client.post("/api/links", json={"state": state(k)}) for k in range(3)]
        assert [r.status_code for r in made] == [201, 201, 201]
        over = client.post("/api/links", json={"state": state(3)})
        assert over.status_code == 507
        error = over.json()["error"]
        assert error["kind"] == "storage_full"
        assert error["message"] == ("this server has no room for more short links: they fill "
                                    "the 339 bytes it allows them")
        assert "GRADWALK_MAX_LINK_STORAGE_BYTES" in error["hint"]
        again = client.post("/api/links", json={"state": state(0)})   # stored: counted once
        assert (again.status_code, again.json()) == (200, made[0].json())
        assert client.get(f"/api/links/{made[2].json()['id']}").json() == {"state": state(2)}
    assert stored_ids(db_url) == {r.json()["id"] for r in made}
    assert LinkStore(db_url).used_bytes() == 3 * counted(0)


def test_the_rate_limit_refuses_the_fourth_new_link_with_429_and_retry_after(
        db_url, monkeypatch):  # noqa: F811
    monkeypatch.setattr(get_settings(), "link_rate_limit", "3/minute")
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        made = [client.post("/api/links", json={"state": state(k)}) for k in range(3)]
        assert [r.status_code for r in made] == [201, 201, 201]
        over = client.post("/api/links", json={"state": state(3)})
        assert over.status_code == 429
        assert 55 <= int(over.headers["retry-after"]) <= 60
        error = over.json()["error"]
        assert error["kind"] == "rate_limited"
        assert error["message"] == ("too many new short links from this address (at most 3 per "
                                    f"minute); try again in {over.headers['retry-after']} s")
        assert "GRADWALK_LINK_RATE_LIMIT" in error["hint"]
        again = client.post("/api/links", json={"state": state(1)})   # stored: not counted
        assert (again.status_code, again.json()) == (200, made[1].json())
    assert stored_ids(db_url) == {r.json()["id"] for r in made}


def test_the_rate_limit_counts_each_client_apart_and_an_ipv6_host_by_its_64():
    rate = RateLimit("2/minute;5/hour")
    assert [rate.hit("192.0.2.1") for _ in range(2)] == [None, None]
    wait = rate.hit("192.0.2.1")
    assert wait is not None and 55 <= wait <= 60
    assert rate.hit("192.0.2.2") is None
    assert rate.hit("2001:db8:0:1::1") is None and rate.hit("2001:db8:0:1::ffff") is None
    assert rate.hit("2001:db8:0:1:aaaa::2") is not None   # the same /64: refused
    assert rate.hit("2001:db8:0:2::1") is None
    assert client_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert RateLimit("").hit("192.0.2.1") is None   # empty: no limit
    assert rate.describe() == "2 per minute, 5 per hour"
    assert RateLimit("10 per 2 hours").describe() == "10 per 2 hours"


def test_a_bad_rate_setting_is_refused_in_one_line(monkeypatch):
    from gradwalk.server.settings import from_environment

    monkeypatch.setenv("GRADWALK_LINK_RATE_LIMIT", "lots")
    with pytest.raises(SettingError, match="GRADWALK_LINK_RATE_LIMIT='lots'.*30/minute"):
        from_environment()


def test_the_cap_holds_across_server_processes_on_one_database(backend, tmp_path):  # noqa: F811
    """Two servers on one database, eight new links at once split between them: exactly as
    many as the cap holds are made, the rest are 507, and the count in the database agrees."""
    env = {**backend.env, "GRADWALK_LINK_RATE_LIMIT": "",
           "GRADWALK_MAX_LINK_STORAGE_BYTES": str(3 * counted(0))}
    with servers(env, tmp_path, count=2) as (one, two):
        def post(k: int) -> tuple[int, dict]:
            url = (one if k % 2 else two).url
            return request("POST", f"{url}/api/links", {"state": state(k)})

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(post, range(8)))
        statuses = sorted(status for status, _ in answers)
        assert statuses == [201] * 3 + [507] * 5, answers
        made = {body["id"] for status, body in answers if status == 201}
        for k in range(8):   # on the other server: a stored link answers 200, a refused one 507
            url = (two if k % 2 else one).url
            status, _ = request("POST", f"{url}/api/links", {"state": state(k)})
            assert status == (200 if link_id(canonical_json(state(k))) in made else 507)
        assert request("POST", f"{one.url}/api/links", {"state": state(9)})[0] == 507
    assert set(backend.rows()) == made
    assert LinkStore(backend.url).used_bytes() == 3 * counted(0)


def test_the_migration_counts_the_links_stored_before_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        command.upgrade(alembic_config(conn), "0001_links")
        conn.commit()
    engine.dispose()
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.executemany("INSERT INTO links (id, state) VALUES (?, ?)",
                       [("a" * 16, '{"p":"é","v":1}'), ("b" * 16, '{"v":1}')])
    store = LinkStore(url)
    assert store.used_bytes() == len('{"p":"é","v":1}'.encode()) + len('{"v":1}') + 2 * ROW_BYTES
