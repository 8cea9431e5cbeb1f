import test from "node:test";
import assert from "node:assert/strict";

import { bugBadgeText, bugSwitches } from "../../static/js/bugs.js";

test("the `# bugs:` line names the switches", () => {
  assert.deepEqual(bugSwitches("# bugs: overwrite, wrong_order\na = 1.0\n"), ["overwrite", "wrong_order"]);
  assert.equal(bugBadgeText("# dtype: float64\n# bugs: inplace\na = 1.0\n"), "bug lab: inplace");
});

test("no switch, no badge; a line after the first statement does not count", () => {
  assert.equal(bugBadgeText("a = 1.0\nb = a * a\n"), "");
  assert.deepEqual(bugSwitches("a = 1.0\n# bugs: overwrite\n"), []);
  assert.deepEqual(bugSwitches("# bugs:\na = 1.0\n"), []);
  assert.deepEqual(bugSwitches(undefined), []);
});

import { fold } from "../../static/js/timeline.js";

test("a second pass's seed clears the adjoints it resets (the bug lab's two passes)", () => {
  const view = fold([
    { seq: 0, kind: "seed", node: "n2", adjoint: 1 },
    { seq: 1, kind: "accumulate", node: "n2", input: "n1", arg: 0, adjoint_after: 2 },
    { seq: 2, kind: "accumulate", node: "n1", input: "n0", arg: 0, adjoint_after: 3 },
    { seq: 3, kind: "seed", node: "n2", adjoint: 1, reset: ["n1"], bug: "no_zero_grad" },
  ]);
  assert.equal(view.adjoints.n1, undefined); // an intermediate starts again
  assert.equal(view.adjoints.n0, 3); // a leaf keeps its .grad (no zero_grad)
  assert.equal(view.adjoints.n2, 1);
});

import { narrate } from "../../static/js/narration.js";

test("a second pass's seed is narrated by the engine's words", () => {
  const nodesById = { n2: { id: "n2", label: "L", adjoint_symbol: "L̄" } };
  const text = "BUG no_zero_grad: a second backward pass without zero_grad(): ...";
  assert.equal(narrate({ kind: "seed", node: "n2", adjoint: 1, reset: [], narration: text }, nodesById), text);
  assert.match(narrate({ kind: "seed", node: "n2", adjoint: 1, narration: "ignored" }, nodesById), /^L̄ = 1/);
});
