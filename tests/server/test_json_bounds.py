"""Issue 14 section 2: a 12 MB JSON body with a million unknown keys took 14.5 s to refuse,
peaked at 1.27 GB and stalled /healthz for 7 s. Every JSON route now bounds a body's shape
before pydantic sees it (server/jsonshape.py): an unknown top-level field is refused at the
first one, and depth, keys and array elements each by a setting, tested here by its refusal
with a small value."""
from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest
from fastapi.testclient import TestClient

from gradwalk.server.jsonshape import Bounds, ShapeTooLarge, UnknownField, check_shape
from gradwalk.server.main import create_app
from gradwalk.server.settings import Settings, get_settings
from server_process import served

PROGRAM = "a = 1.0\nL = tanh(a)\n"
# Every route that takes a JSON body, with a body it accepts.
ROUTES = {
    "/api/trace": {"program": PROGRAM},
    "/api/trace/stream": {"program": PROGRAM},
    "/api/trace/node": {"program": PROGRAM, "node": "n0"},
    "/api/export/md": {"program": PROGRAM},
    "/api/links": {"state": {"v": 1, "program": PROGRAM}},
}
KEYS = 200_000


def with_unknown_keys(body: dict, n: int = KEYS) -> bytes:
    """body's JSON with n unknown keys after its fields (2.6 MB for 200,000)."""
    extra = ",".join(f'"k{i}":0' for i in range(n))
    return json.dumps(body)[:-1].encode() + b"," + extra.encode() + b"}"


def post_raw(url: str, raw: bytes) -> tuple[int, dict, float]:
    req = urllib.request.Request(url, data=raw, method="POST",
                                 headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            status, body = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read()
    return status, json.loads(body), time.perf_counter() - start


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with served(tmp_path_factory.mktemp("json"), link_rate_limit="") as s:
        yield s


@pytest.mark.parametrize("route", ROUTES)
def test_200000_unknown_keys_are_refused_at_once_and_healthz_answers_meanwhile(server, route):
    raw = with_unknown_keys(ROUTES[route])
    answers, worst = [], []

    def flood() -> None:
        for _ in range(3):
            answers.append(post_raw(server.url + route, raw))

    thread = threading.Thread(target=flood)
    thread.start()
    while thread.is_alive():   # the health check, timed while the bodies are refused
        start = time.perf_counter()
        urllib.request.urlopen(f"{server.url}/healthz", timeout=30).read()
        worst.append(time.perf_counter() - start)
    thread.join()
    for status, body, seconds in answers:
        assert status == 422 and seconds < 1.0, (status, seconds)
        assert body["error"]["kind"] == "bad_request"
        assert body["error"]["message"] == "k0: Extra inputs are not permitted"
    assert max(worst) < 0.5, worst


@pytest.mark.parametrize("route", ["/api/trace", "/api/trace/stream"])
def test_200000_keys_inside_a_field_are_413_naming_the_bound(server, route):
    keys = {f"x{i}": 0 for i in range(KEYS)}
    raw = json.dumps({"program": PROGRAM, "mode": "forward", "tangents": keys}).encode()
    status, body, seconds = post_raw(server.url + route, raw)
    assert (status, body["error"]["kind"]) == (413, "too_large") and seconds < 1.0
    assert body["error"]["message"] == (
        "the body has more than 10,000 object keys (GRADWALK_MAX_JSON_KEYS)")


@pytest.fixture
def client():
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("setting, value, extra, named", [
    ("max_json_depth", 3, {"output_grad": [[[[1.0]]]]}, "nests objects and arrays more than 3"),
    ("max_json_keys", 2, {"output": "L", "dtype": "float64"}, "more than 2 object keys"),
    ("max_json_items", 3, {"bugs": ["overwrite", "overwrite", "overwrite", "overwrite", "x"]},
     "more than 3 array elements"),
])
def test_each_bound_refuses_with_413_naming_its_setting(client, monkeypatch, route, setting,
                                                       value, extra, named):
    monkeypatch.setattr(get_settings(), setting, value)
    body = {**ROUTES[route], **extra} if route != "/api/links" else {
        "state": {**ROUTES[route]["state"], **extra}}
    r = client.post(route, json=body)
    assert r.status_code == 413
    error = r.json()["error"]
    assert error["kind"] == "too_large"
    assert named in error["message"] and f"GRADWALK_{setting.upper()}" in error["message"]


@pytest.mark.parametrize("route", ROUTES)
def test_the_routes_take_their_bodies_within_the_default_bounds(client, monkeypatch, route):
    monkeypatch.setattr(get_settings(), "link_rate_limit", "")
    r = client.post(route, json=ROUTES[route])
    assert r.status_code in (200, 201), r.text


def test_the_default_bounds():
    s = Settings()
    assert (s.max_json_depth, s.max_json_keys, s.max_json_items) == (100, 10_000, 5_000_000)


BOUNDS = Bounds(depth=3, keys=4, items=5)


@pytest.mark.parametrize("raw", [
    b'{"program": "[[[[{{{{ : : , , , , , , \\" ]]]", "output": "L"}',   # brackets in a string
    b'{"\\u0070rogram": "a", "output_grad": [[1, 2], [3]]}',   # an escaped key; 5 elements
    b'{"program": "a", "output_grad": [1, 2, 3, 4, 5]}',        # 5 elements
    b'{"program": "a", "output_grad": NaN, "eps": 1e999}',              # what pydantic reads
    b'  {"program" : "a" , "output" : "\\ud800"}  ',
])
def test_a_body_within_the_bounds_passes(raw):
    check_shape(raw, BOUNDS, frozenset({"program", "output", "output_grad", "eps"}))


@pytest.mark.parametrize("raw, error", [
    (b'{"program": "a", "output_grad": [[[[1]]]]}', "more than 3 deep"),
    (b'{"program": "a", "output_grad": [[[1]], [[2]], {"a": {"b": 1}}]}', "more than 3 deep"),
    (b'{"program": {"a": 1, "b": 2, "c": 3, "d": 4}}', "more than 4 object keys"),
    (b'{"program": [1, 2, 3, 4, 5, 6, 7]}', "more than 5 array elements"),
    (b'{"program": [[1, 2], [3, 4], [5, 6]]}', "more than 5 array elements"),
    (b'{"program": ["a", "b", "c", "d", "e", "f", "g"]}', "more than 5 array elements"),
])
def test_a_body_past_a_bound_is_refused(raw, error):
    with pytest.raises(ShapeTooLarge, match=error):
        check_shape(raw, BOUNDS)


def test_an_unknown_top_level_key_is_refused_but_nested_keys_are_free():
    with pytest.raises(UnknownField) as e:
        check_shape(b'{"program": "a", "progr\\u0061m2": 1}', BOUNDS, frozenset({"program"}))
    assert e.value.name == "program2"
    check_shape(b'{"program": {"other": 1}}', BOUNDS, frozenset({"program"}))
