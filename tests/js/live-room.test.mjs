// The presenter's side of a live room without a browser (issue 17 review): the room and its
// token kept for a reload of the lecturer's tab, the students' address under
// GRADWALK_PUBLIC_URL, and which page addresses no phone can open.
import { test } from "node:test";
import assert from "node:assert/strict";
import { keepRoom, recallRoom } from "../../static/js/live.js";
import { isLoopback, roomAddress } from "../../static/js/render/live-room.js";

function memory() {
  const kept = new Map();
  return { kept, getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, String(v)), removeItem: (k) => kept.delete(k) };
}

test("a room kept is recalled, keyed by its code; a new room replaces it; null forgets", () => {
  const m = memory();
  assert.equal(recallRoom(m), null);
  keepRoom({ room: "K7P2QX", presenter_token: "secret-1", url: "/live/K7P2QX" }, m);
  assert.deepEqual(recallRoom(m), { room: "K7P2QX", presenter_token: "secret-1", url: "/live/K7P2QX" });
  assert.equal(m.kept.get("gradwalk.live.presenter"), "K7P2QX");
  keepRoom({ room: "ABCDEF", presenter_token: "secret-2", url: "/live/ABCDEF" }, m);
  assert.equal(recallRoom(m).presenter_token, "secret-2");
  assert.equal(m.kept.has("gradwalk.live.presenter.K7P2QX"), false); // the old token is gone
  keepRoom(null, m);
  assert.equal(recallRoom(m), null);
  assert.equal(m.kept.size, 0);
});

test("a damaged kept room is no room, not an error", () => {
  const m = memory();
  m.setItem("gradwalk.live.presenter", "K7P2QX");
  m.setItem("gradwalk.live.presenter.K7P2QX", "{not json");
  assert.equal(recallRoom(m), null);
  m.setItem("gradwalk.live.presenter.K7P2QX", JSON.stringify({ token: 5, url: "/live/K7P2QX" }));
  assert.equal(recallRoom(m), null);
});

test("the students' address is under the public URL when set, else the page's origin", () => {
  assert.equal(roomAddress("/live/K7P2QX", "", "http://127.0.0.1:8000"), "http://127.0.0.1:8000/live/K7P2QX");
  assert.equal(roomAddress("/live/K7P2QX", "https://gw.example.edu", "http://127.0.0.1:8000"), "https://gw.example.edu/live/K7P2QX");
  // a public URL with a path (behind a proxy): the room goes under it, with or without a slash
  assert.equal(roomAddress("/live/K7P2QX", "http://192.168.1.20:8000/gw", "http://x"), "http://192.168.1.20:8000/gw/live/K7P2QX");
  assert.equal(roomAddress("/live/K7P2QX", "http://192.168.1.20:8000/gw/", "http://x"), "http://192.168.1.20:8000/gw/live/K7P2QX");
});

test("loopback addresses are this computer only; a network address is not", () => {
  for (const origin of ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000", "http://127.1.2.3", "http://app.localhost", "http://0.0.0.0:8000"]) {
    assert.equal(isLoopback(origin), true, origin);
  }
  for (const origin of ["http://192.168.1.20:8000", "https://gw.example.edu", "http://10.0.0.5", "null"]) {
    assert.equal(isLoopback(origin), false, origin);
  }
});
