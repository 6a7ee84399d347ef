"""Every test starts from the same environment, whatever the caller's shell has set.

Colour (``NO_COLOR``), the terminal's width (``COLUMNS``, ``LINES``), its type (``TERM``) and
the locale change what the commands print, and the match answer reads and writes its cache
directory; a test that needs another value sets it itself (``monkeypatch.setenv`` or the
runner's ``env``), which overrides these. The match solver that questions share within a process
starts empty too: what an earlier test solved would change what the default answers. The
foresights count their measured rates alone (``PAZAAK_FORESIGHT=fixed``), not the load of the
other test worker beside each test, nor a pace taught by an earlier test: the tests of the load
and the pace lift it themselves (tests/test_foresight_machine.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from pazaak_cli.runtime import executors
from pazaak_cli.solve import match_solver
from pazaak_cli.solve.foresight_pace import FORESIGHT_ENV, MATCH_PACE
from pazaak_cli.solve.match_advice import clear_shared_solvers

CLEARED = (
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "LANGUAGE",
    "LC_CTYPE",
    "LC_MESSAGES",
)
"""Unset for every test: the output is coloured exactly when a test asks for colour."""

FIXED = {
    "COLUMNS": "80",
    "LINES": "24",
    "TERM": "xterm",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
}
"""Set for every test: an 80-column UTF-8 terminal."""


@pytest.fixture(autouse=True)
def same_environment_for_every_test(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    for name, value in FIXED.items():
        monkeypatch.setenv(name, value)
    # the match answer's cache on disk: a fresh directory, never the caller's
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    # the foresights at their measured rates, in this process and in the commands it starts
    monkeypatch.setenv(FORESIGHT_ENV, "fixed")
    MATCH_PACE.forget()
    clear_shared_solvers()


FRESH_PROCESS_BYTES = 200_000_000
"""About what a fresh ``pazaak`` process holds before its first exact solve."""


@pytest.fixture
def room_of_a_fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exact-deck solve gets the room it would have in a fresh process: its memory bound
    counts this process's resident memory, which the earlier tests of a long-lived test worker
    grew (up to 2.4 GB measured, freed memory the allocator keeps), so it is pinned. The bound
    itself is tested in tests/test_exact_memory.py; this is for tests of what the exact solve
    answers."""
    monkeypatch.setattr(match_solver, "resident_bytes", lambda: FRESH_PROCESS_BYTES)


@pytest.fixture
def forks_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The forked copies made from here on, counted: a 1 for each
    :class:`~pazaak_cli.runtime.executors.ForkedCall` (skipped where the system cannot fork)."""
    if not executors.fork_available():
        pytest.skip("no fork on this system")
    made: list[int] = []

    class Counted(executors.ForkedCall):
        def __init__(self, function: Any) -> None:
            made.append(1)
            super().__init__(function)

    monkeypatch.setattr(executors, "ForkedCall", Counted)
    return made
