import { test } from "node:test";
import assert from "node:assert/strict";
import {
  canReset, choosePreset, createStore, CUSTOM, CUSTOM_LABEL, decodeState, defaultState, editProgram,
  EDITED_MARK, encodeState, menuFor, presetFor, resetExample, restoredEditor, savedEditor,
} from "../../static/js/state.js";

const PRESETS = [
  { id: "p1", title: "first", program: "a = 1.0\nL = a * a\n" },
  { id: "p2", title: "second", program: "b = 2.0\nL = b + b\n" },
];
const MINE = "w = 3.0\nL = w * w * w\n";

test("the default state", () => {
  assert.deepEqual(defaultState(), { playing: false, draft: "", edits: {}, preset: "", program: "", step: 0, speed: 2 });
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
  assert.deepEqual(menu.options.map((o) => o.label), [CUSTOM_LABEL, "first", `second ${EDITED_MARK}`]);
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
