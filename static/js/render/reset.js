// The one path for every control that replaces the editor's whole text: "Reset example",
// "New numbers" and "Practice" (issue 14, section 1: nothing typed is lost by one click).
// The replacement is a transaction in the editor's history, so Ctrl+Z brings the text
// before it back; where that text is also kept comes from resets.js (`keeps`), and when
// only Ctrl+Z would keep it the page asks first. A note beside the program says where the
// text went, until the text or the entry shown changes.

import { canReset, resetExample, resetKeeps } from "../resets.js";
import { CUSTOM_LABEL, PRACTICE_LABEL } from "../state.js";

export const RESET_NOTES = {
  draft: `Your edit is kept as "${CUSTOM_LABEL}" in the example menu; Ctrl+Z in the editor also undoes the reset.`,
  undo: "Reset: Ctrl+Z in the editor brings your edit back.",
};
export const RESET_CONFIRM = `"${CUSTOM_LABEL}" already holds another program, so your edit of this example `
  + "would be kept only by Ctrl+Z in the editor, until you leave the page. Reset the example?";
// The notes and the question of the other controls, by what keeps the text they replace.
export const NUMBERS_NOTES = {
  example: "New numbers: Reset example (or Ctrl+Z in the editor) brings the example's own numbers back.",
  undo: "New numbers: Ctrl+Z in the editor brings your numbers back.",
  numbers: "New numbers: Ctrl+Z in the editor brings the numbers before back.",
};
/** The mode menu's "H v: add # hvp: line" (render/modes.js) put a line on top of the program. */
export const HVP_ADDED = "H v: line 1 is now a # hvp: line, the vector v; edit it to choose v, or "
  + "Ctrl+Z in the editor takes it out.";
/** What New numbers left as it was (quiz-numbers.js freshLeaves' `kept`), for the note. */
export const keptText = (kept) => (kept.length ? ` Kept as they are (no numbers to draw): ${kept.join(", ")}.` : "");
export const NUMBERS_NONE = "New numbers: no leaf of this program has numbers to change (a number, "
  + "a list of decimals, or randn/uniform with a seed), so nothing changed.";
export const NUMBERS_CONFIRM = "New numbers rewrites the numbers of the program in the editor; only Ctrl+Z "
  + "in the editor brings them back, until you leave the page. Give it new numbers?";
/** The note of "Practice", `left` the menu label of the entry it leaves ("✎ Your program"). */
// Short: it sits above the quiz's setup in a projector's 200 px column (issue 14 §5).
export const practiceNote = (left) => `${PRACTICE_LABEL}: what you had is still "${left}" in the example menu `
  + "(Ctrl+Z also brings it back).";

/**
 * The text replacer: `note` (#reset-note) and `{store, editor, onReplace, ask}`. `editor`
 * is render/editor.js's API; `onReplace()` traces the new text; `ask(message)` -> bool
 * confirms a replacement that only Ctrl+Z would undo (window.confirm). Returns
 * {replace({patch, keeps, note, confirm}) -> bool (false: the user said no), show(state),
 * tell(text, keeps) (a note with no replacement)}.
 */
export function createTextReplacer(note, { store, editor, onReplace, ask = (m) => window.confirm(m) }) {
  let noted = null; // {preset, program}: the state the note is about

  function show(state) {
    const stale = noted && (state.preset !== noted.preset || state.program !== noted.program);
    if (stale) noted = null;
    note.hidden = !noted;
  }

  /** The note says `text` (`keeps` its data-keeps) about `about` ({preset, program}). */
  function say(text, keeps, about) {
    noted = about;
    note.textContent = text;
    note.dataset.keeps = keeps;
  }

  /** Bring the note into the side column's view: its controls (New numbers, Practice) sit
   * below it, and a short column (1280x800) had it scrolled out of sight. */
  const reveal = () => note.scrollIntoView?.({ block: "nearest" });

  /** Say `text` in the note about the state shown (no replacement), until it changes. */
  function tell(text, keeps) {
    const state = store.get();
    say(text, keeps, { preset: state.preset, program: state.program });
    show(state);
    reveal();
  }

  function replace({ patch, keeps, note: text, confirm }) {
    if (keeps === "undo" && confirm && !ask(confirm)) return false;
    say(text, keeps, { preset: patch.preset ?? store.get().preset, program: patch.program });
    store.set(patch);
    editor.replace(patch.program);
    show(store.get());
    reveal();
    onReplace();
    return true;
  }

  return { replace, show, tell };
}

/**
 * Wire `button` (#reset-example) to `replacer` (createTextReplacer) for `store` (state.js).
 * Returns {show(state)}: call it when the program, preset or drafts change.
 */
export function createResetControl(button, { store, presets, replacer }) {
  button.addEventListener("click", () => {
    const state = store.get();
    if (!canReset(state)) return;
    const keeps = resetKeeps(state);
    replacer.replace({ patch: resetExample(state, presets), keeps, note: RESET_NOTES[keeps], confirm: RESET_CONFIRM });
  });
  return {
    show(state) {
      button.hidden = !canReset(state);
      replacer.show(state);
    },
  };
}
