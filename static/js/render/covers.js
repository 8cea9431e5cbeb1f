// What stands over the graph's svg, for the camera (render/zoom.js): the panels it keeps the
// drawing out from under (COVERS, coverInsets), its own note, and the marks drawn over nodes
// that it keeps in view with them (markedBoxes). The arithmetic is clearance.js's and
// tags.js's; this reads the DOM for it.

import { centredBox } from "../boxes.js";
import { coverOf, NO_INSET } from "../clearance.js";
import { TAG_SELECTOR } from "../tags.js";

// The panels that may stand over the graph's svg, in its wrapper; the camera's own note
// ("Not all of the graph fits") too: over a phone's graph it covered the top row of nodes.
// The line of the step's numbers (render/stepnumbers.js) too, across the graph's foot.
export const COVERS = ".detail, .graph-trace, .camera-note, .step-numbers";

/**
 * How far (px) the shown panels over `root` (COVERS) reach into it from each side, with the
 * ones across its top (clearance.js coverOf). A panel fixed to the screen (a phone's bottom
 * sheet, narrow.css) is not over the graph's layout.
 */
export function coverInsets(root) {
  const shown = [...root.parentNode?.querySelectorAll(COVERS) ?? []]
    .filter((e) => !e.hidden && e.getClientRects().length && getComputedStyle(e).position !== "fixed");
  return shown.length ? coverOf(root.getBoundingClientRect(), shown.map((e) => e.getBoundingClientRect())) : NO_INSET;
}

/**
 * The camera's note over the graph of `root` ("Not all of the graph fits at a readable size
 * here"), added to its wrapper, hidden. `say(on)` shows or hides it and returns true when it
 * just went (its band is free again: the insets change). While `readableWhole()` (a narrow
 * screen) it says to pinch, else to press Fit.
 */
export function createCameraNote(root, readableWhole) {
  const note = root.ownerDocument.createElement("p");
  note.className = "camera-note";
  note.setAttribute("role", "status");
  note.hidden = true;
  const text = () => (readableWhole()
    ? "Not all of the graph fits at a readable size here: pinch to see more of it, smaller."
    : "Not all of the graph fits at a readable size here: Fit shows all of it, smaller.");
  root.parentNode?.append(note);
  // The panels over the graph (the detail panel, the trace buttons) start below the note
  // (app.css --camera-note): they stood over its words, cut at both ends (issue 14).
  new ResizeObserver(() => root.parentNode?.style.setProperty("--camera-note", `${note.hidden ? 0 : note.offsetHeight}px`)).observe(note);
  return {
    say(on) {
      const was = note.hidden;
      note.hidden = !on;
      if (on && note.textContent !== text()) note.textContent = text();
      return note.hidden && !was;
    },
    get shown() { return !note.hidden; },
  };
}

/**
 * Call `changed()` when a panel over `root` (COVERS) is shown, hidden or resized, those added
 * to its wrapper later too (render/navigate.js adds them after the camera is made).
 */
export function watchCovers(root, changed) {
  const panels = new ResizeObserver(changed);
  const watch = () => {
    for (const e of root.parentNode?.querySelectorAll(COVERS) ?? []) panels.observe(e);
  };
  if (root.parentNode) new MutationObserver(watch).observe(root.parentNode, { childList: true });
  watch();
}

// ---------------------------------------------------------------- what is drawn over the nodes
// Read from the data d3 bound, never measured (no forced layout).

/**
 * The boxes (layout units, centredBox) of the nodes of `root` with a mark over them
 * (Compare's Δ, a dead unit's tag: tags.js withTags), with the `mark` box of a dead tag
 * where render/dead.js placed it and `above` when a Δ is drawn over the node too.
 */
export function markedBoxes(root) {
  const nodes = new Set([...root.querySelectorAll(TAG_SELECTOR)].map((e) => e.closest("g.node")));
  return [...nodes].filter((g) => g?.__data__?.width).map((g) => {
    const mark = g.querySelector(".dead-tag")?.__mark__;
    return mark ? { ...centredBox(g.__data__), mark, above: Boolean(g.querySelector(".diff-delta")) } : centredBox(g.__data__);
  });
}

/** Whether two lists of markedBoxes are the same (their marks' places too). */
export const sameBoxes = (a, b) => a.length === b.length && a.every((x, i) => x.x0 === b[i].x0 && x.y0 === b[i].y0
  && x.above === b[i].above && ["x0", "y0", "x1", "y1"].every((k) => x.mark?.[k] === b[i].mark?.[k]));

/**
 * The box (layout units) of the step's note in `root` as drawn (render/graph.js showCallout
 * binds its place and size), or null.
 */
export function stepNoteBox(root) {
  const d = root.querySelector("g.callouts g.callout")?.__data__;
  return d?.size ? centredBox({ x: d.x, y: d.y, width: d.size.width, height: d.size.height }) : null;
}
