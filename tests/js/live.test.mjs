// live.js without a browser: which states are another walk, and the presenter's sender keeps
// one request in flight with only the newest state waiting (a fast clicker queues no backlog).
import { test } from "node:test";
import assert from "node:assert/strict";
import { closeRoom, createLiveSender, decideLive, newerRoom, openRoom, sameWalk } from "../../static/js/live.js";
import { readLinkState } from "../../static/js/permalink.js";
import { checkState, LINK_ERRORS } from "../../static/js/state.js";

test("a step is the same walk; another program or mode is not", () => {
  const a = { v: 1, program: "x = 1", step: 2 };
  assert.equal(sameWalk(a, { ...a, step: 9, theme: "dark" }), true);
  assert.equal(sameWalk(a, { ...a, program: "x = 2" }), false);
  assert.equal(sameWalk(a, { ...a, mode: "forward" }), false);
});

test("the sender posts one at a time and skips to the newest state", async () => {
  const posted = [];
  const answers = [];
  const post = (url, init) => {
    posted.push({ url, step: JSON.parse(init.body).step, auth: init.headers.Authorization });
    return new Promise((resolve) => answers.push(() => resolve({ ok: true })));
  };
  const results = [];
  const sender = createLiveSender("ABCDEF", "tok", { post, onResult: (e) => results.push(e) });
  for (const step of [1, 2, 3, 4]) sender.send({ v: 1, step });
  assert.deepEqual(posted.map((p) => p.step), [1]); // one in flight
  answers.shift()();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(posted.map((p) => p.step), [1, 4]); // 2 and 3 were never sent
  answers.shift()();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(posted[0].url, "/api/live/ABCDEF/state");
  assert.equal(posted[0].auth, "Bearer tok");
  assert.deepEqual(results, [null, null]);
});

test("a refusal is reported with the server's message", async () => {
  const post = async () => ({ ok: false, status: 404, json: async () => ({ error: { message: "no live room" } }) });
  const results = [];
  createLiveSender("ABCDEF", "tok", { post, onResult: (e) => results.push(e) }).send({ v: 1, step: 1 });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(results[0].message, "no live room");
});

test("past the room's rate the sender waits as told and sends the newest state", async () => {
  const posted = [];
  let calls = 0;
  const post = async (url, init) => {
    posted.push(JSON.parse(init.body).step);
    calls += 1;
    return calls === 1 ? { ok: false, status: 429, headers: new Map([["Retry-After", "0.01"]]) } : { ok: true, status: 200 };
  };
  const results = [];
  const sender = createLiveSender("ABCDEF", "tok", { post, onResult: (e) => results.push(e) });
  sender.send({ v: 1, step: 1 });
  sender.send({ v: 1, step: 2 }); // waits while the first is refused
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(posted, [1, 2]); // 2 is sent after the wait, 1 not again
  assert.deepEqual(results, [null]);
});

// The review's endless reloads (issue livefix14 §1): the event's raw state was compared with
// the page's checked one, so a BOM, a clamped iteration or a refused field never matched.
function memory() {
  const kept = new Map();
  return { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, v), removeItem: (k) => kept.delete(k) };
}

test("a state the page checks into its own walk steps, never reloads", () => {
  const raw = [
    [{ v: 1, program: "\ufeffx = 2.0\nL = x * x", step: 1 }, 1],
    [{ v: 1, program: "x = 2.0\nL = x * x", mode: "train", train_steps: 101, train_iteration: 299, train_chosen: true, step: 2 }, 2],
    [{ v: 1, program: 5, step: 1 }, 1],
    [{ v: 1, program: "x = 2.0\nL = x * x", mode: "sideways", step: 3 }, 3],
  ];
  for (const [state, step] of raw) {
    const walkState = checkState({ ...state, step: 0 }).state; // the page opened at it
    assert.deepEqual(decideLive(state, walkState, memory()), { action: "step", step });
  }
});

test("another walk reloads once; the same walk again waits with a message", () => {
  const shown = checkState({ v: 1, program: "x = 1" }).state;
  const mem = memory();
  assert.deepEqual(decideLive({ v: 1, program: "y = 2", step: 1 }, shown, mem), { action: "reload" });
  const again = decideLive({ v: 1, program: "y = 2", step: 2 }, shown, mem);
  assert.equal(again.action, "wait");
  assert.match(again.message, /waiting for their next step/);
  assert.deepEqual(decideLive({ v: 1, program: "z = 3", step: 1 }, shown, mem), { action: "reload" });
  // A step of the page's own walk forgets the reload: a later return to "y = 2" reloads.
  assert.deepEqual(decideLive({ v: 1, program: "x = 1", step: 4 }, shown, mem), { action: "step", step: 4 });
  assert.deepEqual(decideLive({ v: 1, program: "y = 2", step: 1 }, shown, mem), { action: "reload" });
});

test("a state of a newer version waits with the reason, never reloads", () => {
  const shown = checkState({ v: 1, program: "x = 1" }).state;
  const next = decideLive({ v: 2, program: "x = 1", step: 2 }, shown, memory());
  assert.equal(next.action, "wait");
  // said as a room: the link's wording ("This link was made by...") is not what a student sees
  assert.equal(next.message, "The lecturer's page is a newer gradwalk than this one: reload this page to follow");
});

test("a state the page cannot read for another reason keeps checkState's reason", () => {
  const shown = checkState({ v: 1, program: "x = 1" }).state;
  const next = decideLive({ v: 0, program: "x = 1", step: 2 }, shown, memory());
  assert.equal(next.action, "wait");
  assert.equal(next.message, "The lecturer's step cannot be shown here: This link does not hold a gradwalk state, so it was ignored.");
});

/** A document holding `state` inlined as the server inlines it (<script id="initial-state">). */
const inlinedDoc = (state) => ({
  getElementById: (id) => (id === "initial-state" ? { textContent: JSON.stringify(state) } : null),
});

test("a room opened at a state of a newer version says so as the pill does, a link as a link", () => {
  // The student page opened the room with the link's wording ("This link was made by a
  // newer version ..."): a student opened no link (review of s15).
  const newer = { v: 2, program: "x = 1", step: 3 };
  const room = readLinkState(inlinedDoc(newer), { hash: "" }, "live room", newerRoom);
  assert.deepEqual(room, { state: null, error: "The lecturer's page is a newer gradwalk than this one: reload this page to follow" });
  assert.equal(room.error, decideLive(newer, checkState({ v: 1, program: "x = 1" }).state, memory()).message);
  // a short link keeps the link's wording; a room's state refused for another reason, checkState's
  assert.deepEqual(readLinkState(inlinedDoc(newer), { hash: "" }), { state: null, error: LINK_ERRORS.newer(2) });
  assert.deepEqual(readLinkState(inlinedDoc([1]), { hash: "" }, "live room", newerRoom), { state: null, error: LINK_ERRORS.foreign });
  assert.equal(readLinkState(inlinedDoc({ v: 1, program: "x = 1", step: 3 }), { hash: "" }, "live room", newerRoom).state.step, 3);
});

test("closing a room: DELETE with the presenter's token; a room already gone is closed (review of fb96ca3)", async () => {
  const calls = [];
  const answer = (status, body = null) => async (url, init) => {
    calls.push([url, init.method, init.headers.Authorization]);
    return { ok: status < 300, status, json: async () => body };
  };
  const opened = { room: "K7P2QX", presenter_token: "tok" };
  assert.equal(await closeRoom(opened, answer(200, { room: "K7P2QX", closed: true })), null);
  assert.deepEqual(calls[0], ["/api/live/K7P2QX", "DELETE", "Bearer tok"]);
  assert.equal(await closeRoom(opened, answer(404)), null);
  assert.equal(await closeRoom(opened, answer(403, { error: { message: "this token does not close this room" } })),
    "this token does not close this room");
  assert.equal(await closeRoom(opened, async () => { throw new TypeError("offline"); }), "the server could not be reached");
});

test("a room refused for a program that does not parse says where, as the editor does (polish17)", async () => {
  const answer = (status, body) => async () => ({ ok: status < 300, status, json: async () => body });
  const syntax = { kind: "syntax", message: "'(' was never closed", line: 2, col: 4, end_line: 2, end_col: 5, hint: null };
  await assert.rejects(openRoom({ v: 1, program: "x = 1\nL = (x +" }, answer(422, { error: syntax })),
    { message: "Line 2, column 5: syntax error: '(' was never closed" });
  // a refusal that is not the program's keeps the server's message
  await assert.rejects(openRoom({ v: 1 }, answer(422, { error: { kind: "bad_request", message: "state.step: bad", line: null } })),
    { message: "state.step: bad" });
  const opened = { room: "K7P2QX", presenter_token: "tok", url: "/live/K7P2QX" };
  assert.deepEqual(await openRoom({ v: 1 }, answer(201, opened)), opened);
});
