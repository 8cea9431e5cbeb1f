"""The build hook of gradwalk's wheel and sdist (hatchling's custom hook, pyproject.toml).

The checkout's top level is the package: engine/, server/, static/, templates/ and
__init__.py become gradwalk/engine, gradwalk/server, ... in the wheel, so an installed
gradwalk adds the one import name `gradwalk` to site-packages.

- sdist, or a wheel built from a checkout: runs `npm ci` (when node_modules is missing) and
  `npm run build`, so static/dist (ignored by git) is built here, once, and shipped: installing
  the wheel needs no Node. A wheel built from an sdist uses the bundle the sdist carries.
  Only the top-level npm project: tests/e2e/vscode_renderer/ is the VS Code widget test's own
  (`make setup-test` installs it), which no build needs.
- editable (`pip install -e .`): maps the name `gradwalk` to this checkout with the editables
  library's import hook; the bundle is built by `make build`, not here.

Raises RuntimeError (the build fails with its message) when the bundle must be built and npm
is not on PATH, or is missing from an sdist.
Hook API: https://hatch.pypa.io/latest/plugins/build-hook/reference/
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# What the wheel's gradwalk/ holds, each from the checkout's top level.
PACKAGE = ("__init__.py", "__main__.py", "engine", "server", "static", "templates")
BUNDLE = os.path.join("static", "dist")
ENTRIES = ("main.js", "embed.js", "layout.worker.js", "stream.worker.js", "widget.js")


class PageBuildHook(BuildHookInterface):
    """Builds the page bundle before the wheel or sdist is written; lays out the wheel."""

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name == "wheel" and version == "editable":
            self._editable(build_data)
            return
        self._bundle()
        if self.target_name == "wheel":
            for name in PACKAGE:
                build_data["force_include"][os.path.join(self.root, name)] = f"gradwalk/{name}"

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        """Drop the editable wheel's generated files once they are in the wheel."""
        if getattr(self, "_generated", None):
            shutil.rmtree(self._generated, ignore_errors=True)

    def _bundle(self) -> None:
        """static/dist built now from a checkout, or checked to be there in an sdist (an
        sdist carries PKG-INFO at its top and no static/js build tools)."""
        if os.path.isfile(os.path.join(self.root, "PKG-INFO")):
            missing = [e for e in ENTRIES if not os.path.isfile(self._dist(e))]
            if missing:
                raise RuntimeError(f"this sdist has no {BUNDLE}/{missing[0]}: build the "
                                   "sdist from a checkout with npm on PATH")
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("building gradwalk from a checkout runs `npm run build` for "
                               f"{BUNDLE}; npm (Node 20) is not on PATH. Install the wheel "
                               "(pip install gradwalk) to run gradwalk without Node.")
        if not os.path.isdir(os.path.join(self.root, "node_modules")):
            self._run([npm, "ci", "--no-audit", "--no-fund"])
        self._run([npm, "run", "build", "--silent"])

    def _dist(self, entry: str) -> str:
        return os.path.join(self.root, BUNDLE, entry)

    def _run(self, cmd: list[str]) -> None:
        self.app.display_info(f"gradwalk: {' '.join(cmd[1:])}")
        subprocess.run(cmd, cwd=self.root, check=True)

    def _editable(self, build_data: dict) -> None:
        """The editable wheel: a .pth that installs editables' import hook, mapping
        `gradwalk` to this checkout's __init__.py (so gradwalk.engine is ./engine)."""
        from editables import EditableProject

        project = EditableProject("gradwalk", self.root)
        project.map("gradwalk", self.root)
        out = self._generated = tempfile.mkdtemp(prefix="gradwalk-editable-")
        for name, content in project.files():
            path = os.path.join(out, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
            build_data["force_include"][path] = name
        build_data["dependencies"].extend(project.dependencies())
