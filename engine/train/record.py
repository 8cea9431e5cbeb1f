"""A recorded iteration: the whole walk of one training iteration, for the player to step.

Its body is what POST /api/trace answers for the program written with that iteration's leaf
values (engine/trace/runner.run_trace on a copy of the Program whose leaves hold them), walked
in mode "train" (engine/trace/train_walk.py), which adds two kinds of event, as seed
003_70db1bc89ad395af.txt's loop writes them (forward, zero_grad, backward, update):
- `zero_grad`, before the backward pass's first event (its `seed`): {"nodes": [leaf ids],
  "zeroed": true}; with the no_zero_grad bug "zeroed" is false and the narration says the
  leaves' .grad still holds every earlier iteration's gradients.
- one `update` per leaf after the backward pass's last event: {"node", "name", "value": the
  leaf's new value (encoded as node values are), "grad": the gradient the update used,
  "narration": "b -= 0.5 · b̄ = 0.5 · 0.2463 = 0.1232, so b = 0.4 - 0.1232 = 0.2768"}, its numbers as the
  backward pass's narration gives them (engine/trace/narrate.py): a scalar's, a tensor's of at
  most SHOW_ELEMENTS elements, else the norms of the gradient and of the step (`update_numbers`).
Each added event carries "kind" and "type" (the same word: "kind" as every trace event,
"type" as the training contract names it), and every event's seq is numbered again from 0.
The body's "dead_units" lists the ReLU units dead at that iteration (engine/train/watch.py).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gradwalk.engine.graph import node_id
from gradwalk.engine.parse import Program
from gradwalk.engine.trace.narrate import SHOW_ELEMENTS, bar, compact, signed
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Limits, run_trace
from gradwalk.engine.trace.train_walk import Steps
from gradwalk.engine.trace.values import encode, short


def with_leaves(program: Program, leaves: dict) -> Program:
    """A copy of `program` whose leaves (name -> value of the leaf's shape) hold new values;
    the original is not changed."""
    nodes = list(program.nodes)
    dtype = np.float32 if program.dtype == "float32" else np.float64
    for name, value in leaves.items():
        i = program.leaves[name]
        nodes[i] = dataclasses.replace(nodes[i], literal=np.asarray(value, dtype=dtype))
    return dataclasses.replace(program, nodes=nodes)


def body(program: Program, output: str, limits: Limits, params: dict, step: dict) -> dict:
    """The recorded body of one iteration.

    params: the leaves' values the iteration ran with; step: {"iteration", "new": leaf ->
    value after the update, "grads": leaf -> gradient used, "narrate": (name, bar, numbers)
    -> the update's narration, numbers its `update_numbers` text, "lr": the factor of the
    gradient in the step (plain SGD's lr) or None (momentum, Adam), "zeroed": bool,
    "dead_units": list}. Raises ProgramError as
    run_trace does (the trace's own limits)."""
    leaves = program.leaves
    updates = [{"kind": "update", "type": "update", "node": node_id(i), "name": name,
                "value": encode(step["new"][name], limits.inline),
                "grad": encode(step["grads"][name], limits.inline),
                "narration": step["narrate"](name, bar(name, output), update_numbers(
                    name, bar(name, output), params[name], step["new"][name],
                    step["grads"][name], step["lr"]))}
               for name, i in leaves.items()]
    steps = Steps(_zero_grad(program, output, step), updates,
                  {"dead_units": step["dead_units"], "iteration": step["iteration"]})
    return run_trace(with_leaves(program, params), output, limits,
                     options=Options(mode="train", train=steps))


def update_numbers(name: str, grad_bar: str, old, new, grad, lr: float | None) -> str:
    """The numbers of one update, to follow its rule, as the backward pass's narration writes
    them (engine/trace/narrate.py scalar_edge): " = 0.5 · 2.5477 = 1.2739, so w = 0.4 -
    1.2739 = -0.8739" for a scalar under plain SGD (lr: the gradient's factor; None for
    momentum and Adam, whose step is not a multiple of this gradient: "; the step is 0.08, so
    w = 0.4 - 0.08 = 0.32"); a tensor of at most SHOW_ELEMENTS elements in brackets, with its
    new value (its old one is the forward pass's); a bigger one by Euclidean norms ("; ‖W̄1‖ =
    0.31, ‖step‖ = 0.155 over 8 elements")."""
    step = np.asarray(old) - np.asarray(new)
    if np.size(step) > SHOW_ELEMENTS:
        return (f"; ‖{grad_bar}‖ = {short(np.linalg.norm(grad))}, ‖step‖ = "
                f"{short(np.linalg.norm(step))} over {np.size(step)} elements")
    if np.ndim(step) == 0:
        moved = f", so {name} = {short(old)} - {signed(step)} = {short(new)}"
    else:
        moved = f", so {name} = {compact(new)}"
    if lr is None:
        return f"; the step is {compact(step)}{moved}"
    return f" = {lr:g} · {compact(grad)} = {compact(step)}{moved}"


def _zero_grad(program: Program, output: str, step: dict) -> dict:
    names = list(program.leaves)
    bars = ", ".join(bar(n, output) for n in names)
    k = step["iteration"]
    if step["zeroed"]:
        text = (f"zero_grad(): {bars} = 0 before the backward pass (its += would otherwise "
                "add this pass's gradients to the last one's)")
    elif k == 0:
        text = ("BUG no_zero_grad: zero_grad() is not called; at iteration 0 the leaves' "
                ".grad is still empty, so this pass starts from 0 anyway")
    else:
        text = (f"BUG no_zero_grad: zero_grad() is not called, so the leaves' .grad still "
                f"holds the sum of iterations 0 to {k - 1}'s gradients; this pass adds to it "
                "and the update uses the sum")
    return {"kind": "zero_grad", "type": "zero_grad",
            "nodes": [node_id(i) for i in program.leaves.values()],
            "zeroed": step["zeroed"], "narration": text}
