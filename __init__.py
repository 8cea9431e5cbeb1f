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
CLI and the server do. Their errors follow one rule, Python's: an argument of the wrong type is
a TypeError, an argument whose value is refused a ValueError. A refused program (its text, the
output it names, a GRADWALK_ limit it is over) is a gradwalk.ProgramError, a ValueError that
says where (.kind, .message, .line, .col, .hint); the other arguments (train's steps, lr,
optimizer, record; trace's dtype) are plain ValueErrors naming the argument. This module imports nothing heavy until it is called:
`import gradwalk.engine...` stays as cheap as before.
"""
from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ProgramError", "from_torch", "load_ipython_extension", "show", "to_torch", "trace",
           "train"]


def trace(program: str, output: str | None = None, *, dtype: str | None = None) -> dict:
    """The trace of `program` (gradwalk's language: README.md, The language), as POST /api/trace and
    `gradwalk trace --format json` give it: {"version", "graph", "events", "output", "grads",
    ...} (docs/trace-format.md). output: the name whose gradient is taken (None: the last
    assigned). dtype: "float64" or "float32" (None: the program's `# dtype:` line, else
    float64). grads maps each leaf's name to dL/dleaf (a number, or nested lists for a tensor).
    Raises ProgramError (a ValueError: a bad program, an output it has not, over a GRADWALK_
    limit), ValueError (dtype not one of them), TypeError (program not a str, output or dtype
    not a str or None)."""
    import orjson

    _text(program)
    _optional_text("output", output)
    _optional_text("dtype", dtype)
    from gradwalk.engine.dtypes import DTYPES

    if dtype is not None and dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)} (or None), not {dtype!r}")
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
    "diverged", ...} (engine/train/loop.py train). Raises TypeError (program or optimizer not
    a str, steps or an iteration of record not an int, lr not a real number, output not a str
    or None), ValueError (steps under 1, lr not in (0, 1e6], an unknown optimizer, an
    iteration of record outside 0..steps-1), ProgramError (a ValueError: the program refused,
    or steps, record or the run over a GRADWALK_ limit, named)."""
    _text(program)
    from gradwalk.engine.errors import ProgramError as Error
    from gradwalk.engine.train import TrainConfig, train as run
    from gradwalk.engine.train.config import check
    from gradwalk.server.settings import get_settings
    from gradwalk.server.tracing import parse_program
    from gradwalk.server.training import named, train_limits

    steps, lr, record = _train_types(steps, lr, optimizer, record, output)
    settings = get_settings()
    config = TrainConfig(steps=steps, lr=lr, optimizer=optimizer, record=record, output=output,
                         limits=train_limits(settings))
    try:
        try:   # the engine's one check of the arguments' values, with its messages
            check(config)
        except Error as e:
            if e.kind == "bad_argument":   # an argument, not the program: a plain ValueError
                raise ValueError(e.message) from None
            raise
        return run(parse_program(program, settings), config)
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


def _optional_text(name: str, value) -> None:
    """TypeError unless `value` is a str or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")


def _whole(name: str, value) -> int:
    """`value` as an int, or TypeError when it is not a whole number's type (a bool is not)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return int(value)


def _train_types(steps, lr, optimizer, record, output) -> tuple[int, float, tuple[int, ...]]:
    """train's arguments' types checked (TypeError naming the argument): steps, lr and record
    as int, float and sorted unique ints (numpy's numbers taken), for the engine's value
    check."""
    import numbers

    steps = _whole("steps", steps)
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"lr must be a real number, not {type(lr).__name__}")
    if not isinstance(optimizer, str):
        raise TypeError(f"optimizer must be a str, not {type(optimizer).__name__}")
    if isinstance(record, (str, bytes)) or not isinstance(record, Iterable):
        raise TypeError(f"record must be iterations (ints), not {type(record).__name__}")
    _optional_text("output", output)
    # a huge int lr stays an int: float(10**400) overflowed (an OverflowError, not the
    # ValueError promised); check_lr refuses it as it is
    lr = lr if isinstance(lr, int) and abs(lr) > 2 ** 53 else float(lr)
    return steps, lr, tuple(sorted({_whole("an iteration of record", k) for k in record}))


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
