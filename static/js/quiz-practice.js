// "Practice" (issue 16, section 1): small generated graphs of a chosen size and op set to
// drill the chain rule on (as the Chain Rule Trainer does), seeded, so a link (which holds
// the program, and the seed in its first line and in `quiz_seed`) gives everyone the same
// graph. No DOM: `node --test` covers it (tests/js/quiz.test.mjs).

import { randomLcg } from "d3-random";

// The op sets offered, by name: each op's line given its operands (names).
export const OP_SETS = {
  "+ ×": ["add", "mul"],
  "+ × −": ["add", "mul", "sub"],
  "+ × tanh": ["add", "mul", "tanh"],
  "+ × tanh exp sigmoid": ["add", "mul", "tanh", "exp", "sigmoid"],
};
const BINARY = { add: "+", mul: "*", sub: "-" };
const APPLY = {
  add: (x, y) => x + y, mul: (x, y) => x * y, sub: (x, y) => x - y,
  tanh: Math.tanh, exp: Math.exp, sigmoid: (x) => 1 / (1 + Math.exp(-x)),
};
const LARGEST = 20; // a value a student computes by hand stays within ±20 (no exp(exp(...)))
export const SIZES = [3, 4, 5, 6, 8]; // ops per graph
const NAMES = "efghkmnpqrsuvwz"; // node names (a, b, c are the leaves; L the output)

/**
 * A program of `size` ops (2 ≤ size ≤ 12) drawn from the op set `ops` (an OP_SETS key),
 * seeded by `seed` (a positive integer; d3-random's randomLcg): three leaves a, b, c with
 * one-decimal values in [-2, 2] (never 0); each op reads the newest value, and a binary one
 * also a leaf not used yet, else any earlier value (so values fan out); the last is named L.
 * Every leaf is used; an op whose value would pass ±LARGEST is drawn again from those whose
 * value does not (`+` when none does, so no exp(exp(...)) overflows). Unknown `ops` or `size` outside the bounds raise
 * RangeError.
 */
export function practiceProgram(seed, { size = 4, ops = "+ ×" } = {}) {
  const set = OP_SETS[ops];
  if (!set || !Number.isInteger(size) || size < 2 || size > 12) throw new RangeError(`no practice of ${size} ops from "${ops}"`);
  const random = randomLcg(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const number = () => {
    let x = 0;
    while (x === 0) x = Math.round((random() * 4 - 2) * 10) / 10;
    return x.toFixed(1);
  };
  const leaves = [number(), number(), number()];
  const lines = [`# practice: seed=${seed}, ${size} ops from ${ops}`, ...leaves.map((x, i) => `${"abc"[i]} = ${x}`)];
  const value = { a: Number(leaves[0]), b: Number(leaves[1]), c: Number(leaves[2]) };
  const unused = new Set(["a", "b", "c"]);
  const made = ["a", "b", "c"];
  let newest = "a";
  for (let i = 0; i < size; i++) {
    const name = i === size - 1 ? "L" : NAMES[i];
    const left = i === 0 ? "a" : newest;
    // an unused leaf first, so every input reaches L; then any earlier value (fan-out)
    const rest = made.filter((m) => m !== left);
    const right = [...unused].find((m) => m !== left) ?? pick(rest);
    const remaining = size - i;
    const allowed = unused.size >= remaining ? set.filter((o) => o in BINARY) : set;
    const fits = (o) => Math.abs(APPLY[o](value[left], value[right])) <= LARGEST;
    const op = pick(allowed.filter(fits).length ? allowed.filter(fits) : ["add"]);
    value[name] = APPLY[op](value[left], value[right]);
    lines.push(op in BINARY ? `${name} = ${left} ${BINARY[op]} ${right}` : `${name} = ${op}(${left})`);
    unused.delete(left);
    if (op in BINARY) unused.delete(right);
    made.push(name);
    newest = name;
  }
  return `${lines.join("\n")}\n`;
}
