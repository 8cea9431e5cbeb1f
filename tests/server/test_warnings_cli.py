"""Issue 9 review findings through the API, the stream and the real `gradwalk trace` command:
the `warnings` list (cut paths, kinks) in every path, the bug lab's first table line, `--check`'s
exit code, hvp's (H v)_a labels and the `# hvp:` line never ignored."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from gradwalk.engine.trace.runner import body_events
from helpers import case, sse_events
from gradwalk.server.presets import presets

FIRST = case("seed-tanh-fanout")["program"]
PRESETS = {p["id"]: p["program"] for p in presets()}
RELU_AT_0 = "a = 0.0\nL = relu(a)\n"


def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradwalk.server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


# ---- the warnings contract in the body, the stream and the CLI --------------------------------
def test_the_body_and_the_stream_carry_the_same_warnings(client):
    request = {"program": PRESETS["bug-detach"]}
    body = client.post("/api/trace", json=request).json()
    (warning,) = body["warnings"]
    assert set(warning) == {"kind", "message", "node", "field", "line", "col", "end_line",
                            "end_col"}
    assert (warning["kind"], warning["node"], warning["line"], warning["col"]) == \
        ("cut", "n4", 5, 4)
    done = body["events"][-1]   # the body's done event keeps its narration
    assert done["kind"] == "done" and done["narration"].startswith("Done, with a warning: ")
    items = sse_events(client.post("/api/trace/stream", json=request).text)
    assert items[-1][0] == "done"
    streamed = items[-1][1]
    assert streamed["warnings"] == body["warnings"]
    assert streamed["narration"] == done["narration"]
    assert [data for _, data in items[1:]] == body_events(body)
    cut = [data for kind, data in items if kind == "accumulate" and "cut" in data]
    assert [c["cut"] for c in cut] == [["n4"]]


def test_forward_mode_kink_through_the_api(client):
    body = client.post("/api/trace", json={"program": RELU_AT_0, "mode": "forward"}).json()
    (warning,) = body["warnings"]
    assert (warning["field"], warning["node"], warning["line"], warning["col"]) == \
        ("tangents", "n1", 2, 4)
    assert body["jvp"] == 0.0   # PyTorch's number (torch.func.jvp of relu at 0)


def test_no_warnings_key_without_warnings(client):
    body = client.post("/api/trace", json={"program": FIRST, "check": True}).json()
    assert "warnings" not in body and "narration" not in body["events"][-1]


# ---- the `# hvp:` line is never ignored --------------------------------------------------------
def test_an_hvp_line_in_forward_mode_is_422_at_the_line(client):
    text = '# hvp: {"a": 1.0}\n' + FIRST
    r = client.post("/api/trace", json={"program": text, "mode": "forward"})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "bad_argument" and "mode hvp" in error["message"]
    assert (error["line"], error["col"], error["end_line"], error["end_col"]) == (1, 7, 1, 17)
    r = client.post("/api/trace", json={"program": text, "mode": "hvp", "vector": {"b": 1}})
    error = r.json()["error"]
    assert r.status_code == 422 and (error["line"], error["col"]) == (1, 7)
    assert "`vector` and the program's `# hvp:` line (line 1)" in error["message"]


def test_the_cli_refuses_an_hvp_line_in_forward_mode_with_its_place():
    r = gradwalk("trace", "-", "--mode", "forward", stdin='# hvp: {"a": 1.0}\n' + FIRST)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    error = json.loads(r.stdout)["error"]
    assert (error["kind"], error["line"], error["col"]) == ("bad_argument", 1, 7)


# ---- the CLI: the bug lab's first line, --check's exit code, warnings, (H v)_a ---------------
def test_a_bug_table_says_first_which_switches_are_on():
    r = gradwalk("trace", "-", "--bug", "overwrite", "--bug", "wrong_order", "--format",
                 "table", stdin=FIRST)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == ("BUG LAB: switches on: overwrite, wrong_order; these "
                                        "gradients are wrong on purpose")
    r = gradwalk("trace", "-", "--format", "table", stdin=PRESETS["bug-no-zero-grad"])
    assert r.stdout.splitlines()[0].startswith("BUG LAB: switches on: no_zero_grad;")
    r = gradwalk("trace", "-", "--format", "table", stdin=FIRST)
    assert r.stdout.splitlines()[0].startswith("Node ") and "BUG" not in r.stdout


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_check_exits_5_when_a_leaf_disagrees_and_0_when_all_agree(fmt):
    r = gradwalk("trace", "-", "--check", "--format", fmt, stdin=FIRST)
    assert r.returncode == 0, r.stderr
    r = gradwalk("trace", "-", "--check", "--format", fmt, stdin=RELU_AT_0)
    assert r.returncode == 5 and r.stderr == ""   # the trace is written, not an error
    if fmt == "json":
        row = json.loads(r.stdout)["gradcheck"]["a"]
        assert (row["ok"], row["analytic"], row["numeric"]) == (False, 0.0, pytest.approx(0.5))
    else:
        assert "a: max abs error 0.5, max rel error 1, h = 1e-06: DIFFERS at a kink: relu at 0 " \
               "(line 2)" in r.stdout
    r = gradwalk("trace", "-", "--check", "--bug", "overwrite", "--format", fmt, stdin=FIRST)
    assert r.returncode == 5
    r = gradwalk("trace", "-", "--format", fmt, stdin=RELU_AT_0)   # no check: no verdict
    assert r.returncode == 0


def test_the_help_documents_exit_code_5():
    r = gradwalk("trace", "--help")
    assert r.returncode == 0
    assert "5    `trace --check`: the trace was written, and the gradient check disagrees" in \
        r.stdout


def test_the_table_prints_each_warning_as_a_line():
    r = gradwalk("trace", "-", "--format", "table", stdin=PRESETS["bug-detach"])
    lines = [x for x in r.stdout.splitlines() if x.startswith("warning ")]
    assert lines == ["warning (cut): e = detach(a * b) (line 5, col 5) cuts the path: the "
                     "gradients of a, b miss what flows through e, so they are not the "
                     "derivatives of L"]
    r = gradwalk("trace", "-", "--format", "table", "--mode", "forward", stdin=RELU_AT_0)
    assert "warning (non_differentiable): relu is not differentiable at 0: in L = relu(a) " \
           "(line 2, col 5)" in r.stdout


def test_the_hvp_table_labels_each_leaf_h_v_with_torchs_numbers():
    r = gradwalk("trace", "-", "--mode", "hvp", "--vector", '{"a": 1, "b": 0.5}', "--format",
                 "table", stdin=FIRST)
    assert r.returncode == 0, r.stderr
    a, b, c = (torch.tensor(v, dtype=torch.float64) for v in (1.0, -0.5, 2.0))

    def f(a, b, c):
        return torch.tanh(a * b + a) * c

    _, hv = torch.autograd.functional.hvp(
        f, (a, b, c), tuple(torch.tensor(v, dtype=torch.float64) for v in (1.0, 0.5, 0.0)))
    leaves = [t.clone().requires_grad_(True) for t in (a, b, c)]
    grads = torch.autograd.grad(f(*leaves), leaves)
    s = float(grads[0] * 1.0 + grads[1] * 0.5)   # ⟨∇L, v⟩
    tail = r.stdout.splitlines()[-4:]
    assert tail[0] == f"s = ⟨∇L, v⟩ = {s:.4f}" == "s = ⟨∇L, v⟩ = 1.5729"
    for line, name, want in zip(tail[1:], "abc", hv):
        shown = f"{float(want):.4f}".rstrip("0").rstrip(".")
        assert line == f"(H v)_{name} = ∂s/∂{name} = {shown} (forward over reverse: {shown})"
    assert not np.isnan([float(h) for h in hv]).any()
