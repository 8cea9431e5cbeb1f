"""The LaTeX export (engine/trace/table_tex.py, engine/trace/tex.py): the backward-pass table
typeset as math, and a document pdflatex compiles for every preset (issue 18, section 3).
pdflatex and pdftotext are Debian's texlive-latex-base/-recommended and poppler-utils, which
`make setup-test` installs."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from gradwalk.engine.trace.runner import Limits, trace_json
from gradwalk.engine.trace.table_tex import render_latex, results_tex, rows_tex, value_tex
from gradwalk.engine.trace.tex import math, number
from helpers import case
from gradwalk.engine.trace.values import short
from gradwalk.server.presets import presets


def body(program: str, inline: int = 64) -> dict:
    return json.loads(trace_json(program, None, Limits(inline=inline)))


def test_the_fanout_rows_are_math():
    rows = rows_tex(body(case("seed-tanh-fanout")["program"]))
    assert rows[0] == (r"$L = t \cdot c$", r"$c = 2$ for $t$, $t = 0.4621$ for $c$", "$1$",
                       r"$\frac{\partial L}{\partial t} \mathrel{{+}{=}} 2$, "
                       r"$\frac{\partial L}{\partial c} \mathrel{{+}{=}} 0.4621$")
    assert rows[1] == (r"$t = \tanh(d)$", r"$1 - t^{2} = 0.7864$ for $d$", "$2$",
                       r"$\frac{\partial L}{\partial d} \mathrel{{+}{=}} 1.5729$")
    # a is used twice: each contribution is accumulated with +=, the sum is the final line's.
    assert rows[3][3] == (r"$\frac{\partial L}{\partial a} \mathrel{{+}{=}} -0.7864$, "
                          r"$\frac{\partial L}{\partial b} \mathrel{{+}{=}} 1.5729$")


def test_the_results_are_fractions():
    b = body(case("seed-tanh-fanout")["program"])
    assert results_tex(b) == ["$L = 0.9242$", r"$\frac{\partial L}{\partial a} = 0.7864$",
                              r"$\frac{\partial L}{\partial b} = 1.5729$",
                              r"$\frac{\partial L}{\partial c} = 0.4621$"]


def test_tensors_are_arrays_or_their_shape_and_summary():
    b = body(case("seed-matmul-2x2")["program"])
    assert r"\frac{\partial L}{\partial X} = \left[\begin{array}{rr}17 & 23 \\ -5 & -7" \
        r"\end{array}\right]$" in results_tex(b)[1]
    assert value_tex({"shape": [3], "data": [1.0, -2.5, 3e-9]}) == \
        r"$[1, -2.5, 3 \times 10^{-9}]$"
    assert value_tex({"shape": [300, 64], "summary": {"min": -1.0, "max": 2.0, "mean": 0.5}}) \
        == r"$[300 \times 64]$ (min $-1$, max $2$, mean $0.5$)"


@pytest.mark.parametrize("text, tex", [
    ("1 - t²", "1 - t^{2}"),
    ("Xᵀ @ ∂L/∂(X @ W)", r"X^{\top} \mathbin{@} \partial L/\partial (X \mathbin{@} W)"),
    ("A ⊙ (Ā - sum(Ā ⊙ A))", r"A \odot (\bar{A} - \operatorname{sum}(\bar{A} \odot A))"),
    ("(y_hat - y) ** 2", r"(y_{\mathrm{hat}} - y) ^{2}"),
    ("c ** -1", "c ^{-1}"), ("exp(x) ** (a + b)", r"\exp(x) ^{a + b}"),
    ("(∂L/∂W2.T)ᵀ", r"(\partial L/\partial W_{2}^{\top})^{\top}"),
    ("H²ᵀ", r"H^{2}{}^{\top}"),   # two superscripts in a row would not compile
    ('gelu(z, approximate="tanh")',
     r'\operatorname{gelu}(z, \mathit{approximate}=\text{\texttt{"tanh"}})'),
    ("gelu'(x)", r"\operatorname{gelu}'(x)"), ("t' = t + 1.0", "t' = t + 1.0"),
    ("cross_entropy(logits, y)", r"\operatorname{cross\_entropy}(\mathit{logits}, y)"),
    ("t\u0304 · 2", r"\bar{t} \cdot 2"), ("W\u03041", r"\bar{W}_{1}"),
    ("a % b & c # d $ e { }", r"a \% b \& c \# d \$ e \{ \}"),
    ("x ☃ y", r"x \text{[U+2603]} y"),   # no glyph in pdflatex's fonts: spelled out
])
def test_math(text, tex):
    assert math(text) == tex


@pytest.mark.parametrize("text, tex", [
    ("0.7864", "0.7864"), ("-3.855e-21", r"-3.855 \times 10^{-21}"), ("1.2e+05", r"1.2 \times 10^{5}"),
    ("inf", r"\infty"), ("-inf", r"-\infty"), ("nan", r"\mathrm{NaN}"),
])
def test_numbers(text, tex):
    assert number(text) == tex


def _pdf_text(tex: str, tmp_path) -> str:
    """The text of the PDF pdflatex makes of `tex` (fails the test on any LaTeX error)."""
    (tmp_path / "t.tex").write_text(tex)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-2000:]
    return subprocess.run(["pdftotext", "-layout", "t.pdf", "-"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=True).stdout


# The Unicode -> TeX pairs the page's converter (static/js/tex.js) is tested on as well
# (tests/js/tex.test.mjs): the two tables set the engine's signs the same way.
SHARED = json.loads((Path(__file__).parents[1] / "fixtures" / "unicode_tex.json").read_text())["pairs"]


@pytest.mark.parametrize("text, tex", SHARED)
def test_math_as_the_page_sets_it(text, tex):
    assert math(text) == tex


def test_the_shared_pairs_compile(tmp_path):
    """Each shared pair's TeX is math pdflatex reads, the signs printed as signs."""
    start = render_latex(body(case("seed-tanh-fanout")["program"])).split(r"\begin{longtable}")[0]
    lines = "".join(f"${tex}$\\par\n" for _, tex in SHARED)
    text = _pdf_text(start + lines + r"\end{document}", tmp_path)
    for sign in ("∂", "⊙", "σ", "ε", "→", "≈", "+=", "−=", "tanh(d)"):
        assert sign in text, sign
    assert "a%b&c#d$e{}" in text   # TeX's special characters printed, not read as markup
    assert "\\" not in text


def test_pdflatex_is_installed():
    """The compile tests below need it: make setup-test installs it (never skipped)."""
    assert shutil.which("pdflatex") and shutil.which("pdftotext")


def test_the_fanout_export_compiles_and_reads_as_math(tmp_path):
    text = _pdf_text(render_latex(body(case("seed-tanh-fanout")["program"])), tmp_path)
    for words in ("Local slopes", "tanh(d)", "0.7864", "1.5729", "0.4621", "0.9242", "∂L"):
        assert words in text, words
    assert "\\" not in text and "$" not in text   # no markup read as text


def test_every_preset_compiles(tmp_path):
    """Every preset's table in one document (one pdflatex run: the preamble is the same):
    it compiles, and shows each preset's header and scalar output."""
    docs = [render_latex(body(p["program"])) for p in presets()]
    start, end = r"\small", r"\end{document}"
    tables = [d[d.index(start) + len(start):d.index(end)] + r"\clearpage" for d in docs]
    text = _pdf_text(docs[0][:docs[0].index(start)] + "".join(tables) + end, tmp_path)
    assert text.count("Gradients it sends back") >= len(docs)
    for p in presets():
        value = body(p["program"])["output"]["value"]
        if not isinstance(value, dict):
            assert short(value).split("e")[0] in text.replace("−", "-"), p["id"]


def test_a_tensor_programs_product_is_element_wise_and_a_denominator_is_grouped():
    """A newcomer read `G · Y` as a matrix product beside X @ W, and ∂L/∂G · Y as (∂L/∂G)·Y."""
    rows = dict((r[0], r) for r in rows_tex(body(case("seed-matmul-2x2")["program"])))
    assert r"$L = \operatorname{sum}(G \odot Y)$" in rows
    assert r"\frac{\partial L}{\partial (G \odot Y)} \mathrel{{+}{=}}" in \
        rows[r"$L = \operatorname{sum}(G \odot Y)$"][3]
    assert math("t * c") == r"t \cdot c"   # a scalar program's product stays a dot
    assert render_latex(body(case("seed-tanh-fanout")["program"])).count(r"\noindent") == 1
