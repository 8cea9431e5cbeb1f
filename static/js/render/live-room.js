// The Share panel's live room (render/share.js): "Start a live room" opens one at the walk on
// screen (POST /api/live) and shows its code, the students' address and a QR code of it (uqr,
// bundled); from then on the walk students follow is sent to the room (live.js
// createLiveSender) each time it changes: the step, and a new program, mode or example once it
// is traced. The room and its presenter token are kept in this tab's sessionStorage (live.js
// keepRoom), so a reload of the lecturer's tab still presents; "Close the room" closes it (DELETE /api/live/{room}: the students are told) and forgets them.

import { renderSVG } from "uqr";
import { el as make } from "./dom.js";
import { closeRoom, createLiveSender, keepRoom, openRoom, recallRoom } from "../live.js";

// What students follow is the walk and its step; their look is their own (embed.js ownLook).
const LOOK = new Set(["theme", "font"]);
const followed = (state) => JSON.stringify(Object.entries(state).filter(([name]) => !LOOK.has(name)));

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\]|0\.0\.0\.0)$/i;

/** Whether `origin`'s host is this machine only (a phone in the room cannot open it). */
export function isLoopback(origin) {
  try {
    return LOOPBACK.test(new URL(origin).hostname) || new URL(origin).hostname.endsWith(".localhost");
  } catch {
    return false;
  }
}

/**
 * The students' absolute address of `path` (POST /api/live's "/live/<room>"): under
 * `publicUrl` (GRADWALK_PUBLIC_URL, the address phones reach this server by) when set, else
 * under `origin` (the lecturer's own page).
 */
export function roomAddress(path, publicUrl, origin) {
  const base = publicUrl ? publicUrl.replace(/\/*$/, "/") : `${origin}/`;
  return new URL(path.replace(/^\/+/, ""), base).href;
}

const el = (tag, attrs = {}, ...children) => make(document, tag, attrs, ...children);

/**
 * The live section. `app`: the explorer's root (its data-status "ready" says the walk on
 * screen is traced; data-public-url is GRADWALK_PUBLIC_URL); `state()`: the contract's state
 * of the walk on screen; `store`: its changes; `shows(room | null)` is told when this tab
 * presents a room, and when it left it.
 */
export function createLiveSection(app, { state, store, shows }) {
  const section = el("section", { id: "live-section", class: "live-section", "aria-labelledby": "live-title" });
  const heading = el("h3", { id: "live-title" }, "Live room");
  const start = el("button", { id: "start-live", type: "button", class: "btn" }, "Start a live room");
  const leave = el("button", { id: "leave-live", type: "button", class: "btn", hidden: "" }, "Close the room");
  const copyToken = el("button", { id: "copy-live-token", type: "button", class: "btn", hidden: "",
    title: "The room and its presenter token, for a slide deck's embed (docs/slides.md)" }, "Copy presenter token");
  const about = el("p", { class: "share-hint" }, "Students open the address (or scan the code) on their phones and "
    + "follow your steps; they may step on their own and rejoin with one tap.");
  const publicUrl = app.dataset.publicUrl || "";
  const warning = el("p", { id: "live-loopback", class: "share-warning", role: "note" },
    `Phones cannot open this address: ${location.host} is this computer only. Serve with `
    + "--host 0.0.0.0 and open this page by the computer's network address (e.g. http://192.168.1.20:8000), "
    + "or set GRADWALK_PUBLIC_URL to the address phones reach the server by.");
  warning.hidden = Boolean(publicUrl) || !isLoopback(location.origin);
  const buttons = el("div", { class: "share-row" });
  buttons.append(start, leave, copyToken);
  const code = el("p", { id: "live-code", class: "live-code", hidden: "" });
  const qr = el("div", { id: "live-qr", class: "live-qr", role: "img", hidden: "" });
  const said = el("p", { id: "live-status", class: "share-status", role: "status" });
  const shown = el("div", { class: "live-open" }, qr, code); // the QR code with the code beside it
  section.append(heading, about, warning, buttons, shown, said);
  let sender = null;
  let opened = null; // POST /api/live's answer for the room this tab presents
  let sent = null; // followed() of the last state sent

  // `at`: the state the room was opened with (nothing to send until the walk differs), or
  // null for a room kept from before a reload (its students are at the state before it).
  function present(room, at = null) {
    opened = room;
    sent = at && followed(at);
    const url = roomAddress(room.url, publicUrl, location.origin);
    code.replaceChildren("Room ", el("b", {}, room.room), " · ", el("a", { href: url, target: "_blank", rel: "noopener" }, url));
    qr.innerHTML = renderSVG(url, { border: 2 }); // an SVG string made by uqr from the address alone
    qr.setAttribute("aria-label", `QR code of ${url}`);
    code.hidden = qr.hidden = leave.hidden = copyToken.hidden = false;
    section.dataset.room = room.room;
    section.dataset.address = url;
    start.textContent = "Start a new room";
    sender = createLiveSender(room.room, room.presenter_token, { onResult });
    shows(room.room);
    send();
  }

  function onResult(error) {
    section.dataset.sent = error ? "failed" : String(Number(section.dataset.sent || 0) + 1);
    said.textContent = error ? `The room did not get the last step: ${error.message}.` : "Students follow your steps.";
    if (error?.status === 404) end("The room has closed (it expired): start a new one for your students.");
  }

  function end(message) {
    keepRoom(null);
    opened = sender = null;
    code.hidden = qr.hidden = leave.hidden = copyToken.hidden = true;
    delete section.dataset.room;
    delete section.dataset.sent;
    start.textContent = "Start a live room";
    said.textContent = message;
    shows(null);
  }

  // The walk students follow, once it is traced (never a half-typed program: each new
  // program reloads every student's page) and whenever it differs from the last one sent.
  function send() {
    if (!sender || app.dataset.status !== "ready") return;
    const now = state();
    if (followed(now) === sent) return;
    sent = followed(now);
    sender.send(now);
  }

  start.addEventListener("click", async () => {
    start.disabled = true;
    said.textContent = "Opening a room…";
    try {
      const at = state();
      const room = await openRoom(at);
      keepRoom(room);
      present(room, at);
      said.textContent = "Students follow your steps.";
    } catch (error) {
      said.textContent = `No live room: ${error.message}.`;
    } finally {
      start.disabled = false;
    }
  });
  // Closing tells the students (their pages say the room has closed); a room left open showed
  // them "Following the lecturer" at its last step until it expired (review of fb96ca3).
  leave.addEventListener("click", async () => {
    leave.disabled = true;
    const why = opened ? await closeRoom(opened) : null;
    leave.disabled = false;
    end(why ? `You left the room, but it could not be closed (${why}): your students see its last step until it expires.`
      : "You closed the room: your students' pages say so.");
  });
  copyToken.addEventListener("click", async () => {
    const text = JSON.stringify({ type: "gradwalk:live", room: opened.room, token: opened.presenter_token });
    try {
      await navigator.clipboard.writeText(text);
      said.textContent = "Copied: post it to the deck's embed (docs/slides.md). Keep it out of a deck you publish.";
    } catch {
      said.textContent = `Copy this into the deck (docs/slides.md): ${text}`;
    }
  });
  store?.subscribe(send);
  new MutationObserver(send).observe(app, { attributes: true, attributeFilter: ["data-status"] });

  const kept = recallRoom();
  if (kept) present(kept); // this tab's room, from before a reload
  return section;
}
