// A scrolling column shows no line cut in half (a review: the legend's row was cut across at
// the foot of the column beside the program at 1280x800, the ledger's "backward 256 FLOPs"
// at 1024x768 in Train mode). The line that crosses the column's lower edge is masked off
// (app.css: its --cut, the px from that line's top to the edge) and the column says that
// more is below (data-more); scrolled, the next line shows whole. A block taller than
// MAX_CUT_EM (a chart) is left as it is: masking it would blank most of the column.
// Takes its element; no global ids.

const MAX_CUT_EM = 2.5;
const LEAVES = "svg, canvas, img, input, select, button, textarea, .swatch";

/** The px of `box`'s lines (text line boxes and leaf elements) that its lower edge cuts. */
export function cutAt(box) {
  if (box.scrollHeight <= box.clientHeight + 1) return 0;
  const outer = box.getBoundingClientRect();
  const bottom = outer.top + box.clientTop + box.clientHeight;
  const most = MAX_CUT_EM * parseFloat(getComputedStyle(box).fontSize);
  let top = bottom;
  const crossing = (r) => r.height > 0 && r.top < bottom - 0.5 && r.bottom > bottom + 0.5;
  const take = (r) => { if (crossing(r) && bottom - r.top <= most) top = Math.min(top, r.top); };
  const range = box.ownerDocument.createRange();
  const walker = box.ownerDocument.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  // a closed <details>' content keeps its boxes (content-visibility): not drawn, not counted
  const drawn = (e) => e.checkVisibility?.({ visibilityProperty: true, opacityProperty: true }) ?? true;
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.data.trim() || !crossing(t.parentElement.getBoundingClientRect()) || !drawn(t.parentElement)) continue;
    range.selectNodeContents(t);
    for (const r of range.getClientRects()) take(r);
  }
  for (const leaf of box.querySelectorAll(LEAVES)) {
    if (leaf.parentElement.closest(LEAVES) || !drawn(leaf)) continue; // an svg's own parts
    take(leaf.getBoundingClientRect());
  }
  return Math.max(0, bottom - top);
}

/** Keep `box`'s lines whole as it scrolls, is resized or its content changes. */
export function keepRowsWhole(box) {
  let frame = 0;
  const update = () => {
    frame = 0;
    const cut = cutAt(box);
    box.style.setProperty("--cut", `${cut}px`);
    box.dataset.cut = String(Math.round(cut));
    box.dataset.more = String(box.scrollTop + box.clientHeight < box.scrollHeight - 1);
  };
  const soon = () => { frame ||= requestAnimationFrame(update); };
  box.addEventListener("scroll", soon, { passive: true });
  new ResizeObserver(soon).observe(box);
  new MutationObserver(soon).observe(box, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class"] });
  soon();
}
