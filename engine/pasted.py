"""Characters that slides, PDFs and word processors put into pasted code, and what to type
instead (issue 14, section 4). Python refuses each one with its code point only ("invalid
non-printable character U+00A0", "invalid character '−' (U+2212)"): a student cannot see a
non-breaking space, and a typeset minus looks like `-`. The parser's error keeps Python's
message and place and gains this hint.

The text is not rewritten (a space inside a string literal is the program's own, and a
rewritten character would move no column but would hide what the file holds): the hint says
what to replace.
"""
from __future__ import annotations

import re

_SPACE = "as pasted from slides or a PDF: replace it with a space"
_TYPESET = "as typeset in slides or a PDF: replace it with"
HINTS = {
    0x00A0: f"a non-breaking space (U+00A0), {_SPACE}",
    0x202F: f"a narrow non-breaking space (U+202F), {_SPACE}",
    0x2007: f"a figure space (U+2007), {_SPACE}",
    0x2009: f"a thin space (U+2009), {_SPACE}",
    0x200A: f"a hair space (U+200A), {_SPACE}",
    0x2002: f"an en space (U+2002), {_SPACE}",
    0x2003: f"an em space (U+2003), {_SPACE}",
    0x3000: f"an ideographic space (U+3000), {_SPACE}",
    0x200B: "a zero-width space (U+200B), as pasted from a web page or a PDF: delete it",
    0x2060: "a word joiner (U+2060), as pasted from a web page or a PDF: delete it",
    0xFEFF: "a byte-order mark (U+FEFF) inside the program, as left where two files were "
            "joined: delete it (one at the very start is read)",
    0x2212: f"a minus sign (U+2212), {_TYPESET} -",
    0x2013: f"an en dash (U+2013), {_TYPESET} -",
    0x2014: f"an em dash (U+2014), {_TYPESET} -",
    0x00D7: f"a multiplication sign (U+00D7), {_TYPESET} *",
    0x22C5: f"a dot operator (U+22C5), {_TYPESET} *",
    0x00B7: f"a middle dot (U+00B7), {_TYPESET} *",
    0x00F7: f"a division sign (U+00F7), {_TYPESET} /",
    0x201C: f"a curly quote (U+201C), {_TYPESET} a straight quote \"",
    0x201D: f"a curly quote (U+201D), {_TYPESET} a straight quote \"",
    0x2018: f"a curly quote (U+2018), {_TYPESET} a straight quote '",
    0x2019: f"a curly quote (U+2019), {_TYPESET} a straight quote '",
}
_CODE_POINT = re.compile(r"\bU\+([0-9A-F]{4,6})\b")


def hint(message: str) -> str | None:
    """The hint for Python's "invalid (non-printable) character U+XXXX" `message`, or None
    for another message or a character not in HINTS."""
    if "invalid" not in message or "character" not in message:
        return None
    found = _CODE_POINT.search(message)
    return HINTS.get(int(found.group(1), 16)) if found else None
