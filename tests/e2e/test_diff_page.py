"""Edit and diff in Chromium (issue 16, sections 2 and 3): compare the tanh fan-out example
with a = 1.0 and with a = 1.001, node by node; the output moves by about 0.001 · ā, as
PyTorch float64 says, and the link holds both programs."""
from __future__ import annotations

import pytest
import torch

from page_helpers import node, reopened, trace
from test_links import fragment, unpack
from test_projector_layout_page import go, themed

TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
NUDGED = TANH.replace("a = 1.0", "a = 1.001")


def torch_run(a: float) -> tuple[float, float]:
    """(L, ā) of the program at a, by PyTorch float64."""
    x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    L = torch.tanh(x * -0.5 + x) * 2.0
    L.backward()
    return float(L.detach()), float(x.grad)


def delta_of(page, name: str) -> tuple[float, float | None]:
    row = page.locator(f'#diff tr[data-node="{node(page, name).get_attribute("data-node")}"]')
    adjoint = row.get_attribute("data-delta-adjoint")
    return float(row.get_attribute("data-delta-value")), None if adjoint is None else float(adjoint)


def test_nudging_a_moves_the_output_by_about_h_times_a_bar(explorer, chromium, app_url):
    page = explorer.page
    page.locator("#diff-toggle").check()
    page.wait_for_selector('#diff[data-state="ready"]')   # against itself: nothing changed
    assert page.locator("#diff .diff-summary").inner_text().startswith("Final numbers: 0 of 7 nodes changed")
    trace(page, NUDGED)
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    L0, a_bar = torch_run(1.0)
    L1, _ = torch_run(1.001)
    dL, _ = delta_of(page, "L")
    assert dL == pytest.approx(L1 - L0, rel=1e-9)          # the difference of the two runs
    assert dL == pytest.approx(0.001 * a_bar, rel=1e-2)    # first order: ΔL ≈ h · ā
    assert delta_of(page, "a")[0] == pytest.approx(0.001, rel=1e-9)
    assert node(page, "L").locator(".diff-delta").text_content() == "Δ +0.0007863"
    # drawn just over L's box, at its right end
    label, box = (node(page, "L").locator(sel).bounding_box() for sel in (".diff-delta", "rect.box"))
    assert box["y"] - 30 < label["y"] + label["height"] <= box["y"] + 2
    assert abs((label["x"] + label["width"]) - (box["x"] + box["width"])) < 8
    assert node(page, "L").get_attribute("data-changed") == "value"
    assert node(page, "b").get_attribute("data-changed") == "adjoint"   # b̄ = a · ē moved
    assert node(page, "c").get_attribute("data-changed") == "adjoint"   # c̄ = t moved
    summary = page.locator("#diff .diff-summary").inner_text()
    assert summary == ("Final numbers: 7 of 7 nodes changed; L: 0.9242 → 0.925 (Δ +0.0007863); first order: "
                       "Δa · a\u0304 = 0.001 · 0.7864 = 0.0007864.")
    # both numbers in the detail panel
    node(page, "L").dispatch_event("click")
    page.wait_for_selector("#detail:not([hidden]) .diff-detail")
    assert "value: 0.9242 → 0.925 (Δ +0.0007863)" in page.locator("#detail .diff-detail").inner_text()
    # the link holds both programs, and opens the same comparison elsewhere
    state = unpack(page.url)
    assert state["program"] == NUDGED and state["diff_base"] == TANH
    with reopened(chromium, f"{app_url}/#{fragment(state)}") as other:
        other.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        assert delta_of(other, "L")[0] == pytest.approx(L1 - L0, rel=1e-9)
    assert explorer.unexpected_errors() == []


def test_the_changed_filter_and_turning_it_off(explorer):
    page = explorer.page
    two = "a = 1.0\nb = 2.0\nu = a * 3.0\nv = b * 4.0\nL = u + v\n"   # two branches
    trace(page, two)
    page.locator("#diff-toggle").check()
    trace(page, two.replace("b = 2.0", "b = 2.5"))   # only b's branch moves
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    page.locator("#diff-changed").check()
    assert page.locator("#graph").evaluate("s => s.classList.contains('diff-filter')")
    assert page.locator("#diff tr[data-node] th").all_inner_texts() == ["L", "b", "v"]   # the output first
    assert delta_of(page, "v") == (2.0, 0.0)   # 4 · 0.5; v̄ = 1 unchanged
    assert node(page, "a").get_attribute("data-changed") is None
    page.wait_for_function("() => getComputedStyle(document.querySelector('g.node[data-name=u]')).opacity === '0.25'")
    linked = page.evaluate("location.hash")
    page.locator("#diff-toggle").uncheck()
    assert page.locator("#diff").get_attribute("data-state") == "off"
    page.wait_for_function("h => location.hash !== h", arg=linked)   # the address is written again
    assert page.locator("g.node[data-changed]").count() == 0
    assert "diff_base" not in unpack(page.url)


def test_the_output_row_leads_the_table_in_sight_at_lecture_sizes(chromium, app_url):
    """The review's 1280x800 and 1024x768 (projector): L's row was below the panel's edge
    and the table's type 11 px."""
    with reopened(chromium, f"{app_url}/#{fragment({'v': 1, 'program': NUDGED, 'diff_base': TANH})}") as page:
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        sizes = {}
        for theme in ("light", "projector"):
            themed(page, theme)
            for width, height in ((1280, 800), (1024, 768)):
                page.set_viewport_size({"width": width, "height": height})
                trace(page, NUDGED)   # compared anew at this size and theme
                page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
                page.wait_for_timeout(200)   # the layout settles
                rows = page.locator("#diff tr[data-node]")
                assert rows.first.locator("th").inner_text() == "L"
                side = page.locator("#editor .side").bounding_box()
                row = rows.first.bounding_box()
                where = (theme, width)
                if (width, theme) == (1280, "light"):   # room for it all: nothing scrolled
                    assert page.locator("#editor .side").evaluate("e => e.scrollTop") == 0
                # the whole row, and the header above it, inside the side column's visible
                # part (scrolled to it where the column is short) and the window
                head = page.locator("#diff thead").bounding_box()
                assert side["y"] <= head["y"] and row["y"] + row["height"] <= side["y"] + side["height"] + 1, where
                assert row["y"] + row["height"] <= height, where
                table = page.locator("#diff table").bounding_box()   # every column in sight
                assert table["x"] + table["width"] <= side["x"] + side["width"] + 1, where
                assert rows.first.locator("td.delta").first.inner_text() == "+0.0007863"
                px = rows.first.locator("td").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
                assert px >= 14, where
                sizes[where] = px
        assert sizes[("projector", 1280)] > sizes[("light", 1280)]   # larger for the room
        assert sizes[("projector", 1024)] > sizes[("light", 1024)]


def test_mid_walk_the_diff_compares_the_numbers_of_that_step(chromium, app_url):
    """At step 13 ā has one contribution of two (through d) in both runs: the table compares
    those, 1.5729 before, not the final 0.7864; at the end the final numbers again."""
    _, a_bar = torch_run(1.0)
    with reopened(chromium, f"{app_url}/#{fragment({'v': 1, 'program': NUDGED, 'diff_base': TANH})}") as page:
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        a_row = page.locator('#diff tr[data-node="n0"]')
        go(page, 13)
        page.wait_for_selector('#diff[data-step="13"]')
        summary = page.locator("#diff .diff-summary").inner_text()
        assert summary.startswith("At step 13 of 16 (values known so far, gradients accumulated so far, in both runs)")
        x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)   # ā through d alone: d̄
        d = x * -0.5 + x
        (torch.tanh(d) * 2.0).backward(inputs=[d])
        assert a_row.locator("td").nth(2).inner_text().startswith(f"{float(d.grad):.4f} → ")
        b_row = page.locator('#diff tr[data-node="n1"]')
        assert b_row.locator("td").nth(2).inner_text() == ""   # b̄ has nothing yet, in either run
        go(page, 16)
        page.wait_for_function("() => !document.querySelector('#diff').dataset.step")
        assert page.locator("#diff .diff-summary").inner_text().startswith("Final numbers: 7 of 7")
        assert a_row.locator("td").nth(2).inner_text().startswith(f"{a_bar:.4f} → ")


def test_a_renamed_variable_lines_up_with_its_old_name(explorer):
    page = explorer.page
    trace(page, TANH)
    page.locator("#diff-toggle").check()
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    trace(page, TANH.replace("e = a * b\nd = e + a", "p = a * b\nd = p + a"))
    page.wait_for_function("() => document.querySelector('#diff .diff-summary')?.textContent.includes('0 of 7')")
    assert page.locator("#diff tr[data-node] th").all_inner_texts() == [
        "L", "a", "b", "c", "p (was e)", "d", "t"]
    assert "gone" not in page.locator("#diff .diff-summary").inner_text()
    assert explorer.unexpected_errors() == []


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=["1280x800", "1024x768"])
def test_an_inserted_line_makes_new_nodes_not_changed_ones(chromium, app_url, size):
    """The review's d4 shots: with a = 1.001 compared, inserting `k = c * 3.0` after
    `c = 2.0` counted k and its constant 3.0 as changed ("2 of 9 nodes changed") and the
    constant's row read "– → 3 changed"; they are new."""
    inserted = NUDGED.replace("c = 2.0\n", "c = 2.0\nk = c * 3.0\n")
    with reopened(chromium, f"{app_url}/#{fragment({'v': 1, 'program': NUDGED, 'diff_base': NUDGED})}") as page:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        trace(page, inserted)
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        page.locator("#narration").click()
        page.keyboard.press("End")
        page.wait_for_function("() => document.querySelector('#diff .diff-summary').textContent.startsWith('Final numbers: 0 of 7')")
        assert page.locator("#diff .diff-summary").inner_text() == "Final numbers: 0 of 7 nodes changed, 2 new (3.0, k); L: 0.925 → 0.925 (Δ 0)."
        for name in ("k", "3.0"):
            g = node(page, name)
            assert g.get_attribute("data-changed") == "new", name
            assert g.locator(".diff-delta").text_content() == "new"
            row = page.locator(f'#diff tr[data-node="{g.get_attribute("data-node")}"]')
            assert "new" in row.get_attribute("class").split() and "changed" not in row.get_attribute("class").split()
            assert row.locator("td.delta").first.inner_text() == "new"
        assert page.locator('g.node[data-changed]:not([data-changed="new"])').count() == 0
        for theme in ("light", "projector"):
            themed(page, theme)
            page.wait_for_timeout(200)
            page.screenshot(path=f"/tmp/lw/diff-insert-{theme}-{size[0]}.png")


def test_tensor_rows_say_their_shape_and_the_measure_of_their_change(explorer):
    """The newcomer's review: a randn weight drawn with another seed read "new" and "gone",
    every tensor row "tensor → tensor", its Δ 0, blank or an unlabelled number."""
    page = explorer.page
    program = "X = randn(4, 3, seed=0)\nW = randn(3, 2, seed=1)\nL = sum(tanh(X @ W))\n"
    trace(page, program)
    page.locator("#diff-toggle").check()
    page.wait_for_selector('#diff[data-state="ready"]')
    trace(page, program.replace("seed=1", "seed=3"))
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    summary = page.locator("#diff .diff-summary").inner_text()
    assert "new" not in summary and "gone" not in summary, summary
    cells = page.locator(f'#diff tr[data-node="{node(page, "W").get_attribute("data-node")}"] td').all_inner_texts()
    # a tensor that kept its shape reads it once, its Δ says how it moved (the projector's
    # review: "3×2 → 3×2" broke the row at its arrow in the side column), a matrix by name
    assert cells[0].replace("\n", " ") == "3×2 matrix", cells
    assert cells[1].startswith("max ") and float(cells[1].split()[1]) != 0, cells
    x = page.locator(f'#diff tr[data-node="{node(page, "X").get_attribute("data-node")}"] td').all_inner_texts()
    assert x[1] == "max 0", x   # X is the same: its value did not move
