// "New numbers" (issue 16, section 1): the same graph with fresh seeded numbers in its
// leaves, so each student of a class gets their own numbers. Only leaf lines change: a
// scalar literal (`a = 1.0`), a tensor literal of decimals (`W = [[5.0, 6.0], [7.0, 8.0]]`,
// each number fresh, the shape kept) and a seeded random helper (`randn(4, 5, seed=0)`, a
// fresh seed); the graph, the constants (`const(...)`) and every other line stay. A leaf
// that has no number to change (`zeros(8)`, `eye(3)`, a list of integers, which may be
// labels) is named as kept, so the page can say so. No DOM: tests/js/quiz.test.mjs.

import { randomLcg } from "d3-random";

const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;
const NUMBER_TEXT = NUMBER.source;
const HEAD = String.raw`^([ \t]*)([A-Za-z_]\w*)([ \t]*=[ \t]*)`; // indent, name, " = "
const TAIL = String.raw`([ \t]*(?:#.*)?)$`; // a comment may follow
// A scalar leaf, a tensor literal (only brackets, commas and numbers), a seeded helper.
const SCALAR = new RegExp(`${HEAD}(${NUMBER_TEXT})${TAIL}`);
const LITERAL = new RegExp(String.raw`${HEAD}(\[[-+\d\s.,eE[\]]*\])${TAIL}`);
const SEEDED = new RegExp(String.raw`${HEAD}((?:randn|uniform)\(.*\bseed[ \t]*=[ \t]*)(\d+)(.*)$`);
// A leaf made by a helper with nothing random in it: kept as it is.
const FIXED = new RegExp(String.raw`${HEAD}((?:zeros|ones|eye|arange)\(.*)$`);

/**
 * A source of fresh leaf numbers for `seed`: uniform in [-2, 2] to one decimal, never 0
 * (d3-random's randomLcg, so the same seed gives the same numbers in every browser), as
 * text ("-1.3"). Practice graphs draw their leaves the same way (quiz-practice.js).
 * `next(old)` keeps the sign of the number `old` it replaces, and a zero stays as written:
 * an example's point lives in them (seed-relu-mask's negative z is the mask, seed-gelu's
 * z = 0 the edge point; the review saw New numbers turn z = [2, -1, 0.5] into three
 * positives). Every call takes one draw, so the numbers depend on the seed and the order.
 */
export function decimals(seed) {
  const random = randomLcg(seed);
  const next = (old) => {
    let x = 0;
    while (x === 0) x = Math.round((random() * 4 - 2) * 10) / 10;
    if (old === undefined) return x.toFixed(1);
    const was = Number(old);
    if (was === 0) return old;
    return (Math.sign(was) * Math.abs(x)).toFixed(1);
  };
  next.seed = () => Math.floor(random() * 10000); // a fresh seed for randn(..., seed=)
  return next;
}

/**
 * `program` with fresh numbers in its leaves for `seed` (an integer; 0 gives the program
 * back): {program, changed: [leaf names], kept: [leaf names with no number to change]}.
 * The same seed gives the same text; renumbering a renumbered text with the same seed gives
 * it back unchanged (the draws depend only on the seed and the leaves' order).
 */
export function freshLeaves(program, seed) {
  const changed = [];
  const kept = [];
  if (!seed) return { program, changed, kept };
  const next = decimals(seed);
  const lines = program.split("\n").map((line) => {
    let m = SCALAR.exec(line);
    if (m) {
      changed.push(m[2]);
      return `${m[1]}${m[2]}${m[3]}${next(m[4])}${m[5]}`;
    }
    m = LITERAL.exec(line);
    if (m) {
      const numbers = m[4].match(NUMBER) ?? [];
      if (!numbers.length || !numbers.every((x) => /[.eE]/.test(x))) {
        kept.push(m[2]); // integers: class labels, indices
        return line;
      }
      changed.push(m[2]);
      return `${m[1]}${m[2]}${m[3]}${m[4].replace(NUMBER, (old) => next(old))}${m[5]}`;
    }
    m = SEEDED.exec(line);
    if (m) {
      changed.push(m[2]);
      return `${m[1]}${m[2]}${m[3]}${m[4]}${next.seed()}${m[6]}`;
    }
    m = FIXED.exec(line);
    if (m) kept.push(m[2]);
    return line;
  });
  return { program: lines.join("\n"), changed, kept };
}

/** `program` with fresh numbers in its leaves for `seed` (freshLeaves' text). */
export const withNumbers = (program, seed) => freshLeaves(program, seed).program;
