"""GRADWALK_PUBLIC_URL (issue 17 review, finding 4): the address students' phones reach the
server by reaches the explorer page (data-public-url, read by render/live-room.js for the room's
address and QR code), on "/" and on a short link's page; a value that is no http(s) address
is refused at start with the variable named."""
from __future__ import annotations

import re

import pytest

from gradwalk.server.settings import SettingError, from_environment
from test_live_rooms import live_app

PUBLIC = "http://192.168.1.20:8000"


def _public_url(html: str) -> str | None:
    found = re.search(r'<main id="app"[^>]*\sdata-public-url="([^"]*)"', html)
    return found and found.group(1)


def test_the_public_url_reaches_the_explorer_page(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path, public_url=PUBLIC) as client:
        assert _public_url(client.get("/").text) == PUBLIC
        r = client.post("/api/links", json={"state": {"v": 1, "program": "x = 2.0\nL = x * x"}})
        assert r.status_code in (200, 201), r.text
        page = client.get(r.json()["url"])
        assert page.status_code == 200
        assert _public_url(page.text) == PUBLIC


def test_without_it_the_page_has_none(monkeypatch, tmp_path):
    with live_app(monkeypatch, tmp_path) as client:
        assert _public_url(client.get("/").text) == ""


@pytest.mark.parametrize("value", ["192.168.1.20:8000", "ftp://host/", "http://", "http://h/?a=1"])
def test_a_public_url_that_is_no_address_is_refused(monkeypatch, value):
    monkeypatch.setenv("GRADWALK_PUBLIC_URL", value)
    with pytest.raises(SettingError, match="GRADWALK_PUBLIC_URL="):
        from_environment()


def test_a_public_url_with_a_path_is_taken(monkeypatch):
    monkeypatch.setenv("GRADWALK_PUBLIC_URL", "https://gw.example.edu/course")
    assert from_environment().public_url == "https://gw.example.edu/course"
