import { test } from "node:test";
import assert from "node:assert/strict";
import {
  choosePreset, createStore, CUSTOM, CUSTOM_LABEL, decodeState, defaultState, editProgram,
  encodeState, menuFor, presetFor, restoredEditor, savedEditor,
} from "../../static/js/state.js";

const PRESETS = [
  { id: "p1", title: "first", program: "a = 1.0\nL = a * a\n" },
  { id: "p2", title: "second", program: "b = 2.0\nL = b + b\n" },
];
const MINE = "w = 3.0\nL = w * w * w\n";

test("the default state", () => {
  assert.deepEqual(defaultState(), { playing: false, draft: "", preset: "", program: "", step: 0, speed: 2 });
});

test("the draft stays out of the URL: a link carries the program", () => {
  const hash = encodeState({ ...defaultState(), program: MINE, draft: MINE });
  assert.equal(hash, new URLSearchParams({ program: MINE }).toString());
});

test("encode keeps only what differs from the defaults, never `playing`", () => {
  assert.equal(encodeState(defaultState()), "");
  const hash = encodeState({ ...defaultState(), preset: "seed-tanh-fanout", step: 14, playing: true });
  assert.equal(hash, "preset=seed-tanh-fanout&step=14");
});

test("decode(encode(state)) gives the state back, program text included", () => {
  const state = { ...defaultState(), program: "a = 1.0\nL = a * a  # é & = #\n", step: 3, speed: 8 };
  const { playing, ...fields } = state;
  assert.deepEqual({ ...defaultState(), ...decodeState("#" + encodeState(state)) }, { ...fields, playing });
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

test("text that is no example's is the user's own, and becomes the draft", () => {
  assert.equal(presetFor(PRESETS[1].program, PRESETS), "p2");
  assert.equal(presetFor(MINE, PRESETS), CUSTOM);
  assert.deepEqual(editProgram(MINE, PRESETS), { program: MINE, preset: CUSTOM, draft: MINE });
  // Typing an example's text back selects it and leaves the draft alone.
  assert.deepEqual(editProgram(PRESETS[0].program, PRESETS), { program: PRESETS[0].program, preset: "p1" });
});

test("choosing an example never destroys the draft; choosing it back restores it", () => {
  const store = createStore({ preset: "p1", program: PRESETS[0].program });
  store.set(editProgram(MINE, PRESETS));
  store.set(choosePreset(store.get(), "p2", PRESETS));
  assert.equal(store.get().program, PRESETS[1].program);
  assert.equal(store.get().preset, "p2");
  assert.equal(store.get().draft, MINE);
  store.set(choosePreset(store.get(), "p1", PRESETS)); // any number of examples later
  store.set(choosePreset(store.get(), CUSTOM, PRESETS));
  assert.equal(store.get().program, MINE);
  assert.equal(store.get().preset, CUSTOM);
  assert.deepEqual(choosePreset(store.get(), "no-such-preset", PRESETS), {});
});

test("the menu offers your program when there is one, and shows what the editor has", () => {
  const fresh = { ...defaultState(), preset: "p1", program: PRESETS[0].program };
  assert.deepEqual(menuFor(fresh, PRESETS), {
    options: [{ value: "p1", label: "first" }, { value: "p2", label: "second" }], value: "p1",
  });
  const mine = { ...fresh, ...editProgram(MINE, PRESETS) };
  assert.deepEqual(menuFor(mine, PRESETS).options[0], { value: CUSTOM, label: CUSTOM_LABEL });
  assert.equal(menuFor(mine, PRESETS).value, CUSTOM);
  const away = { ...mine, ...choosePreset(mine, "p2", PRESETS) };
  assert.equal(menuFor(away, PRESETS).value, "p2");
  assert.equal(menuFor(away, PRESETS).options.length, 3); // your program is still offered
});

test("the saved editor text comes back, and anything unusable means the first example", () => {
  const state = { ...defaultState(), preset: "p2", program: PRESETS[1].program, draft: MINE };
  assert.deepEqual(restoredEditor(savedEditor(state), PRESETS), { program: PRESETS[1].program, preset: "p2", draft: MINE });
  const mine = { ...defaultState(), ...editProgram(MINE, PRESETS) };
  assert.deepEqual(restoredEditor(savedEditor(mine), PRESETS), { program: MINE, preset: CUSTOM, draft: MINE });
  for (const junk of [null, "", "{", "[]", '{"program": 3}', "null"]) {
    assert.equal(restoredEditor(junk, PRESETS), null, String(junk));
  }
  assert.deepEqual(restoredEditor('{"program": "x = 1.0\\n"}', PRESETS), { program: "x = 1.0\n", preset: CUSTOM, draft: "" });
});
