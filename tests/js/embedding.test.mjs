import { test } from "node:test";
import assert from "node:assert/strict";
import { EMBED_SIZE, embedOptions, embedProblems, embedQuery, embedSnippet, embedTitle } from "../../static/js/embedding.js";
import { decodeLink } from "../../static/js/state.js";

const PROGRAM = "a = 1.0\nb = tanh(a) * 2.0\nL = b * b\n";

test("embed options: the query string over the fragment's state over the defaults", () => {
  assert.deepEqual(embedOptions("", null), {
    autoplay: false, controls: true, narration: true, program: false, print: false, step: 0, speed: 2, theme: "auto", font: 1,
  });
  const state = { v: 1, program: PROGRAM, step: 4, speed: 8, theme: "dark", font: 1.5 };
  assert.deepEqual(embedOptions("", state), { ...embedOptions("", null), step: 4, speed: 8, theme: "dark", font: 1.5 });
  const both = embedOptions("step=9&theme=projector&controls=0&narration=no&program=1&autoplay=true&font=2", state);
  assert.deepEqual(both, {
    autoplay: true, controls: false, narration: false, program: true, print: false, step: 9, speed: 8, theme: "projector", font: 2,
  });
  // print=1, or reveal.js' print mode in the embed's own address, asks for the static picture
  assert.equal(embedOptions("print=1", null).print, true);
  assert.equal(embedOptions("print-pdf", null).print, true);
  assert.equal(embedQuery({ print: true }), "print=1");
  // Bad values are ignored: the state's (or the default) stays.
  assert.deepEqual(embedOptions("step=-1&speed=3&theme=pink&font=9&controls=maybe", state),
    { ...embedOptions("", state) });
});

test("the embed query has only what differs from an embed's defaults, and reads back", () => {
  assert.equal(embedQuery({ step: 0, speed: 2, theme: "auto", font: 1, controls: true }), "");
  const query = embedQuery({ step: 7, theme: "projector", controls: false, program: true });
  assert.equal(query, "step=7&theme=projector&controls=0&program=1");
  assert.deepEqual(embedOptions(query, null), { ...embedOptions("", null), step: 7, theme: "projector", controls: false, program: true });
});

test("the iframe snippet: a title, a size, the options in the query and the walk in the fragment", () => {
  const state = { program: PROGRAM, preset: "", step: 5, speed: 4, theme: "dark", font: 1, draft: "x", playing: true };
  const html = embedSnippet(state, "https://gradwalk.example");
  const match = html.match(/^<iframe src="([^"]+)" title="([^"]+)" width="(\d+)" height="(\d+)"[^>]*><\/iframe>$/);
  assert.ok(match, html);
  const [, src, title, width, height] = match;
  assert.equal(title, "gradwalk: backpropagation of L, step by step");
  assert.deepEqual([Number(width), Number(height)], [EMBED_SIZE.width, EMBED_SIZE.height]);
  const url = new URL(src.replaceAll("&amp;", "&"));
  assert.equal(url.origin + url.pathname, "https://gradwalk.example/embed");
  assert.equal(url.search, "?step=5&speed=4&theme=dark");
  assert.deepEqual(decodeLink(url.hash), { state: { v: 1, program: PROGRAM }, error: null });
  assert.match(embedSnippet(state, "", { program: true, controls: false }), /\?step=5&amp;speed=4&amp;theme=dark&amp;controls=0&amp;program=1#s=/);
});

test("the title names the output, and a quote in it cannot break the attribute", () => {
  assert.equal(embedTitle({ program: "x = 1.0\ny = x * x  # square\n" }), "gradwalk: backpropagation of y, step by step");
  assert.equal(embedTitle({ program: "x = 1.0\n", output: "x" }), "gradwalk: backpropagation of x, step by step");
  assert.equal(embedTitle({ program: "" }), "gradwalk: backpropagation, step by step");
  const html = embedSnippet({ program: 'x = 1.0\n"><script>\n' }, "http://h");
  assert.ok(!html.includes("<script>"));
});

test("a value an option does not take is said, with the values it takes (print=2 was ignored silently)", () => {
  assert.deepEqual(embedProblems(""), []);
  assert.deepEqual(embedProblems("print=1&step=3&theme=dark&font=1.5&controls=no&speed=4"), []);
  assert.deepEqual(embedProblems("print=2"), ["print=2 is ignored: print takes 1 or 0 (true/false and yes/no too)."]);
  assert.equal(embedOptions("print=2", null).print, false);
  const said = embedProblems("step=-1&speed=3&theme=pink&font=9&controls=maybe&print=&other=1");
  assert.deepEqual(said.map((s) => s.split("=")[0]), ["step", "speed", "theme", "font", "controls", "print"]);
  assert.match(said[1], /speed takes 0\.5, 1, 2, 4, 8, 16 \(events per second\)\.$/);
  assert.match(said[2], /theme=pink is ignored: theme takes auto, light, dark, projector\.$/);
  assert.match(said[3], /font takes a scale from 0\.5 to 3\.$/);
  assert.match(embedProblems(`theme=${"x".repeat(50)}`)[0], /^theme=x{19}… is ignored/);
});
