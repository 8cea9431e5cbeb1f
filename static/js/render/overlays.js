// The panels over the graph never stand over a node that matters now: the step's nodes (the
// node it computes, or the two ends of a backward edge) and the node a quiz asks about (a
// review of issue 14 §5: at 1024x768 in the projector theme, with Compare runs on and the
// detail panel open, the trace-inputs bar stood over a as ā was summed). The camera keeps
// the drawing out from under them (render/covers.js COVERS) wherever the graph area leaves it
// room; where it cannot (a graph area 190 px tall beside the quiz and the comparison), the
// panel steps aside for that step: it keeps its place (visibility, not display: the camera's
// clearance and this test stay the same while it is away) and comes back at the next step
// that leaves it clear. The minimap picks a free corner itself (render/navigate.js).

import { METRICS } from "../layout.js";
import { overlaps, screenBox } from "../mapcorner.js";

/** The drawn nodes that no panel may cover (the classes render/graph.js and render/quiz.js set). */
export const NEEDED = "g.node.current, g.node.source, g.node.target, g.node.quiz-asked";

// The panels that step aside (the trace buttons, the camera's note, the step's numbers).
const PANELS = ":scope > :is(.graph-trace, .camera-note, .step-numbers)";

/**
 * Watch the panels over `svg` (in its wrapper) against the needed nodes at every move of the
 * camera `zoom` (render/zoom.js) and after every step; returns `check()`, which looks again
 * once the step's classes are all set (a microtask later: the quiz marks its node after the
 * graph is drawn).
 */
export function keepPanelsOffNodes(svg, zoom) {
  const wrap = svg.parentNode;
  function look(t = zoom.transform()) {
    if (!wrap) return;
    const panels = [...wrap.querySelectorAll(PANELS)].filter((e) => !e.hidden && e.getClientRects().length);
    if (!panels.length) return;
    const nodes = [...svg.querySelectorAll(NEEDED)].map((g) => g.__data__).filter((d) => d?.width);
    const origin = svg.getBoundingClientRect();
    const boxes = nodes.map((n) => screenBox(t, n, METRICS.ring));
    for (const panel of panels) {
      const r = panel.getBoundingClientRect();
      const box = { x: r.left - origin.left, y: r.top - origin.top, width: r.width, height: r.height };
      const covering = boxes.some((b) => overlaps(box, b));
      if (covering !== (panel.dataset.covering === "true")) {
        if (covering) panel.dataset.covering = "true";
        else delete panel.dataset.covering;
      }
    }
  }
  svg.addEventListener("camera", (event) => event.detail && look(event.detail));
  return () => queueMicrotask(() => look());
}
