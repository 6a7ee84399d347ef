"""What the foresights read of the machine: the load of other work (pazaak_cli.runtime.cpu_load)
and the pace they learn (pazaak_cli.solve.foresight_pace)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from questions import hidden_question

from pazaak_cli.engine.decks import sample_deck
from pazaak_cli.runtime import cpu_load
from pazaak_cli.runtime.cpu_load import LoadWatch, Reading, read_counters
from pazaak_cli.runtime.executors import available_cores, two_solver_processes
from pazaak_cli.solve import foresight_pace
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.budgeted import Refinement
from pazaak_cli.solve.foresight_pace import FORESIGHT_ENV, MATCH_PACE, ForesightPace
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import match_seconds
from pazaak_cli.solve.time_budget import TimeBudget

LINUX = pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="reads Linux's counters")


def readings(*steps: tuple[float, int, int]) -> LoadWatch:
    """A watch whose counters read ``steps`` in turn: (seconds, busy ticks, own ticks)."""
    left = [Reading(*step) for step in steps]
    return LoadWatch(lambda: left.pop(0))


def test_the_busy_ticks_of_other_work_are_counted_over_the_window() -> None:
    tick = os.sysconf("SC_CLK_TCK")
    watch = readings((0.0, 0, 0), (1.0, 3 * tick // 2, tick // 2), (1.05, 9 * tick, tick))
    watch.mark()
    assert watch.busy_elsewhere() == pytest.approx(1.0)  # (1.5 processors busy, 0.5 mine)
    assert watch.busy_elsewhere() == pytest.approx(1.0)  # (50 ms: too short, the last kept)


def test_a_process_busier_than_the_counters_is_never_negative_and_no_counters_is_idle() -> None:
    tick = os.sysconf("SC_CLK_TCK")
    watch = readings((0.0, 0, 0), (1.0, tick, 2 * tick))
    watch.mark()
    assert watch.busy_elsewhere() == 0.0
    assert LoadWatch(lambda: None).busy_elsewhere() == 0.0
    unmarked = readings((0.0, 0, 0), (0.5, tick, 0))
    assert unmarked.busy_elsewhere() == 0.0  # (no window yet: idle, as before)
    assert unmarked.busy_elsewhere() == pytest.approx(2.0)


def test_the_slowdown_shares_the_processors_among_everything_that_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for busy, processes, cores, slower in [
        (0.0, 2, 2, 1.0),
        (1.0, 1, 2, 1.0),
        (1.0, 2, 2, 1.5),
        (2.0, 2, 2, 2.0),
        (30.0, 2, 2, cpu_load.MAX_SLOWDOWN),
        (1.0, 2, 4, 1.0),
    ]:
        monkeypatch.setattr(cpu_load._WATCH, "busy_elsewhere", lambda busy=busy: busy)
        assert cpu_load.slowdown(processes, cores) == slower


@LINUX
def test_a_busy_process_beside_this_one_is_seen() -> None:
    """Read from the real counters: a child spinning for half a second is about one processor
    (its ticks are not this process's until it is waited for); this process's own work is not
    counted."""
    first = read_counters()
    assert first is not None and first.busy >= first.own >= 0
    spin = "import time\nend = time.monotonic() + 0.6\nwhile time.monotonic() < end: pass"
    watch = LoadWatch()
    watch.mark()
    child = subprocess.Popen([sys.executable, "-c", spin])
    try:
        end = time.monotonic() + 0.5
        while time.monotonic() < end:  # (this process busy too: not counted)
            pass
        seen = watch.busy_elsewhere()
    finally:
        child.wait()
    assert seen >= 0.5


def test_the_match_foresight_is_stretched_by_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch foreseen at 14 s on an idle machine took 27 s beside other work: the foresight now
    counts the load it reads."""
    asked = hidden_question("5", "+1 +2 +3 +4", "", 4, rules="kotor1")
    options = SolveOptions(opponent_deck=sample_deck("kotor1-average").cards, objective="match")
    hands = possible_hands(sample_deck("kotor1-average").cards, 4)[:9]
    fixed = match_seconds(asked, options, hands)
    monkeypatch.delenv(FORESIGHT_ENV)
    monkeypatch.setattr(cpu_load._WATCH, "busy_elsewhere", lambda: 0.0)
    idle = match_seconds(asked, options, hands)
    assert idle == fixed  # (untaught, idle: the measured rates)
    busy = available_cores() + 1.0  # (more than the machine has: slower on any machine)
    monkeypatch.setattr(cpu_load._WATCH, "busy_elsewhere", lambda: busy)
    processes = 2 if two_solver_processes() else 1
    slower = cpu_load.slowdown(processes, available_cores())
    assert slower > 1.0
    assert match_seconds(asked, options, hands) == pytest.approx(idle * slower)
    monkeypatch.setenv(FORESIGHT_ENV, "fixed")  # (the tests' and benchmarks' foresight)
    monkeypatch.setattr(MATCH_PACE, "_paces", {"plain": 2.0})
    assert match_seconds(asked, options, hands) == fixed


def test_the_pace_is_taught_by_whole_batches_kept_in_range_and_read_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A batch foreseen at 19 s that took 25 s teaches its kind a slower pace, halfway in
    logarithm, and no other kind; the next command reads it from the cache directory; short
    batches teach nothing; a wild one is held within the range; a damaged file counts as
    untaught."""
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path))
    ForesightPace().learn("plain", 19.0, 25.0)
    assert ForesightPace().pace() == 1.0 and not list(tmp_path.iterdir())  # (fixed: untaught)
    monkeypatch.delenv(FORESIGHT_ENV)
    pace = ForesightPace()
    assert pace.pace() == 1.0
    pace.learn("plain", 19.0, 25.0)
    taught = math.sqrt(25.0 / 19.0)
    assert pace.pace("plain") == pytest.approx(taught) and pace.pace("gold") == 1.0
    assert ForesightPace().pace("plain") == pytest.approx(taught, abs=1e-4)
    pace.learn("plain", foresight_pace.LEARN_FROM_SECONDS / 2, 100.0)
    assert pace.pace("plain") == pytest.approx(taught)
    for _ in range(20):
        pace.learn("gold", 2.0, 1000.0)
    assert pace.pace("gold") == pytest.approx(foresight_pace.HIGHEST, abs=1e-4)
    assert ForesightPace().pace("plain") == pytest.approx(taught, abs=1e-4)
    (tmp_path / foresight_pace.FILE_NAME).write_text("{not json", encoding="utf-8")
    assert ForesightPace().pace("gold") == 1.0
    monkeypatch.setenv("PAZAAK_CACHE_DIR", "off")
    alone = ForesightPace()
    alone.learn("rule", 10.0, 20.0)  # (kept for the process: no file)
    assert alone.pace("rule") == pytest.approx(math.sqrt(2.0))
    assert not list(tmp_path.glob(".pace-*"))


def test_a_budgeted_match_answer_teaches_the_pace_its_batches_ran_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each match batch solved whole tells the pace what it was foreseen at and what it took;
    the foresight then counts that pace."""
    monkeypatch.delenv(FORESIGHT_ENV)
    monkeypatch.setattr(cpu_load._WATCH, "busy_elsewhere", lambda: 0.0)
    taught: list[tuple[float, float]] = []
    taught_kinds: list[str] = []

    def learned(kind: str, foreseen: float, took: float) -> None:
        taught_kinds.append(kind)
        taught.append((foreseen, took))

    monkeypatch.setattr(MATCH_PACE, "learn", learned)
    asked = hidden_question("8 5", "+1 -3", "10", 2, sets=(1, 1))
    options = SolveOptions(opponent_deck=sample_deck("kotor1-average").cards, objective="match")
    refinement = Refinement(asked, options)
    refinement.refine(TimeBudget(30.0))
    assert taught and all(foreseen > 0.0 and took > 0.0 for foreseen, took in taught)
    assert set(taught_kinds) == {"plain"}
    hands = possible_hands(sample_deck("kotor1-average").cards, 2)
    before = match_seconds(asked, options, hands)
    monkeypatch.setattr(MATCH_PACE, "_paces", {"plain": 2.0, "gold": 5.0})
    assert match_seconds(asked, options, hands) == pytest.approx(2.0 * before)
