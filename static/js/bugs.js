// The bug lab (issue 9; docs/trace-format.md, "The bug lab"): which switches a program turns on
// with its `# bugs:` line, for the page's "bug lab" badge. No DOM. The engine checks the names;
// this only reads them, so a permalink (which carries the program) shows the badge at once.

import { headerLines } from "./header.js";

const DIRECTIVE = /^[ \t]*#[ \t]*bugs[ \t]*:([^\n]*)$/;

/** The switches named by the `# bugs:` comments before the program's first statement. */
export function bugSwitches(program) {
  const names = [];
  for (const line of headerLines(program)) {
    const found = DIRECTIVE.exec(line);
    if (found) {
      for (const name of found[1].split(",")) if (name.trim()) names.push(name.trim());
    } else if (line.trim() && !line.trim().startsWith("#")) {
      break; // the first statement: a later `# bugs:` line is refused by the engine
    }
  }
  return [...new Set(names)];
}

/** The badge's text: "bug lab: overwrite, wrong_order", or "" when no switch is on. */
export function bugBadgeText(program) {
  const names = bugSwitches(program);
  return names.length ? `bug lab: ${names.join(", ")}` : "";
}

// The switches that make the gradients wrong; `zero_grad` is the fix of no_zero_grad (its
// gradients are right, a preset shows it beside the bug).
const FIXES = new Set(["zero_grad"]);

/**
 * What a walk with bug switches `bugs` (the done event's `bugs`) says at Done, before its
 * gradients: "BUG LAB (overwrite): these gradients are wrong on purpose — the gradient check
 * flags them"; for only the fix (zero_grad), that its gradients are right. "" without switches.
 */
export function bugDoneText(bugs) {
  const names = Array.isArray(bugs) ? bugs : [];
  if (!names.length) return "";
  const wrong = names.filter((b) => !FIXES.has(b));
  if (!wrong.length) return `BUG LAB (${names.join(", ")}): the fix — these gradients are right.`;
  return `BUG LAB (${wrong.join(", ")}): these gradients are wrong on purpose — the gradient check flags them.`;
}

/**
 * The note the mode panel shows when a program with a `# bugs:` line is walked in forward
 * mode, which has no backward pass for the switches to change (the engine traces it without
 * them): "" when there is nothing to say.
 */
export function forwardBugNote(program, mode) {
  const names = bugSwitches(program);
  if (mode !== "forward" || !names.length) return "";
  return `The bug lab (${names.join(", ")}) changes the backward pass, so it applies to reverse mode only: `
    + "this forward walk has no bug. Choose Reverse mode to see it.";
}
