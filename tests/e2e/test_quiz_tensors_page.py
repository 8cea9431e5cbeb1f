"""The quiz on tensor programs in Chromium (issue 16, a review: the quiz asked only scalars):
a tensor node is asked one element, `X̄[0,1]`, drawn from the quiz's seed; its answer and its
wrong answers (the matmul's transpose left out) are PyTorch float64's, element by element; the
2-layer MLP example asks its weight matrices' gradients too."""
from __future__ import annotations

import json
import pathlib
import re

import httpx2 as httpx
import torch

from live_server import REPO
from page_helpers import node, wait_step
from test_projector_layout_page import themed
from test_quiz_page import answer, feedback, open_quiz, play_to_the_score   # open_quiz: the state's program wins

MATMUL = ("X = [[1.0, 2.0], [3.0, 4.0]]\nW = [[5.0, 6.0], [7.0, 8.0]]\n"
          "G = const([[1.0, 2.0], [-1.0, 0.0]])\nY = X @ W\nL = sum(G * Y)\n")
SHOTS = "/tmp/gradwalk-shots"   # screenshots to look at (the page's lecture sizes)
pathlib.Path(SHOTS).mkdir(exist_ok=True)


def asked_index(page, symbol: str) -> tuple[int, int]:
    """The element the question names: "X̄[0,1] = ?" -> (0, 1)."""
    text = page.locator("#quiz .quiz-question").inner_text()
    m = re.fullmatch(re.escape(symbol) + r"\[(\d+),(\d+)\] = \?", text)
    assert m, text
    return int(m[1]), int(m[2])


def torch_matmul():
    X = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    W = torch.tensor([[5.0, 6.0], [7.0, 8.0]], dtype=torch.float64, requires_grad=True)
    G = torch.tensor([[1.0, 2.0], [-1.0, 0.0]], dtype=torch.float64)
    (G * (X @ W)).sum().backward()
    # Ȳ = G; the transpose left out: Ȳ W for Ȳ Wᵀ, X Ȳ for Xᵀ Ȳ
    return X.grad, W.grad, G @ W.detach(), X.detach() @ G


def test_a_tensor_node_is_asked_one_element_and_its_mistakes_are_named(chromium, app_url):
    x_bar, w_bar, x_slip, _ = torch_matmul()
    context, page, errors = open_quiz(chromium, app_url, {"program": MATMUL, "quiz": "nodes:X,W", "step": 12})
    try:
        quiz = page.locator("#quiz")
        wait_step(page, 9)   # held before X̄'s only contribution (Y = X @ W's)
        assert quiz.get_attribute("data-asking") == "n0"
        i, j = asked_index(page, "X\u0304")
        assert "row" in page.locator("#quiz input[name=answer]").get_attribute("aria-label")
        assert "quiz-hidden-grad" in node(page, "X").get_attribute("class")   # the whole X̄ hidden
        page.set_viewport_size({"width": 1280, "height": 800})
        page.screenshot(path=f"{SHOTS}/quiz-tensor-1280.png")
        assert float(x_slip[i, j]) != float(x_bar[i, j])   # the element the seed draws tells them apart
        answer(page, f"{float(x_slip[i, j]):g}")
        assert quiz.get_attribute("data-verdict") == "wrong"
        assert quiz.get_attribute("data-mistake") == "transpose"
        assert "transpose" in feedback(page) and f"X\u0304[{i},{j}] = {float(x_bar[i, j]):g}" in feedback(page)
        answer(page, f"{-float(x_bar[i, j]):g}")
        assert quiz.get_attribute("data-mistake") == "sign"
        answer(page, f"{float(x_bar[i, j]):g}")
        assert quiz.get_attribute("data-verdict") == "right"
        wait_step(page, 10)   # on to W̄
        assert quiz.get_attribute("data-asking") == "n1"
        i, j = asked_index(page, "W\u0304")
        answer(page, f"{float(w_bar[i, j]):g}")
        assert quiz.get_attribute("data-verdict") == "right"
        assert play_to_the_score(page, 12) == ("1", "2")   # the end: the score
        assert errors == []
    finally:
        context.close()


def test_the_seed_draws_the_element(chromium, app_url):
    """Another quiz_seed asks another element of the same node (New numbers changes it)."""
    drawn = set()
    for seed in (0, 2, 3):   # quiz.js elementOf: X̄[0,1], X̄[1,1], X̄[0,0]
        context, page, _ = open_quiz(chromium, app_url, {"program": MATMUL, "quiz": "nodes:X", "quiz_seed": seed, "step": 12})
        try:
            wait_step(page, 9)
            drawn.add(asked_index(page, "X\u0304"))
        finally:
            context.close()
    assert drawn == {(0, 1), (1, 1), (0, 0)}


def test_the_mlp_example_asks_its_weight_gradients(chromium, app_url):
    """The 2-layer MLP classifier: W̄2 (8x3) is asked one element, PyTorch's from the
    example's own numbers; at 1024x768 in the projector theme the question is on screen."""
    presets = json.loads((REPO / "server" / "presets.json").read_text())
    program = next(p["program"] for p in presets if p["id"] == "mlp-classifier")
    body = httpx.post(f"{app_url}/api/trace", json={"program": program}).json()
    data = {n["name"]: n for n in body["graph"]["nodes"] if n.get("name")}
    values = {e["node"]: e["value"] for e in body["events"] if e["kind"] == "evaluate"}
    leaf = {k: torch.tensor(values[data[k]["id"]]["data"], dtype=torch.float64, requires_grad=True)
            for k in ("X", "W1", "b1", "W2", "b2")}
    h = torch.relu(leaf["X"] @ leaf["W1"] + leaf["b1"])
    logits = h @ leaf["W2"] + leaf["b2"]
    targets = torch.tensor([int(t) for t in re.search(r"cross_entropy\(logits, \[([\d, ]+)\]",
                                                      program)[1].split(",")])
    torch.nn.functional.cross_entropy(logits, targets).backward()
    context, page, errors = open_quiz(chromium, app_url, {"program": program, "quiz": "nodes:W2"},
                                      size=(1024, 768))
    try:
        themed(page, "projector")
        page.locator("#narration").click()
        page.keyboard.press("End")
        page.wait_for_selector('#quiz[data-asking]')
        i, j = asked_index(page, "W\u03042")
        page.screenshot(path=f"{SHOTS}/quiz-tensor-mlp-1024-projector.png")
        box = page.locator("#quiz input[name=answer]").bounding_box()
        assert box["y"] + box["height"] <= 768
        answer(page, f"{float(leaf['W2'].grad[i, j]):.6g}")
        assert page.locator("#quiz").get_attribute("data-verdict") == "right"
        assert errors == []
    finally:
        context.close()


def test_new_numbers_changes_tensor_leaves_and_the_answers_follow_pytorch(chromium, app_url):
    """The review's a3 shot: New numbers on the matmul example with the quiz "every adjoint"
    left the program byte for byte unchanged and said nothing. Now X and W get fresh
    numbers of the same shape, the constant G stays, and the asked element's answer is
    PyTorch float64's for the new numbers."""
    context, page, errors = open_quiz(chromium, app_url, {"program": MATMUL, "quiz": "adjoints"})
    try:
        page.locator("#quiz-preset").select_option("nodes")   # then X̄ and W̄ only: fewer answers to type
        page.locator("#quiz-nodes").fill("X, W")
        page.locator("#quiz-nodes").dispatch_event("change")
        page.locator("#quiz-new-numbers").click()
        page.wait_for_function("p => document.querySelector('#editor .editor').gradwalkEditor.getText() !== p", arg=MATMUL)
        page.wait_for_selector('#app[data-status="ready"]')
        page.wait_for_selector('#quiz[data-quiz="ready"]')
        program = page.eval_on_selector("#editor .editor", "e => e.gradwalkEditor.getText()")
        lines = program.split("\n")
        X, W = (json.loads(line.split(" = ")[1]) for line in lines[:2])
        assert lines[0].startswith("X = ") and lines[1].startswith("W = ")
        assert [len(r) for r in X] == [2, 2] and [len(r) for r in W] == [2, 2]
        assert (X, W) != ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]])
        assert lines[2:] == MATMUL.split("\n")[2:]   # the constant and the graph stay
        note = page.locator("#reset-note")
        assert note.is_visible() and "New numbers" in note.text_content()
        side, box = page.locator("#editor .side").bounding_box(), note.bounding_box()
        assert side["y"] - 1 <= box["y"] and box["y"] + box["height"] <= side["y"] + side["height"] + 1   # in sight
        page.screenshot(path=f"{SHOTS}/newnumbers-matmul-1280.png")
        x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
        w = torch.tensor(W, dtype=torch.float64, requires_grad=True)
        g = torch.tensor([[1.0, 2.0], [-1.0, 0.0]], dtype=torch.float64)
        (g * (x @ w)).sum().backward()
        for node_id, symbol, grad in (("n0", "X\u0304", x.grad), ("n1", "W\u0304", w.grad)):
            page.locator("#narration").click()
            page.keyboard.press("End")
            page.wait_for_selector(f"#quiz[data-asking='{node_id}']")
            i, j = asked_index(page, symbol)
            answer(page, repr(float(grad[i, j])))
            assert page.locator("#quiz").get_attribute("data-verdict") == "right", symbol
        assert errors == []
    finally:
        context.close()


def test_new_numbers_says_which_leaves_it_kept(chromium, app_url):
    """A program with no numbers to draw (zeros) is left as it is, and the page says so."""
    program = "b = zeros(3)\nL = sum(b * b)\n"
    context, page, errors = open_quiz(chromium, app_url, {"program": program, "quiz": "adjoints"})
    try:
        page.locator("#quiz-new-numbers").click()
        note = page.locator("#reset-note")
        note.wait_for(state="visible")
        assert note.get_attribute("data-keeps") == "none"
        assert "nothing changed" in note.text_content() and "Kept as they are (no numbers to draw): b." in note.text_content()
        assert page.eval_on_selector("#editor .editor", "e => e.gradwalkEditor.getText()") == program
        assert errors == []
    finally:
        context.close()
