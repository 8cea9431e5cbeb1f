"""gradwalk: step through the forward and reverse-mode passes of a small program, node by node.

The Python API (the command line is `gradwalk`, server/cli.py; the page is `gradwalk serve`):

    import gradwalk
    gradwalk.trace("a = 2.0\\nL = a * a")["grads"]       # {'a': 4.0}
    gradwalk.train(program, steps=100, lr=0.1)["losses"]  # the loss before each update
    gradwalk.to_torch(program)        # the program as PyTorch code printing its gradients
    gradwalk.from_torch(module, x, y) # a PyTorch module as a program (the [torch] extra)

    w = gradwalk.show(program)   # a notebook widget (pip install "gradwalk[notebook]"):
    w.step = 12                  # server/widget.py; `%load_ext gradwalk` adds %%gradwalk

All read their limits from the settings (GRADWALK_* variables, server/settings.py), as the
CLI and the server do, and raise gradwalk.ProgramError (with .kind, .message, .hint) for a
program or an argument they refuse. This module imports nothing heavy until it is called:
`import gradwalk.engine...` stays as cheap as before.
"""
from __future__ import annotations

from typing import Iterable

__all__ = ["ProgramError", "from_torch", "load_ipython_extension", "show", "to_torch", "trace",
           "train"]


def trace(program: str, output: str | None = None, *, dtype: str | None = None) -> dict:
    """The trace of `program` (gradwalk's language: README.md, The language), as POST /api/trace and
    `gradwalk trace --format json` give it: {"version", "graph", "events", "output", "grads",
    ...} (docs/trace-format.md). output: the name whose gradient is taken (None: the last
    assigned). dtype: "float64" or "float32" (None: the program's `# dtype:` line, else
    float64). grads maps each leaf's name to dL/dleaf (a number, or nested lists for a tensor).
    Raises ProgramError (bad program, or over a GRADWALK_ limit), TypeError (program not a str)."""
    import orjson

    _text(program)
    from gradwalk.server.settings import get_settings
    from gradwalk.server.tracing import trace_body

    return orjson.loads(trace_body(program, output, get_settings(), dtype=dtype))


def train(program: str, steps: int, lr: float, *, optimizer: str = "sgd",
          record: Iterable[int] = (), output: str | None = None) -> dict:
    """Train `program`'s leaves (its parameters) for `steps` iterations of forward,
    zero_grad, backward, update at learning rate `lr` with `optimizer` ("sgd", "momentum" or
    "adam": engine/train/optim.py, PyTorch's update rules), as POST /api/train and `gradwalk
    train` do. record: iterations (0-based) whose full trace is kept. output: the loss's name
    (None: the last assigned). Returns {"losses": one float per iteration, the loss before
    that iteration's update, "params": each leaf's final value, "accuracy", "recorded",
    "diverged", ...} (engine/train/loop.py train). Raises ProgramError, TypeError (program
    not a str)."""
    _text(program)
    from gradwalk.engine.errors import ProgramError as Error
    from gradwalk.engine.train import TrainConfig, train as run
    from gradwalk.server.settings import get_settings
    from gradwalk.server.tracing import parse_program
    from gradwalk.server.training import named, train_limits

    settings = get_settings()
    parsed = parse_program(program, settings)
    config = TrainConfig(steps=steps, lr=lr, optimizer=optimizer,
                         record=tuple(sorted(set(record))), output=output,
                         limits=train_limits(settings))
    try:
        return run(parsed, config)
    except Error as e:   # a limit's message names its GRADWALK_ setting, as the CLI's does
        raise Error(**named(e.to_dict())) from None


def to_torch(program: str, output: str | None = None) -> str:
    """`program` written as a PyTorch script (float64 unless its `# dtype:` line says float32):
    leaves with requires_grad=True, output.backward(), then one line `name.grad = [...]` per
    leaf, as `gradwalk export --format torch` writes it (engine/torch_code.py). output: the
    name differentiated (None: the last assigned). Needs no torch to write. Raises
    ProgramError ("unsupported" naming an op or bug-lab switch PyTorch cannot express)."""
    from gradwalk.server.exports import export
    from gradwalk.server.settings import get_settings

    return export("torch", program, output, get_settings()).decode("utf-8")


def from_torch(fn_or_module, *example_inputs) -> str:
    """The gradwalk program (text, for trace/train/the page) of a small PyTorch function or
    nn.Module called on `example_inputs`, captured with torch.export: parameters and float
    inputs as leaves with their numbers, ATen ops as gradwalk's, submodules as groups
    (server/torch_bridge.py). Needs `pip install "gradwalk[torch]"` (ImportError saying so
    without torch). Raises ProgramError "unsupported" naming an ATen op gradwalk lacks."""
    try:
        from gradwalk.server.torch_bridge import from_torch as capture
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        raise ImportError('gradwalk.from_torch needs PyTorch: pip install "gradwalk[torch]"'
                          ) from None
    return capture(fn_or_module, *example_inputs)


def show(program: str, **options):
    """The notebook widget (an anywidget.AnyWidget) stepping `program`'s walk; options: output,
    mode ("reverse" or "forward"), step, theme. Its traits `step`, `mode`, `program` are synced
    both ways (server/widget.py). Raises ProgramError, traitlets.TraitError (a bad option), or
    ImportError naming the extra when anywidget is not installed, TypeError (program not a
    str)."""
    _text(program)
    return _notebook("widget").show(program, **options)


def load_ipython_extension(ipython) -> None:
    """`%load_ext gradwalk`: the `%%gradwalk` cell magic (server/magic.py)."""
    _notebook("magic").load_ipython_extension(ipython)


def _text(program) -> None:
    """Refuse a program that is not text before any code reads it as text (a number passed by
    mistake would otherwise fail deep inside with an AttributeError)."""
    if not isinstance(program, str):
        raise TypeError(f"program must be the program's text (a str), not "
                        f"{type(program).__name__}")


def _notebook(name: str):
    """gradwalk.server.widget or .magic, or an ImportError that says what to install."""
    import importlib

    try:
        return importlib.import_module(f"gradwalk.server.{name}")
    except ModuleNotFoundError as e:
        if e.name not in ("anywidget", "IPython", "traitlets"):
            raise
        raise ImportError(f"gradwalk's notebook widget needs {e.name}: "
                          'pip install "gradwalk[notebook]"') from None


def __getattr__(name: str):
    """gradwalk.ProgramError, imported when first asked for (engine/errors.py)."""
    if name == "ProgramError":
        from gradwalk.engine.errors import ProgramError
        return ProgramError
    raise AttributeError(f"module 'gradwalk' has no attribute {name!r}")
