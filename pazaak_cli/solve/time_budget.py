"""How long an answer may take, as one value from the command line to the deadline check.

A budget is a number of seconds counted from an instant (the command's start, where the person
began to wait), or none: the exact answer, however long it takes. Every layer reads the same
value: the service chooses the objective from :attr:`TimeBudget.seconds`, a refinement stops at
:attr:`TimeBudget.deadline`, the notes compare :meth:`TimeBudget.spent` with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TimeBudget:
    """``seconds`` from ``started`` (a :func:`time.monotonic` instant), ``None``: no limit."""

    seconds: float | None = None
    """How long the answer may take; ``None`` for the exact answer however long it takes."""
    started: float = field(default_factory=time.monotonic)
    """When the wait began (the command's start: parsing counts against the budget too)."""

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


__all__ = ["TimeBudget"]
