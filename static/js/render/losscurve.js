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
 * svg's left edge. In px of the viewBox: the plot's left, width and height `h`, the svg's `height`.
 */
function placeTitles(xTitle, yTitle, titleSize, { left, width, h, height }) {
  const descent = (TITLE.LINE - TITLE.ASCENT) * titleSize;
  xTitle.attr("x", left + width / 2).attr("y", height - TITLE.EDGE - descent);
  // turned a quarter left, the glyphs' tops face the edge: the baseline ASCENT from it
  yTitle.attr("transform", `translate(${TITLE.EDGE + TITLE.ASCENT * titleSize},${M.top + h / 2}) rotate(-90)`);
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
  const legend = plot.append("g").attr("class", "loss-legend");
  const mark = plot.append("g").attr("class", "loss-note").style("display", "none");
  mark.append("line").attr("y1", 0);
  mark.append("text").attr("y", 14);
  // in the svg's own px, outside the plot: never over the curve, a legend or a note
  const xTitle = svg.append("text").attr("class", "axis-title x").attr("text-anchor", "middle").text("iteration");
  const yTitle = svg.append("text").attr("class", "axis-title y").attr("text-anchor", "middle").text("loss");

  let drawn = ""; // what the last draw showed: a frame that changes nothing draws nothing
  let last = null; // the last draw's arguments, drawn again at a new size
  // The viewBox is the svg's size on screen (px), so its text is the size train.css says:
  // scaled from a fixed 320x150 into a 1024x768 projector's 190 px column, the axes'
  // 15 px numbers printed at 9 px (a review). 320x150 until it is laid out. Its height is
  // the width times the CSS property --loss-aspect where one is set (a phone's embed: a wide,
  // low curve over the graph, narrow.css), else 150/320.
  let size = { width: WIDTH, height: HEIGHT };
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => {
      const width = Math.round(svg.node().getBoundingClientRect().width);
      const aspect = Number.parseFloat(getComputedStyle(svg.node()).getPropertyValue("--loss-aspect")) || HEIGHT / WIDTH;
      const height = Math.round(width * aspect);
      if (!width || (width === size.width && height === size.height)) return;
      size = { width, height };
      svg.attr("viewBox", `0 0 ${size.width} ${size.height}`);
      drawn = "";
      if (last) draw(last);
    }).observe(svg.node());
  }

  function draw(args) {
    const { series, steps, cursor: at = null, note = null } = args;
    last = args;
    const titleSize = Number.parseFloat(getComputedStyle(yTitle.node()).fontSize) || 15; // the theme's (train.css)
    const key = JSON.stringify([series.map((s) => [s.kind, s.losses.length, s.losses.at(-1)]), steps, at, note, titleSize]);
    if (key === drawn) return;
    drawn = key;
    const foot = margins([], titleSize).bottom;
    const h = size.height - M.top - foot;
    const all = series.flatMap((s) => s.losses);
    const y = lossScale(all, [h, 0]);
    // as many ticks as fit at the numbers' size: 4, fewer on a small curve
    const yTicks = Math.max(2, Math.min(4, Math.floor(h / 24)));
    const format = y.tickFormat(yTicks, y.base ? "~g" : undefined);
    const left = margins(y.ticks(yTicks).map(format), titleSize).left;
    plot.attr("transform", `translate(${left},${M.top})`);
    const x = scaleLinear().domain([0, Math.max(1, steps - 1)]).range([0, size.width - left - M.right]);
    placeTitles(xTitle, yTitle, titleSize, { left, width: x.range()[1], h, height: size.height });
    xAxis.attr("transform", `translate(0,${h})`)
      .call(axisBottom(x).ticks(Math.max(2, Math.min(4, Math.floor(x.range()[1] / 36)))).tickSizeOuter(0));
    yAxis.call(axisLeft(y).ticks(yTicks).tickFormat(format).tickSizeOuter(0));
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
    // two curves say which is which (the bug and its fix), bottom left, where a falling loss
    // is not
    const named = series.length > 1 ? series : [];
    const entry = legend.selectAll("g.entry").data(named, (s) => s.kind)
      .join((enter) => {
        const g = enter.append("g").attr("class", "entry");
        g.append("line").attr("x1", 0).attr("x2", 24);
        g.append("text").attr("x", 30).attr("dy", "0.35em");
        return g;
      })
      .attr("transform", (_, i) => `translate(8,${h - 10 - 18 * (named.length - 1 - i)})`);
    entry.select("line").attr("class", (s) => `loss-line ${s.kind}`);
    entry.select("text").text((s) => s.name);
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
