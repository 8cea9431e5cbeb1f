"""Short links through the app: ids, round trips, limits, errors, pages.

Each round trip runs on SQLite (a temp file) and on PostgreSQL (a fresh database on the server
named by GRADWALK_TEST_POSTGRES_URL, which .ci/run starts; skipped without it, failed under CI).
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import sqlite3

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from link_servers import fresh_postgres_database
from gradwalk.server.main import create_app
from gradwalk.server.settings import get_settings

STATE = {"v": 1, "program": "a = 1.0\nb = tanh(a * 2.0)\n", "output": "b", "step": 3,
         "speed": 2, "theme": "projector", "font": 1.5, "hide_program": True}
ERROR_KEYS = {"kind", "message", "line", "col", "end_line", "end_col"}   # (and a hint)


def expected_id(text: str) -> str:
    """The contract's id, worked out here from the canonical text written by hand."""
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).decode()[:16]


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path, monkeypatch):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'links.db'}"
        monkeypatch.setattr(get_settings(), "database_url", url)
        yield url
    else:
        with fresh_postgres_database() as url:
            monkeypatch.setattr(get_settings(), "database_url", url)
            yield url


@pytest.fixture
def client(db_url):
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def rows(db_url: str) -> list[tuple[str, str]]:
    """The links table read directly, [] when it does not exist yet."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table("links"):
                return []
            query = sa.text("SELECT id, state FROM links ORDER BY id")
            return [tuple(r) for r in conn.execute(query)]
    finally:
        engine.dispose()


def inlined(html: str, element_id: str):
    m = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    return None if m is None else json.loads(m.group(1))


# ---- ids and round trips

def test_same_state_gives_the_same_id_and_one_row(client, db_url):
    first = client.post("/api/links", json={"state": STATE})
    assert first.status_code == 201
    body = first.json()
    canonical = ('{"font":1.5,"hide_program":true,"output":"b","program":"a = 1.0\\nb = '
                 'tanh(a * 2.0)\\n","speed":2,"step":3,"theme":"projector","v":1}')
    assert body == {"id": expected_id(canonical), "url": f"/s/{expected_id(canonical)}"}
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", body["id"])
    # The same state with its keys in another order, sent with other spacing: same link.
    reordered = json.dumps({"state": dict(reversed(STATE.items()))}, indent=2)
    again = client.post("/api/links", content=reordered,
                        headers={"content-type": "application/json"})
    assert again.status_code == 200 and again.json() == body
    assert rows(db_url) == [(body["id"], canonical)]
    assert client.get(f"/api/links/{body['id']}").json() == {"state": STATE}


def test_different_states_give_different_ids(client, db_url):
    ids = {client.post("/api/links", json={"state": {**STATE, "step": k}}).json()["id"]
           for k in range(5)}
    assert len(ids) == 5 and len(rows(db_url)) == 5


def test_non_ascii_is_hashed_as_utf8(client):
    state = {"v": 1, "program": "x̄ = 2.0  # ä → 𝜕"}
    body = client.post("/api/links", json={"state": state}).json()
    assert body["id"] == expected_id('{"program":"x̄ = 2.0  # ä → 𝜕","v":1}')
    assert client.get(f"/api/links/{body['id']}").json()["state"] == state


def test_unknown_fields_of_the_state_are_kept_verbatim(client):
    # The server stores the state, it does not interpret it: a newer page's fields survive.
    state = {"v": 2, "future": {"nested": [1, 2.5, None, "x"]}}
    key = client.post("/api/links", json={"state": state}).json()["id"]
    assert client.get(f"/api/links/{key}").json() == {"state": state}


def test_forward_mode_and_its_tangent_leaf_are_stored_and_inlined(client, db_url):
    # The page's mode fields (static/js/state.js FIELDS: mode, tangent) are state fields
    # like any other: hashed in the canonical text, stored, given back, inlined in /s/<id>.
    state = {**STATE, "mode": "forward", "tangent": "a"}
    first = client.post("/api/links", json={"state": state})
    assert first.status_code == 201
    canonical = ('{"font":1.5,"hide_program":true,"mode":"forward","output":"b","program":'
                 '"a = 1.0\\nb = tanh(a * 2.0)\\n","speed":2,"step":3,"tangent":"a",'
                 '"theme":"projector","v":1}')
    key = first.json()["id"]
    assert key == expected_id(canonical)
    assert (key, canonical) in rows(db_url)
    assert client.get(f"/api/links/{key}").json() == {"state": state}
    assert inlined(client.get(f"/s/{key}").text, "initial-state") == state
    # the same walk in reverse mode is another link
    other = client.post("/api/links", json={"state": {**state, "mode": "reverse"}}).json()["id"]
    assert other != key


# ---- errors

@pytest.mark.parametrize("link_id", ["AAAAAAAAAAAAAAAA", "nope", "x" * 500, "a.b"])
def test_unknown_id_is_404_in_the_error_shape(client, link_id):
    r = client.get(f"/api/links/{link_id}")
    assert r.status_code == 404
    error = r.json()["error"]
    assert set(error) >= ERROR_KEYS and error["kind"] == "not_found"
    assert error["line"] is None and error["col"] is None
    assert "no short link" in error["message"] and len(error["message"]) < 120


def test_state_over_the_limit_is_413_naming_the_limit(client, db_url, monkeypatch):
    monkeypatch.setattr(get_settings(), "max_link_state_bytes", 100)
    at_limit = {"v": 1, "program": "x" * (100 - len('{"program":"","v":1}'))}
    assert client.post("/api/links", json={"state": at_limit}).status_code == 201
    over = {**at_limit, "program": at_limit["program"] + "y"}
    r = client.post("/api/links", json={"state": over})
    assert r.status_code == 413
    error = r.json()["error"]
    assert error["kind"] == "too_large" and "at most 100 bytes" in error["message"]
    assert "101 bytes" in error["message"] and len(rows(db_url)) == 1


def test_the_default_limit_is_64_kib():
    assert get_settings().max_link_state_bytes == 65_536


@pytest.mark.parametrize("body", [
    {"state": {"v": 1}, "extra": 1},          # unknown field of the request
    {"state": {"program": "a = 1.0"}},        # no version
    {"state": {"v": "1"}},                    # version not an integer
    {"state": {"v": True}},
    {"state": {"v": 0}},
    {"state": [1, 2]},                        # not an object
    {"state": "v=1"},
    {},
])
def test_malformed_requests_are_422(client, db_url, body):
    r = client.post("/api/links", json=body)
    assert r.status_code == 422
    assert r.json()["error"]["kind"] == "bad_request"
    assert rows(db_url) == []


def test_nan_in_the_state_is_422(client):
    r = client.post("/api/links", content=b'{"state": {"v": 1, "x": NaN}}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 422 and "NaN" in r.json()["error"]["message"]


def test_sqlite_is_in_wal_mode_with_the_migration_recorded(tmp_path, monkeypatch):
    db_path = tmp_path / "links.db"
    monkeypatch.setattr(get_settings(), "database_url", f"sqlite:///{db_path}")
    with TestClient(create_app()) as client:
        client.post("/api/links", json={"state": STATE})
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("0003_live_rooms",)]   # the newest revision
        created = conn.execute("SELECT created_at FROM links").fetchone()[0]
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", created)


def test_the_database_file_is_made_with_its_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(get_settings(), "data_dir", tmp_path / "new" / "dir")
    with TestClient(create_app()) as c:
        assert (tmp_path / "new" / "dir" / "gradwalk.db").exists()   # at startup
        assert c.post("/api/links", json={"state": STATE}).status_code == 201


# ---- the pages

def test_short_link_page_inlines_the_state(client):
    state = {**STATE, "program": "a = 1.0  # </script><script>alert(1)</script>\n"}
    key = client.post("/api/links", json={"state": state}).json()["id"]
    for path in (f"/s/{key}", f"/embed/s/{key}"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert inlined(r.text, "initial-state") == state
        assert inlined(r.text, "initial-error") is None
        assert "<script>alert(1)" not in r.text


@pytest.mark.parametrize("path,root", [("/s/AAAAAAAAAAAAAAAA", 'id="app"'),
                                       ("/embed/s/AAAAAAAAAAAAAAAA", 'id="embed"')])
def test_unknown_short_link_page_is_404_with_the_error_inlined(client, path, root):
    r = client.get(path)
    assert r.status_code == 404 and root in r.text
    error = inlined(r.text, "initial-error")
    assert error["kind"] == "not_found"
    assert error["message"] == "no short link 'AAAAAAAAAAAAAAAA' on this server"
    assert inlined(r.text, "initial-state") is None


def test_explorer_says_links_are_enabled(client):
    assert 'data-links-enabled="true"' in client.get("/").text


# ---- turned off

def test_links_disabled(tmp_path, monkeypatch):
    settings = get_settings()
    monkeypatch.setattr(settings, "links_enabled", False)
    monkeypatch.setattr(settings, "data_dir", tmp_path / "data")
    with TestClient(create_app()) as c:
        r = c.post("/api/links", json={"state": STATE})
        assert r.status_code == 404 and r.json()["error"]["kind"] == "links_disabled"
        assert c.get("/api/links/AAAAAAAAAAAAAAAA").json()["error"]["kind"] == "links_disabled"
        page = c.get("/s/AAAAAAAAAAAAAAAA")
        assert page.status_code == 404
        assert inlined(page.text, "initial-error")["kind"] == "links_disabled"
        assert 'data-links-enabled="false"' in c.get("/").text
    assert not (tmp_path / "data").exists()   # a stateless deployment touches no database


# ---- the database cannot be opened

def test_database_that_cannot_be_opened_is_503(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(get_settings(), "data_dir", blocker / "data")   # mkdir fails
    with TestClient(create_app(), raise_server_exceptions=False) as c:   # starts all the same
        for r in (c.post("/api/links", json={"state": STATE}),
                  c.get("/api/links/AAAAAAAAAAAAAAAA")):
            assert r.status_code == 503
            error = r.json()["error"]
            assert error["kind"] == "unavailable" and "database is unavailable" in error["message"]
        page = c.get("/s/AAAAAAAAAAAAAAAA")
        assert page.status_code == 503
        assert inlined(page.text, "initial-error")["kind"] == "unavailable"
        assert c.post("/api/trace", json={"program": "a = 1.0\nL = a * a\n"}).status_code == 200


def test_a_body_not_sent_as_json_is_415_and_messages_are_plain(tmp_path, monkeypatch):
    # As POST /api/trace: form-encoded or text/plain bodies are 415, not a validation error;
    # and pydantic's own wording ("Value error, ", "JSON decode error") stays out of messages.
    from fastapi.testclient import TestClient

    from gradwalk.server.main import create_app
    from gradwalk.server.settings import get_settings

    monkeypatch.setenv("GRADWALK_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        with TestClient(create_app()) as client:
            for headers in ({"Content-Type": "application/x-www-form-urlencoded"},
                            {"Content-Type": "text/plain"}):
                r = client.post("/api/links", content=b'{"state": {"v": 1}}', headers=headers)
                assert r.status_code == 415 and r.json()["error"]["kind"] == "bad_request"
            r = client.post("/api/links", json={"state": {"program": "a = 1.0"}})
            assert r.status_code == 422
            assert r.json()["error"]["message"] == \
                'state.v: the state needs a version "v", an integer >= 1'
            r = client.post("/api/links", content=b'{"state": {"v": 1}',
                            headers={"Content-Type": "application/json"})
            assert r.status_code == 422
            assert r.json()["error"]["message"].startswith("the body is not valid JSON")
    finally:
        get_settings.cache_clear()
