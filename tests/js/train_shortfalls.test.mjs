// Issue 15 §3, the review's Train-mode items without a browser: a thinned curve keeps its ends
// and spikes (4), a diverged event is folded and said (5), a regression's outputs and
// boundary (3).
import test from "node:test";
import assert from "node:assert/strict";
import { addTrainEvent, createRun, divergedText, outputsText, runView } from "../../static/js/train.js";
import { thinned } from "../../static/js/render/losscurve.js";
import { agreeing, valueScale } from "../../static/js/render/boundary.js";

test("a 3,000-point curve is thinned to two points a pixel, its spike and its last kept", () => {
  const losses = Array.from({ length: 3000 }, (_, i) => 1 / (i + 1));
  losses[1234] = 5;
  const points = thinned(losses, 300);
  assert.ok(points.length <= 601, points.length);
  assert.deepEqual(points[0], [0, 1]);
  assert.deepEqual(points.at(-1), [2999, 1 / 3000]);
  assert.ok(points.some(([i, v]) => i === 1234 && v === 5));
  assert.ok(points.every(([i], k) => k === 0 || i > points[k - 1][0])); // in order
  assert.equal(thinned([3, 2, 1], 300).length, 3); // short: every point
});

test("a diverged run is folded once and shown from its iteration on", () => {
  const run = [
    { type: "start", steps: 5, params: ["w"], data: null, classes: null },
    { type: "iteration", i: 0, loss: 1 },
    { type: "iteration", i: 1, loss: "Infinity" },
    { type: "diverged", i: 1, why: "the loss is Infinity at iteration 1; the run diverged (lr 1000 may be too large)" },
    { type: "diverged", i: 3, why: "later" },
  ].reduce(addTrainEvent, createRun());
  assert.equal(run.diverged.i, 1);
  assert.equal(runView(run, 0).diverged, null);
  assert.equal(runView(run, 1).diverged.i, 1);
  assert.equal(divergedText(run.diverged), "Diverged at iteration 1: the loss is Infinity at iteration 1; "
    + "the run diverged (lr 1000 may be too large). Training stopped there.");
});

test("a regression's outputs beside its targets, and its boundary's agreement by sign", () => {
  const data = { X: [[0, 0], [0, 1], [1, 0], [1, 1]], y: [-1, 1, 1, -1] };
  const boundary = {
    i: 499, grid: { x0: -0.5, x1: 1.5, y0: -0.5, y1: 1.5, nx: 2, ny: 2 },
    values: [-0.9, 0.8, 0.7, -0.6], outputs: [-0.9833, 0.9675, 0.969, -0.9634],
  };
  assert.equal(outputsText(boundary, data), "outputs (-0.98, 0.97, 0.97, -0.96) → targets (-1, 1, 1, -1)");
  assert.equal(outputsText({ ...boundary, outputs: undefined }, data), ""); // a classifier's
  assert.equal(agreeing(boundary, data), 4);
  assert.equal(agreeing({ ...boundary, values: [0.5, 0.8, 0.7, -0.6] }, data), 3);
  assert.equal(valueScale(data), 1);
  assert.equal(valueScale({ y: [0.2, -3] }), 3);
});
