// The quiz on screen (issue 16): the answer panel over the narration, the asked node marked
// in the graph (its number hidden behind "?"), and the setup beside the program (preset,
// named nodes, "New numbers"). Each function takes its root element; the logic is
// quiz.js (no DOM) and quiz-session.js.
//
// DOM contract (tests): the panel is #quiz, its answer box `#quiz input[name=answer]`; after
// each answer #quiz carries data-verdict ("right" | "wrong") and, when the wrong number is
// one a known mistake gives, data-mistake (the kind's id) and data-mistakes (every kind that
// gives it). data-quiz is "off" | "waiting" (the walk is not all in, or the mistakes table is
// on its way) | "ready"; data-asking the asked node's id while it waits for an answer;
// data-score and data-max at the end; data-feedback "shown" (an answer's lines) | "none" (a
// new question: the last answer's lines folded away) | "score". A small tensor asked whole
// (state.js quiz_grid) has a grid of boxes instead of the one: `#quiz .quiz-grid
// input[name=answer]`, one per element in row-major order, each with data-index ("0,1"; "2"
// for a vector) and, after an answer, data-verdict ("right" | "wrong" | "unreadable").

import { shapeText } from "../format.js";
import { METRICS } from "../layout.js";
import { GRID_MAX, namedSpec, notNamesText, PRESETS, quizSpec } from "../quiz.js";
import { OP_SETS, SIZES } from "../quiz-practice.js";

const html = (tag, props = {}, ...children) => {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
};

/** An answer box: a number typed (a phone's number keys), described by the feedback. */
function answerBox(id) {
  const input = html("input", {
    id, name: "answer", type: "text", inputMode: "decimal", autocomplete: "off",
    spellcheck: false, enterKeyHint: "done",
  });
  input.setAttribute("autocapitalize", "off");
  input.setAttribute("aria-describedby", "quiz-feedback");
  return input;
}

/**
 * A grid question's boxes, one per element of `q.shape` (rank 1: one row), in a CSS grid
 * of its columns; Tab goes from box to box in row-major order, Enter submits the form.
 */
function answerGrid(q) {
  const [rows, cols] = q.shape.length === 2 ? q.shape : [1, q.shape[0]];
  const grid = html("div", { className: "quiz-grid", role: "group" });
  grid.style.setProperty("--cols", String(cols));
  grid.setAttribute("aria-labelledby", "quiz-question");
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const box = answerBox(`quiz-answer-${i * cols + j}`);
      box.dataset.index = q.shape.length === 2 ? `${i},${j}` : String(j);
      box.setAttribute("aria-label", q.shape.length === 2 ? `${q.symbol}, row ${i}, column ${j}` : `${q.symbol}, element ${j}`);
      grid.append(box);
    }
  }
  return grid;
}

/**
 * The answer panel, put into `root` before `before` (the narration): {el, ask(question,
 * status), say(feedback), markCells(cells), idle(status), off()}. `onSubmit(texts)` on
 * Enter or Check (the box's text, or a grid's, one per cell); `onContinue()` for "Show and
 * continue".
 */
export function createQuizPanel(root, { before = null, onSubmit, onContinue }) {
  const input = answerBox("quiz-answer");
  const question = html("label", { className: "quiz-question", id: "quiz-question", htmlFor: "quiz-answer" });
  const answers = html("span", { className: "quiz-answers" }, input); // the box, or a grid's boxes
  let grid = null; // {q, el}: the grid question asked and its boxes (null: the one box)
  const check = html("button", { type: "submit", className: "btn primary", textContent: "Check" });
  const skip = html("button", { type: "button", className: "btn", textContent: "Show and continue" });
  const status = html("span", { className: "quiz-status" });
  const form = html("form", { className: "quiz-form", noValidate: true }, question, answers, check, skip);
  const boxes = () => [...answers.querySelectorAll("input[name=answer]")];
  const row = html("div", { className: "quiz-row" }, form, status);
  const feedback = html("p", { id: "quiz-feedback", className: "quiz-feedback", role: "status" });
  feedback.setAttribute("aria-live", "polite");
  const el = html("section", { id: "quiz", className: "quiz", tabIndex: -1 }, row, feedback);
  el.setAttribute("aria-label", "Quiz");
  el.hidden = true;
  el.dataset.quiz = "off";
  root.insertBefore(el, before);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onSubmit(boxes().map((b) => b.value));
  });
  skip.addEventListener("click", () => onContinue());

  return {
    el,
    input,
    /** Ask `q` (quiz.js questionsOf); focus the box when it is a new question. */
    ask(q, text, { focus = false } = {}) {
      el.hidden = false;
      form.hidden = false;
      el.dataset.asking = q.node;
      status.textContent = text;
      question.textContent = `${q.symbol} = ?`;
      if (q.grid && grid?.q !== q) grid = { q, el: answerGrid(q) };
      if (!q.grid) grid = null;
      const shown = grid ? grid.el : input;
      if (answers.firstElementChild !== shown) answers.replaceChildren(shown);
      question.htmlFor = grid ? "quiz-answer-0" : "quiz-answer";
      if (grid) el.dataset.grid = q.shape.join("x");
      else delete el.dataset.grid;
      if (grid) {
        question.title = `the ${q.what === "adjoint" ? "gradient" : "value"} ${q.symbol}, every element (${shapeText(q.shape)})`;
        if (focus) {
          el.dataset.feedback = "none";
          this.markCells(null);
          for (const b of boxes()) b.value = "";
          if (!document.activeElement?.closest?.(".cm-editor, textarea, select")) boxes()[0].focus({ preventScroll: true });
        }
        return;
      }
      const where = q.index ? `, the element at ${q.index.length === 2 ? `row ${q.index[0]}, column ${q.index[1]}` : `index ${q.index.join(", ")}`}` : "";
      question.title = q.what === "adjoint" ? `the gradient ${q.symbol} once every contribution is in${where}` : `the value of ${q.symbol}${where}`;
      input.setAttribute("aria-label", q.what === "adjoint" ? `Your answer: the gradient ${q.symbol}${where}` : `Your answer: the value of ${q.symbol}${where}`);
      if (focus) { // a new question: the last verdict stays on #quiz (it names its own node) until
        // answered, its lines fold away: they took the graph's room on a projector (issue 14 §5)
        el.dataset.feedback = "none";
        input.value = "";
        // to the box, unless the program is being edited (a trace from the editor reached it)
        if (!document.activeElement?.closest?.(".cm-editor, textarea, select")) input.focus({ preventScroll: true });
      }
    },
    /** The verdict on an answer: {verdict, mistake (its kind), kinds, title, named (the
     * mistake's words), lines}. */
    say({ verdict, mistake = null, kinds = [], title, named = null, lines = [] }) {
      if (verdict) el.dataset.verdict = verdict;
      else delete el.dataset.verdict;
      if (mistake) {
        el.dataset.mistake = mistake;
        el.dataset.mistakes = kinds.join(" ");
      } else {
        delete el.dataset.mistake;
        delete el.dataset.mistakes;
      }
      // while it asks, the feedback stands in for the narration (app.css): its rule line is the
      // asked step's narration, and both beside the quiz left the graph too short on a projector
      el.dataset.feedback = "shown";
      feedback.replaceChildren(html("strong", { textContent: title }),
        ...(named ? [" ", html("span", { className: "quiz-mistake", textContent: named })] : []),
        ...lines.map((l) => html("span", { className: "quiz-line", textContent: l })));
      if (verdict === "wrong") (boxes().find((b) => b.dataset.verdict === "wrong") ?? boxes()[0]).select();
    },
    /** Each grid cell's verdict (quiz.js judgeGrid cells: "right" | "wrong" | "unreadable"),
     * or null to clear them. */
    markCells(cells) {
      boxes().forEach((b, k) => {
        const c = cells?.[k];
        if (c && grid) {
          b.dataset.verdict = c;
          b.setAttribute("aria-invalid", String(c !== "right"));
        } else {
          delete b.dataset.verdict;
          b.removeAttribute("aria-invalid");
        }
      });
    },
    /** The end: the score as the panel's headline. */
    score(text) {
      this.idle("Quiz done.");
      el.dataset.feedback = "score";
      feedback.replaceChildren(html("strong", { className: "quiz-score", textContent: text }));
    },
    /** Between questions (or at the end): the status line, no answer box. */
    idle(text) {
      el.hidden = false;
      form.hidden = true;
      delete el.dataset.asking;
      status.textContent = text;
      if (el.contains(document.activeElement) && document.activeElement !== el) el.focus({ preventScroll: true });
    },
    /** A fresh quiz (a new walk, or the quiz changed): no verdict, no score, no answer,
     * none of the last quiz's data-* left for a test or a screen reader to read. */
    clear() {
      for (const key of ["verdict", "mistake", "mistakes", "score", "max", "asking", "feedback", "grid"]) delete el.dataset[key];
      feedback.replaceChildren();
      input.value = "";
      grid = null; // the next question builds its own
      answers.replaceChildren(input);
    },
    off() {
      el.hidden = true;
      el.dataset.quiz = "off";
      delete el.dataset.asking;
    },
  };
}

/**
 * Mark the asked node in `svg`: a ring, and its number (the adjoint's, or the value's)
 * hidden behind "?" until it is answered. `q` null clears the mark.
 */
export function markAsked(svg, q) {
  for (const g of svg.querySelectorAll("g.node.quiz-asked")) {
    g.classList.remove("quiz-asked", "quiz-hidden-grad", "quiz-hidden-value");
    g.querySelector(".quiz-mark")?.remove();
  }
  const g = q && svg.querySelector(`g.node[data-node="${q.node}"]`);
  if (!g) return;
  const block = g.querySelector(q.what === "adjoint" ? "g.grad-block" : "g.value-block");
  g.classList.add("quiz-asked", q.what === "adjoint" ? "quiz-hidden-grad" : "quiz-hidden-value");
  g.setAttribute("aria-label", `${q.symbol} = ?, asked in the quiz`);
  if (!block) return;
  const mark = document.createElementNS("http://www.w3.org/2000/svg", "text");
  mark.setAttribute("class", "quiz-mark");
  mark.setAttribute("x", String(METRICS.caption));
  mark.setAttribute("y", String(METRICS.row - 6));
  mark.textContent = "?";
  block.append(mark);
}

/**
 * The quiz's setup beside the program, in `root`: the preset menu (off, the presets, named
 * nodes with their names), "whole tensors" and "New numbers"; returns {el, showGrid(on)}. Reads and writes the store's `quiz`;
 * `onNewNumbers()` gives the leaves fresh numbers.
 */
export function createQuizSetup(root, { store, onNewNumbers, onPractice }) {
  const menu = html("select", { id: "quiz-preset" },
    html("option", { value: "", textContent: "Off" }),
    ...Object.entries(PRESETS).map(([value, label]) => html("option", { value, textContent: label })));
  const names = html("input", { id: "quiz-nodes", type: "text", placeholder: "d, a", autocomplete: "off", spellcheck: false });
  names.setAttribute("aria-label", "The nodes to ask, by name");
  const fresh = html("button", { type: "button", className: "btn", id: "quiz-new-numbers", textContent: "New numbers",
    title: "Give the inputs fresh random numbers (seeded; the link keeps them), for the same graph" });
  const size = html("select", { id: "practice-size" }, ...SIZES.map((n) => html("option", { value: String(n), textContent: `${n} ops` })));
  const ops = html("select", { id: "practice-ops" }, ...Object.keys(OP_SETS).map((k) => html("option", { value: k, textContent: k })));
  size.value = "4";
  size.setAttribute("aria-label", "Practice graph size");
  ops.setAttribute("aria-label", "Practice op set");
  const practice = html("button", { type: "button", className: "btn", id: "practice", textContent: "Practice",
    title: "A new small graph of this size and op set to drill the chain rule on (seeded: the link keeps it)" });
  const whole = html("input", { type: "checkbox", id: "quiz-grid" });
  const wholeLabel = html("label", { className: "quiz-grid-switch",
    title: `Ask a small tensor (up to ${GRID_MAX} numbers, a row or a matrix) whole, as a grid of boxes, not one element` }, whole, " whole tensors");
  // Why a word typed in the names box was left out (quiz.js notNamesText), under the row
  const namesNote = html("p", { className: "quiz-names-note", id: "quiz-nodes-note" });
  namesNote.setAttribute("role", "status");
  namesNote.hidden = true;
  names.setAttribute("aria-describedby", "quiz-nodes-note");
  const el = html("section", { className: "quiz-setup" },
    html("div", { className: "quiz-setup-row" }, html("label", {}, "Quiz ", menu), names, wholeLabel, fresh),
    namesNote,
    html("div", { className: "quiz-setup-row" }, practice, size, ops));
  el.setAttribute("aria-label", "Quiz setup");
  root.prepend(el);
  // The menu shows the quiz in force (quiz.js quizSpec): a program's `# ask: d, a` line asks
  // while the state's quiz is off, so the menu says "named nodes" and the names, and where
  // they come from (the review found "Off" shown while the line's quiz ran).
  const nodesOption = menu.querySelector('option[value="nodes"]');
  const showState = (state) => {
    const quiz = quizSpec(state);
    const fromLine = !state.quiz && quiz !== "";
    const named = quiz.startsWith("nodes:");
    menu.value = named ? "nodes" : quiz;
    names.hidden = !named && menu.value !== "nodes";
    if (named && document.activeElement !== names) names.value = quiz.slice(6).split(",").join(", ");
    el.dataset.source = fromLine ? "ask-line" : "menu";
    showWhole(state);
    nodesOption.textContent = fromLine ? `${PRESETS.nodes} (the program's # ask: line)` : PRESETS.nodes;
    menu.title = fromLine ? "The program's first line \"# ask: ...\" names the nodes asked; delete it to turn the quiz off" : "";
  };
  // "whole tensors" only while a quiz runs on a walk with a small tensor to ask (or it is on):
  // beside the legend or the ledger on a projector the row has no room to spare
  let gridable = false;
  const showWhole = (state) => { wholeLabel.hidden = !(quizSpec(state) && (gridable || state.quiz_grid)); };
  const setNamed = () => {
    const why = notNamesText(names.value);
    namesNote.textContent = why;
    namesNote.hidden = !why;
    names.setAttribute("aria-invalid", String(Boolean(why)));
    store.set({ quiz: namedSpec(names.value) });
  };
  menu.addEventListener("change", () => {
    if (menu.value === "nodes") {
      names.hidden = false;
      names.focus();
      if (names.value.trim()) setNamed();
    } else {
      store.set({ quiz: menu.value });
      showState(store.get()); // "Off" under an `# ask:` line: the line's quiz is still in force
    }
    if (menu.value !== "nodes") menu.blur(); // the arrow keys go back to the player
  });
  names.addEventListener("change", setNamed);
  whole.addEventListener("change", () => store.set({ quiz_grid: whole.checked }));
  fresh.addEventListener("click", () => onNewNumbers());
  practice.addEventListener("click", () => onPractice({ size: Number(size.value), ops: ops.value }));
  // Train mode steps a training iteration's walk: the quiz's setup is no part of it
  const showMode = ({ mode }) => { el.hidden = mode === "train"; };
  store.subscribe((state, before) => {
    if (state.quiz !== before.quiz || state.program !== before.program) showState(state);
    if (state.quiz_grid !== before.quiz_grid) {
      whole.checked = state.quiz_grid;
      showWhole(state);
    }
    if (state.mode !== before.mode) showMode(state);
  });
  showState(store.get());
  showMode(store.get());
  whole.checked = store.get().quiz_grid;
  return {
    el,
    /** Whether the walk shown has a tensor the quiz could ask whole (quiz-session.js). */
    showGrid(on) {
      gridable = on;
      showWhole(store.get());
    },
  };
}
