// Finding one's way in a big graph (issue 8, section 2): search by name (Ctrl+F or `/`),
// "trace inputs" / "trace consumers" of the selected node, and a minimap with the
// camera's view. The walking is ../graphwalk.js's, the minimap's arithmetic ../minimap.js's;
// the camera is render/zoom.js's (it reports each move as a `camera` event on the svg).
// It takes its container; nothing looks up global ids.

import { searchNodes, traceFrom } from "../graphwalk.js";
import { allVisible, centreOn, fromMap, mapSize, mapTransform, onMap, visibleBox } from "../minimap.js";
import { centredBox, contentBox } from "../boxes.js";
import { METRICS } from "../layout.js";
import { freeCorner, screenBox } from "../mapcorner.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const MAP = { width: 200, height: 130 }; // the minimap's largest size, px
const GLIDE_MAX_NODES = 300; // as walk.js: past this the camera jumps, each frame repaints all
const TRACE_CLASS = { inputs: "traced-input", consumers: "traced-consumer" };

const el = (tag, attrs = {}, text = "") => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
};
const svgEl = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const inField = (target) => Boolean(target.closest?.(".cm-editor, textarea, select, input:not([type=range]), [contenteditable=true]"));

/**
 * The navigation tools over the graph in `container` (the graph's wrapper): `svg` is the
 * graph's <svg>, `zoom` its camera (render/zoom.js), `walk()` the walk shown (or null),
 * whose `layout` is null when the graph is not drawn (the overview). select(node | null)
 * tells it the selected (pinned) node. `reveal(id)` opens the collapsed groups hiding node
 * `id` (groups.js) and resolves true once it is drawn. `onHit(node)` is told the node search
 * went to: the page selects (pins) it, so "Trace inputs / consumers" apply to it at once.
 */
export function createNavigator(container, { svg, zoom, walk, reveal = null, onHit = null }) {
  let drawing = null; // the g.viewport the state below belongs to
  let selected = null; // the pinned node (graph JSON)
  let traced = null; // {id, direction} while a trace is shown
  let hit = null; // the id of the node search went to

  const layout = () => (drawing && svg.contains(drawing) ? walk()?.layout ?? null : null);
  const duration = () => ((layout()?.nodes.length ?? 0) > GLIDE_MAX_NODES ? 0 : 250);
  const nodeEl = (id) => svg.querySelector(`g.node[data-node="${CSS.escape(id)}"]`);
  // A node inside a collapsed group is shown by its group's box (its id).
  const boxOfNode = (id) => layout()?.rep?.get(id);

  // ---------------------------------------------------------------- search

  const search = el("div", { class: "graph-search", role: "search" });
  search.hidden = true;
  const input = el("input", {
    type: "search", id: "graph-search-input", "aria-label": "Find a node by name or label",
    placeholder: "Find a node by name (/ or Ctrl+F)…", autocomplete: "off", spellcheck: "false",
  });
  const results = el("ul", { class: "graph-search-results", role: "listbox", "aria-label": "Matching nodes" });
  const note = el("p", { class: "graph-search-note", role: "status" });
  search.append(input, note, results);
  let matches = [];
  let active = 0;

  function list() {
    const shownLayout = layout();
    matches = [];
    active = 0;
    results.replaceChildren();
    results.hidden = false;
    if (!shownLayout) {
      note.textContent = walk() ? "The graph is not drawn (it is too big): there is nothing to search on screen." : "Nothing is drawn yet.";
      note.dataset.kind = "undrawn";
      return;
    }
    // With groups every node is found: one in a collapsed group opens it (reveal).
    const drawn = new Set(shownLayout.nodes.map((n) => n.id));
    const nodes = walk().trace.graph.nodes;
    matches = searchNodes(reveal && walk().groups ? nodes : nodes.filter((n) => drawn.has(n.id)), input.value);
    note.dataset.kind = matches.length ? "found" : "none";
    note.textContent = !input.value.trim() ? "Type a name; Enter goes to it, Esc closes."
      : matches.length ? `${matches.length}${matches.length === 20 ? "+" : ""} found: Enter goes to the highlighted one.` : "No node has that name.";
    matches.forEach(({ node }, i) => {
      const li = el("li", { role: "option", "data-node": node.id, "aria-selected": String(i === active) });
      const inBox = boxOfNode(node.id);
      li.append(el("span", { class: "name" }, node.label ?? node.name ?? node.id),
        el("span", { class: "formula" }, node.formula && node.formula !== node.label ? node.formula : node.op ?? ""));
      if (inBox) li.append(el("span", { class: "in-group" }, `in ${walk().layout.nodes.find((n) => n.id === inBox)?.node.name ?? "a group"}`));
      li.addEventListener("mousedown", (event) => event.preventDefault()); // keep the input's focus
      li.addEventListener("click", () => { active = i; go(); });
      results.append(li);
    });
  }

  function mark(i) {
    active = i;
    for (const [k, li] of [...results.children].entries()) li.setAttribute("aria-selected", String(k === i));
    results.children[i]?.scrollIntoView({ block: "nearest" });
  }

  /** Centre the camera on the active match and highlight it (opening its groups first). */
  async function go() {
    let shownLayout = layout();
    const match = matches[active];
    if (!shownLayout || !match) return;
    if (boxOfNode(match.node.id) && reveal) {
      note.textContent = `Opening the groups around ${match.node.label ?? match.node.id}…`;
      const query = input.value;
      // The new drawing lists the matches again: the same query still goes to this node.
      if (!(await reveal(match.node.id)) || input.value !== query) return;
      shownLayout = walk()?.layout;
      drawing = svg.querySelector("g.viewport");
      active = Math.max(0, matches.findIndex((m) => m.node.id === match.node.id));
    }
    const box = shownLayout?.nodes.find((n) => n.id === match.node.id);
    if (!box) return;
    highlight(match.node.id);
    onHit?.(match.node);
    results.hidden = true; // the list would cover the node; typing or ↑/↓ shows it again
    note.textContent = `${match.node.label ?? match.node.id}: ${active + 1} of ${matches.length}${matches.length === 20 ? "+" : ""}. Enter: the next one.`;
    const k = Math.max(zoom.transform().k, zoom.limits().min); // readable, or closer
    zoom.moveTo(centreOn({ x: box.x, y: box.y }, k, clearView()), duration());
    if (matches.length > 1) mark((active + 1) % matches.length); // Enter again: the next one
  }

  /**
   * The part of the graph's view (px, as zoom.viewSize) that the detail panel (on the right,
   * CSS moves the search box left of it) and the search box (at the top) leave clear:
   * {width, height} of a view whose centre is that part's centre, for centreOn.
   */
  function clearView() {
    const view = zoom.viewSize();
    const origin = svg.getBoundingClientRect();
    const panel = container.querySelector(":scope > .detail:not([hidden])")?.getBoundingClientRect();
    const right = panel && panel.left - origin.left > view.width / 3 ? panel.left - origin.left : view.width;
    const top = search.hidden ? 0 : Math.max(0, search.getBoundingClientRect().bottom - origin.top);
    // centreOn puts the point at (width / 2, height / 2): the clear part's centre.
    return { width: right, height: view.height + top };
  }

  function highlight(id) {
    for (const g of svg.querySelectorAll(".search-hit")) {
      g.classList.remove("search-hit");
      g.removeAttribute("data-search-hit");
    }
    hit = id;
    const g = id && nodeEl(id);
    if (g) {
      g.classList.add("search-hit");
      g.setAttribute("data-search-hit", "true");
      svg.dataset.searchHit = id;
    } else delete svg.dataset.searchHit;
  }

  function openSearch() {
    search.hidden = false;
    list();
    input.focus();
    input.select();
  }

  function closeSearch() {
    search.hidden = true;
    if (search.contains(document.activeElement)) svg.focus?.();
  }

  input.addEventListener("input", list);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      closeSearch();
    } else if (event.key === "Enter") {
      event.preventDefault();
      go();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      results.hidden = false;
      if (matches.length) mark((active + (event.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
    }
  });

  // ---------------------------------------------------------------- trace inputs / consumers

  const tools = el("div", { class: "graph-trace", role: "group", "aria-label": "Trace the selected node" });
  tools.hidden = true;
  const label = el("span", { class: "graph-trace-node" });
  const buttons = {
    inputs: el("button", { type: "button", class: "btn", id: "trace-inputs", "aria-pressed": "false", title: "Highlight everything the selected node depends on (Esc clears)" }, "Trace inputs"),
    consumers: el("button", { type: "button", class: "btn", id: "trace-consumers", "aria-pressed": "false", title: "Highlight everything the selected node feeds (Esc clears)" }, "Trace consumers"),
  };
  tools.append(label, buttons.inputs, buttons.consumers);
  for (const [direction, button] of Object.entries(buttons)) {
    button.addEventListener("click", () => toggleTrace(direction));
  }

  function toggleTrace(direction) {
    if (!selected || (traced && traced.id === selected.id && traced.direction === direction)) return clearTrace();
    const w = walk();
    if (!w || !layout()) return;
    clearTrace();
    const found = traceFrom(w.trace.graph.nodes, w.trace.graph.edges, selected.id, direction);
    const cls = TRACE_CLASS[direction];
    // The drawn boxes looked up once: a query per traced node was 1.3 s for the 80,000
    // ancestors of a node of the 50,000-line chain.
    const drawnNodes = new Map([...svg.querySelectorAll("g.node[data-node]")].map((g) => [g.dataset.node, g]));
    const drawnGroups = new Map([...svg.querySelectorAll("g.group[data-group]")].map((g) => [g.dataset.group, g]));
    const shown = (id) => drawnNodes.get(id) ?? drawnGroups.get(boxOfNode(id));
    for (const id of found.nodes) shown(id)?.classList.add(cls); // a collapsed group's box for what is in it
    shown(selected.id)?.classList.add("traced-root");
    const alias = layout()?.alias;
    const edges = alias?.size ? new Set([...found.edges].map((id) => alias.get(id) ?? id)) : found.edges;
    for (const g of svg.querySelectorAll("g.edge[data-edge], g.chip[data-edge]")) {
      if (edges.has(g.dataset.edge)) g.classList.add(cls);
    }
    traced = { id: selected.id, direction };
    svg.dataset.traced = direction;
    svg.dataset.tracedCount = String(found.nodes.size);
    buttons[direction].setAttribute("aria-pressed", "true");
  }

  function clearTrace() {
    traced = null;
    for (const cls of [...Object.values(TRACE_CLASS), "traced-root"]) {
      for (const g of svg.querySelectorAll(`.${cls}`)) g.classList.remove(cls);
    }
    delete svg.dataset.traced;
    delete svg.dataset.tracedCount;
    for (const b of Object.values(buttons)) b.setAttribute("aria-pressed", "false");
  }

  function showTools() {
    tools.hidden = !(selected && layout());
    label.textContent = selected ? `${selected.label ?? selected.name ?? selected.id}:` : "";
  }

  // ---------------------------------------------------------------- the minimap

  const mapWrap = el("div", { class: "minimap" });
  mapWrap.hidden = true;
  const map = svgEl("svg", { role: "img", "aria-label": "Minimap: click or drag to move the camera" });
  const ground = svgEl("rect", { class: "minimap-ground" });
  const mapNodes = svgEl("path", { class: "minimap-nodes" });
  const mapView = svgEl("rect", { class: "minimap-view" });
  map.append(ground, mapNodes, mapView);
  mapWrap.append(map);
  let mapFor = null; // {layout, content, t (mapTransform)}

  function buildMap(shownLayout) {
    const content = contentBox(shownLayout);
    const size = mapSize(content, { max: MAP });
    for (const e of [map, ground]) {
      e.setAttribute("width", size.width);
      e.setAttribute("height", size.height);
    }
    const t = mapTransform(content, size);
    // One path of tiny rectangles, not one element per node: 10,000 of them would be a
    // long task to create and to style.
    let d = "";
    for (const n of shownLayout.nodes) {
      const r = onMap(t, centredBox(n));
      d += `M${r.x.toFixed(1)} ${r.y.toFixed(1)}h${Math.max(r.width, 1).toFixed(1)}v${Math.max(r.height, 1).toFixed(1)}h${(-Math.max(r.width, 1)).toFixed(1)}z`;
    }
    mapNodes.setAttribute("d", d);
    mapNodes.setAttribute("data-count", String(shownLayout.nodes.length));
    mapFor = { layout: shownLayout, content, t, size };
  }

  function showMap(transform) {
    const shownLayout = layout();
    if (!shownLayout || !transform) {
      mapWrap.hidden = true;
      return;
    }
    if (mapFor?.layout !== shownLayout) buildMap(shownLayout);
    const view = zoom.viewSize();
    if (allVisible(transform, view, mapFor.content)) {
      mapWrap.hidden = true;
      return;
    }
    // Never over the drawing (issue 9 review, H9P): the first free corner, else not shown.
    // Beside an open detail panel too: it stood over t's and d's value rows, Compare runs on
    // and L's panel open, on a 1024x768 projector (a review of issue 16); the camera's note
    // and Fit say that more of the graph is off screen.
    const drawn = drawnMap(mapFor.size);
    const corner = freeCorner(view, drawn.size, obstacles(shownLayout, transform), { inset: drawn.inset });
    if (!corner) {
      mapWrap.hidden = true;
      return;
    }
    mapWrap.dataset.corner = corner;
    const r = onMap(mapFor.t, visibleBox(transform, view));
    mapView.setAttribute("x", r.x.toFixed(1));
    mapView.setAttribute("y", r.y.toFixed(1));
    mapView.setAttribute("width", r.width.toFixed(1));
    mapView.setAttribute("height", r.height.toFixed(1));
    mapWrap.hidden = false;
  }

  /**
   * The minimap's box as the page draws it ({size, inset}, px, for freeCorner): its svg of
   * `size` in a frame (navigate.css: the border), `inset` from the graph's sides (0.4rem,
   * larger with the text size). Counting the svg alone, the minimap took a corner whose
   * node it covered by 3 px (bug-overwrite at 1024x768, text at 130%: issue 14).
   */
  function drawnMap(size) {
    const style = getComputedStyle(mapWrap);
    const frame = (parseFloat(style.borderTopWidth) || 0) + (parseFloat(style.borderBottomWidth) || 0);
    // the side its corner sets (the other one reads as where it ends up, in px)
    const side = (mapWrap.dataset.corner ?? "bottom").split("-")[0];
    const inset = parseFloat(style[side]) || 6;
    return { size: { width: size.width + frame, height: size.height + frame }, inset };
  }

  /** What the minimap must not cover, in px from the svg's top left: the node boxes with
   * their focus rings, the callouts and Compare's Δ over the boxes, and the other controls
   * over the graph (badges, the detail panel, ...). */
  function obstacles(shownLayout, transform) {
    const origin = svg.getBoundingClientRect();
    const rel = (r) => ({ x: r.left - origin.left, y: r.top - origin.top, width: r.width, height: r.height });
    const boxes = shownLayout.nodes.map((n) => screenBox(transform, n, METRICS.ring));
    for (const c of svg.querySelectorAll("g.callout, text.diff-delta")) boxes.push(rel(c.getBoundingClientRect()));
    for (const e of container.children) {
      if (e !== svg && e !== mapWrap && e.getClientRects().length) boxes.push(rel(e.getBoundingClientRect()));
    }
    return boxes;
  }

  function moveFromMap(event, glide) {
    if (!mapFor) return;
    const box = map.getBoundingClientRect();
    const { size } = mapFor;
    const p = fromMap(mapFor.t, { x: (event.clientX - box.left) * (size.width / box.width), y: (event.clientY - box.top) * (size.height / box.height) });
    zoom.moveTo(centreOn(p, zoom.transform().k, zoom.viewSize()), glide);
  }
  map.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    map.setPointerCapture?.(event.pointerId);
    moveFromMap(event, duration());
  });
  map.addEventListener("pointermove", (event) => {
    if (event.buttons & 1 && map.hasPointerCapture?.(event.pointerId)) moveFromMap(event, 0);
  });

  // ---------------------------------------------------------------- the drawing changes

  svg.addEventListener("camera", (event) => {
    const now = svg.querySelector("g.viewport");
    if (now !== drawing) {
      // A new drawing: what was highlighted is gone with the old one.
      drawing = now;
      traced = null;
      hit = null;
      mapFor = null;
      clearTrace();
      delete svg.dataset.searchHit;
      showTools();
      if (!search.hidden) list();
    }
    showMap(event.detail);
  });

  // Ctrl+F opens the search anywhere on the page (the editor has no find of its own:
  // render/editor.js binds none), `/` outside text fields; Esc clears a trace before the
  // detail panel closes (capture: before its listener).
  document.addEventListener("keydown", (event) => {
    const ctrlF = (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "f";
    const slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey;
    if (ctrlF) {
      event.preventDefault();
      openSearch();
    } else if (slash && !inField(event.target)) {
      event.preventDefault();
      openSearch();
    } else if (event.key === "Escape" && !search.hidden && !search.contains(event.target) && !inField(event.target)) {
      // Esc anywhere (outside the editor and the menus) closes the search box first.
      event.preventDefault();
      event.stopPropagation();
      closeSearch();
    } else if (event.key === "Escape" && traced && !inField(event.target)) {
      event.preventDefault();
      event.stopPropagation();
      clearTrace();
    }
  }, true);

  container.append(tools, search, mapWrap);

  return {
    /** The pinned node (graph JSON) or null: the trace buttons are for it. */
    select(node) {
      selected = node ?? null;
      if (traced && traced.id !== selected?.id) clearTrace();
      showTools();
    },
    openSearch,
    closeSearch,
    get hit() { return hit; },
    /** A step was drawn (its callouts may have moved): place the minimap again. */
    refresh: () => showMap(zoom.transform()),
  };
}
