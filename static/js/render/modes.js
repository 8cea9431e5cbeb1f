// The mode panel beside the program (issue 9, sections 1 and 3): Reverse / Forward, the leaf
// whose tangent is 1 in forward mode, "Run all n forward passes" (a count and a bar against
// reverse mode's passes, not n animations), and the gradient check (each leaf's absolute and
// relative error, ok or flagged, with the step h shown and changeable). In forward mode the
// graph's boxes show each node's dual number: its value and, below it, `+ ṫε`
// (data-tangent on each g.node). Takes its root element; no global ids. The mode and the
// tangent's leaf live in the page's store (`mode`, `tangent`: state.js FIELDS), so a link
// carries them: the selects show the store, and a change goes into it.

import { forwardBugNote } from "../bugs.js";
import { el } from "./dom.js";
import { counted, formatNumber, fullPrecision, shapeText } from "../format.js";
import { METRICS } from "../layout.js";
import {
  allForwardSummary, directionText, elementName, formatError, forwardFields, gradcheckElements, gradcheckRows,
  dualRow, gradcheckVerdict, hvpHeader, hvpLine, jacobianTable, leavesOf, parseEps,
} from "../modes.js";

// The "H v" entry of the mode menu: the program has a `# hvp:` line ("on"), the entry adds
// one ("add"), or there is no traced program with leaves to name in it ("none").
export const HVP_LABEL = { on: "hvp mode (H v)", add: "H v: add # hvp: line", none: "H v: needs a # hvp: line" };
const HVP_TITLE = {
  on: "Hessian-vector product H v, from the program's # hvp: line",
  add: "Hessian-vector product H v: adds a # hvp: line at the top of the program (Ctrl+Z in the editor takes it out) and traces it",
  none: "Hessian-vector product H v: trace a program with a # hvp: line first",
};

const SVG = "http://www.w3.org/2000/svg";

/**
 * The panel, appended to `root` (the program's side column). `store` holds `mode` and
 * `tangent` (state.js); `onModeChange()` re-traces with the new fields (`fields()`);
 * `request()` -> {program, output} of the walk shown, for the panel's own requests
 * (POST /api/trace).
 */
export function createModesPanel(root, { store, onModeChange, request, onAddHvp }) {
  const doc = root.ownerDocument;
  const section = el(doc, "section", { id: "modes", class: "modes", "aria-label": "Mode and checks", "data-mode": "reverse" });
  // hvp mode is the program's (a `# hvp:` line). Its entry is always there and says how to
  // get it: without the line it reads "H v: add # hvp: line" and choosing it adds one (an
  // undoable edit, `onAddHvp`) and traces; hidden or disabled, a user could not tell why
  // (issue 14). Short labels: on a projector at 1024x768 (and A+ up to 2x) the longer ones
  // were cut ("…dual numbers"); each option's title says what it is.
  const hvpOption = option(HVP_LABEL.on, "hvp", HVP_TITLE.on);
  const mode = el(doc, "select", { id: "mode", "aria-label": "Mode" },
    option("Reverse mode", "reverse", "The backward pass: adjoints from the output back to the leaves"),
    option("Forward mode", "forward", "Tangents carried forward with the values: dual numbers a + ȧ·ε"),
    option("Train", "train", "Gradient descent on the program's leaves: the loss curve, the decision boundary, any iteration stepped"),
    hvpOption);
  // Forward mode on a `# bugs:` program: the switches change only the backward pass.
  const modeNote = el(doc, "p", { id: "mode-note", class: "mode-note", role: "status", hidden: "" });
  const leaf = el(doc, "select", { id: "tangent-leaf", "aria-label": "The input whose tangent is set" });
  // A tensor leaf's direction: one element (a Jacobian column) or a seeded random vector.
  const direction = el(doc, "select", { id: "tangent-direction", "aria-label": "Tangent direction" },
    new Option("one element", "element"), new Option("random (seed 1)", "random"));
  const element = el(doc, "select", { id: "tangent-element", "aria-label": "The element whose tangent is 1" });
  const seed = el(doc, "input", { id: "tangent-seed", type: "number", min: "0", step: "1", value: "1",
    inputmode: "numeric", "aria-label": "Seed of the random tangent" });
  const seedLabel = el(doc, "label", { class: "tangent-seed" }, "seed ", seed);
  const directionBox = el(doc, "span", { class: "tangent-direction", hidden: "" }, direction, element, seedLabel);
  const leafLabel = el(doc, "label", { class: "tangent-leaf", hidden: "" }, "Tangent on ", leaf);
  const allButton = el(doc, "button", { id: "run-all-forward", type: "button", class: "btn" }, "Run all forward passes");
  const bars = el(doc, "div", { class: "passes", hidden: "" });
  const allText = el(doc, "p", { class: "passes-text", role: "status" });
  const eps = el(doc, "input", { id: "gradcheck-eps", type: "text", value: "1e-6", size: "7", inputmode: "decimal", "aria-label": "Step h" });
  const checkButton = el(doc, "button", { id: "run-gradcheck", type: "button", class: "btn" }, "Check gradients");
  const table = el(doc, "table", { id: "gradcheck-table", class: "gradcheck-table", hidden: "" });
  const checkText = el(doc, "p", { class: "gradcheck-text", role: "status" });
  const checkWarnings = el(doc, "ul", { class: "gradcheck-warnings", hidden: "" });
  const jacobianBox = el(doc, "div", { id: "jacobian", class: "jacobian", hidden: "" });
  // One line while closed, so the side column (and the graph below) keeps its size.
  const checks = el(doc, "details", { id: "checks", class: "checks" },
    el(doc, "summary", { text: "Forward passes · gradient check" }),
    el(doc, "div", { class: "all-forward", "data-status": "idle" }, allButton, bars, allText, jacobianBox),
    // the verdict first, so it shows without scrolling; the rows (and their elements) below
    el(doc, "div", { class: "gradcheck", "data-status": "idle" },
      el(doc, "div", { class: "gradcheck-row" }, checkButton, el(doc, "label", {}, "step h ", eps)), checkText, table,
      checkWarnings));
  section.append(el(doc, "div", { class: "mode-row" }, mode, leafLabel, directionBox), modeNote, checks);
  // First in the side column after an error: the mode and the tangent's direction stay in
  // view above the legend and the charts (at 1024x768 the column shows ~200 px).
  const legend = root.querySelector(":scope > .legend");
  if (legend) legend.before(section);
  else root.append(section);

  let leaves = [];
  let leavesProgram = null; // the program whose leaves `leaves` are
  // The leaf the store names, else the first ("" or a name the program no longer has).
  const chosen = () => leaves.find((l) => l.name === store.get().tangent) ?? leaves[0] ?? null;
  const forward = () => store.get().mode === "forward";

  let elementsOf = null; // the leaf whose elements the element menu lists

  let hvpShown = false; // the walk shown is in hvp mode (its program's `# hvp:` line)

  /** The selects show the store's mode, tangent leaf and (a tensor leaf's) direction. */
  function showState() {
    const state = store.get();
    const hvp = hvpShown && state.mode !== "forward";
    const line = hvp || hvpLine(state.program ?? "");
    const how = line ? "on" : leaves.length ? "add" : "none";
    hvpOption.textContent = HVP_LABEL[how];
    hvpOption.title = HVP_TITLE[how];
    hvpOption.disabled = how === "none";
    mode.value = hvp ? "hvp" : state.mode;
    section.dataset.mode = hvp ? "hvp" : state.mode;
    modeNote.textContent = forwardBugNote(state.program, state.mode);
    modeNote.hidden = !modeNote.textContent;
    leafLabel.hidden = state.mode !== "forward";
    const pick = chosen();
    if (pick) leaf.value = pick.name;
    const tensor = Boolean(pick?.shape.length);
    directionBox.hidden = state.mode !== "forward" || !tensor;
    if (!tensor) return;
    if (elementsOf !== pick) {
      elementsOf = pick;
      element.replaceChildren(...Array.from({ length: pick.size }, (_, k) => new Option(elementName(pick.name, pick.shape, k), String(k))));
    }
    direction.value = state.tangent_direction;
    direction.options[1].textContent = `random (seed ${state.tangent_seed})`;
    element.value = String(state.tangent_element < pick.size ? state.tangent_element : 0);
    seed.value = String(state.tangent_seed);
    element.hidden = state.tangent_direction !== "element";
    seedLabel.hidden = state.tangent_direction !== "random";
  }
  const DIRECTION_FIELDS = ["mode", "tangent", "tangent_direction", "tangent_element", "tangent_seed", "program"];
  store.subscribe((state, before) => {
    if (DIRECTION_FIELDS.some((name) => state[name] !== before[name])) showState();
  });
  showState();

  mode.addEventListener("change", () => {
    mode.blur();
    if (mode.value === "hvp" && hvpShown && !forward()) return showState(); // already the walk shown
    if (mode.value === "hvp" && !hvpLine(store.get().program ?? "")) {
      store.set({ mode: "reverse" });
      showState(); // the menu shows the mode shown until the line's trace answers
      return onAddHvp?.(hvpHeader(leaves));
    }
    // hvp mode is reverse mode on a program with a `# hvp:` line (the server reads the line)
    store.set({ mode: mode.value === "hvp" ? "reverse" : mode.value });
    onModeChange();
  });
  /** A new direction chosen: into the store, and traced again in forward mode. */
  function choose(patch, control) {
    control.blur(); // the arrow keys go back to the player
    store.set(patch);
    if (forward()) onModeChange();
  }
  // Another leaf starts at its first element.
  leaf.addEventListener("change", () => choose({ tangent: leaf.value, tangent_element: 0 }, leaf));
  direction.addEventListener("change", () => choose({ tangent_direction: direction.value }, direction));
  element.addEventListener("change", () => choose({ tangent_element: Number(element.value) }, element));
  seed.addEventListener("change", () => {
    const value = Number(seed.value);
    if (Number.isSafeInteger(value) && value >= 0) choose({ tangent_seed: value }, seed);
    else seed.value = String(store.get().tangent_seed); // not a seed: the one in use again
  });

  /** POST /api/trace with the walk's program and `fields`; the body, or throws {message}. */
  async function post(fields) {
    const response = await fetch("/api/trace", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ ...request(), ...fields }),
    });
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error(body?.error?.message ?? `the server answered ${response.status}`);
    return body;
  }

  const allBox = allButton.parentNode;
  allButton.addEventListener("click", async () => {
    allBox.dataset.status = "running";
    allText.textContent = "Running every forward pass…";
    try {
      const body = await post({ mode: "forward" });
      const s = allForwardSummary(body);
      bars.replaceChildren(bar(doc, "forward", `Forward: ${counted(s.passes, "pass", "passes")}`, s.widths.forward),
        bar(doc, "reverse", `Reverse: ${counted(s.reverse, "pass", "passes")}`, s.widths.reverse));
      bars.hidden = false;
      allText.textContent = s.text;
      allBox.dataset.passes = String(s.passes);
      allBox.dataset.reversePasses = String(s.reverse);
      allBox.dataset.agree = String(s.agree);
      showJacobian(body);
      allBox.dataset.status = "done";
      // the count, the bars and the Jacobian under it in view; a short column: the Jacobian
      toTop(jacobianBox.hidden || fits(allButton, jacobianBox) ? allButton : jacobianBox);
    } catch (error) {
      bars.hidden = true;
      jacobianBox.hidden = true;
      allText.textContent = error.message;
      allBox.dataset.status = "error";
    }
  });

  const checkBox = checkButton.parentNode.parentNode;
  checkButton.addEventListener("click", async () => {
    const h = parseEps(eps.value);
    if (h === null) {
      // The rows were for another h: with the error shown they would pass for this one's.
      clearCheck();
      checkBox.dataset.status = "error";
      checkText.textContent = "The step h must be a number with 0 < h ≤ 1, e.g. 1e-6.";
      return;
    }
    checkBox.dataset.status = "running";
    table.dataset.stale = "true"; // the last h's rows, dimmed until this h's come
    checkText.textContent = "Comparing every leaf's gradient with central differences…";
    try {
      const body = await post({ check: true, eps: h });
      showCheck(body.gradcheck ?? {}, (body.warnings ?? []).filter((w) => w.field === "check"));
      checkText.textContent = gradcheckVerdict(body.gradcheck, eps.value.trim());
      checkBox.dataset.eps = String(h);
      checkBox.dataset.status = "done";
      toTop(checkText); // the verdict, then the rows, in view in the side column
    } catch (error) {
      clearCheck();
      checkText.textContent = error.message;
      checkBox.dataset.status = "error";
    }
  });

  /** No rows shown: none of them is for the h now in the box (an error, a new walk). */
  function clearCheck() {
    table.hidden = true;
    delete table.dataset.stale;
    checkWarnings.hidden = true;
    delete checkBox.dataset.eps;
  }

  /** The check's rows: each leaf's errors and verdict, a kink's reason, a tensor's elements. */
  function showCheck(gradcheck, warnings) {
    const rows = gradcheckRows(gradcheck);
    const head = el(doc, "tr", {}, ...["leaf", "analytic", "numeric", "abs error", "rel error", ""].map((t) => el(doc, "th", { text: t })));
    table.replaceChildren(head, ...rows.flatMap((r) => {
      const entry = gradcheck[r.leaf];
      const verdict = r.ok ? "✓ ok" : entry.kink ? "✗ differs at a kink" : "✗ differs";
      const tr = el(doc, "tr", { "data-leaf": r.leaf, "data-ok": String(r.ok), class: r.ok ? "ok" : "flag" },
        el(doc, "td", {}, r.leaf, ...(r.at ? [el(doc, "span", { class: "at", title: `the worst element, ${r.at}`, text: `worst ${r.at.slice(r.leaf.length)}` })] : [])),
        el(doc, "td", { class: "analytic", text: r.analytic }),
        el(doc, "td", { class: "numeric", text: r.numeric }), el(doc, "td", { text: r.abs }), el(doc, "td", { text: r.rel }),
        el(doc, "td", { class: entry.kink && !r.ok ? "verdict phrase" : "verdict", text: verdict }));
      const more = [];
      if (entry.kink) {
        more.push(el(doc, "tr", { class: "why", "data-leaf": r.leaf },
          el(doc, "td", { colspan: "6", class: "kink", text: `why: ${entry.kink}` })));
      }
      const elements = gradcheckElements(r.leaf, entry);
      if (elements) more.push(elementsRow(doc, r.leaf, elements, entry, !r.ok));
      return [tr, ...more];
    }));
    table.hidden = false;
    delete table.dataset.stale;
    checkWarnings.replaceChildren(...warnings.map((w) => el(doc, "li", { "data-kind": w.kind, text: `⚠ ${w.message}` })));
    checkWarnings.hidden = !warnings.length;
  }

  /** The Jacobian the n forward passes built, as a labelled table. */
  function showJacobian(body) {
    const jac = body.all_forward?.jacobian;
    if (!jac?.data) return void (jacobianBox.hidden = true);
    const t = jacobianTable(jac, leaves, body.output?.name);
    const table = el(doc, "table", { class: "jacobian-table", "data-shape": jac.shape.join("x"),
      "data-transposed": String(t.transposed), "aria-label": t.caption },
    el(doc, "tr", {}, el(doc, "th", { text: "" }), ...t.columns.map((c) => el(doc, "th", { scope: "col", text: c }))),
    ...t.rows.map((r) => el(doc, "tr", { "data-row": r.label },
      el(doc, "th", { scope: "row", text: r.label }), ...r.cells.map((c) => el(doc, "td", { text: c })))));
    const left = [t.more.rows && `${t.more.rows} more lines`, t.more.columns && `${t.more.columns} more columns`].filter(Boolean);
    jacobianBox.replaceChildren(el(doc, "p", { class: "jacobian-caption", text: `${t.caption}:` }), table, ...(left.length ? [el(doc, "p", { text: `(${left.join(", ")} not shown)` })] : []));
    jacobianBox.hidden = false;
  }

  let requested = "reverse";
  let sent = "{}"; // the JSON of the last request's fields
  const walkModes = new WeakMap(); // walk -> the mode it was traced in
  const directions = new WeakMap(); // walk -> its forward direction's text
  let shownWalk = null;
  let drawn = new Map(); // node id -> the tangent text shown in its box

  return {
    /** The trace request's fields for the mode and direction chosen ({} in reverse mode). */
    fields: () => {
      requested = store.get().mode; // the mode of the walk whose graph comes next (begin)
      // A tangent is sent with its leaf's shape, known once a graph of the program came;
      // until then the server's default (retrace).
      const state = store.get();
      const fields = forwardFields(state, state.program === leavesProgram ? leaves : []);
      sent = JSON.stringify(fields);
      section.dataset.tangents = JSON.stringify(fields.tangents ?? null); // what was sent (tests)
      return fields;
    },
    /**
     * True when the walk whose `graph` just came was traced with another tangent than the
     * store names (a link's leaf or direction, before the program's leaves were known):
     * trace again. The next request knows the leaves, so it is asked once.
     */
    retrace(graph) {
      if (requested !== "forward") return false;
      const now = leavesOf(graph);
      if (JSON.stringify(forwardFields(store.get(), now)) === sent) return false;
      leaves = now;
      leavesProgram = store.get().program;
      return true;
    },
    /** A preset carries its mode (presets.json `mode`, default reverse): set before it is traced. */
    choosePreset(preset) {
      const want = preset?.mode ?? "reverse";
      if (want !== store.get().mode) store.set({ mode: want });
    },
    /** The direction of `walk`'s forward walk for the Done narration ("∂/∂W[1, 1]"), or null. */
    direction(walk) {
      if (walkModes.get(walk) !== "forward") return null;
      return directions.get(walk) ?? null;
    },
    /** A new walk's graph arrived: the leaves to choose from, and the n of the button. */
    begin(walk) {
      walkModes.set(walk, requested);
      leaves = leavesOf(walk.trace.graph);
      leavesProgram = walk.program;
      directions.set(walk, directionText(store.get(), leaves));
      hvpShown = requested !== "forward" && hvpLine(walk.program);
      elementsOf = null;
      leaf.replaceChildren(...leaves.map((l) => new Option(l.shape.length ? `${l.name} (${shapeText(l.shape)})` : l.name, l.name)));
      showState();
      const n = leaves.reduce((sum, l) => sum + l.size, 0);
      allButton.textContent = `Run all ${n} forward passes`;
      for (const box of [allBox, checkBox]) box.dataset.status = "idle";
      bars.hidden = true;
      clearCheck();
      jacobianBox.hidden = true;
      allText.textContent = "";
      checkText.textContent = "";
    },
    /** After the graph shows `view`: each box's tangent (forward mode), data-tangent. */
    show(walk, view, svg) {
      // hvp mode steps forward over reverse (tangent events: dual numbers in the boxes) and
      // then reverse over reverse (each box's adjoint is ∂s/∂x)
      const hvp = walkModes.get(walk) !== "forward" && (hvpLine(walk.program) || walk.timeline.events[0]?.kind === "tangent");
      if (hvp !== hvpShown) {
        hvpShown = hvp;
        showState();
      }
      if (hvp) return showHvp(svg, view);
      delete svg.dataset.hvpPhase;
      const forward = walkModes.get(walk) === "forward";
      const now = forward ? "forward" : "reverse";
      // a new walk, or the same one drawn again (a new <svg> content): start over
      if (walk !== shownWalk || svg.dataset.mode !== now || !svg.querySelector("g.node[data-mode-shown]")) {
        shownWalk = walk;
        drawn = new Map();
      }
      svg.dataset.mode = now;
      // Reverse mode never touches the boxes.
      if (!forward) return;
      const tangents = view.tangents ?? {};
      for (const g of svg.querySelectorAll("g.node")) {
        const id = g.dataset.node;
        const t = tangents[id];
        const text = t === undefined ? null : fullPrecision(t);
        if (drawn.get(id) === text) continue;
        drawn.set(id, text);
        if (text === null) g.removeAttribute("data-tangent");
        else g.setAttribute("data-tangent", text);
        g.setAttribute("data-mode-shown", "forward");
        showTangent(g, t);
      }
    },
  };
}

/** A menu entry with a tooltip. */
function option(text, value, title) {
  const o = new Option(text, value);
  o.title = title;
  return o;
}

/** One bar of the passes chart: a label and a filled width. */
function bar(doc, kind, label, width) {
  const fill = el(doc, "span", { class: "fill", style: `width: ${width.toFixed(1)}%` });
  return el(doc, "div", { class: `bar ${kind}`, "data-kind": kind }, el(doc, "span", { class: "label", text: label }),
    el(doc, "span", { class: "track" }, fill));
}

/**
 * The tangent in a node box's second block (its gradient's place, unused in forward mode),
 * so that with the value above it the box reads as the dual number (modes.js dualRow):
 * "VALUE 0.4621" over "+ 0.3932ε", the sign under the caption, the digits under the value's.
 */
function showTangent(g, tangent) {
  const block = g.querySelector("g.grad-block");
  if (!block) return; // a constant's box has no second block: its tangent is 0
  let group = block.querySelector("g.tangent-nums");
  if (!group) {
    group = g.ownerDocument.createElementNS(SVG, "g");
    group.setAttribute("class", "tangent-nums");
    block.append(group);
  }
  const row = dualRow(tangent, g.__data__?.rows ?? 1, METRICS.maxInlineElements);
  const caption = block.querySelector("text.caption");
  if (caption) caption.textContent = row.caption;
  const x = METRICS.caption - row.hang * METRICS.numChar;
  group.replaceChildren(...row.lines.map((s, i) => {
    const t = g.ownerDocument.createElementNS(SVG, "text");
    t.setAttribute("x", x);
    t.setAttribute("y", METRICS.row - 6 + i * METRICS.row);
    t.textContent = s;
    return t;
  }));
}

/**
 * hvp mode's boxes: while the forward over reverse pass runs (before the seed), each box's
 * second block shows its tangent (`+ ṫε` under the value) as forward mode does; from the seed on
 * it holds the reverse over reverse adjoint, captioned ∂s/∂x. svg data-hvp-phase says which.
 */
function showHvp(svg, view) {
  const forward = view.phase === "forward" || view.phase === "start";
  svg.dataset.mode = "hvp";
  svg.dataset.hvpPhase = forward ? "forward" : "reverse";
  const tangents = view.tangents ?? {};
  for (const g of svg.querySelectorAll("g.node")) {
    const t = forward ? tangents[g.dataset.node] : undefined;
    const text = t === undefined ? null : fullPrecision(t);
    const key = `${forward}:${text}`;
    if (g.dataset.hvpShown === key) continue;
    g.dataset.hvpShown = key;
    if (text === null) g.removeAttribute("data-tangent");
    else g.setAttribute("data-tangent", text);
    if (forward) showTangent(g, t);
    else {
      g.querySelector("g.grad-block g.tangent-nums")?.remove();
      const caption = g.querySelector("g.grad-block text.caption");
      if (caption) caption.textContent = "∂s/∂x";
    }
  }
}

/**
 * A tensor leaf's elements under its row: the worst (by absolute error, at most 20) with
 * analytic and numeric values and both errors; open when the leaf is flagged.
 */
function elementsRow(doc, leaf, elements, entry, open) {
  const bad = elements.filter((e) => !e.ok).length;
  const size = (entry.analytic?.shape ?? []).reduce((a, b) => a * b, 1);
  const summary = el(doc, "summary", {
    text: bad ? `${bad} element${bad === 1 ? "" : "s"} differ${bad === 1 ? "s" : ""} (worst ${elements.length} of ${size})`
      : `each element agrees (worst ${elements.length} of ${size})`,
  });
  const table = el(doc, "table", { class: "gradcheck-elements" },
    el(doc, "tr", {}, ...["element", "analytic", "numeric", "abs", "rel", ""].map((t) => el(doc, "th", { text: t }))),
    ...elements.map((e) => el(doc, "tr", { "data-element": e.name, "data-ok": String(e.ok), class: e.ok ? "ok" : "flag" },
      el(doc, "td", { text: e.name }), el(doc, "td", { text: formatNumber(e.analytic) }),
      el(doc, "td", { text: formatNumber(e.numeric) }), el(doc, "td", { text: formatError(e.abs_error) }),
      el(doc, "td", { text: formatError(e.rel_error) }), el(doc, "td", { text: e.ok ? "✓" : "✗" }))));
  const details = el(doc, "details", { class: "elements", "data-leaf": leaf }, summary, el(doc, "div", { class: "scroll-x" }, table));
  if (open) details.open = true;
  return el(doc, "tr", { class: "elements-row", "data-leaf": leaf }, el(doc, "td", { colspan: "6" }, details));
}

/** Whether `top` down to the bottom of `bottom` fits in the height of their side column. */
function fits(top, bottom) {
  const column = top.closest(".side");
  if (!column) return true;
  return bottom.getBoundingClientRect().bottom - top.getBoundingClientRect().top <= column.clientHeight - 8;
}

/**
 * Scroll the side column (the scrolling ancestor of `el`) so `el` is at its top, and the
 * rows under it follow; only that column moves, not the page.
 */
function toTop(el) {
  const column = el.closest(".side");
  if (!column || column.scrollHeight <= column.clientHeight) return;
  column.scrollTop += el.getBoundingClientRect().top - column.getBoundingClientRect().top - 4;
}
