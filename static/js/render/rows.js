// A scrolling column shows no line cut in half (a review: the legend's row was cut across at
// the foot of the column beside the program at 1280x800, the ledger's "backward 256 FLOPs"
// at 1024x768 in Train mode). The line that crosses the column's lower edge is masked off
// (app.css: its --cut, the px from that line's top to the edge) and the column says that
// more is below (data-more); scrolled, the next line shows whole. A block taller than
// MAX_CUT_EM (a chart) is left as it is: masking it would blank most of the column.
// A row (ROWS: a table's row, a list item, a row of controls) is one line: whole or masked
// whole. The gradient check's W row showed its name with its ✓ cut, the quiz's Practice row
// a sliver of its button at 1024x768 (issue 14 §5). The edges are the column's own or an
// ancestor's that clips it, where that is narrower; scrolled, the top edge masks the line it
// cuts as well (--cut-top), so the rows above the gradient check's verdict are not slivers.
// A line is its text's glyphs, its leaf elements, and the boxes an inline element draws
// around its text (a <kbd>'s frame), in the box and in its open shadow roots (the narration's
// KaTeX, render/narration_line.js). While more is below, the foot's shade (app.css
// .side[data-more], SHADE_REM deep) darkens the line it falls on as a cut would: that line
// is masked too (the key help's line at 1280x800 in the light theme ended 1 px over the edge,
// its lower half in the shade and its keys' frames across the edge; a review of issue 14).
// Takes its element; no global ids.

const MAX_CUT_EM = 2.5;
// a row of two lines and its padding (a tensor leaf's name over its worst element: 47 px)
const MAX_ROW_EM = 4;
const SHADE_REM = 0.7; // app.css .side[data-more="true"]: its box-shadow's inset
const LEAVES = "svg, canvas, img, input, select, button, textarea, .swatch";
const ROWS = "tr, li, .quiz-setup-row, .mode-row, .gradcheck-row";

/** Whether the inline element `e` draws a box around its text (a border or a background). */
function framed(e) {
  const s = getComputedStyle(e);
  return s.display.startsWith("inline") && (parseFloat(s.borderBottomWidth) > 0 || s.backgroundColor !== "rgba(0, 0, 0, 0)");
}

/** `box` and the open shadow roots inside it: where its lines are drawn. */
function rootsOf(box) {
  return [box, ...[...box.querySelectorAll("*")].filter((e) => e.shadowRoot).map((e) => e.shadowRoot)];
}

/** The viewport y (px) of `box`'s seen part, top and foot: its own padding box's, or a
 * clipping ancestor's where that is narrower. */
function seenPart(box) {
  const top = box.getBoundingClientRect().top + box.clientTop;
  const seen = { ownTop: top, ownBottom: top + box.clientHeight, top, bottom: top + box.clientHeight };
  for (let e = box.parentElement; e && e !== box.ownerDocument.documentElement; e = e.parentElement) {
    if (getComputedStyle(e).overflowY === "visible") continue;
    const r = e.getBoundingClientRect();
    seen.top = Math.max(seen.top, r.top + e.clientTop);
    seen.bottom = Math.min(seen.bottom, r.top + e.clientTop + e.clientHeight);
  }
  return seen;
}

/** The boxes of `box`'s lines (text line boxes, framed inline boxes, leaf elements) no taller
 * than `most` px that the line at viewport `y` crosses, each as its row's box where it is in
 * a row short enough (MAX_ROW_EM) to go whole. */
function crossingAt(box, y, most) {
  const rowMost = (MAX_ROW_EM / MAX_CUT_EM) * most;
  const crossing = (r) => r.height > 0 && r.top < y - 0.5 && r.bottom > y + 0.5;
  const out = [];
  const take = (element, r) => {
    if (!crossing(r)) return;
    const row = element.closest(ROWS);
    const whole = row && box.contains(row) ? row.getBoundingClientRect() : null;
    if (whole && whole.height <= rowMost) out.push(whole);
    else if (r.height <= most) out.push(r);
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
      for (const r of range.getClientRects()) take(parent, r);
      if (parent !== box && framed(parent)) for (const r of parent.getClientRects()) take(parent, r);
    }
    for (const leaf of root.querySelectorAll(LEAVES)) {
      if (leaf.parentElement?.closest(LEAVES) || !drawn(leaf)) continue; // an svg's own parts
      take(leaf, leaf.getBoundingClientRect());
    }
  }
  return out;
}

/**
 * The line (text line boxes and leaf elements) that `box`'s own lower edge cuts, or that
 * reaches into the `lift` px over it (a shade): {edge, top, bottom}, the edge's and the
 * line's top and bottom on screen (px), or null when none is (or nothing is below the edge).
 */
export function lineAtFoot(box, lift = 0) {
  if (box.scrollHeight <= box.clientHeight + 1) return null;
  const { ownBottom: edge } = seenPart(box);
  const most = MAX_CUT_EM * parseFloat(getComputedStyle(box).fontSize);
  const lines = [...crossingAt(box, edge, most), ...(lift ? crossingAt(box, edge - lift, most) : [])];
  const top = lines.reduce((y, r) => Math.min(y, r.top), edge);
  const bottom = lines.reduce((y, r) => Math.max(y, r.bottom), edge);
  return top < edge ? { edge, top, bottom } : null;
}

/** The viewport y (px) up to which a cover whose top edge is at viewport `y` (the detail
 * panel's "more below" cue) must grow for none of `box`'s lines (and short rows) to show cut:
 * the top of the highest line across `y`, and again of the line across that (a typeset
 * line's foot reaches a few px under the next line's top), or `y` when none crosses it. */
export function lineTopAt(box, y) {
  const most = MAX_CUT_EM * parseFloat(getComputedStyle(box).fontSize);
  for (let i = 0; i < 8; i += 1) {
    const top = crossingAt(box, y, most).reduce((t, r) => Math.min(t, r.top), y);
    if (top >= y - 0.5) break;
    y = top;
  }
  return y;
}

/** The px `box`'s seen edges cut of its lines and rows, from each edge of its own box:
 * { head, foot } (what --cut-top and --cut mask); `lift`: the px over the foot a shade
 * darkens, whose line is masked as a cut one. Nothing is cut when it neither scrolls nor is
 * clipped. */
export function cutsAt(box, lift = 0) {
  const seen = seenPart(box);
  const clipped = seen.top > seen.ownTop + 0.5 || seen.bottom < seen.ownBottom - 0.5;
  if (box.scrollHeight <= box.clientHeight + 1 && !clipped) return { head: 0, foot: 0 };
  const most = MAX_CUT_EM * parseFloat(getComputedStyle(box).fontSize);
  // the lines across the seen foot and those the shade over it darkens (`lift` px up)
  const lines = [...crossingAt(box, seen.bottom, most), ...(lift ? crossingAt(box, seen.bottom - lift, most) : [])];
  const foot = lines.reduce((y, r) => Math.min(y, r.top), seen.ownBottom);
  // a piece stuck to the top (app.css .in-sight) covers the lines scrolled under it
  const stuck = [...box.querySelectorAll(".in-sight")].some((e) => {
    const r = e.getBoundingClientRect();
    return r.height > 0 && Math.abs(r.top - seen.top) <= 1 && getComputedStyle(e).position === "sticky";
  });
  const head = (box.scrollTop > 0 || clipped) && !stuck
    ? crossingAt(box, seen.top, most).reduce((y, r) => Math.max(y, r.bottom), seen.ownTop) : seen.ownTop;
  return { head: Math.max(0, head - seen.ownTop), foot: Math.max(0, seen.ownBottom - foot) };
}

/** Keep `box`'s lines whole as it scrolls, is resized or its content changes. */
export function keepRowsWhole(box) {
  let frame = 0;
  const update = () => {
    frame = 0;
    const more = box.scrollTop + box.clientHeight < box.scrollHeight - 1;
    const shade = more ? SHADE_REM * parseFloat(getComputedStyle(box.ownerDocument.documentElement).fontSize) : 0;
    const { head, foot } = cutsAt(box, shade);
    box.style.setProperty("--cut", `${foot}px`);
    box.style.setProperty("--cut-top", `${head}px`);
    box.dataset.cut = String(Math.round(foot));
    box.dataset.cutTop = String(Math.round(head));
    box.dataset.more = String(more);
  };
  const soon = () => { frame ||= requestAnimationFrame(update); };
  box.addEventListener("scroll", soon, { passive: true });
  new ResizeObserver(soon).observe(box);
  new MutationObserver(soon).observe(box, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class"] });
  soon();
}

/**
 * Where `box`'s edge goes to leave out its line whose top is at viewport `top` (px): that top,
 * or the foot of the line above where the two overlap by a few px (a typeset line's boxes
 * do: a superscript rises over its line's top; cut there, the line above lost its commas'
 * and descenders' px under the shade: spirals' Done at 1024x768). The overlap is then the
 * empty top of the line left out.
 */
function footAbove(box, top) {
  const css = getComputedStyle(box);
  const overlap = 0.25 * parseFloat(css.lineHeight);
  // across `top` and ending just under it: the line above (a taller box is the line below's)
  const above = crossingAt(box, top, MAX_CUT_EM * parseFloat(css.fontSize)).filter((r) => r.bottom <= top + overlap);
  return above.reduce((y, r) => Math.max(y, r.bottom), top);
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
      box.style.maxHeight = `${box.offsetHeight - (line.edge - footAbove(box, line.top))}px`;
    }
  };
  const soon = () => { frame ||= requestAnimationFrame(update); };
  new MutationObserver(update).observe(box, { subtree: true, childList: true, characterData: true });
  const sizes = new ResizeObserver(soon);
  for (const e of [box.parentElement, ...box.parentElement.children]) if (e !== box) sizes.observe(e);
  // A font arriving lays its lines out again, its size held by its max-height: KaTeX's, after
  // a typeset line was first measured in a fallback font (spirals' Done at 1024x768: a line's
  // foot cut, the next line's left out by 5 px of its top, measured in the other font).
  box.ownerDocument.fonts?.addEventListener("loadingdone", soon);
  update();
}
