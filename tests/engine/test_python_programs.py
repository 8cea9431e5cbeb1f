"""The programs people already have (issue 18 §4, part 2): `for ... in zip(...)` over literal
lists, `def f(x): ... return ...` inlined at each call, seed 003's XOR and seed 000's Value
examples as written minus the class definitions, and the small defects of the first part (an
alias naming the output, `L.backward()`, `x.relu` without ()). Numbers against PyTorch float64;
every bad input a located ProgramError."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from gradwalk.engine.parse import parse
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from helpers import assert_located
from train_programs import LOOP_XOR
from test_unrolled_python import _error


def _grads(body: dict) -> dict:
    return {k: decode(v) for k, v in body["grads"].items()}


# ---- B4: small defects ---------------------------------------------------------------------
def test_an_alias_of_the_output_reads_as_its_new_name():
    """`L = x` after x was assigned three times named the output x''' (the seed, the output and
    the narration); the value is now called L, and no node is made for the alias."""
    text = "x = 2.0\nx = x * 3.0\nx = x + 1.0\nx = tanh(x)\nL = x\n"
    body = run_trace(text)
    out = next(n for n in body["graph"]["nodes"] if n["id"] == body["output"]["node"])
    assert (out["label"], out["name"], body["output"]["name"]) == ("L", "L", "L")
    assert len(body["graph"]["nodes"]) == 6
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert seed["narration"].startswith("L̄ = ∂L/∂L = 1")
    assert "x'''" not in str(body["events"])
    t = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    torch.tanh(t * 3.0 + 1.0).backward()
    assert decode(body["grads"]["x"]) == pytest.approx(t.grad.item(), rel=1e-15)


def test_a_leaf_alias_keeps_the_leafs_name():
    """A leaf keeps its name (its gradient is reported by it): `s = b` then `s = s + ...`."""
    body = run_trace("b = 0.5\ns = b\ns = s * 2.0\nL = s\n")
    assert [n["label"] for n in body["graph"]["nodes"]] == ["b", "2.0", "L"]
    assert _grads(body) == {"b": 2.0}


@pytest.mark.parametrize("text, line, col, words", [
    ("x = 2.0\nL = x * 3.0\nL.backward()\n", 3, 0,
     "gradwalk walks the backward pass itself: `L.backward()` is not needed"),
    ("x = 2.0\nloss = x * 3.0\nloss.backward(retain_graph=True)\n", 3, 0,
     "gradwalk walks the backward pass itself: `loss.backward(retain_graph=True)` is not "
     "needed"),
    ("x = 2.0\nL = x.relu * 2.0\n", 2, 4, "`.relu` is a method: call it, `x.relu()`"),
    ("x = 2.0\nL = (x * 2.0).tanh\n", 2, 4, "`.tanh` is a method: call it, `(x * 2.0).tanh()`"),
])
def test_backward_and_an_uncalled_method_are_specific_located_errors(text, line, col, words):
    e = _error(text)
    assert (e.kind, e.line, e.col, e.message) == ("unsupported", line, col, words)
    assert e.hint


def _torch(**values):
    return {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
            for k, v in values.items()}


def _same(body: dict, out: torch.Tensor, leaves: dict) -> None:
    """The traced output and every leaf's gradient equal PyTorch's float64 (a leaf PyTorch
    leaves without a gradient: zeros)."""
    out.backward()
    np.testing.assert_allclose(decode(body["output"]["value"]), out.item(), rtol=1e-12)
    grads = _grads(body)
    for name, t in leaves.items():
        want = t.grad if t.grad is not None else torch.zeros_like(t)
        np.testing.assert_allclose(grads[name], want.numpy(), rtol=1e-12, atol=1e-15,
                                   err_msg=name)


# ---- B1: zip over lists --------------------------------------------------------------------
ZIP = """X = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
Y = [1, 1, 0]
w = [0.5, -0.3]
z = [0.2, 0.9]
L = 0.0 * w[0]
for (x0, x1), y in zip(X, Y):
    h = tanh(w[0] * x0 + w[1] * x1)
    L = L + (h - z[y]) ** 2
"""


def test_zip_over_named_lists_unpacks_and_indexes_with_pytorchs_numbers():
    """`for (x0, x1), y in zip(X, Y)`: x0, x1 read X's elements (index nodes: X gets its
    gradient), y is Y's number, an index (`z[y]`); each iteration a group. Y, ints read only
    by zip, is a constant (engine/parse_constants.py): no gradient, as in PyTorch."""
    body = run_trace(ZIP)
    t = _torch(X=[[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], w=[0.5, -0.3], z=[0.2, 0.9])
    out = 0.0 * t["w"][0]
    for (x0, x1), y in zip(t["X"], [1, 1, 0]):
        out = out + (torch.tanh(t["w"][0] * x0 + t["w"][1] * x1) - t["z"][y]) ** 2
    _same(body, out, t)
    assert set(body["grads"]) == {"X", "w", "z"}
    labels = [n["label"] for n in body["graph"]["nodes"]]
    assert labels.count("X[0, 0]") == 1 and "z[1]" in labels and "z[0]" in labels
    assert [g["name"] for g in body["graph"]["groups"] if g["kind"] == "block"] == [
        "for (x0, x1), y in zip(X, Y)",
        *(f"for (x0, x1), y in zip(X, Y): x0 = X[{k}, 0], x1 = X[{k}, 1], y = Y[{k}]"
          for k in range(3))]


def test_zip_over_inline_lists_and_in_a_sum_and_a_list_comprehension():
    text = ("w = 0.5\nb = -0.1\nL = 0.0 * w\nfor x, y in zip([1.0, 2.0, 3.0], [2.0, 4.0, 6.5, 9.0]):"
            "\n    L = L + (w * x + b - y) ** 2\n"
            "S = sum((w * x - y) ** 2 for x, y in zip([1.0, 2.0], [2.0, 4.5]))\n"
            "V = [w * x for x, _ in zip([1.0, -2.0], [0, 0])]\nM = L + S + sum(V)\n")
    body = run_trace(text)
    t = _torch(w=0.5, b=-0.1)
    loss = 0.0 * t["w"]
    for x, y in zip([1.0, 2.0, 3.0], [2.0, 4.0, 6.5, 9.0]):   # zip stops at the shortest
        loss = loss + (t["w"] * x + t["b"] - y) ** 2
    s = sum((t["w"] * x - y) ** 2 for x, y in zip([1.0, 2.0], [2.0, 4.5]))
    v = torch.stack([t["w"] * x for x, _ in zip([1.0, -2.0], [0, 0])])
    _same(body, loss + s + v.sum(), t)


BAD_ZIPS = [   # (program, kind, line, column, words)
    ("X = [1.0, 2.0]\nL = 0.0 * X\nfor x in zip(X, X):\n    L = L + x\n", "unsupported", 3, 4,
     "unpack zip's 2 lists into as many names"),
    ("X = [1.0, 2.0]\nL = X * 1.0\nfor x, y in zip(L, X):\n    L = L + x\n", "unsupported", 3,
     16, "zip goes over lists written in the program"),
    ("X = [[1.0, 2.0]]\nL = X * 1.0\nfor (a, b, c), y in zip(X, X):\n    L = L + a\n",
     "unsupported", 3, 4, "3 names for elements of shape (2,)"),
    ("L = 0.0\nfor x, y in zip([1.0], [(1, 2)]):\n    L = L + x\n", "unsupported", 2, 24,
     "zip's inline lists hold numbers"),
    ("L = 0.0\nfor x, x in zip([1.0], [2.0]):\n    L = L + x\n", "unsupported", 2, 7,
     "`x` is bound twice"),
    ("X = [" + ", ".join(["1.0"] * 3000) + "]\nL = 0.0 * X\nfor x, y in zip(X, X):\n"
     "    L = L + x\n    L = L * y\n", "too_large", 3, 0, "this loop runs 3,000 iterations"),
]


# ---- B2: def, inlined at each call ----------------------------------------------------------
DEF = """w = 0.5
b = -0.2
def neuron(x, v):
    h = tanh(w * x + b)
    return h * v
y1 = neuron(1.0, 2.0)
y2 = neuron(y1, 0.5) + neuron(y1 * y1, 1.5)
L = y1 + y2
"""


def test_a_function_is_inlined_at_each_call_with_its_own_group():
    body = run_trace(DEF)
    t = _torch(w=0.5, b=-0.2)

    def neuron(x, v):
        return torch.tanh(t["w"] * x + t["b"]) * v
    y1 = neuron(1.0, 2.0)
    _same(body, y1 + neuron(y1, 0.5) + neuron(y1 * y1, 1.5), t)
    blocks = [(g["name"], g["parent"]) for g in body["graph"]["groups"] if g["kind"] == "block"]
    assert [name for name, _ in blocks] == ["y1", "neuron(1.0, 2.0)", "y2", "neuron(y1, 0.5)",
                                            "neuron(y1 * y1, 1.5)"]
    ids = {g["name"]: g["id"] for g in body["graph"]["groups"]}
    assert [parent for _, parent in blocks] == [None, ids["y1"], None, ids["y2"], ids["y2"]]
    nodes = body["graph"]["nodes"]
    assert [n["name"] for n in nodes].count("y1") == 1   # `return h * v` named by the caller
    h = [n for n in nodes if n["name"] == "h"]
    assert len(h) == 3 and all(n["span"]["line"] == 4 for n in h)   # the function's line


DOUBLING = "def f(x):\n    return x\ndef f0(x):\n    return x * 1.0001\n" + "".join(
    f"def f{k}(x):\n    return f{k - 1}(f{k - 1}(x))\n" for k in range(1, 18))   # 38 lines: f17 is called on line 40
BAD_FUNCTIONS = [
    ("def f(x):\n    return f(x) * 2.0\na = 1.0\nL = f(a)\n", "unsupported", 2, 11,
     "`f` calls itself: recursion is not supported"),
    ("def f(x):\n    return g(x)\ndef g(x):\n    return f(x)\na = 1.0\nL = f(a)\n",
     "unsupported", 4, 11, "`f` calls itself (through g)"),
    ("a = 1.0\ndef f(x):\n    global a\n    return x * a\nL = f(a)\n", "unsupported", 3, 4,
     "`global` is not supported in a function"),
    ("def f(x):\n    y = x * 2.0\na = 1.0\nL = f(a)\n", "unsupported", 1, 0,
     "`f` has no `return expression` at its end"),
    ("def f(x):\n    return x\n    y = x * 2.0\na = 1.0\nL = f(a)\n", "unsupported", 2, 4,
     "`return` goes on the function's last line"),
    ("def f(x):\n    return x * 2.0\na = 1.0\nL = f(a, a)\n", "bad_argument", 4, 4,
     "`f` takes 1 argument by position (x)"),
    ("a = 1.0\nL = f(a)\ndef f(x):\n    return x * 2.0\n", "used_before_assignment", 2, 4,
     "`f` is called before it is defined"),
    ("def tanh(x):\n    return x * 2.0\na = 1.0\nL = tanh(a)\n", "unsupported", 1, 0,
     "`tanh` already names a built-in function"),
    ("def f(x):\n    return x * 2.0\na = 1.0\nL = f * a\n", "unsupported", 4, 4,
     "`f` is a function: call it"),
    ("def f(x):\n    y = x * 2.0\n    y = y * 2.0\n    return y * 2.0\na = 1.0\n"
     "for i in range(2000):\n    a = f(a)\nL = a\n", "too_large", 6, 0,
     "this loop runs 2,000 iterations of 4 statements"),
    ("def f(x):\n    return x * 2.0\na = 1.0\nL = sum(f(a) for i in range(3000))\n",
     "too_large", 4, 7, "the comprehension has 6,000 elements"),
    # seventeen nested doubling functions: 2**17 calls, counted and refused at the call, never
    # built (a review: an IndexError, a 500 from /api/trace)
    (DOUBLING + "a = 1.0\nL = f17(a)\n", "too_large", 40, 4,
     "this call of `f17` writes out 262,143 statements"),
    (DOUBLING + "a = 1.0\nL = sum(f17(a) for i in range(3))\n", "too_large", 40, 8,
     "this call of `f17` writes out 262,143 statements"),
    (DOUBLING + "a = 1.0\nfor i in range(2):\n    with no_grad():\n        a = f(f17(a))\n"
     "L = a\n", "too_large", 42, 14, "this call of `f17` writes out 262,143 statements"),
    (DOUBLING.replace("    return x * 1.0001\n", "    for i in range(1000):\n"
                      "        x = x * 1.0001\n    return x\n") + "a = 1.0\nL = f12(a)\n",
     "too_large", 42, 4, "this call of `f12` writes out 4,108,287 statements"),
]


@pytest.mark.parametrize("text, kind, line, col, words", BAD_ZIPS + BAD_FUNCTIONS)
def test_bad_zips_and_functions_are_located_before_anything_is_built(text, kind, line, col,
                                                                      words):
    assert_located(_error(text, max_statements=5000), kind, line, col, words)


# ---- B3: the seeds' programs as written ----------------------------------------------------
_SHARED = next((p / "shared" / "cases" / "seed_examples.json" for p in Path(__file__).parents
                if (p / "shared" / "cases" / "seed_examples.json").exists()), None)
SEEDS = None if _SHARED is None else json.loads(_SHARED.read_text())   # ../shared, if there
# seed 000's tanh fan-out example with micrograd's Value objects, minus the class (its numbers
# are ../shared/cases/seed_examples.json's "seed-tanh-fanout", PyTorch's float64)
VALUES = """a = Value(1.0)
b = Value(-0.5)
c = Value(2.0)
e = a * b
d = e + a
t = d.tanh()
L = t * c
"""
TANH_FANOUT = {"output": 0.9242343145200195, "grads": {
    "a": 0.7864477329659274, "b": 1.5728954659318548, "c": 0.46211715726000974}}


def test_seed_000s_value_example_traces_as_written_minus_the_class():
    body = run_trace(VALUES)
    assert decode(body["output"]["value"]) == pytest.approx(TANH_FANOUT["output"], rel=1e-12)
    for name, want in TANH_FANOUT["grads"].items():
        assert decode(body["grads"][name]) == pytest.approx(want, rel=1e-12), name
    if SEEDS is not None:   # the shared file, where the checkout has it
        case = next(c for c in SEEDS if c["id"] == "seed-tanh-fanout")
        assert case["expect"]["output"] == TANH_FANOUT["output"]
        assert case["expect"]["grads"] == TANH_FANOUT["grads"]


def _xor_params() -> list[float]:
    """Seed 003's 22 weights: random.seed(1), then random.uniform(-1, 1) for each weight of
    the shapes (4, 2), (4, 1), (2, 4), (2, 1) (Python's random, here in the test: gradwalk does
    not run the seed's `params = [Value(random.uniform(-1, 1)) ...]` line)."""
    rng = random.Random(1)
    return [rng.uniform(-1, 1) for r, c in [(4, 2), (4, 1), (2, 4), (2, 1)]
            for _ in range(r * c)]


# seed 003's XOR program as written (tests/engine/train_programs.py)
XOR = LOOP_XOR


def _xor_torch(values: list[float]) -> tuple[float, list[float]]:
    """Seed 003's forward in PyTorch float64: (the loss, the 22 weights' gradients)."""
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    W1, b1, W2, b2 = ts[0:8], ts[8:12], ts[12:20], ts[20:22]
    total = 0
    for (x0, x1), y in zip([(0, 0), (0, 1), (1, 0), (1, 1)], [0, 1, 1, 0]):
        hid = [(W1[2*i] * x0 + W1[2*i + 1] * x1 + b1[i]).relu() for i in range(4)]
        z = [sum((W2[4*j + i] * hid[i] for i in range(4)), b2[j]) for j in range(2)]
        total = total + ((z[0].exp() + z[1].exp()).log() - z[y])
    loss = total * 0.25
    loss.backward()
    return loss.item(), [t.grad.item() for t in ts]


def test_seed_003s_xor_forward_traces_with_pytorchs_numbers():
    """The seed prints `loss 0.838159, 22 gradients`, `largest gradient: 0.2463455518578762`
    and a gap of 0.0 against PyTorch: the same here, every gradient equal to PyTorch's."""
    values = _xor_params()
    body = run_trace(XOR.format(params=json.dumps(values)))
    loss, grads = _xor_torch(values)
    assert f"{decode(body['output']['value']):.6f}" == "0.838159"
    np.testing.assert_allclose(decode(body["output"]["value"]), loss, rtol=1e-13)
    got = np.asarray(decode(body["grads"]["params"]))
    np.testing.assert_allclose(got, grads, rtol=1e-12, atol=1e-16)
    assert np.max(np.abs(got)) == pytest.approx(0.2463455518578762, rel=1e-12)
    calls = [g for g in body["graph"]["groups"] if g["name"] == "forward(params)"]
    loops = [g["name"] for g in body["graph"]["groups"] if g["name"].startswith("for (x0")]
    assert len(calls) == 1 and len(loops) == 5   # the loop and its 4 iterations, in the call


def _roles(body: dict, names: set[str]) -> dict[str, str]:
    """{name: role} of the first node named each of `names` (a leaf, a const, ...)."""
    out: dict[str, str] = {}
    for n in body["graph"]["nodes"]:
        if n.get("name") in names and n["name"] not in out:
            out[n["name"]] = n["role"]
    return out


def test_seed_003s_int_data_and_accumulator_get_no_gradient():
    """Seed 003 pasted as the README says (its `shapes` line too): X, Y and shapes are lists
    of Python ints and `total = 0` an int accumulator, none a tensor in PyTorch, so none gets
    a gradient (they read `dloss/dY = [0, 0, 0, 0]`, `dloss/dtotal = 0.25`) nor an "is not
    used" warning (Y is used, as the index of `z[y]`); they are drawn as constants."""
    values = _xor_params()
    text = XOR.format(params=json.dumps(values)).replace(
        "params = ", "shapes = [(4, 2), (4, 1), (2, 4), (2, 1)]\nparams = ")
    body = run_trace(text)
    assert set(body["grads"]) == {"params"}
    np.testing.assert_allclose(decode(body["grads"]["params"]), _xor_torch(values)[1],
                               rtol=1e-12, atol=1e-16)
    assert [w["message"] for w in body.get("warnings", [])] == []
    assert _roles(body, {"X", "Y", "shapes", "total", "params"}) == {
        "X": "const", "Y": "const", "shapes": "const", "total": "const", "params": "leaf"}


def test_a_zip_loop_over_int_labels_has_pytorchs_gradients_only_for_the_weights():
    """Int labels read by zip (as indices and as numbers) and an int accumulator are
    constants; the float weights alone get gradients, equal to PyTorch float64's."""
    body = run_trace("w = [0.5, -1.5]\nlabels = [1, 0, 1]\nloss = 0\n"
                     "for x, y in zip([2.0, -1.0, 3.0], labels):\n"
                     "    loss = loss + (w[y] * x - y) ** 2\n")
    w = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    loss = 0
    for x, y in zip([2.0, -1.0, 3.0], [1, 0, 1]):
        loss = loss + (w[y] * x - y) ** 2
    loss.backward()
    assert set(body["grads"]) == {"w"}
    np.testing.assert_allclose(decode(body["grads"]["w"]), w.grad.numpy(), rtol=1e-15)
    assert decode(body["output"]["value"]) == pytest.approx(loss.item(), rel=1e-15)
    assert body.get("warnings", []) == []
    assert _roles(body, {"labels", "loss"}) == {"labels": "const", "loss": "const"}


@pytest.mark.parametrize("text, leaves", [
    ("Y = [0, 1]\nw = [0.5, 2.0]\nL = sum(Y * w)\n", {"Y", "w"}),   # read outside zip
    ("c = 2\nL = c * 3.0\n", {"c"}),                                  # an int never rebound
    ("t = 0.0\nw = 2.0\nt = t + w\nL = t * 3.0\n", {"t", "w"}),    # a float accumulator
    ("X = [0.0, 1.0]\nw = 2.0\nL = 0.0\nfor x, y in zip(X, [1, 2]):\n"
     "    L = L + w * x * y\n", {"X", "w", "L"}),                     # float data in zip
])
def test_other_literals_stay_leaves_with_gradients(text, leaves):
    """The rule's edge (engine/parse_constants.py): int data read elsewhere, an int that is
    never rebound from itself and floats stay leaves, as before."""
    assert set(run_trace(text)["grads"]) == leaves


@pytest.mark.parametrize("line, kind, words", [
    ("import random as r", "unsupported", "an import"),
    ("random.seed(1)", "unknown_name", "`random` is not imported"),
    ("params = [Value(random.uniform(-1, 1)) for r, c in shapes for _ in range(r * c)]",
     "unknown_name", "`random` is not imported"),
])
def test_the_seeds_lines_out_of_reach_are_located_errors(line, kind, words):
    """Seed 003's random lines read only as Python reads them (tests/engine/
    test_random_leaves.py): without `import random` (or imported under another name) each is
    a located error, no traceback."""
    e = _error(f"a = 1.0\n{line}\nL = a * 2.0\n")
    assert (e.kind, e.line) == (kind, 2) and words in e.message


def test_tuples_inside_a_list_literal_are_rows():
    """`X = [(0, 0), (0, 1)]` (seed 003's data) is the tensor [[0, 0], [0, 1]]; a tuple alone
    is still not a value, and a ragged one is located."""
    body = run_trace("X = [(0, 0), (0, 1), (1, 0)]\nw = [0.5, -0.25]\nL = sum(X @ w)\n")
    assert decode(body["grads"]["w"]).tolist() == [1.0, 1.0]
    assert decode(body["output"]["value"]) == 0.25
    assert _error("x = (1.0, 2.0)\n").kind == "unsupported"
    e = _error("x = [(1.0, 2.0), (3.0,)]\n")
    assert (e.kind, e.line, e.col) == ("bad_argument", 1, 4) and "rectangular" in e.message
