// The Iterations and lr boxes' refusals (a newcomer's check: "abc", -1 or 99999 snapped back to
// the store's 0.5 or 301 and the run trained with that, without a word). A value no run takes
// stays in its box, marked aria-invalid, and is said under the boxes in the CLI's and the
// API's words (train-rules.js); ▶ Train does not start while one is (render/train.js).

import { lrRefusal, readRate, readTrainSteps, stepsRefusal } from "../train-rules.js";
import { el } from "./dom.js";

/**
 * The checks of `steps` and `lr` (the boxes) with their message: {node (the message, to place
 * under the boxes), read(box) (its number, or null with the box marked and the message said),
 * settle(box) (unmark it once its text reads), marked(box), invalid() (some box marked)}.
 */
export function createFieldChecks(doc, { steps, lr }) {
  const message = el(doc, "p", { id: "train-field-error", class: "train-field-error", role: "alert", hidden: "" });
  const rules = new Map([[steps, { read: readTrainSteps, refusal: stepsRefusal }], [lr, { read: readRate, refusal: lrRefusal }]]);
  for (const box of rules.keys()) box.setAttribute("aria-describedby", message.id);
  const marked = (box) => box.getAttribute("aria-invalid") === "true";

  /** The message: each marked box's refusal, quoting what is in it, on a line of its own. */
  function say() {
    const lines = [...rules].filter(([box]) => marked(box)).map(([box, rule]) => rule.refusal(box.value));
    message.replaceChildren(...lines.flatMap((line, i) => (i ? [el(doc, "br"), line] : [line])));
    message.hidden = !lines.length;
  }
  function mark(box, bad) {
    if (bad) box.setAttribute("aria-invalid", "true");
    else box.removeAttribute("aria-invalid");
    say();
  }
  return {
    node: message,
    read(box) {
      const v = rules.get(box).read(box.value);
      mark(box, v === undefined);
      return v === undefined ? null : v;
    },
    /** {name: the box's number}, or null with the box refused (read). */
    patch(box, name) {
      const v = this.read(box);
      return v === null ? null : { [name]: v };
    },
    /** While typing: a marked box whose text now reads is unmarked (it is refused only on change). */
    settle(box) {
      if (marked(box) && rules.get(box).read(box.value) !== undefined) mark(box, false);
    },
    marked,
    invalid: () => [...rules.keys()].some(marked),
    /** The first marked box, focused (▶ Train pressed while one is refused). */
    focusInvalid: () => [...rules.keys()].find(marked)?.focus(),
  };
}
