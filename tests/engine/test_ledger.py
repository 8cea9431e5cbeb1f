"""The ledger (engine/trace/ledger.py): saved tensors, activation memory and FLOPs, and
checkpointing, against the reference figures of seed 003_70db1bc89ad395af.txt, Step 5.

The seed's figures: a Linear-GELU-Linear MLP (width h to 4h and back, s tokens, its input the
output of an earlier op, its output summed) keeps 9*s*h activation numbers; with the whole block
checkpointed, 1*s*h. A linear layer's backward costs twice its forward.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import ledger
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace
from gradwalk.server.presets import presets
from helpers import CASES


def _lit(a: np.ndarray) -> str:
    return json.dumps(np.round(a, 4).tolist())


def mlp_program(s: int, h: int, checkpoint: bool = False, dtype: str = "") -> str:
    rng = np.random.default_rng(7)
    block = ["a = gelu(x @ W1 + b1)", "y = a @ W2 + b2"]
    if checkpoint:
        block = ["with checkpoint():", *("    " + line for line in block)]
    return "\n".join([
        f"X0 = {_lit(rng.standard_normal((s, h)))}",
        f"W1 = {_lit(rng.standard_normal((h, 4 * h)))}",
        f"b1 = {_lit(rng.standard_normal(4 * h))}",
        f"W2 = {_lit(rng.standard_normal((4 * h, h)))}",
        f"b2 = {_lit(rng.standard_normal(h))}",
        "x = tanh(X0)", *block, "L = sum(y)", ""])


@pytest.mark.parametrize("s,h", [(3, 2), (4, 5), (1, 8)])
def test_mlp_keeps_nine_s_h_activation_numbers(s, h):
    ledger = run_trace(mlp_program(s, h))["ledger"]
    assert ledger["activation_elements"] == 9 * s * h
    assert ledger["activation_bytes"] == 9 * s * h * 8   # float64
    assert ledger["peak_activation_bytes"] == 9 * s * h * 8
    assert ledger["flops_recompute"] == 0


@pytest.mark.parametrize("s,h", [(3, 2), (4, 5)])
def test_checkpointed_mlp_keeps_one_s_h_and_recomputes(s, h):
    plain = run_trace(mlp_program(s, h))
    ck = run_trace(mlp_program(s, h, checkpoint=True))
    assert ck["ledger"]["activation_elements"] == 1 * s * h
    assert ck["ledger"]["activation_bytes"] == s * h * 8
    # the recomputation's FLOPs are the block's forward FLOPs: 2 matmuls, 2 adds, one GELU
    block_flops = 2 * s * h * 4 * h * 2 + s * 4 * h + s * h + 8 * s * 4 * h
    assert ck["ledger"]["flops_recompute"] == block_flops
    assert ck["ledger"]["flops_forward"] == plain["ledger"]["flops_forward"]
    # the same gradients, to the last bit: recomputing is deterministic
    assert ck["grads"] == plain["grads"]
    recomputed = [e for e in ck["events"] if e["kind"] == "recompute"]
    assert [e["node"] for e in recomputed] == ck["graph"]["blocks"][0]["nodes"]
    values = {e["node"]: e["value"] for e in ck["events"] if e["kind"] == "evaluate"}
    assert all(e["value"] == values[e["node"]] for e in recomputed)
    assert recomputed[0]["narration"].startswith("checkpoint: recompute")


def test_recompute_comes_before_the_first_backward_step_in_the_block():
    body = run_trace("x = 2.0\nwith checkpoint():\n    y = x * x\n    z = tanh(y)\nL = z + 1\n")
    kinds = [(e["kind"], e.get("node")) for e in body["events"] if e["kind"] != "evaluate"]
    # seed, L's step (outside the block), then the block is recomputed, then its steps
    assert kinds[:2] == [("seed", "n4"), ("accumulate", "n4")]
    assert kinds[2:4] == [("recompute", "n1"), ("recompute", "n2")]
    assert body["grads"]["x"] == pytest.approx(2 * 2.0 * (1 - np.tanh(4.0) ** 2), rel=1e-15)


def test_linear_layer_backward_costs_twice_its_forward():
    rng = np.random.default_rng(1)
    body = run_trace(f"X = {_lit(rng.standard_normal((4, 3)))}\n"
                     f"W = {_lit(rng.standard_normal((3, 5)))}\nY = X @ W\n")
    node = next(n for n in body["graph"]["nodes"] if n["op"] == "matmul")
    assert node["ledger"]["flops_forward"] == 2 * 4 * 3 * 5
    assert node["ledger"]["flops_backward"] == 4 * 4 * 3 * 5
    assert node["ledger"]["saves"] == ["n0", "n1"]
    assert node["ledger"]["saved_elements"] == 12 + 15
    assert node["ledger"]["saved_bytes"] == (12 + 15) * 8


def test_an_activation_kept_by_two_rules_counts_once_and_is_freed_by_the_last():
    body = run_trace("a = [1.0, 2.0]\nt = tanh(a)\nu = t * t\nv = exp(t)\nL = sum(u + v)\n")
    nodes = {n["label"]: n for n in body["graph"]["nodes"]}
    t = nodes["t"]
    # t is kept by tanh (its output) and by u = t * t (both inputs); exp keeps its output v
    assert t["ledger"]["activation_bytes"] == 16
    savers = [n for n in body["graph"]["nodes"] if n["ledger"] and t["id"] in n["ledger"]["saves"]]
    assert {n["label"] for n in savers} == {"t", "u"}
    assert t["ledger"]["released_by"] == t["id"]   # backward runs in reverse creation order
    # t (16 bytes) once although two rules keep it, and v (16); u is kept by no rule (+, sum)
    assert body["ledger"]["activation_bytes"] == 32


def test_two_checkpointed_layers_lower_the_peak():
    def program(checkpoint: bool) -> str:
        rng = np.random.default_rng(3)
        lines = [f"X = {_lit(rng.standard_normal((4, 6)))}",
                 f"W1 = {_lit(rng.standard_normal((6, 6)))}",
                 f"W2 = {_lit(rng.standard_normal((6, 6)))}",
                 "x = tanh(X)"]
        for k, w in ((1, "W1"), (2, "W2")):
            layer = [f"h{k} = tanh(x @ {w})", f"x = tanh(h{k} @ {w})"]
            lines += ["with checkpoint():", *("    " + line for line in layer)] if checkpoint \
                else layer
        return "\n".join([*lines, "L = sum(x)", ""])

    plain, ck = run_trace(program(False)), run_trace(program(True))
    assert ck["ledger"]["peak_activation_bytes"] < plain["ledger"]["peak_activation_bytes"]
    assert ck["ledger"]["activation_bytes"] < ck["ledger"]["peak_activation_bytes"]
    assert ck["ledger"]["flops_recompute"] > 0
    assert ck["grads"] == plain["grads"]


@pytest.mark.parametrize("text,message,col", [
    ("x = 1.0\nwith checkpoint() as c:\n    y = x\n", "no `as` name", 21),
    ("x = 1.0\nwith open(x):\n    y = x\n", "the only blocks are", 5),
    ("x = 1.0\nwith checkpoint(2):\n    y = x\n", "takes no arguments", 5),
    ("x = 1.0\nwith checkpoint():\n    with checkpoint():\n        y = x * 2\n",
     "blocks do not nest", 4),
])
def test_bad_blocks_are_refused_with_line_and_column(text, message, col):
    with pytest.raises(ProgramError) as e:
        Tracer(text)
    assert message in e.value.message
    assert (e.value.kind, e.value.col) == ("unsupported", col)


def test_block_statements_count_towards_the_statement_limit():
    text = "x = 1.0\nwith checkpoint():\n" + "".join("    x = x * 2\n" for _ in range(5))
    with pytest.raises(ProgramError) as e:
        Tracer(text, limits=Limits(max_statements=4))
    assert e.value.kind == "too_large" and e.value.line == 5   # the fifth statement


def _page_series(body: dict, tmp_path) -> dict:
    """static/js/ledger.js's fold of `body`, run by node (the page's own code)."""
    import shutil
    import subprocess
    from pathlib import Path

    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(body))
    module = (Path(__file__).parents[2] / "static/js/ledger.js").as_uri()
    script = (f"import {{ ledgerSeries }} from {json.dumps(module)};"
              "import { readFileSync } from 'node:fs';"
              f"const s = ledgerSeries(JSON.parse(readFileSync({json.dumps(str(trace))})));"
              "console.log(JSON.stringify({peak: s.peak, last: s.live.at(-1), n: s.live.length}));")
    out = subprocess.run([shutil.which("node"), "--input-type=module", "-e", script],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("checkpoint", [False, True])
def test_the_pages_fold_finds_the_engines_peak(checkpoint, tmp_path):
    body = run_trace(mlp_program(3, 4, checkpoint=checkpoint))
    page = _page_series(body, tmp_path)
    assert page["peak"] == body["ledger"]["peak_activation_bytes"]
    assert page["n"] == len(body["events"]) + 1
    assert page["last"] == 0   # every activation freed by the end of the backward pass


@pytest.mark.parametrize("line,kept,flops_backward", [
    ("L = sum(h * 2.0)", 0, 1 * 32),          # x̄ = ȳ·2 needs only the constant 2.0
    ("L = sum(h / 2.0)", 0, 2 * 32),          # ȳ / 2 needs only the divisor
    ("L = sum(h ** 2.0)", 32, round(3.5 * 32)),   # 2·h needs h (PyTorch saves self)
    ("L = sum(h * h)", 32, 2 * 32),           # both vjps: h once, however often it is saved
])
def test_a_rule_keeps_only_what_the_inputs_that_need_a_gradient_need(line, kept, flops_backward):
    # As PyTorch's autograd: `self * other` saves `other` only when `self` requires grad.
    body = run_trace(f"X = randn(4, 8, seed=0)\nh = X * 3.0\n{line}\n")
    assert body["ledger"]["activation_elements"] == kept
    last_op = [n for n in body["graph"]["nodes"] if n["op"] in ("mul", "div", "pow")][-1]
    assert last_op["ledger"]["flops_backward"] == flops_backward


# ---- the scalar fast path (ledger._scalar_build) against build's general passes -------------
SCALAR_LEDGER = [
    "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 40,
    "a = 0.5\nb = const(2.0)\nd = detach(a) * b\nL = tanh(a + d) - b\n",
    "a = 2.0\nb = a * a * a + a\nc = const(3.0)\nL = b * c - c\n",
    "x = 0.0\nz = 1e-200\na = 1.0 / x\nb = x / x\nL = a + b + z * z\n",   # inf and nan
    "w = 0.3\nL = relu(w) + sigmoid(-w) ** 2 + abs(w - 1)\n",
    "α = 0.5\nβ = 1.5\nγ = α * β + α / 1.25 - β\nL = γ ** 2\n",
    "a = 0.5\nb = a * 3.0\nc = b * b\nunused = b / 7.0 - a\nL = c - 1.0\n",   # past the output
    "x = 0.5\nz = x * 1\nz += 1.0\nz *= x\ny = z * 2 + 1\n",
    "a = 1.0\nb = a * 2 + 3\nwith checkpoint():\n    c = b * b - a\nL = c * 2\n",   # general
    "x = [1.0, 2.0]\nL = sum(x * x)\n",   # tensors: general
    "# dtype: float32\nx = 1.5\nL = x * x\n",   # numpy floats: general
]


def _ledgers(text: str, output: str | None = None) -> tuple:
    """(the fast path's ledger or None, build's general answer) of a traced program."""
    tracer = Tracer(text, output)
    args = (tracer.program, tracer.values, tracer.flops, tracer.requires, tracer.output)
    general = ledger._scalar_build
    try:
        ledger._scalar_build = lambda *a: None
        slow = ledger.build(*args)
    finally:
        ledger._scalar_build = general
    return ledger._scalar_build(*args), slow


@pytest.mark.parametrize("text", SCALAR_LEDGER)
def test_the_scalar_ledger_is_builds(text):
    fast, slow = _ledgers(text)
    if fast is not None:
        assert fast == slow and list(fast.totals) == list(slow.totals)
    assert tracer_ledger(text) == slow


def test_the_scalar_ledger_takes_the_chain_and_an_inner_output():
    assert _ledgers(SCALAR_LEDGER[0])[0] is not None
    fast, slow = _ledgers(SCALAR_LEDGER[6], output="b")   # nodes after it: no backward step
    assert fast is not None and fast == slow


def test_the_scalar_ledger_hands_tensors_and_blocks_back():
    for text in SCALAR_LEDGER[-3:]:
        assert _ledgers(text)[0] is None


@pytest.mark.parametrize("text", [c["program"] for c in CASES] +
                         [p["program"] for p in presets()])
def test_the_scalar_ledger_is_builds_on_every_case_and_preset(text):
    try:
        fast, slow = _ledgers(text)
    except ProgramError:
        return
    assert fast is None or fast == slow


def tracer_ledger(text: str):
    return Tracer(text).ledger
