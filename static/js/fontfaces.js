// Fonts for a stylesheet that lives in a shadow root (the notebook widget's KaTeX stylesheet,
// server/widget.py): Chromium ignores a @font-face rule inside a shadow root (the widget's
// formulas fell back to the notebook's serif), while text in any shadow root is matched
// against the document's fonts. So the rules' faces are added to `document.fonts` with the
// CSS Font Loading API, which changes no markup and needs no style element in the notebook's
// page. No DOM here beyond what is passed in: node tests give it rule-like objects.

const FONT_FACE_RULE = 5; // CSSRule.FONT_FACE_RULE

/**
 * The @font-face rules among `rules` (CSSOM rules: a sheet's cssRules) as FontFace's
 * arguments, [{family, source, descriptors: {style, weight, display}}], in their order. A
 * face without a family or a src is left out. The family loses its quotes ("KaTeX_Main" and
 * KaTeX_Main name one family).
 */
export function fontFaces(rules) {
  const faces = [];
  for (const rule of rules) {
    if (rule.type !== FONT_FACE_RULE) continue;
    const get = (name) => rule.style.getPropertyValue(name).trim();
    const family = get("font-family").replace(/^(["'])(.*)\1$/, "$2");
    const source = get("src");
    if (!family || !source) continue;
    faces.push({ family, source, descriptors: {
      style: get("font-style") || "normal", weight: get("font-weight") || "normal", display: get("font-display") || "auto" } });
  }
  return faces;
}

/**
 * Add the faces of `rules` (fontFaces) to `doc.fonts`, each face (family, style, weight) once
 * per document: several views, and several widgets (each its own copy of this module), share
 * the notebook's one document. They load when text first uses them, as @font-face faces do.
 * Returns how many were added; 0 where the browser has no FontFace.
 */
export function addFonts(doc, rules) {
  const FontFace = doc.defaultView?.FontFace;
  if (!FontFace || !doc.fonts) return 0;
  const key = (f) => `${f.family}|${f.style}|${f.weight}`;
  const have = new Set([...doc.fonts].map(key));
  let added = 0;
  for (const { family, source, descriptors } of fontFaces(rules)) {
    const face = new FontFace(family, source, descriptors);
    if (have.has(key(face))) continue;
    doc.fonts.add(face);
    have.add(key(face));
    added += 1;
  }
  return added;
}
