// Making the panels' elements (render/modes.js, render/train.js): no global ids, the
// document is the root's.

/** An element of `doc` by tag, with attributes (`text`: its text) and children. */
export function el(doc, tag, attrs = {}, ...children) {
  const e = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    // through the CSSOM: the page's style policy (no 'unsafe-inline') refuses a style
    // attribute, which left the forward passes' bars all full width (test_forward_mode_page)
    else if (k === "style") e.style.cssText = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

/**
 * The nonce of the page's style policy (templates/base.html `<meta name="csp-nonce">`, made
 * per answer by server/head.py) for a <style> element the page makes, or "" where there is
 * none (the standalone export admits its own style elements by hash and makes none).
 */
export function pageNonce(doc) {
  return doc.querySelector('meta[name="csp-nonce"]')?.content ?? "";
}
