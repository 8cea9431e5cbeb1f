"""gradwalk installed from its wheel on a machine without Node (issue 18 §1).

One build, one venv, one server for the module: the checkout's package files are copied to a
folder without static/dist; `python -m build --sdist` there runs `npm run build`
(hatch_build.py); the wheel is built from the unpacked sdist and installed into a fresh venv,
both with Node off PATH; `gradwalk serve` from that venv (a real process, killed in finally)
answers the page, the embed, an export and a short link, and Chromium draws the page.

The fresh venv gets the wheel's declared dependencies from the package registry (pip, as
`pip install gradwalk` would; about 20 s with pip's cache), nothing from the test venv: a
dependency missing from pyproject.toml fails the server's start here.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from pathlib import Path

import pytest

from live_server import REPO, free_port, stop, wait_healthy

PACKAGE = ("__init__.py", "__main__.py", "hatch_build.py", "engine", "server", "static",
           "templates", "README.md", "pyproject.toml", "package.json", "package-lock.json")
# What the installed page needs, as the wheel names it.
INSIDE = ("gradwalk/__init__.py", "gradwalk/static/dist/main.js", "gradwalk/static/dist/embed.js",
          "gradwalk/static/dist/layout.worker.js", "gradwalk/static/dist/stream.worker.js",
          "gradwalk/static/css/app.css", "gradwalk/templates/explorer.html",
          "gradwalk/templates/embed.html", "gradwalk/server/presets.json",
          "gradwalk/server/storage/migrations/env.py",
          "gradwalk/server/storage/migrations/script.py.mako",
          "gradwalk/server/storage/migrations/versions/0003_live_rooms.py",
          "gradwalk/engine/trace/runner.py", "gradwalk/static/dist/widget.js",
          "gradwalk/server/widget.py", "gradwalk/server/magic.py")
# A test-only npm project in the checkout (test_widget_vscode.py's, 350 MB of node_modules): the
# copy has it, installed, so the sdist is shown to leave it out.
HARNESS = Path("tests", "e2e", "vscode_renderer")
FANOUT = "a = 2.0\nb = -3.0\nt = a * b\nL = t * t + a\n"


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    """A build or install step; its output is in the assertion when it fails."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{cmd[:4]} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def copy_checkout(dest: Path) -> None:
    """The files the package is built from and the VS Code test's npm project, without
    static/dist, caches or node_modules (links to the checkout's, so `npm run build` runs
    without a download)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "dist", "node_modules")
    dest.mkdir()
    for name in (*PACKAGE, HARNESS):
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=skip)
        else:
            shutil.copy2(src, dest / name)
    for folder in (Path(), HARNESS):
        (dest / folder / "node_modules").symlink_to(REPO / folder / "node_modules")


def without_node(bin_dir: Path) -> dict[str, str]:
    """os.environ with PATH the venv's bin only: no node, no npm."""
    env = {**os.environ, "PATH": str(bin_dir)}
    assert shutil.which("node", path=env["PATH"]) is None
    assert shutil.which("npm", path=env["PATH"]) is None
    return env


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """{"sdist", "wheel"}: the sdist built from a copy of the checkout, the wheel from the
    sdist with Node off PATH."""
    tmp = tmp_path_factory.mktemp("wheel")
    src, out = tmp / "src", tmp / "out"
    copy_checkout(src)
    assert not (src / "static" / "dist").exists()
    run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", out, src])
    (sdist,) = out.glob("gradwalk-*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp / "unpacked", filter="data")
    (unpacked,) = (tmp / "unpacked").iterdir()
    run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", out,
         unpacked], env=without_node(Path(sys.executable).parent))
    (wheel,) = out.glob("gradwalk-*.whl")
    return {"sdist": sdist, "wheel": wheel, "tmp": tmp}


@pytest.fixture(scope="module")
def installed(built) -> Path:
    """A fresh venv with the wheel and its dependencies installed, Node off PATH (the test
    venv's pip, aimed at the venv: the venv needs no pip of its own); its bin/."""
    venv = built["tmp"] / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    bin_dir = venv / "bin"
    run([sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "--quiet",
         built["wheel"]], env=without_node(Path(sys.executable).parent))
    return bin_dir


@pytest.fixture(scope="module")
def served(built, installed):
    """`gradwalk serve` of the installed wheel on a free port, from a folder that is not the
    checkout, with Node off PATH; its base URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**without_node(installed), "GRADWALK_DATA_DIR": str(built["tmp"] / "data"),
           "GRADWALK_LINK_RATE_LIMIT": ""}
    log = open(built["tmp"] / "serve.log", "wb")
    proc = subprocess.Popen([installed / "gradwalk", "serve", "--host", "127.0.0.1", "--port",
                             str(port)], cwd=built["tmp"], env=env, stdout=log, stderr=log)
    try:
        wait_healthy(url, proc, timeout=60)
        yield url
    finally:
        stop(proc)
        log.close()


def fetch(url: str, body: dict | None = None) -> tuple[int, str, bytes]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read()


def test_the_wheel_holds_one_package_with_the_built_page_templates_presets_and_migrations(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    assert [n for n in INSIDE if n not in names] == []
    assert {n.split("/")[0] for n in names} == {"gradwalk", "gradwalk-0.1.0.dist-info"}
    assert not any("__pycache__" in n or "node_modules" in n or "/tests/" in n for n in names)
    sdist = tarfile.open(built["sdist"]).getnames()
    assert "gradwalk-0.1.0/static/dist/main.js" in sdist   # a wheel from it needs no npm
    assert not any("node_modules" in n or "/tests/" in n for n in sdist)


def test_the_sdists_npm_project_has_none_of_the_vscode_tests_packages(built):
    """What a build from the sdist's package.json would `npm ci` (hatch_build.py, a checkout
    without node_modules) leaves out JupyterLab's services and VS Code's widget manager."""
    with tarfile.open(built["sdist"]) as tar:
        page = json.load(tar.extractfile("gradwalk-0.1.0/package.json"))
        lock = json.load(tar.extractfile("gradwalk-0.1.0/package-lock.json"))
    harness = json.loads((REPO / HARNESS / "package.json").read_text())["devDependencies"]
    assert set(harness) == {"@jupyterlab/services", "@vscode/jupyter-ipywidgets8", "requirejs"}
    assert set(harness) & {*page["dependencies"], *page["devDependencies"]} == set()
    assert [f"node_modules/{name}" in lock["packages"] for name in harness] == [False] * 3


def test_the_installed_wheel_has_one_import_name_and_the_python_api(built, installed):
    code = ("import gradwalk, importlib.util as u\n"
            "print(gradwalk.__file__)\n"
            "print(u.find_spec('engine'), u.find_spec('server'))\n"
            "print(gradwalk.trace('a = 2.0\\nb = -3.0\\nt = a * b\\nL = t * t + a\\n')"
            "['grads'])\n")
    out = run([installed / "python", "-c", code], cwd=built["tmp"],
              env=without_node(installed)).stdout.splitlines()
    assert out[0] == str(installed.parent / "lib" / f"python{sys.version_info.major}."
                         f"{sys.version_info.minor}" / "site-packages" / "gradwalk"
                         / "__init__.py")
    assert out[1] == "None None"   # no top-level engine or server
    # L = (ab)^2 + a: dL/da = 2ab*b + 1 = 37, dL/db = 2ab*a = -24
    assert json.loads(out[2].replace("'", '"')) == {"a": 37.0, "b": -24.0}


def test_gradwalk_serve_from_the_wheel_answers_the_page_embed_export_and_links(served):
    status, kind, page = fetch(served + "/")
    assert (status, kind.split(";")[0]) == (200, "text/html")
    assert b'src="/static/dist/main.js"' in page
    status, kind, js = fetch(served + "/static/dist/main.js")
    assert status == 200 and "javascript" in kind and len(js) > 100_000
    status, _, embed = fetch(served + "/embed")
    assert status == 200 and b"/static/dist/embed.js" in embed
    status, kind, html = fetch(served + "/api/export/html", {"program": FANOUT, "output": "L"})
    assert (status, kind.split(";")[0]) == (200, "text/html")
    assert b"<script" in html and b"/static/dist/" not in html   # the bundle inlined
    status, _, md = fetch(served + "/api/export/md", {"program": FANOUT, "output": "L"})
    assert status == 200 and b"37" in md
    status, _, made = fetch(served + "/api/links", {"state": {"v": 1, "k": 7}})
    link = json.loads(made)
    assert status == 201 and link["url"] == f"/s/{link['id']}"   # the migrations ran
    assert json.loads(fetch(served + f"/api/links/{link['id']}")[2])["state"] == {"v": 1, "k": 7}


def test_the_installed_page_traces_its_first_example_in_chromium(chromium, served):
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(served + "/")
        page.wait_for_selector('#app[data-status="ready"]', timeout=30_000)
        assert page.locator("g.node").count() > 3
        assert errors == []
    finally:
        context.close()


# Last in the module: it adds the notebook extra to the installed venv.
def test_the_notebook_widget_is_an_extra_of_the_installed_wheel(built, installed):
    code = ("import gradwalk\n"
            "try:\n    gradwalk.show('a = 2.0\\nL = a * a')\n"
            "except ImportError as e:\n    print(e)\n")
    out = run([installed / "python", "-c", code], cwd=built["tmp"], env=without_node(installed))
    assert out.stdout.strip() == ("gradwalk's notebook widget needs anywidget: "
                                  'pip install "gradwalk[notebook]"')
    run([sys.executable, "-m", "pip", "--python", installed / "python", "install", "--quiet",
         f"gradwalk[notebook] @ {built['wheel'].resolve().as_uri()}"],
        env=without_node(Path(sys.executable).parent))
    code = ("import gradwalk\nw = gradwalk.show('a = 2.0\\nL = a * a', step=2)\n"
            "from gradwalk.server.widget import _bundle_text\n"
            "print(w.grads['a'], w.step, w.steps, 'gradwalk-widget' in _bundle_text(),\n"
            "      'DecompressionStream' in w._esm)\n")
    out = run([installed / "python", "-c", code], cwd=built["tmp"], env=without_node(installed))
    assert out.stdout.split() == ["4.0", "2", "6", "True", "True"]   # the bundle the wheel carries, packed
