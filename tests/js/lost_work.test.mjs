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

// Issue 14 §1 and the newcomer's review: "Practice" and "New numbers" replaced "✎ Your program".
test("practice opens as its own entry: your program keeps its text, also after a reload", async () => {
  const { practice } = await import("../../static/js/resets.js");
  const { menuFor, PRACTICE, PRACTICE_LABEL, restoredEditor, savedEditor } = await import("../../static/js/state.js");
  const mine = after(type(""), type(TYPED)); // the issue's steps: your program, from scratch
  assert.equal(mine.preset, CUSTOM);
  const generated = "# practice: seed=7\na = 1.0\nL = a * a\n";
  const { patch, keeps } = practice(mine, generated);
  assert.equal(keeps, "entry");
  const shown = { ...mine, ...patch };
  assert.equal(shown.preset, PRACTICE);
  assert.equal(shown.draft, TYPED); // not the practice text
  const menu = menuFor(shown, PRESETS);
  assert.deepEqual(menu.options.slice(0, 2).map((o) => o.label), ["✎ Your program", PRACTICE_LABEL]);
  assert.equal(menu.value, PRACTICE);
  assert.equal(choosePreset(shown, CUSTOM, PRESETS).program, TYPED);
  // Typing in the practice graph changes only it; a reload opens on your program.
  const typed = { ...shown, ...editProgram(shown, `${generated}# mine\n`, PRESETS) };
  assert.equal(typed.draft, TYPED);
  assert.equal(typed.practice, `${generated}# mine\n`);
  const saved = JSON.parse(savedEditor(typed, PRESETS));
  assert.deepEqual([saved.preset, saved.program, saved.draft], [CUSTOM, TYPED, TYPED]);
  assert.equal(restoredEditor(JSON.stringify(saved), PRESETS).draft, TYPED);
  // A second practice replaces the first, and still goes back to your program.
  assert.equal(practice(typed, generated).patch.back, CUSTOM);
  // Its link is a program of one's own to whoever opens it (as a link's entry is).
  const { linkState } = await import("../../static/js/state.js");
  assert.equal(Object.hasOwn(linkState(shown), "preset"), false);
  assert.equal(linkState(shown).program, generated);
});

test("new numbers over your program is kept only by Ctrl+Z, so the page asks; over an example it is an edit", async () => {
  const { newNumbers } = await import("../../static/js/resets.js");
  const mine = after(type(""), type(TYPED));
  const numbered = "w = 1.5\nx = -0.3\nL = relu(w * x - 1.0)";
  assert.equal(newNumbers(mine, numbered, PRESETS).keeps, "undo");
  const example = after();
  const fresh = newNumbers(example, TANH.replace("1.0", "0.4"), PRESETS);
  assert.equal(fresh.keeps, "example");
  assert.equal({ ...example, ...fresh.patch }.preset, "tanh"); // an edit: Reset example brings it back
  assert.equal(canReset({ ...example, ...fresh.patch }), true);
  assert.equal(newNumbers({ ...example, ...fresh.patch }, TANH, PRESETS).keeps, "numbers"); // its own numbers
  assert.equal(newNumbers(after(type(`${TANH}# mine\n`)), TANH, PRESETS).keeps, "undo"); // an edited example
});

test("new numbers twice asks once: the numbers it gave were not typed", async () => {
  const { newNumbers } = await import("../../static/js/resets.js");
  const mine = after(type(""), type(TYPED));
  const first = newNumbers(mine, "w = 1.5\nx = -0.3\nL = relu(w * x - 1.0)", PRESETS);
  const shown = { ...mine, ...first.patch };
  assert.equal(newNumbers(shown, "w = 0.2\nx = 1.1\nL = relu(w * x - 1.0)", PRESETS).keeps, "numbers");
  const typedIn = { ...shown, ...type("w = 9.0\nx = -0.3\nL = relu(w * x - 1.0)")(shown) };
  assert.equal(newNumbers(typedIn, "w = 0.2\nx = 1.1\nL = relu(w * x - 1.0)", PRESETS).keeps, "undo");
});
