import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { deflateSync, strToU8 } from "fflate";
import {
  checkState, choosePreset, createStore, CUSTOM, CUSTOM_LABEL, decodeLink, decodeState, defaultState,
  editProgram, EDITED_MARK, encodeLink, encodeState, FIELDS, LINK_ERRORS, LINKED, LINKED_LABEL, linkState, menuFor,
  MAX_TRAIN_STEPS, MODES, openLink, readRate, readTrainSteps, presetFor, restoredEditor, savedEditor, SPEEDS, THEMES, VERSION,
} from "../../static/js/state.js";
import { canReset, resetExample } from "../../static/js/resets.js";

const PRESETS = [
  { id: "p1", title: "first", program: "a = 1.0\nL = a * a\n" },
  { id: "p2", title: "second", program: "b = 2.0\nL = b + b\n" },
];
const MINE = "w = 3.0\nL = w * w * w\n";

test("the default state", () => {
  assert.deepEqual(defaultState(), {
    playing: false, draft: "", edits: {}, linked: null, practice: null, back: "", preset: "", program: "", output: "", step: 0,
    speed: 2, theme: "auto", font: 1, hide_program: false, mode: "reverse", tangent: "",
    tangent_direction: "element", tangent_element: 0, tangent_seed: 1, group_above: 400, open_groups: [],
    train_steps: 300, train_lr: 0.5, train_optimizer: "sgd", train_bug: false, train_iteration: 0, train_chosen: false,
    quiz: "", quiz_seed: 0, quiz_grid: false, diff_base: "",
  });
});

test("the draft stays out of the URL: a link carries the program", () => {
  const hash = encodeState({ ...defaultState(), program: MINE, draft: MINE, edits: { p1: "x" } });
  assert.equal(hash, new URLSearchParams({ program: MINE }).toString());
});

test("encode keeps only what differs from the defaults, never `playing`", () => {
  assert.equal(encodeState(defaultState()), "");
  const hash = encodeState({ ...defaultState(), preset: "seed-tanh-fanout", step: 14, playing: true });
  assert.equal(hash, "preset=seed-tanh-fanout&step=14");
});

test("decode(encode(state)) gives the state back, program text included", () => {
  const state = { ...defaultState(), program: "a = 1.0\nL = a * a  # é & = #\n", step: 3, speed: 8 };
  const { playing, draft, edits, ...fields } = state;
  assert.deepEqual({ ...defaultState(), ...decodeState("#" + encodeState(state)) }, { ...fields, playing, draft, edits });
});

test("decode drops bad fields", () => {
  assert.deepEqual(decodeState("step=-1&speed=3&x=1&preset=p"), { preset: "p" });
  assert.deepEqual(decodeState(""), {});
});

test("the store merges patches and tells subscribers old and new", () => {
  const store = createStore({ preset: "p" });
  const seen = [];
  store.subscribe((now, before) => seen.push([before.step, now.step]));
  store.set({ step: 2 });
  store.set({ speed: 4 });
  assert.deepEqual(seen, [[0, 2], [2, 2]]);
  assert.equal(store.get().preset, "p");
  assert.equal(store.get().speed, 4);
});

// ---------------------------------------------------------------- your own text and the examples

/** The state after `patches`, applied in order to a store opened on the first example. */
function after(...patches) {
  const store = createStore({ preset: "p1", program: PRESETS[0].program });
  for (const patch of patches) store.set(typeof patch === "function" ? patch(store.get()) : patch);
  return store.get();
}
const type = (program) => (state) => editProgram(state, program, PRESETS);
const pick = (id) => (state) => choosePreset(state, id, PRESETS);

test("typing changes only the draft of the entry shown", () => {
  const mine = after(pick(CUSTOM), type(MINE));
  assert.equal(mine.preset, CUSTOM);
  assert.equal(mine.draft, MINE);
  assert.deepEqual(mine.edits, {});
  // Typing an example's text into your program does not make it the example.
  const same = after(pick(CUSTOM), type(PRESETS[1].program));
  assert.equal(same.preset, CUSTOM);
  assert.equal(same.draft, PRESETS[1].program);
  // Typing in an example keeps the edit under the example; the draft is untouched.
  const edited = after(pick(CUSTOM), type(MINE), pick("p2"), type(PRESETS[1].program + "x"));
  assert.equal(edited.draft, MINE);
  assert.deepEqual(edited.edits, { p2: PRESETS[1].program + "x" });
  // Typing the example's own text back forgets the edit.
  assert.deepEqual(after(type("x"), type(PRESETS[0].program)).edits, {});
});

test("the review's repro: your program survives editing an example", () => {
  const state = after(pick(CUSTOM), type(MINE), pick("p2"), type(PRESETS[1].program + "#"));
  assert.equal(state.program, PRESETS[1].program + "#");
  assert.equal(state.draft, MINE); // was replaced by the edited example
  const back = after(pick(CUSTOM), type(MINE), pick("p2"), type(PRESETS[1].program + "#"), pick(CUSTOM));
  assert.equal(back.program, MINE);
  assert.equal(back.preset, CUSTOM);
});

test("choosing an entry shows its own text: the draft, or the example as edited", () => {
  const state = after(pick(CUSTOM), type(MINE), pick("p1"), type("a = 5.0\n"), pick("p2"));
  assert.equal(state.program, PRESETS[1].program);
  assert.equal(state.preset, "p2");
  assert.equal(state.draft, MINE);
  const again = after(pick(CUSTOM), type(MINE), pick("p1"), type("a = 5.0\n"), pick("p2"), pick("p1"));
  assert.equal(again.program, "a = 5.0\n");
  assert.equal(again.preset, "p1");
  assert.deepEqual(choosePreset(again, "no-such-preset", PRESETS), {});
  assert.deepEqual(choosePreset(again, "constructor", PRESETS), {}); // not an Object key
});

test("your program, while empty, starts empty: not a copy of the example shown", () => {
  const state = after(type("a = 7.0\n"), pick(CUSTOM));
  assert.equal(state.program, "");
  assert.equal(state.preset, CUSTOM);
  assert.equal(state.draft, "");
  assert.deepEqual(state.edits, { p1: "a = 7.0\n" }); // the example's edit is its own
  assert.equal(after(pick("p2"), pick(CUSTOM)).program, "");
  assert.equal(after(pick(CUSTOM), type(MINE), pick("p2"), pick(CUSTOM)).program, MINE);
});

test("reset example restores the original and forgets the edit, and only for an edited example", () => {
  const state = after(pick(CUSTOM), type(MINE), pick("p1"), type("a = 5.0\n"));
  assert.equal(canReset(state), true);
  const reset = { ...state, ...resetExample(state, PRESETS) };
  assert.equal(reset.program, PRESETS[0].program);
  assert.deepEqual(reset.edits, {});
  assert.equal(reset.draft, MINE);
  assert.equal(canReset(reset), false);
  assert.deepEqual(resetExample(reset, PRESETS), {});
  assert.equal(canReset(after(pick(CUSTOM), type(MINE))), false); // your program has no original
});

test("the menu offers your program when there is one, marks edited examples, and shows the entry", () => {
  const fresh = after();
  assert.deepEqual(menuFor(fresh, PRESETS), {
    options: [{ value: CUSTOM, label: CUSTOM_LABEL }, { value: "p1", label: "first" }, { value: "p2", label: "second" }],
    value: "p1",
  });
  const mine = after(pick(CUSTOM), type(MINE));
  assert.deepEqual(menuFor(mine, PRESETS).options[0], { value: CUSTOM, label: CUSTOM_LABEL });
  assert.equal(menuFor(mine, PRESETS).value, CUSTOM);
  const away = after(pick(CUSTOM), type(MINE), pick("p2"), type("b = 1.0\n"));
  const menu = menuFor(away, PRESETS);
  assert.equal(menu.value, "p2");
  assert.deepEqual(menu.options.map((o) => o.label), [CUSTOM_LABEL, "first", `${EDITED_MARK} second`]);
});

test("every draft comes back after a reload, and anything unusable means the first example", () => {
  const state = after(pick(CUSTOM), type(MINE), pick("p1"), type("a = 5.0\n"), pick("p2"));
  const { program, preset, draft, edits } = state;
  assert.deepEqual(restoredEditor(savedEditor(state), PRESETS), { program, preset, draft, edits });
  const mine = after(pick(CUSTOM), type(MINE));
  assert.deepEqual(restoredEditor(savedEditor(mine), PRESETS), { program: MINE, preset: CUSTOM, draft: MINE, edits: {} });
  for (const junk of [null, "", "{", "[]", '{"program": 3}', "null"]) {
    assert.equal(restoredEditor(junk, PRESETS), null, String(junk));
  }
  // Text saved by the page before it kept `preset` and `edits`.
  assert.deepEqual(restoredEditor('{"program": "x = 1.0\\n"}', PRESETS), { program: "x = 1.0\n", preset: CUSTOM, draft: "x = 1.0\n", edits: {} });
  assert.deepEqual(restoredEditor(JSON.stringify({ program: PRESETS[1].program, draft: MINE }), PRESETS),
    { program: PRESETS[1].program, preset: "p2", draft: MINE, edits: {} });
  // Edits of examples that are gone, or that equal the example, are dropped.
  const saved = JSON.stringify({ program: MINE, preset: CUSTOM, draft: MINE, edits: { gone: "x", p1: PRESETS[0].program, p2: 3 } });
  assert.deepEqual(restoredEditor(saved, PRESETS).edits, {});
});

// ---------------------------------------------------------------- links: #s=<deflate-raw base64url>

/** Any state object a link may carry (every field optional but the program). */
const anyState = fc.record({
  program: fc.string({ unit: "binary", maxLength: 400 }), // any unicode, astral planes and lone newlines
  preset: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme", maxLength: 30 })),
  output: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme-ascii", maxLength: 12 })),
  step: fc.nat({ max: 2 ** 40 }),
  speed: fc.constantFrom(...SPEEDS),
  theme: fc.constantFrom(...THEMES),
  font: fc.oneof(fc.constantFrom(1, 1.25, 1.5, 2), fc.double({ min: 0.5, max: 3, noNaN: true })),
  hide_program: fc.boolean(),
  mode: fc.constantFrom(...MODES),
  tangent: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme", maxLength: 12 })),
  tangent_direction: fc.constantFrom("element", "random"),
  tangent_element: fc.nat({ max: 2 ** 40 }),
  tangent_seed: fc.nat({ max: 2 ** 40 }),
  group_above: fc.nat({ max: 2 ** 40 }),
}, { requiredKeys: ["program"] });

/** The state a link stands for: every field, defaults filled in. */
const full = (state) => {
  const out = { v: VERSION };
  for (const [name, f] of Object.entries(FIELDS)) out[name] = Object.hasOwn(state, name) ? state[name] : f.default;
  return out;
};

test("property: any state encodes to a URL-safe fragment and decodes to itself", () => {
  fc.assert(fc.property(anyState, (state) => {
    const fragment = encodeLink(state);
    assert.match(fragment, /^s=[A-Za-z0-9_-]*$/);
    const { state: back, error } = decodeLink(`#${fragment}`);
    assert.equal(error, null);
    assert.deepEqual(full(back), full(state));
    assert.deepEqual(decodeLink(fragment), { state: back, error: null }); // with or without "#"
    assert.equal(encodeLink(back), fragment); // and it is canonical
  }), { numRuns: 500 });
});

test("property: a fragment cut short or with a character changed gives a message, never a throw", () => {
  fc.assert(fc.property(anyState, fc.nat(), fc.constantFrom("A", "_", "!", "%", " "), (state, at, ch) => {
    const fragment = encodeLink(state);
    const cut = fragment.slice(0, 2 + (at % (fragment.length - 2)));
    const changed = fragment.slice(0, 2 + (at % (fragment.length - 2))) + ch + fragment.slice(3 + (at % (fragment.length - 2)));
    for (const bad of [cut, changed]) {
      const result = decodeLink(bad);
      // A change can still decode (base64 has slack bits); then it is a checked state.
      if (result.error === null) assert.equal(result.state.v, VERSION);
      else assert.equal(result.state, null);
    }
  }), { numRuns: 300 });
});

test("a 30-line program gives a link short enough for a chat message", () => {
  const lines = ["x = [[0.5, -1.2], [2.0, 0.3]]", "W1 = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]", "b1 = [0.01, 0.02, 0.03]"];
  for (let i = 0; lines.length < 30; i++) lines.push(`h${i} = tanh(x @ W1 + b1) * ${(i + 1) / 10}  # layer ${i}`);
  const state = { program: lines.join("\n") + "\n", step: 41, speed: 4, theme: "projector", font: 1.5 };
  const url = `http://127.0.0.1:8000/#${encodeLink(state)}`;
  assert.ok(url.length < 2000, `${url.length} characters`);
  assert.ok(url.length < new URLSearchParams({ program: state.program }).toString().length); // it compresses
});

test("the older uncompressed fragment still opens", () => {
  const old = `#${encodeState({ ...defaultState(), program: "a = 1.0\nL = a * a  # é & = #\n", step: 3, speed: 8 })}`;
  assert.deepEqual(decodeLink(old), { state: { v: 1, program: "a = 1.0\nL = a * a  # é & = #\n", step: 3, speed: 8 }, error: null });
  assert.deepEqual(decodeLink("#preset=seed-tanh-fanout&step=14"), { state: { v: 1, preset: "seed-tanh-fanout", step: 14 }, error: null });
});

const packed = (object) => `#s=${Buffer.from(deflateSync(strToU8(JSON.stringify(object)))).toString("base64url")}`;

test("malformed, truncated, foreign and newer fragments give a message", () => {
  const good = encodeLink({ program: "a = 1.0\nL = a * a\n".repeat(5), step: 4 });
  assert.deepEqual(decodeLink(""), { state: null, error: null });
  assert.deepEqual(decodeLink("#"), { state: null, error: null });
  assert.deepEqual(decodeLink(`#${good.slice(0, good.length - 9)}`), { state: null, error: LINK_ERRORS.damaged });
  assert.deepEqual(decodeLink("#s=%%%"), { state: null, error: LINK_ERRORS.damaged });
  assert.deepEqual(decodeLink("#s=aGVsbG8"), { state: null, error: LINK_ERRORS.damaged }); // not deflate
  assert.deepEqual(decodeLink("#s="), { state: null, error: LINK_ERRORS.damaged });
  assert.deepEqual(decodeLink("#section-2"), { state: null, error: LINK_ERRORS.foreign });
  assert.deepEqual(decodeLink("#access_token=abc&x=1"), { state: null, error: LINK_ERRORS.foreign });
  assert.deepEqual(decodeLink(packed([1, 2])), { state: null, error: LINK_ERRORS.foreign });
  assert.deepEqual(decodeLink(packed({ program: "a = 1.0\n" })), { state: null, error: LINK_ERRORS.foreign }); // no v
  assert.deepEqual(decodeLink(packed({ v: 2, program: "a = 1.0\n" })), { state: null, error: LINK_ERRORS.newer(2) });
  assert.match(LINK_ERRORS.newer(2), /newer version of gradwalk \(state version 2\)/);
  // A v1 state with ill-typed fields keeps the good ones.
  assert.deepEqual(decodeLink(packed({ v: 1, program: "a = 1.0\n", step: -1, speed: 3, theme: "pink", font: 9, extra: 1 })),
    { state: { v: 1, program: "a = 1.0\n" }, error: null });
  assert.deepEqual(checkState({ v: 1, step: 2, hide_program: true }), { state: { v: 1, step: 2, hide_program: true }, error: null });
  assert.deepEqual(checkState("x"), { state: null, error: LINK_ERRORS.foreign });
});

test("linkState is the contract's object: v, the program, and what differs from the defaults", () => {
  assert.deepEqual(linkState(defaultState()), { v: 1, program: "" });
  const state = { ...defaultState(), program: MINE, draft: MINE, edits: { p1: "x" }, playing: true, step: 5, theme: "dark" };
  assert.deepEqual(linkState(state), { v: 1, program: MINE, step: 5, theme: "dark" });
  assert.deepEqual(linkState({ ...state, preset: LINKED, linked: MINE }), { v: 1, program: MINE, step: 5, theme: "dark" });
});

test("a link wins over the drafts without overwriting any of them", () => {
  const mine = after(pick(CUSTOM), type(MINE), pick("p1"), type("a = 5.0\n"));
  const linked = "z = 4.0\nL = z * z\n";
  const patch = openLink(mine, { v: 1, program: linked, step: 3, theme: "projector" }, PRESETS);
  assert.deepEqual(patch, { step: 3, theme: "projector", program: linked, preset: LINKED, linked, back: "p1" });
  const opened = { ...mine, ...patch };
  assert.equal(opened.draft, MINE);
  assert.deepEqual(opened.edits, { p1: "a = 5.0\n" });
  assert.deepEqual(menuFor(opened, PRESETS).options.map((o) => o.label), [CUSTOM_LABEL, LINKED_LABEL, `${EDITED_MARK} first`, "second"]);
  assert.equal(menuFor(opened, PRESETS).value, LINKED);
  assert.equal(canReset(opened), false);
  // The drafts are where they were, and the link's entry keeps its own text, edits and all.
  assert.equal(choosePreset(opened, CUSTOM, PRESETS).program, MINE);
  assert.equal(choosePreset(opened, "p1", PRESETS).program, "a = 5.0\n");
  const typed = { ...opened, ...editProgram(opened, linked + "# more\n", PRESETS) };
  assert.equal(typed.draft, MINE);
  assert.equal(choosePreset({ ...typed, preset: CUSTOM }, LINKED, PRESETS).program, linked + "# more\n");
  // Saved while the link's program shows: the entry shown before, with its text.
  assert.deepEqual(JSON.parse(savedEditor(typed, PRESETS)), { program: "a = 5.0\n", preset: "p1", draft: MINE, edits: { p1: "a = 5.0\n" } });
  assert.deepEqual(restoredEditor(savedEditor(typed, PRESETS), PRESETS), { program: "a = 5.0\n", preset: "p1", draft: MINE, edits: { p1: "a = 5.0\n" } });
  const fresh = { ...defaultState(), ...openLink(defaultState(), { v: 1, program: linked }, PRESETS) };
  assert.deepEqual(JSON.parse(savedEditor(fresh, PRESETS)), { program: "", preset: CUSTOM, draft: "", edits: {} });
});

test("a link to an example's own text opens that example; a link of view options keeps the text", () => {
  const state = after(pick(CUSTOM), type(MINE));
  assert.deepEqual(openLink(state, { v: 1, program: PRESETS[1].program, step: 2 }, PRESETS),
    { step: 2, program: PRESETS[1].program, preset: "p2", back: CUSTOM });
  assert.deepEqual(openLink(state, { v: 1, preset: "p1" }, PRESETS), { program: PRESETS[0].program, preset: "p1", back: CUSTOM });
  assert.deepEqual(openLink(state, { v: 1, speed: 8, font: 2 }, PRESETS), { speed: 8, font: 2 });
});

test("reloading one's own tab (its URL is a link) opens the entry one was on, not a link entry", () => {
  const state = after(pick(CUSTOM), type(MINE), pick("p1"), type("a = 5.0\n"));
  // On the edited example: the link names it and carries its edit.
  assert.deepEqual(openLink(state, { v: 1, preset: "p1", program: "a = 5.0\n", step: 2 }, PRESETS),
    { step: 2, program: "a = 5.0\n", preset: "p1", back: "p1" });
  // On one's own program: the link's text is the draft.
  assert.deepEqual(openLink(state, { v: 1, program: MINE }, PRESETS), { program: MINE, preset: CUSTOM, back: "p1" });
  // Someone else's edit of p1 is not ours: its own entry, our edit kept.
  assert.equal(openLink(state, { v: 1, preset: "p1", program: "a = 6.0\n" }, PRESETS).preset, LINKED);
});

test("forward mode and its tangent leaf go into the link and come back", () => {
  assert.deepEqual(MODES, ["reverse", "forward", "train"]);
  const state = { ...defaultState(), program: MINE, step: 4, mode: "forward", tangent: "w" };
  assert.deepEqual(linkState(state), { v: 1, program: MINE, step: 4, mode: "forward", tangent: "w" });
  const { state: back, error } = decodeLink(`#${encodeLink(state)}`);
  assert.equal(error, null);
  assert.deepEqual(back, { v: 1, program: MINE, step: 4, mode: "forward", tangent: "w" });
  // the older query form too
  assert.deepEqual(decodeLink(`#${encodeState(state)}`).state, { v: 1, program: MINE, step: 4, mode: "forward", tangent: "w" });
  // opened over a fresh page: forward mode on leaf w, at step 4
  assert.deepEqual(openLink(defaultState(), back, PRESETS),
    { step: 4, mode: "forward", tangent: "w", program: MINE, preset: LINKED, linked: MINE, back: CUSTOM });
  // reverse mode, the default, is not written
  assert.deepEqual(linkState({ ...state, mode: "reverse", tangent: "" }), { v: 1, program: MINE, step: 4 });
});

test("a tensor leaf's tangent direction goes into the link and comes back", () => {
  const state = { ...defaultState(), program: MINE, mode: "forward", tangent: "W", tangent_direction: "random", tangent_seed: 7 };
  const { state: back } = decodeLink(`#${encodeLink(state)}`);
  assert.deepEqual(back, { v: 1, program: MINE, mode: "forward", tangent: "W", tangent_direction: "random", tangent_seed: 7 });
  const element = { ...state, tangent_direction: "element", tangent_element: 5 };
  assert.deepEqual(decodeLink(`#${encodeLink(element)}`).state,
    { v: 1, program: MINE, mode: "forward", tangent: "W", tangent_element: 5, tangent_seed: 7 });
  // opened in a tab that had another direction: the link's, its defaults where it has none
  const tab = { ...defaultState(), tangent_direction: "random", tangent_element: 3, tangent_seed: 9 };
  const patch = openLink(tab, { v: 1, program: MINE, mode: "forward", tangent: "W", tangent_element: 5 }, PRESETS);
  assert.deepEqual([patch.tangent_direction, patch.tangent_element, patch.tangent_seed], ["element", 5, 1]);
  // ill-typed fields are dropped
  assert.deepEqual(checkState({ v: 1, tangent_direction: "sideways", tangent_element: -1, tangent_seed: 1.5 }).state, { v: 1 });
});

test("a bad mode is dropped: the link opens in reverse mode", () => {
  assert.deepEqual(checkState({ v: 1, program: MINE, mode: "hvp", tangent: 3 }), { state: { v: 1, program: MINE }, error: null });
  assert.deepEqual(decodeState("mode=sideways&tangent=w"), { tangent: "w" });
  assert.deepEqual(checkState({ v: 1, mode: "forward", tangent: "" }), { state: { v: 1, mode: "forward", tangent: "" }, error: null });
});

test("an older link (no mode, no tangent) opens in reverse mode, also in a tab in forward mode", () => {
  const old = packed({ v: 1, program: MINE, step: 2 }); // as links were written before the fields
  const { state: link } = decodeLink(old);
  assert.deepEqual(link, { v: 1, program: MINE, step: 2 });
  const fresh = { ...defaultState(), ...openLink(defaultState(), link, PRESETS) };
  assert.equal(fresh.mode, "reverse");
  assert.equal(fresh.tangent, "");
  const inForward = { ...defaultState(), mode: "forward", tangent: "w" };
  const patch = openLink(inForward, link, PRESETS);
  assert.equal(patch.mode, "reverse");
  assert.equal(patch.tangent, "");
  assert.equal({ ...inForward, ...openLink(inForward, decodeLink("#step=3").state, PRESETS) }.mode, "reverse");
  // a link in forward mode over a tab already there patches nothing of the mode
  const same = openLink(inForward, { v: 1, program: MINE, mode: "forward", tangent: "w" }, PRESETS);
  assert.equal(Object.hasOwn(same, "mode") || Object.hasOwn(same, "tangent"), false);
});

// One limit of train iterations for link, box and server (livefix14 §2): a link once opened
// "Iterations 50000", a value the box itself refused, so typing anything reverted to it.
test("a link past the iterations' limit opens clamped to it, with a note", () => {
  assert.equal(MAX_TRAIN_STEPS, 10_000);
  const { state, note } = checkState({ v: 1, program: "x = 1", train_steps: 50_000, train_iteration: 40_000 });
  assert.equal(state.train_steps, 10_000);
  assert.equal(state.train_iteration, 9_999);
  assert.match(note, /asked for 50,000 training iterations; the most is 10,000/);
  assert.equal(checkState({ v: 1, train_steps: 10_000 }).note, undefined);
  assert.equal(decodeLink("train_steps=50000").state.train_steps, undefined);
});

// The lecturer's page held train_iteration 299 after Iterations was lowered to 101 (livemsg14
// §2): its URL, and a live room opened from it, named an iteration the run has not.
test("a run made shorter clamps the iteration chosen in it, in the one state object", () => {
  const store = createStore({ train_steps: 300 });
  store.set({ train_iteration: 299, train_chosen: true });
  const seen = [];
  store.subscribe((s, before) => seen.push([before.train_iteration, s.train_iteration]));
  store.set({ train_steps: 101 });
  assert.equal(store.get().train_iteration, 100);
  assert.deepEqual(seen, [[299, 100]]); // subscribers see the clamped state, never 299 of 101
  assert.equal(store.get().train_chosen, true);
  store.set({ train_steps: 300 }); // lengthened again: the iteration stays where it was
  assert.equal(store.get().train_iteration, 100);
  store.set({ train_steps: 1, train_iteration: 7 });
  assert.equal(store.get().train_iteration, 0);
  assert.equal(createStore({ train_steps: 10, train_iteration: 50 }).get().train_iteration, 9);
  const untouched = createStore();
  const before = untouched.get();
  untouched.set({});
  assert.equal(untouched.get().train_iteration, before.train_iteration);
});

test("the train boxes read plain numbers only", () => {
  for (const typed of ["0", "-5", "10001", "2.5", "1e3", "0x10", "", "abc"]) assert.equal(readTrainSteps(typed), undefined, typed);
  assert.equal(readTrainSteps(" 101 "), 101);
  assert.equal(readTrainSteps("10000"), 10_000);
  for (const typed of ["0x10", "0", "-1", "Infinity", "", "1e7"]) assert.equal(readRate(typed), undefined, typed);
  assert.equal(readRate("0.05"), 0.05);
  assert.equal(readRate("1e-3"), 0.001);
});
