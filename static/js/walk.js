// A walk on screen, shared by the explorer (main.js) and the embed (embed.js): a trace
// prepared once (layout, timeline), the graph panel that draws it and shows one step, the
// play loop over the page's store, the player's keys, and the hook exports use to read
// what is on screen. Everything takes its root elements; nothing looks up global ids.

import { planLayout } from "./layout.js";
import { undrawnMessage } from "./narration.js";
import { clearGraph, drawGraph, showView } from "./render/graph.js";
import { createZoom } from "./render/zoom.js";
import { linkState } from "./state.js";
import { nonFiniteOf } from "./tensors.js";
import { createTimeline } from "./timeline.js";
import { boxOf, contentBox, stepBox } from "./viewport.js";

// ---------------------------------------------------------------- a trace, prepared once

/**
 * What is derived once per trace `result` (the body of POST /api/trace) of `program`:
 * {trace, program, timeline, plan, layout (null when too big to draw), nodesById}.
 */
export function prepareWalk(result, program) {
  const plan = planLayout(result.graph, result.events);
  return {
    trace: result,
    program,
    timeline: createTimeline(result.events),
    plan,
    layout: plan.layout,
    nodesById: Object.fromEntries(result.graph.nodes.map((n) => [n.id, n])),
    nonFinite: nonFiniteOf(result), // {node, phase, why, step} or null
  };
}

/** The span in the program of what `view`'s event is about, or null. */
export function stepSpan(walk, view) {
  const id = view.event?.node ?? view.event?.output?.node;
  return walk.nodesById[id]?.span ?? null;
}

// ---------------------------------------------------------------- the graph panel

/**
 * The graph of a walk in the <svg> `svg`, with its camera; `message` (an element) says why
 * a graph too big to draw is not drawn. `onHover(node | null, {pin})` as in drawGraph.
 */
export function createGraphPanel(svg, { message, onHover } = {}) {
  const zoom = createZoom(svg);
  // The first non-finite number, named with why, once the walk reaches it (one line).
  const note = svg.ownerDocument.createElement("p");
  note.className = "nonfinite-note";
  note.setAttribute("role", "status");
  note.hidden = true;
  svg.parentNode?.append(note);
  return {
    zoom,
    /** Draw `walk` once (or say why not); returns "drawn" or the plan's reason. */
    draw(walk) {
      if (message) message.hidden = Boolean(walk.layout);
      if (walk.layout) {
        drawGraph(svg, walk.layout, { outputId: walk.trace.output?.node, onHover });
        zoom.show(contentBox(walk.layout), boxOf(walk.layout, [walk.trace.output?.node]));
        return "drawn";
      }
      clearGraph(svg);
      zoom.clear();
      if (message) message.textContent = undrawnMessage(walk.plan, walk.trace);
      return walk.plan.reason;
    },
    /** Show `view` (walk.timeline.at(k)) and keep its nodes in view. */
    show(walk, view, { animate = false, duration = 700 } = {}) {
      const bad = walk.nonFinite;
      note.hidden = !(bad && view.step >= bad.step);
      if (!note.hidden) {
        const what = bad.phase === "forward" ? "value" : "gradient";
        note.textContent = `⚠ ${walk.nodesById[bad.node]?.label ?? bad.node}: first non-finite ${what}. ${bad.why ?? ""}`;
        note.dataset.node = bad.node;
      }
      if (!walk.layout) return;
      showView(svg, walk.layout, view, { animate, duration, nonFinite: bad });
      zoom.reveal(stepBox(walk.layout, view.event)); // the step's node and its callout
    },
  };
}

// ---------------------------------------------------------------- the play loop

/**
 * The player's actions over `store` (a state.js store with step, playing and speed):
 * reset, back, forward, end, seek(step), togglePlay, speed(eventsPerSecond), play, pause.
 * `total()` is the number of steps of the walk shown; `steppable()` false stops them all
 * (the explorer after an error). Playing ticks once every 1 / speed seconds.
 */
export function createPlayback(store, { total, steppable = () => true }) {
  let timer = null;
  const duration = () => 1000 / store.get().speed;
  const seek = (step) => store.set({ step: Math.max(0, Math.min(total(), step)) });

  function tick() {
    const { step, playing } = store.get();
    if (!playing) return;
    if (!steppable() || step >= total()) return store.set({ playing: false });
    seek(step + 1);
    if (store.get().step >= total()) store.set({ playing: false });
    else timer = setTimeout(tick, duration());
  }

  store.subscribe((state, before) => {
    if (state.playing === before.playing) return;
    clearTimeout(timer);
    timer = state.playing ? setTimeout(tick, duration()) : null;
  });

  function play(on) {
    if (on && store.get().step >= total()) seek(0); // play again from the start
    store.set({ playing: on });
  }

  /** `fn` only while the walk shown can be stepped. */
  const when = (fn) => (...args) => (steppable() ? fn(...args) : undefined);
  const stop = () => store.set({ playing: false });
  return {
    stepDuration: duration,
    actions: {
      reset: when(() => store.set({ step: 0, playing: false })),
      back: when(() => { stop(); seek(store.get().step - 1); }),
      forward: when(() => { stop(); seek(store.get().step + 1); }),
      end: when(() => store.set({ step: total(), playing: false })),
      seek: when((step) => { stop(); seek(step); }),
      togglePlay: when(() => play(!store.get().playing)),
      play: when(() => play(true)),
      pause: when(stop),
      speed: (speed) => store.set({ speed }),
    },
  };
}

/**
 * The player's keys: key -> action. Presenter clickers send PageDown / PageUp (or the
 * arrows), so those step too.
 */
export const PLAYER_KEYS = {
  ArrowRight: "forward", ArrowLeft: "back", PageDown: "forward", PageUp: "back",
  " ": "togglePlay", Home: "reset", End: "end",
};

// ---------------------------------------------------------------- the walk on screen, for exports

let source = null;

/** The page tells which walk it shows: `fn()` -> {svg, walk, state} (walk may be null). */
export function provideWalk(fn) {
  source = fn;
}

/**
 * The walk on screen, for exports (SVG, PNG, video, standalone HTML): {svg (the <svg>
 * element), trace (the body of POST /api/trace, or null before the first trace), state
 * (the contract's state object, linkState), step (events applied), walk (prepareWalk's
 * object for that trace, or null)}; null on a page that
 * shows no walk.
 */
export function currentWalk() {
  const now = source?.();
  if (!now) return null;
  return {
    svg: now.svg, trace: now.walk?.trace ?? null, state: linkState(now.state), step: now.state.step,
    walk: now.walk ?? null, // prepareWalk's object (layout, timeline, the program traced)
  };
}
