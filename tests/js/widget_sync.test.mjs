import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createStore } from "../../static/js/state.js";
import { bindModel, clampStep, traceOf } from "../../static/js/widget-sync.js";
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

test("widget: the view's program and mode go to the kernel; a mode it does not offer does not", () => {
  const model = start();
  const a = view(model);
  a.sync.setMode("forward");
  a.sync.setMode("hvp");
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
