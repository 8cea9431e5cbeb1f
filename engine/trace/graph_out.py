"""The `graph` part of a trace (docs/trace-format.md): nodes, edges, blocks, groups and the
ledger's totals, as a dict or as JSON written in batches (so no dict per node of the whole
graph, and no second copy of its JSON, is held at once)."""
from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np
import orjson

from gradwalk.engine.graph import graph_edges
from gradwalk.engine.groups import groups
from gradwalk.engine.trace.values import TRACE_VERSION

BATCH = 512   # nodes (or records) serialized per orjson call: few calls, a bounded list of dicts


def graph_json(t) -> dict:
    """{nodes, edges, blocks, groups} of Tracer `t`, for orjson (a node's or group's `span` is
    its Span dataclass; `graph_parts` gives the JSON)."""
    order = list(t.deadline.paced(t.order))
    return {"nodes": graph_nodes(t, order), "edges": graph_edges(t.program, order, t.ids),
            "blocks": blocks_json(t), "groups": groups(t.program)}


def graph_nodes(t, order: Iterable[int]) -> list[dict]:
    """The graph's `nodes` (docs/trace-format.md) for the nodes in `order`, in that order:
    each node's fields from the IR and the trace (id, requires_grad, shape, formula, adjoint
    symbol, and its `ledger`: the node's figures of engine/trace/ledger.py, None for a
    leaf or a constant).

    One loop makes each node's dict with its span, shape and ledger in it (issue 15 §1: a
    dict of shapes and one of ledgers per batch first, then the nodes, were three passes).
    An empty list (a leaf's inputs, a scalar's shape) is one list shared by the batch's
    dicts, which are only written and dropped. The span is a dict: orjson writes a dict
    about 1 µs faster than a dataclass, per node."""
    program, ids, requires = t.program, t.ids, t.requires
    ir, values, formulas, symbols = program.nodes, t.values, t.formulas, t.symbols
    led = t.ledger
    saves, saved_elements, saved_bytes = led.saves, led.saved_elements, led.saved_bytes
    flops_forward, flops_backward = led.flops_forward, led.flops_backward
    activation_bytes, released_by, recomputed = led.activation_bytes, led.released_by, \
        led.recomputed
    id_of, empty = ids.__getitem__, []
    nodes = []
    append = nodes.append
    for i in order:
        n = ir[i]
        s = n.span
        ins = n.inputs   # none (a leaf, a constant) or two, mostly: lists made without a map
        v = values[i]
        if n.role != "op":
            ledger = None
        else:
            kept = saves[i]   # mostly one saved tensor (mul's other input) or none
            released = released_by[i]
            ledger = {"saves": empty if not kept else [ids[kept[0]]] if len(kept) == 1 else
                      list(map(id_of, kept)),
                      "saved_elements": saved_elements[i], "saved_bytes": saved_bytes[i],
                      "flops_forward": flops_forward[i], "flops_backward": flops_backward[i],
                      "activation_bytes": activation_bytes[i],
                      "released_by": None if released is None else ids[released],
                      "recomputed": recomputed[i]}
        append({"id": ids[i], "index": i, "name": n.name, "label": n.label, "op": n.op,
                "role": n.role,
                "inputs": [ids[ins[0]], ids[ins[1]]] if len(ins) == 2 else
                list(map(id_of, ins)) if ins else empty,
                "params": n.params, "requires_grad": requires[i],
                "span": {"line": s.line, "col": s.col, "end_line": s.end_line,
                         "end_col": s.end_col},
                "shape": empty if type(v) is float else list(np.shape(v)),
                "formula": formulas[i], "adjoint_symbol": symbols[i], "ledger": ledger})
    if program.no_grad:   # an op made inside `with no_grad():` records no graph (issue 9)
        off = {i for b in program.no_grad for i in range(b.first, b.end)}
        for node in nodes:
            if node["role"] == "op" and node["index"] in off:
                node["recorded"] = False
    return nodes


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
        yield memoryview(orjson.dumps(graph_nodes(t, run)))[1:-1]
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
