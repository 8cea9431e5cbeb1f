"""Issue 14, section 5: a clipped label is cut between tokens and closes what it opened
(engine/clip.py); the symbols and the narration built on it read right."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from gradwalk.engine.clip import clip
from gradwalk.engine.trace.runner import run_trace


def balanced(text: str) -> bool:
    """Every bracket and quote closed, in order (brackets inside a string are text)."""
    stack: list[str] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for c in text:
        if stack and stack[-1] in "\"'":
            if c == stack[-1]:
                stack.pop()
        elif c in "([{\"'":
            stack.append(c)
        elif c in pairs and (not stack or stack.pop() != pairs[c]):
            return False
    return not stack


def test_the_issue_label_and_every_symbol_on_it_close_their_brackets():
    body = run_trace('z = 0.5\nL = gelu(z, approximate="tanh") * 2.0\n')
    gelu = next(n for n in body["graph"]["nodes"] if n["op"] == "gelu")
    assert gelu["label"] == "gelu(z, approximate…)"
    texts = [e["narration"] for e in body["events"] if "narration" in e]
    said = [t for t in texts if "approximate" in t]
    assert said and all(balanced(t.replace("'", "")) for t in said), said   # ' is a prime here
    assert any("∂L/∂gelu(z, approximate…) += 2.0" in t for t in said), said   # a call: no extra ( )


def test_a_repeat_count_is_kept_and_tokens_are_whole():
    assert clip("x1 = tanh(x0) * 0.9 + 0.1 ×5000", 30) == "x1 = tanh(x0) * 0.9 + … ×5000"
    assert clip("h = relu(X @ W1 + b1) * 0.123456", 24) == "h = relu(X @ W1 + b1)…"
    assert clip("1." + "0" * 30, 24) == "1." + "0" * 21 + "…"   # one token: cut inside
    assert clip("w + … + w_first_layer", 12) == "w + …"   # one ellipsis, not "w + … + …"
    assert clip("x = (x *", 60, more=True) == "x = (x * …)"   # text that goes on is marked
    # a count with no room beside it is text: " ×000" in 4 was "… ×000", 6 characters
    # (fast-check found it in the page's clip.js, which follows these rules)
    assert clip(" ×000", 4) == " ×…"


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="ab1.0 ()[]+*=,\"x×5", max_size=60), st.integers(4, 40))
def test_any_text_fits_and_stays_balanced(text, most):
    out = clip(text, most)
    if len(text) <= most:
        assert out == text
    else:
        assert len(out) <= most and "…" in out
        assert balanced(out) or not balanced(text)


GELU_PRODUCT = """x = [1.0, -0.5, 2.0]
w = [0.3, 0.2, -0.1]
L = sum(gelu(x * w + x * x * 0.044715, approximate="tanh") * gelu(w * x - 1.0, approximate="tanh"))
"""


def test_a_long_product_keeps_its_operator_and_one_ellipsis_an_operand():
    # issue 14 §5 on the projector: the product's label read `gelu(x * w + x * x * …)…` (two
    # ellipses, the operator cut away) and the overview cut it to `… * …)…`
    body = run_trace(GELU_PRODUCT)
    labels = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    product = next(n for n in body["graph"]["nodes"] if n["op"] == "mul" and "gelu" in n["label"])
    assert product["label"] == "gelu(x…) * gelu(w * x…)"
    for label in labels.values():
        assert len(label) <= 24 and balanced(label), label
        assert "…)…" not in label and not label.endswith(")…"), label
