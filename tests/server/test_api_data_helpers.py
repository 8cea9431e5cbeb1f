"""The language of training through the API and the CLI (issue 15 §2): a program with data
helpers and a name-held target traces (200, exit 0), and each bad use is a located 422 (exit 1),
never a 500 or a traceback."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gradwalk.engine.trace.values import decode
from gradwalk.server.cli import main as cli_main

SPIRALS = ("X, y = spirals(10, 3, seed=0)\nW = randn(2, 3, seed=1, std=0.5)\n"
           "b = uniform(3, low=-1, high=1, seed=2)\nL = cross_entropy(X @ W + b, y)\n")


def test_a_data_set_traces_through_the_api(client):
    r = client.post("/api/trace", json={"program": SPIRALS})
    assert r.status_code == 200, r.text
    body = r.json()
    nodes = {n["label"]: n for n in body["graph"]["nodes"]}
    assert nodes["X"]["role"] == nodes["y"]["role"] == "const"
    assert nodes["X"]["params"] == {"data": "spirals(10, 3, seed=0, noise=0.2)"}
    assert nodes["W"]["params"] == {"init": "randn(2, 3, seed=1, std=0.5)"}
    assert nodes["L"]["params"]["target_label"] == "y"
    assert nodes["L"]["params"]["target"] == [0] * 10 + [1] * 10 + [2] * 10
    assert set(body["grads"]) == {"W", "b"}
    assert np.isfinite(decode(body["output"]["value"]))


@pytest.mark.parametrize("program,kind,line,col", [
    ("X = xor()\n", "unsupported", 1, 0),
    ("a, b = 1.0\n", "unsupported", 1, 0),
    ("X, y = spirals(100, 3, seed=-1)\n", "bad_argument", 1, 28),
    ("X, y = spirals(10**6, 3, seed=0)\n".replace("10**6", str(10**6)), "too_large", 1, 7),
    ("X, y = xor()\nX = X * 2\n", "duplicate_leaf", 2, 0),
    ("z = [1.0, 2.0]\nt = 1\nL = cross_entropy(z, t)\n", "bad_argument", 3, 21),
])
def test_bad_uses_are_located_422(client, program, kind, line, col):
    r = client.post("/api/trace", json={"program": program})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == (kind, line, col), error


def test_the_cli_traces_and_refuses_data_helpers(tmp_path, capsys):
    path = tmp_path / "spirals.py"
    path.write_text(SPIRALS)
    assert cli_main(["trace", str(path), "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert set(body["grads"]) == {"W", "b"}
    path.write_text("X, y = moons(1, seed=0)\n")
    assert cli_main(["trace", str(path), "--format", "table"]) == 1
    err = capsys.readouterr().err
    assert "line 1" in err and "n of moons must be an integer of 2" in err and \
        "Traceback" not in err
