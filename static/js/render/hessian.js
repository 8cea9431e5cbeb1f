// The second-order panel (issue 9; docs/trace-format.md, "Second order"): a walk's
// Hessian-vector product both ways (hvp mode), the Hessian as a heat map (`# hessian: full`),
// and power iteration's eigenvalue estimate at each step (`# hessian: power_iteration N`).
// Drawn once per trace from its done results; hidden when the trace has none of them.
// The heat map's cells come from heat.js (RdBu about 0, scaled by the largest |H_ij|), like
// the nodes' heat maps (render/heatmap.js); each cell carries data-i, data-j and data-v.

import { select } from "d3";
import { heatCells, heatColor } from "../heat.js";
import { formatNumber, formatValue } from "../format.js";

const MAP = 240; // px: the heat map's side
const LABELLED = 16; // at most this many inputs get their names beside the map
const LABEL = 56; // px left and above the map for the names
const SPARK = { width: 240, height: 48, pad: 4 };

/** The panel in `root` (an empty <section>); draw(trace) fills it from a trace's results. */
export function createSecondOrderPanel(root) {
  function draw(trace) {
    root.replaceChildren();
    const hvp = trace?.hvp;
    const hessian = trace?.hessian;
    const eigen = trace?.eigen;
    root.hidden = !(hvp || hessian || eigen);
    delete root.dataset.eigenvalue;
    if (root.hidden) return;
    const title = document.createElement("h2");
    title.textContent = "Second derivatives";
    root.append(title);
    if (hvp) root.append(hvpTable(hvp, trace.hvp_forward_over_reverse ?? {}));
    if (hessian) root.append(heatMap(hessian));
    if (eigen) {
      root.append(eigenBlock(eigen));
      root.dataset.eigenvalue = String(eigen.value);
    }
  }
  return { draw };
}

/** H v per leaf: reverse over reverse (the walk's own leaf adjoints) and forward over reverse. */
function hvpTable(hvp, forward) {
  const table = document.createElement("table");
  table.className = "hvp";
  table.createCaption().textContent = "Hessian-vector product H v";
  const head = table.createTHead().insertRow();
  for (const text of ["leaf", "reverse over reverse", "forward over reverse"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = text;
    head.append(th);
  }
  const body = table.createTBody();
  for (const [leaf, value] of Object.entries(hvp)) {
    const row = body.insertRow();
    row.dataset.leaf = leaf;
    row.dataset.hvp = JSON.stringify(value);
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = leaf;
    row.append(th);
    row.insertCell().textContent = formatValue(value);
    row.insertCell().textContent = leaf in forward ? formatValue(forward[leaf]) : "";
  }
  return table;
}

/** The n×n Hessian as a grid of coloured cells, the inputs' names beside it when few. */
function heatMap(hessian) {
  const n = hessian.leaves.length;
  const figure = document.createElement("figure");
  figure.className = "hessian";
  const caption = document.createElement("figcaption");
  caption.textContent = `Hessian ∂²L/∂xᵢ∂xⱼ, ${n}×${n} (${hessian.passes} forward-over-reverse passes): blue positive, red negative`;
  const labelled = n <= LABELLED;
  const margin = labelled ? LABEL : 0;
  const cell = n ? MAP / n : MAP;
  const svg = select(figure).append("svg")
    .attr("class", "hessian-map")
    .attr("role", "img")
    .attr("aria-label", `The ${n}×${n} Hessian as a heat map`)
    .attr("viewBox", `0 0 ${MAP + margin} ${MAP + margin}`)
    .attr("data-size", String(n));
  const { cells, maxAbs } = heatCells({ shape: [n, n], data: hessian.matrix, summary: null });
  svg.attr("data-max-abs", String(maxAbs));
  svg.append("g").attr("transform", `translate(${margin},${margin})`)
    .selectAll("rect").data(cells).join("rect")
    .attr("class", (c) => `cell${Number.isFinite(c.v) ? "" : " nonfinite"}`)
    .attr("data-i", (c) => c.i)
    .attr("data-j", (c) => c.j)
    .attr("data-v", (c) => String(c.v))
    .attr("x", (c) => c.j * cell)
    .attr("y", (c) => c.i * cell)
    .attr("width", Math.max(cell - 0.5, 0.5))
    .attr("height", Math.max(cell - 0.5, 0.5))
    .attr("fill", (c) => heatColor(c.v, maxAbs))
    .append("title")
    .text((c) => `∂²L/∂${hessian.leaves[c.i]}∂${hessian.leaves[c.j]} = ${formatNumber(c.v)}`);
  if (labelled) {
    const names = svg.append("g").attr("class", "hessian-names");
    names.selectAll("text.row").data(hessian.leaves).join("text")
      .attr("class", "row").attr("x", margin - 4).attr("y", (_, k) => margin + (k + 0.5) * cell)
      .attr("text-anchor", "end").attr("dominant-baseline", "middle").text((d) => d);
    names.selectAll("text.col").data(hessian.leaves).join("text")
      .attr("class", "col")
      .attr("transform", (_, k) => `translate(${margin + (k + 0.5) * cell},${margin - 4}) rotate(-60)`)
      .text((d) => d);
  }
  figure.append(caption);
  return figure;
}

/** Power iteration: the estimate at each step as a line, and the steps listed. */
function eigenBlock(eigen) {
  const block = document.createElement("div");
  block.className = "eigen";
  const line = document.createElement("p");
  line.className = "eigen-value";
  line.textContent = `largest Hessian eigenvalue ≈ ${formatNumber(eigen.value)} after ${eigen.steps} steps of power iteration (v ← Hv / ‖Hv‖)`;
  block.append(line);
  const values = eigen.estimates.map((x) => (typeof x === "number" ? x : Number.NaN));
  const finite = values.filter(Number.isFinite);
  if (finite.length > 1) {
    const lo = Math.min(...finite);
    const hi = Math.max(...finite);
    const x = (k) => SPARK.pad + ((SPARK.width - 2 * SPARK.pad) * k) / (values.length - 1);
    const y = (v) => SPARK.height - SPARK.pad - ((SPARK.height - 2 * SPARK.pad) * (v - lo)) / (hi - lo || 1);
    const svg = select(block).append("svg").attr("class", "eigen-spark")
      .attr("viewBox", `0 0 ${SPARK.width} ${SPARK.height}`).attr("preserveAspectRatio", "none").attr("role", "img")
      .attr("aria-label", "The eigenvalue estimate at each step of power iteration");
    svg.append("polyline").attr("points", values.map((v, k) => `${x(k)},${y(Number.isFinite(v) ? v : lo)}`).join(" "));
  }
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = "each step's estimate vᵀHv";
  const list = document.createElement("ol");
  list.className = "eigen-steps";
  for (const v of eigen.estimates) {
    const item = document.createElement("li");
    item.textContent = formatNumber(v);
    item.dataset.v = String(v);
    list.append(item);
  }
  details.append(summary, list);
  block.append(details);
  return block;
}
