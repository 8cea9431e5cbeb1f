// The rules of Train mode's two numbers, Iterations and the learning rate, and the words that
// refuse a value: the CLI's (server/cli_numbers.py, server/cli_train.py) and the API's
// (engine/train/config.py check_lr and LR_RULE, TrainLimits.max_steps), so that the page, a
// link and `gradwalk train` say one thing. tests/server/test_train_rules_js.py reads these
// constants through node and compares them with the engine's, so they cannot drift apart.
// No DOM, no imports: state.js (links) and render/train-fields.js (the boxes) both read it.

/** The largest learning rate a run takes: engine/train/config.py MAX_LR. */
export const MAX_LR = 1e6;
/** The most iterations a run takes: GRADWALK_MAX_TRAIN_STEPS' default (TrainLimits.max_steps). */
export const MAX_TRAIN_STEPS = 10_000;
/** What a learning rate may be, in the engine's words (LR_RULE): "... at most 1,000,000". */
export const LR_RULE = `a number above 0 and at most ${MAX_LR.toLocaleString("en")}`;
/** What Iterations may be: the CLI's "a whole number from 1", with the server's limit. */
export const STEPS_RULE = `a whole number from 1 to ${MAX_TRAIN_STEPS.toLocaleString("en")}`;
const SHOWN = 40; // characters of what was typed that a message quotes (cli_numbers.py SHOWN)

// The link's fields' types (state.js FIELDS: {check(value from JSON), parse(text)}).
/** A learning rate: a positive finite number, at most MAX_LR (the server's bound). */
export const rate = {
  check: (v) => typeof v === "number" && Number.isFinite(v) && v > 0 && v <= MAX_LR,
  parse: (s) => (/^\d*\.?\d+(e[-+]?\d+)?$/i.test(s) && rate.check(Number(s)) ? Number(s) : undefined),
};
/** Iterations: the one limit of the link, the page's box and the server. */
export const steps = {
  // any count from JSON: checkState clamps one past the limit, with a note
  check: (v) => Number.isSafeInteger(v) && v >= 1,
  parse: (s) => (/^\d+$/.test(s) && steps.check(Number(s)) && Number(s) <= MAX_TRAIN_STEPS ? Number(s) : undefined),
};
/** What the Iterations box's text reads as: a count of digits only, 1..MAX_TRAIN_STEPS, else
 * undefined (Number() would take "1e3", "0x10", " 5 " and "2.5"). */
export const readTrainSteps = (s) => steps.parse(String(s).trim());
/** What the learning-rate box's text reads as: a decimal (1e-3 too, not "0x10"), else undefined. */
export const readRate = (s) => rate.parse(String(s).trim());

/**
 * What the user typed as a refusal quotes it: Python's repr of its first SHOWN characters
 * ('abc'; "it's" in double quotes), and "…" when there were more (cli_numbers.py quoted).
 */
export function quoted(text) {
  const s = Array.from(String(text)).slice(0, SHOWN).join("");
  const more = Array.from(String(text)).length > SHOWN ? "…" : "";
  if (s.includes("'") && !s.includes('"')) return `"${s.replaceAll("\\", "\\\\")}"${more}`;
  return `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'${more}`;
}

/** "'abc' is not a learning rate: give a number above 0 and at most 1,000,000, e.g. 0.1" (the CLI's --lr). */
export const lrRefusal = (text) => `${quoted(text)} is not a learning rate: give ${LR_RULE}, e.g. 0.1`;

/** "'0' is not a number of iterations: give a whole number from 1 to 10,000, e.g. 300" (the CLI's --steps, with the limit). */
export const stepsRefusal = (text) => `${quoted(text)} is not a number of iterations: give ${STEPS_RULE}, e.g. 300`;

// A link's train_* field that was refused: the box's name, and its refusal.
const LINK_FIELDS = { train_steps: ["Iterations", stepsRefusal], train_lr: ["lr", lrRefusal] };

/**
 * The note for a link whose `name` field held `value` (any JSON), a value its box refuses:
 * "This link's lr could not be used: '-3' is not a learning rate: ...; it opens with the
 * example's own lr." `value` is quoted as the link wrote it ("abc", -3, 1000000000).
 */
export function linkRefusal(name, value) {
  const [label, refusal] = LINK_FIELDS[name];
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return `This link's ${label} could not be used: ${refusal(text)}; it opens with the example's own ${label}.`;
}
