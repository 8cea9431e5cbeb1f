"""The notebook widget's fallback through nbconvert (issue 18 §2): a notebook saved as
JupyterLab saves it by default (outputs, no widget state) and converted to HTML shows the walk
as the standalone export in an `<iframe srcdoc>`, which steps in Chromium with the network off."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("nbconvert")
pytest.importorskip("anywidget")
import nbformat  # noqa: E402
from nbconvert import HTMLExporter  # noqa: E402
from nbconvert.preprocessors import ExecutePreprocessor  # noqa: E402

PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"


def executed(tmp_path, store_widget_state: bool):
    """The notebook of one gradwalk.show cell, executed; with its widget state saved (in the
    metadata, as JupyterLab's "Save Widget State Automatically") or not (its default)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"import gradwalk\ngradwalk.show({PROGRAM!r}, step=6)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    ExecutePreprocessor(timeout=120, store_widget_state=store_widget_state).preprocess(
        nb, {"metadata": {"path": str(tmp_path)}})
    return nb


def converted(tmp_path) -> str:
    """The notebook's HTML, executed with no widget state kept (JupyterLab's default save)."""
    html, _ = HTMLExporter().from_notebook_node(executed(tmp_path, False))
    return html


def stepped(page, page_file):
    """Open the converted page; its walk (in the iframe) opens at step 6 and steps to 7."""
    page.goto(page_file.as_uri())
    frame = page.frame_locator("iframe[srcdoc]")
    frame.locator('#embed[data-status="ready"]').wait_for(timeout=30_000)
    assert frame.locator("#embed").get_attribute("data-step") == "6"
    frame.locator("button.forward").click()
    assert frame.locator("#embed").get_attribute("data-step") == "7"
    return frame


def test_nbconverts_html_steps_the_walk_offline(chromium, tmp_path):
    page_file = tmp_path / "walk.html"
    page_file.write_text(converted(tmp_path))
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    # nbconvert's page asks a CDN for MathJax and require.js: refused, the walk needs neither
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "about:"))
               else route.abort())
    try:
        frame = stepped(page, page_file)
        assert frame.locator(".counter").inner_text() == "step 7 / 15"
    finally:
        context.close()


# A script fetched from elsewhere: `<script src="http...">`, or a URL a script makes into one
# (the widget manager's loader builds its <script> from a CDN string).
CDN_SCRIPT = re.compile(r"<script[^>]*\bsrc=[\"']?(?:https?:)?//|['\"]https?://[^'\"]*\.js", re.I)


def test_a_saved_widgets_offline_html_fetches_no_script(chromium, tmp_path):
    """Issue 18 §2: with the widget state saved, nbconvert's HTML loads the widget manager from
    a CDN (and require.js and MathJax); gradwalk's exporter shows the walk by its fallback and
    names no script URL at all, and the walk steps with the network off."""
    from gradwalk.server.nbexport import OfflineHTMLExporter

    nb = executed(tmp_path, True)
    assert "application/vnd.jupyter.widget-state+json" in nb.metadata["widgets"]
    stock, _ = HTMLExporter().from_notebook_node(nb)
    assert CDN_SCRIPT.search(stock)   # the problem: html-manager's embed-amd.js from a CDN
    assert "html-manager" in stock
    html, _ = OfflineHTMLExporter().from_notebook_node(nb)
    assert CDN_SCRIPT.findall(html) == []
    assert not re.search(r"<script[^>]*\bsrc=", html)
    assert "application/vnd.jupyter.widget-view+json" not in html and "html-manager" not in html
    assert html.count("<iframe") == 1 and "widgets" in nb.metadata   # the notebook unchanged
    page_file = tmp_path / "offline.html"
    page_file.write_text(html)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    context.set_offline(True)
    page = context.new_page()
    asked = []
    page.on("request", lambda r: r.url.startswith(("http:", "https:")) and asked.append(r.url))
    try:
        stepped(page, page_file)
        assert asked == []
    finally:
        context.close()


def test_the_exporter_is_nbconverts_gradwalk_html():
    """`jupyter nbconvert --to gradwalk_html` finds it by its entry point."""
    from nbconvert.exporters import get_exporter

    from gradwalk.server.nbexport import OfflineHTMLExporter

    assert get_exporter("gradwalk_html") is OfflineHTMLExporter
