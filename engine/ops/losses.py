"""Fused losses: cross-entropy from logits, and the mean squared error.

cross_entropy(z, y) = logsumexp(z) - z[y] for 1-D logits z (C,) and a class index y; its gradient
is softmax(z) - onehot(y), "p minus y" (../shared/seeds/003_70db1bc89ad395af.txt, "softmax with
cross-entropy"). For a batch, logits (N, C) and a list of N class indices, the loss is the mean
over the batch (torch.nn.functional.cross_entropy's default reduction="mean") and the gradient
is (p - y) / N. The log-softmax subtracts each row's maximum first, so a huge logit (1e300)
gives finite numbers; an infinite logit gives NaN, as in PyTorch. The loss itself is taken as
(max - z[y]) + log1p(the other terms of the log-sum-exp), so a tiny loss stays positive
(Blanchard, Higham & Higham, "Accurately computing the log-sum-exp and softmax functions", 2021).

mse(pred, target) = mean((pred - target)^2) over every element (torch.nn.functional.mse_loss,
reduction="mean"); d/dpred = 2 (pred - target) / n and d/dtarget = -2 (pred - target) / n.
pred and target must have one shape: PyTorch broadcasts them only with a warning that the result
is "likely incorrect", so we refuse it (ValueError naming both shapes).
"""
from __future__ import annotations

import functools

import numpy as np

from gradwalk.engine.ops.lastaxis import last_max, last_sum
from gradwalk.engine.ops.registry import Op, register
from gradwalk.engine.wording import counted


# ---- cross_entropy ----------------------------------------------------------------------------
def _softmax_parts(z):
    """(m, shifted, e) for logits z (C,) or (N, C): each row's maximum m (its axis kept),
    z - m and exp(z - m), the one softmax the loss and its gradient are made from."""
    m = last_max(z, keepdims=True)
    shifted = z - m
    return m, shifted, np.exp(shifted)


def _log_softmax(shifted, e):
    """log softmax along the last axis from the parts: shifted - log(sum(e))."""
    return shifted - np.log(last_sum(e, keepdims=True))


def _flat(z, index):
    """Where each row's element `index` is in z.reshape(-1): `index` for 1-D z, else
    row * C + index (one 1-D fancy index is a third the cost of a (rows, index) pair)."""
    if z.ndim == 1:
        return index
    n, c = z.shape
    if type(index) is tuple:
        last = _last_targets   # the same tuple as the last call: a training run's every step
        if last[0] is index and last[1] == c:
            return last[2]
        return _remember(index, c)
    return _row_starts(n, c) + index


def _remember(target: tuple, c: int) -> np.ndarray:
    """_flat_targets(target, c), kept as the one last asked for: the lru_cache hashes the
    whole tuple on every call (300 ints, two calls a step of the spirals network), where the
    tuple held here is known by identity (held, so its id is not reused). One assignment
    replaces it, so a thread reads either the old triple or the new one."""
    global _last_targets
    flat = _flat_targets(target, c)
    _last_targets = (target, c, flat)
    return flat


_last_targets: tuple = (None, 0, None)   # (target tuple, C, its flat indices): _remember


@functools.lru_cache(maxsize=32)
def _flat_targets(target: tuple, c: int) -> np.ndarray:
    """A program's targets (a tuple of class indices, engine/parse_calls.py) as flat indices,
    made once: converting 300 Python ints costs more than the whole pick."""
    out = _row_starts(len(target), c) + np.asarray(target, dtype=np.intp)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=32)
def _row_starts(n: int, c: int) -> np.ndarray:
    out = np.arange(n, dtype=np.intp) * c
    out.flags.writeable = False
    return out


def _mean(z, losses):
    """The batch's mean loss, np.mean's number (its pairwise sum, then / N)."""
    return losses if z.ndim == 1 else losses.sum() / len(losses)


def _cross_entropy(z, target, **_):
    z = np.asarray(z)
    m, shifted, e = _softmax_parts(z)
    return _mean(z, _row_losses(z, target, m, shifted, e))


def _ce_save(z, target, **_):
    """(loss, saved) from one softmax: saved is the loss's gradient at ȳ = 1, (softmax(z) -
    onehot(target)) / N, which the vjp scales by ȳ (the engine's saved tensor)."""
    z = np.asarray(z)
    m, shifted, e = _softmax_parts(z)
    return (_mean(z, _row_losses(z, target, m, shifted, e)),
            _p_minus_y(z, target, _log_softmax(shifted, e)))


def _row_losses(z, target, m, shifted, e):
    """-log softmax(z)[y] per row as (m - z[y]) + log1p(r): m the row's maximum, r the sum of
    exp(z_j - m) over every element but one maximum (the log-sum-exp with log1p). A confident
    right answer keeps its tiny positive loss: [40, 0] with y = 0 is log1p(exp(-40)) =
    4.248e-18, where log(1 + exp(-40)) rounds to log 1 and -(0 - 0) gives -0. A row whose
    maximum is infinite takes the log-softmax's NaN, as PyTorch."""
    rest = e.copy()   # e is the softmax's too
    rest.reshape(-1)[_flat(z, z.argmax(axis=-1))] = 0.0
    top = m[..., 0]
    pick = _flat(z, target)
    tail = (top - z.reshape(-1)[pick]) + np.log1p(last_sum(rest))
    if np.isfinite(top).all():   # the guard below costs a second softmax: only when needed
        return tail
    return np.where(np.isfinite(top), tail, -_log_softmax(shifted, e).reshape(-1)[pick])


def _p_minus_y(z, target, log_p=None):
    """(softmax(z) - onehot(target)) / N, N the batch size (1 for 1-D logits); log_p: the
    log softmax of z when already made."""
    z = np.asarray(z)
    if log_p is None:
        log_p = _log_softmax(*_softmax_parts(z)[1:])
    p = np.exp(log_p)
    p.reshape(-1)[_flat(z, target)] -= 1.0
    return p if z.ndim == 1 else p / len(z)


def check_targets(shape: tuple, target) -> tuple[str, str] | None:
    """Why `target` does not fit logits of `shape`, as (error kind, message), or None.

    1-D logits (C,) take one class index; 2-D logits (N, C) take a list of N indices; each
    index must be below C."""
    batched = np.ndim(target) > 0
    if len(shape) != (2 if batched else 1):
        return "shape", ("cross_entropy takes 1-D logits with a class index, or 2-D logits "
                         f"(N, C) with a list of N class indices; got logits of shape {shape} "
                         f"and {'a list of' if batched else 'one'} class ind"
                         f"{'ices' if batched else 'ex'}")
    if batched and len(target) != shape[0]:
        return "shape", (f"cross_entropy: logits of shape {shape} hold {counted(shape[0], 'row')} but "
                         f"{counted(len(target), 'class index', 'class indices')} "
                         f"{'was' if len(target) == 1 else 'were'} given")
    worst = max(target) if batched else target
    if worst >= shape[-1]:
        return "bad_argument", f"class index {worst} is out of range for {shape[-1]} logits"
    return None


def _targets_text(target, target_label=None) -> str:
    """The targets as the narration writes them: the name that holds them (`y`), else the
    indices, the first six of a long list."""
    if target_label is not None:
        return target_label
    if np.ndim(target) == 0:
        return str(target)
    shown = ", ".join(map(str, target[:6]))
    return f"[{shown}{', …' if len(target) > 6 else ''}]"


def _ce_text(z, target=0, target_label=None, **_):
    return f"cross_entropy({z}, {_targets_text(target, target_label)})"


def _ce_partial(z, target=0, target_label=None, **_):
    if np.ndim(target) == 0:
        return f"softmax({z}) - onehot({_targets_text(target, target_label)})"
    return f"(softmax({z}) - onehot({_targets_text(target, target_label)})) / {len(target)}"


def _ce_vjp_text(z, target=0, target_label=None, g="", **kw):
    partial = _ce_partial(z, target, target_label)
    return f"({partial}) · {g}" if np.ndim(target) == 0 else f"{partial} · {g}"


register(Op(
    name="cross_entropy", arity=1, forward=_cross_entropy,
    # params: target, and target_label when a name holds the targets (for the text only)
    vjp=(lambda g, out, z, target, **_: g * _p_minus_y(z, target),),
    # an engine that keeps the forward's results (engine/tape.py) runs _ce_save and scales
    # its saved gradient: one softmax per pass, not a second one in the vjp
    forward_saving=_ce_save, vjp_saved=(lambda g, saved: g * saved,),
    jvp=lambda dots, out, z, target, **_: np.sum(_p_minus_y(z, target) * dots[0]),
    text=_ce_text, partials=(_ce_partial,), vjp_text=(_ce_vjp_text,), elementwise=False,
    params=("target",),
    # forward: max, subtract, exp, sum (n each), a log per row, the pick and mean;
    # backward: the softmax again (5n; kept from the forward by the tape), subtract at the
    # targets, scale by g / N (n)
    flops=lambda out, z: 4 * int(np.size(z)),
    saves=("in0",), backward_flops=lambda out, z: 6 * int(np.size(z)),
))


# ---- mse --------------------------------------------------------------------------------------
def _same_shape(pred, target):
    if np.shape(pred) != np.shape(target):
        raise ValueError(f"mse needs pred and target of one shape, got {np.shape(pred)} and "
                         f"{np.shape(target)}")


def _mse(pred, target):
    _same_shape(pred, target)
    d = pred - target
    return np.mean(d * d)


def _mse_grad(g, pred, target):
    """g · 2 (pred - target) / n."""
    return (g * (2.0 / np.size(pred))) * (pred - target)


register(Op(
    name="mse", arity=2, forward=_mse,
    vjp=(lambda g, out, p, t: _mse_grad(g, p, t), lambda g, out, p, t: -_mse_grad(g, p, t)),
    jvp=lambda dots, out, p, t: 2.0 * np.mean((p - t) * (dots[0] - dots[1])),
    text="mse({0}, {1})", partials=("2({0} - {1}) / n", "-2({0} - {1}) / n"),
    vjp_text=("{g} · 2({0} - {1}) / n", "-{g} · 2({0} - {1}) / n"), elementwise=False,
    # forward: subtract, square, sum (n each), one divide; backward per input: subtract, scale
    flops=lambda out, p, t: 3 * int(np.size(p)) + 1,
    saves=("in0", "in1"), backward_flops=lambda out, p, t: 4 * int(np.size(p)),
))
