// The marks drawn over a node's box, in the gap above it: the change Compare runs shows
// ("Δ grad +0.0003931", render/diff.js) and a dead unit's tag (render/dead.js). The camera's
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
 * `box` ({x0, y0, x1, y1}, layout units, with any flags and `core`) with its top raised to
 * hold the mark over each of `tagged` (the boxes of the nodes that carry one) that lies
 * within it, and its cores too; `box` itself when none does (or it is null).
 */
export function withTags(box, tagged) {
  if (!box || !tagged?.length) return box;
  const within = (t) => t.x0 >= box.x0 - 0.5 && t.x1 <= box.x1 + 0.5 && t.y0 >= box.y0 - 0.5 && t.y1 <= box.y1 + 0.5;
  let y0 = box.y0;
  for (const t of tagged) if (within(t)) y0 = Math.min(y0, t.y0 - TAG_ROOM);
  const core = box.core ? withTags(box.core, tagged) : box.core;
  if (y0 === box.y0 && core === box.core) return box;
  return box.core ? { ...box, y0, core } : { ...box, y0 };
}
