"""The modes a trace can be walked in, in the order their hooks run (engine/trace/mode.py).

Adding a mode is a module with a `MODE` row and one line here. The order matters where two
modes meet: the bug lab refuses before hvp's and forward mode's checks, and each mode's
fields join the `done` event in this order.
"""
from __future__ import annotations

from engine.trace import bugs, forward_mode, gradcheck, hvp, reverse

MODES = (reverse.MODE, bugs.MODE, hvp.MODE, forward_mode.MODE, gradcheck.MODE)
