"""Where a node of the program is, mixed into engine/parse.py's builder: a node's span in
characters (a lifted literal's own place, not its placeholder's: engine/literals.py), errors
located there, and the refusal of a reserved or over-long name at its own place (the name in
`name=value`, the attribute of `a.x`), found anywhere in a rejected statement.
"""
from __future__ import annotations

import ast

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.names import name_problem, names_in
from gradwalk.engine.source import Span


class LocationSyntax:
    """Methods of engine.parse._Builder for locations (see the module docstring). Uses the
    builder's text (engine/source.py Lines), lifted and moved."""

    def span(self, node: ast.AST) -> Span:
        if self.lifted and type(node) is ast.Name and node.id in self.lifted:
            p = self.lifted[node.id]   # a literal's own place, not its placeholder's
            return Span(p.line, p.col, p.end_line, p.end_col)
        if self.text.ascii:   # byte columns are character columns
            end_col = node.end_col_offset
            if self.moved:   # a node that ends with a short placeholder ends with its literal
                end_col = self.moved.get((node.end_lineno, end_col), end_col)
            return Span(node.lineno, node.col_offset, node.end_lineno, end_col)
        return Span(node.lineno, self.text.char_col(node.lineno, node.col_offset),
                    node.end_lineno, self.text.char_col(node.end_lineno, node.end_col_offset))

    def error(self, kind: str, message: str, node: ast.AST, hint: str | None = None
              ) -> ProgramError:
        s = self.span(node)
        return ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col, hint=hint)

    def identifier(self, name: str, node: ast.AST, span: Span | None = None) -> None:
        """Refuse a reserved or over-long name (engine/names.py) at `span` (default: the
        node's)."""
        problem = name_problem(name)
        if problem:
            kind, message, hint = problem
            s = span or self.span(node)
            raise ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col, hint=hint)

    def leading_span(self, node: ast.AST, length: int) -> Span:
        """The first `length` characters of a node: the name in `name=value` or `name: type`."""
        s = self.span(node)
        return Span(s.line, s.col, s.line, s.col + length)

    def attribute_span(self, node: ast.Attribute) -> Span:
        """The span of the attribute's name (`x` in `a.x`), which ends where the node ends."""
        s = self.span(node)
        return Span(s.end_line, max(s.end_col - len(node.attr), 0), s.end_line, s.end_col)

    def first_bad_name(self, stmt: ast.stmt) -> ProgramError | None:
        """The first (by position) reserved or over-long name anywhere in a statement: names,
        attributes, keyword arguments, parameters, imports, definitions. Looked for only when
        the statement was rejected, so `__import__` is reported as reserved wherever it hides
        (in a lambda, an import, `const(...)`), at no cost to a good program."""
        found = []
        for node in ast.walk(stmt):
            for name, place in names_in(node):
                span = (self.attribute_span(node) if place == "attribute" else
                        self.leading_span(node, len(name)) if place == "leading" else None)
                try:
                    self.identifier(name, node, span)
                except ProgramError as e:
                    found.append(e)
        return min(found, key=lambda e: (e.line, e.col), default=None)
