// The loss curve of a training run (issue 15 §3): an SVG (id `loss-curve`) drawn with D3, the
// loss before each update against the iteration, growing as the run is shown; its
// `data-points` is the number of iterations drawn. A second series (the fix beside the
// no_zero_grad bug) is drawn dashed under the first. The y axis is logarithmic when the
// losses span more than a decade (a falling loss, 0.84 to 0.013, reads as a slope), else
// linear. Its axes are titled "iteration" and "loss", outside the numbers (a newcomer: the
// numbers alone did not say what they count). Takes its root element; no global ids.

import { axisBottom, axisLeft, line, scaleLinear, scaleLog, select } from "d3";
import { formatLoss } from "../train.js";

const WIDTH = 320;
const HEIGHT = 180; // 150 before the axes had titles: the 30 added hold the x title's row
const M = { top: 10, right: 16, bottom: 24, left: 52 }; // room for the axes' numbers (15 px)
const DIGIT = 9; // px a character of the axes' 15 px numbers takes, at most (a digit: 8.3)
// The axes' titles: a title's line box is at most LINE times its font size (DejaVu Sans:
// 0.93 em over the baseline, 0.24 under), its baseline ASCENT under the box's top edge; it
// keeps GAP px from the numbers and EDGE px from the svg's edge.
const TITLE = { LINE: 1.2, ASCENT: 0.95, GAP: 3, EDGE: 1 };
// Tick labels keep SIDE px between them side by side (x), LINE px over each other (y: a
// label's line box, TICK_LINE px for 15 px text, has its own room round the digits).
const TICK_GAP = { SIDE: 8, LINE: 2 };
const TICK_LINE = 18;
// The legend (two curves: the bug and its fix) in rows above the plot, the svg grown by them:
// inside the plot a 14 px legend was wider than a 1024x768 page's plot and a curve crossed
// it (a newcomer). An entry is its SWATCH px line, a SPACE, its text; entries keep GAP px.
const LEGEND = { ROW: 18, SWATCH: 24, SPACE: 6, GAP: 12, EDGE: 4 };

/**
 * The left margin (px of the viewBox) that holds the y axis's widest label (`labels`, the
 * tick texts) whole, at least M.left: "0.0001" at 15 px did not fit 52 and read ".0001".
 */
export function leftMargin(labels) {
  const widest = Math.max(0, ...labels.map((t) => t.length));
  return Math.max(M.left, 6 + 3 + 4 + DIGIT * widest); // tick, its padding, a gap, the text
}

/**
 * The plot's margins (px of the viewBox) for tick labels `labels` (the y axis's) and axis
 * titles of `titleSize` px (their font size): outside the numbers' room, a column at the
 * left for "loss" (turned to read upwards) and a row at the foot for "iteration".
 * Returns {top, right, bottom, left}.
 */
export function margins(labels, titleSize) {
  const room = TITLE.EDGE + Math.ceil(TITLE.LINE * titleSize); // a title's line box, from the edge
  return { top: M.top, right: M.right, bottom: M.bottom + TITLE.GAP + room, left: leftMargin(labels) + room };
}

/**
 * The ticks of `scale` (a d3 scale, px) whose labels do not touch: of scale.ticks(n) for n
 * from `most` down to 1, the first whose neighbouring labels with text lie `extent(label)`
 * px wide (their half each side of the tick) and `gap` px apart. `format(n)` gives the
 * labels' formatter for n ticks; where none do, scale.ticks(1) less the labels too near the
 * one before. Returns {ticks, format}: "1,000" and "2,000" of a 3,000-iteration run read
 * "1,0002,000" on a 1024x768 page's curve (d3's 4 ticks in 115 px). Raises RangeError for
 * `most` under 1.
 */
export function fittingTicks(scale, most, format, extent, gap) {
  if (!(most >= 1)) throw new RangeError(`fittingTicks: most must be 1 or more, was ${most}`);
  for (let n = most; n >= 1; n -= 1) {
    const ticks = scale.ticks(n);
    const label = format(n);
    const kept = keptApart(ticks, (t) => [scale(t), extent(label(t))], gap);
    if (kept.length === ticks.length || n === 1) return { ticks: kept, format: label };
  }
}

/**
 * Of `ticks`, in order, each whose label (`place(t)`: [px, size]; size 0 for none) keeps
 * `gap` px from the last label kept (a tick without a label is kept).
 */
function keptApart(ticks, place, gap) {
  let before = null; // [px, size] of the last label kept
  return ticks.filter((t) => {
    const [at, size] = place(t);
    if (!size) return true;
    if (before && Math.abs(at - before[0]) < (size + before[1]) / 2 + gap) return false;
    before = [at, size];
    return true;
  });
}

/** A tick label's width, px, at the axes' 15 px (at most DIGIT a character); 0 for none. */
export const labelWidth = (text) => DIGIT * text.length;
/** A y tick label's height, px: its line box, or 0 for a tick left without a label. */
export const labelHeight = (text) => (text ? TICK_LINE : 0);

/**
 * The legend's entries, `widths` (px each), laid in rows `room` px wide: each row takes the
 * entries that fit after the ones before it (at least one). Returns [[{i, x}], ...], `i` the
 * entry, `x` its left edge (px from the row's start).
 */
export function legendRows(widths, room) {
  const rows = [];
  let x = Infinity;
  widths.forEach((w, i) => {
    if (x > 0 && x + w > room) { rows.push([]); x = 0; }
    rows.at(-1).push({ i, x });
    x += w + LEGEND.GAP;
  });
  return rows;
}

/** The y scale for the losses shown: log when positive and over a decade apart. */
export function lossScale(values, [bottom, top]) {
  const finite = values.filter(Number.isFinite);
  const lo = finite.length ? Math.min(...finite) : 0;
  const hi = finite.length ? Math.max(...finite) : 1;
  if (lo > 0 && hi / lo > 10) return scaleLog().domain([lo, hi]).range([bottom, top]).nice();
  return scaleLinear().domain([Math.min(0, lo), hi > lo ? hi : lo + 1]).range([bottom, top]).nice();
}

/**
 * The points of `losses` to draw over `width` px: all of them when there are at most two a
 * pixel, else each pixel's column of iterations as its lowest and highest loss in order (a
 * spike stays drawn). Returns [[iteration, loss], ...]: 3,000 iterations drawn as a path of
 * 3,000 vertices every frame was what held the page back, for no more ink.
 */
export function thinned(losses, width) {
  const n = losses.length;
  const columns = Math.max(1, Math.floor(width));
  if (n <= 2 * columns) return losses.map((v, i) => [i, v]);
  const out = [];
  for (let c = 0; c < columns; c += 1) {
    const from = Math.floor((c * n) / columns);
    const to = Math.floor(((c + 1) * n) / columns);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i += 1) {
      if (!(losses[i] >= losses[lo])) lo = i; // NaN counts as a low: it breaks the line there
      if (losses[i] > losses[hi]) hi = i;
    }
    for (const i of lo === hi ? [lo] : [Math.min(lo, hi), Math.max(lo, hi)]) out.push([i, losses[i]]);
  }
  if (out[out.length - 1][0] !== n - 1) out.push([n - 1, losses[n - 1]]); // the last one drawn
  return out;
}

/**
 * Put the axes' titles in their margins (margins()): "iteration" centred under the x axis's
 * numbers, at the svg's foot; "loss" turned to read upwards, centred beside the plot, at the
 * svg's left edge. In px of the viewBox: the plot's left, top, width and height `h`, the svg's `height`.
 */
function placeTitles(xTitle, yTitle, titleSize, { left, top, width, h, height }) {
  const descent = (TITLE.LINE - TITLE.ASCENT) * titleSize;
  xTitle.attr("x", left + width / 2).attr("y", height - TITLE.EDGE - descent);
  // turned a quarter left, the glyphs' tops face the edge: the baseline ASCENT from it
  yTitle.attr("transform", `translate(${TITLE.EDGE + TITLE.ASCENT * titleSize},${top + h / 2}) rotate(-90)`);
}

/**
 * The curve in `root` (an element; the svg is made in it). draw({series, steps, cursor})
 * draws `series` ([{name, losses, kind: "run" | "fix"}]) over iterations 0..steps-1 with a
 * cursor line at iteration `cursor` (the one the slider chose, or null) and `note` ({at, text}
 * or null: a marked iteration, where the run diverged).
 */
export function createLossCurve(root) {
  const svg = select(root).append("svg").attr("id", "loss-curve").attr("class", "loss-curve")
    .attr("viewBox", `0 0 ${WIDTH} ${HEIGHT}`).attr("role", "img")
    .attr("data-points", "0");
  const plot = svg.append("g");
  const xAxis = plot.append("g").attr("class", "axis x");
  const yAxis = plot.append("g").attr("class", "axis y");
  const lines = plot.append("g").attr("class", "lines");
  const cursor = plot.append("line").attr("class", "loss-cursor").attr("y1", 0);
  const mark = plot.append("g").attr("class", "loss-note").style("display", "none");
  mark.append("line").attr("y1", 0);
  mark.append("text").attr("y", 14);
  // in the svg's own px, outside the plot: never over the curve, a legend or a note
  const xTitle = svg.append("text").attr("class", "axis-title x").attr("text-anchor", "middle").text("iteration");
  const yTitle = svg.append("text").attr("class", "axis-title y").attr("text-anchor", "middle").text("loss");
  const legend = svg.append("g").attr("class", "loss-legend"); // over the plot, from the svg's left

  let drawn = ""; // what the last draw showed: a frame that changes nothing draws nothing
  let last = null; // the last draw's arguments, drawn again at a new size
  // The viewBox is the svg's size on screen (px), so its text is the size train.css says:
  // scaled from a fixed 320x150 into a 1024x768 projector's 190 px column, the axes'
  // 15 px numbers printed at 9 px (a review). 320x150 until it is laid out. Its height is
  // the width times the CSS property --loss-aspect where one is set (a phone's embed: a wide,
  // low curve over the graph, narrow.css), else 150/320.
  let size = { width: WIDTH, height: HEIGHT }; // the svg's, the legend's rows in it
  let base = HEIGHT; // its height without the legend's rows (the aspect's)
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => {
      const width = Math.round(svg.node().getBoundingClientRect().width);
      const aspect = Number.parseFloat(getComputedStyle(svg.node()).getPropertyValue("--loss-aspect")) || HEIGHT / WIDTH;
      const height = Math.round(width * aspect);
      if (!width || (width === size.width && height === base)) return; // (the legend's rows grew it)
      size = { width, height: height + (size.height - base) };
      base = height;
      svg.attr("viewBox", `0 0 ${size.width} ${size.height}`);
      drawn = "";
      if (last) draw(last);
    }).observe(svg.node());
  }

  /**
   * The legend of `named` ([{kind, name}]) in rows over the plot, the svg grown by them (its
   * aspect-ratio set, so the page gives it the height). Returns the rows' height, px.
   */
  function placeLegend(named) {
    const entry = legend.selectAll("g.entry").data(named, (s) => s.kind)
      .join((enter) => {
        const g = enter.append("g").attr("class", "entry");
        g.append("line").attr("x1", 0).attr("x2", LEGEND.SWATCH);
        g.append("text").attr("x", LEGEND.SWATCH + LEGEND.SPACE).attr("dy", "0.35em");
        return g;
      });
    entry.select("line").attr("class", (s) => `loss-line ${s.kind}`);
    entry.select("text").text((s) => s.name);
    const widths = entry.nodes().map((g) => LEGEND.SWATCH + LEGEND.SPACE + g.querySelector("text").getComputedTextLength());
    const rows = named.length ? legendRows(widths, size.width - 2 * LEGEND.EDGE) : [];
    rows.forEach((row, r) => row.forEach(({ i, x }) => entry.nodes()[i].setAttribute("transform",
      `translate(${LEGEND.EDGE + x},${LEGEND.EDGE + LEGEND.ROW * (r + 0.5)})`)));
    const extra = rows.length ? LEGEND.EDGE + LEGEND.ROW * rows.length : 0;
    if (size.height !== base + extra) {
      size = { width: size.width, height: base + extra };
      svg.attr("viewBox", `0 0 ${size.width} ${size.height}`);
      svg.style("aspect-ratio", extra ? `${size.width} / ${size.height}` : null);
    }
    return extra;
  }

  function draw(args) {
    const { series, steps, cursor: at = null, note = null } = args;
    last = args;
    const titleSize = Number.parseFloat(getComputedStyle(yTitle.node()).fontSize) || 15; // the theme's (train.css)
    const key = JSON.stringify([series.map((s) => [s.kind, s.losses.length, s.losses.at(-1)]), steps, at, note, titleSize]);
    if (key === drawn) return;
    drawn = key;
    // two curves say which is which (the bug and its fix): their legend over the plot
    const top = M.top + placeLegend(series.length > 1 ? series : []);
    const foot = margins([], titleSize).bottom;
    const h = size.height - top - foot;
    const all = series.flatMap((s) => s.losses);
    const y = lossScale(all, [h, 0]);
    // as many ticks as fit at the numbers' size: 4, fewer on a small curve
    const yTicks = fittingTicks(y, Math.max(2, Math.min(4, Math.floor(h / 24))),
      (n) => y.tickFormat(n, y.base ? "~g" : undefined), labelHeight, TICK_GAP.LINE);
    const left = margins(yTicks.ticks.map(yTicks.format), titleSize).left;
    plot.attr("transform", `translate(${left},${top})`);
    const x = scaleLinear().domain([0, Math.max(1, steps - 1)]).range([0, size.width - left - M.right]);
    placeTitles(xTitle, yTitle, titleSize, { left, top, width: x.range()[1], h, height: size.height });
    // as many as fit (4 at most): their labels' widths apart
    const xTicks = fittingTicks(x, 4, (n) => x.tickFormat(n), labelWidth, TICK_GAP.SIDE);
    xAxis.attr("transform", `translate(0,${h})`)
      .call(axisBottom(x).tickValues(xTicks.ticks).tickFormat(xTicks.format).tickSizeOuter(0));
    yAxis.call(axisLeft(y).tickValues(yTicks.ticks).tickFormat(yTicks.format).tickSizeOuter(0));
    cursor.attr("y2", h);
    mark.select("line").attr("y2", h);
    const path = line().defined(([, v]) => Number.isFinite(v)).x(([i]) => x(i)).y(([, v]) => y(v));
    const width = x.range()[1];
    lines.selectAll("path").data(series, (s) => s.kind)
      .join("path").attr("class", (s) => `loss-line ${s.kind}`)
      .each(function (s) {
        const points = thinned(s.losses, width);
        this.setAttribute("d", path(points) ?? "");
        this.dataset.vertices = String(points.length);
      });
    const run = series.find((s) => s.kind === "run") ?? series[0];
    const points = run ? run.losses.length : 0;
    svg.attr("data-points", String(points));
    const final = points ? run.losses[points - 1] : null;
    svg.attr("aria-label", points ? `Loss after ${points} iterations: ${formatLoss(final)}` : "Loss curve: not trained yet");
    // a note at an iteration (where the run diverged), its words on the side with room
    mark.style("display", note ? null : "none");
    if (note) {
      const nx = x(note.at);
      const right = nx < x.range()[1] / 2;
      mark.attr("transform", `translate(${nx},0)`);
      mark.select("text").text(note.text).attr("x", right ? 5 : -5)
        .attr("text-anchor", right ? "start" : "end");
    }
    svg.attr("data-note", note ? String(note.at) : null);
    cursor.style("display", at === null ? "none" : null); // (an svg element has no `hidden`)
    if (at !== null) cursor.attr("x1", x(at)).attr("x2", x(at));
  }

  return { draw, node: svg.node() };
}
