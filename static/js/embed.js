// The embed page (templates/embed.html): one walk, read-only, for slides and web pages.
// State from the server's inlined `initial-state` (GET /embed/s/{id}), else the fragment;
// options from the query string (embedding.js). The trace comes from the inlined
// `initial-trace` (standalone export: no request at all) or from exactly one POST
// /api/trace; no stream is held open, so a deck of ten embeds costs ten requests.
//
// Driven by keys when it has the focus (clickers: PageDown / PageUp; →/← and Space /
// Shift+Space step too; P plays or pauses; Home / End) and by postMessage from its parent:
//   {type: "gradwalk:step", delta: +1 | -1}   {type: "gradwalk:goto", step: N}
//   {type: "gradwalk:play"}   {type: "gradwalk:pause"}   {type: "gradwalk:ping"} (reply only)
// After every change it posts {type: "gradwalk:state", step, steps, phase, playing} to its
// parent, phase = "loading" | "error" | "start" | "forward" | "backward" | "done"; once its
// walk is ready (on every load: a deck may reload it), {type: "gradwalk:ready", steps} first.

import { fetchTrace } from "./api.js";
import { kindWords } from "./format.js";
import { fetchIteration, fetchRun, iterationNarration, steppable } from "./train.js";
import { createBoundary } from "./render/boundary.js";
import { createLossCurve } from "./render/losscurve.js";
import { embedOptions, embedProblems } from "./embedding.js";
import { renderStep } from "./export/snapshot.js";
import { narrate } from "./narration.js";
import { showNarration } from "./render/narration_line.js";
import { readLinkState } from "./permalink.js";
import { markDead } from "./render/dead.js";
import { createPlayer } from "./render/player.js";
import { createDetailPanel } from "./render/detail.js";
import { createQuizSession } from "./quiz-session.js";
import { createLiveSender, followRoom, newerRoom, refuseRoom } from "./live.js";
import { rangeOf } from "./spans.js";
import { createStore, encodeLink, linkState, TRAIN_FIELDS } from "./state.js";
import { applyTheme } from "./theme.js";
import { isTouch, isUpright, keepBarHeight, swipeToStep, watchNarrow } from "./render/touch.js";
import { boxOf } from "./boxes.js";
import { READABLE_SCALE } from "./viewport.js";
import { createGraphPanel, createPlayback, PLAYER_KEYS, prepareWalk, provideWalk, stepSpan, WHOLE_MIN } from "./walk.js";

const root = document.getElementById("embed");
const svg = root.querySelector("svg");
const narration = root.querySelector(".narration");
const programBox = root.querySelector(".embed-program");
const graphMessage = root.querySelector(".graph-message");
const openFull = root.querySelector(".open-full");

const liveRoom = root.dataset.live; // the student page of a live room (templates/live.html)
// a room's state of a newer version is said as the pill says it while following (live.js)
const link = liveRoom ? readLinkState(document, location, "live room", newerRoom) : readLinkState(document, location);
// A student's look is their own (a phone in the lecturer's projector theme reads badly): a
// live room's state gives the walk and the step, not the theme or the font.
const ownLook = (state) => state && Object.fromEntries(Object.entries(state).filter(([name]) => name !== "theme" && name !== "font"));
const options = embedOptions(location.search, liveRoom ? ownLook(link.state) : link.state);
// Train mode's fields too: a link to a chosen training iteration embeds that iteration's walk.
const trainFields = Object.fromEntries(["mode", ...TRAIN_FIELDS].filter((name) => link.state && Object.hasOwn(link.state, name))
  .map((name) => [name, link.state[name]]));
const store = createStore({
  program: link.state?.program ?? "", output: link.state?.output ?? "", speed: options.speed,
  theme: options.theme, font: options.font, quiz: link.state?.quiz ?? "", ...trainFields,
});
let walk = null; // prepareWalk's result, once traced
let pendingStep = options.step; // where to go once traced (goto and step messages move it)
let phase = "loading";

applyTheme(document.documentElement, options);
root.dataset.controls = String(options.controls);
root.dataset.narration = String(options.narration);
root.dataset.program = String(options.program);
root.dataset.print = String(options.print);
programBox.hidden = !options.program;
noteOptions(embedProblems(location.search));

const total = () => walk?.timeline.length ?? 0;
// A quiz in the link (issue 16) stops the walk at each question; at the end its result goes
// to the page around the embed: {type: "gradwalk:result", score, max, answers} (docs/slides.md).
const quiz = createQuizSession(root, {
  store, before: narration, seek: (step) => playback.actions.seek(step), changed: () => render(),
  reveal: (ids) => walk?.layout && panel.zoom.reveal(boxOf(walk.layout, ids), { add: true }), // with the step's note
  onEnd: (message) => window.parent !== window && window.parent.postMessage(message, "*"),
});
const reachable = () => (walk ? quiz.limit(total()) : 0);
const playback = createPlayback(store, { total: reachable, steppable: () => Boolean(walk) });
// A live room's student follows the lecturer until they step themselves (live.js).
const live = liveRoom && link.state
  ? followRoom(liveRoom, { root, pill: root.querySelector("#live-pill"), go, walkState: link.state })
  : null;
if (liveRoom && !link.state) refuseRoom(root, root.querySelector("#live-pill"), link.error);
const actions = live ? live.detaching(playback.actions) : playback.actions;
const player = createPlayer(root.querySelector(".player"), actions);
let presenter = null; // a live room this embed steps ({type: "gradwalk:live"} from the deck)
provideWalk(() => ({ svg, walk, state: store.get() }));
// A phone (render/touch.js): the whole graph only while its numbers read (14 px), a swipe steps.
const narrow = watchNarrow(() => {});
// A node tapped (or clicked, or Enter) shows its detail panel, as the explorer's does: on the
// live page a tap showed nothing (issue 17 §2). A bottom sheet on a phone (narrow.css).
let pinned = null; // the node whose detail panel is open, or null
const panel = createGraphPanel(svg, {
  message: graphMessage, readableWhole: () => narrow.matches,
  onHover: (node, { pin = false } = {}) => pin && select(pinned === node ? null : node),
});
const detail = createDetailPanel(svg.parentNode, { onClose: () => select(null) });
// The sheet sits on the narration, above the bar (narrow.css): on the narration it hid the
// step's sentence while the lecturer stepped on (review of fb96ca3)
const embedBar = root.querySelector(".embed-bar");
keepBarHeight(options.narration ? narration : embedBar, root, "--bar-h", { toFoot: true, watch: [embedBar] });
swipeToStep(svg, actions); // a student's swipe detaches as the player's buttons do

// ---------------------------------------------------------------- showing a step

function showProgram(span) {
  const text = store.get().program;
  const range = span && rangeOf(text, span);
  if (!range) return programBox.replaceChildren(text);
  const mark = document.createElement("mark");
  mark.textContent = text.slice(range[0], range[1]);
  programBox.replaceChildren(text.slice(0, range[0]), mark, text.slice(range[1]));
  mark.scrollIntoView({ block: "nearest" });
}

/**
 * print=1: the step as a static SVG picture in an <img> (export/snapshot.js, the page's own
 * drawing with its styles inlined) in place of the live graph, so that a deck printed to PDF
 * keeps the walk (hakimel/reveal.js#2795: a printed iframe's live view comes out empty).
 */
function showPicture(step) {
  const { svg: text } = renderStep(walk, step);
  let img = root.querySelector("img.print-step");
  if (!img) {
    img = document.createElement("img");
    img.className = "print-step";
    svg.after(img);
  }
  img.alt = `The computation graph at step ${step} of ${total()}`;
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  root.dataset.picture = String(step);
}

/** Tell the parent page (a slide deck) where the walk is. */
function post() {
  if (window.parent === window) return;
  const { step, playing } = store.get();
  window.parent.postMessage({ type: "gradwalk:state", step, steps: total(), phase, playing }, "*");
}

/** Open the detail panel of `node` at the step shown, or (null) close it. */
function select(node) {
  pinned = node;
  const view = pinned && walk ? walk.timeline.at(store.get().step) : null;
  if (view) detail.show(walk, view, pinned, quiz.hidden(view));
  else detail.hide();
}

function render({ animate = false } = {}) {
  const state = store.get();
  if (walk) {
    const view = walk.timeline.at(state.step);
    phase = view.phase;
    const duration = state.playing ? Math.min(700, 0.8 * playback.stepDuration()) : 700;
    panel.show(walk, view, { animate, duration });
    markDead(svg, walk.trace.dead_units ?? []); // a training iteration's (render/dead.js)
    quiz.show(view, svg);
    if (pinned) detail.show(walk, view, pinned, quiz.hidden(view));
    const said = narrate(view.event, walk.nodesById, { touch: isTouch() });
    // a training iteration's walk says which iteration it is (the embed has no Train panel)
    showNarration(narration, root.dataset.iteration ? iterationNarration(Number(root.dataset.iteration), said) : said);
    narration.dataset.kind = view.event?.kind ?? "start";
    if (options.program) showProgram(stepSpan(walk, view));
    if (options.print) showPicture(state.step);
  }
  player.update({ ...state, total: total(), phase, disabled: !walk });
  root.dataset.step = String(state.step);
  root.dataset.phase = phase;
  const full = explorerLink(state);
  if (full) openFull.href = full;
  else openFull.hidden = true;
  post();
}

/**
 * The explorer's URL for `state`, or null where this page has no base to resolve it against:
 * an `<iframe srcdoc>` (the notebook widget's fallback, server/widget.py) is at about:srcdoc.
 */
function explorerLink(state) {
  try {
    return new URL(`/#${encodeLink(state)}`, location.href).href;
  } catch {
    return null;
  }
}

store.subscribe((state, before) => {
  if (state.step !== before.step && walk) presenter?.send(linkState(state));
  if (state.step !== before.step) render({ animate: state.step === before.step + 1 });
  else if (state.playing !== before.playing || state.speed !== before.speed) render();
});

/**
 * Options whose value was ignored (print=2, theme=pink): said in a note over the graph, naming
 * what each takes, so that a deck's author sees why `print=2` printed nothing; a click hides it.
 */
function noteOptions(problems) {
  if (!problems.length) return;
  root.dataset.optionProblems = String(problems.length);
  const note = document.createElement("p");
  note.className = "embed-options-note";
  note.setAttribute("role", "note");
  note.title = "Click to hide";
  note.textContent = problems.join(" ");
  note.addEventListener("click", () => note.remove());
  root.querySelector(".graph-wrap").prepend(note);
}

/** Instead of a walk: why (a bad link, a program error, no server). */
function fail(message) {
  phase = "error";
  root.dataset.status = "error";
  graphMessage.hidden = false;
  graphMessage.textContent = message;
  showNarration(narration, "", { typeset: false });
  render();
}

/**
 * A Train-mode link's run beside the graph: its loss curve (up to the chosen iteration `at`,
 * marked; else the whole run) and, for 2-D points, its boundary (after update `at`, or the
 * last). `run`: POST /api/train's answer (losses, boundary, data, classes, and `diverged`
 * {iteration, why} from the notebook widget's body); `steps`: the run's iterations.
 */
function showRun(run, at, steps = store.get().train_steps) {
  const aside = document.createElement("aside");
  aside.className = "embed-train train-plots";
  aside.setAttribute("aria-label", "Training");
  root.append(aside);
  root.dataset.train = "true";
  const note = run.diverged ? { at: run.diverged.iteration, text: `diverged at ${run.diverged.iteration}` } : null;
  createLossCurve(aside).draw({ series: [{ kind: "run", name: "loss", losses: run.losses }], steps, cursor: at, note });
  if (!run.boundary || run.data?.X?.[0]?.length !== 2) return;
  createBoundary(aside).draw({ boundary: run.boundary, data: run.data, classes: run.classes });
}

// ---------------------------------------------------------------- keys and messages

// Presentation keys: Space and Shift+Space step like a slide deck's; P plays or pauses.
const EMBED_KEYS = { ...PLAYER_KEYS, " ": "forward", p: "togglePlay", P: "togglePlay" };

function go(step) {
  if (walk) playback.actions.seek(step);
  else pendingStep = Math.max(0, step);
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  if (event.target.matches?.("select, input")) return; // the speed menu and the quiz's box keep their keys
  const action = event.key === " " && event.shiftKey ? "back" : EMBED_KEYS[event.key];
  if (!action) return;
  event.preventDefault(); // no scroll, no second "click" on a focused button
  if (!walk) {
    if (action === "forward" || action === "back") pendingStep += action === "forward" ? 1 : -1;
    return;
  }
  actions[action]();
});

window.addEventListener("message", (event) => {
  if (event.source !== window.parent || window.parent === window) return;
  const { type, delta, step } = event.data ?? {};
  if (type === "gradwalk:step" && Number.isInteger(delta)) go((walk ? store.get().step : pendingStep) + delta);
  else if (type === "gradwalk:goto" && Number.isInteger(step)) go(step);
  else if (type === "gradwalk:play") playback.actions.play();
  else if (type === "gradwalk:pause") playback.actions.pause();
  else if (type === "gradwalk:ping") post();
  else if (type === "gradwalk:live" && typeof event.data.room === "string" && typeof event.data.token === "string") {
    presenter = createLiveSender(event.data.room, event.data.token);
    if (walk) presenter.send(linkState(store.get()));
  }
});

// ---------------------------------------------------------------- start

/** The trace inlined by a standalone export, or null. */
function inlinedTrace() {
  const script = document.getElementById("initial-trace");
  if (!script) return null;
  try {
    return JSON.parse(script.textContent);
  } catch {
    return null;
  }
}

/**
 * An inlined training iteration (the notebook widget's fallback in train mode: its body
 * carries `train`, {losses, iteration, steps, diverged}, server/widget_modes.py) with its
 * loss curve beside it and its zero_grad steps' zeros; any other trace as it is.
 */
function inlinedIteration(trace) {
  if (!trace?.train) return trace;
  const { iteration, steps } = trace.train;
  root.dataset.iteration = String(iteration);
  showRun(trace.train, iteration, steps);
  return steppable(trace);
}

async function start() {
  if (link.error) return fail(link.error);
  const { program, output } = store.get();
  if (!link.state || !program.trim()) {
    return fail("No walk to show: this embed's link holds no program. Copy the embed code from "
      + "gradwalk's Share button.");
  }
  if (location.protocol === "file:") openFull.hidden = true; // no explorer next to a file
  let result = inlinedIteration(inlinedTrace());
  if (!result) {
    try {
      // a Train-mode link with an iteration chosen shows that iteration's recorded walk, and
      // its run up to there; without one, the program's walk and the whole run
      const { mode, train_chosen: chosen, train_iteration: k } = store.get();
      let run = null;
      if (mode === "train" && chosen) {
        result = await fetchIteration(store.get(), k);
        run = result.run;
        root.dataset.iteration = String(k);
      } else if (mode === "train") {
        [result, run] = await Promise.all([fetchTrace(program, output || null), fetchRun(store.get()).catch(() => null)]);
      } else result = await fetchTrace(program, output || null);
      if (run) showRun(run, chosen ? k : null);
    } catch (error) {
      const where = error.detail?.line == null ? "" : ` (line ${error.detail.line})`;
      const said = error.detail ? `${kindWords(error.detail.kind)}: ${error.detail.message}` : error.message;
      return fail(`Not traced${where}: ${said}`);
    }
  }
  // Top to bottom on an upright phone or tablet; a Train link's graph keeps left to right
  // under its plots (its XOR net, upright, opened with nodes under the camera's note).
  walk = prepareWalk(result, program, { upright: isUpright() && root.dataset.train !== "true" });
  select(null);
  quiz.setWalk(walk);
  root.dataset.graph = panel.draw(walk);
  // A slide shows the whole graph when it still reads from the back of the room; a bigger
  // one is shown around the current step, as in the explorer. Larger text (font=) raises
  // that floor; the projector theme does not (its numbers asked for scale 0.89, and the
  // tanh example, whole at 0.86 in 1000x600, lost its output off the right edge).
  // a phone does not scale the slide up, so there the floor is READABLE_SCALE (14 px numbers)
  const floor = (narrow.matches ? READABLE_SCALE : WHOLE_MIN) * options.font;
  // A phone whose automatic view shows the whole graph already keeps it, at 14 px or more: it
  // has each step's `+=` note in view too (the drawing alone fitted larger cut a's note at the
  // top, polish17).
  if (!(narrow.matches && svg.dataset.whole === "true")) panel.fitWhole(walk, floor);
  root.dataset.status = "ready";
  if (window.parent !== window) window.parent.postMessage({ type: "gradwalk:ready", steps: total() }, "*");
  store.set({ step: Math.min(Math.max(0, pendingStep), reachable()) }); // past the end (or a question): the last
  render();
  if (options.autoplay) playback.actions.play();
}

render();
start();
