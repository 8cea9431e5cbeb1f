// The program editor: a plain <textarea> over a backdrop that repeats its text with
// <mark>s, so a span (the error, the node under the pointer, the current step) can be
// highlighted without taking the focus or the selection. A gutter numbers the lines,
// since errors are reported by line.
// A span is a position in the text it was computed on: each mark remembers that text and
// is drawn only while the editor shows it, so an edit never leaves a highlight at old
// positions, and undoing the edit brings it back. The error box stays after an edit,
// marked "(before your edit)", until the next trace answers.

import { rangeOf } from "../spans.js";

// Marks drawn at once, lowest first: a later one wins where two overlap.
const MARK_ORDER = ["step", "hover", "error"];

function messageOf(detail) {
  const where = detail.line == null
    ? ""
    : `Line ${detail.line}${detail.col == null ? "" : `, column ${detail.col + 1}`}: `;
  return `${where}${detail.message}`;
}

/**
 * Wire up the editor in `root` (which holds textarea, .backdrop, .gutter and .program-error).
 * `onRun()` is called for Ctrl/Cmd+Enter; `onInput(text)` after edits, at most once a frame.
 */
export function createEditor(root, { onRun, onInput }) {
  const textarea = root.querySelector("textarea");
  const backdrop = root.querySelector(".backdrop");
  const gutter = root.querySelector(".gutter");
  const errorBox = root.querySelector(".program-error");
  const marks = {}; // kind -> {span, text}: the span, in the text it was computed on
  let errorText = null; // the text the shown error is about

  /** The [start, end) of mark `kind` in the current text, or null. */
  function rangeFor(kind) {
    const m = marks[kind];
    return m && m.text === textarea.value ? rangeOf(textarea.value, m.span) : null;
  }

  function paint() {
    const text = textarea.value;
    // One mark at a time keeps the backdrop a flat run of text: the highest kind wins.
    const kind = [...MARK_ORDER].reverse().find(rangeFor);
    const range = kind && rangeFor(kind);
    const parts = [];
    if (range) {
      const mark = document.createElement("mark");
      mark.className = kind;
      mark.textContent = text.slice(range[0], range[1]) || " ";
      parts.push(text.slice(0, range[0]), mark, text.slice(range[1]));
    } else {
      parts.push(text);
    }
    parts.push("\n "); // a trailing newline needs a character after it to take up a line
    backdrop.replaceChildren(...parts);
    const lines = text.split("\n").length;
    root.style.setProperty("--lines", String(lines)); // the editor grows with the program
    gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join("\n");
    const stale = errorText !== null && errorText !== text;
    errorBox.classList.toggle("stale", stale);
    errorBox.dataset.stale = String(stale);
    syncScroll();
  }

  function syncScroll() {
    backdrop.scrollTop = gutter.scrollTop = textarea.scrollTop;
    backdrop.scrollLeft = textarea.scrollLeft;
  }

  /**
   * Scroll so `line` (1-based) is in view, unless the user is working in the editor;
   * `force` scrolls all the same (an error is worth leaving the caret's place for).
   */
  function reveal(line, { force = false } = {}) {
    if (line == null || (!force && document.activeElement === textarea)) return;
    const height = parseFloat(getComputedStyle(textarea).lineHeight);
    const top = (line - 1) * height;
    const view = textarea.clientHeight - height;
    if (top < textarea.scrollTop || top > textarea.scrollTop + view) {
      textarea.scrollTop = Math.max(0, top - view / 2);
      syncScroll();
    }
  }

  // Inserting n lines at once fires an input event per line, and painting reads the
  // scroll position (a layout of the whole text): one paint per frame keeps a pasted
  // 2,000-line program from taking minutes.
  let pending = 0;
  textarea.addEventListener("input", () => {
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      paint();
      onInput?.(textarea.value);
    });
  });
  textarea.addEventListener("scroll", syncScroll);
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun?.();
    } else if (event.key === "Escape") {
      event.preventDefault();
      textarea.blur(); // hand the arrow keys back to the player
    }
  });

  return {
    element: textarea,
    getText: () => textarea.value,
    setText(text) {
      textarea.value = text;
      paint();
    },
    /**
     * Highlight `span` as `kind` ("step" or "hover") while the editor shows `text`, the
     * program the span was computed on; a null span clears it.
     */
    mark(kind, span, text) {
      marks[kind] = span ? { span, text } : null;
      paint();
      if (rangeFor(kind)) reveal(span.line);
    },
    /**
     * Show an error about the current text (line and col may be null: then there is no
     * range to select) and select its range; null hides the box.
     */
    showError(detail) {
      errorBox.hidden = !detail;
      root.classList.toggle("has-error", Boolean(detail));
      errorText = detail ? textarea.value : null;
      marks.error = detail ? { span: detail, text: textarea.value } : null;
      errorBox.replaceChildren();
      errorBox.dataset.line = detail?.line ?? "";
      errorBox.dataset.col = detail?.col ?? "";
      paint();
      if (!detail) return;
      const kind = document.createElement("strong");
      kind.textContent = detail.kind ? detail.kind.replaceAll("_", " ") : "error";
      // "syntax" before "syntax error: ..." says it twice.
      const said = detail.message?.toLowerCase().startsWith(kind.textContent);
      const note = document.createElement("span");
      note.className = "stale-note";
      note.textContent = " (before your edit)";
      errorBox.append(...(said ? [] : [kind, " "]), messageOf(detail), note);
      const range = rangeFor("error");
      if (range) {
        textarea.focus({ preventScroll: true });
        textarea.setSelectionRange(range[0], range[1]);
        reveal(detail.line, { force: true }); // the selection alone does not scroll to it
      }
    },
  };
}
