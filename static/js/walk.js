// A walk on screen, shared by the explorer (main.js) and the embed (embed.js): a trace
// prepared once (layout, timeline), the graph panel that draws it and shows one step, the
// play loop over the page's store, the player's keys, and the hook exports use to read
// what is on screen. Everything takes its root elements; nothing looks up global ids.

import {
  ancestorsOf, closeGroup, createGroupStateSteps, GROUP_ABOVE, groupedGraphSteps, groupsOfNode, openGroup, revealNode,
} from "./groups.js";
import { nodeBoxes } from "./clearance.js";
import { searchKeysOf, sinkOf } from "./graphwalk.js";
import { finish } from "./slices.js";
import { LAYOUT_BUDGET_MS, planLayout, predictPlan } from "./layout.js";
import { undrawnMessage } from "./narration.js";
import { clearGraph, drawGraph, drawGraphGradually, showFanout, showView } from "./render/graph.js";
import { nameBoxes } from "./render/names.js";
import { createZoom } from "./render/zoom.js";
import { createStepNumbers } from "./render/stepnumbers.js";
import { keepPanelsOffNodes } from "./render/overlays.js";
import { linkState } from "./state.js";
import { badNumberText, nonFiniteOf } from "./tensors.js";
import { createTimeline, focusOf } from "./timeline.js";
import { boxOf, contentBox, overviewBox, stepBox, stepBoxes } from "./boxes.js";
import { wholeScale } from "./viewport.js";

// ---------------------------------------------------------------- a trace, prepared once

/**
 * What is derived once per trace `result` (the body of POST /api/trace) of `program`:
 * {trace, program, timeline, plan, layout (null when too big to draw), nodesById}. `upright`
 * as layout.js layoutGraph's.
 */
export function prepareWalk(result, program, { upright = false } = {}) {
  const plan = planLayout(result.graph, result.events, { upright });
  // The body's done event is {seq, kind}: its results are the body's top-level fields, sent
  // once (docs/trace-format.md); the timeline's done step shows them.
  const last = result.events.at(-1);
  if (last?.kind === "done" && !last.grads) {
    const { output, grads, first_non_finite: firstNonFinite } = result;
    result.events[result.events.length - 1] = { ...last, output, grads, first_non_finite: firstNonFinite };
  }
  if (last?.kind === "done") result.events[result.events.length - 1] = withLeafAdjoints(result.events.at(-1), result.graph);
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

/**
 * The done event `ev` with `leaf_grads` {leaf node id: gradient}: at Done every leaf's box
 * shows the gradient the narration names, also a leaf the backward walk sent nothing to (a
 * cut path, an unused leaf: 0), where the box stayed blank (timeline.js done).
 */
export function withLeafAdjoints(ev, graph) {
  if (!ev.grads) return ev;
  const leafGrads = {};
  for (const n of graph.nodes) {
    if (n.role === "leaf" && n.name in ev.grads) leafGrads[n.id] = ev.grads[n.name];
  }
  return { ...ev, leaf_grads: leafGrads };
}

/**
 * A walk begun from the stream's `graph` event `head` ({version, graph, ledger}) of
 * `program`: no events yet (addEvent appends them), no layout yet (the page lays it out in
 * a worker, layout-job.js): `plan` is {refs, cost, budget} for it, or planLayout's refusal
 * ({reason: "too_large", ...}) when it is predicted to cost too much; `complete` turns
 * true with the done event, which also sets the trace's output, grads, first_non_finite.
 * A graph with `groups` over `groupAbove` nodes opens with groups collapsed (groups.js):
 * `groups` is their state and `view` the graph the layout sees (boxes for collapsed groups).
 */
export function beginWalk(head, program, options = {}) {
  return finish(beginWalkSteps(head, program, options));
}

// The sliced forms (slices.js) yield once every this many items.
const SLICE = 8192;

/**
 * beginWalk as a generator that yields every few thousand nodes: the page runs it in slices
 * (slices.js runSliced), so a 100,000-node graph never holds the main thread for long.
 */
export function* beginWalkSteps(head, program, { budget = LAYOUT_BUDGET_MS, groupAbove = GROUP_ABOVE } = {}) {
  const timeline = createTimeline([]);
  const trace = { ...head, events: timeline.events, output: null, grads: null, first_non_finite: null };
  const nodesById = {};
  const feeds = new Set();
  let work = 0;
  for (const n of head.graph.nodes) {
    nodesById[n.id] = n;
    searchKeysOf(n); // made now, a slice at a time, not at the first search
    if (++work % SLICE === 0) yield;
  }
  for (const e of head.graph.edges) {
    feeds.add(e.source);
    if (++work % SLICE === 0) yield;
  }
  const walk = {
    trace,
    program,
    timeline,
    plan: null,
    layout: null,
    nodesById,
    nonFinite: null,
    complete: false,
    groups: yield* createGroupStateSteps(head.graph, { above: groupAbove }),
    view: head.graph,
    // before the done event names it, the output is the last node that feeds nothing
    sink: head.graph.nodes.findLast((n) => !feeds.has(n.id))?.id ?? null,
  };
  yield* replanSteps(walk, { budget });
  return walk;
}

/**
 * The graph the layout sees for `walk`'s groups as they are now, and its plan: {refs, cost,
 * budget}, or planLayout's refusal ({reason: "too_large", ...}; a reason once it is known
 * not to be drawn). Called again after a group opens or closes; the walk's layout goes.
 */
export function replan(walk, options = {}) {
  return finish(replanSteps(walk, options));
}

/** replan as a generator (slices.js runSliced). */
export function* replanSteps(walk, { budget = walk.plan?.budget ?? LAYOUT_BUDGET_MS } = {}) {
  walk.view = walk.groups ? yield* groupedGraphSteps(walk.trace.graph, walk.groups) : walk.trace.graph;
  const { refs, cost, refused } = predictPlan(walk.view, { budget });
  if (refused) refused.nodes = walk.trace.graph.nodes.length;
  walk.plan = refused ?? { refs, cost, budget };
  walk.layout = null;
  return walk.plan;
}

/**
 * Open (`open` true) or collapse group `gid` of `walk` and plan the new layout (replan);
 * the camera will open on the group (`walk.home`). False when nothing changed; "too_large"
 * (or the plan's other reason) when what it would show is too big to lay out: then nothing
 * changed either (a group of 6,000 nodes stays a box rather than become an overview).
 */
export function setGroup(walk, gid, open) {
  const state = walk.groups;
  if (!state?.tree.groups.has(gid) || state.collapsed.has(gid) === !open) return false;
  const before = { collapsed: new Set(state.collapsed), opened: new Set(state.opened), view: walk.view, plan: walk.plan, layout: walk.layout };
  if (open) {
    openGroup(state.tree, state.collapsed, gid);
    state.opened.add(gid);
  } else {
    closeGroup(state.tree, state.collapsed, gid);
    state.opened.delete(gid);
  }
  const plan = replan(walk);
  if (plan.reason) {
    Object.assign(state, { collapsed: before.collapsed, opened: before.opened });
    Object.assign(walk, { view: before.view, plan: before.plan, layout: before.layout });
    return plan.reason;
  }
  const inside = (n) => (n.group ? [n.group, ...ancestorsOf(state.tree, n.group)] : groupsOfNode(state.tree, n.id)).includes(gid);
  walk.home = open ? walk.view.nodes.filter(inside).map((n) => n.id) : [gid];
  return true;
}

/**
 * The groups of `walk` the user expanded and that show now (open, inside no collapsed
 * group), outermost first (ids in pre-order), at most `max`: what a link keeps.
 */
export function openedGroups(walk, max = 64) {
  const state = walk.groups;
  if (!state) return [];
  const shows = (g) => !state.collapsed.has(g) && !ancestorsOf(state.tree, g).some((a) => state.collapsed.has(a));
  const order = (g) => Number(g.slice(1));
  return [...state.opened].filter((g) => state.tree.groups.has(g) && shows(g)).sort((a, b) => order(a) - order(b)).slice(0, max);
}

/**
 * Expand the groups `ids` of `walk` (a link's open_groups; outermost first), each as a
 * click would (setGroup); unknown ids and those too big to lay out are skipped. Returns
 * the ids expanded.
 */
export function openGroups(walk, ids) {
  const order = (g) => Number(String(g).slice(1));
  return [...ids].sort((a, b) => order(a) - order(b)).filter((gid) => setGroup(walk, gid, true) === true);
}

/**
 * openGroups without planning the layout after each group: every group of `ids` that is
 * collapsed opens at once, and the caller plans the new view once, in slices (replanSteps).
 * For a big graph, where each plan goes through all its nodes (a link to the 50,000-line
 * chain with four groups open was four plans of 100,000 nodes in one task). No group is
 * skipped as too big: if the whole is, the plan says so and the overview shows. Returns the
 * ids opened.
 */
export function openGroupsUnplanned(walk, ids) {
  const state = walk.groups;
  const order = (g) => Number(String(g).slice(1));
  const opened = [];
  for (const gid of [...ids].sort((a, b) => order(a) - order(b))) {
    // outermost first: opening a group makes its children collapsed boxes, to open in turn
    if (!state.tree.groups.has(gid) || !state.collapsed.has(gid)) continue;
    openGroup(state.tree, state.collapsed, gid);
    state.opened.add(gid);
    opened.push(gid);
  }
  return opened;
}

/**
 * Open every collapsed group of `walk` holding node `id` (search goes there) and plan the
 * new layout (unless `plan` is false: the caller runs replanSteps, in slices), the camera on
 * the node; false when it is shown already.
 */
export function revealInGroups(walk, id, { plan = true } = {}) {
  const state = walk.groups;
  if (!state || !revealNode(state.tree, state.collapsed, id).length) return false;
  for (const g of groupsOfNode(state.tree, id)) if (!state.collapsed.has(g)) state.opened.add(g);
  if (plan) replan(walk);
  walk.home = [id];
  return true;
}

/**
 * The output's node id: the trace's, else (a stream before its done event) the last node
 * created that feeds nothing, which is the default output, the last name assigned.
 */
export function outputOf(walk) {
  const named = walk.trace.output?.node;
  if (named) return named;
  if (walk.sink !== undefined) return walk.sink; // found once by beginWalk
  return sinkOf(walk.trace.graph);
}

/** Append the stream's event `ev` to `walk` (beginWalk's). */
export function addEvent(walk, ev) {
  walk.timeline.push(ev.kind === "done" ? withLeafAdjoints(ev, walk.trace.graph) : ev);
  if (ev.kind !== "done") return;
  walk.trace.output = ev.output ?? null;
  walk.trace.grads = ev.grads ?? null;
  walk.trace.first_non_finite = ev.first_non_finite ?? null;
  // a mode's results (issue 9: hvp, hessian, eigen, jvp, ...) travel on the done event too
  const { seq, kind, ...results } = ev;
  Object.assign(walk.trace, results);
  walk.nonFinite = nonFiniteOf(walk.trace);
  walk.complete = true;
}

// A program this big is not traced on its own when the page opens with it (a saved draft,
// a link): only when Trace is pressed.
export const BIG_PROGRAM = { lines: 2000, chars: 200_000 };

/** "52,000 lines" / "310 KB" when `text` is over BIG_PROGRAM, else null. */
export function bigProgram(text, limits = BIG_PROGRAM) {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines += 1;
  if (text.endsWith("\n")) lines -= 1;
  if (lines > limits.lines) return `${lines.toLocaleString("en-US")} lines`;
  if (text.length > limits.chars) return `${Math.round(text.length / 1000).toLocaleString("en-US")} KB`;
  return null;
}

/**
 * The span of the walk's own lines: from its first op's (where the forward pass begins; nodes
 * are in program order) to its output's, or null. At step 0 the editor shows these rather
 * than a header of comments (issue 14: the Train screen's editor showed only them).
 */
export function walkSpan(walk) {
  const first = walk.trace.graph.nodes.find((n) => n.role === "op" && n.span)?.span;
  const last = walk.nodesById[outputOf(walk)]?.span ?? first;
  if (!first) return null;
  const [a, b] = first.line <= last.line ? [first, last] : [last, first];
  return { line: a.line, col: a.col, end_line: b.end_line, end_col: b.end_col };
}

/** The span in the program of what `view`'s event is about, or null. */
export function stepSpan(walk, view) {
  const id = view.event?.node ?? view.event?.output?.node;
  return walk.nodesById[id]?.span ?? null;
}

// ---------------------------------------------------------------- the graph panel

// The smallest scale at which a slide or a notebook cell shows the whole graph at once
// (fitWhole): a deck scales its slides up to the screen (reveal.js: 1000 px wide to 1920)
// and a notebook is read up close, so half size still reads when projected.
export const WHOLE_MIN = 0.5;

/**
 * The graph of a walk in the <svg> `svg`, with its camera; `message` (an element) says why
 * a graph too big to draw is not drawn, or how far its layout is. `onHover(node | null,
 * {pin})` as in drawGraph; `pinSize`, `readableWhole` and `readableOverview` as render/zoom.js
 * createZoom's. A step restyles only what changed since the step shown before.
 */
export function createGraphPanel(svg, { message, onHover, onGroup, pinSize = false, readableWhole, readableOverview } = {}) {
  const zoom = createZoom(svg, { pinSize, readableWhole, readableOverview });
  // The first non-finite number, named with why, once the walk reaches it (one line).
  const note = svg.ownerDocument.createElement("p");
  note.className = "nonfinite-note";
  note.setAttribute("role", "status");
  note.hidden = true;
  svg.parentNode?.append(note);
  const numbers = createStepNumbers(svg); // the step's numbers as text when the camera hides them
  const panelsOff = keepPanelsOffNodes(svg, zoom); // no panel over the step's nodes
  let last = null; // {walk, step, done, focus ids} of the step shown
  let fanout = null; // the shared node whose chips are shown joined to it

  /** What to restyle going from the step shown to `view`: {nodes, edges}, or null for all. */
  function changes(walk, view) {
    const done = view.phase === "done";
    if (!last || last.walk !== walk || last.done !== done) return null;
    const changed = walk.timeline.touched(last.step, view.step);
    if (!changed) return null;
    const f = focusOf(view.event);
    for (const id of [...last.ids, f.current, f.source, f.target]) if (id !== undefined) changed.nodes.add(id);
    if (last.edge !== undefined) changed.edges.add(last.edge);
    if (f.edge !== undefined) changed.edges.add(f.edge);
    if (walk.nonFinite) changed.nodes.add(walk.nonFinite.node);
    return changed;
  }

  function toggleFanout(walk, chip) {
    fanout = fanout === chip.ref ? null : chip.ref;
    showFanout(svg, walk.layout, fanout);
    if (fanout) zoom.reveal(boxOf(walk.layout, [fanout, chip.consumer]));
  }

  return {
    zoom,
    /** Draw `walk` once (or say why not); returns "drawn" or the plan's reason. */
    draw(walk) {
      last = null;
      fanout = null;
      markGroups(svg, walk);
      if (message) message.hidden = Boolean(walk.layout);
      if (walk.layout) {
        const output = outputOf(walk);
        drawGraph(svg, walk.layout, { outputId: output, onHover, onGroup, onChip: (chip) => toggleFanout(walk, chip) });
        showCamera(zoom, walk, output);
        return "drawn";
      }
      clearGraph(svg);
      zoom.clear();
      if (message) message.textContent = undrawnMessage(walk.plan, walk.trace);
      return walk.plan.reason;
    },
    /**
     * draw(walk) a part a frame for a big graph (render/graph.js drawGraphGradually), saying
     * so in the message meanwhile. Resolves with draw's answer, or null when `cancelled()`
     * turned true on the way.
     */
    async drawGradually(walk, { cancelled = () => false, batch = 80 } = {}) {
      if (!walk.layout || walk.layout.nodes.length <= batch) return this.draw(walk);
      last = null;
      fanout = null;
      if (message) {
        message.hidden = false;
        message.textContent = `Drawing ${walk.layout.nodes.length.toLocaleString("en-US")} nodes…`;
      }
      const output = outputOf(walk);
      markGroups(svg, walk);
      walk.drawing = true; // show() waits for the whole drawing
      const drawn = await drawGraphGradually(svg, walk.layout, {
        outputId: output, onHover, onGroup, onChip: (chip) => toggleFanout(walk, chip),
      }, {
        batch, cancelled, pause: nextFrame,
        // The camera first: text is laid out once, at the scale it is seen at.
        onStart: () => showCamera(zoom, walk, output),
      });
      walk.drawing = false;
      if (!drawn) return null;
      last = null;
      if (message) message.hidden = true;
      return "drawn";
    },
    /**
     * Show the whole of `walk`'s drawing when it reads at scale `floor` or more in the svg (a
     * slide, a notebook cell: the embed and the widget); else the camera stays on the step.
     * Returns whether it did.
     */
    fitWhole(walk, floor) {
      const frame = { width: svg.clientWidth, height: svg.clientHeight };
      if (!walk.layout || wholeScale(contentBox(walk.layout), frame) < floor) return false;
      zoom.fit({ whole: true });
      return true;
    },
    /** The done event named the output (a graph drawn while the stream arrived guessed it). */
    markOutput(walk) {
      const id = outputOf(walk);
      for (const g of svg.querySelectorAll("g.node")) g.classList.toggle("output", g.dataset.node === id);
    },
    /** No drawing yet: `text` says why (the layout is running, the stream is arriving). */
    wait(text) {
      last = null;
      clearGraph(svg);
      zoom.clear();
      if (!message) return;
      message.hidden = false;
      message.textContent = text;
    },
    /** Show `view` (walk.timeline.at(k)) and keep its nodes in view. */
    show(walk, view, { animate = false, duration = 700 } = {}) {
      const bad = walk.nonFinite;
      note.hidden = !(bad && view.step >= bad.step);
      if (!note.hidden) {
        const why = bad.why ? bad.why[0].toUpperCase() + bad.why.slice(1) : "";   // a new sentence
        note.textContent = `⚠ ${walk.nodesById[bad.node]?.label ?? bad.node}: ${badNumberText(bad)}. ${why}`;
        note.dataset.node = bad.node;
      }
      if (!walk.layout || walk.drawing) return;
      const changed = changes(walk, view);
      showView(svg, walk.layout, view, { animate, duration, nonFinite: bad, changed, nodesById: walk.nodesById });
      const f = focusOf(view.event);
      last = { walk, step: view.step, done: view.phase === "done", ids: [f.current, f.source, f.target], edge: f.edge };
      // the step's node and its callout; inside a collapsed group, its box (render/graph.js
      // hangs the callout there too)
      zoom.reveal(stepBox(walk.layout, inBoxes(walk.layout, view.event)));
      numbers.show(walk, view);
      panelsOff();
    },
  };
}

/**
 * The svg's data-groups: "overview" past MAX_DRAWN_NODES (groups only), "collapsed" when
 * the graph opened with groups collapsed, "open" when it has groups shown open, "none".
 */
function markGroups(svg, walk) {
  const g = walk.groups;
  svg.dataset.groups = !g ? "none" : g.overview ? "overview" : g.grouped ? "collapsed" : "open";
}

/**
 * Where the camera opens on a drawing of `walk`: `walk.home` (ids: a group just opened, a
 * node search went to) when set, else the output (or the box holding it).
 */
function homeBox(walk, output) {
  const shown = walk.layout.rep?.get(output) ?? output;
  // step 0: every leaf and the output (an overview, boxes.js overviewBox)
  const overview = overviewBox(walk.layout, shown, { opening: true });
  if (!walk.home) return overview ?? boxOf(walk.layout, [output]);
  // A group just opened or closed (or a node search went to): it is the core, shown with
  // the leaves and the output when they fit (revealTransform), else it alone.
  const core = homeCore(walk.layout, walk.home);
  if (!core) return overview ?? boxOf(walk.layout, [output]);
  if (!overview) return core;
  return { ...overview, x0: Math.min(overview.x0, core.x0), y0: Math.min(overview.y0, core.y0),
    x1: Math.max(overview.x1, core.x1), y1: Math.max(overview.y1, core.y1), core };
}

/**
 * The box of the `home` nodes, whose own core (shown when all of it is too big for the view,
 * viewport.js revealTransform) is its node nearest the box's centre: the corner of a big
 * group's box may be empty (a link reopening a statement of 200 terms and a chunk of it
 * showed a stretch with no node in it). Null when no home node is drawn.
 */
function homeCore(layout, home) {
  const box = boxOf(layout, home);
  if (!box) return null;
  const wanted = new Set(home);
  const cx = (box.x0 + box.x1) / 2;
  const cy = (box.y0 + box.y1) / 2;
  let mid = null;
  let best = Infinity;
  for (const n of layout.nodes) {
    const d = (n.x - cx) ** 2 + (n.y - cy) ** 2;
    if (wanted.has(n.id) && d < best) [mid, best] = [n, d];
  }
  return { ...box, core: boxOf(layout, [mid.id]) };
}

/**
 * `zoom` on a new drawing of `walk`, the output `output` in view, with its glide (ms) and
 * what each step needs on screen (boxes.js stepBoxes, for the automatic scale).
 */
function showCamera(zoom, walk, output) {
  const steps = stepBoxes(walk.layout, walk.timeline.events, (e) => inBoxes(walk.layout, e));
  zoom.show(contentBox(walk.layout), homeBox(walk, output), {
    glide: glideFor(walk.layout), steps, nodes: nodeBoxes(walk.layout), named: nameBoxes(walk.layout) });
}

/** `event` with its node and input as drawn: a node in a collapsed group is its group's box. */
function inBoxes(layout, event) {
  const rep = layout.rep;
  // Done: the output hidden in a box (the overview of a huge graph) is shown by its box.
  if (rep?.has(event?.output?.node)) event = { ...event, output: { ...event.output, node: rep.get(event.output.node) } };
  if (!rep?.size || !event || !(rep.has(event.node) || rep.has(event.input))) return event;
  return { ...event, node: rep.get(event.node) ?? event.node, input: rep.get(event.input) ?? event.input };
}

// Past this many boxes the camera jumps to a step instead of gliding: each frame of a glide
// repaints the whole drawing (about 50 ms a frame at 1,000 nodes).
export const GLIDE_MAX_NODES = 300;
const glideFor = (layout) => (layout.nodes.length > GLIDE_MAX_NODES ? 0 : 300);

/** A promise kept after the next frame has been drawn. */
function nextFrame() {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
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
