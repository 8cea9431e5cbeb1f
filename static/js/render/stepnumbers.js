// The step's numbers as a line of text at a readable size, while the camera shows the step
// below the scale at which the nodes print their numbers (issue 17 §2, a review: a 390x844
// phone at step 5 of the tanh example, d = e + a, showed d, e and a at scale 0.52 with no
// numbers, and the narration gave d's value alone). A narrow screen's automatic view zooms
// out so (viewport.js revealTransform `reach`), to keep both ends of a step in view, and its
// boxes print no numbers under the readable floor there (render/zoom.js numbersFrom: at 0.57
// they printed at 10.3 px); this line gives back what the boxes then do not print: "e = -0.5 · a = 1 → d = 0.5",
// or for a backward edge "t̄ = 2 → d̄ = 1.5729", the numbers of the step's view (timeline.js);
// what a quiz hides in a box ("?") stays hidden here. A band across the graph's foot, which the camera keeps the
// drawing above (render/covers.js COVERS), as it does for its note across the top.

import { formatValue } from "../format.js";
import { focusOf } from "../timeline.js";

/**
 * The ids a step `event` is about, in reading order, and what of them the line gives
 * ({ids, what: "value" | "grad"}): a forward value's inputs (from `layout`'s edges) then the
 * node, a backward edge's sending node then its receiving node; null for no step (step 0,
 * Done: an overview, which the narration reads out).
 */
export function stepNodes(layout, event) {
  const { current, source, target } = focusOf(event);
  if (source !== undefined) return { ids: [source, target], what: "grad" };
  if (current === undefined) return null;
  const what = event.kind === "seed" ? "grad" : "value";
  const inputs = what === "value" ? layout.edges.filter((e) => e.target === current).map((e) => e.source) : [];
  return { ids: [...new Set(inputs)].filter((id) => id !== current).concat(current), what };
}

/**
 * The line of the step's numbers over the graph `svg` (in its wrapper). `show(walk, view)`
 * after each step is drawn; it shows itself while the svg reports its numbers hidden
 * (data-numbers) in the automatic view (data-fitted "auto": the user's own zoom out is theirs).
 */
export function createStepNumbers(svg) {
  const doc = svg.ownerDocument;
  const line = doc.createElement("p");
  line.className = "step-numbers";
  line.hidden = true;
  svg.parentNode?.append(line);
  let terms = []; // [{id, what, label}] of the step shown

  // Node `id`'s number `n` (the view's: a box's text changes only when the step's pulse lands)
  // as the line prints it, "?" while a quiz asks it (its box is marked), null when it has none.
  function printed({ id, what, n }) {
    const g = svg.querySelector(`g.node[data-node="${CSS.escape(id)}"]`);
    if (g?.classList.contains(what === "grad" ? "quiz-hidden-grad" : "quiz-hidden-value")) return "?";
    return n === undefined || n === null ? null : formatValue(n);
  }

  function refresh() {
    const on = terms.length > 0 && svg.dataset.numbers === "hidden" && svg.dataset.fitted === "auto";
    const parts = on ? terms.map((t) => [t, printed(t)]).filter(([, n]) => n !== null) : [];
    const said = parts.map(([t, n]) => `${t.label} = ${n}`);
    const text = said.length > 1 ? `${said.slice(0, -1).join(" · ")} → ${said.at(-1)}` : said[0] ?? "";
    if (line.textContent !== text) line.textContent = text;
    if (line.hidden !== !text) line.hidden = !text;
  }
  svg.addEventListener("camera", refresh);

  return {
    /** The step `view` (timeline.js) of `walk` was drawn: its numbers, if the camera hides them. */
    show(walk, view) {
      const step = walk.layout && view.phase !== "done" ? stepNodes(walk.layout, view.event) : null;
      terms = (step?.ids ?? []).map((id) => {
        const node = walk.nodesById[id];
        const name = node?.label ?? node?.name ?? id;
        const n = (step.what === "grad" ? view.adjoints : view.values)[id];
        return { id, what: step.what, n, label: step.what === "grad" ? node?.adjoint_symbol ?? `∂L/∂${name}` : name };
      });
      // once the step's classes are all set: the quiz marks its asked node after the graph
      // is drawn, and its number must read "?" here from the first step it is asked
      queueMicrotask(refresh);
    },
  };
}
