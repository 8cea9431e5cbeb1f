// The loss curve's tick labels never touch and its legend lies in rows over the plot (a
// newcomer: "1,0002,000" under a 3,000-iteration run at 1024x768; the bug lab's legend cut
// off and crossed by a curve).
import { test } from "node:test";
import assert from "node:assert/strict";
import { scaleLinear, scaleLog } from "d3";
import { fittingTicks, labelHeight, labelWidth, legendRows } from "../../static/js/render/losscurve.js";

/** Whether neighbouring labels of `fit` on `scale` are `extent`-apart with `gap` px between. */
function apart(scale, fit, extent, gap) {
  const shown = fit.ticks.map((t) => [scale(t), extent(fit.format(t))]).filter(([, s]) => s > 0);
  return shown.every(([at, s], i) => i === 0 || Math.abs(at - shown[i - 1][0]) >= (s + shown[i - 1][1]) / 2 + gap);
}

test("x labels of 301, 3,000 and 10,000 iterations never touch, at the curve's widths", () => {
  for (const steps of [301, 3000, 10_000]) {
    for (const width of [90, 115, 127, 150, 200, 260]) {
      const x = scaleLinear().domain([0, steps - 1]).range([0, width]);
      const fit = fittingTicks(x, 4, (n) => x.tickFormat(n), labelWidth, 8);
      assert.ok(fit.ticks.length >= 1 && apart(x, fit, labelWidth, 8), `${steps} in ${width}: ${fit.ticks}`);
    }
  }
  // 3,000 iterations over 115 px (a 1024x768 page): d3's 4 ticks were 0, 1,000, 2,000,
  // 38 px apart for labels 45 px wide; two of them fit
  const x = scaleLinear().domain([0, 2999]).range([0, 115]);
  assert.deepEqual(x.ticks(4), [0, 1000, 2000]);
  assert.deepEqual(fittingTicks(x, 4, (n) => x.tickFormat(n), labelWidth, 8).ticks, [0, 2000]);
  // room for them all: all of them
  const wide = scaleLinear().domain([0, 300]).range([0, 190]);
  assert.deepEqual(fittingTicks(wide, 4, (n) => wide.tickFormat(n), labelWidth, 8).ticks, [0, 100, 200, 300]);
});

test("y labels keep a line apart; a log axis's unlabelled ticks do not count", () => {
  for (const h of [30, 40, 62, 90]) {
    const y = scaleLog().domain([0.005, 1.2]).range([h, 0]).nice();
    const fit = fittingTicks(y, 4, (n) => y.tickFormat(n, "~g"), labelHeight, 2);
    assert.ok(apart(y, fit, labelHeight, 2), `${h}: ${fit.ticks.map(fit.format)}`);
    const lin = scaleLinear().domain([0, 0.7]).range([h, 0]).nice();
    assert.ok(apart(lin, fittingTicks(lin, 4, (n) => lin.tickFormat(n), labelHeight, 2), labelHeight, 2), String(h));
  }
  // 0.01, 0.1 and 1 over 46 px (a 1024x768 page): 23 px apart, lines of 18 px, all three
  const y = scaleLog().domain([0.0132, 1]).range([46, 0]).nice();
  const three = fittingTicks(y, 4, (n) => y.tickFormat(n, "~g"), labelHeight, 2);
  assert.deepEqual(three.ticks.map(three.format).filter(Boolean), ["0.01", "0.1", "1"]);
  assert.throws(() => fittingTicks(scaleLinear(), 0, () => String, labelWidth, 8), /most must be 1 or more/);
});

test("the legend's entries flow into rows of the room given, one entry at least a row", () => {
  assert.deepEqual(legendRows([133, 121], 300), [[{ i: 0, x: 0 }, { i: 1, x: 145 }]]);
  assert.deepEqual(legendRows([133, 121], 254), [[{ i: 0, x: 0 }], [{ i: 1, x: 0 }]]);
  assert.deepEqual(legendRows([200], 150), [[{ i: 0, x: 0 }]]); // too wide: alone on its row
  assert.deepEqual(legendRows([], 150), []);
});
