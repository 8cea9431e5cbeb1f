// The Train panel (issue 15 §3): steps, learning rate, optimizer and the no_zero_grad bug;
// Train / Pause / Step one iteration; the loss curve (render/losscurve.js) and, for a 2-D
// input, the decision boundary (render/boundary.js); and the iteration slider, whose choice
// asks for that iteration recorded and hands its walk to the page's player (`onIteration`).
// Takes its root element; no global ids. The settings and the chosen iteration live in the
// page's store (state.js train_*), so links keep them.
//
// The run is streamed whole and shown up to a cursor (train.js): Train moves the cursor a few
// iterations a frame, Pause stops it, Step moves it one iteration. With the bug on, the fixed
// run streams beside it and its curve is drawn dashed under the buggy one.

import {
  addTrainEvent, arrived, createRun, deadByNode, deadText, divergedText, drawnText, formatLoss, outputsText, iterationKey, iterationRange, iterationText,
  MAX_STEPS, OPTIMIZERS, runView, streamTraining, trainRequest,
} from "../train.js";
import { readTrainSteps } from "../train-rules.js";
import { createBoundary } from "./boundary.js";
import { createLossCurve } from "./losscurve.js";
import { el } from "./dom.js";
import { createFieldChecks } from "./train-fields.js";

const PLAY_SECONDS = 4; // a whole run, played
// The status line's word on the chosen iteration, by what the graph draws (inGraph): as long
// each way, so that the line does not wrap anew when the walk arrives.
const STEPPED = {
  stepped: () => ", stepped in the graph",
  loading: () => ", loading into the graph",
  no: (k) => `, not in the graph: Step iteration ${k}`,
};
const OPTIMIZER_NAMES = { sgd: "SGD", momentum: "Momentum", adam: "Adam" };

/**
 * The panel, appended to `root`. `store` holds the train_* fields and the program;
 * `onIteration(k)` asks the page to show iteration k's recorded walk; `onDead(dead)` marks
 * the units dead by the iteration shown on the graph; `onError(detail)` shows a refused run
 * next to the program. Returns {node, show(visible), showDrawn(drawn), reset()}.
 */
export function createTrainPanel(root, { store, onIteration, onDead, onError, frame = requestAnimationFrame }) {
  const doc = root.ownerDocument;
  const section = el(doc, "section", { id: "train", class: "train", "aria-label": "Training", "data-status": "idle", hidden: "" });
  // text, not a number box: a number box empties "abc" and rounds, so the refusal under it
  // could not quote what was typed (render/train-fields.js)
  const steps = el(doc, "input", { id: "train-steps", type: "text", size: "5", inputmode: "numeric", "aria-label": "Iterations", title: `1 to ${MAX_STEPS.toLocaleString("en")}` });
  // "(0–300)" beside 301: the numbers the status line and the slider read (iterations count
  // from 0; "Steps 301" beside "iteration 300 of 0–300" read as two counts)
  const range = el(doc, "output", { id: "train-steps-range", class: "train-steps-range", for: "train-steps" });
  const lr = el(doc, "input", { id: "train-lr", type: "text", size: "5", inputmode: "decimal", "aria-label": "Learning rate" });
  const optimizer = el(doc, "select", { id: "train-optimizer", "aria-label": "Optimizer" },
    ...OPTIMIZERS.map((o) => new Option(OPTIMIZER_NAMES[o], o)));
  const bug = el(doc, "input", { id: "train-bug", type: "checkbox" });
  const run = el(doc, "button", { id: "train-run", type: "button", class: "btn primary" }, "▶ Train");
  const pause = el(doc, "button", { id: "train-pause", type: "button", class: "btn" }, "❚❚ Pause");
  const step = el(doc, "button", { id: "train-step", type: "button", class: "btn", title: "Show one more iteration" }, "Step one iteration");
  const status = el(doc, "p", { id: "train-status", class: "train-status", role: "status" });
  const checks = createFieldChecks(doc, { steps, lr });
  const deadLine = el(doc, "p", { id: "train-dead", class: "train-dead", hidden: "" });
  const outputs = el(doc, "p", { id: "train-outputs", class: "train-outputs", hidden: "" });
  const slider = el(doc, "input", { id: "train-iteration", type: "range", min: "0", max: "0", value: "0", "aria-label": "Iteration to step through" });
  const sliderText = el(doc, "output", { class: "train-iteration-text" });
  const open = el(doc, "button", { id: "train-open", type: "button", class: "btn", title: "Step this iteration's forward, zero_grad, backward and update in the graph" }, "Step iteration 0");
  // Which iteration's numbers the graph shows: the status line describes the run (iteration
  // 300 after Train) while the graph may still step the starting weights (a review).
  const drawnLine = el(doc, "output", { id: "train-drawn", class: "train-drawn", "data-iteration": "" });
  const plots = el(doc, "div", { class: "train-plots" });
  const controls = el(doc, "div", { class: "train-controls" },
    el(doc, "label", { title: "How many iterations to train, numbered from 0; each one is a forward pass (its loss), zero_grad, a backward pass and an update" }, "Iterations ", steps, " ", range), el(doc, "label", {}, "lr ", lr), optimizer,
    el(doc, "label", { class: "train-bug", title: "The bug lab: skip zero_grad, so the adjoints pile up across iterations; the fixed run is drawn dashed beside it" }, bug, " no zero_grad"),
    el(doc, "span", { class: "train-buttons" }, run, pause, step),
    checks.node, status, outputs, deadLine,
    // the line beside the button, in the slider's row: a row of its own took the graph's
    // height (at 1024x768 under the 260 px the graph keeps)
    el(doc, "div", { class: "train-slider" }, el(doc, "label", {}, "Iteration ", slider), sliderText, drawnLine, open));
  section.append(controls, plots);
  root.prepend(section);
  const curve = createLossCurve(plots);
  const boundary = createBoundary(plots);

  let shown = null; // {run, fix, key}: the runs streaming or streamed, for request `key`
  let cursor = -1; // the iteration shown
  let playing = false;
  let ticking = false;
  let deadSent = null; // the dead units last handed to onDead, as JSON
  let clock = null; // {at: ms, from: iteration}: where playing started (playedTo)
  let abort = null;
  let dragging = false; // the slider's thumb moved and not yet let go ("input" before "change")
  let drawn = { iteration: null, starting: false, loading: null, key: null, loadingKey: null }; // the graph's pass (showDrawn)
  let statusFrom = null; // {view, at}: the runViews the status line was last written from (render)

  /** The store's settings into the controls; a box typed in, or refused, keeps its text. */
  function showSettings() {
    const s = store.get();
    if (doc.activeElement !== steps && !checks.marked(steps)) steps.value = String(s.train_steps);
    showRange(s.train_steps);
    if (doc.activeElement !== lr && !checks.marked(lr)) lr.value = String(s.train_lr);
    optimizer.value = s.train_optimizer;
    bug.checked = s.train_bug;
  }
  /** The Iterations box's note for `n` iterations: "(0–300)". */
  function showRange(n) {
    range.textContent = `(${iterationRange(n)})`;
  }
  store.subscribe((s, before) => {
    const settings = ["train_steps", "train_lr", "train_optimizer", "train_bug"].some((k) => s[k] !== before[k]);
    if (settings) showSettings();
    // the iteration chosen is the one the status line, the curve's marker and the boundary
    // describe; with one chosen, new settings are a new run to show it in (render trains it)
    if (s.train_iteration !== before.train_iteration || s.train_chosen !== before.train_chosen || (settings && s.train_chosen)) render();
  });
  showSettings();

  // a value no run takes stays in its box, said under it (render/train-fields.js): the store
  // keeps the last good one, which ▶ Train does not use while a box is refused
  const setting = (control, read) => control.addEventListener("change", () => {
    const patch = read();
    if (patch) store.set(patch);
  });
  // the note follows the box as it is typed in (the store takes the number on "change"), and
  // a refused box is unmarked as soon as it reads
  steps.addEventListener("input", () => {
    checks.settle(steps);
    const v = readTrainSteps(steps.value);
    if (v !== undefined) showRange(v);
  });
  lr.addEventListener("input", () => checks.settle(lr));
  setting(steps, () => checks.patch(steps, "train_steps"));
  setting(lr, () => checks.patch(lr, "train_lr"));
  setting(optimizer, () => ({ train_optimizer: optimizer.value }));
  setting(bug, () => ({ train_bug: bug.checked }));

  /** The key of the run the store describes: a new one means training again. */
  const keyOf = (s) => JSON.stringify(trainRequest(s));

  /**
   * Start streaming the run the store describes (and its fix, with the bug on). `whole`: show
   * the run to its end as it arrives, not played (the context of a chosen iteration).
   */
  function start({ whole = false } = {}) {
    stop();
    const s = store.get();
    const controller = (abort = new AbortController());
    shown = { run: createRun(), fix: s.train_bug ? createRun() : null, key: keyOf(s), error: null, whole };
    const mine = shown;
    cursor = -1;
    setStatus("training");
    const stream = (body, into) => streamTraining(body, {
      signal: controller.signal, onEvent: (ev) => { addTrainEvent(into, ev); tick(); },
    });
    const runs = [stream(trainRequest(s), mine.run)];
    if (mine.fix) runs.push(stream(trainRequest(s, { fixed: true }), mine.fix));
    section.dataset.stream = "open"; // "closed" once the server's last event is in: tests time the page's lag
    Promise.all(runs).then(() => {
      if (shown !== mine) return;
      section.dataset.stream = "closed";
      tick();
    }, (error) => {
      if (error.name === "AbortError" || shown !== mine) return;
      mine.error = error.detail ?? { kind: "page", message: String(error.message ?? error) };
      playing = false;
      setStatus("error");
      onError?.(mine.error);
      render();
    });
  }

  /** Stop the streams (a new run, another program, another mode). */
  function stop() {
    abort?.abort();
    abort = null;
    playing = false;
  }

  function setStatus(name) {
    section.dataset.status = name; // idle | training | paused | done | diverged | error: tests read it
  }

  /**
   * Ask for a frame (once: events arriving between two frames wait for it). A frame moves the
   * cursor on and draws once: the stream brings a 3,000-step run's events far faster than a
   * screen refreshes, and drawing the curve and the boundary at each event took 20 s.
   */
  function tick() {
    if (ticking || !shown) return;
    ticking = true;
    frame((now) => {
      ticking = false;
      if (!shown) return;
      const last = arrived(shown.run) - 1;
      if (playing) cursor = Math.min(last, playedTo(now ?? performance.now()));
      else if (shown.whole) cursor = last;
      const diverged = shown.run.diverged;
      if (diverged && cursor >= diverged.i) return halt(diverged.i);
      if ((playing || shown.whole) && shown.run.done && cursor >= last) {
        shown.whole = false;
        playing = false;
        setStatus("done");
      }
      render();
      if (playing) tick();
    });
  }

  /**
   * The run diverged at iteration `i`: shown up to it and stopped there (its later numbers
   * are NaN or infinite; the stream is closed).
   */
  function halt(i) {
    cursor = i;
    shown.whole = false;
    stop();
    setStatus("diverged");
    render();
  }

  /**
   * The iteration playing has reached at time `now` (ms): a run of any length plays in about
   * PLAY_SECONDS by the clock, not by frames, so a slow frame rate does not stretch it;
   * at least one iteration a frame.
   */
  function playedTo(now) {
    clock ??= { at: now, from: cursor };
    const rate = Math.max(1, store.get().train_steps) / (PLAY_SECONDS * 1000);
    return Math.max(cursor + 1, clock.from + Math.floor((now - clock.at) * rate));
  }

  /**
   * The iteration the status line and the boundary describe: the one chosen on the slider
   * (stepped in the graph) once it has arrived, else the one the run is shown up to.
   */
  function described(s) {
    return s.train_chosen && shown && s.train_iteration < arrived(shown.run) ? s.train_iteration : cursor;
  }

  function render() {
    const s = store.get();
    // A chosen iteration (a link's, or a run's settings changed) is shown in its run: train it,
    // and step that run's iteration in the graph (not the former settings' any more).
    if (s.train_chosen && !section.hidden && (!shown || shown.key !== keyOf(s))) {
      start({ whole: true });
      const none = runView(shown.run, -1); // the former run's numbers are not this run's
      statusFrom = { view: none, at: none };
      showStatus();
      return follow(s);
    }
    const view = shown ? runView(shown.run, cursor) : runView(createRun(), -1);
    const at = shown ? runView(shown.run, described(s)) : view;
    const series = [{ kind: "run", name: shown?.fix ? "no zero_grad" : "loss", losses: view.losses }];
    if (shown?.fix) series.unshift({ kind: "fix", name: "with zero_grad", losses: shown.fix.losses.slice(0, view.iteration + 1) });
    const note = view.diverged && { at: view.diverged.i, text: `diverged at ${view.diverged.i}` };
    curve.draw({ series, steps: view.steps || s.train_steps, cursor: s.train_chosen ? s.train_iteration : null, note });
    // the start event carries the data only for 2-D points, of a classifier or a regression
    boundary.node.hidden = view.data?.X?.[0]?.length !== 2;
    boundary.draw(at);
    section.dataset.iteration = String(view.iteration);
    statusFrom = { view, at };
    showStatus();
    status.classList.toggle("diverged", Boolean(view.diverged));
    status.dataset.iteration = String(at.iteration);
    // the dead units on a line of their own, under the loss: they are also on their nodes
    deadLine.textContent = Object.values(deadByNode(at.dead)).map(deadText).join(" · ");
    deadLine.hidden = !deadLine.textContent;
    status.dataset.loss = at.loss === null ? "" : String(at.loss);
    const said = outputsText(at.boundary, at.data);
    outputs.textContent = said;
    outputs.hidden = !said;
    outputs.dataset.outputs = said ? JSON.stringify(at.boundary.outputs) : "";
    // Any iteration of the run the settings describe can be recorded, trained or not yet.
    // The slider reads the iteration the line describes (the run's end after Train, not 0):
    // one iteration shown everywhere. A thumb being dragged is the user's until let go.
    const top = Math.max(0, (view.steps || s.train_steps) - 1);
    slider.max = String(top);
    if (!dragging) slider.value = String(Math.min(s.train_chosen ? s.train_iteration : Math.max(0, at.iteration), top));
    sliderText.textContent = `${slider.value}`;
    showDrawnLine();
    pause.disabled = !playing;
    step.disabled = Boolean(shown?.run.done) && view.iteration >= arrived(shown.run) - 1;
    const dead = JSON.stringify(at.dead);
    if (dead !== deadSent) onDead?.(at.dead); // the graph is marked again only when it changed
    deadSent = dead;
  }

  /** The status line, from the runViews render last described (`statusFrom`) and what the graph draws. */
  function showStatus() {
    if (!statusFrom) return;
    status.textContent = statusFrom.view.diverged ? divergedText(statusFrom.view.diverged) : statusText(statusFrom.at, store.get());
  }

  /**
   * Whether the graph steps iteration `k` of the run `s` describes, or loads it: "stepped"
   * only once its walk is drawn (Iterations lowered under the slider, or another learning
   * rate, left the former walk in the graph while the line said "stepped in the graph").
   */
  function inGraph(s, k) {
    const key = iterationKey(s, k);
    if (drawn.loading !== null) return drawn.loading === k && drawn.loadingKey === key ? "loading" : "no";
    return drawn.key === key ? "stepped" : "no";
  }

  /**
   * The chosen iteration into the graph when the graph steps (or loads) another recorded walk:
   * the run's settings changed under it. A graph with no recorded walk yet (a link opening:
   * main.js asks for it itself) is left alone.
   */
  function follow(s) {
    const has = drawn.loading !== null ? drawn.loadingKey : drawn.key;
    if (has !== null && has !== iterationKey(s, s.train_iteration)) onIteration(s.train_iteration);
  }

  /** The status line for runView `at`: its iteration, loss (the fix's beside), accuracy. */
  function statusText(at, s) {
    const k = at.iteration;
    if (k < 0) {
      if (shown?.error) return `Not trained: ${shown.error.message}`;
      return shown && s.train_chosen ? `Training the run of iteration ${s.train_iteration}…` : "Press Train to run the iterations.";
    }
    const stepped = s.train_chosen && k === s.train_iteration ? STEPPED[inGraph(s, k)](k) : "";
    const accuracy = at.accuracy === null || at.accuracy === undefined ? "" : ` · accuracy ${Math.round(100 * at.accuracy)}%`;
    const fix = shown?.fix ? ` (with zero_grad: ${formatLoss(shown.fix.losses[k])})` : "";
    return `${iterationText(k, at.steps)}${stepped} · loss ${formatLoss(at.loss)}${fix}${accuracy}`;
  }

  run.addEventListener("click", () => {
    if (checks.invalid()) return checks.focusInvalid(); // a box refused: no run, not the former value
    const s = store.get();
    // A paused run of the same settings goes on; anything else trains afresh.
    if (!shown || shown.key !== keyOf(s) || shown.error || shown.run.diverged || (shown.run.done && cursor >= arrived(shown.run) - 1)) start();
    playing = true;
    clock = null; // plays on from the cursor
    if (section.dataset.status !== "training") setStatus("training");
    tick();
  });
  pause.addEventListener("click", () => {
    playing = false;
    setStatus("paused");
    render();
  });
  step.addEventListener("click", () => {
    if (checks.invalid()) return checks.focusInvalid();
    if (!shown || shown.key !== keyOf(store.get())) start();
    playing = false;
    setStatus("paused");
    cursor = Math.min(cursor + 1, Math.max(0, arrived(shown.run) - 1));
    tick();
  });
  const choose = () => {
    dragging = false;
    store.set({ train_iteration: Number(slider.value), train_chosen: true });
    onIteration(Number(slider.value));
  };
  /** The line naming the graph's pass, and the button naming the slider's iteration. */
  function showDrawnLine() {
    const former = drawn.key !== null && drawn.loading === null && drawn.key !== iterationKey(store.get(), drawn.iteration);
    const { text, button, title } = drawnText({ ...drawn, former }, Number(slider.value));
    drawnLine.textContent = text;
    drawnLine.title = title;
    drawnLine.dataset.iteration = drawn.iteration === null ? "" : String(drawn.iteration);
    drawnLine.dataset.loading = drawn.loading === null ? "" : String(drawn.loading);
    open.textContent = button;
  }
  slider.addEventListener("input", () => {
    dragging = true;
    sliderText.textContent = slider.value;
    showDrawnLine(); // "not iteration 57: press Step iteration 57", until it is let go
  });
  slider.addEventListener("change", choose);
  open.addEventListener("click", choose);

  return {
    node: section,
    /** Show or hide the panel (train mode on or off); hiding stops a run. */
    show(visible) {
      section.hidden = !visible;
      if (!visible) stop();
      render();
    },
    /**
     * What the graph draws (train.js drawnText's `drawn`): {iteration, starting, loading, key:
     * the recorded walk's iterationKey (null for the program's own), loadingKey: the one being
     * fetched}. The page tells it when a walk is shown and while an iteration's walk is fetched.
     * Only the two lines follow (the status line's word on it), never the whole panel: drawn
     * again at each walk, it moved the graph under a camera note (test_train_review_page).
     */
    showDrawn(info) {
      drawn = { iteration: null, starting: false, loading: null, key: null, loadingKey: null, ...info };
      showDrawnLine();
      showStatus();
    },
    /** The program changed: its old run no longer applies. */
    reset() {
      stop();
      shown = null;
      cursor = -1;
      deadSent = null;
      setStatus("idle");
      render();
    },
  };
}
