// Navigation: trace inputs / consumers, search by name, and the minimap's arithmetic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ancestors, consumersOf, descendants, searchNodes, traceFrom } from "../../static/js/graphwalk.js";
import { allVisible, centreOn, fromMap, mapSize, mapTransform, onMap, visibleBox } from "../../static/js/minimap.js";

// The first preset: a = 1, b = -0.5, c = 2, e = a * b, d = e + a, t = tanh(d), L = t * c.
const { graph } = JSON.parse(readFileSync(new URL("./fixtures/tanh-fanout.json", import.meta.url)));
const ids = Object.fromEntries(graph.nodes.map((n) => [n.name, n.id]));
const names = (set) => [...set].map((id) => graph.nodes.find((n) => n.id === id).name).sort();

test("the inputs of d are e, a and b; its consumers t and L", () => {
  assert.deepEqual(names(ancestors(graph.nodes, ids.d)), ["a", "b", "e"]);
  assert.deepEqual(names(descendants(graph.nodes, ids.d)), ["L", "t"]);
});

test("a leaf has no inputs and the output no consumers", () => {
  assert.equal(ancestors(graph.nodes, ids.a).size, 0);
  assert.equal(descendants(graph.nodes, ids.L).size, 0);
  assert.deepEqual(names(descendants(graph.nodes, ids.a)), ["L", "d", "e", "t"]);
  assert.deepEqual(names(ancestors(graph.nodes, ids.L)), ["a", "b", "c", "d", "e", "t"]);
});

test("consumersOf lists each use, from inputs", () => {
  const consumers = consumersOf(graph.nodes);
  assert.deepEqual(consumers.get(ids.a).sort(), [ids.e, ids.d].sort());
  assert.deepEqual(consumers.get(ids.L), []);
});

test("the traced edges are those between traced nodes and the node", () => {
  const up = traceFrom(graph.nodes, graph.edges, ids.d, "inputs");
  assert.deepEqual([...up.edges].sort(), ["n0->n3#0", "n0->n4#1", "n1->n3#1", "n3->n4#0"]);
  const down = traceFrom(graph.nodes, graph.edges, ids.d, "consumers");
  assert.deepEqual(names(down.nodes), ["L", "t"]);
  // c -> L is not on a path from d: it stays out.
  assert.deepEqual([...down.edges].sort(), ["n4->n5#0", "n5->n6#0"]);
});

test("a long chain is walked without recursion", () => {
  const n = 50_000;
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, inputs: i ? [`n${i - 1}`] : [] }));
  assert.equal(ancestors(nodes, `n${n - 1}`).size, n - 1);
  assert.equal(descendants(nodes, "n0").size, n - 1);
});

test("search ranks exact, then prefix, then substring matches, in graph order", () => {
  const nodes = [
    { id: "1", name: "x10", label: "x10" }, { id: "2", name: "x1", label: "x1" },
    { id: "3", name: "ax1", label: "ax1" }, { id: "4", name: "w", label: "w" },
    { id: "5", name: null, label: "X1·2" },
  ];
  assert.deepEqual(searchNodes(nodes, "x1").map((m) => m.node.id), ["2", "1", "5", "3"]);
  assert.deepEqual(searchNodes(nodes, " W ").map((m) => [m.node.id, m.rank]), [["4", 0]]);
  assert.deepEqual(searchNodes(nodes, ""), []);
  assert.deepEqual(searchNodes(nodes, "zzz"), []);
  assert.equal(searchNodes(nodes, "x", { limit: 2 }).length, 2);
});

test("the minimap fits the drawing and maps points both ways", () => {
  const content = { x0: 100, y0: 50, x1: 1100, y1: 550 }; // 1000 x 500
  const map = mapTransform(content, { width: 208, height: 108 }, { pad: 4 });
  assert.equal(map.k, 0.2);
  assert.deepEqual(onMap(map, content), { x: 4, y: 4, width: 200, height: 100 });
  const p = fromMap(map, { x: 104, y: 54 });
  assert.ok(Math.abs(p.x - 600) < 1e-9 && Math.abs(p.y - 300) < 1e-9);
});

test("the view rectangle follows the camera; all visible hides the map", () => {
  const view = { width: 800, height: 400 };
  const t = { k: 2, x: -200, y: -100 };
  assert.deepEqual(visibleBox(t, view), { x0: 100, y0: 50, x1: 500, y1: 250 });
  assert.equal(allVisible(t, view, { x0: 0, y0: 0, x1: 1000, y1: 500 }), false);
  assert.equal(allVisible({ k: 0.5, x: 0, y: 0 }, view, { x0: 0, y0: 0, x1: 1000, y1: 500 }), true);
  const c = centreOn({ x: 300, y: 200 }, 2, view);
  assert.deepEqual(c, { k: 2, x: -200, y: -200 });
});

test("the minimap takes the drawing's shape, within its largest size and never thinner than min", () => {
  const max = { width: 200, height: 130 };
  assert.deepEqual(mapSize({ x0: 0, y0: 0, x1: 20000, y1: 100 }, { max, min: 28 }), { width: 200, height: 28 });
  assert.deepEqual(mapSize({ x0: 0, y0: 0, x1: 100, y1: 1000 }, { max, min: 28 }), { width: 28, height: 130 });
  assert.deepEqual(mapSize({ x0: 0, y0: 0, x1: 400, y1: 200 }, { max, min: 28 }), { width: 200, height: 100 });
});
