// Edit and diff over the walk on screen (issue 16, section 2), for the explorer: the run the
// walk is compared with is the store's `diff_base` (a program: so a link holds both), traced
// again through POST /api/trace once per text; each complete walk is diffed against it
// (diff.js), shown in the "Compare runs" panel (render/diff.js), on the graph's nodes and in
// the detail panel. The numbers compared are those of the step on screen (values known so
// far, adjoints accumulated so far, in both runs), and the final ones at step 0 and the end. Turned on, the base is the walk shown; each later trace of another text
// moves it to the run before (see main.js trace).

import { fetchTrace } from "./api.js";
import { diffRuns, midWalk, veiled } from "./diff.js";
import { createDiffPanel, detailDiff, markDiff } from "./render/diff.js";

/**
 * The diff session with its panel in `root`, marking nodes in `svg`. {setWalk, mark, detail}.
 * `hidden(step)`: what a quiz keeps from the screen at that step (quiz-session.js hidden,
 * quiz.js hiddenAt) or null; its secret numbers are "?" in the table, on the nodes and in the
 * detail panel, in both runs (diff.js veiled).
 */
export function createDiffSession(root, { store, svg, trace = fetchTrace, hidden = () => null }) {
  let walk = null;
  let diff = null;
  let pair = null; // {before, after}: the two traces diffed, once the base is in
  let step = null; // the step on screen (null: the end)
  let changedOnly = false;
  let state = "ready";
  let message = "";
  let secrets = ""; // the quiz's secrets the table was drawn with (hiddenAt's key)
  const traces = new Map(); // base program -> Promise of its trace (output as asked)
  const panel = createDiffPanel(root, {
    toggleHost: root.querySelector("#modes .mode-row"), // beside the mode menu, when there is one
    onToggle: (on) => store.set({ diff_base: on ? walk?.program ?? store.get().program : "" }),
    onFilter: (on) => {
      changedOnly = on;
      redraw();
    },
  });
  store.subscribe((now, before) => now.diff_base !== before.diff_base && compute());

  function baseTrace(program, output) {
    const key = `${output}\u0000${program}`;
    if (!traces.has(key)) {
      if (traces.size > 8) traces.clear(); // a lecture compares a few runs, not hundreds
      traces.set(key, trace(program, output).catch((error) => {
        traces.delete(key);
        throw error;
      }));
    }
    return traces.get(key);
  }

  async function compute() {
    const base = store.get().diff_base;
    diff = null;
    pair = null;
    message = "";
    state = "waiting";
    redraw();
    if (!base || !walk || walk.complete === false) return;
    const mine = walk;
    const shownTrace = { graph: walk.trace.graph, events: walk.timeline.events, output: walk.trace.output };
    try { // the walk shown is its own base when turned on: no second trace
      const before = base === walk.program ? shownTrace : await baseTrace(base, store.get().output || null);
      if (walk !== mine || store.get().diff_base !== base) return;
      pair = { before, after: shownTrace };
      diff = diffRuns(before, shownTrace, { step });
      state = "ready";
    } catch (error) {
      if (walk !== mine) return;
      state = "error";
      message = `The run compared with could not be traced again: ${error.detail?.message ?? error.message}`;
    }
    redraw();
    panel.reveal(); // a new comparison: its output's row in sight (later redraws keep the scroll)
  }

  /** The diff as it may be shown at the step on screen: a quiz's secrets veiled. */
  function shownDiff() {
    const quiz = walk ? hidden(step ?? walk.timeline.events.length) : null;
    secrets = quiz?.secrets ?? "";
    return veiled(diff, quiz?.secret, leafIds());
  }

  /** The ids of the walk's leaves: their own changes are the nudge, shown during a quiz. */
  function leafIds() {
    return new Set(walk?.trace.graph.nodes.filter((n) => n.role === "leaf").map((n) => n.id) ?? []);
  }

  function redraw() {
    const shown = shownDiff();
    const leaves = new Set(walk?.trace.graph.nodes.filter((n) => n.role === "leaf").map((n) => n.label) ?? []);
    const at = walk && midWalk(step, walk.timeline.events.length) ? { step, total: walk.timeline.events.length } : null;
    panel.show(shown, { on: Boolean(store.get().diff_base), state, message, changedOnly, leaves, at });
    markDiff(svg, shown, { changedOnly });
  }

  return {
    /** The walk shown changed (or its last event came). */
    setWalk(next) {
      walk = next;
      compute();
    },
    /** The step `k` is on screen (null: the end): the numbers of that step, marked again. */
    mark(k = null) {
      const was = step;
      step = k;
      if (pair && was !== k) diff = diffRuns(pair.before, pair.after, { step });
      const quiz = walk && hidden(step ?? walk.timeline.events.length);
      if (pair && (was !== k || (quiz?.secrets ?? "") !== secrets)) return redraw(); // a step, or a question answered
      markDiff(svg, veiled(diff, quiz?.secret, leafIds()), { changedOnly });
    },
    /** Both runs' numbers of node `id` under the detail panel `panel`. */
    detail: (panelEl, id) => detailDiff(panelEl, shownDiff(), id),
  };
}
