"""The notebook widget (issue 18 §2): `gradwalk.show(program)` steps a walk inside JupyterLab,
Notebook 7, VS Code and marimo (`mo.ui.anywidget(w)`) through anywidget, with no server.

The kernel runs the engine (trace_body, as POST /api/trace does) and sends the trace to the
page as the synced text trait `_trace`; the page's side is static/dist/widget.js, the page's
own render modules bundled once by `npm run build` (static/js/widget.js), sent packed
(`_esm`: static/js/widget-loader.js with the bundle gzipped inside: widget_esm), with the page's
stylesheets (`_style`, widget_css) kept in a shadow root, and the bundle's own
(`_bundle_style`: KaTeX's rules, the narration's two faces as data: URLs, as the standalone
export inlines them; bundle_css) for the narration typeset as the page's, offline. anywidget
sends `_esm` and these in every instance's state (no sharing per class: each view imports its
own), hence the packing and the two faces: 0.34 MB a widget (0.98 MB before). Synced both ways:

    step      int, 0..steps: the step shown (0 = before the first event); a cell sets it
              (`w.step = 12`) and reads it; stepping in any view sets it, and every view of
              the widget follows. Past the end it is the last step; below 0 a TraitError.
    mode      "reverse" (the backward pass), "forward" (tangents: 1 on the first leaf), "hvp"
              (the Hessian-vector product of the program's `# hvp:` line; a program with the
              line reads "hvp" in reverse mode too, as the page's mode menu does) or "train"
              (a recorded iteration of a training run, with the loss curve):
              server/widget_modes.py.
    program   gradwalk's language (README.md, The language); a new one is traced at once.
Read only: `steps` (the number of events), `error` (why the program is not traced, "" when it
is), `grads` ({leaf: dL/dleaf} of the last trace; in train mode the recorded iteration's),
`losses` (train mode: the loss before each update, [] otherwise). A program, mode or setting
refused after the first walk (`w.program = "a = ("`) keeps the last good walk, as the explorer
does: `steps`, `grads`, `losses` and `step` stay that walk's, the page draws it faded and not
stepped, and `error` says where the new one went wrong ("Not traced (line 1, column 5): ..."). Settable: `output` (the name
whose gradient is taken, "" = the last assigned), `theme` ("auto", "light", "dark",
"projector"); train mode's `train_steps` (>= 1), `lr` (0 < lr <= 1e6), `optimizer` ("sgd",
"momentum", "adam") and `iteration` (0..train_steps-1: the iteration the player steps), synced
both ways, each change trained again.

Without the widget (nbconvert, GitHub's preview) the output's text/html is the standalone
HTML export (server/export_html.py) of the same trace in an `<iframe srcdoc>`, so the file
still steps the walk (train mode's with its loss curve: static/js/embed.js inlinedIteration).
anywidget: https://anywidget.dev/en/getting-started/ ; the limits are the GRADWALK_ settings
(server/settings.py get_settings), as for the CLI; notebook_fallback_bytes bounds the fallback.
"""
from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import html
import re
from pathlib import Path

import anywidget
import orjson
import traitlets

from gradwalk.engine.errors import ProgramError, kind_words
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.widget_modes import MODES, OPTIMIZERS, TrainAsk, walk_body

ROOT = Path(__file__).resolve().parents[1]   # the checkout, or gradwalk/ in the wheel
BUNDLE = ROOT / "static" / "dist" / "widget.js"
LOADER = ROOT / "static" / "js" / "widget-loader.js"   # the `_esm` that unpacks BUNDLE
BUNDLE_CSS = "/static/dist/widget.css"   # esbuild's, beside widget.js: KaTeX's rules and fonts
THEMES = ("auto", "light", "dark", "projector")   # static/js/state.js THEMES
# The page's stylesheets the embed links (templates/base.html, embed.html), in its order.
STYLESHEETS = ("themes.css", "app.css", "embed.css", "graph-groups.css", "train.css")
# The widget's own: a notebook cell is not a frame, so the walk gets a height of its own. The
# graph's row gives way down to 35% (the embed's: 55%), so the narration keeps its lines with
# the program box open (at 55% it was crushed to 11 px of its 38 at 1280x800).
WIDGET_RULES = """
.embed.gradwalk-widget { height: var(--widget-height, 560px); border: 1px solid var(--line);
  border-radius: 8px; background: var(--paper); color: var(--ink); font-family: var(--sans);
  line-height: 1.4; grid-template-rows: minmax(35%, 1fr) minmax(0, auto) auto auto auto;
  grid-template-areas: "graph" "narration" "bar" "train" "program"; }
.widget-train { grid-area: train; display: flex; flex-wrap: wrap; align-items: center;
  gap: 0.3em 1em; padding: 0.2em 0.8em; }
.widget-train[hidden], .widget-loss[hidden] { display: none; }
.widget-train input { width: 6em; font: inherit; }
.widget-train select { font: inherit; }
/* train mode's loss curve in a column at the graph's right (as the embed's train links):
   the graph is fitted beside it, never under it */
.embed.gradwalk-widget[data-mode="train"] { grid-template-columns: minmax(0, 1fr) auto;
  grid-template-areas: "graph loss" "narration narration" "bar bar" "train train"
  "program program"; }
.widget-loss { grid-area: loss; align-self: start; padding: 6px 6px 0 0; }
.widget-loss .loss-curve { display: block; height: auto; width: min(32vw, 20rem); }
/* A cell under 1100 px wide (a 1024x768 projector) gives the graph its whole width and the
   curve a place beside the train settings: beside the graph it left 650 px, where the graph
   fitted whole at 0.53 and its numbers (under 10 px) were not drawn. */
:host { display: block; container-type: inline-size; }
@container (max-width: 1099.98px) {
  .embed.gradwalk-widget[data-mode="train"] { grid-template-areas: "graph graph"
    "narration narration" "bar bar" "train loss" "program program"; }
  .embed.gradwalk-widget[data-mode="train"] .widget-loss { align-self: center; padding: 0 6px; }
  .embed.gradwalk-widget[data-mode="train"] .widget-loss .loss-curve {
    width: auto; height: 7rem; aspect-ratio: 320 / 180; }
}
.widget-program { grid-area: program; font-size: 0.9rem; }
.widget-program textarea { display: block; width: 100%; box-sizing: border-box;
  font: 0.9rem/1.4 var(--mono); }
.widget-mode { font: inherit; }
/* The phase pill whole, the scrubber giving way: embed.css's rule, the embed's and this. */
/* A program refused after a walk (Walk._retrace): that walk stays, faded and not stepped, its
   player disabled ("no steps"), the located error its narration: the explorer's way. */
.embed.gradwalk-widget[data-status="error"] #graph { opacity: 0.35; }
.embed.gradwalk-widget[data-status="error"] #graph :is(.callouts, .pulses) { display: none; }
.embed.gradwalk-widget[data-status="error"] .player { visibility: visible; }
.embed.gradwalk-widget .narration[data-kind="stale"] { color: var(--ink); }
"""


def widget_css(folder: Path = ROOT / "static" / "css") -> str:
    """The page's stylesheets for the widget's shadow root: `:root` (the document, which in a
    shadow root matches nothing) becomes `:host`, the widget's element, which carries the theme
    (`data-theme`), so the page's colours and the projector theme apply inside the widget only.
    Raises FileNotFoundError when a stylesheet is missing."""
    text = "\n".join((folder / name).read_text(encoding="utf-8") for name in STYLESHEETS)
    text = re.sub(r":root(\[[^\]]*\])", r":host(\1)", _compact(text + WIDGET_RULES))
    return text.replace(":root", ":host")


def _compact(css: str) -> str:
    """`css` without its comments and runs of white space, sent in every widget's state (the
    page's stylesheets: 64 kB -> 36 kB; their comments were 25 kB). Our stylesheets have no
    string holding "/*" or two spaces, which this would change."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return re.sub(r"\s*([{};])\s*", r"\1", re.sub(r"\s+", " ", css)).strip()


def _bundle_text() -> str:
    """static/dist/widget.js without its source-map comment: the module is handed to the
    frontend as text (a blob: URL), from where widget.js.map cannot be fetched."""
    return re.sub(r"\n//# sourceMappingURL=\S+\s*$", "\n", BUNDLE.read_text(encoding="utf-8"))


def widget_esm() -> str:
    """The widget's `_esm`: static/js/widget-loader.js with the bundle (_bundle_text) inside,
    gzipped and base64 (0.5 MB -> 0.22 MB in every instance's state; the loader unpacks it in
    the browser). Made once per bundle file (its size and time)."""
    stat = BUNDLE.stat()
    return _packed(str(BUNDLE), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=1)
def _packed(path: str, size: int, mtime: int) -> str:
    code = _bundle_text().encode("utf-8")
    data = base64.b64encode(gzip.compress(code, compresslevel=9, mtime=0)).decode("ascii")
    key = hashlib.sha256(code).hexdigest()[:16]
    return LOADER.read_text(encoding="utf-8").replace('"__GRADWALK_BUNDLE__"', f'"{data}"', 1) \
        .replace('"__GRADWALK_KEY__"', f'"{key}"', 1)


# KaTeX's faces the widget's narration is set in (tex.js narrationTex: math italic letters,
# upright digits, signs, words and \tanh): tests/js/widget_fonts.test.mjs renders every line
# of the golden walks and finds no other. The other 18 faces (bold, calligraphic, the large
# delimiters' Size1-4...) were 0.29 MB of each widget's state, sent again for every instance.
# A character in no kept face falls back to the notebook's font, as any unknown one does.
FACES = ("KaTeX_Main-Regular", "KaTeX_Math-Italic")


def bundle_css() -> str:
    """static/dist/widget.css (the CSS the bundle's modules import: KaTeX's) with the FACES
    fonts as data: URLs, the standalone export's way (server/export_html.py
    bundle_stylesheet): a notebook has no server to fetch them from. About 80 kB. Raises
    MissingAsset when it or a font is not built."""
    from gradwalk.server.export_html import bundle_stylesheet   # jinja's templates: on use

    return bundle_stylesheet(BUNDLE_CSS, FACES)


# The widget's train traits -> TrainAsk's fields (server/widget_modes.py).
TRAIN_TRAITS = {"train_steps": "steps", "lr": "lr", "optimizer": "optimizer",
                "iteration": "iteration"}


def _ask(values: dict) -> TrainAsk:
    """Train mode's run from the widget's train traits (`values`: trait name -> value)."""
    return TrainAsk(**{ask: values[name] for name, ask in TRAIN_TRAITS.items()})


class MissingBundle(RuntimeError):
    """static/dist/widget.js is not built (`npm run build`; a wheel carries it)."""


class Walk(anywidget.AnyWidget):
    """One walk in a notebook: see the module docstring for its traits."""

    _esm = traitlets.Unicode().tag(sync=True)
    _style = traitlets.Unicode().tag(sync=True)
    _bundle_style = traitlets.Unicode().tag(sync=True)
    _trace = traitlets.Unicode("").tag(sync=True)
    program = traitlets.Unicode("").tag(sync=True)
    output = traitlets.Unicode("").tag(sync=True)
    mode = traitlets.Enum(MODES, default_value="reverse").tag(sync=True)
    theme = traitlets.Enum(THEMES, default_value="auto").tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)
    steps = traitlets.Int(0, read_only=True).tag(sync=True)
    error = traitlets.Unicode("", read_only=True).tag(sync=True)
    grads = traitlets.Dict(read_only=True)
    losses = traitlets.List(read_only=True)
    train_steps = traitlets.Int(TrainAsk.steps, min=1).tag(sync=True)
    lr = traitlets.Float(TrainAsk.lr).tag(sync=True)
    optimizer = traitlets.Enum(OPTIMIZERS, default_value=TrainAsk.optimizer).tag(sync=True)
    iteration = traitlets.Int(TrainAsk.iteration, min=0).tag(sync=True)

    def __init__(self, program: str, *, output: str | None = None, mode: str = "reverse",
                 step: int = 0, theme: str = "auto", settings: Settings | None = None,
                 **train) -> None:
        """train: train mode's train_steps, lr, optimizer, iteration (see the module
        docstring). Raises ProgramError (the program, a GRADWALK_ limit, hvp mode without a
        `# hvp:` line, a train setting out of range), TraitError (a mode, theme or optimizer not
        offered, a negative step, an unknown keyword), MissingBundle (no static/dist/widget.js),
        MissingAsset (static/dist/widget.css or a font of it not built)."""
        if not BUNDLE.is_file():
            raise MissingBundle(f"{BUNDLE} is not there: run `npm run build` (a wheel carries it)")
        unknown = set(train) - set(TRAIN_TRAITS)
        if unknown:
            raise traitlets.TraitError(f"show() takes no argument {sorted(unknown)[0]!r}")
        train = {**{name: getattr(TrainAsk, ask) for name, ask in TRAIN_TRAITS.items()}, **train}
        for name, value in (("mode", mode), ("theme", theme), ("step", step), *train.items()):
            self.class_traits()[name].validate(self, value)   # before a comm is opened
        _no_negative(step)
        self._settings = settings or get_settings()
        self._body = b""
        self._traced = None   # what was traced last; None: __init__ is tracing its own traits
        key = (program, output or "", mode, _ask(train))
        body = self._trace_of(*key)   # a bad program: raised here
        super().__init__(_esm=widget_esm(), _style=widget_css(), _bundle_style=bundle_css(),
                         program=program, output=output or "", mode=mode, theme=theme, **train)
        self._traced = key
        self._show(body, "")
        self.step = step

    def _trace_of(self, program: str, output: str, mode: str, ask: TrainAsk) -> bytes:
        return walk_body(program, output, mode, self._settings, ask)

    def _show(self, body: bytes, error: str) -> None:
        """The page gets `body` (a trace) and `error` (""); step stays where it was, within the
        walk. A reverse-mode trace that is an hvp walk (a `# hvp:` line) sets mode to "hvp"."""
        self._body = body
        self._walked = self._traced[:2]   # the program and output `body` is the walk of
        parsed = orjson.loads(body) if body else {}
        with self.hold_trait_notifications():
            self.set_trait("steps", len(parsed.get("events", [])))
            self.set_trait("grads", parsed.get("grads") or {})
            self.set_trait("losses", (parsed.get("train") or {}).get("losses", []))
            self.set_trait("error", error)
            self._trace = body.decode("utf-8")
            self.step = min(self.step, self.steps)
        if self.mode == "reverse" and "hvp" in parsed:
            program, output, _, ask = self._traced
            self._traced = (program, output, "hvp", ask)   # the same walk: not traced again
            self.mode = "hvp"

    @traitlets.observe("program", "output", "mode", *TRAIN_TRAITS)
    def _retrace(self, change) -> None:
        # From a cell or from the page: a refused program shows its message in the widget
        # (and in `error`) rather than raise inside the frontend's message handler.
        key = (self.program, self.output, self.mode, _ask({name: getattr(self, name) for name in TRAIN_TRAITS}))
        if self._traced is None or key == self._traced or \
                (change["name"] in TRAIN_TRAITS and self.mode != "train"):
            return   # __init__'s own traits, the walk shown, or a setting of another mode
        self._traced = key
        try:
            body = self._trace_of(*key)
        except ProgramError as e:   # the last good walk stays, faded in the page
            return self.set_trait("error", _error_text(e))
        self._show(body, "")

    @traitlets.validate("step")
    def _valid_step(self, proposal) -> int:
        step = _no_negative(proposal["value"])
        return min(step, self.steps) if self._traced is not None else step   # refused: 0

    # ------------------------------------------------------------ without the widget

    def standalone(self) -> str:
        """The standalone HTML export of the walk shown at its step (server/export_html.py):
        after a refusal, the last good walk's, with its own program. Raises MissingAsset when
        static/dist is not built."""
        from gradwalk.server.export_html import assemble, page_state

        program, output = self._walked
        state = {"step": self.step, "theme": self.theme}
        return assemble(self._body, page_state(program, output or None, state))

    def _repr_html_(self) -> str:
        """The walk as an `<iframe srcdoc>` of the standalone export (nbconvert, GitHub),
        after a refusal under its message (the walk: the last good one); a line instead when
        the trace is over the setting notebook_fallback_bytes."""
        limit = self._settings.notebook_fallback_bytes
        refused = (f'<pre class="gradwalk-error">{html.escape(self.error)} The walk below is '
                   f'the last good one.</pre>') if self.error else ""
        if len(self._body) > limit:
            return (f"{refused}<p>gradwalk: this walk's trace ({len(self._body):,} bytes) is "
                    f"over GRADWALK_NOTEBOOK_FALLBACK_BYTES ({limit:,}), so it is not saved in "
                    f"the notebook: run the notebook to step it.</p>")
        return (f'{refused}<iframe title="gradwalk: a walk through backpropagation" '
                f'sandbox="allow-scripts" style="width: 100%; height: 560px; border: 0" '
                f'srcdoc="{html.escape(self.standalone())}"></iframe>')

    def _repr_mimebundle_(self, **kwargs):
        """The widget's view, with text/html as the fallback where no widget is rendered."""
        data = super()._repr_mimebundle_(**kwargs)
        bundle, meta = data if isinstance(data, tuple) else (data, None)
        bundle = {**(bundle or {}), "text/html": self._repr_html_()}
        return (bundle, meta) if meta is not None else bundle


def _no_negative(step: int) -> int:
    """`step`, or TraitError when it is below 0 (past the end is the last step instead)."""
    if step < 0:
        raise traitlets.TraitError(f"step must be 0 or more, not {step}")
    return step


def _error_text(e: ProgramError) -> str:
    """The refusal as the page says it: where (line, and column counted from 1), what, and
    the hint."""
    where = "" if e.line is None else \
        f" (line {e.line})" if e.col is None else f" (line {e.line}, column {e.col + 1})"
    said = f"{kind_words(e.kind)}: {e.message}"   # the one form (engine/errors.py)
    if not e.hint:
        return f"Not traced{where}: {said}"
    stop = "" if e.message.endswith((".", "?", "!", ":")) else "."   # the hint, a sentence of its own
    return f"Not traced{where}: {said}{stop} {e.hint[:1].upper()}{e.hint[1:]}"


def show(program: str, **options) -> Walk:
    """The widget for `program` (options: output, mode, step, theme; see Walk). Raises
    ProgramError, TraitError or MissingBundle."""
    return Walk(program, **options)
