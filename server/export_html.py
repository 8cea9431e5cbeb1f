"""The standalone HTML export: the embed page as one file that steps a walk with no server.

docs/contract (issue 5): embed.html's markup + its stylesheets inlined (the bundle's KaTeX
stylesheet too, its fonts as data: URLs: the narration is typeset as on the page, issue 18 §3)
+ static/dist/embed.js inlined +
`<script type="application/json" id="initial-state">` + `id="initial-trace"` (the body of
POST /api/trace). With the trace in the page the embed makes no request at all, so the file
works from file:// with networking off (a lecture hall, an LMS upload).
"""
from __future__ import annotations

import base64
import hashlib
import json
import re

from jinja2 import TemplateNotFound

from gradwalk.server.routers.pages import ROOT, templates
from gradwalk.server.settings import Settings
from gradwalk.server.tracing import trace_body

STATE_VERSION = 1


class MissingAsset(RuntimeError):
    """A file the embed page links is not there (static/dist is built by `npm run build`)."""


# ---------------------------------------------------------------- safe inlining

def _json_script(element_id: str, value) -> str:
    """A JSON data block. `<` is written as \\u003c, so no text in it can end the element
    (`</script>`) or open a comment; JSON.parse reads it back unchanged."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _raw_json_script(element_id: str, body: bytes) -> str:
    """As _json_script for a body that is JSON already (the trace, possibly megabytes)."""
    text = body.decode("utf-8").replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _script_text(js: str) -> str:
    """Bundle text made safe inside <script>: `</script` and `<!--` cannot end or confuse the
    element. `<\\/` means `</` in a JS string, template or regex alike."""
    js = re.sub(r"</(script)", r"<\\/\1", js, flags=re.IGNORECASE)
    js = js.replace("<!--", "<\\!--")
    # The source map is not in the file; a dangling comment would make devtools fetch it.
    return re.sub(r"\n//# sourceMappingURL=\S+\s*$", "\n", js)


def _asset_bytes(url: str) -> bytes:
    """The bytes of a /static/... file, or MissingAsset."""
    path = (ROOT / url.lstrip("/")).resolve()
    if not url.startswith("/static/") or ROOT / "static" not in path.parents or not path.is_file():
        raise MissingAsset(f"{url} is not there (run `npm run build` for static/dist)")
    return path.read_bytes()


def _asset(url: str) -> str:
    """The text of a /static/... file, or MissingAsset."""
    return _asset_bytes(url).decode("utf-8")


# One source of an @font-face's `src:` list: `url(X) format("woff2")`. esbuild's file loader
# writes KaTeX's fonts beside the bundle's stylesheet (static/dist/) and its url()s relative to
# it; KaTeX lists woff2, woff and ttf for each face.
_FONT_SRC = re.compile(r'url\(([^)]+?)\)\s*format\("(woff2|woff|truetype)"\)')


def _fonts_inlined(css: str, base: str) -> str:
    """The bundle's stylesheet (at the URL folder `base`) without its source-map comment, each
    font face's woff2 file as a data: URL and its woff and ttf fallbacks dropped: every browser that runs the bundle
    (ES2020) reads woff2, and the file holds each font once (KaTeX's 20 woff2 fonts, about
    0.35 MB as base64). Raises MissingAsset for a font file that is not there."""

    def face(m: re.Match) -> str:
        if m.group(2) != "woff2":
            return ""
        name = m.group(1).strip("\"'").removeprefix("./")
        data = base64.b64encode(_asset_bytes(base + name)).decode()
        return f'url(data:font/woff2;base64,{data}) format("woff2")'

    css = _FONT_SRC.sub(face, css)
    css = re.sub(r",\s*(?=[;}])", "", re.sub(r"(?<=[:,])\s*,+", "", css))
    # the source map is not in the file; a dangling comment would make devtools fetch it
    return re.sub(r"/\*# sourceMappingURL=\S+ \*/\s*$", "", css)


def bundle_stylesheet(href: str, faces: tuple[str, ...] | None = None) -> str:
    """The bundle's stylesheet at `href` (/static/dist/NAME.css: KaTeX's rules) with its fonts
    as data: URLs (_fonts_inlined), for a page with nothing to fetch: this export's, the
    notebook widget's (server/widget.py). `faces`: the font files kept by name ("KaTeX_Main-
    Regular"), every other @font-face dropped (None: all). Raises MissingAsset when it or a
    font is not there."""
    css = _asset(href)
    if faces is not None:
        css = _FONT_FACE.sub(lambda m: m.group(0) if m.group(1) in faces else "", css)
    return _fonts_inlined(css, href.rsplit("/", 1)[0] + "/")


# One @font-face rule of esbuild's output, with its woff2 file's face name (KaTeX_Main-Regular).
_FONT_FACE = re.compile(r'@font-face\s*\{[^}]*?url\("?\./([A-Za-z0-9_]+-[A-Za-z]+)-[A-Z0-9]+\.woff2"?\)[^}]*\}\s*')


def _attr(tag: str, name: str) -> str | None:
    m = re.search(rf'\b{name}\s*=\s*"([^"]*)"', tag)
    return m.group(1) if m else None


# ---------------------------------------------------------------- the page

def _inline_assets(html: str) -> str:
    """Stylesheets become <style>, scripts with a src become inline scripts of the same type,
    the icon a data: URL. Anything else pointing at the server would fail from file://."""

    def link(m: re.Match) -> str:
        tag, href = m.group(0), _attr(m.group(0), "href") or ""
        rel = _attr(tag, "rel") or ""
        if rel == "stylesheet":   # a CSS string may hold "</style"; \/ is / in CSS too
            bundle = href.startswith("/static/dist/")
            # KaTeX's rules, its fonts beside it: narration_line.js finds it by data-bundle
            css = bundle_stylesheet(href) if bundle else _asset(href)
            css = re.sub(r"</(style)", r"<\\/\1", css, flags=re.IGNORECASE)
            return f"<style{' data-bundle' if bundle else ''}>\n{css}</style>"
        if "icon" in rel and href.startswith("/static/"):
            data = base64.b64encode(_asset(href).encode()).decode()
            return f'<link rel="icon" type="image/svg+xml" href="data:image/svg+xml;base64,{data}">'
        return tag

    def script(m: re.Match) -> str:
        kind = _attr(m.group(1), "type")
        type_attr = f' type="{kind}"' if kind else ""
        return f"<script{type_attr}>\n{_script_text(_asset(_attr(m.group(1), 'src')))}</script>"

    html = re.sub(r"<link\b[^>]*>", link, html)
    return re.sub(r"<script\b([^>]*\bsrc=\"/static/[^\"]*\"[^>]*)>\s*</script>", script, html)


def _replace_data(html: str, element_id: str, block: str) -> str:
    """Put `block` in place of the page's own <script id=element_id> (if the template wrote
    one), else just before </body>."""
    pattern = re.compile(rf'<script\b[^>]*\bid="{element_id}"[^>]*>.*?</script>', re.DOTALL)
    if pattern.search(html):
        return pattern.sub(lambda _: block, html, count=1)
    at = html.lower().rfind("</body>")
    return html[:at] + block + "\n" + html[at:] if at >= 0 else html + block


# The contract's view fields a page may hand over; anything else in `state` is dropped.
VIEW_FIELDS = {"preset": str, "step": int, "speed": (int, float), "theme": str,
               "font": (int, float), "hide_program": bool}


def page_state(program: str, output: str | None, state: dict | None = None) -> dict:
    """The page state object of the contract (v, program, output, step, ...): the view fields
    of `state` with the right types, program and output always the traced ones."""
    view = {k: v for k, v in (state or {}).items()
            if k in VIEW_FIELDS and isinstance(v, VIEW_FIELDS[k])
            and (k == "hide_program" or not isinstance(v, bool))}
    return {"v": STATE_VERSION, **view, "program": program, "output": output or ""}


# ---------------------------------------------------------------- its Content-Security-Policy

# The served page's policy (server/main.py CSP) made for a file that fetches nothing: scripts
# only the ones it carries, by hash (an injected script cannot run); style elements likewise
# (the page's admits only its nonce's: no style attribute in markup either); images and fonts
# (KaTeX's) only data: URLs; no connections, plugins, <base> or form posts. 'self' is left out:
# from file:// it would admit other local files. frame-ancestors cannot be set by <meta>.
EXPORT_CSP = ("default-src 'none'; script-src {scripts}; style-src {styles}; "
              "img-src data:; font-src data:; connect-src 'none'; object-src 'none'; "
              "base-uri 'none'; "
              "form-action 'none'")
# Executable inline scripts: no src, and no type or a JavaScript one (JSON blocks never run).
_SCRIPT = re.compile(r'<script(?![^>]*\bsrc=)(?![^>]*\btype="(?!module"|text/javascript")'
                     r'[^"]*")[^>]*>(.*?)</script>', re.DOTALL | re.IGNORECASE)


_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.DOTALL | re.IGNORECASE)


def _hashes(pattern: re.Pattern, html: str) -> str:
    """The hash-sources of the elements `pattern` finds in `html` (CSP Level 3: base64 of the
    SHA-256 of the element's text, UTF-8), or 'none'."""
    hashes = sorted({"'sha256-" + base64.b64encode(hashlib.sha256(m.group(1).encode())
                                                 .digest()).decode() + "'"
                     for m in pattern.finditer(html)})
    return " ".join(hashes) or "'none'"


def content_security_policy(html: str) -> str:
    """The export's policy: EXPORT_CSP with the sha256 of each inline script and each style
    element of `html`."""
    return EXPORT_CSP.format(scripts=_hashes(_SCRIPT, html), styles=_hashes(_STYLE, html))


def _with_csp(html: str) -> str:
    """html with its policy as the first element of <head>, before anything it governs."""
    meta = (f'<meta http-equiv="Content-Security-Policy" '
            f'content="{content_security_policy(html)}">')
    return re.sub(r"<head>", lambda _: "<head>\n  " + meta, html, count=1)


def assemble(body: bytes, state: dict) -> str:
    """The standalone page for a trace `body` (JSON bytes of POST /api/trace) and the page
    `state`. Raises MissingAsset when static/dist is not built."""
    try:
        page = templates.env.get_template("embed.html")
    except TemplateNotFound as e:
        raise MissingAsset(f"templates/{e.name} is not there") from e
    html = page.render(
        standalone=True, initial_state=None, initial_error=None, links_enabled=False,
        embed_options={}, request=None)
    # The data first: once the bundle is inlined, its text could look like a data block.
    html = _replace_data(html, "initial-state", _json_script("initial-state", state))
    html = _replace_data(html, "initial-trace", _raw_json_script("initial-trace", body))
    html = _with_csp(_inline_assets(html))
    return html if html.endswith("\n") else html + "\n"


def standalone_html(program: str, output: str | None, settings: Settings,
                    state: dict | None = None) -> str:
    """One HTML file that steps `program` like the embed, with nothing to fetch.

    Raises ProgramError (the program) or MissingAsset (no build). Holds no trace slot: the
    CLI runs alone, and the HTTP route (routers/exports.py) takes one around it.
    """
    body = trace_body(program, output, settings)
    return assemble(body, page_state(program, output, state))
