"""Issue 14: a program file that starts with a UTF-8 byte-order mark (as Windows editors save it)
was refused at line 1, column 1 ("invalid non-printable character U+FEFF") by the CLI and the
API. Every path that reads program text drops one leading mark; one further on stays an error
with its line and column. (The page's links: tests/js/bom.test.mjs.)"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import assert_matches_case, case

BOM = "\ufeff"
PROGRAM = case("seed-tanh-fanout")["program"]
CLI = [sys.executable, "-m", "gradwalk.server.cli"]


def gradwalk(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, timeout=120)


# ---- the command line: a file as Windows saves it, and the same bytes on stdin -------------
@pytest.mark.parametrize("command", [["trace", "--format", "json"], ["trace", "--format", "table"],
                                     ["export", "--format", "md"], ["export", "--format", "json"]],
                         ids=" ".join)
def test_a_file_with_a_byte_order_mark_is_the_program_it_is(command, tmp_path):
    marked = tmp_path / "marked.py"
    marked.write_bytes(b"\xef\xbb\xbf" + PROGRAM.replace("\n", "\r\n").encode())   # Notepad
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(PROGRAM.replace("\n", "\r\n").encode())
    verb, *rest = command
    expected = gradwalk(verb, str(crlf), *rest)
    assert expected.returncode == 0, expected.stderr
    for source in ([str(marked)], ["-"]):
        r = gradwalk(verb, *source, *rest, stdin=marked.read_bytes())
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected.stdout and r.stderr == b""
    if command[-1] == "json":   # PyTorch's numbers, and spans counted without the mark
        body = json.loads(r.stdout)
        assert_matches_case(body, case("seed-tanh-fanout"))
        # `a = 1.0`: the leaf's span is its literal, columns 4 to 7 (5 to 8 with the mark)
        assert body["graph"]["nodes"][0]["span"] == {"line": 1, "col": 4, "end_line": 1,
                                                     "end_col": 7}


@pytest.mark.parametrize("text, where", [
    (BOM + BOM + "a = 1.0\nL = a * 3.0\n", "line 1, column 1"),   # only one mark is dropped
    (BOM + "a = 1.0\nL = a *\ufeff 3.0\n", "line 2, column 8"),  # one inside the program
], ids=["two marks", "one inside"])
def test_a_mark_that_is_not_the_first_character_is_an_error_at_its_place(text, where, tmp_path):
    path = tmp_path / "p.py"
    path.write_bytes(text.encode())
    r = gradwalk("trace", str(path))
    assert r.returncode == 1
    assert r.stderr.decode() == (f"gradwalk: {path}: {where}: syntax error: invalid "
                                 "non-printable character U+FEFF (a byte-order mark (U+FEFF) "
                                 "inside the program, as left where two files were joined: "
                                 "delete it (one at the very start is read))\n")


# ---- the API: every route that takes a program -------------------------------------------
def test_the_api_reads_a_program_with_a_byte_order_mark(client):
    plain = client.post("/api/trace", json={"program": PROGRAM})
    marked = client.post("/api/trace", json={"program": BOM + PROGRAM})
    assert marked.status_code == 200 and marked.content == plain.content
    assert_matches_case(marked.json(), case("seed-tanh-fanout"))   # PyTorch's numbers
    stream = client.post("/api/trace/stream", json={"program": BOM + PROGRAM})
    assert stream.status_code == 200 and "event: error" not in stream.text
    assert stream.text == client.post("/api/trace/stream", json={"program": PROGRAM}).text
    node = client.post("/api/trace/node", json={"program": BOM + PROGRAM, "node": "n0"})
    assert node.status_code == 200
    assert node.json() == client.post("/api/trace/node", json={"program": PROGRAM,
                                                               "node": "n0"}).json()


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_an_export_of_a_program_with_a_byte_order_mark_carries_the_program(client, fmt):
    marked = client.post(f"/api/export/{fmt}", json={"program": BOM + PROGRAM})
    plain = client.post(f"/api/export/{fmt}", json={"program": PROGRAM})
    assert marked.status_code == 200
    assert marked.content == plain.content   # the standalone page's state holds the program
    assert BOM.encode() not in marked.content


def test_the_api_refuses_a_mark_further_on_at_its_line_and_column(client):
    r = client.post("/api/trace", json={"program": BOM + BOM + "a = 1.0\n"})
    assert r.status_code == 422
    assert {k: r.json()["error"][k] for k in ("kind", "line", "col")} == {
        "kind": "syntax", "line": 1, "col": 0}
    r = client.post("/api/trace", json={"program": "a = 1.0\nL = a *\ufeff 3.0\n"})
    assert r.status_code == 422
    assert (r.json()["error"]["line"], r.json()["error"]["col"]) == (2, 7)
    assert "U+FEFF" in r.json()["error"]["message"]
