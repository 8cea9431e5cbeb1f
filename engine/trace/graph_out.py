"""The `graph` part of a trace (docs/trace-format.md): nodes, edges, blocks, groups and the
ledger's totals, as a dict or as JSON written in batches (so no dict per node of the whole
graph, and no second copy of its JSON, is held at once)."""
from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np
import orjson

from gradwalk.engine.graph import graph_json as graph_dict, graph_nodes
from gradwalk.engine.groups import groups
from gradwalk.engine.trace.values import TRACE_VERSION

BATCH = 512   # nodes (or records) serialized per orjson call: few calls, a bounded list of dicts


def graph_json(t) -> dict:
    """{nodes, edges, blocks, groups} of Tracer `t`, for orjson (a node's or group's `span` is
    its Span dataclass; `graph_parts` gives the JSON)."""
    every = range(len(t.values))
    return {**graph_dict(t.program, t.deadline.paced(t.order), t.ids, t.requires,
                         node_shapes(t, every), t.formulas, t.symbols, node_ledgers(t)),
            "blocks": blocks_json(t), "groups": groups(t.program)}


def node_ledgers(t, indices: Iterable[int] | None = None) -> dict[int, dict | None]:
    """Each node's `ledger` field (docs/trace-format.md), by node index: None for leaves and
    constants. `indices`: only those nodes (a batch of the graph event: a dict per node of
    the whole graph at once was about 400 bytes a node of the trace's peak memory)."""
    led, ids, nodes = t.ledger, t.ids, t.program.nodes
    id_of = ids.__getitem__
    saves = led.saves
    return {i: None if nodes[i].role != "op" else {
        # mostly one saved tensor (mul's other input) or none: no map for those
        "saves": [ids[saves[i][0]]] if len(saves[i]) == 1 else list(map(id_of, saves[i])),
        "saved_elements": led.saved_elements[i],
        "saved_bytes": led.saved_bytes[i], "flops_forward": led.flops_forward[i],
        "flops_backward": led.flops_backward[i],
        "activation_bytes": led.activation_bytes[i],
        "released_by": None if led.released_by[i] is None else ids[led.released_by[i]],
        "recomputed": led.recomputed[i]}
        for i in (range(len(nodes)) if indices is None else indices)}


def node_shapes(t, indices: Iterable[int]) -> dict[int, list[int]]:
    """Each node's `shape` field by node index ([] for a scalar)."""
    values = t.values
    return {i: [] if type(values[i]) is float else list(np.shape(values[i])) for i in indices}


def graph_parts(t) -> Iterator[bytes | memoryview]:
    """{"version", "graph": {nodes, edges, blocks, groups}, "ledger"} as JSON in pieces,
    BATCH nodes at a time. A batch's nodes are a memoryview of orjson's bytes without their
    brackets, not a copy (nor a second one to put the comma before them): each batch is
    about 230 KB, so every copy was fresh pages to fault in (issue 15 §1)."""
    order, program, ids = t.order, t.program, t.ids
    runs = [order[k:k + BATCH] for k in range(0, len(order), BATCH)]
    yield b'{"version":%d,"graph":{"nodes":[' % TRACE_VERSION
    for k, run in enumerate(t.deadline.paced(runs)):
        if k:
            yield b","
        yield memoryview(orjson.dumps(graph_nodes(
            program, run, ids, t.requires, node_shapes(t, run), t.formulas, t.symbols,
            node_ledgers(t, run))))[1:-1]
    yield b'],"edges":['
    comma = b""
    for run in runs:
        edges = edges_json(program, run, ids)
        if edges:   # a run of leaves has none
            yield comma + edges
            comma = b","
    yield b'],"blocks":' + orjson.dumps(blocks_json(t)) + b',"groups":' + \
        orjson.dumps(groups(program)) + b'},"ledger":' + orjson.dumps(t.ledger.totals) + b"}"


def edges_json(program, run: list[int], ids: list[str]) -> bytes:
    """graph_edges' JSON for the nodes in `run` without its brackets, written from one
    template (the bytes orjson writes for those dicts: node ids are `n` and digits, nothing
    to escape; tests/engine/test_speed_paths.py compares): a dict per edge cost about as much
    as the rest of the graph event."""
    nodes, out = program.nodes, []
    for i in run:
        nid = ids[i]
        node = nodes[i]
        ins = node.inputs
        if len(ins) == 2 and not node.params:   # the commonest node: its two edges at once
            a, b = ids[ins[0]], ids[ins[1]]
            out.append(f'{{"id":"{a}->{nid}#0","source":"{a}","target":"{nid}","arg":0}},'
                       f'{{"id":"{b}->{nid}#1","source":"{b}","target":"{nid}","arg":1}}')
            continue
        for arg, k in enumerate(ins):
            src = ids[k]
            out.append(f'{{"id":"{src}->{nid}#{arg}","source":"{src}","target":"{nid}",'
                       f'"arg":{arg}}}')
        held = node.params.get("target_node") if node.params else None
        if held is not None:   # a name-held target: an edge without gradient (graph_edges)
            src, arg = ids[held], len(node.inputs)
            out.append(f'{{"id":"{src}->{nid}#{arg}","source":"{src}","target":"{nid}",'
                       f'"arg":{arg},"grad":false}}')
    return ",".join(out).encode()


def blocks_json(t) -> list[dict]:
    """The graph's `blocks` (docs/trace-format.md): `with checkpoint():` and `with no_grad():`
    bodies, in the program's order."""
    blocks = sorted([*t.program.blocks, *t.program.no_grad], key=lambda b: b.first)
    return [{"kind": b.kind, "nodes": t.ids[b.first:b.end], "span": b.span} for b in blocks]
