// Forward mode and the gradient check on the page (static/js/modes.js): the request fields,
// the dual numbers in the boxes, the passes chart and the check's rows; and the timeline's
// fold of forward mode's `tangent` events (the body of POST /api/trace with mode "forward"
// for the first preset: tests/golden/seed-tanh-fanout-forward.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  allForwardSummary, dualText, formatError, gradcheckRows, leavesOf, modeFields, oneHot, parseEps, tangentLine,
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
