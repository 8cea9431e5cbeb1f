// The narration line typeset (issue 18 §3): the engine's Unicode narration set by KaTeX, the
// plain text kept for screen readers. The line holds two children:
//   .narration-plain  the plain narration, visually hidden: what a screen reader announces
//                     (the line is aria-live) and what the element's text is (textContent and
//                     innerText), as the page's tests and the copy of a selection read it;
//   .narration-tex    aria-hidden, KaTeX's rendering inside its own shadow root, so none of
//                     KaTeX's glyph text (the "ˉ" of a bar, "⊤") mixes into the line's text.
// The shadow root takes the page's own bundled stylesheet (KaTeX's rules; its fonts are the
// document's: 'self' under the page's CSP, data: URLs in the standalone export and the
// notebook widget); sizes and colours are inherited from the line, so the typeset line is as
// large as the plain one was (the projector theme's narration size too).

import { narrationTex } from "../tex.js";
import { setTex } from "./typeset.js";

/**
 * Show `text` in the narration element `line`. typeset: set it as math (an event's
 * narration, when it holds a formula); false for the page's own messages ("Waiting for
 * Trace."), shown as they are.
 * KaTeX cannot parse a line: its TeX source shows in red (throwOnError false), never an
 * exception.
 */
const FONT_FACE_RULE = 5; // CSSRule.FONT_FACE_RULE

export function showNarration(line, text, { typeset = true } = {}) {
  const { plain, shown, styled } = parts(line);
  // Only a line with a formula in it (an "=") is set as math: a line of prose alone ("one
  // node at a time", step 0's) set by KaTeX read its article "a" as the variable a. A
  // tensor's summary ("dL/dX = 6×4 · min −0.2206 · max 0.4146") is set too, its fields apart
  // (tex.js): shown plain, the MLP's Done line was the one line in bold text (a review).
  typeset &&= styled && Boolean(text) && text.includes("=");
  if (plain.textContent === text && line.dataset.typeset === String(typeset)) return;
  plain.textContent = text;
  line.dataset.typeset = String(typeset);
  // a long line scrolls inside its box on a short screen (app.css .narration): a new one is
  // read from its start
  line.scrollTop = 0;
  const target = shown.shadowRoot.querySelector(".formula");
  if (typeset) {
    // wraps at a relation or between words, as the plain line did, never inside a product
    setTex(target, narrationTex(text));
  } else {
    target.textContent = text;
  }
}

// The bundle's stylesheets: linked from static/dist, or inlined as <style data-bundle>.
const SHEETS = 'link[rel="stylesheet"][href*="/dist/"], style[data-bundle]';

/**
 * The line's two children, made at the first call (whatever the line held is replaced), and
 * whether KaTeX's stylesheet is there to copy into the shadow root. It is looked for where the
 * line is (its root node): the page links the bundle's (static/dist); the standalone HTML
 * export (server/export_html.py) inlines it as `<style data-bundle>` in the document, its
 * fonts as data: URLs; the notebook widget (widget.js) puts that same one in its own shadow
 * root. Without any the line stays plain.
 */
function parts(line) {
  let plain = line.querySelector(":scope > .narration-plain");
  let shown = line.querySelector(":scope > .narration-tex");
  const doc = line.ownerDocument;
  const sheets = line.getRootNode().querySelectorAll(SHEETS);
  if (plain && shown) return { plain, shown, styled: sheets.length > 0 };
  plain = doc.createElement("span");
  plain.className = "narration-plain";
  shown = doc.createElement("span");
  shown.className = "narration-tex";
  shown.setAttribute("aria-hidden", "true");
  const root = shown.attachShadow({ mode: "open" });
  styleInto(root, sheets);
  const formula = doc.createElement("span");
  formula.className = "formula";
  root.append(formula);
  line.replaceChildren(plain, shown);
  return { plain, shown, styled: sheets.length > 0 };
}

/**
 * KaTeX's rules in the shadow root at once: the page's loaded bundle stylesheets copied into
 * one constructed sheet (a linked copy loads later, and the line's height changed under a
 * camera that had just framed the graph); a sheet not loaded yet (or a style element not yet
 * in the page: a widget drawn before JupyterLab shows it) is copied as an element instead.
 * Its @font-face rules are left out: in a shadow root Chromium ignores them, and the
 * document's faces serve the text in it (fontfaces.js).
 */
function styleInto(root, links) {
  const view = root.ownerDocument.defaultView;
  const rules = [];
  for (const link of links) {
    try {
      rules.push(...[...link.sheet.cssRules].filter((r) => r.type !== FONT_FACE_RULE).map((r) => r.cssText));
    } catch {
      root.append(link.cloneNode(true)); // not loaded (no sheet, no rules yet)
    }
  }
  if (!rules.length || !view?.CSSStyleSheet) return;
  const sheet = new view.CSSStyleSheet();
  sheet.replaceSync(rules.join("\n"));
  root.adoptedStyleSheets = [sheet];
}
