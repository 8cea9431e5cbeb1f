"""Which names a program may use: not the ones Python reserves for its machinery, and not
longer than MAX_NAME characters (a name is repeated in labels, formulas and narration).

User text is data and is never evaluated, so a dunder name could do no harm by itself; it is
refused so that no path ever hands one to anything that might look it up, and so that an
attacker's probe gets a plain answer.
"""
from __future__ import annotations

import ast
from typing import Iterator

from gradwalk.engine.source import clip
from gradwalk.engine.syntax import MAX_NAME


def name_problem(name: str) -> tuple[str, str, str] | None:
    """(kind, message, hint) when `name` may not be used, else None.

    reserved_name: two leading underscores (`__builtins__`, `__import__`, `__class__`, `__x`).
    name_too_long: more than MAX_NAME characters.
    """
    if name.startswith("__"):
        return ("reserved_name", f"`{clip(name)}` is reserved: names that start with two "
                "underscores belong to Python's machinery",
                "a value of yours: rename it without the leading underscores; Python's "
                "machinery (imports, builtins, attributes) is not part of the language")
    if len(name) > MAX_NAME:
        return ("name_too_long", f"the name `{clip(name)}` has {len(name):,} characters; the "
                f"limit is {MAX_NAME}", "use a shorter name")
    return None


def names_in(node: ast.AST) -> Iterator[tuple[str, str]]:
    """(identifier, place) for each name a node carries. place says where the name is:
    "node" (the whole node), "attribute" (the end of an Attribute node), "leading" (the start
    of a keyword argument or a parameter)."""
    if isinstance(node, ast.Name):
        yield node.id, "node"
    elif isinstance(node, ast.Attribute):
        yield node.attr, "attribute"
    elif isinstance(node, (ast.keyword, ast.arg)) and getattr(node, "arg", None):
        yield node.arg, "leading"
    elif isinstance(node, ast.alias):
        for part in [*node.name.split("."), node.asname or ""]:
            if part:
                yield part, "node"
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, "node"
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        for name in node.names:
            yield name, "node"
