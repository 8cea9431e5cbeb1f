// The explorer page: wires the editor, the graph and the player to one state object.
// Everything the page shows is derived from `store` (program, preset, draft, edits, step,
// speed, playing, view options) and the current trace; the trace's timeline folds
// events[:step]. The URL fragment mirrors the store (permalink.js), and a link's state
// wins over the drafts saved on this machine without overwriting them.

import { startLayout } from "./layout-job.js";
import { runSliced } from "./slices.js";
import { streamTrace } from "./stream.js";
import { readLinkState, reopenPending, startPermalink } from "./permalink.js";
import { narrate } from "./narration.js";
import { showNarration } from "./render/narration_line.js";
import { bugBadgeText } from "./bugs.js";
import { createExportMenu } from "./export/menu.js";
import { createDetailPanel } from "./render/detail.js";
import { createEditor } from "./render/editor.js";
import { createLedgerPanel } from "./render/ledger.js";
import { createModesPanel } from "./render/modes.js";
import { createNavigator } from "./render/navigate.js";
import { createSecondOrderPanel } from "./render/hessian.js";
import { createPlayer } from "./render/player.js";
import {
  createResetControl, createTextReplacer, HVP_ADDED, keptText, NUMBERS_CONFIRM, NUMBERS_NONE, NUMBERS_NOTES, practiceNote,
} from "./render/reset.js";
import { newNumbers, practice } from "./resets.js";
import { createSharePanel } from "./render/share.js";
import { createTrainPanel } from "./render/train.js";
import { isTouch, isUpright, keepBarHeight, keepGraphInView, swipeToStep, watchNarrow } from "./render/touch.js";
import { keepOneRow, PLAYER_STEPS, setLabel } from "./render/topbar.js";
import { markDead } from "./render/dead.js";
import { fetchIteration, iterationKey, iterationNarration } from "./train.js";
import { createWarningStrip, markUnrecorded } from "./render/warnings.js";
import { createQuizSetup } from "./render/quiz.js";
import { freshSeed, renumbered } from "./quiz.js";
import { practiceProgram } from "./quiz-practice.js";
import { createQuizSession } from "./quiz-session.js";
import { createDiffSession } from "./diff-session.js";
import { boxOf, pinBox } from "./boxes.js";
import {
  choosePreset, createStore, CUSTOM_LABEL, editProgram, menuFor, openLink, restoredEditor, SAVED_KEY,
  savedEditor,
} from "./state.js";
import { clearGraph } from "./render/graph.js";
import { keepHeightWhole, keepRowsWhole } from "./render/rows.js";
import { applyTheme, nextFont } from "./theme.js";
import {
  addEvent, beginWalkSteps, bigProgram, createGraphPanel, createPlayback, openedGroups, openGroups, openGroupsUnplanned,
  PLAYER_KEYS, provideWalk,
  replanSteps, revealInGroups, setGroup, stepSpan, walkSpan,
} from "./walk.js";

const $ = (selector) => document.querySelector(selector);
const presets = JSON.parse($("#presets").textContent);
const app = $("#app");
const svg = $("#graph");
const narration = $("#narration");
const presetMenu = $("#preset");
const graphMessage = $("#graph-message");
const badge = $("#graph-badge");
const bugBadge = $("#bug-badge"); // "bug lab: overwrite" while a `# bugs:` program is shown
const ledgerPanel = createLedgerPanel($("#ledger"));
// H v, Hessian (issue 9); its "Enlarge" dialog also opens from over the graph while the program is hidden.
const secondPanel = createSecondOrderPanel($("#second-order"), { stage: svg.parentNode });

// The trace shown, and what is derived from it once per trace.
let shown = null; // {trace, program, timeline, layout (null when not drawn), nodesById}
let stale = false; // a trace failed after `shown`: it is the last good trace, not stepped
let inFlight = null; // AbortController of the pending request
let layoutJob = null; // the worker laying out `shown`'s graph ({cancel}), or null
let layoutTimer = null; // waits a moment after the graph event, for the numbers to size boxes
let lastGood = null; // the walk shown before the pending request: an error shows it again
let pinned = null; // a node clicked in the graph keeps its span highlighted
// A big trace's graph is being read or prepared (its progress replaces the drawing): the
// player and narration of the walk before it would step a graph no longer shown.
let arriving = false;

const NOT_TRACED = "Not traced: see the message next to the program.";
const EMPTY = "Type a program in the editor, then Trace (Ctrl+Enter).";
const ARRIVING = "The new trace is arriving: its walk starts here once its graph is read.";
const SLICED_OPEN_ABOVE = 5_000; // nodes: a link's groups open in one plan, made in slices
const SERVER_NOTE_MS = 700; // a trace without its graph by then is said to be on the server
const LAST_GOOD = " The faded graph is the last good trace.";
// ... when that trace's graph was not drawn (too big): only its faded note is on screen.
const LAST_GOOD_UNDRAWN = " The faded note is about the last good trace.";

// ---------------------------------------------------------------- state: the text to open on

function readSaved() {
  try {
    return localStorage.getItem(SAVED_KEY);
  } catch {
    return null; // storage disabled: nothing saved
  }
}

const firstPreset = presets.find((p) => p.id === app.dataset.initialPreset) ?? presets[0];
const store = createStore(restoredEditor(readSaved(), presets)
  ?? { preset: firstPreset?.id ?? "", program: firstPreset?.program ?? "" });
// A link (a short link's inlined state, else the fragment) wins over the drafts; a bad one
// is said, and the drafts open as they were.
reopenPending(); // a reload right after a step opens at that step (permalink.js)
const link = readLinkState(document, location);
let pendingStep = null; // the link's step, gone to once its program is traced
let pendingGroups = link.state?.open_groups ?? null; // the link's expanded groups, opened with its trace
if (link.state) {
  const { step, ...patch } = openLink(store.get(), link.state, presets);
  store.set(patch);
  pendingStep = step ?? null;
}

const editor = createEditor($("#editor"), {
  note: $("#reset-note"),
  onRun: () => trace(),
  onInput: (program, how) => store.set(editProgram(store.get(), program, presets, how)),
});
// A phone or an upright tablet (render/touch.js): the program behind "Edit", Fit readable.
const narrow = watchNarrow(() => showHidden(store.get().hide_program));
const panel = createGraphPanel(svg, {
  message: graphMessage, onHover: hover, onGroup: regroup, pinSize: true, readableWhole: () => narrow.matches,
  readableOverview: () => Boolean(store.get().diff_base), // runs compared: the table takes the graph's height
});
const zoom = panel.zoom;
// The selected (pinned) node's value, gradient and rules, beside the graph.
const detail = createDetailPanel(svg.parentNode, {
  onClose: () => pinned && hover(pinned, { pin: true }),
  // the graph beside it keeps the room to frame the node with its neighbours (zoom.roomFor)
  room: () => (pinned && shown?.layout ? zoom.roomFor(pinBox(shown.layout, pinned.id)) : 0),
});
// Search (Ctrl+F, /), trace inputs / consumers of the pinned node, the minimap (issue 8).
const nav = createNavigator(svg.parentNode, {
  svg, zoom, walk: () => shown, reveal: showNode,
  onHit: (node) => pinned !== node && hover(node, { pin: true }), // a search hit is the selected node
});
// The column beside the program scrolls: no line of it cut in half at its foot; nor the
// narration, where it gives way to the graph.
keepRowsWhole($("#editor .side"));
keepHeightWhole(narration);
// Reverse / forward mode, all n forward passes, the gradient check (issue 9).
const modes = createModesPanel($("#editor .side"), {
  store, // its mode and tangent leaf are link fields
  onModeChange: () => trace(),
  request: () => ({ program: shown?.program ?? editor.getText(), output: store.get().output || null }),
  // "H v: add # hvp: line": the line goes on top of the program (undoable) and is traced
  onAddHvp: (line) => {
    editor.insertFirstLine(line);
    trace();
    replacer.tell(HVP_ADDED, "undo");
  },
});

// Train mode (issue 15 §3): the run's controls, loss curve and boundary over the graph; a
// chosen iteration's recorded walk is stepped by the player (showIteration).
let deadShown = []; // the units dead by the iteration the Train panel shows
const trainPanel = createTrainPanel($(".stage"), {
  store,
  onIteration: (k) => showIteration(k),
  onDead: (dead) => { deadShown = dead; markDead(svg, deadUnitsOf(shown)); },
  onError: (detail) => editor.showError(detail),
});
// The iteration whose pass the graph draws, told to the Train panel (its line over the
// slider): a chosen iteration's recorded walk, else the program's own, which is iteration 0's
// forward and backward (the starting weights); `loadingIteration` while one is fetched.
let loadingIteration = null;
let loadingKey = null; // its iterationKey: the settings it is fetched for
let drawnTold = "";
function tellDrawn() {
  const info = {
    iteration: shown ? (shown.iteration?.k ?? 0) : null,
    starting: Boolean(shown && !shown.iteration), loading: loadingIteration,
    key: shown?.iteration?.key ?? null, loadingKey,
  };
  const key = JSON.stringify(info);
  if (key === drawnTold) return;
  drawnTold = key;
  trainPanel.showDrawn(info);
}

// The trace's warnings under the narration (a click shows the place in the program), and
// the nodes a no_grad block made / the edges detach cuts, marked in the graph (issue 9).
const warnings = createWarningStrip(narration, { onSelect: (w, walk) => editor.select(w, walk?.program) });

// The quiz (issue 16): its panel over the narration, its setup beside the program. The
// player may not pass a question's step until it is answered (total() is the quiz's gate).
const quiz = createQuizSession(narration.parentNode, {
  store, before: narration, seek: (step) => actions.seek(step), changed: () => regate(),
  reveal: (ids) => shown?.layout && zoom.reveal(boxOf(shown.layout, ids), { add: true }), // with the step's note
  gridable: (on) => quizSetup.showGrid(on), // "whole tensors" where it asks something
});
// Every control that replaces the editor's whole text goes through `replacer` (render/reset.js):
// one undoable transaction, a question when only Ctrl+Z would keep the text, a note.
const replacer = createTextReplacer($("#reset-note"), { store, editor, onReplace: () => trace() });
const quizSetup = createQuizSetup($("#editor .side"), {
  store,
  onNewNumbers: () => { // the same graph, fresh numbers for the leaves: the seed goes into the link
    const fresh = renumbered(editor.getText());
    const seed = fresh.seed;
    if (!fresh.changed.length) return replacer.tell(NUMBERS_NONE + keptText(fresh.kept), "none");
    const { patch, keeps } = newNumbers(store.get(), fresh.program, presets);
    const note = NUMBERS_NOTES[keeps] + keptText(fresh.kept);
    replacer.replace({ patch: { ...patch, quiz_seed: seed }, keeps, note, confirm: NUMBERS_CONFIRM });
  },
  onPractice: (options) => { // a generated graph to drill on, quizzed on every adjoint unless a quiz is on
    const seed = freshSeed();
    const state = store.get();
    const { patch, keeps } = practice(state, practiceProgram(seed, options));
    const left = menuFor(state, presets).options.find((o) => o.value === patch.back)?.label ?? CUSTOM_LABEL;
    replacer.replace({ patch: { ...patch, quiz_seed: seed, quiz: state.quiz || "adjoints" }, keeps, note: practiceNote(left) });
  },
});
// Edit and diff (issue 16 §2): the walk against the run before it, node by node.
const diffs = createDiffSession($("#editor .side"), { store, svg, hidden: (step) => quiz.hidden({ step }) });

/** The quiz and the diff follow the walk shown (`walk` may still be arriving, or null). */
function followWalk(walk) {
  quiz.setWalk(walk);
  diffs.setWalk(walk);
}

// ---------------------------------------------------------------- tracing

function setStatus(status) {
  app.dataset.status = status; // loading | ready | error: tests and CSS read it
}

// The stream is read as it arrives (POST /api/trace/stream): its body is parsed in a worker
// (stream.worker.js) and handed over in slices, the walk is built a slice at a time, the
// graph is laid out in another worker while the events come in, and the player can step what
// has arrived. A new Trace aborts the request and terminates the workers.

/** A worker that reads a trace stream (stream.js relayTrace); bundled beside main.js. */
const streamWorker = () => new Worker(new URL("./stream.worker.js", import.meta.url), { type: "module" });

/** While a big graph arrives and its walk is built: say how far (the old drawing goes). */
function reading(text, fraction) {
  app.dataset.graph = "reading";
  if (fraction === undefined) delete graphMessage.dataset.progress;
  else graphMessage.dataset.progress = fraction.toFixed(2);
  panel.wait(fraction === undefined ? text : `${text} ${Math.round(100 * fraction)}%`);
  if (!arriving) {
    arriving = true;
    render({ animate: false });
  }
}

/** Stop the pending request and layout, if any. */
function cancelWork() {
  inFlight?.abort();
  inFlight = null;
  arriving = false;
  if (layoutJob) {
    layoutJob.cancel(); // terminates the worker
    app.dataset.layoutsCancelled = String(Number(app.dataset.layoutsCancelled ?? 0) + 1);
  }
  layoutJob = null;
  clearTimeout(layoutTimer);
  layoutTimer = null;
}

async function trace() {
  const program = editor.getText();
  // The editor reports edits once a frame: the text traced is the text in the store.
  if (program !== store.get().program) store.set(editProgram(store.get(), program, presets));
  // Comparing runs: this trace is compared with the run shown before it.
  if (store.get().diff_base && shown?.complete && shown.program !== program) store.set({ diff_base: shown.program });
  store.set({ playing: false });
  cancelWork();
  editor.showLineStarts();
  if (!program.trim()) return showEmpty();
  const request = (inFlight = new AbortController());
  if (shown?.complete) lastGood = shown;
  setStatus("loading");
  delete $("#player").dataset.iteration; // the program's own walk, not a training iteration's
  loadingIteration = loadingKey = null;
  if (store.get().train_chosen) store.set({ train_chosen: false });
  let walk = null;
  let shownReading = false; // the graph's progress replaced the drawing
  let frame = 0; // one page update a frame while events arrive
  // A big program keeps the server busy for seconds before its graph comes: say so, and
  // stop the last walk's player (its faded drawing is not what is being traced).
  const serverNote = setTimeout(() => {
    if (request !== inFlight || walk || shownReading) return;
    shownReading = true;
    reading("Tracing on the server…");
  }, SERVER_NOTE_MS);
  try {
    await streamTrace(program, store.get().output || null, {
      fields: modes.fields(), // forward mode's (issue 9); none in reverse mode
      signal: request.signal,
      worker: streamWorker,
      onProgress: ({ key, received, total }) => {
        if (key !== "nodes" || request !== inFlight) return;
        shownReading = true;
        reading("Reading the graph…", received / total);
      },
      onGraph: async (head) => {
        clearTimeout(serverNote);
        // a link's tangent leaf, whose shape came only now: trace again with it (once)
        if (modes.retrace(head.graph)) return void trace();
        if (shownReading) reading(`Preparing ${head.graph.nodes.length.toLocaleString("en-US")} nodes…`);
        const steps = beginWalkSteps(head, program, { groupAbove: store.get().group_above });
        const built = await runSliced(steps, { cancelled: () => request !== inFlight });
        // A link's expanded groups in a big graph: opened together, the view planned in slices
        if (pendingGroups?.length && built.groups && built.trace.graph.nodes.length > SLICED_OPEN_ABOVE) {
          const opened = openGroupsUnplanned(built, pendingGroups);
          pendingGroups = null;
          if (opened.length) await runSliced(replanSteps(built), { cancelled: () => request !== inFlight });
        }
        begin((walk = built), request);
      },
      onEvent: (ev) => {
        if (request !== inFlight) return; // traced again (retrace): the rest is not read
        addEvent(walk, ev);
        frame ||= requestAnimationFrame(() => { frame = 0; if (request === inFlight) arrived(walk); });
      },
    });
  } catch (error) {
    clearTimeout(serverNote);
    if (request !== inFlight || error.name === "AbortError") return;
    layoutJob?.cancel();
    clearTimeout(layoutTimer);
    arriving = false;
    if (walk) forget(walk); // the half-read trace goes; the last good one shows again
    else if (shownReading) shown ? restore(shown) : forgetDrawing(); // its progress goes
    return fail(error.detail ?? { kind: "page", message: String(error.message ?? error) });
  }
  if (request !== inFlight) return;
  try {
    finish(walk);
  } catch (error) {
    // A bug of the page's, not the server's or the network's: say so.
    fail({ kind: "page", message: `the page could not show this trace (${error.message})` });
  }
}

/**
 * Train mode: iteration `k` of the run the store describes, recorded by the server (its
 * forward, zero_grad, backward and update, with that iteration's numbers), as the walk the
 * player steps; the player's element carries `data-iteration`.
 */
async function showIteration(k) {
  const program = editor.getText();
  if (program !== store.get().program) store.set(editProgram(store.get(), program, presets));
  store.set({ playing: false });
  cancelWork();
  const request = (inFlight = new AbortController());
  if (shown?.complete) lastGood = shown;
  setStatus("loading");
  loadingIteration = k; // the graph still shows the walk before it: the Train panel says so
  const key = (loadingKey = iterationKey(store.get(), k)); // the settings fetchIteration sends
  tellDrawn();
  let body;
  try {
    body = await fetchIteration(store.get(), k, { signal: request.signal });
  } catch (error) {
    if (request !== inFlight || error.name === "AbortError") return;
    loadingIteration = loadingKey = null;
    return fail(error.detail ?? { kind: "page", message: String(error.message ?? error) });
  }
  if (request !== inFlight) return;
  const head = { version: body.version, graph: body.graph, ledger: body.ledger };
  const walk = await runSliced(beginWalkSteps(head, program, { groupAbove: store.get().group_above }),
    { cancelled: () => request !== inFlight });
  if (request !== inFlight) return;
  loadingIteration = loadingKey = null;
  walk.iteration = { k, dead: body.dead_units ?? [], key };
  begin(walk, request);
  for (const ev of body.events) addEvent(walk, ev); // steppable: as a stream's events
  $("#player").dataset.iteration = String(k);
  finish(walk);
}

/** The dead units to mark on `walk`'s graph: its iteration's, else the Train panel's. */
function deadUnitsOf(walk) {
  if (store.get().mode !== "train" || !walk) return [];
  return walk.iteration ? walk.iteration.dead : deadShown;
}

/** The graph event arrived: show the new walk (its step 0) and start its layout. */
function begin(walk, request) {
  editor.showError(null);
  arriving = false;
  shown = walk;
  stale = false;
  pinned = null;
  detail.hide();
  nav.select(null);
  ledgerPanel.draw({ ...walk.trace, ledger: null }); // drawn once every event is in
  modes.begin(walk);
  followWalk(walk); // the quiz's questions and the diff once every event is in (finish)
  secondPanel.draw(null);
  // A link's expanded groups open before the first layout; any other trace opens as planned.
  if (pendingGroups?.length && walk.groups) openGroups(walk, pendingGroups);
  pendingGroups = null;
  // Set only when they differ: each change of a link field writes the address at once (a
  // 50,000-line program's link is 50 ms of compressing).
  const opened = openedGroups(walk);
  if (String(opened) !== String(store.get().open_groups ?? [])) store.set({ open_groups: opened });
  app.dataset.traceLength = "0";
  app.dataset.stream = "events";
  if (walk.plan.reason) app.dataset.graph = panel.draw(walk); // too big: the overview
  else {
    app.dataset.graph = "pending";
    panel.wait(`Laying out ${walk.trace.graph.nodes.length.toLocaleString("en-US")} nodes…`);
    // Boxes are sized for their numbers: a small trace is all in within a moment.
    layoutTimer = setTimeout(() => request === inFlight && layOut(walk), 100);
  }
  setStatus("streaming"); // loading | streaming | ready | error | empty | waiting
  store.set({ step: 0, playing: false });
  render({ animate: false });
}

/** Lay out `walk`'s graph in the worker, showing the estimated progress. */
function layOut(walk) {
  clearTimeout(layoutTimer);
  layoutTimer = null;
  if (layoutJob || walk.layout || walk.plan.reason) return;
  const nodes = walk.trace.graph.nodes.length.toLocaleString("en-US");
  app.dataset.layout = "running";
  layoutJob = startLayout(walk.view ?? walk.trace.graph, walk.timeline.events, {
    ...walk.plan, upright: isUpright(),
    onProgress: (done) => {
      graphMessage.dataset.progress = done.toFixed(2);
      panel.wait(`Laying out ${nodes} nodes… about ${Math.round(100 * done)}% (estimated)`);
    },
    onDone: async (plan) => {
      layoutJob = null;
      if (shown !== walk) return;
      walk.plan = plan;
      app.dataset.layout = plan.layout ? "done" : plan.reason;
      delete graphMessage.dataset.progress;
      app.dataset.graph = "drawing";
      walk.layout = plan.layout;
      const drawn = await panel.drawGradually(walk, { cancelled: () => shown !== walk || walk.layout !== plan.layout });
      if (!drawn || shown !== walk) return;
      app.dataset.graph = drawn;
      if (walk.complete) panel.markOutput(walk);
      render({ animate: false });
      settle(walk);
      walk.whenDrawn?.(true); // a search waiting for the group it opened
      walk.whenDrawn = null;
    },
  });
}

// ---------------------------------------------------------------- groups (issue 8, section 2)

/** A collapsed group's box was clicked (`open`), or an open group's collapse control. */
function regroup(gid, open) {
  const walk = shown;
  if (!walk || stale) return;
  const done = setGroup(walk, gid, open);
  if (done === true) {
    store.set({ open_groups: openedGroups(walk) }); // links keep them
    relayOut(walk);
  }
  else if (done) showNarration(narration, `This group holds too many nodes to lay out at once (${done.replace("_", " ")}): it stays collapsed.`, { typeset: false });
}

/** The groups of `walk` changed: lay it out again (the old drawing stays until then). */
function relayOut(walk) {
  layoutJob?.cancel();
  layoutJob = null;
  app.dataset.graph = "pending";
  if (walk.plan.reason) app.dataset.graph = panel.draw(walk); // still too big: the overview
  else layOut(walk);
}

/**
 * Search went to node `id`: open the groups hiding it. Resolves true once it is drawn
 * (at once when it is shown already), false when it cannot be.
 */
async function showNode(id) {
  const walk = shown;
  if (!walk || stale) return false;
  if (!revealInGroups(walk, id, { plan: false })) return Boolean(walk.layout);
  store.set({ open_groups: openedGroups(walk) });
  // The new view is made a slice at a time (100,000 nodes are gone through); the old drawing stays meanwhile.
  try {
    await runSliced(replanSteps(walk), { cancelled: () => shown !== walk });
  } catch {
    return false; // another trace came
  }
  const drawn = new Promise((resolve) => { walk.whenDrawn = resolve; });
  relayOut(walk);
  return walk.plan.reason ? false : drawn;
}

/** Events arrived (at most once a frame): the player's length and the step shown. */
function arrived(walk) {
  app.dataset.traceLength = String(walk.timeline.length);
  render({ animate: false });
}

/** The done event arrived: the results, the ledger, the link's step. */
function finish(walk) {
  app.dataset.stream = "done";
  app.dataset.traceLength = String(walk.timeline.length);
  ledgerPanel.draw(walk.trace);
  secondPanel.draw(walk.trace);
  followWalk(walk);
  if (walk.layout && !walk.drawing) panel.markOutput(walk);
  else if (walk.plan.reason) app.dataset.graph = panel.draw(walk); // the message, with the results
  else layOut(walk); // the numbers are all in: lay out now
  const step = Math.min(pendingStep ?? store.get().step, total()); // not past a quiz's question
  pendingStep = null;
  store.set({ step });
  render({ animate: false });
  settle(walk);
}

/** Ready once every event is in and the graph is drawn (or said why not). */
function settle(walk) {
  if (shown !== walk || !walk.complete || !((walk.layout && !walk.drawing) || walk.plan.reason)) return;
  inFlight = null;
  setStatus("ready");
  permalink.flush(); // from the first trace shown on, the address bar links to the walk
}

/** An error ended the stream of `walk`: show the last good walk again, or none. */
function forget(walk) {
  if (shown !== walk) return;
  if (lastGood) return restore(lastGood);
  shown = null;
  clearGraph(svg);
  zoom.clear();
  graphMessage.hidden = true;
  app.dataset.graph = "empty";
}

/** Nothing drawn and no message: the graph panel empty. */
function forgetDrawing() {
  clearGraph(svg);
  zoom.clear();
  graphMessage.hidden = true;
  app.dataset.graph = "empty";
}

/** Show `walk` (a complete walk shown before) again. */
function restore(walk) {
  shown = walk;
  app.dataset.graph = panel.draw(walk);
  ledgerPanel.draw(walk.trace);
  secondPanel.draw(walk.trace);
  followWalk(walk);
  app.dataset.traceLength = String(walk.timeline.length);
  store.set({ step: Math.min(store.get().step, total()) });
}

/** Nothing typed yet: the editor shows its hint; nothing is traced, and nothing is wrong. */
function showEmpty() {
  cancelWork();
  shown = null;
  followWalk(null);
  stale = false;
  pinned = null;
  pendingStep = null;
  detail.hide();
  editor.showError(null);
  clearGraph(svg);
  zoom.clear();
  graphMessage.hidden = true;
  app.dataset.graph = "empty";
  app.dataset.traceLength = "0";
  store.set({ step: 0, playing: false });
  setStatus("empty"); // loading | ready | error | empty
  render({ animate: false });
}

/** A trace that failed: show why; what is on screen becomes the last good trace. */
function fail(detail) {
  stale = true;
  pendingStep = null;
  store.set({ playing: false });
  hideProgram(false); // an error is shown next to the program
  editor.showError(detail);
  setStatus("error");
  render({ animate: false });
}

// ---------------------------------------------------------------- showing a step

// The editor's step mark is set only when it moves: each mark makes the editor measure
// (and scroll) itself, which is not free at every step of a 1,000-node walk.
let stepMark = null;
function markStep(span, program) {
  const key = span ? `${span.line}:${span.col}:${span.end_line}:${span.end_col}` : "";
  if (stepMark && stepMark.key === key && stepMark.program === program) return;
  stepMark = { key, program };
  editor.mark("step", span, program);
}

function render({ animate }) {
  const state = store.get();
  tellDrawn();
  const total = shown ? shown.timeline.length : 0;
  badge.hidden = !(stale && shown);
  bugBadge.textContent = shown ? bugBadgeText(shown.program) : "";
  bugBadge.hidden = !bugBadge.textContent;
  if (arriving) {
    showNarration(narration, ARRIVING, { typeset: false });
    narration.dataset.kind = "start";
    markStep(null, null);
    warnings.show(null, null);
    player.update({ ...state, step: 0, total: 0, phase: "start", disabled: true });
    return;
  }
  if (!shown || stale) {
    const lastGood = shown ? (shown.layout ? LAST_GOOD : LAST_GOOD_UNDRAWN) : "";
    showNarration(narration, stale ? NOT_TRACED + lastGood : app.dataset.status === "empty" ? EMPTY : "", { typeset: false });
    narration.dataset.kind = stale ? "stale" : "start";
    markStep(null, null);
    warnings.show(null, null);
    player.update({ ...state, total, phase: stale ? "error" : "start", disabled: stale });
    return;
  }
  const view = shown.timeline.view(state.step); // live: applies only the events since the last step
  // A pulse fits inside one step while playing; stepping by hand it can take its time.
  const duration = state.playing ? Math.min(700, 0.8 * playback.stepDuration()) : 700;
  panel.show(shown, view, { animate, duration });
  modes.show(shown, view, svg); // forward mode: each box's tangent
  quiz.show(view, svg); // a question's node marked, its number hidden
  diffs.mark(state.step); // the changed nodes at this step, against the run compared with at its own
  markUnrecorded(shown, svg);
  markDead(svg, deadUnitsOf(shown));
  nav.refresh(); // the minimap moves off this step's callouts
  warnings.show(shown, view);
  const said = narrate(view.event, shown.nodesById, { direction: modes.direction(shown), hvp: shown.trace?.hvp, touch: isTouch() });
  // a training iteration's walk says which iteration the player steps (the run has many);
  // in Train mode the program's own walk is iteration 0's, at the starting weights
  const k = shown.iteration?.k ?? (state.mode === "train" ? 0 : null);
  showNarration(narration, k === null ? said : iterationNarration(k, said, { starting: !shown.iteration }));
  if (view.event?.kind === "done") secondPanel.reveal(); // the H v table into view at Done
  if (pinned) showDetail(view);
  narration.dataset.kind = view.event?.kind ?? "start";
  if (view.event?.bug) narration.dataset.bug = view.event.bug; // a bug-lab switch changed it
  else delete narration.dataset.bug;
  ledgerPanel.show(state.step);
  markStep(stepSpan(shown, view), shown.program);
  // the bug lab: its `# bugs:` line (line 1) in view at step 0 and Done, where the wrong numbers are
  if (bugBadge.textContent && (state.step === 0 || view.event?.kind === "done")) editor.showTop();
  // else at step 0 the walk's lines, if its first is out of view (behind a header of comments)
  else if (state.step === 0) editor.showSpan(walkSpan(shown), shown.program);
  player.update({ ...state, total, phase: view.phase });
}

store.subscribe((state, before) => {
  if (state.step !== before.step) render({ animate: state.step === before.step + 1 });
  else if (state.playing !== before.playing || state.speed !== before.speed) render({ animate: false });
});

// ---------------------------------------------------------------- the player

function total() {
  return shown ? quiz.limit(shown.timeline.length) : 0;
}

/** The quiz's gate moved: a step past it goes back to it; else the step is shown again. */
function regate() {
  if (store.get().step > total()) store.set({ step: total(), playing: false });
  else render({ animate: false });
}

/** Stepping is for a trace of the program; after an error the old one only shows. */
function steppable() {
  return Boolean(shown) && !stale;
}

const playback = createPlayback(store, { total, steppable });
const { actions } = playback;
const player = createPlayer($("#player"), actions, { tools: $(".zoom-controls") });
swipeToStep(svg, actions); // one finger sideways on the graph steps; two pinch and pan
keepBarHeight($("#player"), app); // the narrow layout's bottom bar (narrow.css)
keepBarHeight($("#detail"), app, "--sheet-h"); // and its detail sheet over it
keepGraphInView($(".stage")); // a phone sideways: the top bar scrolled past (narrow.css)
keepOneRow($(".topbar"), { skip: () => narrow.matches }); // the top bar on one row (render/topbar.js)
keepOneRow($("#player"), { steps: PLAYER_STEPS, skip: () => narrow.matches, apart: ".scrubber", items: false }); // and the player

// Keys drive the player unless a text field or a menu has the focus; on a button they still
// do (Space plays rather than pressing it). Escape leaves the editor (render/editor.js) or
// a menu. The scrubber keeps its own arrows, Home and End. Clickers' PageDown / PageUp step.

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.defaultPrevented) return; // the editor handled it (Ctrl+Enter, Escape)
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
    event.preventDefault();
    return trace();
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target.matches?.("select") && event.key === "Escape") return target.blur();
  if (target.closest?.("textarea, select, input:not([type=range]), [contenteditable=true]")) return;
  if (target.matches?.("input[type=range]") && event.key !== " ") return;
  const action = PLAYER_KEYS[event.key];
  if (!action) return;
  event.preventDefault(); // no page scroll, and no second "click" on a focused button
  actions[action]();
});

// ---------------------------------------------------------------- editor, examples, saving

function hover(node, { pin = false } = {}) {
  if (pin) {
    pinned = pinned === node ? null : node;
    // the live view of the step shown (render's): at(k) would copy and replay (130,000 events at End)
    nav.select(pinned); // first: a wide detail panel goes below its trace buttons
    if (pinned && shown && !stale) showDetail(shown.timeline.view(store.get().step));
    else detail.hide();
    zoom.pin(pinned && shown?.layout ? pinBox(shown.layout, pinned.id) : null); // it and its neighbours in view
  }
  editor.mark("hover", (node ?? pinned)?.span ?? null, shown?.program);
}

/** The pinned node's detail panel at `view`, with its numbers in the run compared with. */
function showDetail(view) {
  detail.show(shown, view, pinned, quiz.hidden(view)); // a quiz's unrevealed numbers stay "?"
  diffs.detail($("#detail"), pinned.id);
}

/** The example menu shows the state: an example's title, or "✎ Your program". */
function showMenu(state) {
  const { options, value } = menuFor(state, presets);
  const key = (pairs) => pairs.map(([v, l]) => `${v}\u0000${l}`).join("\n");
  const have = key([...presetMenu.options].map((o) => [o.value, o.textContent]));
  if (have !== key(options.map((o) => [o.value, o.label]))) {
    presetMenu.replaceChildren(...options.map((o) => new Option(o.label, o.value)));
  }
  presetMenu.value = value;
  presetMenu.dataset.preset = value; // "" for the user's own text
  reset.show(state);
}

/** Put `patch` (with a program) in the store and the editor, and trace it. */
function showProgram(patch) {
  store.set(patch);
  editor.setText(patch.program);
  openWalk();
}

/** Trace the program, or in train mode with an iteration chosen (a link's), show that one. */
function openWalk() {
  const state = store.get();
  return state.mode === "train" && state.train_chosen ? showIteration(state.train_iteration) : trace();
}

presetMenu.addEventListener("change", () => {
  const patch = choosePreset(store.get(), presetMenu.value, presets);
  presetMenu.blur(); // the arrow keys go back to the player
  if (!("program" in patch)) return showMenu(store.get());
  const preset = presets.find((p) => p.id === presetMenu.value);
  modes.choosePreset(preset); // a preset may set the mode
  if (preset?.train) store.set({ ...preset.train, train_chosen: false, train_iteration: 0 }); // and train settings
  showProgram(patch);
});

const reset = createResetControl($("#reset-example"), { store, presets, replacer });

// The editor's text and the draft are saved a moment after they change, and on leaving.
let saveTimer = null;
function save() {
  clearTimeout(saveTimer);
  saveTimer = null;
  try {
    localStorage.setItem(SAVED_KEY, savedEditor(store.get(), presets));
  } catch {
    // storage full or disabled: the text stays in the page
  }
}
store.subscribe((state, before) => {
  if (["program", "draft", "edits", "preset", "linked", "practice"].every((k) => state[k] === before[k])) return;
  showMenu(state);
  clearTimeout(saveTimer);
  saveTimer = setTimeout(save, 400);
});
window.addEventListener("pagehide", () => saveTimer && save());

$("#trace").addEventListener("click", () => trace());
$("#zoom-in").addEventListener("click", () => zoom.zoomBy(1.25));
$("#zoom-out").addEventListener("click", () => zoom.zoomBy(0.8));
$("#zoom-fit").addEventListener("click", () => zoom.fit({ whole: true, duration: 300 }));

// In a lecture the program can make way for the graph once it has been read; the camera
// refits to the freed height, keeping the current step in view (render/zoom.js watches the
// svg's size).
// On a narrow screen the program starts collapsed behind "Edit" (the graph and the narration
// first: a phone showed the editor and put Next below the fold); a link's hide_program is
// the wide layout's, and opening the editor there is not written into links.
const toggleProgram = $("#toggle-program");
function showHidden(hidden) {
  const collapsed = narrow.matches ? !app.classList.contains("program-open") : hidden;
  app.classList.toggle("program-hidden", collapsed);
  toggleProgram.setAttribute("aria-pressed", String(collapsed));
  toggleProgram.setAttribute("aria-expanded", String(!collapsed));
  if (!collapsed) setLabel(toggleProgram, "Hide program", "Hide");
  else if (narrow.matches) setLabel(toggleProgram, "Edit");
  else setLabel(toggleProgram, "Show program", "Show");
}
const hideProgram = (hidden) => store.set({ hide_program: hidden });
toggleProgram.addEventListener("click", () => {
  if (!narrow.matches) return hideProgram(!store.get().hide_program);
  app.classList.toggle("program-open");
  showHidden(store.get().hide_program);
});

// Train mode shows its panel, and says so on the page (#app's data-train), which train.css,
// narrow.css and app.css lay out by: an attribute, not `.explorer:has(#train:not([hidden]))`,
// whose ancestor made any DOM change under it (each step's text) restyle the whole page three
// to four times a step (docs/performance.md, Compare's steps). The store's mode owns both.
function showTrain({ mode }) {
  trainPanel.show(mode === "train");
  app.dataset.train = String(mode === "train");
}
// Another program or setting makes the run shown stale.
store.subscribe((state, before) => {
  if (state.mode !== before.mode) showTrain(state);
  if (state.program !== before.program) trainPanel.reset();
});

// View options (theme, font scale, program hidden) live in the store, so links carry them.
store.subscribe((state, before) => {
  if (state.hide_program !== before.hide_program) showHidden(state.hide_program);
  if (state.theme !== before.theme || state.font !== before.font) showLook(state);
  if (state.font !== before.font) zoom.refit(); // the graph's text grows with the page's
});

// The look for the room: a theme (auto follows the system until one is picked) and A−/A+.
const themeMenu = $("#theme");
function showLook({ theme, font }) {
  applyTheme(document.documentElement, { theme, font });
  themeMenu.value = theme;
  $("#font-scale").value = `${Math.round(font * 100)}%`;
  $("#font-smaller").disabled = nextFont(font, -1) === font;
  $("#font-larger").disabled = nextFont(font, +1) === font;
}
themeMenu.addEventListener("change", () => {
  store.set({ theme: themeMenu.value });
  themeMenu.blur(); // the arrow keys go back to the player
});
$("#font-smaller").addEventListener("click", () => store.set({ font: nextFont(store.get().font, -1) }));
$("#font-larger").addEventListener("click", () => store.set({ font: nextFont(store.get().font, +1) }));
// Above this many nodes a graph opens with its groups collapsed: a new value traces again.
const groupAbove = $("#group-above");
groupAbove.value = String(store.get().group_above);
groupAbove.addEventListener("change", () => {
  const value = Number(groupAbove.value);
  if (!Number.isSafeInteger(value) || value < 0) return void (groupAbove.value = String(store.get().group_above));
  store.set({ group_above: value });
  if (shown) trace();
});
store.subscribe((state, before) => {
  if (state.group_above !== before.group_above) groupAbove.value = String(state.group_above);
});
// The "Aa" menu closes on a click elsewhere, and on Escape (back to its button).
const viewMenu = $("#view-menu");
document.addEventListener("click", (event) => {
  if (viewMenu.open && !viewMenu.contains(event.target)) viewMenu.open = false;
});
viewMenu.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || !viewMenu.open) return;
  event.preventDefault();
  viewMenu.open = false;
  viewMenu.querySelector("summary").focus();
});

// ---------------------------------------------------------------- links: the URL is the state

/** Open `link` (a checked state object) over the drafts: program, step and options. */
function openState(state) {
  const { step, ...patch } = openLink(store.get(), state, presets);
  pendingStep = step ?? 0;
  pendingGroups = state.open_groups ?? null;
  showProgram({ program: store.get().program, ...patch }); // traces, then goes to the step
}

const permalink = startPermalink({
  app,
  message: $("#link-message"),
  store,
  pendingStep: () => pendingStep,
  onLink: openState, // a new link pasted into this tab's address bar
});
if (link.error || link.note) permalink.say(link.error ?? link.note);

createSharePanel(app, {
  state: () => permalink.state(), link: () => permalink.link(), links: app.dataset.linksEnabled !== "false", store,
});

// Exports (static/js/export/) read the walk on screen through walk.js's currentWalk().
provideWalk(() => ({ svg, walk: stale ? null : shown, state: store.get() }));
createExportMenu($("#export-menu"));

// ---------------------------------------------------------------- start

showMenu(store.get());
showHidden(store.get().hide_program);
showTrain(store.get());
showLook(store.get());
editor.setText(store.get().program);
render({ animate: false });
// A big program is not traced on its own when the page opens (a 50,000-line draft once
// crashed the tab on every reload): the page waits for Trace, and says so.
const opening = bigProgram(store.get().program);
if (opening) {
  setStatus("waiting");
  graphMessage.hidden = false;
  graphMessage.textContent = `This program is big (${opening}), so it was not traced when the page opened. `
    + "Press Trace (Ctrl+Enter) to trace it.";
  showNarration(narration, "Waiting for Trace.", { typeset: false });
} else openWalk(); // an empty saved text shows the editor's hint
