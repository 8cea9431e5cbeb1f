// The review's page defects (session 7, G8): search by a plainly typed versioned label, the
// raised digits of box labels, "✎ Your program" after pasting a different program, the
// expanded groups in links, and the camera's frame around open groups.
import { test } from "node:test";
import assert from "node:assert/strict";
import { searchKey, searchNodes } from "../../static/js/graphwalk.js";
import { plainDigits, superscriptRuns } from "../../static/js/groups.js";
import { placeCallout } from "../../static/js/layout.js";
import {
  checkState, CUSTOM, decodeLink, derivesFrom, editProgram, encodeLink, linkState, MAX_OPEN_GROUPS, openLink,
} from "../../static/js/state.js";
import { contentBox } from "../../static/js/boxes.js";

test("search: x1000, x 1000, x(1000) and x⁽¹⁰⁰⁰⁾ all find x⁽¹⁰⁰⁰⁾ first", () => {
  assert.equal(plainDigits("x⁽¹⁰⁰⁰⁾"), "x(1000)");
  assert.equal(searchKey("X⁽¹⁰⁰⁰⁾"), "x1000");
  const nodes = [
    { id: "n1", name: "x", label: "x⁽¹⁰⁰⁰⁰⁾" },
    { id: "n2", name: "x", label: "x⁽¹⁰⁰⁰⁾" },
    { id: "n3", name: "w", label: "w" },
  ];
  for (const q of ["x1000", "x 1000", "x(1000)", "x⁽¹⁰⁰⁰⁾", " X1000 "]) {
    assert.deepEqual(searchNodes(nodes, q).map((m) => [m.node.id, m.rank]), [["n2", 0], ["n1", 1]], q);
  }
  assert.deepEqual(searchNodes(nodes, "1000").map((m) => m.node.id), ["n1", "n2"]);
  assert.deepEqual(searchNodes(nodes, "w").map((m) => m.node.id), ["n3"]);
});

test("superscript runs: a label's version as plain digits to draw raised", () => {
  assert.deepEqual(superscriptRuns("out: x⁽⁶⁴⁾, y"), [
    { text: "out: x", sup: false }, { text: "(64)", sup: true }, { text: ", y", sup: false },
  ]);
  assert.deepEqual(superscriptRuns("in: a"), [{ text: "in: a", sup: false }]);
});

const PRESETS = [{ id: "p1", title: "first", program: "a = 1.5\nb = 2.0\nL = a * b\n" }];
const onExample = { preset: "p1", program: PRESETS[0].program, draft: "", edits: {}, linked: null };

test("a paste of a different program over an example is your own program, not the example (edited)", () => {
  const pasted = editProgram(onExample, "x = 1.0\n\ny = x +* 2\n", PRESETS, { replaced: true });
  assert.deepEqual(pasted, { program: "x = 1.0\n\ny = x +* 2\n", preset: CUSTOM, draft: "x = 1.0\n\ny = x +* 2\n", edits: {} });
  // A paste of the example changed a little still derives from it: its edit.
  const near = "a = 1.5\nb = 3.0\nL = a * b\n";
  assert.equal(derivesFrom(near, PRESETS[0].program), true);
  assert.deepEqual(editProgram(onExample, near, PRESETS, { replaced: true }), { program: near, edits: { p1: near } });
  // A draft already in "✎ Your program" is never overwritten by a paste over an example:
  // the paste stays the example's edit, and the draft keeps its text.
  const drafted = { ...onExample, draft: "mine = 2.0\n" };
  assert.deepEqual(editProgram(drafted, "x = 1.0\n", PRESETS, { replaced: true }),
    { program: "x = 1.0\n", edits: { p1: "x = 1.0\n" } });
  // Typing (no whole-text replacement) never moves the entry.
  assert.deepEqual(editProgram(onExample, "z = 1\n", PRESETS), { program: "z = 1\n", edits: { p1: "z = 1\n" } });
});

test("links carry the expanded groups (bounded), and opening one restores them", () => {
  const state = { ...onExample, step: 18, open_groups: ["g0", "g3"] };
  const back = decodeLink(encodeLink(state)).state;
  assert.deepEqual(back.open_groups, ["g0", "g3"]);
  assert.deepEqual(openLink(onExample, back, PRESETS).open_groups, ["g0", "g3"]);
  assert.equal("open_groups" in linkState({ ...onExample, open_groups: [] }), false); // the default is left out
  const many = Array.from({ length: MAX_OPEN_GROUPS + 1 }, (_, i) => `g${i}`);
  assert.equal("open_groups" in checkState({ v: 1, program: "", open_groups: many }).state, false);
  assert.equal("open_groups" in checkState({ v: 1, program: "", open_groups: ["<script>"] }).state, false);
});

test("the camera's content holds the frames; a callout keeps off a frame's title", () => {
  const node = { id: "n1", x: 200, y: 100, width: 120, height: 80 };
  const frame = { id: "g0", name: "x = x * 1.0001 ×2499", kind: "repeat", x: 300, y: 100, width: 400, height: 140 };
  const layout = { nodes: [node], edges: [], chips: [], frames: [frame], width: 520, height: 200 };
  assert.deepEqual(contentBox(layout), { x0: 100, y0: 30, x1: 500, y1: 170 });
  const size = { width: 160, height: 50 };
  const at = placeCallout(layout, "n1", size);
  const title = { x0: 100, x1: 100 + 44 + 9.5 * frame.name.length, y0: 30, y1: 56 };
  const r = { x0: at.x - 80, x1: at.x + 80, y0: at.y - 25, y1: at.y + 25 };
  const hits = r.x0 < title.x1 && title.x0 < r.x1 && r.y0 < title.y1 && title.y0 < r.y1;
  assert.equal(hits, false, JSON.stringify(at));
  // Without the frame the callout sits right above the node (where the title would be).
  assert.equal(placeCallout({ ...layout, frames: [] }, "n1", size).y, 100 - 40 - 6 - 25);
});
