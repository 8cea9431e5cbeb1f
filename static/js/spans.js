// Source spans -> character offsets in the editor's text. No DOM.
// Spans come from Python's ast: `line` is 1-based and `col` 0-based, counted in UTF-8
// bytes, so a line with non-ASCII text needs converting to JS string indices.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The string index in `lineText` of UTF-8 byte offset `col` (clamped to the line). */
function charIndex(lineText, col) {
  const bytes = encoder.encode(lineText);
  return decoder.decode(bytes.slice(0, Math.max(0, col))).length;
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
