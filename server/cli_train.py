"""`gradwalk train FILE|- --steps N --lr LR [--optimizer sgd|momentum|adam] [--record K,...]
[--bug no_zero_grad] [--output NAME] --format json|table` (issue 15, section 2).

json writes the answer of engine.train.train (the same as POST /api/train's body, under the
same limits: server/training.py train_limits, the GRADWALK_MAX_TRAIN_* settings); table one
row per tenth of the run with its loss and accuracy, then a warning when the run diverged (its
loss or parameters became NaN or infinite), the final accuracy, the dead units and the
recorded iterations. Exit codes are `gradwalk trace`'s (server/cli.py EXIT_CODES): a
flag of the wrong form is a usage error (2), a program or a limit the run refuses is 1.
"""
from __future__ import annotations

import argparse

import orjson

from gradwalk.server.cli_io import write_stdout
from gradwalk.server.cli_numbers import number, refusal, whole


def _steps(value: str) -> int:
    """--steps' type: a whole number from 1 (the limit is the engine's, max_steps: exit 1)."""
    steps = whole(value, 1)
    if steps is None:
        raise refusal(value, "a number of steps", "a whole number from 1, e.g. 300")
    return steps


def _rate(value: str) -> float:
    """--lr's type: a number the engine takes (engine/train/config.py check_lr: above 0, at
    most MAX_LR), refused in the words of its rule (LR_RULE), quoting what was typed."""
    from gradwalk.engine.train.config import LR_RULE, MAX_LR

    return number(value, "a learning rate", f"{LR_RULE}, e.g. 0.1", lambda lr: 0 < lr <= MAX_LR)


def _iterations(value: str) -> tuple[int, ...]:
    """--record's type: iterations separated by commas, e.g. 0,100,300 (below --steps: the
    engine's check, exit 1)."""
    parts = [whole(p.strip()) for p in value.split(",")]
    if None in parts:
        raise refusal(value, "a list of iterations", "whole numbers from 0 separated by commas, "
                      "e.g. 0,100,300")
    return tuple(sorted(set(parts)))


def add_parser(sub, epilog: str) -> None:
    """The `train` subcommand on the CLI's subparsers."""
    train = sub.add_parser("train", help="train a program's leaves ('-' reads stdin)",
                           epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    train.add_argument("file", help="the program to train: a path, or '-' to read it from stdin")
    train.add_argument("--steps", type=_steps, required=True, metavar="N",
                       help="iterations: forward, zero_grad, backward, update")
    train.add_argument("--lr", type=_rate, required=True,
                       help="the learning rate: above 0, at most 1e6 (as the API)")
    train.add_argument("--optimizer", choices=("sgd", "momentum", "adam"), default="sgd",
                       help="sgd (default), momentum (0.9) or adam (PyTorch's defaults)")
    train.add_argument("--record", type=_iterations, default=(), metavar="K,...",
                       help="iterations whose whole walk is kept (json: `recorded`)")
    train.add_argument("--bug", dest="bugs", action="append", default=[],
                       choices=("no_zero_grad",),
                       help="no_zero_grad: never zero the gradients (they pile up)")
    train.add_argument("--output", default=None, help="the loss's name (default: the last)")
    train.add_argument("--format", choices=("json", "table"), default="json",
                       help="json (default): engine.train's answer, as POST /api/train's; table: "
                       "the loss every tenth of the run, then the accuracy and the dead units")


def run(args, make) -> int:
    """Run `gradwalk train`; make: server.cli._make (reads the file, maps errors to codes)."""
    def answer(text: str, settings) -> dict:
        from gradwalk.engine.errors import ProgramError
        from gradwalk.engine.train import TrainConfig, train
        from gradwalk.server.training import named, train_limits
        from gradwalk.server.tracing import parse_program

        program = parse_program(text, settings)
        config = TrainConfig(steps=args.steps, lr=args.lr, optimizer=args.optimizer,
                             record=args.record, bugs=tuple(args.bugs), output=args.output,
                             limits=train_limits(settings))   # POST /api/train's limits
        try:
            return train(program, config)
        except ProgramError as e:   # a limit's message names its GRADWALK_ setting too
            raise ProgramError(**named(e.to_dict())) from None

    code, result = make(args.file, answer, json_errors=args.format == "json")
    if code:
        return code
    if args.format == "json":
        write_stdout(orjson.dumps(result) + b"\n")
    else:
        write_stdout(table(result).encode())
    return 0


def table(answer: dict) -> str:
    """The run as text: a row per tenth of the steps (and the last), then what it ended at."""
    losses = answer["losses"]
    n = len(losses)
    every = max(1, n // 10)
    rows = sorted({*range(0, n, every), n - 1})
    lines = [f"{'iteration':>9}  {'loss':>12}"]   # the page's word: iteration k, from 0
    lines += [f"{k:>9}  {_number(losses[k]):>12}" for k in rows]
    acc = answer["accuracy"]
    lines.append("")
    if answer.get("diverged"):
        lines.append(f"WARNING: diverged at iteration {answer['diverged']['iteration']}: "
                     f"{answer['diverged']['why']}")
    # None means no cross_entropy node under the loss: an mse, or a softmax written by hand
    # (seed 003's XOR with loops), whose classes the engine cannot name, so not "regression"
    lines.append("accuracy: not measured (the loss does not use cross_entropy(z, y), which "
                 "names the classes)" if acc is None else
                 f"accuracy: {acc:.1%} of the training samples after the last update")
    if answer["dead_units"]:
        lines.append("dead ReLU units (pre-activation ≤ 0 for every sample):")
        lines += [f"  {dead_text(units)}" for units in _by_node(answer["dead_units"])]
    if answer["recorded"]:
        lines.append(f"recorded iterations: {', '.join(answer['recorded'])} (their walks are "
                     "in --format json)")
    return "\n".join(lines) + "\n"


def _by_node(dead: list[dict]) -> list[list[dict]]:
    """The dead units grouped by their node (its layer), in the answer's order: the page's
    deadByNode (static/js/train.js)."""
    groups: dict[str, list[dict]] = {}
    for d in dead:
        groups.setdefault(d["node"], []).append(d)
    return list(groups.values())


def dead_text(units: list[dict]) -> str:
    """A layer's dead units in the page's words (static/js/train.js deadText, the status line
    and the tag on the node): "h: unit 3 dead (since iteration 0)", "h: units 0, 1 dead (since
    iteration 0)", or each with its own iteration when they died apart: "h: units 32 (since
    iteration 3), 36 (since iteration 16) dead". No node id: the page never shows one."""
    name = ", ".join(dict.fromkeys(d["name"] for d in units))
    units = sorted(units, key=lambda d: d["unit"])
    plural = "unit" if len(units) == 1 else "units"
    if len({d["iteration"] for d in units}) == 1:
        return (f"{name}: {plural} {', '.join(str(d['unit']) for d in units)} dead "
                f"(since iteration {units[0]['iteration']})")
    each = ", ".join(f"{d['unit']} (since iteration {d['iteration']})" for d in units)
    return f"{name}: {plural} {each} dead"


def _number(x) -> str:
    return x if isinstance(x, str) else f"{x:.6g}"
