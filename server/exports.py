"""File exports of a program's walk, shared by `gradwalk export` and POST /api/export/{format}.

html: the standalone page (server/export_html.py); md, tex: the backward-pass table
(engine/trace/table.py); json: the trace body, as POST /api/trace answers it; torch: the
program as PyTorch code printing each leaf's gradient (engine/torch_code.py; the command line
and gradwalk.to_torch only).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the CLI imports FORMATS before it knows it will trace (server/cli.py)
    from gradwalk.engine.parse import Program
    from gradwalk.server.settings import Settings


@dataclass(frozen=True)
class Format:
    media_type: str
    suffix: str


FORMATS = {
    "html": Format("text/html; charset=utf-8", ".html"),
    "md": Format("text/markdown; charset=utf-8", ".md"),
    "tex": Format("application/x-tex; charset=utf-8", ".tex"),
    "json": Format("application/json", ".json"),
    "torch": Format("text/x-python; charset=utf-8", ".py"),
}


def export(fmt: str, program: str, output: str | None, settings: Settings,
           state: dict | None = None, parsed: Program | str | None = None,
           output_grad=None, dtype: str | None = None) -> bytes:
    """The file for `fmt` (a key of FORMATS), UTF-8. json is the trace body exactly (no
    newline); the others end with a newline. `state` (page state, html only) gives the step
    and view options the page opens with; `parsed` is `program` parsed already (when the route
    parsed it before it took a trace slot); output_grad: the output's starting adjoint
    (engine/trace/seed.py); dtype: as trace_body's.

    torch: the program's PyTorch code, nothing traced (its output seeded with ones: output_grad
    is not written). Raises ProgramError ("unsupported" naming an op torch cannot write), and
    MissingAsset (html without a built static/dist).
    """
    from gradwalk.engine.trace.table import render_markdown
    from gradwalk.engine.trace.table_tex import render_latex
    from gradwalk.server.export_html import assemble, page_state
    from gradwalk.server.tracing import parse_program, trace_body

    if fmt == "torch":   # the program's code: nothing to trace
        from gradwalk.engine.torch_code import to_torch

        if parsed is None or isinstance(parsed, str):
            parsed = parse_program(program, settings, dtype)
        return to_torch(parsed, output).encode("utf-8")
    body = trace_body(parsed or program, output, settings, output_grad, dtype)
    if fmt == "json":
        return body
    if fmt == "html":
        return assemble(body, page_state(program, output, state)).encode("utf-8")
    render = {"md": render_markdown, "tex": render_latex}[fmt]
    return render(json.loads(body)).encode("utf-8")
