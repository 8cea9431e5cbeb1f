// The page state: one object, kept in one store, so that it can go into the URL.
// No DOM: `FIELDS` is the typed table that `encodeState` / `decodeState` use for the
// fragment (not wired to location yet); `playing` is transient and never serialized.
//
// The program text and the example menu: `program` is the editor's text; `preset` is the
// menu entry it belongs to: an example's id, or "" (CUSTOM) for the user's own program.
// Every entry keeps its own text, so one draft never overwrites another: `draft` is the
// user's own program ("✎ Your program"), and `edits` maps an example's id to its edited
// text (only while it differs from the example). Choosing an entry shows its text; typing
// changes only the entry shown. The drafts stay on this machine (localStorage,
// savedEditor / restoredEditor) and are not URL fields: a link carries `program`.

export const SPEEDS = [0.5, 1, 2, 4, 8, 16]; // events per second
export const CUSTOM = ""; // the `preset` (and menu value) of the user's own text
export const CUSTOM_LABEL = "✎ Your program";
export const EDITED_MARK = "(edited)"; // after an edited example's title in the menu

const int = { parse: (s) => (/^\d+$/.test(s) ? Number(s) : undefined) };
const text = { parse: (s) => s };
const speed = {
  parse: (s) => (SPEEDS.includes(Number(s)) ? Number(s) : undefined),
};

/** The serialized fields: name -> {type, default}. */
export const FIELDS = {
  preset: { type: text, default: "" },
  program: { type: text, default: "" },
  step: { type: int, default: 0 },
  speed: { type: speed, default: 2 },
};

export function defaultState() {
  const state = { playing: false, draft: "", edits: {} };
  for (const [name, f] of Object.entries(FIELDS)) state[name] = f.default;
  return state;
}

/** The fields that differ from their defaults, as a query string for location.hash. */
export function encodeState(state) {
  const params = new URLSearchParams();
  for (const [name, f] of Object.entries(FIELDS)) {
    if (state[name] !== f.default) params.set(name, String(state[name]));
  }
  return params.toString();
}

/** The valid fields found in a fragment ("#a=1&b=2" or "a=1&b=2"); bad ones are dropped. */
export function decodeState(hash) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const state = {};
  for (const [name, f] of Object.entries(FIELDS)) {
    if (!params.has(name)) continue;
    const value = f.type.parse(params.get(name));
    if (value !== undefined) state[name] = value;
  }
  return state;
}

/** A store holding the one state object; `set` merges a patch and tells subscribers. */
export function createStore(initial = {}) {
  let state = { ...defaultState(), ...initial };
  const listeners = [];
  return {
    get: () => state,
    set(patch) {
      const before = state;
      state = { ...state, ...patch };
      for (const listener of listeners) listener(state, before);
    },
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}

// ---------------------------------------------------------------- program text and examples

/** The id of the preset whose text is exactly `program`, or CUSTOM. */
export function presetFor(program, presets) {
  return presets.find((p) => p.program === program)?.id ?? CUSTOM;
}

/** True when example `id` has an edited text in `state`. */
const edited = (state, id) => Object.hasOwn(state.edits, id);

/** The text of menu entry `id` in `state`: the draft, an example's edit, or the example. */
export function textOf(state, id, presets) {
  if (id === CUSTOM) return state.draft;
  return edited(state, id) ? state.edits[id] : presets.find((p) => p.id === id)?.program;
}

/** `edits` with example `id`'s text set to `program` (dropped when it is the original). */
function withEdit(edits, id, program, presets) {
  const { [id]: _, ...rest } = edits;
  const original = presets.find((p) => p.id === id)?.program;
  return program === original || original === undefined ? rest : { ...rest, [id]: program };
}

/** The patch for the user typing `program`: it changes only the draft of the entry shown. */
export function editProgram(state, program, presets) {
  if (state.preset === CUSTOM) return { program, draft: program };
  return { program, edits: withEdit(state.edits, state.preset, program, presets) };
}

/**
 * The patch for choosing `id` in the example menu: that entry's text (the draft, or the
 * example as last edited). No draft is changed here: your program, while it is empty,
 * starts empty (the editor shows a hint), not as a copy of the example on screen. An
 * unknown id changes nothing ({}).
 */
export function choosePreset(state, id, presets) {
  const program = textOf(state, id, presets);
  return program === undefined ? {} : { program, preset: id };
}

/** True when the example shown has edits that "Reset example" would undo. */
export function canReset(state) {
  return state.preset !== CUSTOM && edited(state, state.preset);
}

/** The patch for "Reset example": the example's own text back, its edit forgotten. */
export function resetExample(state, presets) {
  if (!canReset(state)) return {};
  const { [state.preset]: _, ...edits } = state.edits;
  return { program: textOf({ ...state, edits }, state.preset, presets), edits };
}

/**
 * The example menu for `state`: [{value, label}], the user's own program first (always: it
 * is how one starts writing one), edited examples marked, and the value to select.
 */
export function menuFor(state, presets) {
  const options = presets.map((p) => ({
    value: p.id, label: edited(state, p.id) ? `${p.title} ${EDITED_MARK}` : p.title,
  }));
  return { options: [{ value: CUSTOM, label: CUSTOM_LABEL }, ...options], value: state.preset };
}

// ---------------------------------------------------------------- the drafts, saved

export const SAVED_KEY = "gradwalk.editor.v1";

/** What is kept across reloads (localStorage under SAVED_KEY): the entry shown and every draft. */
export function savedEditor(state) {
  return JSON.stringify({ program: state.program, preset: state.preset, draft: state.draft, edits: state.edits });
}

const isText = (v) => typeof v === "string";

/**
 * The state patch for saved text (savedEditor's string, or null): {program, preset, draft,
 * edits}, or null when nothing usable was saved, so the page opens on the first example.
 * Edits of examples that no longer exist are dropped. Text saved before `preset` was (only
 * {program, draft}) is the example it equals, else the user's own.
 */
export function restoredEditor(saved, presets) {
  let parsed;
  try {
    parsed = JSON.parse(saved);
  } catch {
    return null;
  }
  if (!parsed || !isText(parsed.program)) return null;
  let draft = isText(parsed.draft) ? parsed.draft : "";
  let edits = {};
  for (const [id, text] of Object.entries(parsed.edits ?? {})) {
    if (isText(text)) edits = withEdit(edits, id, text, presets);
  }
  const known = isText(parsed.preset) && (parsed.preset === CUSTOM || presets.some((p) => p.id === parsed.preset));
  const preset = known ? parsed.preset : presetFor(parsed.program, presets);
  // The text shown is the draft of its entry, whatever older code saved.
  if (preset === CUSTOM) draft = parsed.program;
  else edits = withEdit(edits, preset, parsed.program, presets);
  return { program: parsed.program, preset, draft, edits };
}
