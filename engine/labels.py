"""An unnamed intermediate's label, printed from the parsed tree rather than sliced from the
source, so `tanh(X@W+b)` and `tanh(X @ W + b)` both read `tanh(X @ W + b)`.

Python's own rules decide the parentheses (the precedence table of the language reference,
"Operator precedence", as `ast.unparse` applies it): an operand gets them when it binds less
tightly than its operator needs. The operands' labels are printed already (inputs are made
before their consumers), so each label costs its own length, however long the chain.
"""
from __future__ import annotations

import ast
import functools

from gradwalk.engine.source import clip
from gradwalk.engine.syntax import MAX_LABEL

# Binding strength, weakest first (docs.python.org/3/reference/expressions.html#operator-precedence).
SUM, PRODUCT, UNARY, POWER, ATOM = range(5)
_BINARY = {"add": ("+", SUM), "sub": ("-", SUM), "mul": ("*", PRODUCT),
           "div": ("/", PRODUCT), "matmul": ("@", PRODUCT), "pow": ("**", POWER)}


# op -> (the strongest binding its left operand is parenthesized at, the right's): the levels
# operand_text and print_label test (`a - (b - c)`, `(a ** b) ** c`), for a loop over many nodes
OPERAND_PARENS = {op: (POWER, PRODUCT) if level == POWER else (level - 1, level)
                  for op, (_, level) in _BINARY.items()}
# op -> (" symbol ", OPERAND_PARENS's two levels, its own binding strength): print_label's text
# of a binary operator, for a builder writing it without the call (engine/parse_run.py)
PRINTED = {op: (f" {symbol} ", *OPERAND_PARENS[op], level)
           for op, (symbol, level) in _BINARY.items()}


def strength(node) -> int:
    """How tightly a node's label binds: a name or a call is an atom; a negative constant is a
    unary minus; an unnamed operator result binds as its operator."""
    if node.name is not None or node.role == "leaf":
        return ATOM
    if node.role == "const":
        return UNARY if node.label.startswith("-") else ATOM
    if node.op in _BINARY:
        return _BINARY[node.op][1]
    return UNARY if node.op == "neg" else ATOM   # calls and x.T are atoms


_TEXT_BINARY = {ast.Add: SUM, ast.Sub: SUM, ast.Mult: PRODUCT, ast.Div: PRODUCT,
                ast.MatMult: PRODUCT, ast.FloorDiv: PRODUCT, ast.Mod: PRODUCT, ast.Pow: POWER}


def text_strength(text: str) -> int:
    """How tightly a printed label binds, read back from its text (the narration has only the
    labels): `-a` is a unary minus, `x @ W + b` a sum, `K.T` and `sum(x, axis=0)` atoms. Text
    that is not Python (a clipped label ending in …, math like 1 - t²) counts as an atom when
    it has no space, else as the weakest (a sum), so it is parenthesized."""
    if " " not in text:   # printed operators have spaces around them: a name, a call, -a
        return UNARY if text[:1] in "-+~" else ATOM
    return _parsed_strength(text)


def enclosed(text: str) -> bool:
    """Whether the whole text is one parenthesized group, `(1 - t * t)` (not `(a) * (b)`):
    it binds as an atom, and parentheses around it again would be doubled. A clipped label
    has its brackets closed (engine/clip.py): `(1 / sqrt(mean(x…)))` is one group."""
    if text[:1] != "(" or text[-1:] != ")":
        return False
    depth = 0
    for k, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and k < len(text) - 1:
                return False
    return depth == 0


@functools.lru_cache(maxsize=4096)
def _parsed_strength(text: str) -> int:
    if enclosed(text):
        return ATOM
    try:
        # a clipped label's … stands for a name (engine/clip.py): `gelu(z, approximate…)` is a call
        tree = ast.parse(text.replace("'", "_").replace("…", "_"), mode="eval").body
    except (SyntaxError, ValueError):
        return SUM if " " in text else ATOM
    if isinstance(tree, ast.BinOp):
        return _TEXT_BINARY.get(type(tree.op), SUM)
    if isinstance(tree, ast.UnaryOp):
        return UNARY if not isinstance(tree.op, ast.Not) else SUM
    if isinstance(tree, (ast.Compare, ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)):
        return SUM
    return ATOM


def operand_text(op: str, arg: int, label: str, s: int | None = None) -> str:
    """Operand `arg` of operator `op` ("add", "pow", "neg", ...) with the parentheses
    precedence needs, from its label's text: the same rules as print_label, so a formula
    reads `x @ W1 + b1` as the node's label does; a call's argument is left as it is."""
    if s is None:   # known from the IR when the caller has it (engine/trace/tracer.py)
        s = text_strength(label)
    if op in _BINARY:
        level = _BINARY[op][1]
        if level == POWER:
            needed = s <= POWER if arg == 0 else s < UNARY
        else:
            needed = s < level if arg == 0 else s <= level
    elif op == "neg":
        needed = s < UNARY
    else:
        needed = False
    return f"({label})" if needed else label


def _paren(node, needed: bool) -> str:
    return f"({node.label})" if needed else node.label


def print_label(op: str, inputs: list, params: dict) -> str | None:
    """The label of an unnamed `op` over the IR nodes `inputs`, clipped to MAX_LABEL
    characters; None when the op has no printed form (the caller falls back to the source)."""
    if op in _BINARY and len(inputs) == 2:
        symbol, level = _BINARY[op]
        left, right = inputs
        if level == POWER:   # right-associative, and -x ** y is -(x ** y)
            text = f"{_paren(left, strength(left) <= POWER)} ** " \
                   f"{_paren(right, strength(right) < UNARY)}"
        else:
            text = f"{_paren(left, strength(left) < level)} {symbol} " \
                   f"{_paren(right, strength(right) <= level)}"
            if len(text) > MAX_LABEL and strength(left) == level:
                return _ends(left.label, symbol, level, text)
        if len(text) > MAX_LABEL:
            return _operands(text, symbol)
    elif op == "neg" and len(inputs) == 1:
        text = "-" + _paren(inputs[0], strength(inputs[0]) < UNARY)
    elif op == "transpose" and len(inputs) == 1 and not params:
        text = _paren(inputs[0], strength(inputs[0]) < ATOM) + ".T"
    elif op == "index" and len(inputs) == 1 and "index" in params:   # w[0], x[1:3, -1]
        text = _paren(inputs[0], strength(inputs[0]) < ATOM) + \
            "[" + ", ".join(_index_item(k) for k in params["index"]) + "]"
    else:
        text = _call(op, inputs, params)
        if text is None:
            return None
    return clip(text, MAX_LABEL)


def _operands(text: str, symbol: str) -> str:
    """A long `left symbol right` as clipped at its end when that keeps its operator
    (`w_first_layer + …`), else with each operand clipped: `gelu(x…) * gelu(w * x…)`. Clipped at its end it read `gelu(x * w + x * x *
    …)…`, two ellipses, and the page's overview cut that to `… * …)…` (a review). Each operand
    gets half of the room, and what the shorter one leaves over goes to the other."""
    plain = clip(text, MAX_LABEL)
    ops = _top_operators(text, (f" {symbol} ",))
    if not ops or _top_operators(plain, (f" {symbol} ",)):   # its operator shows: `a + …`
        return plain
    left, right = text[:ops[-1]], text[ops[-1] + len(symbol) + 2:]
    room = MAX_LABEL - len(symbol) - 2
    half = room // 2
    if len(left) <= half:
        right = clip(right, room - len(left))
    elif len(right) <= room - half:
        left = clip(left, room - len(right))
    else:
        left = clip(left, half)
        right = clip(right, room - len(left))
    return f"{left} {symbol} {right}"


def _index_item(item) -> str:
    """One index as written: 2, or [start, stop, step] (None where left out) as 1:3, ::-1."""
    if not isinstance(item, list):
        return str(item)
    start, stop, step = ("" if p is None else str(p) for p in item)
    return f"{start}:{stop}" + (f":{step}" if step else "")


_LEVEL_SYMBOLS = {SUM: (" + ", " - "), PRODUCT: (" * ", " / ", " @ ")}
_GAP = " … "   # where a long chain's middle terms were left out


def _ends(left: str, symbol: str, level: int, text: str) -> str:
    """A long chain `t1 + t2 + ... + tn` (or of *, / and @) as its first term and as many
    last terms as fit, `x * 1 + … + x * 194`: a label clipped at its end would read the same
    for every partial sum of the chain (`x * 1 + x * 2 + x * 3 +…`), and the narration would
    name different nodes alike. `left` is the label of the chain so far, `text` the whole
    label (`left`, the operator, the last term), returned clipped as usual when `left` has no
    first term to keep."""
    symbols = _LEVEL_SYMBOLS[level]
    gap = _top_operators(left, (_GAP,))
    if gap:   # shortened already: "x * 1 + … + x * 5" keeps "x * 1 +" and " + x * 5"
        head, tail = left[:gap[0]], left[gap[0] + 2:]
    else:
        ops = _top_operators(left, symbols)
        if not ops:
            return clip(text, MAX_LABEL)
        head, tail = left[:ops[0] + 2], left[ops[0]:]
    if tail.rstrip(")]}\"'").endswith("…"):   # clipped: its last term is cut short
        tail = ""
    tail += text[len(left):]
    ops = _top_operators(tail, symbols)
    k = 0
    while len(head) + 2 + len(tail) - ops[k] > MAX_LABEL and k + 1 < len(ops):
        k += 1   # leave out the earliest term still shown
    return clip(f"{head} …{tail[ops[k]:]}", MAX_LABEL)


def _top_operators(text: str, symbols: tuple[str, ...]) -> list[int]:
    """Where the operators of the chain's level (" + ", " - "; or the gap " … ") stand
    outside brackets: [5] for `x * 1 + x * 2`."""
    depth, found = 0, []
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == " " and text[k:k + 3] in symbols:
            found.append(k)
    return found


def _call(op: str, inputs: list, params: dict) -> str | None:
    """A function call as the op's row writes it ("tanh({0})", "sum({0}, axis=0)"), with the
    inputs' labels in; None when the row's text is not a call."""
    from gradwalk.engine.ops import get_op   # here: the op rows import nothing of the parser

    try:
        template = get_op(op).text
        labels = [n.label for n in inputs]
        text = template(*labels, **params) if callable(template) else \
            template.format(*labels, **params)
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    # Only a call: a row's text that is an operator form has its own branch above.
    return text if text.endswith(")") and "(" in text and "\n" not in text else None


def data_formula(node, nodes: list) -> str | None:
    """A data helper's constant's formula as the program wrote the call, `X, y = xor()` (or
    `X, y = spirals(100, 3, seed=0, noise=0.2)`: params["data"] is the call's canonical text),
    for both of the names it assigns; None for any other node. nodes: the program's IR nodes
    (engine/parse.py). A helper makes two constants in a row, inputs then labels, with one
    call and one span (engine/parse_data.py); its names are never assigned again, so their
    labels are the names."""
    call = node.params.get("data") if node.params else None
    if call is None:
        return None
    def same(k):
        return 0 <= k < len(nodes) and nodes[k].params.get("data") == call \
            and nodes[k].span == node.span
    first = node.index if same(node.index + 1) else node.index - 1
    if not same(first) or not same(first + 1):   # not made by a helper as described above
        return None
    return f"{nodes[first].label}, {nodes[first + 1].label} = {call}"
