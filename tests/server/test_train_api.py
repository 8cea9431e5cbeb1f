"""POST /api/train and POST /api/train/stream (issue 15 §2): seed 003's printed losses through
the API, the stream's events (framed as the trace stream's) equal to the JSON answer, a recorded
iteration's gradients equal to PyTorch's (float64) on that iteration's weights, every limit a
setting named in its 422 or `error` event, bad bodies refused with the field named, and a
training run waiting for a trace slot like a trace."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from gradwalk.engine.trace.values import decode
from helpers import sse_events
from gradwalk.server.presets import presets
from gradwalk.server.settings import get_settings

ERROR_KEYS = {"kind", "message", "line", "col", "end_line", "end_col", "hint"}
PRESETS = {p["id"]: p for p in presets()}
SEED_003 = PRESETS["train-xor-seed1"]["program"]
SMALL = "w = [1.0, -2.0]\nL = sum(w * w)\n"


def body(program: str = SEED_003, **fields) -> dict:
    return {"program": program, "steps": 301, "lr": 0.5, **fields}


def stream(client, **fields) -> list[tuple[str, dict]]:
    r = client.post("/api/train/stream", json=body(**fields))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    return sse_events(r.text)


def test_seed_003_through_the_api_prints_the_seeds_losses(client):
    r = client.post("/api/train", json=body())
    assert r.status_code == 200
    answer = r.json()
    losses = answer["losses"]
    assert len(losses) == 301
    # the seed's printout: step 0 0.8382 (0.838159), 100 0.1102, 200 0.0261, 300 0.0132
    assert round(losses[0], 6) == 0.838159
    assert [round(losses[k], 4) for k in (100, 200, 300)] == [0.1102, 0.0261, 0.0132]
    assert answer["accuracy"] == 1.0
    assert set(answer["params"]) == {"W1", "b1", "W2", "b2"}
    assert answer["boundary"]["i"] == 300 and answer["recorded"] == {}


def test_the_stream_is_the_answer_event_by_event(client):
    answer = client.post("/api/train", json=body(steps=60)).json()
    r = client.post("/api/train/stream", json=body(steps=60))
    blocks = r.text.strip().split("\n\n")
    # framed as /api/trace/stream: event, data (one line of JSON), id dense from 0
    ids = [int(b.split("\nid: ")[1]) for b in blocks]
    assert ids == list(range(len(blocks)))
    items = sse_events(r.text)
    kinds = [k for k, _ in items]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert all(data["type"] == kind for kind, data in items)
    start = items[0][1]
    assert start["steps"] == 60 and start["params"] == ["W1", "b1", "W2", "b2"]
    assert start["data"] == {"X": [[0, 0], [0, 1], [1, 0], [1, 1]], "y": [0, 1, 1, 0]}
    assert start["classes"] == 2
    iterations = [d for k, d in items if k == "iteration"]
    assert [d["i"] for d in iterations] == list(range(60))
    assert [d["loss"] for d in iterations] == answer["losses"]
    boundaries = [d for k, d in items if k == "boundary"]
    assert [d["i"] for d in boundaries] == [0, 25, 50, 59]   # every 25 and the last
    grid = boundaries[-1]["grid"]
    assert len(boundaries[-1]["classes"]) == grid["nx"] * grid["ny"]
    done = items[-1][1]
    assert done["losses"] == answer["losses"] and done["params"] == answer["params"]
    assert done["dead_units"] == answer["dead_units"]


def _torch_grads_at(program_weights: dict, k: int) -> dict:
    """Seed 003's network in PyTorch float64, SGD at 0.5 for k steps; the gradients of
    iteration k."""
    X = torch.tensor([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=torch.float64)
    y = torch.tensor([0, 1, 1, 0])
    ps = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True)
          for n, v in program_weights.items()}
    opt = torch.optim.SGD(list(ps.values()), lr=0.5)
    for _ in range(k + 1):
        opt.zero_grad()
        h = torch.relu(X @ ps["W1"].T + ps["b1"])
        L = torch.nn.functional.cross_entropy(h @ ps["W2"].T + ps["b2"], y)
        L.backward()
        grads = {n: p.grad.detach().clone() for n, p in ps.items()}
        loss = L.item()
        opt.step()
    return {"loss": loss, **grads}


def test_a_recorded_iteration_is_a_walk_with_that_iterations_numbers(client):
    r = client.post("/api/train", json=body(steps=101, record=[100]))
    assert r.status_code == 200
    walk = r.json()["recorded"]["100"]
    kinds = [e["kind"] for e in walk["events"]]
    # forward, zero_grad, backward, update, as the seed writes the loop
    assert kinds.index("zero_grad") == kinds.index("seed") - 1
    assert kinds[-5:] == ["update"] * 4 + ["done"]
    assert [e["seq"] for e in walk["events"]] == list(range(len(kinds)))
    weights = {n: np.asarray(v) for n, v in (
        (line.split(" = ")[0], json.loads(line.split(" = ")[1]))
        for line in SEED_003.splitlines() if line[:2] in ("W1", "b1", "W2", "b2"))}
    want = _torch_grads_at(weights, 100)
    assert math.isclose(walk["output"]["value"], want["loss"], rel_tol=1e-12)
    assert math.isclose(want["loss"], 0.1102, abs_tol=5e-5)
    for name in ("W1", "b1", "W2", "b2"):
        np.testing.assert_allclose(decode(walk["grads"][name]), want[name].numpy(),
                                   rtol=1e-10, atol=1e-13)
    update = next(e for e in walk["events"] if e["kind"] == "update" and e["name"] == "W1")
    assert "0.5" in update["narration"]


# setting, value, body fields, the setting's environment name, where it is checked
LIMITS = [
    ("max_train_steps", 3, {"steps": 4}, "GRADWALK_MAX_TRAIN_STEPS"),
    ("max_train_record", 1, {"steps": 4, "record": [0, 1]}, "GRADWALK_MAX_TRAIN_RECORD"),
    ("max_train_elements", 100, {"steps": 4}, "GRADWALK_MAX_TRAIN_ELEMENTS"),
    ("max_train_flops", 100, {"steps": 4}, "GRADWALK_MAX_TRAIN_FLOPS"),
]


@pytest.mark.parametrize("setting, value, fields, named", LIMITS, ids=[r[0] for r in LIMITS])
def test_each_limit_is_a_setting_named_in_the_answer(client, monkeypatch, setting, value,
                                                     fields, named):
    assert client.post("/api/train", json=body(**fields)).status_code == 200
    monkeypatch.setattr(get_settings(), setting, value)
    r = client.post("/api/train", json=body(**fields))
    assert r.status_code == 422
    error = r.json()["error"]
    assert set(error) == ERROR_KEYS and error["kind"] == "too_large"
    assert named in error["message"] and error["hint"]
    # the stream: one error event, the same, and nothing else (refused before it starts)
    items = stream(client, **fields)
    assert [k for k, _ in items] == ["error"] and items[0][1]["error"] == error


def test_the_wall_clock_budget_stops_the_run_midway(client, monkeypatch):
    monkeypatch.setattr(get_settings(), "train_timeout_seconds", 0)
    r = client.post("/api/train", json=body(steps=5))
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "timeout" and "GRADWALK_TRAIN_TIMEOUT_SECONDS" in error["message"]
    items = stream(client, steps=5)
    # checked after each iteration: the run started, iteration 0 came, then the error
    assert [k for k, _ in items] == ["start", "iteration", "boundary", "dead", "dead", "error"]
    assert items[-1][1]["error"] == error


BAD = [
    ({"steps": 0}, "steps"),
    ({"steps": 2.5}, "steps"),
    ({"steps": "300"}, "steps"),
    ({"lr": -0.5}, "lr"),
    ({"lr": 0}, "lr"),
    ({"lr": "0.5"}, "lr"),
    ({"optimizer": "lbfgs"}, "optimizer"),
    ({"bugs": ["overwrite"]}, "bugs"),
    ({"record": [1.5]}, "record"),
    ({"record": list(range(65))}, "record"),
    ({"momentum": 0.9}, "momentum"),
    ({"output": "not a name"}, "output"),
]


@pytest.mark.parametrize("fields, where", BAD, ids=[f"{w}-{i}" for i, (_, w) in enumerate(BAD)])
def test_a_bad_body_is_422_naming_the_field(client, fields, where):
    for path in ("/api/train", "/api/train/stream"):
        r = client.post(path, json=body(**fields))
        assert r.status_code == 422, path
        error = r.json()["error"]
        assert error["kind"] == "bad_request" and error["message"].startswith(f"{where}")


@pytest.mark.parametrize("text, message", [
    # a JSON integer of 401 digits: math.isfinite overflowed, a 500 (a review)
    ('"lr": 1' + "0" * 400, "lr: the learning rate must be a number above 0 and at most "
     "1,000,000, not an integer of 401 digits"),
    ('"lr": -1' + "0" * 400, "lr: the learning rate must be a number above 0 and at most "
     "1,000,000, not a negative integer of 401 digits"),
    ('"lr": "0.1"', "lr: must be a number, not a string"),   # was "...or a (nested) list..."
    ('"lr": null', "lr: must be a number, not null"),
])
def test_a_bad_learning_rate_is_422_saying_what_is_wrong(client, text, message):
    raw = json.dumps({k: v for k, v in body().items() if k != "lr"})[:-1] + ", " + text + "}"
    for path in ("/api/train", "/api/train/stream"):
        r = client.post(path, content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, path
        assert r.json()["error"] == {**r.json()["error"], "kind": "bad_request",
                                     "message": message}


def test_huge_steps_and_iterations_are_said_by_their_digits(client):
    r = client.post("/api/train", json=body(steps=10 ** 400))
    assert r.status_code == 422 and r.json()["error"]["message"].startswith(
        "an integer of 401 digits as steps asked; the limit (max_steps")
    r = client.post("/api/train", json=body(steps=3, record=[10 ** 400]))
    assert r.status_code == 422 and r.json()["error"]["message"] == (
        "an integer of 401 digits as an iteration cannot be recorded: iterations run from 0 "
        "to 2")


def test_a_program_error_is_located_and_nothing_runs(client):
    r = client.post("/api/train", json=body("a = 1.0\nL = a *\n"))
    assert r.status_code == 422 and r.json()["error"]["kind"] == "syntax"
    assert r.json()["error"]["line"] == 2
    items = stream(client, program="a = 1.0\nL = a *\n")
    assert [k for k, _ in items] == ["error"] and items[0][1]["error"]["line"] == 2
    # a program with nothing to train, and one whose loss is not a scalar
    for program in ("a = const(1.0)\nL = a * a\n", "w = [1.0, 2.0]\nL = w * w\n"):
        r = client.post("/api/train", json=body(program, steps=3))
        assert r.status_code == 422 and r.json()["error"]["kind"] == "bad_argument"


def test_training_waits_for_a_trace_slot_like_a_trace(client, monkeypatch):
    import anyio.from_thread
    monkeypatch.setattr(get_settings(), "busy_timeout_seconds", 0.05)
    slots = client.app.state.trace_slots
    with anyio.from_thread.start_blocking_portal() as portal:
        held = [portal.wrap_async_context_manager(slots.held(1.0)) for _ in range(slots.count)]
        for slot in held:
            slot.__enter__()
        try:
            for path in ("/api/train", "/api/train/stream"):
                r = client.post(path, json=body(SMALL, steps=3, lr=0.1))
                assert r.status_code == 503 and r.json()["error"]["kind"] == "busy", path
        finally:
            for slot in held:
                slot.__exit__(None, None, None)
    r = client.post("/api/train", json=body(SMALL, steps=3, lr=0.1))
    assert r.status_code == 200
    # L = 5 · 0.64^k
    np.testing.assert_allclose(r.json()["losses"], [5.0, 3.2, 2.048], rtol=1e-15)


def test_the_schema_documents_both_routes(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/train", "/api/train/stream"):
        schema = paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        fields = {"program", "steps", "lr", "optimizer", "record", "bugs"}
        assert fields <= set(schema["properties"])
        assert {"422", "503"} <= set(paths[path]["post"]["responses"])


# The issue's presets (§3), by their titles, each trained as the page trains it (its settings).
ISSUE_PRESETS = {
    "XOR, seed 003 (learns)": "train-xor-seed1",
    "XOR, seed 5 (a dead unit: stuck at ln 2)": "train-xor-seed5",
    "XOR with tanh units (seed 000)": "train-xor-tanh",
    "three spirals (seed 000)": "train-spirals",
    "bug lab in training: no zero_grad, beside the fix (XOR, seed 003)": "train-no-zero-grad",
}


def page_body(preset: dict, fixed: bool = False) -> dict:
    """The body the page's Train button sends for `preset` (static/js/train.js trainRequest)."""
    t = preset["train"]
    bugs = ["no_zero_grad"] if t["train_bug"] and not fixed else []
    return {"program": preset["program"], "steps": t["train_steps"], "lr": t["train_lr"],
            "optimizer": t["train_optimizer"], "bugs": bugs}


def test_the_issues_presets_open_in_train_mode_and_do_what_their_titles_say(client):
    titles = {p["title"]: p["id"] for p in PRESETS.values() if p.get("mode") == "train"}
    assert titles == ISSUE_PRESETS
    run = {pid: client.post("/api/train", json=page_body(PRESETS[pid])).json()
           for pid in ISSUE_PRESETS.values()}
    assert round(run["train-xor-seed1"]["losses"][-1], 4) == 0.0132
    seed5 = run["train-xor-seed5"]
    assert math.isclose(seed5["losses"][-1], math.log(2), abs_tol=1e-4)
    assert [(d["name"], d["unit"], d["iteration"]) for d in seed5["dead_units"]] == [("h", 3, 0)]
    tanh = run["train-xor-tanh"]
    assert tanh["accuracy"] is None and tanh["losses"][-1] < 0.001   # outputs near (-1, 1, 1, -1)
    assert run["train-spirals"]["accuracy"] == 1.0
    bug = run["train-no-zero-grad"]
    fix = client.post("/api/train", json=page_body(PRESETS["train-no-zero-grad"], True)).json()
    assert round(fix["losses"][-1], 4) == 0.0132 and bug["losses"][-1] > 0.3
