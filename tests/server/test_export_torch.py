"""`gradwalk export --format torch` and gradwalk.to_torch (issue 18 §4): the program written as
PyTorch code, run in a subprocess, prints the gradients gradwalk computes, for every preset it
can express; what it cannot (the bug lab's overwrite, wrong_order, inplace; an op without a
row) is a one-line error naming it."""
from __future__ import annotations

import ast
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradwalk
from gradwalk.engine import torch_ops
from gradwalk.engine.errors import ProgramError
from gradwalk.server import cli

PRESETS = json.loads((Path(gradwalk.__file__).parent / "server" / "presets.json").read_text())
UNWRITABLE = {"bug-overwrite": "overwrite", "bug-wrong-order": "wrong_order",
              "bug-inplace": "inplace"}

PYTHON_PROGRAMS = Path(__file__).parents[1] / "engine" / "test_python_programs.py"
TRAIN_PROGRAMS = Path(__file__).parents[1] / "engine" / "train_programs.py"   # LOOP_XOR


def _texts(path: Path) -> tuple[dict[str, str], list[str]]:
    """A test module's string constants: those assigned to a top-level name, by name, and
    every one ending with a newline (a program, or a docstring gradwalk refuses)."""
    tree = ast.parse(path.read_text())
    named = {t.id: node.value.value for node in tree.body if type(node) is ast.Assign
             and type(node.value) is ast.Constant and type(node.value.value) is str
             for t in node.targets if type(t) is ast.Name}
    every = [c.value for c in ast.walk(tree) if type(c) is ast.Constant and
             type(c.value) is str and c.value.endswith("\n")]
    return named, every


def _filled(text: str) -> str:
    """text with `{params}` (seed 003's XOR) as the seed's 22 weights: random.seed(1), then
    random.uniform(-1, 1) for each (test_python_programs.py _xor_params)."""
    rng = random.Random(1)
    return text.replace("{params}", json.dumps([rng.uniform(-1, 1) for _ in range(22)]))


# ops and forms no preset has: every row of engine/torch_ops.py, reassignment, in place,
# names PyTorch's script uses itself, loops, functions, a tensor output
MORE = {
    "shapes": ("X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]\n"
               "r = X[1, :0:-1] * X[0:2, 1:3][0, -2:]\n"
               "c = concat([reshape(X, -1), r], axis=0)\n"
               "s = stack([X, X * 2], axis=1)\n"
               "t = transpose(s, (2, 0, 1))\n"
               "L = sum(sum(t * t, axis=2), axis=0) + max(c) - min(X, axis=0, keepdims=True)[0, 1] "
               "+ var(c) + var(X, axis=1, correction=0)[0]\n"),
    "elementwise": ("x = [0.3, -1.2, 2.0]\ny = [1.5, 0.2, -0.7]\n"
                    "F = where(x > 0, x, 0.1 * x) + clip(y, -0.5, 1.0) + leaky_relu(y, 0.2)\n"
                    "torch = silu(F) + maximum(x, y) - minimum(x, 0.5) + abs(y) ** 2\n"
                    "g = gelu(torch, approximate=\"tanh\") + gelu(x) + sigmoid(y) * exp(-x)\n"
                    "h = log(sqrt(g * g + 1.0)) / 2.0 - logsumexp(g) + log_softmax(y)[2]\n"
                    "L = mse(h, y) + (-h[0]) ** 3 + 2.0 ** x[1] + detach(x)[0] * y[0]\n"),
    "python": ("w = [0.5, -1.0, 2.0]\nb = 0.1\nx = [1.0, 2.0, 3.0]\n"
               "def neuron(v):\n    return tanh(v * b)\n"
               "s = b\nfor i in range(3):\n    s = s + w[i] * x[i]\n"
               "s += 1.0\nh = [neuron(w[i]) for i in range(3)]\n"
               "with group(\"head\"):\n    L = s * sum(h)\n"),
    "tensor output": "W = [[1.0, 2.0], [3.0, -1.0]]\nv = [0.5, -0.25]\nL = tanh(W @ v)\n",
    "hvp": "# hvp: {\"a\": 1.0, \"W\": [0.5, -1.0]}\na = 0.7\nW = [1.5, 0.25]\nb = 2.0\n"
           "L = sum(tanh(a * W) ** 3) * b\n",
    "not finite": "b = [1e309, 2.0]\nL = sum(b) + minimum(b[1], 1e309) * -1e309\n",
    "float32": "# dtype: float32\na = 0.1\nb = [0.7, -0.3]\nL = sum(tanh(a * b) ** 2)\n",
    "cross entropy": ("X, y = xor()\nW = [[0.5, -0.5], [0.25, 1.0]]\nz = X @ W\n"
                      "L = cross_entropy(z, y) + cross_entropy(z[0], 1)\n"
                      "  + layer_norm(z, [1.0, 2.0], [0.0, 0.5])[1, 0]\n").replace("\n  ", " "),
    # a line with calls is a group of the calls alone: its arguments and the sum were not written
    "def": "w = 0.5\ndef f(x):\n    return tanh(w * x)\nL = f(1.0) + f(2.0)\n",
    "nested call": ("w = [0.5, -1.5]\ndef f(x):\n    h = w * x\n    return sum(h * h)\n"
                    "def g(a, b):\n    return f(a * b) + f(exp(a)) * b\n"
                    "c = 0.3\nL = g(c, 2.0) - g(f(c), c + 1.0)\n"),
    "def in a zip loop": ("w = [0.5, -0.3]\ndef neuron(x0, x1):\n    return tanh(w[0] * x0 "
                          "+ w[1] * x1)\nL = 0.0 * w[0]\nfor (x0, x1), y in zip([[0.0, 1.0], "
                          "[1.0, 1.0]], [1.0, 0.0]):\n    L = L + (neuron(x0, x1) - y) ** 2\n"),
    # seed 003's XOR as the seed writes it (tests/engine/train_programs.py LOOP_XOR) with its
    # weights: random.seed(1)
    "seed 003's XOR": _filled(_texts(TRAIN_PROGRAMS)[0]["LOOP_XOR"]),
}


def _run(scripts: list[str]) -> list[dict[str, np.ndarray]]:
    """Each script run in one subprocess (one torch import), each in a fresh namespace; its
    printed `name.grad = [...]` lines read back."""
    driver = ("import contextlib, io, json, sys\nout = []\n"
              "for code in json.load(sys.stdin):\n"
              "    buf = io.StringIO()\n"
              "    with contextlib.redirect_stdout(buf):\n"
              "        exec(compile(code, 'exported.py', 'exec'), {'__name__': '__main__'})\n"
              "    out.append(buf.getvalue())\n"
              "print(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", driver], input=json.dumps(scripts),
                          capture_output=True, text=True, timeout=300, check=True)
    printed = []
    for text in json.loads(done.stdout):
        grads = {}
        for line in text.splitlines():
            name, _, value = line.partition(".grad = ")
            # a Python literal but for inf and nan, which tolist() prints bare
            value = ast.literal_eval(re.sub(r"(-?)\b(inf|nan)\b", r"'\1\2'", value))
            grads[name] = np.array(value, dtype=np.float64)
        printed.append(grads)
    return printed


@pytest.fixture(autouse=True)
def _every_number(monkeypatch):
    """gradwalk.trace's tensors carry all their numbers (not a summary) up to 10,000."""
    monkeypatch.setenv("GRADWALK_MAX_INLINE_ELEMENTS", "10000")


def _agree(program: str, printed: dict[str, np.ndarray], rtol: float = 1e-10) -> None:
    grads = gradwalk.trace(program)["grads"]
    assert printed.keys() == grads.keys()
    for name, value in grads.items():
        value = value["data"] if isinstance(value, dict) else value
        np.testing.assert_allclose(printed[name], np.array(value, dtype=np.float64),
                                   rtol=rtol, atol=rtol * 1e-2, err_msg=name)


def test_every_preset_prints_gradwalks_gradients_or_is_refused_by_name():
    written, refused = {}, {}
    for preset in PRESETS:
        try:
            written[preset["id"]] = gradwalk.to_torch(preset["program"])
        except ProgramError as e:
            refused[preset["id"]] = e
    assert refused.keys() == UNWRITABLE.keys()
    for pid, e in refused.items():
        assert e.kind == "unsupported" and f"bug lab's {UNWRITABLE[pid]} switch" in e.message
    assert len(written) == len(PRESETS) - 3
    programs = {p["id"]: p["program"] for p in PRESETS}
    for pid, printed in zip(written, _run(list(written.values()))):
        _agree(programs[pid], printed)
    assert "L.backward(retain_graph=True)" in written["bug-no-zero-grad"]


def test_programs_beyond_the_presets_print_gradwalks_gradients():
    written = [gradwalk.to_torch(p) for p in MORE.values()]
    assert "X.index_select(1, torch.tensor([2, 1]))[1, :]" in written[0]   # a negative step
    assert "F_ = " in written[1] and "torch_ = " in written[1]   # names kept apart from torch's
    for (title, program), printed in zip(MORE.items(), _run(written)):
        _agree(program, printed, rtol=1e-5 if title == "float32" else 1e-10)


def test_the_command_writes_the_code(tmp_path, capsys):
    (tmp_path / "p.py").write_text(PRESETS[0]["program"])
    assert cli.main(["export", str(tmp_path / "p.py"), "--format", "torch", "-o",
                     str(tmp_path / "out.py")]) == 0
    code = (tmp_path / "out.py").read_text()
    assert code == gradwalk.to_torch(PRESETS[0]["program"])
    assert "requires_grad=True" in code and "L.backward()" in code and "torch.float64" in code
    _agree(PRESETS[0]["program"], _run([code])[0])


def test_an_op_without_a_row_is_refused_naming_it(tmp_path, capsys, monkeypatch):
    monkeypatch.delitem(torch_ops.ROWS, "tanh")
    (tmp_path / "p.py").write_text("a = 1.0\nL = tanh(a)\n")
    assert cli.main(["export", str(tmp_path / "p.py"), "--format", "torch"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "op tanh cannot be exported" in err and "line 2" in err
    assert "Traceback" not in err


def test_a_bug_lab_switch_is_refused_by_the_command(tmp_path, capsys):
    (tmp_path / "p.py").write_text(next(p["program"] for p in PRESETS
                                        if p["id"] == "bug-wrong-order"))
    assert cli.main(["export", str(tmp_path / "p.py"), "--format", "torch"]) == 1
    err = capsys.readouterr().err
    assert "wrong_order switch has no PyTorch equivalent" in err and "Traceback" not in err


def test_an_unknown_output_is_refused():
    with pytest.raises(ProgramError) as e:
        gradwalk.to_torch("a = 1.0\nL = a * a\n", output="nope")
    assert e.value.kind == "unknown_output"


def test_every_program_of_test_python_programs_is_written_or_refused_by_name():
    """Never an internal error (a line calling a `def` was a KeyError, exit 3): each program of
    tests/engine/test_python_programs.py that gradwalk traces is written as PyTorch code that
    prints gradwalk's gradients, or refused with a ProgramError naming what it cannot write."""
    named, every = _texts(PYTHON_PROGRAMS)
    named["XOR"] = _texts(TRAIN_PROGRAMS)[0]["LOOP_XOR"]   # the module's XOR is this one now
    every.append(named["XOR"])
    written = {}
    for text in map(_filled, every):
        try:
            gradwalk.trace(text)
        except ProgramError:
            continue   # a program gradwalk refuses itself, or a docstring
        try:
            written[text] = gradwalk.to_torch(text)
        except ProgramError as e:
            assert e.kind == "unsupported" and ("cannot be exported" in e.message or
                                                "no PyTorch equivalent" in e.message), e
    assert {_filled(named[k]) for k in ("ZIP", "DEF", "VALUES", "XOR")} <= written.keys()
    for (text, code), printed in zip(written.items(), _run(list(written.values()))):
        _agree(text, printed)
