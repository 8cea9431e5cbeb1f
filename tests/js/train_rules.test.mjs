// Train mode's numbers refused in the CLI's words (a newcomer's check): the boxes and a link
// quote what was typed and say what is allowed; a refused link part opens with the example's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkState, defaultState, openLink } from "../../static/js/state.js";
import { keptSentence } from "../../static/js/permalink.js";
import { linkRefusal, lrRefusal, quoted, stepsRefusal } from "../../static/js/train-rules.js";

const XOR = { id: "xor", title: "XOR", program: "w = 1.0\nL = w * w\n", train: { train_steps: 301, train_lr: 0.5, train_optimizer: "sgd", train_bug: false } };

test("the boxes' refusals are the CLI's, quoting what was typed", () => {
  // gradwalk train --lr abc: "'abc' is not a learning rate: give a number above 0 and at most 1,000,000, e.g. 0.1"
  assert.equal(lrRefusal("abc"), "'abc' is not a learning rate: give a number above 0 and at most 1,000,000, e.g. 0.1");
  assert.equal(stepsRefusal("99999"), "'99999' is not a number of iterations: give a whole number from 1 to 10,000, e.g. 300");
  assert.equal(quoted("it's"), `"it's"`);
  assert.equal(quoted("x".repeat(41)), `'${"x".repeat(40)}'…`);
});

test("a link's lr or iterations the boxes refuse is said, and the example's own is used", () => {
  for (const [lr, shown] of [[-3, "'-3'"], ["abc", "'abc'"], [1e9, "'1000000000'"]]) {
    const { state, note } = checkState({ v: 1, preset: "xor", program: XOR.program, mode: "train", train_lr: lr, train_steps: 40 });
    assert.equal(note, `This link's lr could not be used: ${shown} is not a learning rate: give a number above 0 and at most 1,000,000, e.g. 0.1; it opens with the example's own lr.`);
    const patch = openLink({ ...defaultState(), train_lr: 2, train_steps: 300 }, state, [XOR]);
    assert.equal(patch.train_lr, 0.5); // the example's, not the store's 2
    assert.equal(patch.train_steps, 40); // the link's own, which was fine
  }
  // 0 iterations: refused as the box refuses it, and the example's 301 (not the page's 300)
  const { state, note } = checkState({ v: 1, program: XOR.program, train_steps: 0 });
  assert.equal(note, linkRefusal("train_steps", 0));
  assert.match(note, /'0' is not a number of iterations: give a whole number from 1 to 10,000/);
  assert.equal(openLink({ ...defaultState(), train_steps: 300 }, state, [XOR]).train_steps, 301);
  // a link without the field still opens with the page's default (a link drops defaults)
  assert.equal(openLink({ ...defaultState(), train_steps: 301 }, checkState({ v: 1, program: XOR.program }).state, [XOR]).train_steps, 300);
});

test("a link message says what was typed is kept only when something was", () => {
  assert.equal(keptSentence({ draft: "", edits: {} }), "");
  assert.equal(keptSentence({ draft: "a = 1\n", edits: {} }), " What you had typed is kept (see the Example menu).");
  assert.equal(keptSentence({ draft: "", edits: { xor: "w = 2.0\nL = w\n" } }), " What you had typed is kept (see the Example menu).");
});

test("the boundary's label says the model's accuracy, not the raster's count", async () => {
  const { boundaryLabel } = await import("../../static/js/render/boundary.js");
  const { addTrainEvent, createRun, runView } = await import("../../static/js/train.js");
  // two points in one cell of class 0: the raster puts the class-1 point on the wrong side,
  // while the model (accuracy 1) gets both right
  const grid = { x0: 0, x1: 1, y0: 0, y1: 1, nx: 1, ny: 1 };
  const data = { X: [[0.2, 0.2], [0.8, 0.8]], y: [0, 1] };
  const run = createRun();
  addTrainEvent(run, { type: "start", steps: 2, params: {}, data, classes: 2 });
  addTrainEvent(run, { type: "iteration", i: 0, loss: 0.7, accuracy: 0.5 });
  addTrainEvent(run, { type: "iteration", i: 1, loss: 0.1, accuracy: 1 });
  addTrainEvent(run, { type: "boundary", i: 1, grid, classes: [0], confidence: [0.9] });
  const view = runView(run, 1);
  assert.equal(view.boundaryAccuracy, 1);
  assert.equal(boundaryLabel(view.boundary, data, view.boundaryAccuracy),
    "Decision boundary at iteration 1: the model's class over the plane, a raster of 1 by 1 cells, with the 2 training points; the model classifies 2 of them correctly (accuracy 100%)");
  // no accuracy (a loss written by hand): the picture only, no count of the raster's
  assert.equal(boundaryLabel(view.boundary, data, null),
    "Decision boundary at iteration 1: the model's class over the plane, a raster of 1 by 1 cells, with the 2 training points");
});
