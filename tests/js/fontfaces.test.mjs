import { test } from "node:test";
import assert from "node:assert/strict";
import { addFonts, fontFaces } from "../../static/js/fontfaces.js";

// CSSOM rules as the widget's constructed sheet gives them (type 5: CSSFontFaceRule).
const face = (props) => ({ type: 5, style: { getPropertyValue: (name) => props[name] ?? "" } });
const MAIN = face({ "font-family": "KaTeX_Main", "font-style": "normal", "font-weight": "400",
  "font-display": "block", src: 'url("data:font/woff2;base64,AAAA") format("woff2")' });
const MATH = face({ "font-family": '"KaTeX_Math"', "font-style": "italic", "font-weight": "400",
  src: 'url("data:font/woff2;base64,BBBB") format("woff2")' });
const RULE = { type: 1, style: { getPropertyValue: () => "" }, cssText: ".katex { font: 1.21em KaTeX_Main }" };

test("fontFaces: each @font-face rule as FontFace's arguments, other rules left out", () => {
  assert.deepEqual(fontFaces([RULE, MAIN, MATH]), [
    { family: "KaTeX_Main", source: 'url("data:font/woff2;base64,AAAA") format("woff2")',
      descriptors: { style: "normal", weight: "400", display: "block" } },
    { family: "KaTeX_Math", source: 'url("data:font/woff2;base64,BBBB") format("woff2")',
      descriptors: { style: "italic", weight: "400", display: "auto" } },
  ]);
  assert.deepEqual(fontFaces([face({ "font-family": "NoSource" }), face({ src: "url(x)" })]), []);
});

/** A document with FontFace and a FontFaceSet (a Set, as document.fonts iterates). */
function fakeDocument(present = []) {
  class FontFace {
    constructor(family, source, { style = "normal", weight = "normal" } = {}) {
      Object.assign(this, { family, source, style, weight });
    }
  }
  return { defaultView: { FontFace }, fonts: new Set(present.map((f) => new FontFace(...f))) };
}

test("addFonts: the faces go to the document's fonts once, however many views add them", () => {
  const doc = fakeDocument();
  assert.equal(addFonts(doc, [RULE, MAIN, MATH]), 2);
  assert.deepEqual([...doc.fonts].map((f) => [f.family, f.style, f.weight]),
    [["KaTeX_Main", "normal", "400"], ["KaTeX_Math", "italic", "400"]]);
  assert.equal(addFonts(doc, [MAIN, MATH]), 0);   // a second view, a second widget
  assert.equal(doc.fonts.size, 2);
  const page = fakeDocument([["KaTeX_Main", "x", { style: "normal", weight: "400" }]]);
  assert.equal(addFonts(page, [MAIN, MATH]), 1);   // the page's own face is kept
  assert.equal(addFonts({ defaultView: {}, fonts: new Set() }, [MAIN]), 0);   // no FontFace
});
