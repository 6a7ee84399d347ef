"""How much of this machine's processor other work is using: what a foresight of seconds must
allow for.

The match answer's foresight counts its work at rates measured on an idle machine. With another
program busy (the game itself, beside `pazaak follow`), the two processes of an answer share
what is left, and a batch foreseen at 14 s took 27 s (docs/benchmarks.md). The load is read
from the system's counters over a window that costs nothing: from the previous reading (the
command's launch, :func:`mark`, or the last answer of a long-lived command) to now. Linux only;
elsewhere the machine counts as idle, as before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import NamedTuple

MIN_WINDOW_SECONDS = 0.1
"""A window shorter than this says too little (the counters tick 100 times a second): the
reading before it is kept."""

MAX_SLOWDOWN = 4.0
"""The most a foresight is stretched, whatever the counters say."""


class Reading(NamedTuple):
    """The counters at one instant, in clock ticks."""

    at: float
    """:func:`time.monotonic` when read."""
    busy: int
    """Ticks the processors this process may use spent on any work, or taken by the host."""
    own: int
    """Ticks this process and its children that ended spent."""


def _cores() -> set[int] | None:
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return None


def read_counters() -> Reading | None:
    """The counters now (``None`` where the system does not have them)."""
    cores = _cores()
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            lines = stat.read().splitlines()
        with open("/proc/self/stat", encoding="ascii") as mine:
            fields = mine.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    busy = 0
    for line in lines:
        name, *values = line.split()
        if not name.startswith("cpu") or name == "cpu":
            continue
        if cores is not None and int(name[3:]) not in cores:
            continue
        # user nice system idle iowait irq softirq steal: all but idle and iowait (steal is
        # the host's other work, time this machine's processors could not run)
        ticks = [int(value) for value in values[:8]]
        busy += sum(ticks) - ticks[3] - ticks[4]
    own = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return Reading(time.monotonic(), busy, own)


class LoadWatch:
    """Readings of the counters, each window from the last kept reading to now."""

    def __init__(self, read: Callable[[], Reading | None] = read_counters) -> None:
        self._read = read
        self._last: Reading | None = None
        self._busy = 0.0

    def mark(self) -> None:
        """Begin a window now (the command's launch)."""
        self._last = self._read()

    def busy_elsewhere(self) -> float:
        """How many processors' worth other work used over the last window (0 where unknown);
        a window too short keeps the figure of the one before."""
        now = self._read()
        if now is None:
            return 0.0
        last = self._last
        if last is None:
            self._last = now
            return self._busy
        seconds = now.at - last.at
        if seconds < MIN_WINDOW_SECONDS:
            return self._busy
        ticks = os.sysconf("SC_CLK_TCK") * seconds
        self._busy = max(0.0, (now.busy - last.busy) - (now.own - last.own)) / ticks
        self._last = now
        return self._busy


_WATCH = LoadWatch()


def mark() -> None:
    """Begin the first window at the command's launch (the ``pazaak`` program does)."""
    _WATCH.mark()


def slowdown(processes: int, cores: int) -> float:
    """How many times longer work shared among ``processes`` of this one takes than on an idle
    machine of ``cores`` processors: the scheduler shares them out evenly among everything that
    runs (1 where what runs fits them)."""
    busy = _WATCH.busy_elsewhere()
    return min(MAX_SLOWDOWN, max(1.0, (processes + busy) / max(cores, 1)))


__all__ = ["LoadWatch", "Reading", "mark", "read_counters", "slowdown"]
