"""How long an answer may take, as one value from the command line to the deadline check.

A budget is a number of seconds counted from an instant (the command's start, where the person
began to wait), or none: the exact answer, however long it takes. Every layer reads the same
value: the service chooses the objective from :attr:`TimeBudget.seconds`, a refinement stops at
:attr:`TimeBudget.deadline`, the notes compare :meth:`TimeBudget.spent` with it.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.runtime import cpu_load

LAUNCH_SECONDS_AT_MOST = 1.0
"""The launch a process reports is taken only if it was at most this long before the program
marked it (:func:`mark_launched`; Python's start and the imports take about 0.1 s): anything
longer is a clock to distrust, and the mark itself is taken instead."""

_launched: float | None = None


def mark_launched() -> None:
    """Say that this process was launched to run one command (the ``pazaak`` program's entry
    point does): its budget then counts from the launch, where the person began to wait
    (:func:`command_started`; 0.22 s of a `--time 3` answer, Python's start and the imports,
    were not counted before), and begin the window over which the foresights read the
    machine's load (:mod:`pazaak_cli.runtime.cpu_load`)."""
    global _launched
    now = time.monotonic()
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = int(fields[19])  # (the start time, in clock ticks since boot)
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):  # (not Linux)
        age = 0.0
    _launched = now - age if 0.0 <= age <= LAUNCH_SECONDS_AT_MOST else now
    cpu_load.mark()  # (what other work uses of the machine, read from here on)


def command_started() -> float:
    """The :func:`time.monotonic` instant a command's wait began: the process's launch where
    the program marked it (:func:`mark_launched`), else now (a command called in-process, by a
    test or another program, begins its wait when called)."""
    return time.monotonic() if _launched is None else _launched


@dataclass(frozen=True)
class TimeBudget:
    """``seconds`` from ``started`` (a :func:`time.monotonic` instant), ``None``: no limit."""

    seconds: float | None = None
    """How long the answer may take; ``None`` for the exact answer however long it takes."""
    started: float = field(default_factory=time.monotonic)
    """When the wait began (the command's start: parsing counts against the budget too)."""

    def __post_init__(self) -> None:
        seconds = self.seconds
        if seconds is not None and (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or seconds < 0
        ):
            raise PazaakError(
                f"a time budget is a number of seconds, 0 or more, or None, not {seconds!r}"
            )

    @property
    def limited(self) -> bool:
        return self.seconds is not None

    @property
    def deadline(self) -> float | None:
        """The :func:`time.monotonic` instant the answer is due, ``None`` without a limit."""
        return None if self.seconds is None else self.started + self.seconds

    def left(self) -> float | None:
        """Seconds left before the deadline (0 once past it), ``None`` without a limit."""
        deadline = self.deadline
        return None if deadline is None else max(deadline - time.monotonic(), 0.0)

    def late(self) -> bool:
        """Whether the deadline has passed (never, without a limit)."""
        deadline = self.deadline
        return deadline is not None and time.monotonic() >= deadline

    def spent(self) -> float:
        """Seconds since the wait began."""
        return time.monotonic() - self.started


__all__ = ["TimeBudget", "command_started", "mark_launched"]
