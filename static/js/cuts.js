// What the walk does not record, and the trace's warnings (issue 9, the bug lab; docs/
// trace-format.md, "Warnings"): which nodes were made inside `with no_grad():` (drawn as not
// recorded), which nodes cut the edge into them (`detach(x)`, `stop_gradient(x)`: a scissors
// mark on that edge), and which warnings the page shows at a step. No DOM, so `node --test`
// covers it; the drawing is render/warnings.js.

export const CUT_OPS = new Set(["detach", "stop_gradient"]); // engine/ops/cut.py

/**
 * The ids of the nodes a `with no_grad():` block made: an op node's `recorded: false`
 * (docs/trace-format.md), and the nodes of the graph's blocks of kind "no_grad"
 * (graph.blocks: {kind, nodes, span}), which also hold its constants.
 */
export function noGradNodes(graph) {
  const ids = new Set((graph?.nodes ?? []).filter((n) => n.recorded === false).map((n) => n.id));
  for (const block of graph?.blocks ?? []) {
    if (block.kind === "no_grad") for (const id of block.nodes ?? []) ids.add(id);
  }
  return ids;
}

/** The ids of the detach / stop_gradient nodes: the edge into each is cut. */
export function cutNodes(graph) {
  return new Set((graph?.nodes ?? []).filter((n) => CUT_OPS.has(n.op)).map((n) => n.id));
}

/**
 * The warnings (the trace's `warnings`: [{kind, message, node, field, line, col, end_line,
 * end_col}]) to show at `view` (a timeline view): all of them once the walk is done; before,
 * in forward mode, those about a kink ("non_differentiable") at a node whose tangent is
 * already computed, i.e. from the kink's step on.
 */
export function warningsAt(warnings, view) {
  const list = Array.isArray(warnings) ? warnings : [];
  if (!view) return [];
  if (view.phase === "done") return list;
  const tangents = view.tangents ?? {};
  return list.filter((w) => w.kind === "non_differentiable" && w.node && w.node in tangents);
}

const KIND_LABEL = { cut: "path cut", non_differentiable: "not differentiable here", bug_lab: "bug lab", unused: "not used by the output", underflow: "underflow: not exact" };

/** A warning's badge: "path cut", "not differentiable here", or its kind in words. */
export function warningLabel(kind) {
  return KIND_LABEL[kind] ?? String(kind ?? "warning").replaceAll("_", " ");
}

/** Where a warning is, as an editor shows it: "line 5, col 5" (col counted from 1), or "". */
export function warningPlace(w) {
  if (w?.line == null) return "";
  return w.col == null ? `line ${w.line}` : `line ${w.line}, col ${w.col + 1}`;
}
