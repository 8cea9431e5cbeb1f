// Edit and diff on screen (issue 16, section 2): the "Compare runs" panel beside the program
// (on/off, "changed only", a table of every node's value and gradient before and after),
// the changed nodes marked in the graph (a ring whose colour deepens with the size of the
// change, and "Δ +7.864e-04" over the box), and both numbers in the detail panel. Each
// function takes its root element; the numbers are diff.js's.
//
// Test hooks: #diff carries data-state ("off" | "waiting" | "ready" | "error"); each table row
// data-node, data-delta-value, data-delta-adjoint; each changed node data-changed and
// data-delta (full precision).

import { formatNumber } from "../format.js";
import { firstOrder, strengths } from "../diff.js";

const html = (tag, props = {}, ...children) => {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
};

const signed = (x) => (x > 0 ? `+${formatNumber(x)}` : formatNumber(x));
const num = (x) => (typeof x === "number" ? formatNumber(x) : x === undefined ? "–" : "tensor");
const deltaText = (c) => (!c ? "" : c.delta === null ? (c.changed ? "changed" : "") : c.delta === 0 ? "0" : signed(c.delta));

/**
 * The panel, prepended to `root`: {el, show(diff | null, {on, state, message, changedOnly,
 * leaves: the labels of the walk's leaves}), reveal()}. `onToggle(on)` when
 * "Compare with the previous run" is switched; `onFilter(on)` for "changed only".
 */
export function createDiffPanel(root, { onToggle, onFilter }) {
  const toggle = html("input", { type: "checkbox", id: "diff-toggle" });
  const filter = html("input", { type: "checkbox", id: "diff-changed" });
  const summary = html("p", { className: "diff-summary", role: "status" });
  const body = html("tbody");
  const table = html("table", { className: "diff-table" },
    html("thead", {}, html("tr", {}, ...[["node", "node"], ["value", "value before → after"], ["Δ", "Δ value"],
      ["gradient", "gradient before → after"], ["Δ", "Δ gradient"]]
      .map(([t, title]) => html("th", { scope: "col", textContent: t, title })))), body);
  const el = html("section", { id: "diff", className: "diff" },
    html("div", { className: "diff-bar" },
      html("label", { title: "Change one input or one line, trace again, and see what changed, node by node" }, toggle, " Compare with the previous run"),
      html("label", {}, filter, " changed only")),
    summary, table);
  el.setAttribute("aria-label", "Compare runs");
  el.dataset.state = "off";
  root.prepend(el);
  toggle.addEventListener("change", () => onToggle(toggle.checked));
  filter.addEventListener("change", () => onFilter(filter.checked));

  function show(diff, { on, state = "ready", message = "", changedOnly = false, leaves = new Set(), at = null }) {
    toggle.checked = on;
    filter.checked = changedOnly;
    filter.disabled = !on;
    el.dataset.state = on ? state : "off";
    table.hidden = !(on && diff);
    summary.textContent = !on ? "" : message || (diff ? summaryText(diff, leaves, at) : "");
    if (at) el.dataset.step = String(at.step);
    else delete el.dataset.step;
    if (!on || !diff) return body.replaceChildren();
    body.replaceChildren(...diff.rows.filter((r) => !changedOnly || r.changed).map((r) => {
      const tr = html("tr", { className: [r.changed && "changed", r === diff.output && "output"].filter(Boolean).join(" ") },
        html("th", { scope: "row", textContent: r.was ? `${r.label} (was ${r.was})` : r.label }),
        html("td", { textContent: `${num(r.value?.before)} → ${num(r.value?.after)}` }),
        html("td", { className: "delta", textContent: deltaText(r.value) }),
        html("td", { textContent: r.adjoint ? `${num(r.adjoint.before)} → ${num(r.adjoint.after)}` : "" }),
        html("td", { className: "delta", textContent: deltaText(r.adjoint) }));
      tr.dataset.node = r.id;
      if (typeof r.value?.delta === "number") tr.dataset.deltaValue = String(r.value.delta);
      if (typeof r.adjoint?.delta === "number") tr.dataset.deltaAdjoint = String(r.adjoint.delta);
      return tr;
    }));
  }
  /** Scroll the column holding the panel (when it scrolls) so the table's first row, the
   * output's, is in sight: beside a short editor the summary and the toggles fill it. */
  function reveal() {
    const first = body.firstElementChild;
    const box = el.parentElement;
    if (!first || !box || box.scrollHeight <= box.clientHeight) return;
    const below = first.getBoundingClientRect().bottom - box.getBoundingClientRect().bottom;
    if (below > 0) box.scrollTop += below;
  }
  return { el, show, reveal };
}

/**
 * "Final numbers: 7 of 7 nodes changed; L: 0.9242 → 0.925 (Δ +0.0007863); first order: Δa ·
 * ā = 0.001 · 0.7864 = 0.0007864", or "At step 9 of 16 (values known so far, gradients
 * accumulated so far, in both runs): ..." mid-walk (`at`: {step, total}).
 */
function summaryText(diff, leaves, at = null) {
  const changed = diff.rows.filter((r) => r.changed);
  const out = diff.output;
  const output = out?.value && typeof out.value.delta === "number"
    ? `; ${out.label}: ${num(out.value.before)} → ${num(out.value.after)} (Δ ${signed(out.value.delta)})` : "";
  const gone = diff.gone.length ? `; gone: ${diff.gone.join(", ")}` : "";
  const first = at ? null : firstOrder(diff, leaves); // ā is final only at the end
  const predicted = first ? `; first order: Δ${first.leaf} · ${first.leaf}̄ = ${formatNumber(first.h)} · ${formatNumber(first.bar)} = ${formatNumber(first.predicted)}` : "";
  const when = at ? `At step ${at.step} of ${at.total} (values known so far, gradients accumulated so far, in both runs): `
    : "Final numbers: ";
  return `${when}${changed.length} of ${diff.rows.length} nodes changed${output}${predicted}${gone}.`;
}

/** Mark the changed nodes of `diff` in `svg` (null: clear); `changedOnly` fades the rest. */
export function markDiff(svg, diff, { changedOnly = false } = {}) {
  for (const g of svg.querySelectorAll("g.node[data-changed]")) {
    delete g.dataset.changed;
    delete g.dataset.delta;
    g.style.removeProperty("--diff-t");
    g.querySelector(".diff-delta")?.remove();
  }
  svg.classList.toggle("diff-filter", Boolean(diff && changedOnly));
  if (!diff) return;
  const t = strengths(diff.rows);
  for (const r of diff.rows) {
    const g = r.changed && svg.querySelector(`g.node[data-node="${r.id}"]`);
    if (!g) continue;
    const c = r.value?.changed ? r.value : r.adjoint;
    g.dataset.changed = r.value?.changed ? "value" : "adjoint";
    g.dataset.delta = String(c.delta ?? "");
    g.style.setProperty("--diff-t", t[r.id].toFixed(3));
    const box = g.querySelector("rect.box");
    if (!box) continue;
    const text = document.createElementNS("http://www.w3.org/2000/svg", "text");
    text.setAttribute("class", "diff-delta");
    text.setAttribute("x", String(Number(box.getAttribute("x")) + Number(box.getAttribute("width"))));
    text.setAttribute("y", String(Number(box.getAttribute("y")) - 6));
    text.setAttribute("text-anchor", "end");
    text.textContent = `${r.value?.changed ? "Δ" : "Δ grad"} ${deltaText(c)}`;
    box.parentNode.append(text); // beside the box, in its positioned group
  }
}

/** Both runs' numbers of node `id` in the detail panel `panel` (a section after its own). */
export function detailDiff(panel, diff, id) {
  panel?.querySelector(".diff-detail")?.remove();
  const r = diff?.rows.find((x) => x.id === id);
  if (!panel || !r) return;
  const line = (what, c) => c && html("li", { textContent: `${what}: ${num(c.before)} → ${num(c.after)}${c.changed ? ` (Δ ${deltaText(c)})` : " (unchanged)"}` });
  panel.append(html("section", { className: "diff-detail" },
    html("h3", { textContent: "Against the previous run" }),
    html("ul", {}, ...[line("value", r.value), line("gradient", r.adjoint)].filter(Boolean))));
}
