"""A match state's value as a function of the state alone: with ``values_order_free``, whatever
the solver solved before it, in whatever order or process, the same bits. Work cut into tasks
run anywhere (:mod:`pazaak_cli.solve.prepare_plan`) rests on it: its values must be the local
run's, byte for byte."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.runtime import executors
from pazaak_cli.runtime.executors import Executor, InProcess, LocalProcesses
from pazaak_cli.solve import deck_pair_prepare, match_native
from pazaak_cli.solve.deck_pair_prepare import prepare_deck_pair
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import clear_shared_solvers, shared_match_solver
from pazaak_cli.solve.match_native import NativeMatchSolver
from pazaak_cli.solve.prepare_plan import prepare_planned

RULES = parse_ruleset("kotor1/hand-size=2")
MINE_DECK = parse_cards("+1 +1 +1 +1 +2 +2 +2 +3 +3 +3")
THEIRS_DECK = parse_cards("-1 -1 -1 -1 +4 +4 +4 -2 -2 -2")
MINE = [hand for hand, _ in possible_hands(MINE_DECK, 2)]
THEIRS = [hand for hand, _ in possible_hands(THEIRS_DECK, 2)]

Values = dict[tuple[tuple[int, int], tuple[tuple[Card, ...], tuple[Card, ...]], int], float]


def prepared(
    mine: list[tuple[Card, ...]],
    theirs: list[tuple[Card, ...]],
    processes: int,
    *,
    order_free: bool = True,
) -> Values:
    """Every match-state value of the deck pair, prepared one of my hands at a time in this
    order (as ``prepare_deck_pair`` does) in a fresh solver of ``processes`` processes."""
    solver = NativeMatchSolver(RULES, max_states=5_000_000)
    solver.processes = processes
    solver.values_order_free = order_free
    for hand in mine:
        solver.bound_memo()
        solver.prepare_all((0, 0), ([hand], theirs))
    return {(score, hands, spec): value for score, hands, spec, value in solver.known_entries()}


@functools.cache
def _forward() -> Values:
    return prepared(MINE, THEIRS, 1)


def forward_reference() -> Values:
    """``prepared(MINE, THEIRS, 1)``, the reference most tests here compare with: solved once a
    process (3 s), a copy each time."""
    return dict(_forward())


def deck_pair_prepared() -> Values:
    """Every match-state value ``prepare_deck_pair`` solves for the two decks, from a fresh
    shared solver (dropped after)."""
    clear_shared_solvers()
    try:
        prepare_deck_pair(RULES, MINE_DECK, THEIRS_DECK)
        return {(s, h, p): v for s, h, p, v in shared_match_solver(RULES).known_entries()}
    finally:
        clear_shared_solvers()


def test_the_values_do_not_depend_on_the_order_they_are_solved_in() -> None:
    forward = forward_reference()
    backward = prepared(MINE[::-1], THEIRS[::-1], 1)
    all_at_once = NativeMatchSolver(RULES, max_states=5_000_000)
    all_at_once.processes = 1
    all_at_once.values_order_free = True
    all_at_once.prepare_all((0, 0), (MINE, THEIRS))
    assert len(forward) == 10 * 10 * 9  # (10 sub-hands a side, 9 scores of a match to 3)
    assert backward == forward  # (floats compared exactly)
    assert {(s, h, p): v for s, h, p, v in all_at_once.known_entries()} == forward
    # (the answers' solver moves a converged state's positions to its fixed point: faster, and
    # the last bits then depend on the order)
    assert prepared(MINE[::-1], THEIRS[::-1], 1, order_free=False) != forward


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_two_processes_sharing_the_scores_give_the_same_bits() -> None:
    """The pipeline (every other score in a forked process) passes the moves of the first
    guesses back too: without them the parent's later states started elsewhere (2,684 of a
    deck pair's 9,801 values differed in the last bits)."""
    assert prepared(MINE, THEIRS, 2) == forward_reference()


@pytest.mark.parametrize("executor", [InProcess, lambda: LocalProcesses(2)], ids=["here", "pool"])
def test_the_plan_of_tasks_gives_the_local_bits(executor: Callable[[], Executor]) -> None:
    """prepare's tasks (a hand's family of states at a score, each task carrying the values it
    reads; the states two families share solved in both), run by a solver of their own here or
    spread over two worker processes (each keeping its solver from task to task): the values
    of the local run."""
    solver = NativeMatchSolver(RULES, max_states=5_000_000)
    running = executor()
    try:
        solved = prepare_planned(solver, (0, 0), (MINE, THEIRS), running, max_states=5_000_000)
    finally:
        running.close()
    assert solved == 900
    got = {(s, h, p): v for s, h, p, v in solver.known_entries()}
    assert got == forward_reference()


@pytest.mark.parametrize("opener", ["player1", "alternate", "loser", "random"])
def test_every_opener_rule_gives_the_local_bits(opener: str) -> None:
    """The opener specs a value is kept under (a seat each, both together, a coin) come back
    from the tasks as the local run has them."""
    rules = parse_ruleset(f"kotor1/hand-size=1,first-player={opener}")
    mine = [hand for hand, _ in possible_hands(parse_cards("+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"), 1)]
    theirs = [hand for hand, _ in possible_hands(parse_cards("-1 -1 +2 +2 -3 -3 +4 +4 -5 -5"), 1)]
    local = NativeMatchSolver(rules, max_states=5_000_000)
    local.processes, local.values_order_free = 1, True
    for hand in mine:
        local.prepare_all((0, 0), ([hand], theirs))
    planned = NativeMatchSolver(rules, max_states=5_000_000)
    running = LocalProcesses(2)
    try:
        prepare_planned(planned, (0, 0), (mine, theirs), running, max_states=5_000_000)
    finally:
        running.close()
    expected = {(s, h, p): v for s, h, p, v in local.known_entries()}
    assert {(s, h, p): v for s, h, p, v in planned.known_entries()} == expected
    assert len(expected) == 6 * 6 * 9 * (2 if opener in ("alternate", "loser") else 1)


def test_prepare_takes_their_hands_in_runs_where_all_do_not_fit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """prepare_deck_pair, one of my hands at a time (where a tile of them does not fit): their
    hands all at once where a score's tables fit, else in runs of neighbouring hands (sharing
    their sub-hands' states), not one at a time; the values are the same bits either way."""
    expected = forward_reference()  # (before the solver is patched)
    monkeypatch.setattr(deck_pair_prepare, "PREPARE_TILE_HANDS", 1)
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "1")
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", 12_000_000)  # (3 of their 6 hands)
    runs: list[int] = []
    prepare_all = NativeMatchSolver.prepare_all

    def counted(
        self: NativeMatchSolver, scores: tuple[int, int], hands: Any, **options: Any
    ) -> None:
        runs.append(len(hands[1]))
        prepare_all(self, scores, hands, **options)

    monkeypatch.setattr(NativeMatchSolver, "prepare_all", counted)
    monkeypatch.setattr(NativeMatchSolver, "fits_in_blocks", lambda *args: False)
    got = deck_pair_prepared()
    assert 1 < max(runs) < len(THEIRS) and sum(runs) >= len(MINE) * len(THEIRS)
    assert got == expected


@pytest.mark.parametrize("processes", ["1", "2"])
def test_prepare_takes_their_hands_all_at_once_in_blocks_where_those_fit(
    processes: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where a score's tables for all their hands do not fit but its blocks do (the sub-hands
    their hands share kept, each whole hand's own tables made and freed in turn, a shared row
    freed early and made again where the next hand's rows need its room), all their hands go
    at once, every group made and freed; the values are the same bits, in one process or with
    half of my hands in a forked copy. (One of my hands at a time: where a tile of them does not
    fit.)"""
    expected = forward_reference()  # (all at once, before the bounds are lowered)
    monkeypatch.setattr(deck_pair_prepare, "PREPARE_TILE_HANDS", 1)
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", processes)
    # (three fifths of the tables of all 6 of their hands, for each process: the blocks need
    # less)
    solver = NativeMatchSolver(RULES, max_states=5_000_000)
    solver.fits(([MINE[0]], THEIRS))
    pairs = [
        (x, y)
        for x in solver.sub_hands(solver.hands.intern(MINE[0]))
        for y in solver._union_sub_hands(THEIRS)
    ]
    whole = sum(solver._dense_bytes(pairs, 1))
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", whole * 3 // 5 * int(processes))
    monkeypatch.setattr(match_native, "FORK_MEMORY_BYTES", whole * 3 // 5 * int(processes))
    monkeypatch.setattr(match_native, "resident_bytes", lambda: 0)
    made: list[int] = []
    level_blocks = NativeMatchSolver.level_blocks

    def counted(self: NativeMatchSolver, pairs: Any) -> Any:
        blocks = level_blocks(self, pairs)
        if blocks is not None:
            made.append(sum(len(step) for step, _ in blocks.steps))
            assert {pair for step, _ in blocks.steps for pair in step} == set(pairs)
            assert sum(len(freed) for _, freed in blocks.steps) == made[-1]
        return blocks

    monkeypatch.setattr(NativeMatchSolver, "level_blocks", counted)
    got = deck_pair_prepared()
    assert made
    assert got == expected


@pytest.mark.parametrize("processes", ["1", "2"])
def test_prepare_takes_a_tile_of_my_hands_at_once_in_blocks_of_groups(
    processes: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """prepare_deck_pair takes several of my hands at once against all of theirs, group by
    group: every group a state reads is held when the state is solved, the tables held stay
    within the bound (groups read again last freed first, and made again), every group made is
    freed; the values are the bits of my hands one at a time, and the progress counts the match
    states up to all of them; in one process, or with half of my hands in a forked copy."""
    expected = forward_reference()
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", processes)
    solver = NativeMatchSolver(RULES, max_states=5_000_000)
    solver.fits((MINE, THEIRS))
    pairs = [(x, y) for x in solver._union_sub_hands(MINE) for y in solver._union_sub_hands(THEIRS)]
    limit = sum(solver._dense_bytes(pairs, 1)) * 3 // 10
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", limit)
    monkeypatch.setattr(match_native, "FORK_MEMORY_BYTES", 2 * limit)
    monkeypatch.setattr(match_native, "resident_bytes", lambda: 0)
    plans: list[tuple[NativeMatchSolver, Any]] = []
    level_blocks = NativeMatchSolver.level_blocks

    def counted(self: NativeMatchSolver, pairs: Any) -> Any:
        blocks = level_blocks(self, pairs)
        if blocks is not None and self._blocking is not None and len(self._blocking.others) > 1:
            plans.append((self, blocks))
        return blocks

    monkeypatch.setattr(NativeMatchSolver, "level_blocks", counted)
    told: list[tuple[int, int]] = []
    clear_shared_solvers()
    try:
        prepare_deck_pair(RULES, MINE_DECK, THEIRS_DECK, progress=lambda *done: told.append(done))
        got = {(s, h, p): v for s, h, p, v in shared_match_solver(RULES).known_entries()}
    finally:
        clear_shared_solvers()
    assert plans and got == expected
    for owner, blocks in plans:
        held: set[tuple[int, int]] = set()
        made = 0
        for step, freed in blocks.steps:
            held.update(step)
            made += len(step)
            for x, y in step:
                reads = {(a, b) for a in owner.sub_hands(x) for b in owner.sub_hands(y)}
                assert reads <= held
            assert set(freed) <= held
            held.difference_update(freed)
        assert (
            not held
            and blocks.peak <= limit
            and made > len({p for s, _ in blocks.steps for p in s})
        )
    assert told == sorted(told) and told[-1] == (told[-1][1], told[-1][1]) and len(told) > 2


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_prepare_in_two_processes_gives_the_bits_of_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With two processes allowed, prepare_deck_pair solves half of my hands in a forked copy
    at once (their runs sized for two processes' tables); the values, and the shares and moves
    later solves start from, come back and are the one-process run's, bit for bit."""
    expected = forward_reference()  # (before the solver is patched)
    split: list[int] = []
    prepare_split = deck_pair_prepare._prepare_split

    def counted(solver: Any, mine: Any, *args: Any) -> None:
        split.append(len(mine))
        prepare_split(solver, mine, *args)

    monkeypatch.setattr(deck_pair_prepare, "_prepare_split", counted)
    solved = {}
    for processes in ("1", "2"):
        monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", processes)
        monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / processes))  # (each from nothing)
        clear_shared_solvers()
        try:
            prepare_deck_pair(RULES, MINE_DECK, THEIRS_DECK)
            solver = shared_match_solver(RULES)
            solved[processes] = (
                {(s, h, p): v for s, h, p, v in solver.known_entries()},
                solver.starting_shares(),
                solver.share_moves(),
            )
        finally:
            clear_shared_solvers()
    assert split == [len(MINE)]
    values, shares, moves = solved["2"]
    assert values == solved["1"][0] == expected
    assert (shares, moves) == solved["1"][1:]


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_a_preparations_progress_counts_the_forked_copys_share_as_it_goes() -> None:
    """The progress of a preparation in two processes is the mean of each one's share of its
    part, the copy's read from the memory it writes it in, and reported by this process only
    (when it is told, and while it waits): it no longer shows the end while the copy works."""
    told: list[tuple[int, int]] = []
    progress = deck_pair_prepare.PrepareProgress(1000, lambda *done: told.append(done))
    progress.split()
    progress.told(0.5)
    assert told[-1] == (250, 1000)

    def copys_share() -> None:
        progress.in_copy()
        progress.told(0.25)  # (written, not reported: the bar is the parent's)

    executors.ForkedCall(copys_share).result()
    assert told[-1] == (250, 1000)
    progress.report()
    assert told[-1] == (375, 1000)
    progress.told(0.4)  # (a share never goes back)
    assert told[-1] == (375, 1000)
    progress.told(1.0)
    assert told[-1] == (625, 1000)


def test_a_tiles_weight_counts_its_hands_and_the_states_it_solves_first() -> None:
    """The first tile of my hands solves the states its sub-hands share with the later ones:
    by the hands alone it was 0.55 of the work where it took 0.68 of the time."""
    solver = NativeMatchSolver(RULES)
    tiles = [MINE[:2], MINE[2:4], MINE[4:]]
    assert all(tiles)
    weights = deck_pair_prepare.tile_weights(solver, tiles, THEIRS, 0)
    assert sum(weights) == pytest.approx(1.0)
    hands = [len(tile) / len(MINE) for tile in tiles]
    assert weights[0] > hands[0] and weights[-1] < hands[-1]
    firsts = [solver.unsolved((0, 0), (MINE[:2], THEIRS))[0]]
    total = solver.unsolved((0, 0), (MINE, THEIRS))[0]
    assert weights[0] == pytest.approx((hands[0] + firsts[0] / total) / 2)
    assert weights == deck_pair_prepare.tile_weights(solver, tiles, THEIRS, 0)  # (no state solved)
    mirrored = deck_pair_prepare.tile_weights(solver, tiles, THEIRS, 1)
    assert sum(mirrored) == pytest.approx(1.0)
