"""Short links and live rooms share one check of the page state (server/pagestate.py, review of
s15 §3): POST /api/links took any object with an integer "v" (a string step, a mode the page
has not), so a link opened a page that dropped the field; it now refuses what a live room
refuses, 422 with the same message. A state of a newer version (a newer lecturer's page) is
kept by both without judging its fields by this version's types (§2). A live step's state is
walked by state_problem once (it was twice: the check, then canonical_json)."""
from __future__ import annotations

import json

import pytest

import gradwalk.server.pagestate as pagestate
import gradwalk.server.storage.canonical as canonical
from test_live_rooms import live_app as app_client   # the app on SQLite, links and rooms on


def post(client, path: str, text: str, headers: dict | None = None):
    return client.post(path, content=text.encode(),
                       headers={"Content-Type": "application/json", **(headers or {})})


# (the state as JSON text, the message both answer): what JSON holds and the page cannot, a
# field the page would drop, no version
REFUSED = [
    ('{"v": 1' + "0" * 30 + "}", "state.v: an integer past 2**53 - 1, which the page cannot hold exactly"),
    ('{"v": 1, "step": "3"}', "state.step: Input should be a valid integer"),
    ('{"v": 1, "speed": NaN}', "state.speed: NaN and infinities are not JSON"),
    ('{"v": 1, "mode": "sideways"}', "state.mode: Input should be 'reverse', 'forward' or 'train'"),
    ('{"v": 1, "open_groups": ["g1", "x"]}', "state.open_groups: a group id is \"g\" and up to 7 digits, not 'x'"),
    ('{"v": 1, "open_groups": ["g1", 2]}', "state.open_groups[1]: Input should be a valid string"),
    # a field this page does not know passes (a newer page's), but only if JSON carries it
    ('{"v": 1, "a_newer_field": [1, NaN]}', "state.a_newer_field[1]: NaN and infinities are not JSON"),
    ('{"v": 1, "a_newer_field": "\\ud800"}', "state.a_newer_field: the text holds a lone surrogate (not Unicode text)"),
    ('{"program": "x = 1"}', 'state.v: the state needs a version "v", an integer >= 1'),
]


@pytest.mark.parametrize("text, message", REFUSED)
def test_a_link_refuses_what_a_live_room_refuses_with_the_same_message(monkeypatch, tmp_path,
                                                                       text, message):
    with app_client(monkeypatch, tmp_path) as client:
        room = client.post("/api/live", json={"v": 1, "program": "x = 2.0\nL = x * x"}).json()
        answers = [post(client, "/api/live", text),
                   post(client, f"/api/live/{room['room']}/state", text,
                        {"Authorization": f"Bearer {room['presenter_token']}"}),
                   post(client, "/api/links", '{"state": %s}' % text)]
        for r in answers:
            assert r.status_code == 422, r.text
            assert r.json()["error"] | {"hint": None} == {
                "kind": "bad_request", "message": message, "hint": None, "line": None, "col": None,
                "end_line": None, "end_col": None}
        assert client.app.state.link_store.count() == 0


def test_a_link_body_with_a_field_of_its_own_is_refused_naming_it(monkeypatch, tmp_path):
    with app_client(monkeypatch, tmp_path) as client:
        r = client.post("/api/links", json={"state": {"v": 1}, "stae": {"v": 1}})
        assert r.status_code == 422
        assert r.json()["error"]["message"] == "stae: Extra inputs are not permitted"


def test_a_good_link_is_stored_as_sent_under_its_id(monkeypatch, tmp_path):
    """Checked, not rewritten: the font's 1 stays 1 (not the model's 1.0), so a state keeps
    the id it had before the check (canonical JSON written by hand)."""
    state = {"v": 1, "program": "a = 1.0", "font": 1, "speed": 2, "open_groups": ["g3"],
             "a_newer_field": {"x": [1]}}
    text = ('{"a_newer_field":{"x":[1]},"font":1,"open_groups":["g3"],"program":"a = 1.0",'
            '"speed":2,"v":1}')
    with app_client(monkeypatch, tmp_path) as client:
        r = client.post("/api/links", json={"state": state})
        assert r.status_code == 201, r.text
        assert r.json()["id"] == canonical.link_id(text.encode())
        assert client.get(r.json()["url"].replace("/s/", "/api/links/")).json() == {"state": state}


def test_a_state_of_a_newer_version_is_kept_by_links_and_rooms(monkeypatch, tmp_path):
    """A newer page's fields need not be typed as this version's (its step might be text):
    both keep it as sent; this version's pages refuse it whole, saying why (live.js)."""
    newer = {"v": 2, "program": "x = 1", "step": "three", "mode": 5}
    with app_client(monkeypatch, tmp_path) as client:
        room = client.post("/api/live", json=newer)
        assert room.status_code == 201, room.text
        code, token = room.json()["room"], room.json()["presenter_token"]
        stepped = client.post(f"/api/live/{code}/state", json={**newer, "step": "four"},
                              headers={"Authorization": f"Bearer {token}"})
        assert stepped.status_code == 200, stepped.text
        current = client.app.state.live_hub.store.current(code, 60)
        assert json.loads(current[1]) == {**newer, "step": "four"}
        link = client.post("/api/links", json={"state": newer})
        assert link.status_code == 201
        assert client.get(f"/api/links/{link.json()['id']}").json() == {"state": newer}
        # what JSON cannot carry is refused whatever the version
        r = post(client, "/api/live", '{"v": 2, "step": NaN}')
        assert r.status_code == 422
        assert r.json()["error"]["message"] == "state.step: NaN and infinities are not JSON"


def test_a_live_step_and_a_link_walk_their_state_once(monkeypatch, tmp_path):
    walks = []

    def counted(state):
        walks.append(1)
        return problem(state)

    problem = canonical.state_problem
    monkeypatch.setattr(canonical, "state_problem", counted)
    monkeypatch.setattr(pagestate, "state_problem", counted)
    with app_client(monkeypatch, tmp_path) as client:
        room = client.post("/api/live", json={"v": 1, "program": "x = 1"}).json()
        walks.clear()
        r = client.post(f"/api/live/{room['room']}/state", json={"v": 1, "program": "x = 1", "step": 1},
                        headers={"Authorization": f"Bearer {room['presenter_token']}"})
        assert r.status_code == 200 and len(walks) == 1
        walks.clear()
        assert client.post("/api/links", json={"state": {"v": 1, "program": "x = 1"}}).status_code == 201
        assert len(walks) == 1
        walks.clear()
        assert client.post("/api/links", json={"state": {"v": 1, "program": "x = 1"}}).status_code == 200
        assert len(walks) == 1


def test_the_server_reads_the_version_the_page_writes():
    """pagestate.VERSION is static/js/state.js VERSION: a state past it is a newer page's."""
    root = canonical.__file__.rsplit("/server/", 1)[0]
    with open(f"{root}/static/js/state.js", encoding="utf-8") as f:
        assert f"export const VERSION = {pagestate.VERSION};" in f.read()
