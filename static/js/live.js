// Live rooms (server/routers/live.py): the lecturer's page sends its step, students follow.
//
// followRoom: the student page (templates/live.html, run by embed.js). An EventSource on
// /api/live/{room}/events gives `state` events {room, seq, state}; while following, each
// state's step is shown; a student who steps on their own (keys, the player) is detached,
// and one tap on the "Following the lecturer" pill rejoins at the lecturer's current step. A
// new program (the lecturer traced another) reloads the page, which the server opens at the
// room's current state: once per distinct walk (decideLive), each event's state checked as the
// page checked its own (state.js checkState) before they are compared; a state the page
// refuses says why on the pill and waits for the next step. EventSource reconnects by itself (the server says after 2 s) and the
// first event of every connection is the current state. The page never writes.
//
// createLiveSender: the presenter's side (render/share.js, and the embed when a deck sends it
// {type: "gradwalk:live", room, token}). POST /api/live/{room}/state with the token; one
// request at a time, and only the newest state waits, so a clicker pressed fast never queues
// a backlog of stale steps.

import { errorPlace, kindWords } from "./format.js";
import { checkState, VERSION } from "./state.js";

const RETRY_MS = 5000; // after the server refused the stream (503 busy): its Retry-After

// The fields that make another walk: a state differing in any of them reloads the page.
const WALK_FIELDS = ["program", "output", "mode", "quiz", "train_chosen", "train_iteration"];
const RELOADED_KEY = "gradwalk.live.reloaded"; // sessionStorage: the walk last reloaded for

/**
 * The walk a CHECKED state (state.js checkState's `state`) shows, as one string. Both sides
 * of a comparison must be checked: the page opens at the checked state (BOM dropped, the
 * iteration clamped, bad fields dropped), so a raw state never equals it and once reloaded
 * the page endlessly.
 */
const walkOf = (checked) => JSON.stringify(WALK_FIELDS.map((name) => checked?.[name] ?? null));

/** Whether checked states `a` and `b` show the same walk (maybe at different steps). */
export function sameWalk(a, b) {
  return walkOf(a) === walkOf(b);
}

/**
 * What the student page does with a `state` event's raw `state`, given the CHECKED state it
 * shows (`walkState`) and `memory` (sessionStorage-like: getItem, setItem, removeItem):
 * {action: "step", step} (the same walk), {action: "reload"} (another walk, reloaded at most
 * once per distinct walk), or {action: "wait", message} (a state this page refuses, or the
 * walk it reloaded for already and still does not open at): it keeps its step and waits for
 * the lecturer's next one.
 */
export function decideLive(raw, walkState, memory) {
  const { state, error } = checkState(raw);
  if (!state) return { action: "wait", message: refusal(raw, error) };
  const walk = walkOf(state);
  if (sameWalk(state, walkState)) {
    memory.removeItem(RELOADED_KEY);
    return { action: "step", step: state.step ?? 0 };
  }
  if (memory.getItem(RELOADED_KEY) === walk) {
    return { action: "wait", message: "The lecturer's page did not open here; waiting for their next step" };
  }
  memory.setItem(RELOADED_KEY, walk);
  return { action: "reload" };
}

/**
 * The room's wording for a lecturer's raw state of a newer version, or null for any other.
 * A newer version is said as a room, not as a link: the lecturer's page came from a newer
 * gradwalk than this page (the server kept the state: server/pagestate.py), and a reload
 * fetches the page the server has now, which opens at the room's current step. The same on
 * opening the room (embed.js) as while following it.
 */
export function newerRoom(raw) {
  return Number.isSafeInteger(raw?.v) && raw.v > VERSION
    ? "The lecturer's page is a newer gradwalk than this one: reload this page to follow" : null;
}

/** Why the page refuses the lecturer's raw state, `error` being checkState's. */
function refusal(raw, error) {
  return newerRoom(raw) ?? `The lecturer's step cannot be shown here: ${error}`;
}

/**
 * The student page of a room it could not open (no such room, or a state it refuses: `message`
 * says which, in the room's words, over the graph) follows nothing: its pill said "Following
 * the lecturer" all the same. It says it does not, the reason in its tooltip (the whole
 * reason on the pill as well as over the graph read twice on a phone).
 */
export function refuseRoom(root, pill, message) {
  root.dataset.following = "false";
  root.dataset.liveRefused = message;
  pill.textContent = "Not following the lecturer";
  pill.title = message;
  pill.disabled = true;
}

// sessionStorage, or a stand-in where it is refused (a sandboxed frame): then the page may
// reload once per event, never faster than events come.
function sessionMemory() {
  try {
    sessionStorage.getItem(RELOADED_KEY);
    return sessionStorage;
  } catch {
    const kept = new Map();
    return { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, v), removeItem: (k) => kept.delete(k) };
  }
}

/**
 * Follow room `room` on the student page. `pill` is the Following button, `root` gets
 * data-following / data-live-seq / data-live-step; `go(step)` shows a step; `walkState` is the
 * state the page opened with. Returns {detaching(actions)}: the actions wrapped so that each
 * one a student takes detaches first.
 */
export function followRoom(room, { root, pill, go, walkState, reload = () => location.reload(), memory = sessionMemory() }) {
  let latest = null; // the newest {seq, state}
  let following = true;

  function show() {
    root.dataset.following = String(following);
    pill.setAttribute("aria-pressed", String(following));
    const step = latest?.state.step ?? 0;
    pill.textContent = following ? "Following the lecturer" : `Rejoin the lecturer (step ${step})`;
  }

  function apply() {
    if (!latest) return;
    root.dataset.liveSeq = String(latest.seq);
    root.dataset.liveStep = String(latest.state.step ?? 0);
    if (following) go(latest.state.step ?? 0);
    show();
  }

  let source = null;
  function connect() {
    source = new EventSource(`/api/live/${encodeURIComponent(room)}/events`);
    source.addEventListener("state", (event) => {
      const data = JSON.parse(event.data);
      const next = decideLive(data.state, walkState, memory);
      if (next.action === "reload") {
        source.close();
        return reload(); // the lecturer moved to another program
      }
      if (next.action === "wait") {
        root.dataset.liveRefused = next.message;
        pill.textContent = next.message;
        return;
      }
      delete root.dataset.liveRefused;
      latest = { seq: data.seq, state: { step: next.step } };
      apply();
    });
    source.addEventListener("end", () => {
      source.close();
      following = false;
      root.dataset.following = "ended";
      pill.textContent = "The room has closed";
      pill.disabled = true;
    });
    source.addEventListener("open", () => (root.dataset.connected = "true"));
    source.addEventListener("error", () => {
      root.dataset.connected = "false";
      // EventSource retries a dropped connection itself, but gives up on an error answer
      // (503 busy: the server's follower bound): then try again a little later.
      if (source.readyState === EventSource.CLOSED && root.dataset.following !== "ended") {
        setTimeout(connect, RETRY_MS);
      }
    });
  }
  connect();

  pill.addEventListener("click", () => {
    following = true;
    apply();
    show();
  });
  show();

  function detach() {
    if (!following) return;
    following = false;
    show();
  }
  return {
    detaching: (actions) => Object.fromEntries(Object.entries(actions).map(([name, action]) =>
      [name, (...args) => { detach(); return action(...args); }])),
  };
}

/**
 * The presenter's sender for `room` with `token`: send(state) posts it, one request at a
 * time, the newest waiting. `onResult(error | null)` after each answer (an Error with the
 * server's message, e.g. the room expired). `post` is fetch (tests pass their own).
 */
export function createLiveSender(room, token, { onResult = () => {}, post = fetch } = {}) {
  let waiting = null;
  let busy = false;

  async function flush() {
    busy = true;
    while (waiting) {
      const state = waiting;
      waiting = null;
      let error = null;
      try {
        const response = await post(`/api/live/${encodeURIComponent(room)}/state`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: JSON.stringify(state),
        });
        if (response.status === 429) {
          // Too fast for the room's rate: wait as told, then send the newest state (this one
          // unless a newer one came meanwhile), so the students end at the lecturer's step.
          const seconds = Number(response.headers?.get?.("Retry-After")) || 1;
          await new Promise((resolve) => setTimeout(resolve, 1000 * seconds));
          waiting ??= state;
          continue;
        }
        if (!response.ok) {
          const body = await response.json().catch(() => null);
          error = new Error(body?.error?.message ?? `the server answered ${response.status}`);
          error.status = response.status; // 404: the room is gone (expired), 401/403: not its token
        }
      } catch {
        error = new Error("the server could not be reached");
      }
      onResult(error);
    }
    busy = false;
  }

  return {
    send(state) {
      waiting = state;
      if (!busy) flush();
    },
  };
}

// The presenter's room survives a reload of the lecturer's tab (and only that tab: session
// storage is per tab, and the token is never put in the URL, which is shared and logged):
// PRESENTER_KEY names the room, PRESENTER_KEY.<room> holds {token, url}.
const PRESENTER_KEY = "gradwalk.live.presenter";

/**
 * The room this tab presents, {room, presenter_token, url} as POST /api/live answered, or null
 * (none, or storage refused). `memory`: sessionStorage-like.
 */
export function recallRoom(memory = sessionMemory()) {
  try {
    const room = memory.getItem(PRESENTER_KEY);
    const kept = room && JSON.parse(memory.getItem(`${PRESENTER_KEY}.${room}`));
    if (typeof kept?.token !== "string" || typeof kept.url !== "string") return null;
    return { room, presenter_token: kept.token, url: kept.url };
  } catch {
    return null; // damaged by hand: no room rather than an error on every page load
  }
}

/** Keep `opened` (POST /api/live's answer) as this tab's room; null forgets the room kept. */
export function keepRoom(opened, memory = sessionMemory()) {
  const before = memory.getItem(PRESENTER_KEY);
  if (before) memory.removeItem(`${PRESENTER_KEY}.${before}`);
  if (!opened) return memory.removeItem(PRESENTER_KEY);
  memory.setItem(PRESENTER_KEY, opened.room);
  memory.setItem(`${PRESENTER_KEY}.${opened.room}`, JSON.stringify({ token: opened.presenter_token, url: opened.url }));
}

/**
 * POST /api/live {state} -> {room, presenter_token, url}; throws Error(message), located
 * ("Line 2, column 7: syntax error: ...") for a program that does not parse.
 */
export async function openRoom(state, post = fetch) {
  let response;
  try {
    response = await post("/api/live", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(state),
    });
  } catch {
    throw new Error("the server could not be reached");
  }
  const body = await response.json().catch(() => null);
  if (!response.ok || typeof body?.room !== "string") {
    const error = body?.error;
    // a program that does not parse: where, as the editor says it (the server refuses a
    // room whose every student would open at that error)
    const located = error?.line != null && typeof error.message === "string";
    throw new Error(located ? `${errorPlace(error)}${kindWords(error.kind)}: ${error.message}`
      : error?.message ?? `the server answered ${response.status}`);
  }
  return body;
}

/**
 * DELETE /api/live/{room} with the presenter's token: the room is gone and its students'
 * pages say it has closed. -> null, or why it could not be closed (a message).
 */
export async function closeRoom(opened, send = fetch) {
  let response;
  try {
    response = await send(`/api/live/${encodeURIComponent(opened.room)}`, {
      method: "DELETE", headers: { Authorization: `Bearer ${opened.presenter_token}` },
    });
  } catch {
    return "the server could not be reached";
  }
  if (response.ok || response.status === 404) return null; // closed now, or closed already
  const body = await response.json().catch(() => null);
  return body?.error?.message ?? `the server answered ${response.status}`;
}
