// The explorer's "Share" panel: the link to the walk on screen (the fragment holds it all),
// a short link (POST /api/links, when the server keeps them), and an <iframe> snippet for
// slides. Copying uses the clipboard where the browser allows it; otherwise the text is
// selected in its field for Ctrl+C. The panel is a native popover (light dismiss, Escape).

import { embedSnippet } from "../embedding.js";
import { createLiveSection, roomAddress } from "./live-room.js";

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/** POST /api/links {state} -> the short link as the server gives it ("/s/<id>"); throws Error(message). */
async function shortLink(state) {
  let response;
  try {
    response = await fetch("/api/links", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ state }),
    });
  } catch {
    throw new Error("the server could not be reached");
  }
  const body = await response.json().catch(() => null);
  if (!response.ok || typeof body?.url !== "string") {
    throw new Error(body?.error?.message ?? `the server answered ${response.status}`);
  }
  return body.url;
}

/**
 * Put `text` in `field` and on the clipboard; true if the clipboard took it. When it does
 * not (no permission, not a secure page), the text is left selected for Ctrl+C.
 */
async function copy(field, text) {
  field.value = text;
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field.focus();
    field.select();
    return false;
  }
}

/**
 * The Share button (in `app`'s top bar, before Trace) and its panel. `state()` is the
 * contract's state object of the walk on screen, `link()` its fragment link (absolute);
 * `links` false hides "Copy short link". `store` (state.js) tells a live room each step.
 */
export function createSharePanel(app, { state, link, links = true, store = null }) {
  const panel = el("div", { id: "share-panel", class: "share-panel", popover: "auto", role: "dialog", "aria-labelledby": "share-title" });
  const button = el("button", { id: "share", type: "button", class: "btn", popovertarget: "share-panel", title: "Link, short link or embed code for this walk at this step" }, "Share");
  const title = el("h2", { id: "share-title" }, "Share this walk, at this step");
  const linkField = el("input", { id: "share-link", type: "text", readonly: "", "aria-label": "Link to this walk", spellcheck: "false" });
  const copyLink = el("button", { id: "copy-link", type: "button", class: "btn primary" }, "Copy link");
  const copyShort = el("button", { id: "copy-short-link", type: "button", class: "btn" }, "Copy short link");
  copyShort.hidden = !links;
  const embedField = el("textarea", { id: "share-embed", readonly: "", rows: "4", "aria-label": "Embed code", spellcheck: "false" });
  const copyEmbed = el("button", { id: "copy-embed", type: "button", class: "btn" }, "Copy embed code");
  const status = el("p", { id: "share-status", class: "share-status", role: "status", "aria-live": "polite" });
  const close = el("button", { type: "button", class: "btn close", popovertarget: "share-panel", popovertargetaction: "hide", "aria-label": "Close" }, "×");
  const linkRow = el("div", { class: "share-row" });
  linkRow.append(linkField, copyLink, copyShort);
  const embedRow = el("div", { class: "share-row" });
  embedRow.append(embedField, copyEmbed);
  const hint = el("p", { class: "share-hint" },
    "The link holds the whole walk (no account, nothing stored). To put it in a slide, paste the embed "
    + "code into the slide (any web page or deck that takes HTML); it steps with a clicker (PageDown / PageUp) "
    + "once clicked, and reveal.js decks can drive it with postMessage (gradwalk's docs/slides.md shows how).");
  const live = createLiveSection(app, { state, store, shows: (room) => {
    button.textContent = room ? `Share · live ${room}` : "Share"; // the lecturer sees the room is open
    button.classList.toggle("live", Boolean(room));
  } });
  panel.append(close, title, linkRow, embedRow, hint, live, status);
  app.querySelector("#trace").before(button);
  document.body.append(panel);

  // Every address the panel gives is under GRADWALK_PUBLIC_URL when it is set (data-public-url):
  // a lecturer's page on 127.0.0.1 gave students links and embeds no other machine can open.
  const publicUrl = app.dataset.publicUrl || "";
  const shared = (path) => roomAddress(path, publicUrl, location.origin);
  const embedBase = publicUrl ? publicUrl.replace(/\/+$/, "") : location.origin;
  const fragmentLink = () => {
    const own = link();
    return own.startsWith(location.origin) ? shared(own.slice(location.origin.length)) : own;
  };
  function fill() {
    linkField.value = fragmentLink();
    embedField.value = embedSnippet(state(), embedBase);
    status.textContent = "";
    panel.dataset.shortLink = "";
  }
  panel.addEventListener("toggle", (event) => event.newState === "open" && fill());

  function said(copied, what) {
    status.textContent = copied ? `${what} copied.` : `${what} selected: press Ctrl+C (⌘C) to copy it.`;
  }
  copyLink.addEventListener("click", async () => {
    fill();
    said(await copy(linkField, linkField.value), "Link");
  });
  copyEmbed.addEventListener("click", async () => {
    embedField.value = embedSnippet(state(), embedBase);
    said(await copy(embedField, embedField.value), "Embed code");
  });
  copyShort.addEventListener("click", async () => {
    fill();
    copyShort.disabled = true;
    status.textContent = "Making a short link…";
    try {
      const url = shared(await shortLink(state()));
      panel.dataset.shortLink = url;
      said(await copy(linkField, url), "Short link");
    } catch (error) {
      // The fragment link holds the same walk and needs no server.
      panel.dataset.shortLink = "failed";
      const copied = await copy(linkField, fragmentLink());
      status.textContent = `No short link (${error.message}); the full link was ${copied ? "copied" : "selected"} instead.`;
    } finally {
      copyShort.disabled = false;
    }
  });
  return { button, panel };
}
