"""The injection corpus: hostile programs, each rejected by construct with its kind, line and
column (issue 6, section 2). User text is data: nothing here is ever evaluated, and the first
reserved or over-long name in a rejected line is what gets reported, wherever it hides.

Columns are 0-based characters, end_col exclusive (docs/trace-format.md).
"""
from __future__ import annotations

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.runner import run_trace

CORPUS = [
    # (what, program, kind, line, col, end_col)
    # names Python reserves for its machinery, wherever they appear
    ('dunder target', '__builtins__ = 1.0\n', 'reserved_name', 1, 0, 12),
    ('dunder use', 'a = 1.0\nb = a * __builtins__\n', 'reserved_name', 2, 8, 20),
    ('__import__ call', 'x = __import__("os")\n', 'reserved_name', 1, 4, 14),
    ('private name', '__x = 2.0\n', 'reserved_name', 1, 0, 3),
    ('dunder alias', 'a = 1.0\n__class__ = a\n', 'reserved_name', 2, 0, 9),
    ('dunder attribute', 'a = [1.0]\nb = a.__class__\n', 'reserved_name', 2, 6, 15),
    ('dunder keyword', 'a = 1.0\nb = tanh(a, __kw__=1)\n', 'reserved_name', 2, 12, 18),
    ('function globals', 'a = 1.0\nb = tanh.__globals__\n', 'reserved_name', 2, 9, 20),
    ('dunder after .T', 'a = [1.0]\nb = a.T.__dict__\n', 'reserved_name', 2, 8, 16),
    ('classic escape', 'x = ().__class__.__bases__[0].__subclasses__()\n', 'reserved_name', 1, 7, 16),
    ('dunder in const', 'b = const(__import__)\n', 'reserved_name', 1, 10, 20),
    ('dunder lambda parameter', 'f = lambda __x: 0\n', 'reserved_name', 1, 11, 14),
    ('dunder import', 'import __builtins__\n', 'reserved_name', 1, 7, 19),
    ('dunder keyword value', 'a = 1.0\nb = gelu(a, approximate=__import__("os"))\n', 'reserved_name', 2, 24, 34),
    # look-alikes: Python folds identifiers to NFKC before we see them; other scripts stay apart
    ('fullwidth underscore', 'x = _\uff3fimport__("os")\n', 'reserved_name', 1, 4, 14),
    ('fullwidth letters', '__\uff42\uff55\uff49\uff4c\uff54\uff49\uff4e\uff53__ = 1.0\n', 'reserved_name', 1, 0, 12),
    ('cyrillic a is another name', '\u0430 = 1.0\nb = a * 2\n', 'unknown_name', 2, 4, 5),
    ('no-break space', 'a = 1.0\nb = a\u00a0+ a\n', 'syntax', 2, 5, 5),
    # attribute chains, method calls, functions that reach the interpreter
    ('attribute', 'a = 1.0\nb = a.real\n', 'unsupported', 2, 4, 10),
    ('method call', 'a = [1.0]\nb = a.T.T.conj()\n', 'unsupported', 2, 10, 14),
    ('getattr', 'a = 1.0\nb = getattr(a, "x")\n', 'unsupported', 2, 4, 11),
    ('eval', 'a = 1.0\nb = eval("a")\n', 'unsupported', 2, 4, 8),
    ('open', 'a = 1.0\nb = open("/etc/passwd")\n', 'unsupported', 2, 4, 8),
    ('exec statement', 'a = 1.0\nexec("import os")\n', 'unsupported', 2, 0, 17),
    ('calling a call', 'a = 1.0\nb = tanh(a)(a)\n', 'unsupported', 2, 4, 11),
    # imports
    ('import', 'import os\n', 'unsupported', 1, 0, 9),
    ('from import', 'from os import system\n', 'unsupported', 1, 0, 21),
    ('import later', 'a = 1.0\nimport numpy as np\n', 'unsupported', 2, 0, 18),
    # lambdas, comprehensions, generators, f-strings
    ('lambda', 'f = lambda: 0\n', 'unsupported', 1, 4, 13),
    ('called lambda', 'a = 1.0\nb = (lambda z: z)(a)\n', 'unsupported', 2, 5, 16),
    ('list comprehension', 'a = [v for v in [1.0]]\n', 'unsupported', 1, 16, 21),
    ('dict comprehension', 'a = {k: 1.0 for k in [1]}\n', 'unsupported', 1, 4, 25),
    ('generator', 'a = sum(v for v in [1.0])\n', 'unsupported', 1, 19, 24),
    ('f-string', 'a = f"{__import__(\'os\')}"\n', 'reserved_name', 1, 7, 17),
    ('f-string argument', 'a = 1.0\nb = tanh(f"{a}")\n', 'unsupported', 2, 9, 15),
    # starred calls, the walrus, decorators (located at the decorator)
    ('starred', 'a = [1.0]\nb = tanh(*a)\n', 'unsupported', 2, 4, 12),
    ('double starred', 'a = 1.0\nb = tanh(**{"x": a})\n', 'unsupported', 2, 4, 20),
    ('walrus', 'a = (b := 1.0)\n', 'unsupported', 1, 5, 13),
    ('walrus argument', 'a = 1.0\nb = tanh(c := a)\n', 'unsupported', 2, 9, 15),
    ('decorator', '@tanh\ndef f():\n    pass\n', 'unsupported', 1, 1, 5),
    ('class decorator', '@property\nclass C:\n    pass\n', 'unsupported', 1, 1, 9),
    # keyword arguments to ops
    ('unknown keyword', 'a = 1.0\nb = tanh(a, out=a)\n', 'bad_argument', 2, 12, 15),
    ('keepdims', 'a = [1.0]\nb = softmax(a, axis=0, keepdims=True)\n', 'bad_argument', 2, 23, 31),
    ('axis not a number', 'a = [1.0]\nb = sum(a, axis=a)\n', 'bad_argument', 2, 16, 17),
    ('const keyword', 'a = 1.0\nb = const(1.0, dtype=1)\n', 'bad_argument', 2, 4, 23),
    ('two arguments', 'a = 1.0\nb = tanh(a, a)\n', 'bad_argument', 2, 4, 14),
    # const of non-literals
    ('const of a name', 'a = 1.0\nb = const(a)\n', 'bad_argument', 2, 4, 12),
    ('const of a list of names', 'a = 1.0\nb = const([a])\n', 'bad_argument', 2, 4, 14),
    ('const of an expression', 'a = const(1.0 + 2.0)\n', 'bad_argument', 1, 4, 20),
    ('const of a string', 'a = const("1.0")\n', 'bad_argument', 1, 4, 16),
    # other statements, constants and expressions
    ('class', 'class C:\n    pass\n', 'unsupported', 1, 0, 8),
    ('def', 'def f(*a):\n    return 1\n', 'unsupported', 1, 0, 12),   # a plain def is language now
    ('with', 'a = 1.0\nwith open("x") as f:\n    pass\n', 'unsupported', 2, 5, 14),
    ('for', 'a = 1.0\nfor i in [1]:\n    a = a\n', 'unsupported', 2, 9, 12),
    ('global', 'a = 1.0\nglobal a\n', 'unsupported', 2, 0, 8),
    ('del', 'a = 1.0\ndel a\n', 'unsupported', 2, 0, 5),
    ('two statements', 'a = 1.0\nb = a; import os\n', 'unsupported', 2, 7, 16),
    ('bytes', 'a = b"bytes"\n', 'unsupported', 1, 4, 12),
    ('complex', 'a = 1j\n', 'unsupported', 1, 4, 6),
    ('bool', 'a = True\n', 'unsupported', 1, 4, 8),
    ('None', 'a = None\n', 'unsupported', 1, 4, 8),
    ('Ellipsis', 'a = ...\n', 'unsupported', 1, 4, 7),
    ('annotation', 'a = 1.0\nb: float = a\n', 'unsupported', 2, 0, 12),
    ('chained assignment', 'a = 1.0\nb = c = a\n', 'unsupported', 2, 0, 9),
    ('list target', 'a = 1.0\n[b] = [a]\n', 'unsupported', 2, 0, 3),
    ('yield', 'a = 1.0\nb = yield a\n', 'unsupported', 2, 4, 11),
    ('set', 'a = 1.0\nb = {a}\n', 'unsupported', 2, 4, 7),
    ('comparison', 'a = 1.0\nb = a < a\n', 'unsupported', 2, 4, 9),
    ('boolean', 'a = 1.0\nb = a and a\n', 'unsupported', 2, 4, 11),
    ('tuple', 'a = 1.0\nb = (a, a)\n', 'unsupported', 2, 4, 10),
    ('slice of a scalar', 'a = 1.0\nb = a[::-1]\n', 'shape', 2, 4, 11),
    ('index by a name', 'a = [1.0]\nb = a[a]\n', 'unsupported', 2, 6, 7),
    ('index by a call', 'a = [1.0]\nb = a[__import__("os")]\n', 'reserved_name', 2, 6, 16),
    ('index by a string', 'a = [1.0]\nb = a["x"]\n', 'unsupported', 2, 6, 9),
    ('dunder seed', 'W = randn(2, seed=__import__("os"))\n', 'reserved_name', 1, 18, 28),
    ('randn of a name', 'a = 2\nW = randn(a, seed=0)\n', 'bad_argument', 2, 10, 11),
    ('dunder in where', 'a = [1.0]\nb = where(a > __class__, a, a)\n', 'reserved_name', 2, 14, 23),
    ('method on a slice', 'a = [1.0]\nb = a[0:1].__len__()\n', 'reserved_name', 2, 11, 18),
    ('comparison as a value', 'a = [1.0]\nb = where(a > 0, a, a) + (a > 0)\n', 'unsupported', 2, 26, 31),
    ('deep parentheses', "a = 1.0\nb = " + "(" * 300 + "a" + ")" * 300 + "\n", 'syntax', 2, 204, 204),
    ('long import name', "import " + "m" * 1000 + "\n", 'name_too_long', 1, 7, 1007),
]


def test_the_corpus_is_big_enough():
    assert len(CORPUS) >= 40 and len({c[0] for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("what,text,kind,line,col,end_col", CORPUS, ids=[c[0] for c in CORPUS])
def test_hostile_program_is_rejected_by_construct(what, text, kind, line, col, end_col):
    with pytest.raises(ProgramError) as info:
        run_trace(text)
    e = info.value
    assert (e.kind, e.line, e.col, e.end_col) == (kind, line, col, end_col), e
    assert len(e.message) < 200


@pytest.mark.parametrize("name", ["__builtins__", "__import__", "__x", "__", "___"])
@pytest.mark.parametrize("where,template,col", [
    ("target", "{n} = 1.0\n", 0),
    ("use", "a = 1.0\nb = a + {n}\n", 8),
    ("call", "a = 1.0\nb = {n}(a)\n", 4),
    ("attribute", "a = [1.0]\nb = a.{n}\n", 6),
    ("keyword", "a = 1.0\nb = gelu(a, {n}=1)\n", 12),
    ("inside const", "a = 1.0\nb = const({n})\n", 10),
])
def test_reserved_names_are_refused_wherever_they_appear(name, where, template, col):
    text = template.format(n=name)
    with pytest.raises(ProgramError) as info:
        parse(text)
    e = info.value
    assert (e.kind, e.line, e.col, e.end_col) == ("reserved_name", text.count("\n"), col,
                                                   col + len(name))
    assert f"`{name}`" in e.message and e.hint


@pytest.mark.parametrize("name", ["_", "_x", "x__", "x__y__", "_x__"])
def test_names_with_fewer_leading_underscores_are_ordinary(name):
    body = run_trace(f"{name} = 2.0\nL = {name} * {name}\n")
    assert body["grads"][name] == 4.0


def test_the_first_bad_name_of_a_line_is_reported():
    text = "a = 1.0\nb = __c + __d + q\n"
    with pytest.raises(ProgramError) as info:
        parse(text)
    assert (info.value.kind, info.value.col) == ("reserved_name", 4)
