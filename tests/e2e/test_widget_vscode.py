"""The notebook widget in VS Code's own widget renderer (issue 18 §2). VS Code cannot run here,
but the ipywidgets 8 front end its Jupyter extension loads in the notebook renderer is on npm:
@vscode/jupyter-ipywidgets8, whose dist/ipywidgets.js is the whole widget manager
(jupyterlab-manager, controls, base) with activate() / load() and a WidgetManager built on a
kernel connection. tests/e2e/vscode_renderer/ is the harness page, bundled here and never
shipped, and its own npm project (package.json and package-lock.json there, installed by
`make setup-test`; not gradwalk's, whose build needs none of JupyterLab's 350 MB): it does what
vscode-jupyter's webview-side ipywidgets kernel does (the renderer's kernel connection on a
stand-in socket whose frames the "extension host" relays over a message channel, the cells run
by the host, anywidget's nbextension loaded through require.js from the kernel's environment,
a view per displayed model) against a real Jupyter server and kernel started by the test. The
walk is stepped from the page and from the kernel, both ways."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from live_server import notebook_server
from page_helpers import new_page
from test_widget_jupyterlab import JUPYTER_OPTIONS, PROGRAM, SHOTS, TOKEN, at_the_seed, kernel_reads

pytest.importorskip("anywidget")
pytest.importorskip("jupyter_server")

REPO = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("vscode_renderer")
BUNDLE = HARNESS / "node_modules" / "@vscode" / "jupyter-ipywidgets8" / "dist" / "ipywidgets.js"
REQUIRE = HARNESS / "node_modules" / "requirejs" / "require.js"
ESBUILD = REPO / "node_modules" / ".bin" / "esbuild"   # the page's bundler, gradwalk's own
# Where VS Code finds a third-party widget's code when no CDN is allowed: the nbextension in
# the kernel's environment (this interpreter's: the server's python3 kernel is sys.executable).
ANYWIDGET = Path(sys.prefix, "share", "jupyter", "nbextensions", "anywidget", "index.js")


def build_harness(dest: Path) -> None:
    """dest/: the harness page, its script bundled with @jupyterlab/services, the ipywidgets 8
    bundle, require.js and anywidget's nbextension (copied, as VS Code serves them). esbuild
    runs in the harness folder and resolves @jupyterlab/services from its node_modules."""
    for needed in (BUNDLE, REQUIRE, ESBUILD):
        if not needed.exists():
            pytest.fail(f"{needed.relative_to(REPO)} is missing: run `make setup-test` (`npm ci` "
                        f"and `npm ci --prefix {HARNESS.relative_to(REPO)}`)")
    if not ANYWIDGET.exists():
        pytest.fail(f"{ANYWIDGET} is missing: anywidget's nbextension (pip install anywidget)")
    (dest / "nbextensions" / "anywidget").mkdir(parents=True)
    shutil.copy(HARNESS / "index.html", dest)
    shutil.copy(BUNDLE, dest)
    shutil.copy(REQUIRE, dest)
    shutil.copy(ANYWIDGET, dest / "nbextensions" / "anywidget")
    subprocess.run([str(ESBUILD), str(HARNESS / "harness.mjs"), "--bundle", "--format=esm",
                    "--target=es2020", "--external:./ipywidgets.js", "--log-level=warning",
                    f"--outfile={dest / 'harness.js'}"], check=True, cwd=HARNESS)


@pytest.fixture
def vscode_renderer(tmp_path):
    """The harness page's URL on a Jupyter server (its static files, so the page, the REST
    API and the kernel's socket share one origin) with one python3 kernel started; the
    server and the kernel are stopped after."""
    build_harness(tmp_path / "vscode")
    options = [*JUPYTER_OPTIONS, "--ServerApp.extra_static_paths=['{root}/vscode']"]
    with notebook_server(tmp_path, "jupyter_server", options, f"/api/status?token={TOKEN}") as url:
        request = urllib.request.Request(f"{url}/api/kernels", data=b'{"name": "python3"}',
                                         headers={"Authorization": f"token {TOKEN}"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            kernel = json.load(reply)["id"]
        yield f"{url}/static/index.html?token={TOKEN}&kernel={kernel}"


def test_a_student_steps_the_widget_in_vscodes_renderer(chromium, vscode_renderer):
    contexts = []
    page = new_page(chromium, contexts, (1280, 800), timeout=60_000)   # a kernel's start, 2 cores
    run = lambda code: page.evaluate("(code) => window.vscode.run(code)", code)   # noqa: E731
    try:
        page.goto(vscode_renderer)
        page.wait_for_function("window.vscode || document.body.dataset.error")
        assert page.evaluate("document.body.dataset.error") is None
        run(f"import gradwalk\nw = gradwalk.show({PROGRAM!r})\nw")   # two cells, two views
        run("w")
        views = page.locator('.embed.gradwalk-widget[data-status="ready"]')
        views.nth(1).wait_for()
        assert views.count() == 2
        # anywidget's front end came as VS Code loads a third-party widget: through require.js
        assert page.evaluate("window.requirejs.defined('anywidget')")
        steps = lambda: [views.nth(i).get_attribute("data-step") for i in range(2)]  # noqa: E731
        assert steps() == ["0", "0"]
        run("w.step = 3")   # a cell drives the walk
        views.nth(1).and_(page.locator('[data-step="3"]')).wait_for()
        assert steps() == ["3", "3"]
        views.nth(0).locator("button.forward").click()   # the student steps
        views.nth(1).and_(page.locator('[data-step="4"]')).wait_for()
        kernel_reads(run, 4)
        views.nth(1).focus()   # and by key, on the other view
        page.keyboard.press("ArrowRight")
        views.nth(0).and_(page.locator('[data-step="5"]')).wait_for()
        kernel_reads(run, 5)
        run("w.step = 7")
        views.nth(1).and_(page.locator('[data-step="7"]')).wait_for()
        at_the_seed(page, views, run)
        assert page.evaluate("window.vscode.errors") == []   # the widget manager's load failures
        assert page.errors == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        for width, height in ((1280, 800), (1024, 768)):   # the first view whole, the second below
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(SHOTS / f"widget-vscode-{width}x{height}.png"))
    finally:
        contexts[0].close()
