"""An embed option with a value it does not take (polish17 item 3): `print=2` was ignored
without a word, so a deck printed to PDF came out with live frames and nobody knew why. The
embed says which options it ignored and what each takes, over the graph, and walks on with
the defaults; a click hides the note. Good options say nothing."""
from __future__ import annotations

import pathlib

from test_embed import TANH, context, open_embed, wait_embed_step  # noqa: F401 (context: a fixture)
from test_links import fragment

SHOTS = pathlib.Path("/tmp/gradwalk-embed-shots")


def test_a_bad_option_is_said_with_the_values_it_takes(context, app_url):
    SHOTS.mkdir(exist_ok=True)
    walk = fragment({"v": 1, "program": TANH})
    page, errors, _ = open_embed(context, f"{app_url}/embed?step=5&print=2&theme=pink#{walk}")
    wait_embed_step(page, 5)
    note = page.locator(".embed-options-note")
    assert note.inner_text() == ("print=2 is ignored: print takes 1 or 0 (true/false and yes/no too). "
                                 "theme=pink is ignored: theme takes auto, light, dark, projector.")
    assert page.get_attribute("#embed", "data-print") == "false"   # the live graph, as before
    assert page.locator("#graph g.node").count() == 7
    page.screenshot(path=SHOTS / "embed-bad-options-1000x600.png")
    note.click()
    assert note.count() == 0
    good, errors2, _ = open_embed(context, f"{app_url}/embed?step=5&print=1&theme=dark#{walk}")
    good.wait_for_selector("img.print-step")
    assert good.locator(".embed-options-note").count() == 0
    assert errors == errors2 == []
