// "Reset example" (issue 14, section 1: nothing typed is lost by one click). The reset is a
// transaction in the editor's history, so Ctrl+Z brings the edit back; the edit is also kept
// as "✎ Your program" when that draft is free (resets.js resetKeeps), else the page asks
// first, since then only Ctrl+Z (until the page is left) brings it back. A note beside the
// program says where the edit went, until the text or the entry shown changes.

import { canReset, resetExample, resetKeeps } from "../resets.js";
import { CUSTOM_LABEL } from "../state.js";

export const RESET_NOTES = {
  draft: `Your edit is kept as "${CUSTOM_LABEL}" in the example menu; Ctrl+Z in the editor also undoes the reset.`,
  undo: "Reset: Ctrl+Z in the editor brings your edit back.",
};
export const RESET_CONFIRM = `"${CUSTOM_LABEL}" already holds another program, so your edit of this example `
  + "would be kept only by Ctrl+Z in the editor, until you leave the page. Reset the example?";

/**
 * Wire `button` (#reset-example) and `note` (#reset-note) to `store` (state.js). `editor`
 * is render/editor.js's API; `onReset()` traces the example's text. `ask(message)` -> bool
 * confirms a reset that would keep the edit only in the undo history (window.confirm).
 * Returns {show(state)}: call it when the program, preset or drafts change.
 */
export function createResetControl(button, note, { store, presets, editor, onReset, ask = (m) => window.confirm(m) }) {
  let noted = null; // {preset, program}: the state the note is about

  function show(state) {
    button.hidden = !canReset(state);
    const stale = noted && (state.preset !== noted.preset || state.program !== noted.program);
    if (stale) noted = null;
    note.hidden = !noted;
  }

  button.addEventListener("click", () => {
    const state = store.get();
    if (!canReset(state)) return;
    const keeps = resetKeeps(state);
    if (keeps === "undo" && !ask(RESET_CONFIRM)) return;
    const patch = resetExample(state, presets);
    noted = { preset: state.preset, program: patch.program };
    note.textContent = RESET_NOTES[keeps];
    note.dataset.keeps = keeps;
    store.set(patch);
    editor.replace(patch.program);
    show(store.get());
    onReset();
  });

  return { show };
}
