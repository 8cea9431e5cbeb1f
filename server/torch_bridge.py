"""gradwalk.from_torch (issue 18 §4): a small PyTorch function or nn.Module captured with
torch.export and written as a gradwalk program. Needs the `gradwalk[torch]` extra; torch is
imported only when this module is.

torch.export.export(module, args) (PyTorch's docs, "torch.export") gives an ExportedProgram: an
FX graph of ATen ops (ExportedProgram.graph_module) whose placeholders are the parameters,
buffers, constants and user inputs (graph_signature.input_specs, with the parameters' numbers
in state_dict), and whose nodes carry meta["nn_module_stack"] (the submodule each came from).
Each placeholder becomes a leaf with its numbers (an integer tensor, class indices, a
const(...)); each ATen op becomes gradwalk's (torch_aten.py), inside `with group("fc1"):` for
the submodule it came from (nested as the modules are); an op with no row is refused with its
ATen name.
"""
from __future__ import annotations

import inspect

import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import REGISTRY
from gradwalk.server.torch_aten import ROWS, Node, aten_name

# names a program calls (a variable so named would hide the call): gradwalk's functions
_CALLED = set(REGISTRY) | {"const", "randn", "zeros", "ones", "eye", "arange", "uniform",
                           "group", "checkpoint", "no_grad", "xor", "spirals", "moons", "Value"}


def from_torch(fn_or_module, *example_inputs) -> str:
    """The gradwalk program (text) of `fn_or_module` called on `example_inputs` (tensors).

    fn_or_module: an nn.Module, or a function of the inputs; a function's nn.Modules (those its
    code names: closure and globals) are registered under their names, so their weights are
    parameters (leaves) and their submodules groups (`model.0`). Parameters and float inputs
    are leaves with their numbers (so gradwalk gives each a gradient), named as torch.export
    names them (`p_fc1_weight`, `x`); integer inputs are const(...). The output is the
    function's (one tensor; a tensor output is seeded with ones, as backward(ones) is).

    Raises ProgramError "unsupported" naming an ATen op (e.g. `aten.sin.default`) with no
    gradwalk op, or an argument the op's row cannot write (a weight in cross_entropy); what
    torch.export itself refuses propagates as its own error.
    """
    module = fn_or_module if isinstance(fn_or_module, torch.nn.Module) else _Wrapped(fn_or_module)
    exported = torch.export.export(module, tuple(example_inputs))
    names = _input_names(fn_or_module, len(example_inputs))
    try:
        return _Writer(exported, example_inputs, names).program()
    except ProgramError as e:
        if "ATen op" not in e.message:
            raise
        first = e
    # an op with no row may decompose into ops with rows (x.square() into x ** 2, 1 - x's
    # rsub into sub): run_decompositions with PyTorch's default table less the ops that have
    # a row, so those stay whole; still unmapped: refused naming the op as written
    table = torch.export.default_decompositions()
    for op in list(table.keys()):
        if aten_name(op) in ROWS:
            del table[op]
    try:
        return _Writer(exported.run_decompositions(table), example_inputs, names).program()
    except ProgramError:
        raise first from None


def _input_names(fn, count: int) -> list[str] | None:
    """A function's parameter names for its inputs (torch.export calls them args_0, ...)."""
    if isinstance(fn, torch.nn.Module):
        return None
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names[:count] if len(names) >= count else None


class _Wrapped(torch.nn.Module):
    """A function as a module, the modules its code names registered as submodules."""

    def __init__(self, fn):
        super().__init__()
        self._function = fn
        try:
            named = inspect.getclosurevars(fn)
        except TypeError:   # not a Python function (a partial, a builtin): no names to read
            return
        for name, value in {**named.globals, **named.nonlocals}.items():
            if isinstance(value, torch.nn.Module) and not hasattr(self, name):
                self.add_module(name, value)

    def forward(self, *args):
        return self._function(*args)


class _Writer:
    """The program's lines: leaves first, then each op in graph order, grouped by module."""

    def __init__(self, exported, example_inputs, input_names: list[str] | None):
        self.exported = exported
        self.inputs = list(example_inputs)
        self.input_names = iter(input_names or [])
        self.names: dict[str, str] = {}    # FX node name -> the program's name (or text)
        self.lines: list[str] = []
        self.leaves: list[str] = []
        self.dtype = None

    def program(self) -> str:
        graph = self.exported.graph_module.graph
        specs = {s.arg.name: s for s in self.exported.graph_signature.input_specs}
        user = iter(self.inputs)
        opened, out = [], None
        for node in graph.nodes:
            if node.op == "placeholder":
                spec = specs[node.name]
                value = self._value(spec, user)
                if spec.kind.name == "USER_INPUT":   # a function's own name for it
                    self.names[node.name] = next(self.input_names, node.name)
                self._leaf(node.name, value)
            elif node.op == "call_function":
                text = self._op(node)
                if text is None:
                    continue
                opened = self._groups(opened, _module_paths(node))
                self.lines.append(f"{'    ' * len(opened)}{self._name(node.name)} = {text}")
            elif node.op == "output":
                out = _first_output(node)
        head = ["# dtype: float32"] if self.dtype == torch.float32 else []
        head.append("# captured from PyTorch by gradwalk.from_torch (torch.export)")
        body = head + self.leaves + self.lines
        result = self.names[out.name]
        if not body[-1].lstrip().startswith(f"{result} ="):   # the output is the last name
            body.append(f"output = {result}")
        return "\n".join(body) + "\n"

    def _groups(self, opened: list[str], paths: list[str]) -> list[str]:
        """Open a `with group(...)` for each of `paths` not open yet: the ones open that are
        not among them close by the indentation the next line has."""
        keep = 0
        while keep < min(len(opened), len(paths)) and opened[keep] == paths[keep]:
            keep += 1
        for depth, path in enumerate(paths[keep:], keep):
            self.lines.append(f'{"    " * depth}with group("{_group_name(path)}"):')
        return list(paths)

    def _value(self, spec, user) -> torch.Tensor:
        kind = spec.kind.name
        if kind == "USER_INPUT":
            return next(user)
        if kind in ("PARAMETER", "BUFFER"):
            return self.exported.state_dict[spec.target]
        return self.exported.constants[spec.target]

    def _leaf(self, fx_name: str, value) -> None:
        name = self._name(fx_name)
        if not isinstance(value, torch.Tensor):
            raise ProgramError("unsupported", f"from_torch: the input {fx_name} is a "
                               f"{type(value).__name__}, not a tensor")
        numbers = repr(value.detach().cpu().tolist())
        if value.is_floating_point():
            self.dtype = self.dtype or value.dtype
            self.leaves.append(f"{name} = {numbers}")
        else:   # class indices: data, not a parameter
            self.leaves.append(f"{name} = const({numbers})")

    def _name(self, fx_name: str) -> str:
        name = self.names.get(fx_name, fx_name)
        name = name + "_" if name in _CALLED else name
        self.names[fx_name] = name
        return name

    def _op(self, node) -> str | None:
        """The op's gradwalk expression, or None for an alias (getitem of a result, a copy)."""
        name = aten_name(node.target)
        row = ROWS.get(name)
        if row is None:
            raise ProgramError("unsupported", f"from_torch: the ATen op {name} has no gradwalk "
                               "op", hint="write it with the ops of README's language section")
        text = row(Node(node, self.names))
        if text is not None and text.startswith("="):   # an alias of another node's value
            self.names[node.name] = text[1:]
            return None
        return text


def _module_paths(node) -> list[str]:
    """The submodules the node's op ran in, outermost first (`block`, `block.lin`); the top
    module (path "") is not one."""
    stack = node.meta.get("nn_module_stack") or {}
    return [path for path, _ in stack.values() if path]


def _group_name(path: str) -> str:
    """A submodule's attribute name (`fc1`), or its whole path for an index (`net.0`)."""
    last = path.rsplit(".", 1)[-1]
    return path if last.isdigit() else last


def _first_output(node):
    outs = node.args[0]
    outs = [o for o in outs if o is not None] if isinstance(outs, (list, tuple)) else [outs]
    if len(outs) != 1:
        raise ProgramError("unsupported", f"from_torch: the function returns {len(outs)} "
                           "values; return the one to differentiate")
    return outs[0]
