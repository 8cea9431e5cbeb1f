"""The notebook widget's fallback through nbconvert (issue 18 §2): a notebook saved as
JupyterLab saves it by default (outputs, no widget state) and converted to HTML shows the walk
as the standalone export in an `<iframe srcdoc>`, which steps in Chromium with the network off."""
from __future__ import annotations

import pytest

pytest.importorskip("nbconvert")
pytest.importorskip("anywidget")
import nbformat  # noqa: E402
from nbconvert import HTMLExporter  # noqa: E402
from nbconvert.preprocessors import ExecutePreprocessor  # noqa: E402

PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"


def converted(tmp_path) -> str:
    """The notebook's HTML, executed with no widget state kept (JupyterLab's default save)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"import gradwalk\ngradwalk.show({PROGRAM!r}, step=6)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    ExecutePreprocessor(timeout=120, store_widget_state=False).preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    html, _ = HTMLExporter().from_notebook_node(nb)
    return html


def test_nbconverts_html_steps_the_walk_offline(chromium, tmp_path):
    page_file = tmp_path / "walk.html"
    page_file.write_text(converted(tmp_path))
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    # nbconvert's page asks a CDN for MathJax and require.js: refused, the walk needs neither
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "about:"))
               else route.abort())
    try:
        page.goto(page_file.as_uri())
        frame = page.frame_locator("iframe[srcdoc]")
        frame.locator('#embed[data-status="ready"]').wait_for(timeout=30_000)
        assert frame.locator("#embed").get_attribute("data-step") == "6"
        frame.locator("button.forward").click()
        assert frame.locator("#embed").get_attribute("data-step") == "7"
        assert frame.locator(".counter").inner_text() == "step 7 / 15"
    finally:
        context.close()
