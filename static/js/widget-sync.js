// The notebook widget's model and its views (issue 18 §2): what the kernel and the page
// share, with no DOM, so `node --test` drives it with a fake anywidget model.
//
// The kernel (server/widget.py) owns `program`, `mode` and `output`, runs the engine and sends
// the trace as `_trace` (the JSON text of POST /api/trace's body) or `error` (why not). `step`
// is shared both ways: a cell's `w.step = 12` moves every view; stepping in one view sets the
// model, which moves the others (all views of a widget share its one model).
// anywidget's model API: https://anywidget.dev/en/afm/ (get, set, on, off, save_changes).

/** The walk's modes the widget offers (the kernel's Enum, server/widget.py MODES). */
export const WIDGET_MODES = ["reverse", "forward"];

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
 * kernel sends a new trace or an error, and is called once now; `onTheme(theme)` when a cell
 * sets `w.theme` (and once now). Returns {setProgram,
 * setMode, close}: the view's own edits, and close() (the view is removed: listeners off).
 */
export function bindModel(model, store, { total, onTrace, onTheme = () => {} }) {
  const fromModel = () => {
    const step = clampStep(model.get("step"), total());
    if (step !== store.get().step) store.set({ step, playing: false });
  };
  const newTrace = () => {
    store.set({ playing: false });
    onTrace(traceOf(model), model.get("error") || "");
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
    close: () => {
      store.set({ playing: false });
      for (const [name, fn] of listeners) model.off(name, fn);
    },
  };
}
