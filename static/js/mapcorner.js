// Where the minimap goes (issue 9 review: it hid b's += callout on the bug-overwrite preset
// at 1280x800): in the first corner of the graph's view where it covers nothing drawn (node
// boxes, callouts) and no other control over the graph, else nowhere. Pure, so `node --test`
// covers it; render/navigate.js measures and asks. Boxes are {x, y, width, height} in px
// from the view's top left.

export const CORNERS = ["bottom-left", "top-left", "bottom-right", "top-right"];

/** The box of a `size` ({width, height}) minimap in `corner` of `view`, `inset` px from its sides. */
export function cornerBox(corner, view, size, inset) {
  const [vertical, horizontal] = corner.split("-");
  return {
    x: horizontal === "left" ? inset : view.width - inset - size.width,
    y: vertical === "top" ? inset : view.height - inset - size.height,
    width: size.width,
    height: size.height,
  };
}

/** Whether boxes `a` and `b` overlap once `a` is grown by `gap` px on every side. */
export function overlaps(a, b, gap = 0) {
  return a.x - gap < b.x + b.width && b.x < a.x + a.width + gap
    && a.y - gap < b.y + b.height && b.y < a.y + a.height + gap;
}

/**
 * The first of `corners` where a `size` minimap keeps `gap` px clear of every box in
 * `boxes`, or null when none does (then it is not shown). A corner the minimap does not
 * fit in (a view smaller than it) is not free.
 */
export function freeCorner(view, size, boxes, { inset = 6, gap = 6, corners = CORNERS } = {}) {
  if (size.width + 2 * inset > view.width || size.height + 2 * inset > view.height) return null;
  return corners.find((corner) => {
    const box = cornerBox(corner, view, size, inset);
    return !boxes.some((b) => overlaps(box, b, gap));
  }) ?? null;
}

/**
 * A layout node ({x, y, width, height}: its centre and size) on screen under camera `t`
 * ({k, x, y}), grown by `ring` layout units on every side (what is drawn around its box).
 */
export function screenBox(t, n, ring = 0) {
  const w = n.width + 2 * ring;
  const h = n.height + 2 * ring;
  return { x: t.k * (n.x - w / 2) + t.x, y: t.k * (n.y - h / 2) + t.y, width: t.k * w, height: t.k * h };
}
