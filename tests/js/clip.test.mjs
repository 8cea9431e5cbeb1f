// Issue 14, section 5: clipped labels close what they opened, cut at a token boundary, and
// keep a group's repeat count (static/js/clip.js; used by the group boxes and the chips).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { clipLabel } from "../../static/js/clip.js";
import { clip } from "../../static/js/groups.js";
import { chipText, CHIP } from "../../static/js/layout.js";

const len = (s) => [...s].length;

/** Whether every bracket and quote in `s` is closed (brackets inside a string are text). */
function balanced(s) {
  const open = [];
  for (const c of s) {
    const top = open.at(-1);
    if (top === '"' || top === "'") { if (c === top) open.pop(); continue; }
    if ("([{\"'".includes(c)) open.push(c);
    else if (")]}".includes(c)) {
      if ({ ")": "(", "]": "[", "}": "{" }[c] !== open.pop()) return false;
    }
  }
  return open.length === 0;
}

test("the issue's label: its brackets and its string closed, cut between tokens", () => {
  const label = 'ā = ∂L/∂(gelu(z, approximate="tanh")) += 0.5 * t̄';
  const out = clipLabel(label, 30);
  assert.equal(out, "ā = ∂L/∂(gelu(z…))"); // "…(z, approximate…))" would be 32 (ā is a + ◌̄)
  assert.ok(len(out) <= 30 && balanced(out));
  assert.equal(clipLabel('∂L/∂(gelu(z, approximate="tanh"))', 30), "∂L/∂(gelu(z, approximate…))");
});

test("a group's title keeps its repeat count", () => {
  assert.equal(clipLabel("x1 = tanh(x0) * 0.9 + 0.1 ×5000", 30), "x1 = tanh(x0) * 0.9 + … ×5000");
  assert.equal(clip("x1 = tanh(x0) * 0.9 + 0.1 ×5000", 30), "x1 = tanh(x0) * 0.9 + … ×5000"); // groups.js
  assert.equal(clipLabel("w + … + w_first_layer", 12), "w + …"); // one ellipsis (engine/clip.py alike)
  assert.equal(clipLabel("x1 = tanh(x0) * 0.9 + 0.1 ×50", 30), "x1 = tanh(x0) * 0.9 + 0.1 ×50"); // fits
});

test("a number, a name and a string are never cut inside, unless one alone is too long", () => {
  assert.equal(clipLabel("h = relu(X @ W1 + b1) * 0.123456", 24), "h = relu(X @ W1 + b1)…");
  assert.equal(clipLabel("f(a, b)", 5), "f(a…)");
  assert.equal(clipLabel("f(a, b)", 4), "f…"); // not "f(…)": an opener is not kept alone
  assert.equal(clipLabel("a_very_long_name_indeed", 8), "a_very_…"); // one token: cut inside
  assert.equal(clipLabel(" ×000", 4), " ×…"); // a count with no room beside it is text (fast-check found it)
  assert.equal(chipText("w1 * relu(x)"), "w1 * relu…"); // a chip (layout.js)
  assert.ok(len(chipText("weights_of_layer1")) <= CHIP.maxChars);
});

test("any text: at most max characters, balanced when the text was, unchanged when it fits", () => {
  const alphabet = fc.constantFrom(..."ab1.0 ()[]+*=,\"x×5");
  fc.assert(fc.property(fc.string({ unit: alphabet, maxLength: 60 }), fc.integer({ min: 4, max: 40 }), (text, max) => {
    const out = clipLabel(text, max);
    if (len(text) <= max) return out === text;
    return len(out) <= max && out.includes("…") && (!balanced(text) || balanced(out));
  }), { numRuns: 2000 });
});
