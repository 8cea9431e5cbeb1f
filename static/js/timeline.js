// The timeline: what the page shows at step k is a pure fold of events[:k].
// No DOM and no d3, so `node --test` covers it. Stepping back or scrubbing never undoes
// anything: it replays from the nearest snapshot (one every `every` events); stepping
// forward applies only the next event.

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
      || event.kind === "tangent") {
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
  done(view, ev) {
    view.phase = "done";
    view.grads = ev.grads;
  },
};

/** The [map, key] entries `ev` writes in a view (APPLY above), for undoing it. */
function writes(ev) {
  switch (ev.kind) {
    case "evaluate": case "recompute": return [["values", ev.node]];
    case "tangent": return [["values", ev.node], ["tangents", ev.node]];
    case "seed": return [["adjoints", ev.node],
      ...(ev.reset ?? []).flatMap((id) => [["adjoints", id], ["received", id]])];
    case "accumulate": return [["adjoints", ev.input], ["received", ev.input], ["carried", edgeIdOf(ev)]];
    default: return [];
  }
}

/** Apply `ev` to `view` and return what undoing it needs: the entries it overwrote. */
function applyRecorded(view, ev) {
  const before = { phase: view.phase, event: view.event, grads: view.grads,
    entries: writes(ev).map(([map, key]) => [map, key, Object.hasOwn(view[map], key), view[map][key]]) };
  applyEvent(view, ev);
  return before;
}

/** Undo the event that `before` (applyRecorded's answer) recorded: one step back. */
function undoEvent(view, before) {
  for (let i = before.entries.length - 1; i >= 0; i--) {
    const [map, key, had, value] = before.entries[i];
    if (had) view[map][key] = value;
    else delete view[map][key];
  }
  Object.assign(view, { phase: before.phase, event: before.event, grads: before.grads });
  view.step -= 1;
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
  const working = emptyView(); // the fold of every event pushed so far
  const list = [];
  let cursor = null; // the live view handed out by view(k)
  let undo = []; // undo[i]: what undoing event `undoFrom + i` on the cursor needs
  let undoFrom = 0;

  // Past copyLimit entries a copy is a long task (about 3 µs an entry in Chromium): no more
  // snapshots; the live view then steps back by undoing events (view), not by copying.
  const due = () => entries(working) <= copyLimit && list.length - snapshots.at(-1).step
    >= (every ?? Math.max(64, Math.floor(list.length / divisor)));

  function push(ev) {
    list.push(ev);
    applyEvent(working, ev);
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
    if (!undoable && !ahead) { // from the nearest snapshot, recording: back to it by undo
      cursor = copyView(snapshotBefore(step));
      undo = [];
      undoFrom = cursor.step;
    }
    while (cursor.step > step) undoEvent(cursor, undo.pop());
    for (let i = cursor.step; i < step; i++) undo.push(applyRecorded(cursor, list[i]));
    return cursor;
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
