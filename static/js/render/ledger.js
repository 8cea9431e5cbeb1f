// The ledger panel: the activation memory the backward pass keeps, drawn across the steps of
// the walk with the peak marked and a cursor at the current step, and the FLOPs of each pass
// (seed 003, Step 5). Drawn once per trace; a step only moves the cursor and one line of text.

import { select } from "d3";
import { formatBytes, formatFlops, forwardOnly, ledgerSeries } from "../ledger.js";

const WIDTH = 280;
const HEIGHT = 64;
const PAD = 4;

/** The panel in `root` (an element holding an <svg>, a heading with <span class="ledger-now">
 * and <span class="ledger-peak-total">, and <p class="ledger-totals">). */
export function createLedgerPanel(root) {
  const svg = select(root.querySelector("svg"))
    .attr("viewBox", `0 0 ${WIDTH} ${HEIGHT}`)
    .attr("preserveAspectRatio", "none");
  const now = root.querySelector(".ledger-now");
  const peak = root.querySelector(".ledger-peak-total");
  const totals = root.querySelector(".ledger-totals");
  let series = null;
  let x = () => 0;

  // Forward mode keeps nothing for a backward pass: a one-line note instead of the chart.
  const note = root.ownerDocument.createElement("p");
  note.className = "ledger-note";
  note.textContent = "Forward mode keeps no tensors for a backward pass: each tangent is used by the next op, then dropped.";
  root.append(note);

  function draw(trace) {
    const forward = forwardOnly(trace);
    // Scalar programs keep a few bytes: the panel is for tensors, where memory is the lesson
    // (also when nothing is kept: a program whose rules keep only leaves and constants).
    // Known first: the series of a 150,000-event scalar trace is not worth its 150 ms.
    const scalar = trace.graph.nodes.every((n) => n.shape.length === 0);
    series = trace.ledger && !forward && !scalar ? ledgerSeries(trace) : null;
    svg.selectAll("*").remove();
    root.hidden = scalar || !(series || (forward && trace.ledger));
    root.dataset.mode = forward ? "forward" : "reverse";
    for (const part of [svg.node(), now, peak, totals]) part.toggleAttribute("hidden", forward); // an <svg> has no .hidden
    note.hidden = !forward;
    delete root.dataset.peak;
    delete root.dataset.live;
    if (root.hidden || forward) return;
    const n = series.live.length - 1;
    const top = Math.max(series.peak, 1);
    x = (k) => PAD + ((WIDTH - 2 * PAD) * k) / Math.max(n, 1);
    const y = (v) => HEIGHT - PAD - ((HEIGHT - 2 * PAD) * v) / top;
    const points = series.live.map((v, k) => `${x(k)},${y(v)}`).join(" ");
    svg.append("polygon").attr("class", "ledger-area")
      .attr("points", `${x(0)},${y(0)} ${points} ${x(n)},${y(0)}`);
    svg.append("polyline").attr("class", "ledger-line").attr("points", points);
    const backward = trace.events.findIndex((e) => e.kind === "seed");
    if (backward >= 0) {
      svg.append("line").attr("class", "ledger-phase")
        .attr("x1", x(backward + 1)).attr("x2", x(backward + 1)).attr("y1", 0).attr("y2", HEIGHT);
    }
    svg.append("circle").attr("class", "ledger-peak").attr("r", 3)
      .attr("cx", x(series.peakStep)).attr("cy", y(series.peak));
    svg.append("line").attr("class", "ledger-cursor").attr("y1", 0).attr("y2", HEIGHT);
    const t = trace.ledger;
    // The peak beside "now" in the heading (the two a student compares); below, one fact a
    // line, each short enough to sit beside the chart (ledger.css .ledger-body): four at most,
    // the chart's height, so a checkpointed ledger's recompute line leaves Quiz and Practice
    // whole in the projector's 30vh side column (issue 14 §5).
    peak.textContent = `peak ${formatBytes(series.peak)}`;
    const lines = [`kept by the forward pass ${formatBytes(t.activation_bytes)}`,
      `forward ${formatFlops(t.flops_forward)}`, `backward ${formatFlops(t.flops_backward)}`];
    if (t.flops_recompute) lines.push(`+ ${formatFlops(t.flops_recompute)} recomputed`);
    totals.replaceChildren(...lines.map((line) => Object.assign(root.ownerDocument.createElement("span"), { textContent: line })));
    root.dataset.peak = String(series.peak);
  }

  function show(step) {
    if (!series || root.hidden) return;
    const k = Math.max(0, Math.min(series.live.length - 1, step));
    svg.select(".ledger-cursor").attr("x1", x(k)).attr("x2", x(k));
    now.textContent = `now ${formatBytes(series.live[k])}`;
    root.dataset.live = String(series.live[k]);
  }

  return { draw, show };
}
