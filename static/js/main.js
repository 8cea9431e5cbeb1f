// The explorer page: wires the editor, the graph and the player to one state object.
// Everything the page shows is derived from `store` (program, preset, step, speed,
// playing) and the current trace; the trace's timeline folds events[:step].

import { fetchTrace, ProgramError } from "./api.js";
import { layoutGraph } from "./layout.js";
import { narrate } from "./narration.js";
import { createEditor } from "./render/editor.js";
import { drawGraph, showView } from "./render/graph.js";
import { createPlayer } from "./render/player.js";
import { createStore } from "./state.js";
import { createTimeline } from "./timeline.js";

const $ = (selector) => document.querySelector(selector);
const presets = JSON.parse($("#presets").textContent);
const app = $("#app");
const svg = $("#graph");
const narration = $("#narration");
const presetMenu = $("#preset");

// The trace shown, and what is derived from it once per trace.
let shown = null; // {trace, timeline, layout, nodesById}
let inFlight = null; // AbortController of the pending request
let timer = null; // the play loop's timeout
let pinned = null; // a node clicked in the graph keeps its span highlighted

const initialPreset = presets.find((p) => p.id === app.dataset.initialPreset) ?? presets[0];
const store = createStore({ preset: initialPreset?.id ?? "", program: initialPreset?.program ?? "" });

const editor = createEditor($("#editor"), {
  onRun: () => trace(),
  onInput: (program) => store.set({ program }),
});

// ---------------------------------------------------------------- tracing

function setStatus(status) {
  app.dataset.status = status; // loading | ready | error: tests and CSS read it
}

async function trace() {
  const program = editor.getText();
  store.set({ program, playing: false });
  inFlight?.abort();
  const request = (inFlight = new AbortController());
  setStatus("loading");
  try {
    const result = await fetchTrace(program, null, { signal: request.signal });
    if (request !== inFlight) return;
    editor.showError(null);
    load(result);
    setStatus("ready");
  } catch (error) {
    if (request !== inFlight || error.name === "AbortError") return;
    const detail = error instanceof ProgramError
      ? error.detail
      : { kind: "network", message: `could not reach the server (${error.message})` };
    hideProgram(false); // an error is shown in the program
    editor.showError(detail);
    setStatus("error");
  }
}

/** Show a new trace: layout once, draw once, start at step 0. */
function load(result) {
  const nodesById = Object.fromEntries(result.graph.nodes.map((n) => [n.id, n]));
  const layout = layoutGraph(result.graph);
  shown = { trace: result, timeline: createTimeline(result.events), layout, nodesById };
  pinned = null;
  drawGraph(svg, layout, { outputId: result.output?.node, onHover: hover });
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
  if (shown) {
    const view = shown.timeline.at(state.step);
    // A pulse fits inside one step while playing; stepping by hand it can take its time.
    const duration = state.playing ? Math.min(700, 0.8 * stepDuration()) : 700;
    showView(svg, shown.layout, view, { animate, duration });
    narration.textContent = narrate(view.event, shown.nodesById);
    narration.dataset.kind = view.event?.kind ?? "start";
    const focus = view.event?.node ?? view.event?.output?.node;
    editor.mark("step", shown.nodesById[focus]?.span ?? null);
    player.update({ ...state, total, phase: view.phase });
  } else {
    player.update({ ...state, total, phase: "start" });
  }
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
  if (step >= total()) return store.set({ playing: false });
  seek(step + 1);
  if (store.get().step >= total()) store.set({ playing: false });
  else scheduleTick();
}

function togglePlay() {
  if (!shown) return;
  const { playing, step } = store.get();
  if (!playing && step >= total()) seek(0); // play again from the start
  store.set({ playing: !playing });
}

const actions = {
  reset: () => store.set({ step: 0, playing: false }),
  back: () => { store.set({ playing: false }); seek(store.get().step - 1); },
  forward: () => { store.set({ playing: false }); seek(store.get().step + 1); },
  end: () => store.set({ step: total(), playing: false }),
  seek: (step) => { store.set({ playing: false }); seek(step); },
  togglePlay,
  speed: (speed) => store.set({ speed }),
};
const player = createPlayer($("#player"), actions);

// Keys drive the player unless a text field or menu has the focus (Escape leaves the editor).
const KEYS = { ArrowRight: "forward", ArrowLeft: "back", " ": "togglePlay", Home: "reset", End: "end" };

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.defaultPrevented) return; // the editor handled it (Ctrl+Enter, Escape)
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
    event.preventDefault();
    return trace();
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target.closest?.("textarea, select, input:not([type=range])")) return;
  // The scrubber moves itself with arrows, Home and End; only Space is ours there.
  if (target.matches?.("input[type=range]") && event.key !== " ") return;
  const action = KEYS[event.key];
  if (!action) return;
  event.preventDefault(); // no page scroll, and no second "click" on a focused button
  actions[action]();
});

// ---------------------------------------------------------------- editor and presets

function hover(node, { pin = false } = {}) {
  if (pin) pinned = pinned === node ? null : node;
  editor.mark("hover", (node ?? pinned)?.span ?? null);
}

presetMenu.addEventListener("change", () => {
  const preset = presets.find((p) => p.id === presetMenu.value);
  if (!preset) return;
  store.set({ preset: preset.id, program: preset.program });
  editor.setText(preset.program);
  trace();
});

$("#trace").addEventListener("click", () => trace());

// In a lecture the program can make way for the graph once it has been read.
const toggleProgram = $("#toggle-program");
function hideProgram(hidden) {
  app.classList.toggle("program-hidden", hidden);
  toggleProgram.setAttribute("aria-pressed", String(hidden));
  toggleProgram.textContent = hidden ? "Show program" : "Hide program";
}
toggleProgram.addEventListener("click", () => hideProgram(!app.classList.contains("program-hidden")));

// ---------------------------------------------------------------- start

presetMenu.value = store.get().preset;
editor.setText(store.get().program);
render({ animate: false });
if (store.get().program) trace();
