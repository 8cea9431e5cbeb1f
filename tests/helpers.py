"""Assertions shared by the engine, server and CLI tests."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gradwalk.engine.trace.values import decode

CASES = json.loads((Path(__file__).parent / "cases" / "seed_examples.json").read_text())


def case(case_id: str) -> dict:
    return next(c for c in CASES if c["id"] == case_id)


def assert_matches_case(body: dict, case: dict) -> None:
    """The traced output and every expected gradient agree with the PyTorch values to `tol`."""
    tol = case["tol"]
    expect = case["expect"]
    np.testing.assert_allclose(decode(body["output"]["value"]), expect["output"], rtol=0, atol=tol)
    assert set(body["grads"]) >= set(expect["grads"])
    for name, want in expect["grads"].items():
        np.testing.assert_allclose(decode(body["grads"][name]), np.array(want), rtol=0, atol=tol,
                                   err_msg=name)
    nodes = {n["label"]: n["id"] for n in body["graph"]["nodes"]}
    values = {e["node"]: e["value"] for e in body["events"] if e["kind"] == "evaluate"}
    for name, want in expect.get("values", {}).items():
        np.testing.assert_allclose(decode(values[nodes[name]]), np.array(want), rtol=0, atol=tol)


def final_adjoints(body: dict) -> dict[str, float]:
    """label -> the adjoint after the last accumulate into it (the output's is its seed)."""
    labels = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    out = {}
    for e in body["events"]:
        if e["kind"] == "seed":
            out[labels[e["node"]]] = decode(e["adjoint"])
        elif e["kind"] == "accumulate":
            out[labels[e["input"]]] = decode(e["adjoint_after"])
    return out


def assert_intermediates(body: dict, case: dict) -> None:
    """The case's intermediate adjoints, and each separate contribution a fan-out value gets."""
    adjoints = final_adjoints(body)
    for name, want in case["expect"].get("adjoints", {}).items():
        np.testing.assert_allclose(adjoints[name], want, rtol=0, atol=case["tol"], err_msg=name)
    labels = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    for name, parts in case["expect"].get("fan_out", {}).items():
        got = {f"from {labels[e['node']]}": decode(e["contribution"]) for e in body["events"]
               if e["kind"] == "accumulate" and labels[e["input"]] == name}
        assert set(got) == set(parts), got
        for key, want in parts.items():
            np.testing.assert_allclose(got[key], want, rtol=0, atol=case["tol"], err_msg=key)


def assert_located(e, kind: str, line: int, col: int, words: str = "") -> None:
    """The refusal `e` (a ProgramError) is of `kind`, at (line, col), and its message says
    `words`: the place and the words a student reads."""
    assert (e.kind, e.line, e.col) == (kind, line, col) and words in e.message, e


def sse_events(text: str) -> list[tuple[str, dict]]:
    """A text/event-stream body as (event, data) pairs, the data parsed as JSON."""
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        out.append((fields.get("event"), json.loads(fields["data"])))
    return out
