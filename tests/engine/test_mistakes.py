"""engine/mistakes.py: every wrong number of the quiz's mistakes table is the number its
mistake gives, recomputed with PyTorch float64 (retain_grad for the intermediate adjoints)."""
from __future__ import annotations

import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.mistakes import close, mistakes

TANH_FANOUT = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
IDS = {"a": "n0", "b": "n1", "c": "n2", "e": "n3", "d": "n4", "t": "n5", "L": "n6"}


@pytest.fixture(scope="module")
def torch_walk():
    """PyTorch float64's values and adjoints of the tanh fan-out example, by name."""
    a, b, c = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (1.0, -0.5, 2.0))
    e = a * b
    d = e + a
    t = torch.tanh(d)
    L = t * c
    for x in (e, d, t):
        x.retain_grad()
    L.backward()
    vals = {k: float(v.detach()) for k, v in dict(a=a, b=b, c=c, e=e, d=d, t=t, L=L).items()}
    bars = {k: float(v.grad) for k, v in dict(a=a, b=b, c=c, e=e, d=d, t=t).items()}
    return vals, bars


@pytest.fixture(scope="module")
def table():
    return mistakes(TANH_FANOUT)


def kinds_of(table, name: str, value: float) -> list[str]:
    """The kinds whose wrong adjoint of `name` is `value` (to 1e-9), in the table's order."""
    return [m["kind"] for m in table["adjoint"][IDS[name]] if abs(m["value"] - value) < 1e-9]


def test_fan_out_overwrites_are_the_contributions_alone(table, torch_walk):
    vals, bars = torch_walk
    through_d = bars["d"] * 1.0      # d = e + a: ∂d/∂a = 1
    through_e = bars["e"] * vals["b"]   # e = a * b: ∂e/∂a = b
    assert through_d == pytest.approx(1.5728954659318548, rel=1e-12)
    assert through_e == pytest.approx(-0.7864477329659274, rel=1e-12)
    # the bug lab's overwrite engine walks e's edge last, so -0.7864 is its ā, named first
    first = table["adjoint"]["n0"][0]
    assert first["kind"] == "overwrite" and first["value"] == pytest.approx(through_e, rel=1e-12)
    assert "-0.7864 is only the contribution through e" in first["text"]
    assert kinds_of(table, "a", through_e) == ["overwrite", "sign"]   # also -ā
    # 1.5729 is the contribution through d alone; a single walk has no previous pass, so it
    # is not also "you forgot zero_grad" (2ā is the same number here)
    assert kinds_of(table, "a", through_d) == ["overwrite"]
    text = next(m["text"] for m in table["adjoint"]["n0"] if abs(m["value"] - through_d) < 1e-9)
    assert text == "you overwrote a\u0304 instead of adding to it (1.5729 is only the contribution through d)"


def test_hand_slips_against_pytorch(table, torch_walk):
    vals, bars = torch_walk
    a_bar = bars["a"]
    # forgot tanh's local derivative (1 - t²): d̄ would be t̄
    assert kinds_of(table, "d", bars["t"]) == ["missing_local"]
    assert "(1 - t²)" in next(m["text"] for m in table["adjoint"]["n4"] if m["kind"] == "missing_local")
    # ā through e with the local b left out: ā - ē·b + ē
    assert "missing_local" in kinds_of(table, "a", a_bar - bars["e"] * vals["b"] + bars["e"])
    # product rule halves: ā through e with a (b̄'s local) instead of b
    assert "other_factor" in kinds_of(table, "a", a_bar - bars["e"] * vals["b"] + bars["e"] * vals["a"])
    assert kinds_of(table, "b", bars["e"] * vals["b"])[0] == "other_factor"
    # the contribution through d added twice
    # (here also ā with the contribution through e sign-flipped: 0.7864 + 2 · 0.7864)
    assert kinds_of(table, "a", a_bar + bars["d"]) == ["added_twice", "sign"]
    # the sign: -ā, and the contribution through d with its sign flipped
    assert "sign" in kinds_of(table, "a", -a_bar)
    assert kinds_of(table, "a", a_bar - 2 * bars["d"]) == ["sign"]
    assert kinds_of(table, "t", -bars["t"]) == ["sign"]


def test_bug_lab_engines_against_pytorch(table, torch_walk):
    vals, bars = torch_walk
    # wrong_order: only the output's own inputs get a gradient; d is visited before t
    assert kinds_of(table, "d", 0.0) == ["wrong_order"]
    assert "wrong_order" not in [m["kind"] for m in table["adjoint"]["n5"]]   # t̄ is right there


def test_forgetting_zero_grad_is_offered_only_where_two_passes_run(table, torch_walk):
    _, bars = torch_walk
    # a single walk (no `# bugs:` line, one backward pass): there is no previous pass
    assert all(m["kind"] != "no_zero_grad" for ms in table["adjoint"].values() for m in ms)
    assert kinds_of(table, "b", 2 * bars["b"]) == ["added_twice"]   # b̄ has one contribution
    # a program that runs two passes (`# bugs: zero_grad`: .grad zeroed between them):
    # forgetting zero_grad leaves the first pass's .grad in, every leaf's doubled
    two = mistakes("# bugs: zero_grad\n" + TANH_FANOUT)
    for leaf in "bc":
        assert kinds_of(two, leaf, 2 * bars[leaf])[0] == "no_zero_grad", leaf
    assert kinds_of(two, "a", 2 * bars["a"]) == ["overwrite", "no_zero_grad"]   # 1.5729 twice over
    text = next(m["text"] for m in two["adjoint"]["n1"] if m["kind"] == "no_zero_grad")
    assert text.startswith("you forgot zero_grad: the previous pass's gradient is still in b")


def test_no_entry_is_judged_right(table, torch_walk):
    _, bars = torch_walk
    for name, node in IDS.items():
        for m in table["adjoint"].get(node, []):
            assert not close(m["value"], bars[name]), (name, m)
    assert set(table["adjoint"]) == {IDS[n] for n in "abcedt"}   # the seed L̄ = 1 is not asked


def test_forward_values_and_tensors():
    vals = mistakes(TANH_FANOUT)["value"]
    assert vals["n5"] == [{"kind": "sign", "value": pytest.approx(-0.46211715726000974, rel=1e-12),
                           "text": "you have the sign wrong"}]
    assert "n0" not in vals   # a leaf's value is given, not asked
    tensors = mistakes("W = [[1.0, 2.0]]\nx = [[3.0], [4.0]]\ny = W @ x\nL = sum(y * y)\n")
    # the tensors y = W @ x and y * y have their entries as the scalar L = sum(y * y) has
    assert list(tensors["value"]) == ["n2", "n3", "n4"]
    assert tensors["value"]["n4"][0]["value"] == -121.0
    assert tensors["value"]["n2"] == [{"kind": "sign", "value": [[-11.0]], "text": "you have the sign wrong"}]


MATMUL = ("X = [[1.0, 2.0], [3.0, 4.0]]\nW = [[5.0, 6.0], [7.0, 8.0]]\n"
          "G = const([[1.0, 2.0], [-1.0, 0.0]])\nY = X @ W\nL = sum(G * Y)\n")


def entries(table, node: str, kind: str) -> list:
    return [m["value"] for m in table["adjoint"][node] if m["kind"] == kind]


def test_tensor_mistakes_elementwise_against_pytorch():
    """The matrix multiply example: X̄ = Ȳ Wᵀ and W̄ = Xᵀ Ȳ, and the wrong tensors each
    mistake gives, every element, by PyTorch float64."""
    X = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    W = torch.tensor([[5.0, 6.0], [7.0, 8.0]], dtype=torch.float64, requires_grad=True)
    G = torch.tensor([[1.0, 2.0], [-1.0, 0.0]], dtype=torch.float64)
    Y = X @ W
    Y.retain_grad()
    (G * Y).sum().backward()
    table = mistakes(MATMUL)
    Yb = Y.grad.detach()
    # the transpose left out: Ȳ W for Ȳ Wᵀ, X Ȳ for Xᵀ Ȳ
    assert entries(table, "n0", "transpose") == [(Yb @ W.detach()).tolist()]
    assert entries(table, "n1", "transpose") == [(X.detach() @ Yb).tolist()]
    assert entries(table, "n0", "transpose")[0] != X.grad.tolist()
    text = next(m["text"] for m in table["adjoint"]["n0"] if m["kind"] == "transpose")
    assert text == "you left out the transpose in Y = X @ W's rule: Y\u0304 @ W in place of Y\u0304 @ Wᵀ"
    assert entries(table, "n0", "sign") == [(-X.grad).tolist()]
    assert entries(table, "n0", "added_twice") == [(2 * X.grad).tolist()]
    # G * Y: Ȳ takes G; forgetting it gives the ones of sum's gradient, the other factor Y
    assert entries(table, "n3", "missing_local") == [torch.ones(2, 2).tolist()]
    assert entries(table, "n3", "other_factor") == [Y.detach().tolist()]


def test_tensor_fan_out_overwrite_elementwise():
    """x used twice (h = x * w, z = h + x): each contribution alone is an overwrite, and an
    entry is dropped only when it is right at every element."""
    table = mistakes("x = [1.0, -2.0]\nw = [0.5, 0.25]\nh = x * w\nz = h + x\nL = sum(tanh(z))\n")
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.5, 0.25], dtype=torch.float64)
    h = x * w
    z = h + x
    torch.tanh(z).sum().backward()
    zbar = 1 - torch.tanh(z.detach()) ** 2
    over = entries(table, "n0", "overwrite")
    assert len(over) == 2
    assert over[0] == pytest.approx((zbar * w).tolist(), rel=1e-12)   # through h: z̄ · w
    assert over[1] == pytest.approx(zbar.tolist(), rel=1e-12)         # through z: z̄ · 1
    texts = [m["text"] for m in table["adjoint"]["n0"] if m["kind"] == "overwrite"]
    assert texts[0] == "you overwrote x\u0304 instead of adding to it (that is only the contribution through h)"
    assert all(not all(close(a, b) for a, b in zip(v, x.grad.tolist()))
               for ms in [table["adjoint"]["n0"]] for v in (m["value"] for m in ms))


def test_close_is_the_pages_tolerance():
    """Relative 1e-3, or the digits shown when the page shows fewer (static/js/quiz.js
    matches): a mistake the page would judge right is never listed."""
    assert close(1234.0, 1234.5678) and not close(1232.0, 1234.5678)
    assert close(0.0012, 0.0012345) and close(0.00124, 0.0012345)   # shown as 0.0012
    assert not close(0.0013, 0.0012345)
    assert close(1.835e-8, 1.83494e-8) and not close(1.83e-8, 1.83494e-8)
    assert close(0.0, 0.0) and not close(0.001, 0.0) and not close(1e-4, 0.0)
    # ā = b = 0.00212 and the other factor a = 0.00209 both show as 0.0021: no other_factor
    small = mistakes("a = 0.00209\nb = 0.00212\nL = a * b\n")["adjoint"]["n0"]
    assert [m["kind"] for m in small if m["kind"] == "other_factor"] == []
    assert [m["kind"] for m in mistakes("a = 0.5\nb = 0.25\nL = a * b\n")["adjoint"]["n0"]
            if m["kind"] == "other_factor"] == ["other_factor"]


def test_refuses_a_big_program():
    with pytest.raises(ProgramError) as e:
        mistakes("x = 1.0\n" + "x = x * 2.0\n" * 5, max_nodes=3)
    assert e.value.kind == "too_large" and "at most 3 nodes" in e.value.message
