// The notebook widget's model and its views (issue 18 §2): what the kernel and the page
// share, with no DOM, so `node --test` drives it with a fake anywidget model.
//
// The kernel (server/widget.py) owns `program`, `mode` and `output`, runs the engine and sends
// the trace as `_trace` (the JSON text of POST /api/trace's body) and `error` (why the program
// is not traced: `_trace` is then the last good walk's, which the view shows faded). `step`
// is shared both ways: a cell's `w.step = 12` moves every view; stepping in one view sets the
// model, which moves the others (all views of a widget share its one model).
// anywidget's model API: https://anywidget.dev/en/afm/ (get, set, on, off, save_changes).

import { METRICS } from "./layout.js";
import { hvpLine } from "./modes.js";
import { iterationNarration, steppable } from "./train.js";
import { NUMBERS_FROM_PX } from "./viewport.js";

/** The walk's modes the widget offers (the kernel's Enum, server/widget_modes.py MODES). */
export const WIDGET_MODES = ["reverse", "forward", "hvp", "train"];

/** Train mode's settings the kernel trains again on (server/widget.py TRAIN_TRAITS). */
export const TRAIN_FIELDS = ["train_steps", "lr", "optimizer", "iteration"];

/**
 * The modes `program` can be walked in, as [{mode, enabled}] in WIDGET_MODES' order: hvp only
 * with a `# hvp:` line (its vector; modes.js hvpLine) or while an hvp walk is shown (`mode`).
 */
export function modeChoices(program, mode) {
  return WIDGET_MODES.map((m) => ({ mode: m, enabled: m !== "hvp" || mode === "hvp" || hvpLine(program ?? "") }));
}

/**
 * The trace the kernel sent, made ready to step: train mode's recorded iteration (it carries
 * `train`: {losses, iteration, steps, ...}) with its zero_grad events' zeros (train.js
 * steppable), any other trace as it is.
 */
export function readyTrace(trace) {
  return trace?.train ? steppable(trace) : trace;
}

/**
 * The narration of a step: `text` (narration.js narrate), in train mode named by its
 * iteration ("Iteration 3: ..."), as the page's recorded iterations are.
 */
export function widgetNarration(text, trace) {
  return trace?.train ? iterationNarration(trace.train.iteration, text) : text;
}

/**
 * The least scale at which the widget shows its whole graph (walk.js fitWhole's floor; under
 * it the camera follows the steps at a readable size instead): where a node's numbers are
 * still drawn (NUMBERS_FROM_PX, 10 px; 0.56). Half size (walk.js WHOLE_MIN, the embed's)
 * reads up close, but at 1024x768 train mode's whole graph came at 0.53 and its numbers were
 * not drawn. The projector theme does not raise it (as the embed's: READABLE_SCALE cut the
 * line fit's w and x off at 1280x800, whole at 0.75, 13.4 px numbers).
 */
export const WHOLE_WITH_NUMBERS = NUMBERS_FROM_PX / METRICS.numFont;

/** The parsed trace of `model` ({graph, events, ...}), or null (none yet, or an error). */
export function traceOf(model) {
  const text = model.get("_trace");
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null; // the kernel writes it with orjson: only a truncated message lands here
  }
}

/** `step` as a whole number in 0..total (the model may hold any number a cell wrote). */
export function clampStep(step, total) {
  const k = Math.trunc(Number(step));
  return Number.isFinite(k) ? Math.max(0, Math.min(total, k)) : 0;
}

/**
 * Bind one view's `store` (state.js createStore: {step, playing, speed, ...}) to `model`.
 * `total()` is the view's number of steps; `onTrace(trace | null, error)` redraws when the
 * kernel sends a new trace or an error, and is called once now (the same trace object while
 * `_trace`'s text is the same: an error alone keeps the walk drawn); `onTheme(theme)` when a cell
 * sets `w.theme` (and once now). Returns {setProgram, setMode, setTrain, close}: the view's
 * own edits (setTrain({lr: 0.5}): TRAIN_FIELDS only, numbers finite), and close() (the view
 * is removed: listeners off).
 */
export function bindModel(model, store, { total, onTrace, onTheme = () => {} }) {
  const fromModel = () => {
    const step = clampStep(model.get("step"), total());
    if (step !== store.get().step) store.set({ step, playing: false });
  };
  let text = null; // the `_trace` text parsed last, and its parse
  let parsed = null;
  const newTrace = () => {
    store.set({ playing: false });
    if (model.get("_trace") !== text) [text, parsed] = [model.get("_trace"), traceOf(model)];
    onTrace(parsed, model.get("error") || "");
    fromModel();
  };
  const theme = () => onTheme(model.get("theme") || "auto");
  const listeners = [["change:step", fromModel], ["change:_trace", newTrace], ["change:error", newTrace],
    ["change:theme", theme]];
  for (const [name, fn] of listeners) model.on(name, fn);
  // this view stepped (player, keys, play loop): the kernel and the other views follow
  store.subscribe((state, before) => {
    if (state.step === before.step || state.step === model.get("step")) return;
    model.set("step", state.step);
    model.save_changes();
  });
  theme();
  newTrace();

  const send = (name, value) => {
    if (model.get(name) === value) return;
    model.set(name, value);
    model.save_changes();
  };
  return {
    setProgram: (text) => send("program", String(text)),
    setMode: (mode) => WIDGET_MODES.includes(mode) && send("mode", mode),
    setTrain: (patch) => {
      for (const [name, value] of Object.entries(patch)) {
        if (!TRAIN_FIELDS.includes(name) || (typeof value === "number" && !Number.isFinite(value))) continue;
        if (model.get(name) === value) continue;
        model.set(name, value);
      }
      model.save_changes(); // one message: the kernel trains once for the lot
    },
    close: () => {
      store.set({ playing: false });
      for (const [name, fn] of listeners) model.off(name, fn);
    },
  };
}
