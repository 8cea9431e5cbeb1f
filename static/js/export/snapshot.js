// Pictures of a step as standalone SVG. Each step is drawn by the page's own render code
// (render/graph.js) into an off-screen <svg> that the page's stylesheets style, so the
// picture is the page's picture; then every element gets the computed styles it needs
// inlined, so the file reads alone (no stylesheet, no theme variables), in a slide and on a
// projector. The user's view is never touched: no camera, no pulse, no step change.

import { narrate } from "../narration.js";
import { pageNonce } from "../render/dom.js";
import { drawGraph, showView } from "../render/graph.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const PAD = 24; // layout units around the drawing
const CAPTION_FONT = 22; // px: the narration line under the drawing

// The properties that change how SVG draws; anything else is layout for HTML.
const PROPS = [
  "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity",
  "stroke-linecap", "stroke-linejoin", "opacity", "filter", "font-family", "font-size",
  "font-weight", "font-style", "letter-spacing", "text-anchor", "dominant-baseline",
];

/** `fn(svg)` with an empty <svg> in the document (so the stylesheets apply), removed after. */
function withScratch(fn) {
  const host = document.createElement("div");
  host.setAttribute("aria-hidden", "true");
  // Off screen but rendered: getBBox and getComputedStyle need a laid-out element.
  host.style.cssText = "position:fixed;left:-100000px;top:0;width:4000px;height:3000px;pointer-events:none;";
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "export-scratch");
  // A class toggled by a step would otherwise be read mid-transition (.node's opacity).
  // (In the host, not the svg: drawGraph empties the svg.)
  const still = document.createElement("style");
  still.nonce = pageNonce(document); // the page's style policy admits only its nonce's
  still.textContent = ".export-scratch * { transition: none !important; animation: none !important; }";
  host.append(still, svg);
  document.body.append(host);
  try {
    return fn(svg);
  } finally {
    host.remove();
  }
}

/** Styles of a bare element of each tag: only what differs from them is written. */
function defaultsFor(svg) {
  const cache = new Map();
  return (tag) => {
    if (!cache.has(tag)) {
      const probe = svg.appendChild(document.createElementNS(SVG_NS, tag));
      const style = getComputedStyle(probe);
      cache.set(tag, Object.fromEntries(PROPS.map((p) => [p, style.getPropertyValue(p)])));
      probe.remove();
    }
    return cache.get(tag);
  };
}

/** A copy of `source` (an element in the document) with its computed styles inlined. */
function inlineCopy(source, defaults, { keepHidden = false } = {}) {
  const copy = source.cloneNode(true);
  const originals = [source, ...source.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  originals.forEach((el, i) => {
    const out = copies[i];
    const style = getComputedStyle(el);
    if (style.display === "none" && !keepHidden) return out.remove();
    const base = defaults(el.tagName);
    const decls = PROPS.map((p) => [p, style.getPropertyValue(p)]).filter(([p, v]) => v && v !== base[p]);
    // through the CSSOM: the page's style policy refuses a style attribute set as markup
    if (decls.length) out.style.cssText = decls.map(([p, v]) => `${p}:${v}`).join(";");
    else out.removeAttribute("style");
    // Few SVG renderers know text-transform: write the letters as they are shown.
    if (el.tagName === "text" && style.textTransform === "uppercase" && !el.children.length) {
      out.textContent = el.textContent.toUpperCase();
    }
  });
  return copy;
}

function union(a, b) {
  if (!a) return b;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/** The caption: "step 9 / 16 · t = tanh(d), so d̄ += ..." as one line under the drawing. */
function caption(svg, text, box) {
  const t = svg.appendChild(document.createElementNS(SVG_NS, "text"));
  t.setAttribute("class", "export-caption");
  t.setAttribute("x", String(box.x));
  t.setAttribute("y", String(box.y + box.height + CAPTION_FONT * 1.6));
  t.style.font = `600 ${CAPTION_FONT}px var(--sans, sans-serif)`;
  t.style.fill = "var(--ink, #0f172a)";
  t.textContent = text;
  const b = t.getBBox();
  return { el: t, box: union(box, { x: b.x, y: b.y, width: b.width, height: b.height + CAPTION_FONT * 0.4 }) };
}

function background() {
  // The page's paper colour, so a dark or projector theme stays readable on white slides too.
  const color = getComputedStyle(document.body).backgroundColor;
  return color && color !== "rgba(0, 0, 0, 0)" ? color : "#ffffff";
}

/**
 * Standalone SVG documents of `steps` (step numbers) of the walk `source`
 * ({layout, timeline, nodesById, trace}), all with one viewBox (the union of their
 * drawings), so they can be frames of one video. Returns {svgs: string[], width, height}
 * in CSS pixels (1 layout unit = 1 px).
 */
export function renderSteps(source, steps) {
  const { layout, timeline, nodesById, trace } = source;
  return withScratch((svg) => {
    const defaults = defaultsFor(svg);
    drawGraph(svg, layout, { outputId: trace.output?.node });
    svg.querySelector("g.pulses")?.remove();
    const world = svg.querySelector("g.world");
    const frames = [];
    let box = null;
    for (const step of steps) {
      const view = timeline.at(step);
      showView(svg, layout, view, { animate: false });
      const words = narrate(view.event, nodesById);
      const text = `step ${step} / ${timeline.length}${words ? ` · ${words}` : ""}`;
      const drawn = world.getBBox();
      const line = caption(world, text, drawn);
      box = union(box, line.box);
      frames.push(inlineCopy(world, defaults));
      line.el.remove();
    }
    const x = box.x - PAD;
    const y = box.y - PAD;
    const width = Math.ceil(box.width + 2 * PAD);
    const height = Math.ceil(box.height + 2 * PAD);
    const defs = inlineCopy(svg.querySelector("defs"), defaults, { keepHidden: true }); // never drawn itself
    const paper = background();
    // What every element inherits from the page (the font above all): on the root, since
    // only differences from it were written on the elements.
    const inherited = getComputedStyle(svg);
    const rootStyle = PROPS.map((p) => [p, inherited.getPropertyValue(p)]).filter(([, v]) => v)
      .map(([p, v]) => `${p}:${v}`).join(";");
    const svgs = frames.map((frame, i) => {
      const root = document.createElementNS(SVG_NS, "svg");
      root.setAttribute("viewBox", `${x} ${y} ${width} ${height}`);
      root.style.cssText = rootStyle; // CSSOM: the style policy refuses the attribute
      root.setAttribute("width", String(width));
      root.setAttribute("height", String(height));
      const title = root.appendChild(document.createElementNS(SVG_NS, "title"));
      title.textContent = `gradwalk: step ${steps[i]} of ${timeline.length}`;
      const rect = root.appendChild(document.createElementNS(SVG_NS, "rect"));
      for (const [k, v] of Object.entries({ x, y, width, height, fill: paper })) rect.setAttribute(k, String(v));
      root.append(defs.cloneNode(true), frame);
      return new XMLSerializer().serializeToString(root);
    });
    return { svgs, width, height };
  });
}

/** One step as a standalone SVG document: {svg, width, height}. */
export function renderStep(source, step) {
  const { svgs, width, height } = renderSteps(source, [step]);
  return { svg: `<?xml version="1.0" encoding="UTF-8"?>\n${svgs[0]}\n`, width, height };
}
