"""Live rooms' API in process, on SQLite (issue 17, section 1): a room opens with a page state,
only its presenter token steps it (the table keeps the token's hash), and each bound is held by
its refusal with a small value: rooms, state bytes, the step rate, idle expiry, SQLite with
several workers. The streams themselves: test_live_fanout.py (real server processes)."""
from __future__ import annotations

import contextlib
import hashlib
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

import gradwalk.server.storage.live as live_store
from gradwalk.server.main import create_app
from gradwalk.server.settings import get_settings

STATE = {"v": 1, "program": "x = 2.0\nL = x * x", "step": 0}


@contextlib.contextmanager
def live_app(monkeypatch, tmp_path, **settings):
    """The app with GRADWALK_<NAME> settings on a fresh SQLite file, its lifespan running."""
    monkeypatch.setenv("GRADWALK_DATA_DIR", str(tmp_path))
    for name, value in settings.items():
        monkeypatch.setenv(f"GRADWALK_{name.upper()}", str(value))
    get_settings.cache_clear()
    try:
        with TestClient(create_app(), raise_server_exceptions=False) as client:
            yield client
    finally:
        get_settings.cache_clear()


def opened(client) -> tuple[str, dict]:
    r = client.post("/api/live", json=STATE)
    assert r.status_code == 201, r.text
    body = r.json()
    return body["room"], {"Authorization": f"Bearer {body['presenter_token']}"}


def test_a_room_opens_and_only_its_token_steps_it(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path) as client:
        r = client.post("/api/live", json=STATE)
        assert r.status_code == 201
        body = r.json()
        room, token = body["room"], body["presenter_token"]
        assert len(room) == 6 and set(room) <= set(live_store.ALPHABET)
        assert body["url"] == f"/live/{room}"
        step = {**STATE, "step": 4}
        assert client.post(f"/api/live/{room}/state", json=step).status_code == 403
        wrong = client.post(f"/api/live/{room}/state", json=step,
                            headers={"Authorization": "Bearer not-the-token"})
        assert wrong.status_code == 403 and wrong.json()["error"]["kind"] == "forbidden"
        ok = client.post(f"/api/live/{room.lower()}/state", json=step,
                         headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200 and ok.json() == {"room": room, "seq": 1}
        store = client.app.state.live_hub.store
        assert store.current(room, 60)[0] == 1
        with store.engine.connect() as conn:
            row = conn.execute(live_store.rooms.select()).one()
        assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in row.state and token not in row.token_hash


@pytest.mark.parametrize("body, why", [
    ({"program": "x = 1"}, "v: "), ({"v": 1, "step": -1}, "step: "),
    ({"v": 1, "step": True}, "step: "), ([1, 2], "an object"),
    # fields the students' pages would drop (state.js checkState), so that they reloaded
    # endlessly (review livefix14): refused here with the field named
    ({"v": 1, "program": 5, "step": 1}, "program: "), ({"v": 1, "mode": "sideways"}, "mode: "),
    ({"v": 1, "step": 2**80}, "step: "), ({"v": 1, "train_steps": 50_000}, "train_steps: "),
    ({"v": 1, "speed": 3}, "speed: "), ({"v": 1, "quiz": "all"}, "quiz: "),
    ({"v": 1, "quiz": "nodes:1x"}, "quiz: "), ({"v": 1, "quiz": "nodes:<b>x</b>"}, "quiz: "),
    ({"v": 1, "open_groups": ["x"]}, "open_groups: "), ({"v": 1, "train_lr": 0}, "train_lr: "),
    ({"v": 1, "font": 9}, "font: "), ({"v": 1, "hide_program": 1}, "hide_program: "),
])
def test_a_bad_state_is_a_422_naming_the_field(monkeypatch, tmp_path, body, why):
    with live_app(monkeypatch, tmp_path) as client:
        r = client.post("/api/live", json=body)
        assert r.status_code == 422 and why in r.json()["error"]["message"], r.text
        room, auth = opened(client)
        r = client.post(f"/api/live/{room}/state", json=body, headers=auth)
        assert r.status_code == 422 and why in r.json()["error"]["message"], r.text


def test_a_good_state_is_stored_as_sent(monkeypatch, tmp_path):
    state = {"v": 1, "program": "\ufeffx = 2.0\nL = x * x", "step": 2, "speed": 0.5, "font": 1,
             "train_lr": 1, "train_steps": 101, "train_iteration": 299, "open_groups": ["g3"],
             "quiz": "nodes:a,b,é", "a_newer_field": [1]}   # é: a name Python (and quiz.js) reads
    with live_app(monkeypatch, tmp_path) as client:
        room, auth = opened(client)
        assert client.post(f"/api/live/{room}/state", json=state, headers=auth).status_code == 200
        assert json.loads(client.app.state.live_hub.store.current(room, 60)[1]) == state


@pytest.mark.parametrize("text, message", [
    # a lone surrogate was "state: NaN and infinities are not JSON" (a review)
    ('{"v": 1, "program": "\\ud800"}', "state.program: the text holds a lone surrogate"),
    ('{"v": 1, "\\udc00": 1}', "state: a key holds a lone surrogate"),
    # integers the page cannot hold (state.js reads ints as safe integers)
    ('{"v": 1, "step": 1' + "0" * 40 + "}", "state.step: an integer past 2**53 - 1"),
    ('{"v": 1' + "0" * 400 + "}", "state.v: an integer past 2**53 - 1"),
    ('{"v": 1, "open_groups": [1, 2, 9007199254740992]}',
     "state.open_groups[2]: an integer past 2**53 - 1"),
])
def test_a_state_the_page_cannot_read_is_a_422_saying_what_and_where(monkeypatch, tmp_path,
                                                                      text, message):
    with live_app(monkeypatch, tmp_path) as client:
        r = client.post("/api/live", content=text, headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["error"]["message"].startswith(message)
        assert client.post("/api/live", json={"v": 1, "step": 2 ** 53 - 1}).status_code == 201


def test_unknown_and_malformed_rooms_are_404(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path) as client:
        for room in ("ZZZZZZ", "abc", "x" * 300, "00OOII"):
            assert client.get(f"/api/live/{room}/events").status_code == 404
            r = client.post(f"/api/live/{room}/state", json=STATE,
                            headers={"Authorization": "Bearer t"})
            assert r.status_code == 404 and r.json()["error"]["kind"] == "not_found"
        page = client.get("/live/ZZZZZZ")
        assert page.status_code == 404 and "no live room" in page.text


def test_max_live_rooms_refuses_the_next_room(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, max_live_rooms=3) as client:
        for _ in range(3):
            opened(client)
        r = client.post("/api/live", json=STATE)
        assert r.status_code == 503 and "GRADWALK_MAX_LIVE_ROOMS" in r.json()["error"]["message"]


def test_max_live_rooms_1_two_creates_at_once_open_one_and_refuse_one(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, max_live_rooms=1) as client:
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda _: client.post("/api/live", json=STATE), range(2)))
        assert sorted(a.status_code for a in answers) == [201, 503], [a.text for a in answers]
        refused = next(a for a in answers if a.status_code == 503).json()["error"]
        assert refused["kind"] == "busy" and "GRADWALK_MAX_LIVE_ROOMS" in refused["message"]
        assert client.app.state.live_hub.store.count() == 1


def test_max_live_state_bytes_refuses_a_larger_state(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, max_live_state_bytes=200) as client:
        room, auth = opened(client)
        big = {**STATE, "program": "x = 1\n" * 40}
        assert client.post("/api/live", json=big).status_code == 413
        r = client.post(f"/api/live/{room}/state", json=big, headers=auth)
        assert r.status_code == 413 and "GRADWALK_MAX_LIVE_STATE_BYTES" in r.json()["error"]["message"]


def test_the_step_rate_is_per_room_and_token(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, live_state_rate_limit="2/minute") as client:
        room, auth = opened(client)
        other, other_auth = opened(client)
        for k in (1, 2):
            assert client.post(f"/api/live/{room}/state", json={**STATE, "step": k},
                               headers=auth).status_code == 200
        r = client.post(f"/api/live/{room}/state", json={**STATE, "step": 3}, headers=auth)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        # another room, and a stranger's wrong token on this one, have their own counts
        assert client.post(f"/api/live/{other}/state", json=STATE,
                           headers=other_auth).status_code == 200
        assert client.post(f"/api/live/{room}/state", json=STATE,
                           headers={"Authorization": "Bearer stranger"}).status_code == 403


def test_an_idle_room_expires(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, live_idle_seconds=60) as client:
        room, auth = opened(client)
        assert client.get(f"/live/{room}").status_code == 200
        later = time.time() + 61
        monkeypatch.setattr(live_store.time, "time", lambda: later)
        assert client.get(f"/api/live/{room}/events").status_code == 404
        assert client.get(f"/live/{room}").status_code == 404
        assert client.post(f"/api/live/{room}/state", json=STATE, headers=auth).status_code == 404
        opened(client)   # the next room deletes the expired one
        assert client.app.state.live_hub.store.count() == 1


def test_sqlite_with_several_workers_refuses_live_rooms(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, serve_workers=2) as client:
        r = client.post("/api/live", json=STATE)
        assert r.status_code == 409
        error = r.json()["error"]
        assert error["kind"] == "live_needs_postgres" and "--workers 1" in error["hint"]
        page = client.get("/live/ABCDEF")
        assert page.status_code == 409 and "PostgreSQL" in page.text


def test_the_student_page_inlines_the_current_state(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path) as client:
        room, auth = opened(client)
        client.post(f"/api/live/{room}/state", json={**STATE, "step": 3}, headers=auth)
        page = client.get(f"/live/{room}")
        assert page.status_code == 200
        assert f'data-live="{room}"' in page.text and '"step": 3' in page.text
        assert "Following the lecturer" in page.text
        assert "presenter_token" not in page.text


def test_a_small_step_is_validated_on_the_loop_a_large_one_in_a_thread(monkeypatch, tmp_path):
    """A step's body of a few hundred bytes is validated on the event loop: the worker
    thread's two hand-offs were two waits for a core on the way to the followers (bench/live.py,
    docs/performance.md). A body of 8 KiB or more still goes to the thread (Waiting.prepare)."""
    from gradwalk.server.slots import Waiting

    threaded = []
    to_thread = Waiting.prepare

    async def prepare(self, fn, *args):
        if fn.__name__ == "_validate":   # (model, raw, bounds); opening a room parses too
            threaded.append(len(args[1]))
        return await to_thread(self, fn, *args)

    monkeypatch.setattr(Waiting, "prepare", prepare)
    with live_app(monkeypatch, tmp_path) as client:
        room, auth = opened(client)
        assert threaded != []   # opening a room: in the thread, as every other route
        threaded.clear()
        r = client.post(f"/api/live/{room}/state", json={**STATE, "step": 3}, headers=auth)
        assert r.status_code == 200 and r.json()["seq"] == 1 and threaded == []
        bad = client.post(f"/api/live/{room}/state", json={"v": 1, "step": -1}, headers=auth)
        assert bad.status_code == 422 and "step" in bad.text and threaded == []
        big = {**STATE, "step": 4, "program": "x = 2.0\n" * 1200 + "L = x * x"}
        r = client.post(f"/api/live/{room}/state", json=big, headers=auth)
        assert r.status_code == 200 and r.json()["seq"] == 2
        assert len(threaded) == 1 and threaded[0] >= 8192
