// A label cut to a width without leaving it unreadable (issue 14: `∂L/∂(gelu(z,
// approximate="ta…` left its brackets open, and `x1 = tanh(x0) * 0.9 + 0.1 ×50…` hid the
// repeat count of a group's title), by the rules of engine/clip.py. The cut falls at a token
// boundary (never inside a name, a number or a string), drops the openers and separators it
// would end on (an operator stays: `a + …` is a sum), closes
// every bracket and quote the kept part opened, after the ellipsis, and keeps a trailing
// repeat count (" ×5000", engine/groups.py) whole. No DOM: node --test tests it.

const CLOSER = { "(": ")", "[": "]", "{": "}", '"': '"', "'": "'" };
const WORD = /[\p{L}\p{N}\p{M}_.⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾]/u; // a name, a number (0.9), x⁽²⁾, w̄
const COUNT = /\s×\d+$/u; // a repeat group's count
const DANGLING = /[\s([{"'=,:;]+$/u; // openers and separators a cut drops
const OPERATOR = /[-+*/@<>|&^%~]$/u; // an operator a cut keeps: `a + …` is a sum
const TRAILING_OPERATOR = /[\s\-+*/@<>|&^%~]+$/u;
const CUT_ALREADY = /…[\s\-+*/@<>|&^%~]*$/u;
const ELLIPSIS = "…";

/** The closers of what `text` left open: brackets, and a quote (inside which brackets are text). */
function closers(text) {
  const open = [];
  for (const c of text) {
    const top = open.at(-1);
    if (top === '"' || top === "'") {
      if (c === top) open.pop();
    } else if (c in CLOSER) open.push(c);
    else if (open.length && c === CLOSER[top]) open.pop();
  }
  return open.reverse().map((c) => CLOSER[c]).join("");
}

/**
 * A cut head and the mark after it: openers and separators dropped, an operator kept
 * (`a + …`), and no second "…" after one already there (`a + …`, not `a + … + …`).
 */
function ending(cut) {
  const head = cut.replace(DANGLING, "");
  if (CUT_ALREADY.test(head)) return [head.replace(TRAILING_OPERATOR, ""), ""];
  return [OPERATOR.test(head) ? `${head} ` : head, ELLIPSIS];
}

/**
 * `text` in at most `max` characters (code points): itself when it fits, else its head cut
 * at a token boundary, "…", the closers of what the head opened, and its repeat count
 * (" ×N") if it ends with one. Only when no token fits is a token cut.
 */
export function clipLabel(text, max) {
  const s = String(text);
  const chars = [...s];
  if (chars.length <= max) return s;
  // The count is kept only with room for a character of the text and the "…" beside it.
  const found = s.match(COUNT)?.[0] ?? "";
  const count = [...found].length + ELLIPSIS.length < max ? found : "";
  const body = [...s.slice(0, s.length - count.length)];
  const room = max - [...count].length - ELLIPSIS.length;
  for (let cut = Math.min(room, body.length - 1); cut > 0; cut -= 1) {
    if (WORD.test(body[cut - 1]) && WORD.test(body[cut])) continue; // inside a token
    const [head, mark] = ending(body.slice(0, cut).join(""));
    const close = closers(head);
    if (head.trim() && [...head].length + mark.length + close.length + [...count].length <= max) {
      return `${head}${mark}${close}${count}`;
    }
  }
  // One token longer than the room (a long name): cut inside it, still closing what opened.
  for (let cut = Math.min(room, body.length); cut > 0; cut -= 1) {
    const head = body.slice(0, cut).join("");
    const close = closers(head);
    if (cut + ELLIPSIS.length + close.length + [...count].length <= max) return `${head}${ELLIPSIS}${close}${count}`;
  }
  return `${ELLIPSIS}${count}`;
}
