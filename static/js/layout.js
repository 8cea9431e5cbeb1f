// Layout: positions for every node and edge, computed once per graph by dagre (left to
// right: inputs on the left, the output on the right). Stepping never moves anything, so
// each box is sized here for the largest thing it will ever show. No DOM: sizes come from
// character counts in the fonts the stylesheet sets (monospace numbers).
// This adapter is the one place that knows dagre, so elkjs can replace it for big graphs.

import dagre from "@dagrejs/dagre";
import { formatShape, sizeOf } from "./format.js";

// Box metrics in SVG user units; css/app.css uses the same font sizes.
export const METRICS = {
  pad: 12,
  header: 34, // label + op tag
  row: 24, // one line of numbers
  gap: 6, // between the value block and the grad block
  labelChar: 14, // 22px bold sans
  tagChar: 10, // 16px sans
  numChar: 11, // 18px monospace
  numWidth: 9, // characters a scalar may take ("-0.009939"; rarer ones run a little over)
  cellWidth: 8, // characters of one element in a row of a tensor ("1.835e-8")
  caption: 58, // the "value" / "grad" caption before the numbers
  minWidth: 110,
  maxInlineElements: 12, // more than this and a tensor shows its summary
};

// How an op is written in the box's tag.
const SYMBOLS = {
  add: "+", sub: "−", mul: "×", div: "÷", pow: "**", neg: "−x", matmul: "@", transpose: "ᵀ",
};

/** The short tag a node wears: its op symbol or name, its role for leaves and constants. */
export function opTag(node) {
  const base = node.role === "op" ? SYMBOLS[node.op] ?? node.op : node.role;
  return node.shape && node.shape.length ? `${base} · ${formatShape(node.shape)}` : base;
}

/** True when a value of this shape shows its data, false when it shows its summary. */
export function inlined(shape) {
  return shape.length <= 2 && sizeOf(shape) <= METRICS.maxInlineElements;
}

/** Lines of numbers the value block needs: one per matrix row, or min / max / mean. */
export function valueRows(shape) {
  if (!shape || shape.length === 0) return 1;
  if (!inlined(shape)) return 3;
  return shape.length === 2 ? shape[0] : 1;
}

/** Width of the widest numbers line, in characters (after the "value" / "grad" caption). */
function numberChars(shape) {
  if (!shape || shape.length === 0) return METRICS.numWidth;
  if (!inlined(shape)) return "mean ".length + METRICS.numWidth;
  return shape[shape.length - 1] * (METRICS.cellWidth + 2); // "[a, b, c]"
}

/** A box's size for `node`, and the rows it reserves. */
export function boxSize(node) {
  const m = METRICS;
  const rows = valueRows(node.shape);
  const head = [...node.label].length * m.labelChar + opTag(node).length * m.tagChar + 28;
  const body = m.caption + numberChars(node.shape) * m.numChar;
  const hasGrad = node.role !== "const";
  return {
    width: Math.max(m.minWidth, head, body) + 2 * m.pad,
    height: m.header + rows * m.row * (hasGrad ? 2 : 1) + (hasGrad ? m.gap : 0) + m.pad,
    rows,
  };
}

/**
 * Positions for `graph` ({nodes, edges} of the trace): boxes centred at (x, y) and edge
 * polylines from input to consumer, plus the drawing's width and height.
 */
export function layoutGraph(graph) {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 28, ranksep: 50, edgesep: 16, marginx: 24, marginy: 24 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, boxSize(node));
  // `a * a` gives two edges between one pair of nodes: the edge id keeps them apart.
  for (const edge of graph.edges) g.setEdge(edge.source, edge.target, {}, edge.id);
  dagre.layout(g);

  const nodes = graph.nodes.map((node) => {
    const { x, y, width, height, rows } = g.node(node.id);
    return { id: node.id, node, x, y, width, height, rows };
  });
  const edges = graph.edges.map((edge) => ({
    ...edge,
    points: g.edge(edge.source, edge.target, edge.id).points.map(({ x, y }) => ({ x, y })),
  }));
  const { width, height } = g.graph();
  return { nodes, edges, width, height };
}
