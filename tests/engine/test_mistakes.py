"""engine/mistakes.py: every wrong number of the quiz's mistakes table is the number its
mistake gives, recomputed with PyTorch float64 (retain_grad for the intermediate adjoints)."""
from __future__ import annotations

import pytest
import torch

from engine.errors import ProgramError
from engine.mistakes import close, mistakes

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
    # the tensors y = W @ x and y * y are not asked; the scalar L = sum(y * y) = 121 is
    assert tensors["adjoint"] == {} and list(tensors["value"]) == ["n4"]
    assert tensors["value"]["n4"][0]["value"] == -121.0


def test_refuses_a_big_program():
    with pytest.raises(ProgramError) as e:
        mistakes("x = 1.0\n" + "x = x * 2.0\n" * 5, max_nodes=3)
    assert e.value.kind == "too_large" and "at most 3 nodes" in e.value.message
