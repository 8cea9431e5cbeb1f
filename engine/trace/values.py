"""Numbers and tensors as JSON: non-finite numbers become strings, big tensors a summary."""
from __future__ import annotations

import math

import numpy as np

TRACE_VERSION = 1   # docs/trace-format.md; engine/trace/events.py documents the events

NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def number(x) -> float | str:
    """A float, or "NaN" / "Infinity" / "-Infinity" (JSON has no literal for them)."""
    x = float(x)
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


# From this many elements a summary's norm sums its squares by BLAS's dot product: one pass,
# no array of squares (a million elements: 0.15 ms instead of 0.75, and the 8 MB of squares
# faulted in). Its rounding differs from np.sum's pairwise sum in the last bits (about 1e-16
# relative); below it the norm is np.sum's, as the golden traces have it.
DOT_NORM_FROM = 4096


def _squares(a: np.ndarray) -> float:
    """The sum of the squares of a float64 array's elements (NaN and infinities propagate)."""
    if a.size >= DOT_NORM_FROM:
        flat = a.reshape(-1)
        return float(np.dot(flat, flat))
    return float(np.sum(a * a))


def _data(a: np.ndarray):
    if np.isfinite(a).all():
        return a.tolist()
    return np.vectorize(number, otypes=[object])(a).tolist()


def _mean(a: np.ndarray, lo: float, hi: float, dtype) -> float:
    """The mean of a non-empty float64 array (least element lo, greatest hi) of a tensor of
    `dtype`, shown as 0 when it is within the rounding error of its sum: whatever the order of
    summation, |fl(sum) - sum| <= (n - 1) u sum|x| (Higham, "Accuracy and Stability of
    Numerical Algorithms", 2nd ed., eq. 4.4; u = eps / 2 of the tensor's own precision, whose
    elements carry its rounding), so a mean below n eps max|x| (the division's rounding
    included) has no correct digit, not even its sign. The mean of a softmax gradient, exactly
    0, computes as -4.6e-18, which a student would read as a number. NaN and inf stay."""
    mean = float(a.mean())
    if not math.isfinite(mean):
        return mean
    eps = float(np.finfo(dtype if np.issubdtype(dtype, np.floating) else np.float64).eps)
    return 0.0 if abs(mean) <= a.size * eps * max(abs(lo), abs(hi)) else mean


def encode(value, limit: int | None = 64):
    """A scalar as a number; a tensor as {shape, dtype, summary, data}.

    `data` is the nested list of elements when the tensor has at most `limit` elements
    (always when limit is None), otherwise null. Summary: min, max, mean, norm (L2).
    """
    if np.ndim(value) == 0:
        return number(value)
    own = np.result_type(value)
    dtype = str(own)   # the value's own (float32 programs: float32)
    a = np.asarray(value, dtype=np.float64)   # summaries and data as float64 numbers
    with np.errstate(all="ignore"):
        lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
        summary = {"min": number(lo), "max": number(hi), "mean": number(_mean(a, lo, hi, own)),
                   "norm": number(math.sqrt(_squares(a)))} if a.size else \
            {"min": None, "max": None, "mean": None, "norm": 0.0}
    data = _data(a) if limit is None or a.size <= limit else None
    return {"shape": list(a.shape), "dtype": dtype, "summary": summary, "data": data}


class Encoder:
    """`encode` that remembers the last few big tensors it encoded: an edge's upstream gradient
    is the adjoint the previous edge left, and a node's adjoint goes into several events, so a
    tensor of a million elements is summarized once, not five times. Only tensors of at least
    `threshold` elements are kept (the same object, so an id is never reused while held), and
    at most `size` of them: memory stays within a few of the trace's own values."""

    def __init__(self, size: int = 16, threshold: int = 4096):
        self.recent: dict = {}
        self.size, self.threshold = size, threshold

    def __call__(self, value, limit: int | None = 64):
        if type(value) is not np.ndarray or value.size < self.threshold:
            return encode(value, limit)
        key = (id(value), limit)
        hit = self.recent.pop(key, None)
        if hit is None or hit[0] is not value:
            hit = (value, encode(value, limit))
        self.recent[key] = hit   # most recent last
        if len(self.recent) > self.size:
            del self.recent[next(iter(self.recent))]
        return hit[1]

    def full(self, value, limit: int | None = 64):
        """encode(value, None), except that a finite tensor's `data` stays a C-contiguous float64
        array, for orjson's OPT_SERIALIZE_NUMPY (engine/trace/runner.py `_body`, the stream):
        the same JSON text as its nested list (orjson writes both with ryu), without a Python
        float per element: for a million elements about 25 ms instead of about 70 (tolist,
        then the list). The summary is this Encoder's (`limit` as the events had it), so a
        tensor already summarized is not summarized again."""
        if np.ndim(value) == 0:
            return number(value)
        out = dict(self(value, limit))
        a = np.ascontiguousarray(value, dtype=np.float64)
        out["data"] = a if np.isfinite(a).all() else _data(a)
        return out

    def zeros(self, like, limit: int | None = 64):
        """encode(np.zeros_like(like), limit) without making the zeros: an adjoint before its
        first contribution."""
        a = np.asarray(like)
        if a.ndim == 0:
            return 0.0
        data = np.zeros(a.shape).tolist() if limit is None or a.size <= limit else None
        zero = 0.0 if a.size else None
        return {"shape": list(a.shape), "dtype": str(a.dtype),
                "summary": {"min": zero, "max": zero, "mean": zero, "norm": 0.0}, "data": data}


def non_finite(value) -> bool:
    """True when an encoded value (`encode`) holds a NaN or an infinity: a non-finite scalar is
    a string, and a tensor's summary min or max is one whenever any element is (NaN
    propagates through min and max; +inf is the max, -inf the min)."""
    if isinstance(value, str):
        return True
    if isinstance(value, dict):
        summary = value.get("summary") or {}
        return isinstance(summary.get("min"), str) or isinstance(summary.get("max"), str)
    return False


def decode(value):
    """The inverse of `encode` for values that carry data (tests, clients): a float or array."""
    if isinstance(value, dict):
        return np.array(_undo_strings(value["data"]), dtype=np.float64)
    return float(_undo_strings(value))


def decode_lenient(value):
    """`decode`, or None for None and for a tensor that carries no data (over the inline
    limit): its summary's min and max, which are enough to tell finite from not."""
    if value is None:
        return None
    if isinstance(value, dict) and value.get("data") is None:
        s = value.get("summary") or {}
        return np.array(_undo_strings([s.get("min") or 0.0, s.get("max") or 0.0]),
                        dtype=np.float64)
    return decode(value)


def _undo_strings(x):
    if isinstance(x, list):
        return [_undo_strings(v) for v in x]
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(x, x) \
        if isinstance(x, str) else x


def short(x) -> str:
    """A number for narration: 4 decimals without trailing zeros (0.7864, 2, -6), or 4 sig. digits."""
    if type(x) is float and (1e-3 <= x < 1e5 or -1e5 < x <= -1e-3):   # most numbers, once each
        return f"{x:.4f}".rstrip("0").rstrip(".")   # never "" or "-0" at 0.001 and above
    if isinstance(x, str):
        return x
    x = float(x)
    if not math.isfinite(x):
        return number(x)
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        s = f"{x:.4f}".rstrip("0").rstrip(".")
        return "0" if s in ("-0", "") else s
    return f"{x:.4g}"
