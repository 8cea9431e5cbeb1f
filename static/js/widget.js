// The notebook widget (issue 18 §2): anywidget's ES module, bundled by `npm run build` into
// static/dist/widget.js with the page's own render modules (walk.js, render/player.js,
// narration.js): the embed's graph, player and narration, in JupyterLab, Notebook 7, VS Code
// and marimo, with no server. The kernel (server/widget.py) sends the trace; widget-sync.js
// keeps `step`, `mode` and `program` in step with it. The page's stylesheets come from the
// kernel as `_style` (server/widget.py widget_css) and live in a shadow root, so the page's
// rules never reach the notebook's and the notebook's never reach the walk. The narration is
// typeset as the page's (render/narration_line.js, KaTeX): the bundle's stylesheet comes as
// `_bundle_style` (KaTeX's rules, its fonts as data: URLs, as the standalone export inlines
// it), set beside the page's in the shadow root; its fonts go to the document (fontfaces.js).
// anywidget's render API: https://anywidget.dev/en/afm/

import { addFonts } from "./fontfaces.js";
import { narrate } from "./narration.js";
import { showNarration } from "./render/narration_line.js";
import { createPlayer } from "./render/player.js";
import { createStore } from "./state.js";
import { applyTheme } from "./theme.js";
import { createGraphPanel, createPlayback, PLAYER_KEYS, prepareWalk } from "./walk.js";
import { createLossCurve } from "./render/losscurve.js";
import { OPTIMIZERS } from "./state.js";
import { bindModel, modeChoices, readyTrace, WHOLE_WITH_NUMBERS, WIDGET_MODES, widgetNarration } from "./widget-sync.js";

// After a refusal (the kernel's `error` beside the last good `_trace`), as main.js says it.
const LAST_GOOD = "The faded graph is the last good walk.";

function el(doc, tag, attrs = {}, text = "") {
  const node = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/** The embed's markup (templates/embed.html) with the widget's program box and mode menu. */
function markup(doc) {
  const main = el(doc, "main", { class: "embed gradwalk-widget", tabindex: "0", "data-status": "loading",
    "aria-label": "gradwalk: a walk through backpropagation" });
  const wrap = el(doc, "div", { class: "graph-wrap" });
  const svg = doc.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.id = "graph"; // the page's stylesheets size and style #graph; ids are per shadow root
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Computation graph");
  const message = el(doc, "div", { class: "graph-message", role: "status" });
  message.hidden = true;
  wrap.append(svg, message);
  const narration = el(doc, "p", { class: "narration", "aria-live": "polite" });
  const bar = el(doc, "footer", { class: "embed-bar" });
  const player = el(doc, "div", { class: "player", "aria-label": "Player" });
  const mode = el(doc, "select", { class: "widget-mode", "aria-label": "Mode" });
  for (const m of WIDGET_MODES) mode.append(el(doc, "option", { value: m }, m === "train" ? "train" : `${m} mode`));
  bar.append(player, mode);
  // Train mode's run (the kernel trains again on a change) and its loss curve.
  const train = el(doc, "div", { class: "widget-train", hidden: "" });
  const field = (label, attrs) => {
    const input = el(doc, "input", { ...attrs, "aria-label": label });
    const wrap = el(doc, "label", {}, `${label} `);
    wrap.append(input);
    train.append(wrap);
    return input;
  };
  const steps = field("steps", { type: "number", min: "1", step: "1", "data-field": "train_steps" });
  const lr = field("lr", { type: "number", min: "0", step: "any", "data-field": "lr" });
  const optimizer = el(doc, "select", { "aria-label": "Optimizer", "data-field": "optimizer" });
  for (const o of OPTIMIZERS) optimizer.append(el(doc, "option", { value: o }, o));
  train.append(optimizer);
  const iteration = field("iteration", { type: "number", min: "0", step: "1", "data-field": "iteration" });
  const curve = el(doc, "div", { class: "widget-loss" });
  const program = el(doc, "details", { class: "widget-program" });
  const text = el(doc, "textarea", { "aria-label": "Program", spellcheck: "false", rows: "6" });
  const trace = el(doc, "button", { type: "button", class: "btn" }, "Trace");
  program.append(el(doc, "summary", {}, "Program"), text, trace);
  main.append(wrap, curve, narration, bar, train, program);
  return { main, svg, message, narration, player, mode, text, trace, train, curve,
    fields: { train_steps: steps, lr, optimizer, iteration } };
}

/**
 * The @font-face faces of the stylesheet text `css` added to `doc`'s fonts: read from a
 * constructed sheet, which parses without being in the page (JupyterLab draws a view before
 * it is). A browser without constructed sheets keeps the fallback fonts.
 */
function fontsOf(doc, css) {
  const view = doc.defaultView;
  if (!css || !view?.CSSStyleSheet) return;
  const sheet = new view.CSSStyleSheet();
  sheet.replaceSync(css);
  addFonts(doc, sheet.cssRules);
}

/** Draw the widget into `el` for `model`; returns the cleanup anywidget calls on removal. */
function render({ model, el: host }) {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  const doc = host.ownerDocument;
  const style = el(doc, "style", {}, model.get("_style") || "");
  const bundle = el(doc, "style", { "data-bundle": "" }, model.get("_bundle_style") || "");
  const parts = markup(doc);
  shadow.replaceChildren(style, bundle, parts.main);
  fontsOf(doc, bundle.textContent);
  const root = parts.main;
  // JupyterLab's shortcuts (Lumino) see a key pressed in the shadow root as pressed on the
  // host: without this, B in the program box or Space on the walk would act on the notebook.
  host.setAttribute("data-lm-suppress-shortcuts", "true");

  const store = createStore({ program: model.get("program"), theme: model.get("theme") || "auto" });
  let walk = null;
  let stale = false; // the kernel refused the program: `walk` is the last good one, faded, not stepped
  const total = () => walk?.timeline.length ?? 0;
  const playback = createPlayback(store, { total, steppable: () => Boolean(walk) && !stale });
  const player = createPlayer(parts.player, playback.actions);
  const panel = createGraphPanel(parts.svg, { message: parts.message });
  const lossCurve = createLossCurve(parts.curve);
  // JupyterLab renders a view before it is in the page (no size yet): the whole graph is
  // fitted once it has one.
  let unfitted = false;
  const sized = new ResizeObserver(() => {
    if (!unfitted || !walk || !parts.svg.clientWidth) return;
    unfitted = false;
    panel.fitWhole(walk, WHOLE_WITH_NUMBERS);
    show();
  });
  sized.observe(parts.svg);

  function show({ animate = false } = {}) {
    const state = store.get();
    let phase = walk ? "start" : root.dataset.status === "error" ? "error" : "start";
    if (walk) {
      const view = walk.timeline.at(state.step);
      phase = stale ? "error" : view.phase;
      panel.show(walk, view, { animate, duration: state.playing ? Math.min(700, 0.8 * playback.stepDuration()) : 400 });
      // refused: the error, located, is the line (the explorer's: "The faded graph is the last good trace.")
      if (stale) showNarration(parts.narration, `${model.get("error").replace(/[^.?!:]$/, "$&.")} ${LAST_GOOD}`, { typeset: false });
      else showNarration(parts.narration, widgetNarration(narrate(view.event, walk.nodesById, { hvp: walk.trace?.hvp }), walk.trace));
      parts.narration.dataset.kind = stale ? "stale" : view.event?.kind ?? "start";
    }
    player.update({ ...state, total: total(), phase, disabled: !walk || stale });
    root.dataset.step = String(state.step);
    root.dataset.phase = phase;
  }

  function onTrace(trace, error) {
    parts.text.value = model.get("program");
    const mode = model.get("mode");
    for (const { mode: m, enabled } of modeChoices(model.get("program"), mode)) {
      parts.mode.querySelector(`option[value="${m}"]`).disabled = !enabled;
    }
    parts.mode.value = mode;
    root.dataset.mode = mode;
    parts.train.hidden = mode !== "train";
    for (const [name, input] of Object.entries(parts.fields)) input.value = String(model.get(name));
    if (!trace) {
      walk = null;
      stale = false;
      showCurve(null);
      root.dataset.status = error ? "error" : "loading";
      panel.wait(error || "Tracing…");
      showNarration(parts.narration, "", { typeset: false });
      return show();
    }
    stale = Boolean(error);
    if (trace !== walk?.sent) { // a new walk; an error alone keeps the one drawn, faded
      showCurve(trace);
      walk = { ...prepareWalk(readyTrace(trace), model.get("program")), sent: trace };
      root.dataset.graph = panel.draw(walk);
      unfitted = !panel.fitWhole(walk, WHOLE_WITH_NUMBERS) && !parts.svg.clientWidth;
    }
    root.dataset.status = stale ? "error" : "ready";
    show();
  }

  /** Train mode's loss curve, its cursor at the iteration the player steps; else none. */
  function showCurve(trace) {
    const run = trace?.train;
    parts.curve.hidden = !run;
    if (!run) return;
    const note = run.diverged ? { at: run.diverged.iteration, text: `diverged at ${run.diverged.iteration}` } : null;
    lossCurve.draw({ series: [{ name: "loss", losses: run.losses, kind: "run" }], steps: run.steps, cursor: run.iteration, note });
  }

  // before bindModel, which sets the kernel's step once the first trace is drawn
  store.subscribe((state, before) => {
    if (state.step !== before.step) show({ animate: state.step === before.step + 1 });
    else if (state.playing !== before.playing || state.speed !== before.speed) show();
  });
  const sync = bindModel(model, store, { total, onTrace, onTheme: (theme) => applyTheme(host, { theme }) });
  parts.mode.addEventListener("change", () => sync.setMode(parts.mode.value));
  for (const [name, input] of Object.entries(parts.fields)) {
    input.addEventListener("change", () => sync.setTrain({ [name]: name === "optimizer" ? input.value : Number(input.value) }));
  }
  parts.trace.addEventListener("click", () => sync.setProgram(parts.text.value));
  root.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.matches?.("select, textarea")) return;
    const action = PLAYER_KEYS[event.key];
    if (!action || !walk || stale) return;
    event.preventDefault();
    event.stopPropagation(); // the notebook's own keys (j, k, space) stay out of the walk
    playback.actions[action]();
  });
  return () => {
    sized.disconnect();
    sync.close();
  };
}

export default { render };
