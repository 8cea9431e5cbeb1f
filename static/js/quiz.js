// The quiz (issue 16, section 1), without the DOM: which steps ask, how an answer is judged,
// the score, and "New numbers". `node --test` covers it (tests/js/quiz.test.mjs).
//
// A quiz is page state (state.js `quiz`, in every link): "" (off), "adjoints" (the backward
// pass stops before each node's adjoint is complete), "values" (before each forward value),
// "fanout" (only the adjoints that are sums of two or more contributions) or "nodes:d,a"
// (those nodes: their adjoint, or their value when the backward pass sends them none). A
// program's first line `# ask: d, a` is the same as "nodes:d,a" when the state has no quiz.
//
// A question gates the walk: its step is the index i of the event that reveals the number,
// so the player may reach step i (events[:i] shown) and no further until it is answered.

import { randomLcg } from "d3-random";
import { formatNumber, isTensor } from "./format.js";
import { freshLeaves } from "./quiz-numbers.js";

export const PRESETS = {
  adjoints: "every adjoint",
  values: "every forward value",
  fanout: "the fan-out sums only",
  nodes: "named nodes",
};
// A node's name as Python reads one (`é = 2.0` traces): an identifier (str.isidentifier: a
// character of Unicode's XID_Start or _, then XID_Continue) that is not a keyword. The server
// checks the same rule (server/pagestate.py quiz_problem); tests/cases/quiz_names.json is the
// table both sides' tests run (tests/js/quiz.test.mjs, tests/server/test_quiz_names.py).
export const KEYWORDS = ["False", "None", "True", "and", "as", "assert", "async", "await", "break",
  "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
  "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
  "while", "with", "yield"]; // Python's keyword.kwlist (soft keywords such as `match` are names)
const NAME = String.raw`(?!(?:${KEYWORDS.join("|")})(?![\p{XID_Continue}]))[\p{XID_Start}_][\p{XID_Continue}]*`;
const IS_NAME = new RegExp(`^${NAME}$`, "u");
// A valid `quiz` field: a preset, or "nodes:" and names separated by commas.
export const QUIZ_PATTERN = new RegExp(`^(|adjoints|values|fanout|nodes:${NAME}(,${NAME})*)$`, "u");
export const RELATIVE = 1e-3; // an answer within this relative error is right (engine/mistakes.py)
// A whole tensor is asked as a grid (state.js quiz_grid) up to this many numbers, of rank 1 or
// 2 (a row, or rows and columns): 4x4 fits a projector's quiz panel; past it, one element.
export const GRID_MAX = 16;
const ASK_LINE = /^[ \t]*#[ \t]*ask[ \t]*:([^\n]*)$/m;

/** The names of a program's `# ask: d, a` comment line, or null when it has none. */
export function askedNames(program) {
  const match = ASK_LINE.exec(String(program ?? ""));
  if (!match) return null;
  const names = match[1].split(/[,\s]+/).filter((n) => IS_NAME.test(n));
  return names.length ? names : null;
}

/** The 1-based line of a program's `# ask:` line, or null when it has none. */
export function askLine(program) {
  const match = ASK_LINE.exec(String(program ?? ""));
  return match ? String(program).slice(0, match.index).split("\n").length : null;
}

/**
 * The names of a "nodes:" spec that name no node of `graph` (by name or label), in the
 * spec's order: a typo in `# ask: zz` or the quiz panel would otherwise ask nothing without
 * saying why. [] for a preset spec.
 */
export function unknownNames(spec, graph) {
  if (!spec?.startsWith("nodes:") || !graph) return [];
  const known = new Set(graph.nodes.flatMap((n) => [n.name, n.label]));
  return spec.slice(6).split(",").filter((name) => !known.has(name));
}

/**
 * The quiz in force: none in Train mode (its walks are a run's iterations, and render/quiz.js
 * hides the quiz's setup there: a link with both asked with no way to turn it off), else the
 * state's `quiz`, else the program's `# ask:` line, else "" (off).
 */
export function quizSpec(state) {
  if (state.mode === "train") return "";
  if (state.quiz) return state.quiz;
  const names = askedNames(state.program);
  return names ? `nodes:${names.join(",")}` : "";
}

/** The spec "nodes:d,a" for names typed as "d, a" ("" when there is no valid name). */
export function namedSpec(text) {
  const names = String(text).split(/[,\s]+/).filter((n) => IS_NAME.test(n));
  return names.length ? `nodes:${names.join(",")}` : "";
}

/**
 * What namedSpec leaves out of `text`, as a sentence ("" when every word typed is a name):
 * `<b>x</b>` was dropped with no word and the quiz stayed as it was (review of 454e759).
 */
export function notNamesText(text) {
  const bad = String(text).split(/[,\s]+/).filter((n) => n && !IS_NAME.test(n));
  if (!bad.length) return "";
  const shown = bad.slice(0, 3).map((n) => `“${n.length > 16 ? `${n.slice(0, 15)}…` : n}”`);
  const more = bad.length > 3 ? ` and ${bad.length - 3} more` : "";
  const verb = bad.length > 1 ? "are not names" : "is not a name";
  return `${shown.join(", ")}${more} ${verb} (letters, digits, _; not a Python keyword).`;
}

// ---------------------------------------------------------------- tensors

/** FNV-1a of `text`: a 32-bit integer, the same in every browser. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The element of a tensor of `shape` asked of node `id`: its flat (row-major) index, drawn
 * by d3-random's randomLcg from `seed` (the state's quiz_seed) and the node's id, so each
 * student of a class with "New numbers" gets their own element and a link the same one.
 */
export function elementOf(id, shape, seed = 0) {
  const size = shape.reduce((n, d) => n * d, 1);
  return Math.floor(randomLcg(hash(`${seed}:${id}`))() * size);
}

/** The multi-index of flat index `k` in `shape` (row-major): [1, 0] for 2 in (2, 2). */
export function indexOf(k, shape) {
  const index = [];
  for (let a = shape.length - 1; a >= 0; a--) {
    index.unshift(k % shape[a]);
    k = Math.floor(k / shape[a]);
  }
  return index;
}

/** `x` (a number, or nested lists as a tensor's data) at flat index `k`; x itself when k is undefined. */
export function elementAt(x, k) {
  return k === undefined ? x : Array.isArray(x) ? x.flat(Infinity)[k] : undefined;
}

/** True when tensor `v` (inlined) is asked whole under quiz_grid: rank 1 or 2, at most
 * GRID_MAX numbers, every one finite (a typed answer is a finite number). */
function gridded(v) {
  const size = v.shape.reduce((n, d) => n * d, 1);
  return v.shape.length <= 2 && size <= GRID_MAX && [v.data].flat(Infinity).every(Number.isFinite);
}

/**
 * What a question asks of the number `v` of node `node` shown as `symbol`: {answer} for a
 * scalar; for an inlined tensor one element, {answer, element, index, symbol: "W̄1[0,1]"},
 * or with `grid` (a small one: gridded) the whole tensor, {answer: its nested data, grid:
 * true, shape, symbol}; null when there is nothing to ask (a tensor sent as a summary, a
 * non-finite number).
 */
function asked(v, node, symbol, seed, grid = false) {
  if (typeof v === "number") return { answer: v, symbol };
  if (!isTensor(v) || v.data === null || !v.shape.length) return null;
  if (grid && gridded(v)) return { answer: v.data, grid: true, shape: v.shape, symbol };
  const element = elementOf(node.id, v.shape, seed);
  const answer = elementAt(v.data, element);
  if (typeof answer !== "number") return null;
  const index = indexOf(element, v.shape);
  const base = /^[\p{L}_][\p{L}\p{N}_\u0300-\u036f']*$/u.test(symbol) || symbol.startsWith("∂") ? symbol : `(${symbol})`;
  return { answer, element, index, shape: v.shape, symbol: `${base}[${index.join(",")}]` };
}

/**
 * The questions of `spec` on `trace` (a POST /api/trace body: graph and events), in walk
 * order: [{step, node, what: "adjoint" | "value", symbol, answer, event}]. `step` is the
 * index of the event that reveals `answer`; never the output's seed. A tensor node (its
 * data inlined) is asked one element, drawn by elementOf from `seed`: the question has
 * `element` (flat index), `index` and `shape` too, and its symbol names the element; with
 * `grid` (state.js quiz_grid) a tensor of rank 1 or 2 and at most GRID_MAX numbers is asked
 * whole: `grid: true`, `shape`, and `answer` its nested data (judgeGrid).
 */
export function questionsOf(spec, trace, { seed = 0, grid = false } = {}) {
  if (!spec || !trace) return [];
  const nodes = new Map(trace.graph.nodes.map((n) => [n.id, n]));
  const last = new Map(); // node id -> [index of its last accumulate event, how many]
  const evaluated = new Map(); // node id -> index of its evaluate event
  trace.events.forEach((ev, i) => {
    if (ev.kind === "accumulate") last.set(ev.input, [i, (last.get(ev.input)?.[1] ?? 0) + 1]);
    else if (ev.kind === "evaluate") evaluated.set(ev.node, i);
  });
  const question = (id, i, what, v, symbol) => {
    const q = i === undefined ? null : asked(v(trace.events[i]), nodes.get(id), symbol, seed, grid);
    return q && { step: i, node: id, what, ...q, event: trace.events[i] };
  };
  const adjoint = (id) => question(id, last.get(id)?.[0], "adjoint", (ev) => ev.adjoint_after,
    nodes.get(id).adjoint_symbol ?? `${nodes.get(id).label}̄`);
  const value = (id) => question(id, evaluated.get(id), "value", (ev) => ev.value, nodes.get(id).label);
  let chosen;
  if (spec === "adjoints") chosen = [...last.keys()].map(adjoint);
  else if (spec === "fanout") chosen = [...last].filter(([, [, n]]) => n > 1).map(([id]) => adjoint(id));
  else if (spec === "values") chosen = [...evaluated.keys()].filter((id) => nodes.get(id).role === "op").map(value);
  else if (spec.startsWith("nodes:")) {
    const names = new Set(spec.slice(6).split(","));
    chosen = trace.graph.nodes.filter((n) => names.has(n.name) || names.has(n.label))
      .map((n) => (last.has(n.id) ? adjoint(n.id) : value(n.id)));
  } else chosen = [];
  return chosen.filter(Boolean).sort((a, b) => a.step - b.step);
}

/**
 * Why `spec` asks nothing on `trace` (questionsOf gave []), as the end of a sentence: the
 * walk has no backward pass (forward mode) or no forward values to ask, no node sums two or
 * more contributions (the fan-out quiz), or else its numbers cannot be asked (a tensor sent
 * as a summary, a non-finite number). Each names the quiz that would ask.
 */
export function emptyReason(spec, trace) {
  const kinds = new Set((trace?.events ?? []).map((ev) => ev.kind));
  const adjoints = spec === "adjoints" || spec === "fanout";
  if (adjoints && !kinds.has("accumulate")) {
    return " (this walk has no backward pass, so no adjoint to ask: try “every forward value” in reverse mode)";
  }
  if (spec === "values" && !kinds.has("evaluate")) {
    return " (this walk's steps carry tangents, not forward values: try reverse mode)";
  }
  if (spec === "fanout" && questionsOf("adjoints", trace).length) {
    return " (no node here is used twice, so no adjoint sums two or more contributions: try “every adjoint”)";
  }
  return " (the quiz asks for the backward pass's numbers or forward values, one element of a tensor;"
    + " a tensor too large to travel whole is shown as usual).";
}

/**
 * The step the player may reach: the first unanswered question's (its number not yet
 * revealed), else `total`. `done` is the set of questions' steps already answered.
 */
export function gateOf(questions, done, total) {
  const open = questions.find((q) => !done.has(q.step));
  return open ? Math.min(open.step, total) : total;
}

/** The question the walk waits on at `step`, or null. */
export function askedAt(questions, done, step) {
  return questions.find((q) => q.step === step && !done.has(q.step)) ?? null;
}

/**
 * What a quiz keeps from the screen at `step` (events[:step] shown): {asked: the question
 * the walk waits on there, or null (its node's number shows "?"), revealed(after): true when
 * the event on screen after `after` steps (its index + 1) has been shown, so its numbers may
 * be read, secret(id, what): true while a question on node `id`'s "adjoint" or "value" is
 * unanswered, so no run's number of it may be read (the comparison with another run shows
 * final numbers at step 0, and the other run's are the answer give or take a nudge)}. The
 * node boxes (render/quiz.js markAsked), the detail panel and the comparison all follow it.
 */
export function hiddenAt(questions, done, step) {
  const open = new Set(questions.filter((q) => !done.has(q.step)).map((q) => `${q.node}|${q.what}`));
  return {
    asked: askedAt(questions, done, step),
    revealed: (after) => after <= step,
    secret: (id, what) => open.has(`${id}|${what}`),
    secrets: [...open].join(" "), // what secret() says, as a key: it changes when a question is answered
  };
}

// A number as the narration prints it (engine/trace/values.py short; signed() wraps a
// negative in parentheses, hidden with it: the sign alone would say half the answer).
const NUMBER = /\([-\u2212][^()\s]*\)|[-\u2212]?(?:\d+\.?\d*(?:e[-+]?\d+)?|Infinity)|NaN/g;
const ONLY_NUMBERS = /^[\s·+\-\u2212()[\],]*$/; // what is left of a part that is numbers alone

/**
 * A backward rule's narration (docs/trace-format.md, `accumulate`) with its numbers as "?":
 * "t = tanh(d), so d̄ += (1 - t²) · t̄ = ? · ? = ?; d̄ = ? + ? = ?". The rule, its local
 * derivative's text (the 1 of "1 - t²") and its shapes ("(4,2) @ (2,3)") stay: only a part
 * after " = " that is numbers alone is hidden. What a quiz shows of a rule not yet revealed.
 */
export function numbersHidden(narration) {
  const at = narration.indexOf(" += ");
  if (at < 0) return narration;
  const hide = (part, i) => (i > 0 && ONLY_NUMBERS.test(part.replace(NUMBER, "")) ? part.replace(NUMBER, "?") : part);
  const clauses = narration.slice(at + 4).split("; ").map((clause) => clause.split(" = ").map(hide).join(" = "));
  return narration.slice(0, at + 4) + clauses.join("; ");
}

/**
 * A typed answer as a number: "0.7864", "-.5", "1,5" (a decimal comma, as phones in many
 * languages type it), "1e-3". NaN when it is not one number.
 */
export function readAnswer(text) {
  const s = String(text ?? "").trim().replace(/^\u2212/, "-").replace(/^([-+]?\d*),(\d+)$/, "$1.$2");
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s) ? Number(s) : Number.NaN;
}

/**
 * The unit of the last digit the page shows of `v` (format.js formatNumber: 4 decimals for
 * 1e-3 <= |v| < 1e5, else 4 significant digits): 1e-4 for 0.0012, 1e-11 for 1.835e-08.
 */
export function shownUnit(v) {
  const a = Math.abs(v);
  if (a === 0 || (a >= 1e-3 && a < 1e5)) return 1e-4;
  return 10 ** (Math.floor(Math.log10(a)) - 3);
}

/**
 * How far an answer may be from `v` and still be right: relative 1e-3 (RELATIVE), or half a
 * unit of the last digit shown when the page shows fewer digits than that resolves (0.0012
 * for 0.0012345: 2 significant digits, 3% off, but typed to the digits shown). The engine's
 * mistakes table uses the same rule (engine/mistakes.py close).
 */
export function toleranceOf(v) {
  return Math.max(RELATIVE * Math.abs(v), shownUnit(v) / 2);
}

/** True when `x` counts as `v`: within toleranceOf(v), or the same number as the page shows it
 * (a tie rounded the other way). */
export function matches(x, v) {
  if (!Number.isFinite(x) || typeof v !== "number") return false;
  return Math.abs(x - v) <= toleranceOf(v) * (1 + 1e-9) || formatNumber(x) === formatNumber(v);
}

/**
 * The verdict on `text` for `question`, given the mistakes table's entries for it
 * (POST /api/quiz/mistakes: [{kind, value, text}], most telling first; a tensor's value is
 * the whole wrong tensor, judged at the question's element): {verdict: "right"
 * | "wrong" | "unreadable", value, mistake: the first entry that gives this number or null,
 * kinds: every kind that gives it, also: the first entry of each other kind, kind: what the
 * score counts it as (kindOf)}.
 */
export function judge(text, question, mistakes = []) {
  const value = readAnswer(text);
  const none = { mistake: null, kinds: [], also: [], kind: null };
  // 1e999 or 5,000 nines read as Infinity: refused as input, never a (counted) wrong answer
  if (!Number.isFinite(value)) return { verdict: "unreadable", value, ...none };
  if (matches(value, question.answer)) return { verdict: "right", value, ...none };
  return { verdict: "wrong", value, ...named(mistakes, (m) => matches(value, elementAt(m.value, question.element))) };
}

/**
 * The verdict on a grid question's cells (`texts`: one typed string per element, row-major),
 * given the mistakes table's entries for its node (each `value` the whole wrong tensor):
 * judge's fields, with `value` the numbers typed (NaN where unreadable) and `cells` each
 * cell's "right" | "wrong" | "unreadable". "right" when every cell is; "unreadable" when one
 * is. A mistake applies to the whole tensor as it does to an element: an entry is named when
 * every wrong cell is its number there (where the mistake gives the right number, as the
 * transpose does on a diagonal by chance, a right cell agrees with it too).
 */
export function judgeGrid(texts, question, mistakes = []) {
  const right = [question.answer].flat(Infinity);
  const value = right.map((_, k) => readAnswer(texts[k]));
  const cells = value.map((x, k) => (!Number.isFinite(x) ? "unreadable" : matches(x, right[k]) ? "right" : "wrong"));
  const none = { mistake: null, kinds: [], also: [], kind: null };
  if (cells.includes("unreadable")) return { verdict: "unreadable", value, cells, ...none };
  const wrong = cells.flatMap((c, k) => (c === "wrong" ? [k] : []));
  if (!wrong.length) return { verdict: "right", value, cells, ...none };
  return { verdict: "wrong", value, cells, ...named(mistakes, (m) => wrong.every((k) => matches(value[k], elementAt(m.value, k)))) };
}

/**
 * What the page says to an unreadable answer (judge's or judgeGrid's verdict "unreadable"):
 * a number past a float64's range (1e999, 5,000 nines: Infinity) is said as such, since
 * "type one number" would puzzle who typed one; `grid` for a grid question.
 */
export function unreadableTitle(verdict, grid = false) {
  const huge = [verdict.value].flat().some((x) => x === Infinity || x === -Infinity);
  const where = grid ? " in each cell" : "";
  const tail = grid ? "; Tab moves on." : ".";
  if (!huge) return `Type one number${where}, e.g. 0.7864 (a comma works too)${tail}`;
  return `Type a finite number${where}, e.g. 0.7864${tail} ${grid ? "A cell holds" : "That is"} a number past the largest a float64 holds (about 1.8e308).`;
}

/** The answer `texts` (one string per cell: a scalar's or an element's one) to `question`:
 * judgeGrid for a grid question, else judge of its one text. */
export function judgeAnswer(texts, question, mistakes = []) {
  return question.grid ? judgeGrid(texts, question, mistakes) : judge(texts[0], question, mistakes);
}

/** {mistake, kinds, also, kind} of the entries of `mistakes` for which `gives(m)`: judge's. */
function named(mistakes, gives) {
  const found = mistakes.filter(gives);
  const kinds = [...new Set(found.map((m) => m.kind))];
  const also = kinds.slice(1).map((kind) => found.find((m) => m.kind === kind));
  return { mistake: found[0] ?? null, kinds, also, kind: kindOf(kinds) };
}

/** A question's right answer as the page prints it: "ā = 0.7864", "X̄ = [[17, 23], [-5, -7]]". */
export function answerText(q) {
  return `${q.symbol} = ${numbersText(q.answer)}`;
}

/** A number, or nested lists of numbers, as the page prints them: "[[17, 23], [-5, -7]]". */
export function numbersText(x) {
  return Array.isArray(x) ? `[${x.map(numbersText).join(", ")}]` : formatNumber(x);
}

/** The names of a grid question's cells at flat indices `ks`: "X̄[0,1], X̄[1,0]". */
export function cellNames(q, ks) {
  return ks.map((k) => `${q.symbol}[${indexOf(k, q.shape).join(",")}]`).join(", ");
}

/**
 * What the score counts a wrong answer as, given `kinds` (every kind that gives its number):
 * the one kind, or "overwrite|sign" when the number is what several give (the verdict named
 * them all: "... Or: you have the sign wrong"), so the score does not pick one; null when none.
 */
export const kindOf = (kinds) => (kinds.length ? kinds.join("|") : null);

/** A score's kind for people: "overwrite or sign", "missing local". */
export const kindText = (kind) => kind.split("|").map((k) => k.replaceAll("_", " ")).join(" or ");

/**
 * The score: {asked, right, first_try, mistakes: {kind: count}} over `answers` (one record
 * per question answered: {tries: [{value, verdict, kind}], right}); `asked` counts the
 * questions of the quiz.
 */
export function scoreOf(questions, answers) {
  const records = [...answers.values()];
  const mistakes = {};
  for (const r of records) {
    for (const t of r.tries) if (t.kind) mistakes[t.kind] = (mistakes[t.kind] ?? 0) + 1;
  }
  return {
    asked: questions.length,
    right: records.filter((r) => r.right).length,
    first_try: records.filter((r) => r.tries[0]?.verdict === "right").length,
    mistakes,
  };
}

/** The embed's message to its parent at the end: formative, not a proctored grade (docs/slides.md). */
export function resultMessage(questions, answers) {
  const score = scoreOf(questions, answers);
  return {
    type: "gradwalk:result",
    score: score.first_try,
    max: score.asked,
    right: score.right,
    mistakes: score.mistakes,
    answers: questions.map((q) => {
      const r = answers.get(q.step);
      return {
        node: q.node, what: q.what, symbol: q.symbol, ...(q.index ? { index: q.index } : {}),
        ...(q.grid ? { shape: q.shape } : {}), expected: q.answer, // a grid's: nested lists, each try's given row-major
        given: r ? r.tries.map((t) => t.value) : [], right: Boolean(r?.right),
        first_try: r?.tries[0]?.verdict === "right", mistakes: r ? r.tries.map((t) => t.kind).filter(Boolean) : [],
      };
    }),
  };
}

// ---------------------------------------------------------------- New numbers

// The leaves' fresh numbers are quiz-numbers.js's (re-exported: the quiz's API is this module).
export { freshLeaves, withNumbers } from "./quiz-numbers.js";

/** A fresh seed for "New numbers" (1 .. 2^31 - 1). */
export function freshSeed(random = Math.random) {
  return 1 + Math.floor(random() * (2 ** 31 - 2));
}

const SEED_TRIES = 8; // one leaf draws its own number again 1 time in 40; 8 tries miss 1 in 6.5e12

/**
 * "New numbers" for `program`: freshLeaves' {program, changed, kept} and its `seed`, drawn
 * again (at most SEED_TRIES times) while the draw would give the same text back, so a
 * click never looks like nothing happened (a one-leaf program drew its own number 1 time
 * in 40: the CI run on 619c0b1). A program with no leaf to change gives its text back.
 */
export function renumbered(program, random = Math.random) {
  let fresh;
  for (let i = 0; i < SEED_TRIES; i += 1) {
    const seed = freshSeed(random);
    fresh = { ...freshLeaves(program, seed), seed };
    if (fresh.program !== program || !fresh.changed.length) break;
  }
  return fresh;
}
