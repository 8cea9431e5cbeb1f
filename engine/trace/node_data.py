"""One node's full value and final adjoint, for the page's detail panel when a tensor is over
the inline limit (its events carry only a summary: docs/trace-format.md, POST /api/trace/node).
"""
from __future__ import annotations

import itertools
import re

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program
from gradwalk.engine.source import clip
from gradwalk.engine.trace.options import DEFAULT, Options
from gradwalk.engine.trace.limits import Limits
from gradwalk.engine.trace.reverse import drain
from gradwalk.engine.trace.tracer import Tracer
from gradwalk.engine.trace.values import encode

NODE_ID = re.compile(r"n(0|[1-9][0-9]{0,8})")


def node_data(program: str | Program, output: str | None, node: str,
              limits: Limits = Limits(), output_grad=None, options: Options = DEFAULT) -> dict:
    """{node, shape, value, adjoint} of `node` (an id "n<index>" of the program's graph) with
    full data: `value` as in the `evaluate` event, `adjoint` the node's adjoint after the whole
    backward pass (null when it has none: a constant, or a node the output does not depend
    on). Each is at most `limits.max_elements` elements, like any value of a trace.

    Raises ProgramError: the program's own errors, and "unknown_node" for an id that is not
    one of the graph's nodes. options: the trace's mode and its inputs (engine/trace/
    options.py); in hvp mode the ids are the backward graph's.
    """
    # the same seed and mode as the trace (hvp mode's graph is the backward graph's)
    tracer = Tracer(program, output, limits, output_grad, options=options)
    match = NODE_ID.fullmatch(node)
    index = int(match.group(1)) if match else -1
    if not 0 <= index < len(tracer.values):
        raise ProgramError("unknown_node", f"the graph has no node `{clip(node)}`; its ids are "
                           f"n0 to n{len(tracer.values) - 1}")
    adjoints = _final_adjoints(tracer)
    value, adjoint = tracer.values[index], adjoints[index]
    return {"node": node, "shape": list(getattr(value, "shape", ())),
            "value": encode(value, None),
            "adjoint": None if adjoint is None else encode(adjoint, None)}


def _final_adjoints(tracer: Tracer) -> list:
    """Every node's adjoint after the backward pass (None where there is none)."""
    return drain(tracer.backward(itertools.count()))   # the one backward pass there is
