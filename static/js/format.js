// Number and value formatting for the picture, the narration and data-* attributes.
// No DOM: `node --test` covers it. Values follow docs/trace-format.md: a scalar is a
// JSON number, a non-finite one the string "NaN" / "Infinity" / "-Infinity", and a tensor
// is {shape, dtype, summary, data} with data null when it is too large to inline.
// Every number on screen is printed by `formatNumber`, the engine's rule, so the page's own
// text and the engine's narration agree digit for digit.

const NON_FINITE = new Set(["NaN", "Infinity", "-Infinity"]);

/** True for a tensor value (an object with a shape), false for a scalar. */
export function isTensor(value) {
  return value !== null && typeof value === "object" && Array.isArray(value.shape);
}

/** Strip trailing zeros of a fraction: "1.5000" -> "1.5", "2.0000" -> "2". */
function trimZeros(s) {
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

/**
 * Python's f"{x:.4f}": round half to even on the exact binary value. JS's toFixed rounds an
 * exact tie away from zero; x * 10^4 ends in exactly .5 only when x * 32 is an odd integer.
 */
function fixed4(x) {
  const tie = Number.isInteger(x * 32) && Math.abs(x * 32) % 2 === 1;
  if (!tie) return x.toFixed(4);
  let n = Math.floor(Math.abs(x) * 1e4); // exact: x has 5 binary fraction digits
  if (n % 2 === 1) n += 1;
  const digits = String(n).padStart(5, "0");
  return `${x < 0 ? "-" : ""}${digits.slice(0, -4)}.${digits.slice(-4)}`;
}

/**
 * Python's f"{x:.4g}" for the numbers `formatNumber` sends here (|x| < 1e-3 or >= 1e5):
 * 4 significant digits, exponent form ("1.835e-08", "1.235e+05") when the exponent is
 * below -4 or at least 4. Exact ties need an integer x (|x| >= 1e5), done with BigInt.
 */
function general4(x) {
  let [mantissa, exp] = x.toExponential(3).split("e").map((s, i) => (i ? Number(s) : s));
  if (Number.isInteger(x) && Math.abs(x) >= 1e5) {
    const digits = BigInt(Math.abs(x)).toString();
    const kept = BigInt(digits.slice(0, 4));
    const rest = digits.slice(4);
    const half = "5" + "0".repeat(rest.length - 1);
    const up = rest > half || (rest === half && kept % 2n === 1n);
    const rounded = String(kept + (up ? 1n : 0n)); // "10000" when 9999 rounds up
    exp = digits.length - 1 + (rounded.length - 4);
    mantissa = `${x < 0 ? "-" : ""}${rounded[0]}.${rounded.slice(1, 4)}`;
  }
  if (exp < -4 || exp >= 4) {
    const sign = exp < 0 ? "-" : "+";
    return `${trimZeros(mantissa)}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return trimZeros(x.toFixed(3 - exp));
}

/**
 * A scalar (number or non-finite string) as the engine prints it (engine/trace/values.py
 * `short`): 4 decimals without trailing zeros for 1e-3 <= |x| < 1e5 (0.7864, 1.5729, -6),
 * else 4 significant digits (1.835e-08, 1.235e+05). Anything else prints as "?".
 */
export function formatNumber(x) {
  if (typeof x === "string") return NON_FINITE.has(x) ? x : "?";
  if (typeof x !== "number") return "?";
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  const a = Math.abs(x);
  if (x === 0 || (a >= 1e-3 && a < 1e5)) {
    const s = trimZeros(fixed4(x));
    return s === "-0" ? "0" : s;
  }
  return general4(x);
}

/**
 * `x` (finite, not 0) with `digits` significant digits, trailing zeros kept so that a table's
 * cells show as many digits each: fixed for exponents -4 to 4 ("-0.0002060", "1.403"), else
 * exponent form like Python's ("1.835e-08").
 */
function significant(x, digits = 4) {
  const [mantissa, e] = x.toExponential(digits - 1).split("e");
  const exp = Number(e);
  if (exp < -4 || exp > 4) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return x.toFixed(digits - 1 - exp);
}

/**
 * The cells of one table (numbers or the non-finite strings), printed by one rule: each
 * non-zero number with 4 significant digits ("-0.002203", "-0.0002060", "0.04210"), 0 as
 * "0"; a table of whole numbers under 1e5 as they are ("0", "2"). formatNumber's 4 decimals
 * gave 2 digits to -0.0022 beside -0.000206's 3 and -0.0006894's 4 in one column (W1's
 * gradient in the MLP example's detail; a review), which read as different precisions.
 */
export function formatCells(cells) {
  const whole = cells.every((x) => typeof x !== "number" || !Number.isFinite(x)
    || (Number.isInteger(x) && Math.abs(x) < 1e5));
  return cells.map((x) => (whole || typeof x !== "number" || !Number.isFinite(x) || x === 0
    ? formatNumber(x) : significant(x)));
}

/** "2×3" for shape [2, 3]; "scalar" for []. */
export function formatShape(shape) {
  return shape && shape.length ? shape.join("×") : "scalar";
}

/**
 * The words an error's kind is written in, before its message (engine/errors.py kind_words,
 * the same words): "unknown_name" -> "unknown name", "syntax" -> "syntax error". Every place
 * writes an error as where, these words, then the message, which never repeats them.
 */
export function kindWords(kind) {
  if (!kind) return "error";
  return kind === "syntax" ? "syntax error" : kind.replaceAll("_", " ");
}

/** Where error `detail` ({line, col}: 1-based, 0-based) is, as the editor says it: "Line 2, column 7: ", or "". */
export function errorPlace(detail) {
  return detail?.line == null
    ? ""
    : `Line ${detail.line}${detail.col == null ? "" : `, column ${detail.col + 1}`}: `;
}

/**
 * A shape where a rule, a note or an edge writes it (engine/trace/narrate.py shape_text, the
 * same words): "4×3", "2×3×4", a vector "8-vector", a scalar "scalar". Python's "(4,3)" read
 * as a ratio beside a rule, and a lone "8" as a number (issue 14 §4/§5).
 */
export function shapeText(shape) {
  if (!shape || !shape.length) return "scalar";
  return shape.length === 1 ? `${shape[0]}-vector` : shape.join("×");
}

/**
 * A tensor's shape as a noun, for a summary that stands where a value would: "8-vector",
 * "6×4 matrix", "2×3×4 tensor" ("scalar" for []). A bare size read as a value on the
 * projector: the Done line "dL/db1 = 8   min −0.1052 …" (a review), "6×4" as a product.
 * The node's tag (layout.js opTag) keeps formatShape's short "6×4", beside its op.
 */
export function shapeName(shape) {
  if (!shape || shape.length < 2) return shapeText(shape);
  return `${shapeText(shape)} ${shape.length === 2 ? "matrix" : "tensor"}`;
}

/** Element count of a shape. */
export function sizeOf(shape) {
  return (shape || []).reduce((n, d) => n * d, 1);
}

/** One line of a vector, e.g. "[1, -0.5, NaN]". */
function formatRow(row) {
  return "[" + row.map(formatNumber).join(", ") + "]";
}

/**
 * A tensor's data as the lines to print: one line per row of a matrix, one line for a
 * vector; null when there is no data or it would not fit in `maxElements` elements.
 */
export function tensorRows(value, maxElements = 12) {
  if (!isTensor(value) || value.data == null || value.shape.length > 2) return null;
  if (sizeOf(value.shape) > maxElements) return null;
  if (value.shape.length === 1) return [formatRow(value.data)];
  return value.data.map(formatRow);
}

/** A tensor's summary as lines ["min -1", "max 4", "mean 2.5"]: narrow boxes suit a wide graph. */
export function summaryLines(summary) {
  if (!summary) return [];
  return ["min", "max", "mean"]
    .filter((k) => k in summary)
    .map((k) => `${k} ${formatNumber(summary[k])}`);
}

/** A tensor's summary on one line: "min -1 · max 4 · mean 2.5". */
export function formatSummary(summary) {
  return summaryLines(summary).join(" · ");
}

/**
 * A value on one line: a scalar's digits, a tensor's data if short, else its shape named
 * (shapeName) and its summary: "8-vector · min -0.1052 · max 0.2 · mean 0.01".
 */
export function formatValue(value) {
  if (!isTensor(value)) return formatNumber(value);
  const rows = tensorRows(value, 6);
  if (rows) return value.shape.length === 2 ? "[" + rows.join(", ") + "]" : rows[0];
  return [shapeName(value.shape), formatSummary(value.summary)].filter(Boolean).join(" · ");
}

/**
 * The lines a value takes in a node box that reserves `rows` lines: one number, the data
 * rows of a small tensor (up to `maxElements` elements), or its min / max / mean.
 */
export function boxLines(value, rows, maxElements = 12) {
  if (value === undefined) return [];
  if (!isTensor(value)) return [formatNumber(value)];
  const data = tensorRows(value, maxElements);
  if (data && data.length === rows) return data;
  return summaryLines(value.summary).slice(0, rows);
}

/**
 * The full-precision text for a data-* attribute: String(number) for a scalar (the
 * non-finite strings stay as they are), the JSON of the data (or of the summary when the
 * data was not inlined) for a tensor.
 */
export function fullPrecision(value) {
  if (value === undefined || value === null) return null;
  if (!isTensor(value)) return String(value);
  return JSON.stringify(value.data ?? value.summary);
}

/** `n` and `noun`, plural unless n is 1 ("1 pass", "3 passes"; engine/wording.py counted). */
export function counted(n, noun, plural = `${noun}s`) {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural}`;
}
