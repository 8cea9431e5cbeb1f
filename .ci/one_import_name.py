"""Rewrite a branch written before the package's one import name (issue 18 §1) to it: the
checkout's engine/ and server/ are imported as gradwalk.engine and gradwalk.server.

    python3 .ci/one_import_name.py [ROOT]   # ROOT: the checkout (default: this one)

Rewrites, in every .py file under ROOT but node_modules, .venv and this one: `from engine...`
and `import server...` at a line's start, and a module's dotted name alone in a one-quote
string (the uvicorn app, `-m server.cli`, a forkserver preload; not server.log, a file name;
not a docstring's first word). It prints how many files changed; a second run changes
nothing. After merging such a branch: take the branch's side of a conflict that is only its
imports (`git checkout --theirs FILE`), run this, then the tests (tests/conftest.py refuses a
bare `engine` or `server` left over, naming it).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

BARE = r"(engine|server)"
REWRITES = [
    # an import statement (also in a function, and on its own line of a code string)
    (re.compile(rf"^(\s*)(from|import) {BARE}(?=[.\s])", re.M), r"\1\2 gradwalk.\3"),
    # a dotted module name opening a one-quote string (a docstring's opening is three quotes)
    (re.compile(rf"(?<![\"'])([\"']){BARE}\.(?!log\b)(?=[a-zA-Z_])"), r"\1gradwalk.\2."),
    # a code string's statement after its opening quote: "import server.main\n"
    (re.compile(rf"(\"import ){BARE}\."), r"\1gradwalk.\2."),
]
SKIP = {"node_modules", ".venv", ".git"}


def rewrite(text: str) -> str:
    for pattern, replacement in REWRITES:
        text = pattern.sub(replacement, text)
    return text


def main(root: Path) -> int:
    changed = 0
    for path in root.rglob("*.py"):
        if SKIP & set(path.relative_to(root).parts) or path.resolve() == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    print(f"{changed} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1])))
