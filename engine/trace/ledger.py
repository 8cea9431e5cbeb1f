"""The ledger: what the backward pass must keep (saved tensors, activation memory) and what each
pass costs (FLOPs), per node and in total.

Definitions follow ../shared/seeds/003_70db1bc89ad395af.txt, Step 5 ("the memory the backward
pass must keep"):
- a node's backward rule keeps the tensors its registry row names in `saves` ("in0", "out", ...;
  engine/ops/registry.py), as PyTorch's autograd keeps "saved tensors"; a rule is recorded only
  for a node that requires grad (PyTorch saves nothing for a computation no gradient flows
  through);
- activations are the saved tensors the forward pass created (op results: not leaves, not
  constants), each counted once however many rules keep it; `saved_elements` counts every saved
  tensor once, leaves and constants included;
- an activation is live from its evaluation until the backward step of the last rule that keeps
  it is done (backward runs in reverse creation order, so that is the saver with the smallest
  index among those whose backward step runs); the peak is the most bytes live at once;
- FLOPs: the forward rule's `flops`, and the vjps' `backward_flops` (twice the forward when a
  row does not say) for each node whose backward step runs (it requires grad and receives an
  adjoint from the output);
- a row with `saves_for` (mul, div, pow, matmul) keeps only what the vjps of its inputs that
  require grad need, as PyTorch does (`h * 2.0` keeps 2.0, not h), and each of those vjps
  costs an equal share of the row's backward FLOPs.

Reference figures (tests/engine/test_ledger.py): a Linear-GELU-Linear MLP h -> 4h -> h on s
tokens, its input made by an earlier op, keeps 9*s*h activation numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradwalk.engine.blocks import block_inputs
from gradwalk.engine.ops import get_op


@dataclass
class Ledger:
    """Per node (lists indexed by creation index) and in total.

    saves[i]: creation indices of the tensors node i's backward rule keeps ([] for leaves).
    flops_forward[i], flops_backward[i]: FLOPs (0 for leaves; backward 0 when it never runs).
    activation_bytes[i]: bytes of node i's value when it is an activation, else 0.
    released_by[i]: the node whose backward step frees activation i, or None (kept to the end).
    recomputed[i]: activation i is not kept by the forward pass (a checkpoint block made it and
        only the block's rules keep it): it is live from its `recompute` event.
    """

    saves: list[list[int]]
    saved_elements: list[int]
    saved_bytes: list[int]
    flops_forward: list[int]
    flops_backward: list[int]
    activation_bytes: list[int]
    released_by: list[int | None]
    recomputed: list[bool]
    totals: dict


def _size(value) -> tuple[int, int]:
    """(elements, bytes) of a value; a Python float is one float64."""
    if type(value) is float:
        return 1, 8
    a = np.asarray(value)
    return int(a.size), int(a.nbytes)


def reached(program, requires: list[bool], output: int) -> list[bool]:
    """Per node: does the backward pass from `output` give it an adjoint (and, for an op, run
    its backward step)? Reverse creation order is a reverse topological order."""
    nodes = program.nodes
    got = [False] * len(nodes)
    got[output] = True
    for i in range(output, -1, -1):
        if got[i] and nodes[i].role == "op":
            for k in nodes[i].inputs:
                if requires[k]:
                    got[k] = True
    return got


def build(program, values: list, flops: list[int], requires: list[bool], output: int
          ) -> Ledger:
    """The ledger of a traced program: values and flops are every node's forward value and
    forward FLOPs (engine/trace/tracer.py computes both in its forward pass).

    A `with checkpoint():` block (engine/blocks.py) keeps only its inputs in the forward pass;
    the tensors its own rules save are live again from its recomputation in the backward pass.
    One pass over the nodes and one over the saved tensors: it runs on every trace. A program
    of Python floats without blocks (the scalar chain) takes _scalar_build's one pass instead.
    """
    fast = _scalar_build(program, values, flops, requires, output)
    if fast is not None:
        return fast
    nodes = program.nodes
    n = len(nodes)
    runs = reached(program, requires, output)
    saves: list = [()] * n
    f_bwd = [0] * n
    savers: dict[int, list[int]] = {}   # saved tensor -> the nodes whose rules keep it
    rows: dict[tuple, tuple] = {}
    scalar_costs: dict[str, int] = {}
    with_saves: list[int] = []
    graded = requires.__getitem__
    for node in nodes:
        i = node.index
        if node.role != "op" or not requires[i]:
            continue
        ins = node.inputs
        key = (node.op, graded(ins[0]), graded(ins[1])) if len(ins) == 2 else \
            (node.op, *map(graded, ins))   # which of its inputs require grad
        row = rows.get(key)
        if row is None:
            row = rows[key] = _row(node.op, key[1:])
        op, slots, share = row
        if runs[i]:
            # a scalar node's cost known already: _backward_flops' answer, without its call
            cost = scalar_costs.get(op.name) if type(values[i]) is float else None
            if cost is not None:
                for k in ins:
                    if type(values[k]) is not float:
                        cost = None
                        break
            if cost is None:
                cost = _backward_flops(op, values, i, ins, flops, scalar_costs)
            f_bwd[i] = cost if share == 1.0 else round(share * cost)   # an int: no round()
        if slots:
            if len(slots) == 1:   # mul's one saved input, tanh's output: no set to sort
                kept = (i if slots[0] < 0 else ins[slots[0]],)
            else:
                kept = tuple(sorted({i if s < 0 else ins[s] for s in slots}))
            saves[i] = kept
            with_saves.append(i)
            for k in kept:
                by = savers.get(k)
                if by is None:
                    savers[k] = [i]
                else:
                    by.append(i)
    kept_by_block = _checkpoint_inputs(program, savers)
    in_block = _block_of(program)
    act, released, recomputed = [0] * n, [None] * n, [False] * n
    act_elements = act_bytes = saved_elements = 0
    sizes: dict[int, tuple[int, int]] = {}
    for k, by in savers.items():
        sizes[k] = size = (1, 8) if type(values[k]) is float else _size(values[k])
        saved_elements += size[0]
        if nodes[k].role != "op":
            continue
        act[k] = size[1]
        if all(runs[s] for s in by):
            released[k] = min(by)
        # kept by the forward pass: saved by a rule outside every checkpoint, or a block input
        if not program.blocks or k in kept_by_block or any(in_block[s] is None for s in by):
            act_elements += size[0]
            act_bytes += size[1]
        else:
            recomputed[k] = True
    totals = {
        "activation_elements": act_elements,
        "activation_bytes": act_bytes,
        "peak_activation_bytes": _peak(program, act, recomputed, released, runs, requires,
                                       in_block, act_bytes),
        "saved_elements": saved_elements,
        "flops_forward": sum(flops),
        "flops_backward": sum(f_bwd),
        "flops_recompute": sum(sum(flops[b.first:b.end]) for b in program.blocks),
    }
    saved_el, saved_b = [0] * n, [0] * n
    for i in with_saves:
        for k in saves[i]:
            saved_el[i] += sizes[k][0]
            saved_b[i] += sizes[k][1]
    return Ledger(saves, saved_el, saved_b, flops, f_bwd, act, released, recomputed, totals)


def _scalar_build(program, values: list, flops: list[int], requires: list[bool], output: int
                  ) -> Ledger | None:
    """build's answer for a program without checkpoint blocks whose every value is a Python
    float (the chain `x = x * 1.0001 + 0.001`, issue 15 §1), in one reverse pass that is also
    reached's: every saved tensor is one float64 (1 element, 8 bytes), so no sizes are kept,
    and a node's backward FLOPs are its op row's figure, asked once per op (the assumption
    _backward_flops makes for scalar nodes). About 0.27 µs a node on the 10,001-node chain,
    against 0.46 through build's passes. None for any other program: build answers."""
    nodes = program.nodes
    n = len(nodes)
    if program.blocks or not n or set(map(type, values[:n])) != {float}:
        return None
    got, saves, f_bwd = [False] * n, [()] * n, [0] * n
    saved_el, saved_b = [0] * n, [0] * n
    got[output] = True
    lowest: dict[int, int] = {}   # saved tensor -> its last saver seen: the first, in reverse
    held: set[int] = set()   # saved tensors one of whose savers never runs its backward step
    rows: dict[tuple, tuple] = {}   # (op, its inputs' requires) -> _scalar_row
    for i, node in zip(range(n - 1, -1, -1), reversed(nodes)):   # reached's order, as it goes
        if node.role != "op":
            continue
        if node.index != i:   # build reads a node's own index, reached its place: the same
            return None       # in every program the parser makes
        ins = node.inputs
        runs = got[i]
        if len(ins) == 2:   # two inputs, mostly: no generator, no loop for them
            a, b = ins
            graded_a, graded_b = requires[a], requires[b]
            if runs:
                if graded_a:
                    got[a] = True
                if graded_b:
                    got[b] = True
            key = (node.op, graded_a, graded_b)
        else:
            key = (node.op, *[requires[k] for k in ins])
            if runs:
                for k in ins:
                    if requires[k]:
                        got[k] = True
        if not requires[i]:
            continue
        row = rows.get(key)
        if row is None:
            row = rows[key] = _scalar_row(key, values, i, ins, flops)
        cost, one, slots = row
        if runs:
            f_bwd[i] = cost if cost >= 0 else 2 * flops[i]
        if one is not None:   # one saved tensor (mul's kept input, tanh's output): no set
            k = i if one < 0 else ins[one]
            saves[i], saved_el[i], saved_b[i], lowest[k] = (k,), 1, 8, i
            if not runs:
                held.add(k)
        elif slots:
            kept = tuple(sorted({i if s < 0 else ins[s] for s in slots}))
            saves[i], saved_el[i], saved_b[i] = kept, len(kept), 8 * len(kept)
            for k in kept:
                lowest[k] = i
                if not runs:
                    held.add(k)
    act, released = [0] * n, [None] * n
    made = 0   # the saved tensors the forward pass created: activations
    for k, by in lowest.items():
        if nodes[k].role == "op":
            made += 1
            act[k] = 8
            if k not in held:
                released[k] = by
    totals = {
        "activation_elements": made,
        "activation_bytes": 8 * made,
        "peak_activation_bytes": 8 * made,   # _peak's answer without a checkpoint block
        "saved_elements": len(lowest),
        "flops_forward": sum(flops),
        "flops_backward": sum(f_bwd),
        "flops_recompute": 0,
    }
    return Ledger(saves, saved_el, saved_b, flops, f_bwd, act, released, [False] * n, totals)


def _scalar_row(graded: tuple, values: list, i: int, ins: list[int], flops: list[int]
                ) -> tuple[int, int | None, list[int]]:
    """(a running node's backward FLOPs, its one saved slot or None, its saved slots) for
    node i of op graded[0] whose inputs require grad as graded[1:] says, its value and
    inputs Python floats: the figure is the op's (its row's, asked once) times its share, -1
    for a row without backward_flops (twice the node's own forward FLOPs)."""
    op, slots, share = _row(graded[0], graded[1:])
    one = slots[0] if len(slots) == 1 else None
    if op.backward_flops is None:
        return -1, one, slots
    cost = _backward_flops(op, values, i, ins, flops, {})
    return (cost if share == 1.0 else round(share * cost)), one, slots


def _row(name: str, graded: tuple[bool, ...]) -> tuple:
    """(op row, its saved slots: -1 for the output, k for input k, its share of the backward
    FLOPs) for an op whose inputs require grad as `graded` says: a row with `saves_for` keeps
    (and runs) only the vjps of those that do. Worked out once per op and pattern."""
    op = get_op(name)
    if not op.saves_for:
        return op, _slots(op.saves), 1.0
    needed = [a for a, g in enumerate(graded) if g]
    return op, sorted({s for a in needed for s in _slots(op.saves_for[a])}), \
        len(needed) / len(graded)


def _slots(names) -> list[int]:
    """Saved-tensor names as slots: -1 for the output ("out"), k for input k ("ink")."""
    return [-1 if s == "out" else int(s[2:]) for s in names]


def _backward_flops(op, values: list, i: int, ins: list[int], flops: list[int],
                    scalar_costs: dict[str, int]) -> int:
    """The node's vjps' FLOPs (twice the forward when its row does not say). A scalar node's
    figure depends on its op only, so it is asked of the row once per op."""
    if op.backward_flops is None:
        return 2 * flops[i]
    scalar = type(values[i]) is float
    if scalar:
        for k in ins:   # a loop, not all(generator): this runs once per node
            if type(values[k]) is not float:
                scalar = False
                break
    if scalar and op.name in scalar_costs:
        return scalar_costs[op.name]
    cost = int(op.backward_flops(values[i], *[values[k] for k in ins]))
    if scalar:
        scalar_costs[op.name] = cost
    return cost


def _block_of(program) -> list[int | None]:
    """Per node: the index of the checkpoint block that made it, or None."""
    owner: list[int | None] = [None] * len(program.nodes)
    for b, block in enumerate(program.blocks):
        owner[block.first:block.end] = [b] * (block.end - block.first)
    return owner


def _checkpoint_inputs(program, savers: dict[int, list[int]]) -> set[int]:
    """The inputs of every checkpoint block; each is kept for the recomputation, so its
    consumers in the block count as savers (they free it when their backward steps are done)."""
    kept: set[int] = set()
    for block in program.blocks:
        for k in block_inputs(program.nodes, block):
            kept.add(k)
            by = savers.setdefault(k, [])
            for node in program.nodes[block.first:block.end]:
                if k in node.inputs and node.index not in by:
                    by.append(node.index)
    return kept


def _peak(program, act, recomputed, released, runs, requires, in_block, live) -> int:
    """The most activation bytes live at once: the forward pass leaves `live`; each backward
    step frees what it released, after recomputing its checkpoint block first."""
    if not program.blocks:
        return live   # without recomputation, live only falls once the forward pass is done
    peak = live
    freed: dict[int, int] = {}
    for k, by in enumerate(released):
        if by is not None:
            freed[by] = freed.get(by, 0) + act[k]
    done: set[int] = set()
    nodes = program.nodes
    for i in range(len(nodes) - 1, -1, -1):
        if not (runs[i] and requires[i] and nodes[i].role == "op"):
            continue
        b = in_block[i]
        if b is not None and b not in done:
            done.add(b)
            block = program.blocks[b]
            live += sum(act[k] for k in range(block.first, block.end) if recomputed[k])
            peak = max(peak, live)
        live -= freed.get(i, 0)
    return peak
