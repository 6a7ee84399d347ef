"""``pazaak prepare`` on this machine: every match state two side decks can meet, solved ahead.

The local preparation of a deck pair (:func:`prepare_deck_pair`): my hands a tile at a time
against all of theirs, half of them in a forked copy when two processes are allowed, saving to
the disk cache now and then, with a progress that counts the work done in both processes
(:class:`PrepareProgress`). With a Dask cluster the same states are solved in waves of tasks
instead (:mod:`pazaak_cli.solve.prepare_plan`), to the same bits.
"""

from __future__ import annotations

import mmap
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.runtime.executors import Executor, run_shared, two_solver_processes
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import (
    MANY_SIDE_KINDS,
    MATCH_MEMO_STATES,
    prepare_runs,
    shared_match_solver,
)
from pazaak_cli.solve.match_cache import MAX_ENTRIES, save_entries
from pazaak_cli.solve.match_native import NativeMatchSolver
from pazaak_cli.solve.match_solver import MatchSolver, SolvedWork
from pazaak_cli.solve.prepare_plan import prepare_planned

PREPARE_SAVE_SECONDS = 120.0
"""How often :func:`prepare_deck_pair` writes what it has solved to the disk cache (a long
preparation stopped by Ctrl-C keeps all but the last minutes of its work)."""

PREPARE_TILE_HANDS = 12
"""How many of my hands a local :func:`prepare_deck_pair` solves at once against all of theirs
(``NativeMatchSolver.level_blocks``, group by group): the sub-hands my hands share are searched
once a tile where one of my hands at a time searched them again for each. Planned for
`kotor1-starter` against `kotor1-average` (each half of my hands, 0.6 GB of tables a process;
a real run has about 0.7): 1.00, 1.29, 1.39, 1.41 and 1.44 times less made with 1, 4, 8, 12
and 23 hands at once; 12 keeps a save between tiles (two minutes of work or so,
:data:`PREPARE_SAVE_SECONDS`)."""


class Prepared(NamedTuple):
    """What :func:`prepare_deck_pair` did."""

    my_hands: int
    """The hands my side deck can deal."""
    their_hands: int
    """The hands the other side deck can deal."""
    states: int
    """The match-state values of the deck pair: every sub-hand of mine against every one of
    theirs, at every score, for every opener the rule leaves open."""
    solved: int
    """Of those, the ones solved now (the others were known: in the disk cache)."""
    saved: bool
    """Whether the disk cache holds them now (False: it is off, or could not be written)."""


def prepare_deck_pair(
    rules: Ruleset,
    my_deck: Sequence[Card],
    their_deck: Sequence[Card],
    *,
    seat: int = 0,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
) -> Prepared:
    """Solve the value of every match state two side decks can meet (every hand mine deals
    against every hand theirs deals, at every score, me in ``seat``) into the shared solver
    and the disk cache, so that every later question of a match between them, from its first
    move, answers for the match by default (only its set in progress is left to solve). One of
    my hands at a time, within the solver's memory bound; ``progress(done, total)`` after each.
    With an ``executor`` (a Dask cluster), every state at once in waves of tasks instead
    (:mod:`pazaak_cli.solve.prepare_plan`; ``progress`` then counts states): the same values,
    bit for bit, as the values are solved order-free either way
    (``MatchSolver.values_order_free``). What is already known is not solved again, so a
    preparation stopped (Ctrl-C: what was solved is saved first) goes on where it stopped when
    asked again. A deck pair whose values the cache cannot hold
    (:data:`~pazaak_cli.solve.match_cache.MAX_ENTRIES`) is refused before any solving."""
    mine = [hand for hand, _ in possible_hands(my_deck, rules.hand_size)]
    theirs = [hand for hand, _ in possible_hands(their_deck, rules.hand_size)]
    solver = shared_match_solver(rules)
    seats = (mine, theirs) if seat == 0 else (theirs, mine)
    missing, states = solver.unsolved((0, 0), seats)
    openers = len(solver.opener_specs)
    if states * openers > MAX_ENTRIES:
        raise PazaakError(
            f"these decks meet in {states * openers:,} match states, more than the cache keeps "
            f"({MAX_ENTRIES:,}): the match answer solves them question by question instead"
        )
    known = solver.entry_count
    if known + missing * openers > MAX_ENTRIES:  # (else the work could never be saved)
        raise PazaakError(
            f"the cache already holds {known:,} match values and these decks would add "
            f"{missing * openers:,}, more than it keeps ({MAX_ENTRIES:,}): give PAZAAK_CACHE_DIR "
            "another directory, or delete the cache's files to start it afresh"
        )
    solver.forget_positions()  # (an answer's positions, moved to their fixed points)
    solver.values_order_free = True
    solver.rebuild_starts()  # (the values read from the cache start the rest as if solved here)
    before = solver.entry_keys()
    try:
        if executor is not None:
            prepare_planned(
                solver, (0, 0), seats, executor, max_states=MATCH_MEMO_STATES, progress=progress
            )
        else:
            told = None if progress is None else PrepareProgress(missing, progress)
            _prepare_by_hand(solver, mine, theirs, seat, told)
    except BaseException:
        solver.release_tables()
        # (Ctrl-C: the next preparation starts from here, each pair of sub-hands' round left
        # unfinished afresh, so that its values are those of one never stopped, bit for bit)
        solver.drop_unfinished_rounds((0, 0), seats, before)
        if solver.entry_count > known:
            save_entries(solver)
        raise
    finally:
        solver.values_order_free = False  # (answers: faster; the positions kept hold either way)
    saved = save_entries(solver)
    return Prepared(len(mine), len(theirs), states * openers, solver.entry_count - known, saved)


class PrepareProgress:
    """``progress(done, total)`` of a local preparation, in match states as a cluster's counts
    them (``total``: the states missing): the work done, from the share of its part each
    process has done (:meth:`told`; a score's blocks counted by the groups they make, each tile
    of my hands by :func:`tile_weights`). Counted by the states solved, it had shown 100 % for
    the last 30 % of the time (the forked copy's states come back at its end) and an ETA of 32 s
    where 44 were left at 5 % (the first states are the cheapest; `kotor1/hand-size=3`,
    docs/benchmarks.md). The shares live in memory a forked copy writes its own into
    (:meth:`in_copy`), and this process reads while it waits for it (:meth:`report`)."""

    def __init__(self, missing: int, progress: Callable[[int, int], None]) -> None:
        self.missing = missing
        self._progress: Callable[[int, int], None] | None = progress
        self._memory = mmap.mmap(-1, 8 * 2)  # (shared with a forked copy: slots 0 and 1)
        self._shares = memoryview(self._memory).cast("d")
        self._slots = 1
        self._slot = 0

    def split(self) -> None:
        """From now on the work is this process's part and a forked copy's, half each."""
        self._slots = 2

    def in_copy(self) -> None:
        """In the forked copy: write its share, report nothing (the bar is the parent's)."""
        self._slot, self._progress = 1, None

    def told(self, share: float) -> None:
        """This process has done this share of its part (never less than it said before)."""
        self._shares[self._slot] = max(self._shares[self._slot], min(share, 1.0))
        self.report()

    def report(self) -> None:
        """Say the work done so far, both processes' (in the copy: nothing)."""
        if self._progress is not None:
            done = sum(self._shares[: self._slots]) / self._slots
            self._progress(min(int(done * self.missing), self.missing), self.missing)


def _prepare_by_hand(
    solver: MatchSolver,
    mine: Sequence[tuple[Card, ...]],
    theirs: Sequence[tuple[Card, ...]],
    seat: int,
    progress: PrepareProgress | None,
) -> None:
    """prepare_deck_pair here: my hands a tile at a time, saving now and then; with two
    processes allowed, half of my hands in a forked copy at once (:func:`_prepare_split`)."""
    if len(mine) >= 2 and isinstance(solver, NativeMatchSolver) and two_solver_processes():
        _prepare_split(solver, mine, theirs, seat, progress)
    else:
        _prepare_hands(solver, mine, theirs, seat, progress)


def _prepare_hands(
    solver: MatchSolver,
    mine: Sequence[tuple[Card, ...]],
    theirs: Sequence[tuple[Card, ...]],
    seat: int,
    progress: PrepareProgress | None,
    *,
    processes: int | None = None,
    saving: bool = True,
) -> None:
    """My hands a tile at a time (:data:`PREPARE_TILE_HANDS`), against all of theirs at once
    in blocks where the tile's tables fit them (``processes``: sized for that many processes'
    tables at once), else one of mine at a time as :func:`prepare_runs` takes it; ``saving``:
    to the disk cache between tiles now and then; ``progress`` told after each block and
    tile."""
    saved_at = time.monotonic()
    if processes is None:
        processes = 2 if two_solver_processes() else 1
    tiles = [
        mine[start : start + PREPARE_TILE_HANDS]
        for start in range(0, len(mine), PREPARE_TILE_HANDS)
    ]
    weights = tile_weights(solver, tiles, theirs, seat)
    done = 0.0
    for tile, weight in zip(tiles, weights, strict=True):
        step = None
        if progress is not None:
            step = partial(_share_of, progress.told, done, weight)
        solver.bound_memo()
        try:
            _prepare_tile(solver, seat, tile, theirs, processes, step)
        finally:
            solver.release_tables()
        if saving and time.monotonic() - saved_at > PREPARE_SAVE_SECONDS:
            save_entries(solver)
            saved_at = time.monotonic()
        done += weight
        if progress is not None:
            progress.told(done)


def tile_weights(
    solver: MatchSolver,
    tiles: Sequence[Sequence[tuple[Card, ...]]],
    theirs: Sequence[tuple[Card, ...]],
    seat: int,
) -> list[float]:
    """The share of a preparation's work each tile of my hands is (they sum to 1): half by
    its hands, half by the match states it is the first to solve. A tile makes the tables of
    all its hands' sub-hands, but the states its sub-hands share with the tiles before it are
    known by then: by the hands alone, the first of two tiles was 0.55 of the work where it
    took 0.68 of the time (`kotor1-starter` against `kotor1-average`), by the states alone
    0.87 where it took 0.79 (`hand-size=3`); the mean of both erred by 0.04 at most there."""
    hands = sum(len(tile) for tile in tiles)
    missing, before = [], 0
    for number in range(len(tiles)):
        mine = [hand for tile in tiles[: number + 1] for hand in tile]
        seats = (mine, theirs) if seat == 0 else (theirs, mine)
        now = solver.unsolved((0, 0), seats)[0]
        missing.append(now - before)
        before = now
    if before == 0:
        return [len(tile) / hands for tile in tiles]
    return [
        (len(tile) / hands + new / before) / 2 for tile, new in zip(tiles, missing, strict=True)
    ]


def _share_of(told: Callable[[float], None], done: float, part: float, share: float) -> None:
    """``told`` the share of the whole done once ``done`` of it is, and ``share`` of the next
    ``part``."""
    told(done + share * part)


def _prepare_tile(
    solver: MatchSolver,
    seat: int,
    tile: Sequence[tuple[Card, ...]],
    theirs: Sequence[tuple[Card, ...]],
    processes: int,
    step: Callable[[float], None] | None = None,
) -> None:
    """Every score's match states of these hands of mine against all of theirs: at once, in
    blocks of groups, where their tables fit so (no flips or Doubles, whose sides make the memo
    grow past the room the blocks leave); else one of mine at a time, their hands all at once or
    in runs (:func:`prepare_runs`). ``step``: told the share of the tile done as it goes."""
    hands: tuple[list[Sequence[Card]], list[Sequence[Card]]] = (list(tile), list(theirs))
    seats = hands if seat == 0 else (hands[1], hands[0])
    cards = [card for hand in (*tile, *theirs) for card in hand]
    try:
        if (
            len(tile) > 1
            and not any(card.kind in MANY_SIDE_KINDS for card in cards)
            and solver.fits_in_blocks(seats, processes)
        ):
            solver.after_step = step
            solver.prepare_all((0, 0), seats, processes=processes)
            return
        for done, hand in enumerate(tile):
            if step is not None:
                solver.after_step = partial(_share_of, step, done / len(tile), 1 / len(tile))
            prepare_runs(solver, (0, 0), seat, hand, theirs, each=True, processes=processes)
    finally:
        solver.after_step = None


def _prepare_split(
    solver: NativeMatchSolver,
    mine: Sequence[tuple[Card, ...]],
    theirs: Sequence[tuple[Card, ...]],
    seat: int,
    progress: PrepareProgress | None,
) -> None:
    """:func:`_prepare_hands` in two processes at once: the first half of my hands here, the
    second in a forked copy (neighbouring hands share the most sub-hands), each sizing its
    runs for two processes' tables and not forking again. The copy's values, shares and moves
    come back by cards (:meth:`~MatchSolver.work_since`); a state both solved must have the
    same bits (the values are order-free), so the values are the one-process run's. Ctrl-C
    stops both: the copy's work so far comes back too (then Ctrl-C is raised here, and the
    caller saves it all). The progress counts both halves, this process's while it waits."""
    half = -(-len(mine) // 2)
    before = solver.entry_keys()
    if progress is not None:
        progress.split()

    def here(share: Sequence[tuple[Card, ...]]) -> tuple[SolvedWork | None, bool]:
        try:
            _prepare_hands(solver, share, theirs, seat, progress, processes=2)
        except KeyboardInterrupt:
            return None, True
        return None, False

    def there(share: Sequence[tuple[Card, ...]]) -> tuple[SolvedWork | None, bool]:
        stopped = False
        if progress is not None:
            progress.in_copy()
        try:
            _prepare_hands(solver, share, theirs, seat, progress, processes=2, saving=False)
        except KeyboardInterrupt:  # (passed on from here: the values solved so far are final)
            stopped = True
        return solver.work_since(before), stopped

    kept, solver.processes = solver.processes, 1  # (each of the two in one process)
    try:
        works = run_shared(
            [mine[:half], mine[half:]],
            here,
            there,
            stopped=lambda part: part[1],
            given_up=lambda share: (None, True),
            waiting=None if progress is None else progress.report,
        )
    finally:
        solver.processes = kept
    for work, _ in works[1:]:
        if work is not None:  # (None: the copy was lost, and its share solved here or given up)
            solver.take_work(work)
    if progress is not None:
        progress.report()  # (the copy's last share, written as it ended)
    if any(stopped for _, stopped in works):
        raise KeyboardInterrupt
