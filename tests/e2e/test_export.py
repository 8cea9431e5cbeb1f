"""The Export menu in headless Chromium: every file it offers, downloaded and read back.

The first preset (seed-tanh-fanout) is traced on load; its numbers are the engine's:
a's adjoint 0.7864 = 1.5729 + (-0.7864), L = 0.9242.
"""
from __future__ import annotations

import io
import json
import struct
import xml.etree.ElementTree as ET

import pytest

from webm import webm_times
from page_helpers import chain, leave_editor, set_group_above, step_forward, total_steps, trace, wait_step

SVG_NS = "{http://www.w3.org/2000/svg}"
LABELS = {"a", "b", "c", "e", "d", "t", "L"}


def open_menu(page):
    menu = page.locator("#export-menu details.export-menu")
    if not menu.evaluate("d => d.open"):
        page.locator("#export-menu summary").click()
    return menu


def download(page, key: str, timeout: float = 60_000) -> bytes:
    """Click the menu item `key` and return the bytes of the file it downloads."""
    open_menu(page)
    with page.expect_download(timeout=timeout) as info:
        page.locator(f'button[data-export="{key}"]').click()
    path = info.value.path()
    page.wait_for_selector('.export-status[data-state="done"]')
    return path.read_bytes(), info.value.suggested_filename


def set_range(page, first: int, last: int, seconds: float) -> None:
    open_menu(page)
    page.fill('.export-panel input[name="from"]', str(first))
    page.fill('.export-panel input[name="to"]', str(last))
    page.fill('.export-panel input[name="seconds"]', str(seconds))


def svg_texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")]


# ---------------------------------------------------------------- pictures of one step


def test_svg_of_the_last_step_parses_and_holds_labels_and_numbers(explorer):
    page = explorer.page
    leave_editor(page)
    page.keyboard.press("End")
    end = total_steps(page)
    wait_step(page, end)
    data, name = download(page, "svg")
    assert name == f"gradwalk-seed-tanh-fanout-step-{end}.svg"
    root = ET.fromstring(data)               # well-formed XML, or this raises
    assert root.tag == f"{SVG_NS}svg"
    texts = svg_texts(root)
    labels = {t.split()[0] for t in texts if t}
    assert LABELS <= labels
    # The numbers of the last step, a's adjoint among them, and the caption with the step.
    assert "0.7864" in texts and "0.9242" in texts
    assert any(t.startswith(f"step {end} / {end}") for t in texts)
    # Styles are inlined: the file needs no stylesheet (no class-only styling of boxes).
    boxes = [r for r in root.iter(f"{SVG_NS}rect") if r.get("class") == "box"]
    assert len(boxes) == 7 and all("stroke:" in (r.get("style") or "") for r in boxes)
    assert all(f"{SVG_NS}style" != e.tag for e in root.iter())
    width, height = float(root.get("width")), float(root.get("height"))
    assert width > 300 and height > 100
    assert not explorer.unexpected_errors()


def test_svg_at_step_0_has_no_numbers_yet(explorer):
    data, _ = download(explorer.page, "svg")
    texts = svg_texts(ET.fromstring(data))
    assert LABELS <= {t.split()[0] for t in texts if t}
    assert "0.7864" not in texts


def test_png_is_twice_the_svg(explorer):
    page = explorer.page
    step_forward(page, 3)
    svg, _ = download(page, "svg")
    png, name = download(page, "png")
    assert name.endswith("-step-3.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])   # IHDR
    root = ET.fromstring(svg)
    assert (width, height) == (2 * int(root.get("width")), 2 * int(root.get("height")))


def test_export_does_not_move_the_walk(explorer):
    page = explorer.page
    step_forward(page, 5)
    before = page.locator('g.node[data-name="e"]').get_attribute("data-value")
    download(page, "svg")
    wait_step(page, 5)
    assert page.locator('g.node[data-name="e"]').get_attribute("data-value") == before == "-0.5"
    assert page.locator("svg.export-scratch").count() == 0


# ---------------------------------------------------------------- video of a step range


def gif_frames(data: bytes) -> int:
    """Image descriptors (0x2C) in a GIF's block stream, walked block by block."""
    assert data[:6] == b"GIF89a"
    flags = data[10]
    i = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    frames = 0
    while data[i] != 0x3B:
        if data[i] == 0x21:                     # extension: label, then sub-blocks
            i += 2
        else:                                   # image: descriptor, local palette, LZW
            assert data[i] == 0x2C
            frames += 1
            local = data[i + 9]
            i += 10 + (3 * 2 ** ((local & 7) + 1) if local & 0x80 else 0) + 1
        while data[i]:
            i += data[i] + 1
        i += 1
    return frames


def test_gif_of_a_step_range(explorer):
    page = explorer.page
    set_range(page, 7, 11, 0.5)
    data, name = download(page, "gif")
    assert name == "gradwalk-seed-tanh-fanout-steps-7-11.gif"
    assert gif_frames(data) == 5
    width, height = struct.unpack("<HH", data[6:10])
    assert width > 200 and height > 100


def test_webm_of_a_step_range(explorer):
    page = explorer.page
    if not page.evaluate("typeof MediaRecorder !== 'undefined'"
                         " && MediaRecorder.isTypeSupported('video/webm')"):
        pytest.skip("this chromium has no MediaRecorder for WebM")
    set_range(page, 12, 15, 0.3)
    data, name = download(page, "webm")
    assert name == "gradwalk-seed-tanh-fanout-steps-12-15.webm"
    assert data[:4] == b"\x1a\x45\xdf\xa3"     # EBML header
    assert b"webm" in data[:64]
    assert len(webm_times(data)) >= 4               # steps 12, 13, 14, 15 (and the last again)


def test_a_range_of_one_step_is_refused(explorer):
    page = explorer.page
    set_range(page, 4, 4, 1)
    page.locator('button[data-export="gif"]').click()
    status = page.locator('.export-status[data-state="error"]')
    assert "at least two steps" in status.text_content()


# ---------------------------------------------------------------- the table and the HTML


def test_table_as_markdown_and_latex(explorer):
    page = explorer.page
    md, name = download(page, "md")
    assert name == "gradwalk-seed-tanh-fanout-table.md"
    md = md.decode()
    assert "| d = e + a   | 1 for e, 1 for a" in md
    assert "dL/da += -0.7864, dL/db += 1.5729" in md and "- dL/da = 0.7864" in md
    tex, _ = download(page, "tex")
    tex = tex.decode()
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert (r"$t = \tanh(d)$ & $1 - t^{2} = 0.7864$ for $d$ & $2$ & "
            r"$\frac{\partial L}{\partial d} \mathrel{{+}{=}} 1.5729$ \\") in tex


def test_copy_markdown(explorer):
    page = explorer.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_menu(page)
    page.locator('button[data-export="copy-md"]').click()
    page.wait_for_selector('.export-status[data-state="done"]')
    text = page.evaluate("navigator.clipboard.readText()")
    assert text.startswith("| Node") and "dL/da += 1.5729" in text


def test_standalone_html_download(explorer):
    page = explorer.page
    step_forward(page, 9)
    data, name = download(page, "html")
    assert name == "gradwalk-seed-tanh-fanout-walk.html"
    html = data.decode()
    state = html.split('id="initial-state">', 1)[1].split("</script>", 1)[0]
    state = json.loads(state)
    assert state["v"] == 1 and state["step"] == 9 and state["program"].startswith("a = 1.0\n")
    trace = json.loads(html.split('id="initial-trace">', 1)[1].split("</script>", 1)[0])
    assert trace["grads"]["a"] == pytest.approx(0.7864477329659274, abs=1e-12)
    assert 'src="/static' not in html and 'href="/static' not in html


# ---------------------------------------------------------------- when there is nothing to draw


def test_after_a_program_error_nothing_is_exported(explorer):
    page = explorer.page
    trace(page, "a = 1.0\nb = a +* 2\n", status="error")
    open_menu(page)
    page.locator('button[data-export="svg"]').click()
    status = page.locator('.export-status[data-state="error"]')
    assert "Trace a program first" in status.text_content()


def test_a_graph_too_big_to_draw_has_no_picture_but_has_its_table(explorer):
    page = explorer.page
    set_group_above(page, 10_000)  # node by node, not with its repeated lines collapsed
    trace(page, chain(2500))      # 4,999 nodes: its layout is predicted past the page's budget
    assert page.locator("#app").get_attribute("data-graph") == "too_large"
    open_menu(page)
    page.locator('button[data-export="png"]').click()
    assert "too big to draw" in page.locator('.export-status[data-state="error"]').text_content()
    md, _ = download(page, "md")
    rows = [line for line in md.decode().splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + 2499     # header, rule, one row per multiplication
