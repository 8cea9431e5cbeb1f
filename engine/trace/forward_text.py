"""Forward mode's words (engine/trace/forward_mode.py): each `tangent` event's rule and
narration, the tangent's symbol and the dual number, and the CLI's table.

A term of a node's jvp is its registry row's local derivative (the `partials` text, the same one
the backward narration prints) times the input's tangent: `e = a * b, so ė = ȧ·b + a·ḃ =
1·(-0.5) + 1·0 = -0.5; e = -0.5 - 0.5ε` (seed 000_83dd1fd5d418f184.txt: "For v = a·b, the
product rule gives v̇ = ȧb + aḃ. For v = tanh(a), it is v̇ = (1 - v²)ȧ").
"""
from __future__ import annotations

import re

import numpy as np

from gradwalk.engine.ops import get_op
from gradwalk.engine.trace import edge_notes, narrate
from gradwalk.engine.trace.values import short

DOT = "\u0307"   # combining dot above: ȧ
_BRACKETED = re.compile(r"^\(-[^()]*\)$")   # a negative number in brackets, (-0.5)


def dot(label: str) -> str:
    """The tangent's symbol: ȧ, ẇ1, ċ' for a one-letter name (as narrate.bar puts a bar);
    d(y_hat), d(w1 * x) otherwise (the differential in the chosen direction)."""
    if narrate._SHORT_NAME.match(label):
        return label[0] + DOT + label[1:]
    return f"d({label})"


def dual(value, tangent) -> str:
    """A scalar dual number, `-0.5 - 0.5ε`."""
    t = short(tangent)
    return f"{short(value)} - {t[1:]}ε" if t.startswith("-") else f"{short(value)} + {t}ε"


def narration(tracer, i: int, tangents: list, given: dict) -> tuple[str, str]:
    """(rule, narration) for node i's tangent event."""
    node = tracer.program.nodes[i]
    label, v, t = node.label, tracer.values[i], tangents[i]
    symbol = dot(label)
    scalar = np.ndim(v) == 0
    if node.role == "const":
        return f"{symbol} = 0", f"{tracer.formulas[i]}: a constant, so {symbol} = 0"
    if node.role == "leaf":
        return _leaf_narration(label, symbol, v, t, i in given, tracer.options.tangents)
    if t is None:
        cuts = getattr(tracer, "cuts", None)
        # hvp mode: the cuts are the program's as written, whose nodes keep their indices
        why = cuts.why_no_tangent(i) if cuts is not None and i < len(cuts.severed) and \
            cuts.severed[i] else "no leaf reaches it"
        return f"{symbol} = 0", (f"{tracer.formulas[i]}: {why}, so {symbol} = 0"
                                 + (f"; {label} = {dual(v, 0.0)}" if scalar else ""))
    rule, numbers, notes = _terms(tracer, node, tangents)
    so = ", so" if node.name is not None else ":"
    text = f"{tracer.formulas[i]}{so} {symbol} = {rule}"
    if scalar and numbers is not None:
        if numbers != short(t):
            text += f" = {numbers}"
        if i in getattr(tracer, "grouped", ()):   # forward_mode.grouped: ∞ - ∞ regrouped
            a, b = (tracer.program.nodes[k].label for k in node.inputs)
            text += (f", ∞ - ∞; over their common denominator {narrate.wrap(b)} the numerator "
                     f"decides, ({dot(a)} - {narrate.wrap(label)}·{dot(b)})/{narrate.wrap(b)}")
        text += f" = {short(t)}; {label} = {dual(v, t)}"
    else:
        text += f", shape {narrate.shape_text(np.shape(t))}"
        if np.size(t) <= narrate.SHOW_ELEMENTS:
            text += f" = {narrate.compact(t)}"
    return f"{symbol} = {rule}", text + notes


def _leaf_narration(label, symbol, v, t, seeded: bool, given) -> tuple[str, str]:
    scalar = np.ndim(v) == 0
    if scalar:
        head = f"{label} = {dual(v, t)}: "
        if given is None and seeded:
            return f"{symbol} = 1", (head + f"{label} is the input we differentiate by, so "
                                     f"{symbol} = ∂{label}/∂{label} = 1")
        if seeded and t != 0:
            return f"{symbol} = {short(t)}", head + f"its tangent {symbol} = {short(t)} is " \
                                                    "the given direction"
        return f"{symbol} = 0", head + f"{symbol} = 0, {label} is held fixed"
    shape = f"({narrate.shape_text(np.shape(v))})"
    if given is None and seeded:
        first = ", ".join("0" * np.ndim(v))
        return (f"{symbol} = e[{first}]", f"{label} {shape}: {symbol} is 1 at {label}[{first}] "
                f"and 0 elsewhere, so the output's tangent is ∂/∂{label}[{first}]")
    if seeded and np.any(t != 0):
        text = f"{label} {shape}: its tangent {symbol} is the given direction"
        if np.size(t) <= narrate.SHOW_ELEMENTS:
            text += f" {narrate.compact(t)}"
        return f"{symbol} = given", text
    return f"{symbol} = 0", f"{label} {shape}: {symbol} = 0, {label} is held fixed"


def _terms(tracer, node, tangents) -> tuple[str, str | None, str]:
    """The jvp as a sum over the inputs a leaf reaches: its rule as text, for scalars the
    same sum with numbers, and why a partial has its value at an edge point (edge_notes).
    An elementwise op's term is its local derivative (the row's partial) times the input's
    tangent, the first operand's tangent written first (ȧ·b + a·ḃ, the
    product rule as the seed writes it); another op's is its Jacobian applied to the tangent,
    ∂Y/∂X·Ẋ."""
    op = get_op(node.op)
    labels = [tracer.program.nodes[k].label for k in node.inputs]
    operands = [narrate.wrap(x) for x in labels] if op.symbol else labels
    xs = tracer.inputs(node)
    out = tracer.values[node.index]
    scalar = np.ndim(out) == 0 and all(np.ndim(x) == 0 for x in xs)
    texts, numbers, notes = [], [], []
    times = "·" if np.ndim(out) == 0 else "⊙"
    for arg, k in enumerate(node.inputs):
        if not tracer.requires[k]:
            continue   # a constant's tangent is 0: no term
        d = dot(labels[arg])
        if not op.elementwise:
            texts.append(f"∂{narrate.wrap(node.label)}/∂{narrate.wrap(labels[arg])}·{d}")
            notes += edge_notes.parts(node.op, arg, out, xs, labels, node.params,
                                      lambda arg=arg: narrate.fill(
                                          op.partials[arg], operands, node.params,
                                          out=narrate.wrap(node.label)))
            numbers = None
            continue
        partial = narrate.fill(op.partials[arg], operands, node.params,
                               out=narrate.wrap(node.label))
        notes += edge_notes.parts(node.op, arg, out, xs, labels, node.params, partial)
        if getattr(tracer, "zero_terms", False):   # hvp mode: a 0 tangent's term is 0
            zero = _zero_term(tracer, node, op, arg, tangents[k], partial)
            if zero:
                notes.append(("", "", zero[2:]))
        texts.append(_term(d, partial, arg == 0 and len(node.inputs) > 1, times))
        if scalar and numbers is not None:
            with np.errstate(all="ignore"):
                local = op.vjp[arg](np.float64(1.0), np.float64(out), *xs, **node.params)
            numbers.append(_number_term(tangents[k], local, partial,
                                        arg == 0 and len(node.inputs) > 1))
    return (_join(texts) or "0", _join(numbers) if scalar and numbers else None,
            edge_notes.words(notes))


def _zero_term(tracer, node, op, arg: int, tangent, partial: str) -> str:
    """edge_notes.zero_term's words for input `arg` of an elementwise node: its partial is NaN
    or ∞ where its tangent (None: 0) is 0, a term the walk takes as 0."""
    if tangent is not None and (tangent != 0 if np.ndim(tangent) == 0 else np.all(tangent)):
        return ""   # no zero tangent: no term was taken as 0 (the common case, no rule run)
    out = tracer.values[node.index]
    with np.errstate(all="ignore"):
        local = op.vjp[arg](np.ones_like(np.asarray(out, dtype=float)), out,
                            *tracer.inputs(node), **node.params)
    return edge_notes.zero_term(partial, local, 0.0 if tangent is None else tangent, "tangent")


def _term(d: str, partial: str, tangent_first: bool, times: str, shape: str | None = None) -> str:
    """One term `partial·ḋ` (or `ȧ·partial`), simplified where the partial is 1, -1 or 1/x
    (`shape`: the symbolic partial, when `partial` is its number)."""
    p = partial if shape is None else shape
    if p == "1":
        return d
    if p == "-1":
        return f"-{d}"
    if shape is None and p.startswith("1/"):
        return f"{d}/{p[2:]}"
    if tangent_first:
        return f"{d}{times}{narrate.wrap(partial)}"
    return f"{narrate.wrap(partial)}{times}{d}"


def _number_term(t, local, partial: str, tangent_first: bool) -> str:
    """A term with its numbers, in the form of its rule: `ȧ/(2 * L)` reads `1/0` (the
    tangent over the denominator, 1/local), not `Infinity·1`; else as _term."""
    if partial.startswith("1/"):
        with np.errstate(all="ignore"):
            denominator = 1.0 / np.float64(local)
        return f"{_paren(t)}/{_paren(denominator)}"
    return _term(_paren(t), _paren(local), tangent_first, "·", partial)


def _paren(x) -> str:
    s = short(x)
    return f"({s})" if s.startswith("-") else s


def _join(terms: list[str]) -> str:
    """Terms joined by + and -: `ė + ȧ`, `ȧ - ḃ`, `-0.5 + 1` (a first number unbracketed)."""
    text = ""
    for term in terms:
        if not text:
            text = term[1:-1] if _BRACKETED.match(term) else term
        elif term.startswith("-"):
            text += f" - {term[1:]}"
        else:
            text += f" + {term}"
    return text


# ---- the CLI's table ---------------------------------------------------------------------------
def render_table(body: dict) -> str:
    """`gradwalk trace --mode forward --format table`: each node's tangent narration, then the
    jvp, the passes and (when run) all forward passes against reverse mode."""
    lines = [e["narration"] for e in body["events"] if e["kind"] == "tangent"]
    out = body["output"]
    lines += ["", f"{out['name']} = {_plain(out['value'])}",
              f"jvp (the tangent of {out['name']}) = {_plain(body['jvp'])}"]
    p = body["passes"]
    lines.append(f"direction {p['direction']}; the full Jacobian takes {p['forward']} forward "
                 f"passes or {p['reverse']} reverse")
    every = body.get("all_forward")
    if every:
        verdict = "agree" if every["agree"] else "DISAGREE"
        lines.append(f"all {every['passes']} forward passes {verdict} with reverse mode (max "
                     f"|difference| {_plain(every['max_abs_difference_from_reverse'])})")
    return "\n".join(lines) + "\n"


def _plain(value) -> str:
    if isinstance(value, dict):
        data = value.get("data")
        return narrate.compact(np.array(data)) if data is not None else \
            narrate.shape_name(value['shape'])
    return short(value) if not isinstance(value, str) else value
