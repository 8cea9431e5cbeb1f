// Issue 15's review of Train mode (items 2, 7, 13): the address bar keeps every link field,
// units that died at different iterations each say their own, the iteration wording counts
// from 0, a recorded iteration's narration names it, and the loss axis's labels and titles fit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { deadTagParts, deadText, iterationNarration, iterationRange, iterationText } from "../../static/js/train.js";
import { URL_FIELDS } from "../../static/js/permalink.js";
import { FIELDS } from "../../static/js/state.js";
import { leftMargin, lossScale, margins } from "../../static/js/render/losscurve.js";

test("every field a link holds rewrites the address bar, the train settings among them", () => {
  assert.deepEqual([...URL_FIELDS].sort(), Object.keys(FIELDS).sort());
  for (const name of ["train_steps", "train_lr", "train_optimizer", "train_bug", "train_iteration", "train_chosen"]) {
    assert.ok(URL_FIELDS.includes(name), name);
  }
});

test("spirals' h units dead at iterations 3, 16 and 32 each say their own (the CLI's)", () => {
  const dead = [
    { node: "n9", name: "h", unit: 36, iteration: 16 },
    { node: "n9", name: "h", unit: 32, iteration: 3 },
    { node: "n9", name: "h", unit: 40, iteration: 32 },
  ];
  assert.equal(deadText(dead), "h: units 32 (since iteration 3), 36 (since iteration 16), 40 (since iteration 32) dead");
  // units that died together keep the short form
  assert.equal(deadText([{ name: "h", unit: 1, iteration: 0 }, { name: "h", unit: 0, iteration: 0 }]), "h: units 0, 1 dead (since iteration 0)");
  assert.equal(deadText([{ name: "h", unit: 3, iteration: 5 }]), "h: unit 3 dead (since iteration 5)");
});

test("the iteration of a 301-step run reads 'of 0–300', not 'of 301'", () => {
  assert.equal(iterationText(300, 301), "iteration 300 of 0–300");
  assert.equal(iterationText(0, 1), "iteration 0 of 0–0");
  assert.equal(iterationNarration(100, "W1 -= 0.5 · W̄1"), "Iteration 100: W1 -= 0.5 · W̄1");
});

test("the Iterations box's note and the status line name one range: 301 iterations are 0–300", () => {
  assert.equal(iterationRange(301), "0–300");
  assert.equal(iterationRange(1), "0–0");
  assert.equal(iterationRange(200), "0–199");
  assert.ok(iterationText(300, 301).endsWith(`of ${iterationRange(301)}`));
});

test("the loss axis leaves room for 0.0001 whole (it read .0001)", () => {
  const y = lossScale([0.84, 9.11e-4, 0.00012], [116, 0]);
  const labels = y.ticks(4).map(y.tickFormat(4, "~g"));
  assert.ok(labels.includes("0.0001"), labels.join());
  // 6 characters at 15 px (8.3 px a digit) after the tick (6) and its padding (3)
  assert.ok(leftMargin(labels) >= 6 + 3 + 6 * 8.3, String(leftMargin(labels)));
  assert.equal(leftMargin(["0", "0.5", "1"]), 52); // short labels keep the usual margin
});

test("the loss curve's margins hold its axis titles outside the numbers' room", () => {
  // "iteration" and "loss" at 15 px (18.75 on a projector): a line box of 1.2 em and 1 px
  // from the edge, then 3 px to the x axis's numbers (24 px under the plot)
  const labels = ["0.01", "0.1", "1"];
  assert.deepEqual(margins(labels, 15), { top: 10, right: 16, bottom: 24 + 3 + 19, left: leftMargin(labels) + 19 });
  assert.deepEqual(margins(labels, 18.75), { top: 10, right: 16, bottom: 24 + 3 + 24, left: leftMargin(labels) + 24 });
  // a wider number widens the numbers' room; the title's column stays outside it
  assert.equal(margins(["0.0001"], 15).left - margins(["1"], 15).left, leftMargin(["0.0001"]) - leftMargin(["1"]));
});

test("a dead tag's head names every unit; the iterations are its tail", () => {
  const text = "h: units 32 (since iteration 3), 36 (since iteration 16), 40 (since iteration 32) dead";
  assert.deepEqual(deadTagParts(text), { head: "h: units 32, 36, 40 dead", tail: " (since iterations 3, 16, 32)" });
  assert.deepEqual(deadTagParts("h: units 0, 1 dead (since iteration 0)"), { head: "h: units 0, 1 dead", tail: " (since iteration 0)" });
  assert.deepEqual(deadTagParts("h: unit 3 dead"), { head: "h: unit 3 dead", tail: "" });
});
