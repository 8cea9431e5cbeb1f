"""The bug lab (issue 9, section 4): each switch's wrong numbers against PyTorch doing the same
wrong thing (or the right thing, for the fix), the narration of the events it changes, the
gradient check flagging them; detach / stop_gradient and `with no_grad():` against PyTorch's;
in-place updates refused with PyTorch's own words; bad switches refused naming the field."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import narrate
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Tracer, run_trace
from gradwalk.server.presets import presets

PRESETS = {p["id"]: p["program"] for p in presets()}
FIRST = PRESETS["seed-tanh-fanout"]


def _bugged(text: str, *bugs: str, **kw) -> dict:
    return run_trace(text, options=Options(bugs=bugs, **kw))


def _first_in_torch():
    """The first preset in PyTorch (float64): its leaves, e, d and L."""
    a, b, c = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in (1.0, -0.5, 2.0))
    e = a * b
    d = e + a
    t = torch.tanh(d)
    return (a, b, c), e, d, t * c


def _path_shares():
    """ā's two contributions as PyTorch computes them: through d's direct edge, through e."""
    (a, b, c), e, d, L = _first_in_torch()
    d_bar, e_bar = torch.autograd.grad(L, (d, e), retain_graph=True)
    return float(d_bar), float(e_bar * b), [float(g) for g in torch.autograd.grad(L, (b, c))]


def _into(body: dict, node: str) -> list[dict]:
    return [e for e in body["events"] if e["kind"] == "accumulate" and e["input"] == node]


# ---- overwrite -------------------------------------------------------------------------------
def test_overwrite_keeps_only_the_last_write_a_gets_minus_0_7864():
    via_d, via_e, (b_grad, c_grad) = _path_shares()
    body = run_trace(PRESETS["bug-overwrite"])
    assert body["bugs"] == ["overwrite"]
    assert body["grads"]["a"] == pytest.approx(via_e, abs=1e-15)
    assert round(body["grads"]["a"], 4) == -0.7864          # not 0.7864
    assert body["grads"]["b"] == pytest.approx(b_grad, abs=1e-15)
    assert body["grads"]["c"] == pytest.approx(c_grad, abs=1e-15)
    # both numbers are on the page while stepping: 1.5729 after d's edge, then -0.7864
    steps = _into(body, "n0")   # into a
    assert [round(e["adjoint_after"], 4) for e in steps] == [1.5729, -0.7864]
    assert steps[0]["adjoint_after"] == pytest.approx(via_d, abs=1e-15)
    assert "bug" not in steps[0]                        # the first write: = and += agree
    assert steps[1]["bug"] == "overwrite"
    assert steps[1]["adjoint_before"] == pytest.approx(via_d, abs=1e-15)
    assert steps[1]["narration"].startswith("BUG overwrite: ā = -0.7864 replaces the 1.5729 "
                                            "it held (from d)")
    assert "ā += would give 0.7864" in steps[1]["narration"]


def test_overwrite_as_a_request_field_equals_the_program_line():
    directive = run_trace(PRESETS["bug-overwrite"])
    field = _bugged(FIRST, "overwrite")
    assert field["grads"] == directive["grads"] and field["bugs"] == ["overwrite"]


# ---- wrong order -----------------------------------------------------------------------------
def test_wrong_order_passes_on_incomplete_adjoints():
    (a, b, c), e, d, L = _first_in_torch()
    body = run_trace(PRESETS["bug-wrong-order"])
    # forward order: only the output's own inputs get anything; c's is PyTorch's
    assert body["grads"]["a"] == 0.0 and body["grads"]["b"] == 0.0
    assert body["grads"]["c"] == pytest.approx(float(torch.autograd.grad(L, c)[0]), abs=1e-15)
    visited = [e["node"] for e in body["events"] if e["kind"] == "accumulate"]
    assert visited == sorted(visited, key=lambda n: int(n[1:]))   # creation order
    bugged = [e for e in body["events"] if e.get("bug") == "wrong_order"]
    assert {e["node"] for e in bugged} == {"n3", "n4", "n5"}      # e, d, t
    assert all(e["upstream"] == 0.0 and e["contribution"] == 0.0 for e in bugged)
    t_edge = next(e for e in bugged if e["node"] == "n5")
    assert t_edge["narration"].startswith("BUG wrong_order: t is visited before its consumer "
                                          "L (forward order, not reverse topological), so its "
                                          "adjoint t̄ is still 0")


# ---- two passes ------------------------------------------------------------------------------
def test_no_zero_grad_doubles_pytorchs_accumulated_grads():
    (a, b, c), e, d, L = _first_in_torch()
    L.backward(retain_graph=True)
    L.backward()   # no zero_grad: .grad accumulates
    body = run_trace(PRESETS["bug-no-zero-grad"])
    for name, leaf in zip("abc", (a, b, c)):
        assert body["grads"][name] == pytest.approx(float(leaf.grad), abs=1e-15)
    seeds = [e for e in body["events"] if e["kind"] == "seed"]
    assert len(seeds) == 2 and "reset" not in seeds[0]
    assert seeds[1]["bug"] == "no_zero_grad" and set(seeds[1]["reset"]) == {"n3", "n4", "n5"}
    assert "ā = 0.7864, b̄ = 1.5729, c̄ = 0.4621" in seeds[1]["narration"]
    second = _into(body, "n0")[-2:]   # ā's two contributions in the second pass
    assert second[0]["adjoint_before"] == pytest.approx(0.7864477329659274, abs=1e-15)
    assert second[0]["bug"] == "no_zero_grad" and "bug" not in second[1]


def test_zero_grad_between_the_passes_gives_one_passs_gradients():
    (a, b, c), e, d, L = _first_in_torch()
    L.backward(retain_graph=True)
    for leaf in (a, b, c):
        leaf.grad.zero_()   # optimizer.zero_grad()
    L.backward()
    body = run_trace(PRESETS["bug-zero-grad"])
    assert body["grads"] == pytest.approx({n: float(x.grad) for n, x in zip("abc", (a, b, c))},
                                          abs=1e-15)
    seeds = [e for e in body["events"] if e["kind"] == "seed"]
    assert set(seeds[1]["reset"]) == {"n0", "n1", "n2", "n3", "n4", "n5"}
    assert seeds[1]["narration"].startswith("zero_grad(): every leaf's .grad is set to 0")
    assert not any(e.get("bug") for e in body["events"])


# ---- detach, stop_gradient, no_grad ----------------------------------------------------------
def _cut_in_torch(kind: str):
    a, b, c = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in (1.0, -0.5, 2.0))
    if kind == "detach":
        e = (a * b).detach()
    else:
        with torch.no_grad():
            e = a * b
    L = torch.tanh(e + a) * c
    L.backward()
    return {n: float(x.grad) if x.grad is not None else 0.0 for n, x in zip("abc", (a, b, c))}


@pytest.mark.parametrize("preset,kind", [("bug-detach", "detach"), ("bug-no-grad", "no_grad")])
def test_a_cut_path_equals_pytorchs(preset, kind):
    body = run_trace(PRESETS[preset])
    assert body["grads"] == pytest.approx(_cut_in_torch(kind), abs=1e-15)
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    cut = next(n for n in nodes.values() if n["name"] == "e")
    assert cut["requires_grad"] is False
    # the edge into the cut is in the graph, and no gradient crosses it
    assert any(e["target"] == cut["id"] for e in body["graph"]["edges"])
    assert not [e for e in body["events"] if e["kind"] == "accumulate"
                and e["node"] == cut["id"]]
    assert not _into(body, cut["id"])


def test_stop_gradient_is_detach():
    text = "x = 2.0\ny = stop_gradient(x) * x\n"
    body = run_trace(text)
    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    (x.detach() * x).backward()
    assert body["grads"]["x"] == float(x.grad) == 2.0
    assert body["graph"]["nodes"][1]["formula"] == "stop_gradient(x)"


def test_no_grad_block_is_listed_and_its_values_are_computed():
    body = run_trace(PRESETS["bug-no-grad"])
    block = body["graph"]["blocks"][0]
    assert block["kind"] == "no_grad" and len(block["nodes"]) == 1
    assert block["span"]["line"] == 5
    e = next(ev for ev in body["events"] if ev["kind"] == "evaluate"
             and ev["node"] == block["nodes"][0])
    assert e["value"] == -0.5


def test_no_grad_of_tensors_matches_pytorch():
    text = ("W = [[1.0, 2.0], [3.0, -1.0]]\nx = [0.5, -1.5]\nwith no_grad():\n"
            "    m = mean(W @ x)\nL = sum(tanh(W @ x - m))\n")
    body = run_trace(text)
    W = torch.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=torch.float64, requires_grad=True)
    x = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    with torch.no_grad():
        m = torch.mean(W @ x)
    torch.sum(torch.tanh(W @ x - m)).backward()
    np.testing.assert_allclose(body["grads"]["W"]["data"], W.grad.numpy(), atol=1e-14)
    np.testing.assert_allclose(body["grads"]["x"]["data"], x.grad.numpy(), atol=1e-14)


# ---- in place --------------------------------------------------------------------------------
def _torch_error(run) -> str:
    with pytest.raises(RuntimeError) as e:
        run()
    return str(e.value)


def _ours(text: str, output: str | None = None) -> ProgramError:
    with pytest.raises(ProgramError) as e:
        Tracer(text, output)
    return e.value


def _first_sentence(message: str) -> str:
    return message[:message.index("instead.") + len("instead.")]


def test_inplace_on_a_saved_output_raises_pytorchs_error_at_the_update():
    text = PRESETS["bug-inplace"].split("\n", 3)[3]   # without the `# bugs:` line
    e = _ours(text)

    def run():
        (a, b, c), _, d, _ = _first_in_torch()
        t = torch.tanh(d)
        t += 1.0
        (t * c).backward()
    assert e.message == _first_sentence(_torch_error(run))
    assert e.message.endswith("[torch.DoubleTensor []], which is output 0 of Tanh, is at "
                              "version 1; expected version 0 instead.")
    assert (e.kind, e.line, e.col, e.end_line, e.end_col) == ("inplace", 7, 0, 7, 8)
    assert "t = tanh(d) (line 6) saved t" in e.hint


def test_inplace_on_a_saved_input_names_its_grad_fn_now():
    text = "x = [1.0, 2.0]\ny = x * 2.0\nz = y * y\ny += 1.0\n"
    e = _ours(text, "z")

    def run():
        x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        y = x * 2.0
        z = y * y
        y += 1.0
        z.sum().backward()
    assert e.message == _first_sentence(_torch_error(run))
    assert "[torch.DoubleTensor [2]], which is output 0 of Add, is at version 1" in e.message
    assert (e.line, e.col) == (4, 0)


def test_inplace_on_a_saved_constant_and_twice():
    e = _ours("x = 1.0\nc = const(3.0)\ny = x * c\nc += 1.0\nc *= 2.0\n", "y")

    def run():
        x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
        c = torch.tensor(3.0, dtype=torch.float64)
        y = x * c
        c += 1.0
        c *= 2.0
        y.backward()
    assert e.message == _first_sentence(_torch_error(run))
    assert e.message.endswith("[torch.DoubleTensor []] is at version 2; expected version 0 "
                              "instead.")
    assert e.line == 5   # the update that made the version the rule finds


def test_inplace_on_a_leaf_is_refused_as_pytorch_refuses_it():
    e = _ours("a = 1.0\nb = a * 2.0\na += 1.0\n")

    def run():
        a = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
        a += 1.0
    assert e.message == _torch_error(run)
    assert (e.kind, e.line, e.col) == ("inplace", 3, 0)


def test_inplace_that_no_rule_minds_traces_as_pytorch():
    text = "x = 1.0\ny = x * 3.0\nz = y + 1.0\ny += 2.0\nw = y * z\n"   # add saves nothing
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x * 3.0
    z = y + 1.0
    y += 2.0
    (y * z).backward()
    assert run_trace(text)["grads"]["x"] == pytest.approx(float(x.grad), abs=1e-14)


def test_inplace_of_what_a_rule_did_not_keep_traces_as_pytorch():
    """mul keeps only what the vjps of its inputs that require grad need: `x * c` with a
    constant c keeps c, so updating x in place afterwards is fine (PyTorch agrees)."""
    text = "x0 = 1.0\nx = x0 * 1.0\nc = const(3.0)\ny = x * c\nx += 1.0\nL = y * 1.0\n"
    x0 = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    x = x0 * 1.0
    y = x * torch.tensor(3.0, dtype=torch.float64)
    x += 1.0
    (y * 1.0).backward()
    assert run_trace(text)["grads"]["x0"] == float(x0.grad) == 3.0


def test_inplace_switch_gives_the_silently_wrong_gradient():
    body = run_trace(PRESETS["bug-inplace"])
    # an engine without a version counter: tanh's rule reads t + 1 where it saved t
    a, b, c = 1.0, -0.5, 2.0
    t_new = np.tanh(a * b + a) + 1.0
    d_bar = (1 - t_new ** 2) * c
    assert body["grads"]["a"] == pytest.approx(d_bar * (1 + b), abs=1e-14)
    assert body["grads"]["b"] == pytest.approx(d_bar * a, abs=1e-14)
    assert round(body["grads"]["a"], 4) == -1.1378
    bugged = [e for e in body["events"] if e.get("bug") == "inplace"]
    assert [e["node"] for e in bugged] == ["n5"]   # tanh's edge
    assert bugged[0]["narration"].startswith(
        "BUG inplace: the rule of t = tanh(d) reads t = 1.4621, but it saved t = 0.4621: t was "
        "updated in place on line 10 (version 1; the rule saved version 0)")
    # the forward values are untouched: t is 0.4621 in its evaluate event
    assert next(e["value"] for e in body["events"] if e["kind"] == "evaluate"
                and e["node"] == "n5") == pytest.approx(0.46211715726000974)


# ---- the gradient check flags every bug ------------------------------------------------------
@pytest.mark.parametrize("preset,bad", [("bug-overwrite", {"a"}), ("bug-wrong-order", {"a", "b"}),
                                        ("bug-no-zero-grad", {"a", "b", "c"}),
                                        ("bug-inplace", {"a", "b"}),   # c̄ = t' is right
                                        ("bug-zero-grad", set()),
                                        # a cut path: the gradient is not the derivative of
                                        # the function the central differences see (as
                                        # torch.autograd.gradcheck would say too)
                                        ("bug-detach", {"a", "b"}), ("bug-no-grad", {"a", "b"}),
                                        ("seed-tanh-fanout", set())])
def test_the_gradient_check_flags_each_bugs_wrong_numbers(preset, bad):
    body = run_trace(PRESETS[preset], options=Options(check=True))
    assert {name for name, r in body["gradcheck"].items() if not r["ok"]} == bad


# ---- bad input -------------------------------------------------------------------------------
def _refused(text: str, **kw) -> ProgramError:
    with pytest.raises(ProgramError) as e:
        Tracer(text, options=Options(**kw))
    return e.value


def test_an_unknown_switch_names_the_field_and_lists_the_switches():
    e = _refused(FIRST, bugs=("overwrit",))
    assert e.kind == "bad_argument" and e.line is None
    assert e.message == ("bugs: unknown switch `overwrit`; the switches are overwrite, "
                         "wrong_order, no_zero_grad, zero_grad, inplace")


def test_bad_bug_lines_are_located():
    e = _refused("# bugs: overwrite, nope\n" + FIRST)
    assert (e.kind, e.line, e.col, e.end_col) == ("bad_argument", 1, 19, 23)
    e = _refused("a = 1.0\n# bugs: overwrite\nb = a * a\n")
    assert (e.line, e.col) == (2, 8) and "before the program's first statement" in e.message
    e = _refused("# bugs:\n" + FIRST)
    assert e.line == 1 and "names no switch" in e.message
    e = _refused("# bugs: no_zero_grad, zero_grad\n" + FIRST)
    assert (e.line, e.col, e.end_col) == (1, 0, 31) and "cannot both be on" in e.message


@pytest.mark.parametrize("text,switch,why", [
    ("a = 1.0\nb = 2.0\nL = tanh(a * b)\n", "overwrite", "no fan-out"),
    ("a = 1.0\nb = 2.0\nL = a * b\n", "wrong_order", "no op but the output"),
    ("a = const(1.0)\nL = a * 2.0\n", "zero_grad", "no leaf gets a gradient"),
    (FIRST, "inplace", "it has no in-place update"),
    ("x = 1.0\ny = x * 3.0\nz = y + 1.0\ny += 2.0\nw = y * z\n", "inplace",
     "changes a tensor that a backward rule saved"),
])
def test_a_switch_that_changes_nothing_is_refused(text, switch, why):
    field = _refused(text, bugs=(switch,))
    assert field.kind == "bad_argument" and field.line is None
    assert field.message.startswith(f"bugs: `{switch}` changes nothing in this program: ")
    assert why in field.message
    line = _refused(f"# bugs: {switch}\n" + text)
    assert (line.line, line.col, line.end_line, line.end_col) == (1, 0, 1, 8 + len(switch))
    assert line.message == field.message


def test_switches_belong_to_the_reverse_walk():
    e = _refused(FIRST, bugs=("overwrite",), mode="forward")
    assert e.kind == "bad_argument" and "bugs:" in e.message and "forward" in e.message
    # a program's own line is ignored in forward mode: the program runs as written
    body = run_trace(PRESETS["bug-overwrite"], options=Options(mode="forward",
                                                               tangents={"a": 1}))
    assert body["jvp"] == pytest.approx(0.7864477329659274, abs=1e-12)


# ---- the correct walk is untouched -----------------------------------------------------------
def test_without_a_switch_no_event_mentions_a_bug():
    tracer = Tracer(FIRST)
    assert tracer.lab is None
    events = list(tracer.records())
    assert not any("bug" in e or "reset" in e for e in events)
    assert "bugs" not in events[-1]


def test_bug_events_are_valid_models():
    for preset in ("bug-overwrite", "bug-no-zero-grad", "bug-inplace", "bug-wrong-order"):
        events = list(Tracer(PRESETS[preset]).events())
        assert any(getattr(e, "bug", None) for e in events)
        assert events[-1].bugs


# ---- golden traces ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["bug-overwrite", "bug-no-zero-grad"])
def test_bug_preset_matches_golden(preset):
    """The whole body of a bug preset (regenerate as tests/engine/test_golden.py says)."""
    import json
    import os
    from pathlib import Path

    body = run_trace(PRESETS[preset])
    path = Path(__file__).parents[1] / "golden" / f"{preset}.json"
    if os.environ.get("GRADWALK_REGEN_GOLDEN"):
        path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert body == json.loads(path.read_text(encoding="utf-8"))


def test_an_inplace_update_keeps_its_shape_as_pytorch_says():
    e = _ours("x = const([1.0, 2.0])\nW = [[1.0, 2.0], [3.0, 4.0]]\nx += W\nL = sum(x)\n")

    def run():
        x = torch.tensor([1.0, 2.0], dtype=torch.float64)
        x += torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    assert e.message == _torch_error(run)
    assert (e.kind, e.line, e.col, e.end_col) == ("shape", 3, 0, 6)


def test_two_passes_count_against_the_response_limit():
    from gradwalk.engine.trace.runner import Limits

    text = "a = 1.0\n" + "a = a * 1.0001 + 0.001\n" * 500
    # one pass is about 1.46 MB, two about 1.85 MB (the estimate refused 2.5 MB before it
    # counted the second pass's events as they are, issue 14 §6)
    limits = Limits(max_response_bytes=1_750_000)
    assert run_trace(text, limits=limits)["grads"]["a"] > 0   # one pass fits
    with pytest.raises(ProgramError) as e:
        Tracer("# bugs: no_zero_grad\n" + text, limits=limits)
    assert e.value.kind == "too_large" and "max_response_bytes" in e.value.message


def test_no_zero_grad_on_a_leaf_output_doubles_it_as_pytorch():
    """`L = 1.0` differentiated twice: L.grad is 1 + 1 (fuzz finding: the second seed
    replaced the first pass's .grad)."""
    L = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    L.backward()
    L.backward()
    body = _bugged("L = 1.0\n", "no_zero_grad")
    assert body["grads"]["L"] == float(L.grad) == 2.0
    assert [e["adjoint"] for e in body["events"] if e["kind"] == "seed"] == [1.0, 2.0]


# ---- cut paths said where the walk meets them, and warned about (review finding) ------------
def _uncut_in_torch():
    """The first preset's gradients in PyTorch without the cut: the function's derivatives."""
    (a, b, c), e, d, L = _first_in_torch()
    return dict(zip("abc", (float(g) for g in torch.autograd.grad(L, (a, b, c)))))


@pytest.mark.parametrize("preset,kind", [("bug-detach", "detach"), ("bug-no-grad", "no_grad")])
def test_a_cut_is_narrated_where_the_walk_meets_it_and_warned_about(preset, kind):
    body = run_trace(PRESETS[preset])
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    e = next(n for n in nodes.values() if n["name"] == "e")
    d = next(n for n in nodes.values() if n["name"] == "d")
    # the first accumulate event of d, the consumer of the cut value e, says so
    first_of_d = next(ev for ev in body["events"] if ev["kind"] == "accumulate"
                      and ev["node"] == d["id"])
    assert first_of_d["cut"] == [e["id"]]
    said = first_of_d["narration"]
    assert said.startswith("d = e + a, so ā += 1 · d̄ = 1 · 1.5729 = 1.5729. ".replace(
        "ā", narrate.bar("a", "L")).replace("d̄", narrate.bar("d", "L")))
    if kind == "detach":
        assert "e = detach(a * b) cuts the path here: no gradient flows back through e to " \
               "a * b, so a, b get nothing through it" in said
    else:
        assert "e = a * b was computed under no_grad() (line 6, col 9): no graph was " \
               "recorded, so no gradient flows back through e, and a, b get nothing " \
               "through it" in said
    assert sum("cut" in ev for ev in body["events"]) == 1
    # one warning, at e, and the numbers it warns about really differ from the derivatives
    (warning,) = body["warnings"]
    assert warning["kind"] == "cut" and warning["node"] == e["id"] and warning["field"] is None
    assert {k: warning[k] for k in ("line", "col", "end_line", "end_col")} == e["span"]
    assert "so they are not the derivatives of L" in warning["message"]
    assert "the gradients of a, b miss what flows through e" in warning["message"]
    uncut = _uncut_in_torch()
    assert body["grads"]["a"] != pytest.approx(uncut["a"], abs=1e-3)
    assert body["grads"]["b"] != pytest.approx(uncut["b"], abs=1e-3)
    assert body["grads"]["c"] == pytest.approx(uncut["c"], abs=1e-15)   # c is not cut off
    done = body["events"][-1]
    assert done["narration"].startswith("Done, with a warning: a path to the output is cut, "
                                        "so these gradients are not the function's "
                                        "derivatives. ")
    assert warning["message"] in done["narration"]


def test_no_grad_nodes_are_marked_recorded_false_and_no_others():
    body = run_trace(PRESETS["bug-no-grad"])
    marked = [n["name"] for n in body["graph"]["nodes"] if "recorded" in n]
    assert marked == ["e"] and body["graph"]["nodes"][3]["recorded"] is False
    for preset in ("bug-detach", "seed-tanh-fanout"):
        assert not [n for n in run_trace(PRESETS[preset])["graph"]["nodes"] if "recorded" in n]


def test_a_cut_output_is_said_at_the_seed_and_every_gradient_is_0():
    body = run_trace("x = 2.0\nL = detach(x) * 2\n")
    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    assert not (x.detach() * 2).requires_grad   # PyTorch: nothing to call backward() on
    assert body["grads"] == {"x": 0.0}
    seed = next(ev for ev in body["events"] if ev["kind"] == "seed")
    assert seed["narration"].endswith("But the output itself is cut off: it reaches the inputs "
                                      "only through detach(x) (line 2, col 5), where the path "
                                      "is cut, so no gradient flows back from it and every "
                                      "gradient is 0")
    assert [w["node"] for w in body["warnings"]] == ["n1"]


def test_a_cut_the_output_does_not_depend_on_gives_no_warning():
    body = run_trace("x = 2.0\nz = detach(x)\nL = x * 2\n")
    # z is not used by L (issue 14: said, as "unused"), but no path to L is cut
    assert [w["kind"] for w in body["warnings"]] == ["unused"]
    assert "cut" not in body["events"][-1]["narration"]
    assert not any("cut" in ev for ev in body["events"])


def test_a_value_downstream_of_a_cut_names_the_cut():
    text = "x = 2.0\nw = 3.0\nt = tanh(stop_gradient(x * w))\nL = t * w\n"
    body = run_trace(text)
    x, w = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, 3.0))
    (torch.tanh((x * w).detach()) * w).backward()
    assert body["grads"] == {"x": 0.0, "w": pytest.approx(float(w.grad), abs=1e-15)}
    (first,) = [ev for ev in body["events"] if "cut" in ev]
    assert first["cut"] == ["n4"]   # t
    assert first["narration"].endswith("t reaches the inputs only through stop_gradient(x * w) "
                                       "(line 3, col 10), where the path is cut: no gradient "
                                       "flows back through t, so x, w get nothing through it")


def test_cut_warnings_also_in_forward_mode_with_the_reason_for_a_zero_tangent():
    body = run_trace(PRESETS["bug-no-grad"], options=Options(mode="forward"))
    assert [w["kind"] for w in body["warnings"]] == ["cut"]
    e = next(ev for ev in body["events"] if ev["node"] == "n3")
    assert e["tangent"] == 0.0
    assert "computed under no_grad(), which records no graph and carries no tangent" in \
        e["narration"]
