// The controls that replace the editor's whole text, as state (no DOM): "Reset example",
// "New numbers" and "Practice" (issue 14, section 1: nothing typed is lost by one click).
// Each gives a patch and where the text it replaces is kept (`keeps`); the page's one path
// for them is render/reset.js (it asks first when only Ctrl+Z would keep the text, makes
// the replacement one undoable transaction, and says where the text went). The entries
// and drafts are state.js's.

import { CUSTOM, edited, editProgram, LINKED, PRACTICE, textOf } from "./state.js";

/**
 * Where a replaced text is kept, each with its note (render/reset.js):
 * - "draft": as "✎ Your program" (reset of an example's edit while that draft is free);
 * - "example": it is an example's own text ("Reset example" brings it back);
 * - "entry": the new text is its own menu entry (practice): the old one keeps its entry;
 * - "numbers": the text was New numbers' own, untouched since (Ctrl+Z brings it back);
 * - "undo": only Ctrl+Z in the editor brings it back, so the page asks first.
 */
export const KEEPS = ["draft", "example", "entry", "numbers", "undo"];

/** True when the example shown has edits that "Reset example" would undo. */
export function canReset(state) {
  return state.preset !== CUSTOM && state.preset !== LINKED && state.preset !== PRACTICE && edited(state, state.preset);
}

/**
 * Where "Reset example" keeps the edit it takes off the example shown: "draft" when
 * "✎ Your program" is empty or already holds that text (the edit becomes your program),
 * else "undo" (only Ctrl+Z in the editor brings it back, so the page asks first).
 */
export function resetKeeps(state) {
  const edit = state.edits[state.preset] ?? "";
  return !state.draft?.trim() || state.draft === edit || !edit.trim() ? "draft" : "undo";
}

/**
 * The patch for "Reset example": the example's own text back, its edit taken off it and
 * kept as "✎ Your program" when resetKeeps says "draft" (nothing typed is lost by a click).
 */
export function resetExample(state, presets) {
  if (!canReset(state)) return {};
  const { [state.preset]: edit, ...edits } = state.edits;
  const kept = resetKeeps(state) === "draft" && edit.trim() ? { draft: edit } : {};
  return { program: textOf({ ...state, edits }, state.preset, presets), edits, ...kept };
}

/**
 * "New numbers" as {patch, keeps}: `program` (the text shown with fresh numbers, quiz.js
 * withNumbers) becomes the text of the entry shown, and `numbered` (the text the last New
 * numbers gave). An example's own text stays the example's ("example": Reset example
 * brings it back); a text New numbers gave and nobody typed in since is "numbers" (nothing
 * typed is lost); any other text (your program, an edited example, a link's or a practice
 * graph) is then kept only by Ctrl+Z ("undo", so the page asks first).
 */
export function newNumbers(state, program, presets) {
  const own = state.preset !== CUSTOM && state.preset !== LINKED && state.preset !== PRACTICE
    && !edited(state, state.preset);
  const keeps = own ? "example" : state.numbered === state.program ? "numbers" : "undo";
  return { patch: { ...editProgram(state, program, presets), numbered: program }, keeps };
}

/**
 * "Practice" as {patch, keeps}: `program` (a generated graph) opens as the practice entry
 * (PRACTICE), its own in the menu, so "✎ Your program" and every edit keep their text
 * ("entry"). `back` is the entry left, which a reload opens on (state.js savedEditor).
 */
export function practice(state, program) {
  const back = state.preset === PRACTICE || state.preset === LINKED ? state.back : state.preset;
  return { patch: { program, preset: PRACTICE, practice: program, back }, keeps: "entry" };
}
