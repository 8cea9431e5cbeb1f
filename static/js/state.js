// The page state: one object, kept in one store, so that it can go into the URL.
// No DOM: `FIELDS` is the typed table that `encodeState` / `decodeState` use for the
// fragment (not wired to location yet); `playing` is transient and never serialized.
//
// The program text and the example menu: `program` is the editor's text; `preset` is the id
// of the example whose text it is, or "" when it is the user's own; `draft` is the user's
// own text, kept while an example is shown, so choosing an example never destroys it (the
// menu offers it back as "✎ Your program"). `draft` stays on this machine (localStorage,
// savedEditor / restoredEditor) and is not a URL field: a link carries `program`.

export const SPEEDS = [0.5, 1, 2, 4, 8, 16]; // events per second
export const CUSTOM = ""; // the `preset` (and menu value) of the user's own text
export const CUSTOM_LABEL = "✎ Your program";

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
  const state = { playing: false, draft: "" };
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

/** The patch for the user typing `program`: text that is no example's becomes the draft. */
export function editProgram(program, presets) {
  const preset = presetFor(program, presets);
  return preset === CUSTOM ? { program, preset, draft: program } : { program, preset };
}

/**
 * The patch for choosing `id` in the example menu: a preset's text, or CUSTOM for the draft
 * back. The draft itself is never changed here. An unknown id changes nothing ({}).
 */
export function choosePreset(state, id, presets) {
  if (id === CUSTOM) return { program: state.draft, preset: presetFor(state.draft, presets) };
  const preset = presets.find((p) => p.id === id);
  return preset ? { program: preset.program, preset: preset.id } : {};
}

/**
 * The example menu for `state`: [{value, label}] with the user's own text first when there
 * is one to go back to (or it is what the editor shows), and the value to select.
 */
export function menuFor(state, presets) {
  const options = presets.map((p) => ({ value: p.id, label: p.title }));
  if (state.preset === CUSTOM || state.draft !== "") {
    options.unshift({ value: CUSTOM, label: CUSTOM_LABEL });
  }
  return { options, value: state.preset };
}

// ---------------------------------------------------------------- the editor text, saved

export const SAVED_KEY = "gradwalk.editor.v1";

/** What is kept across reloads (localStorage under SAVED_KEY): the text and the draft. */
export function savedEditor(state) {
  return JSON.stringify({ program: state.program, draft: state.draft });
}

/**
 * The state patch for saved text (savedEditor's string, or null): {program, preset, draft},
 * or null when nothing usable was saved, so the page opens on the first example.
 */
export function restoredEditor(saved, presets) {
  let parsed;
  try {
    parsed = JSON.parse(saved);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed.program !== "string") return null;
  const draft = typeof parsed.draft === "string" ? parsed.draft : "";
  return { program: parsed.program, preset: presetFor(parsed.program, presets), draft };
}
