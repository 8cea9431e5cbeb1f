// The minimap's arithmetic (issue 8, section 2): the whole drawing scaled into a small
// box, the camera's view as a rectangle in it, and the camera that centres a clicked
// point. Pure (render/navigate.js draws it), so `node --test` covers it. Transforms are
// d3-zoom's {k, x, y}: layout point p is on screen at k * p + (x, y) (viewport.js).

/**
 * How `content` (a box {x0, y0, x1, y1}, layout units) fits in a minimap of `size`
 * ({width, height}, px) with `pad` px around it: {k, x, y}, a transform like the camera's.
 */
export function mapTransform(content, size, { pad = 4 } = {}) {
  const w = Math.max(content.x1 - content.x0, 1);
  const h = Math.max(content.y1 - content.y0, 1);
  const k = Math.min((size.width - 2 * pad) / w, (size.height - 2 * pad) / h);
  return { k, x: (size.width - k * w) / 2 - k * content.x0, y: (size.height - k * h) / 2 - k * content.y0 };
}

/**
 * The minimap's size (px, {width, height}) for `content` (a box): its shape, within `max`
 * and no side under `min`, so a long chain gets a long thin map rather than a mostly empty box.
 */
export function mapSize(content, { max = { width: 200, height: 130 }, min = 28 } = {}) {
  const w = Math.max(content.x1 - content.x0, 1);
  const h = Math.max(content.y1 - content.y0, 1);
  const k = Math.min(max.width / w, max.height / h);
  return { width: Math.round(Math.max(min, k * w)), height: Math.round(Math.max(min, k * h)) };
}

/** The part of the layout (a box, layout units) the camera `t` shows in `view` ({width, height}, px). */
export function visibleBox(t, view) {
  return { x0: -t.x / t.k, y0: -t.y / t.k, x1: (view.width - t.x) / t.k, y1: (view.height - t.y) / t.k };
}

/** Whether all of `content` is in the camera's view (then the minimap hides). */
export function allVisible(t, view, content) {
  const v = visibleBox(t, view);
  const slack = 1 / t.k; // a pixel's rounding
  return content.x0 >= v.x0 - slack && content.y0 >= v.y0 - slack && content.x1 <= v.x1 + slack && content.y1 <= v.y1 + slack;
}

/** `box` (layout units) in minimap px under `map` (mapTransform's): {x, y, width, height}. */
export function onMap(map, box) {
  return { x: map.k * box.x0 + map.x, y: map.k * box.y0 + map.y, width: map.k * (box.x1 - box.x0), height: map.k * (box.y1 - box.y0) };
}

/** The layout point under minimap px `p` ({x, y}). */
export function fromMap(map, p) {
  return { x: (p.x - map.x) / map.k, y: (p.y - map.y) / map.k };
}

/** The camera at scale `k` that puts layout point `p` at the centre of `view`. */
export function centreOn(p, k, view) {
  return { k, x: view.width / 2 - k * p.x, y: view.height / 2 - k * p.y };
}
