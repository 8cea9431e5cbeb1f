// The explorer's top bar keeps to one row (issue 14 §5, a review: at A+ 115% "Aa ▾" wrapped
// alone onto a second row at 1024x768 and 1280x800, and every row it takes is the graph's).
// While its items do not fit on one row they give way in steps, each kept while the next is
// tried: the Trace button's "Ctrl+Enter" hint goes, the buttons' labels shorten ("Hide
// program" to "Hide": app.css .label-short), the "gradwalk" title goes (the window's title
// names the app, as on a phone), then the buttons' padding tightens. The example menu gives
// its width first (app.css: it shrinks down to 8rem before anything wraps).

// The player keeps to one row the same way (issue 14: at A+ 130% on a 1024x768 projector
// "Speed" took a second row alone, past the tightening of app.css's container queries): Back
// and Next by their arrows, the count without its word "step", then tighter gaps.

/** The steps, cumulative: class `fit-<step>` on the bar (app.css says what each does). */
export const FIT_STEPS = ["shortcut", "short", "brand", "tight"];
/** The player's steps (app.css .player.fit-*). */
export const PLAYER_STEPS = ["words", "count", "tight"];

/**
 * Whether the shown items of `bar` take more than one row: some item starts below the
 * bottom of another (items of one row overlap in height; align-items centres them).
 * The items matching `apart` (the link message: a line of its own when a link failed; the
 * player's scrubber, a row of its own above the controls) do not count.
 */
function wraps(bar, apart) {
  const rects = [...bar.children]
    .filter((e) => !e.hidden && !e.matches(apart) && e.getClientRects().length)
    .map((e) => e.getBoundingClientRect());
  if (rects.length < 2) return false;
  const bottom = Math.min(...rects.map((r) => r.bottom));
  return rects.some((r) => r.top >= bottom - 1);
}

/**
 * Keep `bar` (the .topbar) on one row: the least number of `steps` (FIT_STEPS) that does it
 * (all of them when none does), measured again whenever the bar's width, the page's text
 * size or theme, or the bar's items change. `skip()` true (a phone: narrow.css lays its bar
 * out) takes every step off. `apart`: the children that do not count (wraps). `items`: false
 * where the items' text changes at every step (the player's count) and only the bar's own
 * style does what fits (its count's width, render/player.js --counter-ch). Returns a
 * function that measures again now.
 */
export function keepOneRow(bar, { steps = FIT_STEPS, skip = () => false, apart = ".link-message", items = true } = {}) {
  const set = (n) => steps.forEach((step, i) => bar.classList.toggle(`fit-${step}`, i < n));
  let last = -1;
  function fit() {
    set(0);
    let n = 0;
    if (!skip()) while (n < steps.length && wraps(bar, apart)) set(++n);
    if (n !== last) bar.dataset.fit = String((last = n));
  }
  // A change of width (the window) or height (our own steps: the same answer, no loop).
  new ResizeObserver(fit).observe(bar);
  // The text size and theme are set on <html> (theme.js); a button shown or relabelled
  // ("Reset example", "Share · live ABCD") changes what fits.
  new MutationObserver(fit).observe(document.documentElement, { attributes: true, attributeFilter: ["style", "data-theme"] });
  new MutationObserver(fit).observe(bar, items
    ? { subtree: true, childList: true, characterData: true, attributeFilter: ["hidden"] }
    : { attributes: true, attributeFilter: ["style"] });
  fit();
  return fit;
}

/**
 * Give `button` the label `long`, and `short` for a crowded bar (FIT_STEPS "short"); its
 * accessible name stays `long`.
 */
export function setLabel(button, long, short = long) {
  const doc = button.ownerDocument;
  const span = (cls, text) => Object.assign(doc.createElement("span"), { className: cls, textContent: text });
  button.replaceChildren(span("label-long", long), span("label-short", short));
  button.setAttribute("aria-label", long);
}
