// The second-order panel (issue 9; docs/trace-format.md, "Second order"): a walk's
// Hessian-vector product both ways (hvp mode), the Hessian as a heat map (`# hessian: full`),
// and power iteration's eigenvalue estimate at each step (`# hessian: power_iteration N`).
// Drawn once per trace from its done results; hidden when the trace has none of them. What
// it shows is worked out in ../second-order.js (tested with node); the heat map's colours are
// heat.js's, as the nodes' heat maps (render/heatmap.js). Each cell carries data-i, data-j and
// data-v, each H v row data-leaf and data-hvp, the panel data-eigenvalue.
// The side column is narrow, so "Enlarge" opens the same results in a dialog sized for a
// projector (#hessian-dialog, Escape closes it): cells big enough for 16 px names and their
// numbers, every row of up to 12 inputs on screen at 1024x768 (more scroll), and the colour
// scale's legend. With the program hidden (the side column too) a button over the graph
// (#hessian-open) opens it.

import { axisBottom, axisLeft, scaleLinear, select } from "d3";
import { formatNumber } from "../format.js";
import { heatColor, inkOn } from "../heat.js";
import { cellText, cellTitle, eigenDomain, eigenText, hasSecondOrder, hessianMap, hvpRows, legendStops } from "../second-order.js";

const MAP = 240; // px: the heat map's side
const LABELLED = 16; // at most this many inputs get their names beside the map
const LABEL = 56; // px left of and above the map for the names
// The power-iteration chart (user units; drawn with a uniform scale, so its text stays round):
// room left of and under the plot for the ticks and the axes' names.
const CHART = { width: 300, height: 150, left: 58, right: 10, top: 8, bottom: 38 };

// The dialog's map: labels and numbers in screen px (the svg is drawn 1:1, never scaled).
// left, top: room for the names (16 px); right: for the last name's slant; numbers: the
// smallest cell that shows its number; legend: the colour scale's height.
const BIG = { left: 84, top: 70, right: 28, numbers: 45, legend: 40, aside: 260 };

/**
 * The panel in `root` (an empty <section>); draw(trace) fills it from a trace's results.
 * `stage` (the graph's wrapper) gets the button that opens the dialog while the program,
 * and so the panel, is hidden.
 */
export function createSecondOrderPanel(root, { stage } = {}) {
  const doc = root.ownerDocument;
  const dialog = createDialog(doc);
  const open = doc.createElement("button");
  Object.assign(open, { id: "hessian-open", type: "button", className: "btn hessian-open", textContent: "⤢ Second derivatives", hidden: true });
  open.title = "Show the Hessian and H v large";
  open.addEventListener("click", () => dialog.show());
  stage?.append(open);
  let shown = null; // the trace whose results the panel shows

  function draw(trace) {
    root.replaceChildren();
    delete root.dataset.eigenvalue;
    root.hidden = !hasSecondOrder(trace);
    open.hidden = root.hidden;
    shown = root.hidden ? null : trace;
    if (root.hidden) return dialog.close();
    const head = doc.createElement("div");
    head.className = "second-order-head";
    const title = doc.createElement("h2");
    title.textContent = "Second derivatives";
    const enlarge = doc.createElement("button");
    Object.assign(enlarge, { id: "hessian-enlarge", type: "button", className: "btn", textContent: "⤢ Enlarge" });
    enlarge.title = "Show the Hessian and H v large, for the room (Esc closes)";
    enlarge.addEventListener("click", () => dialog.show());
    head.append(title, enlarge);
    root.append(head, ...results(trace, { side: MAP }));
    if (trace.eigen) root.dataset.eigenvalue = String(trace.eigen.value);
    dialog.fill(trace);
  }
  /** Scroll the side column so the H v table is in view (at Done in hvp mode); the page stays. */
  function reveal() {
    const table = root.hidden ? null : root.querySelector("table.hvp");
    const column = table?.closest(".side");
    if (!column || column.scrollHeight <= column.clientHeight) return;
    const box = column.getBoundingClientRect();
    const t = table.getBoundingClientRect();
    if (t.top >= box.top && t.bottom <= box.bottom) return;
    // the panel's title with it when both fit, else the table at the column's top
    const from = t.bottom - root.getBoundingClientRect().top <= box.height ? root : table;
    column.scrollTop += from.getBoundingClientRect().top - box.top - 4;
  }
  return { draw, dialog, reveal };
}

/** The results' blocks: H v, the Hessian's map (`side` px, `big`: the dialog's), eigenvalue. */
function results(trace, { side, big = false }) {
  const blocks = [];
  if (big && trace.hessian) {
    const { leaves, passes } = trace.hessian;
    const caption = document.createElement("p");
    caption.className = "hessian-caption";
    caption.textContent = `Hessian ∂²L/∂xᵢ∂xⱼ, ${leaves.length}×${leaves.length}, from ${passes} forward-over-reverse `
      + "passes: blue positive, red negative, white 0.";
    blocks.push(caption);
  }
  if (trace.hvp) blocks.push(hvpTable(trace));
  if (trace.hessian) blocks.push(big ? bigMap(trace.hessian, side) : heatMap(trace.hessian));
  if (trace.eigen) blocks.push(eigenBlock(trace.eigen));
  return blocks;
}

/**
 * The dialog (a modal <dialog>, so Escape closes it): {show(), close(), fill(trace)}. Its
 * map is sized to the dialog when it opens and when the window's size changes.
 */
function createDialog(doc) {
  const dialog = doc.createElement("dialog");
  dialog.id = "hessian-dialog";
  dialog.className = "hessian-dialog";
  dialog.setAttribute("aria-labelledby", "hessian-dialog-title");
  const head = doc.createElement("header");
  const title = doc.createElement("h2");
  title.id = "hessian-dialog-title";
  title.textContent = "Second derivatives";
  const close = doc.createElement("button");
  Object.assign(close, { type: "button", className: "btn", textContent: "Close (Esc)" });
  close.addEventListener("click", () => dialog.close());
  head.append(title, close);
  const body = doc.createElement("div");
  body.className = "hessian-dialog-body";
  dialog.append(head, body);
  doc.body.append(dialog);
  // A click on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener("click", (event) => event.target === dialog && dialog.close());
  let trace = null;

  function layout() {
    if (!dialog.open || !trace) return;
    // the map's side: what is left of the dialog's body beside the table, and below the legend
    const box = body.getBoundingClientRect();
    const aside = Math.min(360, Math.max(BIG.aside, 0.3 * box.width));
    const side = Math.max(160, Math.min(box.width - aside - 32 - BIG.left - BIG.right + BIG.top, box.height - BIG.legend - 12));
    body.replaceChildren(...results(trace, { side, big: true }));
    body.dataset.side = String(Math.round(side));
  }
  doc.defaultView?.addEventListener("resize", layout);
  return {
    show() {
      if (!trace) return;
      if (!dialog.open) dialog.showModal();
      layout();
    },
    close() {
      if (dialog.open) dialog.close();
    },
    fill(next) {
      trace = next;
      layout();
    },
  };
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
  if (labelled) names(svg, hessian.leaves, { left: margin, top: margin, cell, gap: 4, shift: 0, angle: -60 });
  const caption = document.createElement("figcaption");
  caption.textContent = `Hessian ∂²L/∂xᵢ∂xⱼ, ${n}×${n} (${hessian.passes} forward-over-reverse passes): `
    + "blue positive, red negative";
  figure.append(caption);
  return figure;
}

/**
 * The dialog's map: a `side` px square drawn 1:1 (names at 16 px, each cell's number when
 * the cells are big enough), the inputs' names beside it (at most LABELLED of them), and the
 * colour scale's legend under it.
 */
function bigMap(hessian, side) {
  const n = hessian.leaves.length;
  const labelled = n <= LABELLED;
  const left = labelled ? BIG.left : 8;
  const top = labelled ? BIG.top : 8;
  const grid = Math.floor(side - top);
  const { cells, maxAbs, cell } = hessianMap(hessian, grid);
  const figure = document.createElement("figure");
  figure.className = "hessian hessian-big";
  const svg = select(figure).append("svg")
    .attr("class", "hessian-map big")
    .attr("role", "img")
    .attr("aria-label", `The ${n}×${n} Hessian as a heat map`)
    .attr("width", left + grid + BIG.right).attr("height", top + grid)
    .attr("viewBox", `0 0 ${left + grid + BIG.right} ${top + grid}`)
    .attr("data-size", String(n))
    .attr("data-cell", String(cell))
    .attr("data-max-abs", String(maxAbs));
  const g = svg.append("g").attr("transform", `translate(${left},${top})`)
    .selectAll("g").data(cells).join("g")
    .attr("transform", (c) => `translate(${c.j * cell},${c.i * cell})`);
  g.append("rect")
    .attr("class", (c) => `cell${Number.isFinite(c.v) ? "" : " nonfinite"}`)
    .attr("data-i", (c) => c.i).attr("data-j", (c) => c.j).attr("data-v", (c) => String(c.v))
    .attr("width", Math.max(cell - 1, 0.5)).attr("height", Math.max(cell - 1, 0.5))
    .attr("fill", (c) => heatColor(c.v, maxAbs))
    .append("title").text((c) => cellTitle(hessian, c));
  if (cell >= BIG.numbers) {
    g.append("text").attr("class", "cell-number")
      .attr("x", (cell - 1) / 2).attr("y", (cell - 1) / 2)
      .attr("text-anchor", "middle").attr("dominant-baseline", "central")
      .attr("fill", (c) => inkOn(heatColor(c.v, maxAbs)))
      .style("font-size", `${Math.min(18, Math.floor((cell - 3) / 3))}px`)
      .text((c) => cellText(c.v));
  }
  if (labelled) names(svg, hessian.leaves, { left, top, cell, gap: 8, shift: 5, angle: -55, big: true });
  figure.append(legend(maxAbs, grid, left, BIG.right));
  return figure;
}

/**
 * The inputs' names beside a map whose grid starts at (left, top) with `cell` px cells: down
 * the left side, and slanted by `angle` degrees along the top (`shift` px right of each
 * column's middle), `gap` px from the grid.
 */
function names(svg, leaves, { left, top, cell, gap, shift, angle, big = false }) {
  const g = svg.append("g").attr("class", big ? "hessian-names big" : "hessian-names");
  g.selectAll("text.row").data(leaves).join("text")
    .attr("class", "row").attr("x", left - gap).attr("y", (_, k) => top + (k + 0.5) * cell)
    .attr("text-anchor", "end").attr("dominant-baseline", "middle").text((d) => d);
  g.selectAll("text.col").data(leaves).join("text")
    .attr("class", "col")
    .attr("transform", (_, k) => `translate(${left + (k + 0.5) * cell + shift},${top - gap}) rotate(${angle})`)
    .text((d) => d);
}

/** The colour scale under the map: a bar from -maxAbs (red) through 0 (white) to +maxAbs (blue). */
function legend(maxAbs, width, margin, right) {
  const height = 14;
  const stops = legendStops(maxAbs);
  const svg = select(document.createElementNS("http://www.w3.org/2000/svg", "svg"))
    .attr("class", "hessian-legend").attr("role", "img")
    .attr("aria-label", `Colour scale: red ${stops[0].text}, white 0, blue ${stops[2].text}`)
    .attr("width", margin + width + right).attr("height", BIG.legend)
    .attr("viewBox", `0 0 ${margin + width + right} ${BIG.legend}`);
  const id = "hessian-legend-gradient";
  const gradient = svg.append("defs").append("linearGradient").attr("id", id);
  for (let k = 0; k <= 10; k += 1) {
    gradient.append("stop").attr("offset", `${k * 10}%`).attr("stop-color", heatColor(-maxAbs + (2 * maxAbs * k) / 10, maxAbs));
  }
  svg.append("rect").attr("class", "bar").attr("x", margin).attr("y", 4).attr("width", width).attr("height", height)
    .attr("fill", `url(#${id})`);
  svg.selectAll("text").data(stops).join("text")
    .attr("x", (d) => margin + d.at * width).attr("y", height + 22)
    .attr("text-anchor", (d) => ["start", "middle", "end"][Math.round(d.at * 2)])
    .attr("data-v", (d) => String(d.value))
    .text((d) => d.text);
  return svg.node();
}

/** Power iteration: the estimate at each step as a line, and the steps listed. */
function eigenBlock(eigen) {
  const block = document.createElement("div");
  block.className = "eigen";
  const line = document.createElement("p");
  line.className = "eigen-value";
  line.textContent = eigenText(eigen);
  block.append(line);
  const chart = eigenChart(eigen.estimates);
  if (chart) block.append(chart);
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

/**
 * The eigenvalue estimate at each power-iteration step as a line with axes: the step number
 * along the bottom (integer ticks), the estimate vᵀHv up the side; null with fewer than two
 * finite estimates (second-order.js eigenDomain).
 */
function eigenChart(estimates) {
  const domain = eigenDomain(estimates);
  if (!domain) return null;
  const { width, height, left, right, top, bottom } = CHART;
  const x = scaleLinear().domain([1, domain.steps]).range([left, width - right]);
  const y = scaleLinear().domain([domain.lo, domain.hi]).range([height - bottom, top]).nice(4);
  const svg = select(document.createElementNS("http://www.w3.org/2000/svg", "svg"))
    .attr("class", "eigen-chart").attr("viewBox", `0 0 ${width} ${height}`)
    .attr("role", "img").attr("aria-label", "The eigenvalue estimate at each step of power iteration");
  const steps = Math.min(domain.steps - 1, 6);
  svg.append("g").attr("class", "axis x").attr("transform", `translate(0,${height - bottom})`)
    .call(axisBottom(x).ticks(steps).tickFormat((d) => (Number.isInteger(d) ? String(d) : "")));
  svg.append("g").attr("class", "axis y").attr("transform", `translate(${left},0)`)
    .call(axisLeft(y).ticks(4).tickFormat((d) => formatNumber(d)));
  svg.append("text").attr("class", "axis-name").attr("x", (left + width - right) / 2).attr("y", height - 4)
    .attr("text-anchor", "middle").text("power-iteration step");
  svg.append("text").attr("class", "axis-name").attr("transform", `translate(12,${(top + height - bottom) / 2}) rotate(-90)`)
    .attr("text-anchor", "middle").text("estimate vᵀHv");
  const line = estimates.map((v, k) => [x(k + 1), y(Number.isFinite(v) ? v : domain.lo)]);
  svg.append("polyline").attr("class", "eigen-line").attr("points", line.map((p) => p.join(",")).join(" "));
  return svg.node();
}
