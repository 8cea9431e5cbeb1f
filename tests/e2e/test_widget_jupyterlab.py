"""The notebook widget in a real JupyterLab and a real Jupyter Notebook 7 (issue 18 §2): one
server per test, started by it (killed in finally, with its kernel), a notebook that calls
gradwalk.show and displays the widget twice, run in Debian's Chromium; the walk is stepped in
the page and from the kernel, and each side reads the other's step. VS Code's widget renderer:
test_widget_vscode.py."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from live_server import notebook_server
from page_helpers import new_page
from test_widget_page import FACES

pytest.importorskip("jupyterlab")
pytest.importorskip("anywidget")

SHOTS = Path(os.environ.get("GRADWALK_SHOTS", "/tmp/gradwalk-shots"))
PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"
TOKEN = "gradwalk-test"


def notebook() -> dict:
    """Two cells: the widget, and a second view of it."""
    cell = lambda source: {"cell_type": "code", "metadata": {}, "source": source,   # noqa: E731
                           "outputs": [], "execution_count": None}
    return {"nbformat": 4, "nbformat_minor": 5, "cells": [
        cell(f"import gradwalk\nw = gradwalk.show({PROGRAM!r})\nw"), cell("w")],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}}}


# A Jupyter server's options (JupyterLab's and Notebook 7's): no browser, our port, token and
# folder, the app on window.jupyterapp for the test, nothing fetched from the network.
JUPYTER_OPTIONS = ["--no-browser", "--ServerApp.ip=127.0.0.1", "--ServerApp.port={port}",
                   f"--ServerApp.token={TOKEN}", "--ServerApp.root_dir={root}",
                   "--ServerApp.allow_root=True"]   # CI runs as root


@pytest.fixture
def jupyterlab(tmp_path):
    """The URL of one JupyterLab server on a free port, serving tmp_path; stopped after."""
    (tmp_path / "walk.ipynb").write_text(json.dumps(notebook()))
    options = [*JUPYTER_OPTIONS, "--LabApp.expose_app_in_browser=True",
               "--LabApp.workspaces_dir={home}/workspaces", "--LabApp.news_url=None",
               "--LabApp.extension_manager=readonly"]
    with notebook_server(tmp_path, "jupyterlab", options, f"/api/status?token={TOKEN}") as url:
        yield url


# The kernel of the notebook shown, asked to run `code`; resolves with what it printed.
RUN_IN_KERNEL = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code });
  let out = "";
  future.onIOPub = (msg) => { if (msg.header.msg_type === "stream") out += msg.content.text; };
  await future.done;
  return out;
}"""


def test_a_student_steps_the_widget_in_jupyterlab(chromium, jupyterlab):
    steps_the_widget(chromium, f"{jupyterlab}/lab/tree/walk.ipynb?token={TOKEN}", "jupyterlab")


@pytest.fixture
def notebook7(tmp_path):
    """The URL of one Jupyter Notebook 7 server (the `notebook` package, the test extra's) on
    a free port, serving tmp_path; stopped after."""
    pytest.importorskip("notebook", minversion="7")
    (tmp_path / "walk.ipynb").write_text(json.dumps(notebook()))
    options = [*JUPYTER_OPTIONS, "--JupyterNotebookApp.expose_app_in_browser=True",
               "--JupyterNotebookApp.workspaces_dir={home}/workspaces"]
    with notebook_server(tmp_path, "notebook", options, f"/api/status?token={TOKEN}") as url:
        yield url


def test_a_student_steps_the_widget_in_notebook7(chromium, notebook7):
    """Notebook 7's page (one notebook, no dock) is JupyterLab's components: the same
    notebook, the same steps, both ways."""
    steps_the_widget(chromium, f"{notebook7}/notebooks/walk.ipynb?token={TOKEN}", "notebook7")


# Notebook 7's own code: 7.6.5's shortcut settings (notebook_core.js) throws "Cannot read
# properties of undefined (reading 'schema')" on opening any notebook, an empty one with no
# gradwalk in the kernel too (checked); an error thrown there is the host's, not the widget's.
HOST_CODE = "/static/notebook/notebook_core."


def steps_the_widget(chromium, url: str, host: str) -> None:
    """The notebook at `url` (JupyterLab's or Notebook 7's page) run in Chromium: its two views
    of the widget stepped from the kernel, by a click and by keys, each side reading the
    other's step; the seed's line typeset with KaTeX's fonts; a screenshot
    widget-HOST-1280x800.png."""
    contexts = []
    page = new_page(chromium, contexts, (1280, 800), timeout=60_000)   # a host's first load, 2 cores
    errors: list[str] = []   # the page's errors but the host's own
    run = lambda code: page.evaluate(RUN_IN_KERNEL, code)   # noqa: E731
    page.on("pageerror", lambda e: HOST_CODE not in (e.stack or "") and errors.append(str(e)))
    try:
        page.goto(url)
        page.wait_for_function("window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel")
        page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.ready")
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        views = page.locator('.embed.gradwalk-widget[data-status="ready"]')
        views.nth(1).wait_for()
        assert views.count() == 2
        steps = lambda: [views.nth(i).get_attribute("data-step") for i in range(2)]  # noqa: E731
        assert steps() == ["0", "0"]
        run("w.step = 6")   # a cell drives the walk
        page.wait_for_function("[...document.querySelectorAll('.jp-OutputArea-output')].length > 0")
        views.nth(1).and_(page.locator('[data-step="6"]')).wait_for()
        assert steps() == ["6", "6"]
        views.nth(0).locator("button.forward").click()   # the student steps
        views.nth(1).and_(page.locator('[data-step="7"]')).wait_for()
        kernel_reads(run, 7)
        # keys on the walk step it and never reach the notebook's shortcuts (B: a new cell)
        cells = page.locator(".jp-Notebook .jp-Cell")
        views.nth(1).focus()
        page.keyboard.press("ArrowRight")
        views.nth(0).and_(page.locator('[data-step="8"]')).wait_for()
        views.nth(1).locator("summary").click()
        views.nth(1).locator("textarea").press("b")
        assert views.nth(1).locator("textarea").input_value().endswith("b")
        assert cells.count() == 2
        kernel_reads(run, 8)
        run("w.step = 7")
        views.nth(1).and_(page.locator('[data-step="7"]')).wait_for()
        at_the_seed(page, views, run)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"widget-{host}-1280x800.png"))
        assert errors == []
    finally:
        contexts[0].close()


def kernel_reads(run, step: int, timeout: float = 30) -> None:
    """Waits until a cell (`run(code)` runs one, returns what it printed) prints `step` for
    w.step: ipywidgets sends a view's change only once the kernel has taken the one before
    (its message throttle), so it may come after the next cell. (Not page.wait_for_function:
    it takes the promise an async predicate returns for true, and would never wait.)"""
    deadline = time.monotonic() + timeout
    while (read := run("print(w.step)").strip()) != str(step):
        assert time.monotonic() < deadline, f"the kernel reads w.step = {read}, not {step}"
        time.sleep(0.1)   # asking the kernel again, not waiting on the page


def at_the_seed(page, views, run) -> None:
    """Checks two views of PROGRAM's widget at step 7, the seed, in a host: its line typeset as
    on the page, with KaTeX's fonts (hosts have none); the kernel's step, step count and a's
    gradient (`run(code)` runs a cell, returns what it printed) those of gradwalk.trace; the
    graph fitted whole once the host gave the view its size (the leaves' boxes inside)."""
    line = views.nth(1).locator(".narration")
    assert line.get_attribute("data-typeset") == "true"
    assert line.locator(".narration-tex .katex .katex-html").count() == 1
    assert line.locator(".narration-plain").text_content() == \
        "L\u0304 = 1 (dL/dL), the backward pass starts at the output"   # narration.js's seed
    assert {"KaTeX_Main", "KaTeX_Math"} <= set(page.evaluate(FACES))
    trace = __import__("gradwalk").trace(PROGRAM)
    assert run("print(w.step, w.steps, w.grads['a'])").split() == [
        "7", str(len(trace["events"])), repr(trace["grads"]["a"])]
    box, leaf = views.nth(0).locator("svg#graph").bounding_box(), views.nth(0).locator("g.node").first.bounding_box()
    assert box["x"] <= leaf["x"] and leaf["x"] + leaf["width"] <= box["x"] + box["width"]
