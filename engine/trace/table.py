"""The backward pass as a table, drawn as in ../shared/seeds/003_70db1bc89ad395af.txt
("The backward pass, node by node"): node, local slopes, upstream gradient, gradients sent back.

`rows` and `results` make the cells once; `render_table` (plain text, `gradwalk trace --format
table`), `render_markdown` and `render_latex` (booktabs, for lecture notes) only lay them out.
"""
from __future__ import annotations

import re

from engine.trace.narrate import wrap
from engine.trace.values import short

HEADER = ("Node", "Local slopes", "Upstream gradient", "Gradients it sends back")
Row = tuple[str, str, str, str]


# ---------------------------------------------------------------- the cells, shared


INLINE = 64   # elements: the default inline limit (GRADWALK_MAX_INLINE_ELEMENTS)


def _fmt(value, limit: int | None = None) -> str:
    """A scalar to 4 decimals; a tensor that carries its data as its numbers,
    [[17, 23], [-5, -7]]; one without data (over the inline limit), or with more than `limit`
    elements, as its shape and summary, [300×200] (min -1, max 2, mean 0.5)."""
    if isinstance(value, dict):
        size = 1
        for n in value["shape"]:
            size *= n
        if value.get("data") is None or (limit is not None and size > limit):
            return _shape_and_summary(value)
        return _nested(value["data"])
    return short(value)


def _shape_and_summary(value: dict) -> str:
    text = "[" + "×".join(map(str, value["shape"])) + "]"
    summary = value.get("summary") or {}
    parts = [f"{k} {short(summary[k])}" for k in ("min", "max", "mean")
             if summary.get(k) is not None]
    return f"{text} ({', '.join(parts)})" if parts else text


def _nested(data) -> str:
    if isinstance(data, list):
        return "[" + ", ".join(_nested(x) for x in data) + "]"
    return short(data)


def _flat(data) -> list:
    return [y for x in data for y in _flat(x)] if isinstance(data, list) else [data]


def _slope(partial: str, local) -> str:
    """"b = -0.5", or just "1" when the slope's numbers say no more than its formula
    (a tensor of ones for an addition)."""
    if local is None:
        return partial
    if isinstance(local, dict) and local.get("data") is not None:
        if {short(x) for x in _flat(local["data"])} == {partial}:
            return partial
    text = _fmt(local)
    return partial if text == partial else f"{partial} = {text}"


def rows(body: dict) -> list[Row]:
    """One row per node visited by the backward pass, in the order the pass visits them:
    (node's formula, local slopes, upstream gradient, gradients it sends back).

    body: the trace as POST /api/trace returns it (docs/trace-format.md).
    """
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    output = nodes[body["output"]["node"]]["label"]
    cells: dict[str, tuple[list, list, list]] = {}
    for e in body["events"]:
        if e["kind"] != "accumulate":
            continue
        slopes, upstream, sends = cells.setdefault(e["node"], ([], [], []))
        inp = wrap(nodes[e["input"]]["label"])
        upstream[:] = [_fmt(e["upstream"])]
        slopes.append(f"{_slope(e['partial'], e['local'])} for {inp}")
        sends.append(f"d{output}/d{inp} += {_fmt(e['contribution'])}")
    return [(nodes[nid]["formula"], ", ".join(s), u[0], ", ".join(g))
            for nid, (s, u, g) in cells.items()]


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


# ---------------------------------------------------------------- LaTeX (booktabs)

_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    # What the engine's texts use beyond ASCII, so pdflatex needs no extra package.
    "×": r"$\times$", "·": r"$\cdot$", "∂": r"$\partial$", "−": "-", "ᵀ": r"\textsuperscript{T}",
    "√": r"$\surd$", "Φ": r"$\Phi$", "φ": r"$\varphi$", "σ": r"$\sigma$",
    **{s: rf"\textsuperscript{{{d}}}" for d, s in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")},
}
_MACRON = re.compile("(.)\u0304")   # t̄: a letter followed by a combining macron, an adjoint
# -- and '' would become ligatures (a dash, a quote): a label c'' or a - -b stays as typed.
_LIGATURE = re.compile(r"([-'`])(?=\1)")


def _tex(text: str) -> str:
    """Text-mode LaTeX for `text`: special characters escaped, the engine's symbols spelled."""
    parts = _MACRON.split(text)   # odd items are the letters under a bar
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(rf"$\bar{{\mathrm{{{_tex(part)}}}}}$")
        else:
            out.append(_LIGATURE.sub(r"\1{}", "".join(_TEX_SPECIAL.get(ch, ch) for ch in part)))
    text = "".join(out)
    # After \\ or \midrule a cell starting with [ or * would be read as their argument.
    return "{}" + text if text[:1] in "[*" and text else text


def render_latex(body: dict) -> str:
    """A booktabs tabular of the rows (\\toprule, \\midrule, \\bottomrule; needs
    \\usepackage{booktabs}), then the final gradients as one paragraph."""
    lines = [r"% The backward pass, made by gradwalk. Needs \usepackage{booktabs}.",
             r"\begin{tabular}{llll}", r"\toprule",
             " & ".join(_tex(c) for c in HEADER) + r" \\", r"\midrule",
             *(" & ".join(_tex(c) for c in r) + r" \\" for r in rows(body)),
             r"\bottomrule", r"\end{tabular}", "",
             ", ".join(_tex(r) for r in results(body)) + "."]
    return "\n".join(lines) + "\n"
