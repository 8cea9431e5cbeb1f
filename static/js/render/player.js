// The player: reset, step back, play/pause, step forward, end, a scrubber, the step
// counter and the speed menu. `createPlayer` builds the controls in `root` and reports
// what the user asked for through `actions`; `update` shows a state and never calls back.

import { SPEEDS } from "../state.js";

// [key, accessible name, text]; words as well as arrows read better from the back row. A
// word in [brackets] is a span.word, which a narrow player hides (app.css: Start and End
// keep their arrows, then Back and Next do; their names stay as aria-label and title).
const BUTTONS = [
  ["reset", "Reset", "⇤[ Start]"],
  ["back", "Step back", "◀[ Back]"],
  ["play", "Play", "▶ Play"],
  ["forward", "Step forward", "[Next ]▶"],
  ["end", "Go to end", "[End ]⇥"],
];

/** `text` with its [bracketed] part as a span.word, appended to `button`. */
function label(button, text) {
  for (const [i, part] of text.split(/[[\]]/).entries()) {
    if (!part) continue;
    if (i % 2) button.append(el("span", { class: "word" }, part));
    else button.append(part);
  }
}

const PHASES = {
  start: "ready", forward: "forward pass", zero_grad: "zero_grad", backward: "backward pass", update: "update",
  done: "done", error: "error",
};

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/**
 * Controls in `root`. `actions` has reset(), back(), togglePlay(), forward(), end(),
 * seek(step) and speed(eventsPerSecond). `tools` (an element, optional) joins the row before
 * the speed menu: the zoom buttons, kept out of the drawing so they never cover a node.
 */
export function createPlayer(root, actions, { tools = null } = {}) {
  root.replaceChildren();
  const buttons = {};
  const bar = el("div", { class: "buttons" });
  for (const [key, name, text] of BUTTONS) {
    buttons[key] = el("button", { type: "button", class: `btn ${key}`, "aria-label": name, title: name });
    label(buttons[key], text);
    bar.append(buttons[key]);
  }
  const scrubber = el("input", { type: "range", class: "scrubber", min: "0", max: "0", value: "0", "aria-label": "Step" });
  const counter = el("output", { class: "counter", "aria-live": "polite" });
  const phase = el("span", { class: "phase" });
  const speed = el("select", { class: "speed", "aria-label": "Speed" });
  for (const s of SPEEDS) speed.append(el("option", { value: String(s) }, `${s} steps/s`));
  const speedLabel = el("label", { class: "speed-label" });
  speedLabel.append(el("span", { class: "speed-word" }, "Speed "), speed); // the word hides at 1024 px (app.css)
  root.append(bar, scrubber, counter, phase, ...(tools ? [tools] : []), speedLabel);

  buttons.reset.addEventListener("click", () => actions.reset());
  buttons.back.addEventListener("click", () => actions.back());
  buttons.play.addEventListener("click", () => actions.togglePlay());
  buttons.forward.addEventListener("click", () => actions.forward());
  buttons.end.addEventListener("click", () => actions.end());
  scrubber.addEventListener("input", () => actions.seek(Number(scrubber.value)));
  speed.addEventListener("change", () => {
    actions.speed(Number(speed.value));
    speed.blur(); // a menu keeps the arrow keys; give them back to the player
  });

  /**
   * Show `step` of `total`, the phase of the view, whether it plays and its speed.
   * `disabled`: the trace shown is not the program's (an error came after it); no stepping,
   * so no step count either (data-step keeps the step the faded graph shows).
   */
  let countWidth = null;

  function update({ step, total, phase: name, playing, speed: eventsPerSecond, disabled = false }) {
    // "step" is a span.word: a crowded player shows "3 / 16" (app.css .fit-count), a
    // screen reader still hears "step 3 / 16"
    if (disabled) counter.textContent = "no steps";
    else counter.replaceChildren(el("span", { class: "word" }, "step "), `${step} / ${total}`);
    // the counter keeps the width of this walk's longest count (app.css .counter)
    const widest = `${`step ${total} / ${total}`.length}ch`;
    if (widest !== countWidth) root.style.setProperty("--counter-ch", (countWidth = widest));
    root.dataset.step = String(step);
    root.dataset.total = String(total);
    phase.textContent = PHASES[name] ?? name;
    phase.dataset.phase = scrubber.dataset.phase = name; // the bar takes the pass's colour (css)
    scrubber.max = String(disabled ? 0 : total);
    scrubber.value = String(disabled ? 0 : step);
    buttons.play.textContent = playing ? "❚❚ Pause" : "▶ Play";
    buttons.play.setAttribute("aria-label", playing ? "Pause" : "Play");
    buttons.play.title = playing ? "Pause (Space)" : "Play (Space)";
    buttons.reset.disabled = buttons.back.disabled = disabled || step === 0;
    buttons.forward.disabled = buttons.end.disabled = disabled || step === total;
    buttons.play.disabled = scrubber.disabled = disabled || total === 0;
    root.dataset.disabled = String(disabled);
    speed.value = String(eventsPerSecond);
  }

  return { update };
}
