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

Cost: the correct walk is untouched (engine/trace/runner.py calls into this module only when
a switch is on or the program has an in-place update), so no per-edge cost without a bug.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from engine.errors import ProgramError
from engine.ops import get_op
from engine.switches import check as check_names
from engine.trace import narrate, scalar, seed as seeding
from engine.trace.values import short

TORCH_TYPES = {"float64": "torch.DoubleTensor", "float32": "torch.FloatTensor"}


def setup(tracer, limits) -> Lab | None:
    """The lab for this trace, or None when no switch is on (the runner's own walk runs).

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


# ---- the misbehaving walk ----------------------------------------------------------------
def show(x) -> str:
    """A value for a narration: its number(s) when small, else its shape."""
    if type(x) is float or np.ndim(x) == 0:
        return short(float(x))
    if np.size(x) <= narrate.SHOW_ELEMENTS:
        return narrate.compact(x)
    return "a " + narrate.shape_text(np.shape(x)) + " tensor"


class Lab:
    """One trace's misbehaving backward walk: `backward(seq)` stands in for the runner's."""

    def __init__(self, tracer, on: tuple[str, ...], reach: list[bool], stale: dict):
        self.t, self.on, self.reach, self.stale = tracer, on, reach, stale
        self.passes = 2 if {"no_zero_grad", "zero_grad"} & set(on) else 1
        self.consumers: dict[int, list[int]] | None = None
        self.sources: dict[int, list[str]] = {}
        self.saved: dict[int, object] = {}   # inplace: the values the rule at hand saved
        self.leaves = {i for i in tracer.program.leaves.values() if reach[i]}

    def backward(self, seq) -> Iterator[dict]:
        """The seed and edge records of every pass; returns the final adjoints."""
        adjoints = yield from self._pass(seq, None)
        if self.passes == 2:
            adjoints = yield from self._pass(seq, adjoints)
        return adjoints

    def _pass(self, seq, previous: list | None) -> Iterator[dict]:
        t = self.t
        nodes, values = t.program.nodes, t.values
        requires, reach = t.requires, self.reach
        adjoints: list = [None] * len(nodes)
        record = self._seed(seq, adjoints, previous)
        yield record
        self.sources: dict[int, list[str]] = {}   # who wrote each adjoint (overwrite's story)
        order = t.order if "wrong_order" in self.on else reversed(t.order)
        pending = list(t.program.blocks)   # checkpoints not yet recomputed
        for i in t.deadline.paced(order):
            node, g = nodes[i], adjoints[i]
            if node.role != "op" or not reach[i]:
                continue
            starved = g is None   # wrong_order: visited before its consumers sent anything
            if starved:
                g = 0.0 if type(values[i]) is float else np.zeros_like(values[i])
            if pending and requires[i]:
                yield from t._recompute(i, pending, seq)
            swapped = self._swap_in(i)
            self.saved = dict(swapped)
            try:
                for arg, j in enumerate(node.inputs):
                    if requires[j]:
                        yield from self._edge(node, arg, j, g, adjoints, seq, starved,
                                              previous)
            finally:
                for k, v in swapped:
                    values[k] = v
        return adjoints

    def _seed(self, seq, adjoints: list, previous: list | None) -> dict:
        t = self.t
        out = t.values[t.output]
        adjoints[t.output] = t.output_grad if t.output_grad is not None else \
            1.0 if type(out) is float else np.ones_like(out)
        record = {"seq": next(seq), "kind": "seed", "node": t.ids[t.output],
                  "adjoint": t.encode(adjoints[t.output], t.limit),
                  "narration": seeding.narration(t.output_label, t.symbols[t.output], out,
                                                 t.output_grad is not None)}
        if previous is None:
            return record
        leaves = sorted(self.leaves)
        fresh = [t.ids[i] for i, a in enumerate(previous) if a is not None and i != t.output
                 and (i not in self.leaves or "zero_grad" in self.on)]
        if "zero_grad" in self.on:
            record["narration"] = ("zero_grad(): every leaf's .grad is set to 0, then the "
                                   "second backward pass starts: " + record["narration"])
        else:
            seeded = adjoints[t.output]
            for i in leaves:
                adjoints[i] = previous[i]
            if t.output in self.leaves:   # a leaf output's .grad gets the seed added too
                adjoints[t.output] = previous[t.output] + seeded
                record["adjoint"] = t.encode(adjoints[t.output], t.limit)
            held = ", ".join(f"{t.symbols[i]} = {show(previous[i])}" for i in leaves[:4])
            record["narration"] = (f"BUG no_zero_grad: a second backward pass without "
                                   f"zero_grad(): the leaves' .grad still holds the first "
                                   f"pass's ({held}{', ...' if len(leaves) > 4 else ''}) and "
                                   f"this pass adds to it, as PyTorch's .grad accumulates. "
                                   + record["narration"])
            record["bug"] = "no_zero_grad"
        record["reset"] = fresh
        return record

    def _swap_in(self, i: int) -> list[tuple[int, object]]:
        """inplace: the tensors node i's rule saved, replaced by what they hold now."""
        swapped = []
        for k, _, _, newest in self.stale.get(i, ()):
            if all(k != s for s, _ in swapped):
                swapped.append((k, self.t.values[k]))
                self.t.values[k] = self.t.values[newest]
        return swapped

    def _edge(self, node, arg: int, j: int, g, adjoints: list, seq, starved: bool,
              previous) -> Iterator[dict]:
        t = self.t
        before = adjoints[j]
        overwrite = "overwrite" in self.on and before is not None
        if overwrite:
            adjoints[j] = None   # the edge then writes its contribution alone: `=`
        if type(t.values[node.index]) is float and node.op in scalar.FORWARD:
            records = [t._scalar_edge(node, arg, j, g, adjoints, seq)]
            if records[0] is None:
                records = list(t._edge(node, arg, j, g, adjoints, seq))
        else:
            records = list(t._edge(node, arg, j, g, adjoints, seq))
        label = t.program.nodes[node.index].label
        for record in records:
            if record["kind"] == "accumulate":
                self._tell(record, node, j, before, adjoints[j], starved, overwrite, previous)
            yield record
        self.sources.setdefault(j, []).append(label)

    def _tell(self, record: dict, node, j: int, before, after, starved: bool,
              overwrite: bool, previous) -> None:
        """Mark an accumulate record a switch changed: `bug` and a "BUG ..." narration."""
        t = self.t
        sym, here = t.symbols[j], t.program.nodes[node.index].label
        if starved:
            later = [t.program.nodes[c].label for c in self._consumers(node.index)]
            record["bug"] = "wrong_order"
            record["narration"] = (
                f"BUG wrong_order: {here} is visited before its consumer"
                f"{'s' if len(later) != 1 else ''} {', '.join(later[:3])} (forward order, "
                f"not reverse topological), so its adjoint {t.symbols[node.index]} is still 0 "
                f"and it passes on 0. " + record["narration"])
        stale = self.stale.get(node.index)
        if stale:
            k, saved, now, newest = stale[0]
            up = next(u for u in t.program.inplace if u.node == newest)
            name = t.program.nodes[k].label
            record["bug"] = "inplace"
            record["narration"] = (
                f"BUG inplace: the rule of {t.formulas[node.index]} reads {name} = "
                f"{show(t.values[newest])}, but it saved {name} = {show(self.saved[k])}: "
                f"{name} was updated in place on line {up.span.line} (version {now}; the rule "
                f"saved version {saved}), and without a version counter the gradient is "
                f"silently wrong. " + record["narration"])
        if overwrite:
            lost = ", ".join(self.sources.get(j, [])[-1:]) or "before"
            correct = before + after
            record["adjoint_before"] = t.encode(before, t.limit)
            record["bug"] = "overwrite"
            record["narration"] = (
                f"BUG overwrite: {sym} = {show(after)} replaces the {show(before)} it held "
                f"(from {lost}): `=` where `+=` belongs, so that contribution is lost "
                f"({sym} += would give {show(correct)}). " +
                record["narration"].replace(f"{sym} += ", f"{sym} = ", 1))
        if previous is not None and "no_zero_grad" in self.on and j in self.leaves and \
                previous[j] is not None and self.sources.get(j) is None:
            record["bug"] = record.get("bug", "no_zero_grad")
            record["narration"] = (
                f"BUG no_zero_grad: {sym} starts this pass at {show(previous[j])}, the first "
                f"pass's gradient, not 0. " + record["narration"])

    def _consumers(self, i: int) -> list[int]:
        """The nodes the backward pass reaches that read node i (made once, on first use)."""
        if self.consumers is None:
            self.consumers = {}
            for c, n in enumerate(self.t.program.nodes):
                if self.reach[c]:
                    for k in dict.fromkeys(n.inputs):
                        self.consumers.setdefault(k, []).append(c)
        return self.consumers.get(i, [])

