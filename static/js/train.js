// Training on the page (issue 15 §3): the request, the stream's events folded into a run, and
// the view of a run at one iteration. No DOM and no d3, so `node --test` covers it with
// hand-made events (the shapes of docs/trace-format.md, "Training").
//
// The stream (POST /api/train/stream) arrives far faster than a room can watch it (300 XOR
// iterations in a fraction of a second), so the page keeps every event in the run and shows
// the run up to a cursor, the iteration shown: Train moves the cursor on a few iterations a
// frame, Pause stops it, Step moves it by one. What is drawn at iteration k is a pure fold of
// the events up to k (runView), as the walk's step k is of events[:k].
//
//   start      {steps, params, data: {X, y} | null, classes}
//   iteration  {i, loss, accuracy}            one per iteration, in order
//   boundary   {i, grid: {x0, x1, y0, y1, nx, ny}, classes, confidence}   2-D inputs only
//   dead       {i, node, name, unit}          a unit dead for every sample from iteration i
//   diverged   {i, why}                       once: iteration i's loss or update is not finite
//   recorded   {i, trace}                     a whole trace body of iteration i
//   done       {losses, accuracy, params, dead_units}
//   error      {error: {kind, message, ...}}  rejects, as a 422 would

import { TraceError } from "./api.js";
import { MAX_LR, MAX_TRAIN_STEPS } from "./train-rules.js";
import { readEvents } from "./stream.js";
export { OPTIMIZERS } from "./state.js";

export const MAX_STEPS = MAX_TRAIN_STEPS; // the server's default GRADWALK_MAX_TRAIN_STEPS
export { MAX_LR };
const BUG = "no_zero_grad"; // the bug lab's one switch in training

/**
 * The request body of a training run for the page's state (state.js: train_steps, train_lr,
 * train_optimizer, train_bug) and program: {program, output, steps, lr, optimizer, bugs}.
 * `fixed`: the run beside a buggy one, without the bug (the fix drawn next to it).
 */
export function trainRequest(state, { fixed = false, record = [] } = {}) {
  const body = {
    program: state.program, output: state.output || null, steps: state.train_steps,
    lr: state.train_lr, optimizer: state.train_optimizer, bugs: [],
  };
  if (state.train_bug && !fixed) body.bugs = [BUG];
  if (record.length) body.record = record;
  return body;
}

/**
 * The request that records iteration `k` of the run `state` describes: only k + 1 steps are
 * needed, since iteration k's numbers do not depend on the later ones.
 */
export function iterationRequest(state, k) {
  return { ...trainRequest(state, { record: [k] }), steps: k + 1 };
}

// ---------------------------------------------------------------- the run: a fold of events

/** An empty run, before its start event. */
export function createRun() {
  return {
    start: null, losses: [], accuracy: [], boundaries: [], dead: [], recorded: {}, diverged: null, done: null,
  };
}

/** Add one stream event to `run` (in place); returns the run. Unknown types are kept out. */
export function addTrainEvent(run, ev) {
  switch (ev.type) {
    case "start": run.start = ev; break;
    case "iteration":
      run.losses[ev.i] = ev.loss;
      run.accuracy[ev.i] = ev.accuracy ?? null;
      break;
    case "boundary": run.boundaries.push(ev); break;
    case "dead": {
      // a unit of scalars is a relu node on each sample: `nodes` (engine/train/units.py)
      const d = { node: ev.node, name: ev.name, unit: ev.unit, iteration: ev.i };
      run.dead.push(ev.nodes ? { ...d, nodes: ev.nodes } : d);
      break;
    }
    case "recorded": run.recorded[ev.i] = ev.trace; break;
    case "diverged": run.diverged ??= { i: ev.i, why: ev.why }; break;
    case "done": run.done = ev; break;
    default: break;
  }
  return run;
}

/** How many iterations of `run` have arrived (the cursor's range is 0 .. arrived - 1). */
export function arrived(run) {
  return run.losses.length;
}

/**
 * What the page shows of `run` at iteration `k` (clamped to what has arrived): {iteration,
 * losses (0..k), loss, accuracy, boundary (the last one made at or before k, or null), dead
 * (the units dead by k), diverged ({i, why} once k reached the iteration the run diverged
 * at, else null), steps}. `iteration` is -1 before any has arrived.
 */
export function runView(run, k) {
  const last = arrived(run) - 1;
  const at = Math.max(-1, Math.min(k, last));
  let boundary = null;
  for (const b of run.boundaries) if (b.i <= at) boundary = b;
  return {
    iteration: at,
    steps: run.start?.steps ?? 0,
    losses: run.losses.slice(0, at + 1),
    loss: at >= 0 ? run.losses[at] : null,
    accuracy: at >= 0 ? run.accuracy[at] : null,
    boundary,
    // the model's own accuracy at the boundary's iteration: the canvas's label says it
    boundaryAccuracy: boundary ? (run.accuracy[boundary.i] ?? null) : null,
    dead: run.dead.filter((d) => d.iteration <= at),
    diverged: run.diverged && run.diverged.i <= at ? run.diverged : null,
    data: run.start?.data ?? null,
    classes: run.start?.classes ?? null,
  };
}

/**
 * How many iterations Train moves on per frame so that a run of `steps` plays in about
 * `seconds` at 60 frames a second, at least one.
 */
export function iterationsPerFrame(steps, seconds = 4) {
  return Math.max(1, Math.ceil(steps / (60 * seconds)));
}

/**
 * A regression's outputs at the data points beside their targets, from a boundary event
 * with `outputs` and the start event's data: "outputs (-0.98, 0.97, 0.97, -0.96) → targets
 * (-1, 1, 1, -1)"; "" for a classifier or more than 8 points (too many to read out).
 */
export function outputsText(boundary, data) {
  const out = boundary?.outputs;
  if (!out || !data || out.length > 8) return "";
  const two = (v) => (typeof v === "number" ? v.toFixed(2) : String(v));
  return `outputs (${out.map(two).join(", ")}) → targets (${data.y.map(String).join(", ")})`;
}

/** What the page says of a run that diverged ({i, why}, the stream's event). */
export function divergedText(diverged) {
  return `Diverged at iteration ${diverged.i}: ${diverged.why}. Training stopped there.`;
}

/** The loss shown to a room: 4 decimals as the seed prints it (0.0132), more when smaller. */
export function formatLoss(loss) {
  if (loss === null || loss === undefined) return "–";
  if (!Number.isFinite(loss)) return String(loss);
  if (loss !== 0 && Math.abs(loss) < 1e-3) return loss.toExponential(2);
  return loss.toFixed(4);
}

/**
 * What the status line and a dead unit's node say of `dead` ([{name, unit, iteration}]):
 * "h: unit 2 dead (since iteration 0)", "h: units 0, 1 dead (since iteration 0)", and when
 * the units died at different iterations, each with its own: "h: units 32 (since iteration
 * 3), 36 (since iteration 16), 40 (since iteration 32) dead".
 */
export function deadText(dead) {
  const name = [...new Set(dead.map((d) => d.name))].join(", ");
  const units = [...dead].sort((a, b) => a.unit - b.unit);
  const since = new Set(units.map((d) => d.iteration));
  const plural = units.length === 1 ? "unit" : "units";
  if (since.size === 1) return `${name}: ${plural} ${units.map((d) => d.unit).join(", ")} dead (since iteration ${units[0].iteration})`;
  return `${name}: ${plural} ${units.map((d) => `${d.unit} (since iteration ${d.iteration})`).join(", ")} dead`;
}

/**
 * "0–300": the numbers of a run of `steps` iterations, counted from 0 (each iteration is one
 * loss and one update: forward, zero_grad, backward, update). The Iterations box's note and
 * the status line both say it, so that "301" and "iteration 300" read as one run.
 */
export function iterationRange(steps) {
  return `0–${Math.max(0, steps - 1)}`;
}

/**
 * "iteration 300 of 0–300": iterations count from 0, so a run of `steps` steps ends at
 * steps - 1 ("of 301" read as off by one).
 */
export function iterationText(k, steps) {
  return `iteration ${k} of ${iterationRange(steps)}`;
}

/**
 * The narration of a step of a training iteration's pass: which iteration the player is
 * stepping. `starting`: the program's own walk (its weights as written, before any update),
 * which is iteration 0's forward and backward pass.
 */
export function iterationNarration(k, text, { starting = false } = {}) {
  return `Iteration ${k}${starting ? " (the starting weights)" : ""}: ${text}`;
}

/** "iteration 0 (the starting weights)", "iteration 300": a pass named as the page says it. */
function passName(k) {
  return k === 0 ? "iteration 0 (the starting weights)" : `iteration ${k}`;
}

/**
 * Which recorded walk iteration `k` of the run `state` describes is: its request (the run's
 * length left out, which iteration k does not depend on). Two walks with the same key step the
 * same numbers; the graph's walk is the chosen iteration's only while its key is this one.
 */
export function iterationKey(state, k) {
  return JSON.stringify(iterationRequest(state, k));
}

/**
 * What the Train panel says of the pass the graph draws, beside the slider (a reviewer read
 * "iteration 300" in the status line while the graph stepped the starting weights). `drawn`:
 * {iteration: the iteration whose numbers the graph shows, or null (no walk); starting: true
 * for the program's own walk (iteration 0's forward and backward, without zero_grad and the
 * update); loading: an iteration being fetched, or null; former: the walk is of settings the
 * panel no longer has (another learning rate: the same iteration, other numbers)}. `chosen`:
 * the iteration the slider reads. Returns {text, button, title}: the line (short: it shares
 * the slider's row), the label of the button that draws `chosen`, and the line's longer
 * account (its tooltip).
 */
export function drawnText({ iteration = null, starting = false, loading = null, former = false } = {}, chosen = 0) {
  const button = `Step iteration ${chosen}`;
  const parts = starting ? "its forward and backward pass, before any update"
    : "its forward, zero_grad, backward and update, with that iteration's numbers";
  const title = iteration === null ? "" : `The graph steps ${passName(iteration)}: ${parts}.`;
  if (loading !== null) {
    const still = iteration === null ? "" : ` the graph still shows ${passName(iteration)}`;
    return { text: `Loading iteration ${loading}…${still}`, button, title };
  }
  if (iteration === null) return { text: "", button, title };
  const shows = `The graph shows ${passName(iteration)}${former ? " of the former settings" : ""}`;
  return { text: iteration === chosen ? shows : `${shows}, not ${chosen}`, button, title };
}

/**
 * A dead tag's `deadText` split for drawing: {head, tail}, the head naming every unit ("h: units
 * 32, 36, 40 dead"), the tail their iterations (" (since iterations 3, 16, 32)"), which the tag
 * may leave to its tooltip. (Cut at the first "(since" the head was "h: units 32": a review
 * of livefix14.)
 */
export function deadTagParts(text) {
  const since = / \(since iteration (\d+)\)/g;
  const iterations = [...text.matchAll(since)].map((m) => m[1]);
  const head = text.replace(since, "");
  if (!iterations.length) return { head, tail: "" };
  const tail = iterations.length === 1 ? ` (since iteration ${iterations[0]})` : ` (since iterations ${iterations.join(", ")})`;
  return { head, tail };
}

/**
 * Dead units grouped by the node that reports them: {n7: [{node, name, unit, iteration},
 * ...]} (a unit of scalars by its first relu: one entry in the status line).
 */
export function deadByNode(dead) {
  const out = {};
  for (const d of dead) (out[d.node] ??= []).push(d);
  return out;
}

/**
 * Dead units grouped by the nodes that are marked dead on the graph: as deadByNode, and a
 * unit of a program written with scalars under each of its `nodes` (its relu on each sample,
 * engine/train/units.py), so every sample's relu carries the mark.
 */
export function deadMarks(dead) {
  const out = {};
  for (const d of dead) for (const id of d.nodes ?? [d.node]) (out[id] ??= []).push(d);
  return out;
}

/**
 * A recorded iteration's `zero_grad` event with the zeroed adjoints it sets, each of its
 * parameter's shape (encoded as the trace encodes values: a number, or {shape, dtype,
 * summary, data} with data nested lists, null over `inline` elements), so each box shows 0 where its
 * gradient will pile up. With the no_zero_grad bug (zeroed false) it is returned as it is.
 * `nodesById`: the graph's nodes by id (their `shape`).
 */
export function zeroedGrads(ev, nodesById, inline = 64) {
  if (ev.kind !== "zero_grad" || ev.zeroed === false || ev.adjoints) return ev;
  const zeros = (shape) => {
    if (!shape?.length) return 0;
    const size = shape.reduce((a, b) => a * b, 1);
    const nested = (dims) => (dims.length ? Array.from({ length: dims[0] }, () => nested(dims.slice(1))) : 0);
    return {
      shape, dtype: "float64", summary: { min: 0, max: 0, mean: 0, norm: 0 },
      data: size <= inline ? nested(shape) : null,
    };
  };
  return { ...ev, adjoints: Object.fromEntries(ev.nodes.map((id) => [id, zeros(nodesById[id]?.shape)])) };
}

// ---------------------------------------------------------------- the stream

/**
 * Read a training stream `response` (a fetch Response of POST /api/train/stream) to its end,
 * calling `onEvent(ev)` for each event in order. Resolves with the done event; rejects with
 * a TraceError (an `error` event, a stream cut before done, a refused request) or with the
 * AbortError of the request's signal.
 */
export function readTrainStream(response, { onEvent } = {}) {
  return readEvents(response, {
    what: "training",
    onMessage(_, data) {
      onEvent?.(data);
      return data.type === "done" ? data : null;
    },
  });
}

/** POST `body` to `url` as JSON; a fetch that found no server is a TraceError "network". */
async function post(url, body, { signal, accept }) {
  try {
    return await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json", Accept: accept },
      body: JSON.stringify(body), signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new TraceError({ kind: "network", message: `could not reach the server (${error.message})` });
  }
}

/** Stream a training run (POST /api/train/stream); resolves and rejects as readTrainStream. */
export async function streamTraining(body, { signal, onEvent } = {}) {
  const response = await post("/api/train/stream", body, { signal, accept: "text/event-stream" });
  return readTrainStream(response, { onEvent });
}

/** POST /api/train with `body`: the JSON answer (engine/train train). Rejects with TraceError. */
async function trainAnswer(body, signal) {
  const response = await post("/api/train", body, { signal, accept: "application/json" });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new TraceError(answer?.error ?? { kind: `http ${response.status}`, message: `the server answered ${response.status}` });
  if (!Array.isArray(answer?.losses)) throw new TraceError({ kind: "bad_response", message: "the answer has no losses" });
  return answer;
}

/**
 * The whole run `state` describes (POST /api/train, nothing recorded): {losses, boundary
 * (the last, or null), data, classes, ...} for a loss curve and a boundary drawn once (the
 * embed). Rejects with TraceError.
 */
export function fetchRun(state, { signal } = {}) {
  return trainAnswer(trainRequest(state), signal);
}

/**
 * Iteration `k` of the run `state` describes, recorded (POST /api/train): its trace body, a
 * walk the player steps (forward, zero_grad, backward, update), made `steppable`, with
 * `run`: the answer's run up to k (losses 0..k, the boundary after update k, data, classes).
 * Rejects with TraceError.
 */
export async function fetchIteration(state, k, { signal } = {}) {
  const { recorded, ...run } = await trainAnswer(iterationRequest(state, k), signal);
  const trace = recorded?.[k] ?? recorded?.[String(k)];
  if (!trace?.graph || !Array.isArray(trace.events)) throw new TraceError({ kind: "bad_response", message: `the answer has no iteration ${k}` });
  return { ...steppable(trace), run };
}

/**
 * A recorded iteration's body made ready to step, as a stream's events would be: each
 * zero_grad event with the zeros it sets (zeroedGrads), and the done event with the body's
 * results (output, grads, first_non_finite), which a body sends once at its top level.
 */
export function steppable(trace) {
  const nodesById = Object.fromEntries(trace.graph.nodes.map((n) => [n.id, n]));
  const { output, grads, first_non_finite: nonFinite } = trace;
  const events = trace.events.map((ev) => (ev.kind === "done"
    ? { output, grads, first_non_finite: nonFinite, ...ev } : zeroedGrads(ev, nodesById)));
  return { ...trace, events };
}
