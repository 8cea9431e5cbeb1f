"""No import circles in engine/ (issue 15 §1): the walk from program text to the event the page
draws stays one way.

The imports are read with `ast` (every `import` and `from ... import`, also those inside
functions, which break no circle, only hide one), resolved to engine's modules (`from
engine.trace import hvp` is an edge to engine.trace.hvp, `from engine.ops import get_op` one to
the package engine.ops), and the
graph's strongly connected components found by networkx (Tarjan's algorithm, "Depth-first
search and linear graph algorithms", SIAM J. Comput. 1972). Any component of more than one
module is a circle.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ENGINE = Path(__file__).parents[2] / "engine"


def module_name(path: Path) -> str:
    parts = ("gradwalk", *path.relative_to(ENGINE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """The engine modules `path` imports (a `from package import module` counts the module)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from package import module` imports the module; `from module import name`
            # the module itself (a package's own __init__ importing its modules is no circle)
            found.update(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                         for a in node.names)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ENGINE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports(p, modules) for p in paths}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with a circle in them (networkx's), each sorted."""
    g = nx.DiGraph([(a, b) for a, targets in graph.items() for b in targets])
    g.add_nodes_from(graph)
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def test_the_finder_finds_a_circle():
    """The check itself can fail: a two-module circle and a self-import are found."""
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_engine_imports():
    """The graph is engine's own: the runner's known imports are edges of it."""
    graph = import_graph()
    assert "gradwalk.engine.trace.runner" in graph and "gradwalk.engine.parse" in graph
    assert "gradwalk.engine.parse" in graph["gradwalk.engine.trace.runner"]
    assert "gradwalk.engine.errors" in graph["gradwalk.engine.trace.forward"]
    assert "gradwalk.engine.ops.registry" in graph["gradwalk.engine.ops"]


def test_no_import_circles_in_engine():
    graph = import_graph()
    found = circles(graph)
    assert found == [], f"import circles in engine/: {found}"
    g = nx.DiGraph([(a, b) for a, targets in graph.items() for b in targets])
    assert nx.is_directed_acyclic_graph(g)   # the walk from text to event stays one way
