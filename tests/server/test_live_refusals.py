"""What a live room refuses, and to whom (polish17): a room never opens at a program that does
not parse (its students would all follow an error), while a short link keeps such a draft; and
only the room's presenter hears what is wrong with a step's body (a client without the token
gets 403, whatever the body), the step rate counted before the token is looked up."""
from __future__ import annotations

import pytest

from gradwalk.server.storage.live import LiveStore
from test_live_rooms import STATE, live_app, opened

BROKEN = "x = 2.0\nL = (x +"


@pytest.mark.parametrize("program", [BROKEN, "L = x * 2", "x = 2.0\nL = frobnicate(x)"])
def test_a_room_refuses_a_program_as_the_trace_does(monkeypatch, tmp_path, program):
    with live_app(monkeypatch, tmp_path) as client:
        traced = client.post("/api/trace", json={"program": program})
        assert traced.status_code == 422 and traced.json()["error"]["line"] is not None
        room = client.post("/api/live", json={"v": 1, "program": program, "step": 3})
        assert room.status_code == 422, room.text
        # the same error body: kind, message, line and column, hint
        assert room.json() == traced.json()
        assert client.app.state.live_hub.store.count() == 0
        # a short link may keep a draft on purpose (the editor's text as it is): stored
        link = client.post("/api/links", json={"state": {"v": 1, "program": program}})
        assert link.status_code == 201, link.text


def test_the_parse_error_is_located(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path) as client:
        error = client.post("/api/live", json={"v": 1, "program": BROKEN}).json()["error"]
        assert (error["kind"], error["line"]) == ("syntax", 2), error
        assert error["col"] is not None


@pytest.mark.parametrize("state", [
    {"v": 1}, {"v": 1, "program": ""}, {"v": 1, "program": "\ufeffx = 2.0\nL = x * x"},
    {"v": 2, "program": BROKEN},   # a newer page's state: its fields are not judged here
])
def test_a_room_opens_at_an_empty_program_or_one_that_parses(monkeypatch, tmp_path, state):
    with live_app(monkeypatch, tmp_path) as client:
        assert client.post("/api/live", json=state).status_code == 201


BAD_BODIES = [({"v": 1, "step": -1}, 422), ({"v": 1, "mode": "sideways"}, 422),
              ({"step": 3}, 422), ([1, 2], 422), ("not json", 415)]


def _post_step(client, room, body, headers):
    if isinstance(body, str):
        return client.post(f"/api/live/{room}/state", content=body,
                           headers={**headers, "Content-Type": "text/plain"})
    return client.post(f"/api/live/{room}/state", json=body, headers=headers)


@pytest.mark.parametrize("body, status", BAD_BODIES)
def test_a_bad_step_body_is_403_without_the_token_and_said_with_it(monkeypatch, tmp_path,
                                                                   body, status):
    with live_app(monkeypatch, tmp_path, max_live_state_bytes=1000) as client:
        room, auth = opened(client)
        for headers in ({}, {"Authorization": "Bearer not-the-token"},
                        {"Authorization": "Basic abc"}):
            r = _post_step(client, room, body, headers)
            assert r.status_code == 403 and r.json()["error"]["kind"] == "forbidden", r.text
        r = _post_step(client, room, body, auth)
        assert r.status_code == status, r.text
        # another room's token is a wrong token here too; a room that is gone is 404
        other, other_auth = opened(client)
        assert _post_step(client, room, body, other_auth).status_code == 403
        assert _post_step(client, "ZZZZZZ", body, auth).status_code == 404


def test_a_state_too_large_for_a_room_is_403_without_the_token(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, max_live_state_bytes=1000) as client:
        room, auth = opened(client)
        big = {**STATE, "program": "x = 1.0\n" * 200}
        stranger = {"Authorization": "Bearer stranger"}
        assert client.post(f"/api/live/{room}/state", json=big, headers=stranger).status_code == 403
        assert client.post(f"/api/live/{room}/state", json=big, headers=auth).status_code == 413


def test_the_step_rate_comes_before_the_token_is_looked_up(monkeypatch, tmp_path):
    looked = []
    check = LiveStore.check_presenter
    monkeypatch.setattr(LiveStore, "check_presenter",
                        lambda self, *a: looked.append(a) or check(self, *a))
    with live_app(monkeypatch, tmp_path, live_state_rate_limit="2/minute") as client:
        room, auth = opened(client)
        stranger = {"Authorization": "Bearer stranger"}
        bad = {"v": 1, "step": -1}
        for _ in range(2):
            assert _post_step(client, room, bad, stranger).status_code == 403
        r = _post_step(client, room, bad, stranger)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert len(looked) == 2   # the third never reached the database
        # the presenter's own count is apart: their bad body is said, then a good step goes
        assert _post_step(client, room, bad, auth).status_code == 422
        assert _post_step(client, room, {**STATE, "step": 2}, auth).json()["seq"] == 1
