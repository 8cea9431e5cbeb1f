// Issue 14, section 1: nothing typed is lost by one click (state.js, resets.js). The browser test is
// tests/e2e/test_lost_work_page.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { choosePreset, createStore, CUSTOM, editProgram } from "../../static/js/state.js";
import { canReset, resetExample, resetKeeps } from "../../static/js/resets.js";

const TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n";
const PRESETS = [{ id: "tanh", title: "tanh", program: TANH }, { id: "p2", title: "p2", program: "b = 2.0\nL = b + b\n" }];
const TYPED = "w = 3.0\nx = 2.0\nL = relu(w * x - 1.0)";
const MINE = "q = 1.0\nL = q * q\n";

function after(...patches) {
  const store = createStore({ preset: "tanh", program: TANH });
  for (const patch of patches) store.set(patch(store.get()));
  return store.get();
}
const type = (program, how) => (state) => editProgram(state, program, PRESETS, how);
const pick = (id) => (state) => choosePreset(state, id, PRESETS);

test("text typed into an emptied example is your program, however the editor reported it", () => {
  // Select all, Delete, then type: a deletion and insertions, none replacing the whole text.
  const state = after(type(""), type("w"), type("w ="), type(TYPED));
  assert.equal(state.preset, CUSTOM);
  assert.equal(state.draft, TYPED);
  assert.deepEqual(state.edits, {}); // the example keeps its own text
  assert.equal(after(type(""), type("w"), pick("tanh")).program, TANH);
  // Emptying alone changes nothing but the example's edit; a kept line is still an edit.
  assert.deepEqual(after(type("")).edits, { tanh: "" });
  assert.equal(after(type(""), type("a = 1.0")).preset, CUSTOM); // 1 of 7 lines: not derived
  assert.equal(after(type(`${TANH}# more\n`)).preset, "tanh");
  // ...and "✎ Your program" holding another text is never overwritten: it stays an edit.
  const held = after(pick(CUSTOM), type(MINE), pick("tanh"), type(""), type(TYPED));
  assert.equal(held.preset, "tanh");
  assert.equal(held.draft, MINE);
  assert.equal(held.edits.tanh, TYPED);
});

test("reset example keeps the edit it takes off as your program when that draft is free", () => {
  const edited = after(type(`${TANH}w = 3.0\n`));
  assert.equal(canReset(edited), true);
  assert.equal(resetKeeps(edited), "draft");
  const reset = { ...edited, ...resetExample(edited, PRESETS) };
  assert.equal(reset.program, TANH);
  assert.deepEqual(reset.edits, {});
  assert.equal(reset.draft, `${TANH}w = 3.0\n`);
  assert.equal(canReset(reset), false);
  // The issue's page: the typed program saved as the example's edit.
  const issue = { ...after(), edits: { tanh: TYPED }, program: TYPED };
  assert.deepEqual(resetExample(issue, PRESETS), { program: TANH, edits: {}, draft: TYPED });
  // A draft that already is that text is free; an emptied example has nothing to keep.
  assert.equal(resetKeeps({ ...issue, draft: TYPED }), "draft");
  const emptied = after(type(""));
  assert.equal(resetKeeps(emptied), "draft");
  assert.deepEqual(resetExample(emptied, PRESETS), { program: TANH, edits: {} });
});

test("reset example never overwrites your program: then only Ctrl+Z keeps the edit", () => {
  const state = { ...after(pick(CUSTOM), type(MINE), pick("tanh")), edits: { tanh: TYPED }, program: TYPED };
  assert.equal(resetKeeps(state), "undo");
  const patch = resetExample(state, PRESETS);
  assert.deepEqual(patch, { program: TANH, edits: {} });
  assert.equal({ ...state, ...patch }.draft, MINE);
});
