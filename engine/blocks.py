"""`with` blocks of a program: `with checkpoint():` marks the statements whose saved tensors the
backward pass does not keep (it recomputes them), as torch.utils.checkpoint does;
`with no_grad():` marks statements that record no graph (torch.no_grad): their values are
computed, but they do not require grad, so no gradient flows back through them.

A block is a run of IR nodes in creation order (`first` up to `end`, exclusive). The parser
(engine/parse.py) reads the `with` line here and builds the body's statements as usual.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

BLOCK_KINDS = ("checkpoint", "no_grad")   # `with group(...)` may join them


@dataclass(slots=True)
class Block:
    """One `with` block: kind ("checkpoint" or "no_grad"), the nodes [first, end) its body made, its span
    (the `with` line)."""

    kind: str
    first: int
    end: int
    span: object   # engine.parse.Span

    def __contains__(self, index: int) -> bool:
        return self.first <= index < self.end


def block_kind(stmt: ast.With) -> tuple[str | None, ast.AST, str]:
    """(kind, node to point at, message): kind None and a message when the `with` line is not
    one of the supported forms (`with checkpoint():`, `with no_grad():`)."""
    if len(stmt.items) != 1:
        return None, stmt, "one block at a time, as in `with checkpoint():`"
    item = stmt.items[0]
    call = item.context_expr
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id in BLOCK_KINDS):
        return None, call, "the only blocks are `with checkpoint():` and `with no_grad():`"
    if item.optional_vars is not None:
        return None, item.optional_vars, f"`with {call.func.id}():` takes no `as` name"
    if call.args or call.keywords:
        return None, call, f"`{call.func.id}()` takes no arguments"
    return call.func.id, call, ""


def block_inputs(nodes, block: Block) -> list[int]:
    """The nodes made before the block that the block's nodes read: what a checkpoint keeps."""
    seen: dict[int, None] = {}
    for node in nodes[block.first:block.end]:
        for k in node.inputs:
            if k < block.first:
                seen[k] = None
    return list(seen)
