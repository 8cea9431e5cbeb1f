"""The backward pass as a table, drawn as in ../shared/seeds/003_70db1bc89ad395af.txt
("The backward pass, node by node"): node, local slopes, upstream gradient, gradients sent back.
"""
from __future__ import annotations

from engine.trace.narrate import wrap
from engine.trace.values import short

HEADER = ("Node", "Local slopes", "Upstream gradient", "Gradients it sends back")


def _fmt(value) -> str:
    """A scalar to 4 decimals; a tensor as its shape (its numbers are in the JSON trace)."""
    if isinstance(value, dict):
        return "[" + "×".join(map(str, value["shape"])) + "]"
    return short(value)


def backward_rows(body: dict) -> list[tuple[str, str, str, str]]:
    """One row per node visited by the backward pass, in the order the pass visits them.

    body: the trace as POST /api/trace returns it.
    """
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    output = nodes[body["output"]["node"]]["label"]
    rows: dict[str, list] = {}
    for e in body["events"]:
        if e["kind"] != "accumulate":
            continue
        inp = nodes[e["input"]]
        slopes, upstream, sends = rows.setdefault(e["node"], [[], None, []])[0:3]
        rows[e["node"]][1] = _fmt(e["upstream"])
        local = e["partial"]
        if e["local"] is not None and _fmt(e["local"]) != local:
            local = f"{local} = {_fmt(e['local'])}"
        slopes.append(f"{local} for {wrap(inp['label'])}")
        sends.append(f"d{output}/d{wrap(inp['label'])} += {_fmt(e['contribution'])}")
    return [(nodes[nid]["formula"], ", ".join(r[0]), r[1], ", ".join(r[2]))
            for nid, r in rows.items()]


def render_table(body: dict) -> str:
    """The rows as an aligned plain-text table, followed by the final gradients."""
    rows = [HEADER, *backward_rows(body)]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    out = body["output"]
    label = next(n["label"] for n in body["graph"]["nodes"] if n["id"] == out["node"])
    lines.append("")
    lines.append(f"{label} = {_fmt(out['value'])}")
    for name, g in body["grads"].items():
        lines.append(f"d{label}/d{name} = {_fmt(g)}")
    return "\n".join(lines) + "\n"
