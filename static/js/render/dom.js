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

/**
 * Mark `box` (an element that scrolls on `axis`, "x" or "y") when its content is longer than
 * it: class "scrolls", focusable (a keyboard scrolls it), and a note `cue` put after it. A
 * scrollbar is no sign on a phone, a projector or in a screenshot (overlay or hidden
 * scrollbars): a long error's hint and a wide rule read as cut (a review). Marks again when
 * called again (the box was resized); returns whether it scrolls.
 */
export function markScroller(box, axis, cue) {
  const over = axis === "x" ? box.scrollWidth > box.clientWidth + 1 : box.scrollHeight > box.clientHeight + 1;
  box.classList.toggle("scrolls", over);
  // scrolled to its end, its edge is no longer shaded (app.css .at-end)
  const atEnd = () => box.classList.toggle("at-end", axis === "x"
    ? box.scrollLeft + box.clientWidth >= box.scrollWidth - 1 : box.scrollTop + box.clientHeight >= box.scrollHeight - 1);
  atEnd();
  if (over && !box.dataset.watched) {
    box.dataset.watched = "true";
    box.addEventListener("scroll", atEnd, { passive: true });
  }
  if (over) box.tabIndex = 0;
  else box.removeAttribute("tabindex");
  const note = box.nextElementSibling?.classList.contains("scroll-note") ? box.nextElementSibling : null;
  if (over && !note) box.after(el(box.ownerDocument, "span", { class: "scroll-note", text: cue }));
  if (!over) note?.remove();
  return over;
}
