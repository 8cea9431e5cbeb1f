"""The bug lab (issue 9, section 4): the backward pass as hand-written engines get it wrong.

Each switch (engine/switches.py names them; a program's `# bugs:` line or the request's `bugs`
field turns them on) changes the walk in one way, and every event it changes carries
`bug: <switch>` and a narration that starts "BUG <switch>:" and says what went wrong:

- overwrite: `=` where `+=` belongs. A contribution replaces the input's adjoint. In the first
  preset (seed 000: e = a·b, d = e + a) ā is 1.5729 after d's edge and -0.7864 after e's:
  the walk reaches d before e (reverse topological order: e is d's input), so the last write,
  e's, stays, and ā ends at -0.7864 instead of 0.7864. Which contribution survives depends on
  the order of the writes: an engine that walked e's edge last keeps -0.7864, one that walked
  d's last would keep 1.5729.
- wrong_order: the nodes in forward (creation) order instead of reverse topological order. A
  node is visited before its consumers have sent it anything, so it passes on an incomplete
  adjoint (0): only the output's own inputs get a gradient.
- no_zero_grad: two backward passes (PyTorch: `loss.backward()` twice with retain_graph,
  or two steps without `optimizer.zero_grad()`): the leaves' .grad keeps the first pass's
  gradients and the second adds to them, so every leaf's gradient is doubled. Intermediate
  adjoints start again from nothing in the second pass (a new graph). `zero_grad` is its fix:
  the same two passes with the leaves' .grad set to 0 between them.
- inplace: an engine without a version counter. `x += e` (engine/parse.py) overwrites x's
  tensor; a rule that saved x before reads the new value and gives a silently wrong
  gradient. Without the switch the engine refuses the program as PyTorch's backward() does
  (`stale_saves`, `version_error`), with PyTorch's words.

An event two switches changed carries the last one's name in `bug` and both narrations.

Cost: the correct walk is untouched (the tracer calls into this mode, a row of engine/trace/
modes.py, only when a switch is on or the program has an in-place update), so no per-edge
cost without a bug. The misbehaving walk itself is engine/trace/bug_walk.py's.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import get_op
from gradwalk.engine.switches import check as check_names
from gradwalk.engine.trace.bug_walk import Lab
from gradwalk.engine.trace.mode import Mode

TORCH_TYPES = {"float64": "torch.DoubleTensor", "float32": "torch.FloatTensor"}


def setup(tracer, limits) -> Lab | None:
    """The lab for this trace, or None when no switch is on (the reverse walk runs).

    Raises ProgramError "bad_argument" (naming `bugs`) for an unknown switch, two that
    exclude each other, a requested switch in another mode than "reverse" (a program's own
    `# bugs:` line is ignored there: the program runs as written) or one that changes
    nothing in this program; "inplace" (PyTorch's message, at the in-place update) when a
    backward rule would read a tensor that an in-place update changed after the rule saved
    it and the `inplace` switch is off; "shape" for an in-place update that would change its
    tensor's shape.
    """
    program = tracer.program
    requested = check_names(tracer.options.bugs)
    on = check_names({*requested, *program.bugs})
    if not on and not program.inplace:
        return None
    _check_shapes(tracer)
    if tracer.options.mode != "reverse":   # no backward walk: nothing for a switch to change
        if requested:
            raise ProgramError("bad_argument", f"bugs: the bug lab's switches change the "
                               f"reverse walk; mode {tracer.options.mode} has none")
        return None   # a program's `# bugs:` line is for its reverse walk; other modes run
    reach = reached(tracer)
    stale = stale_saves(tracer, reach) if program.inplace else {}
    if stale and "inplace" not in on:
        raise version_error(tracer, stale)
    for name in on:
        problem = _changes_nothing(name, tracer, reach, stale)
        if problem:
            raise ProgramError("bad_argument", f"bugs: `{name}` changes nothing in this "
                               f"program: {problem}", **(_where(program)
                                                         if name in program.bugs else {}))
    if not on:
        return None
    return Lab(tracer, on, reach, stale)   # its size: the runner's estimate (budget.py)


def _prepare(tracer, limits, state) -> Lab | None:
    """The mode's `prepare` hook: the lab (setup), and a program's `# bugs:` line that another
    mode does not apply is said, never dropped."""
    lab = setup(tracer, limits)
    program = tracer.program
    if program.bugs and tracer.options.mode != "reverse":
        tracer.warnings.add("ignored", f"the `# bugs:` line (line {program.bugs_span.line}) "
                            f"is not applied in {tracer.options.mode} mode: the bug lab's "
                            "switches change the reverse walk, so these numbers are the "
                            "program's own", span=program.bugs_span)
    return lab


MODE = Mode("bugs", wanted=lambda options, program: bool(options.bugs or program.bugs or
                                                          program.inplace),
            prepare=_prepare, backward=lambda tracer, lab, seq: lab.backward(seq),
            done=lambda tracer, lab, adjoints: {"bugs": list(lab.on)})


def _check_shapes(tracer) -> None:
    """An in-place update keeps its tensor's shape: `x += W` that would broadcast x to a
    bigger shape is refused with PyTorch's words ("shape", at the update)."""
    for up in tracer.program.inplace:
        old, new = np.shape(tracer.values[up.target]), np.shape(tracer.values[up.node])
        if old != new:
            s = up.span
            raise ProgramError("shape", f"output with shape {list(old)} doesn't match the "
                               f"broadcast shape {list(new)}", s.line, s.col, s.end_line,
                               s.end_col, hint="an in-place update cannot change its tensor's "
                                               "shape; assign a new name instead")


def _where(program) -> dict:
    """The `# bugs:` comment's place, for an error about a switch it names."""
    s = program.bugs_span
    return {} if s is None else s.to_dict()


# ---- what the backward pass reaches ----------------------------------------------------------
def reached(tracer) -> list[bool]:
    """Per node: the backward pass sends it a gradient (it requires grad and a path of nodes
    that require grad leads from it to the output)."""
    nodes, requires = tracer.program.nodes, tracer.requires
    reach = [False] * len(nodes)
    reach[tracer.output] = requires[tracer.output]
    for i in reversed(tracer.order):
        if reach[i]:
            for k in nodes[i].inputs:
                if requires[k]:
                    reach[k] = True
    return reach


def _runs(tracer, reach, i: int) -> bool:
    """Node i's backward rule runs: it is an op the backward pass reaches."""
    return reach[i] and tracer.program.nodes[i].role == "op"


def _changes_nothing(name: str, tracer, reach, stale) -> str | None:
    """Why switch `name` would leave every number of this trace as it is, or None."""
    nodes, requires = tracer.program.nodes, tracer.requires
    if name == "overwrite":
        fan_in = [0] * len(nodes)
        for i, n in enumerate(nodes):
            if _runs(tracer, reach, i):
                for k in n.inputs:
                    fan_in[k] += requires[k]
        if max(fan_in, default=0) < 2:
            return ("no value is used twice on the way to the output (no fan-out), so `=` "
                    "and `+=` give the same adjoints")
    elif name == "wrong_order":
        if not any(_runs(tracer, reach, i) for i in range(len(nodes)) if i != tracer.output):
            return ("no op but the output passes a gradient on, so every order visits the "
                    "same nodes")
    elif name in ("no_zero_grad", "zero_grad"):
        if not any(reach[i] for i in tracer.program.leaves.values()):
            return "no leaf gets a gradient, so there is no .grad to accumulate"
    elif name == "inplace" and not stale:
        return ("no in-place update (`x += ...`) changes a tensor that a backward rule "
                "saved before it" if tracer.program.inplace else
                "it has no in-place update (`x += ...`)")
    return None


# ---- version counters (PyTorch's _version) ---------------------------------------------------
def stale_saves(tracer, reach) -> dict[int, list[tuple[int, int, int, int]]]:
    """{node: [(saved node, its version when saved, its version now, the in-place node that
    made the last version)]} for every node whose backward rule runs and reads a tensor an
    in-place update changed after the rule saved it. The in-place node's own rule is not
    counted: PyTorch's in-place ops keep what their own backward needs."""
    program = tracer.program
    storage, version, last = {}, {}, {}
    for up in program.inplace:   # in creation order
        root = storage.get(up.target, up.target)
        storage[up.node] = root
        version[up.node] = version.get(up.target, 0) + 1
        last[root] = up.node
    own = {up.node: up.target for up in program.inplace}
    stale: dict[int, list] = {}
    for i, node in enumerate(program.nodes):
        if not _runs(tracer, reach, i):
            continue
        for saved in _saved(get_op(node.op), node, tracer.requires):
            k = i if saved == "out" else node.inputs[int(saved[2:])]
            if own.get(i) == k:
                continue
            root = storage.get(k, k)
            newest = last.get(root)
            if newest is not None and version[newest] > version.get(k, 0) and newest > i:
                stale.setdefault(i, []).append((k, version.get(k, 0), version[newest], newest))
    return stale


def _saved(op, node, requires) -> list[str]:
    """What a rule keeps for the backward pass, as PyTorch saves it: with `saves_for` (mul,
    div, pow, matmul) only what the vjps of the inputs that require grad need (`x * c` with a
    constant c keeps c, not x), else the row's `saves`."""
    if not op.saves_for:
        return list(op.saves)
    return list(dict.fromkeys(s for arg, k in enumerate(node.inputs) if requires[k]
                              for s in op.saves_for[arg]))


def version_error(tracer, stale) -> ProgramError:
    """PyTorch's error for the first stale rule backward() would run (the last made)."""
    program = tracer.program
    i = max(stale)
    k, saved, now, newest = stale[i][0]
    value = tracer.values[k]
    kind = f"[{TORCH_TYPES[program.dtype]} {list(np.shape(value))}]"
    whose = _grad_fn(tracer, i, k, newest)
    where = program.inplace[[u.node for u in program.inplace].index(newest)].span
    node = program.nodes[i]
    return ProgramError(
        "inplace", f"one of the variables needed for gradient computation has been modified "
        f"by an inplace operation: {kind}{whose} is at version {now}; expected version "
        f"{saved} instead.", where.line, where.col, where.end_line, where.end_col,
        hint=f"{tracer.formulas[i]} (line {node.span.line}) saved "
             f"{program.nodes[k].label} for its backward rule; make a new tensor (`y = "
             f"{program.nodes[k].name or 'x'} + ...`) instead of updating it in place")


def _grad_fn(tracer, i: int, k: int, newest: int) -> str:
    """", which is output 0 of Tanh," as PyTorch names a saved tensor: a saved output by the
    rule that made it, a saved input by its grad_fn now (the last in-place op's); nothing for
    a tensor that does not require grad."""
    if k == i:
        return f", which is output 0 of {_torch_name(tracer.program.nodes[i].op)},"
    if not tracer.requires[newest]:
        return ""
    return f", which is output 0 of {_torch_name(tracer.program.nodes[newest].op)},"


def _torch_name(op: str) -> str:
    """PyTorch's name of the backward node without "Backward0": tanh -> Tanh, log_softmax ->
    LogSoftmax, matmul -> Mm (its 2-D case)."""
    return {"matmul": "Mm", "layer_norm": "NativeLayerNorm"}.get(
        op, "".join(part[:1].upper() + part[1:] for part in op.split("_")))
