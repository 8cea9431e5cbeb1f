"""The notebook widget in a real JupyterLab (issue 18 §2): one `jupyter lab` server started by
the test (killed in finally, with its kernel), a notebook that calls gradwalk.show and displays
the widget twice, run in Debian's Chromium; the walk is stepped in the page and from the
kernel, and each side reads the other's step."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from live_server import free_port, wait_healthy
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


@pytest.fixture
def jupyterlab(tmp_path):
    """The URL of one JupyterLab server on a free port, serving tmp_path; stopped after."""
    (tmp_path / "walk.ipynb").write_text(json.dumps(notebook()))
    port = free_port()
    home = tmp_path / "jupyter"   # its own config and runtime: nothing of the user's
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", f"--ServerApp.token={TOKEN}",
           f"--ServerApp.root_dir={tmp_path}", "--LabApp.expose_app_in_browser=True",
           f"--LabApp.workspaces_dir={home / 'workspaces'}", "--LabApp.news_url=None",
           "--LabApp.extension_manager=readonly", "--ServerApp.allow_root=True"]   # CI runs as root
    # its own process group: the kernel it starts goes with it
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=90, path=f"/api/status?token={TOKEN}")
        yield url
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=15)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue


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
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(60_000)   # JupyterLab's first load on a shared 2-core machine
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{jupyterlab}/lab/tree/walk.ipynb?token={TOKEN}")
        page.wait_for_function("window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel")
        page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.ready")
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        views = page.locator('.embed.gradwalk-widget[data-status="ready"]')
        views.nth(1).wait_for()
        assert views.count() == 2
        steps = lambda: [views.nth(i).get_attribute("data-step") for i in range(2)]  # noqa: E731
        assert steps() == ["0", "0"]
        page.evaluate(RUN_IN_KERNEL, "w.step = 6")   # a cell drives the walk
        page.wait_for_function("[...document.querySelectorAll('.jp-OutputArea-output')].length > 0")
        views.nth(1).and_(page.locator('[data-step="6"]')).wait_for()
        assert steps() == ["6", "6"]
        views.nth(0).locator("button.forward").click()   # the student steps
        views.nth(1).and_(page.locator('[data-step="7"]')).wait_for()
        page.wait_for_function(f"(async () => ({RUN_IN_KERNEL})('print(w.step)'))().then(o => o.trim() === '7')")
        # keys on the walk step it and never reach the notebook's shortcuts (B: a new cell)
        cells = page.locator(".jp-Notebook .jp-Cell")
        views.nth(1).focus()
        page.keyboard.press("ArrowRight")
        views.nth(0).and_(page.locator('[data-step="8"]')).wait_for()
        views.nth(1).locator("summary").click()
        views.nth(1).locator("textarea").press("b")
        assert views.nth(1).locator("textarea").input_value().endswith("b")
        assert cells.count() == 2
        page.wait_for_function(f"(async () => ({RUN_IN_KERNEL})('print(w.step)'))().then(o => o.trim() === '8')")
        page.evaluate(RUN_IN_KERNEL, "w.step = 7")
        views.nth(1).and_(page.locator('[data-step="7"]')).wait_for()
        # the seed's line typeset, as on the page, with KaTeX's fonts (JupyterLab has none)
        line = views.nth(1).locator(".narration")
        assert line.get_attribute("data-typeset") == "true"
        assert line.locator(".narration-tex .katex .katex-html").count() == 1
        assert line.locator(".narration-plain").text_content() == \
            "L\u0304 = 1 (dL/dL), the backward pass starts at the output"   # narration.js's seed
        assert {"KaTeX_Main", "KaTeX_Math"} <= set(page.evaluate(FACES))
        assert page.evaluate(RUN_IN_KERNEL, "print(w.step, w.steps, w.grads['a'])").split() == [
            "7", str(len(json.loads(json.dumps(__import__('gradwalk').trace(PROGRAM)))["events"])),
            repr(__import__('gradwalk').trace(PROGRAM)["grads"]["a"])]
        # fitted whole once JupyterLab gave the view its size: the leaves' boxes are inside
        box, leaf = views.nth(0).locator("svg#graph").bounding_box(), views.nth(0).locator("g.node").first.bounding_box()
        assert box["x"] <= leaf["x"] and leaf["x"] + leaf["width"] <= box["x"] + box["width"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "widget-jupyterlab-1280x800.png"))
        assert errors == []
    finally:
        context.close()
