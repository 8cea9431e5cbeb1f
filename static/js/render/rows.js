// A scrolling column shows no line cut in half (a review: the legend's row was cut across at
// the foot of the column beside the program at 1280x800, the ledger's "backward 256 FLOPs"
// at 1024x768 in Train mode). The line that crosses the column's lower edge is masked off
// (app.css: its --cut, the px from that line's top to the edge) and the column says that
// more is below (data-more); scrolled, the next line shows whole. A block taller than
// MAX_CUT_EM (a chart) is left as it is: masking it would blank most of the column.
// A line is its text's glyphs, its leaf elements, and the boxes an inline element draws
// around its text (a <kbd>'s frame), in the box and in its open shadow roots (the narration's
// KaTeX, render/narration_line.js). While more is below, the foot's shade (app.css
// .side[data-more], SHADE_REM deep) darkens the line it falls on as a cut would: that line
// is masked too (the key help's line at 1280x800 in the light theme ended 1 px over the edge,
// its lower half in the shade and its keys' frames across the edge; a review of issue 14).
// Takes its element; no global ids.

const MAX_CUT_EM = 2.5;
const SHADE_REM = 0.7; // app.css .side[data-more="true"]: its box-shadow's inset
const LEAVES = "svg, canvas, img, input, select, button, textarea, .swatch";

/** Whether the inline element `e` draws a box around its text (a border or a background). */
function framed(e) {
  const s = getComputedStyle(e);
  return s.display.startsWith("inline") && (parseFloat(s.borderBottomWidth) > 0 || s.backgroundColor !== "rgba(0, 0, 0, 0)");
}

/** `box` and the open shadow roots inside it: where its lines are drawn. */
function rootsOf(box) {
  return [box, ...[...box.querySelectorAll("*")].filter((e) => e.shadowRoot).map((e) => e.shadowRoot)];
}

/**
 * The line (text line boxes and leaf elements) that `box`'s lower edge cuts, or that reaches
 * into the `lift` px over it (a shade): {edge, top, bottom}, the edge's and the line's top
 * and bottom on screen (px), or null when none is (or nothing is below the edge).
 */
export function lineAtFoot(box, lift = 0) {
  if (box.scrollHeight <= box.clientHeight + 1) return null;
  const outer = box.getBoundingClientRect();
  const edge = outer.top + box.clientTop + box.clientHeight;
  const most = MAX_CUT_EM * parseFloat(getComputedStyle(box).fontSize);
  let top = edge;
  let bottom = edge;
  const crossing = (r) => r.height > 0 && r.top < edge - lift - 0.5 && r.bottom > edge - lift + 0.5;
  const take = (r) => {
    if (!crossing(r) || edge - r.top > most) return;
    top = Math.min(top, r.top);
    bottom = Math.max(bottom, r.bottom);
  };
  const range = box.ownerDocument.createRange();
  // a closed <details>' content keeps its boxes (content-visibility): not drawn, not counted
  const drawn = (e) => e.checkVisibility?.({ visibilityProperty: true, opacityProperty: true }) ?? true;
  for (const root of rootsOf(box)) {
    const walker = box.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const parent = t.parentElement;
      if (!t.data.trim() || !crossing(parent.getBoundingClientRect()) || !drawn(parent)) continue;
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) take(r);
      if (parent !== box && framed(parent)) for (const r of parent.getClientRects()) take(r);
    }
    for (const leaf of root.querySelectorAll(LEAVES)) {
      if (leaf.parentElement?.closest(LEAVES) || !drawn(leaf)) continue; // an svg's own parts
      take(leaf.getBoundingClientRect());
    }
  }
  return top < edge ? { edge, top, bottom } : null;
}

/** The px of `box`'s lines that its lower edge (or `lift` px over it) cuts: from the cut line's top to the edge. */
export function cutAt(box, lift = 0) {
  const line = lineAtFoot(box, lift);
  return line ? line.edge - line.top : 0;
}

/** Keep `box`'s lines whole as it scrolls, is resized or its content changes. */
export function keepRowsWhole(box) {
  let frame = 0;
  const update = () => {
    frame = 0;
    const more = box.scrollTop + box.clientHeight < box.scrollHeight - 1;
    const shade = more ? SHADE_REM * parseFloat(getComputedStyle(box.ownerDocument.documentElement).fontSize) : 0;
    const cut = cutAt(box, shade);
    box.style.setProperty("--cut", `${cut}px`);
    box.dataset.cut = String(Math.round(cut));
    box.dataset.more = String(more);
  };
  const soon = () => { frame ||= requestAnimationFrame(update); };
  box.addEventListener("scroll", soon, { passive: true });
  new ResizeObserver(soon).observe(box);
  new MutationObserver(soon).observe(box, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class"] });
  soon();
}

/**
 * Keep `box` (a flex item that gives way, scrolling inside itself: the narration) as tall as
 * its whole lines, at least two (issue 14: at A+ on a 1024x768 projector the narration gave
 * way to a line and a half). Where its lower edge, at the top of its scroll, cuts its first
 * or second line, it grows to that line's foot (an inline min-height, the px taken from what
 * grows beside it: the graph); where it cuts a later one, it loses the px of that line (an
 * inline max-height, given to the graph). Its CSS min-height is the floor of two plain lines;
 * a typeset line is taller. Measured again when its text changes (at once, before the frame
 * is drawn) and when the box around it or a neighbour changes size.
 */
export function keepHeightWhole(box) {
  let frame = 0;
  const update = () => {
    frame = 0;
    if (box.scrollTop > 0) return; // scrolled by hand: left as it is (a new text reads from its top)
    Object.assign(box.style, { minHeight: "", maxHeight: "" }); // measured as the page's rules lay it out
    const line = lineAtFoot(box);
    box.dataset.cut = String(Math.round(line ? line.edge - line.top : 0));
    if (!line) return;
    const css = getComputedStyle(box);
    const first = box.getBoundingClientRect().top + box.clientTop + parseFloat(css.paddingTop);
    if (line.top - first < 1.5 * parseFloat(css.lineHeight)) {
      box.style.minHeight = `${Math.ceil(line.bottom - box.getBoundingClientRect().top)}px`;
    } else {
      box.style.maxHeight = `${box.offsetHeight - (line.edge - line.top)}px`;
    }
  };
  const soon = () => { frame ||= requestAnimationFrame(update); };
  new MutationObserver(update).observe(box, { subtree: true, childList: true, characterData: true });
  const sizes = new ResizeObserver(soon);
  for (const e of [box.parentElement, ...box.parentElement.children]) if (e !== box) sizes.observe(e);
  update();
}
