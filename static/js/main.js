// The explorer page: wires the editor, the graph and the player to one state object.
// Everything the page shows is derived from `store` (program, preset, draft, edits, step,
// speed, playing) and the current trace; the trace's timeline folds events[:step].

import { fetchTrace } from "./api.js";
import { planLayout } from "./layout.js";
import { narrate, undrawnMessage } from "./narration.js";
import { createEditor } from "./render/editor.js";
import { clearGraph, drawGraph, showView } from "./render/graph.js";
import { createPlayer } from "./render/player.js";
import { createZoom } from "./render/zoom.js";
import {
  canReset, choosePreset, createStore, editProgram, menuFor, resetExample, restoredEditor, SAVED_KEY,
  savedEditor,
} from "./state.js";
import { createTimeline } from "./timeline.js";
import { contentBox, stepBox } from "./viewport.js";

const $ = (selector) => document.querySelector(selector);
const presets = JSON.parse($("#presets").textContent);
const app = $("#app");
const svg = $("#graph");
const narration = $("#narration");
const presetMenu = $("#preset");
const graphMessage = $("#graph-message");
const badge = $("#graph-badge");
const resetButton = $("#reset-example");

// The trace shown, and what is derived from it once per trace.
let shown = null; // {trace, program, timeline, layout (null when not drawn), nodesById}
let stale = false; // a trace failed after `shown`: it is the last good trace, not stepped
let inFlight = null; // AbortController of the pending request
let timer = null; // the play loop's timeout
let pinned = null; // a node clicked in the graph keeps its span highlighted

const NOT_TRACED = "Not traced: see the message next to the program.";
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

const editor = createEditor($("#editor"), {
  onRun: () => trace(),
  onInput: (program) => store.set(editProgram(store.get(), program, presets)),
});
const zoom = createZoom(svg);

// ---------------------------------------------------------------- tracing

function setStatus(status) {
  app.dataset.status = status; // loading | ready | error: tests and CSS read it
}

async function trace() {
  const program = editor.getText();
  // The editor reports edits once a frame: the text traced is the text in the store.
  if (program !== store.get().program) store.set(editProgram(store.get(), program, presets));
  store.set({ playing: false });
  inFlight?.abort();
  const request = (inFlight = new AbortController());
  setStatus("loading");
  let result;
  try {
    result = await fetchTrace(program, null, { signal: request.signal });
  } catch (error) {
    if (request !== inFlight || error.name === "AbortError") return;
    return fail(error.detail ?? { kind: "page", message: String(error.message ?? error) });
  }
  if (request !== inFlight) return;
  try {
    editor.showError(null);
    load(result, program);
    setStatus("ready");
  } catch (error) {
    // A bug of the page's, not the server's or the network's: say so.
    fail({ kind: "page", message: `the page could not show this trace (${error.message})` });
  }
}

/** A trace that failed: show why; what is on screen becomes the last good trace. */
function fail(detail) {
  stale = true;
  store.set({ playing: false });
  hideProgram(false); // an error is shown next to the program
  editor.showError(detail);
  setStatus("error");
  render({ animate: false });
}

/** Show a new trace: layout once, draw once (or say why not), start at step 0. */
function load(result, program) {
  const nodesById = Object.fromEntries(result.graph.nodes.map((n) => [n.id, n]));
  const plan = planLayout(result.graph, result.events);
  shown = { trace: result, program, timeline: createTimeline(result.events), layout: plan.layout, nodesById };
  stale = false;
  pinned = null;
  app.dataset.graph = plan.layout ? "drawn" : plan.reason;
  graphMessage.hidden = Boolean(plan.layout);
  if (plan.layout) {
    drawGraph(svg, plan.layout, { outputId: result.output?.node, onHover: hover });
    zoom.show(contentBox(plan.layout));
  } else {
    clearGraph(svg);
    zoom.clear();
    graphMessage.textContent = undrawnMessage(plan, result);
  }
  app.dataset.traceLength = String(result.events.length);
  store.set({ step: 0, playing: false });
  render({ animate: false });
}

// ---------------------------------------------------------------- showing a step

function stepDuration() {
  return 1000 / store.get().speed;
}

function render({ animate }) {
  const state = store.get();
  const total = shown ? shown.timeline.length : 0;
  badge.hidden = !(stale && shown);
  if (!shown || stale) {
    const lastGood = shown ? (shown.layout ? LAST_GOOD : LAST_GOOD_UNDRAWN) : "";
    narration.textContent = stale ? NOT_TRACED + lastGood : "";
    narration.dataset.kind = stale ? "stale" : "start";
    editor.mark("step", null);
    player.update({ ...state, total, phase: stale ? "error" : "start", disabled: stale });
    return;
  }
  const view = shown.timeline.at(state.step);
  if (shown.layout) {
    // A pulse fits inside one step while playing; stepping by hand it can take its time.
    const duration = state.playing ? Math.min(700, 0.8 * stepDuration()) : 700;
    showView(svg, shown.layout, view, { animate, duration });
    zoom.reveal(stepBox(shown.layout, view.event)); // the step's node and its callout
  }
  narration.textContent = narrate(view.event, shown.nodesById);
  narration.dataset.kind = view.event?.kind ?? "start";
  const spanOf = view.event?.node ?? view.event?.output?.node;
  editor.mark("step", shown.nodesById[spanOf]?.span ?? null, shown.program);
  player.update({ ...state, total, phase: view.phase });
}

store.subscribe((state, before) => {
  if (state.step !== before.step) render({ animate: state.step === before.step + 1 });
  else if (state.playing !== before.playing || state.speed !== before.speed) render({ animate: false });
  if (state.playing !== before.playing) (state.playing ? scheduleTick : stopTicking)();
});

// ---------------------------------------------------------------- the player

function total() {
  return shown ? shown.timeline.length : 0;
}

/** Stepping is for a trace of the program; after an error the old one only shows. */
function steppable() {
  return Boolean(shown) && !stale;
}

function seek(step) {
  store.set({ step: Math.max(0, Math.min(total(), step)) });
}

function scheduleTick() {
  clearTimeout(timer);
  timer = setTimeout(tick, stepDuration());
}

function stopTicking() {
  clearTimeout(timer);
  timer = null;
}

function tick() {
  const { step, playing } = store.get();
  if (!playing) return;
  if (!steppable() || step >= total()) return store.set({ playing: false });
  seek(step + 1);
  if (store.get().step >= total()) store.set({ playing: false });
  else scheduleTick();
}

function togglePlay() {
  const { playing, step } = store.get();
  if (!playing && step >= total()) seek(0); // play again from the start
  store.set({ playing: !playing });
}

/** `fn` only while the trace shown can be stepped. */
const whenSteppable = (fn) => (...args) => (steppable() ? fn(...args) : undefined);

const actions = {
  reset: whenSteppable(() => store.set({ step: 0, playing: false })),
  back: whenSteppable(() => { store.set({ playing: false }); seek(store.get().step - 1); }),
  forward: whenSteppable(() => { store.set({ playing: false }); seek(store.get().step + 1); }),
  end: whenSteppable(() => store.set({ step: total(), playing: false })),
  seek: whenSteppable((step) => { store.set({ playing: false }); seek(step); }),
  togglePlay: whenSteppable(togglePlay),
  speed: (speed) => store.set({ speed }),
};
const player = createPlayer($("#player"), actions, { tools: $(".zoom-controls") });

// Keys drive the player unless a text field or a menu has the focus; on a button they still
// do (Space plays rather than pressing it). Escape leaves the editor (render/editor.js) or
// a menu. The scrubber keeps its own arrows, Home and End.
const KEYS = { ArrowRight: "forward", ArrowLeft: "back", " ": "togglePlay", Home: "reset", End: "end" };

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.defaultPrevented) return; // the editor handled it (Ctrl+Enter, Escape)
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
    event.preventDefault();
    return trace();
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target.matches?.("select") && event.key === "Escape") return target.blur();
  if (target.closest?.("textarea, select, input:not([type=range])")) return;
  if (target.matches?.("input[type=range]") && event.key !== " ") return;
  const action = KEYS[event.key];
  if (!action) return;
  event.preventDefault(); // no page scroll, and no second "click" on a focused button
  actions[action]();
});

// ---------------------------------------------------------------- editor, examples, saving

function hover(node, { pin = false } = {}) {
  if (pin) pinned = pinned === node ? null : node;
  editor.mark("hover", (node ?? pinned)?.span ?? null, shown?.program);
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
  resetButton.hidden = !canReset(state);
}

/** Put `patch` (with a program) in the store and the editor, and trace it. */
function showProgram(patch) {
  store.set(patch);
  editor.setText(patch.program);
  trace();
}

presetMenu.addEventListener("change", () => {
  const patch = choosePreset(store.get(), presetMenu.value, presets);
  presetMenu.blur(); // the arrow keys go back to the player
  if (!("program" in patch)) return showMenu(store.get());
  showProgram(patch);
});

resetButton.addEventListener("click", () => {
  const patch = resetExample(store.get(), presets);
  if ("program" in patch) showProgram(patch);
});

// The editor's text and the draft are saved a moment after they change, and on leaving.
let saveTimer = null;
function save() {
  clearTimeout(saveTimer);
  saveTimer = null;
  try {
    localStorage.setItem(SAVED_KEY, savedEditor(store.get()));
  } catch {
    // storage full or disabled: the text stays in the page
  }
}
store.subscribe((state, before) => {
  if (["program", "draft", "edits", "preset"].every((k) => state[k] === before[k])) return;
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
const toggleProgram = $("#toggle-program");
function hideProgram(hidden) {
  app.classList.toggle("program-hidden", hidden);
  toggleProgram.setAttribute("aria-pressed", String(hidden));
  toggleProgram.textContent = hidden ? "Show program" : "Hide program";
}
toggleProgram.addEventListener("click", () => hideProgram(!app.classList.contains("program-hidden")));

// ---------------------------------------------------------------- start

showMenu(store.get());
editor.setText(store.get().program);
render({ animate: false });
trace(); // an empty saved text gets the server's "empty program" message
