// Embeds, without the DOM: the options an embed takes (query string over the fragment's
// state), and the <iframe> snippet the explorer's "Copy embed code" gives. node --test
// covers them (tests/js/embedding.test.mjs).
//
// Options (query parameters; the fragment's state gives step, speed, theme and font too):
//   step=N       the step shown first (a step past the end shows the last)
//   autoplay=1   play from there
//   speed=S      events per second, one of state.js SPEEDS
//   theme=T      light | dark | projector (auto: the system's)
//   font=F       font scale, 0.5 to 3
//   controls=0   no player bar (keys, clickers and postMessage still step it)
//   narration=0  no narration line
//   program=1    the program, read-only, beside the graph
//   print=1      the step as a static SVG picture: no player, no animation (for a deck printed
//                to PDF; reveal.js' own ?print-pdf in the embed's address does the same)
// A value an option does not take (print=2, theme=pink) is ignored, and the embed says so in a
// note naming the values it takes (embedProblems).

import { encodeLink, FIELDS, FONT_LIMITS, linkState, SPEEDS, THEMES } from "./state.js";

const FLAGS = { autoplay: false, controls: true, narration: true, program: false, print: false };
const flag = { parse: (s) => ({ 1: true, true: true, yes: true, 0: false, false: false, no: false })[s] };

/**
 * The embed's options from `query` (a URLSearchParams or a query string) over `state` (a
 * checked state object, or null): {step, speed, theme, font, autoplay, controls, narration,
 * program, print}. Bad values are ignored (the state's, or the default, stays); embedProblems
 * says which, and what each option takes.
 */
export function embedOptions(query, state = null) {
  const params = query instanceof URLSearchParams ? query : new URLSearchParams(query);
  const options = { ...FLAGS };
  for (const name of ["step", "speed", "theme", "font"]) {
    const fromState = state && Object.hasOwn(state, name) ? state[name] : FIELDS[name].default;
    const fromQuery = params.has(name) ? FIELDS[name].type.parse(params.get(name)) : undefined;
    options[name] = fromQuery ?? fromState;
  }
  for (const name of Object.keys(FLAGS)) {
    const value = params.has(name) ? flag.parse(params.get(name)) : undefined;
    if (value !== undefined) options[name] = value;
  }
  if (params.has("print-pdf")) options.print = true; // reveal.js' print mode
  return options;
}

// What each option takes, said when a value is not one of them (embedProblems).
const SWITCH = "1 or 0 (true/false and yes/no too)";
const ACCEPTED = {
  step: "a step number (0, 1, 2, ...)", speed: `${SPEEDS.join(", ")} (events per second)`,
  theme: THEMES.join(", "), font: `a scale from ${FONT_LIMITS.min} to ${FONT_LIMITS.max}`,
  ...Object.fromEntries(Object.keys(FLAGS).map((name) => [name, SWITCH])),
};

/**
 * What is wrong with the options in `query` (a URLSearchParams or a query string): one
 * sentence per option whose value embedOptions ignores, naming the values it takes
 * ("print=2 is ignored: print takes 1 or 0 ..."), in the query's order; [] when all are good.
 * A deck's author sees why `print=2` printed nothing (embed.js shows them).
 */
export function embedProblems(query) {
  const params = query instanceof URLSearchParams ? query : new URLSearchParams(query);
  const parsers = { ...Object.fromEntries(Object.keys(FLAGS).map((name) => [name, flag])),
    ...Object.fromEntries(["step", "speed", "theme", "font"].map((name) => [name, FIELDS[name].type])) };
  return [...params].filter(([name, value]) => Object.hasOwn(parsers, name) && parsers[name].parse(value) === undefined)
    .map(([name, value]) => `${name}=${value.length > 20 ? `${value.slice(0, 19)}…` : value} is ignored: ${name} takes ${ACCEPTED[name]}.`);
}

/** The query string that gives `options` (only what differs from an embed's defaults). */
export function embedQuery(options) {
  const params = new URLSearchParams();
  for (const name of ["step", "speed", "theme", "font"]) {
    if (options[name] !== undefined && options[name] !== FIELDS[name].default) params.set(name, String(options[name]));
  }
  for (const [name, fallback] of Object.entries(FLAGS)) {
    if (options[name] !== undefined && options[name] !== fallback) params.set(name, options[name] ? "1" : "0");
  }
  return params.toString();
}

const escapeAttribute = (s) => String(s).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** A title for the iframe (screen readers announce it): the output's or first line's name. */
export function embedTitle(state) {
  const lines = String(state.program ?? "").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const last = lines.at(-1)?.split("=")[0].trim();
  const name = state.output || (last && /^[A-Za-z_]\w*$/.test(last) ? last : "");
  return `gradwalk: backpropagation${name ? ` of ${name}` : ""}, step by step`;
}

export const EMBED_SIZE = { width: 1000, height: 600 }; // a 16:9-ish slide's content area

/**
 * The <iframe> snippet for `state` (a page state) served from `origin`: /embed with the
 * step, speed, theme and font as query parameters (easy to edit by hand) and the program in
 * the fragment. `options` adds embed flags (controls, narration, program, autoplay).
 */
export function embedSnippet(state, origin, options = {}, size = EMBED_SIZE) {
  const { step, speed, theme, font, ...rest } = linkState(state); // the fragment keeps the walk
  const query = embedQuery({ step, speed, theme, font, ...options });
  const src = `${origin}/embed${query ? `?${query}` : ""}#${encodeLink(rest)}`;
  return `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(embedTitle(state))}" `
    + `width="${size.width}" height="${size.height}" style="border: 0; max-width: 100%;" `
    + `loading="lazy"></iframe>`;
}
