// live.js without a browser: which states are another walk, and the presenter's sender keeps
// one request in flight with only the newest state waiting (a fast clicker queues no backlog).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLiveSender, sameWalk } from "../../static/js/live.js";

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
