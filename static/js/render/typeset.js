// Typeset math (issue 18 §3): a rule in the engine's Unicode, set by KaTeX (npm, bundled by
// esbuild with its stylesheet and fonts into static/dist: nothing from a CDN). katex.render
// builds the formula's elements itself and sets their sizes through the CSSOM, never a
// style attribute or innerHTML of its markup, so the page's CSP needs no 'unsafe-inline'
// for it (tests/e2e/test_typeset_page.py fails on any securitypolicyviolation).

import katex from "katex";
import "katex/dist/katex.min.css";
import { toTex } from "../tex.js";

/**
 * `text` typeset into a new element of `doc`: a <span class="typeset" role="math"> whose
 * aria-label (and data-text) is the plain Unicode text, for screen readers and for the tests;
 * the KaTeX rendering inside it is aria-hidden (`loose`: see render). A formula KaTeX cannot parse shows its TeX
 * source in red (throwOnError false): never an exception.
 */
export function typeset(doc, text, { loose = false } = {}) {
  const key = loose ? `loose\u0000${text}` : text;
  let made = rendered.get(key);
  if (!made || made.ownerDocument !== doc) {
    made = render(doc, text, loose);
    if (rendered.size >= CACHED) rendered.delete(rendered.keys().next().value); // the oldest
    rendered.set(key, made);
  }
  return made.cloneNode(true);
}

// The panel is drawn again at every step while a node is pinned: each rule is set once and
// cloned after (setting 64 long rules took 140 ms, the median of 5 rounds in node).
const CACHED = 256;
const rendered = new Map();

// `loose`: KaTeX may break after any operator at the top level, inside a formula too: a rule
// whose one formula is wider than a phone's sheet ("((softmax(logits) − onehot(…))/6") ran
// off its right edge (a review); only such a rule is set loose (render/detail.js).
function render(doc, text, loose) {
  const outer = doc.createElement("span");
  outer.className = "typeset";
  outer.setAttribute("role", "math");
  outer.setAttribute("aria-label", text);
  outer.dataset.text = text;
  const inner = doc.createElement("span");
  inner.setAttribute("aria-hidden", "true");
  setTex(inner, toTex(text, { breakable: loose ? "loose" : true })); // a long rule wraps at a relation, never inside a formula
  outer.append(inner);
  return outer;
}

/** The TeX `tex` set by KaTeX into `el` (its children replaced); a formula KaTeX cannot parse
 * shows its source in red, never an exception. */
export function setTex(el, tex) {
  katex.render(tex, el, { throwOnError: false, output: "html", strict: "ignore" });
}
