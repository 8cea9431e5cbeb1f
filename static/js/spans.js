// Source spans -> character offsets in the editor's text. No DOM.
// Spans come from the server: `line` is 1-based and `col` 0-based, counted in characters
// (Unicode code points; the engine has already converted ast's UTF-8 byte offsets). A JS
// string counts UTF-16 units, where an astral character such as 𝐱 takes two.

/** The string index in `lineText` of code point offset `col` (clamped to the line). */
function charIndex(lineText, col) {
  let index = 0;
  for (let n = 0; n < col && index < lineText.length; n++) {
    index += lineText.codePointAt(index) > 0xffff ? 2 : 1;
  }
  return index;
}

/** The offset in `text` of (line, col); col null means the start of the line. */
export function offsetOf(text, line, col) {
  const lines = text.split("\n");
  const n = Math.min(Math.max(1, line), lines.length);
  let offset = 0;
  for (let i = 0; i < n - 1; i++) offset += lines[i].length + 1;
  return offset + (col == null ? 0 : Math.min(charIndex(lines[n - 1], col), lines[n - 1].length));
}

/**
 * [start, end) offsets of `span` ({line, col, end_line, end_col}) in `text`, or null when
 * it has no line. Without an end the range runs to the end of the line, so it is visible.
 */
export function rangeOf(text, span) {
  if (!span || span.line == null) return null;
  const start = offsetOf(text, span.line, span.col);
  const lineEnd = offsetOf(text, span.line, Number.MAX_SAFE_INTEGER);
  let end = span.end_line == null || span.end_col == null
    ? lineEnd
    : offsetOf(text, span.end_line, span.end_col);
  if (end <= start) end = Math.max(lineEnd, start + 1); // a point: mark the rest of the line
  return [start, Math.min(end, text.length)];
}
