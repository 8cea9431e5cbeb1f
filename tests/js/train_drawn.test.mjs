// Train mode says which iteration's pass the graph draws (a review: after Train the status
// line read "iteration 300" while the graph stepped the starting weights, and nothing said so).
import { test } from "node:test";
import assert from "node:assert/strict";
import { drawnText, iterationKey, iterationNarration } from "../../static/js/train.js";

test("after Train the program's own walk is named iteration 0, and the button draws 300", () => {
  assert.deepEqual(drawnText({ iteration: 0, starting: true }, 300), {
    text: "The graph shows iteration 0 (the starting weights), not 300",
    button: "Step iteration 300",
    title: "The graph steps iteration 0 (the starting weights): its forward and backward pass, before any update.",
  });
  // with iteration 0 chosen, the line needs no "not"
  assert.equal(drawnText({ iteration: 0, starting: true }, 0).text, "The graph shows iteration 0 (the starting weights)");
});

test("a recorded iteration drawn and chosen names it; the slider moved on says it is not that yet", () => {
  assert.deepEqual(drawnText({ iteration: 100, starting: false }, 100), {
    text: "The graph shows iteration 100", button: "Step iteration 100",
    title: "The graph steps iteration 100: its forward, zero_grad, backward and update, with that iteration's numbers.",
  });
  // the thumb dragged and not let go
  assert.equal(drawnText({ iteration: 100 }, 57).text, "The graph shows iteration 100, not 57");
  assert.equal(drawnText({ iteration: 100 }, 57).button, "Step iteration 57");
});

test("while an iteration is fetched the line says which, and what the graph still shows", () => {
  assert.equal(drawnText({ iteration: 0, starting: true, loading: 300 }, 300).text,
    "Loading iteration 300… the graph still shows iteration 0 (the starting weights)");
  assert.equal(drawnText({ iteration: null, loading: 0 }, 0).text, "Loading iteration 0…");
  assert.deepEqual(drawnText({ iteration: null }, 4), { text: "", button: "Step iteration 4", title: "" }); // no walk: no line
});

test("the narration of the program's own walk in Train mode names iteration 0 and its weights", () => {
  assert.equal(iterationNarration(0, "L = 0.8382", { starting: true }), "Iteration 0 (the starting weights): L = 0.8382");
  assert.equal(iterationNarration(0, "L = 0.8382"), "Iteration 0: L = 0.8382");
});

test("a walk of the former settings is said so; the run's length does not make another walk", () => {
  // review of s15 §1: after a new learning rate the line read "The graph shows iteration 299"
  // of the former run's walk
  assert.equal(drawnText({ iteration: 299, former: true }, 299).text, "The graph shows iteration 299 of the former settings");
  assert.equal(drawnText({ iteration: 299, former: true }, 100).text, "The graph shows iteration 299 of the former settings, not 100");
  const state = { program: "w = 1.0\nL = w * w", output: "", train_steps: 301, train_lr: 0.5, train_optimizer: "sgd", train_bug: false };
  // iteration k's numbers do not depend on later iterations: 301 or 400 steps, the same walk
  assert.equal(iterationKey(state, 299), iterationKey({ ...state, train_steps: 400 }, 299));
  for (const other of [{ train_lr: 0.3 }, { train_optimizer: "adam" }, { train_bug: true }, { program: "w = 2.0\nL = w * w" }]) {
    assert.notEqual(iterationKey(state, 299), iterationKey({ ...state, ...other }, 299), JSON.stringify(other));
  }
  assert.notEqual(iterationKey(state, 299), iterationKey(state, 100));
});
