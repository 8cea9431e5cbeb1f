// Forward mode and the gradient check on the page (static/js/modes.js): the request fields,
// the dual numbers in the boxes, the passes chart and the check's rows; and the timeline's
// fold of forward mode's `tangent` events (the body of POST /api/trace with mode "forward"
// for the first preset: tests/golden/seed-tanh-fanout-forward.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  allForwardSummary, dualText, elementName, formatError, forwardFields, gradcheckRows, hvpHeader, hvpLine, leavesOf, modeFields,
  multiIndex, nest, normalVector, oneHot, parseEps, tangentFor, tangentLine, unitTangent,
} from "../../static/js/modes.js";
import { createTimeline, focusOf } from "../../static/js/timeline.js";
import { narrate } from "../../static/js/narration.js";

const forward = JSON.parse(readFileSync(new URL("../golden/seed-tanh-fanout-forward.json", import.meta.url)));

test("reverse mode adds no request field; forward mode a one-hot tangent on the chosen leaf", () => {
  assert.deepEqual(modeFields("reverse", { name: "a", shape: [] }), {});
  assert.deepEqual(modeFields("forward", { name: "a", shape: [] }), { mode: "forward", tangents: { a: 1 } });
  assert.deepEqual(modeFields("forward", { name: "W", shape: [2, 2] }),
    { mode: "forward", tangents: { W: [[1, 0], [0, 0]] } });
  assert.deepEqual(modeFields("forward", null), { mode: "forward" });
  assert.deepEqual(oneHot([3]), [1, 0, 0]);
});

test("the mode menu's H v entry adds a # hvp: line: v one-hot on the first scalar leaf, else the first leaf's first element", () => {
  const W = { name: "W", shape: [2, 2], size: 4 };
  const a = { name: "a", shape: [], size: 1 };
  assert.equal(hvpHeader([W, a]), '# hvp: {"a":1}');
  assert.equal(hvpHeader([W]), '# hvp: {"W":[[1,0],[0,0]]}');
  assert.equal(hvpHeader([]), null);
  assert.equal(hvpLine(`${hvpHeader([a])}\na = 1.0\nL = a * a\n`), true);
});

test("an element of a tensor leaf: its multi-index, name and unit tangent (row-major)", () => {
  assert.deepEqual(multiIndex(5, [2, 3]), [1, 2]);
  assert.deepEqual(multiIndex(3, [2, 3]), [1, 0]);
  assert.deepEqual(multiIndex(7, [2, 2, 2]), [1, 1, 1]);
  assert.equal(elementName("W", [2, 3], 5), "W[1, 2]");
  assert.equal(elementName("a", [], 0), "a");
  assert.deepEqual(unitTangent([2, 3], 4), [[0, 0, 0], [0, 1, 0]]);
  assert.deepEqual(nest([1, 2, 3, 4, 5, 6], [3, 2]), [[1, 2], [3, 4], [5, 6]]);
  assert.equal(nest([4], []), 4);
});

test("a random tangent is standard normal, the same for the same seed, another for another", () => {
  const a = normalVector(4000, 3);
  assert.deepEqual(a, normalVector(4000, 3));
  assert.notDeepEqual(normalVector(6, 4), a.slice(0, 6));
  const mean = a.reduce((s, x) => s + x, 0) / a.length;
  const variance = a.reduce((s, x) => s + (x - mean) ** 2, 0) / a.length;
  assert.ok(Math.abs(mean) < 0.06, `mean ${mean}`); // 4 standard errors of 1/√4000
  assert.ok(Math.abs(variance - 1) < 0.1, `variance ${variance}`);
  const W = { name: "W", shape: [2, 3], size: 6 };
  assert.deepEqual(tangentFor(W, { direction: "random", seed: 3 }), nest(a.slice(0, 6), [2, 3]));
});

test("the forward request: the default direction is the engine's, any other is sent", () => {
  const leaves = [{ name: "a", shape: [], size: 1 }, { name: "W", shape: [2, 3], size: 6 }];
  const state = { mode: "forward", tangent: "", tangent_direction: "element", tangent_element: 0, tangent_seed: 1 };
  assert.deepEqual(forwardFields({ ...state, mode: "reverse" }, leaves), {});
  assert.deepEqual(forwardFields(state, leaves), { mode: "forward" });
  assert.deepEqual(forwardFields({ ...state, tangent: "a" }, leaves), { mode: "forward" }); // = the first leaf's first element
  assert.deepEqual(forwardFields({ ...state, tangent: "W", tangent_element: 5 }, []), { mode: "forward" }); // leaves not known yet
  assert.deepEqual(forwardFields({ ...state, tangent: "W", tangent_element: 5 }, leaves),
    { mode: "forward", tangents: { W: [[0, 0, 0], [0, 0, 1]] } });
  assert.deepEqual(forwardFields({ ...state, tangent: "W", tangent_element: 60 }, leaves), // out of range: element 0
    { mode: "forward", tangents: { W: [[1, 0, 0], [0, 0, 0]] } });
  const random = forwardFields({ ...state, tangent: "W", tangent_direction: "random", tangent_seed: 2 }, leaves);
  assert.deepEqual(random.tangents.W, nest(normalVector(6, 2), [2, 3]));
  // a scalar leaf's tangent is 1, whatever the direction says; an unknown leaf is the default
  assert.deepEqual(forwardFields({ ...state, tangent: "a", tangent_direction: "random" }, leaves), { mode: "forward" });
  assert.deepEqual(forwardFields({ ...state, tangent: "zz", tangent_element: 2 }, [leaves[1]]), { mode: "forward" });
  // "" is the first leaf, in the direction chosen
  assert.deepEqual(forwardFields({ ...state, tangent_element: 2 }, [leaves[1], leaves[0]]),
    { mode: "forward", tangents: { W: [[0, 0, 1], [0, 0, 0]] } });
});

test("the leaves come from the graph, with their sizes", () => {
  const leaves = leavesOf(forward.graph);
  assert.deepEqual(leaves.map((l) => [l.name, l.size]), [["a", 1], ["b", 1], ["c", 1]]);
});

test("dual numbers read value + tangent·ε", () => {
  assert.equal(dualText(-0.5, -0.5), "-0.5 - 0.5ε");
  assert.equal(dualText(0.46211715726000974, 0.39322386648296376), "0.4621 + 0.3932ε");
  assert.equal(tangentLine(0.5), "+ 0.5ε");
  assert.equal(tangentLine(-1), "- 1ε");
  assert.equal(tangentLine({ shape: [2], data: [1, 0] }), null);
});

test("the timeline folds tangent events into values and tangents", () => {
  const timeline = createTimeline(forward.events);
  const view = timeline.at(4); // a, b, c, then e = a * b
  assert.equal(view.phase, "forward");
  assert.equal(view.values.n3, -0.5);
  assert.equal(view.tangents.n3, -0.5);
  assert.equal(view.tangents.n0, 1);
  assert.deepEqual(focusOf(view.event), { current: "n3" });
  assert.match(narrate(view.event, {}).normalize("NFC"), /ė = ȧ·b \+ a·ḃ = 1·\(-0\.5\) \+ 1·0 = -0\.5/u);
  assert.equal(timeline.at(2).tangents.n3, undefined); // stepping back forgets it
});

test("the passes chart: n forward passes against one reverse pass", () => {
  const s = allForwardSummary(forward);
  assert.equal(s.passes, 3);
  assert.equal(s.reverse, 1);
  assert.equal(s.agree, true);
  assert.equal(s.widths.forward, 100);
  assert.ok(Math.abs(s.widths.reverse - 100 / 3) < 1e-9);
  assert.match(s.text, /3 forward passes .* 1×3 Jacobian; reverse mode needs 1 pass: they agree/);
});

test("the gradient check's rows and the step box", () => {
  const rows = gradcheckRows({ a: { max_abs_error: 2.9e-11, max_rel_error: 3.72e-11, ok: true, eps: 1e-6 },
    b: { max_abs_error: 1.5729, max_rel_error: "NaN", ok: false, eps: 1e-6 } });
  assert.deepEqual(rows.map((r) => [r.leaf, r.abs, r.rel, r.ok]),
    [["a", "2.9e-11", "3.7e-11", true], ["b", "1.5729", "NaN", false]]);
  assert.equal(formatError(0), "0");
  assert.equal(parseEps("1e-4"), 1e-4);
  for (const bad of ["0", "-1", "2", "abc", ""]) assert.equal(parseEps(bad), null);
});
