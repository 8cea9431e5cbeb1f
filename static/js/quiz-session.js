// One quiz over the walk on screen, shared by the explorer (main.js) and the embed
// (embed.js): the questions of the walk (quiz.js), the gate the player may not pass until
// the question there is answered, the answers and the score, and the mistakes table
// fetched once per walk (POST /api/quiz/mistakes) to name a wrong answer. The answers
// and the score stay in the page; only the embed posts its result to the page around it.

import { fetchMistakes } from "./api.js";
import { formatNumber } from "./format.js";
import { narrate } from "./narration.js";
import { answerText, askLine, cellNames, emptyReason, gateOf, hiddenAt, judgeAnswer, kindText, PRESETS, questionsOf, quizSpec, resultMessage, scoreOf, unknownNames, unreadableTitle } from "./quiz.js";
import { createQuizPanel, markAsked } from "./render/quiz.js";

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The spec as words: "every adjoint", "the nodes d, a". */
function specText(spec) {
  return spec.startsWith("nodes:") ? `the nodes ${spec.slice(6).split(",").join(", ")}` : PRESETS[spec] ?? spec;
}

/**
 * The quiz of the page whose store is `store` (its `quiz` field and the walk's program say
 * which steps ask), with its panel in `root` before `before`. `seek(step)` moves the walk
 * (the player's action); `changed()` redraws the page (the gate moved); `reveal(ids)` brings
 * those nodes into the camera's view; `onEnd(message)` gets resultMessage once per walk when
 * the walk reaches its end; `gridable(on)` whether a small tensor could be asked whole.
 * Returns {setWalk, limit, show, hidden (what it keeps from the screen at a view), panel}.
 */
export function createQuizSession(root, { store, before = null, seek, changed = () => {}, onEnd = () => {}, reveal: inView = () => {}, mistakes = fetchMistakes, gridable = () => {} }) {
  let walk = null;
  let spec = "";
  let questions = [];
  let done = new Set(); // the steps of the questions answered (or shown)
  let answers = new Map(); // question step -> {tries: [{value, verdict, kind}], right}
  let table = null; // the mistakes table, once it came
  let asking = null; // the question on screen
  let ended = false;
  let request = null;

  const panel = createQuizPanel(root, { before, onSubmit: answer, onContinue: reveal });

  /** The walk shown changed (a new trace, its end arrived, or the quiz changed). */
  function setWalk(next) {
    walk = next;
    spec = walk ? quizSpec({ ...store.get(), program: walk.program }) : "";
    const complete = walk && walk.complete !== false;
    const { quiz_seed: seed, quiz_grid: grid } = store.get();
    const trace = complete && { graph: walk.trace.graph, events: walk.timeline.events };
    questions = spec && complete ? questionsOf(spec, trace, { seed, grid }) : [];
    // "whole tensors" is offered where it asks something (render/quiz.js showGrid)
    gridable(Boolean(spec && complete && (grid ? questions : questionsOf(spec, trace, { seed, grid: true })).some((q) => q.grid)));
    done = new Set();
    answers = new Map();
    asking = null;
    ended = false;
    table = null;
    request?.abort();
    request = null;
    panel.clear(); // the last walk's verdict and score belong to its own quiz
    if (!spec) return panel.off();
    panel.el.dataset.quiz = "waiting";
    if (!complete) return;
    if (!questions.length) return (panel.el.dataset.quiz = "ready");
    const mine = (request = new AbortController());
    mistakes(walk.program, store.get().output || null, { signal: mine.signal })
      .then((body) => { if (request === mine) table = body; })
      .catch(() => {}) // no table (a big program, no server): wrong answers are not named
      .finally(() => {
        if (request !== mine) return;
        request = null;
        panel.el.dataset.quiz = "ready";
      });
  }

  store.subscribe((state, before) => {
    if (state.quiz === before.quiz && state.quiz_grid === before.quiz_grid) return;
    setWalk(walk);
    changed();
  });

  /** The last step the player may reach of `total`. */
  function limit(total) {
    if (!spec) return total;
    if (walk?.complete === false) return 0; // the questions are known once every event is in
    return gateOf(questions, done, total);
  }

  /** What the quiz keeps from the screen at `view` (quiz.js hiddenAt), or null when none is on. */
  function hidden(view) {
    return spec && walk ? hiddenAt(questions, done, view.step) : null;
  }

  /**
   * What the quiz could not find, as a sentence ("" when every name is a node): "No node is
   * named zz (the # ask: line, line 1); the names are a, b, L." Located at the `# ask:` line
   * when the names came from it (the state's own quiz field wins over the line).
   */
  function unknownText() {
    const unknown = walk ? unknownNames(spec, walk.trace.graph) : [];
    if (!unknown.length) return "";
    const line = store.get().quiz ? null : askLine(walk.program);
    const where = line ? ` (the # ask: line, line ${line})` : "";
    const names = [...new Set(walk.trace.graph.nodes.map((n) => n.name).filter(Boolean))].join(", ");
    const noun = unknown.length > 1 ? "nodes are" : "node is";
    return `No ${noun} named ${unknown.join(", ")}${where}; the names are ${names}.`;
  }

  /** Show the quiz at `view` (the step on screen) on `svg`. */
  function show(view, svg) {
    if (!spec || !walk) {
      markAsked(svg, null);
      return;
    }
    const q = hidden(view).asked;
    const fresh = q && q !== asking;
    asking = q;
    markAsked(svg, q);
    const answered = answers.size;
    if (q) {
      // the asked node in view with what it is computed from (a phone's camera follows the
      // step): a value's inputs, an adjoint's consumer on the revealing edge
      inView(q.what === "value" ? [q.node, ...(walk.nodesById[q.node]?.inputs ?? [])] : [q.node, q.event.node]);
      const n = questions.indexOf(q) + 1;
      const unknown = unknownText();
      panel.ask(q, `Question ${n} of ${questions.length} · ${specText(spec)}${unknown ? ` · ${unknown}` : ""}`, { focus: fresh });
    } else if (!questions.length && walk.complete !== false) {
      const unknown = unknownText();
      const why = unknown ? `. ${unknown}` : emptyReason(spec, walk.trace);
      panel.idle(`Quiz · ${specText(spec)}: nothing to ask in this walk${why}`);
    } else if (view.phase === "done") {
      end();
    } else {
      panel.idle(`Quiz · ${specText(spec)}: ${answered} of ${questions.length} answered; step on (→) to the next question.`);
    }
  }

  function end() {
    const score = scoreOf(questions, answers);
    const kinds = Object.entries(score.mistakes).map(([k, n]) => `${kindText(k)} ×${n}`).join(", ");
    panel.score(`Score: ${score.first_try} of ${score.asked} right at the first try, ${score.right} right in the end`
      + `${kinds ? `; mistakes named: ${kinds}` : ""}. (It stays on this page.)`);
    panel.el.dataset.score = String(score.first_try);
    panel.el.dataset.max = String(score.asked);
    if (!ended && questions.length) {
      ended = true;
      onEnd(resultMessage(questions, answers));
    }
  }

  /** The rule of the question's step, with its numbers (the engine's narration). */
  const rule = (q) => narrate(q.event, walk.nodesById);

  /** `texts`: the answer box's text, or a grid's, one per cell (render/quiz.js values). */
  function answer(texts) {
    const q = asking;
    if (!q) return;
    const verdict = judgeAnswer(texts, q, table?.[q.what]?.[q.node] ?? []);
    panel.markCells(verdict.cells ?? null);
    if (verdict.verdict === "unreadable") {
      return panel.say({ verdict: null, title: unreadableTitle(verdict, q.grid) }); // not counted
    }
    const record = answers.get(q.step) ?? { tries: [], right: false };
    record.tries.push({ value: verdict.value, verdict: verdict.verdict, kind: verdict.kind });
    answers.set(q.step, record);
    const right = answerText(q);
    if (verdict.verdict === "right") {
      record.right = true;
      panel.say({ verdict: "right", title: `Right: ${right}.`, lines: [rule(q)] });
      return reveal({ keep: true });
    }
    panel.say({
      verdict: "wrong", mistake: verdict.mistake?.kind, kinds: verdict.kinds,
      title: q.grid ? `Not quite: ${wrongCells(q, verdict.cells)}; ${right}.` : `Not quite: ${right}, not ${formatNumber(verdict.value)}.`,
      named: verdict.mistake ? `${capital(verdict.mistake.text)}.${verdict.also.map((m) => ` Or: ${m.text}.`).join("")}` : null,
      lines: [`The rule: ${rule(q)}`],
    });
  }

  /** "2 of 4 numbers wrong (X̄[0,1], X̄[1,0])": which cells of a grid answer are wrong. */
  const wrongCells = (q, cells) => {
    const ks = cells.flatMap((c, k) => (c === "wrong" ? [k] : []));
    return `${ks.length} of ${cells.length} numbers wrong (${cellNames(q, ks)})`;
  };

  /** Past the question: its number is revealed and the walk goes on to its step. */
  function reveal({ keep = false } = {}) {
    const q = asking;
    if (!q) return;
    if (!keep && !answers.has(q.step)) { // shown without an answer: its number and rule
      answers.set(q.step, { tries: [], right: false });
      panel.say({ verdict: null, title: `${answerText(q)}.`, lines: [rule(q)] });
    }
    done.add(q.step);
    asking = null;
    changed();
    seek(q.step + 1);
  }

  return { setWalk, limit, show, hidden, panel };
}
