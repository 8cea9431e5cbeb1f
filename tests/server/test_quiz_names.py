"""The quiz's names (the page state's `quiz`, "nodes:a,b") as the server checks them agree with
the page's check (static/js/quiz.js QUIZ_PATTERN): both run tests/cases/quiz_names.json (the
page's side in tests/js/quiz.test.mjs), whose `valid` is Python's own rule for a name."""
from __future__ import annotations

import json
import keyword
from pathlib import Path

import pytest
from pydantic import ValidationError

from gradwalk.server.pagestate import PageState, is_quiz

TABLE = json.loads((Path(__file__).parents[1] / "cases" / "quiz_names.json").read_text("utf-8"))


def test_the_table_says_what_python_reads_as_a_name():
    for row in TABLE["names"]:
        name = row["name"]
        assert row["valid"] == (name.isidentifier() and not keyword.iskeyword(name)), row
    # every keyword of this Python is in it (quiz.js KEYWORDS is Python's keyword.kwlist)
    assert set(keyword.kwlist) <= {row["name"] for row in TABLE["names"]}
    assert {True, False} <= {row["valid"] for row in TABLE["specs"]}


@pytest.mark.parametrize("row", TABLE["names"], ids=lambda row: repr(row["name"]))
def test_a_quiz_name_is_taken_as_the_table_says(row):
    spec = f"nodes:{row['name']}"
    assert is_quiz(spec) == row["valid"]
    try:
        kept = PageState.model_validate({"v": 1, "quiz": spec}).quiz == spec
    except ValidationError as e:
        assert "quiz: " in str(e)
        kept = False
    assert kept == row["valid"]


@pytest.mark.parametrize("row", TABLE["specs"], ids=lambda row: repr(row["spec"]))
def test_a_quiz_spec_is_taken_as_the_table_says(row):
    assert is_quiz(row["spec"]) == row["valid"]
