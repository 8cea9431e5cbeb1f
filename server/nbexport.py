"""A notebook as one HTML page that fetches nothing (issue 18 §2): for a lecture hall offline.

nbconvert's HTML of a notebook saved with its widget state loads the widget manager
(@jupyter-widgets/html-manager) from a CDN to draw the widgets, and require.js and MathJax
too; offline, the gradwalk walk in it stayed blank. OfflineHTMLExporter is nbconvert's
HTMLExporter with two changes:

- fallback first: an output that carries both a widget view and a text/html fallback (the
  gradwalk widget's: server/widget.py, the standalone export in an `<iframe srcdoc>`, which
  steps on its own) shows the fallback, and the widget state only the remaining views need
  is kept (none: no widget state at all);
- the template `gradwalk_offline` (server/nbconvert_templates/): JupyterLab's, less its CDN
  scripts (require.js, MathJax, Mermaid, the widget manager). So another library's widget
  shows its text fallback and a Markdown cell's $math$ stays TeX source in this page.

    jupyter nbconvert --to gradwalk_html lecture.ipynb      # the entry point (pyproject.toml)
    OfflineHTMLExporter().from_notebook_node(nb)             # (html, resources)

nbconvert's exporters and templates: https://nbconvert.readthedocs.io/en/latest/customizing.html
Raises what HTMLExporter raises (nbformat's validation errors for a malformed notebook).
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from nbconvert import HTMLExporter
from traitlets import default

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
TEMPLATES = Path(__file__).resolve().parent / "nbconvert_templates"
_MODEL_REF = re.compile(r"IPY_MODEL_([0-9a-fA-F-]+)")


def fallback_first(nb):
    """A copy of notebook `nb` whose outputs with a text/html fallback drop their widget view,
    and whose widget state keeps only the models the remaining views reach (through the
    `IPY_MODEL_<id>` references of their states); with none left, no widget state."""
    nb = copy.deepcopy(nb)
    shown: list[str] = []   # model ids of the views still shown
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if VIEW not in data:
                continue
            if "text/html" in data:
                del data[VIEW]
            else:
                shown.append(data[VIEW].get("model_id", ""))
    widgets = nb.metadata.get("widgets", {})
    states = widgets.get(STATE, {}).get("state", {})
    keep = _reached(shown, states)
    if not keep:
        nb.metadata.pop("widgets", None)
    elif STATE in widgets:
        widgets[STATE]["state"] = {k: v for k, v in states.items() if k in keep}
    return nb


def _reached(roots: list[str], states: dict) -> set[str]:
    """The model ids reachable from `roots` through their states' IPY_MODEL_ references."""
    seen: set[str] = set()
    todo = [r for r in roots if r in states]
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        refs = _MODEL_REF.findall(json.dumps(states[model].get("state", {})))
        todo.extend(r for r in refs if r in states and r not in seen)
    return seen


class OfflineHTMLExporter(HTMLExporter):
    """nbconvert's HTMLExporter, offline: see the module docstring."""

    export_from_notebook = "HTML, offline (gradwalk)"

    @default("template_name")
    def _template_name_default(self) -> str:
        return "gradwalk_offline"

    @default("extra_template_basedirs")
    def _extra_template_basedirs_default(self) -> list[str]:
        return [str(TEMPLATES)]

    def from_notebook_node(self, nb, resources=None, **kw):
        return super().from_notebook_node(fallback_first(nb), resources, **kw)
