"""Issue 14 §4: a character pasted from slides or a PDF that Python refuses (a non-breaking
space U+00A0, a typeset minus U+2212, curly quotes) was "Line 2, column 8: invalid
non-printable character U+00A0" with no hint. The error keeps Python's message and its exact
line and column, and says what the character is and what to type instead, in the API and the
CLI. (A byte-order mark at the very start is read: tests/server/test_bom.py.)"""
from __future__ import annotations

import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "gradwalk.server.cli"]
NBSP_HINT = ("a non-breaking space (U+00A0), as pasted from slides or a PDF: replace it with "
             "a space")

# (program, line, col (0-based), Python's message, the hint's start)
PASTED = [
    ("a = 1.0\nL = a *\u00a02.0\n", 2, 7, "invalid non-printable character U+00A0", NBSP_HINT),
    ("a = 1.0\nb = \u00e9\u00e9 + a *\u00a02.0\n", 2, 12,
     "invalid non-printable character U+00A0", NBSP_HINT),   # columns count characters
    ("a = 1.0\nL = a \u2212 1.0\n", 2, 6, "invalid character '\u2212' (U+2212)",
     "a minus sign (U+2212), as typeset in slides or a PDF: replace it with -"),
    ("a = 2.0\nL = a \u00d7 a\n", 2, 6, "invalid character '\u00d7' (U+00D7)",
     "a multiplication sign (U+00D7), as typeset in slides or a PDF: replace it with *"),
    ("a = 1.0\u200b\nL = a\n", 1, 7, "invalid non-printable character U+200B",
     "a zero-width space (U+200B), as pasted from a web page or a PDF: delete it"),
    ("a = 1.0\nL = a *\u202f2.0\n", 2, 7, "invalid non-printable character U+202F",
     "a narrow non-breaking space (U+202F), as pasted from slides or a PDF: replace it with "
     "a space"),
]


@pytest.mark.parametrize("text, line, col, message, hint", PASTED)
def test_the_api_locates_a_pasted_character_and_says_what_to_type(client, text, line, col,
                                                                  message, hint):
    r = client.post("/api/trace", json={"program": text})
    assert r.status_code == 422
    error = r.json()["error"] if "error" in r.json() else r.json()
    assert error["kind"] == "syntax" and error["message"] == message
    assert (error["line"], error["col"]) == (line, col)
    assert error["hint"] == hint


def test_the_cli_prints_the_hint_after_the_place(tmp_path):
    path = tmp_path / "slides.py"
    path.write_text(PASTED[0][0], encoding="utf-8")
    r = subprocess.run([*CLI, "trace", str(path)], capture_output=True, timeout=120)
    assert r.returncode == 1
    assert r.stderr.decode() == (f"gradwalk: {path}: line 2, column 8: syntax error: invalid "
                                 f"non-printable character U+00A0 ({NBSP_HINT})\n")


def test_a_non_breaking_space_in_a_comment_is_the_programs_own(client):
    """Inside a comment U+00A0 is no error (Python reads it as text)."""
    text = 'a = 1.0   # 2\u00a0\u00d7\u00a0a\nL = a * 2.0\n'
    r = client.post("/api/trace", json={"program": text})
    assert r.status_code == 200, r.text
