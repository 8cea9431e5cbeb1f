"""The number flags of `gradwalk train` and `gradwalk trace` (server/cli_numbers.py): a value
of the wrong form is a usage error (exit 2, one line) that quotes what was typed and says what
the flag takes. `--lr abc` said "... not nan" (the value 'abc' had become), `--steps ²` was
argparse's own "invalid _steps value", and `--output-grad NaN` ran as far as the engine (exit
1, with nothing the user typed in the message)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradwalk.server.cli import main

PROGRAM = "a = 1.0\nL = a * a\n"
LR = "a number above 0 and at most 1,000,000, e.g. 0.1"
STEPS = "a whole number from 1, e.g. 300"
RECORD = "whole numbers from 0 separated by commas, e.g. 0,100,300"
EPS = "a number with 0 < H <= 1, e.g. 1e-6"
BAD = ["abc", "nan", "inf", "-1", "0", "1e999", "", "²", "١٢", "3.5"]


@pytest.fixture(scope="module")
def prog(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("numbers") / "p.py"
    path.write_text(PROGRAM)
    return str(path)


def _refused(capsys, argv: list[str]) -> str:
    """The one line `gradwalk argv` writes before exit 2 (argparse's SystemExit, in-process:
    the subprocess path is test_every_bad_lr_is_exit_2_without_a_traceback's)."""
    with pytest.raises(SystemExit) as ended:
        main(argv)
    out, err = capsys.readouterr()
    assert ended.value.code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("typed", ["abc", "nan", "inf", "-1", "0", "1e999", "", "²", "1000001",
                                   "1e-400"])
def test_a_bad_lr_quotes_what_was_typed_and_says_the_rule(capsys, prog, typed):
    err = _refused(capsys, ["train", prog, "--steps", "3", "--lr", typed])
    assert f"argument --lr: {typed!r} is not a learning rate: give {LR} (see" in err
    assert "not nan" not in err and "not inf" not in err


def test_abc_as_lr_is_the_issues_line(capsys, prog):
    assert _refused(capsys, ["train", prog, "--steps", "3", "--lr", "abc"]) == (
        "gradwalk: train: argument --lr: 'abc' is not a learning rate: give a number above 0 "
        "and at most 1,000,000, e.g. 0.1 (see `gradwalk train --help`)\n")


@pytest.mark.parametrize("typed", [*BAD, "9" * 5000])
def test_a_bad_steps_quotes_what_was_typed(capsys, prog, typed):
    err = _refused(capsys, ["train", prog, "--steps", typed, "--lr", "0.1"])
    assert f"argument --steps: {typed[:40]!r}" in err and f"is not a number of steps: give " \
        f"{STEPS} (see" in err
    assert "invalid" not in err and len(err) < 200   # 5,000 nines are quoted by their first 40


@pytest.mark.parametrize("typed", [*BAD[:3], "-1", "1e999", "", "²", "١", "3.5", "0,,1",
                                   "1," + "9" * 5000])
def test_a_bad_record_quotes_what_was_typed(capsys, prog, typed):
    err = _refused(capsys, ["train", prog, "--steps", "3", "--lr", "0.1", "--record", typed])
    assert f"argument --record: {typed[:40]!r}" in err and f"is not a list of iterations: " \
        f"give {RECORD} (see" in err and "invalid" not in err


@pytest.mark.parametrize("typed", BAD + ["1e-400"])
def test_a_bad_eps_quotes_what_was_typed(capsys, prog, typed):
    err = _refused(capsys, ["trace", prog, "--check", "--eps", typed])
    assert f"argument --eps: {typed!r} is not a step: give {EPS} (see" in err


@pytest.mark.parametrize("flag, typed, number", [
    ("--output-grad", "NaN", "NaN"), ("--output-grad", "[1, Infinity]", "Infinity"),
    ("--output-grad", "1e999", "1e999"), ("--output-grad", "-" + "9" * 5000,
                                           "an integer of 5,000 digits"),
    ("--output-grad", "1" + "0" * 309, "an integer of 310 digits"),
    ("--tangents", '{"a": NaN}', "NaN"), ("--vector", '{"a": -Infinity}', "-Infinity"),
    ("--vector", '{"a": [1, 2e400]}', "2e400"),
])
def test_a_json_flag_with_a_number_no_float_holds_is_a_usage_error(capsys, prog, flag, typed,
                                                                   number):
    # was exit 1, the engine's "output_grad must hold finite numbers" (nothing typed quoted)
    mode = {"--tangents": ["--mode", "forward"], "--vector": ["--mode", "hvp"]}.get(flag, [])
    err = _refused(capsys, ["trace", prog, *mode, flag, typed])
    assert f"argument {flag}: {typed[:40]!r}" in err
    assert f"holds {number}, which is not a finite number: give " in err


@pytest.mark.parametrize("argv", [["--output-grad", "-1"], ["--output-grad", "1e308"],
                                  ["--mode", "hvp", "--vector", '{"a": 0}'],
                                  ["--check", "--eps", "1"]])
def test_the_edges_that_are_numbers_still_run(capsys, prog, argv):
    assert main(["trace", prog, *argv]) == 0


def test_the_largest_numbers_taken_still_train(capsys, prog):
    assert main(["train", prog, "--steps", "2", "--lr", "1e6", "--record", "0, 1"]) == 0
    assert main(["train", prog, "--steps", "0003", "--lr", " 0.5 "]) == 0


def test_every_bad_lr_is_exit_2_without_a_traceback(prog):
    # the whole process: argparse's SystemExit is the exit code, stderr the one line
    r = subprocess.run([sys.executable, "-m", "gradwalk.server.cli", "train", prog, "--steps",
                        "3", "--lr", "abc", "--format", "table"], capture_output=True,
                       text=True, timeout=120)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("gradwalk: train: argument --lr: 'abc' is not a learning rate: give a "
                        f"number above 0 and at most 1,000,000, e.g. 0.1 (see `gradwalk train "
                        "--help`)\n")
