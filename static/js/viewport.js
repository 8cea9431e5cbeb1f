// The camera over the graph: which part of the layout the <svg> shows, and how large.
// No DOM and no d3 (render/zoom.js applies these transforms with d3-zoom), so `node --test`
// covers it. A transform {k, x, y} maps a layout point p to the screen point k * p + (x, y),
// like d3.zoomTransform.

import { METRICS } from "./layout.js";

// The smallest text that matters on a projector is a node's numbers: below this scale they
// print under 14 px, so the automatic view stops shrinking there and the user pans instead.
export const MIN_TEXT_PX = 14;
export const READABLE_SCALE = MIN_TEXT_PX / METRICS.numFont;
// A small graph is not blown up to poster size.
export const MAX_FIT_SCALE = 2;
// Wheel and buttons stay within these; zooming out further than the readable scale (to see
// a big graph whole) is the user's choice.
export const ZOOM_LIMITS = { min: 0.02, max: 4 };
const MARGIN = 16; // screen px kept around the drawing and around a revealed box

/**
 * The automatic view of `content` ({width, height} of the layout) in `view` ({width, height}
 * of the svg, px): as large as fits, between READABLE_SCALE and MAX_FIT_SCALE. A dimension
 * that fits is centred; one that does not starts at its beginning (the inputs, on the left).
 */
export function fitTransform(content, view, { min = READABLE_SCALE, max = MAX_FIT_SCALE } = {}) {
  const fits = (size, room) => (room - 2 * MARGIN) / Math.max(size, 1);
  const whole = Math.min(fits(content.width, view.width), fits(content.height, view.height));
  const k = Math.max(min, Math.min(max, whole));
  const place = (size, room) => (size * k <= room - 2 * MARGIN ? (room - size * k) / 2 : MARGIN);
  return { k, x: place(content.width, view.width), y: place(content.height, view.height) };
}

/** The scale at which all of `content` fits in `view`, however small. */
export function wholeScale(content, view) {
  return fitTransform(content, view, { min: 0, max: Infinity }).k;
}

/** The smallest box holding the layout boxes of `ids` (unknown ids are skipped), or null. */
export function boxOf(layout, ids) {
  const nodes = layout.nodes.filter((n) => ids.includes(n.id));
  if (!nodes.length) return null;
  return {
    x0: Math.min(...nodes.map((n) => n.x - n.width / 2)),
    y0: Math.min(...nodes.map((n) => n.y - n.height / 2)),
    x1: Math.max(...nodes.map((n) => n.x + n.width / 2)),
    y1: Math.max(...nodes.map((n) => n.y + n.height / 2)),
  };
}

/**
 * A transform at the same scale as `t` that brings `box` (layout units) into `view`; null
 * when it is already in view, so the camera moves only when the step would otherwise be off
 * screen. Along an axis it was out of, the box, padded by `pad` units (room for a callout),
 * is centred, or starts at the margin when it is larger than the view.
 */
export function revealTransform(t, box, view, pad = 0) {
  if (!box) return null;
  const axis = (lo, hi, shift, room) => {
    if (t.k * lo + shift >= 0 && t.k * hi + shift <= room) return shift;
    const size = t.k * (hi - lo + 2 * pad);
    if (size > room - 2 * MARGIN) return MARGIN - t.k * (lo - pad);
    return (room - size) / 2 - t.k * (lo - pad);
  };
  const x = axis(box.x0, box.x1, t.x, view.width);
  const y = axis(box.y0, box.y1, t.y, view.height);
  return x === t.x && y === t.y ? null : { k: t.k, x, y };
}
