// The "Export" menu: the current step as SVG or PNG, a step range as WebM or GIF, the
// backward-pass table as Markdown or LaTeX (download or copy), and the walk as one
// standalone HTML file. Pictures are made in the page (export/snapshot.js); the table and
// the HTML come from the server (POST /api/export/{format}), which has the one
// implementation of each (engine/trace/table.py, server/export_html.py).

import { copyText, download } from "./download.js";
import { svgToPng } from "./raster.js";
import { renderStep, renderSteps } from "./snapshot.js";
import { encodeGif, recordWebm, webmType } from "./video.js";
import { currentWalk } from "../walk.js";

const MAX_FRAMES = 400; // a video of more steps would take minutes to make

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/** The file, or a TraceError-like error with the server's message. */
async function fetchExport(format, source) {
  const response = await fetch(`/api/export/${format}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ program: source.program, output: source.state?.output || null, state: source.state }),
  });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body?.error?.message ?? `the server answered ${response.status}`);
  }
  return response.blob();
}

function numberInput(name, label, attrs) {
  const input = el("input", { type: "number", name, ...attrs });
  const wrap = el("label", { class: "export-field" }, `${label} `);
  wrap.append(input);
  return { wrap, input };
}

/** The walk on screen (walk.js currentWalk) in the shape the menu uses, or null. */
function walkOnScreen() {
  const now = currentWalk();
  return now?.walk ? { ...now.walk, step: now.step, state: now.state } : null;
}

/**
 * Build the menu in `root` (an empty element). `getSource()` answers the walk shown, or
 * null when nothing can be exported: {trace, program, timeline, layout (null when the
 * graph is too big to draw), nodesById, step, state (the page state object)}.
 */
export function createExportMenu(root, getSource = walkOnScreen) {
  const menu = el("details", { class: "export-menu" });
  const summary = el("summary", { class: "btn", title: "Save this walk for slides and notes" }, "Export");
  const panel = el("div", { class: "export-panel", role: "group", "aria-label": "Export" });
  const status = el("p", { class: "export-status", role: "status", "aria-live": "polite" });
  const items = {};
  const item = (key, text, title) => {
    items[key] = el("button", { type: "button", class: "btn", "data-export": key, title }, text);
    return items[key];
  };

  const from = numberInput("from", "From step", { min: "0", value: "0" });
  const to = numberInput("to", "to", { min: "0", value: "0" });
  const seconds = numberInput("seconds", "Seconds per step", { min: "0.1", max: "10", step: "0.1", value: "1" });
  const section = (title, ...children) => {
    const box = el("div", { class: "export-section" });
    box.append(el("h2", {}, title), ...children);
    return box;
  };
  const row = (...children) => {
    const r = el("div", { class: "export-row" });
    r.append(...children);
    return r;
  };
  panel.append(
    section("This step", row(item("svg", "SVG", "The graph at this step as an SVG picture"),
      item("png", "PNG", "The graph at this step as a PNG picture (2x)"))),
    section("Steps as video", row(from.wrap, to.wrap), row(seconds.wrap),
      row(item("webm", "WebM video", "Record the steps as a WebM video (takes as long as it plays)"),
        item("gif", "Animated GIF", "The steps as an animated GIF"))),
    section("Backward-pass table", row(item("md", "Markdown", "Download the table as Markdown"),
      item("copy-md", "Copy Markdown", "Copy the table as Markdown, to paste into lecture notes"), item("tex", "LaTeX", "Download the table as LaTeX (booktabs)"),
      item("copy-tex", "Copy LaTeX", "Copy the table as LaTeX (booktabs), to paste into lecture notes"))),
    section("Offline", row(item("html", "Standalone HTML",
      "One HTML file that steps this walk with no server and no network"))),
    status,
  );
  menu.append(summary, panel);
  root.replaceChildren(menu);

  // The panel hangs from the button on whichever side has room (the top bar wraps).
  function place() {
    const button = summary.getBoundingClientRect();
    const room = document.documentElement.clientWidth;
    const leftAligned = button.left + panel.offsetWidth <= room - 8;
    panel.style.left = leftAligned ? "0" : "auto";
    panel.style.right = leftAligned ? "auto" : "0";
  }

  function say(text, state) {
    status.textContent = text;
    status.dataset.state = state; // busy | done | error: tests wait on it
  }

  // Opening the menu shows the current walk's range: by default the whole walk up to now.
  menu.addEventListener("toggle", () => {
    if (menu.open) place();
    const source = menu.open && getSource();
    if (!source) return;
    const total = String(source.timeline.length);
    for (const f of [from, to]) f.input.max = total;
    if (!rangeSet) {
      from.input.value = "0";
      to.input.value = String(source.step || source.timeline.length);
    }
    if (!webmType()) {
      items.webm.disabled = true;
      items.webm.title = "This browser cannot record WebM video (no MediaRecorder)";
    }
  });
  let rangeSet = false; // once the user picks a range it is kept (clamped to each walk)
  // "input", not "change": the menu's toggle event arrives after opening, possibly after the
  // user (or a test) has already typed a range, and must not overwrite it.
  for (const f of [from, to]) f.input.addEventListener("input", () => { rangeSet = true; });
  document.addEventListener("pointerdown", (e) => {
    if (menu.open && !menu.contains(e.target)) menu.open = false;
  });
  menu.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && menu.open) {
      menu.open = false;
      summary.focus();
      e.preventDefault();
    }
  });

  function range(source) {
    const total = source.timeline.length;
    const clamp = (v) => Math.max(0, Math.min(total, Math.round(Number(v) || 0)));
    const a = clamp(from.input.value);
    const b = clamp(to.input.value);
    const steps = [];
    for (let s = Math.min(a, b); s <= Math.max(a, b); s += 1) steps.push(s);
    if (steps.length > MAX_FRAMES) throw new Error(`at most ${MAX_FRAMES} steps in one video`);
    if (steps.length < 2) throw new Error("a video needs at least two steps: widen the range");
    return steps;
  }

  function picture(source) {
    if (!source.layout) throw new Error("this graph is too big to draw, so it has no picture");
    return source;
  }

  // gradwalk-seed-tanh-fanout-step-9.svg; "program" for the user's own text.
  const name = (source, what) => `gradwalk-${source.state?.preset || "program"}-${what}`;
  const secondsPerStep = () => Math.max(0.1, Math.min(10, Number(seconds.input.value) || 1));

  const ACTIONS = {
    async svg(source) {
      const { svg } = renderStep(picture(source), source.step);
      download(new Blob([svg], { type: "image/svg+xml" }), name(source, `step-${source.step}.svg`));
    },
    async png(source) {
      const { svg, width, height } = renderStep(picture(source), source.step);
      download(await svgToPng(svg, width, height, 2), name(source, `step-${source.step}.png`));
    },
    async webm(source) {
      const steps = range(picture(source));
      const frames = renderSteps(source, steps);
      const blob = await recordWebm(frames, secondsPerStep(),
        (i) => say(`Recording step ${steps[i]} (${i + 1} of ${steps.length})…`, "busy"));
      download(blob, name(source, `steps-${steps[0]}-${steps.at(-1)}.webm`));
    },
    async gif(source) {
      const steps = range(picture(source));
      const frames = renderSteps(source, steps);
      const blob = await encodeGif(frames, secondsPerStep(),
        (i) => say(`Encoding step ${steps[i]} (${i + 1} of ${steps.length})…`, "busy"));
      download(blob, name(source, `steps-${steps[0]}-${steps.at(-1)}.gif`));
    },
    async md(source) { download(await fetchExport("md", source), name(source, "table.md")); },
    async tex(source) { download(await fetchExport("tex", source), name(source, "table.tex")); },
    async "copy-md"(source) { await copyText(await (await fetchExport("md", source)).text()); return "Copied the Markdown table."; },
    async "copy-tex"(source) { await copyText(await (await fetchExport("tex", source)).text()); return "Copied the LaTeX table."; },
    async html(source) { download(await fetchExport("html", source), name(source, "walk.html")); },
  };

  let busy = false;
  panel.addEventListener("click", async (event) => {
    const key = event.target.closest("button[data-export]")?.dataset.export;
    if (!key || busy) return;
    const source = getSource();
    if (!source) return say("Trace a program first: there is no walk to export.", "error");
    busy = true;
    for (const b of Object.values(items)) b.setAttribute("aria-disabled", "true");
    say("Making the file…", "busy");
    try {
      const message = await ACTIONS[key](source);
      say(message ?? "Done: see your downloads.", "done");
    } catch (error) {
      say(`Could not export: ${error.message ?? error}`, "error");
    } finally {
      busy = false;
      for (const b of Object.values(items)) b.removeAttribute("aria-disabled");
    }
  });
}
