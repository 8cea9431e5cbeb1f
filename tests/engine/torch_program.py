"""A parsed program written again in PyTorch (float64), node by node, as a function of its
leaves: the oracle for forward mode (torch.func.jvp) and the Jacobians (issue 9).

Each op is PyTorch's own call (tests/engine/more_cases.py torch_call, shape_cases.TORCH, and the
elementwise table below), so nothing here shares code with the engine's rows.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

import more_cases
import shape_cases
from gradwalk.engine.parse import parse

_TABLE = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
          "pow": torch.pow, "matmul": torch.matmul, "neg": torch.neg, "tanh": torch.tanh,
          "sigmoid": torch.sigmoid, "relu": torch.relu, "exp": torch.exp, "log": torch.log,
          "sqrt": torch.sqrt, "abs": torch.abs,
          "detach": torch.detach, "stop_gradient": torch.detach}   # the bug lab's cut


def call(name: str, ts: list[torch.Tensor], params: dict) -> torch.Tensor:
    if name in shape_cases.TORCH:
        return shape_cases.TORCH[name](ts, params)
    if name == "gelu":
        return F.gelu(ts[0], approximate=params.get("approximate", "none"))
    if name in _TABLE:
        return _TABLE[name](*ts)
    return more_cases.torch_call(name, ts, params)


def torch_function(text: str, output: str | None = None, every_node: bool = False):
    """(f, names, primals): f(*leaf tensors) -> the output (or, with every_node, a tuple of
    every node's value in creation order); names: the leaves in order; primals: their values
    as float64 tensors."""
    program = parse(text)
    out = program.names[output or program.last]
    names = list(program.leaves)
    where = {program.leaves[n]: k for k, n in enumerate(names)}
    no_grad = {i for b in program.no_grad for i in range(b.first, b.end)}

    def f(*leaves):
        values = []
        for node in program.nodes:
            if node.role == "leaf":
                values.append(leaves[where[node.index]])
            elif node.role == "const":
                values.append(torch.tensor(np.asarray(node.literal, dtype=np.float64)))
            else:
                value = call(node.op, [values[k] for k in node.inputs], node.params)
                # a `with no_grad():` node is a constant to the engine, in every mode
                values.append(value.detach() if node.index in no_grad else value)
        return tuple(values) if every_node else values[out]

    primals = tuple(torch.tensor(np.asarray(program.nodes[program.leaves[n]].literal,
                                            dtype=np.float64)) for n in names)
    return f, names, primals


def jvp(text: str, tangents: dict[str, np.ndarray], output: str | None = None,
        every_node: bool = False):
    """torch.func.jvp of the program at its leaves' values with `tangents` (leaves not named:
    0): (value, tangent) as numpy, or tuples of them with every_node."""
    f, names, primals = torch_function(text, output, every_node)
    dots = tuple(torch.tensor(np.asarray(tangents.get(n, np.zeros(p.shape)), np.float64)
                              .reshape(p.shape)) for n, p in zip(names, primals))
    value, tangent = torch.func.jvp(f, primals, dots)
    if every_node:
        return [v.numpy() for v in value], [t.numpy() for t in tangent]
    return value.numpy(), tangent.numpy()


def jacobian(text: str, output: str | None = None) -> np.ndarray:
    """d output / d (all leaves, flattened in order): shape (output size, total leaf size)."""
    f, names, primals = torch_function(text, output)
    parts = torch.autograd.functional.jacobian(f, primals)
    out_size = int(np.prod(f(*primals).shape))
    return np.concatenate([p.reshape(out_size, -1).numpy() for p in parts], axis=1)
