"""engine/source.py parses a big program in pieces, so that no single ast.parse call holds the
GIL for the whole text (issue 14: the server's health check waited 1-3 s behind one parse). The
tree, and any error, must be exactly ast.parse's for every text, wherever the cuts fall."""
from __future__ import annotations

import ast

import pytest

from gradwalk.engine import source
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse

TEXTS = {
    "statements": "a = 1.0\nb = a * 2\nL = tanh(b)\n",
    "bracket across lines": "a = [1.0,\n2.0,\n3.0]\nb = sum(\na\n)\nL = b * b\n",
    "backslash": "a = 1.0\nb = a + \\\na\nL = b\n",
    "with block": "a = 1.0\nwith group(\"g\"):\n    b = a * a\n\n    c = b + 1\nL = c\n",
    "comments": "a = 1.0\n# a comment\n#\nb = a\n  # indented comment\nL = b\n",
    "string across lines": 'a = 1.0\nb = """x\ny = 2\n"""\nL = a\n',
    "if else": "a = 1.0\nif a:\n    b = a\nelse:\n    b = 2.0\nL = b\n",
    "no final newline": "a = 1.0\nL = a * a",
    "unicode": "α = 1.0\nβ = α * 2  # é\nL = β\n",
}


def _dump(tree: ast.Module) -> str:
    return ast.dump(tree, include_attributes=True)


@pytest.mark.parametrize("name", TEXTS)
@pytest.mark.parametrize("piece_chars", [1, 5, 12])
def test_pieces_make_the_tree_ast_parse_makes(monkeypatch, name, piece_chars):
    monkeypatch.setattr(source, "PIECE_CHARS", piece_chars)
    text = TEXTS[name]
    assert _dump(source._parse_in_pieces(text)) == _dump(ast.parse(text))


@pytest.mark.parametrize("piece_chars", [1, 7])
def test_a_syntax_error_is_where_ast_parse_puts_it(monkeypatch, piece_chars):
    monkeypatch.setattr(source, "PIECE_CHARS", piece_chars)
    text = "a = 1.0\nb = a * 2\nc = (b +\nd = 3\nL = a\n"
    with pytest.raises(SyntaxError) as whole:
        ast.parse(text)
    with pytest.raises(SyntaxError) as pieces:
        source._parse_in_pieces(text)
    assert (pieces.value.msg, pieces.value.lineno, pieces.value.offset) == \
        (whole.value.msg, whole.value.lineno, whole.value.offset)


def test_a_big_program_is_parsed_in_pieces_of_about_piece_chars(monkeypatch):
    text = "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i})\n" for i in range(20_000))
    sizes = []
    real = ast.parse

    def counted(code, *args, **kwargs):
        sizes.append(len(code.lstrip("\n")))
        return real(code, *args, **kwargs)

    monkeypatch.setattr(source.ast, "parse", counted)
    program = parse(text)
    assert len(sizes) == len(text) // source.PIECE_CHARS + 1
    assert max(sizes) < source.PIECE_CHARS + 100   # a piece ends at the first cut after it
    assert len(program.nodes) > 20_000


def test_an_error_deep_in_a_big_program_has_its_line(monkeypatch):
    text = "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i})\n" for i in range(5_000))
    text += "y = (x5000 +\n" + "z = 1.0\n" * 3_000
    with pytest.raises(ProgramError) as error:
        parse(text)
    assert error.value.kind == "syntax" and error.value.line == 5_002
