// The timeline: what the page shows at step k is a pure fold of events[:k].
// No DOM and no d3, so `node --test` covers it. A live view steps forward by applying the
// next events and back by undoing them (undo records); a far jump starts again from the
// nearest snapshot, or from the fold of every event once the trace is complete (End).

/** The edge id ("n0->n3#0") an accumulate / unbroadcast event travels along, backwards. */
export function edgeIdOf(event) {
  return `${event.input}->${event.node}#${event.arg}`;
}

/**
 * Which nodes and edge `event` is about, for highlighting and for keeping them in view:
 * {current} for a forward value or the seed, {source, target, edge} for a backward edge.
 */
export function focusOf(event) {
  if (!event) return {};
  if (event.kind === "evaluate" || event.kind === "seed" || event.kind === "recompute"
      || event.kind === "tangent" || event.kind === "update") {
    return { current: event.node };
  }
  if (event.kind === "accumulate" || event.kind === "unbroadcast") {
    return { source: event.node, target: event.input, edge: edgeIdOf(event) };
  }
  return {};
}

/** The view before any event: nothing evaluated, no adjoints. */
export function emptyView() {
  return {
    step: 0,
    phase: "start", // start | forward | backward | done
    event: null, // the event that made this step (events[step - 1])
    values: {}, // node id -> value, once evaluated
    adjoints: {}, // node id -> adjoint, once it has one
    tangents: {}, // node id -> tangent (forward mode: value + tangent·ε)
    received: {}, // node id -> how many accumulate contributions it has had
    carried: {}, // edge id -> true once a gradient flowed back along it
    grads: null, // leaf name -> gradient, from the done event
  };
}

/** A copy deep enough that applying events to it leaves the original intact. */
function copyView(view) {
  return {
    ...view,
    values: { ...view.values },
    adjoints: { ...view.adjoints },
    tangents: { ...view.tangents },
    received: { ...view.received },
    carried: { ...view.carried },
  };
}

// One reducer per event kind; each mutates the working copy it is given.
const APPLY = {
  evaluate(view, ev) {
    view.phase = "forward";
    view.values[ev.node] = ev.value;
  },
  seed(view, ev) {
    view.phase = "backward";
    // The bug lab's second backward pass: these adjoints start again from nothing.
    for (const id of ev.reset ?? []) {
      delete view.adjoints[id];
      delete view.received[id];
    }
    view.adjoints[ev.node] = ev.adjoint;
  },
  unbroadcast(view) {
    // Only narrated: the adjoint changes with the accumulate event that follows.
    view.phase = "backward";
  },
  recompute(view, ev) {
    // A checkpointed value is evaluated again in the backward pass: the same number.
    view.phase = "backward";
    view.values[ev.node] = ev.value;
  },
  tangent(view, ev) {
    // Forward mode: the value and its tangent arrive together (a dual number).
    view.phase = "forward";
    view.values[ev.node] = ev.value;
    view.tangents[ev.node] = ev.tangent;
  },
  accumulate(view, ev) {
    view.phase = "backward";
    view.adjoints[ev.input] = ev.adjoint_after;
    view.received[ev.input] = (view.received[ev.input] || 0) + 1;
    view.carried[edgeIdOf(ev)] = true;
  },
  // A recorded training iteration (engine/train): zero_grad between the forward and the
  // backward pass sets the parameters' adjoints to 0, or, with the no_zero_grad bug, leaves
  // them as the last iteration left them (`adjoints`, when the event carries them); each
  // update after the backward pass gives a parameter its new value.
  zero_grad(view, ev) {
    view.phase = "zero_grad";
    for (const id of ev.nodes ?? []) {
      const kept = ev.adjoints?.[id];
      if (kept !== undefined) view.adjoints[id] = kept;
      else if (ev.zeroed !== false) view.adjoints[id] = 0;
    }
  },
  update(view, ev) {
    view.phase = "update";
    view.values[ev.node] = ev.value;
  },
  done(view, ev) {
    // a leaf the walk sent nothing to (a cut path, or unused) still has its gradient at
    // Done: the box shows what the narration says (walk.js withLeafAdjoints)
    if (view.phase === "backward" || view.phase === "update") {
      for (const [id, g] of leafAdjoints(view, ev)) view.adjoints[id] = g;
    }
    view.phase = "done";
    view.grads = ev.grads;
  },
};

/** [[leaf id, gradient]] of a done event's `leaf_grads` (walk.js) whose leaf has no adjoint. */
function leafAdjoints(view, ev) {
  return Object.entries(ev.leaf_grads ?? {}).filter(([id]) => !Object.hasOwn(view.adjoints, id));
}

// Undo records live in one flat array per live view (a stack, no allocation per event:
// 150,000 events recorded as objects cost a third of a second): for each entry an event
// overwrites, [map, key, had, value], then [count, phase, event, grads] of the event.

/** Push onto `log` what undoing a write of `view[map][key]` needs. */
function record(log, view, map, key) {
  const had = Object.hasOwn(view[map], key);
  log.push(map, key, had, had ? view[map][key] : undefined);
}

/** Apply `ev` to `view`, pushing onto `log` the entries it overwrites (APPLY above). */
function applyRecorded(view, ev, log) {
  let count = 0;
  switch (ev.kind) {
    case "evaluate": case "recompute":
      record(log, view, "values", ev.node);
      count = 1;
      break;
    case "tangent":
      record(log, view, "values", ev.node);
      record(log, view, "tangents", ev.node);
      count = 2;
      break;
    case "seed":
      record(log, view, "adjoints", ev.node);
      for (const id of ev.reset ?? []) {
        record(log, view, "adjoints", id);
        record(log, view, "received", id);
      }
      count = 1 + 2 * (ev.reset?.length ?? 0);
      break;
    case "accumulate":
      record(log, view, "adjoints", ev.input);
      record(log, view, "received", ev.input);
      record(log, view, "carried", edgeIdOf(ev));
      count = 3;
      break;
    case "zero_grad":
      for (const id of ev.nodes ?? []) record(log, view, "adjoints", id);
      count = ev.nodes?.length ?? 0;
      break;
    case "update":
      record(log, view, "values", ev.node);
      count = 1;
      break;
    case "done":
      if (view.phase !== "backward" && view.phase !== "update") break;
      for (const [id] of leafAdjoints(view, ev)) record(log, view, "adjoints", id);
      count = leafAdjoints(view, ev).length;
      break;
    default:
  }
  log.push(count, view.phase, view.event, view.grads);
  applyEvent(view, ev);
}

/** Undo the last event applyRecorded applied to `view` with `log`: one step back. */
function undoEvent(view, log) {
  view.grads = log.pop();
  view.event = log.pop();
  view.phase = log.pop();
  // entries are popped last first: a key written twice by one event gets its first value back
  for (let n = log.pop(); n > 0; n--) {
    const value = log.pop();
    const had = log.pop();
    const key = log.pop();
    const map = log.pop();
    if (had) view[map][key] = value;
    else delete view[map][key];
  }
  view.step -= 1;
}

/** Move the live `view` to `step` with its `log` (undoing back, applying forward). */
function moveTo(view, log, list, step) {
  while (view.step > step) undoEvent(view, log);
  for (let i = view.step; i < step; i++) applyRecorded(view, list[i], log);
  return view;
}

function applyEvent(view, ev) {
  const apply = APPLY[ev.kind];
  if (apply) apply(view, ev); // unknown kinds (e.g. a newer engine) only advance the step
  view.step += 1;
  view.event = ev;
}

/** Fold `events` into a fresh view: the reference semantics that `at` must match. */
export function fold(events) {
  const view = emptyView();
  for (const ev of events) applyEvent(view, ev);
  return view;
}

// The snapshots together hold at most this many entries (values, adjoints, counts, edges):
// a 100,000-node trace keeps a few dozen copies, not one every 64 events (which grew as the
// square of the trace and crashed the tab at 30,000 lines).
export const SNAPSHOT_BUDGET = 2_000_000;

// No snapshot is copied from a view past this many entries by the bound 3 × step (about
// 20,000 real entries on a chain, tens of milliseconds in Chromium).
export const COPY_LIMIT = 60_000;

// An event adds at most three entries (an accumulate: adjoint, count, edge), so 3 × step
// bounds a view's entries without counting its keys (Object.keys of a 50,000-key object at
// every snapshot cost most of a second on a 50,000-line trace).
const entries = (view) => 3 * view.step;

/**
 * A timeline over `events`, which may still grow (the stream appends with `push`):
 * `at(k)` is the view after events[:k] (k clamped to 0..length), a copy of its own.
 * Snapshots keep `at` cheap: one every `every` events when `every` is given; by default
 * one once max(64, length / `divisor`) events have passed since the last, so copying them
 * costs about `divisor` + 1 times the trace's length in all (a copy every 64 events grew as
 * the square of the trace and crashed the tab at 30,000 lines; a divisor of 16 still spent
 * seconds copying a 50,000-line trace while it streamed), and seeking replays at most
 * 1 / divisor of it. Past `budget` entries in all, every other snapshot goes and
 * the divisor halves. `view(k)` is the same view without the copy, for stepping: it
 * applies only the events between the last step shown and k when k is ahead (forward
 * steps cost what the event changes), and it is overwritten by the next call.
 */
export function createTimeline(events = [], { every, budget = SNAPSHOT_BUDGET, divisor = 4, copyLimit = COPY_LIMIT } = {}) {
  let snapshots = [emptyView()];
  let held = 0; // entries in snapshots
  // The fold of every event pushed so far, with the undo records of all of them: once the
  // done event is in (`sealed`) it is a second live view, which End reaches at no cost and
  // from which a step back undoes one event (a 150,000-event trace replayed 130,000 events
  // from its last snapshot: a third of a second).
  const working = emptyView();
  const workLog = [];
  let sealed = false;
  const list = [];
  let cursor = null; // the live view handed out by view(k), from a snapshot
  let undo = []; // the cursor's undo records (applyRecorded), for events undoFrom..cursor.step
  let undoFrom = 0;

  // Past copyLimit entries a copy is a long task (about 3 µs an entry in Chromium): no more
  // snapshots; the live view then steps back by undoing events (view), not by copying.
  const due = () => entries(working) <= copyLimit && list.length - snapshots.at(-1).step
    >= (every ?? Math.max(64, Math.floor(list.length / divisor)));

  function push(ev) {
    moveTo(working, workLog, list, list.length); // back to the end, if view(k) moved it
    list.push(ev);
    applyRecorded(working, ev, workLog);
    if (ev.kind === "done") sealed = true;
    if (!due()) return;
    snapshots.push(copyView(working));
    held += entries(working);
    if (every !== undefined || held <= budget || snapshots.length < 3) return;
    // Too many copies: keep every other one (the first always), further apart from now on.
    snapshots = snapshots.filter((_, i) => i % 2 === 0);
    divisor = Math.max(1, divisor / 2);
    held = snapshots.reduce((sum, v) => sum + entries(v), 0);
  }

  const clamp = (k) => Math.max(0, Math.min(list.length, Math.trunc(k) || 0));

  /** The last snapshot at or before `step` (binary search: their steps increase). */
  function snapshotBefore(step) {
    let lo = 0;
    let hi = snapshots.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (snapshots[mid].step <= step) lo = mid;
      else hi = mid - 1;
    }
    return snapshots[lo];
  }

  function at(k) {
    const step = clamp(k);
    const base = snapshotBefore(step);
    const view = copyView(base);
    for (let i = base.step; i < step; i++) applyEvent(view, list[i]);
    return view;
  }

  function view(k) {
    const step = clamp(k);
    const near = snapshotBefore(step).step;
    // From the live view, forward by applying events and back by undoing them, unless a
    // snapshot is much nearer: copying one costs about twice as much per entry (about
    // `near` of them) as applying an event, so a step across a snapshot never copies it
    // (that made a long task at every snapshot while playing), and a step back at the end of
    // a 50,000-line trace undoes one event instead of replaying thousands.
    const rebuild = 2 * near + 256 + (step - near);
    const undoable = cursor && step < cursor.step && step >= undoFrom && cursor.step - step <= rebuild;
    const ahead = cursor && step >= cursor.step && step - cursor.step <= rebuild;
    const cost = undoable || ahead ? Math.abs(cursor.step - step) : rebuild;
    // The whole fold, once no event will be pushed: End costs nothing, a step back one undo.
    // It is kept near the end (used when it costs under half the other way), where End is free.
    if (sealed && 2 * Math.abs(working.step - step) <= cost) return moveTo(working, workLog, list, step);
    if (!undoable && !ahead) { // from the nearest snapshot, recording: back to it by undo
      cursor = copyView(snapshotBefore(step));
      undo = [];
      undoFrom = cursor.step;
    }
    return moveTo(cursor, undo, list, step);
  }

  /**
   * What the events between steps `a` and `b` (either order) change: {nodes, edges} (sets
   * of ids), or null when that is more than `limit` events (then restyle everything).
   */
  function touched(a, b, limit = 256) {
    const [lo, hi] = [clamp(Math.min(a, b)), clamp(Math.max(a, b))];
    if (hi - lo > limit) return null;
    const nodes = new Set();
    const edges = new Set();
    for (let i = lo; i < hi; i++) {
      const ev = list[i];
      if (ev.kind === "accumulate" || ev.kind === "unbroadcast") {
        nodes.add(ev.input).add(ev.node);
        edges.add(edgeIdOf(ev));
      } else if (ev.node !== undefined) nodes.add(ev.node);
      for (const id of ev.reset ?? []) nodes.add(id); // the bug lab's second pass
      if (ev.kind === "zero_grad") for (const id of ev.nodes ?? []) nodes.add(id); // training's
    }
    return { nodes, edges };
  }

  events.forEach(push);
  return {
    get length() { return list.length; },
    get snapshots() { return snapshots; },
    events: list,
    push,
    at,
    view,
    touched,
  };
}
