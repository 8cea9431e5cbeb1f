// The page's look for a lecture hall: a theme and a font scale from the page state, put on
// the document's root element. The colours are in static/css/themes.css; this only picks.
// No DOM beyond the element it is given, so `node --test` covers it.

import { FONT_LIMITS, THEMES } from "./state.js";

// The sizes the A−/A+ buttons step through (1 = the page's own size).
export const FONT_STEPS = [0.75, 0.85, 1, 1.15, 1.3, 1.5, 1.75, 2, 2.5, 3]
  .filter((s) => s >= FONT_LIMITS.min && s <= FONT_LIMITS.max);

/**
 * The font scale one step up (`direction` +1) or down (-1) from `font`, which need not be
 * one of FONT_STEPS (a link may carry 1.2); at either end it stays.
 */
export function nextFont(font, direction) {
  const steps = direction > 0 ? FONT_STEPS : [...FONT_STEPS].reverse();
  return steps.find((s) => (direction > 0 ? s > font + 1e-9 : s < font - 1e-9)) ?? font;
}

/**
 * Apply `theme` ("auto" | "light" | "dark" | "projector"; anything else is "auto") and
 * `font` (a scale) to `root` (document.documentElement): data-theme and --font-scale.
 * "auto" leaves data-theme unset, so the CSS follows prefers-color-scheme.
 */
export function applyTheme(root, { theme = "auto", font = 1 } = {}) {
  if (theme !== "auto" && THEMES.includes(theme)) root.dataset.theme = theme;
  else delete root.dataset.theme;
  const scale = Number.isFinite(font) ? Math.min(FONT_LIMITS.max, Math.max(FONT_LIMITS.min, font)) : 1;
  root.style.setProperty("--font-scale", String(scale));
}

/**
 * What the page's look asks of the graph drawn in `svg` (render/zoom.js; viewport.js
 * autoScale): `textScale`, the page's font scale (A−/A+: --font-scale, set on <html> by
 * applyTheme; the graph's text grows with it), and `minText`, the theme's least on-screen size
 * of a node's numbers (themes.css --graph-text, px: the projector's is the narration's size).
 */
export function graphLook(svg) {
  const read = (e, name) => parseFloat(getComputedStyle(e).getPropertyValue(name));
  return { textScale: read(svg.ownerDocument.documentElement, "--font-scale") || 1, minText: read(svg, "--graph-text") || 0 };
}

// A diverging scale for heat maps of signed numbers (a tensor's values or gradients): nine
// steps, --div-0 (most negative, Okabe-Ito blue) to --div-8 (most positive, vermillion),
// --div-4 for zero; themes.css defines them per theme.
export const DIVERGING_STEPS = 9;

/**
 * The CSS colour of `value` on the diverging scale symmetric about 0 with ends at ±`maxAbs`
 * (values beyond are clamped; NaN, or maxAbs 0, is the middle): "var(--div-k)".
 */
export function divergingColor(value, maxAbs) {
  const half = (DIVERGING_STEPS - 1) / 2;
  const t = maxAbs > 0 && Number.isFinite(value / maxAbs) ? Math.max(-1, Math.min(1, value / maxAbs)) : 0;
  return `var(--div-${Math.round(half + t * half)})`;
}
