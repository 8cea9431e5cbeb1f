"""The backward pass as a table, drawn as in ../shared/seeds/003_70db1bc89ad395af.txt
("The backward pass, node by node"): node, local slopes, upstream gradient, gradients sent back.

`rows` and `results` make the cells once; `render_table` (plain text, `gradwalk trace --format
table`) and `render_markdown` only lay them out. The LaTeX export typesets the same visits as
math (engine/trace/table_tex.py).
"""
from __future__ import annotations

import re

from gradwalk.engine.trace.narrate import shape_text, wrap
from gradwalk.engine.trace.values import short

HEADER = ("Node", "Local slopes", "Upstream gradient", "Gradients it sends back")
Row = tuple[str, str, str, str]


# ---------------------------------------------------------------- the cells, shared


INLINE = 64   # elements: the default inline limit (GRADWALK_MAX_INLINE_ELEMENTS)


def value_view(value, limit: int | None):
    """What a value shows: ("scalar", x); ("data", nested lists) for a tensor that carries
    its data within `limit` elements; else ("summary", shape, [(min|max|mean, x), ...])."""
    if not isinstance(value, dict):
        return ("scalar", value)
    size = 1
    for n in value["shape"]:
        size *= n
    if value.get("data") is None or (limit is not None and size > limit):
        summary = value.get("summary") or {}
        return ("summary", value["shape"], [(k, summary[k]) for k in ("min", "max", "mean")
                                            if summary.get(k) is not None])
    return ("data", value["data"])


def _fmt(value, limit: int | None = None) -> str:
    """A scalar to 4 decimals; a tensor that carries its data as its numbers,
    [[17, 23], [-5, -7]]; one without data (over the inline limit), or with more than `limit`
    elements, as its shape and summary, [300×200] (min -1, max 2, mean 0.5)."""
    view = value_view(value, limit)
    if view[0] == "summary":
        text = "[" + shape_text(view[1]) + "]"   # as the rules write shapes
        parts = [f"{k} {short(x)}" for k, x in view[2]]
        return f"{text} ({', '.join(parts)})" if parts else text
    return _nested(view[1]) if view[0] == "data" else short(view[1])


def _nested(data) -> str:
    if isinstance(data, list):
        return "[" + ", ".join(_nested(x) for x in data) + "]"
    return short(data)


def _flat(data) -> list:
    return [y for x in data for y in _flat(x)] if isinstance(data, list) else [data]


def slope_shown(partial: str, local) -> bool:
    """Whether a slope's numbers say more than its formula: not for "1" with a tensor of ones
    (an addition), nor when the number is the formula."""
    if local is None:
        return False
    if isinstance(local, dict) and local.get("data") is not None:
        if {short(x) for x in _flat(local["data"])} == {partial}:
            return False
    return _fmt(local) != partial


def visits_of(body: dict) -> tuple[str, list[tuple[dict, list[dict]]]]:
    """The output's label and, in the order the backward pass visits them, each node with
    its accumulate events (docs/trace-format.md)."""
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    visits: dict[str, list[dict]] = {}
    for e in body["events"]:
        if e["kind"] == "accumulate":
            visits.setdefault(e["node"], []).append(e)
    return (nodes[body["output"]["node"]]["label"],
            [(nodes[nid], [dict(e, input=nodes[e["input"]]["label"]) for e in events])
             for nid, events in visits.items()])


def rows(body: dict) -> list[Row]:
    """One row per node visited by the backward pass, in the order the pass visits them:
    (node's formula, local slopes, upstream gradient, gradients it sends back).

    body: the trace as POST /api/trace returns it (docs/trace-format.md).
    """
    output, visits = visits_of(body)
    out = []
    for node, events in visits:
        slopes = [(f"{e['partial']} = {_fmt(e['local'])}" if slope_shown(e["partial"], e["local"])
                   else e["partial"]) + f" for {wrap(e['input'])}" for e in events]
        sends = [f"d{output}/d{wrap(e['input'])} += {_fmt(e['contribution'])}" for e in events]
        out.append((node["formula"], ", ".join(slopes), _fmt(events[-1]["upstream"]),
                    ", ".join(sends)))
    return out


def results(body: dict, limit: int = INLINE) -> list[str]:
    """The output's value and the leaves' gradients: "L = 0.9242", "dL/da = 0.7864", ...;
    their numbers up to `limit` elements (they always carry full data), else shape and
    summary, as the events show them."""
    out = body["output"]
    label = next(n["label"] for n in body["graph"]["nodes"] if n["id"] == out["node"])
    return [f"{label} = {_fmt(out['value'], limit)}",
            *(f"d{label}/d{name} = {_fmt(g, limit)}" for name, g in body["grads"].items())]


# ---------------------------------------------------------------- plain text


def render_table(body: dict) -> str:
    """The rows as an aligned plain-text table, followed by the final gradients."""
    table = [HEADER, *rows(body)]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*lines, "", *results(body)]) + "\n"


# ---------------------------------------------------------------- Markdown (GitHub tables)

# Backslash-escaping ASCII punctuation is always literal in CommonMark; `|` would end a cell.
# Brackets stay as they are: [[1, 2], [3, 4]] is no link without a link definition.
_MD_SPECIAL = re.compile(r"([\\`*_|<>])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def render_markdown(body: dict) -> str:
    """A GitHub-flavoured Markdown table of the rows, then the final gradients as a list."""
    table = [tuple(_md(c) for c in r) for r in (HEADER, *rows(body))]
    widths = [max(3, *(len(r[i]) for r in table)) for i in range(4)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    lines = [line(table[0]), line(["-" * w for w in widths]), *map(line, table[1:])]
    return "\n".join([*lines, "", *(f"- {_md(r)}" for r in results(body))]) + "\n"
