// The program's header: its comment and blank lines up to its first statement, where the
// `# bugs:`, `# hvp:` and `# hessian:` lines stand (docs/trace-format.md). No DOM.

/**
 * The program's lines up to and including its first statement, lazily: only that far is
 * read, so a 50,000-line program costs its first lines, not a split of its whole text
 * (which took a tenth of a second at every trace).
 */
export function* headerLines(program) {
  const text = String(program ?? "");
  const line = /([^\r\n]*)(?:\r\n|\r|\n|$)/y;
  while (line.lastIndex < text.length) {
    const found = line.exec(text);
    yield found[1];
    const t = found[1].trim();
    if (t && !t.startsWith("#")) return;
  }
}
