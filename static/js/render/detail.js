// The detail panel of the selected node (a click, or Enter on a node): its value and its
// gradient side by side as scrollable tables, coloured like the heat maps; its backward
// rules with their shapes ("X̄ += ∂L/∂(X @ W) @ Wᵀ : (4,3) = (4,2) @ (2,3)") and, for an
// unbroadcast step, the axes summed. A tensor over the inline limit travelled as a summary:
// the panel fetches its numbers (POST /api/trace/node) and says so while it waits.
// It takes its container; nothing looks up global ids.

import { fetchNode } from "../api.js";
import { formatCells, formatNumber, isTensor, shapeName, shapeText } from "../format.js";
import { dualText } from "../modes.js";
import { heatCells, heatColor, inkOn, toNumber } from "../heat.js";
import { opTag } from "../layout.js";
import { numbersHidden } from "../quiz.js";
import { adjointFinalStep, backwardRules, badNumberText, tableOf } from "../tensors.js";
import { markScroller } from "./dom.js";
import { lineTopAt } from "./rows.js";
import { typeset } from "./typeset.js";

const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.filter(Boolean));
  return e;
};

/** A value as a table, each number on its heat colour; `kind` "value" or "grad". */
function valueTable(value, kind) {
  const t = tableOf(value);
  if (!t) return null;
  const { maxAbs } = isTensor(value) ? heatCells(value) : { maxAbs: Math.abs(toNumber(value)) };
  const table = el("table", { class: `values ${kind}`, "data-kind": kind });
  if (isTensor(value) && value.shape.length) {
    table.append(el("thead", {}, el("tr", {}, el("th"), ...t.colHeads.map((h) => el("th", { scope: "col", text: h })))));
  }
  const body = el("tbody");
  // one number format for the whole table (format.js formatCells); a scalar as in its box
  const texts = t.total > 1 ? formatCells(t.rows.flat()) : t.rows.flat().map(formatNumber);
  let cell = 0;
  t.rows.forEach((row, i) => {
    const tr = el("tr", {}, isTensor(value) && value.shape.length ? el("th", { scope: "row", text: t.rowHeads[i] }) : null);
    row.forEach((x, j) => {
      const v = toNumber(x);
      const fill = heatColor(v, maxAbs);
      const td = el("td", { "data-i": t.rowHeads[i], "data-j": j, "data-v": String(v), text: texts[cell++] });
      td.style.background = fill;
      td.style.color = inkOn(fill);
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(body);
  const wrap = el("div", { class: "table-scroll" }, table);
  if (t.shown < t.total) wrap.append(el("p", { class: "note", text: `the first ${t.shown.toLocaleString()} of ${t.total.toLocaleString()} numbers` }));
  return wrap;
}

/**
 * The panel in `container` (the graph's wrapper). show(walk, view, node, hidden) fills it
 * for the node at that step (`hidden`: what a quiz keeps from the screen, quiz.js hiddenAt,
 * or null); hide() closes it; onClose is called when its × is pressed.
 */
export function createDetailPanel(container, { onClose, room = () => 0 } = {}) {
  const root = el("aside", { class: "detail", id: "detail", "aria-label": "Selected node", "aria-live": "polite" });
  root.hidden = true;
  container.append(root);
  const cache = new Map(); // "program\0output\0node" -> Promise of the full node
  let token = 0;
  const close = () => {
    onClose?.(); // the page unpins the node (and hides the panel)
    if (!root.hidden) api.hide();
  };
  // Esc closes the panel, as its × does, unless the editor, a field or a menu has the focus:
  // there Esc leaves it first (render/editor.js; main.js), which prevents the default.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || root.hidden || event.defaultPrevented) return;
    if (event.target.closest?.(".cm-editor, textarea, select, input:not([type=range]), [contenteditable=true], details[open], [popover]")) return;
    event.preventDefault();
    close();
  });

  function full(walk, node) {
    const key = `${walk.program}\u0000${walk.trace.output?.name ?? ""}\u0000${node.id}`;
    if (!cache.has(key)) {
      cache.set(key, fetchNode(walk.program, walk.trace.output?.name ?? null, node.id).catch((error) => {
        cache.delete(key);
        throw error;
      }));
    }
    return cache.get(key);
  }

  function column(title, value, kind, note, asked = false) {
    const col = el("section", { class: `detail-col ${kind}` }, el("h3", { text: title }));
    if (asked) col.append(el("p", { class: "quiz-mark", text: "?" }), el("p", { class: "note", text: "asked in the quiz" }));
    else if (value === undefined) col.append(el("p", { class: "note", text: note }));
    else {
      const table = valueTable(value, kind);
      if (table) col.append(table);
      else col.append(el("p", { class: "note pending-data", text: `${shapeName(value.shape)}: over the inline limit, fetching every number…` }));
      if (note) col.append(el("p", { class: "note", text: note }));
    }
    return col;
  }

  // While a quiz is on (`hidden`: quiz.js hiddenAt) a rule the walk has not shown keeps its
  // numbers as "?", as the asked node's box does: step 11's rule read t̄ = 2 and d̄ at step 8.
  function rules(walk, view, node, hidden) {
    const list = backwardRules(walk.trace.events, node.id);
    if (!list.length) return null;
    const ul = el("ul", { class: "rules" });
    for (const r of list) {
      const reached = view.step >= r.step;
      const li = el("li", { class: reached ? "reached" : "ahead", "data-input": r.input });
      const secret = hidden && !hidden.revealed(r.step);
      if (secret) li.classList.add("quiz-hidden");
      const rule = el("span", { class: "rule" }, typeset(document, secret ? numbersHidden(r.narration) : r.narration));
      li.append(rule);
      // The summed axes, unless the rule says them (the engine's does, "summed over axis 0
      // back to b1's shape (32,)": the panel said it twice, issue 14).
      const summed = r.unbroadcast && `summed over axis ${r.unbroadcast.axes.join(", ")}`;
      if (summed && !r.narration.includes(summed)) {
        const { from_shape: from, to_shape: to } = r.unbroadcast;
        li.append(el("span", { class: "unbroadcast", text: ` · ${summed}: ${shapeText(from)} → ${shapeText(to)}` }));
      }
      if (!reached) li.append(el("span", { class: "note", text: ` (step ${r.step})` }));
      ul.append(li);
    }
    return el("section", { class: "detail-rules" }, el("h3", { text: "Backward rule, with shapes" }), ul);
  }

  /** "not used by L: it gets no gradient" for a node the trace warns is unused, else null. */
  function unusedNote(walk, node) {
    const w = (walk.trace.warnings ?? []).find((x) => x.kind === "unused" && x.node === node.id);
    return w ? `not used by ${walk.trace.output?.name ?? "the output"}: it gets no gradient` : null;
  }

  function render(walk, view, node, fetched, hidden) {
    const value = view.values[node.id];
    const adjoint = view.adjoints[node.id];
    const finalStep = adjointFinalStep(walk.trace.events, node.id);
    const final = finalStep !== null && view.step >= finalStep;
    const bigValue = isTensor(value) && value.data == null;
    const bigAdjoint = isTensor(adjoint) && adjoint.data == null;
    const shownValue = bigValue && fetched ? fetched.value : value;
    let shownAdjoint = adjoint;
    let adjointNote = null;
    if (bigAdjoint && fetched && final) shownAdjoint = fetched.adjoint;
    else if (bigAdjoint) {
      adjointNote = final ? null : `its summary only until every contribution has arrived (step ${finalStep}): `
        + `min ${formatNumber(adjoint.summary?.min)}, max ${formatNumber(adjoint.summary?.max)}`;
      if (!final) shownAdjoint = undefined;
    }
    const closeButton = el("button", { type: "button", class: "btn close", "aria-label": "Close the detail panel (Esc)", text: "×" });
    closeButton.addEventListener("click", close);
    const head = el("header", {},
      el("h2", {}, el("span", { class: "label", text: node.label }), el("span", { class: "tag", text: opTag(node) })),
      closeButton);
    // Forward mode (and hvp mode's forward pass): no gradient yet, the tangent is the news.
    const tangent = view.tangents?.[node.id];
    const dual = tangent !== undefined && typeof value === "number" && typeof tangent === "number"
      ? `dual number ${dualText(value, tangent)}` : null;
    const asked = hidden?.asked?.node === node.id ? hidden.asked.what : null; // its number is "?" in the box too
    const cols = el("div", { class: "detail-cols" },
      column("Value", shownValue, "value", value === undefined ? "not evaluated yet" : null, asked === "value"),
      node.role === "const" ? null
        : adjoint === undefined && tangent !== undefined ? column("Tangent ṫ", tangent, "grad tangent", dual)
          : column("Gradient", shownAdjoint, "grad", adjointNote ?? (adjoint === undefined ? unusedNote(walk, node) ?? "no gradient yet" : null), asked === "adjoint"));
    const parts = [head, el("p", { class: "formula", text: node.formula ?? node.label }), cols, rules(walk, view, node, hidden)];
    const bad = walk.nonFinite;
    if (bad && bad.node === node.id) {
      const what = badNumberText(bad);
      parts.push(el("p", { class: "nonfinite-why", text: `${what[0].toUpperCase()}${what.slice(1)}: ${bad.why}` }));
    }
    root.replaceChildren(...parts.filter(Boolean), el("p", { class: "more-cue", "aria-hidden": "true", text: "▾ more below: scroll" }));
    root.dataset.node = node.id;
    root.dataset.full = String(Boolean(fetched));
    root.hidden = false;
    fitTables();
    fitRules();
    markMore();
  }

  // The panel scrolls when it is taller than the graph area leaves it, and no scrollbar shows
  // on a projector: at 1024x768 a 3x4 gradient's last row was under its bottom edge with no
  // sign of it (a review). A cue sticks to its bottom edge until it is scrolled to its end.
  // The line the cue's top edge crosses is covered whole (app.css: the paper over the cue,
  // --cut px tall): "Against the previous run" showed cut in half over the cue at 1024x768 on
  // a projector (a review of issue 16). A section added later (Compare's, render/diff.js)
  // marks the panel again, and so does a new height (the camera's note shortens it after it
  // is drawn: with no cue, the review's panel gave no sign of the gradient line under it).
  function markMore() {
    const more = root.scrollHeight > root.clientHeight + root.scrollTop + 2;
    root.classList.toggle("more-below", more);
    const cue = more ? root.querySelector(".more-cue")?.getBoundingClientRect().top : null;
    root.style.setProperty("--cut", `${cue == null ? 0 : Math.max(0, cue - lineTopAt(root, cue))}px`);
  }
  root.addEventListener("scroll", markMore, { passive: true });
  new MutationObserver(markMore).observe(root, { childList: true });
  new ResizeObserver(markMore).observe(root);

  // A rule wider than the panel (a phone's sheet: cross_entropy's rule ran off its right
  // edge at 390 px, cut after "…/6", with a scrollbar no phone shows; a review) is set again
  // free to break inside its formula (typeset.js loose); one still wider scrolls sideways,
  // and says so under it.
  function fitRules() {
    for (const rule of root.querySelectorAll(".detail-rules .rule")) {
      if (rule.scrollWidth <= rule.clientWidth + 1) continue;
      const text = rule.querySelector(".typeset")?.dataset.text;
      if (text) rule.replaceChildren(typeset(document, text, { loose: true }));
      markScroller(rule, "x", "scroll it sideways →");
    }
  }

  // A table scrolled sideways hides its last columns, and a scrollbar may not show (overlay
  // scrollbars, a projector): a 3x4 tensor lost its 4th column in 231 px (issue 14). The
  // panel widens until every column shows, at most to the graph area; where value and
  // gradient do not fit side by side, one goes above the other, each the panel's width.
  function fitTables() {
    root.style.width = root.style.top = root.style.maxHeight = "";
    root.classList.remove("stacked");
    const over = () => Math.max(0, ...[...root.querySelectorAll(".table-scroll")].map((s) => s.scrollWidth - s.clientWidth));
    if (!over()) return;
    // A bottom sheet (narrow.css: a phone) is the screen's width already: stack, no more.
    if (getComputedStyle(root).position === "fixed") return void root.classList.add("stacked");
    // The panel sits at the right with a gap; it may grow leftwards to the same gap.
    const gap = container.clientWidth - root.offsetLeft - root.offsetWidth;
    // It leaves the graph `room()` px beside it, to frame the node with its inputs and
    // consumers (render/zoom.js roomFor), down to 40% of the graph's width: W1's 8 columns on
    // a 1024x768 projector widened it over all but 200 px of the graph, its consumer under it
    // (a review of issue 14). Columns past that scroll.
    const least = Math.min(root.offsetWidth, 0.4 * container.clientWidth);
    const widest = Math.max(least, container.clientWidth - 2 * gap - room());
    const cols = root.querySelectorAll(".detail-col").length;
    const wide = root.offsetWidth + cols * over(); // equal columns: each grows by the widest overflow
    if (wide <= widest) root.style.width = `${wide}px`;
    else {
      root.classList.add("stacked");
      root.style.width = `${Math.min(widest, root.offsetWidth + over())}px`;
    }
    // Past the middle it would cover the trace buttons at the top left: it goes below them.
    const bar = container.querySelector(".graph-trace:not([hidden])");
    if (!bar || root.offsetLeft >= bar.offsetLeft + bar.offsetWidth) return;
    // The camera's note may show or go later, moving the bar (app.css --camera-note): the
    // panel's top follows it (it stood over the bar at 1024x768 on a projector).
    const note = parseFloat(getComputedStyle(container).getPropertyValue("--camera-note")) || 0;
    const top = bar.offsetTop - note + bar.offsetHeight + gap;
    root.style.top = `calc(${top}px + var(--camera-note, 0px))`;
    root.style.maxHeight = `calc(${container.clientHeight - top - gap}px - var(--camera-note, 0px))`;
  }

  const api = {
    show(walk, view, node, hidden = null) {
      const mine = ++token;
      const value = view.values[node.id];
      const adjoint = view.adjoints[node.id];
      const big = (isTensor(value) && value.data == null) || (isTensor(adjoint) && adjoint.data == null);
      render(walk, view, node, null, hidden);
      if (!big) return;
      root.dataset.fetching = "true";
      full(walk, node).then((fetched) => {
        if (mine !== token) return;
        delete root.dataset.fetching;
        render(walk, view, node, fetched, hidden);
      }, (error) => {
        if (mine !== token) return;
        delete root.dataset.fetching;
        root.append(el("p", { class: "note error", text: `could not fetch every number: ${error.message}` }));
      });
    },
    hide() {
      token += 1;
      root.hidden = true;
      delete root.dataset.node;
    },
    get shown() {
      return root.hidden ? null : root.dataset.node;
    },
  };
  return api;
}
