"""ForkedCall: a function run in a forked child, its result or its exception brought back."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections.abc import Iterable

import pytest

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.runtime.executors import (
    SOLVER_PROCESSES_VARIABLE,
    WAITING_SECONDS,
    ForkedCall,
    SharedDeal,
    SharedTally,
    TwoEnds,
    WorkerLost,
    _worker_started,
    fork_available,
    run_shared,
)
from pazaak_cli.solve.hand_rows import HandsSolved, MoveRow, balanced_split, solve_dealt

pytestmark = pytest.mark.skipif(not fork_available(), reason="no fork on this system")


def test_the_result_comes_back_from_another_process() -> None:
    call = ForkedCall(lambda: (os.getpid(), [1.5, 2.5], {"a": 1}))
    pid, values, mapping = call.result()
    assert pid != os.getpid()
    assert values == [1.5, 2.5] and mapping == {"a": 1}
    assert call.pid is None  # (reaped)


def test_state_held_here_is_seen_there() -> None:
    held = {"table": list(range(1000))}
    assert ForkedCall(lambda: sum(held["table"])).result() == sum(range(1000))


def test_an_error_raised_there_is_raised_here() -> None:
    def fails() -> None:
        raise PazaakError("too large")

    with pytest.raises(PazaakError, match="too large"):
        ForkedCall(fails).result()


def test_a_parent_waiting_for_its_child_is_told_it_still_waits() -> None:
    """``result(waiting)`` calls ``waiting()`` every WAITING_SECONDS while the child works (a
    progress bar kept moving), and still brings the answer back."""
    told: list[float] = []

    def slow() -> str:
        time.sleep(3 * WAITING_SECONDS + 0.2)
        return "done"

    assert ForkedCall(slow).result(lambda: told.append(time.monotonic())) == "done"
    assert len(told) >= 2


def test_a_child_that_dies_without_an_answer_is_lost() -> None:
    with pytest.raises(WorkerLost):
        ForkedCall(lambda: os._exit(3)).result()
    with pytest.raises(WorkerLost):
        ForkedCall(lambda: os.kill(os.getpid(), signal.SIGKILL)).result()


def test_the_child_leaves_what_it_inherited_to_its_parents_collector() -> None:
    """The objects held at the fork are frozen in the child (its collector never walks them,
    which would copy their pages) and collectable here as before."""
    held = [[index] for index in range(1000)]
    frozen_there = ForkedCall(lambda: gc.get_freeze_count()).result()
    assert frozen_there >= len(held)
    assert gc.get_freeze_count() == 0
    gc.freeze()  # (a program that froze its own keeps them frozen)
    try:
        frozen = gc.get_freeze_count()
        assert ForkedCall(lambda: gc.get_freeze_count()).result() > frozen // 2
        assert gc.get_freeze_count() > frozen // 2  # (not unfrozen by the fork)
    finally:
        gc.unfreeze()


def test_stop_ends_a_running_child() -> None:
    call = ForkedCall(lambda: signal.pause())
    pid = call.pid
    assert pid is not None
    call.stop()
    assert call.pid is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)  # (already reaped)
    call.stop()  # (twice is harmless)


def test_a_pool_worker_solves_in_its_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SOLVER_PROCESSES_VARIABLE, raising=False)

    def started() -> str | None:
        _worker_started(os.getppid())
        return os.environ.get(SOLVER_PROCESSES_VARIABLE)

    assert ForkedCall(started).result() == "1"
    assert SOLVER_PROCESSES_VARIABLE not in os.environ  # (this process is untouched)


def test_run_shared_keeps_the_shares_order_and_redoes_a_lost_share_here() -> None:
    here_pid = os.getpid()

    def here(share: int) -> tuple[int, bool]:
        return share * 10, os.getpid() == here_pid

    def there(share: int) -> tuple[int, bool]:
        if share == 3:
            os._exit(9)  # (dies without an answer)
        return share * 10, os.getpid() == here_pid

    got = run_shared([1, 2, 3, 4], here, there)
    assert got == [(10, True), (20, False), (30, True), (40, False)]


def test_run_shared_raises_a_childs_error_and_ends_the_others() -> None:
    def there(share: int) -> int:
        if share == 2:
            raise PazaakError("share 2 failed")
        signal.pause()  # (would run for ever: ended by run_shared)
        return share

    with pytest.raises(PazaakError, match="share 2 failed"):
        run_shared([1, 2, 3], lambda share: share, there)


def test_run_shared_does_a_share_here_when_no_child_can_be_forked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_fork() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert run_shared([1, 2, 3], lambda share: share * 10, lambda share: -1) == [10, 20, 30]


_CTRL_C_AFTER_FORK: list[bool] = []
"""Armed by the test below: a Ctrl-C arrives while Python runs its after-fork handlers."""


def _ctrl_c_after_fork() -> None:
    if _CTRL_C_AFTER_FORK:
        _CTRL_C_AFTER_FORK.clear()
        signal.raise_signal(signal.SIGINT)


if fork_available():
    os.register_at_fork(after_in_parent=_ctrl_c_after_fork)


def test_a_ctrl_c_during_the_fork_is_raised_not_lost(recwarn: pytest.WarningsRecorder) -> None:
    """Raised inside the handlers Python runs after a fork (the logging module has one), a
    KeyboardInterrupt is printed and dropped, and a long solve would go on: ForkedCall holds
    Ctrl-C back until the fork is done, then raises it and ends the child."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _CTRL_C_AFTER_FORK.append(True)
        with pytest.raises(KeyboardInterrupt):
            ForkedCall(lambda: signal.pause())
    finally:
        _CTRL_C_AFTER_FORK.clear()
        signal.signal(signal.SIGINT, previous)
    assert not [w for w in recwarn if "Exception ignored" in str(w.message)]


def test_a_ctrl_c_here_leaves_the_copies_no_more_pieces() -> None:
    """solve_dealt: once this process's share stops (Ctrl-C, or the engine's stop), the deal
    is drained, so the forked copy takes no other piece, even one that would not stop (without
    it the copy would deal itself all 200: 4 s here); what it finished comes back."""
    row: MoveRow = ((0.0, 0.0, 0.0, 0.0),)

    def here(share: Iterable[int]) -> HandsSolved:
        first = next(iter(share))
        time.sleep(0.1)  # (the copy has started its first hands)
        return HandsSolved({first: row}, True)

    def there(share: Iterable[int]) -> HandsSolved:
        rows = {}
        for index in share:
            with contextlib.suppress(KeyboardInterrupt):  # (a piece that does not stop)
                time.sleep(0.02)
            rows[index] = row
        return HandsSolved(rows, False)

    started = time.monotonic()
    done = solve_dealt(range(200), here, there, 2)
    assert done.interrupted and 2 <= len(done.rows) <= 20
    assert time.monotonic() - started < 2


def _long_hands(share: Iterable[int]) -> HandsSolved:
    """A copy's hands of 30 s each, stopped as a search is by Ctrl-C: it answers with the hands
    it finished."""
    rows: dict[int, MoveRow] = {}
    try:
        for index in share:
            time.sleep(30)
            rows[index] = ((0.0, 0.0, 0.0, 0.0),)
    except KeyboardInterrupt:
        return HandsSolved(rows, True)
    return HandsSolved(rows, False)


def test_a_stop_here_stops_the_copies_hands_under_way() -> None:
    """The copy's hand under way is stopped with this process's (a hand's search can take a
    minute: the engine's stop waited for it), and its answer still comes back."""

    def here(share: Iterable[int]) -> HandsSolved:
        time.sleep(0.3)  # (the copy is in its first hand)
        return HandsSolved({}, True)

    started = time.monotonic()
    done = solve_dealt(range(10), here, _long_hands, 2)
    assert done.interrupted and done.rows == {}
    assert time.monotonic() - started < 10


def _ctrl_c_in(seconds: float) -> threading.Timer:
    """A Ctrl-C to this (main) thread in ``seconds``, as the engine's stop sends it."""
    main = threading.main_thread().ident
    assert main is not None
    timer = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer


def test_a_ctrl_c_while_waiting_is_passed_on_to_work_that_answers_it() -> None:
    """Done with its share, this process waits for the copy's; a Ctrl-C then reaches the copy
    (whose answer, read in part when the Ctrl-C came, is still read whole), and a copy that
    ends without an answer after it is given up, not solved here."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:

        def there(share: int) -> str:
            try:
                time.sleep(30)
            except KeyboardInterrupt:
                if share == 2:
                    os._exit(5)
                return f"{share} stopped" + "." * 200_000  # (more than a pipe holds at once)
            return f"{share} done"

        timer = _ctrl_c_in(0.5)
        started = time.monotonic()
        got = run_shared(
            [0, 1, 2], str, there, stopped=lambda _: False, given_up=lambda share: f"{share} -"
        )
        timer.join()
        assert got == ["0", "1 stopped" + "." * 200_000, "2 -"]
        assert time.monotonic() - started < 10

        # a second Ctrl-C while a copy does not stop: raised, the copies ended
        def stubborn(share: int) -> str:
            until = time.monotonic() + 15  # (bounded: a regression fails, it does not hang)
            while time.monotonic() < until:
                with contextlib.suppress(KeyboardInterrupt):
                    time.sleep(until - time.monotonic())
            return "done"

        first, second = _ctrl_c_in(0.5), _ctrl_c_in(1.0)
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_shared([0, 1], str, stubborn, stopped=lambda _: False, given_up=str)
        first.join()
        second.join()
        assert time.monotonic() - started < 10
        # without `stopped`, the Ctrl-C is raised and the copies ended
        timer = _ctrl_c_in(0.5)
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_shared([0, 1], str, there)
        timer.join()
        assert time.monotonic() - started < 10
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_drained_deal_deals_nothing_more() -> None:
    deal = SharedDeal(5)
    assert deal.take() == 0
    deal.drain()
    assert deal.take() is None
    deal.close()
    deal.drain()  # (closed: nothing to do)


def test_a_shared_tally_counts_what_the_copies_finish() -> None:
    """Each piece a forked copy finishes is counted here, read without waiting, as often as
    asked; nothing finished reads as 0."""
    tally = SharedTally()
    assert tally.count() == 0

    def finish_five() -> None:
        for _ in range(5):
            tally.add()

    ForkedCall(finish_five).result()
    assert tally.count() == 5
    assert tally.count() == 5
    tally.close()


def test_two_ends_take_every_number_once_until_they_meet() -> None:
    """Here the front, in a forked copy the back, each slow on its own numbers (the back's
    cost eight times the front's): every number is taken, the front's and the back's each a run
    of neighbours, the one they meet on at most by both, and the slow end takes fewer."""
    ends = TwoEnds(2, 40)

    def take(end: str) -> list[int]:
        taken = []
        next_number = ends.take_front if end == "front" else ends.take_back
        while (number := next_number()) is not None:
            taken.append(number)
            time.sleep(0.008 if end == "back" else 0.001)
        return taken

    front, back = run_shared(["front", "back"], take, take)
    assert front == list(range(2, 2 + len(front)))
    assert back == list(range(39, 39 - len(back), -1))
    assert set(front) | set(back) == set(range(2, 40))
    assert len(set(front) & set(back)) <= 1
    assert len(back) < len(front)
    assert ends.taken() >= 38
    assert ends.take_front() is None and ends.take_back() is None
    ends.back_lost()  # (the back's process died: its numbers are taken again from the end)
    assert ends.take_back() == 39


def test_two_runs_are_cut_where_their_costs_balance() -> None:
    """The exact average's two runs of hands are cut where the costlier one costs least, as the
    caller weighs a run (a run's first hands cost the most: halves by count left one process
    waiting for the other); without weights, halves."""
    assert balanced_split(list(range(10)), len) == 5
    costly_start = lambda run: len(run) + 5 * sum(index < 3 for index in run)  # noqa: E731
    assert balanced_split(list(range(10)), costly_start) == 2
    row: MoveRow = ((0.0, 0.0, 0.0, 0.0),)
    pids: dict[int, int] = {}

    def here(share: Iterable[int]) -> HandsSolved:
        taken = list(share)
        pids.update(dict.fromkeys(taken, os.getpid()))
        return HandsSolved({index: row for index in taken}, False)

    def there(share: Iterable[int]) -> HandsSolved:
        return HandsSolved(
            {index: ((float(os.getpid()), 0.0, 0.0, 0.0),) for index in share}, False
        )

    done = solve_dealt(range(10), here, there, 2, contiguous=True, weigh=costly_start)
    assert sorted(done.rows) == list(range(10))
    assert sorted(pids) == [0, 1]  # (this process: the costly first two; the copy the rest)
    assert all(done.rows[index][0][0] not in (0.0, float(os.getpid())) for index in range(2, 10))
