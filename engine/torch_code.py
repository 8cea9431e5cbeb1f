"""A parsed program written as PyTorch code (issue 18 §4): `gradwalk export --format torch`
and gradwalk.to_torch. Text only: nothing here imports torch.

The code makes every leaf a tensor with requires_grad=True (in the program's dtype, float64
by default), computes each node with PyTorch's own call (engine/torch_ops.py), runs
L.backward() (a tensor output: with ones, as gradwalk seeds it) and prints each leaf's gradient
as `name.grad = <nested list>`, so its numbers can be set beside gradwalk's. `with no_grad():`
is torch.no_grad(); a group or a checkpoint block is a comment (they change what is drawn or
kept, not the gradients); in-place updates are written out of place (gradwalk refuses the ones
whose saved tensor they change, as PyTorch does); the bug lab's no_zero_grad (and zero_grad)
is two backward passes; a `# hvp:` header (whose trace's grads are H v) prints H v, the backward
pass of s = <grad L, v> taken with create_graph=True. Refused (ProgramError "unsupported",
naming it): an op with no row in torch_ops.ROWS, and the bug lab's overwrite, wrong_order and
inplace, which PyTorch's engine cannot be made to do.
"""
from __future__ import annotations

import keyword
import re

from gradwalk.engine.blocks import Block
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ir import IRNode, Program
from gradwalk.engine.torch_ops import ATOM, ROWS, UNARY

_UNWRITABLE_BUGS = ("overwrite", "wrong_order", "inplace")
_RESERVED = {"torch", "F", "DTYPE", "name", "leaf", "grad", "inf", "nan"}
_NOT_FINITE = re.compile(r"\b(inf|nan)\b")
# a chain of single-use nodes deeper than this (`sum(f(a) for i in range(3000))` is 3,000 adds)
# gets variables along it: one expression would pass Python's recursion limit, here and in
# the script's parser
MAX_NESTING = 64
_INFIX = {"add", "sub", "mul", "div", "pow", "matmul", "greater", "greater_equal", "less",
          "less_equal", "equal", "not_equal"}


def to_torch(program: Program, output: str | None = None) -> str:
    """PyTorch source (a script, ending with a newline) computing `program`'s output and
    printing each leaf's gradient. output: the name differentiated (None: the last assigned).
    Raises ProgramError: "unknown_output", or "unsupported" for an op or a bug-lab switch
    PyTorch cannot express (the message names it)."""
    from gradwalk.engine.trace.shape_pass import infer_shapes

    name = program.last if output is None else output
    if name not in program.names:
        raise ProgramError("unknown_output", f"no name {name!r} to differentiate")
    for bug in program.bugs:
        if bug in _UNWRITABLE_BUGS:
            raise ProgramError("unsupported", f"the bug lab's {bug} switch has no PyTorch "
                               "equivalent, so it cannot be exported as PyTorch code")
    for n in program.nodes:
        if n.role == "op" and n.op not in ROWS:
            raise ProgramError("unsupported", f"the op {n.op} cannot be exported as PyTorch "
                               "code", n.span.line, n.span.col)
    writer = _Writer(program, infer_shapes(program, 1 << 62), program.names[name])
    writer.body(program.body, 0, len(program.nodes), 0)
    return writer.finish(name)


class _Writer:
    """Lines of code, one variable per node that needs one (named, used twice or in
    another block, or ending a chain of MAX_NESTING inline nodes); any other node is
    written inline where it is used."""

    def __init__(self, program: Program, shapes: list, out: int):
        self.program, self.shapes, self.out = program, shapes, out
        self.lines: list[str] = []
        self.var: dict[int, str] = {}
        self.taken = set(_RESERVED)
        users: dict[int, list[int]] = {}
        for n in program.nodes:
            for k in n.inputs:
                users.setdefault(k, []).append(n.index)
        self.users = users
        self.no_grad = {i for b in program.no_grad for i in range(b.first, b.end)}
        self.nesting: dict[int, int] = {}   # node -> how deep its inline text nests calls

    # ---- blocks and statements -----------------------------------------------------------
    def body(self, items: list, first: int, end: int, depth: int) -> None:
        """Nodes first..end-1 in creation order, each inner block (a Block of items) where its
        nodes begin. By index, not by the items' statements: a line with inlined calls is a
        group of the calls alone (engine/parse.py assignment), so its arguments and what it
        makes of the calls' values belong to no statement, but still need writing."""
        k = first
        for b in (item for item in items if isinstance(item, Block)):
            for i in range(k, b.first):
                self.node(self.program.nodes[i], depth)
            self.block(b, depth)
            k = max(k, b.end)
        for i in range(k, end):
            self.node(self.program.nodes[i], depth)

    def block(self, b: Block, depth: int) -> None:
        pad = "    " * depth
        if b.kind == "no_grad":
            self.lines.append(f"{pad}with torch.no_grad():")
            before = len(self.lines)
            self.body(b.body, b.first, b.end, depth + 1)
            if len(self.lines) == before:
                self.lines.append(f"{pad}    pass")
            return
        what = (f'group("{b.name}")' if b.kind == "group" else
                "checkpoint(): torch.utils.checkpoint would recompute it; the same gradients")
        self.lines.append(f"{pad}# with {what}")
        self.body(b.body, b.first, b.end, depth)

    def node(self, n: IRNode, depth: int) -> None:
        nesting = 1 + max((self.nesting.get(i, 0) for i in n.inputs), default=0)
        if not self._needs_var(n) and nesting < MAX_NESTING:
            self.nesting[n.index] = nesting
            return
        var = self._fresh(n.name or f"v{n.index}")
        if n.role == "leaf":
            text = f"torch.tensor({_literal(n)}, dtype=DTYPE, requires_grad=True)"
        else:
            text = self._expr(n.index, inline=False)[0]
        self.var[n.index] = var
        self.lines.append(f"{'    ' * depth}{var} = {text}")

    def _needs_var(self, n: IRNode) -> bool:
        users = self.users.get(n.index, [])
        if n.role == "leaf" or n.name or n.index == self.out or len(users) != 1:
            return True
        return (users[0] in self.no_grad) != (n.index in self.no_grad)

    def _fresh(self, base: str) -> str:
        """base, or base_1, base_2...: a reassigned name gets a variable of its own."""
        if base in _RESERVED or keyword.iskeyword(base):
            base += "_"
        var, k = base, 0
        while var in self.taken:
            k += 1
            var = f"{base}_{k}"
        self.taken.add(var)
        return var

    # ---- expressions ---------------------------------------------------------------------
    def _expr(self, k: int, inline: bool = True, python_number: bool = False):
        """(text, precedence) of node k: its variable when it has one (and inline)."""
        if inline and k in self.var:
            return self.var[k], ATOM
        n = self.program.nodes[k]
        if n.role == "const":
            if python_number and n.literal.ndim == 0:
                value = float(n.literal)
                return repr(value), UNARY if value < 0 else ATOM
            return f"torch.tensor({_literal(n)}, dtype=DTYPE)", ATOM
        consts = [self.program.nodes[i].role == "const" for i in n.inputs]
        # a scalar constant reads as a Python number beside a tensor in `2.0 * x`
        number = n.op in _INFIX and not all(consts)
        args = [self._expr(i, python_number=number) for i in n.inputs]
        params = n.params
        if params.get("target_node") in self.var:   # cross_entropy(z, y): y's tensor by name
            params = {**params, "target_name": self.var[params["target_node"]]}
        return ROWS[n.op](args, params, [self.shapes[i] for i in n.inputs])

    # ---- the backward pass and the printout ------------------------------------------------
    def finish(self, name: str) -> str:
        out = self.var[self.out]
        leaves = {leaf: self.var[k] for leaf, k in self.program.leaves.items()}
        head = [f"# PyTorch code written by gradwalk (export --format torch): the gradient of "
                f"{name}", "import torch", "import torch.nn.functional as F", "",
                f"DTYPE = torch.{self.program.dtype}", ""]
        if any(_NOT_FINITE.search(line) for line in self.lines):   # repr(1e309) is inf
            head[-1:] = ["from math import inf, nan   # a literal that is not finite", ""]
        tail = ["", f"if {out}.requires_grad:   # else nothing reaches a leaf: every gradient 0",
                *("    " + line for line in self._backward(out, leaves)),
                f"for name, leaf in {{{', '.join(f'{k!r}: {v}' for k, v in leaves.items())}}}"
                ".items():",
                "    grad = leaf.grad if leaf.grad is not None else torch.zeros_like(leaf)",
                '    print(f"{name}.grad =", grad.tolist())']
        return "\n".join(head + self.lines + tail) + "\n"

    def _backward(self, out: str, leaves: dict[str, str]) -> list[str]:
        """L.backward(), or the bug lab's two passes, or (a `# hvp:` header, whose trace's
        grads are H v) the backward pass of s = <grad L, v> taken with create_graph=True."""
        seed = "" if self.shapes[self.out] == () else f"torch.ones_like({out})"
        bugs, second = self.program.bugs, self.program.second_order
        if second is not None and second.vector is not None:
            vector = [f"torch.tensor({second.vector[k]!r}, dtype=DTYPE)" if k in second.vector
                      else "None" for k in leaves]
            return [f"first = torch.autograd.grad({out}, [{', '.join(leaves.values())}], "
                    f"{seed + ', ' if seed else ''}create_graph=True, allow_unused=True)",
                    "s = torch.zeros((), dtype=DTYPE)   # s = <grad L, v>, v the # hvp: line's",
                    f"for g, v in zip(first, [{', '.join(vector)}]):",
                    "    if g is not None and v is not None:",
                    "        s = s + (g * v).sum()",
                    "if s.requires_grad:",
                    "    s.backward()   # each leaf's .grad: H v, the Hessian times v"]
        backward = [f"{out}.backward({seed})"]
        if "no_zero_grad" in bugs or "zero_grad" in bugs:   # the bug lab's two passes
            keep = f"{seed}, retain_graph=True" if seed else "retain_graph=True"
            reset = ([] if "zero_grad" not in bugs else
                     [f"{v}.grad = None   # zero_grad" for v in leaves.values()])
            backward = [f"{out}.backward({keep})   # .grad accumulates across passes",
                        *reset, *backward]
        return backward


def _literal(n: IRNode) -> str:
    """The literal's numbers as a nested list (repr: every float64 round-trips exactly)."""
    return repr(n.literal.astype(float).tolist())

