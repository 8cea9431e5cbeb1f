"""`with` blocks of a program: `with checkpoint():` marks the statements whose saved tensors the
backward pass does not keep (it recomputes them), as torch.utils.checkpoint does;
`with no_grad():` marks statements that record no graph (torch.no_grad): their values are
computed, but they do not require grad, so no gradient flows back through them;
`with group("layer1"):` only names its statements, for the page (a box that collapses, as
TensorBoard's name scopes do: engine/groups.py). Groups may nest, and may hold or sit inside a
checkpoint or no_grad block; checkpoint and no_grad blocks do not nest in each other.

A block is a run of IR nodes in creation order (`first` up to `end`, exclusive). The parser
(engine/parse.py) reads the `with` line here and builds the body's statements as usual.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

BLOCK_KINDS = ("checkpoint", "no_grad", "group")
MAX_GROUP_NAME = 64   # characters of a group's name


@dataclass(slots=True)
class Block:
    """One `with` block: kind ("checkpoint", "no_grad" or "group"), the nodes [first, end) its
    body made, its span (the `with` line's call); a group's name; `body`: its statements and
    inner blocks in program order (Statement or Block) and `extent` the span of the whole
    `with` statement, for engine/groups.py. A loop (engine/parse_unroll.py) is a group too,
    `loop` True, whose body holds one group per iteration."""

    kind: str
    first: int
    end: int
    span: object   # engine.parse.Span
    name: str = ""
    body: list = field(default_factory=list)
    extent: object = None   # engine.parse.Span
    loop: bool = False   # a `for` loop's group: its body is a group per iteration (parse_unroll)

    def __contains__(self, index: int) -> bool:
        return self.first <= index < self.end


@dataclass(slots=True)
class Statement:
    """One assignment: the nodes [first, end) it made (none for `y = x`), the name it assigns,
    its span (the whole statement); `shape`: its structure's key for engine/groups.py
    (groups.shape), when the parser knows it (engine/parse_run.py: the same for every line of
    a plan), else None."""

    first: int
    end: int
    name: str
    span: object   # engine.parse.Span
    shape: tuple | None = None


def block_kind(stmt: ast.With) -> tuple[str | None, ast.AST, str]:
    """(kind, node to point at, text): kind None and text the message when the `with` line is
    not one of the supported forms (`with checkpoint():`, `with no_grad():`,
    `with group("name"):`); for a group, text is its name ("" for the other kinds)."""
    if len(stmt.items) != 1:
        kinds = {_kind_of(item.context_expr) for item in stmt.items}
        example = 'group("layer1")' if kinds == {"group"} else \
            "checkpoint()" if kinds == {"checkpoint"} else \
            "no_grad()" if kinds == {"no_grad"} else None
        return None, stmt, ("one block per `with`, as in " + (
            f"`with {example}:`" if example else
            '`with checkpoint():`, `with no_grad():` or `with group("layer1"):`') +
            " (nest a second `with` inside the first)")
    item = stmt.items[0]
    call = item.context_expr
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id in BLOCK_KINDS):
        return None, call, ("the only blocks are `with checkpoint():`, `with no_grad():` and "
                            '`with group("name"):`')
    kind = call.func.id
    if item.optional_vars is not None:
        return None, item.optional_vars, (f"`with {kind}(...):` takes no `as` name" if
                                          kind == "group" else
                                          f"`with {kind}():` takes no `as` name")
    if kind == "group":
        return group_name(call)
    if call.args or call.keywords:
        return None, call, f"`{kind}()` takes no arguments"
    return kind, call, ""


def group_name(call: ast.Call) -> tuple[str | None, ast.AST, str]:
    """("group", call, name) for `group("layer1")`: one string literal, non-empty, at most
    MAX_GROUP_NAME printable characters; else (None, node at fault, message)."""
    usage = 'group(...) takes its name as one string in quotes, as in `with group("layer1"):`'
    if call.keywords:
        return None, call.keywords[0], usage
    if len(call.args) != 1:
        return None, call.args[1] if len(call.args) > 1 else call, usage
    arg = call.args[0]
    if not (type(arg) is ast.Constant and type(arg.value) is str):
        what = ("an f-string" if type(arg) is ast.JoinedStr else
                "a variable" if type(arg) is ast.Name else
                "a number" if type(arg) is ast.Constant and type(arg.value) in (int, float)
                else None)
        return None, arg, usage + (f" (got {what}, which is not text in quotes)" if what
                                   else "")
    name = arg.value
    if not name or len(name) > MAX_GROUP_NAME or not name.isprintable():
        return None, arg, (f"a group's name is 1 to {MAX_GROUP_NAME} printable characters "
                           "(no line breaks or tabs)")
    return "group", call, name


def _kind_of(call: ast.AST) -> str | None:
    """"group" for `group(...)`, "checkpoint" for `checkpoint()`, ...; None for anything else."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
            call.func.id in BLOCK_KINDS:
        return call.func.id
    return None


def block_inputs(nodes, block: Block) -> list[int]:
    """The nodes made before the block that the block's nodes read: what a checkpoint keeps."""
    seen: dict[int, None] = {}
    for node in nodes[block.first:block.end]:
        for k in node.inputs:
            if k < block.first:
                seen[k] = None
    return list(seen)
