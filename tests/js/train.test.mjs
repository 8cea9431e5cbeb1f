// Train mode's model (static/js/train.js) on hand-made events of the training stream
// (docs/trace-format.md, "Training"), its render helpers' pure parts (loss scale, boundary
// cells), a recorded iteration's zero_grad and update in the timeline, and the train fields
// of a link (state.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  addTrainEvent, arrived, createRun, deadByNode, deadMarks, deadText, formatLoss, iterationRequest,
  iterationsPerFrame, readTrainStream, runView, steppable, trainRequest, zeroedGrads,
} from "../../static/js/train.js";
import { lossScale } from "../../static/js/render/losscurve.js";
import { agreeing, cellColour, cellOf } from "../../static/js/render/boundary.js";
import { createTimeline, fold, focusOf } from "../../static/js/timeline.js";
import { narrate } from "../../static/js/narration.js";
import { decodeLink, defaultState, encodeLink, linkState, openLink } from "../../static/js/state.js";

const XOR = { X: [[0, 0], [0, 1], [1, 0], [1, 1]], y: [0, 1, 1, 0] };
// A 2x2 grid over [-0.5, 1.5]²: row 0 (bottom) predicts 0 then 1, row 1 predicts 1 then 0.
const GRID = { x0: -0.5, x1: 1.5, y0: -0.5, y1: 1.5, nx: 2, ny: 2 };
const EVENTS = [
  { type: "start", steps: 3, params: ["W1", "b1"], data: XOR, classes: 2 },
  { type: "iteration", i: 0, loss: 0.838159, accuracy: 0.5 },
  { type: "dead", i: 0, node: "n7", name: "h", unit: 2 },
  { type: "boundary", i: 0, grid: GRID, classes: [0, 0, 0, 0], confidence: [0.5, 0.5, 0.5, 0.5] },
  { type: "iteration", i: 1, loss: 0.5, accuracy: 0.75 },
  { type: "iteration", i: 2, loss: 0.0132, accuracy: 1 },
  { type: "boundary", i: 2, grid: GRID, classes: [0, 1, 1, 0], confidence: [0.99, 0.98, 0.97, 0.96] },
  { type: "done", losses: [0.838159, 0.5, 0.0132], accuracy: 1, params: {}, dead_units: [] },
];
const fullRun = () => EVENTS.reduce(addTrainEvent, createRun());

test("the run folds the events: losses by iteration, boundaries, dead units, done", () => {
  const run = fullRun();
  assert.equal(arrived(run), 3);
  assert.deepEqual(run.losses, [0.838159, 0.5, 0.0132]);
  assert.equal(run.boundaries.length, 2);
  assert.deepEqual(run.dead, [{ node: "n7", name: "h", unit: 2, iteration: 0 }]);
  assert.equal(run.done.accuracy, 1);
});

test("the view at iteration k shows the losses up to k and the last boundary made by then", () => {
  const run = fullRun();
  const at1 = runView(run, 1);
  assert.equal(at1.iteration, 1);
  assert.deepEqual(at1.losses, [0.838159, 0.5]);
  assert.equal(at1.loss, 0.5);
  assert.equal(at1.accuracy, 0.75);
  assert.equal(at1.boundary.i, 0); // the one of iteration 2 is not made yet
  assert.equal(runView(run, 2).boundary.i, 2);
  assert.equal(runView(run, 99).iteration, 2); // clamped to what has arrived
  const before = runView(run, -1);
  assert.equal(before.iteration, -1);
  assert.deepEqual(before.losses, []);
  assert.equal(before.boundary, null);
  assert.deepEqual(before.dead, []);
});

test("a unit is dead from the iteration it died, not before", () => {
  const run = createRun();
  for (const ev of [EVENTS[0], EVENTS[1], EVENTS[4], { type: "dead", i: 1, node: "n7", name: "h", unit: 0 }]) addTrainEvent(run, ev);
  assert.deepEqual(runView(run, 0).dead, []);
  assert.deepEqual(runView(run, 1).dead.map((d) => d.unit), [0]);
  assert.equal(deadText(runView(run, 1).dead), "h: unit 0 dead (since iteration 1)");
  assert.equal(deadText([{ name: "h", unit: 0, iteration: 0 }, { name: "h", unit: 1, iteration: 0 }]), "h: units 0, 1 dead (since iteration 0)");
  assert.deepEqual(Object.keys(deadByNode(run.dead)), ["n7"]);
});

test("a unit of scalars keeps its relu on each sample: one line in the status, a mark on each", () => {
  // seed 003's XOR written with loops, seed 5 (engine/train/units.py): hid's unit 3 is the
  // relu n41 of sample 0, n120 of sample 1, ...
  const run = createRun();
  const nodes = ["n41", "n120", "n199", "n278"];
  for (const ev of [EVENTS[0], EVENTS[1], { type: "dead", i: 0, node: "n41", name: "hid", unit: 3, nodes }]) addTrainEvent(run, ev);
  const dead = runView(run, 0).dead;
  assert.deepEqual(dead, [{ node: "n41", name: "hid", unit: 3, iteration: 0, nodes }]);
  assert.deepEqual(Object.values(deadByNode(dead)).map(deadText), ["hid: unit 3 dead (since iteration 0)"]);
  const marks = deadMarks(dead);
  assert.deepEqual(Object.keys(marks), nodes);
  assert.deepEqual(Object.values(marks).map(deadText), Array(4).fill("hid: unit 3 dead (since iteration 0)"));
  // a tensor unit: marked on its own node alone
  assert.deepEqual(Object.keys(deadMarks([{ node: "n8", name: "h", unit: 3, iteration: 0 }])), ["n8"]);
});

test("the request: the store's settings, the bug only on the run beside its fix", () => {
  const state = { ...defaultState(), program: "a = 1.0\nL = a * a\n", train_steps: 300, train_lr: 0.5, train_bug: true };
  assert.deepEqual(trainRequest(state), {
    program: state.program, output: null, steps: 300, lr: 0.5, optimizer: "sgd", bugs: ["no_zero_grad"],
  });
  assert.deepEqual(trainRequest(state, { fixed: true }).bugs, []);
  // iteration 100 needs 101 steps, recorded
  const one = iterationRequest(state, 100);
  assert.equal(one.steps, 101);
  assert.deepEqual(one.record, [100]);
});

test("Train plays a run in about four seconds, at least one iteration a frame", () => {
  assert.equal(iterationsPerFrame(300), 2);
  assert.equal(iterationsPerFrame(3000), 13);
  assert.equal(iterationsPerFrame(10), 1);
});

test("losses read as the seed prints them", () => {
  assert.equal(formatLoss(0.013213), "0.0132");
  assert.equal(formatLoss(0.6931471805599453), "0.6931");
  assert.equal(formatLoss(0.00012), "1.20e-4");
  assert.equal(formatLoss(null), "–");
});

// ---------------------------------------------------------------- the stream

const sse = (type, data, id) => `event: ${type}\ndata: ${JSON.stringify(data)}\n${id === undefined ? "" : `id: ${id}\n`}\n`;

function answer(text, cut = 7) {
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    start(controller) {
      for (let at = 0; at < text.length; at += cut) controller.enqueue(encoder.encode(text.slice(at, at + cut)));
      controller.close();
    },
  });
  return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

test("the stream: every event in order, cut anywhere; done resolves", async () => {
  const seen = [];
  const done = await readTrainStream(answer(EVENTS.map((e, k) => sse(e.type, e, k)).join("")), { onEvent: (ev) => seen.push(ev.type) });
  assert.deepEqual(seen, EVENTS.map((e) => e.type));
  assert.deepEqual(done.losses, [0.838159, 0.5, 0.0132]);
});

test("an error event rejects with the server's error, naming the limit", async () => {
  const error = { kind: "too_large", message: "20,000 training steps is more than the server runs (the limit is 10,000, GRADWALK_MAX_TRAIN_STEPS)", line: null, col: null };
  await assert.rejects(readTrainStream(answer(sse("error", { error }))), (e) => e.name === "TraceError" && e.detail.kind === "too_large" && /GRADWALK_MAX_TRAIN_STEPS/.test(e.detail.message));
});

test("a stream cut before done rejects; a refused request rejects with its body", async () => {
  await assert.rejects(readTrainStream(answer(sse("start", EVENTS[0], 0))), (e) => e.detail.kind === "network");
  const refused = new Response(JSON.stringify({ error: { kind: "bad_request", message: "steps: Input should be greater than or equal to 1" } }), { status: 422, headers: { "Content-Type": "application/json" } });
  await assert.rejects(readTrainStream(refused), (e) => e.detail.kind === "bad_request" && /steps/.test(e.detail.message));
});

// ---------------------------------------------------------------- the plots' pure parts

test("the loss axis is logarithmic over a decade (a falling loss), else linear from 0", () => {
  const log = lossScale([0.838, 0.11, 0.0132], [100, 0]);
  assert.equal(typeof log.base, "function");
  assert.ok(log.domain()[0] <= 0.0132 && log.domain()[1] >= 0.838);
  const flat = lossScale([0.6931, 0.6931], [100, 0]);
  assert.equal(flat.base, undefined);
  assert.equal(flat.domain()[0], 0);
  assert.ok(flat(0.6931) < 100 && flat(0.6931) >= 0);
});

test("a cell's colour: pale when unsure, its class's colour when sure", () => {
  assert.equal(cellColour(0, 0.5, 2), "rgb(217, 234, 243)"); // 15% of #0072B2 over white
  assert.equal(cellColour(0, 1, 2), "rgb(102, 170, 209)"); // 60%
  assert.notEqual(cellColour(1, 1, 2), cellColour(0, 1, 2));
});

test("points fall in their grid cells; the formed boundary agrees with every label", () => {
  assert.deepEqual(cellOf(GRID, 0, 0), [0, 0]);
  assert.deepEqual(cellOf(GRID, 1, 0), [0, 1]);
  assert.deepEqual(cellOf(GRID, 0, 1), [1, 0]);
  assert.deepEqual(cellOf(GRID, 9, -9), [0, 1]); // clamped
  assert.equal(agreeing(EVENTS[6], XOR), 4);
  assert.equal(agreeing(EVENTS[3], XOR), 2); // all class 0: the two 0s agree
});

// ---------------------------------------------------------------- a recorded iteration

const ITERATION = [
  { seq: 0, kind: "evaluate", node: "n0", value: 0.5 },
  { seq: 1, kind: "evaluate", node: "n1", value: 0.25 },
  { seq: 2, kind: "zero_grad", nodes: ["n0"], narration: "zero_grad: W̄ = 0" },
  { seq: 3, kind: "seed", node: "n1", adjoint: 1 },
  { seq: 4, kind: "accumulate", node: "n1", input: "n0", arg: 0, contribution: 1, adjoint_before: 0, adjoint_after: 1 },
  { seq: 5, kind: "update", node: "n0", name: "W", value: 0, narration: "W -= 0.5 · W̄" },
  { seq: 6, kind: "done", output: { name: "L", node: "n1", value: 0.25 }, grads: { W: 1 } },
];

test("zero_grad sets the parameters' adjoints to 0; update gives a parameter its new value", () => {
  const timeline = createTimeline(ITERATION);
  const zero = timeline.at(3);
  assert.equal(zero.phase, "zero_grad");
  assert.deepEqual(zero.adjoints, { n0: 0 });
  const updated = timeline.at(6);
  assert.equal(updated.phase, "update");
  assert.equal(updated.values.n0, 0);
  assert.equal(timeline.at(5).values.n0, 0.5); // stepping back undoes the update
  assert.deepEqual(timeline.at(2).adjoints, {}); // and the zeroing
  assert.deepEqual([...timeline.touched(2, 3).nodes], ["n0"]); // the step restyles the zeroed boxes
  assert.deepEqual(focusOf(ITERATION[5]), { current: "n0" });
  assert.equal(narrate(ITERATION[5], {}), "W -= 0.5 · W̄");
  assert.equal(narrate(ITERATION[2], {}), "zero_grad: W̄ = 0");
});

test("zeroed gradients take their parameter's shape; with the bug nothing is zeroed", () => {
  const nodes = { n0: { shape: [] }, n1: { shape: [2] }, n2: { shape: [10, 10] }, n3: { shape: [2, 1] } };
  const ev = zeroedGrads({ kind: "zero_grad", nodes: ["n0", "n1", "n2", "n3"], zeroed: true }, nodes);
  assert.deepEqual(ev.adjoints.n3.data, [[0], [0]]); // nested, as the engine encodes a matrix
  assert.equal(ev.adjoints.n0, 0);
  assert.deepEqual(ev.adjoints.n1.data, [0, 0]);
  assert.deepEqual(ev.adjoints.n2.shape, [10, 10]);
  assert.equal(ev.adjoints.n2.data, null); // over the inline limit: its summary only
  const bug = { kind: "zero_grad", nodes: ["n1"], zeroed: false };
  assert.equal(zeroedGrads(bug, nodes), bug);
  assert.deepEqual(fold([zeroedGrads({ kind: "zero_grad", nodes: ["n1"], zeroed: true }, nodes)]).adjoints.n1.data, [0, 0]);
});

test("a recorded body steps as a stream would: zeros at zero_grad, the results at done", () => {
  const body = {
    graph: { nodes: [{ id: "n0", shape: [2] }, { id: "n1", shape: [] }], edges: [] },
    events: [{ seq: 0, kind: "zero_grad", nodes: ["n0"], zeroed: true }, { seq: 1, kind: "done" }],
    output: { name: "L", node: "n1", value: 0.1102 }, grads: { W: [1, 2] }, first_non_finite: null,
  };
  const ready = steppable(body);
  assert.deepEqual(ready.events[0].adjoints.n0.data, [0, 0]);
  assert.equal(ready.events[1].output.value, 0.1102);
  assert.deepEqual(ready.events[1].grads, { W: [1, 2] });
  assert.equal(body.events[0].adjoints, undefined); // the body itself is not changed
});

test("with no_zero_grad the piled-up adjoints stay, as the event carries them", () => {
  const kept = [ITERATION[0], { seq: 1, kind: "zero_grad", nodes: ["n0"], zeroed: false, adjoints: { n0: 0.75 } }];
  assert.deepEqual(fold(kept).adjoints, { n0: 0.75 });
  assert.deepEqual(fold([ITERATION[0], { ...kept[1], adjoints: undefined }]).adjoints, {});
});

// ---------------------------------------------------------------- links keep the train settings

test("a link keeps the train settings and the chosen iteration; bad values are dropped", () => {
  const state = { ...defaultState(), program: "a = 1.0\n", mode: "train", train_steps: 3000, train_lr: 1, train_optimizer: "adam", train_bug: true, train_iteration: 100, train_chosen: true };
  const { state: back, error } = decodeLink(`#${encodeLink(state)}`);
  assert.equal(error, null);
  for (const name of ["mode", "train_steps", "train_lr", "train_optimizer", "train_bug", "train_iteration", "train_chosen"]) {
    assert.equal(back[name], state[name], name);
  }
  const bad = linkState({ ...state, train_lr: -1, train_steps: 0, train_optimizer: "lbfgs" });
  assert.ok(!("train_lr" in bad) && !("train_steps" in bad) && !("train_optimizer" in bad));
  // an older link without them opens with the defaults, whatever this tab had
  const patch = openLink({ ...defaultState(), train_steps: 50 }, { v: 1, program: "a = 1.0\n" }, []);
  assert.equal(patch.train_steps, 300);
});
