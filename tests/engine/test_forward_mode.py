"""Forward mode (issue 9, section 1): tangents carried forward with each op's jvp, against
torch.func.jvp (float64) on every preset and on tensor programs; node by node; the whole
Jacobian by n forward passes and by m reverse passes; PyTorch's numbers at points where a rule
is not differentiable; bad tangents; the golden trace of the first preset."""
from __future__ import annotations

import json
import math
import os
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import torch_program
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import forward_text
from gradwalk.engine.trace.events import EVENTS
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Tracer, body_events, run_trace
from gradwalk.engine.trace.values import decode
from gradwalk.server.presets import presets

# the bug lab's presets change the reverse walk only, and refuse forward mode (bugs.py)
PRESETS = {p["id"]: p["program"] for p in presets() if not p["id"].startswith("bug-")}
FIRST = PRESETS["seed-tanh-fanout"]
GOLDEN = Path(__file__).parents[1] / "golden" / "seed-tanh-fanout-forward.json"
FORWARD = Options(mode="forward")

TENSOR_PROGRAMS = {
    "broadcast-sigmoid": "x = [1.0, -2.0, 0.5]\nW = [[0.5, -1.0, 2.0], [0.3, 0.2, -0.4]]\n"
                         "b = [0.1, -0.3]\ny = sigmoid(W @ x + b)\nL = sum(y * y)\n",
    "softmax-log": "z = [[2.0, 1.0, 0.0], [0.5, -1.0, 3.0]]\np = softmax(z)\n"
                   "L = sum(log(p) * p)\n",
    "div-pow-exp": "a = [1.5, 2.0]\nb = [0.5, -3.0]\nc = a / b + a ** 2 - exp(b)\n"
                   "L = mean(c * c)\n",
    "reshape-index": "x = [[1.0, 2.0, 3.0], [4.0, -1.0, 0.5]]\ny = reshape(x, 3, 2)\n"
                     "z = y[1:, 0] * y.T[1, :2]\nL = sum(tanh(z))\n",
}


def _rng_tangents(text: str, seed: int = 0) -> dict[str, np.ndarray]:
    """A random tangent for every leaf (seeded)."""
    _, names, primals = torch_program.torch_function(text)
    rng = np.random.default_rng(seed)
    return {n: rng.standard_normal(tuple(p.shape)) for n, p in zip(names, primals)}


def _forward(text: str, tangents=None, **kw) -> dict:
    tangents = None if tangents is None else {k: np.asarray(v).tolist()
                                              for k, v in tangents.items()}
    return run_trace(text, options=Options(mode="forward", tangents=tangents, **kw))


# ---- the Jacobian-vector product against torch.func.jvp ---------------------------------------
@pytest.mark.parametrize("name", [*PRESETS, *TENSOR_PROGRAMS])
def test_jvp_equals_torch_func_jvp(name):
    text = PRESETS.get(name) or TENSOR_PROGRAMS[name]
    tangents = _rng_tangents(text)
    body = _forward(text, tangents)
    value, want = torch_program.jvp(text, tangents)
    np.testing.assert_allclose(decode(body["jvp"]), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(decode(body["output"]["value"]), value, rtol=1e-12, atol=1e-12)
    assert body["passes"]["direction"] == "the given tangents"


@pytest.mark.parametrize(("tangents", "direction"), [
    ({"W": [[0, 0], [0, 1]]}, "∂/∂W[1, 1]"), ({"b": 1.0}, "∂/∂b"),
    ({"W": [[0, 0], [0, 1]], "b": 0.0}, "∂/∂W[1, 1]"), ({"W": [[0, 0], [0, 2]]}, "the given tangents"),
    ({"W": [[0, 1], [0, 1]]}, "the given tangents"), ({"W": [[0, 0], [0, 0]]}, "the given tangents"),
])
def test_a_given_one_hot_tangent_is_named_as_its_jacobian_column(tangents, direction):
    body = _forward("W = [[1.0, 2.0], [3.0, 4.0]]\nb = 2.0\nL = sum(W * W) * b\n", tangents)
    assert body["passes"]["direction"] == direction


@pytest.mark.parametrize("name", ["seed-tanh-fanout", "seed-sigmoid-net", "seed-matmul-2x2",
                                  "seed-bias-broadcast", "layer-norm", "broadcast-sigmoid"])
def test_every_nodes_tangent_equals_torch(name):
    text = PRESETS.get(name) or TENSOR_PROGRAMS[name]
    tangents = _rng_tangents(text, seed=1)
    body = _forward(text, tangents)
    values, want = torch_program.jvp(text, tangents, every_node=True)
    events = [e for e in body["events"] if e["kind"] == "tangent"]
    assert [e["node"] for e in events] == [n["id"] for n in body["graph"]["nodes"]]
    for e, v, t in zip(events, values, want):
        np.testing.assert_allclose(decode(e["value"]), v, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(decode(e["tangent"]), t, rtol=1e-10, atol=1e-10,
                                   err_msg=e["node"])


def test_first_preset_node_by_node_with_dual_numbers():
    body = _forward(FIRST)
    by_label = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    t = {by_label[e["node"]]: decode(e["tangent"]) for e in body["events"]
         if e["kind"] == "tangent"}
    th = math.tanh(0.5)
    assert t == pytest.approx({"a": 1.0, "b": 0.0, "c": 0.0, "e": -0.5, "d": 0.5,
                               "t": (1 - th * th) * 0.5, "L": 2 * (1 - th * th) * 0.5})
    text = {by_label[e["node"]]: unicodedata.normalize("NFC", e["narration"])
            for e in body["events"] if e["kind"] == "tangent"}
    assert text["a"] == "a = 1 + 1ε: a is the input we differentiate by, so ȧ = ∂a/∂a = 1"
    assert text["e"] == "e = a * b, so ė = ȧ·b + a·ḃ = 1·(-0.5) + 1·0 = -0.5; e = -0.5 - 0.5ε"
    assert text["t"] == "t = tanh(d), so ṫ = (1 - t²)·ḋ = 0.7864·0.5 = 0.3932; " \
                        "t = 0.4621 + 0.3932ε"
    rules = {by_label[e["node"]]: unicodedata.normalize("NFC", e["rule"])
             for e in body["events"] if e["kind"] == "tangent"}
    assert rules["d"] == "ḋ = ė + ȧ" and rules["b"] == "ḃ = 0"
    # dL/da by forward mode is the reverse-mode gradient's a entry (one column of J)
    assert decode(body["jvp"]) == pytest.approx(decode(body["grads"]["a"]), abs=1e-15)
    assert body["passes"] == {"direction": "∂/∂a", "inputs": 3, "outputs": 1, "forward": 3,
                              "reverse": 1}


def test_default_tangent_of_a_tensor_leaf_is_its_first_element():
    text = PRESETS["seed-matmul-2x2"]
    body = _forward(text)
    one_hot = np.zeros((2, 2))
    one_hot[0, 0] = 1.0
    _, want = torch_program.jvp(text, {"X": one_hot})
    assert decode(body["jvp"]) == pytest.approx(float(want), abs=1e-12)
    assert body["passes"]["direction"] == "∂/∂X[0, 0]"
    first = body["events"][0]
    assert decode(first["tangent"]).tolist() == [[1.0, 0.0], [0.0, 0.0]]


def test_reverse_mode_is_unchanged_and_has_no_forward_fields():
    body = run_trace(FIRST)
    assert "jvp" not in body and "all_forward" not in body and "gradcheck" not in body
    assert {e["kind"] for e in body["events"]} == {"evaluate", "seed", "accumulate", "done"}


def test_typed_events_and_body_events_carry_the_results():
    events = list(Tracer(FIRST, options=FORWARD).events())
    assert [e.kind for e in events] == ["tangent"] * 7 + ["done"]
    assert events[-1].jvp == pytest.approx(0.7864477329659274)
    body = _forward(FIRST)
    assert body["events"][-1] == {"seq": 7, "kind": "done"}
    done = body_events(body)[-1]
    assert done["jvp"] == body["jvp"] and done["all_forward"] == body["all_forward"]
    EVENTS.validate_python(body_events(body))


# ---- all n forward passes and the whole Jacobian ----------------------------------------------
@pytest.mark.parametrize("name", ["seed-tanh-fanout", "seed-sigmoid-net", "seed-matmul-2x2",
                                  "linear-layer", "layer-norm"])
def test_all_forward_passes_agree_with_reverse_mode(name):
    text = PRESETS[name]
    body = _forward(text)
    every = body["all_forward"]
    n = sum(np.size(decode(g)) for g in body["grads"].values())
    assert every["passes"] == n == body["passes"]["inputs"]
    assert every["agree"] is True
    assert every["max_abs_difference_from_reverse"] <= 1e-9
    for leaf, grad in body["grads"].items():
        np.testing.assert_allclose(decode(every["gradient"][leaf]), decode(grad),
                                   rtol=1e-10, atol=1e-12)
    jac = every["jacobian"]
    assert jac["shape"] == [1, n] and jac["forward_passes"] == n and jac["reverse_passes"] == 1
    np.testing.assert_allclose(np.array(jac["data"]), torch_program.jacobian(text),
                               rtol=1e-10, atol=1e-12)


def test_vector_output_jacobian_a_column_per_forward_pass_a_row_per_reverse_pass():
    text = "x = [1.0, -2.0, 0.5]\nW = [[0.5, -1.0, 2.0], [0.3, 0.2, -0.4]]\ny = tanh(W @ x)\n"
    body = _forward(text)
    jac = body["all_forward"]["jacobian"]
    assert jac["shape"] == [2, 9]   # 2 outputs; 3 + 6 scalar inputs
    assert jac["forward_passes"] == 9 and jac["reverse_passes"] == 2
    np.testing.assert_allclose(np.array(jac["data"]), torch_program.jacobian(text),
                               rtol=1e-10, atol=1e-12)
    assert jac["max_abs_difference_from_reverse"] <= 1e-12
    # the gradient is 1ᵀJ (the tensor output is seeded with ones), as the reverse pass's
    assert body["all_forward"]["agree"] is True


def test_all_forward_passes_are_skipped_over_the_limit_but_the_one_pass_answers():
    # The default tangent (1 on the first element) is one pass: it answers whatever the size;
    # only the extra, every one of the n passes, is skipped, saying why (review finding).
    text = "W = randn(20, 20, seed=0)\nL = sum(tanh(W))\n"   # 400 scalar inputs
    body = run_trace(text, options=FORWARD)
    assert body["all_forward"]["passes"] == 400 and "256 passes" in body["all_forward"]["skipped"]
    w00 = np.random.default_rng(0).standard_normal((20, 20))[0, 0]   # the tangent's element
    assert decode(body["jvp"]) == pytest.approx(1 - np.tanh(w00) ** 2, rel=1e-14)
    body = _forward(text, {"W": np.ones((20, 20))})
    assert "all_forward" not in body and body["passes"]["forward"] == 400


# ---- points where a rule is not differentiable: PyTorch's numbers -----------------------------
KINKS = {
    "relu-at-0": ("x = 0.0\nL = relu(x)\n", {"x": 1.0}),
    "abs-at-0": ("x = 0.0\nL = abs(x)\n", {"x": 1.0}),
    "sqrt-at-0": ("x = 0.0\nL = sqrt(x)\n", {"x": 1.0}),
    "sqrt-at-0-zero-tangent": ("x = 0.0\ny = 2.0\nL = sqrt(x) + y\n", {"y": 1.0}),
    "maximum-tie": ("x = 1.0\ny = 1.0\nL = maximum(x, y)\n", {"x": 1.0}),
    "clip-at-bound": ("x = [1.0, -1.0, 0.5]\nL = sum(clip(x, -1.0, 1.0))\n",
                      {"x": [1.0, 1.0, 1.0]}),
    "max-tie": ("x = [2.0, 2.0, 1.0]\nL = max(x)\n", {"x": [1.0, 0.0, 0.0]}),
    "pow-0-0": ("x = 0.0\ny = 0.0\nL = x ** y\n", {"x": 1.0, "y": 1.0}),
    "log-at-0": ("x = 0.0\nL = log(x)\n", {"x": 1.0}),
}


@pytest.mark.parametrize("name", list(KINKS))
def test_non_differentiable_points_follow_torch_func_jvp_and_say_so(name):
    """PyTorch's number is kept; a kink is warned about (review finding; issue 9 §6)."""
    text, tangents = KINKS[name]
    body = _forward(text, {k: np.asarray(v) for k, v in tangents.items()})
    _, want = torch_program.jvp(text, {k: np.asarray(v) for k, v in tangents.items()})
    np.testing.assert_allclose(decode(body["jvp"]), want, rtol=1e-12, atol=1e-12,
                               equal_nan=True)
    _assert_kink_warning(name, body)


def test_a_non_finite_tangent_is_named_first_non_finite():
    body = _forward("x = 0.0\nL = sqrt(x)\n")
    assert body["jvp"] == "Infinity"
    assert body["first_non_finite"]["phase"] == "tangent"
    assert body["first_non_finite"]["node"] == "n1"


# ---- bad tangents -----------------------------------------------------------------------------
@pytest.mark.parametrize("tangents, words", [
    ({"q": 1.0}, ["tangents", "`q`", "not a leaf", "a, b, c"]),
    ({"e": 1.0}, ["tangents", "`e`", "not a leaf"]),
    ({"a": [1.0, 2.0]}, ["tangents[`a`]", "shape (2,)", "shape ()"]),
    ({"a": "1"}, ["tangents[`a`]", "numbers"]),
    ({"a": [[1.0], [2.0, 3.0]]}, ["tangents[`a`]"]),
    ({"a": math.inf}, ["tangents[`a`]", "finite"]),
    ({"a": 1e300}, None),   # finite in float64: fine
])
def test_bad_tangents_are_bad_argument_naming_the_field_and_leaf(tangents, words):
    if words is None:
        assert _forward(FIRST, tangents)["jvp"] == pytest.approx(1e300 * 0.7864477329659274)
        return
    with pytest.raises(ProgramError) as e:
        Tracer(FIRST, options=Options(mode="forward", tangents=tangents))
    assert e.value.kind == "bad_argument"
    for w in words:
        assert w in str(e.value)


def test_a_bad_tangent_is_located_at_its_leaf():
    with pytest.raises(ProgramError) as e:
        Tracer(FIRST, options=Options(mode="forward", tangents={"b": [1.0]}))
    assert (e.value.line, e.value.col) == (2, 4)


def test_float32_program_carries_float32_tangents():
    text = "# dtype: float32\n" + PRESETS["seed-bias-broadcast"]
    body = _forward(text, {"W": np.ones((2, 2))})
    _, want = torch_program.jvp(PRESETS["seed-bias-broadcast"], {"W": np.ones((2, 2))})
    assert decode(body["jvp"]) == pytest.approx(float(want), rel=1e-5)
    tangents = [e["tangent"] for e in body["events"] if isinstance(e.get("tangent"), dict)]
    assert tangents and all(t["dtype"] == "float32" for t in tangents)


def test_dual_and_dot_notation():
    assert forward_text.dual(0.5, -0.25) == "0.5 - 0.25ε"
    assert forward_text.dual(-1.0, 2.0) == "-1 + 2ε"
    assert forward_text.dot("a") == "a\u0307" and forward_text.dot("w1") == "w\u03071"
    assert forward_text.dot("y_hat") == "d(y_hat)"


# ---- golden --------------------------------------------------------------------------------
def test_forward_mode_of_the_first_preset_matches_golden():
    body = _forward(FIRST)
    if os.environ.get("GRADWALK_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    assert body == json.loads(GOLDEN.read_text(encoding="utf-8"))


# ---- a kink is said, naming `tangents` (review finding; issue 9 §6) --------------------------
KINK_WARNED = {   # case -> (op, node id, line, col, elements at the kink / all)
    "relu-at-0": ("relu", "n1", 2, 4, None), "abs-at-0": ("abs", "n1", 2, 4, None),
    "sqrt-at-0": ("sqrt", "n1", 2, 4, None), "sqrt-at-0-zero-tangent": ("sqrt", "n2", 3, 4, None),
    "maximum-tie": ("maximum", "n2", 3, 4, None), "clip-at-bound": ("clip", "n1", 2, 8, (2, 3)),
    "max-tie": ("max", "n1", 2, 4, None),
}


def _assert_kink_warning(name: str, body: dict) -> None:
    """The warning of KINKS[name]: kind, field `tangents`, node, place, words; none for a
    case that is not a kink."""
    if name not in KINK_WARNED:   # 0 ** 0 and log at 0 are not kinks (a limit, a pole)
        assert "warnings" not in body
        return
    op, node, line, col, part = KINK_WARNED[name]
    (warning,) = body["warnings"]
    assert (warning["kind"], warning["field"], warning["node"]) == \
        ("non_differentiable", "tangents", node)
    span = next(n["span"] for n in body["graph"]["nodes"] if n["id"] == node)
    assert (warning["line"], warning["col"]) == (line, col)
    assert {k: warning[k] for k in ("line", "col", "end_line", "end_col")} == span
    message = warning["message"]
    assert message.startswith(f"{op} is not differentiable ")
    assert f"(line {line}, col {col + 1})" in message
    assert "the tangent follows PyTorch's convention (" in message
    if part:
        assert f"at {part[0]} of its {part[1]} elements" in message
    event = next(e for e in body["events"] if e["node"] == node and e["kind"] == "tangent")
    assert f"; {op} is not differentiable " in event["narration"]
    done = body_events(body)[-1]
    assert done["warnings"] == body["warnings"] and message in done["narration"]


def test_the_relu_warning_word_for_word():
    body = _forward("a = 0.0\nL = relu(a)\n")
    assert body["warnings"][0]["message"] == (
        "relu is not differentiable at 0: in L = relu(a) (line 2, col 5) its input is 0; the "
        "tangent follows PyTorch's convention (slope 0)")
    assert body["jvp"] == 0.0


def test_no_warning_away_from_a_kink_and_none_in_reverse_mode():
    assert "warnings" not in _forward("a = 0.5\nL = relu(a) + abs(a) + sqrt(a)\n")
    assert "warnings" not in run_trace("a = 0.0\nL = relu(a)\n")
    # the stream's done event (body_events) has no warnings either
    assert "warnings" not in body_events(_forward(FIRST))[-1]
