"""POST /api/train, its stream and `gradwalk train` on what a run says besides its losses
(review of issue 15, items 10 and 13): a diverged run warns in the answer, the stream and the
CLI's table; the API and the CLI bound the learning rate with one bound and one message; a
refused `# hvp:` line is answered with its line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import sse_events

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
from train_programs import REGRESSION  # noqa: E402  (tests/engine: the training programs)

CLI = [sys.executable, "-m", "gradwalk.server.cli"]
# the first non-finite iteration of REGRESSION at lr 1000 (PyTorch float64 finds the same:
# tests/engine/test_train_warnings.py)
DIVERGED = {"iteration": 4, "why": "the loss is Infinity at iteration 4; the run diverged "
            "(lr 1000 may be too large)"}


def gradwalk(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


def post(client, path: str, program: str, lr, steps: int = 12):
    # json.dumps writes NaN as the bare token, as a client that sends it does
    return client.post(path, content=json.dumps({"program": program, "steps": steps, "lr": lr}),
                       headers={"content-type": "application/json"})


def test_a_diverged_run_warns_in_the_answer_and_the_stream(client):
    r = post(client, "/api/train", REGRESSION, 1000)
    assert r.status_code == 200 and r.json()["diverged"] == DIVERGED
    events = sse_events(post(client, "/api/train/stream", REGRESSION, 1000).text)
    kinds = [k for k, _ in events]
    assert kinds.count("diverged") == 1
    k = kinds.index("diverged")
    assert events[k - 1][1]["i"] == 4 and events[k][1] == {"type": "diverged", "i": 4,
                                                           "why": DIVERGED["why"]}
    assert events[-1][1]["diverged"] == DIVERGED


def test_the_cli_table_prints_the_warning():
    r = gradwalk("train", "-", "--steps", "12", "--lr", "1000", "--format", "table",
                 stdin=REGRESSION)
    assert r.returncode == 0
    assert f"WARNING: diverged at iteration 4: {DIVERGED['why']}\n" in r.stdout


@pytest.mark.parametrize("text, lr", [("nan", float("nan")), ("1e308", 1e308),
                                      ("0.0", 0.0), ("2e6", 2e6)])
def test_the_api_and_the_cli_bound_lr_with_one_rule(client, text, lr):
    rule = "a number above 0 and at most 1,000,000"
    for path in ("/api/train", "/api/train/stream"):
        r = post(client, path, "w = 1.0\nL = w * w\n", lr)
        assert r.status_code == 422, path
        assert r.json()["error"]["message"] == \
            f"lr: the learning rate must be {rule}, not {lr!r}"
    # the CLI quotes what was typed, never the float it became ('abc' was said as "nan")
    r = gradwalk("train", "-", "--steps", "3", "--lr", text, stdin="w = 1.0\nL = w * w\n")
    assert r.returncode == 2 and f"argument --lr: {text!r} is not a learning rate: give " \
        f"{rule}, e.g. 0.1 (see `gradwalk train --help`)" in r.stderr


def test_the_largest_lr_runs_in_both(client):
    assert post(client, "/api/train", "w = 1.0\nL = w * w\n", 1e6, steps=1).status_code == 200
    r = gradwalk("train", "-", "--steps", "1", "--lr", "1e6", stdin="w = 1.0\nL = w * w\n")
    assert r.returncode == 0 and json.loads(r.stdout)["losses"] == [1.0]


def test_a_refused_hvp_line_is_answered_with_its_line(client):
    program = '# hvp: {"w": 1.0}\nw = 1.0\nL = w * w\n'
    r = post(client, "/api/train", program, 0.1)
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "bad_argument" and (error["line"], error["end_line"]) == (1, 1)
    assert program.splitlines()[0][error["col"]:error["end_col"]] == '{"w": 1.0}'
    events = sse_events(post(client, "/api/train/stream", program, 0.1).text)
    assert [k for k, _ in events] == ["error"] and events[0][1]["error"]["line"] == 1
