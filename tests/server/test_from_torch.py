"""gradwalk.from_torch (issue 18 §4, the `gradwalk[torch]` extra): a PyTorch module or function
captured with torch.export, written as a gradwalk program and traced by gradwalk.trace, has
PyTorch's float64 gradients for every parameter; submodules are groups; an ATen op gradwalk
has no row for is refused by its name; and importing gradwalk imports no torch."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import gradwalk
from gradwalk.engine.errors import ProgramError


@pytest.fixture(autouse=True)
def _every_number(monkeypatch):
    """gradwalk.trace's tensors carry all their numbers (not a summary)."""
    monkeypatch.setenv("GRADWALK_MAX_INLINE_ELEMENTS", "10000")


class TwoLayer(nn.Module):
    """Linear, ReLU, Linear, then the mean cross-entropy."""

    def __init__(self):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 4)

    def forward(self, x, y):
        return F.cross_entropy(self.fc2(self.act(self.fc1(x))), y)


def _data():
    g = torch.Generator().manual_seed(3)
    return (torch.randn(6, 3, generator=g, dtype=torch.float64),
            torch.tensor([0, 3, 1, 2, 2, 0]))


def _gradwalk(text: str) -> tuple[float, dict[str, np.ndarray]]:
    body = gradwalk.trace(text)
    grads = {k: np.array(v["data"] if isinstance(v, dict) else v, dtype=np.float64)
             for k, v in body["grads"].items()}
    return body["output"]["value"], grads


def _agree(text: str, loss: torch.Tensor, expected: dict[str, torch.Tensor]) -> None:
    value, grads = _gradwalk(text)
    assert value == pytest.approx(loss.item(), rel=1e-12)
    for name, grad in expected.items():
        np.testing.assert_allclose(grads[name], grad.numpy(), rtol=1e-10, atol=1e-13,
                                   err_msg=name)


def test_a_module_traces_with_pytorchs_gradients_and_its_submodules_as_groups():
    torch.manual_seed(0)
    net = TwoLayer().double()
    x, y = _data()
    text = gradwalk.from_torch(net, x, y)
    for group in ("fc1", "act", "fc2"):
        assert f'with group("{group}"):' in text
    assert "y = const([0, 3, 1, 2, 2, 0])" in text and "cross_entropy(" in text
    x = x.clone().requires_grad_()
    loss = net(x, y)
    loss.backward()
    _agree(text, loss, {"x": x.grad, **{f"p_{k.replace('.', '_')}": p.grad
                                        for k, p in net.named_parameters()}})


def test_a_function_over_an_nn_sequential_traces_with_pytorchs_gradients():
    torch.manual_seed(1)
    seq = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 4)).double()
    x, y = _data()

    def loss_of(x, y):
        return F.cross_entropy(seq(x), y)

    text = gradwalk.from_torch(loss_of, x, y)
    assert 'with group("seq.0"):' in text and "\nx = [[" in text   # the function's names
    hidden = [seq[0](x)]
    hidden += [seq[1](hidden[0])]
    hidden += [seq[2](hidden[1])]
    for h in hidden:
        h.retain_grad()
    loss = F.cross_entropy(hidden[2], y)
    loss.backward()
    _agree(text, loss, {f"p_seq_{k.replace('.', '_')}": p.grad
                        for k, p in seq.named_parameters()})
    # each step of the walk: the adjoint each layer's output ends with is PyTorch's .grad
    body = gradwalk.trace(text)
    ids = {n["name"]: n["id"] for n in body["graph"]["nodes"] if n.get("name")}
    last = {e["input"]: e["adjoint_after"] for e in body["events"] if e["kind"] == "accumulate"}
    for name, h in zip(("linear", "relu_", "linear_1"), hidden):
        value = last[ids[name]]
        np.testing.assert_allclose(np.array(value["data"] if isinstance(value, dict) else value),
                                   h.grad.numpy(), rtol=1e-10, atol=1e-13, err_msg=name)


def test_the_mapped_aten_ops_trace_with_pytorchs_gradients():
    g = torch.Generator().manual_seed(5)
    x, w = (torch.randn(4, 6, generator=g, dtype=torch.float64),
            torch.randn(6, 3, generator=g, dtype=torch.float64))
    t = torch.tensor([2, 0, 1, 1])

    def f(x, w, t):
        h = torch.tanh(x @ w) * torch.sigmoid(x.mm(w)) + F.gelu(x @ w, approximate="tanh")
        z = F.gelu(h).view(2, 6).transpose(0, 1).reshape(4, 3) - 0.5 * h
        p = torch.softmax(z, dim=1).sum(dim=0).mean()
        nll = F.nll_loss(F.log_softmax(z, dim=-1), t)
        q = (1 - F.leaky_relu(z, 0.2)).square()   # rsub and square only as decomposed
        return nll + p * torch.addmm(z, x, w).mean() + F.silu(z).sum() / 3.0 + q.mean()

    text = gradwalk.from_torch(f, x, w, t)
    assert "** 2" in text and "silu(" in text and "leaky_relu(" in text
    x, w = x.clone().requires_grad_(), w.clone().requires_grad_()
    loss = f(x, w, t)
    loss.backward()
    _agree(text, loss, {"x": x.grad, "w": w.grad})


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin, self.act = nn.Linear(3, 3), nn.GELU()

    def forward(self, x):
        return self.act(self.lin(x)) + x


class Nested(nn.Module):
    """A submodule with submodules, in float32: groups nest, and the program says float32."""

    def __init__(self):
        super().__init__()
        self.block, self.head = Residual(), nn.Linear(3, 1)

    def forward(self, x, t):
        return F.mse_loss(self.head(self.block(x)).flatten(), t)


def test_nested_submodules_are_nested_groups_and_float32_stays_float32():
    torch.manual_seed(2)
    # float32 said outright: other test files set torch's default dtype to float64
    f32 = torch.float32
    net, x, t = Nested().to(f32), torch.randn(4, 3, dtype=f32), torch.randn(4, dtype=f32)
    text = gradwalk.from_torch(net, x, t)
    assert text.startswith("# dtype: float32\n")
    assert ('with group("block"):\n    with group("lin"):\n        linear = ' in text
            and '\n    with group("act"):\n' in text and '\nwith group("head"):\n' in text)
    value, grads = _gradwalk(text)
    loss = net(x, t)
    loss.backward()
    assert value == pytest.approx(loss.item(), rel=1e-5)
    for k, p in net.named_parameters():
        np.testing.assert_allclose(grads[f"p_{k.replace('.', '_')}"], p.grad.numpy(),
                                   rtol=1e-4, atol=1e-6, err_msg=k)


def test_an_op_gradwalk_lacks_is_refused_by_its_aten_name():
    with pytest.raises(ProgramError) as e:
        gradwalk.from_torch(lambda x: torch.sin(x).sum(), torch.ones(3, dtype=torch.float64))
    assert e.value.kind == "unsupported" and "aten.sin.default" in e.value.message


def test_importing_gradwalk_imports_no_torch_and_from_torch_says_what_to_install():
    code = ("import sys\n"
            "class NoTorch:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'torch' or name.startswith('torch.'):\n"
            "            raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"
            "sys.meta_path.insert(0, NoTorch())\n"
            "import gradwalk\n"
            "assert gradwalk.trace('a = 2.0\\nL = a * a')['grads'] == {'a': 4.0}\n"
            "assert 'L.backward()' in gradwalk.to_torch('a = 2.0\\nL = a * a')\n"
            "try:\n"
            "    gradwalk.from_torch(None)\n"
            "except ImportError as e:\n"
            "    print(e)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.splitlines() == [
        'gradwalk.from_torch needs PyTorch: pip install "gradwalk[torch]"', "[]"]


@pytest.mark.parametrize("fn, inputs, says", [
    (lambda x: (x.sum(), x.mean()), (torch.ones(2, dtype=torch.float64),),
     "returns 2 values; return the one to differentiate"),
    (lambda z, y: F.cross_entropy(z, y, label_smoothing=0.1),
     (torch.ones(2, 3, dtype=torch.float64), torch.tensor([0, 2])),
     "aten.cross_entropy_loss.default with label_smoothing"),
    (lambda z, y: F.cross_entropy(z, y, reduction="sum"),
     (torch.ones(2, 3, dtype=torch.float64), torch.tensor([0, 2])),
     "with a reduction other than 'mean'"),
])
def test_what_gradwalk_cannot_write_is_refused_saying_what(fn, inputs, says):
    with pytest.raises(ProgramError) as e:
        gradwalk.from_torch(fn, *inputs)
    assert e.value.kind == "unsupported" and says in e.value.message
