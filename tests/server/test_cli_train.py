"""`gradwalk train` (issue 15, section 2): json is engine.train's answer, table the run as text,
and the exit codes of `gradwalk trace` (server/cli.py EXIT_CODES)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
from train_programs import seed003_loop_xor, seed003_xor  # noqa: E402  (tests/engine)

from gradwalk.engine.parse import parse  # noqa: E402
from gradwalk.engine.train import TrainConfig, train  # noqa: E402
from gradwalk.server.cli_train import table  # noqa: E402

CLI = [sys.executable, "-m", "gradwalk.server.cli"]


def gradwalk(*args: str, stdin: str | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=120, **kw)


def _one_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    return stderr


def test_json_is_the_engines_answer_with_a_recorded_walk():
    r = gradwalk("train", "-", "--steps", "301", "--lr", "0.5", "--record", "100,0",
                 stdin=seed003_xor(1))
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert [f"{answer['losses'][k]:.4f}" for k in (0, 100, 200, 300)] == \
        ["0.8382", "0.1102", "0.0261", "0.0132"]
    want = train(parse(seed003_xor(1)), TrainConfig(steps=301, lr=0.5, record=(0, 100)))
    assert answer == json.loads(json.dumps(want))
    assert sorted(answer["recorded"]) == ["0", "100"]


def test_table_of_seed_5_shows_the_stall_and_the_dead_unit(tmp_path):
    path = tmp_path / "seed5.py"
    path.write_text(seed003_xor(5))
    r = gradwalk("train", str(path), "--steps", "301", "--lr", "0.5", "--format", "table")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["iteration", "loss"]   # the page's word (was "step")
    assert lines[1].split() == ["0", "1.64053"] and lines[2].split() == ["30", "0.695083"]
    assert lines[11].split() == ["300", "0.693148"]   # ln 2 = 0.6931472: a coin flip
    assert "accuracy: 50.0% of the training samples after the last update" in lines
    # the page's words (static/js/train.js deadText), no node id (was "h unit 3 (n8)")
    assert lines[-2:] == ["dead ReLU units (pre-activation ≤ 0 for every sample):",
                          "  h: unit 3 dead (since iteration 0)"]
    assert "n8" not in r.stdout


def test_table_of_seed_5_written_with_loops_lists_the_units_relu_on_each_sample():
    r = gradwalk("train", "-", "--steps", "20", "--lr", "0.5", "--format", "table",
                 stdin=seed003_loop_xor(5))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "  hid: unit 3 dead (since iteration 0)"
    # its softmax cross-entropy is written by hand: a classifier, but not one the engine can
    # read classes from, so no accuracy, and not called "a regression loss" (it was)
    assert ("accuracy: not measured (the loss does not use cross_entropy(z, y), which names "
            "the classes)") in r.stdout.splitlines()
    assert "n41" not in r.stdout   # its relu nodes, one a sample, are the page's marks only


def test_json_keeps_the_dead_units_node_ids(tmp_path):
    # the table's words changed, not the API: the json answer keeps every key
    r = gradwalk("train", "-", "--steps", "20", "--lr", "0.5", stdin=seed003_xor(5))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["dead_units"] == [
        {"node": "n8", "name": "h", "unit": 3, "iteration": 0}]


@pytest.mark.parametrize("dead, words", [
    ([("h", 2, 0)], "h: unit 2 dead (since iteration 0)"),
    ([("h", 1, 0), ("h", 0, 0)], "h: units 0, 1 dead (since iteration 0)"),
    ([("h", 36, 16), ("h", 32, 3), ("h", 40, 32)],
     "h: units 32 (since iteration 3), 36 (since iteration 16), 40 (since iteration 32) dead"),
])
def test_dead_units_are_said_as_the_page_says_them(dead, words):
    # static/js/train.js deadText's three forms, one line a layer
    units = [{"node": "n5", "name": n, "unit": u, "iteration": i} for n, u, i in dead]
    answer = {"losses": [1.0], "accuracy": None, "dead_units": units, "recorded": {}}
    assert table(answer).splitlines()[-1] == f"  {words}"

def test_optimizer_and_bug_flags_reach_the_engine():
    args = ["train", "-", "--steps", "30", "--lr", "0.1"]
    plain = json.loads(gradwalk(*args, stdin=seed003_xor(1)).stdout)["losses"]
    adam = json.loads(gradwalk(*args, "--optimizer", "adam", stdin=seed003_xor(1)).stdout)
    bug = json.loads(gradwalk(*args, "--bug", "no_zero_grad", stdin=seed003_xor(1)).stdout)
    config = TrainConfig(steps=30, lr=0.1, optimizer="adam")
    assert adam["losses"] == train(parse(seed003_xor(1)), config)["losses"] != plain
    config = TrainConfig(steps=30, lr=0.1, bugs=("no_zero_grad",))
    assert bug["losses"] == train(parse(seed003_xor(1)), config)["losses"] != plain


@pytest.mark.parametrize("args, message", [
    (["--steps", "0", "--lr", "0.5"], "argument --steps: '0' is not a number of steps"),
    (["--steps", "ten", "--lr", "0.5"], "argument --steps: 'ten' is not a number of steps"),
    (["--steps", "3", "--lr", "nan"], "argument --lr: 'nan' is not a learning rate"),
    (["--steps", "3", "--lr", "-1"], "argument --lr: '-1' is not a learning rate"),
    (["--steps", "3", "--lr", "0.5", "--record", "1,x"], "'1,x' is not a list of iterations"),
    (["--steps", "3", "--lr", "0.5", "--optimizer", "rmsprop"], "invalid choice: 'rmsprop'"),
    (["--steps", "3", "--lr", "0.5", "--bug", "overwrite"], "invalid choice: 'overwrite'"),
    (["--lr", "0.5"], "the following arguments are required: --steps"),
])
def test_a_bad_flag_is_a_usage_error(args, message):
    r = gradwalk("train", "-", *args, stdin="a = 1.0\nL = a * a\n")
    assert r.returncode == 2 and r.stdout == ""
    assert message in _one_line(r.stderr) and "(see `gradwalk train --help`)" in r.stderr


@pytest.mark.parametrize("fmt", ["json", "table"])
@pytest.mark.parametrize("program, args, words", [
    ("a = 1.0\nb = a +* 2\n", [], "line 2, column 8"),
    ("a = 1.0\nL = a * a\n", ["--steps", "10001"],
     "the limit (max_steps, GRADWALK_MAX_TRAIN_STEPS) is 10,000"),
    ("a = 1.0\nL = a * a\n", ["--record", "3"], "iterations run from 0 to 2"),
    ("A = [1.0, 2.0]\nL = A * A\n", [], "training needs a scalar loss"),
])
def test_a_refused_run_is_exit_1_in_one_line(fmt, program, args, words):
    flags = {"--steps": "3", "--lr": "0.5"}
    flags.update(dict(zip(args[::2], args[1::2])))
    r = gradwalk("train", "-", "--format", fmt, *[x for kv in flags.items() for x in kv],
                 stdin=program)
    assert r.returncode == 1
    assert words in _one_line(r.stderr)
    if fmt == "json":
        assert words in json.loads(r.stdout)["error"]["message"] or \
            json.loads(r.stdout)["error"]["line"] == 2
    else:
        assert r.stdout == ""


def test_the_train_settings_apply_to_the_cli():
    # the bound set to 3 (GRADWALK_MAX_TRAIN_STEPS), then 4 steps asked: refused by its name
    import os

    env = {**os.environ, "GRADWALK_MAX_TRAIN_STEPS": "3"}
    ok = gradwalk("train", "-", "--steps", "3", "--lr", "0.1", stdin="a = 1.0\nL = a * a\n",
                  env=env)
    assert ok.returncode == 0 and len(json.loads(ok.stdout)["losses"]) == 3
    r = gradwalk("train", "-", "--steps", "4", "--lr", "0.1", "--format", "table",
                 stdin="a = 1.0\nL = a * a\n", env=env)
    assert r.returncode == 1
    assert _one_line(r.stderr) == ("gradwalk: -: too large: 4 steps asked; the limit (max_steps, "
                                   "GRADWALK_MAX_TRAIN_STEPS) is 3 (train for fewer steps)\n")


def test_a_missing_file_is_exit_2():
    r = gradwalk("train", "/nonexistent/p.py", "--steps", "3", "--lr", "0.5")
    assert r.returncode == 2 and "cannot read /nonexistent/p.py" in _one_line(r.stderr)


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_a_full_disk_is_exit_4(fmt, tmp_path):
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\nL = a * a\n")
    with open("/dev/full", "wb") as full:
        r = subprocess.run([*CLI, "train", str(path), "--steps", "3", "--lr", "0.1",
                            "--format", fmt], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=120)
    assert r.returncode == 4
    assert _one_line(r.stderr) == "gradwalk: cannot write the output: No space left on device\n"


def test_help_lists_train_and_its_exit_codes():
    r = gradwalk("train", "--help")
    assert r.returncode == 0 and "--optimizer {sgd,momentum,adam}" in r.stdout
    assert "exit codes:" in r.stdout
    assert "train" in gradwalk("--help").stdout


def test_help_says_what_file_is_and_that_format_defaults_to_json():
    # a newcomer's check: --format's default was not said, and `file` had no words at all
    r = gradwalk("train", "--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())   # argparse wraps the help at the terminal's width
    assert "file the program to train: a path, or '-' to read it from stdin" in text
    assert "--format {json,table} json (default): engine.train's answer, as POST /api/train's;" \
        " table: the loss every tenth of the run, then the accuracy and the dead units" in text
