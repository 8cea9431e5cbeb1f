"""Tensors a student can read (issue 7, §4): labels printed from the tree, narration that keeps
shapes, the table's numbers up to the inline limit, and the first non-finite number."""
from __future__ import annotations

import json

import pytest

from gradwalk.engine.parse import parse
from gradwalk.engine.trace.node_data import node_data
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace, trace_json
from gradwalk.engine.trace.table import results, rows

LINEAR = ("X = [[1.0, -2.0, 0.5], [0.3, 0.8, -1.2], [-0.7, 0.1, 2.0], [1.5, -0.4, 0.2]]\n"
          "W = [[0.5, -0.3], [0.2, 0.8], [-0.6, 0.4]]\nb = [0.1, -0.2]\n")


def labels(text: str) -> list[str]:
    return [n.label for n in parse(text).nodes]


def narrations(body: dict) -> list[str]:
    return [e["narration"] for e in body["events"] if e["kind"] == "accumulate"]


def test_spacing_does_not_change_labels_or_narration():
    tight = run_trace(LINEAR + "L = sum(tanh(X@W+b))\n")
    spaced = run_trace(LINEAR + "L = sum(tanh( X @ W  +  b ))\n")
    assert [n["label"] for n in tight["graph"]["nodes"]][3:6] == \
        ["X @ W", "X @ W + b", "tanh(X @ W + b)"]
    assert narrations(tight) == narrations(spaced)
    # The example: the adjoint of X @ W is written with parentheses.
    assert any("X̄ += ∂L/∂(X @ W) @ Wᵀ" in t for t in narrations(tight))


@pytest.mark.parametrize("expr, label", [
    ("(a+b)*c", "(a + b) * c"),
    ("a+b*c", "a + b * c"),
    ("a-(b-c)", "a - (b - c)"),
    ("(a-b)-c", "a - b - c"),
    ("-a**b", "-a ** b"),
    ("(-a)**b", "(-a) ** b"),
    ("a**-b", "a ** -b"),
    ("(a**b)**c", "(a ** b) ** c"),
    ("a**b**c", "a ** b ** c"),
    ("(a*b).T", "(a * b).T"),
    ("a/(b*c)", "a / (b * c)"),
    ("(-2.0)**a", "(-2.0) ** a"),
])
def test_labels_have_the_parentheses_precedence_needs(expr, label):
    # unnamed: tanh(...) and its argument are labelled by their printed text
    got = labels(f"a = 1.0\nb = 2.0\nc = 3.0\nL = 2.0 * tanh({expr})\n")
    assert label in got, got
    assert f"tanh({label})" in got


def test_a_reassigned_name_is_printed_with_its_prime():
    assert "c' * 2" in labels("c = 1.0\nc = c + 1\nL = tanh(c * 2)\n")


def test_long_labels_are_clipped():
    got = labels("a = 1.0\nL = tanh(" + " + ".join(["a"] * 40) + ")\n")
    assert max(len(x) for x in got) <= 24 + len("tanh()")


def test_narration_keeps_shapes_when_numbers_are_too_many():
    body = run_trace(LINEAR + "L = sum(tanh(X @ W + b))\n")
    text = narrations(body)
    matmul_x = next(t for t in text if "X̄ +=" in t)
    assert matmul_x.endswith("X̄ += ∂L/∂(X @ W) @ Wᵀ, shapes 4×3 = 4×2 @ 2×3")
    matmul_w = next(t for t in text if "W̄ +=" in t)
    assert matmul_w.endswith(", shapes 3×2 = 3×4 @ 4×2 = [[1.9591, 0.7757], [-1.9551, 0.4672], "
                             "[0.6288, -0.0505]]")
    bias = next(t for t in text if "b̄ +=" in t)
    assert (", shapes 4×2 = 4×2 ⊙ 4×2, summed over axis 0 back to b's shape (2-vector) = "
            "[2.2104, 2.0567]") in bias
    tanh = next(t for t in text if t.startswith("tanh(X @ W + b):"))
    assert tanh.endswith(", shapes 4×2 = 4×2 ⊙ 4×2")   # 8 numbers: too many to print


def test_scalar_narration_is_unchanged():
    body = run_trace("a = 2.0\nb = -0.5\nL = tanh(a * b)\n")
    assert narrations(body)[0] == "L = tanh(a * b), so ∂L/∂(a * b) += (1 - L²) · L̄ = 0.42 · 1 = 0.42"
    assert all(" (shape" not in t for t in narrations(body))


def test_table_prints_numbers_up_to_the_inline_limit_then_shape_and_summary():
    body = json.loads(trace_json(LINEAR + "L = sum(tanh(X @ W + b))\n"))
    res = results(body)
    assert "dL/db = [2.2104, 2.0567]" in res
    assert "dL/dX = [[0.4694, 0.2665, -0.5598], [-0.1239, 0.8551, 0.188], " \
           "[-0.0457, 0.4361, 0.0746], [0.1884, 0.5298, -0.2063]]" in res
    small = results(body, limit=4)
    assert "dL/dX = [4×3] (min -0.5598, max 0.8551, mean 0.1727)" in small
    over = json.loads(trace_json(LINEAR + "L = sum(tanh(X @ W + b))\n", None, Limits(inline=4)))
    row = dict((r[0], r) for r in rows(over))["X @ W"]
    assert "dL/dX += [4×3] (min -0.5598, max 0.8551, mean 0.1727)" in row[3]


@pytest.mark.parametrize("program, node, phase, why", [
    ("x = [1.0, -2.0, 4.0]\ny = log(x)\nL = sum(y * x)\n", "n1", "forward",
     "log of a negative number"),
    ("x = 0.0\ny = x / x\nL = y * 2.0\n", "n1", "forward", "0/0"),
    ("x = 1000.0\nL = exp(x)\n", "n1", "forward", "overflow"),
    ("x = [1.0, 0.0, 4.0]\ny = sqrt(x)\nL = sum(y)\n", "n0", "backward", "slope of sqrt"),
])
def test_first_non_finite_is_named_in_the_body_and_the_done_event(program, node, phase, why):
    body = run_trace(program)
    first = body["first_non_finite"]
    assert (first["node"], first["phase"]) == (node, phase)
    assert why in first["why"]
    # the stream's done event (the records) carries it; the body writes it once, at its top
    done = list(Tracer(program).records())[-1]
    assert done["first_non_finite"] == first and "first_non_finite" not in body["events"][-1]


def test_first_non_finite_is_null_when_all_is_finite():
    body = run_trace("a = 2.0\nL = a * a\n")
    assert body["first_non_finite"] is None
    assert list(Tracer("a = 2.0\nL = a * a\n").records())[-1]["first_non_finite"] is None


def test_node_data_gives_full_numbers_over_the_inline_limit():
    text = LINEAR + "L = sum(tanh(X @ W + b))\n"
    small = Limits(inline=4)
    body = json.loads(trace_json(text, None, small))
    assert body["events"][3]["value"]["data"] is None   # X @ W travelled as a summary
    got = node_data(text, None, "n3", small)
    assert got["shape"] == [4, 2]
    assert got["value"]["data"][0] == pytest.approx([-0.2, -1.7])
    assert got["adjoint"]["data"][0] == pytest.approx([0.9901, 0.0856], abs=1e-4)
    assert node_data(text, None, "n0", small)["adjoint"]["data"][0] == \
        pytest.approx([0.4694, 0.2665, -0.5598], abs=1e-4)
    with pytest.raises(ProgramError) as e:
        node_data(text, None, "n99", small)
    assert e.value.kind == "unknown_node"


@pytest.mark.parametrize("program, node, words, not_words", [
    # the NaN comes from ln(a), a < 0, in ∂(a ** b)/∂b (PyTorch's NaN too), not from x = 0
    ("a = -2.0\nb = 3.0\nL = a ** b\n", "n1", "a^b · ln a, is undefined for a < 0", "x = 0"),
    ("a = [-2.0, 2.0]\nb = [2.0, 0.5]\nL = sum(a ** b)\n", "n1", "undefined for a < 0",
     "x = 0"),
    # overflow at a tiny input that is not 0
    ("a = 1e-320\nL = log(a)\n", "n0", "overflow, not a division by zero", "infinite at x = 0"),
    ("a = 1e-200\nL = 1.0 / a\n", "n0", "at y = 1e-200, which is small but not 0",
     "infinite at y = 0"),
    # the poles are still named as poles
    ("a = 0.0\nb = 0.5\nL = a ** b\n", "n0", "infinite at x = 0 when p < 1", "overflow"),
    ("x = [1.0, 0.0, 4.0]\nL = sum(sqrt(x))\n", "n0", "√x' = 1/(2√x) is infinite at x = 0",
     "overflow"),
])
def test_the_non_finite_explanation_fits_the_inputs(program, node, words, not_words):
    first = run_trace(program)["first_non_finite"]
    assert (first["node"], first["phase"]) == (node, "backward")
    assert words in first["why"] and not_words not in first["why"], first["why"]


def accumulations(text: str) -> list[str]:
    return narrations(run_trace(text))


def test_a_unary_minus_keeps_its_parentheses_in_adjoint_symbols():
    text = accumulations("a = 1.0\nb = 2.0\nc = 3.0\nL = b - -a / (b / c)\n")
    assert any(t.startswith("-a / (b / c): ∂L/∂(-a) += ") for t in text), text
    assert not any("∂L/∂-a" in t for t in text), text
    assert "-a: a\u0304 += -1 · ∂L/∂(-a) = -1 · (-1.5) = 1.5" in text


def test_the_transpose_of_k_t_is_written_with_parentheses():
    text = accumulations("Q = [[1.0, 2.0]]\nK = [[1.0, 0.5], [2.0, 1.0]]\nS = Q @ K.T\n"
                         "L = sum(S)\n")
    q = next(t for t in text if "Q̄ +=" in t)
    assert "Q̄ += S̄ @ (K.T)ᵀ, shapes 1×2 = 1×2 @ 2×2" in q, q
    assert "K.Tᵀ" not in " ".join(text)


def test_formulas_have_only_the_parentheses_precedence_needs():
    body = run_trace("x = [[1.0, 2.0]]\nW1 = [[1.0], [2.0]]\nb1 = [0.5]\n"
                     "h = x @ W1 + b1\na = 2.0\nb = 3.0\nc = 4.0\nu = (a + b) * c\n"
                     "v = a - (b - c)\nw = -a ** b\nL = sum(h) + u + v + w\n")
    formulas = [n["formula"] for n in body["graph"]["nodes"]]
    assert "h = x @ W1 + b1" in formulas
    assert "u = (a + b) * c" in formulas and "v = a - (b - c)" in formulas
    assert "w = -a ** b" in formulas
    assert "sum(h) + u + v + w" in " ".join(formulas)   # left-associative: no parentheses
    assert not any("(x @ W1)" in f for f in formulas)
    assert any(t.startswith("h = x @ W1 + b1, so ") for t in narrations(body))


def test_a_tensor_output_seed_names_its_shape_as_python_prints_it():
    body = run_trace("x = [1.0, 2.0]\ny = x * 3.0\n")
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert seed["narration"].startswith("y is a 2-vector, not a number"), seed["narration"]
    body = run_trace("x = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\ny = x * 3.0\n")
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert seed["narration"].startswith("y is a 3×2 matrix, not a number")


def test_layer_norm_defines_r_and_x_hat_in_its_rule():
    body = run_trace("x = [[1.0, 2.0, 4.0]]\nw = [1.0, 0.5, 2.0]\nb = [0.0, 0.1, 0.2]\n"
                     "L = sum(layer_norm(x, w, b))\n")
    text = narrations(body)
    x = next(t for t in text if "x̄ +=" in t)
    assert "x̂ = (x - mean(x)) · r is the normalized input x = x" in x, x
    assert "r = 1/√(var(x) + eps)" in x
    w = next(t for t in text if "w̄ +=" in t)
    assert "where x̂ = (x - mean(x)) / √(var(x) + eps)" in w, w
