// The program editor: CodeMirror 6 with Python highlighting, line numbers and undo. Three
// kinds of span are drawn as mark decorations (never as a selection, so typing can never
// replace program text): the error, the node under the pointer, the current step.
// A span is a position in the text it was computed on: each mark remembers that text and is
// drawn only while the editor shows it, so an edit never leaves a highlight at old
// positions, and undoing the edit brings it back. The error box stays after an edit,
// marked "(before your edit)", until the next trace answers.

import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { bracketMatching, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration, EditorView, highlightActiveLineGutter, keymap, lineNumbers, placeholder, showPanel,
} from "@codemirror/view";
import { classHighlighter } from "@lezer/highlight";
import { errorPlace, kindWords } from "../format.js";
import { rangeOf } from "../spans.js";
import { markScroller, pageNonce } from "./dom.js";
import { editorScroll } from "./editor-scroll.js";

// Marks drawn at once, lowest first: a later one is drawn inside (over) an earlier one.
const MARK_ORDER = ["step", "hover", "error"];

// ---------------------------------------------------------------- the marks, as editor state

/** {kind, span, text}: set mark `kind` to `span` computed on `text` (span null: clear it). */
const setMark = StateEffect.define();

/** kind -> {span, text}: every mark, whether or not it applies to the text shown. */
const marksField = StateField.define({
  create: () => ({}),
  update(marks, tr) {
    let next = marks;
    for (const e of tr.effects) {
      if (!e.is(setMark)) continue;
      next = { ...next, [e.value.kind]: e.value.span ? { span: e.value.span, text: e.value.text } : null };
    }
    return next;
  },
});

/** The [from, to) of mark `kind` in the document of `state`, or null when it is not drawn. */
function rangeIn(state, kind) {
  const m = state.field(marksField)[kind];
  if (!m) return null;
  const text = state.doc.toString();
  return m.text === text ? rangeOf(text, m.span) : null;
}

// Decorations recomputed from the marks and the text: a mark drawn only on its own text.
const markDecorations = EditorView.decorations.compute([marksField, "doc"], (state) => {
  const ranges = MARK_ORDER.map((kind) => [kind, rangeIn(state, kind)]).filter(([, r]) => r && r[1] > r[0]);
  return Decoration.set(ranges.map(([kind, [from, to]]) => Decoration.mark({
    class: `mark-${kind}`, attributes: { "data-mark": kind },
  }).range(from, to)), true);
});

// ---------------------------------------------------------------- the editor

/**
 * Wire up the editor in `root` (which holds `.editor`, where CodeMirror is mounted, and
 * `.program-error`). `onRun()` is called for Ctrl/Cmd+Enter; `onInput(text, {replaced})`
 * after edits, at most once a frame (`replaced`: an edit replaced the whole text). The hint shown in an empty editor is `.editor`'s data-placeholder.
 * `note` (optional): an element shown as a panel under the text, inside the editor's frame
 * (render/reset.js's note of where a replaced text went; hidden, it takes no room; shown, the
 * lines above it are whole ones, none under it): beside
 * the program on a projector the side column has no room left for it (issue 14 §5).
 * The API is also on the mount element as `gradwalkEditor` (for tests and the console).
 */
/**
 * Whether transaction `t` replaced all of a non-empty text with a non-empty one. Undo and
 * redo give a text back to the entry it was typed in, so they never count (Ctrl+Z after
 * "Reset example" is the example's edit again, not a paste).
 */
function replacesAll(t) {
  if (t.isUserEvent("undo") || t.isUserEvent("redo")) return false;
  let all = false;
  t.changes.iterChanges((fromA, toA, fromB, toB) => {
    if (fromA === 0 && toA === t.startState.doc.length && toA > 0 && toB > fromB) all = true;
  });
  return all;
}

export function createEditor(root, { onRun, onInput, note = null }) {
  const mount = root.querySelector(".editor");
  const errorBox = root.querySelector(".program-error");
  let errorText = null; // the text the shown error is about
  let hintWatch = null; // re-marks a long hint as scrolling when the panel is resized
  let view = null;
  let kept = null; // how to bring back what our last scroll showed (keep, below)

  // Inserting a large paste or typing fast: report the text once a frame, and whether an
  // edit in it replaced the whole text (a paste over it all: state.js editProgram).
  let pending = 0;
  let replaced = false;
  function changed(update) {
    replaced ||= update.transactions.some(replacesAll);
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      const how = { replaced };
      replaced = false;
      onInput?.(getText(), how);
    });
  }

  function afterUpdate() {
    const text = getText();
    // As tall as the program (CSS caps it), and the error box says when it is out of date.
    // On the root: the panel's least height is the editor's (app.css .editor-panel).
    root.style.setProperty("--lines", String(view.state.doc.lines));
    const stale = errorText !== null && errorText !== text;
    errorBox.classList.toggle("stale", stale);
    errorBox.dataset.stale = String(stale);
  }

  // The frame's padding above and under the lines takes the gutter's colour and rule (app.css
  // .editor): the gutter is as wide as the line numbers' digits.
  let gutter = -1;
  function gutterWidth() {
    const width = view.dom.querySelector(".cm-gutters")?.offsetWidth ?? 0;
    if (width !== gutter) mount.style.setProperty("--gutter-w", `${(gutter = width)}px`);
  }

  const keys = Prec.highest(keymap.of([
    { key: "Mod-Enter", run: () => { onRun?.(); return true; } },
    // Escape hands the arrow keys back to the player; Tab is left to move the focus on
    // (a keyboard user is never trapped in the editor), so there is no indentWithTab.
    { key: "Escape", run: (v) => { v.contentDOM.blur(); return true; } },
  ]));

  function extensions() {
    return [
      keys,
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      keymap.of([...defaultKeymap, ...historyKeymap]),
      python(),
      indentUnit.of("    "),
      bracketMatching(),
      syntaxHighlighting(classHighlighter), // tok-* classes, coloured by static/css per theme
      placeholder(mount.dataset.placeholder ?? ""),
      marksField,
      ...(note ? [showPanel.of(() => ({ dom: note, top: false }))] : []),
      Prec.high(markDecorations), // outside the highlighter's spans: one mark over "a * b"
      // its style elements (style-mod's) carry the page's nonce: the served policy's
      // style-src has no 'unsafe-inline' (server/main.py CSP)
      EditorView.cspNonce.of(pageNonce(mount.ownerDocument)),
      EditorView.contentAttributes.of({
        id: "program", "aria-label": "Program text", spellcheck: "false", autocapitalize: "off", autocorrect: "off",
      }),
      EditorView.updateListener.of((update) => {
        if (update.geometryChanged) {
          gutterWidth();
          if (kept) requestAnimationFrame(() => kept?.()); // after the update (no dispatch inside one)
        }
        if (update.docChanged) {
          kept = null; // its positions were in the text before
          changed(update);
        }
        if (update.docChanged || update.transactions.some((t) => t.effects.length)) afterUpdate();
      }),
    ];
  }

  const freshState = (doc, marks = {}) => EditorState.create({
    doc,
    extensions: extensions(),
  }).update({ effects: Object.entries(marks).map(([kind, m]) => setMark.of({ kind, ...(m ?? { span: null }) })) }).state;

  view = new EditorView({ parent: mount, state: freshState("") });
  const { lineAt, inView, maxScroll, wholeLines, showLines, showStatement, showLineStarts } = editorScroll(view, keep);
  // The note under the text has its own room: the lines keep whole ones above it (app.css,
  // --note-h). Laid over the lines' foot, it hid half of the last one (a newcomer: "L = t * c").
  if (note && typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => mount.style.setProperty("--note-h", `${note.offsetHeight}px`)).observe(note);
  }

  function getText() {
    return view.state.doc.toString();
  }

  /**
   * Scroll so the start of `range` is in view, unless the user is working in the editor;
   * `force` scrolls all the same (an error is worth leaving the caret's place for).
   */
  function reveal(range, { force = false } = {}) {
    if (!range || (!force && view.hasFocus)) return;
    // Its line in view with the scroll at its floor already: CodeMirror's margin would only
    // scroll down for wholeLines to scroll back up, a frame later (line 1 blinking).
    const settled = inView(lineAt(range[0])) && view.scrollDOM.scrollTop >= maxScroll(range[1]) - 0.5;
    if (!settled) view.dispatch({ effects: EditorView.scrollIntoView(range[0], { y: "nearest", yMargin: 24 }) });
    requestAnimationFrame(() => { // once CodeMirror has scrolled
      wholeLines(range[0], range[1]);
      showStatement(range);
    });
    keep(() => inView(lineAt(range[0])) || reveal(range, { force: true }));
  }

  // What our last scroll brought into view stays in view as the editor's height changes (the
  // program's panel gives way to the Train band's rows filled in after the walk is shown),
  // until the user scrolls, clicks or types in the editor (kept: how to scroll to it again).
  function keep(again) {
    kept = again;
  }
  for (const type of ["wheel", "pointerdown", "touchstart", "keydown"]) {
    view.scrollDOM.addEventListener(type, () => { kept = null; }, { passive: true });
  }

  /** How many comment lines the program opens with. */
  function headerLines() {
    const doc = view.state.doc;
    let n = 0;
    while (n < doc.lines && /^\s*#/.test(doc.line(n + 1).text)) n += 1;
    return n;
  }

  // After a click the browser's own scroll to the focused text has happened a frame later.
  view.contentDOM.addEventListener("focus", () => requestAnimationFrame(() => showLineStarts()));

  function replaceAll(text, { anchor, userEvent }) {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor }, userEvent });
  }

  function mark(kind, span, text) {
    view.dispatch({ effects: setMark.of({ kind, span, text }) });
  }

  const api = {
    view,
    element: view.contentDOM,
    getText,
    /** Show `text` as a new program: its own undo history, the marks kept (each on its text). */
    setText(text) {
      if (pending) cancelAnimationFrame(pending); // a typed text replaced before it was reported
      pending = 0;
      replaced = false;
      kept = null;
      view.setState(freshState(text, view.state.field(marksField)));
      // a new program opens at its lines' start and at line 1 (the last one's scroll stayed:
      // layer-norm chosen after a longer example opened with line 1 hidden, though it fits)
      view.scrollDOM.scrollLeft = 0;
      view.scrollDOM.scrollTop = 0;
      afterUpdate();
    },
    /** Replace the whole text as a paste does (undoable, reported through onInput). */
    paste(text) {
      replaceAll(text, { anchor: text.length, userEvent: "input.paste" }); // the caret after it
    },
    /**
     * Replace the whole text by one transaction in this editor's history (not a new editor
     * state), so Ctrl+Z brings the text before it back ("Reset example"); the caret at the top.
     */
    replace(text) {
      replaceAll(text, { anchor: 0, userEvent: "input.replace" });
      view.dispatch({ effects: EditorView.scrollIntoView(0, { y: "start", x: "start" }) });
    },
    /**
     * Insert `line` as the program's first line: one edit in the editor's history (Ctrl+Z
     * takes it out), reported as typing is; the view goes to the top, where it is.
     */
    insertFirstLine(line) {
      view.dispatch({ changes: { from: 0, insert: `${line}\n` }, userEvent: "input",
        effects: EditorView.scrollIntoView(0, { y: "start", x: "start" }) });
    },
    /**
     * Bring the lines' start back into view whatever the caret (a trace: the walk reads from
     * there; the user's next keystroke scrolls to the caret again, as CodeMirror does).
     */
    showLineStarts: () => showLineStarts(null),
    /**
     * Highlight `span` as `kind` ("step" or "hover") while the editor shows `text`, the
     * program the span was computed on; a null span clears it.
     */
    mark(kind, span, text) {
      mark(kind, span, text);
      const range = rangeIn(view.state, kind);
      reveal(range);
      // While the user works in the editor its scroll is theirs, but sideways a step's line shows.
      if (range && kind === "step" && view.hasFocus) requestAnimationFrame(() => showStatement(range));
    },
    /**
     * Where the program opens with a header of comments (two lines or more: a description, not
     * a one-line title) and the lines of `span` (computed on `text`) are not in view, as many
     * as fit from the first, bring them into view so, unless the user is working
     * in the editor; checked again as the editor's height changes (step 0: the walk's lines,
     * from its first op to its output; the Train screen's editor showed only XOR's comments).
     */
    showSpan(span, text) {
      const range = text === getText() ? rangeOf(text, span) : null;
      if (!range || view.hasFocus || headerLines() < 2) return;
      const check = () => { // shown: the first line, and the last or as many as fit from the first
        const first = lineAt(range[0]);
        if (inView(first) && (inView(lineAt(range[1])) || first[0] <= view.scrollDOM.scrollTop + 0.5)) return;
        showLines(range[0], range[1], { force: true });
        keep(check);
      };
      keep(check);
      check();
    },
    /** Scroll line 1 into view (a bug program's `# bugs:` line at step 0 and Done), focus aside. */
    showTop() {
      reveal([0, 0]);
    },
    /**
     * Select `span` (computed on `text`) and scroll to it, with the focus in the editor, as a
     * click on a warning does (render/warnings.js); false when the text has changed since or
     * the span has no line.
     */
    select(span, text) {
      const range = text === getText() ? rangeOf(text, span) : null;
      if (!range) return false;
      kept = null; // the user's choice
      view.dispatch({
        selection: { anchor: range[0], head: range[1] },
        effects: EditorView.scrollIntoView(range[0], { y: "nearest", yMargin: 24 }),
      });
      view.focus();
      return true;
    },
    /**
     * Show an error about the current text (line and col may be null: then there is no
     * range to mark) and mark its range, without touching the selection or the focus;
     * null hides the box.
     */
    showError(detail) {
      errorBox.hidden = !detail;
      root.classList.toggle("has-error", Boolean(detail));
      errorText = detail ? getText() : null;
      mark("error", detail ?? null, errorText);
      errorBox.replaceChildren();
      errorBox.dataset.line = detail?.line ?? "";
      errorBox.dataset.col = detail?.col ?? "";
      afterUpdate();
      if (!detail) return;
      // the one form (engine/errors.py): where, the kind's words, the message
      const kind = document.createElement("strong");
      kind.textContent = `${kindWords(detail.kind)}:`;
      const note = document.createElement("span");
      note.className = "stale-note";
      note.textContent = " (before your edit)";
      errorBox.append(errorPlace(detail), kind, " ", detail.message ?? "", note);
      // The engine's hint (docs/trace-format.md) says what to do about it, on its own line.
      if (detail.hint) {
        const hint = document.createElement("span");
        hint.className = "error-hint";
        hint.textContent = `Hint: ${detail.hint}`;
        errorBox.append(hint);
        // it scrolls in a box of about three lines (app.css): say so, and again when resized
        const mark = () => hint.isConnected && markScroller(hint, "y", "↕ scroll the hint to read all of it");
        mark();
        hintWatch?.disconnect();
        hintWatch = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(mark);
        hintWatch?.observe(hint);
      }
      reveal(rangeIn(view.state, "error"), { force: true });
    },
  };
  mount.gradwalkEditor = api;
  return api;
}
