"""What the notebook widget (server/widget.py) traces in each of its modes: the JSON body its
page steps, as the explorer's page gets it.

    reverse   POST /api/trace's body (a program with a `# hvp:` line is traced in hvp mode,
              as the page's reverse mode is: engine/second_order.py)
    forward   the same in forward mode (tangent 1 on the first leaf)
    hvp       the Hessian-vector product of the program's `# hvp:` line (engine/trace/hvp.py),
              both walks; a program without the line is refused (the line is the vector)
    train     iteration `iteration` of a training run (engine/train: `steps` iterations of
              forward, zero_grad, backward, update at `lr` with `optimizer`), recorded whole as
              POST /api/train's `recorded` holds it (its zero_grad and update events among the
              steps), plus `train`: {"losses": the loss before each update, "iteration",
              "steps", "accuracy", "diverged"} for the loss curve

The limits are the settings' (GRADWALK_*), as for the CLI: a run over one is a ProgramError
naming its setting (server/training.py named).
"""
from __future__ import annotations

from dataclasses import dataclass

import orjson

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.train import TrainConfig
from gradwalk.engine.trace.options import Options
from gradwalk.server.settings import Settings
from gradwalk.server.tracing import parse_program, trace_body

MODES = ("reverse", "forward", "hvp", "train")
OPTIMIZERS = ("sgd", "momentum", "adam")   # engine/train/optim.py, static/js/state.js


@dataclass(frozen=True)
class TrainAsk:
    """Train mode's run: steps >= 1 iterations at learning rate lr (0 < lr <= 1e6) with
    optimizer (OPTIMIZERS); iteration (0..steps-1) is the one recorded for the player."""

    steps: int = 100
    lr: float = 0.1
    optimizer: str = "sgd"
    iteration: int = 0


def walk_body(program: str, output: str, mode: str, settings: Settings,
              train: TrainAsk = TrainAsk()) -> bytes:
    """The JSON body the widget's page steps for `program` in `mode` (see the module
    docstring). Raises ProgramError: the program's, a GRADWALK_ limit's, "bad_argument" for
    hvp mode without a `# hvp:` line, a train field out of range or nothing to train."""
    if mode == "train":
        return _train_body(program, output or None, settings, train)
    if mode == "hvp":
        parsed = parse_program(program, settings)
        if parsed.second_order is None or parsed.second_order.vector is None:
            raise ProgramError("bad_argument", "hvp mode takes its vector from the program's "
                               "`# hvp:` line, and this program has none",
                               hint='add a first line such as `# hvp: {"a": 1.0}`')
        return trace_body(parsed, output or None, settings, options=Options(mode="hvp"))
    return trace_body(program, output or None, settings, options=Options(mode=mode))


def _train_body(program: str, output: str | None, settings: Settings, ask: TrainAsk) -> bytes:
    """Iteration ask.iteration's recorded walk with the run's losses beside it (`train`)."""
    from gradwalk.server.training import ORJSON, named, train_limits
    from gradwalk.engine.train import train

    if not 0 <= ask.iteration < ask.steps:
        raise ProgramError("bad_argument", f"iteration must be from 0 to {ask.steps - 1} "
                           f"(train_steps - 1), not {ask.iteration}")
    parsed = parse_program(program, settings)
    config = TrainConfig(steps=ask.steps, lr=float(ask.lr), optimizer=ask.optimizer,
                         record=(ask.iteration,), output=output, limits=train_limits(settings))
    try:
        answer = train(parsed, config)
    except ProgramError as e:   # a limit's message names its GRADWALK_ setting
        raise ProgramError(**named(e.to_dict())) from None
    recorded = orjson.loads(orjson.dumps(answer["recorded"], option=ORJSON))
    walk = recorded.get(str(ask.iteration))
    if walk is None:   # a run that diverged before the iteration records nothing there
        why = (answer.get("diverged") or {}).get("why", "the run stopped")
        raise ProgramError("bad_argument", f"iteration {ask.iteration} was not reached: {why}")
    walk["train"] = {"losses": answer["losses"], "iteration": ask.iteration,
                     "steps": ask.steps, "accuracy": answer.get("accuracy"),
                     "diverged": answer.get("diverged")}
    return orjson.dumps(walk, option=ORJSON)
