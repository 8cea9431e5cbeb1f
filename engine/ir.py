"""The IR a program is parsed into (engine/parse.py makes it): its nodes in creation order
(a topological order), the names, the leaves, the blocks and what the bug lab and the
second-order modes read. Every node keeps the source span it came from."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradwalk.engine.blocks import Block
from gradwalk.engine.dtypes import DEFAULT
from gradwalk.engine.second_order import SecondOrder
from gradwalk.engine.source import Lines, Span

# One empty dict shared by every node without parameters (most of them; a dict each cost 64
# bytes a node). Shared, so never written to: nothing writes to a node's params.
NO_PARAMS: dict = {}


@dataclass(slots=True)
class IRNode:
    """One value of the program: a leaf, a constant or the result of an op."""

    index: int
    op: str                      # "leaf", "const" or a registry name
    role: str                    # "leaf", "const" or "op"
    inputs: list[int]
    span: Span
    label: str
    name: str | None = None      # the Python name it was assigned to, if any
    params: dict = field(default_factory=dict)
    literal: np.ndarray | None = None


@dataclass
class Program:
    """The parsed program: nodes in creation order (a topological order) and the output."""

    nodes: list[IRNode]
    names: dict[str, int]        # each name's latest node
    leaves: dict[str, int]       # leaf name -> node
    last: str                    # the last assigned name
    blocks: list[Block] = field(default_factory=list)   # `with checkpoint():` (engine/blocks.py)
    dtype: str = DEFAULT         # "float64" or "float32": every value's type (engine/dtypes.py)
    # the bug lab (issue 9; engine/switches.py, engine/trace/bugs.py): the `# bugs:` header's
    # switches, the `with no_grad():` blocks, and the in-place updates (`x += ...`)
    bugs: tuple[str, ...] = ()
    no_grad: list[Block] = field(default_factory=list)
    inplace: list[InPlace] = field(default_factory=list)
    # `# hvp:` / `# hessian:` header (issue 9; engine/second_order.py), None without one
    second_order: SecondOrder | None = None
    bugs_span: Span | None = None   # the `# bugs:` comment (errors about a switch point at it)
    # the statements and `with` blocks in program order, nested as written (Statement, Block:
    # engine/blocks.py), and the program's lines: what engine/groups.py reads
    body: list = field(default_factory=list)
    lines: Lines | None = None
    # what the trace warns about in the text itself: (kind, message, node index, span)
    notes: list[tuple[str, str, int, Span]] = field(default_factory=list)
    # each name a data helper assigned (`X, y = xor()`, engine/parse_data.py) -> what it
    # holds, "inputs" or "labels"; the training engine finds the input points through it
    data: dict[str, str] = field(default_factory=dict)
    # what the parse worked out of the Tracer's texts as it made the nodes (engine/parse_run.py;
    # engine/trace/node_texts.py): (written, strengths, gaps): the nodes whose formula is
    # not their label (an array of indices), every node's binding strength, None for the
    # nodes in the gaps ([first, end) ranges: the general path's nodes, whose texts the
    # Tracer works out); None for a program whose labels changed after their consumers were
    # made (an alias, a function's result renamed) and for one not parsed from text. Read,
    # never written to: a program is traced again with other leaf values (engine/train).
    texts: tuple | None = None


@dataclass(slots=True)
class InPlace:
    """`x += e` (or -=, *=, /=): node `node` is the update of node `target`, whose tensor it
    overwrites (PyTorch's in-place ops bump the tensor's version counter); span: the line."""

    node: int
    target: int
    span: Span
