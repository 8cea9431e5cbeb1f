// The decision boundary of a 2-D classifier as it trains (issue 15 §3): a heat map on a
// canvas (id `boundary`), each grid cell coloured by the class the network predicts there,
// pale where it is unsure (its top probability near 1/k) and full where it is sure, with the
// training points drawn over it in their labels' colours. Drawn from the stream's `boundary`
// events (train.js runView). Takes its root element; no global ids.
//
// The grid (engine/train): {x0, x1, y0, y1, nx, ny}, `classes` and `confidence` row-major
// with ny rows of nx cells, row 0 at y0; cell (r, c) covers x0 + c·dx .. x0 + (c+1)·dx and
// y0 + r·dy .. y0 + (r+1)·dy. y grows upwards, as on a blackboard.
//
// A regression over 2-D points (an mse loss: XOR with tanh units) has `values` instead of
// classes: each cell the output's value there on the page's diverging scale (heat.js: blue
// positive, red negative, white 0, so the boundary is where blue meets red), the points in
// their targets' colours.

import { schemeTableau10 } from "d3";
import { heatColor, toNumber } from "../heat.js";

// Okabe and Ito's colour-blind safe colours first (blue, vermillion, bluish green), then
// Tableau's for more classes.
export const CLASS_COLOURS = ["#0072B2", "#D55E00", "#009E73", ...schemeTableau10.slice(3)];
const SIZE = 180; // CSS pixels, square

/** "#rrggbb" as [r, g, b]. */
function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * A cell's colour: its class's colour mixed with white by how sure the network is,
 * `confidence` from 1/k (white-ish) to 1 (the class's colour at 60%, so the points read over
 * it). Returns "rgb(r, g, b)".
 */
export function cellColour(cls, confidence, k) {
  const base = rgb(CLASS_COLOURS[cls % CLASS_COLOURS.length]);
  const floor = 1 / Math.max(k, 2);
  const sure = Math.max(0, Math.min(1, (confidence - floor) / (1 - floor)));
  const t = 0.15 + 0.45 * sure;
  const [r, g, b] = base.map((v) => Math.round(255 + (v - 255) * t));
  return `rgb(${r}, ${g}, ${b})`;
}

/** The grid cell (row, column) holding point (px, py), clamped to the grid. */
export function cellOf(grid, px, py) {
  const c = Math.floor(((px - grid.x0) / (grid.x1 - grid.x0)) * grid.nx);
  const r = Math.floor(((py - grid.y0) / (grid.y1 - grid.y0)) * grid.ny);
  return [Math.max(0, Math.min(grid.ny - 1, r)), Math.max(0, Math.min(grid.nx - 1, c))];
}

/**
 * How many training points lie in a cell predicted as their own label (a regression's: of
 * their target's sign): with every point right the boundary has formed (a check the browser
 * tests read as `data-agree`).
 */
export function agreeing(boundary, data) {
  if (!boundary || !data) return 0;
  const same = boundary.values
    ? (at, y) => Math.sign(toNumber(boundary.values[at])) === Math.sign(y)
    : (at, y) => boundary.classes[at] === y;
  let n = 0;
  data.X.forEach(([px, py], i) => {
    const [r, c] = cellOf(boundary.grid, px, py);
    if (same(r * boundary.grid.nx + c, data.y[i])) n += 1;
  });
  return n;
}

/**
 * The canvas's label: what the picture is (the model's class over the plane, a raster of
 * grid cells) and how many training points the model gets right, its own prediction at the
 * points (`accuracy`, 0..1: the iteration's, the number the status line says). The raster's
 * count (agreeing) was said instead: 293 of 300 beside the status line's 100% on the spirals,
 * a point near the boundary in a cell of the other class. A regression (no accuracy) says
 * the raster's count, as the raster.
 */
export function boundaryLabel(boundary, data, accuracy) {
  const { nx, ny } = boundary.grid;
  const n = data?.y.length ?? 0;
  if (boundary.values) {
    return `The output at iteration ${boundary.i}, a raster of ${nx} by ${ny} cells over the plane (blue +, red −): `
      + `${agreeing(boundary, data)} of ${n} training points lie in a cell of their target's sign`;
  }
  const picture = `Decision boundary at iteration ${boundary.i}: the model's class over the plane, a raster of ${nx} by ${ny} cells, with the ${n} training points`;
  if (!Number.isFinite(accuracy)) return picture;
  return `${picture}; the model classifies ${Math.round(accuracy * n)} of them correctly (accuracy ${Math.round(100 * accuracy)}%)`;
}

/** The ends of a regression's colour scale: the targets' largest |y|, at least 1. */
export function valueScale(data) {
  return Math.max(1, ...(data?.y ?? []).map((v) => Math.abs(v)).filter(Number.isFinite));
}

/** The canvas in `root`. draw(view) draws runView's boundary and data (nothing: cleared). */
export function createBoundary(root) {
  const doc = root.ownerDocument;
  const canvas = doc.createElement("canvas");
  canvas.id = "boundary";
  canvas.className = "boundary";
  canvas.setAttribute("role", "img");
  canvas.dataset.drawn = "false";
  root.append(canvas);

  let drawn = null; // [boundary, data]: the last drawn (a frame that changes neither draws nothing)

  function draw({ boundary, data, classes, boundaryAccuracy: accuracy = null }) {
    if (drawn && drawn[0] === boundary && drawn[1] === data) return;
    drawn = [boundary, data];
    const scale = doc.defaultView?.devicePixelRatio || 1;
    canvas.width = SIZE * scale;
    canvas.height = SIZE * scale;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    ctx.clearRect(0, 0, SIZE, SIZE);
    canvas.dataset.drawn = String(Boolean(boundary));
    if (!boundary) {
      delete canvas.dataset.iteration;
      canvas.setAttribute("aria-label", "Decision boundary: not trained yet");
      return;
    }
    const { grid } = boundary;
    const ends = valueScale(data);
    const k = boundary.values ? 0 : (classes ?? Math.max(...boundary.classes) + 1);
    const colour = boundary.values
      ? (at) => heatColor(toNumber(boundary.values[at]), ends)
      : (at) => cellColour(boundary.classes[at], boundary.confidence[at], k);
    const cw = SIZE / grid.nx;
    const ch = SIZE / grid.ny;
    for (let r = 0; r < grid.ny; r += 1) {
      for (let c = 0; c < grid.nx; c += 1) {
        const at = r * grid.nx + c;
        ctx.fillStyle = colour(at);
        // row 0 at the bottom; a cell overlaps its neighbours by a hair so no seams show
        ctx.fillRect(c * cw, SIZE - (r + 1) * ch, cw + 0.5, ch + 0.5);
      }
    }
    if (data) drawPoints(ctx, grid, data, boundary.values ? (y) => heatColor(y, ends) : null);
    canvas.dataset.iteration = String(boundary.i);
    canvas.dataset.kind = boundary.values ? "values" : "classes";
    canvas.dataset.classes = boundary.values ? "" : String(new Set(boundary.classes).size);
    canvas.dataset.agree = String(agreeing(boundary, data));
    canvas.setAttribute("aria-label", boundaryLabel(boundary, data, accuracy));
  }

  return { draw, node: canvas };
}

/**
 * The training points in their labels' colours (`colourOf(y)`, a regression's: its target's
 * on the heat scale), outlined in black to read on any cell; a regression's also ringed in
 * white, since a cell the output got right has the point's own colour.
 */
function drawPoints(ctx, grid, data, colourOf = null) {
  const sx = SIZE / (grid.x1 - grid.x0);
  const sy = SIZE / (grid.y1 - grid.y0);
  const radius = data.y.length > 50 ? 2.5 : 6;
  const line = data.y.length > 50 ? 0.8 : 1.5;
  data.X.forEach(([px, py], i) => {
    const [cx, cy] = [(px - grid.x0) * sx, SIZE - (py - grid.y0) * sy];
    if (colourOf) ring(ctx, cx, cy, radius + line + 1, "#fff", 2 + line);
    ctx.beginPath();
    ctx.arc(cx, cy, radius, 0, 2 * Math.PI);
    ctx.fillStyle = colourOf ? colourOf(data.y[i]) : CLASS_COLOURS[data.y[i] % CLASS_COLOURS.length];
    ctx.fill();
    ring(ctx, cx, cy, radius, "#000", line);
    if (colourOf) ring(ctx, cx, cy, radius + 2 * line + 2, "#000", line);
  });
}

/** A circle's outline. */
function ring(ctx, cx, cy, radius, colour, width) {
  ctx.beginPath();
  ctx.arc(cx, cy, radius, 0, 2 * Math.PI);
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.stroke();
}
