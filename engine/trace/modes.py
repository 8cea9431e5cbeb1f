"""The modes a trace can be walked in, in the order their hooks run (engine/trace/mode.py).

Adding a mode is a module with a `MODE` row and one line here. The order matters where two
modes meet: the bug lab refuses before hvp's and forward mode's checks, and each mode's
fields join the `done` event in this order.

Every mode reads one compiled program: the Tracer (engine/trace/tracer.py) is built on
engine/tape.py's `compile` (order, shapes, op rows, `requires`) and its values are the tape's
first pass. Training, the mode that loops, plugs in at both ends of that tape:
- its iterations (engine/train/loop.py) call the tape directly, `compile(program)` once then
  `forward(leaves)` and `backward(values)` per iteration: the same rows, without events;
- an iteration it records is a trace in mode "train" (train_walk.py, the last row here): the
  reverse walk consumed as it is, with the loop's zero_grad and update events put in.
"""
from __future__ import annotations

from gradwalk.engine.trace import bugs, forward_mode, gradcheck, hvp, reverse, train_walk

MODES = (reverse.MODE, bugs.MODE, hvp.MODE, forward_mode.MODE, gradcheck.MODE,
         train_walk.MODE)
