"""The page's training limits and refusals (static/js/train-rules.js) are the engine's and the
CLI's: read through node and compared, so that a limit changed on one side fails here instead
of the page refusing what the server runs, or the other way round (a newcomer's check)."""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gradwalk.engine.train.config import LR_RULE, MAX_LR
from gradwalk.engine.trace.limits import TrainLimits
from gradwalk.server.cli_train import _rate

REPO = Path(__file__).parents[2]
READ = """import * as r from "./static/js/train-rules.js";
console.log(JSON.stringify({MAX_LR: r.MAX_LR, MAX_TRAIN_STEPS: r.MAX_TRAIN_STEPS, LR_RULE: r.LR_RULE,
  abc: r.lrRefusal("abc"), neg: r.lrRefusal("-1")}));"""


@pytest.fixture(scope="module")
def page_rules() -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    out = subprocess.run([node, "--input-type=module", "-e", READ], cwd=REPO, check=True,
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


def test_the_page_has_the_engines_limits(page_rules):
    assert page_rules["MAX_LR"] == MAX_LR == 1e6
    assert page_rules["MAX_TRAIN_STEPS"] == TrainLimits().max_steps == 10_000
    assert page_rules["LR_RULE"] == LR_RULE == "a number above 0 and at most 1,000,000"


@pytest.mark.parametrize("typed, key", [("abc", "abc"), ("-1", "neg")])
def test_the_page_refuses_a_learning_rate_in_the_clis_words(page_rules, typed, key):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        _rate(typed)
    assert page_rules[key] == str(e.value) == \
        f"'{typed}' is not a learning rate: give a number above 0 and at most 1,000,000, e.g. 0.1"
