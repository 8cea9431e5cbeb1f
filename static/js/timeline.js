// The timeline: what the page shows at step k is a pure fold of events[:k].
// No DOM and no d3, so `node --test` covers it. Stepping back or scrubbing never undoes
// anything: it replays from the nearest snapshot (one every `every` events).

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
  if (event.kind === "evaluate" || event.kind === "seed" || event.kind === "recompute") {
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

/**
 * A timeline over `events`: `at(k)` is the view after events[:k] (k clamped to
 * 0..length). Snapshots every `every` events keep `at` cheap for long traces.
 */
export function createTimeline(events, { every = 64 } = {}) {
  const snapshots = [emptyView()];
  const working = emptyView();
  events.forEach((ev, i) => {
    applyEvent(working, ev);
    if ((i + 1) % every === 0) snapshots.push(copyView(working));
  });

  function at(k) {
    const step = Math.max(0, Math.min(events.length, Math.trunc(k) || 0));
    const base = snapshots[Math.floor(step / every)];
    const view = copyView(base);
    for (let i = base.step; i < step; i++) applyEvent(view, events[i]);
    return view;
  }

  return { length: events.length, every, snapshots, at };
}
