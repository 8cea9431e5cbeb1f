// Issue 14: a program that starts with a UTF-8 byte-order mark (as Windows editors save it) is
// read as the program it is. A link is where program text enters the page from outside.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkState, decodeLink, encodeLink } from "../../static/js/state.js";

const PROGRAM = "a = 1.0\nL = a * 3.0\n";

test("a link's program loses one leading byte-order mark", () => {
  assert.deepEqual(checkState({ v: 1, program: `\ufeff${PROGRAM}`, step: 2 }),
    { state: { v: 1, program: PROGRAM, step: 2 }, error: null });
  const fragment = encodeLink({ program: `\ufeff${PROGRAM}` });
  assert.equal(decodeLink(fragment).state.program, PROGRAM);
});

test("only one: a second mark, or one further on, stays for the parser to refuse", () => {
  assert.equal(checkState({ v: 1, program: `\ufeff\ufeff${PROGRAM}` }).state.program, `\ufeff${PROGRAM}`);
  const inside = "a = 1.0\nL = a *\ufeff 3.0\n";
  assert.equal(checkState({ v: 1, program: inside }).state.program, inside);
});
