// The bug lab (issue 9; docs/trace-format.md, "The bug lab"): which switches a program turns on
// with its `# bugs:` line, for the page's "bug lab" badge. No DOM. The engine checks the names;
// this only reads them, so a permalink (which carries the program) shows the badge at once.

const DIRECTIVE = /^[ \t]*#[ \t]*bugs[ \t]*:([^\n]*)$/;

/** The switches named by the `# bugs:` comments before the program's first statement. */
export function bugSwitches(program) {
  const names = [];
  for (const line of String(program ?? "").split(/\r\n|\r|\n/)) {
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
