"""The embed (GET /embed, /embed/s/{id}) in a real browser: it opens at the step its options
ask for, steps with presenter keys and with postMessage from the page that frames it, posts
its state back, loads its trace in one request, and may be framed by any site while every
other page may be framed only by gradwalk itself."""
from __future__ import annotations

import http.server
import json
import threading

import httpx2 as httpx
import pytest
from live_server import free_port
from test_links import fragment, numbers

TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
A_TOTAL = 0.7864477329659274  # a-bar at the end: two contributions, 1.5729 - 0.7864
STEPS = 16  # events of TANH: 7 evaluate, seed, 7 accumulate, done


@pytest.fixture
def context(chromium):
    context = chromium.new_context(viewport={"width": 1000, "height": 600})
    yield context
    context.close()


@pytest.fixture
def deck_server():
    """serve(html) -> the URL of a page holding `html`, from a server of its own on another
    port: another origin, as a slide deck is. (Chromium's local-network checks refuse to let
    a page that came from nowhere, such as a Playwright route, frame a loopback server.)"""
    pages = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?")[0]
            body, kind = pages.get(path, ("", "text/plain"))
            body = body.encode() if isinstance(body, str) else body
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def serve(html: str, files: dict[str, tuple[bytes, str]] | None = None) -> str:
        """`files`: more paths to serve, path -> (body, content type)."""
        pages["/deck.html"] = (html, "text/html")
        pages.update(files or {})
        return f"http://127.0.0.1:{server.server_port}/deck.html"

    yield serve
    server.shutdown()
    server.server_close()


def deck_html(embed: str, kind: str, into: str, height: int = 560) -> str:
    """A page framing the embed at `embed` that collects its messages of type `kind` into
    `window[into]`, and sends it messages with `send(msg)`."""
    return f"""<!doctype html><title>deck</title>
      <iframe id="walk" src="{embed}" width="1000" height="{height}" title="walk"></iframe>
      <script>
        window.{into} = [];
        addEventListener("message", (e) => {{
          if (e.data && e.data.type === "{kind}") window.{into}.push(e.data);
        }});
        window.send = (msg) => document.getElementById("walk").contentWindow.postMessage(msg, "*");
      </script>"""


def open_embed(context, url: str):
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests = []
    page.on("request", lambda r: "/api/" in r.url and requests.append(f"{r.method} {r.url.split('/api/')[1]}"))
    page.goto(url)
    page.wait_for_function("() => ['ready', 'error'].includes(document.querySelector('#embed').dataset.status)")
    return page, errors, requests


def wait_embed_step(page, step: int) -> None:
    page.wait_for_selector(f'#embed[data-step="{step}"]')


def test_an_embed_at_step_k_shows_step_k_with_one_request(context, app_url):
    page, errors, requests = open_embed(context, f"{app_url}/embed?step=5#{fragment({'v': 1, 'program': TANH})}")
    wait_embed_step(page, 5)
    assert page.locator("#player").get_attribute("data-step") == "5"
    assert page.locator("#narration").inner_text() == "d = e + a = 0.5"
    assert page.locator('g.node[data-name="d"]').get_attribute("data-value") == "0.5"
    assert page.locator('g.node[data-name="t"]').get_attribute("data-value") is None
    assert requests == ["POST trace"]  # one request, no stream held open
    # "Open in gradwalk" opens the same walk at the same step in the explorer.
    href = page.locator("#open-full").get_attribute("href")
    assert href.startswith(f"{app_url}/#s=")
    explorer = context.new_page()
    explorer.goto(href)
    explorer.wait_for_selector('#player[data-step="5"]')
    # The explorer draws once its layout worker answers, which can come after the player's step.
    explorer.wait_for_selector('#app[data-layout="done"] g.node[data-name="d"][data-value]')
    assert numbers(explorer)["d"] == numbers(page)["d"]
    assert errors == []


def test_a_step_past_the_end_shows_the_last_and_options_apply(context, app_url):
    state = {"v": 1, "program": TANH, "step": 3, "theme": "dark"}
    page, errors, _ = open_embed(
        context, f"{app_url}/embed?step=999&theme=projector&font=1.5&controls=0&narration=0&program=1#{fragment(state)}")
    wait_embed_step(page, STEPS)
    assert float(page.locator('g.node[data-name="a"]').get_attribute("data-adjoint")) == pytest.approx(A_TOTAL, abs=1e-12)
    assert page.locator("#embed").get_attribute("data-phase") == "done"
    assert page.evaluate("document.documentElement.dataset.theme") == "projector"  # the query wins
    assert page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--font-scale')") == "1.5"
    assert page.locator("#player").is_hidden()
    assert page.locator("#narration").is_hidden()
    assert page.locator("#embed-program").inner_text() == TANH
    assert errors == []


def test_presenter_keys_step_the_embed(context, app_url):
    page, errors, _ = open_embed(context, f"{app_url}/embed?step=2#{fragment({'v': 1, 'program': TANH})}")
    wait_embed_step(page, 2)
    page.locator("#graph").click(position={"x": 5, "y": 5})  # the embed has the focus, as after a click
    for key, step in [("PageDown", 3), ("PageDown", 4), ("PageUp", 3), ("ArrowRight", 4),
                      ("ArrowLeft", 3), ("Space", 4), ("Shift+Space", 3), ("End", STEPS), ("Home", 0)]:
        page.keyboard.press(key)
        wait_embed_step(page, step)
    assert errors == []


def test_post_message_drives_the_embed_and_it_posts_its_state_back(context, app_url, deck_server):
    deck = deck_html(f"{app_url}/embed?step=2#{fragment({'v': 1, 'program': TANH})}", "gradwalk:state", "states")
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(deck_server(deck))  # a parent on another origin, as a slide deck is

    def last_state_is(step: int, phase: str | None = None) -> dict:
        page.wait_for_function("([s, p]) => { const x = window.states.at(-1);"
                               " return x && x.step === s && (!p || x.phase === p); }", arg=[step, phase])
        return page.evaluate("window.states.at(-1)")

    assert last_state_is(2, "forward") == {"type": "gradwalk:state", "step": 2, "steps": STEPS,
                                           "phase": "forward", "playing": False}
    page.evaluate("send({type: 'gradwalk:step', delta: 1})")
    last_state_is(3, "forward")
    page.evaluate("send({type: 'gradwalk:step', delta: -1})")
    last_state_is(2)
    page.evaluate("send({type: 'gradwalk:goto', step: 9})")
    assert last_state_is(9)["phase"] == "backward"
    page.evaluate("send({type: 'gradwalk:goto', step: 1000})")
    last_state_is(STEPS, "done")
    frame = page.frame_locator("#walk")
    assert frame.locator("#embed").get_attribute("data-step") == str(STEPS)
    assert float(frame.locator('g.node[data-name="a"]').get_attribute("data-adjoint")) == pytest.approx(A_TOTAL, abs=1e-12)
    page.evaluate("send({type: 'gradwalk:goto', step: 0})")
    last_state_is(0, "start")
    page.evaluate("send({type: 'gradwalk:play'})")
    page.wait_for_function("() => window.states.some((s) => s.playing && s.step >= 1)")
    page.evaluate("send({type: 'gradwalk:pause'})")
    page.wait_for_function("() => window.states.at(-1).playing === false")
    # Junk is ignored, not thrown on.
    page.evaluate("send('gradwalk:step'); send({type: 'gradwalk:goto', step: 'x'}); send(null);"
                  " send({type: 'gradwalk:ping'})")
    page.wait_for_function("() => window.states.length >= 2 && window.states.at(-1).playing === false")


def test_a_bad_embed_link_shows_a_message(context, app_url):
    page, errors, requests = open_embed(context, f"{app_url}/embed#s=broken!")
    assert page.locator("#embed").get_attribute("data-status") == "error"
    assert "damaged" in page.locator("#graph-message").inner_text()
    assert requests == []
    page, errors, _ = open_embed(context, f"{app_url}/embed")
    assert "No walk to show" in page.locator("#graph-message").inner_text()
    page, errors, _ = open_embed(context, f"{app_url}/embed/s/NoSuchLinkHere123")
    assert "could not be opened" in page.locator("#graph-message").inner_text()
    assert errors == []


def test_embeds_may_be_framed_anywhere_and_other_pages_only_by_gradwalk(app_url):
    link = httpx.post(f"{app_url}/api/links", json={"state": {"v": 1, "program": TANH, "step": 4}}).json()
    for path in ["/embed", f"/embed/s/{link['id']}", "/embed/s/NoSuchLinkHere123"]:
        csp = httpx.get(f"{app_url}{path}").headers["content-security-policy"]
        assert "frame-ancestors *" in csp, path
    for path in ["/", link["url"], "/s/NoSuchLinkHere123", "/healthz", "/embedded", "/static/css/app.css"]:
        csp = httpx.get(f"{app_url}{path}").headers["content-security-policy"]
        assert "frame-ancestors 'self'" in csp and "frame-ancestors *" not in csp, path


def test_a_short_embed_link_opens_its_state(context, app_url):
    link = httpx.post(f"{app_url}/api/links", json={"state": {"v": 1, "program": TANH, "step": 4}}).json()
    page, errors, requests = open_embed(context, f"{app_url}/embed/s/{link['id']}")
    wait_embed_step(page, 4)
    assert requests == ["POST trace"]
    assert json.loads(page.locator("#initial-state").text_content())["step"] == 4
    assert errors == []


SIGMOID_NET = ("x = 2.0\ny = const(1.0)\nw1 = 0.5\nb1 = 0.1\nw2 = 0.8\nb2 = 0.2\nz1 = w1 * x + b1\n"
               "h1 = sigmoid(z1)\nz2 = w2 * h1 + b2\ny_hat = sigmoid(z2)\nL = (y_hat - y) ** 2\n")  # seed-sigmoid-net


def test_a_projector_slide_embed_shows_the_phase_whole_and_a_margin_at_the_right(context, app_url):
    """docs/slides.md's 1000x600 slide embed, mid-walk in the projector theme: the phase pill read
    "forward …" and "Open in gradwalk ↗" touched the frame's right edge (a review)."""
    page, errors, _ = open_embed(context, f"{app_url}/embed?step=14&theme=projector#{fragment({'v': 1, 'program': SIGMOID_NET})}")
    wait_embed_step(page, 14)
    got = page.evaluate("""() => {
        const r = (s) => document.querySelector(s).getBoundingClientRect();
        const phase = document.querySelector('#embed .phase');
        return { whole: phase.scrollWidth <= phase.clientWidth, text: phase.textContent,
                 phaseRight: r('#embed .phase').right, barRight: r('.embed-bar').right,
                 linkRight: r('.open-full').right, width: document.documentElement.clientWidth,
                 scrubber: r('#embed .scrubber').width };
    }""")
    page.screenshot(path="/tmp/lw/embed-sigmoid-projector-1000.png")
    assert got["whole"], got
    assert got["text"].startswith("forward"), got
    assert got["phaseRight"] <= got["barRight"] + 0.5, got
    assert got["linkRight"] <= got["width"] - 16, got  # a margin at the right (it was 8.4 px)
    assert got["scrubber"] >= 60, got  # it gave way, still a bar to drag
    assert errors == []
