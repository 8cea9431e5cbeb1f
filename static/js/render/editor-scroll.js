// The program editor's scroll (render/editor.js): where its lines are in its scroller, and
// the scrolls that bring a step's lines into view, on whole lines, no further down than the
// last line with text, and sideways from the statement's start. Takes the CodeMirror view.

const SIDE_MARGIN = 8; // px: a caret this close to the editor's right edge counts as hidden

/**
 * The scroll helpers of CodeMirror `view`; `keep(again)` remembers how to scroll to what a
 * scroll of showLines brought into view (editor.js keeps it there as the editor's height
 * changes). Returns {lineAt, inView, maxScroll, wholeLines, showLines, showStatement,
 * showLineStarts}.
 */
export function editorScroll(view, keep) {
  // ---------------------------------------------------------------- whole lines
  // The editor's scroller is whole lines tall (app.css --editor-h; the padding is the frame's)
  // and a scroll of ours lands on a line's top, so no line shows cut in half at either edge
  // (issue 14: at Done line 2 was half above the top edge, after a reveal's margin).

  /** The px from the scroller's content top to the first line's top (its padding). */
  function origin() {
    const s = view.scrollDOM;
    return view.documentTop - s.getBoundingClientRect().top - s.clientTop + s.scrollTop;
  }

  /** The [top, bottom] of `pos`'s line in the scroller's content (px from its top). */
  function lineAt(pos) {
    const b = view.lineBlockAt(Math.max(0, Math.min(pos, view.state.doc.length)));
    const o = origin();
    return [o + b.top, o + b.bottom];
  }

  /** Whether [top, bottom] (content px) is wholly in view at scroll `at` (default: now). */
  function inView([top, bottom], at = view.scrollDOM.scrollTop) {
    return top >= at - 0.5 && bottom <= at + view.scrollDOM.clientHeight + 0.5;
  }

  /**
   * The most our scrolls go down (px): to the last line with text at the foot (or `pos`'s
   * line, if further down). The blank line a program's last newline makes is not worth line
   * 1: at 1024x768 the tanh example's 7 lines filled the editor, and the reveal's 24 px
   * margin under line 7 scrolled to that blank line, hiding `a = 1.0` from step 7 to Done,
   * through a's fan-out (a newcomer). So a program that fits is never scrolled by us.
   */
  function maxScroll(pos = 0) {
    const s = view.scrollDOM;
    const doc = view.state.doc;
    let last = doc.lines;
    while (last > 1 && !doc.line(last).text.trim()) last -= 1;
    const foot = Math.max(lineAt(doc.line(last).from)[1], lineAt(pos)[1]);
    return Math.max(0, Math.min(s.scrollHeight - s.clientHeight, foot - s.clientHeight));
  }

  /**
   * Move the scroll to a line's top (or the very top or end), the nearest one at which
   * `pos`'s line is still whole in view; unchanged where none is. Never past maxScroll(`to`).
   */
  function wholeLines(pos, to = pos) {
    const s = view.scrollDOM;
    const max = maxScroll(to);
    if (s.scrollTop > max + 0.5) s.scrollTop = max;
    const at = s.scrollTop;
    if (max <= 0 || at <= 0.5 || at >= max - 0.5) return;
    const o = origin();
    const edge = view.lineBlockAtHeight(at - o); // the line across the top edge
    const tried = at <= o ? [0, o] : [o + edge.top, o + edge.bottom];
    const line = lineAt(pos);
    const fits = tried.map((t) => Math.min(max, t)).sort((a, b) => Math.abs(a - at) - Math.abs(b - at))
      .find((t) => inView(line, t));
    if (fits !== undefined) s.scrollTop = fits;
  }

  /**
   * Bring the lines from `from` to `to` (positions) into view if the first is not: as many
   * as fit from the first, with the least scroll, on whole lines.
   */
  function showLines(from, to, { force = false } = {}) {
    const first = lineAt(from);
    if (!force && inView(first)) return;
    const s = view.scrollDOM;
    const last = lineAt(to);
    const max = maxScroll(to);
    // the nearest scroll that shows them all, or the first line at the top when they do not fit
    const low = last[1] - s.clientHeight;
    const target = low <= first[0] ? Math.min(first[0], Math.max(low, s.scrollTop)) : first[0];
    s.scrollTop = Math.max(0, Math.min(max, target));
    wholeLines(from, to);
    keep(() => showLines(from, to, { force: true }));
  }

  // The step's statement is what the narration reads, so its line shows from its start
  // whatever the caret: a caret left at the end of a long line (Ctrl+Enter there) kept the
  // editor scrolled 630 px sideways through the whole walk, lines 1-2 blank (issue 14).
  // scrollLeft 0 when the span's end fits; else just enough for the end, never past the start
  // of the statement (its line's first non-blank): the lines' starts read, the mark may not.
  function showStatement([from, to]) {
    const scroller = view.scrollDOM;
    const line = view.state.doc.lineAt(from);
    const end = view.coordsAtPos(Math.min(to, view.state.doc.length));
    const start = view.coordsAtPos(line.from + (line.text.length - line.text.trimStart().length));
    if (!end || !start) return;
    const box = scroller.getBoundingClientRect();
    const textLeft = view.dom.querySelector(".cm-gutters")?.getBoundingClientRect().right ?? box.left;
    const over = end.right + scroller.scrollLeft - (box.left + scroller.clientWidth - SIDE_MARGIN);
    const startX = start.left + scroller.scrollLeft - textLeft - SIDE_MARGIN; // the start at the left edge
    scroller.scrollLeft = Math.max(0, Math.min(over, startX));
  }

  // A line wider than the editor lets it scroll sideways: the browser scrolls the focused
  // text on a click, CodeMirror keeps the scroll from one program to the next, and a mark
  // scrolled to stays so. Scrolled by even 18 px, `W1 = randn(...)` reads `1 = randn(...)`
  // on every line (issue 14). So the lines' start comes back into view whenever that keeps
  // `pos` in view (by default the caret while the user types; else nothing needs the scroll).
  function showLineStarts(pos = view.hasFocus ? view.state.selection.main.head : null) {
    const scroller = view.scrollDOM;
    if (!scroller.scrollLeft) return;
    const at = pos === null ? null : view.coordsAtPos(Math.min(pos, view.state.doc.length));
    const right = scroller.getBoundingClientRect().left + scroller.clientWidth - SIDE_MARGIN;
    if (at && at.right + scroller.scrollLeft > right) return; // it needs the scroll
    scroller.scrollLeft = 0;
  }

  return { lineAt, inView, maxScroll, wholeLines, showLines, showStatement, showLineStarts };
}
