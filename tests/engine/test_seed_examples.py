"""The seed examples through the engine, against PyTorch float64 values (tests/cases)."""
from __future__ import annotations

import pytest

from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from helpers import assert_intermediates, assert_matches_case, case


def test_seed_case_output_and_gradients(seed_case):
    body = run_trace(seed_case["program"])
    assert_matches_case(body, seed_case)
    assert_intermediates(body, seed_case)


def test_tanh_fanout_intermediate_adjoints_and_both_contributions_to_a():
    c = case("seed-tanh-fanout")
    body = run_trace(c["program"])
    assert c["expect"]["adjoints"] and c["expect"]["fan_out"]
    assert_intermediates(body, c)
    labels = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    into_a = [e for e in body["events"] if e["kind"] == "accumulate" and labels[e["input"]] == "a"]
    # the two contributions arrive one after the other and add up (+=)
    first, second = into_a
    assert first["adjoint_before"] == 0.0
    assert second["adjoint_before"] == pytest.approx(first["adjoint_after"], abs=1e-15)
    assert second["adjoint_after"] == pytest.approx(0.7864477329659274, abs=1e-9)
    assert "a\u0304 = 1.5729 + (-0.7864) = 0.7864" in second["narration"]


def test_narration_states_rule_with_numbers():
    body = run_trace(case("seed-tanh-fanout")["program"])
    texts = [e["narration"] for e in body["events"] if e["kind"] == "accumulate"]
    bar = "\u0304"   # combining macron: d̄ is "d" + bar
    assert f"t = tanh(d), so d{bar} += (1 - t²) · t{bar} = 0.7864 · 2 = 1.5729" in texts


def test_event_sequence_shape():
    body = run_trace(case("seed-tanh-fanout")["program"])
    kinds = [e["kind"] for e in body["events"]]
    assert kinds == ["evaluate"] * 7 + ["seed"] + ["accumulate"] * 7 + ["done"]
    assert [e["seq"] for e in body["events"]] == list(range(len(kinds)))
    # the results are written once: at the body's top level, not again in its done event
    assert body["events"][-1] == {"seq": len(kinds) - 1, "kind": "done"}
    assert set(body["grads"]) == {"a", "b", "c"} and body["output"]["name"] == "L"


def test_broadcast_bias_emits_unbroadcast_with_summed_axes():
    body = run_trace(case("seed-bias-broadcast")["program"])
    (ub,) = [e for e in body["events"] if e["kind"] == "unbroadcast"]
    assert ub["from_shape"] == [3, 2] and ub["to_shape"] == [2] and ub["axes"] == [0]
    before, after = decode(ub["before"]), decode(ub["after"])
    assert after == pytest.approx(before.sum(axis=0), abs=1e-15)
    assert after == pytest.approx(case("seed-bias-broadcast")["expect"]["grads"]["b"], abs=1e-9)


def test_constants_get_no_gradient_and_no_edge_events():
    body = run_trace(case("seed-sigmoid-net")["program"])
    ids = {n["label"]: n["id"] for n in body["graph"]["nodes"]}
    assert "y" not in body["grads"]
    assert not [e for e in body["events"] if e["kind"] == "accumulate" and e["input"] == ids["y"]]


def test_reassigned_name_is_a_new_node_labelled_with_a_prime():
    body = run_trace("c = 2.0\nc = c * c\nc = c + 1\n")
    labels = [n["label"] for n in body["graph"]["nodes"]]
    assert labels[0] == "c" and "c'" in labels and "c''" in labels
    assert decode(body["grads"]["c"]) == pytest.approx(4.0)   # d(c^2 + 1)/dc = 2c


def test_same_input_twice_gives_two_edges_and_sums():
    body = run_trace("a = 3.0\nb = a * a\n")
    edges = [(e["source"], e["target"], e["arg"]) for e in body["graph"]["edges"]]
    assert edges == [("n0", "n1", 0), ("n0", "n1", 1)]
    assert body["grads"]["a"] == 6.0


def test_value_used_twice_is_one_node_with_two_out_edges():
    body = run_trace(case("seed-tanh-fanout")["program"])
    a = next(n["id"] for n in body["graph"]["nodes"] if n["label"] == "a")
    assert len([n for n in body["graph"]["nodes"] if n["label"] == "a"]) == 1
    assert sorted(e["target"] for e in body["graph"]["edges"] if e["source"] == a) == ["n3", "n4"]


def test_spans_point_at_the_source():
    text = "x = 2.0\ny = tanh(x) * 3\n"
    body = run_trace(text)
    lines = text.split("\n")
    for n in body["graph"]["nodes"]:
        s = n["span"]
        assert s["line"] == s["end_line"]
    tanh = next(n for n in body["graph"]["nodes"] if n["op"] == "tanh")
    s = tanh["span"]
    assert lines[s["line"] - 1][s["col"]:s["end_col"]] == "tanh(x)"


def test_unicode_names_have_character_columns():
    body = run_trace("α = 1.0\nβ = α * 2\n")
    mul = next(n for n in body["graph"]["nodes"] if n["op"] == "mul")
    assert mul["span"] == {"line": 2, "col": 4, "end_line": 2, "end_col": 9}


def test_nonfinite_numbers_are_strings():
    body = run_trace("x = 0.0\ny = log(x) * 1\n")
    assert body["output"]["value"] == "-Infinity"
    assert body["grads"]["x"] == "Infinity"
    body = run_trace("x = [0.0, -1.0, 4.0]\ny = sum(sqrt(x))\n")
    assert body["output"]["value"] == "NaN"
    assert body["grads"]["x"]["data"] == ["Infinity", "NaN", 0.25]


def test_large_tensors_carry_a_summary_without_data_but_final_grads_in_full():
    big = "[" + ", ".join(["1.0"] * 100) + "]"
    body = run_trace(f"x = {big}\nL = sum(x * x)\n")
    ev = next(e for e in body["events"] if e["kind"] == "evaluate" and e["node"] == "n0")
    assert ev["value"]["data"] is None and ev["value"]["shape"] == [100]
    assert ev["value"]["summary"] == {"min": 1.0, "max": 1.0, "mean": 1.0, "norm": 10.0}
    assert body["grads"]["x"]["data"] == [2.0] * 100


def test_output_can_be_named():
    body = run_trace("a = 2.0\nb = a * 3\nc = b * b\n", output="b")
    assert body["output"] == {"name": "b", "node": "n2", "value": 6.0}
    assert body["grads"]["a"] == 3.0


def test_tensor_output_is_seeded_with_ones():
    body = run_trace("x = [1.0, 2.0]\ny = x * x\n")
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert seed["adjoint"]["data"] == [1.0, 1.0]
    assert body["grads"]["x"]["data"] == [2.0, 4.0]


def test_long_unnamed_expressions_get_a_shortened_label():
    body = run_trace('z = [-2.0, 1.0]\nL = sum(gelu(z, approximate="tanh"))\n')
    gelu = next(n for n in body["graph"]["nodes"] if n["op"] == "gelu")
    assert gelu["label"] == "gelu(z, approximate…)"   # issue 14: cut between tokens, closed


def test_reductions_over_an_axis_say_so():
    body = run_trace("x = [[1.0, 2.0], [3.0, 4.0]]\nL = sum(x, axis=0)\nM = mean(L)\n")
    assert [n["formula"] for n in body["graph"]["nodes"]][1:] == ["L = sum(x, axis=0)", "M = mean(L)"]
    texts = [e["narration"] for e in body["events"] if e["kind"] == "accumulate"]
    assert texts[-1] == ("L = sum(x, axis=0), so x\u0304 += L\u0304 copied to axis 0 of x"
                         ", shape 2×2 = [[0.5, 0.5], [0.5, 0.5]]")   # the shape sent back
    assert body["grads"]["x"]["data"] == [[0.5, 0.5], [0.5, 0.5]]
