// The explorer's URL is its state: the fragment mirrors the store (`#s=...`, state.js
// encodeLink) through history.replaceState, so the address bar is always a link to the walk
// on screen and stepping adds no history entries. On opening, a short link's state inlined
// by the server (`<script id="initial-state">`) wins over the fragment; a bad fragment or an
// unknown short id is said in a message, and nothing typed is lost.

import { checkState, decodeLink, encodeLink, FIELDS, linkState } from "./state.js";

/** The JSON in `<script type="application/json" id=...>`: {present, value} (value undefined if bad). */
function inlined(doc, id) {
  const script = doc.getElementById(id);
  if (!script) return { present: false };
  try {
    return { present: true, value: JSON.parse(script.textContent) };
  } catch {
    return { present: true, value: undefined };
  }
}

/**
 * The state the page opens on: {state (a checked state object, or null), error (a message,
 * or null)}. Order: the inlined `initial-state` (a short link), the inlined `initial-error`
 * (an unknown short id: its message), then the fragment of `loc`. `what` names the link in
 * that message ("short link", or "live room" on a live room's page); `refused(raw)` says an
 * inlined state the page refuses in its own words (a live room's: live.js newerRoom), or
 * null for checkState's.
 */
export function readLinkState(doc, loc, what = "short link", refused = () => null) {
  const state = inlined(doc, "initial-state");
  if (state.present) {
    const checked = checkState(state.value);
    return checked.state ? checked : { ...checked, error: refused(state.value) ?? checked.error };
  }
  const error = inlined(doc, "initial-error");
  if (error.present) {
    const why = typeof error.value?.message === "string" ? error.value.message : "the server could not find it";
    const hint = typeof error.value?.hint === "string" ? ` (${error.value.hint})` : ""; // what to do
    return { state: null, error: `This ${what} could not be opened: ${why}${hint}.` };
  }
  return decodeLink(loc.hash);
}

// The store fields whose change rewrites the URL: every field a link holds (state.js FIELDS),
// so a new field cannot be left out of the address bar (train_* once were: only the Share
// link kept them). The rest of the store is drafts, or transient.
export const URL_FIELDS = Object.keys(FIELDS);
const DELAY_MS = 250; // typing rewrites the URL once it pauses: deflating a long text is not free

const KEPT = " What you had typed is kept (see the Example menu).";

/**
 * The sentence a link message ends with for the store `state`: KEPT when something typed is
 * kept in the Example menu ("✎ Your program" or an edited example), else "": a fresh visitor
 * who typed nothing was told their typing was kept (a newcomer's check).
 */
export function keptSentence(state) {
  return state.draft || Object.keys(state.edits ?? {}).length ? KEPT : "";
}

// sessionStorage: {from, to}, the addresses before and after the write a page flushed as it
// was left (startPermalink's flushPending): a reload reopens `from`, which should be `to`.
const PENDING_KEY = "gradwalk.url.pending";
const here = () => `${location.pathname}${location.search}${location.hash}`;

/**
 * The explorer opening again in this tab at the address its last page had before that page
 * flushed its pending step (a reload within DELAY_MS of a step): the address becomes the one
 * flushed, so the page opens at the step it was left at. Call before reading the state.
 */
export function reopenPending() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(PENDING_KEY));
    sessionStorage.removeItem(PENDING_KEY);
    const to = typeof kept?.to === "string" ? new URL(kept.to, location.href) : null;
    // on the same path only: a short link's page (/s/<id>) opens at its inlined state whatever
    // its address says, so one left for "/" is not followed
    if (kept?.from === here() && to?.origin === location.origin && to.pathname === location.pathname) {
      history.replaceState(history.state, "", to.href);
    }
  } catch {
    // storage refused, or damaged: the address as it is
  }
}

/**
 * Keep the URL in step with `store`. `pendingStep()` is the step a link asked for while its
 * program is being traced (the URL keeps it meanwhile). `message` shows link problems;
 * `onLink(state)` opens a link pasted into this tab's address bar. Returns {state() (the
 * contract's state object of the page now), link() (the fragment link), say(text)}.
 */
export function startPermalink({ app, message, store, pendingStep, onLink }) {
  const shown = () => ({ ...store.get(), step: pendingStep() ?? store.get().step });
  let written = location.hash.replace(/^#/, "");
  let timer = null;
  let pendingKept = false; // flushPending left {from, to} in sessionStorage
  const forgetPending = () => {
    pendingKept = false;
    try {
      sessionStorage.removeItem(PENDING_KEY);
    } catch {
      // storage refused: nothing was kept
    }
  };
  // A short link (/s/<id>) stays in the address bar while the walk is still its state.
  // The example menu's entry (preset) is not compared: the page finds it from the program.
  const walkOf = (state) => encodeLink({ ...state, preset: undefined });
  const short = location.pathname.startsWith("/s/") ? readLinkState(document, location).state : null;
  const shortWalk = short ? walkOf(short) : null;

  function write() {
    clearTimeout(timer);
    timer = null;
    if (pendingKept) forgetPending(); // the address bar is newer than what a reload would reopen
    const fragment = encodeLink(shown());
    app.dataset.urlStep = String(shown().step); // tests wait on it
    if (fragment === written) return;
    written = fragment;
    const onShort = location.pathname.startsWith("/s/");
    if (onShort && walkOf(shown()) === shortWalk) return; // still the short link's walk
    // A short link (/s/<id>) that was changed is no longer that link: the state goes to "/".
    const path = onShort ? "/" : location.pathname;
    try {
      history.replaceState(history.state, "", `${path}${location.search}#${fragment}`);
    } catch {
      // a URL too long for this browser: the address bar keeps the last state that fitted
    }
  }

  store.subscribe((state, before) => {
    if (URL_FIELDS.every((k) => state[k] === before[k])) return;
    clearTimeout(timer);
    // Options and a chosen example at once (the address bar follows the menu, so a reload
    // right after choosing opens that example); typing and steps once they pause.
    // A reload within DELAY_MS of a keystroke reopens the text before it; the draft itself is
    // in localStorage at once, so nothing typed is lost.
    const typing = state.program !== before.program && state.preset === before.preset;
    // Steps too once the player rests: each history.replaceState costs the page 5-11 ms
    // (Chromium reloads the svg favicon), a step's whole budget at 16 steps/s.
    const stepping = URL_FIELDS.every((k) => k === "step" || state[k] === before[k]);
    if (typing || stepping) timer = setTimeout(write, DELAY_MS);
    else write();
  });
  // Leaving (a reload, a closed tab, another app on a phone) with a write pending: it is
  // written now. A reload reopens the address it had when it began, before pagehide, so the
  // change is also left in sessionStorage for reopenPending (the next page of this tab).
  function flushPending() {
    if (!timer) return;
    const from = here();
    write();
    try {
      sessionStorage.setItem(PENDING_KEY, JSON.stringify({ from, to: here() }));
      pendingKept = true;
    } catch {
      // storage refused (a sandboxed frame): the address bar has it, for a closed tab
    }
  }
  window.addEventListener("pagehide", flushPending);
  document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && flushPending());

  window.addEventListener("hashchange", () => {
    const hash = location.hash.replace(/^#/, "");
    if (hash === written) return;
    written = hash;
    const { state, error, note } = decodeLink(hash);
    if (error) say(error);
    else if (state) {
      say(note ?? null); // a part refused (lr -3) is said, as on opening
      onLink(state);
    }
  });

  function say(text) {
    message.hidden = !text;
    message.querySelector(".text").textContent = text ? text + keptSentence(store.get()) : "";
    app.dataset.linkError = text ? "true" : "false";
  }
  message.querySelector("button")?.addEventListener("click", () => say(null));

  return {
    state: () => linkState(shown()),
    link: () => `${location.origin}/#${encodeLink(shown())}`,
    flush: write,
    say,
  };
}
