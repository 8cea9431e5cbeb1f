"""Python's `random` as seeded leaf initialisers (issue 18 §4; engine/parse_random.py): seed
003's XOR program traces as written, imports and `random.seed(1)` and its weights'
comprehension included, with CPython's own numbers for the weights and PyTorch float64's for
the loss and the gradients; every other use of random a located ProgramError."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from gradwalk.engine.parse import parse
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from helpers import assert_located
from test_python_programs import XOR, _xor_params, _xor_torch
from test_unrolled_python import _error   # also: refused within a second

# Seed 003's program as the seed prints it (../shared/seeds/003_*.txt, "A network to train"
# and the first line of "Check it before trusting it"): its imports, its random weights.
SEED_003 = """import random
from tiny_autograd import Value           # the class above, saved as tiny_autograd.py

random.seed(1)
X = [(0, 0), (0, 1), (1, 0), (1, 1)]
Y = [0, 1, 1, 0]                          # XOR: class 1 when exactly one input is 1
shapes = [(4, 2), (4, 1), (2, 4), (2, 1)] # W1, b1, W2, b2: 2 inputs, 4 hidden, 2 logits
params = [Value(random.uniform(-1, 1)) for r, c in shapes for _ in range(r * c)]
""" + XOR[XOR.index("\ndef forward"):]


def test_seed_003_traces_as_written_with_cpythons_weights_and_pytorchs_numbers():
    body = run_trace(SEED_003)
    params = next(n for n in parse(SEED_003).nodes if n.name == "params")
    assert params.role == "leaf"
    assert params.literal.tolist() == _xor_params()   # CPython's random.Random(1), exactly
    loss, grads = _xor_torch(_xor_params())
    assert f"{decode(body['output']['value']):.6f}" == "0.838159"   # the seed's printout
    np.testing.assert_allclose(decode(body["output"]["value"]), loss, rtol=1e-13)
    np.testing.assert_allclose(decode(body["grads"]["params"]), grads, rtol=1e-12, atol=1e-16)
    assert set(body["grads"]) == {"params"}   # X, Y, shapes: integer data, no gradient
    assert body.get("warnings", []) == []


def test_the_same_seed_gives_the_same_numbers_and_another_seed_others():
    text = "import random\nrandom.seed({s})\nw = random.uniform(-2, 3)\ng = random.gauss(0.5, 2.0)\n" \
           "v = [random.gauss(0, 1) for _ in range(3)]\nL = w * g + sum(v)\n"
    rng = random.Random(7)
    want = [rng.uniform(-2, 3), rng.gauss(0.5, 2.0), [rng.gauss(0, 1) for _ in range(3)]]
    for _ in range(2):
        nodes = {n.name: n.literal for n in parse(text.format(s=7)).nodes if n.role == "leaf"}
        assert [float(nodes["w"]), float(nodes["g"]), nodes["v"].tolist()] == want
    other = {n.name: n.literal for n in parse(text.format(s=8)).nodes if n.role == "leaf"}
    assert float(other["w"]) != want[0]
    # the gradients are PyTorch's at those numbers
    w, g = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in want[:2])
    v = torch.tensor(want[2], dtype=torch.float64, requires_grad=True)
    (w * g + v.sum()).backward()
    body = run_trace(text.format(s=7))
    assert decode(body["grads"]["w"]) == pytest.approx(g.item(), rel=1e-15)
    assert decode(body["grads"]["g"]) == pytest.approx(w.item(), rel=1e-15)


def test_a_reseed_starts_the_sequence_again():
    nodes = parse("import random\nrandom.seed(3)\na = random.uniform(0, 1)\nrandom.seed(3)\n"
                  "b = random.uniform(0, 1)\nL = a * b\n").nodes
    values = {n.name: float(n.literal) for n in nodes if n.role == "leaf"}
    assert values["a"] == values["b"] == random.Random(3).uniform(0, 1)


@pytest.mark.parametrize("text, kind, line, col, words", [
    ("random.seed(1)\na = 1.0\n", "unknown_name", 1, 0, "`random` is not imported"),
    ("import random\nw = random.uniform(-1, 1)\n", "bad_argument", 2, 4, "random.seed(n)"),
    ("import random\nrandom.seed()\na = 1.0\n", "bad_argument", 2, 0, "one int literal"),
    ("import random\nrandom.seed(1.5)\na = 1.0\n", "bad_argument", 2, 0, "one int literal"),
    ("import random\nrandom.seed(1)\nw = random.random()\n", "unsupported", 3, 4,
     "random.random is not supported"),
    ("import random\nrandom.seed(1)\nw = random.uniform(-1, x)\n", "bad_argument", 3, 23,
     "b must be a finite number"),
    ("import random\nrandom.seed(1)\nw = [random.uniform(0, 1) for i in range(3) if i]\n",
     "unsupported", 3, 4, "`if`"),
    ("import random\nrandom.seed(1)\nw = [random.uniform(0, 1) for _ in range(0)]\n",
     "bad_argument", 3, 4, "no elements"),
    ("import random\nrandom.seed(1)\nw = [random.uniform(0, 1) for a, b in [1, 2]]\n",
     "bad_argument", 3, 30, "cannot unpack 1"),
    ("import random as r\na = 1.0\n", "unsupported", 1, 0, "an import"),
    ("from os import path\na = 1.0\n", "unsupported", 1, 0, "an import"),
    ("import random\nrandom.seed(1)\nw = [random.uniform(0, 1) for _ in range(1000000000)]\n",
     "too_large", 3, 4, "max_elements"),
    ("import random\nrandom.seed(1)\nw = [random.uniform(0, 1) for _ in range(100000) "
     "for _ in range(0)]\n", "too_large", 3, 4, "max_elements"),
])
def test_what_random_does_not_do_is_located(text, kind, line, col, words):
    assert_located(_error(text, max_elements=1000), kind, line, col, words)


def test_a_seeds_draws_count_against_max_total_elements():
    text = "import random\nrandom.seed(1)\nw = [random.uniform(0, 1) for _ in range(60)]\n" \
           "v = [random.uniform(0, 1) for _ in range(60)]\nL = sum(w) + sum(v)\n"
    assert parse(text, max_elements=100, max_total_elements=200).leaves
    e = _error(text, max_elements=100, max_total_elements=100)
    assert (e.kind, e.line) == ("too_large", 4)


def test_seed_003s_params_match_the_list_the_readme_offered_instead():
    """The README's earlier stand-in (`params = [...]`, the numbers as a list literal): the
    same trace, node for node, as the random line gives."""
    as_list = run_trace(XOR.format(params=json.dumps(_xor_params())))
    drawn = run_trace(SEED_003)
    assert decode(drawn["grads"]["params"]).tolist() == decode(as_list["grads"]["params"]).tolist()
