// The camera over the graph: which part of the layout the <svg> shows, and how large.
// No DOM and no d3 (render/zoom.js applies these transforms with d3-zoom), so `node --test`
// covers it. A transform {k, x, y} maps a layout point p to the screen point k * p + (x, y),
// like d3.zoomTransform. What a moment of the walk needs on screen (its box) is boxes.js's.

import { union } from "./boxes.js";
import { METRICS } from "./layout.js";

// The smallest text that matters on a projector is a node's numbers: below this scale they
// print under 14 px, so the automatic view stops shrinking there and the user pans instead.
export const MIN_TEXT_PX = 14;
export const READABLE_SCALE = MIN_TEXT_PX / METRICS.numFont;
// Under this on-screen size (px) the nodes' numbers are not drawn (app.css, by the svg's
// data-numbers): an overview at step 0 or Done, or the user's zoom. Names, shapes and heat
// maps still read there, and the narration and the detail panel give the numbers (the
// 2-layer MLP's were drawn at 5 px at Done at 1280x800: issue 14).
export const NUMBERS_FROM_PX = 10;
// The least scale at which a box's numbers are drawn: the camera zooms out this far, no
// further, to frame a selected node with its inputs and consumers beside its detail panel.
export const NUMBERS_SCALE = NUMBERS_FROM_PX / METRICS.numFont;
// A small graph is not blown up to poster size.
export const MAX_FIT_SCALE = 2;
// At step 0 and Done (overview moments: where the walk starts, and the leaves' gradients read
// out) the camera zooms out below the readable scale, down to this, to show the whole graph
// (else its leaves and output); the next step zooms back in. Numbers are not drawn under
// NUMBERS_FROM_PX (at 0.25 they printed at 5 px, which no projector shows: issue 14), so an
// overview shows the graph's shape, names and heat maps; the narration reads the numbers.
// Below it the camera shows the output and says so (data-whole, and a note over the graph).
export const OVERVIEW_SCALE = 0.25;
// A step whose two ends (and its note) do not fit at the readable floor is shown whole at down
// to this share of it, for that step only (render/zoom.js `reach`; the next step zooms back
// in): "XOR, seed 003" at iteration 100 at 1024x768 on a projector (a 760 x 272 px graph area)
// had one end cut at 8 of its 34 steps, step 29's W1.T by 24 px at the right, and needed down
// to 0.75 of 0.778 (step 23). Numbers then print at 10.5 px, still drawn (NUMBERS_FROM_PX).
export const STEP_REACH = 0.74;
// In the projector theme a step whose title would be cut at the graph's top at the readable
// floor zooms out for it down to this share of the floor, for that step only: its numbers at
// 13 px (mlp-classifier's step 14 at 1024x768 needed 0.939 for b2's title; further, down to
// STEP_REACH, step 17 printed them at 11.3 px, under what a projector shows: test_projector_layout).
export const TITLE_REACH = 13 / 14;
// Wheel and buttons stay within these; zooming out further than the readable scale (to see
// a big graph whole) is the user's choice.
export const ZOOM_LIMITS = { min: 0.02, max: 4 };
export const MARGIN = 16; // screen px kept around the drawing and around a revealed box
export const EDGE = 4; // screen px a box in view keeps from the edge: a step's node outline is 6 wide

/**
 * How far the automatic view may zoom out below its own scale for a moment (least scales, or
 * null: not at all), one table for render/zoom.js: `ends`, to show all of a step's box (its
 * two ends and note: revealTransform's `reach`), and `titles`, to keep a title whole at the
 * graph's top (clearance.js uncutView's `least`). `auto` is autoScale's; `phone` a narrow
 * screen's view (readableWhole); `pinned` the framing of a selected node with its neighbours
 * beside its panel; `asked` a quiz's asked node; `marked` marks drawn over boxes (Compare's Δ,
 * dead tags). Beside a panel, as far as the numbers are drawn (NUMBERS_SCALE: at 1024x768 on a
 * projector W1 was framed alone, its consumer under the panel, then X's title under the trace
 * bar); a phone keeps its floor for titles; a question its floor (the asked node is framed
 * alone instead); a step's ends down to STEP_REACH of the floor, and its titles as far where
 * marks are drawn, to TITLE_REACH in a theme whose own text floor is above the readable one
 * (the projector's: the walk's scale there is what its steps leave room for), and not at all
 * in the default theme, whose floor is the reader's own size (A+: test_lecture_hall).
 */
export function reaches(auto, { phone = false, pinned = false, asked = false, marked = false } = {}) {
  const step = auto.floor * STEP_REACH;
  const title = marked ? step : auto.themed > auto.floor ? auto.floor * TITLE_REACH : auto.floor;
  return {
    ends: phone ? OVERVIEW_SCALE : pinned ? NUMBERS_SCALE : asked ? null : step,
    titles: asked ? auto.floor : phone ? null : pinned ? NUMBERS_SCALE : title,
  };
}

/** `content` as a box {x0, y0, x1, y1}: a box already, or {width, height} from the origin. */
function asBox(content) {
  return "x0" in content ? content : { x0: 0, y0: 0, x1: content.width, y1: content.height };
}

/**
 * The automatic view of `content` (a box in layout units, or {width, height} from the
 * origin) in `view` ({width, height} of the svg, px): as large as fits, between `min`
 * (READABLE_SCALE) and `max` (MAX_FIT_SCALE). A dimension that fits is centred; one that
 * does not starts at its beginning (the inputs, on the left; the top row).
 */
export function fitTransform(content, view, { min = READABLE_SCALE, max = MAX_FIT_SCALE, margin = MARGIN } = {}) {
  const box = asBox(content);
  const fits = (size, room) => (room - 2 * margin) / Math.max(size, 1);
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const whole = Math.min(fits(width, view.width), fits(height, view.height));
  const k = Math.max(min, Math.min(max, whole));
  const place = (lo, size, room) => (size * k <= room - 2 * margin ? (room - size * k) / 2 : margin) - k * lo;
  return { k, x: place(box.x0, width, view.width), y: place(box.y0, height, view.height) };
}

/** The scale at which all of `content` fits in `view`, however small. */
export function wholeScale(content, view) {
  return wholeTransform(content, view).k;
}

/** The view of all of `content`, centred, at whatever scale that takes (up to `max`). */
export function wholeTransform(content, view, { max = MAX_FIT_SCALE, margin = MARGIN } = {}) {
  return fitTransform(content, view, { min: 0, max, margin });
}

/**
 * The automatic view's scale limits {min, max, themed (the
 * theme's floor alone)}. `textScale` (the page's font scale) raises
 * the smallest and the largest alike, so larger text is larger in the graph too; `minText`
 * (px, the theme's: the projector's narration size, else 0) is the least on-screen size of
 * a node's numbers (METRICS.numFont layout px), so the graph reads as large as the narration.
 */
export function autoScale({ textScale = 1, minText = 0 } = {}) {
  const themed = minText / METRICS.numFont; // the theme's own floor (0 unless it asks)
  const floor = READABLE_SCALE * textScale;
  const min = Math.max(floor, themed);
  return { min, max: Math.max(min, MAX_FIT_SCALE * textScale), themed, floor };
}

/**
 * The automatic view for `content` (the drawing, contentBox) in `view` (px): {min, max} for
 * fitTransform and `box`, what it fits. Options as autoScale's plus `steps` (stepBoxes: what
 * each step of the walk needs on screen, or null). A graph that fits whole at the readable
 * floor is shown whole, as large as fits: with every step's callout (`box` holds them: a
 * fitted view then never pans) when that fits too, else the drawing (a step whose callout
 * hangs past it pans a little). A lecturer sees all of a small graph: the tanh example's c, t
 * and L were off screen at 1024x768 in the projector theme, whose 23.6 px numbers asked for
 * scale 1.31. A bigger graph is shown at the theme's size (autoScale's min) unless a step
 * would not fit whole in the view at it: then at the largest scale where every step does,
 * down to the floor, so both ends of each step are on screen at once (its sending node was
 * under the narration). `scale` (a number) sets the scale instead (render/zoom.js: zoomed out
 * to keep the top edge from cutting a title).
 */
export function viewScale(content, view, { textScale = 1, minText = 0, steps = null, scale = null } = {}) {
  const { min, max, floor } = autoScale({ textScale, minText });
  const drawing = asBox(content);
  const all = (steps ?? []).reduce(union, drawing);
  if (scale !== null) return { min: scale, max: scale, box: wholeScale(all, view) >= scale ? all : drawing };
  if (wholeScale(all, view) >= floor) return { min: floor, max, box: all };
  if (wholeScale(drawing, view) >= floor) return { min: floor, max, box: drawing };
  let k = min;
  for (const s of steps ?? []) k = Math.min(k, wholeScale(s, view));
  return { min: Math.max(floor, k), max, box: drawing };
}

/**
 * The automatic view, keeping `focus` (a box in layout units, or null) in view: the fitted
 * view, panned at its scale when the focus would be off screen. With no focus (a new
 * drawing) `home` (the output's box) is brought into view instead: a graph wider than the
 * view shows its output side, where the walk's result is. Options as viewScale's, and
 * `overview` as revealTransform's.
 */
export function fitAround(content, view, focus, { home = null, ...options } = {}) {
  const scale = viewScale(content, view, options);
  const t = fitTransform(scale.box, view, scale);
  return revealTransform(t, focus ?? home, view, options) ?? t;
}

/**
 * The automatic view after a step, from `now` (the camera's transform, or where its glide
 * is going): at the automatic scale, each axis along which all of `content` fits is placed
 * as fitTransform places it (so no node is left cut off at an edge with room to spare); an
 * axis that does not fit keeps `now`'s position (if the scale is the same); then `focus` is
 * revealed. Options as viewScale's, and `overview` as revealTransform's. Returns a
 * transform {k, x, y}.
 */
export function followTransform(now, content, view, focus, options = {}) {
  const scale = viewScale(content, view, options);
  const box = scale.box;
  const base = fitTransform(box, view, scale);
  const same = Math.abs(now.k - base.k) < 1e-9;
  const fits = (size, length) => base.k * size <= length - 2 * MARGIN;
  const t = {
    k: base.k,
    x: same && !fits(box.x1 - box.x0, view.width) ? now.x : base.x,
    y: same && !fits(box.y1 - box.y0, view.height) ? now.y : base.y,
  };
  return revealTransform(t, focus, view, options) ?? t;
}

/**
 * `t` panned sideways so that `box`'s core, shown whole (an hvp walk's leaves, overviewBox),
 * sits at the margin on the side away from the rest of `box`, which then fills the view
 * instead of empty room around a centred core. `t` itself when `box` fits in width.
 */
function lean(t, box, view) {
  const core = box.core;
  if (t.k * (box.x1 - box.x0) <= view.width - 2 * MARGIN) return t;
  if (core.x0 <= box.x0 + 1e-9) return { ...t, x: MARGIN - t.k * core.x0 };
  if (core.x1 >= box.x1 - 1e-9) return { ...t, x: view.width - MARGIN - t.k * core.x1 };
  return t;
}

/**
 * A transform at the same scale as `t` that brings `box` (layout units) into `view`; null
 * (an overview box, overviewBox's, may zoom out to OVERVIEW_SCALE to show it all)
 * when it is already in view, so the camera moves only when the step would otherwise be off
 * screen. It pans as little as it can: along an axis the box was out of, just far enough to
 * show it with a margin, or from its start when it is larger than the view. When all of
 * `box` cannot be shown at this scale, its `core` (stepBox) is shown instead. `overview`:
 * the least scale an overview zooms out to (OVERVIEW_SCALE; a phone's is the readable
 * floor, autoScale's: at 0.31 its names printed at 7 px and its numbers were hidden).
 * `reach` (a narrow screen's: OVERVIEW_SCALE; else null): a step's box that does not fit at
 * t's scale is shown whole at a smaller one, down to `reach`, before its core alone is (the
 * camera keeps a step's sending and receiving nodes in view; the next step zooms back in).
 */
export function revealTransform(t, box, view, { overview = OVERVIEW_SCALE, reach = null } = {}) {
  if (!box) return null;
  const room = (size, length) => t.k * size <= length - 2 * MARGIN;
  const fitsAll = room(box.x1 - box.x0, view.width) && room(box.y1 - box.y0, view.height);
  // A step's box that fits only with less than MARGIN around it is shown whole, nearer the
  // edges, before its core alone is: mlp-classifier's step 14 with Compare runs on at 1024x768
  // on a projector needed 13 px of margin more, and its `+=` note was cut at the graph's foot.
  const tight = (size, length) => t.k * size <= length - 2 * EDGE;
  const fitsTight = tight(box.x1 - box.x0, view.width) && tight(box.y1 - box.y0, view.height);
  if (box.whole && !fitsAll) {
    // Zoom out to show it all, but never below the readable scale (numbers projected at
    // 9 px help nobody): then the output (its core; an hvp walk's leaves, overviewBox) is
    // shown at that scale, with the leaves nearest it; Fit shows everything on request.
    const all = wholeTransform(box, view, { max: t.k });
    if (all.k >= Math.min(t.k, overviewFloor(box, overview))) return all;
    const k = Math.min(t.k, Math.max(READABLE_SCALE, overview));
    const shown = revealTransform({ ...t, k }, box.core, view, { overview, reach }) ?? { ...t, k };
    return box.core.lean ? lean(shown, box, view) : shown;
  }
  if (box.core && !fitsTight) {
    // A narrow screen (`reach`) zooms out, for this step only, to show both of its ends (a
    // phone at 390 px had the tanh example's `a` off screen as it flowed into d = e + a)
    // (EDGE px from the edges, as a box in view keeps: with MARGIN the XOR walk's step 23 at
    // 1024x768 needed more than STEP_REACH)
    const all = reach ? wholeTransform(box, view, { max: t.k, margin: EDGE }) : null;
    if (all && all.k >= reach) return all;
    return revealTransform(t, box.core, view, { overview, reach });
  }
  const axis = (lo, hi, shift, length) => {
    const start = t.k * lo + shift;
    const end = t.k * hi + shift;
    // In view, with a little room for the thick outline and glow of a step's node: stay.
    if (start >= EDGE && end <= length - EDGE) return shift;
    // no room for the margins: centred, at least EDGE from either edge
    if (!room(hi - lo, length) && tight(hi - lo, length)) return (length - t.k * (hi - lo)) / 2 - t.k * lo;
    // its start at the margin (also when it starts within EDGE of the left: aligning its end
    // then panned a fitted tanh example 765 px right, its output off screen)
    if (!room(hi - lo, length) || start < EDGE) return MARGIN - t.k * lo;
    return length - MARGIN - t.k * hi; // its end, at the margin
  };
  const x = axis(box.x0, box.x1, t.x, view.width);
  const y = axis(box.y0, box.y1, t.y, view.height);
  return x === t.x && y === t.y ? null : { k: t.k, x, y };
}

/**
 * The least scale revealTransform zooms out to, to show `box` (`whole`) all: the readable
 * scale for a step, `overview` for an overview's box, or the box's own `floor` (overviewBox's
 * leaves with the output) where that is lower and `overview` is OVERVIEW_SCALE (a narrow
 * screen's overview keeps to its readable floor, and a comparison's).
 */
function overviewFloor(box, overview) {
  if (!box.overview) return READABLE_SCALE;
  return overview <= OVERVIEW_SCALE && box.floor ? Math.min(overview, box.floor) : overview;
}

/**
 * Fit on a narrow screen (issue 17: a phone's Fit printed the numbers at 4 px): all of
 * `content` (a box, layout units) in `view` ({width, height}, px) while that keeps the
 * scale at `floor` or more (autoScale's floor: numbers at MIN_TEXT_PX), else the view at
 * `floor` that shows `focus` (the current step's box, stepBox; for an overview its core),
 * from the drawing's start when there is none. `max` caps the scale as wholeTransform's.
 * Returns {k, x, y}.
 */
export function readableTransform(content, view, focus, { floor = READABLE_SCALE, max = MAX_FIT_SCALE } = {}) {
  const all = wholeTransform(content, view, { max });
  if (all.k >= floor) return all;
  const t = fitTransform(content, view, { min: floor, max: floor });
  const shown = focus?.whole ? focus.core : focus;
  if (!shown) return t;
  // a plain box: revealTransform zooms out for a `whole` one, which is what this refuses
  const { x0, y0, x1, y1 } = shown;
  return revealTransform(t, { x0, y0, x1, y1 }, view) ?? t;
}
