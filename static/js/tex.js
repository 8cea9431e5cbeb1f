// The engine's plain-Unicode rules as TeX for KaTeX (issue 18 §3): "ā += b · ē = -0.5 · 1.5729"
// -> "\bar{a} \mathrel{{+}{=}} b \cdot \bar{e} = -0.5 \cdot 1.5729". No DOM: render/typeset.js
// hands the TeX to katex.render, and the plain text stays the element's aria-label (screen
// readers), as the CLI and the Markdown export keep it. The engine narrates in Unicode only
// (engine/trace/narrate.py), so the page reads that one spelling: each token is mapped on
// its own, and what is not math (the words "so", "summed over axis 0") is \text.

const MACRON = "\u0304"; // combining: "X̄", "b̄2"
const SYMBOLS = {
  "·": "\\cdot", "⊙": "\\odot", "@": "\\mathbin{@}", "∂": "\\partial", "→": "\\to", "−": "-",
  "×": "\\times", "≈": "\\approx", "Σ": "\\Sigma", "ε": "\\varepsilon", "…": "\\dots",
  "{": "\\{", "}": "\\}", "%": "\\%", "#": "\\#", "&": "\\&", "$": "\\$", "_": "\\_", "~": "\\sim",
  "\\": "\\backslash", "^": "\\hat{}",
};
const SUPERSCRIPTS = { "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9", "⁽": "(", "⁾": ")", "⁻": "-", "ᵀ": "\\top" };
const DOTTED = "\u0307"; // forward mode's tangents: "ė", "ȧ" (combining dot above)
const SPACE = " ";
const NUMBER = /^\d+(\.\d+)?(e[+-]?\d+)?/i;
// A summary's field after its "·" (engine/trace/values.py summaries), its sign, its number.
const SUMMARY_FIELD = /^· (min|max|mean) ([-−]?)(\d+(?:\.\d+)?(?:e[+-]?\d+)?|NaN|Infinity)/i;
const FIELD = "\\quad "; // the gap between a summary's fields: a line may break there
// A tensor's shape named (format.js shapeName): "8-vector", "6×4 matrix", "2×3×4 tensor".
const SHAPE_NAME = /^(\d+)(?:-vector\b|((?:×\d+)+) (matrix|tensor)\b)/;
const BARE_SHAPE = /^\d+(?:×\d+)+(?![\d.])/;

/**
 * A number as the engine prints it (1.835e-08, 1.235e+05, 0.7864) as TeX: the exponent form
 * as print sets it, 1.835 × 10⁻⁸ (`{1.835\times10^{-8}}`, one group KaTeX never breaks;
 * "2.117e-26" set as math read as 2.117·e − 26, a review at Done of a 150-line chain), any
 * other number as it is. The LaTeX export writes the same (engine/trace/tex.py number).
 */
export function numberTex(text) {
  const m = /^(\d+(?:\.\d+)?)e([+-]?)0*(\d+)$/i.exec(text);
  if (!m) return /^(NaN|Infinity)$/.test(text) ? `\\text{${text}}` : text;
  return `{${m[1]}\\times10^{${m[2] === "-" ? "-" : ""}${m[3]}}}`;
}

/** SHAPE_NAME's match as TeX: 8\text{-vector}, 6\times 4\ \text{matrix}. */
function shapeTex([, first, rest, noun]) {
  if (!noun) return `${first}\\text{-vector}`;
  return `${[first, ...rest.slice(1).split("×")].join("\\times ")}\\ \\text{${noun}}`;
}

// Latin and Greek letters (not ² or ᵀ, which are superscripts; not × or ÷, which are signs)
const WORD = /^[A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0370-\u03FF_][A-Za-z0-9\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0370-\u03FF_']*/;

// The Greek letters the engine writes, and the functions TeX sets upright with their own
// spacing (any other called name is an \operatorname): the same rules as the LaTeX export's
// (engine/trace/tex.py), both tested on tests/fixtures/unicode_tex.json.
const GREEK = { "σ": "\\sigma", "ε": "\\varepsilon", "Σ": "\\Sigma", "Φ": "\\Phi", "φ": "\\varphi" };
const TEX_FUNCTIONS = new Set(["tanh", "exp", "log", "sin", "cos", "sinh", "cosh", "min", "max"]);

/** An identifier or word as TeX: one letter (with its digits as a subscript) in math italic,
 * a called name as a function (\tanh, \operatorname{relu}), any other longer word upright as
 * text ("so", "summed"). */
function word(w, called) {
  const m = /^(\p{L})(\d+)$/u.exec(w);
  if (m) return `${GREEK[m[1]] ?? m[1]}_{${m[2]}}`;
  if (/^\p{L}$/u.test(w)) return GREEK[w] ? `${GREEK[w]} ` : w;
  const name = w.replace(/_/g, "\\_");
  if (called) return TEX_FUNCTIONS.has(w) ? `\\${w}` : `\\operatorname{${name}}`;
  return `\\text{${name}}`;
}

/** A word followed by accents: "b̄2" is b with a bar, then its digits. */
function accented(w, accents) {
  const [base, rest] = [w[0], w.slice(1)];
  const wrap = { [MACRON]: "\\bar", [DOTTED]: "\\dot" };
  let tex = base;
  for (const a of accents) tex = `${wrap[a]}{${tex}}`;
  return rest ? `${tex}${/^\d+$/.test(rest) ? `_{${rest}}` : `\\text{${rest}}`}` : tex;
}

/**
 * `text` (a rule or a narration line in the engine's Unicode) as TeX for KaTeX. Never throws;
 * every character it does not know is passed on as \text, so KaTeX (throwOnError: false)
 * prints it as it is. `breakable`: a line may break only after a relation or between words
 * of prose (see grouped), never inside a formula; "loose": anywhere KaTeX may and at every
 * space.
 */
export function toTex(text, { breakable = false } = {}) {
  const out = [];
  let i = 0;
  const s = text.normalize("NFD"); // "ā" (one character) as "a" + U+0304
  while (i < s.length) {
    const rest = s.slice(i);
    const c = s[i];
    let m;
    // one relation, its two signs close: KaTeX may break a line after a relation, and
    // \mathrel{+}= broke between "+" and "="
    if (rest.startsWith("+=") || rest.startsWith("-=")) { out.push(`\\mathrel{{${c}}{=}}`); i += 2; continue; }
    // a subscript written after a bracket, "(H v)_c" (hvp's Done line): _{c}, never "\_c"
    if (c === "_" && out.at(-1) === ")" && (m = WORD.exec(s.slice(i + 1))) && !m[0].startsWith("_")) {
      out.push(`_{${word(m[0], false)}}`);
      i += 1 + m[0].length;
      continue;
    }
    if ((m = WORD.exec(rest))) {
      // a word of one letter may carry accents right after its first letter: "X̄", "b̄2"
      let w = m[0];
      let j = i + w.length;
      const accents = [];
      if (s[i + 1] === MACRON || s[i + 1] === DOTTED) {
        w = s[i];
        j = i + 1;
        while (s[j] === MACRON || s[j] === DOTTED) accents.push(s[j++]);
        const digits = /^\d*/.exec(s.slice(j))[0];
        w += digits;
        j += digits.length;
      }
      out.push(accents.length ? accented(w, accents) : word(w, s[j] === "("));
      i = j;
      continue;
    }
    // a tensor summary's field ("6×4 · min -0.2206 · max 0.4146"): a gap, then the field's
    // name upright with its number in one group, never a product "6 × 4 · min · ..."
    if (c === "·" && (m = SUMMARY_FIELD.exec(rest))) {
      out.push(FIELD, `{\\text{${m[1]}}\\ ${m[2] ? "{-}" : ""}${numberTex(m[3])}}`);
      i += m[0].length;
      continue;
    }
    // one token, which a line never breaks: "8-vector" is no subtraction 8 − vector, and
    // "6×4 matrix" keeps its noun (a space beside a word is a break point: grouped)
    if ((m = SHAPE_NAME.exec(rest))) { out.push(shapeTex(m)); i += m[0].length; continue; }
    // a bare shape in a rule ("4×2", engine/trace/narrate.py shape_text): one tight token, its
    // × no operator with spaces around it, so a rule's shapes take the room "(4,2)" took
    if ((m = BARE_SHAPE.exec(rest))) { out.push(`{${m[0].split("×").join("{\\times}")}}`); i += m[0].length; continue; }
    if ((m = NUMBER.exec(rest))) { out.push(numberTex(m[0])); i += m[0].length; continue; }
    if (SUPERSCRIPTS[c] !== undefined) {
      let sup = "";
      while (SUPERSCRIPTS[s[i]] !== undefined) sup += SUPERSCRIPTS[s[i++]];
      out.push(`^{${sup}}`);
      continue;
    }
    if (c === " ") { out.push(SPACE); i += 1; continue; }
    // a hyphen between two words of prose ("Jacobian-vector") is no minus sign
    if (c === "-" && out.at(-1)?.startsWith("\\text") && /\p{L}/u.test(s[i + 1] ?? "")) { out.push("\\text{-}"); i += 1; continue; }
    // a sign written against its number after a word ("min -0.5598") is a negative number,
    // not a subtraction: an ordinary "-" without a binary operator's spacing
    if (c === "-" && s[i - 1] === " " && /\d/.test(s[i + 1] ?? "") && out.findLast((t) => t !== SPACE)?.startsWith("\\text")) {
      out.push("{-}");
      i += 1;
      continue;
    }
    // a command ending in a letter is closed with a space: "\cdot b", never "\cdotb"
    if (SYMBOLS[c]) out.push(SYMBOLS[c].replace(/(\\[a-zA-Z]+)$/, "$1 "));
    else if (/[()[\]=+\-*/<>,.:;|!?']/.test(c)) out.push(c === "*" ? "\\ast " : c);
    else out.push(`\\text{${c}}`);
    i += 1;
  }
  // Math mode drops spaces: the one beside a word, after a comma or after a sentence's period
  // is kept ("so t̄", "x, y", "Done. (H v)_c": "Done.(Hv)" ran together, a review).
  const isText = (t) => t?.startsWith("\\text");
  const ends = (t) => t !== undefined && /[\w)}\]',;:.]$/.test(t); // not after an operator or "="
  // Never beside a relation, which KaTeX spaces itself: "dL/da \\ =" set a double gap.
  const byRelation = (k) => RELATIONS.has(out[k - 1]) || RELATIONS.has(out[k + 1]);
  const kept = (k) => !byRelation(k)
    && out[k + 1] !== FIELD && out[k - 1] !== FIELD
    && (isText(out[k - 1]) || /[,;:.]$/.test(out[k - 1] ?? "")
      || (isText(out[k + 1]) && ends(out[k - 1])));
  // A number (or a call's close) before a parenthesis is an aside, never a call, which the
  // engine writes without a space ("tanh(d)"): "1 (dL/dL)" read "1(dL/dL)" set. A thick
  // space, not "\ ", so it is no break point (grouped): a number keeps its aside.
  // So is a name's: "along ∂/∂a (the Jacobian-vector product)" read as a call a(the ...).
  const aside = (k) => out[k + 1] === "(" && /^(\d[\d.]*|\)|\{\d.*\}|\p{L}|\\[a-z]+\{\p{L}\}(_\{\w+\})?)$/u.test(out[k - 1] ?? "");
  const tex = out.map((t, k) => (t !== SPACE ? t : kept(k) ? "\\ " : aside(k) ? "\\;" : " "));
  // "loose": a break after any operator or relation (KaTeX's own) and at any space, inside a
  // formula too; for a rule wider than its panel however it is grouped (render/typeset.js)
  const loose = () => tex.map((t) => (t === "\\ " ? "\\ \\allowbreak " : t)).join("");
  return (breakable === "loose" ? loose() : breakable ? grouped(out, tex) : tex.join("")).replace(/ +/g, " ").trim();
}

/**
 * A narration line's TeX (render/narration_line.js): grouped as a rule is (toTex's
 * `breakable`), so a line wraps at "=", "+=", ":" or between words of prose, never between
 * the factors of a product: "0.5966 ·" / "(−1.2703)" were two lines on the projector.
 */
export function narrationTex(text) {
  return toTex(text, { breakable: true });
}

// The relations a line may break after (as toTex writes them).
const RELATIONS = new Set(["=", ":", "<", ">", "\\mathrel{{+}{=}}", "\\mathrel{{-}{=}}", "\\approx ", "\\to "]);

/**
 * The TeX `tex` (toTex's tokens `out`, as written) with each stretch between two break points
 * set as one group, which KaTeX never breaks: KaTeX breaks a line after any relation or
 * binary operator at its top level, so a rule in the detail panel wrapped between the
 * factors of "1 · d̄" (issue 14). The break points are a relation outside brackets ("=",
 * "+=", ":") and a space beside a word of prose ("summed over axis 0"), marked \allowbreak.
 */
function grouped(out, tex) {
  const parts = [];
  let group = [];
  let depth = 0;
  const close = () => {
    const g = group.join("").trim();
    if (g) parts.push(`{${g}}`);
    group = [];
  };
  out.forEach((t, k) => {
    if (t === "(" || t === "[") depth += 1;
    if (t === ")" || t === "]") depth = Math.max(0, depth - 1);
    const at = depth === 0 && (RELATIONS.has(t) || tex[k] === "\\ " || t === FIELD);
    if (!at) return void group.push(tex[k]);
    close();
    parts.push(RELATIONS.has(t) ? t : t === FIELD ? "\\quad\\allowbreak" : "\\ \\allowbreak");
  });
  close();
  return parts.join(" ");
}
