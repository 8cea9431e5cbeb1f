// The page state: one object, kept in one store, so that it can go into the URL.
// No DOM: `FIELDS` is the typed table of what a link carries. `linkState` gives the
// contract's state object ({v, program, output, preset, step, speed, theme, font,
// hide_program, mode, tangent, ..., group_above, open_groups}; see /work/notes/contract.md and docs/slides.md); `encodeLink` /
// `decodeLink` put it in the fragment as `#s=<base64url(deflate-raw(JSON))>`, and still
// read the older uncompressed `#program=...&step=...` form (`encodeState` / `decodeState`).
// `playing` is transient and never serialized.
//
// The program text and the example menu: `program` is the editor's text; `preset` is the
// menu entry it belongs to: an example's id, "" (CUSTOM) for the user's own program, or
// LINKED for a program that came with a link. Every entry keeps its own text, so one draft
// never overwrites another: `draft` is the user's own program ("✎ Your program"), `edits`
// maps an example's id to its edited text (only while it differs from the example), and
// `linked` is the text of the link's entry (null when the page was not opened from a link),
// `practice` the text of the last generated practice graph (null before "Practice").
// Choosing an entry shows its text; typing changes only the entry shown. The drafts stay
// on this machine (localStorage, savedEditor / restoredEditor) and are not URL fields: a
// link carries `program`, and opening one never overwrites a draft (openLink). "Reset
// example" is in resets.js.

import { deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";
import { QUIZ_PATTERN } from "./quiz.js";
import { linkRefusal, MAX_LR, MAX_TRAIN_STEPS, rate, readRate, readTrainSteps, steps } from "./train-rules.js";

export { MAX_LR, MAX_TRAIN_STEPS, readRate, readTrainSteps };

export const SPEEDS = [0.5, 1, 2, 4, 8, 16]; // events per second
export const THEMES = ["auto", "light", "dark", "projector"]; // auto: prefers-color-scheme
export const FONT_LIMITS = { min: 0.5, max: 3 }; // font scale (1 = the page's own size)
export const CUSTOM = ""; // the `preset` (and menu value) of the user's own text
export const CUSTOM_LABEL = "✎ Your program";
export const LINKED = "(link)"; // the `preset` (and menu value) of a link's program
export const LINKED_LABEL = "↪ Program from the link";
export const PRACTICE = "(practice)"; // the `preset` (and menu value) of a generated practice graph
export const PRACTICE_LABEL = "⚄ Practice graph";
/** The entries that are not this machine's drafts: shown, never saved as the entry to open. */
const PASSING = [LINKED, PRACTICE];
export const EDITED_MARK = "Edited:"; // before an edited example's title in the menu, so a
// menu cut to its first words (1024 px) still says which it is
export const VERSION = 1; // the `v` of the state object; a link with a larger one is refused
export const MODES = ["reverse", "forward", "train"]; // the walk's mode (render/modes.js's #mode)
export const OPTIMIZERS = ["sgd", "momentum", "adam"]; // train mode's update rule (train.js)
export const DIRECTIONS = ["element", "random"]; // a tensor leaf's tangent (modes.js)

// Each type reads a field from a query string (`parse`: string -> value or undefined) and
// checks one from JSON (`check`: value -> bool).
const int = {
  parse: (s) => (/^\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : undefined),
  check: (v) => Number.isSafeInteger(v) && v >= 0,
};
const text = { parse: (s) => s, check: (v) => typeof v === "string" };
const oneOf = (values, cast = String) => ({
  parse: (s) => (values.includes(cast(s)) ? cast(s) : undefined),
  check: (v) => values.includes(v),
});
const scale = {
  check: (v) => typeof v === "number" && v >= FONT_LIMITS.min && v <= FONT_LIMITS.max,
  parse: (s) => (/^\d+(\.\d+)?$/.test(s) && scale.check(Number(s)) ? Number(s) : undefined),
};
// The expanded groups' ids (groups.js; "g3"), at most MAX_OPEN_GROUPS of them.
export const MAX_OPEN_GROUPS = 64;
const groupIds = {
  check: (v) => Array.isArray(v) && v.length <= MAX_OPEN_GROUPS && v.every((id) => typeof id === "string" && /^g\d{1,7}$/.test(id)),
  parse: (s) => {
    const v = s ? s.split(",") : [];
    return groupIds.check(v) ? v : undefined;
  },
};
const pattern = (re) => ({ parse: (s) => (re.test(s) ? s : undefined), check: (v) => typeof v === "string" && re.test(v) });
/** Whether `value` is field `f`'s default (a list: when both are empty). */
const isDefault = (f, value) => value === f.default || (Array.isArray(value) && Array.isArray(f.default) && !value.length && !f.default.length);
const bool = {
  parse: (s) => ({ 1: true, true: true, 0: false, false: false })[s],
  check: (v) => typeof v === "boolean",
};

/** The serialized fields: name -> {type, default}. */
export const FIELDS = {
  preset: { type: text, default: "" },
  program: { type: text, default: "" },
  output: { type: text, default: "" }, // the name to differentiate; "" = the last assigned
  step: { type: int, default: 0 },
  speed: { type: oneOf(SPEEDS, Number), default: 2 },
  theme: { type: oneOf(THEMES), default: "auto" },
  font: { type: scale, default: 1 },
  hide_program: { type: bool, default: false },
  // The walk's mode, and in forward mode the leaf whose tangent is 1 ("" = the first leaf).
  // Older links have neither: they open in reverse mode (openLink).
  mode: { type: oneOf(MODES), default: "reverse" },
  tangent: { type: text, default: "" },
  // A tensor leaf's tangent direction (modes.js tangentFor): one element (its flat index,
  // row-major) or a seeded standard-normal vector.
  tangent_direction: { type: oneOf(DIRECTIONS), default: "element" },
  tangent_element: { type: int, default: 0 },
  tangent_seed: { type: int, default: 1 },
  // Above this many nodes the graph opens with its groups collapsed (groups.js GROUP_ABOVE).
  group_above: { type: int, default: 400 },
  // The groups the user expanded, outermost first (walk.js openGroups restores them).
  open_groups: { type: groupIds, default: [] },
  // Train mode (issue 15 §3, train.js): the run's steps, learning rate, optimizer and the
  // no_zero_grad bug (drawn beside the fix), and the iteration chosen on the slider, whose
  // recorded walk the player steps (train_iteration 0 with train_chosen false: none chosen).
  train_steps: { type: steps, default: 300 },
  train_lr: { type: rate, default: 0.5 },
  train_optimizer: { type: oneOf(OPTIMIZERS), default: "sgd" },
  train_bug: { type: bool, default: false },
  train_iteration: { type: int, default: 0 },
  train_chosen: { type: bool, default: false },
  // The quiz (quiz.js): which steps ask ("" off, a preset, "nodes:d,a"), and the seed of
  // the leaves' numbers "New numbers" gave (0: the program's own).
  quiz: { type: pattern(QUIZ_PATTERN), default: "" },
  quiz_seed: { type: int, default: 0 },
  // A small tensor (quiz.js GRID_MAX numbers, rank 1 or 2) asked whole, as a grid, not one element.
  quiz_grid: { type: bool, default: false },
  // Edit and diff (diff.js): the program of the run the one shown is compared with.
  diff_base: { type: text, default: "" },
};

// The fields a link sets to their defaults when it lacks them (openLink): the walk's mode and
// its tangent, and train mode's settings.
const WALK_FIELDS = ["mode", "tangent", "tangent_direction", "tangent_element", "tangent_seed"];
export const TRAIN_FIELDS = Object.keys(FIELDS).filter((name) => name.startsWith("train_"));

export function defaultState() {
  const state = { playing: false, draft: "", edits: {}, linked: null, practice: null, back: CUSTOM };
  for (const [name, f] of Object.entries(FIELDS)) state[name] = f.default;
  return state;
}

/**
 * The older link form: the fields that differ from their defaults, as a query string
 * ("program=...&step=3"). Still read by decodeLink; new links use encodeLink.
 */
export function encodeState(state) {
  const params = new URLSearchParams();
  for (const [name, f] of Object.entries(FIELDS)) {
    if (!isDefault(f, state[name])) params.set(name, String(state[name]));
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

// ---------------------------------------------------------------- links: the state object

/**
 * The contract's state object for `state` (a store state or a state object): `v`, the
 * program always, and every other field that differs from its default. A link's own entry
 * (LINKED) and a practice graph (PRACTICE) are the user's own program to whoever opens the link.
 */
export function linkState(state) {
  const out = { v: VERSION, program: typeof state.program === "string" ? state.program : "" };
  for (const [name, f] of Object.entries(FIELDS)) {
    const value = name === "preset" && PASSING.includes(state.preset) ? CUSTOM : state[name];
    if (name !== "program" && value !== undefined && !isDefault(f, value) && f.type.check(value)) out[name] = value;
  }
  return out;
}

/** Why a link could not be opened; the page adds that nothing typed was lost. */
export const LINK_ERRORS = {
  damaged: "This link is damaged: its state could not be read (was it cut short when it was copied?).",
  foreign: "This link does not hold a gradwalk state, so it was ignored.",
  newer: (v) => `This link was made by a newer version of gradwalk (state version ${v}); this page reads version ${VERSION}.`,
};

const BOM = "\ufeff"; // U+FEFF, the byte-order mark Windows editors save first

/**
 * A state object from JSON (a link, or the server's inlined `initial-state`) checked field
 * by field: {state: {v, ...valid fields}, error: null}, or {state: null, error: message}
 * when it is not a state at all or comes from a newer version. Unknown or ill-typed
 * fields are dropped (a v1 state with one bad field still opens). `note`: what was changed
 * to open it (train_steps past MAX_TRAIN_STEPS is clamped; a train_steps or train_lr the
 * boxes refuse is named in `state.refused`, openLink gives it the example's own), absent
 * when nothing was.
 */
export function checkState(object) {
  if (!object || typeof object !== "object" || Array.isArray(object)) return { state: null, error: LINK_ERRORS.foreign };
  const { v } = object;
  if (!Number.isSafeInteger(v) || v < 1) return { state: null, error: LINK_ERRORS.foreign };
  if (v > VERSION) return { state: null, error: LINK_ERRORS.newer(v) };
  const state = { v };
  for (const [name, f] of Object.entries(FIELDS)) {
    if (Object.hasOwn(object, name) && f.type.check(object[name])) state[name] = object[name];
  }
  // A leading byte-order mark is not part of the program (the server drops it too:
  // server/tracing.py without_bom), so the editor's columns match the server's.
  if (typeof state.program === "string" && state.program.startsWith(BOM)) state.program = state.program.slice(1);
  const notes = [];
  if (state.train_steps > MAX_TRAIN_STEPS) {
    notes.push(`This link asked for ${state.train_steps.toLocaleString("en")} training iterations; the most is ${MAX_TRAIN_STEPS.toLocaleString("en")}, so it opens with ${MAX_TRAIN_STEPS.toLocaleString("en")}.`);
    state.train_steps = MAX_TRAIN_STEPS;
  }
  // A training number the boxes refuse (lr -3, "abc", 1e9; 0 iterations) is said, as the box
  // says it, and left to the example's own (openLink): it was dropped silently, and train_steps
  // 0 opened with the page's 300 under an example of 301.
  const refused = ["train_steps", "train_lr"].filter((name) => Object.hasOwn(object, name) && !Object.hasOwn(state, name));
  notes.push(...refused.map((name) => linkRefusal(name, object[name])));
  if (refused.length) state.refused = refused;
  // The iteration chosen is one of the run's (a link may name iteration 500 of 10 steps)
  const within = withinRun(state);
  return notes.length ? { state: within, error: null, note: notes.join(" ") } : { state: within, error: null };
}

function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new Error("not base64url");
  const binary = atob(s.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The fragment (without "#") for `state`: "s=" + base64url(deflate-raw(JSON of linkState)). */
export function encodeLink(state) {
  const json = JSON.stringify(linkState(state));
  if (json === lastLink.json) return lastLink.link; // the address is written again and again
  // Any level inflates the same; level 9 of a 50,000-line program is 50 ms a write, level 1 a few.
  const link = `s=${toBase64Url(deflateSync(strToU8(json), { level: json.length > BIG_LINK ? 1 : 9 }))}`;
  Object.assign(lastLink, { json, link });
  return link;
}
const BIG_LINK = 100_000; // characters of state JSON
const lastLink = { json: null, link: null };

/**
 * What a fragment ("#s=...", "s=...", the older "#program=...&step=...", or "") holds:
 * {state, error}. An empty fragment is {state: null, error: null}; a malformed, truncated,
 * foreign or newer one is {state: null, error: message}. Never throws.
 */
export function decodeLink(hash) {
  const body = String(hash ?? "").replace(/^#/, "");
  if (!body) return { state: null, error: null };
  const params = new URLSearchParams(body);
  if (params.has("s")) {
    let object;
    try {
      object = JSON.parse(strFromU8(inflateSync(fromBase64Url(params.get("s")))));
    } catch {
      return { state: null, error: LINK_ERRORS.damaged };
    }
    return checkState(object);
  }
  if (Object.keys(FIELDS).some((name) => params.has(name))) {
    return { state: { v: VERSION, ...decodeState(body) }, error: null };
  }
  return { state: null, error: LINK_ERRORS.foreign };
}

/**
 * The patch that opens `link` (a checked state object) over `state` (the drafts restored
 * from this machine): the link's program, step and view options win, and no draft is
 * overwritten. A text this machine already has opens as its entry: the example the link
 * names, as it is here (its own text or its edit; a reload of one's own tab), else one's
 * own program, else an example with exactly that text; any other text opens as its own
 * menu entry (LINKED), while "✎ Your program" and the edited examples keep theirs. `back`
 * is the entry that was shown, which a plain visit later opens on (savedEditor). `mode`,
 * `tangent` and the tangent's direction (`tangent_direction`, `tangent_element`,
 * `tangent_seed`), the quiz (`quiz`, `quiz_seed`, `quiz_grid`) and the diff's base (`diff_base`) are
 * patched to the link's (else their defaults) where they differ from `state`.
 */
export function openLink(state, link, presets) {
  const patch = {};
  for (const name of ["output", "step", "speed", "theme", "font", "hide_program", "group_above", "open_groups"]) {
    if (Object.hasOwn(link, name)) patch[name] = link[name];
  }
  // The walk's mode and tangent leaf are the link's, their defaults when it has none (an
  // older link opens in reverse mode, also in a tab that was in forward mode).
  // a refused training number (checkState) is the example's own: its program's entry
  const own = presets.find((p) => p.id === link.preset) ?? presets.find((p) => p.program === link.program);
  const fallback = (name) => (link.refused?.includes(name) ? own?.train?.[name] : undefined) ?? FIELDS[name].default;
  for (const name of [...WALK_FIELDS, "quiz", "quiz_seed", "quiz_grid", "diff_base", ...TRAIN_FIELDS]) {
    const value = Object.hasOwn(link, name) ? link[name] : fallback(name);
    if (value !== state[name]) patch[name] = value;
  }
  const named = presets.find((p) => p.id === link.preset);
  if (!Object.hasOwn(link, "program") && !named) return patch; // only view options
  const program = Object.hasOwn(link, "program") ? link.program : named.program;
  const back = PASSING.includes(state.preset) ? state.back : state.preset;
  const entry = [named?.id, CUSTOM].find((id) => id !== undefined && textOf(state, id, presets) === program)
    ?? presets.find((p) => p.program === program)?.id;
  if (entry !== undefined) return { ...patch, program, preset: entry, back };
  return { ...patch, program, preset: LINKED, linked: program, back };
}

/**
 * The iteration `state` chooses, within its run: 0 .. train_steps - 1 (train_steps its
 * default when absent). A link may name iteration 500 of 10 steps, and the Iterations box
 * lowered to 101 under the slider's 299 would leave one.
 */
function iterationOf(state) {
  const last = Math.max(0, (state.train_steps ?? FIELDS.train_steps.default) - 1);
  return Math.min(Math.max(state.train_iteration, 0), last);
}

/** `state` with its chosen iteration inside its run (iterationOf), itself when it is. */
function withinRun(state) {
  if (state.train_iteration === undefined) return state;
  const k = iterationOf(state);
  return k === state.train_iteration ? state : { ...state, train_iteration: k };
}

/**
 * A store holding the one state object; `set` merges a patch and tells subscribers. The
 * state stays one a link could hold: a run made shorter clamps the iteration chosen in it,
 * so the URL and a live room opened from it never name an iteration past the run's end.
 */
export function createStore(initial = {}) {
  let state = withinRun({ ...defaultState(), ...initial });
  const listeners = [];
  return {
    get: () => state,
    set(patch) {
      const before = state;
      state = withinRun({ ...state, ...patch });
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
export const edited = (state, id) => Object.hasOwn(state.edits, id);

/** The text of menu entry `id` in `state`: the draft, an example's edit, or the example. */
export function textOf(state, id, presets) {
  if (id === CUSTOM) return state.draft;
  if (id === LINKED) return state.linked ?? undefined;
  if (id === PRACTICE) return state.practice ?? undefined;
  return edited(state, id) ? state.edits[id] : presets.find((p) => p.id === id)?.program;
}

/** `edits` with example `id`'s text set to `program` (dropped when it is the original). */
function withEdit(edits, id, program, presets) {
  const { [id]: _, ...rest } = edits;
  const original = presets.find((p) => p.id === id)?.program;
  return program === original || original === undefined ? rest : { ...rest, [id]: program };
}

/**
 * True when `program` still derives from `original`: at least half of the original's
 * (non-blank) lines are still in it. A paste of a different program does not.
 */
export function derivesFrom(program, original) {
  const lines = (text) => text.split("\n").map((l) => l.trim()).filter(Boolean);
  const kept = new Set(lines(program));
  const before = lines(original);
  return 2 * before.filter((l) => kept.has(l)).length >= before.length;
}

/**
 * The patch for the user typing `program`: it changes only the draft of the entry shown.
 * `replaced`: the edit replaced the whole text (a paste over it all); a text so pasted
 * that no longer derives from the example shown (derivesFrom) is the user's own program
 * ("✎ Your program", not "Edited: <example>"), and the example keeps its own text.
 */
export function editProgram(state, program, presets, { replaced = false } = {}) {
  if (state.preset === CUSTOM) return { program, draft: program };
  if (state.preset === LINKED) return { program, linked: program };
  if (state.preset === PRACTICE) return { program, practice: program };
  const original = presets.find((p) => p.id === state.preset)?.program;
  // Text typed into an emptied example (select all, Delete, type) replaced it as a paste
  // does: judged by the text, since the editor reports a deletion and an insertion apart.
  const over = replaced || !state.program?.trim();
  // ...unless "✎ Your program" already holds another text: that draft is never overwritten
  // by a paste elsewhere (then the paste stays the example's edit, as typing does).
  const draftFree = !state.draft?.trim() || state.draft === program;
  if (over && draftFree && original !== undefined && program.trim() && !derivesFrom(program, original)) {
    const { [state.preset]: _, ...edits } = state.edits;
    return { program, preset: CUSTOM, draft: program, edits };
  }
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

/**
 * The example menu for `state`: [{value, label}], the user's own program first (always: it
 * is how one starts writing one), then the link's program if the page was opened from one
 * and the practice graph once there is one (each its own entry, never "✎ Your program"),
 * edited examples marked, and the value to select.
 */
export function menuFor(state, presets) {
  const options = presets.map((p) => ({
    value: p.id, label: edited(state, p.id) ? `${EDITED_MARK} ${p.title}` : p.title,
  }));
  const own = [[LINKED, state.linked, LINKED_LABEL], [PRACTICE, state.practice, PRACTICE_LABEL]]
    .filter(([, text]) => typeof text === "string").map(([value, , label]) => ({ value, label }));
  return { options: [{ value: CUSTOM, label: CUSTOM_LABEL }, ...own, ...options], value: state.preset };
}

// ---------------------------------------------------------------- the drafts, saved

export const SAVED_KEY = "gradwalk.editor.v1";

/**
 * What is kept across reloads (localStorage under SAVED_KEY): the entry shown and every
 * draft. A link's program lives in the URL: while it is shown, the entry saved is the one
 * shown before the link (or the practice graph) was opened (`back`), with its text
 * (`presets` for an example's).
 */
export function savedEditor(state, presets = []) {
  let { program, preset } = state;
  if (PASSING.includes(preset)) {
    preset = state.back ?? CUSTOM;
    program = textOf(state, preset, presets) ?? state.draft;
    if (PASSING.includes(preset)) [preset, program] = [CUSTOM, state.draft];
  }
  return JSON.stringify({ program, preset, draft: state.draft, edits: state.edits });
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
