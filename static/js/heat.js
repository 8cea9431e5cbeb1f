// Heat maps of tensors: which cells a value can show, how big they are, and their colour.
// No DOM: `node --test` covers it. The colour scale is d3-scale-chromatic's RdBu (ColorBrewer,
// colour-blind safe), diverging about 0 and symmetric: positive blue like the page's values,
// negative red, zero near white; each tensor is scaled by its own largest |x|.

import { interpolateRdBu } from "d3-scale-chromatic";
import { isTensor } from "./format.js";

export const HEAT = {
  cellMax: 22, // px: a cell of a small tensor, one line of numbers high (METRICS.row - 2)
  cellMin: 3, // px: smaller cells are not drawn one by one
  width: 168, // px: the widest a heat map gets in a node box
  gap: 12, // px between the numbers and the heat map
  badgeChar: 10, // px per character of a shape badge (16px sans)
};

const NON_FINITE = { NaN: Number.NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** An element of a value's data as a JS number ("NaN", "Infinity" become NaN, Infinity). */
export function toNumber(x) {
  return typeof x === "string" ? (NON_FINITE[x] ?? Number.NaN) : x;
}

/**
 * What the heat map of a node of `shape` is: "none" for a scalar, "grid" for 1-D (one row)
 * and 2-D, "badge" (the shape written out) for rank 3 and more.
 */
export function heatKind(shape) {
  if (!shape || shape.length === 0) return "none";
  return shape.length <= 2 ? "grid" : "badge";
}

/** [rows, cols] of the grid of a 1-D or 2-D shape: a vector is one row. */
export function gridOf(shape) {
  return shape.length === 1 ? [1, shape[0]] : [shape[0], shape[1]];
}

/**
 * The heat map's box for a node of `shape` in a block `height` px high: {kind, width,
 * height, cell, rows, cols}; width 0 for a scalar. Cells are square, at most cellMax, as
 * many as fit in HEAT.width and `height`, at least cellMin; a grid that would still be wider
 * or taller than HEAT.width has its columns `colCell` wide and its rows `rowCell` high,
 * squeezed below `cell`, so it is at most HEAT.width each way.
 */
export function heatSize(shape, height) {
  const kind = heatKind(shape);
  if (kind === "none") return { kind, width: 0, height: 0, cell: 0, rows: 0, cols: 0 };
  if (kind === "badge") {
    const text = shape.join("×");
    return { kind, width: text.length * HEAT.badgeChar + 16, height: 24, cell: 0, rows: 0, cols: 0, text };
  }
  const [rows, cols] = gridOf(shape);
  const fit = Math.min(HEAT.cellMax, Math.floor(HEAT.width / cols), Math.floor(height / rows));
  const cell = Math.max(HEAT.cellMin, fit);
  // A long tensor (300 points of 2 coordinates) is not drawn 900 px tall: its rows share at
  // most HEAT.width px, so a box stays about as tall as it is wide and the whole graph fits
  // at a larger scale (the spirals' boxes were 1,870 px tall, their Fit at scale 0.05).
  const rowCell = Math.min(cell, HEAT.width / rows);
  const colCell = Math.min(cell, HEAT.width / cols); // and a long vector's columns (300 labels)
  return {
    kind, width: Math.min(cols * cell, HEAT.width), height: Math.min(rows * cell, HEAT.width),
    cell, rowCell, colCell, rows, cols,
  };
}

/**
 * The cells `value` (a tensor of docs/trace-format.md) can show: {complete, cells: [{i, j,
 * v}], maxAbs}. complete is false when the tensor travelled as a summary (data null, over
 * the inline limit): then the cells are its min, max and mean, one per row (i 0..2, j 0),
 * which is all there is to draw. maxAbs is the largest finite |x| (the scale's ends).
 */
export function heatCells(value) {
  if (!isTensor(value) || value.shape.length === 0 || value.shape.length > 2) {
    return { complete: false, cells: [], maxAbs: 0 };
  }
  let cells;
  let complete = true;
  if (value.data == null) {
    complete = false;
    const s = value.summary ?? {};
    cells = ["min", "max", "mean"].map((k, i) => ({ i, j: 0, v: toNumber(s[k]), stat: k }));
  } else {
    const rows = value.shape.length === 1 ? [value.data] : value.data;
    cells = rows.flatMap((row, i) => row.map((x, j) => ({ i, j, v: toNumber(x) })));
  }
  const finite = cells.map((c) => Math.abs(c.v)).filter(Number.isFinite);
  return { complete, cells, maxAbs: finite.length ? Math.max(...finite) : 0 };
}

/**
 * The colour of `v` on the diverging scale with ends at ±maxAbs: an "rgb(...)" string.
 * +Infinity and -Infinity are the ends; NaN is black (off the scale, and said in the
 * detail panel); maxAbs 0 (all zeros) is the middle.
 */
export function heatColor(v, maxAbs) {
  if (Number.isNaN(v)) return "rgb(0, 0, 0)";
  let t = 0;
  if (v === Infinity) t = 1;
  else if (v === -Infinity) t = -1;
  else if (maxAbs > 0) t = Math.max(-1, Math.min(1, v / maxAbs));
  return interpolateRdBu(0.5 + t / 2);
}

/** A readable text colour on a heat cell of colour `rgb` ("rgb(r, g, b)"): black or white. */
export function inkOn(rgb) {
  const [r, g, b] = (rgb.match(/\d+/g) ?? [255, 255, 255]).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#000000" : "#ffffff";
}
