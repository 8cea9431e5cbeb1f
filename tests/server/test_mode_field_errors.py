"""Errors about the fields of forward and hvp mode name the field and its place (issue 9,
section 6; found by a fresh review): a `# hvp:` or `# hessian:` line's error is located at
that line, a tangent or vector entry on a name that is not a leaf says what the name is, a
value of the wrong type names the field without pydantic's union member, and forward mode
refuses a program without leaves as hvp mode does."""
from __future__ import annotations

import pytest

HESSIAN_64 = "# hessian: full\nx = [" + ", ".join(["1.0"] * 64) + "]\nL = sum(x * x)\n"


def error(client, body: dict) -> dict:
    r = client.post("/api/trace", json=body)
    assert r.status_code == 422, r.text
    return r.json()["error"]


def test_an_hvp_line_naming_no_leaf_is_located_at_the_line(client):
    e = error(client, {"program": '# hvp: {"zz": 1}\na = 1.0\nL = a * a\n'})
    assert (e["kind"], e["line"], e["col"], e["end_col"]) == ("bad_argument", 1, 7, 16)
    assert e["message"].startswith("the `# hvp:` line (line 1): vector names `zz`")
    assert "its leaves: a" in e["message"]


def test_a_full_hessian_over_the_limit_is_located_at_the_hessian_line(client):
    e = error(client, {"program": HESSIAN_64})
    assert (e["kind"], e["line"], e["col"], e["end_col"]) == ("too_large", 1, 11, 15)
    assert "the `# hessian:` line (line 1)" in e["message"] and "this one has 64" in e["message"]


def test_a_wrong_shape_in_the_hvp_line_still_points_at_the_leaf(client):
    e = error(client, {"program": '# hvp: {"a": [1.0, 2.0]}\na = 1.0\nL = a * a\n'})
    assert (e["line"], e["col"]) == (2, 4) and "shape (2,)" in e["message"]


@pytest.mark.parametrize(("body", "says"), [
    ({"program": "x = const(2.0)\ny = 1.0\nL = x * y\n", "mode": "forward",
      "tangents": {"x": 1.0}}, "tangents names `x`, a constant (const(...)), not a leaf"),
    ({"program": "y = 1.0\nz = y * 2.0\nL = z * y\n", "mode": "hvp", "vector": {"z": 1.0}},
     "vector names `z`, a value the program computes, not a leaf"),
    ({"program": "y = 1.0\nL = y * y\n", "mode": "forward", "tangents": {"q": 1.0}},
     "tangents names `q`, which is not a leaf of the program"),
])
def test_an_entry_on_a_name_that_is_not_a_leaf_says_what_it_is(client, body, says):
    e = error(client, body)
    assert e["kind"] == "bad_argument" and e["message"].startswith(says)
    assert e["message"].endswith("(its leaves: y)")


@pytest.mark.parametrize("value, got", [("x", "a string"), (True, "true or false"),
                                        ({"a": 1}, "an object"), (None, "null")])
@pytest.mark.parametrize("field", ["tangents", "vector"])
def test_a_value_that_is_not_numbers_names_the_field_not_the_union_member(client, field, value,
                                                                         got):
    mode = "forward" if field == "tangents" else "hvp"
    e = error(client, {"program": "a = 1.0\nL = a * a\n", "mode": mode, field: {"a": value}})
    assert e["kind"] == "bad_request"   # and what it got (errfix14: lr "0.1" was told "...list")
    assert e["message"] == f"{field}.a: must be a number or a (nested) list of numbers, not {got}"


def test_output_grad_of_the_wrong_type_names_the_field(client):
    e = error(client, {"program": "a = [1.0, 2.0]\nL = a * a\n", "output_grad": "ones"})
    assert e["message"] == ("output_grad: must be a number or a (nested) list of numbers, not a "
                            "string")


def test_forward_mode_refuses_a_program_without_leaves_as_hvp_mode_does(client):
    for mode in ("forward", "hvp"):
        e = error(client, {"program": "x = const(2.0)\nL = x * x\n", "mode": mode})
        assert e["kind"] == "bad_argument" and "the program has none" in e["message"]


def test_a_bugs_line_in_forward_mode_is_said_to_be_ignored_not_dropped(client):
    r = client.post("/api/trace", json={"program": "# bugs: overwrite\na = 2.0\nb = 3.0\n"
                                                   "L = a * b + a\n", "mode": "forward"})
    assert r.status_code == 200
    body = r.json()
    assert body["jvp"] == 4.0   # dL/da = b + 1: the program's own, no bug
    (warning,) = body["warnings"]
    assert (warning["kind"], warning["line"], warning["col"]) == ("ignored", 1, 0)
    assert warning["message"].startswith("the `# bugs:` line (line 1) is not applied in forward mode")
    assert body["events"][-1]["narration"].startswith(
        "Done, with a warning: a line of the program was not applied in this mode. the `# bugs:`")
    # The request's own field is refused there, naming it.
    e = error(client, {"program": "a = 2.0\nL = a * a\n", "mode": "forward", "bugs": ["overwrite"]})
    assert e["message"].startswith("bugs:")
