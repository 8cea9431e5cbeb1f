// The second-order panel (issue 9; docs/trace-format.md, "Second order"): a walk's
// Hessian-vector product both ways (hvp mode), the Hessian as a heat map (`# hessian: full`),
// and power iteration's eigenvalue estimate at each step (`# hessian: power_iteration N`).
// Drawn once per trace from its done results; hidden when the trace has none of them. What
// it shows is worked out in ../second-order.js (tested with node); the heat map's colours are
// heat.js's, as the nodes' heat maps (render/heatmap.js). Each cell carries data-i, data-j and
// data-v, each H v row data-leaf and data-hvp, the panel data-eigenvalue.

import { select } from "d3";
import { heatColor } from "../heat.js";
import { formatNumber } from "../format.js";
import { cellTitle, eigenText, hasSecondOrder, hessianMap, hvpRows, sparkPoints } from "../second-order.js";

const MAP = 240; // px: the heat map's side
const LABELLED = 16; // at most this many inputs get their names beside the map
const LABEL = 56; // px left of and above the map for the names
const SPARK = { width: 240, height: 48, pad: 4 };

/** The panel in `root` (an empty <section>); draw(trace) fills it from a trace's results. */
export function createSecondOrderPanel(root) {
  function draw(trace) {
    root.replaceChildren();
    delete root.dataset.eigenvalue;
    root.hidden = !hasSecondOrder(trace);
    if (root.hidden) return;
    const title = document.createElement("h2");
    title.textContent = "Second derivatives";
    root.append(title);
    if (trace.hvp) root.append(hvpTable(trace));
    if (trace.hessian) root.append(heatMap(trace.hessian));
    if (trace.eigen) {
      root.append(eigenBlock(trace.eigen));
      root.dataset.eigenvalue = String(trace.eigen.value);
    }
  }
  return { draw };
}

/** H v per leaf: reverse over reverse (the walk's own leaf adjoints) and forward over reverse. */
function hvpTable(trace) {
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
  for (const row of hvpRows(trace)) {
    const tr = body.insertRow();
    tr.dataset.leaf = row.leaf;
    tr.dataset.hvp = JSON.stringify(row.value);
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = row.leaf;
    tr.append(th);
    tr.insertCell().textContent = row.reverse;
    tr.insertCell().textContent = row.forward;
  }
  return table;
}

/** The n×n Hessian as a grid of coloured cells, the inputs' names beside it when few. */
function heatMap(hessian) {
  const { n, cells, maxAbs, cell } = hessianMap(hessian, MAP);
  const figure = document.createElement("figure");
  figure.className = "hessian";
  const labelled = n <= LABELLED;
  const margin = labelled ? LABEL : 0;
  const svg = select(figure).append("svg")
    .attr("class", "hessian-map")
    .attr("role", "img")
    .attr("aria-label", `The ${n}×${n} Hessian as a heat map`)
    .attr("viewBox", `0 0 ${MAP + margin} ${MAP + margin}`)
    .attr("data-size", String(n))
    .attr("data-max-abs", String(maxAbs));
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
    .text((c) => cellTitle(hessian, c));
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
  const caption = document.createElement("figcaption");
  caption.textContent = `Hessian ∂²L/∂xᵢ∂xⱼ, ${n}×${n} (${hessian.passes} forward-over-reverse passes): `
    + "blue positive, red negative";
  figure.append(caption);
  return figure;
}

/** Power iteration: the estimate at each step as a line, and the steps listed. */
function eigenBlock(eigen) {
  const block = document.createElement("div");
  block.className = "eigen";
  const line = document.createElement("p");
  line.className = "eigen-value";
  line.textContent = eigenText(eigen);
  block.append(line);
  const points = sparkPoints(eigen.estimates, SPARK);
  if (points) {
    select(block).append("svg").attr("class", "eigen-spark")
      .attr("viewBox", `0 0 ${SPARK.width} ${SPARK.height}`).attr("preserveAspectRatio", "none")
      .attr("role", "img").attr("aria-label", "The eigenvalue estimate at each step of power iteration")
      .append("polyline").attr("points", points);
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
