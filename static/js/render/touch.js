// Phones and tablets (issue 17, section 2): the narrow layout's switch, the swipe that steps
// the walk, and the height of the player's bottom bar. The layout itself is CSS
// (static/css/narrow.css); the camera's pinch and two-finger pan are d3-zoom's
// (render/zoom.js leaves one finger to the swipe here). Used by the explorer and the embed.

/**
 * Narrow: a phone, or a tablet upright: under 900 px wide, with a finger for a pointer (a
 * desktop window as narrow, or 1280 px zoomed to 150%, keeps the lecturer's layout with its
 * editor). The same query as narrow.css's (a media query's px are CSS px, as matchMedia's).
 */
export const NARROW_QUERY = "(max-width: 899.98px) and (pointer: coarse)";

/**
 * A phone held sideways (844x390): too short for the top bar above the graph. The same
 * query as narrow.css's last block.
 */
export const SHORT_QUERY = "(max-width: 899.98px) and (max-height: 499.98px) and (pointer: coarse)";

/** A finger for a pointer (a phone, a tablet), whatever the width: what the page says of stepping. */
export const isTouch = () => window.matchMedia("(pointer: coarse)").matches;

/**
 * A narrow screen held upright (a phone, a tablet in portrait): its graph is laid out top to
 * bottom (layout.js layoutGraph `upright`), read when a walk is laid out.
 */
export const isUpright = () => window.matchMedia(NARROW_QUERY).matches && window.innerHeight > window.innerWidth;

// A swipe steps once it has gone this far sideways (px), and mostly sideways: a thumb's
// flick is about 60 px; a tap wobbles by a few.
const SWIPE_PX = 40;
const SIDEWAYS = 1.5; // |dx| at least this many times |dy|

/**
 * A one-finger horizontal swipe on `surface` (the graph's svg) steps: right to left is
 * `forward()`, left to right `back()`, once per swipe (Apple's and Android's photo viewers
 * page the same way). A second finger makes it a pinch (d3-zoom's), not a swipe.
 * Returns a function that removes the listeners.
 */
export function swipeToStep(surface, { forward, back }) {
  let start = null; // {id, x, y} of the one finger down, or null
  const down = (event) => {
    const t = event.touches;
    start = t.length === 1 ? { id: t[0].identifier, x: t[0].clientX, y: t[0].clientY } : null;
  };
  const up = (event) => {
    const finger = start && [...event.changedTouches].find((t) => t.identifier === start.id);
    if (!finger || event.touches.length) return;
    const dx = finger.clientX - start.x;
    const dy = finger.clientY - start.y;
    start = null;
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < SIDEWAYS * Math.abs(dy)) return;
    if (dx < 0) forward();
    else back();
  };
  const cancel = () => { start = null; };
  // Capture: while the camera glides to a step, d3-zoom's own touchend listener on the same
  // svg stops the event's propagation (its gesture is open), and a second quick swipe was lost.
  const options = { passive: true, capture: true };
  surface.addEventListener("touchstart", down, options);
  surface.addEventListener("touchend", up, options);
  surface.addEventListener("touchcancel", cancel, options);
  return () => {
    surface.removeEventListener("touchstart", down, options);
    surface.removeEventListener("touchend", up, options);
    surface.removeEventListener("touchcancel", cancel, options);
  };
}

/**
 * Keep `name` (`--bar-h`) on `page` (an element whose descendants read it) at the height of
 * `bar` (px; 0 while hidden): in the narrow layout the player is fixed to the bottom of the
 * screen, and the page keeps that much room under its content, and the detail sheet sits on
 * top of it; the sheet's own height (`--sheet-h`) is room under the content too, so all of
 * the page scrolls out from under an open sheet (it covered "New numbers" at 390x844).
 * `toFoot`: from the bar's top to the screen's foot instead (the embed's bar is not fixed:
 * with its own height the sheet covered its Next button, the room under the bar besides).
 * `watch`: elements below `bar` whose size moves its top (the embed's player bar under the
 * narration), measured again when they change.
 */
export function keepBarHeight(bar, page, name = "--bar-h", { toFoot = false, watch = [] } = {}) {
  const height = () => (toFoot ? window.innerHeight - bar.getBoundingClientRect().top : bar.getBoundingClientRect().height);
  const set = () => page.style.setProperty(name, `${Math.max(0, Math.ceil(height()))}px`);
  const observer = new ResizeObserver(set);
  for (const element of [bar, ...watch]) observer.observe(element);
  if (toFoot) window.addEventListener("resize", set);
  set();
}

/**
 * matchMedia(NARROW_QUERY), with `onChange(narrow)` called when it turns (a phone rotated,
 * a window resized). Returns the MediaQueryList (its `matches` is the answer now).
 */
export function watchNarrow(onChange) {
  const query = window.matchMedia(NARROW_QUERY);
  query.addEventListener("change", () => onChange(query.matches));
  return query;
}

/**
 * While SHORT_QUERY holds (a phone sideways), scroll the page so `stage` (the graph and the
 * narration, narrow.css: the screen's height above the bottom bar) starts at the top of the
 * screen: the top bar above it is out of sight until the reader swipes down. Done now and
 * when the phone turns into it. Returns the MediaQueryList.
 */
export function keepGraphInView(stage) {
  const query = window.matchMedia(SHORT_QUERY);
  const scroll = () => {
    if (query.matches) window.scrollTo({ top: stage.getBoundingClientRect().top + window.scrollY, behavior: "instant" });
  };
  query.addEventListener("change", scroll);
  scroll();
  return query;
}
