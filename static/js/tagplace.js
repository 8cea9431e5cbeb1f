// Where a tag drawn beside a node goes (a review of issue 14: XOR seed 003's dead-unit tag
// "h: units 0, 1 dead (since iteration 0)", centred over h at Fit, stood over W2.T's box and
// ran under `h @ W2.T`, which cut it to "…1 dea"). The tag tries its places and shapes in
// turn and takes the first that covers no other node's box; else the one that covers least.
// No DOM: sizes come from character counts (render/dead.js draws it). Boxes are layout units
// {x0, y0, x1, y1}; the tag's place is relative to its node's centre, as its g.at draws it.

// A tag's advance per character, in ems of its font (bold sans; generous, so that a tag said
// to be clear is), and its line height.
export const TAG_CHAR_EM = 0.66;
const LINE_EM = 1.2;
// Room kept between a tag and a box (layout units): a node's focus ring reaches 7 out of it.
const CLEAR = 9;

/** The words of `text` in lines of at most `chars` characters (a word longer stays whole). */
export function wrapWords(text, chars) {
  const lines = [];
  for (const word of text.split(" ")) {
    const last = lines.length - 1;
    if (last >= 0 && [...`${lines[last]} ${word}`].length <= chars) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/**
 * The shapes a tag of `head` and `tail` may take, in the order tried: all on one line; the
 * tail on a line of its own; the head wrapped to `chars` characters a line with the tail
 * after it; then the tail left out (said in the tag's tooltip instead), the head alone on
 * one line, then wrapped. Without a tail (an overview shows only the head), the head's
 * shapes. Each shape is {lines (the head's), tail: "same" (after the last line) | "own"
 * (a line of its own) | "cut" | null (none), text (every line as drawn)}.
 */
export function tagShapes(head, tail, chars) {
  const wrapped = wrapWords(head, chars);
  const shapes = [];
  const add = (lines, how) => {
    const text = how === "same" ? [...lines.slice(0, -1), `${lines.at(-1)}${tail}`] : how === "own" ? [...lines, tail.trim()] : lines;
    shapes.push({ lines, tail: how, text });
  };
  if (tail) {
    add([head], "same");
    add([head], "own");
    if (wrapped.length > 1) add(wrapped, "own");
  }
  add([head], tail ? "cut" : null);
  if (wrapped.length > 1) add(wrapped, tail ? "cut" : null);
  return shapes;
}

function overlap(a, b) {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Where the tag of node `own` ({x, y, width, height}: its centre and size) goes among
 * `others` (boxes of the other nodes, chips and frames' titles): {shape, x, y, anchor,
 * box, clear}, `x` and the first line's baseline `y` relative to the node's centre,
 * `anchor` the SVG text-anchor, `box` the tag's box (layout units), `clear` whether it
 * covers no box. Tried: each of tagShapes(head, tail) above the box, then below, centred,
 * then from its left edge rightwards, then from its right edge leftwards; the first clear
 * place, else the one covering least. `font`: the tag's font size (layout units).
 */
export function placeTag(own, others, { head, tail = "", font = 15 }) {
  const char = TAG_CHAR_EM * font;
  const line = LINE_EM * font;
  const gap = 0.6 * font;
  const chars = Math.max(8, Math.floor((own.width + 2 * font) / char));
  let best = null;
  for (const shape of tagShapes(head, tail, chars)) {
    const width = Math.max(...shape.text.map((l) => [...l].length)) * char;
    const height = shape.text.length * line;
    for (const side of ["above", "below"]) {
      const top = side === "above" ? -own.height / 2 - gap - height : own.height / 2 + gap;
      for (const anchor of ["middle", "start", "end"]) {
        const x = anchor === "middle" ? 0 : anchor === "start" ? -own.width / 2 : own.width / 2;
        const left = anchor === "middle" ? x - width / 2 : anchor === "start" ? x : x - width;
        const box = { x0: own.x + left, x1: own.x + left + width, y0: own.y + top, y1: own.y + top + height };
        const grown = { x0: box.x0 - CLEAR, x1: box.x1 + CLEAR, y0: box.y0 - CLEAR, y1: box.y1 + CLEAR };
        const cost = others.reduce((sum, o) => sum + overlap(grown, o), 0);
        // the baseline of the first line: about 0.8 of the font below the line's top
        const at = { shape, x, y: top + 0.85 * font, anchor, box, clear: cost === 0 };
        if (cost === 0) return at;
        if (!best || cost < best.cost) best = { ...at, cost };
      }
    }
  }
  const { cost, ...at } = best;
  return at;
}
