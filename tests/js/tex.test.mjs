// The engine's Unicode rules as TeX for KaTeX (static/js/tex.js, issue 18 §3): the issue's own
// example, the shapes of a tensor rule, and every rule and narration of the stored traces
// parsed by KaTeX without an error (throwOnError), each with no character left as \text that
// is math.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import katex from "katex";
import { narrationTex, toTex } from "../../static/js/tex.js";
import { narrate } from "../../static/js/narration.js";

test("the issue's example: bars, +=, a product and its numbers", () => {
  assert.equal(toTex("e = a * b, so ā += b · ē = -0.5 · 1.5729"),
    "e = a \\ast b,\\ \\text{so}\\ \\bar{a} \\mathrel{{+}{=}} b \\cdot \\bar{e} = -0.5 \\cdot 1.5729");
});

test("superscripts, transposes, partials, Hadamard products and subscripted names", () => {
  assert.equal(toTex("t = tanh(d), so d̄ += (1 - t²) · t̄"),
    "t = \\tanh(d),\\ \\text{so}\\ \\bar{d} \\mathrel{{+}{=}} (1 - t^{2}) \\cdot \\bar{t}");
  assert.equal(toTex("X̄ += ∂L/∂(X @ W) @ Wᵀ, shapes 4×3 = 4×2 @ 2×3"),
    "\\bar{X} \\mathrel{{+}{=}} \\partial L/\\partial (X \\mathbin{@} W) \\mathbin{@} W^{\\top},\\ \\text{shapes}\\ {4{\\times}3} = {4{\\times}2} \\mathbin{@} {2{\\times}3}");
  assert.equal(toTex("W̄1 += x ⊙ h̄2"), "\\bar{W}_{1} \\mathrel{{+}{=}} x \\odot \\bar{h}_{2}");
  assert.equal(toTex("x⁽²⁰⁰⁰⁾"), "x^{(2000)}");
});

test("TeX's special characters in a program's text are escaped, never commands", () => {
  const tex = toTex("a_b = {c} % $ # & \\ ~ ^");
  assert.equal(tex, "\\text{a\\_b} = \\{c\\} \\% \\$ \\# \\& \\backslash \\sim \\hat{}");
  assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }));
});

test("the Done line: a sentence's space, a negative number after a word, × between sizes", () => {
  // seen at 1024x768 in the projector theme: "Done.dL/dX = 4×3 · min − 0.5598", ×3 as text
  // (a summary's fields set apart, each name with its number: "· min ·" read as a product)
  assert.equal(toTex("Done. dL/dX = 4×3 matrix · min -0.5598 · max 0.8551"),
    "\\text{Done}.\\ \\text{dL}/\\text{dX} = 4\\times 3\\ \\text{matrix} \\quad {\\text{min}\\ {-}0.5598} \\quad {\\text{max}\\ 0.8551}");
  assert.equal(toTex("a = -0.5 - 1"), "a = -0.5 - 1"); // after a sign, KaTeX's own unary minus
});

test("no TeX space beside a relation: KaTeX spaces it, and the two made a double gap", () => {
  // the typeset Done line read "dL/da  = 0.7864" (a review)
  assert.equal(toTex("Done. dL/da = 0.7864"), "\\text{Done}.\\ \\text{dL}/\\text{da} = 0.7864");
  assert.equal(toTex("Iteration 100: W1.T"), "\\text{Iteration}\\ 100: W_{1}.T");
  assert.equal(toTex("so a += 1", { breakable: true }).includes("\\ \\mathrel"), false);
});

// The pairs the LaTeX export's converter (engine/trace/tex.py) is tested on too
// (tests/engine/test_table_tex.py): the two tables set the engine's signs the same way.
test("the shared Unicode -> TeX pairs, each TeX that KaTeX parses", () => {
  const { pairs } = JSON.parse(readFileSync("tests/fixtures/unicode_tex.json", "utf8"));
  assert.ok(pairs.length >= 15);
  for (const [text, tex] of pairs) {
    assert.equal(toTex(text), tex, text);
    assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }), tex);
  }
});

// Every narration the stored traces carry (tests/js/fixtures, tests/golden).
function narrations() {
  const out = new Set();
  const dirs = ["tests/js/fixtures", "tests/golden"];
  for (const dir of dirs) {
    let names = [];
    try { names = readdirSync(dir); } catch { continue; }
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      const walk = (x) => {
        if (Array.isArray(x)) x.forEach(walk);
        else if (x && typeof x === "object") {
          if (typeof x.narration === "string") out.add(x.narration);
          Object.values(x).forEach(walk);
        }
      };
      walk(JSON.parse(readFileSync(`${dir}/${name}`, "utf8")));
    }
  }
  return [...out];
}

test("every stored narration is TeX that KaTeX parses", () => {
  const all = narrations();
  assert.ok(all.length >= 50, `only ${all.length} narrations found`);
  for (const text of all) {
    const tex = toTex(text);
    assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true, strict: "ignore" }), text);
    // a math symbol left as text would print as it is, unset
    for (const m of tex.matchAll(/\\text\{([^}]*)\}/g)) assert.doesNotMatch(m[1], /[=+·⊙@∂²ᵀ\u0304*/<>()[\]]/u, `${text} -> ${m[0]}`);
  }
});

test("a loose rule may break at every space, inside a formula too (a phone's detail sheet)", () => {
  // cross_entropy's rule ran off a 390 px sheet: its one formula had no break point
  const tex = toTex("so ∂L/∂logits += (softmax(logits) - onehot([0, 2])) / 6", { breakable: "loose" });
  assert.equal(tex, "\\text{so}\\ \\allowbreak \\partial L/\\partial \\text{logits} \\mathrel{{+}{=}} "
    + "(\\operatorname{softmax}(\\text{logits}) - \\operatorname{onehot}([0,\\ \\allowbreak 2])) / 6");
  assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }));
});

test("a number's aside in parentheses keeps its space: the seed's \"1 (dL/dL)\"", () => {
  // typeset, the seed step read "1(dL/dL)" (static/js/narration.js seed); a call stays close
  assert.equal(toTex("L̄ = 1 (dL/dL), the backward pass starts at the output"),
    "\\bar{L} = 1\\;(\\text{dL}/\\text{dL}),\\ \\text{the}\\ \\text{backward}\\ \\text{pass}"
    + "\\ \\text{starts}\\ \\text{at}\\ \\text{the}\\ \\text{output}");
  assert.equal(toTex("L̄ = ones(2, 3) (dL/dL)"), "\\bar{L} = \\operatorname{ones}(2,\\ 3)\\;(\\text{dL}/\\text{dL})");
  assert.equal(toTex("t = tanh(d) · 2 (x)"), "t = \\tanh(d) \\cdot 2\\;(x)");
  // and no break point there: a number keeps its aside on its line
  assert.equal(narrationTex("L̄ = 1 (dL/dL)"), "{\\bar{L}} = {1\\;(\\text{dL}/\\text{dL})}");
});

/** The pieces KaTeX may wrap `tex` into (its top-level .katex-base boxes), as their text. */
function wrapPieces(tex) {
  const html = katex.renderToString(tex, { throwOnError: true, strict: "ignore" });
  return html.split('<span class="katex-base">').slice(1)
    .map((piece) => piece.replace(/<[^>]*>/g, "").replace(/\u200b/g, "").replace(/\s+/g, " ")); // KaTeX spaces: no-break ones
}

test("a narration line wraps at a relation or between words, never inside a product", () => {
  // on the projector the tanh step's line broke as "0.7864 ·" / "(−1.8485)", and "(1 −" / "t²)"
  const text = "t = tanh(d), so ∂s/∂d += (1 - t²) · ∂s/∂t = 0.7864 · (-1.8485) = -1.4537";
  assert.deepEqual(wrapPieces(narrationTex(text)),
    ["t=", "tanh(d), ", "so ", "∂s/∂d+=", "(1−t2)⋅∂s/∂t=", "0.7864⋅(−1.8485)=", "−1.4537"]);
  for (const t of narrations()) {
    for (const piece of wrapPieces(narrationTex(t))) {
      // a piece ends at a relation, a word's space, or the line's end: never at an operator
      assert.doesNotMatch(piece, /[⋅∗×⊙+−]$/u, `${t}: "${piece}"`);
    }
  }
});

// ---------------------------------------------------------------- gradwalk issue 14 §5

test("a number in exponent form is set as print sets it, one unbroken group", () => {
  // "dx150/dx0 = 2.117e-26" at Done of a 150-line chain read 2.117·e − 26 (italic e, a minus)
  assert.equal(toTex("Done. dx150/dx0 = 2.117e-26"), "\\text{Done}.\\ \\text{dx150}/\\text{dx0} = {2.117\\times10^{-26}}");
  assert.equal(toTex("a = 1.235e+05"), "a = {1.235\\times10^{5}}");
  assert.equal(toTex("a = -1e-08"), "a = -{1\\times10^{-8}}");
  assert.equal(narrationTex("x̄ += 2.117e-26 · 0.5"), "{\\bar{x}} \\mathrel{{+}{=}} {{2.117\\times10^{-26}} \\cdot 0.5}");
  const html = katex.renderToString(toTex("g = 2.117e-26"), { throwOnError: true });
  assert.match(html.replace(/<[^>]*>/g, ""), /2\.117×10−26/u);
});

/** The Done line a stored trace `name` (tests/golden) says on the page (narration.js). */
function doneLine(name) {
  const trace = JSON.parse(readFileSync(`tests/golden/${name}.json`, "utf8"));
  const nodesById = Object.fromEntries(trace.graph.nodes.map((n) => [n.id, n]));
  // the body's results on its done event, as the page's walk puts them (walk.js prepareWalk),
  // with the fields a mode's Done says: forward mode's jvp and passes, the bug lab's bugs
  const { output, grads, first_non_finite, jvp, passes, bugs } = trace;
  const done = { ...trace.events.at(-1), output, grads, first_non_finite, jvp, passes, bugs };
  return narrate(done, nodesById, { hvp: trace.hvp });
}

// Every mode's Done line: reverse, forward, hvp, the bug lab, and a tensor's summary (the MLP's).
const DONE_LINES = [
  ...readdirSync("tests/golden").filter((n) => n.endsWith(".json")).map((n) => doneLine(n.slice(0, -5))),
  "Done. (H v)_c = ∂s/∂c = 0,  (H v)_d = ∂s/∂d = 3", // the review's hvp walk
  "Done. dx150/dx0 = 2.117e-26", // a long chain (and a trained leaf's: train.js's Done is reverse mode's)
  "Done. dL/dX = 6×4 matrix · min -0.2206 · max 0.4146 · mean 0.0367,  dL/db1 = 8-vector · min -0.248 · max 1.2e-05 · mean 0.017",
];

test("every mode's Done line: a space after Done., subscripts set, numbers whole, no field a product", () => {
  assert.ok(DONE_LINES.some((t) => t.includes("(H v)_")), "an hvp Done line is among them");
  assert.ok(DONE_LINES.some((t) => t.includes("tangent")), "a forward Done line is among them");
  for (const text of DONE_LINES) {
    for (const tex of [toTex(text), narrationTex(text)]) {
      assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true, strict: "ignore" }), tex);
      assert.match(tex, /\\text\{Done\}[.,]\}? ?\\ /, `${text}: its space after "Done." (${tex})`);
      assert.doesNotMatch(tex, /\)\\text\{\\_/, `${text}: a subscript as text (${tex})`);
      assert.doesNotMatch(tex, /\d[eE][+-]?\d/, `${text}: a number in e-notation (${tex})`);
      assert.doesNotMatch(tex, /\\cdot\s*\\text\{(min|max|mean)\}/, `${text}: a summary's field as a product (${tex})`);
    }
  }
  assert.equal(toTex("Done. (H v)_c = ∂s/∂c = 0"), "\\text{Done}.\\ (H v)_{c} = \\partial s/\\partial c = 0");
  assert.equal(toTex("(H v)_W1 = 1"), "(H v)_{W_{1}} = 1");
  // forward mode's: "∂/∂a (the Jacobian-vector product)" read a(the Jacobian − vector product)
  const forward = toTex(DONE_LINES.find((t) => t.includes("tangent")));
  assert.match(forward, /\\partial a\\;\(\\text\{the\}/, forward);
  assert.match(forward, /\\text\{Jacobian\}\\text\{-\}\\text\{vector\}/, forward);
});

test("a tensor's summary: its fields apart, each name with its number, a break between fields", () => {
  assert.equal(toTex("dL/dX = 6×4 matrix · min -0.2206 · max 1.2e-05"),
    "\\text{dL}/\\text{dX} = 6\\times 4\\ \\text{matrix} \\quad {\\text{min}\\ {-}0.2206} \\quad {\\text{max}\\ {1.2\\times10^{-5}}}");
  const pieces = wrapPieces(narrationTex("Done. dL/dX = 6×4 matrix · min -0.2206 · max 0.4146 · mean 0.0367"));
  assert.ok(pieces.some((p) => /^min −0\.2206/u.test(p.trim())), pieces.join(" | ")); // a field is one piece
  assert.ok(pieces.some((p) => /^6×4 matrix$/u.test(p.trim())), pieces.join(" | ")); // the shape is one too
});
