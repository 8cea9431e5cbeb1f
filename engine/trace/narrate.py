"""Teaching text: each node's forward rule and each backward edge's rule with its numbers."""
from __future__ import annotations

import functools
import re

import numpy as np

from gradwalk.engine.labels import ATOM, enclosed, operand_text, text_strength
from gradwalk.engine.ops.registry import Op
from gradwalk.engine.source import clip
from gradwalk.engine.syntax import MAX_LABEL
from gradwalk.engine.trace.values import short

MACRON = "\u0304"


def wrap(label: str) -> str:
    """Parenthesize a label that is not an atom (a name, a call, an index, x.T), so it reads
    right inside a formula: `∂L/∂(-a)`, `∂L/∂(a * b)`, but `∂L/∂sum(x, axis=0)`."""
    return f"({label})" if text_strength(label) < ATOM else label


def group(text: str) -> str:
    """Parenthesize a partial that has spaces (a sum, a product) before `· ȳ` or `⊙ ȳ`, unless
    it is one parenthesized group already (labels.enclosed)."""
    return f"({text})" if " " in text and not enclosed(text) else text


_SHORT_NAME = re.compile(r"^[^\W\d_][\d'⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾]*$")
SHORT_NAME = _SHORT_NAME.match   # a label that symbol writes with a bar (x̄, c̄'): node_texts'


def bar(label: str, output: str, strength: int | None = None) -> str:
    """The adjoint's symbol: d̄, w̄1, c̄' for a one-letter name (a bar reads well over one letter
    only); ∂L/∂y_hat and ∂L/∂(w1 * x) for longer names and unnamed intermediates.

    The output's label is in every symbol, so it is clipped to MAX_LABEL characters (labels are
    at most MAX_NAME or MAX_LABEL long already: engine/parse.py). strength: how tightly the
    label binds (engine/labels.py strength), when the caller has the node; else read back
    from the label's text (which may parse it)."""
    return symbol(label, clip(output, MAX_LABEL), strength)


def symbol(label: str, output: str, strength: int | None = None) -> str:
    """bar() with the output's label clipped already (a loop over every node clips it once)."""
    if " " not in label and _SHORT_NAME.match(label):   # no short name has a space
        return label[0] + MACRON + label[1:]
    if strength is None:
        return f"∂{output}/∂{wrap(label)}"
    return f"∂{output}/∂{label if strength >= ATOM else f'({label})'}"


def _binary_texts() -> dict[str, str]:
    """op name -> its symbol, for the rows whose forward text is `{0} <symbol> {1}` (+ - * /
    ** @): their formula is the two operands around the symbol (node_texts.node_texts' fast path)."""
    from gradwalk.engine.ops import REGISTRY   # the package: importing it registers every row

    return {op.name: op.symbol for op in REGISTRY.values()
            if op.symbol and op.text == f"{{0}} {op.symbol} {{1}}"}


BINARY_TEXT = _binary_texts()


def leaf_formula(label: str, literal: np.ndarray, const: bool) -> str:
    """"a = 1.0", "W = [[5.0, 6.0], [7.0, 8.0]]", "y = const(1.0)"; big tensors by their shape."""
    value = repr(literal.tolist()) if literal.size <= 16 else \
        "a " + shape_name(literal.shape)
    return f"{label} = const({value})" if const else f"{label} = {value}"


def formula(op: Op, out_label: str, in_labels: list[str], params: dict, named: bool,
            strengths: list[int] | None = None) -> str:
    """The forward rule with labels, e.g. "t = tanh(d)"; just the right side when unnamed.
    strengths: how tightly each input's label binds (engine/labels.py strength), when known
    from the IR; else read back from the labels' text."""
    rhs = fill(op.text, _operands(op, in_labels, strengths), params)
    return f"{out_label} = {rhs}" if named else rhs


def fill(template, labels: list[str], params: dict, **names) -> str:
    """A row's text with the labels in: a str.format template ({0}, {out}, {g}, {axis}) or a
    function called the same way, for texts that depend on values (axis=None or not)."""
    if callable(template):
        return template(*labels, **names, **params)
    template = _with_transposes(template)
    if "{t_" not in template:   # most rules: no transposed label (a fill per scalar edge)
        return template.format(*labels, **names, **params)
    given = dict(enumerate(labels)) | names
    transposed = {f"t_{k}": _transposed(x) for k, x in given.items() if isinstance(x, str)}
    return template.format(*labels, **names, **params, **transposed)


_ONE_LABEL = re.compile(r"\{(\d+)\}")


@functools.lru_cache(maxsize=512)
def plain_partial(template) -> str | int | None:
    """What `fill` makes of a partial's template without filling it: the template itself
    when it has no placeholder ("1", "-1"), k when it is exactly one label "{k}" (mul's "{1}"),
    else None (fill it). The scalar edges' common case, once per template."""
    if not isinstance(template, str):
        return None
    if "{" not in template and "}" not in template:
        return template
    whole = _ONE_LABEL.fullmatch(template)
    return int(whole.group(1)) if whole else None


_POSTFIX_T = re.compile(r"\{(\d+|g|out)\}ᵀ")


@functools.lru_cache(maxsize=512)
def _with_transposes(template: str) -> str:
    """{1}ᵀ of a label K.T reads (K.T)ᵀ, not K.Tᵀ; {g}ᵀ of ∂L/∂S reads (∂L/∂S)ᵀ: the template
    with such places marked {t_1}ᵀ (worked out once per template)."""
    return _POSTFIX_T.sub(r"{t_\1}ᵀ", template)


def _transposed(text: str) -> str:
    """A label or adjoint symbol before a postfix ᵀ, parenthesized when ᵀ would bind to
    only a part of it (K.T, ∂L/∂S)."""
    return f"({text})" if text.endswith(".T") or text.startswith("∂") else text


def _operands(op: Op, labels: list[str], strengths: list[int] | None = None) -> list[str]:
    """Operator ops need parentheses around labels that bind less tightly than they do
    (x @ W1 + b1, a * (b + c)); function calls have their own."""
    if not op.symbol:
        return list(labels)
    return [operand_text(op.name, i, x, None if strengths is None else strengths[i])
            for i, x in enumerate(labels)]


def _math_operands(op: Op, labels: list[str]) -> list[str]:
    """Labels inside a rule's math (1/y, {1}ᵀ, -{0}/{1}^2): any non-atom is parenthesized."""
    return [wrap(x) for x in labels] if op.symbol else list(labels)


SHOW_ELEMENTS = 6   # tensors up to this size get their numbers in the narration


def compact(value) -> str:
    """A small tensor's numbers as nested brackets: [[17, 23], [-5, -7]]."""
    if np.ndim(value) == 0:
        return short(value)
    return "[" + ", ".join(compact(v) for v in value) + "]"


def signed(x) -> str:
    """A number to follow an operator: "2", "(-0.7864)"."""
    return _signed_text(short(x))


def shape_text(shape) -> str:
    """A shape in a rule or a table, its sizes joined by ×: 4×3, 2×3×4; a vector 2-vector and
    a scalar "scalar" (a lone 2 would read as a number). Python's (4,3) read as a ratio after
    the rule's colon ("(6,3) = (6,3) ⊙ (6,3)"; issue 14 §4): the page's shapeName
    (static/js/format.js) writes the same sizes."""
    shape = tuple(shape)
    if not shape:
        return "scalar"
    if len(shape) == 1:
        return f"{shape[0]}-vector"
    return "×".join(map(str, shape))


def shape_name(shape) -> str:
    """A shape in prose, as the page's shapeName (static/js/format.js): "scalar", "8-vector",
    "6×4 matrix", "2×3×4 tensor"."""
    shape = tuple(shape)
    return shape_text(shape) + {0: "", 1: "", 2: " matrix"}.get(len(shape), " tensor")


_TRANSPOSED = re.compile(r"\b(\d+)×(\d+)ᵀ")
_WORD = re.compile(r"[A-Za-z]")


def shape_rule(op: Op, arg: int, params: dict, shapes, g, local, raw_shape) -> str:
    """The rule's shapes, ", shapes 4×3 = 4×2 @ 2×3" (issue 7, §4; no brackets: the page's
    typeset line may break at its "=", tex.js): the vjp's own text with
    shapes for labels when it is algebra (matmul, transpose), "4×2 ⊙ 4×2" for an
    elementwise rule; else just the shape of what is sent back. `shapes` is (output shape,
    [input shapes]); `raw_shape` the shape before any unbroadcast."""
    lhs = shape_text(raw_shape)
    if local is not None:   # a 0-d factor is written "scalar": "3×2 = 3×2 ⊙ scalar"
        factors = [shape_text(np.shape(v)) for v in (local, g)]
        return f", shapes {lhs} = {factors[0]} ⊙ {factors[1]}"
    template = op.vjp_text[arg] if op.vjp_text else None
    if shapes is None or not isinstance(template, str) or \
            _WORD.search(re.sub(r"\{[^}]*\}", "", template)):
        return f", shape {lhs}"
    out_shape, in_shapes = shapes
    try:
        text = template.format(*map(shape_text, in_shapes), **params,
                               out=shape_text(out_shape), g=shape_text(np.shape(g)))
    except (KeyError, IndexError, ValueError):
        return f", shape {lhs}"
    return f", shapes {lhs} = " + _TRANSPOSED.sub(r"\2×\1", text)


def accumulate(rule: str, op: Op, arg: int, out_label: str, in_labels: list[str], params: dict,
               local, g, contrib, before, after, axes=(), output: str = "L",
               named: bool = True, shapes=None, symbols=None) -> tuple[str, str]:
    """(partial, narration) for one backward edge. symbols: (input's, node's) adjoint symbols
    when they are not `bar` of the labels (hvp mode's ∂s/∂a: engine/trace/hvp.py).

    Scalars read "t = tanh(d), so d̄ += (1 - t²) · t̄ = 0.7864 · 2 = 1.5729", with the running sum
    appended at a fan-out ("; ā = 1.5729 + (-0.7864) = 0.7864"). Tensors keep their shapes
    (shape_rule; `shapes` is (output shape, [input shapes])), and their numbers when there
    are at most SHOW_ELEMENTS: "X̄ += ∂L/∂(X @ W) @ Wᵀ, shapes 4×3 = 4×2 @ 2×3".
    """
    labels = _math_operands(op, in_labels)
    inbar, outbar = symbols or (bar(in_labels[arg], output), bar(out_label, output))
    partial = fill(op.partials[arg], labels, params, out=wrap(out_label))
    so = ", so" if named else ":"
    scalar = np.ndim(contrib) == 0 and np.ndim(g) == 0
    if local is None:
        partial = fill(op.vjp_text[arg], labels, params, out=wrap(out_label), g=outbar)
        text = f"{rule}{so} {inbar} += {partial}"
    elif scalar:
        return partial, scalar_edge(rule, so, inbar, outbar, partial, local, g, contrib,
                                    before, after)
    else:
        text = f"{rule}{so} {inbar} += {group(partial)} ⊙ {outbar}"
    if not scalar:
        raw_shape = np.shape(contrib)   # before an unbroadcast: known for elementwise rules
        if axes:
            raw_shape = np.broadcast_shapes(np.shape(local), np.shape(g)) \
                if local is not None else None
        if raw_shape is not None:
            text += shape_rule(op, arg, params, shapes, g, local, raw_shape)
    if axes:
        summed = ", ".join(map(str, axes))
        text += (f", summed over axis {summed} back to {in_labels[arg]}'s shape "
                 f"({shape_text(np.shape(contrib))})")
    if not scalar and np.size(contrib) <= SHOW_ELEMENTS:
        text += f" = {compact(contrib)}"
    if before is not None:
        text += f"; added to what {inbar} already holds"
    return partial, text


def scalar_edge(rule: str, so: str, inbar: str, outbar: str, partial: str, local, g, contrib,
                before, after) -> str:
    """The narration of a scalar edge from its texts and numbers (no shapes, no axes):
    "t = tanh(d), so d̄ += (1 - t²) · t̄ = 0.7864 · 2 = 1.5729", with "; ā = 1 + 2 = 3" when
    the input already held an adjoint (before is not None)."""
    return scalar_edge_text(rule, so, inbar, outbar, partial, short(local), short(g),
                            short(contrib), None if before is None else short(before),
                            short(after))


def scalar_edge_text(rule: str, so: str, inbar: str, outbar: str, partial: str, local: str,
                     g: str, contrib: str, before: str | None, after: str) -> str:
    """scalar_edge with its numbers already written (values.short): the reverse walk writes
    each adjoint's text once and reads it again when the adjoint becomes the upstream
    gradient (engine/trace/reverse.py scalar_edges)."""
    text = (f"{rule}{so} {inbar} += {group(partial)} · {outbar} = "
            f"{local} · {_signed_text(g)} = {contrib}")
    if before is not None:
        text += f"; {inbar} = {before} + {_signed_text(contrib)} = {after}"
    return text


def _signed_text(s: str) -> str:
    """signed() of a number already written: "(-0.7864)" for a negative one."""
    return f"({s})" if s[0] == "-" else s
