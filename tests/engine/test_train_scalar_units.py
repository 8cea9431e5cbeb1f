"""Dead ReLU units in programs written with scalars (issue 15 §2; engine/train/units.py): seed
003's XOR as the seed writes it (tests/engine/train_programs.py LOOP_XOR: scalars, `for` over
`zip(X, Y)`, a list comprehension, `def forward`) reports the units the tensor program does.

References: the tensor-written preset "XOR, seed 5" (server/presets.json) and seed003_xor(s),
whose dead units tests/engine/test_train.py checks against the seed's own account (seed 5:
one hidden unit negative for all four examples, stuck at ln 2)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gradwalk.engine.parse import parse
from gradwalk.engine.train import TrainConfig, iterations, train
from gradwalk.engine.trace.values import decode
from train_programs import XOR_X, seed003_loop_xor, seed003_xor

PRESETS = Path(__file__).resolve().parents[2] / "server" / "presets.json"
# the loop-written program's relu nodes of unit 3 (hid[3]), one per sample (iteration of the
# zip loop), and those of unit 0
UNIT_3 = ["n41", "n120", "n199", "n278"]
UNIT_0 = ["n17", "n96", "n175", "n254"]


def _preset(title: str) -> str:
    return next(p["program"] for p in json.loads(PRESETS.read_text())
                if p["title"].startswith(title))


def _units(answer: dict) -> list[tuple[int, int]]:
    return [(d["unit"], d["iteration"]) for d in answer["dead_units"]]


def test_seed_5_written_with_loops_reports_its_dead_unit_as_the_tensor_preset():
    config = TrainConfig(steps=301, lr=0.5)
    loops = train(parse(seed003_loop_xor(5)), config)
    tensor = train(parse(_preset("XOR, seed 5")), config)
    assert loops["losses"][-1] == pytest.approx(math.log(2), abs=1e-4)
    assert np.allclose(loops["losses"], tensor["losses"], rtol=1e-11, atol=1e-14)
    assert tensor["dead_units"] == [{"node": "n9", "name": "h", "unit": 3, "iteration": 0}]
    # the same unit and iteration; named by the list the graph stacks the units into
    assert loops["dead_units"] == [{"node": "n41", "name": "hid", "unit": 3, "iteration": 0,
                                    "nodes": UNIT_3}]
    # unit 3's pre-activation is <= 0 for every example with the final weights
    w = decode(loops["params"]["params"])
    pre = [w[6] * x0 + w[7] * x1 + w[11] for x0, x1 in XOR_X]
    assert max(pre) <= 0


@pytest.mark.parametrize("seed", [0, 1, 5, 8])
def test_written_with_loops_reports_what_the_tensor_program_reports(seed):
    """Seed 1 (the preset "XOR, seed 003 (learns)") loses units 0 and 1 at iteration 0; seed 0
    unit 1 at iteration 6, seed 8 unit 1 at iteration 2: each unit with the iteration it
    died, as seed003_xor(seed) reports it."""
    config = TrainConfig(steps=301, lr=0.5)
    loops = train(parse(seed003_loop_xor(seed)), config)
    tensor = train(parse(seed003_xor(seed)), config)
    assert _units(loops) == _units(tensor) != []
    assert {d["name"] for d in loops["dead_units"]} == {"hid"}
    for d in loops["dead_units"]:
        assert len(d["nodes"]) == 4 and d["node"] == d["nodes"][0]


def test_the_stream_and_a_recorded_iteration_carry_the_scalar_units_nodes():
    events = list(iterations(parse(seed003_loop_xor(1)),
                             TrainConfig(steps=3, lr=0.5, record=(1,))))
    dead = [e for e in events if e["type"] == "dead"]
    assert dead == [{"type": "dead", "i": 0, "node": "n17", "name": "hid", "unit": 0,
                     "nodes": UNIT_0},
                    {"type": "dead", "i": 0, "node": "n25", "name": "hid", "unit": 1,
                     "nodes": ["n25", "n104", "n183", "n262"]}]
    body = next(e for e in events if e["type"] == "recorded")["trace"]
    assert body["dead_units"] == [{k: v for k, v in e.items() if k not in ("type", "i")}
                                  | {"iteration": 0} for e in dead]
    # every node listed is a relu of the recorded walk's graph
    ops = {n["id"]: n["op"] for n in body["graph"]["nodes"]}
    assert {ops[k] for d in body["dead_units"] for k in d["nodes"]} == {"relu"}


# ---- which relu nodes are one unit ---------------------------------------------------------
def _dead(text: str) -> list[dict]:
    return train(parse(text), TrainConfig(steps=1, lr=0.1))["dead_units"]


def test_a_relu_named_in_a_loop_is_a_unit_across_the_loops_samples():
    # unit 0 (w0 = -1) is negative on both samples; unit 1 on one only: alive
    text = ("w = [-1.0, 1.0]\nL = 0.0 * w[0]\nfor x, _ in zip([1.0, -2.0], [0, 0]):\n"
            "    h = relu(w[0] * x * x)\n    g = relu(w[1] * x)\n    L = L + h + g\n")
    dead = _dead(text)
    assert [(d["name"], d["unit"], d["iteration"], len(d["nodes"])) for d in dead] == \
        [("h", 0, 0, 2)]


def test_a_function_called_at_two_places_is_two_layers_not_two_samples():
    # one sample; layer(x) and layer(-x): the relu of each call site is a unit of its own
    # (one sample each), unit 0 dead only in the second layer
    text = ("w = [1.0, 2.0]\ndef layer(v):\n    return [relu(w[i] * v) for i in range(2)]\n"
            "x = const(1.0)\na = layer(x)\nb = layer(-x)\nL = sum(a) + sum(b)\n")
    dead = _dead(text)
    assert [(d["name"], d["unit"], len(d["nodes"])) for d in dead] == [("b", 0, 1), ("b", 1, 1)]


def test_relus_written_out_one_by_one_are_not_units():
    # bench/train.py's scalar XOR: a line per sample and unit, no loop to tell samples from
    # units, so nothing is reported (as before), though h0_0 is 0 for its one sample
    text = "w = -1.0\nh0_0 = relu(w * 2.0)\nh1_0 = relu(w * 3.0)\nL = h0_0 + h1_0 + w * w\n"
    assert _dead(text) == []
