"""IR -> networkx.DiGraph with a fixed attribute schema, and its JSON form.

Node attributes: index, op, role, name, label, inputs, params, span, requires_grad.
Edge attribute: args, the argument positions at which the source feeds the target (a list,
because `a * a` feeds one consumer twice and a DiGraph holds one edge per pair).

Memory: the graph must not sit in a reference cycle, so that a trace's graph (and every node's
attribute dict) is freed by reference counting the moment the trace is dropped, not at the next
full collection. networkx's edge and degree views (`g.edges`, `g.in_degree`, and the algorithms
that use them) hold the graph and are cached on it, which makes a cycle; this module reads the
graph only through `g.nodes`, `g.succ` and `g.pred`, whose views hold the dicts, not the graph.
tests/engine/test_memory.py checks it.
"""
from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Iterable

from gradwalk.engine.parse import Program

if TYPE_CHECKING:   # networkx is imported when a graph is built (it takes 0.2 s to import)
    import networkx as nx


def node_id(index: int) -> str:
    return f"n{index}"


_IDS: list[str] = []   # "n0", "n1", ...: the ids every trace shares
_KEPT_IDS = 1 << 17    # the most kept: about 7.5 MB of strings


def node_ids(n: int) -> list[str]:
    """[node_id(0), ..., node_id(n - 1)]: the first _KEPT_IDS made once per process and shared
    by every trace (a trace made and freed its 100,000 ids, 0.1 µs a node; issue 15 §1)."""
    global _IDS
    ids = _IDS
    if n > len(ids) and len(ids) < _KEPT_IDS:   # a new list, put in place at once: a trace
        ids = ids + [f"n{i}" for i in range(len(ids), min(n, _KEPT_IDS))]   # on another
        _IDS = ids   # thread reads the old one or this, whole
    if n <= len(ids):
        return ids[:n]
    return ids + [f"n{i}" for i in range(len(ids), n)]


def requires_grad(program: Program) -> list[bool]:
    """Per node: true for a leaf and for every op with an input that requires it, except a
    comparison (`x > 0`: a mask, not differentiable; engine/ops/shape.py), `detach(x)` /
    `stop_gradient(x)` (engine/ops/cut.py) and an op made inside `with no_grad():` (PyTorch:
    its result does not require grad; engine/blocks.py)."""
    from gradwalk.engine.ops.cut import CUTS
    from gradwalk.engine.ops.shape import NOT_DIFFERENTIABLE

    skip = NOT_DIFFERENTIABLE | CUTS
    off = {i for b in program.no_grad for i in range(b.first, b.end)}
    requires: list[bool] = []
    append = requires.append
    for n in program.nodes:
        role = n.role
        if role != "op" or n.op in skip:
            append(role == "leaf")
            continue
        for i in n.inputs:   # a loop, not any(generator): this runs once per node
            if requires[i]:
                append(not off or n.index not in off)
                break
        else:
            append(False)
    return requires


def build_graph(program: Program, requires: list[bool] | None = None) -> nx.DiGraph:
    """One node per value, one edge per (input, consumer) pair carrying its argument positions.

    A value used twice is one node with two out-edges (fan-out). requires_grad is true for a
    leaf and for every op with an input that requires it. Built in bulk (add_nodes_from,
    add_edges_from) from the flat IR: the trace itself does not walk it.
    """
    import networkx as nx

    if requires is None:
        requires = requires_grad(program)
    args: dict[tuple[str, str], list[int]] = {}
    for n in program.nodes:
        dst = node_id(n.index)
        for arg, i in enumerate(n.inputs):
            args.setdefault((node_id(i), dst), []).append(arg)
    g = nx.DiGraph()
    g.add_nodes_from((node_id(n.index), {
        "index": n.index, "op": n.op, "role": n.role, "name": n.name, "label": n.label,
        "inputs": [node_id(i) for i in n.inputs], "params": n.params, "span": n.span,
        "requires_grad": rg}) for n, rg in zip(program.nodes, requires))
    g.add_edges_from((src, dst, {"args": a}) for (src, dst), a in args.items())
    return g


def creation_order(program: Program) -> list[int] | None:
    """The creation order 0..n-1 when it is topological (every input made before its
    consumer, which the parser guarantees), else None.

    It is then also what `topological_order` returns: Kahn's algorithm keyed by creation index
    takes, at each step, the smallest index not yet taken, whose inputs (all smaller) are all
    taken, so it takes 0, 1, 2, ... (tests/engine/test_order.py checks it on random programs).
    """
    for n in program.nodes:
        for i in n.inputs:
            if i >= n.index:
                return None
    return list(range(len(program.nodes)))


def topological_order(g: nx.DiGraph) -> list[str]:
    """Inputs before consumers, ties broken by creation order so the walk follows the source.

    Kahn's algorithm with a heap keyed by creation index (what networkx's
    lexicographical_topological_sort does, without its cached degree view, which would put the
    graph in a reference cycle). Iterative, so a chain of 100,000 nodes is fine.
    """
    index = g.nodes(data="index")
    waiting = {n: len(preds) for n, preds in g.pred.items()}
    ready = [(index[n], n) for n, k in waiting.items() if k == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, n = heapq.heappop(ready)
        order.append(n)
        for m in g.succ[n]:
            waiting[m] -= 1
            if waiting[m] == 0:
                heapq.heappush(ready, (index[m], m))
    return order


def graph_edges(program: Program, order: Iterable[int], ids: list[str]) -> list[dict]:
    """The `edges` of graph_json into the nodes in `order`, in argument order. A constant the
    op reads as data, not as an input, feeds it by an edge marked "grad": false, after the
    inputs' (cross_entropy's targets held by a name, params["target_node"]: the reader sees
    where `y` goes; no gradient flows back along it)."""
    ir, edges = program.nodes, []
    for i in order:
        nid = ids[i]
        for arg, k in enumerate(ir[i].inputs):
            src = ids[k]
            edges.append({"id": f"{src}->{nid}#{arg}", "source": src, "target": nid, "arg": arg})
        held = ir[i].params.get("target_node") if ir[i].params else None
        if held is not None:
            src, arg = ids[held], len(ir[i].inputs)
            edges.append({"id": f"{src}->{nid}#{arg}", "source": src, "target": nid, "arg": arg,
                          "grad": False})
    return edges
