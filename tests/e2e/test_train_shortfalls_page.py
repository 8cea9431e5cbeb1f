"""Issue 15 §3, the shortfalls a newcomer's review found in Train mode: the graph keeps a usable
area at 1024x768 (1); the spirals' step-0 overview reads (2); a regression loss over 2-D inputs
(XOR with tanh units, mse) shows the output's boundary and its outputs heading to (-1, 1, 1,
-1) (3); the spirals' 3,000 steps play within a few seconds of the server's time, drawing at
most once a frame (4); a diverging run says so at its iteration and stops (5); the embed of a
train link shows the loss curve and the boundary (6); the quiz's setup is not in Train mode
(7). Every wait is on a data-* attribute the page sets."""
from __future__ import annotations

import json
import time

from page_helpers import choose, trace

SEED_003 = "train-xor-seed1"


def preset_program(page, preset: str) -> str:
    return page.evaluate("p => JSON.parse(document.querySelector('#presets').textContent)"
                         ".find(x => x.id === p).program", preset)


# ---------------------------------------------------------------- 7: no quiz setup in Train mode

def test_the_quiz_setup_is_not_shown_in_train_mode(explorer):
    page = explorer.page
    assert page.locator(".quiz-setup").is_visible()
    choose(page, SEED_003)
    page.wait_for_selector(".quiz-setup", state="hidden")
    page.select_option("#mode", "reverse")
    page.wait_for_selector(".quiz-setup", state="visible")


# ---------------------------------------------------------------- 5: a diverging run

def test_a_diverging_run_says_so_at_its_iteration_and_stops(explorer):
    page = explorer.page
    choose(page, SEED_003)
    trace(page, "w = [1.0, -2.0]\nL = sum(w * w)\n")   # lr 1000: the loss is inf at 47
    page.fill("#train-lr", "1000")
    page.locator("#train-lr").dispatch_event("change")
    page.fill("#train-steps", "100")
    page.locator("#train-steps").dispatch_event("change")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="diverged"]')
    status = page.locator("#train-status")
    assert status.inner_text().startswith("Diverged at iteration 47: the loss is Infinity")
    assert status.get_attribute("data-iteration") == "47"
    assert page.locator("#loss-curve").get_attribute("data-points") == "48"   # stopped there
    assert page.locator("#loss-curve").get_attribute("data-note") == "47"
    assert page.locator("#loss-curve .loss-note text").text_content() == "diverged at 47"
    assert page.locator("#loss-curve .loss-note").is_visible()
    page.wait_for_timeout(300)   # nothing moves on after the stop
    assert page.locator("#loss-curve").get_attribute("data-points") == "48"
    assert not explorer.unexpected_errors()


# ---------------------------------------------------------------- 4: the spirals keep up

def test_the_spirals_play_within_a_few_seconds_of_the_server_drawing_once_a_frame(explorer):
    page = explorer.page
    choose(page, "train-spirals")
    body = {"program": preset_program(page, "train-spirals"), "steps": 3000, "lr": 1.0}
    # the server's time for the same run (the JSON answer), the median of two
    times = []
    for _ in range(2):
        t = time.monotonic()
        answer = page.request.post(page.url.split("#")[0] + "api/train", data=json.dumps(body),
                                   headers={"Content-Type": "application/json"}, timeout=120_000)
        times.append(time.monotonic() - t)
        assert answer.ok
    server = min(times)
    # each change of the curve's path, against the frames the page drew; when the stream
    # closed (the server's last event in) and when the page was done
    page.evaluate("""() => {
        window.frames_ = 0; window.paths = 0; window.at = {};
        const train = document.querySelector('#train');
        new MutationObserver(() => {
            const key = train.dataset.status === 'done' ? 'done' : train.dataset.stream;
            window.at[key] ??= performance.now();
        }).observe(train, { attributes: true, attributeFilter: ['data-status', 'data-stream'] });
        const count = () => { window.frames_ += 1; requestAnimationFrame(count); };
        requestAnimationFrame(count);
        new MutationObserver((ms) => { window.paths += ms.filter(m => m.target.matches('path.loss-line')).length; })
            .observe(document.querySelector('#loss-curve'), { attributes: true, subtree: true, attributeFilter: ['d'] });
    }""")
    t = time.monotonic()
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    played = time.monotonic() - t
    at = page.evaluate("window.at")
    lag = (at["done"] - at["closed"]) / 1000
    # The page keeps up with the stream: before the fix it finished 14-20 s after it. A loose
    # bound (the speed itself is a benchmark's; CI's machine is shared): 2.85 s was seen in CI.
    assert lag <= 8.0, (lag, played, server)
    assert played <= server + 8, (played, server)   # a loose bound: the machine is shared
    frames, paths = page.evaluate("[window.frames_, window.paths]")
    assert paths <= frames + 1, (paths, frames)   # at most once a frame
    line = page.locator("#loss-curve path.loss-line.run")
    assert page.locator("#loss-curve").get_attribute("data-points") == "3000"
    assert int(line.get_attribute("data-vertices")) <= 2 * 320   # thinned to the plot's width
    assert not explorer.unexpected_errors()


# ---------------------------------------------------------------- 3: a regression's boundary

def test_xor_with_tanh_units_shows_the_outputs_boundary_and_its_outputs(explorer):
    page = explorer.page
    choose(page, "train-xor-tanh")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=60_000)
    boundary = page.locator("#boundary")
    assert boundary.is_visible()
    assert boundary.get_attribute("data-drawn") == "true"
    assert boundary.get_attribute("data-iteration") == "499"
    assert boundary.get_attribute("data-agree") == "4"   # each point on its target's sign
    outputs = json.loads(page.locator("#train-outputs").get_attribute("data-outputs"))
    assert len(outputs) == 4
    for got, want in zip(outputs, (-1, 1, 1, -1)):
        assert got * want > 0.9, outputs   # heading toward (-1, 1, 1, -1)
    text = page.locator("#train-outputs").inner_text()
    assert "→ targets (-1, 1, 1, -1)" in text, text
    assert not explorer.unexpected_errors()


# ---------------------------------------------------------------- 6: the embed's curve and boundary

def test_the_embed_of_a_train_link_shows_the_curve_and_the_boundary(explorer, chromium):
    page = explorer.page
    choose(page, SEED_003)
    page.locator("#train-iteration").fill("100")
    page.click("#train-open")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    url = page.evaluate("location.href")
    context = chromium.new_context(viewport={"width": 1000, "height": 600})
    try:
        embed = context.new_page()
        embed.goto(url.replace("/#", "/embed#"))
        embed.wait_for_selector('#embed[data-status="ready"][data-iteration="100"]')
        curve = embed.locator("#loss-curve")
        assert curve.is_visible()
        assert curve.get_attribute("data-points") == "101"   # the run up to iteration 100
        boundary = embed.locator("#boundary")
        assert boundary.is_visible()
        assert boundary.get_attribute("data-iteration") == "100"
        assert boundary.get_attribute("data-agree") == "4"
        # the graph keeps most of the frame
        graph = embed.locator("#graph").bounding_box()
        assert graph["height"] >= 250, graph
    finally:
        context.close()


# ---------------------------------------------------------------- 1: the graph's area at 1024x768

def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def test_at_1024x768_the_graph_keeps_a_usable_area_beside_the_plots(open_explorer):
    for theme in ("light", "projector"):
        page = open_explorer(1024, 768).page
        page.click("#view-menu summary")
        page.select_option("#theme", theme)
        page.click("#view-menu summary")
        choose(page, SEED_003)
        page.click("#train-run")
        page.wait_for_selector('#train[data-status="done"]')
        assert page.locator("#editor").is_visible()   # the program shown
        graph, plots, player = box(page, ".graph-wrap"), box(page, ".train-plots"), box(page, "#player")
        assert graph["height"] >= 260, (theme, graph)   # was a strip of about 200 px
        assert graph["width"] >= 700, (theme, graph)
        assert plots["x"] >= graph["x"] + graph["width"] - 1, (theme, plots, graph)   # beside it
        assert box(page, "#loss-curve")["height"] >= 80, theme   # the curve keeps its size
        assert box(page, "#boundary")["height"] >= 120, theme
        assert player["y"] + player["height"] <= 768, theme   # the player on screen


# ---------------------------------------------------------------- 2: the spirals' overview

def test_the_spirals_boxes_are_not_drawn_as_tall_as_their_300_rows(open_explorer):
    page = open_explorer(1024, 768).page
    choose(page, "train-spirals")
    page.wait_for_selector('#graph[data-camera="still"]')
    sizes = page.evaluate("""() => [...document.querySelectorAll('g.node')]
        .map(g => [g.dataset.name, g.getBBox().width, g.getBBox().height])""")
    assert max(h for _, _, h in sizes) <= 450, sizes   # X @ W1 (300, 64) was 1,870 px tall
    assert max(w for _, w, _ in sizes) <= 600, sizes   # y (300,) was 1,074 px wide
    page.click("#zoom-fit")
    page.wait_for_selector('#graph[data-fitted="whole"][data-camera="still"]')
    assert float(page.locator("#graph").get_attribute("data-scale")) >= 0.15   # was 0.048
