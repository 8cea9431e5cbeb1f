"""Every node's formula, adjoint symbol and binding strength, worked out once per trace from
the final labels (engine/trace/tracer.py's compile; the narration, the graph and the size
check read them). The parse's run path hands over what it knows (Program.texts)."""
from __future__ import annotations

import itertools
import operator

from gradwalk.engine.labels import ATOM, OPERAND_PARENS, data_formula, strength
from gradwalk.engine.ops import get_op
from gradwalk.engine.parse import Program
from gradwalk.engine.source import clip
from gradwalk.engine.syntax import MAX_LABEL
from gradwalk.engine.trace import narrate

_LABEL = operator.attrgetter("label")
NEVER = (-1, -1)   # no binding strength is this weak: no parentheses (operand_text's default)


def node_texts(program: Program, output_label: str) -> tuple[list, list, list]:
    """Every node's formula and adjoint symbol (issue 15 §1). The parse hands over the
    binding strengths of the nodes its run path made, and which of them have a formula
    other than their label (Program.texts: in the chain, every node after its first
    line, and every fourth of them, the named one); those and the others, the gaps, are
    worked out here in one pass (the gaps' strengths first, as the formulas read them; a
    handed-over strength is not worked out again): a binary operator over two operands,
    the commonest node, is written from its inputs' labels and binding strengths
    (narrate.formula's text, without the template; labels.OPERAND_PARENS: operand_text's
    parentheses).
    Each distinct label's symbol is worked out once, with the strength of the first
    node that has it. Returns (formulas, symbols, strengths), one per node of `program`."""
    nodes = program.nodes
    handed, count = program.texts, len(nodes)
    labels = list(map(_LABEL, nodes))
    if handed is not None and len(handed[1]) == count:   # copied: filled in below
        written, strengths, gaps = handed
        formulas, strengths = labels.copy(), strengths.copy()   # a formula is its label
        gaps = list(itertools.chain.from_iterable(itertools.starmap(range, gaps)))
        for i in gaps:   # the gaps' strengths first: the written nodes' formulas read them
            strengths[i] = strength(nodes[i])
        todo = itertools.chain(gaps, written)   # a written node's strength is handed over
    else:
        formulas, strengths, todo = [None] * count, list(map(strength, nodes)), range(count)
    binary, parens = narrate.BINARY_TEXT, OPERAND_PARENS
    for i in todo:
        n = nodes[i]
        op = n.op
        symbol = binary.get(op)   # None for a leaf or a constant ("leaf", "const")
        if symbol is not None and len(n.inputs) == 2 and not n.params:
            left, right = n.inputs
            most_left, most_right = parens.get(op, NEVER)   # a comparison: none
            a, b = nodes[left].label, nodes[right].label
            if strengths[left] <= most_left:
                a = f"({a})"
            if strengths[right] <= most_right:
                b = f"({b})"
            formulas[i] = f"{a} {symbol} {b}" if n.name is None else \
                f"{n.label} = {a} {symbol} {b}"
        elif n.name is None and not n.params and n.role != "op":
            formulas[i] = n.label   # an unnamed constant (`* 1.0001`): template_formula's own
        else:
            formulas[i] = template_formula(program, n)
    output, short, macron = clip(output_label, MAX_LABEL), narrate.SHORT_NAME, narrate.MACRON
    # label -> the strength of its first node: zipped backwards, the first comes last
    first = dict(zip(reversed(labels), reversed(strengths)))
    bars = {label: f"∂{output}/∂({label})" if s < ATOM and " " in label else   # (a * b)
            label[0] + macron + label[1:] if " " not in label and short(label) else   # x̄'
            f"∂{output}/∂{label}" if s >= ATOM else f"∂{output}/∂({label})"   # as symbol
            for label, s in first.items()}   # writes them, without its call
    return formulas, list(map(bars.__getitem__, labels)), strengths


def template_formula(program: Program, n) -> str:
    """Node n's formula from its op's template (narrate.formula), a data call's text or a leaf's
    declaration: what node_texts writes without the template for the commonest nodes."""
    if n.role == "const" and (data := data_formula(n, program.nodes)):   # X, y = xor()
        return data
    if n.role != "op" and n.name and n.params.get("init"):   # randn(4, 5, seed=0), ...
        made = n.params["init"]
        return f"{n.label} = const({made})" if n.role == "const" else f"{n.label} = {made}"
    if n.role != "op":
        return narrate.leaf_formula(n.label, n.literal, n.role == "const") if n.name \
            else n.label
    inputs = [program.nodes[i] for i in n.inputs]
    return narrate.formula(get_op(n.op), n.label, [x.label for x in inputs], n.params,
                           n.name is not None, [strength(x) for x in inputs])
