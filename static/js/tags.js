// The marks drawn over a node's box, in the gap above it: the change Compare runs shows
// ("Δ grad +0.0003931", render/diff.js) and a dead unit's tag (render/dead.js; it may go below
// or beside the box instead, where tagplace.js finds room). The camera's
// boxes (boxes.js) are the layout's, which hold neither: fitted to them, the tanh example
// compared at 1280x800 on a projector had c's Δ cut by 6 px at the graph's top at step 0
// (its box 16 px below the edge, its Δ 22 px above the box). No DOM and no d3: render/zoom.js
// reads which nodes carry a mark, and `node --test` covers these (tests/js/tags.test.mjs).

// Layout units above a node's box its mark takes: Δ is 17 px text on a baseline 6 above the
// box (diff.css), a dead tag 15 px text on a baseline 9 above it (train.css): 22-23 units up.
export const TAG_ROOM = 24;
// The marks, as drawn in a node's group.
export const TAG_SELECTOR = "g.node .diff-delta, g.node .dead-tag";

/**
 * `box` ({x0, y0, x1, y1}, layout units, with any flags and `core`) grown to hold the marks
 * of each of `tagged` (the boxes of the nodes that carry one) that lies within it, and its
 * cores too; `box` itself when none does (or it is null). A node's `mark` is its mark's own
 * box where it was placed (a dead tag: tagplace.js puts it above, below or beside the node),
 * and `above` says it also carries one TAG_ROOM over its box (Δ); a node with no `mark`
 * carries one over it. Raising the top alone left seed 5's dead tag, placed below h, under
 * the graph area at the step computing h (1280x800).
 */
export function withTags(box, tagged) {
  if (!box || !tagged?.length) return box;
  const within = (t) => t.x0 >= box.x0 - 0.5 && t.x1 <= box.x1 + 0.5 && t.y0 >= box.y0 - 0.5 && t.y1 <= box.y1 + 0.5;
  let { x0, y0, x1, y1 } = box;
  for (const t of tagged.filter(within)) {
    if (t.above ?? !t.mark) y0 = Math.min(y0, t.y0 - TAG_ROOM);
    if (t.mark) {
      x0 = Math.min(x0, t.mark.x0); y0 = Math.min(y0, t.mark.y0);
      x1 = Math.max(x1, t.mark.x1); y1 = Math.max(y1, t.mark.y1);
    }
  }
  const core = box.core ? withTags(box.core, tagged) : box.core;
  if (x0 === box.x0 && y0 === box.y0 && x1 === box.x1 && y1 === box.y1 && core === box.core) return box;
  return box.core ? { ...box, x0, y0, x1, y1, core } : { ...box, x0, y0, x1, y1 };
}
