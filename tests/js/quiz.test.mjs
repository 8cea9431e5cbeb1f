// The quiz without the DOM (static/js/quiz.js): the steps each preset asks on the tanh
// fan-out example (fixtures/tanh-fanout.json, the server's answer as it came), judging,
// the score and the embed's result, and "New numbers".
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  askedAt, askedNames, askLine, elementAt, emptyReason, elementOf, gateOf, hiddenAt, indexOf, judge, matches, namedSpec, notNamesText, numbersHidden, questionsOf, quizSpec, QUIZ_PATTERN, readAnswer,
  resultMessage, scoreOf, shownUnit, toleranceOf, unknownNames, unreadableTitle, withNumbers,
} from "../../static/js/quiz.js";
import { checkState, linkState, decodeLink, encodeLink, openLink, defaultState } from "../../static/js/state.js";

const trace = JSON.parse(readFileSync(new URL("./fixtures/tanh-fanout.json", import.meta.url)));
const PROGRAM = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n";
// engine/mistakes.py's entries for ā (POST /api/quiz/mistakes), the first few
const A_MISTAKES = [
  { kind: "overwrite", value: -0.7864477329659274, text: "you overwrote ā instead of adding to it (-0.7864 is only the contribution through e)" },
  { kind: "overwrite", value: 1.5728954659318548, text: "you overwrote ā instead of adding to it (1.5729 is only the contribution through d)" },
  { kind: "missing_local", value: 3.1457909318637096, text: "you forgot the local derivative (b) of e" },
  { kind: "no_zero_grad", value: 1.5728954659318548, text: "you forgot zero_grad" },
  { kind: "sign", value: -0.7864477329659274, text: "you have the sign wrong" },
];

test("every adjoint: one question per node before its last contribution, never the seed", () => {
  const qs = questionsOf("adjoints", trace);
  assert.deepEqual(qs.map((q) => [q.step, q.node, q.what]), [
    [8, "n5", "adjoint"], [9, "n2", "adjoint"], [10, "n4", "adjoint"], [11, "n3", "adjoint"],
    [13, "n0", "adjoint"], [14, "n1", "adjoint"],
  ]);
  const a = qs.find((q) => q.node === "n0");
  assert.equal(a.answer, 0.7864477329659274); // after both contributions, not 1.5729
  assert.equal(a.symbol, "a\u0304");
});

test("the other presets and named nodes", () => {
  assert.deepEqual(questionsOf("fanout", trace).map((q) => q.node), ["n0"]);
  assert.deepEqual(questionsOf("values", trace).map((q) => [q.step, q.node, q.answer]),
    [[3, "n3", -0.5], [4, "n4", 0.5], [5, "n5", 0.46211715726000974], [6, "n6", 0.9242343145200195]]);
  assert.deepEqual(questionsOf("nodes:d,a", trace).map((q) => [q.node, q.what]), [["n4", "adjoint"], ["n0", "adjoint"]]);
  assert.deepEqual(questionsOf("nodes:L", trace).map((q) => [q.node, q.what]), [["n6", "value"]]); // the seed is never asked
  assert.deepEqual(questionsOf("", trace), []);
});

test("a `# ask:` line is a quiz on those nodes unless the state names another", () => {
  assert.deepEqual(askedNames(`# ask: d, a\n${PROGRAM}`), ["d", "a"]);
  assert.equal(askedNames(PROGRAM), null);
  assert.equal(quizSpec({ quiz: "", program: `# ask: d, a\n${PROGRAM}` }), "nodes:d,a");
  assert.equal(quizSpec({ quiz: "fanout", program: `# ask: d\n${PROGRAM}` }), "fanout");
  // Train mode steps a run's iteration, where the Quiz menu is hidden: no quiz there (review)
  assert.equal(quizSpec({ quiz: "adjoints", mode: "train", program: PROGRAM }), "");
  assert.equal(quizSpec({ quiz: "", mode: "train", program: `# ask: d\n${PROGRAM}` }), "");
  assert.equal(namedSpec(" d,  a "), "nodes:d,a");
  assert.equal(namedSpec("1x"), "");
});

test("names as Python reads them are asked; a word that is no name says why (review of 454e759: `é` and `<b>x</b>` were dropped silently)", () => {
  assert.equal(namedSpec("é, a"), "nodes:é,a");
  assert.ok(QUIZ_PATTERN.test("nodes:é,a"));
  assert.ok(!QUIZ_PATTERN.test("nodes:<b>x</b>"));
  assert.equal(namedSpec("<b>x</b>"), "");
  assert.equal(notNamesText("d, a"), "");
  assert.equal(notNamesText("<b>x</b>"),
    "“<b>x</b>” is not a name (letters, digits, _; not a Python keyword).");
  assert.equal(notNamesText("1x, d, 2y, a-b, ?, !"),
    "“1x”, “2y”, “a-b” and 2 more are not names (letters, digits, _; not a Python keyword).");
  assert.match(notNamesText("x".repeat(40) + "!"), /^“x{15}…” is not a name/);
});

test("a name that is no node is found, and the `# ask:` line located (a review: `# ask: zz` asked nothing silently)", () => {
  assert.deepEqual(unknownNames("nodes:zz", trace.graph), ["zz"]);
  assert.deepEqual(unknownNames("nodes:d,zz,a,q", trace.graph), ["zz", "q"]);
  assert.deepEqual(unknownNames("nodes:d,a", trace.graph), []);
  assert.deepEqual(unknownNames("adjoints", trace.graph), []);
  assert.equal(askLine(`# ask: zz\n${PROGRAM}`), 1);
  assert.equal(askLine(`a = 1.0\n\n  # ask: d\nL = a`), 3);
  assert.equal(askLine(PROGRAM), null);
});

test("the gate holds the walk before the first unanswered question", () => {
  const qs = questionsOf("fanout", trace);
  assert.equal(gateOf(qs, new Set(), 16), 13);
  assert.equal(askedAt(qs, new Set(), 13).node, "n0");
  assert.equal(gateOf(qs, new Set([13]), 16), 16);
  assert.equal(askedAt(qs, new Set([13]), 13), null);
});

test("a quiz keeps the asked number and every rule of a step not yet shown from the screen", () => {
  const qs = questionsOf("adjoints", trace);
  const hidden = hiddenAt(qs, new Set(), 8); // t̄ = ? (events[8] reveals it)
  assert.equal(hidden.asked.symbol, "t\u0304");
  assert.ok(hidden.revealed(8) && !hidden.revealed(9)); // a rule is on screen after its index + 1 steps
  assert.equal(hiddenAt(qs, new Set([8]), 8).asked, null); // answered
});

test("a rule not yet revealed keeps its formula and shapes, its numbers as ?", () => {
  assert.equal(numbersHidden("t = tanh(d), so d\u0304 += (1 - t²) · t\u0304 = 0.7864 · 2 = 1.5729"),
    "t = tanh(d), so d\u0304 += (1 - t²) · t\u0304 = ? · ? = ?");
  // the running sum, a negative (its sign hidden too) and a name with a digit
  assert.equal(numbersHidden("e = a * b, so ā += b · ē = -0.5 · 1.5729 = -0.7864; ā = 1.5729 + (-0.7864) = 0.7864"),
    "e = a * b, so ā += b · ē = ? · ? = ?; ā = ? + ? = ?");
  assert.equal(numbersHidden("w2 * h1: h̄1 += w2 · ∂L/∂(w2 * h1) = 0.8 · (-0.1326) = -0.1061"),
    "w2 * h1: h̄1 += w2 · ∂L/∂(w2 * h1) = ? · ? = ?");
  assert.equal(numbersHidden("Y = X @ W, so X̄ += Ȳ @ Wᵀ, shapes 2×2 = 2×2 @ 2×2 = [[17, 23], [-5, -7]]"),
    "Y = X @ W, so X̄ += Ȳ @ Wᵀ, shapes 2×2 = 2×2 @ 2×2 = [[?, ?], [?, ?]]");
  assert.equal(numbersHidden("x = 1e-08, so ȳ += 1 · x̄ = 1.835e-08 · NaN = Infinity"), "x = 1e-08, so ȳ += 1 · x̄ = ? · ? = ?");
  // every fixture's rule: no digit left after its "+=" clause's formula, shapes aside
  for (const name of ["tanh-fanout.json", "sigmoid-net.json", "matmul-2x2.json", "reassigned.json"]) {
    const events = JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url))).events;
    for (const ev of events.filter((e) => e.kind === "accumulate")) {
      const masked = numbersHidden(ev.narration);
      const numbers = masked.split(" += ")[1].split("; ").flatMap((c) => c.split(" = ").slice(1)).filter((p) => !/[@⊙a-z]/.test(p));
      assert.ok(numbers.every((p) => !/\d/.test(p)), masked);
    }
  }
});

test("answers are read as phones type them and judged to 1e-3 or the digits shown", () => {
  assert.equal(readAnswer("0,7864"), 0.7864);
  assert.equal(readAnswer(" −0.5 "), -0.5);
  assert.equal(readAnswer(".5"), 0.5);
  assert.ok(Number.isNaN(readAnswer("0.7.8")));
  assert.ok(Number.isNaN(readAnswer("")));
  assert.ok(matches(0.7864, 0.7864477329659274)); // the digits shown
  assert.ok(matches(0.78645, 0.7864477329659274));
  assert.ok(!matches(0.785, 0.7864477329659274)); // 1.8e-3 off
  assert.ok(matches(0, 0) && !matches(0.001, 0));
});

test("the tolerance: relative 1e-3, or the digits shown when the page shows fewer", () => {
  // relative 1e-3 where the page's 4 decimals resolve finer: 1234.0 is right for 1234.5678
  // (4.6e-4 off) though it prints differently, 1232 is not (2.1e-3 off)
  assert.ok(matches(1234.0, 1234.5678) && !matches(1232, 1234.5678));
  assert.ok(!matches(0.7855, 0.7864477329659274)); // 1.2e-3 off, and 0.7855 is not the digits shown
  // the page shows 0.0012345 as "0.0012" (2 significant digits): typed to those digits it is
  // right though 2.8% off; half a unit of the last digit either way (0.00125 is not)
  assert.equal(toleranceOf(0.0012345), 5e-5);
  assert.ok(matches(0.0012, 0.0012345) && matches(0.00124, 0.0012345) && !matches(0.0013, 0.0012345));
  // 4 significant digits outside [1e-3, 1e5): 1.835e-08 shown, 1.83e-08 not right, 1.8351e-08 right
  assert.equal(shownUnit(1.8349e-8), 1e-11);
  assert.ok(matches(1.835e-8, 1.83494e-8) && !matches(1.83e-8, 1.83494e-8));
  assert.ok(matches(123500, 123456.7)); // shown 1.235e+05
  assert.ok(matches(0, 0) && !matches(0.001, 0) && !matches(0.0001, 0));
});

test("the fan-out answers of the issue: right, overwrite, and -0.7864's kinds", () => {
  const q = questionsOf("fanout", trace)[0];
  assert.equal(judge("0.7864", q, A_MISTAKES).verdict, "right");
  const over = judge("1.5729", q, A_MISTAKES);
  assert.equal(over.verdict, "wrong");
  assert.equal(over.mistake.kind, "overwrite");
  assert.match(over.mistake.text, /1\.5729 is only the contribution through d/);
  assert.deepEqual(over.kinds, ["overwrite", "no_zero_grad"]);
  const minus = judge("-0.7864", q, A_MISTAKES);
  assert.equal(minus.mistake.kind, "overwrite");
  assert.match(minus.mistake.text, /contribution through e/);
  assert.deepEqual(minus.kinds, ["overwrite", "sign"]);
  assert.deepEqual(minus.also.map((m) => m.text), ["you have the sign wrong"]); // said too
  const other = judge("5", q, A_MISTAKES);
  assert.equal(other.verdict, "wrong");
  assert.equal(other.mistake, null);
  assert.equal(judge("abc", q, A_MISTAKES).verdict, "unreadable");
  assert.equal(unreadableTitle(judge("abc", q)), "Type one number, e.g. 0.7864 (a comma works too).");
  // past a float64's range (Infinity): refused as input, not judged "Not quite: ..., not
  // Infinity" and counted as a first-try mistake (a review)
  for (const text of ["1e999", "9".repeat(5000), "-1e999"]) {
    const verdict = judge(text, q, A_MISTAKES);
    assert.equal(verdict.verdict, "unreadable", text.slice(0, 8));
    assert.equal(unreadableTitle(verdict), "Type a finite number, e.g. 0.7864. That is a number past the largest a float64 holds (about 1.8e308).");
  }
});

test("the score and the embed's result message", () => {
  const qs = questionsOf("adjoints", trace);
  const answers = new Map([
    [8, { tries: [{ value: 2, verdict: "right", kind: null }], right: true }],
    [13, { tries: [{ value: 1.5729, verdict: "wrong", kind: "overwrite" }, { value: 0.7864, verdict: "right", kind: null }], right: true }],
    [14, { tries: [{ value: -1, verdict: "wrong", kind: null }], right: false }],
  ]);
  assert.deepEqual(scoreOf(qs, answers), { asked: 6, right: 2, first_try: 1, mistakes: { overwrite: 1 } });
  const message = resultMessage(qs, answers);
  assert.equal(message.type, "gradwalk:result");
  assert.equal(message.score, 1);
  assert.equal(message.max, 6);
  assert.equal(message.answers.length, 6);
  assert.deepEqual(message.answers[4], {
    node: "n0", what: "adjoint", symbol: "a\u0304", expected: 0.7864477329659274, given: [1.5729, 0.7864],
    right: true, first_try: false, mistakes: ["overwrite"],
  });
  assert.deepEqual(message.answers[1].given, []); // c̄ was not answered
});

test("New numbers: only the leaves' literals change, the same for the same seed", () => {
  const text = `# ask: a\n${PROGRAM}y = const(3.0)\n`;
  const one = withNumbers(text, 7);
  assert.equal(one, withNumbers(text, 7));
  assert.notEqual(one, withNumbers(text, 8));
  assert.equal(withNumbers(text, 0), text);
  const lines = one.split("\n");
  const original = text.split("\n");
  for (const [i, line] of lines.entries()) {
    if (/^[abc] = /.test(original[i])) {
      const x = Number(line.split("=")[1]);
      assert.ok(x >= -2 && x <= 2 && x !== 0 && /^-?\d\.\d$/.test(line.split("= ")[1]), line);
    } else assert.equal(line, original[i]); // the graph's lines, const, tensors, the comment
  }
  assert.equal(withNumbers(one, 7), one); // renumbering renumbered text is the same
});

test("the quiz is a link field, and a link without one turns it off", () => {
  assert.ok(QUIZ_PATTERN.test("nodes:d,a") && !QUIZ_PATTERN.test("nodes:") && !QUIZ_PATTERN.test("all"));
  const state = { ...defaultState(), program: PROGRAM, quiz: "fanout", quiz_seed: 12 };
  const link = linkState(state);
  assert.equal(link.quiz, "fanout");
  assert.equal(link.quiz_seed, 12);
  assert.deepEqual(decodeLink(encodeLink(state)).state.quiz, "fanout");
  assert.equal(checkState({ v: 1, program: PROGRAM, quiz: "everything" }).state.quiz, undefined);
  assert.equal(openLink({ ...defaultState(), quiz: "values" }, { v: 1, program: PROGRAM }, []).quiz, "");
  assert.equal(openLink(defaultState(), { v: 1, program: PROGRAM, quiz: "fanout" }, []).quiz, "fanout");
});

test("Practice: a seeded graph of the size and op set asked, every leaf used", async () => {
  const { practiceProgram, OP_SETS, SIZES } = await import("../../static/js/quiz-practice.js");
  for (const ops of Object.keys(OP_SETS)) {
    for (const size of SIZES) {
      for (const seed of [1, 2, 99, 123456]) {
        const text = practiceProgram(seed, { size, ops });
        assert.equal(text, practiceProgram(seed, { size, ops })); // seeded
        const lines = text.trim().split("\n");
        assert.equal(lines[0], `# practice: seed=${seed}, ${size} ops from ${ops}`);
        const body = lines.slice(4);
        assert.equal(body.length, size);
        assert.match(body.at(-1), /^L = /);
        const used = body.map((l) => l.split("=")[1]).join(" ");
        for (const leaf of ["a", "b", "c"]) assert.match(used, new RegExp(`\\b${leaf}\\b`), text);
        for (const l of body) {
          const names = l.split("=")[1].match(/\b[a-z]\w*\b/g).filter((n) => !["tanh", "exp", "sigmoid"].includes(n));
          const op = (l.match(/(tanh|exp|sigmoid)\(/) ?? l.match(/ ([+*-]) /))[1];
          assert.ok({ "+": "add", "*": "mul", "-": "sub" }[op] ? OP_SETS[ops].includes({ "+": "add", "*": "mul", "-": "sub" }[op]) : OP_SETS[ops].includes(op), l);
          assert.ok(names.length >= 1);
        }
      }
    }
  }
  assert.notEqual(practiceProgram(1), practiceProgram(2));
  assert.throws(() => practiceProgram(1, { size: 1 }), RangeError);
  assert.throws(() => practiceProgram(1, { ops: "÷" }), RangeError);
});

// A tensor program (the "matrix multiply" example): the engine's trace and its mistakes table
// (POST /api/quiz/mistakes), fixtures/matmul-2x2*.json. X̄ = Ȳ Wᵀ = [[17, 23], [-5, -7]] and
// W̄ = Xᵀ Ȳ = [[-2, 2], [-2, 4]] (tests/engine/test_mistakes.py checks them against PyTorch).
const matmul = JSON.parse(readFileSync(new URL("./fixtures/matmul-2x2.json", import.meta.url)));
const matmulMistakes = JSON.parse(readFileSync(new URL("./fixtures/matmul-2x2-mistakes.json", import.meta.url)));
const X_BAR = [[17, 23], [-5, -7]];

test("a tensor node is asked one element, drawn by the seed", () => {
  const qs = questionsOf("adjoints", matmul, { seed: 7 });
  assert.deepEqual(qs.map((q) => [q.step, q.node]), [[7, "n4"], [8, "n3"], [9, "n0"], [10, "n1"]]); // every tensor adjoint
  const x = qs.find((q) => q.node === "n0");
  assert.equal(x.what, "adjoint");
  assert.deepEqual(x.index, indexOf(x.element, [2, 2]));
  assert.equal(x.symbol, `X\u0304[${x.index.join(",")}]`);
  assert.equal(x.answer, X_BAR[x.index[0]][x.index[1]]);
  assert.deepEqual(questionsOf("adjoints", matmul, { seed: 7 }), qs); // the same seed, the same elements
  const elements = new Set(Array.from({ length: 40 }, (_, seed) => questionsOf("adjoints", matmul, { seed }).find((q) => q.node === "n0").element));
  assert.deepEqual([...elements].sort(), [0, 1, 2, 3]); // every element is someone's question
  const values = questionsOf("values", matmul, { seed: 7 });
  assert.deepEqual(values.map((q) => q.node), ["n3", "n4", "n5"]); // Y, G * Y, and the scalar L
  const gy = values.find((q) => q.node === "n4");
  assert.match(gy.symbol, /^\(G \* Y\)\[\d,\d\]$/);
  assert.deepEqual(indexOf(3, [2, 2]), [1, 1]);
  assert.deepEqual(indexOf(5, [2, 3]), [1, 2]);
  assert.equal(elementAt([[1, 2], [3, 4]], 2), 3);
});

test("a tensor element's wrong answer is named elementwise", () => {
  const seed = Array.from({ length: 100 }, (_, s) => s).find((s) => elementOf("n0", [2, 2], s) === 0);
  const q = questionsOf("adjoints", matmul, { seed }).find((x) => x.node === "n0");
  assert.deepEqual(q.index, [0, 0]);
  const table = matmulMistakes.adjoint.n0;
  assert.equal(judge("17", q, table).verdict, "right");
  const t = judge("19", q, table); // (Ȳ W)[0,0]: the transpose left out
  assert.equal(t.verdict, "wrong");
  assert.equal(t.mistake.kind, "transpose");
  assert.match(t.mistake.text, /Y\u0304 @ W in place of Y\u0304 @ Wᵀ/);
  assert.equal(judge("-17", q, table).mistake.kind, "sign");
  assert.equal(judge("34", q, table).mistake.kind, "added_twice");
  assert.equal(judge("18", q, table).mistake, null);
  // at [1,0] the transposed product is right by chance (-5 either way): no mistake to name there
  const other = { ...q, element: 2, index: [1, 0], answer: -5 };
  assert.equal(judge("-5", other, table).verdict, "right");
  const w = questionsOf("adjoints", matmul, { seed }).find((x) => x.node === "n1");
  const slip = [[-1, 2], [-1, 6]]; // X Ȳ for Xᵀ Ȳ
  const named = judge(String(slip[w.index[0]][w.index[1]]), w, matmulMistakes.adjoint.n1);
  assert.equal(named.verdict, slip[w.index[0]][w.index[1]] === w.answer ? "right" : "wrong");
  if (named.verdict === "wrong") assert.equal(named.mistake.kind, "transpose");
  const message = resultMessage([q], new Map([[q.step, { tries: [{ value: 19, verdict: "wrong", kind: "transpose" }], right: false }]]));
  assert.deepEqual(message.answers[0].index, [0, 0]);
  assert.equal(message.answers[0].symbol, "X\u0304[0,0]");
});

test("an answer named as two kinds is scored as both, the same on the page and in the message", async () => {
  const { kindOf, kindText } = await import("../../static/js/quiz.js");
  const qs = questionsOf("fanout", trace);
  const minus = judge("-0.7864", qs[0], A_MISTAKES); // "overwrite ... Or: you have the sign wrong"
  assert.equal(minus.kind, "overwrite|sign");
  assert.equal(kindText(minus.kind), "overwrite or sign");
  assert.equal(kindText("missing_local"), "missing local");
  assert.equal(judge("3.1458", qs[0], A_MISTAKES).kind, "missing_local"); // one kind: itself
  assert.equal(judge("5", qs[0], A_MISTAKES).kind, null);
  assert.equal(kindOf([]), null);
  const answers = new Map([[qs[0].step, { tries: [{ value: minus.value, verdict: "wrong", kind: minus.kind }], right: false }]]);
  assert.deepEqual(scoreOf(qs, answers).mistakes, { "overwrite|sign": 1 });
  const message = resultMessage(qs, answers);
  assert.deepEqual(message.mistakes, { "overwrite|sign": 1 });
  assert.deepEqual(message.answers[0].mistakes, ["overwrite|sign"]);
});

// The review's a3 shot: New numbers left the matmul example byte for byte unchanged.
const MATMUL = "X = [[1.0, 2.0], [3.0, 4.0]]\nW = [[5.0, 6.0], [7.0, 8.0]]\nG = const([[1.0, 2.0], [-1.0, 0.0]])\nY = X @ W\nL = sum(G * Y)\n";

test("New numbers gives tensor leaves fresh numbers of the same shape, and names the leaves kept", async () => {
  const { freshLeaves } = await import("../../static/js/quiz.js");
  const fresh = freshLeaves(MATMUL, 7);
  assert.notEqual(fresh.program, MATMUL);
  assert.deepEqual(fresh.changed, ["X", "W"]);
  assert.deepEqual(fresh.kept, []);
  const lines = fresh.program.split("\n");
  for (const [i, name] of [[0, "X"], [1, "W"]]) {
    const value = JSON.parse(lines[i].split(" = ")[1]);
    assert.equal(value.length, 2, name); // 2x2 still
    for (const row of value) {
      assert.equal(row.length, 2);
      for (const x of row) assert.ok(x >= -2 && x <= 2 && x !== 0, `${name}: ${x}`);
    }
  }
  assert.deepEqual(lines.slice(2), MATMUL.split("\n").slice(2)); // the constant G and the graph stay
  assert.equal(freshLeaves(fresh.program, 7).program, fresh.program); // the same seed, the same numbers
  // A seeded helper gets a fresh seed; zeros and a list of integers (labels) are kept, and said.
  const mlp = "X = randn(6, 4, seed=0)\nb1 = zeros(8)\ny = [0, 2, 1]\nL = sum(X)\n";
  const helper = freshLeaves(mlp, 7);
  assert.match(helper.program, /^X = randn\(6, 4, seed=\d+\)\n/);
  assert.notEqual(helper.program.split("\n")[0], "X = randn(6, 4, seed=0)");
  assert.deepEqual([helper.changed, helper.kept], [["X"], ["b1", "y"]]);
  assert.deepEqual(freshLeaves("b = zeros(3)\nL = sum(b)\n", 7), { program: "b = zeros(3)\nL = sum(b)\n", changed: [], kept: ["b"] });
});

// A small tensor asked whole (state.js quiz_grid): a grid of boxes, one per element, judged
// cell by cell; a mistake named for the whole tensor where every wrong cell is its number.
test("with quiz_grid a small tensor is asked whole, and a big one still one element", async () => {
  const { GRID_MAX } = await import("../../static/js/quiz.js");
  const qs = questionsOf("adjoints", matmul, { seed: 7, grid: true });
  const x = qs.find((q) => q.node === "n0");
  assert.equal(x.grid, true);
  assert.deepEqual(x.shape, [2, 2]);
  assert.deepEqual(x.answer, X_BAR); // PyTorch's X.grad (tests/engine/test_mistakes.py)
  assert.equal(x.symbol, "X\u0304"); // no element in its name
  assert.equal(x.element, undefined);
  assert.equal(questionsOf("adjoints", matmul, { seed: 7 }).find((q) => q.node === "n0").grid, undefined); // off: one element
  // past GRID_MAX numbers, or rank 3: one element, as without the grid
  const big = { shape: [GRID_MAX + 1], dtype: "float64", summary: null, data: Array.from({ length: GRID_MAX + 1 }, (_, k) => k + 0.5) };
  const cube = { shape: [2, 2, 2], dtype: "float64", summary: null, data: [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] };
  const vec = { shape: [3], dtype: "float64", summary: null, data: [1.5, -2, 3] };
  const tiny = (value) => ({
    graph: { nodes: [{ id: "n0", label: "v", name: "v", role: "op", op: "add", inputs: [] }] },
    events: [{ kind: "evaluate", node: "n0", value }],
  });
  assert.equal(questionsOf("values", tiny(big), { grid: true })[0].grid, undefined);
  assert.equal(typeof questionsOf("values", tiny(big), { grid: true })[0].element, "number");
  assert.equal(questionsOf("values", tiny(cube), { grid: true })[0].grid, undefined);
  assert.deepEqual(questionsOf("values", tiny(vec), { grid: true })[0].answer, [1.5, -2, 3]);
});

test("a grid answer is judged cell by cell, and a mistake named for the whole tensor", async () => {
  const { answerText, cellNames, judgeAnswer, judgeGrid } = await import("../../static/js/quiz.js");
  const x = questionsOf("adjoints", matmul, { seed: 7, grid: true }).find((q) => q.node === "n0");
  const table = matmulMistakes.adjoint.n0;
  const cells = (rows) => rows.flat().map(String);
  const right = judgeGrid(cells([[17, 23], [-5, -7]]), x, table);
  assert.equal(right.verdict, "right");
  assert.deepEqual(right.cells, ["right", "right", "right", "right"]);
  assert.equal(judgeGrid(["17", "23,0", "-5.00004", "\u22127"], x, table).verdict, "right"); // a decimal comma, a minus sign
  // the transpose left out: Ȳ W = [[19, 22], [-5, -6]] (right at [1,0] by chance)
  const t = judgeGrid(cells([[19, 22], [-5, -6]]), x, table);
  assert.equal(t.verdict, "wrong");
  assert.deepEqual(t.cells, ["wrong", "wrong", "right", "wrong"]);
  assert.equal(t.mistake.kind, "transpose");
  assert.equal(t.kind, "transpose");
  assert.deepEqual(t.value, [19, 22, -5, -6]);
  assert.equal(cellNames(x, [0, 1, 3]), "X\u0304[0,0], X\u0304[0,1], X\u0304[1,1]");
  // the slip in one cell only is still that slip there
  assert.equal(judgeGrid(cells([[19, 23], [-5, -7]]), x, table).mistake.kind, "transpose");
  assert.equal(judgeGrid(cells([[-17, -23], [5, 7]]), x, table).kind, "sign");
  assert.equal(judgeGrid(cells([[34, 46], [-10, -14]]), x, table).kind, "added_twice");
  assert.equal(judgeGrid(cells([[0, 0], [0, 0]]), x, table).kind, "wrong_order");
  // two slips in two cells: no one mistake gives both
  const mixed = judgeGrid(cells([[19, 23], [5, -7]]), x, table);
  assert.equal(mixed.verdict, "wrong");
  assert.equal(mixed.mistake, null);
  assert.equal(judgeGrid(cells([[18, 23], [-5, -7]]), x, table).mistake, null);
  // a cell left empty or not a number: unreadable, that cell marked
  const empty = judgeGrid(["17", "", "-5", "x"], x, table);
  assert.equal(empty.verdict, "unreadable");
  assert.deepEqual(empty.cells, ["right", "unreadable", "right", "unreadable"]);
  assert.equal(unreadableTitle(empty, true), "Type one number in each cell, e.g. 0.7864 (a comma works too); Tab moves on.");
  const huge = judgeGrid(["17", "1e999", "-5", "-7"], x, table); // Infinity: a cell unreadable
  assert.equal(huge.verdict, "unreadable");
  assert.deepEqual(huge.cells, ["right", "unreadable", "right", "right"]);
  assert.match(unreadableTitle(huge, true), /^Type a finite number in each cell, e\.g\. 0\.7864; Tab moves on\. A cell holds a number past/);
  // judgeAnswer: the grid's texts, or a scalar's one
  assert.equal(judgeAnswer(cells([[19, 22], [-5, -6]]), x, table).kind, "transpose");
  const a = questionsOf("fanout", trace)[0];
  assert.equal(judgeAnswer(["1.5729"], a, A_MISTAKES).kind, "overwrite|no_zero_grad");
  assert.equal(answerText(x), "X\u0304 = [[17, 23], [-5, -7]]");
  assert.equal(answerText(a), "a\u0304 = 0.7864");
  // the score and the embed's result count a grid as one question
  const answers = new Map([[x.step, { tries: [{ value: t.value, verdict: "wrong", kind: t.kind }, { value: right.value, verdict: "right", kind: null }], right: true }]]);
  assert.deepEqual(scoreOf([x], answers), { asked: 1, right: 1, first_try: 0, mistakes: { transpose: 1 } });
  const message = resultMessage([x], answers);
  assert.deepEqual(message.answers[0].expected, X_BAR);
  assert.deepEqual(message.answers[0].shape, [2, 2]);
  assert.deepEqual(message.answers[0].given, [[19, 22, -5, -6], [17, 23, -5, -7]]);
  assert.equal(message.answers[0].index, undefined);
});

// The CI run on 619c0b1: New numbers on the fan-out example kept `a = 1.0` (a leaf draws its
// own number 1 time in 40); a one-leaf program then looked as if the click did nothing.
test("New numbers draws again while the fresh numbers would give the same text back", async () => {
  const { freshLeaves, freshSeed, renumbered } = await import("../../static/js/quiz.js");
  const program = "a = 1.0\nL = a * a\n";
  const seeds = Array.from({ length: 4000 }, (_, i) => i + 1);
  const same = seeds.find((s) => freshLeaves(program, s).program === program);
  const other = seeds.find((s) => freshLeaves(program, s).program !== program);
  assert.ok(same && other, "a seed that draws 1.0 again, and one that does not");
  const draws = [same, other].map((s) => (s - 1 + 0.5) / (2 ** 31 - 2)); // freshSeed's inverse
  const random = () => draws.shift();
  assert.equal(freshSeed(() => (same - 1 + 0.5) / (2 ** 31 - 2)), same);
  const fresh = renumbered(program, random);
  assert.equal(fresh.seed, other);
  assert.equal(fresh.program, freshLeaves(program, other).program);
  assert.notEqual(fresh.program, program);
  // Nothing to change: one draw, the text back, nothing changed.
  const fixed = renumbered("b = zeros(3)\nL = sum(b)\n", () => 0.25);
  assert.deepEqual([fixed.program, fixed.changed, fixed.kept], ["b = zeros(3)\nL = sum(b)\n", [], ["b"]]);
});

test("a quiz that asks nothing says why, for its own spec (review: the fan-out quiz named tensors)", () => {
  const node = (id, role = "op") => ({ id, label: id, role });
  const chain = {
    graph: { nodes: [node("a", "leaf"), node("b"), node("L")] },
    events: [{ kind: "evaluate", node: "a", value: 1 }, { kind: "evaluate", node: "b", value: 2 },
      { kind: "evaluate", node: "L", value: 3 }, { kind: "seed", node: "L" },
      { kind: "accumulate", node: "L", input: "b", adjoint_after: 1 },
      { kind: "accumulate", node: "b", input: "a", adjoint_after: 2 }],
  };
  assert.deepEqual(questionsOf("fanout", chain), []);
  assert.match(emptyReason("fanout", chain), /no node here is used twice.*every adjoint/);
  const forward = { graph: chain.graph, events: [{ kind: "tangent", node: "a", value: 1, tangent: 1 }] };
  assert.deepEqual(questionsOf("adjoints", forward), []);
  assert.match(emptyReason("adjoints", forward), /no backward pass/);
  assert.match(emptyReason("fanout", forward), /no backward pass/);
  assert.match(emptyReason("values", forward), /tangents, not forward values/);
  // numbers that cannot be asked (a tensor sent as a summary): the tensor sentence
  const summary = { graph: chain.graph, events: [{ kind: "accumulate", node: "L", input: "a", adjoint_after: { shape: [9000], data: null } }] };
  assert.match(emptyReason("adjoints", summary), /too large to travel whole/);
});

// The review: New numbers turned seed-relu-mask's z = [2.0, -1.0, 0.5] into [0.8, 1.8, 1.1]
// (nothing masked any more) and seed-gelu-exact's z = 0 into a number off the edge point.
test("New numbers keeps each number's sign and a zero, where an example's point lives", async () => {
  const { freshLeaves } = await import("../../static/js/quiz.js");
  const program = "z = [2.0, -1.0, 0.5, 0.0]\nc = -0.5\nk = 0.0\nL = sum(relu(z)) * c + k\n";
  for (let seed = 1; seed <= 200; seed += 1) {
    const lines = freshLeaves(program, seed).program.split("\n");
    const z = JSON.parse(lines[0].split(" = ")[1]);
    assert.ok(z[0] > 0 && z[1] < 0 && z[2] > 0 && z[3] === 0, `seed ${seed}: ${lines[0]}`);
    assert.ok(Number(lines[1].split(" = ")[1]) < 0, lines[1]);
    assert.equal(lines[2], "k = 0.0");
  }
  assert.notEqual(freshLeaves(program, 3).program, freshLeaves(program, 4).program);
});

// The review: a link to iteration 500 of a 10-step run said "The graph shows iteration 500, not 9".
test("a link's chosen training iteration is one of its run's", () => {
  const { state } = checkState({ v: 1, mode: "train", train_steps: 10, train_chosen: true, train_iteration: 500 });
  assert.equal(state.train_iteration, 9);
  assert.equal(checkState({ v: 1, train_iteration: 500 }).state.train_iteration, 299); // the default 300 steps
  assert.equal(checkState({ v: 1, train_steps: 10, train_iteration: 4 }).state.train_iteration, 4);
});

test("a quiz name is a Python identifier that is not a keyword: the table the server's test runs too (tests/cases/quiz_names.json)", () => {
  const table = JSON.parse(readFileSync(new URL("../cases/quiz_names.json", import.meta.url), "utf8"));
  for (const { name, valid } of table.names) {
    assert.equal(QUIZ_PATTERN.test(`nodes:${name}`), valid, `nodes:${JSON.stringify(name)}`);
    assert.equal(checkState({ v: 1, quiz: `nodes:${name}` }).state?.quiz === `nodes:${name}`, valid, JSON.stringify(name));
  }
  for (const { spec, valid } of table.specs) assert.equal(QUIZ_PATTERN.test(spec), valid, JSON.stringify(spec));
  assert.equal(namedSpec("if, a, match, for_"), "nodes:a,match,for_");
});
