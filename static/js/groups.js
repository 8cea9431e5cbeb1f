// Groups (issue 8, section 2): a statement's sub-expression, a `with group("layer1"):` block
// and a run of repeated statements, as the graph JSON's `groups` lists them
// (docs/trace-format.md: {id, kind, name, first, end, parent, span}, laminar, nodes by
// `index` in [first, end)). Which groups a big graph opens collapsed, the graph the layout
// sees (each collapsed group one box, edges rewired to it), the boxes' inputs and outputs,
// and the summed adjoint a box shows. Pure: no DOM, so `node --test` covers it
// (tests/js/groups.test.mjs); render/groups.js draws it.

import { finish } from "./slices.js";
import { clipLabel } from "./clip.js";

// Above this many nodes the page opens with groups collapsed (a page option, state.js
// `group_above`); it aims at about MAX_BOXES boxes then. Past MAX_DRAWN_NODES it opens the
// overview: the outermost groups only, not expanded further.
export const GROUP_ABOVE = 400;
export const MAX_BOXES = 300;
export const MAX_DRAWN_NODES = 10_000;

/** A node's creation index: its `index`, else the number in its id ("n12" -> 12). */
export function nodeIndex(node) {
  return Number.isInteger(node.index) ? node.index : Number(String(node.id).slice(1));
}

/**
 * The groups of `graph` as a tree: {groups: Map id -> {id, kind, name, first, end, parent,
 * size (nodes in it, all depths), children (group ids), nodes (node ids directly in it)}, top
 * (ids of outermost groups), owner: Map node id -> id of the innermost group holding it}.
 * One sweep over the nodes by index with a stack of open groups: O(nodes + groups).
 */
export function groupTree(graph) {
  return finish(groupTreeSteps(graph));
}

// The sliced forms (slices.js) yield once every this many items.
const SLICE = 4096;

/** groupTree as a generator that yields every SLICE items (slices.js runSliced). */
export function* groupTreeSteps(graph) {
  const groups = new Map();
  let work = 0;
  for (const g of graph.groups ?? []) {
    groups.set(g.id, { ...g, size: g.end - g.first, children: [], nodes: [] });
    if (++work % SLICE === 0) yield;
  }
  const top = [];
  for (const g of groups.values()) {
    const parent = g.parent == null ? null : groups.get(g.parent);
    if (parent) parent.children.push(g.id);
    else top.push(g.id);
  }
  yield;
  const sorted = [...groups.values()].sort((a, b) => a.first - b.first || b.end - a.end);
  yield;
  // Nodes come in creation order from the engine: sorted (a copy) only when they are not.
  let nodes = graph.nodes;
  if (nodes.some((n, i) => i > 0 && nodeIndex(n) < nodeIndex(nodes[i - 1]))) {
    nodes = [...nodes].sort((a, b) => nodeIndex(a) - nodeIndex(b));
  }
  yield;
  const owner = new Map();
  const open = [];
  let k = 0;
  for (const node of nodes) {
    const i = nodeIndex(node);
    const id = node.id;
    if (++work % SLICE === 0) yield;
    while (k < sorted.length && sorted[k].first <= i) {
      const g = sorted[k++];
      while (open.length && open.at(-1).end <= g.first) open.pop();
      open.push(g);
    }
    while (open.length && open.at(-1).end <= i) open.pop();
    if (open.length) {
      owner.set(id, open.at(-1).id);
      open.at(-1).nodes.push(id);
    }
  }
  return { groups, top, owner };
}

/** The ids of `gid`'s enclosing groups, innermost first. */
export function ancestorsOf(tree, gid) {
  const out = [];
  for (let g = tree.groups.get(gid)?.parent; g != null; g = tree.groups.get(g)?.parent) out.push(g);
  return out;
}

/** The group ids holding node `id`, innermost first. */
export function groupsOfNode(tree, id) {
  const first = tree.owner.get(id);
  return first === undefined ? [] : [first, ...ancestorsOf(tree, first)];
}

/** What stands for node `id` on screen: the outermost collapsed group holding it, else itself. */
export function repOf(tree, collapsed, id) {
  // up the parents without an array: it runs for every node of the graph at each new view
  let rep = id;
  for (let g = tree.owner.get(id); g != null; g = tree.groups.get(g)?.parent) if (collapsed.has(g)) rep = g;
  return rep;
}

/** The collapsed groups that are boxes: those inside no other collapsed group. */
export function outermostCollapsed(tree, collapsed) {
  return [...collapsed].filter((g) => tree.groups.has(g) && !ancestorsOf(tree, g).some((a) => collapsed.has(a)));
}

/** How many boxes the screen shows with `collapsed`: nodes left out of boxes, plus the boxes. */
export function countBoxes(tree, collapsed, nodeCount) {
  let boxes = nodeCount;
  for (const g of outermostCollapsed(tree, collapsed)) boxes += 1 - tree.groups.get(g).size;
  return boxes;
}

/**
 * The groups a graph of `nodeCount` nodes opens collapsed (a Set of ids): none at or under
 * `above`; else the outermost repeat and block groups, then (still more than `maxBoxes`
 * boxes) every outermost group; then a long repeat split in chunks (a repeat of repeats)
 * shows its chunks, a whole level at a time while it fits in `maxBoxes`: one box for a
 * 5,000-node chain says nothing. `overview` (past MAX_DRAWN_NODES): the outermost groups only.
 */
export function initialCollapsed(tree, nodeCount, { above = GROUP_ABOVE, maxBoxes = MAX_BOXES, overview = false } = {}) {
  const collapsed = new Set();
  if (nodeCount <= above || !tree.groups.size) return collapsed;
  const visit = (gid, take) => {
    const g = tree.groups.get(gid);
    if (take(g)) collapsed.add(gid);
    else for (const c of g.children) visit(c, take);
  };
  for (const gid of tree.top) visit(gid, (g) => g.kind === "repeat" || g.kind === "block");
  let boxes = countBoxes(tree, collapsed, nodeCount);
  if (overview || boxes > maxBoxes) {
    for (const gid of tree.top) visit(gid, () => true);
    boxes = countBoxes(tree, collapsed, nodeCount);
  }
  if (overview) return collapsed;
  for (;;) {
    const level = outermostCollapsed(tree, collapsed).filter((g) => isChunked(tree, tree.groups.get(g)));
    if (!level.length) break;
    const gain = level.reduce((sum, g) => sum + openedUnits(tree.groups.get(g)) - 1, 0);
    if (boxes + gain > maxBoxes) break;
    for (const g of level) openGroup(tree, collapsed, g);
    boxes += gain;
  }
  return collapsed;
}

/** A long repeat split in chunks (a repeat of repeats): opening it shows runs, not thousands. */
function isChunked(tree, g) {
  return g.kind === "repeat" && g.children.length > 0 && g.children.every((c) => tree.groups.get(c).kind === "repeat");
}

/** The units group `g` shows when opened: its own nodes and its child groups (collapsed). */
function openedUnits(g) {
  return g.nodes.length + g.children.length;
}

/** Open `gid` in `collapsed` (a Set, changed): its child groups become collapsed boxes. */
export function openGroup(tree, collapsed, gid) {
  collapsed.delete(gid);
  for (const c of tree.groups.get(gid)?.children ?? []) collapsed.add(c);
}

/**
 * Collapse `gid` in `collapsed` (a Set, changed): its descendants' states are forgotten,
 * so opening it again shows its children collapsed.
 */
export function closeGroup(tree, collapsed, gid) {
  const drop = (g) => {
    for (const c of tree.groups.get(g)?.children ?? []) {
      collapsed.delete(c);
      drop(c);
    }
  };
  drop(gid);
  collapsed.add(gid);
}

/**
 * Open every collapsed group holding node `id` (search goes there); returns the ids opened,
 * outermost first ([] when it is already shown).
 */
export function revealNode(tree, collapsed, id) {
  const opened = [];
  for (const g of groupsOfNode(tree, id).reverse()) {
    if (!collapsed.has(g)) continue;
    openGroup(tree, collapsed, g);
    opened.push(g);
  }
  return opened;
}

// A box's text, in the node boxes' fonts (layout.js METRICS): a header with the name, then
// lines of 19px sans (at least the nodes' 18px numbers, for a projector): what it is, its
// inputs, its outputs, each output's adjoint.
export const BOX = { pad: 12, header: 34, row: 27, nameChar: 12, lineChar: 11.5, maxName: 30, maxList: 34, minWidth: 170 };

/** `s` cut to `max` characters with an ellipsis, brackets closed, a repeat count kept (clip.js). */
export const clip = clipLabel;

// Versioned labels (x⁽²⁴⁹⁷⁾) carry their version in superscript digits and parentheses.
const SUPERSCRIPT = "⁽⁾⁰¹²³⁴⁵⁶⁷⁸⁹";
const PLAIN = "()0123456789";
const SUP_RUN = /[⁽⁾⁰¹²³⁴⁵⁶⁷⁸⁹]+/gu;

/** `text` with superscript digits and parentheses made plain ("x⁽¹⁰⁰⁰⁾" -> "x(1000)"). */
export function plainDigits(text) {
  return String(text).replace(SUP_RUN, (run) => [...run].map((c) => PLAIN[SUPERSCRIPT.indexOf(c)]).join(""));
}

/**
 * `text` as runs [{text, sup}] where each superscript run is given in plain characters, so
 * the page can draw it raised at a readable size rather than as ~10 px superscript glyphs.
 */
export function superscriptRuns(text) {
  const runs = [];
  let at = 0;
  for (const m of String(text).matchAll(SUP_RUN)) {
    if (m.index > at) runs.push({ text: text.slice(at, m.index), sup: false });
    runs.push({ text: plainDigits(m[0]), sup: true });
    at = m.index + m[0].length;
  }
  if (at < String(text).length) runs.push({ text: String(text).slice(at), sup: false });
  return runs;
}

/** "a, w, b" of `labels`, at most `max` characters ("a, w, +3 more"). */
export function listText(labels, max = BOX.maxList) {
  let text = "";
  for (const [i, l] of labels.entries()) {
    const next = text ? `${text}, ${l}` : l;
    const rest = labels.length - i - 1;
    const more = rest ? `, +${rest} more` : "";
    if ([...next].length + more.length > max) {
      return text ? `${text}, +${labels.length - i} more` : `+${labels.length} inputs`;
    }
    text = next;
  }
  return text;
}

/** The lines a box shows under its name: what it holds, inputs, outputs, then adjointLines' lines. */
export function boxText(box, adjoint = adjointLines(box)) {
  const what = `${box.kind === "block" ? "group" : box.kind} · ${box.count.toLocaleString("en-US")} nodes`;
  return [what, `in: ${listText(box.inLabels) || "—"}`, `out: ${listText(box.outLabels) || "—"}`, ...adjoint];
}

// A box lists at most this many outputs' adjoints, then "…".
export const MAX_ADJOINT_LINES = 3;

/**
 * The adjoint lines of a box: each output's own adjoint symbol and value ("v̄ = -0.0714",
 * "v̄  —" before the backward pass reaches it), at most MAX_ADJOINT_LINES, then "… N more".
 * Never a sum over outputs: adjoints of overlapping outputs do not add up to a gradient.
 * `adjoints` (node id -> adjoint, the timeline view's) null: none reached yet; `format`
 * prints one adjoint.
 */
export function adjointLines(box, adjoints = null, format = String) {
  const shown = box.outputs.slice(0, MAX_ADJOINT_LINES);
  const lines = shown.map((id, i) => {
    const symbol = box.outSymbols?.[i] ?? "ā";
    const a = adjoints?.[id];
    return a === undefined ? `${symbol}  —` : `${symbol} = ${clip(format(a), BOX.maxList - 4)}`;
  });
  const rest = box.outputs.length - shown.length;
  if (rest > 0) lines.push(`… ${rest} more output${rest > 1 ? "s" : ""}`);
  return lines;
}

/** A box's size {width, height} (layout units) for its name and lines (sized for the widest number). */
export function boxSize(box) {
  const lines = boxText(box, adjointLines(box, Object.fromEntries(box.outputs.map((id) => [id, 0])), () => "-0.00000000"));
  const body = Math.max(...lines.map((l) => [...l].length)) * BOX.lineChar;
  const head = [...clip(box.name, BOX.maxName)].length * BOX.nameChar + 30; // room for the ▸ mark
  return { width: Math.max(BOX.minWidth, body, head) + 2 * BOX.pad, height: BOX.header + lines.length * BOX.row + BOX.pad };
}

/**
 * The graph the layout sees with `collapsed` groups as boxes: {nodes, edges, clusters, rep,
 * alias, boxes}. A box is a node {id (the group's), group, kind, name, label, role "group",
 * op "group", shape [], count, inputs, outputs (ids of its nodes read outside it, else
 * those read by nothing), inLabels, outLabels, box (its size)}, placed at its first node
 * (the nodes stay in creation order). An edge between two shown nodes is kept; one into or
 * out of a box is merged with the others between the same two boxes into {id
 * "<source>-><target>#g", source, target, arg 0, members (the edge ids)}; one inside a box
 * goes. `rep`: hidden node id -> its box; `alias`: edge id -> the drawn edge's id.
 * `clusters` ([{id, name, parent}]) are the open groups drawn as frames (those in
 * `framed`, and whose members are shown); each shown node or box names its frame in
 * `frameOf` (Map id -> group id).
 */
export function viewGraph(graph, tree, collapsed, options = {}) {
  return finish(viewGraphSteps(graph, tree, collapsed, options));
}

/** viewGraph as a generator that yields every SLICE items (slices.js runSliced). */
export function* viewGraphSteps(graph, tree, collapsed, { framed = () => false } = {}) {
  const byId = new Map();
  let work = 0;
  for (const n of graph.nodes) {
    byId.set(n.id, n);
    if (++work % SLICE === 0) yield;
  }
  const rep = new Map();
  const boxes = new Map();
  const nodes = [];
  for (const n of graph.nodes) {
    if (++work % SLICE === 0) yield;
    const r = collapsed.size ? repOf(tree, collapsed, n.id) : n.id;
    if (r === n.id) {
      nodes.push(n);
      continue;
    }
    rep.set(n.id, r);
    if (boxes.has(r)) continue;
    const g = tree.groups.get(r);
    const box = {
      id: r, group: r, kind: g.kind, name: g.name, label: g.name, role: "group", op: "group", shape: [],
      count: g.size, inputs: [], outputs: [], inLabels: [], outLabels: [], span: g.span,
    };
    boxes.set(r, box);
    nodes.push(box);
  }
  const edges = [];
  const alias = new Map();
  const merged = new Map();
  const read = new Set();
  for (const e of graph.edges) {
    if (++work % SLICE === 0) yield;
    read.add(e.source);
    const s = rep.get(e.source) ?? e.source;
    const t = rep.get(e.target) ?? e.target;
    if (s === t) continue;
    if (s === e.source && t === e.target) {
      edges.push(e);
      continue;
    }
    const id = `${s}->${t}#g`;
    alias.set(e.id, id);
    let m = merged.get(id);
    if (!m) {
      m = { id, source: s, target: t, arg: 0, members: [] };
      merged.set(id, m);
      edges.push(m);
    }
    m.members.push(e.id);
    if (boxes.has(t)) addOnce(boxes.get(t), "inputs", s, "inLabels", byId.get(e.source)?.label ?? e.source);
    if (boxes.has(s)) addOnce(boxes.get(s), "outputs", e.source, "outLabels", byId.get(e.source)?.label ?? e.source);
  }
  for (const [id, r] of rep) {
    if (++work % SLICE === 0) yield;
    const box = boxes.get(r);
    if (!read.has(id)) addOnce(box, "outputs", id, "outLabels", byId.get(id)?.label ?? id);
  }
  for (const box of boxes.values()) {
    // Each output's own adjoint symbol (the graph's `adjoint_symbol`, e.g. "v̄"): a box's
    // adjoint line names the node it belongs to.
    box.outSymbols = box.outputs.map((id) => byId.get(id)?.adjoint_symbol ?? `${byId.get(id)?.label ?? id}\u0304`);
    box.box = boxSize(box);
  }
  const { clusters, frameOf } = framesOf(tree, collapsed, nodes, framed);
  return { nodes, edges, clusters, frameOf, rep, alias, boxes, groups: graph.groups ?? [] };
}

// The ids each box lists, for addOnce: a box of a 100,000-node graph may have thousands.
const listed = new WeakMap();

function addOnce(box, key, id, labelsKey, label) {
  let sets = listed.get(box);
  if (!sets) listed.set(box, (sets = { inputs: new Set(), outputs: new Set() }));
  if (sets[key].has(id)) return;
  sets[key].add(id);
  box[key].push(id);
  box[labelsKey].push(label);
}

/**
 * The open groups drawn as frames around what they hold: every group in `framed(g)` with no
 * collapsed group around it and something shown in it. Returns {clusters: [{id, name,
 * kind, parent (the enclosing frame's id or null)}], frameOf: Map shown id -> frame id}.
 */
function framesOf(tree, collapsed, nodes, framed) {
  const frames = new Map();
  const frameOf = new Map();
  const frameAbove = (gid) => {
    for (let g = gid; g != null; g = tree.groups.get(g)?.parent) {
      const group = tree.groups.get(g);
      if (group && !collapsed.has(g) && framed(group)) return g;
    }
    return null;
  };
  for (const n of nodes) {
    const start = n.group ? tree.groups.get(n.group)?.parent : tree.owner.get(n.id);
    const f = start == null ? null : frameAbove(start);
    if (f == null) continue;
    frameOf.set(n.id, f);
    for (let g = f; g != null && !frames.has(g); g = frameAbove(tree.groups.get(g).parent)) {
      const group = tree.groups.get(g);
      frames.set(g, { id: g, name: group.name, kind: group.kind, parent: group.parent == null ? null : frameAbove(group.parent) });
    }
  }
  return { clusters: [...frames.values()], frameOf };
}

/**
 * The group state of a walk over `graph` (nodeCount nodes): {tree, collapsed, opened (groups
 * the user opened: framed even when they are statements), grouped (the graph opened
 * collapsed), overview (past MAX_DRAWN_NODES)}, or null when the graph has no groups.
 */
export function createGroupState(graph, options = {}) {
  return finish(createGroupStateSteps(graph, options));
}

/** createGroupState as a generator (slices.js runSliced). */
export function* createGroupStateSteps(graph, { above = GROUP_ABOVE, maxBoxes = MAX_BOXES } = {}) {
  if (!graph.groups?.length) return null;
  const tree = yield* groupTreeSteps(graph);
  const nodeCount = graph.nodes.length;
  const overview = nodeCount > MAX_DRAWN_NODES;
  const collapsed = initialCollapsed(tree, nodeCount, { above, maxBoxes, overview });
  return { tree, collapsed, opened: new Set(), grouped: nodeCount > above, overview };
}

/** Which open groups get a frame: `with group` blocks always; repeats in a grouped view; statements the user opened. */
export function framedBy(state) {
  return (g) => g.kind === "block" || (state.grouped && g.kind === "repeat") || state.opened.has(g.id);
}

/** The layout's graph for `state` over `graph` (viewGraph with state's collapsed groups and frames). */
export function groupedGraph(graph, state) {
  return finish(groupedGraphSteps(graph, state));
}

/** groupedGraph as a generator (slices.js runSliced). */
export function groupedGraphSteps(graph, state) {
  return viewGraphSteps(graph, state.tree, state.collapsed, { framed: framedBy(state) });
}
