"""server/memory.py: a parsed program freed in slices, and memory handed back (issue 14)."""
from __future__ import annotations

from engine.parse import parse
from server import memory


def test_a_program_is_emptied_in_slices(monkeypatch):
    monkeypatch.setattr(memory, "SLICE", 7)
    program = parse("x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i})\n" for i in range(50)))
    assert len(program.nodes) == 51 and len(program.names) == 51
    memory.free_in_pieces(program)
    assert program.nodes == [] and program.names == {} and program.leaves == {}
    assert program.lines.lines == []   # the object it holds directly, too


def test_give_back_runs_and_is_scheduled_once_at_a_time():
    memory.give_back()   # glibc's malloc_trim, or nothing elsewhere
    memory.give_back_soon()
    held = memory._pending.locked()
    memory.give_back_soon()   # while one is scheduled: nothing more
    assert held == (memory._malloc_trim is not None)
