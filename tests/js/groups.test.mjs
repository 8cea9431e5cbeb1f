import { test } from "node:test";
import assert from "node:assert/strict";
import {
  closeGroup, countBoxes, createGroupState, groupTree, groupedGraph, initialCollapsed, listText, openGroup, repOf,
  adjointLines, boxText, revealNode, viewGraph,
} from "../../static/js/groups.js";
import { layoutGraph, predictLayout } from "../../static/js/layout.js";

/**
 * The graph of `x = 1.0` then `lines - 1` times `x = x * 1.0001` (page_helpers.chain), with
 * the groups the engine gives it: a statement group per line (its constant and its product),
 * the lines in repeat chunks of `chunk` under one repeat.
 */
function chainBody(lines, chunk = 64) {
  const nodes = [{ id: "n0", index: 0, label: "x", role: "leaf", op: "leaf", inputs: [], shape: [] }];
  const edges = [];
  const groups = [];
  let prev = "n0";
  for (let s = 1; s < lines; s++) {
    const c = 2 * s - 1;
    const m = 2 * s;
    nodes.push({ id: `n${c}`, index: c, label: "1.0001", role: "const", op: "const", inputs: [], shape: [] });
    nodes.push({ id: `n${m}`, index: m, label: `x${s}`, role: "op", op: "mul", inputs: [prev, `n${c}`], shape: [] });
    edges.push({ id: `${prev}->n${m}#0`, source: prev, target: `n${m}`, arg: 0 });
    edges.push({ id: `n${c}->n${m}#1`, source: `n${c}`, target: `n${m}`, arg: 1 });
    prev = `n${m}`;
  }
  const statements = lines - 1;
  groups.push({ id: "g0", kind: "repeat", name: `x = x * 1.0001 ×${statements}`, first: 1, end: 2 * lines - 1, parent: null });
  let k = 1;
  for (let s0 = 1; s0 < lines; s0 += chunk) {
    const s1 = Math.min(lines, s0 + chunk);
    const cid = `g${k++}`;
    groups.push({ id: cid, kind: "repeat", name: `x = x * 1.0001 ×${s1 - s0}`, first: 2 * s0 - 1, end: 2 * s1 - 1, parent: "g0" });
    for (let s = s0; s < s1; s++) groups.push({ id: `g${k++}`, kind: "statement", name: "x", first: 2 * s - 1, end: 2 * s + 1, parent: cid });
  }
  return { nodes, edges, groups };
}

/** `a`, `b` leaves; `with group("layer1"):` h = a * b; y = h + a; then L = y * y. */
function layerBody() {
  const node = (i, label, role, op, inputs) => ({ id: `n${i}`, index: i, label, role, op, inputs, shape: [] });
  const nodes = [
    node(0, "a", "leaf", "leaf", []), node(1, "b", "leaf", "leaf", []),
    node(2, "h", "op", "mul", ["n0", "n1"]), node(3, "y", "op", "add", ["n2", "n0"]),
    node(4, "L", "op", "mul", ["n3", "n3"]),
  ];
  const edges = [];
  for (const n of nodes) n.inputs.forEach((s, arg) => edges.push({ id: `${s}->${n.id}#${arg}`, source: s, target: n.id, arg }));
  const groups = [{ id: "g0", kind: "block", name: "layer1", first: 2, end: 4, parent: null }];
  return { nodes, edges, groups };
}

test("the tree: children, sizes, and each node's innermost group", () => {
  const tree = groupTree(chainBody(10, 4));
  assert.deepEqual(tree.top, ["g0"]);
  assert.equal(tree.groups.get("g0").size, 18);
  assert.deepEqual(tree.groups.get("g0").children, ["g1", "g6", "g11"]); // chunks of 4, 4, 1 lines
  assert.equal(tree.owner.get("n0"), undefined); // x = 1.0 makes one node: no group
  assert.equal(tree.owner.get("n1"), "g2");
  assert.equal(tree.owner.get("n2"), "g2");
  assert.deepEqual(tree.groups.get("g2").nodes, ["n1", "n2"]);
  assert.deepEqual(tree.groups.get("g1").nodes, []); // all its nodes are in its statements
});

test("a with-group block opens as one box above the setting, open at or under it", () => {
  const body = layerBody();
  const tree = groupTree(body);
  assert.deepEqual([...initialCollapsed(tree, 5, { above: 0 })], ["g0"]);
  assert.equal(initialCollapsed(tree, 5, { above: 5 }).size, 0);
});

test("a graph at or under the setting opens with nothing collapsed", () => {
  const body = chainBody(200);
  const tree = groupTree(body);
  assert.equal(initialCollapsed(tree, body.nodes.length, { above: 400 }).size, 0); // 399 nodes
  assert.ok(initialCollapsed(tree, body.nodes.length, { above: 300 }).size > 0);
});

test("a 5,000-node chain opens as its 40 repeat chunks: a repeat of repeats shows its runs", () => {
  const body = chainBody(2500);
  assert.equal(body.nodes.length, 4999);
  const tree = groupTree(body);
  const collapsed = initialCollapsed(tree, body.nodes.length);
  const chunks = tree.groups.get("g0").children;
  assert.equal(chunks.length, 40);
  assert.deepEqual([...collapsed].sort(), [...chunks].sort());
  assert.equal(countBoxes(tree, collapsed, body.nodes.length), 41); // the 40 chunks and x
  // Only chunks open by themselves: with room for more, the statements stay in their chunks.
  const roomy = initialCollapsed(tree, body.nodes.length, { maxBoxes: 3000 });
  assert.equal(countBoxes(tree, roomy, body.nodes.length), 41);
  // Without room for the chunks, the one repeat stays one box.
  assert.deepEqual([...initialCollapsed(tree, body.nodes.length, { maxBoxes: 30 })], ["g0"]);
  // Past 10,000 nodes (the overview) only the outermost groups: here one box.
  assert.deepEqual([...initialCollapsed(tree, body.nodes.length, { overview: true })], ["g0"]);
});

test("statement groups collapse too when repeats and blocks leave too many boxes", () => {
  // 300 different statements of 3 nodes each: no repeat, 900 nodes.
  const nodes = [];
  const groups = [];
  for (let s = 0; s < 300; s++) {
    for (let j = 0; j < 3; j++) nodes.push({ id: `n${3 * s + j}`, index: 3 * s + j, label: `v${s}`, role: "op", op: "add", inputs: [] });
    groups.push({ id: `g${s}`, kind: "statement", name: `v${s}`, first: 3 * s, end: 3 * s + 3, parent: null });
  }
  const tree = groupTree({ nodes, edges: [], groups });
  const collapsed = initialCollapsed(tree, nodes.length);
  assert.equal(collapsed.size, 300);
  assert.equal(countBoxes(tree, collapsed, nodes.length), 300);
});

test("edges into and out of a collapsed group attach to its box, merged per pair of boxes", () => {
  const body = chainBody(10, 4);
  const tree = groupTree(body);
  const collapsed = new Set(["g1", "g6", "g11"]);
  const view = viewGraph(body, tree, collapsed);
  assert.deepEqual(view.nodes.map((n) => n.id), ["n0", "g1", "g6", "g11"]);
  assert.deepEqual(view.edges.map((e) => e.id), ["n0->g1#g", "g1->g6#g", "g6->g11#g"]);
  assert.deepEqual(view.edges[0].members, ["n0->n2#0"]);
  assert.equal(view.alias.get("n8->n10#0"), "g1->g6#g");
  assert.equal(view.alias.get("n2->n4#0"), undefined); // inside g1: no drawn edge
  assert.equal(view.rep.get("n5"), "g1");
  const g1 = view.boxes.get("g1");
  assert.deepEqual(g1.inLabels, ["x"]);
  assert.deepEqual(g1.outputs, ["n8"]); // x4 is read by the next chunk
  assert.equal(g1.count, 8);
  const last = view.boxes.get("g11");
  assert.deepEqual(last.outputs, ["n18"]); // the output, read by nothing
  assert.ok(g1.box.width > 100 && g1.box.height > 50);
});

test("a shown node keeps its own edges, ids and all (a * a keeps both)", () => {
  const body = layerBody();
  const tree = groupTree(body);
  const view = viewGraph(body, tree, new Set(["g0"]));
  assert.deepEqual(view.nodes.map((n) => n.id), ["n0", "n1", "g0", "n4"]);
  assert.deepEqual(view.edges.map((e) => e.id).sort(), ["g0->n4#g", "n0->g0#g", "n1->g0#g"]);
  assert.deepEqual(view.edges.find((e) => e.id === "n0->g0#g").members, ["n0->n2#0", "n0->n3#1"]);
  assert.deepEqual(view.edges.find((e) => e.id === "g0->n4#g").members, ["n3->n4#0", "n3->n4#1"]);
  const open = viewGraph(body, tree, new Set(), { framed: (g) => g.kind === "block" });
  assert.deepEqual(open.edges.map((e) => e.id), body.edges.map((e) => e.id));
  assert.deepEqual(open.clusters, [{ id: "g0", name: "layer1", kind: "block", parent: null }]);
  assert.equal(open.frameOf.get("n2"), "g0");
  assert.equal(open.frameOf.get("n4"), undefined);
});

test("opening, closing and revealing: a search target's groups open, outermost first", () => {
  const body = chainBody(10, 4);
  const tree = groupTree(body);
  const collapsed = new Set(["g0"]);
  assert.equal(repOf(tree, collapsed, "n5"), "g0");
  assert.deepEqual(revealNode(tree, collapsed, "n5"), ["g0", "g1", "g4"]); // x = x * 1.0001 (3rd)
  assert.equal(repOf(tree, collapsed, "n5"), "n5");
  assert.ok(collapsed.has("g2") && collapsed.has("g3") && collapsed.has("g6"));
  closeGroup(tree, collapsed, "g0");
  assert.deepEqual([...collapsed], ["g0"]);
  openGroup(tree, collapsed, "g0");
  assert.deepEqual([...collapsed].sort(), ["g1", "g11", "g6"]);
});

test("frames: a grouped view frames open repeats and their collapsed children sit in them", () => {
  const body = chainBody(10, 4);
  const state = createGroupState(body, { above: 5 });
  assert.ok(state.grouped);
  assert.deepEqual([...state.collapsed].sort(), ["g1", "g11", "g6"]);
  openGroup(state.tree, state.collapsed, "g1");
  const view = groupedGraph(body, state);
  assert.deepEqual(view.clusters.map((c) => [c.id, c.parent]).sort(), [["g0", null], ["g1", "g0"]]);
  assert.equal(view.frameOf.get("g2"), "g1");
  assert.equal(view.frameOf.get("g6"), "g0");
  assert.equal(createGroupState({ nodes: body.nodes, edges: body.edges, groups: [] }), null);
});

test("a box's adjoint lines name each output's own adjoint symbol, never a sum over outputs", () => {
  const body = chainBody(10, 4);
  body.nodes.find((n) => n.id === "n8").adjoint_symbol = "x̄⁽⁴⁾";
  const state = createGroupState(body, { above: 5 });
  const view = groupedGraph(body, state);
  const first = view.boxes.get("g1"); // statements 1-4: its output is x4 (n8), read by the next chunk
  assert.deepEqual(first.outputs, ["n8"]);
  assert.deepEqual(first.outSymbols, ["x̄⁽⁴⁾"]);
  assert.deepEqual(adjointLines(first), ["x̄⁽⁴⁾  —"]);
  assert.deepEqual(adjointLines(first, { n8: -0.0714 }), ["x̄⁽⁴⁾ = -0.0714"]);
  assert.equal(boxText(first, adjointLines(first, { n8: 2 })).at(-1), "x̄⁽⁴⁾ = 2");
  // Several outputs: each one's line (at most 3), then how many more; no "Σ".
  const box = { outputs: ["a", "b", "c", "d", "e"], outSymbols: ["ā", "b̄", "c̄", "d̄", "ē"] };
  const lines = adjointLines(box, { a: 1, c: -2.5 });
  assert.deepEqual(lines, ["ā = 1", "b̄  —", "c̄ = -2.5", "… 2 more outputs"]);
  assert.ok(!lines.some((l) => l.includes("Σ")));
  // The box is tall enough for those lines.
  const many = viewGraph({ ...body, nodes: body.nodes }, state.tree, state.collapsed).boxes.get("g1");
  assert.equal(many.box.height, 34 + 4 * 27 + 12);
});

test("input lists are cut to fit the box", () => {
  assert.equal(listText(["a", "w", "b"]), "a, w, b");
  const long = listText(Array.from({ length: 30 }, (_, i) => `weight${i}`), 34);
  assert.ok([...long].length <= 34, long);
  assert.match(long, /\+\d+ more$/);
});

test("the layout: a box keeps its size, an open group's frame holds what is in it", () => {
  const body = chainBody(10, 4);
  const state = createGroupState(body, { above: 5 });
  openGroup(state.tree, state.collapsed, "g1");
  const view = groupedGraph(body, state);
  const layout = layoutGraph(view);
  const at = Object.fromEntries(layout.nodes.map((n) => [n.id, n]));
  assert.equal(at.g6.width, view.boxes.get("g6").box.width);
  assert.equal(at.g6.height, view.boxes.get("g6").box.height);
  const inside = (frame, n) => n.x - n.width / 2 >= frame.x - frame.width / 2 && n.x + n.width / 2 <= frame.x + frame.width / 2
    && n.y - n.height / 2 >= frame.y - frame.height / 2 && n.y + n.height / 2 <= frame.y + frame.height / 2;
  const frames = Object.fromEntries(layout.frames.map((f) => [f.id, f]));
  assert.deepEqual(Object.keys(frames).sort(), ["g0", "g1"]);
  for (const id of ["g2", "g3", "g4", "g5"]) assert.ok(inside(frames.g1, at[id]), id);
  for (const id of ["g2", "g6", "g11"]) assert.ok(inside(frames.g0, at[id]), id);
  assert.ok(!inside(frames.g0, at.n0));
  // Left to right still: each merged edge goes from its source box to its target box.
  for (const e of layout.edges) assert.ok(at[e.source].x < at[e.target].x, e.id);
  // Frames cost: the prediction doubles for a graph with clusters.
  const flat = predictLayout({ nodes: view.nodes, edges: view.edges });
  assert.ok(Math.abs(predictLayout(view).ms - 2 * flat.ms) <= 1, `${predictLayout(view).ms} vs 2 × ${flat.ms}`);
});
