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

import networkx as nx

from engine.parse import Program


def node_id(index: int) -> str:
    return f"n{index}"


def build_graph(program: Program) -> nx.DiGraph:
    """One node per value, one edge per (input, consumer) pair carrying its argument positions.

    A value used twice is one node with two out-edges (fan-out). requires_grad is true for a
    leaf and for every op with an input that requires it.
    """
    g = nx.DiGraph()
    requires = []
    for n in program.nodes:
        rg = n.role == "leaf" or (n.role == "op" and any(requires[i] for i in n.inputs))
        requires.append(rg)
        g.add_node(node_id(n.index), index=n.index, op=n.op, role=n.role, name=n.name,
                   label=n.label, inputs=[node_id(i) for i in n.inputs], params=n.params,
                   span=n.span, requires_grad=rg)
        for arg, i in enumerate(n.inputs):
            src, dst = node_id(i), node_id(n.index)
            if g.has_edge(src, dst):
                g.succ[src][dst]["args"].append(arg)
            else:
                g.add_edge(src, dst, args=[arg])
    return g


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


def graph_json(g: nx.DiGraph, order: list[str], computed: dict[str, dict]) -> dict:
    """The graph as docs/trace-format.md describes it: nodes in topological order, edges.

    computed: node id -> the fields the trace worked out (shape, formula, adjoint symbol).
    """
    nodes = []
    for nid in order:
        a = g.nodes[nid]
        nodes.append({"id": nid, "index": a["index"], "name": a["name"], "label": a["label"],
                      "op": a["op"], "role": a["role"], "inputs": a["inputs"],
                      "params": a["params"], "requires_grad": a["requires_grad"],
                      "span": a["span"].to_dict(), **computed[nid]})
    edges = [{"id": f"{s}->{t}#{arg}", "source": s, "target": t, "arg": arg}
             for t in order for arg, s in enumerate(g.nodes[t]["inputs"])]
    return {"nodes": nodes, "edges": edges}
