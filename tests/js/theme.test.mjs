// The look: theme and font scale on the root element, and the A−/A+ steps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyTheme, FONT_STEPS, nextFont } from "../../static/js/theme.js";
import { FONT_LIMITS } from "../../static/js/state.js";

/** A stand-in for document.documentElement: dataset and style.setProperty. */
function fakeRoot() {
  const props = {};
  return { dataset: {}, style: { setProperty: (k, v) => { props[k] = v; } }, props };
}

test("a picked theme is set as data-theme; auto leaves it unset so the CSS follows the system", () => {
  const root = fakeRoot();
  applyTheme(root, { theme: "projector", font: 1.5 });
  assert.equal(root.dataset.theme, "projector");
  assert.equal(root.props["--font-scale"], "1.5");
  applyTheme(root, { theme: "auto", font: 1 });
  assert.equal("theme" in root.dataset, false);
  assert.equal(root.props["--font-scale"], "1");
  applyTheme(root, { theme: "dark" });
  assert.equal(root.dataset.theme, "dark");
  applyTheme(root, { theme: "neon", font: Number.NaN }); // unknown: as auto; no NaN in the CSS
  assert.equal("theme" in root.dataset, false);
  assert.equal(root.props["--font-scale"], "1");
  applyTheme(root, { theme: "light", font: 99 });
  assert.equal(root.props["--font-scale"], String(FONT_LIMITS.max));
});

test("A+ and A− step through the sizes, from any scale, and stop at the ends", () => {
  assert.deepEqual([...FONT_STEPS].sort((a, b) => a - b), FONT_STEPS);
  assert.ok(FONT_STEPS.includes(1) && FONT_STEPS.includes(2));
  assert.equal(nextFont(1, +1), 1.15);
  assert.equal(nextFont(1, -1), 0.85);
  assert.equal(nextFont(1.2, +1), 1.3); // a link's own scale steps to the next size
  assert.equal(nextFont(1.2, -1), 1.15);
  const top = FONT_STEPS.at(-1);
  assert.equal(nextFont(top, +1), top);
  assert.equal(nextFont(FONT_STEPS[0], -1), FONT_STEPS[0]);
});

test("the diverging scale: blue below zero, the middle at zero, orange above, clamped", async () => {
  const { divergingColor, DIVERGING_STEPS } = await import("../../static/js/theme.js");
  assert.equal(DIVERGING_STEPS, 9);
  assert.equal(divergingColor(0, 2), "var(--div-4)");
  assert.equal(divergingColor(-2, 2), "var(--div-0)");
  assert.equal(divergingColor(2, 2), "var(--div-8)");
  assert.equal(divergingColor(1, 2), "var(--div-6)");
  assert.equal(divergingColor(-50, 2), "var(--div-0)");
  assert.equal(divergingColor(Number.NaN, 2), "var(--div-4)");
  assert.equal(divergingColor(1, 0), "var(--div-4)");
});
