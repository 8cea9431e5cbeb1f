"""Issue 14 (security probe): the standalone HTML export carried no Content-Security-Policy.
Its <meta> policy is checked here against the served page's; tests/e2e/test_standalone.py
opens the file in Chromium under it (it steps, with no violation)."""
from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest

from helpers import case
from gradwalk.server.export_html import standalone_html
from gradwalk.server.main import CSP
from gradwalk.server.settings import Settings


class Scripts(HTMLParser):
    """The document's first element in <head>, and the text of every script by its type."""

    def __init__(self) -> None:
        super().__init__()
        self.first_in_head, self.in_head, self.scripts, self._open = None, False, [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "head":
            self.in_head = True
        elif self.in_head and self.first_in_head is None:
            self.first_in_head = (tag, attrs)
        if tag == "script":
            self._open = [attrs.get("type"), ""]

    def handle_data(self, data):
        if self._open is not None:
            self._open[1] += data

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            self.scripts.append(tuple(self._open))
            self._open = None


def directives(policy: str) -> dict[str, set[str]]:
    parts = (d.split() for d in policy.split(";") if d.strip())
    return {name: set(sources) for name, *sources in parts}


@pytest.fixture(scope="module")
def page() -> Scripts:
    parsed = Scripts()
    parsed.feed(standalone_html(case("seed-tanh-fanout")["program"], None, Settings()))
    return parsed


def test_the_policy_comes_first_and_admits_only_the_files_own_scripts(page):
    tag, attrs = page.first_in_head
    assert (tag, attrs["http-equiv"]) == ("meta", "Content-Security-Policy")
    policy = directives(attrs["content"])
    runnable = [text for kind, text in page.scripts if kind in (None, "module")]
    assert len(runnable) == 1 and len(runnable[0]) > 100_000   # the embed bundle, inlined
    digest = base64.b64encode(hashlib.sha256(runnable[0].encode()).digest()).decode()
    assert policy["script-src"] == {f"'sha256-{digest}'"}
    assert {kind for kind, _ in page.scripts} == {"module", "application/json"}


def test_the_policy_is_as_strict_as_the_served_pages(page):
    served, export = directives(CSP), directives(page.first_in_head[1]["content"])
    assert export["default-src"] == {"'none'"}
    for name, sources in served.items():
        # every directive of the page's, allowing no source the page does not ('self' is
        # dropped: from file:// it would be other local files), scripts only by hash
        allowed = {s for s in export[name] if not re.fullmatch(r"'sha256-[A-Za-z0-9+/=]+'", s)}
        assert allowed <= sources - {"'self'"} or allowed == {"'none'"}, name
    assert export["connect-src"] == export["object-src"] == export["base-uri"] == {"'none'"}
