"""The standalone HTML export opened from file:// in headless Chromium with the network off:
it steps like the embed, to the engine's adjoints, and asks for nothing."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from live_server import REPO
from page_helpers import adjoint, total_steps, wait_step

FANOUT = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
EMBED_BUNDLE = REPO / "static" / "dist" / "embed.js"


@pytest.fixture(scope="module")
def engine_body() -> dict:
    from gradwalk.engine.trace.runner import Limits, trace_json
    return json.loads(trace_json(FANOUT, None, Limits()))


@pytest.fixture
def offline(chromium):
    """open(path) -> (page, requests): a fresh context with networking off and every
    http(s) request aborted and recorded."""
    contexts = []

    def open_file(path):
        if not EMBED_BUNDLE.exists():
            pytest.fail("static/dist/embed.js is missing: run `npm run build`")
        context = chromium.new_context(viewport={"width": 1280, "height": 720})
        contexts.append(context)
        context.set_offline(True)
        # Every Content-Security-Policy violation, from before the file's first script.
        context.add_init_script("window.cspViolations = []; document.addEventListener("
                                "'securitypolicyviolation', (e) => window.cspViolations.push("
                                "`${e.effectiveDirective} ${e.blockedURI}`));")
        requests = []

        def block(route):
            requests.append(route.request.url)
            route.abort()

        context.route("http://**/*", block)
        context.route("https://**/*", block)   # recorded twice (route and request): still not []
        page = context.new_page()
        page.set_default_timeout(15_000)
        # Anything but the file itself (a stylesheet, a script, an icon) would be a request.
        page.on("request", lambda r: r.url != path.as_uri() and requests.append(r.url))
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_selector('#embed[data-status="ready"]')
        return page, requests, errors

    yield open_file
    for context in contexts:
        context.close()


def cli_export(tmp_path, program: str) -> "pathlib.Path":  # noqa: F821
    out = tmp_path / "walk.html"
    r = subprocess.run([sys.executable, "-m", "gradwalk.server.cli", "export", "-", "--format", "html",
                        "-o", str(out)], input=program, capture_output=True, text=True,
                       cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    return out


def test_cli_export_steps_offline_to_the_engines_adjoints(offline, tmp_path, engine_body):
    page, requests, errors = offline(cli_export(tmp_path, FANOUT))
    assert total_steps(page) == len(engine_body["events"]) == 16
    page.locator("#embed").focus()
    # Step k shows events[:k]: event 12 sends a its first contribution (1.5729), event 13
    # its second (-0.7864), so a's adjoint is 0.7864 from step 14 on.
    for _ in range(14):
        page.keyboard.press("PageDown")
    wait_step(page, 14)
    assert adjoint(page, "a") == pytest.approx(0.7864477329659274, abs=1e-12)
    page.keyboard.press("PageUp")
    wait_step(page, 13)
    assert adjoint(page, "a") == pytest.approx(1.5728954659318548, abs=1e-12)
    page.keyboard.press("End")
    wait_step(page, 16)
    for name, grad in engine_body["grads"].items():
        assert adjoint(page, name) == pytest.approx(grad, abs=1e-12)
    assert page.locator('#embed[data-phase="done"]').count() == 1
    assert requests == [] and errors == []


def test_opens_at_the_step_of_its_state(offline, tmp_path):
    from gradwalk.server.export_html import standalone_html
    from gradwalk.server.settings import Settings

    path = tmp_path / "at14.html"
    path.write_text(standalone_html(FANOUT, None, Settings(), {"step": 14, "theme": "projector"}),
                    encoding="utf-8")
    page, requests, errors = offline(path)
    wait_step(page, 14)
    assert adjoint(page, "a") == pytest.approx(0.7864477329659274, abs=1e-12)
    assert page.evaluate("document.documentElement.dataset.theme") == "projector"
    assert requests == [] and errors == []


def test_a_program_that_would_end_a_script_element(offline, tmp_path):
    # "</script>" cannot appear in a program (no strings in the language) but a comment can
    # hold it; the inlined JSON must not end its element early.
    program = "# </script><script>alert(1)</script> <!--\nx = 2.0\nL = x * x\n"
    page, requests, errors = offline(cli_export(tmp_path, program))
    page.locator("#embed").focus()
    page.keyboard.press("End")
    wait_step(page, total_steps(page))
    assert adjoint(page, "x") == pytest.approx(4.0)
    assert requests == [] and errors == []


def test_steps_under_its_own_content_security_policy(offline, tmp_path, engine_body):
    # Issue 14: the export carried no policy. It now has one as strict as the served page's
    # (server/export_html.py EXPORT_CSP), and the file still steps with no violation at all.
    path = cli_export(tmp_path, FANOUT)
    page, requests, errors = offline(path)
    policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert policy.startswith("default-src 'none'; script-src 'sha256-")
    page.locator("#embed").focus()
    page.keyboard.press("End")
    wait_step(page, 16)
    for name, grad in engine_body["grads"].items():
        assert adjoint(page, name) == pytest.approx(grad, abs=1e-12)
    page.keyboard.press("Home")
    wait_step(page, 0)
    assert page.evaluate("window.cspViolations") == []
    assert requests == [] and errors == []
    # The policy is in force: a script the file does not carry is refused, and said.
    ran = page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.injected = true'; document.body.append(s);
        return window.injected === true; }""")
    assert ran is False
    page.wait_for_function("window.cspViolations.length === 1")
    assert page.evaluate("window.cspViolations") == ["script-src-elem inline"]


# The KaTeX faces a typeset narration loaded, as "family:status" (FontFace.status).
FACES = """async () => { await document.fonts.ready;
  return [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family)
    .filter((f) => f.startsWith('KaTeX')).sort(); }"""


@pytest.mark.parametrize("theme, size", [("light", (1280, 800)), ("projector", (1024, 768))])
def test_the_exported_narration_is_typeset_offline(offline, tmp_path, theme, size):
    """Issue 18 §3: the export's narration was plain text while the page typesets it; it is set
    by KaTeX from the file alone (its stylesheet inlined, its fonts data: URLs), under the
    file's own policy, with the plain narration kept as the line's text."""
    from gradwalk.server.export_html import assemble, page_state
    from gradwalk.server.settings import Settings
    from gradwalk.server.tracing import trace_body

    path = tmp_path / "walk.html"
    body = trace_body(FANOUT, None, Settings())
    path.write_text(assemble(body, page_state(FANOUT, None, {"step": 11, "theme": theme})),
                    encoding="utf-8")
    page, requests, errors = offline(path)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    wait_step(page, 11)
    line = page.locator("#narration")
    page.wait_for_selector('#narration[data-typeset="true"]')
    assert line.locator(".narration-plain").text_content() == "t = tanh(d), so d̄ += (1 - t²) · t̄ = 0.7864 · 2 = 1.5729"
    shown = line.locator(".narration-tex")
    assert shown.locator(".katex .katex-html").count() == 1
    assert shown.locator(".katex-accent .accent-body").count() >= 1   # the bars of d̄, t̄
    assert {"KaTeX_Main", "KaTeX_Math"} <= set(page.evaluate(FACES))
    assert page.evaluate("window.cspViolations") == []
    assert requests == [] and errors == []
    page.screenshot(path=str(tmp_path / f"export-typeset-{theme}.png"))
