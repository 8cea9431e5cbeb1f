import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createStore } from "../../static/js/state.js";
import { bindModel, clampStep, modeChoices, readyTrace, traceOf, widgetNarration } from "../../static/js/widget-sync.js";
import { fakeModel } from "./fixtures/fake-model.mjs";

// A trace the kernel sends (the body of POST /api/trace), as text.
const TRACE = readFileSync(new URL("./fixtures/sigmoid-net.json", import.meta.url), "utf8");
const STEPS = JSON.parse(TRACE).events.length;

/** One view: its own store, its walk's length from the trace it was last sent. */
function view(model) {
  const store = createStore({});
  const drawn = [];
  let trace = null;
  const sync = bindModel(model, store, {
    total: () => trace?.events.length ?? 0,
    onTrace: (t, error) => {
      trace = t;
      drawn.push(t ? `trace of ${t.events.length}` : `error: ${error}`);
    },
  });
  return { store, drawn, sync };
}

const start = () => fakeModel({ _trace: TRACE, error: "", step: 0, program: "a = 1.0", mode: "reverse" });

test("widget: a view opens on the kernel's trace and step", () => {
  const model = start();
  model.fromKernel("step", 7);
  const a = view(model);
  assert.deepEqual(a.drawn, [`trace of ${STEPS}`]);
  assert.equal(a.store.get().step, 7);
  assert.deepEqual(model.sent, []); // nothing to tell the kernel
});

test("widget: a cell's w.step = 12 moves every view of the widget", () => {
  const model = start();
  const [a, b] = [view(model), view(model)];
  model.fromKernel("step", 12);
  assert.equal(a.store.get().step, 12);
  assert.equal(b.store.get().step, 12);
  assert.deepEqual(model.sent, []);
});

test("widget: stepping in one view sets the model once and the other view follows", () => {
  const model = start();
  const [a, b] = [view(model), view(model)];
  a.store.set({ step: 5 });
  assert.equal(model.get("step"), 5);
  assert.equal(b.store.get().step, 5);
  assert.deepEqual(model.sent, [{ step: 5 }]); // one message to the kernel, not one per view
  b.store.set({ step: 6 });
  assert.equal(a.store.get().step, 6);
  assert.deepEqual(model.sent, [{ step: 5 }, { step: 6 }]);
});

test("widget: a step past the end is the last, and the kernel is told so", () => {
  const model = start();
  const a = view(model);
  model.fromKernel("step", STEPS + 40);
  assert.equal(a.store.get().step, STEPS);
  assert.deepEqual(model.sent, [{ step: STEPS }]);
  assert.equal(clampStep(-3, 10), 0);
  assert.equal(clampStep("x", 10), 0);
  assert.equal(clampStep(4.7, 10), 4);
});

test("widget: a new trace or a refusal redraws every view; the refusal has no steps", () => {
  const model = start();
  const [a, b] = [view(model), view(model)];
  model.fromKernel("error", "Not traced (line 1): name 'q' is not defined");
  model.fromKernel("_trace", "");
  for (const v of [a, b]) {
    assert.equal(v.drawn.at(-1), "error: Not traced (line 1): name 'q' is not defined");
    assert.equal(v.store.get().step, 0);
  }
  model.fromKernel("error", "");
  model.fromKernel("_trace", TRACE);
  assert.equal(a.drawn.at(-1), `trace of ${STEPS}`);
  assert.equal(traceOf(start()).events.length, STEPS);
  assert.equal(traceOf(fakeModel({ _trace: "{\"graph\":" })), null);
});

test("widget: a refusal after a walk keeps that walk: the same trace, the error beside it", () => {
  // server/widget.py keeps `_trace` when it refuses a program: the view gets the trace it
  // drew (the same object: no new drawing) with the error, and keeps the step it showed
  const model = start();
  const store = createStore({});
  const seen = [];
  bindModel(model, store, { total: () => STEPS, onTrace: (t, error) => seen.push([t, error]) });
  model.fromKernel("step", 6);
  const said = "Not traced (line 1, column 5): '(' was never closed";
  model.fromKernel("error", said);
  assert.equal(seen.length, 2);
  assert.ok(seen[0][0] && seen[1][0] === seen[0][0]);
  assert.equal(seen[1][1], said);
  assert.equal(store.get().step, 6);
  model.fromKernel("error", "");
  assert.ok(seen[2][0] === seen[0][0] && seen[2][1] === "");
  model.fromKernel("_trace", TRACE.replace("{", "{\"again\": 1, ")); // a new walk: a new trace
  assert.ok(seen[3][0] !== seen[0][0] && seen[3][0].again === 1);
});

test("widget: the view's program and mode go to the kernel; a mode it does not offer does not", () => {
  const model = start();
  const a = view(model);
  a.sync.setMode("forward");
  a.sync.setMode("sideways");
  a.sync.setProgram("x = 3.0\nL = x * x");
  assert.deepEqual(model.sent, [{ mode: "forward" }, { program: "x = 3.0\nL = x * x" }]);
  a.sync.setProgram("x = 3.0\nL = x * x"); // unchanged: nothing sent
  assert.equal(model.sent.length, 2);
});

test("widget: a removed view stops listening and stops playing", () => {
  const model = start();
  const a = view(model);
  a.store.set({ playing: true });
  a.sync.close();
  assert.equal(a.store.get().playing, false);
  for (const event of ["change:step", "change:_trace", "change:error", "change:theme"]) assert.equal(model.listening(event), 0);
  model.fromKernel("step", 9);
  assert.equal(a.store.get().step, 0);
});

test("widget: a cell's w.theme = \"projector\" restyles every view", () => {
  const model = start();
  const themes = [];
  for (let i = 0; i < 2; i += 1) {
    bindModel(model, createStore({}), { total: () => STEPS, onTrace: () => {}, onTheme: (t) => themes.push(t) });
  }
  assert.deepEqual(themes, ["auto", "auto"]); // no theme in the model yet: auto
  model.fromKernel("theme", "projector");
  assert.deepEqual(themes, ["auto", "auto", "projector", "projector"]);
});

test("widget: hvp is offered with a # hvp: line (or while its walk is shown), train always", () => {
  const enabled = (program, mode) => modeChoices(program, mode).filter((c) => c.enabled).map((c) => c.mode);
  assert.deepEqual(enabled("a = 1.0\nL = a * a", "reverse"), ["reverse", "forward", "train"]);
  assert.deepEqual(enabled('# hvp: {"a": 1.0}\na = 1.0\nL = a * a', "reverse"), ["reverse", "forward", "hvp", "train"]);
  assert.deepEqual(enabled("a = 1.0\nL = a * a", "hvp"), ["reverse", "forward", "hvp", "train"]);
  const model = start();
  const a = view(model);
  a.sync.setMode("hvp");
  a.sync.setMode("train");
  assert.deepEqual(model.sent, [{ mode: "hvp" }, { mode: "train" }]);
});

test("widget: train settings from the view go to the kernel in one message, bad ones not", () => {
  const model = fakeModel({ ...start(), _trace: TRACE, error: "", step: 0, mode: "train",
    train_steps: 100, lr: 0.1, optimizer: "sgd", iteration: 0 });
  const a = view(model);
  a.sync.setTrain({ lr: 0.5, iteration: 7, speed: 3, train_steps: Number.NaN });
  assert.deepEqual(model.sent, [{ lr: 0.5, iteration: 7 }]);
  assert.equal(model.get("train_steps"), 100);
});

test("widget: a train-mode trace steps its zero_grad zeros and names its iteration", () => {
  const trace = JSON.parse(TRACE);
  const leaf = trace.graph.nodes.find((n) => n.role === "leaf");
  const events = [{ seq: 0, kind: "zero_grad", nodes: [leaf.id] }, ...trace.events.map((e, i) => ({ ...e, seq: i + 1 }))];
  const train = { losses: [0.8, 0.5, 0.3], iteration: 2, steps: 3 };
  const ready = readyTrace({ ...trace, events, train });
  assert.deepEqual(Object.keys(ready.events[0].adjoints), [leaf.id]); // its zeros, to show
  assert.deepEqual(ready.events.at(-1).grads, trace.grads); // the body's results on done
  assert.equal(readyTrace(trace), trace); // another mode's trace as it is
  assert.equal(widgetNarration("e = a * b", { train }), "Iteration 2: e = a * b");
  assert.equal(widgetNarration("e = a * b", trace), "e = a * b");
});
