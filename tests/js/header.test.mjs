// The program's header lines (static/js/header.js): read lazily up to the first statement.
import { test } from "node:test";
import assert from "node:assert/strict";
import { headerLines } from "../../static/js/header.js";

test("the header is the comment and blank lines up to and including the first statement", () => {
  assert.deepEqual([...headerLines("# a\r\n\n# bugs: x\nL = 1\nM = 2\n")], ["# a", "", "# bugs: x", "L = 1"]);
  assert.deepEqual([...headerLines("a = 1")], ["a = 1"]);
  assert.deepEqual([...headerLines("# only a comment\n")], ["# only a comment"]);
  assert.deepEqual([...headerLines("")], []);
  assert.deepEqual([...headerLines(undefined)], []);
  assert.deepEqual([...headerLines("\r# x\ry = 2")], ["", "# x", "y = 2"]);
});

test("a long program is read only as far as its first statement", () => {
  const big = "# hvp: {\"a\": 1}\n" + "x = x * 1.0001\n".repeat(50_000);
  const lines = headerLines(big);
  assert.deepEqual([...lines], ["# hvp: {\"a\": 1}", "x = x * 1.0001"]);
});
