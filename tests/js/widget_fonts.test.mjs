// The notebook widget ships two of KaTeX's 20 faces (server/widget.py FACES: each face is sent
// as a data: URL in every widget's state, issue 18 §2's size): every narration line of the
// golden walks and the node tests' traces, set as widget.js sets it (narration.js narrate ->
// tex.js narrationTex -> katex), asks for no other face. The face each element asks for is
// read from KaTeX's own stylesheet: a rule `.katex .CLASSES{font-family:...}` whose classes
// the element carries.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import katex from "katex";
import { narrate } from "../../static/js/narration.js";
import { narrationTex } from "../../static/js/tex.js";

const here = (path) => new URL(path, import.meta.url);
const SHIPPED = ["KaTeX_Main normal 400", "KaTeX_Math italic 400"]; // server/widget.py FACES

/** KaTeX's rules that pick a face: [{classes: [...], family?, style?, weight?}]. */
function faceRules() {
  const css = readFileSync(new URL(import.meta.resolve("katex/dist/katex.min.css")), "utf8");
  const rules = [];
  for (const [, selectors, body] of css.matchAll(/([^{}@]+)\{([^{}]*)\}/g)) {
    const get = (name) => new RegExp(`${name}:([^;}]+)`).exec(body)?.[1].trim();
    const rule = { family: get("font-family"), style: get("font-style"), weight: get("font-weight") };
    if (!rule.family && !rule.style && !rule.weight) continue;
    for (const selector of selectors.split(",")) {
      const last = selector.trim().split(/[\s>]+/).at(-1);
      if (!/^(\.[\w-]+)+$/.test(last) || !selector.trim().startsWith(".katex")) continue;
      rules.push({ ...rule, classes: last.slice(1).split(".") });
    }
  }
  return rules;
}

/** The face ("family style weight") each element of KaTeX's `html` asks for, with a sample line. */
function facesOf(html, rules, seen, line) {
  // the elements' own class lists, outermost first; a face set on an element holds for its
  // children (font properties inherit), so a stack of open spans is kept
  const stack = [{ family: "KaTeX_Main", style: "normal", weight: "400" }]; // .katex's own font
  for (const [, close, attrs] of html.matchAll(/<(\/?)span\b([^>]*)>/g)) {
    if (close) { stack.pop(); continue; }
    const face = { ...stack.at(-1) };
    const list = (/class="([^"]*)"/.exec(attrs)?.[1] ?? "").split(" ");
    for (const rule of rules) {
      if (!rule.classes.every((c) => list.includes(c))) continue;
      if (rule.family) face.family = rule.family.split(",")[0].trim();
      if (rule.style) face.style = rule.style;
      if (rule.weight) face.weight = rule.weight === "bold" ? "700" : rule.weight;
    }
    stack.push(face);
    const key = `${face.family} ${face.style} ${face.weight}`;
    if (!seen.has(key)) seen.set(key, line);
  }
}

function walks() {
  const golden = readdirSync(here("../golden/")).map((f) => here(`../golden/${f}`));
  const fixtures = readdirSync(here("./fixtures/")).filter((f) => f.endsWith(".json")).map((f) => here(`./fixtures/${f}`));
  return [...golden, ...fixtures].map((url) => JSON.parse(readFileSync(url, "utf8"))).filter((t) => t.events);
}

test("every narration line of the golden walks is set in the widget's two KaTeX faces", () => {
  const rules = faceRules();
  const seen = new Map();
  let lines = 0;
  for (const trace of walks()) {
    const byId = Object.fromEntries(trace.graph.nodes.map((n) => [n.id, n]));
    for (const event of trace.events) {
      const text = narrate(event, byId, { hvp: trace.hvp });
      if (!text.includes("=")) continue; // narration_line.js sets only a formula as math
      lines += 1;
      const html = katex.renderToString(narrationTex(text), { throwOnError: false, output: "html", strict: "ignore" });
      facesOf(html, rules, seen, text);
    }
  }
  assert.ok(lines > 200, `${lines} lines`);
  const other = [...seen].filter(([face]) => !SHIPPED.includes(face));
  assert.deepEqual(other, [], "a face the widget does not ship, with a line that asks for it");
  assert.deepEqual([...seen.keys()].sort(), SHIPPED);
});

test("the face finder sees what a bold or a large delimiter asks for", () => {
  // the check above must be able to fail: KaTeX's other faces are found where TeX asks for them
  const seen = new Map();
  facesOf(katex.renderToString("\\mathbf{x} + \\left(\\frac{a}{b}\\right) + \\mathcal{L}", { output: "html" }), faceRules(), seen, "");
  for (const face of ["KaTeX_Main normal 700", "KaTeX_Size1 normal 400", "KaTeX_Caligraphic normal 400"]) {
    assert.ok(seen.has(face), `${face} in ${[...seen.keys()]}`);
  }
});
