// A node's heat maps (heat.js): one per block, value and grad, right of the numbers. Drawn
// by a keyed join of cells on each step; the cells carry data-i, data-j and data-v (the
// number, full precision) so tests and readers can check them. A tensor over the inline limit
// shows the three numbers its summary has (min, max, mean), beside those lines, and says so.

import { select } from "d3";
import { heatCells, heatColor } from "../heat.js";

/** The fixed part, once per graph: an empty group at the right of each tensor's block. */
export function heatShell(block) {
  const tensor = block.filter((d) => d.heat?.kind === "grid");
  tensor.append("g").attr("class", "heat")
    .attr("transform", (d) => `translate(${d.width - 24 - d.heat.width},2)`)
    .attr("data-shape", (d) => d.node.shape.join(","))
    .append("title");
  const badge = block.filter((d) => d.heat?.kind === "badge")
    .append("g").attr("class", "shape-badge")
    .attr("transform", (d) => `translate(${d.width - 24 - d.heat.width},0)`)
    .attr("data-shape", (d) => d.node.shape.join(","));
  badge.append("rect").attr("rx", 6).attr("width", (d) => d.heat.width).attr("height", (d) => d.heat.height);
  badge.append("text").attr("x", (d) => d.heat.width / 2).attr("y", 17).attr("text-anchor", "middle")
    .text((d) => d.heat.text);
  badge.append("title").text((d) => `rank ${d.node.shape.length} tensor of shape ${d.heat.text}: `
    + "click the node for its numbers");
}

const WHAT = { value: "value", grad: "gradient" };

/**
 * Fill the heat maps of `block` (one kind: "value" or "grad") from `values` (node id ->
 * value, a timeline view's values or adjoints). A node without a value yet shows none.
 */
export function showHeat(block, values, kind) {
  block.select("g.heat").each(function (d) {
    const g = select(this);
    const value = values[d.id];
    const { complete, cells, maxAbs } = value === undefined ? { complete: true, cells: [], maxAbs: 0 } : heatCells(value);
    const size = d.heat.cell;
    const high = d.heat.rowCell ?? size; // a long tensor's rows are squeezed (heat.js heatSize)
    const wide = d.heat.colCell ?? size;
    const gapY = high >= 3 ? 1 : 0; // no gap between rows (or columns) thinner than 3 px
    const gapX = wide >= 3 ? 1 : 0;
    const summaryCell = Math.min(22, d.heat.height / 3);
    g.attr("data-kind", kind)
      .attr("data-complete", value === undefined ? null : String(complete))
      .attr("data-max-abs", value === undefined ? null : String(maxAbs));
    g.select("title").text(value === undefined ? ""
      : complete ? `${WHAT[kind]} as a heat map: blue positive, red negative, white 0 (±${maxAbs.toPrecision(3)})`
        : `over the inline limit: only the min, max and mean of this ${WHAT[kind]} travelled; click the node for every number`);
    g.selectAll("rect.cell")
      .data(cells, (c) => (c.stat ? c.stat : `${c.i},${c.j}`))
      .join("rect")
      .attr("class", (c) => `cell${Number.isFinite(c.v) ? "" : " nonfinite"}${c.stat ? " stat" : ""}`)
      .attr("data-i", (c) => c.i)
      .attr("data-j", (c) => c.j)
      .attr("data-v", (c) => String(c.v))
      .attr("x", (c) => (c.stat ? 0 : c.j * wide))
      .attr("y", (c) => (c.stat ? c.i * 24 : c.i * high))
      .attr("width", (c) => (c.stat ? summaryCell - 1 : wide - gapX))
      .attr("height", (c) => (c.stat ? summaryCell - 1 : high - gapY))
      .attr("fill", (c) => heatColor(c.v, maxAbs));
    g.selectAll("text.summary-note")
      .data(complete ? [] : [d])
      .join("text")
      .attr("class", "summary-note")
      .attr("x", summaryCell + 6)
      .attr("y", 16)
      .text("summary");
  });
}
