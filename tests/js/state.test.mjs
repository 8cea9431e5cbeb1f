import { test } from "node:test";
import assert from "node:assert/strict";
import { createStore, decodeState, defaultState, encodeState } from "../../static/js/state.js";

test("the default state", () => {
  assert.deepEqual(defaultState(), { playing: false, preset: "", program: "", step: 0, speed: 2 });
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
