"""The engine's texts as LaTeX math: `math(text)` for a formula or a rule, `number(s)` for a
number as `short` writes it (engine/trace/values.py).

The engine writes its formulas in the program's own Python syntax with a few Unicode signs
(`t = tanh(d)`, `1 - t²`, `Xᵀ @ ∂L/∂(X @ W)`, `Ā ⊙ A`, `y_hat`); the LaTeX export
(engine/trace/table.py) typesets them as a textbook would: `\\tanh(d)`, `1 - t^{2}`,
`X^{\\top} \\mathbin{@} \\frac{\\partial L}{\\partial (X @ W)}`, `\\bar{A} \\odot A`,
`y_{\\mathrm{hat}}` (issue 18, section 3). Python's `**` becomes a superscript of the atom that
follows it, `.T` and `ᵀ` a transpose, a name ending in digits (`W1`) a subscript, a barred
letter (an adjoint) `\\bar`. Anything else pdflatex could not read is spelled out, so the output
always compiles with amsmath (`\\operatorname`, `\\text`).
"""
from __future__ import annotations

import re
import unicodedata

MACRON = "\u0304"   # a combining macron: the engine's adjoint bar (t̄)
_TOKEN = re.compile(r"""
    (?P<number>\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)
  | (?P<name>[A-Za-z_](?:[A-Za-z_0-9]|\u0304)*'*)
  | (?P<string>"[^"]*"|'[^']*')
  | (?P<op>\*\*|\+=|-=|==|!=|>=|<=|\.T\b)
  | (?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)
  | (?P<space>\s+)
  | (?P<other>.)
""", re.VERBOSE)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
# Functions TeX typesets upright with their own spacing; any other called name is an
# \operatorname.
_TEX_FUNCTIONS = {"tanh", "exp", "log", "sin", "cos", "sinh", "cosh", "min", "max"}
# One relation for += (\mathrel{{+}{=}}): TeX and KaTeX may break a line after a relation,
# and broke \mathrel{+}= between its two signs. The page's converter (static/js/tex.js) sets
# the same signs the same way: both are tested on tests/fixtures/unicode_tex.json.
_SIGNS = {
    "*": r"\cdot", "·": r"\cdot", "×": r"\times", "⊙": r"\odot", "@": r"\mathbin{@}",
    "∂": r"\partial", "−": "-", "…": r"\dots", "σ": r"\sigma", "Φ": r"\Phi", "φ": r"\varphi",
    "ᵀ": r"^{\top}", ".T": r"^{\top}", "+=": r"\mathrel{{+}{=}}", "-=": r"\mathrel{{-}{=}}",
    "ε": r"\varepsilon", "Σ": r"\Sigma", "→": r"\to", "≈": r"\approx",
    "==": "=", "!=": r"\neq", ">=": r"\geq", "<=": r"\leq", "%": r"\%", "&": r"\&",
    "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\sim", "|": r"\vert",
    "\\": r"\backslash", "^": r"\hat{}", "_": r"\_",
}
_SAFE = set("0123456789+-/=<>()[],.;:!?'\" ")


def math(text: str, tensors: bool = False) -> str:
    """LaTeX math (no `$`) for one of the engine's formula or rule texts. tensors: the program
    holds tensors, where Python's `*` is the element-wise product (\\odot), not \\cdot.

    >>> math("1 - t²")
    '1 - t^{2}'
    """
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(unicodedata.normalize("NFD", text))]
    if tensors:
        tokens = [("other", "⊙") if t == ("other", "*") else t for t in tokens]
    out, _ = _convert(tokens, 0, stop=None)
    return re.sub(" {2,}", " ", out).strip()


def _convert(tokens: list, i: int, stop: str | None) -> tuple[str, int]:
    """TeX for tokens[i:] up to the closing bracket `stop` (consumed) or the end; returns the
    TeX and the index after it."""
    out: list[str] = []
    while i < len(tokens):
        kind, text = tokens[i]
        if text == stop:
            return "".join(out) + text, i + 1
        i += 1
        if text in ("(", "["):
            inner, i = _convert(tokens, i, ")" if text == "(" else "]")
            out.append(text + inner)
        elif text == "**" or text == "√":
            atom, i = _atom(tokens, i)
            out.append(_after_sup(out, f"^{{{atom}}}") if text == "**" else rf"\sqrt{{{atom}}}")
        elif kind == "sup" or text in ("ᵀ", ".T"):
            sup = f"^{{{text.translate(_SUPERSCRIPTS)}}}" if kind == "sup" else _SIGNS[text]
            out.append(_after_sup(out, sup))
        elif kind == "name":
            called = i < len(tokens) and tokens[i][1] in ("(", "'")
            out.append(_name(text, called))
        else:
            out.append(_piece(kind, text))
    return "".join(out), i


def _atom(tokens: list, i: int) -> tuple[str, int]:
    """The TeX of the atom at tokens[i] (spaces skipped): a bracketed group without its
    brackets, a name with what it calls, or one token; and the index after it."""
    while i < len(tokens) and tokens[i][0] == "space":
        i += 1
    if i == len(tokens):
        return "", i
    kind, text = tokens[i]
    if text == "(":
        inner, i = _convert(tokens, i + 1, ")")
        return inner[:-1], i
    if kind == "name" and i + 1 < len(tokens) and tokens[i + 1][1] == "(":
        inner, j = _convert(tokens, i + 2, ")")
        return _name(text, True) + "(" + inner, j
    if text == "-":   # a negative exponent, 2 ** -1
        atom, j = _atom(tokens, i + 1)
        return "-" + atom, j
    return (_name(text, False) if kind == "name" else _piece(kind, text)), i + 1


def _after_sup(out: list[str], sup: str) -> str:
    """`sup`, behind an empty group when the piece before is a superscript already (x^{a}^{b}
    is a TeX error; x^{a}{}^{b} is not)."""
    return "{}" + sup if out and out[-1].endswith("}") and "^{" in out[-1] else sup


def _name(text: str, called: bool) -> str:
    primes = len(text) - len(text.rstrip("'"))
    text = text.rstrip("'")
    barred = MACRON in text
    base = text.replace(MACRON, "")
    if called:
        tex = "\\" + base if base in _TEX_FUNCTIONS else rf"\operatorname{{{_escape(base)}}}"
    else:
        tex = _variable(base, barred)
    return tex + "'" * primes


def _variable(name: str, barred: bool) -> str:
    """x, W_{1}, y_{\\mathrm{hat}}, \\mathit{logits}; \\bar over the letters when barred."""
    stem, sub = name, ""
    if (m := re.fullmatch(r"([A-Za-z]+)_?(\d+)", name)) or \
            (m := re.fullmatch(r"([A-Za-z]+)_([A-Za-z0-9_]+)", name)):
        stem, sub = m.group(1), m.group(2)
    stem_tex = stem if len(stem) == 1 else rf"\mathit{{{stem}}}"
    if barred:
        stem_tex = rf"\bar{{{stem_tex}}}" if len(stem) == 1 else rf"\overline{{{stem_tex}}}"
    if sub:
        sub = sub if sub.isdigit() else rf"\mathrm{{{_escape(sub)}}}"
        return f"{stem_tex}_{{{sub}}}"
    return stem_tex


def _escape(text: str) -> str:
    return text.replace("_", r"\_")


def _piece(kind: str, text: str) -> str:
    if kind == "number":
        return number(text)
    if kind == "string":
        return rf"\text{{\texttt{{{_escape(text)}}}}}"
    if kind == "space":
        return " "
    if text in _SIGNS:
        sign = _SIGNS[text]
        if text in "*·×⊙@":
            return f" {sign} "
        return sign + " " if sign[-1].isalpha() else sign   # \partial L, not \partialL
    if text in _SAFE:
        return text
    return rf"\text{{[U+{ord(text):04X}]}}"   # a sign pdflatex has no glyph for


def number(text: str) -> str:
    """TeX for a number as `short` writes it: 0.7864, -6, 1.835\\times 10^{-8}, \\infty,
    \\mathrm{NaN}."""
    if m := re.fullmatch(r"(-?[\d.]+)e([+-]?)0*(\d+)", text):
        exponent = ("-" if m.group(2) == "-" else "") + m.group(3)
        return rf"{m.group(1)} \times 10^{{{exponent}}}"
    lowered = text.lower()
    if lowered in ("inf", "+inf", "infinity"):
        return r"\infty"
    if lowered in ("-inf", "-infinity"):
        return r"-\infty"
    if lowered == "nan":
        return r"\mathrm{NaN}"
    return text
