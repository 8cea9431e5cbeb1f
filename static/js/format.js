// Number and value formatting for the picture and for data-* attributes.
// No DOM: `node --test` covers it. Values follow docs/trace-format.md: a scalar is a
// JSON number, a non-finite one the string "NaN" / "Infinity" / "-Infinity", and a tensor
// is {shape, dtype, summary, data} with data null when it is too large to inline.

const NON_FINITE = new Set(["NaN", "Infinity", "-Infinity"]);

/** True for a tensor value (an object with a shape), false for a scalar. */
export function isTensor(value) {
  return value !== null && typeof value === "object" && Array.isArray(value.shape);
}

/** A scalar (number or non-finite string) printed to `digits` significant digits. */
export function formatNumber(x, digits = 4) {
  if (typeof x === "string") return NON_FINITE.has(x) ? x : "?";
  if (typeof x !== "number") return "?";
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return "0";
  const a = Math.abs(x);
  // Outside this range fixed notation either runs long or rounds to 0.
  if (a >= 1e6 || a < 1e-4) {
    return x.toExponential(digits - 1).replace(/\.?0+e/, "e").replace("e+", "e");
  }
  return String(Number(x.toPrecision(digits)));
}

/** "2×3" for shape [2, 3]; "scalar" for []. */
export function formatShape(shape) {
  return shape && shape.length ? shape.join("×") : "scalar";
}

/** Element count of a shape. */
export function sizeOf(shape) {
  return (shape || []).reduce((n, d) => n * d, 1);
}

/** One line of a vector, e.g. "[1, -0.5, NaN]". */
function formatRow(row, digits) {
  return "[" + row.map((x) => formatNumber(x, digits)).join(", ") + "]";
}

/**
 * A tensor's data as the lines to print: one line per row of a matrix, one line for a
 * vector; null when there is no data or it would not fit in `maxElements` elements.
 */
export function tensorRows(value, maxElements = 12, digits = 4) {
  if (!isTensor(value) || value.data == null || value.shape.length > 2) return null;
  if (sizeOf(value.shape) > maxElements) return null;
  if (value.shape.length === 1) return [formatRow(value.data, digits)];
  return value.data.map((row) => formatRow(row, digits));
}

/** A tensor's summary as lines ["min -1", "max 4", "mean 2.5"]: narrow boxes suit a wide graph. */
export function summaryLines(summary, digits = 4) {
  if (!summary) return [];
  return ["min", "max", "mean"]
    .filter((k) => k in summary)
    .map((k) => `${k} ${formatNumber(summary[k], digits)}`);
}

/** A tensor's summary on one line: "min -1 · max 4 · mean 2.5". */
export function formatSummary(summary, digits = 4) {
  return summaryLines(summary, digits).join(" · ");
}

/** A value on one line: a scalar's digits, a tensor's data if short, else its summary. */
export function formatValue(value, digits = 4) {
  if (!isTensor(value)) return formatNumber(value, digits);
  const rows = tensorRows(value, 6, digits);
  if (rows) return value.shape.length === 2 ? "[" + rows.join(", ") + "]" : rows[0];
  return `${formatShape(value.shape)} · ${formatSummary(value.summary, digits)}`;
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
