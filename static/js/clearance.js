// What the automatic camera keeps clear (issue 14, section 5, in the projector theme): no
// node's title row cut off by the top edge of the graph area, and no node under a panel that
// stands over the graph (the detail panel, the trace-inputs bar). No DOM and no d3:
// render/zoom.js measures the panels and applies these transforms, and `node --test`
// covers them (tests/js/clearance.test.mjs). A transform {k, x, y} maps a layout point p to
// the screen point k * p + (x, y), as in viewport.js.

import { centredBox, STEP_SIZES_UP_TO } from "./boxes.js";
import { EDGE } from "./viewport.js";

/**
 * The boxes {x0, y0, x1, y1} (layout units) of `layout`'s nodes, whose titles clearTop
 * keeps whole at the top of the view; null past STEP_SIZES_UP_TO's nodes (a big graph's
 * camera only pans, and a scan of every node at every step would cost a frame).
 */
export function nodeBoxes(layout) {
  if (!layout || layout.nodes.length > STEP_SIZES_UP_TO.nodes) return null;
  return layout.nodes.map(centredBox);
}

/** The part of `box` revealTransform shows at scale `k` in `view`: itself when it fits (EDGE px in from each edge at least), else its core. */
function shownPart(k, box, view) {
  const room = (size, length) => k * size <= length - 2 * EDGE;
  if (!box?.core || (room(box.x1 - box.x0, view.width) && room(box.y1 - box.y0, view.height))) return box;
  return shownPart(k, box.core, view);
}

/**
 * `t` panned up or down so that no box of `boxes` (nodeBoxes) in view across, of `focus`
 * nor of its cores (boxes.js stepBox: a step's receiving node and its `+=` note) is cut
 * by the top of `view` ({width, height}, px): a node cut there loses its title row (c, W
 * and G beside the quiz at 1024x768 in the projector theme: issue 14), a note its first
 * line. Of the places where each box is whole below the top edge (EDGE px from it) or
 * wholly above it, the nearest to `t` that shows no less of the part of `focus` that
 * revealTransform shows; `t` itself when nothing is cut or no place qualifies. A box cut
 * at the bottom keeps its title, and one out of view sideways is not seen at all. `view.tops`
 * (topEdges, or none: the view's top is its edge everywhere) says where the top edge is above
 * each part of the view's width: beside the trace bar it is the svg's own top, above the
 * view's; a box there is judged against it, and one under the bar against the bar's foot.
 */
export function clearTop(t, boxes, view, focus = null) {
  const keep = shownPart(t.k, focus, view);
  const { all, edges, cut } = topEdge(t, boxes, view, focus);
  if (!cut(t.y)) return t;
  // how much of `keep` is in view (px, EDGE in from the top, where its title is; down to the
  // foot itself: a box there keeps its title): a move may not show less of it. With EDGE at the
  // foot too, mlp-classifier's X @ W1 framed with its neighbours at 1280x800 on a projector in
  // a layout 36 units wider (the edges' shapes as words) found no place with b1's title clear
  // of the trace bar: 2 px short (W1's foot at 591 of 593 then)
  const seen = (y) => (keep ? Math.min(t.k * keep.y1 + y, view.height) - Math.max(t.k * keep.y0 + y, EDGE) : 0);
  const least = seen(t.y) - 0.5;
  let best = null;
  for (const [i, b] of all.entries()) {
    // b's top at the edge above it (shown whole), or its bottom at the top (out of view)
    for (const y of [edges[i].hi + EDGE - t.k * b.y0, edges[i].lo - t.k * b.y1]) {
      if ((best === null || Math.abs(y - t.y) < Math.abs(best - t.y)) && seen(y) >= least && !cut(y)) best = y;
    }
  }
  return best === null ? t : { ...t, y: best };
}

/** Whether `t` cuts a box clearTop keeps whole (of `boxes`, `focus` or its cores) at the top of `view`. */
export function cutsTop(t, boxes, view, focus = null) {
  return topEdge(t, boxes, view, focus).cut(t.y);
}

/**
 * The view `place(options)` gives (viewport.js fitAround or followTransform, with viewScale's
 * options), clearView'd; where that still cuts a box of `boxes` (or of `focus`) at the top,
 * or one of `boxes` at a panel's edge (view.panelRight),
 * zoomed out by 3% steps (place({scale})) down to `least` until one does not, for this view
 * only (render/zoom.js says when, and how far: null, not at all). The first when none does.
 */
export function uncutView(place, boxes, view, focus, least) {
  const first = clearView(place({}), boxes, view, focus);
  if (!boxes || least === null || !cutsView(first, boxes, view, focus)) return first;
  // By whole 3% steps, the first that cuts no title: a search for the largest such scale (to
  // 0.3%) gave mlp-classifier's step 14 at 1024x768 0.751 for 0.732 (13.5 px numbers for 13.2)
  // but framed less sideways: the matmul quiz's grid question there had L cut by 6 px at the
  // right (tests/e2e/test_graph_band_page.py), whole at the 3% step's scale.
  for (let k = first.k * 0.97; k > least * 0.97; k *= 0.97) {
    const next = clearView(place({ scale: Math.max(k, least) }), boxes, view, focus);
    if (!cutsView(next, boxes, view, focus)) return next;
  }
  return first;
}

// ---------------------------------------------------------------- a panel's edge

/**
 * `t` clearTop'd, and where a panel stands at the right of `view` (`view.panelRight`:
 * {right, foot}, its depth and its foot in the free view's frame, px: the detail panel,
 * coverOf's `side`, render/zoom.js) also panned sideways so that no box of `boxes` in view down
 * the view crosses the panel's edge (clearSide), and clearTop'd again. A box across that edge
 * has its title row's tag, or all of its title, under the panel while the rest of it shows
 * (mlp-classifier at Done in the projector theme: X @ W1 selected, b1's "leaf · 8" under the
 * panel at 1024x768; X selected, the title of `X @ W1 + b1` at 1280x800). Where no such place
 * keeps both edges clear, clearTop's place.
 */
export function clearView(t, boxes, view, focus = null) {
  const top = clearTop(t, boxes, view, focus);
  if (!view.panelRight || !boxes) return top;
  let next = top;
  for (let i = 0; i < 3 && cutsSide(next, boxes, view); i += 1) next = clearTop(clearSide(next, boxes, view, focus), boxes, view, focus);
  return cutsView(next, boxes, view, focus) ? top : next;
}

/** Whether `t` cuts a box clearView keeps whole: at the top (cutsTop), or across a panel's edge at the right (view.panelRight). */
export function cutsView(t, boxes, view, focus = null) {
  return cutsTop(t, boxes, view, focus) || (Boolean(view.panelRight && boxes) && cutsSide(t, boxes, view));
}

/**
 * `t` panned so that no box of `boxes` in view down `view` (px, the free view's: its right
 * edge is the panel's left edge, view.panelRight its depth and foot) has its title row under
 * the panel: left or right, each box whole left of the panel (EDGE px from it), under it, or
 * past the svg's edge; or up or down, a box that reaches below the panel's foot whole under
 * it or with its title below the foot. The nearest such place to `t` that cuts nothing at
 * the top either (cutsTop) and shows no less of the part of `focus` that revealTransform
 * shows, as clearTop; `t` itself when nothing is cut or no place qualifies.
 */
export function clearSide(t, boxes, view, focus = null) {
  const { all, cut } = sideEdge(t, boxes, view);
  if (!cut(t.x)) return t;
  const keep = shownPart(t.k, focus, view);
  const seen = (x, y) => (keep ? Math.min(t.k * keep.x1 + x, view.width - EDGE) - Math.max(t.k * keep.x0 + x, EDGE)
    + Math.min(t.k * keep.y1 + y, view.height - EDGE) - Math.max(t.k * keep.y0 + y, EDGE) : 0);
  const least = seen(t.x, t.y) - 0.5;
  const { right, foot } = view.panelRight;
  const places = all.flatMap((b) => [
    ...[view.width - EDGE - t.k * b.x1, view.width - t.k * b.x0, view.width + right - t.k * b.x0].map((x) => ({ ...t, x })),
    // (hidden, EDGE px up: the box's outline is drawn past its edge)
    ...(foot < view.height ? [foot + EDGE - t.k * b.y0, foot - EDGE - t.k * b.y1].map((y) => ({ ...t, y })) : []),
  ]);
  const far = (p) => Math.abs(p.x - t.x) + Math.abs(p.y - t.y);
  let best = null;
  for (const p of places) {
    if ((best === null || far(p) < far(best)) && seen(p.x, p.y) >= least && !cutsView(p, boxes, view, focus)) best = p;
  }
  return best ?? t;
}

/** Whether `t` leaves a box of `boxes` in view down `view` with its title row under the panel at its right (view.panelRight). */
export function cutsSide(t, boxes, view) {
  return sideEdge(t, boxes, view).cut(t.x);
}

// The boxes in view down `view` at `t` (beside the trace bar the view reaches up to the svg's
// top: view.top) whose title row starts above the panel's foot, and whether a sideways shift
// `x` leaves one with its title row under the panel and the rest of it in view: across the
// panel's left edge, or under the panel but reaching below its foot (a panel shorter than
// the graph: b1's panel at 1280x800 over h's title, h's numbers below it).
function sideEdge(t, boxes, view) {
  const { right, foot } = view.panelRight;
  const top = Math.min(0, view.top ?? 0);
  const all = (boxes ?? []).filter((b) => t.k * b.y1 + t.y > top && t.k * b.y0 + t.y < Math.min(view.height, foot) - 0.5);
  const below = (b) => t.k * b.y1 + t.y > foot + 0.5 && foot < view.height;
  const cut = (x) => all.some((b) => {
    const x0 = t.k * b.x0 + x;
    const x1 = t.k * b.x1 + x;
    return x1 > view.width + 0.5 && (x0 < view.width - 0.5 || (below(b) && x0 < view.width + right - 0.5));
  });
  return { all, cut };
}

// The boxes in view across at `t`'s scale that the top edge may not cut (clearTop), and
// whether a vertical shift `y` cuts one of them.
function topEdge(t, boxes, view, focus) {
  const cores = [];
  for (let b = focus; b; b = b.core) cores.push(b);
  const across = (b) => t.k * b.x1 + t.x > 0 && t.k * b.x0 + t.x < view.width;
  const all = [...(boxes ?? []), ...cores.filter((b) => t.k * (b.y1 - b.y0) <= view.height - 2 * EDGE)].filter(across);
  const edges = all.map((b) => edgeOver(view, t.k * b.x0 + t.x, t.k * b.x1 + t.x));
  const cut = (y) => all.some((b, i) => t.k * b.y0 + y < edges[i].hi + EDGE - 0.5 && t.k * b.y1 + y > edges[i].lo + 0.5);
  return { all, edges, cut };
}

// The top edge over the screen span [a, b] of `view` (px, the free view's): `hi`, the lowest
// of it (a title there must be below it), and `lo`, the highest (a box hidden must be above
// it): the bar's foot under the trace bar, the svg's top beside it (view.top), 0 throughout
// without view.tops.
function edgeOver(view, a, b) {
  if (!view.tops) return { hi: 0, lo: 0 };
  let hi = view.top;
  let lo = view.top;
  for (const p of view.tops) {
    if (p.x1 > a + 1 && p.x0 < b - 1) hi = Math.max(hi, p.y); // a pixel's touch is no overlap
    if (p.x0 <= a && p.x1 >= b) lo = Math.max(lo, p.y);
  }
  return { hi, lo };
}

/**
 * How far right (layout units) a view framing `box` (a selected node with its neighbours:
 * boxes.js pinBox) at scale `k` reaches to hold whole each box of `boxes` that crosses
 * `box`'s right edge within the height such a view shows (`height` px, about `box`'s middle):
 * a panel at the right leaves the graph room for them too (render/zoom.js roomFor), else
 * clearSide finds no place and one's title row stays under the panel (mlp-classifier at Done,
 * h selected, at 1280x800 on a projector: b2, above h @ W2, reached 82 px past the room left
 * for h's neighbours; issue 14 §5). `box.x1` when none crosses it.
 */
export function reachRight(box, boxes, height, k) {
  const mid = (box.y0 + box.y1) / 2;
  const half = Math.max(box.y1 - box.y0, height / k) / 2;
  let right = box.x1;
  for (const b of boxes ?? []) {
    if (b.x0 < box.x1 && b.x1 > right && b.y1 > mid - half && b.y0 < mid + half) right = b.x1;
  }
  return right;
}

// ---------------------------------------------------------------- panels over the graph

export const NO_INSET = Object.freeze({ left: 0, top: 0, right: 0, bottom: 0 });

/**
 * How far (px) `panels` (screen rects {left, top, right, bottom} of what stands over the
 * graph) reach into `svg` (its screen rect) from each side, {left, top, right, bottom}: each
 * panel counts from the side where it hides the least more of the svg's area than the
 * panels before it do (the detail panel at the right, 50% wide, from the right; the trace bar
 * at the top left, from the top, and below the camera's note from the top still: counted
 * alone, its 75 px from the top cost more than its width from the left, and the graph beside
 * the detail panel lost 270 px of its width, issue 14). A panel that misses the svg counts
 * for nothing, and no side takes more than 60% of it.
 */
export function insetsOf(svg, panels) {
  return sidesOf(svg, panels).inset;
}

// insetsOf's insets, and the side each panel counts from ({rect, side}, the panels that count).
function sidesOf(svg, panels) {
  const width = svg.right - svg.left;
  const height = svg.bottom - svg.top;
  const inset = { ...NO_INSET };
  const counted = [];
  for (const r of panels) {
    if (r.right <= svg.left || r.left >= svg.right || r.bottom <= svg.top || r.top >= svg.bottom) continue;
    const sides = [
      ["left", r.right - svg.left, height], ["right", svg.right - r.left, height],
      ["top", r.bottom - svg.top, width], ["bottom", svg.bottom - r.top, width],
    ].filter(([side, depth]) => depth <= 0.6 * (side === "left" || side === "right" ? width : height));
    if (!sides.length) continue;
    const more = ([side, depth, length]) => Math.max(0, depth - inset[side]) * length;
    const [side, depth] = sides.reduce((a, b) => (more(a) <= more(b) ? a : b));
    inset[side] = Math.max(inset[side], depth);
    counted.push({ rect: r, side });
  }
  return { inset, counted };
}

/**
 * insetsOf's insets of `svg` by `panels`, with `tops` ([{x0, x1, y}]: each panel counted from
 * the top, its span across and its foot, px in the free view's frame), for freeView. The free
 * view starts below the deepest of them, but beside the trace bar the graph shows up to the
 * svg's top: a title there was cut by it, and one under the bar was hidden (mlp-classifier at
 * Done with W1 selected at 1024x768 in the projector theme: X's title under the bar, b1's cut
 * at the top beside it). clearTop keeps both whole.
 */
export function coverOf(svg, panels) {
  const { inset, counted } = sidesOf(svg, panels);
  // a panel from edge to edge (the camera's note) covers what reaches past them too: a box
  // partly out of view at the left is hidden under it as one in view is
  const tops = counted.filter((c) => c.side === "top").map(({ rect }) => ({
    x0: rect.left <= svg.left + 1 ? -Infinity : rect.left - svg.left - inset.left,
    x1: rect.right >= svg.right - 1 ? Infinity : rect.right - svg.left - inset.left,
    y: rect.bottom - svg.top - inset.top,
  }));
  // the panels counted from the right end at their foot: a box below it shows (clearSide)
  const foot = Math.max(-Infinity, ...counted.filter((c) => c.side === "right").map(({ rect }) => rect.bottom - svg.top - inset.top));
  return { ...inset, tops, ...(inset.right > 0 ? { side: { right: inset.right, foot } } : {}) };
}

/** Whether insets `a` and `b` differ by a pixel or more on some side, or at the foot of the panel at the right (coverOf's `side`: a panel grown taller covers other titles). */
export function insetsDiffer(a, b) {
  const foot = (i) => i.side?.foot ?? 0;
  return ["left", "top", "right", "bottom"].some((side) => Math.abs(a[side] - b[side]) >= 1) || Math.abs(foot(a) - foot(b)) >= 1;
}

/**
 * The part of a `view` ({width, height}, px) that `inset` leaves free; with the inset's `tops`
 * (coverOf) also `tops` and `top` (the svg's top edge in the free view's frame, -inset.top):
 * where the top edge of what shows is along its width (clearTop).
 */
export function freeView(view, inset) {
  const free = { width: Math.max(0, view.width - inset.left - inset.right), height: Math.max(0, view.height - inset.top - inset.bottom) };
  return inset.tops ? { ...free, top: -inset.top, tops: inset.tops } : free;
}

/** Transform `t` of the whole svg as one of its free part (`inset`), and back (`back`). */
export function intoFree(t, inset, back = false) {
  const sign = back ? 1 : -1;
  return t && { k: t.k, x: t.x + sign * inset.left, y: t.y + sign * inset.top };
}
