"""The backward-pass table (engine/trace/table.py) as a LaTeX document that compiles with
pdflatex: the formulas, rules and numbers typeset as math (engine/trace/tex.py), a derivative as
\\frac{\\partial L}{\\partial t}, an accumulation as \\mathrel{{+}{=}} (one relation: never
broken between its signs; issue 18, section 3).

The table is a booktabs longtable; to put it in one's own notes, copy it with
\\usepackage{booktabs}, {amsmath}, {array} and {longtable} in the preamble.
"""
from __future__ import annotations

from gradwalk.engine.trace.narrate import wrap
from gradwalk.engine.trace.table import HEADER, INLINE, slope_shown, value_view, visits_of
from gradwalk.engine.trace.tex import math, number
from gradwalk.engine.trace.values import short

PREAMBLE = [
    r"% The backward pass, made by gradwalk. Compile with pdflatex. To put the table in your",
    r"% own notes, copy the longtable with the four packages it needs (below).",
    r"\documentclass{article}",
    r"\usepackage[a4paper,landscape,margin=1.5cm]{geometry}",
    r"\usepackage{booktabs}",
    r"\usepackage{amsmath}",
    r"\usepackage{array}",
    r"\usepackage{longtable}",
    r"\begin{document}",
    r"\small",
    r"\renewcommand{\arraystretch}{1.3}   % room for the fractions",
]


# Four columns that wrap their lists at the commas (ragged right) and continue on the next
# page: a tensor program's rows are wider and longer than one page.
COLUMNS = "".join(rf">{{\raggedright\arraybackslash}}p{{{w}\linewidth}}"
                  for w in (0.17, 0.3, 0.2, 0.26))


# The widest tensor whose numbers are typeset: (rows, columns) in a table cell, and on a line
# of its own below the table (landscape A4 at \small holds about 12 four-decimal columns).
CELL, LINE = (8, 4), (12, 10)


def value_tex(value, limit: int | None = None, fits: tuple[int, int] = CELL) -> str:
    """A value as the table shows it, in LaTeX: $0.7864$; a tensor with its data as a
    bracketed array (a vector on one line); one over `limit` elements, or more rows or columns
    than `fits` (rows, columns; a vector's length counts as columns), as its shape and summary,
    $[300 \\times 64]$ (min $-1$, max $2$, mean $0.5$)."""
    view = value_view(value, limit)
    if view[0] == "data" and not _fits(value["shape"], fits):
        view = value_view({**value, "data": None}, limit)
    if view[0] == "summary":
        shape = r" \times ".join(map(str, view[1]))
        parts = [f"{k} ${number(short(x))}$" for k, x in view[2]]
        return f"$[{shape}]$" + (f" ({', '.join(parts)})" if parts else "")
    if view[0] == "scalar":
        return f"${number(short(view[1]))}$"
    return f"${_array(view[1])}$"


def _fits(shape: list[int], fits: tuple[int, int]) -> bool:
    rows, columns = ([1, *shape] if len(shape) < 2 else shape)[-2:]
    return len(shape) <= 2 and rows <= fits[0] and columns <= (fits[1] * (2 if len(shape) == 1 else 1))


def _array(data) -> str:
    if not isinstance(data, list):
        return number(short(data))
    if not data or not isinstance(data[0], list):   # a vector: on one line
        return "[" + ", ".join(_array(x) for x in data) + "]"
    columns = max(len(row) for row in data) if data and isinstance(data[0], list) else 1
    lines = [" & ".join(_array(x) for x in row) for row in data]
    return (rf"\left[\begin{{array}}{{{'r' * max(columns, 1)}}}" + r" \\ ".join(lines)
            + r"\end{array}\right]")


def _derivative(output: str, of: str, tensors: bool = False) -> str:
    """d output / d of as a fraction; `of` parenthesized unless an atom, as the page writes
    it: \\frac{\\partial L}{\\partial (G \\odot Y)}."""
    return rf"\frac{{\partial {math(output)}}}{{\partial {math(wrap(of), tensors)}}}"


def _holds_tensors(body: dict) -> bool:
    return any(isinstance(e.get("value"), dict) for e in body["events"] if e["kind"] == "evaluate")


def rows_tex(body: dict) -> list[tuple[str, str, str, str]]:
    """The rows of engine.trace.table.rows, each cell LaTeX (text with inline math)."""
    output, visits = visits_of(body)
    tensors = _holds_tensors(body)
    out = []
    for node, events in visits:
        slopes = []
        for e in events:
            rule = math(e["partial"], tensors)
            shown = slope_shown(e["partial"], e["local"])
            slope = f"${rule}" + (f" = {value_tex(e['local'])[1:]}" if shown else "$")
            slopes.append(f"{slope} for ${math(e['input'], tensors)}$")
        sends = [_equation(_derivative(output, e["input"], tensors) + " " + math("+="),
                           value_tex(e["contribution"])) for e in events]
        out.append((f"${math(node['formula'], tensors)}$", ", ".join(slopes),
                    value_tex(events[-1]["upstream"]), ", ".join(sends)))
    return out


def results_tex(body: dict, limit: int = INLINE) -> list[str]:
    """The output's value and the leaves' gradients: $L = 0.9242$,
    $\\frac{\\partial L}{\\partial a} = 0.7864$, ..."""
    out = body["output"]
    label = next(n["label"] for n in body["graph"]["nodes"] if n["id"] == out["node"])
    return [_equation(math(label) + " =", value_tex(out["value"], limit, LINE)),
            *(_equation(_derivative(label, name) + " =", value_tex(g, limit, LINE))
              for name, g in body["grads"].items())]


def _equation(left: str, value: str) -> str:
    """`left` (math) and a value_tex in one formula: $L = 0.9242$."""
    return f"${left} {value[1:]}"


def render_latex(body: dict) -> str:
    """A LaTeX document (article, landscape): the rows as a booktabs longtable, then the
    output's value and the final gradients, one to a line. body: the trace as POST /api/trace
    returns it."""
    lines = [*PREAMBLE, r"\begin{longtable}{" + COLUMNS + "}", r"\toprule",
             " & ".join(HEADER) + r" \\", r"\midrule", r"\endhead",
             *(" & ".join(r) + r" \\" for r in rows_tex(body)),
             r"\bottomrule", r"\end{longtable}", "",
             r"\noindent", *(r + r"\\" for r in results_tex(body)), "", r"\end{document}"]
    return "\n".join(lines) + "\n"
