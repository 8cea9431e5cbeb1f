"""A wall-clock budget for one trace, checked cooperatively by the engine's loops.

The work is never killed from outside (a thread cannot be, and a process per trace would cost
more than most traces): the loops over nodes and edges ask `paced(items)` for their items, which
checks the clock once per run of CHECK_EVERY items and raises ProgramError("timeout") once the
budget is spent. Each item costs at most what the FLOP and element limits allow, so a trace
stops within a run of items of its deadline.
"""
from __future__ import annotations

import itertools
import time
from typing import Iterable, Iterator, TypeVar

from gradwalk.engine.errors import ProgramError

T = TypeVar("T")
CHECK_EVERY = 1024   # items between two looks at the clock


class Deadline:
    """seconds: the budget (wall-clock seconds from now); None for no budget."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def check(self) -> None:
        """Raises ProgramError("timeout") when the budget is spent."""
        if self.at is not None and time.monotonic() >= self.at:
            raise ProgramError(
                "timeout", f"the trace took longer than {self.seconds:g} s, the time one trace "
                f"may take (trace_timeout_seconds), and was stopped",
                hint="trace fewer nodes or smaller tensors; the setting is "
                     "GRADWALK_TRACE_TIMEOUT_SECONDS")

    def paced(self, items: Iterable[T]) -> Iterator[T]:
        """items, unchanged, with the clock checked before every CHECK_EVERY of them. The
        items themselves are handed out by C code (itertools), so the per-item cost is nil."""
        if self.at is None:
            return iter(items)
        return itertools.chain.from_iterable(self.runs(items))

    def runs(self, items: Iterable[T]) -> Iterator[list[T]]:
        """items in lists of at most CHECK_EVERY, in order, the clock checked before each list
        (and once more at the end, as `paced` checks it): for a loop that makes a run's work
        at once (engine/trace/reverse.py's records)."""
        items = iter(items)
        while True:
            self.check()
            run = list(itertools.islice(items, CHECK_EVERY))
            if not run:
                return
            yield run


NO_DEADLINE = Deadline(None)
