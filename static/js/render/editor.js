// The program editor: a plain <textarea> over a backdrop that repeats its text with
// <mark>s, so a span (the error, the node under the pointer, the current step) can be
// highlighted without taking the focus or the selection. A gutter numbers the lines,
// since errors are reported by line.

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
 * `onRun()` is called for Ctrl/Cmd+Enter; `onInput(text)` after each edit.
 */
export function createEditor(root, { onRun, onInput }) {
  const textarea = root.querySelector("textarea");
  const backdrop = root.querySelector(".backdrop");
  const gutter = root.querySelector(".gutter");
  const errorBox = root.querySelector(".program-error");
  const marks = {}; // kind -> span

  function paint() {
    const text = textarea.value;
    // One mark at a time keeps the backdrop a flat run of text: the highest kind wins.
    const kind = [...MARK_ORDER].reverse().find((k) => rangeOf(text, marks[k]));
    const range = kind && rangeOf(text, marks[kind]);
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
    syncScroll();
  }

  function syncScroll() {
    backdrop.scrollTop = gutter.scrollTop = textarea.scrollTop;
    backdrop.scrollLeft = textarea.scrollLeft;
  }

  /** Scroll so `line` (1-based) is in view, unless the user is working in the editor. */
  function reveal(line) {
    if (line == null || document.activeElement === textarea) return;
    const height = parseFloat(getComputedStyle(textarea).lineHeight);
    const top = (line - 1) * height;
    const view = textarea.clientHeight - height;
    if (top < textarea.scrollTop || top > textarea.scrollTop + view) {
      textarea.scrollTop = Math.max(0, top - view / 2);
    }
  }

  textarea.addEventListener("input", () => {
    marks.error = null; // the error was about the old text
    paint();
    onInput?.(textarea.value);
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
      marks.error = null;
      paint();
    },
    /** Highlight `span` as `kind` ("step", "hover" or "error"); null clears it. */
    mark(kind, span) {
      marks[kind] = span;
      paint();
      reveal(span?.line);
    },
    /** Show a located program error, select its range; null hides the box. */
    showError(detail) {
      errorBox.hidden = !detail;
      root.classList.toggle("has-error", Boolean(detail));
      if (!detail) {
        errorBox.textContent = "";
        this.mark("error", null);
        return;
      }
      errorBox.replaceChildren();
      const kind = document.createElement("strong");
      kind.textContent = detail.kind ? detail.kind.replaceAll("_", " ") : "error";
      // "syntax" before "syntax error: ..." says it twice.
      const said = detail.message?.toLowerCase().startsWith(kind.textContent);
      errorBox.append(...(said ? [] : [kind, " "]), messageOf(detail));
      errorBox.dataset.line = detail.line ?? "";
      errorBox.dataset.col = detail.col ?? "";
      this.mark("error", detail);
      const range = rangeOf(textarea.value, detail);
      if (range) {
        textarea.focus();
        textarea.setSelectionRange(range[0], range[1]);
      }
    },
  };
}
