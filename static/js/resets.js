// "Reset example" as state (no DOM): what it may undo, and where the edit it takes off an
// example goes (issue 14, section 1: nothing typed is lost by one click). The page's button
// is render/reset.js; the entries and drafts are state.js's.

import { CUSTOM, edited, LINKED, textOf } from "./state.js";

/** True when the example shown has edits that "Reset example" would undo. */
export function canReset(state) {
  return state.preset !== CUSTOM && state.preset !== LINKED && edited(state, state.preset);
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
