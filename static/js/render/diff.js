// Edit and diff on screen (issue 16, section 2): the "Compare runs" panel beside the program
// (on/off, "changed only" (new nodes too), a table of every node's value and gradient before and after),
// the changed nodes marked in the graph (a ring whose colour deepens with the size of the
// change, and "Δ +7.864e-04" over the box), and both numbers in the detail panel. Each
// function takes its root element; the numbers are diff.js's.
//
// Test hooks: #diff carries data-state ("off" | "waiting" | "ready" | "error"); each table row
// data-node, data-delta-value, data-delta-adjoint (a new node's row class "new"); each changed
// node data-changed ("value" | "adjoint", or "new" for a node the previous run did not have)
// and data-delta (full precision).

import { formatNumber, isTensor, shapeName } from "../format.js";
import { firstOrder, strengths } from "../diff.js";

const html = (tag, props = {}, ...children) => {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
};

const signed = (x) => (x > 0 ? `+${formatNumber(x)}` : formatNumber(x));
// A tensor reads as its shape (its numbers are in the detail panel), its Δ with its measure:
// "max +0.5" (the largest elementwise change), "mean -0.01" (a tensor that travels as a summary).
const num = (x) => (typeof x === "number" ? formatNumber(x) : x === undefined ? "–" : isTensor(x) ? shapeName(x.shape) : "tensor");
const deltaNumber = (c) => (c.delta === 0 ? "0" : signed(c.delta));
const deltaText = (c) => (!c ? "" : c.added ? "new" : c.hidden ? "?" : c.delta === null ? (c.changed ? "changed" : "")
  : c.measure ? `${c.measure} ${deltaNumber(c)}` : deltaNumber(c));

/**
 * The panel, prepended to `root`: {el, show(diff | null, {on, state, message, changedOnly,
 * leaves: the labels of the walk's leaves}), reveal()}. `onToggle(on)` when
 * "Compare runs" (with the previous run) is switched; `onFilter(on)` for "changed only" (and
 * new). `toggleHost`: where the two switches stand, instead of a row of their own (the
 * explorer's mode row, beside the mode menu: that row cost the legend its place in the
 * 200 px column beside the program on a projector, issue 14 §5); the panel then goes after
 * the host's panel.
 */
export function createDiffPanel(root, { onToggle, onFilter, toggleHost = null }) {
  const toggle = html("input", { type: "checkbox", id: "diff-toggle" });
  const filter = html("input", { type: "checkbox", id: "diff-changed" });
  // in sight (app.css .in-sight): the first-order prediction is what the view is for
  const summary = html("p", { className: "diff-summary in-sight", role: "status" });
  const body = html("tbody");
  const table = html("table", { className: "diff-table" },
    html("thead", {}, html("tr", {}, ...[["node", "node"], ["value", "value before → after"], ["Δ", "Δ value"],
      ["gradient", "gradient before → after"], ["Δ", "Δ gradient"]]
      .map(([t, title]) => html("th", { scope: "col", textContent: t, title })))), body);
  const switchLabel = html("label", { className: "diff-switch", title: "Compare with the previous run: change one input or one line, trace again, and see what changed, node by node" }, toggle, " Compare runs");
  // hidden until show() says comparing is on: a reload with a program that does not trace
  // (no walk, so no show()) showed it beside an unticked "Compare runs"
  const filterLabel = html("label", { className: "diff-filter-switch", title: "Only the nodes that changed, and the new ones", hidden: true }, filter, " changed only");
  const bar = html("div", { className: "diff-bar" });
  // Both switches wait beside the mode menu (`toggleHost`), on or off: the table below them
  // then leaves the mode menu in the column's sight (a row of their own pushed it out, and
  // the legend too, in the 200 px column beside the program on a projector, issue 14 §5).
  (toggleHost ?? bar).append(switchLabel, filterLabel);
  const el = html("section", { id: "diff", className: "diff" }, bar, summary, table);
  el.setAttribute("aria-label", "Compare runs");
  el.dataset.state = "off";
  // after the mode menu's panel, so a long table comes under the menu, not over it
  const modes = toggleHost && [...root.children].find((c) => c.contains(toggleHost));
  if (modes) modes.after(el);
  else root.prepend(el);
  toggle.addEventListener("change", () => onToggle(toggle.checked));
  filter.addEventListener("change", () => onFilter(filter.checked));

  const trs = new Map(); // node id -> its row in the table
  // Past WINDOWED_ABOVE rows only those near the view are in the table, between two spacer
  // rows as tall as the rows left out: a step restyled every row of a 1,200-row table (the
  // page's :has() rules), 5x the step's own cost (bench/compare.py, docs/performance.md).
  let listed = null; // {rows, output}: the rows the table lists (after "changed only")
  let range = null; // [first, last): the rows drawn of a long list
  let rowHeight = 24; // px, measured from a drawn row
  let measured = 0; // the row height measured once drawn (a scroll measures it again)
  const spacer = () => {
    const tr = html("tr", { className: "diff-spacer" }, html("td", { colSpan: 5 }));
    tr.setAttribute("aria-hidden", "true");
    return tr;
  };
  const [above, below] = [spacer(), spacer()];
  let pending = false;
  document.addEventListener("scroll", () => { // the column's scroll, or the page's
    if (pending || !range) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (!range || !listed) return;
      range = viewRange(listed.rows.length);
      draw();
    });
  }, { capture: true, passive: true });

  function show(diff, { on, state = "ready", message = "", changedOnly = false, leaves = new Set(), at = null }) {
    toggle.checked = on;
    filterLabel.hidden = !on; // it has nothing to filter while off
    filter.checked = changedOnly;
    filter.disabled = !on;
    el.dataset.state = on ? state : "off";
    table.hidden = !(on && diff);
    summary.textContent = !on ? "" : message || (diff ? summaryText(diff, leaves, at) : "");
    if (at) el.dataset.step = String(at.step);
    else delete el.dataset.step;
    if (!on || !diff) {
      trs.clear();
      listed = range = null;
      return body.replaceChildren();
    }
    const rows = diff.rows.filter((r) => !changedOnly || r.changed || r.added);
    if (rows.length !== listed?.rows.length) range = null; // another list: drawn from its view
    listed = { rows, output: diff.output };
    if (rows.length > WINDOWED_ABOVE && !range) range = viewRange(rows.length);
    else if (rows.length <= WINDOWED_ABOVE) range = null;
    draw();
  }

  /** The listed rows in the table (those of `range` between the spacers, for a long list):
   * keyed by node id and updated in place, a step of the walk re-diffs, and a thousand rows
   * built anew each step held the player up. */
  function draw() {
    const { rows, output } = listed;
    const [first, last] = range ?? [0, rows.length];
    const shown = rows.slice(first, last).map((r) => fillRow(trs.get(r.id) ?? newRow(r.id), r, output));
    if (range) {
      if (!measured && shown[0]) { // once: its first drawing, at the 24 px guess, measures a row
        body.replaceChildren(...shown);
        measured = (shown[1] ?? shown[0]).getBoundingClientRect().height || rowHeight; // not the output's (its thicker border)
        rowHeight = measured;
      }
      above.firstChild.style.height = `${first * rowHeight}px`;
      below.firstChild.style.height = `${(rows.length - last) * rowHeight}px`;
      shown.forEach((tr, i) => tr.setAttribute("aria-rowindex", String(first + i + 2))); // 1: the header
      shown.unshift(above);
      shown.push(below);
      table.setAttribute("aria-rowcount", String(rows.length + 1));
    } else table.removeAttribute("aria-rowcount");
    const kids = body.children;
    if (shown.length !== kids.length || shown.some((tr, i) => kids[i] !== tr)) {
      body.replaceChildren(...shown);
      trs.clear();
      for (const tr of shown) if (tr.dataset.node) trs.set(tr.dataset.node, tr);
    }
  }

  /** [first, last) of `n` listed rows: those in the window's sight of the column, with
   * WINDOW_MARGIN rows either side (the row height measured from a drawn row). */
  function viewRange(n) {
    const drawn = body.querySelector("tr[data-node]:not(.output)");
    if (drawn) rowHeight = drawn.getBoundingClientRect().height || rowHeight;
    const top = body.getBoundingClientRect().top; // the list's top (the spacer above is in it)
    const box = el.parentElement?.getBoundingClientRect() ?? { top: 0, bottom: innerHeight };
    const [from, to] = [Math.max(box.top, 0) - top, Math.min(box.bottom, innerHeight) - top];
    const first = Math.max(0, Math.min(n, Math.floor(from / rowHeight) - WINDOW_MARGIN));
    return [first, Math.max(first, Math.min(n, Math.ceil(to / rowHeight) + WINDOW_MARGIN))];
  }
  /** Scroll the column holding the panel (when it scrolls) so the table's first row, the
   * output's, is in sight: beside a short editor the summary and the toggles fill it. */
  function reveal() {
    const first = body.querySelector("tr[data-node]");
    const box = el.parentElement;
    if (!first || !box || box.scrollHeight <= box.clientHeight) return;
    const below = first.getBoundingClientRect().bottom - box.getBoundingClientRect().bottom;
    if (below > 0) box.scrollTop += below;
  }
  return { el, show, reveal };
}

/** An empty table row for node `id`: its header cell and four number cells. */
function newRow(id) {
  const tr = html("tr", {}, html("th", { scope: "row" }), html("td"), html("td", { className: "delta" }),
    html("td"), html("td", { className: "delta" }));
  tr.dataset.node = id;
  return tr;
}

const setText = (el, text) => { if (el.textContent !== text) el.textContent = text; };
/** el's data-`key`: x (a number or a string) where it differs, removed for anything else. */
const setData = (el, key, x) => {
  if (typeof x === "number" || typeof x === "string") {
    if (el.dataset[key] !== String(x)) el.dataset[key] = String(x);
  } else if (key in el.dataset) delete el.dataset[key];
};

/** A change's "before → after"; a tensor's shape once when it kept it ("4×8 matrix": its Δ says how
 * its numbers moved), so a row keeps to one line in the side column. */
function pair(c) {
  if (c.hidden) return "? → ?"; // a quiz's unanswered number (diff.js veiled), in both runs
  const [before, after] = [num(c.before), num(c.after)];
  return isTensor(c.before) && isTensor(c.after) && before === after ? after : `${before} → ${after}`;
}

const WINDOWED_ABOVE = 200; // rows: a longer list draws only those near the view
// Rows drawn beyond the view either side: a scroll draws the rows come into view at its next
// frame, so a column's height of rows (about 10) covers a quick scroll. Each drawn row costs
// every step: the page restyles its whole document a few times a step (a :has() rule's
// invalidation on each insertion), so 40 (49 rows drawn, 1,184 elements in the page against
// 898 without the table) made a Compare step 1.3-1.4x the CPU of a plain one (profiled with
// Chromium's trace, docs/performance.md).
const WINDOW_MARGIN = 10;

const drawnRows = new WeakMap(); // tr -> the row it shows: diffRuns keeps an unchanged row's object

/** Row `tr` showing `r` (diff.js diffRuns' row); `output` is the output's row. */
function fillRow(tr, r, output) {
  if (drawnRows.get(tr) === r) return tr; // a step re-diffs a few nodes: the rest are drawn
  drawnRows.set(tr, r);
  const className = [r.changed && "changed", r.added && "new", r === output && "output"].filter(Boolean).join(" ");
  if (tr.className !== className) tr.className = className;
  const [th, value, dValue, adjoint, dAdjoint] = tr.children;
  setText(th, r.was ? `${r.label} (was ${r.was})` : r.label);
  setText(value, r.value ? pair(r.value) : "– → –");
  setText(dValue, deltaText(r.value));
  setText(adjoint, r.adjoint ? pair(r.adjoint) : "");
  setText(dAdjoint, deltaText(r.adjoint));
  setData(tr, "deltaValue", r.value?.delta);
  setData(tr, "deltaAdjoint", r.adjoint?.delta);
  return tr;
}

/**
 * "Final numbers: 7 of 7 nodes changed; L: 0.9242 → 0.925 (Δ +0.0007863); first order: Δa ·
 * ā = 0.001 · 0.7864 = 0.0007864", or "At step 9 of 16 (values known so far, gradients
 * accumulated so far, in both runs): ..." mid-walk (`at`: {step, total}).
 */
function summaryText(diff, leaves, at = null) {
  const changed = diff.rows.filter((r) => r.changed);
  const added = diff.rows.filter((r) => r.added);
  const out = diff.output;
  const output = out?.value && typeof out.value.delta === "number"
    ? `; ${out.label}: ${num(out.value.before)} → ${num(out.value.after)} (Δ ${signed(out.value.delta)})` : "";
  const gone = diff.gone.length ? `; gone: ${diff.gone.join(", ")}` : "";
  const first = at ? null : firstOrder(diff, leaves); // ā is final only at the end
  const predicted = first ? `; first order: Δ${first.leaf} · ${first.leaf}̄ = ${formatNumber(first.h)} · ${formatNumber(first.bar)} = ${formatNumber(first.predicted)}` : "";
  const when = at ? `At step ${at.step} of ${at.total} (values known so far, gradients accumulated so far, in both runs): `
    : "Final numbers: ";
  const fresh = added.length ? `, ${added.length} new (${added.map((r) => r.label).join(", ")})` : "";
  return `${when}${changed.length} of ${diff.rows.length - added.length} nodes changed${fresh}${output}${predicted}${gone}.`;
}

const painted = new WeakMap(); // g.node -> {r, strength} it was marked with

/** Mark the changed nodes of `diff` in `svg` (null: clear); `changedOnly` fades the rest. */
export function markDiff(svg, diff, { changedOnly = false } = {}) {
  svg.classList.toggle("diff-filter", Boolean(diff && changedOnly));
  const t = diff ? strengths(diff.rows) : {};
  const marks = new Map(); // node id -> its row, for the changed and the new nodes
  let moved = false; // a Δ added or taken off: the camera frames the marks (render/zoom.js)
  for (const r of diff?.rows ?? []) if (r.changed || r.added) marks.set(r.id, r);
  // Updated in place, one pass over the nodes (not a query per row, nor every mark removed
  // and made again): a step of the walk re-marks a thousand-node graph.
  for (const g of svg.querySelectorAll("g.node[data-node]")) {
    const r = marks.get(g.dataset.node);
    if (!r) {
      if (g.dataset.changed === undefined) continue;
      painted.delete(g);
      delete g.dataset.changed;
      delete g.dataset.delta;
      g.style.removeProperty("--diff-t");
      const text = g.querySelector(".diff-delta");
      if (text) {
        text.remove();
        moved = true;
      }
      continue;
    }
    const c = r.value?.changed ? r.value : r.adjoint;
    const strength = (t[r.id] ?? 1).toFixed(3);
    const was = painted.get(g);
    if (was?.r === r && was.strength === strength) continue; // as drawn at the last step
    painted.set(g, { r, strength });
    // each set only where it differs: an unchanged style or attribute set again still
    // costs the browser a style pass over the graph
    setData(g, "changed", r.added ? "new" : r.value?.changed ? "value" : "adjoint");
    setData(g, "delta", String(c?.delta ?? ""));
    if (g.style.getPropertyValue("--diff-t") !== strength) g.style.setProperty("--diff-t", strength);
    const box = g.querySelector("rect.box");
    if (!box) continue;
    let text = g.querySelector(".diff-delta");
    if (!text) {
      text = document.createElementNS("http://www.w3.org/2000/svg", "text");
      text.setAttribute("class", "diff-delta");
      text.setAttribute("text-anchor", "end");
      text.setAttribute("x", String(Number(box.getAttribute("x")) + Number(box.getAttribute("width"))));
      text.setAttribute("y", String(Number(box.getAttribute("y")) - 6));
      box.parentNode.append(text); // beside the box, in its positioned group (positions never change)
      moved = true;
    }
    setText(text, r.added ? "new" : `${r.value?.changed ? "Δ" : "Δ grad"} ${deltaText(c)}`); // "Δ grad ?" in a quiz
  }  if (moved) svg.dispatchEvent(new CustomEvent("marks"));
}

/** Both runs' numbers of node `id` in the detail panel `panel` (a section after its own). */
export function detailDiff(panel, diff, id) {
  panel?.querySelector(".diff-detail")?.remove();
  const r = diff?.rows.find((x) => x.id === id);
  if (!panel || !r) return;
  const line = (what, c) => c && html("li", { textContent: c.hidden ? `${what}: ? → ? (asked in the quiz)`
    : `${what}: ${num(c.before)} → ${num(c.after)}${c.changed ? ` (Δ ${deltaText(c)})` : " (unchanged)"}` });
  // before the panel's "more below" cue, which sticks to its foot while there is more
  const section = html("section", { className: "diff-detail" },
    html("h3", { textContent: "Against the previous run" }),
    html("ul", {}, ...[line("value", r.value), line("gradient", r.adjoint)].filter(Boolean)));
  panel.insertBefore(section, panel.querySelector(":scope > .more-cue"));
}
