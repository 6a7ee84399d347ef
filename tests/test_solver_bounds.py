"""Every solve has a memory bound that holds, reports its progress and stops on Ctrl-C; what is
too large to solve is refused with the reason, not left to run out of time or memory."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK, Side
from pazaak_cli.engine.notation import parse_table
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.solve import solver as solver_module
from pazaak_cli.solve.answer_types import SolverTooLarge
from pazaak_cli.solve.hidden_hands import (
    MAX_SUBHANDS,
    check_hand_sizes,
    hand_count,
    possible_hands,
    subhand_count,
)
from pazaak_cli.solve.solver import SetSolver, playing_side

RULES = parse_ruleset("kotor1/main-deck=infinite")
native = pytest.mark.skipif(solver_module._fastsolve is None, reason="the C loop is not built")


def first_move(solver: SetSolver, mine: str, theirs: str) -> tuple[float, float]:
    """The value of a 4 v 4 first move (both on 5), for the player to move."""
    me = playing_side(
        solver, Side(parse_table("5", RULES.flip_targets), 5, (), False), parse_cards(mine)
    )
    other = playing_side(
        solver, Side(parse_table("5", RULES.flip_targets), 5, (), False), parse_cards(theirs)
    )
    deck = solver.deck_id(FULL_DECK)
    return solver.before_draw(solver.side_id(me), solver.side_id(other), deck)


@native
def test_the_c_memo_stays_within_its_bound_and_the_values_do_not_change() -> None:
    # a memo of 2 x 65,536 entries for a search of some 200,000 positions: once full, the
    # before-draw table takes seven eighths of the after-draw one's room (131,072 + 8,192
    # entries) and the cache forgets the cheapest positions and solves them again, to the same
    # values
    free = SetSolver(RULES, fixed_draws=FULL_DECK)
    bounded = SetSolver(RULES, fixed_draws=FULL_DECK, max_states=200_000)
    expected = first_move(free, "+1 -2 ±3", "±2 +3 -4")
    assert free.states > 150_000 and not free._core.rebalanced
    assert first_move(bounded, "+1 -2 ±3", "±2 +3 -4") == expected
    core = bounded._core
    assert core.replaced > 0 and core.rebalanced
    assert core.memo_bytes == (131_072 + 8_192) * 24  # (24 bytes an entry)
    assert bounded.states <= 131_072 + 8_192 < free.states
    assert bounded.solved > free.solved  # what it forgot, it solved again


@native
def test_a_c_memo_grown_where_it_is_keeps_every_position() -> None:
    """A table with a bound doubles in the room mapped for it, its entries rehashed in place
    (_core.h, memo_grow_in_place): it holds and solves exactly the positions a table without a
    bound holds (moved to a new table at each doubling), none lost; once full, the before-draw
    table's one doubling past its bound (``rebalance``) is in place too, to the same values."""
    mine, theirs = "+1 -2 ±3 +4", "±2 +3 -4 ±1"
    free = SetSolver(RULES, fixed_draws=FULL_DECK)
    expected = first_move(free, mine, theirs)
    assert free.states > 400_000  # (each table doubled in place past 2^18 slots)
    roomy = SetSolver(RULES, fixed_draws=FULL_DECK, max_states=2**22)
    assert first_move(roomy, mine, theirs) == expected
    counts = (roomy.states, roomy.solved, roomy._core.replaced)
    assert counts == (free.states, free.solved, free._core.replaced)
    assert not roomy._core.rebalanced
    full = SetSolver(RULES, fixed_draws=FULL_DECK, max_states=2**19)  # (tables of 2^18: 6 MB)
    assert first_move(full, mine, theirs) == expected
    assert full._core.rebalanced and full._core.replaced > 0
    assert full._core.memo_bytes == (2**19 + 2**15) * 24
    assert first_move(full, "+1 -2 ±3", "-1 +4 ±5") == first_move(
        SetSolver(RULES, fixed_draws=FULL_DECK), "+1 -2 ±3", "-1 +4 ±5"
    )


@native
def test_a_c_memo_made_room_for_at_once_gives_the_same_values_within_its_bound() -> None:
    free = SetSolver(RULES, fixed_draws=FULL_DECK)
    expected = first_move(free, "+1 -2 ±3", "±2 +3 -4")
    reserved = SetSolver(RULES, fixed_draws=FULL_DECK)
    reserved.reserve(free.states)
    room = reserved._core.memo_bytes
    assert room >= 2 * free.states * 24  # (each table at most half full)
    assert first_move(reserved, "+1 -2 ±3", "±2 +3 -4") == expected
    assert reserved._core.memo_bytes == room  # it never had to grow
    assert reserved.solved <= free.solved  # (roomier: fewer windows full, less forgotten)
    bounded = SetSolver(RULES, fixed_draws=FULL_DECK, max_states=200_000)
    bounded.reserve(10**9)
    assert bounded._core.memo_bytes == 2 * 65_536 * 24  # the bound holds
    assert first_move(bounded, "+1 -2 ±3", "±2 +3 -4") == expected


@native
def test_a_short_searchs_memo_in_small_pages_gives_the_same_values() -> None:
    """A budgeted answer's memo tables are made in small pages at once (not in huge pages):
    from the 4 MB on that _core.h maps from the system (here 2 x 2^19 slots, 24 MB), through a
    doubling, and back: the values to the last bit."""
    expected = first_move(SetSolver(RULES, fixed_draws=FULL_DECK), "+1 -2 ±3", "±2 +3 -4")
    solver = SetSolver(RULES, fixed_draws=FULL_DECK)
    solver.short_searches(True)
    assert solver._core.small_pages
    solver.reserve(2**19)
    assert solver._core.memo_bytes >= 2 * 2**19 * 24
    assert first_move(solver, "+1 -2 ±3", "±2 +3 -4") == expected
    solver.short_searches(False)
    assert not solver._core.small_pages
    solver.reserve(2**21)  # (a doubling into huge pages, the positions moved)
    assert first_move(solver, "+1 -2 ±3", "±2 +3 -4") == expected
    assert first_move(solver, "+1 -2 ±3", "-1 +4 ±5") == first_move(
        SetSolver(RULES, fixed_draws=FULL_DECK), "+1 -2 ±3", "-1 +4 ±5"
    )


@native
def test_a_full_c_memo_forgets_the_positions_of_earlier_rounds_first() -> None:
    # two hidden hands one after the other in a memo too small for both: begun as a new round,
    # the second keeps its own positions before those the first hand stored, so it
    # solves fewer of them again; the values are the same either way
    expected = first_move(SetSolver(RULES, fixed_draws=FULL_DECK), "+1 -2 ±3", "-1 +4 ±5")

    def second_hand(rounds: bool) -> int:
        solver = SetSolver(RULES, fixed_draws=FULL_DECK, max_states=100_000)
        first_move(solver, "+1 -2 ±3", "±2 +3 -4")
        if rounds:
            solver.next_round()
        before = solver.solved
        assert first_move(solver, "+1 -2 ±3", "-1 +4 ±5") == expected
        return solver.solved - before

    with_rounds, without = second_hand(True), second_hand(False)
    assert with_rounds * 2 < without


@native
def test_more_sides_than_the_c_keys_can_number_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert solver_module._fastsolve.MAX_IDS == 2**24 - 1  # (two ids a 48-bit key)
    monkeypatch.setattr(solver_module._fastsolve, "MAX_IDS", 500)  # (a search needs more)
    with pytest.raises(SolverTooLarge, match="more than 500 distinct sides"):
        first_move(SetSolver(RULES, fixed_draws=FULL_DECK), "+1 -2 ±3", "±2 +3 -4")
    result = CliRunner().invoke(
        main,
        ["advise", "--ruleset", "kotor1/main-deck=infinite", "--table", "5", "--hand", "+1 -2 ±3"]
        + ["--opp-table", "5", "--opp-hand", "±2 +3 -4", "--objective", "set"],
    )
    assert result.exit_code == 1, result.output
    assert "the C solver can number" in result.stderr and "Traceback" not in result.output


@native
def test_a_long_c_search_reports_its_progress_and_lets_ctrl_c_through() -> None:
    reports: list[int] = []
    solver = SetSolver(RULES, fixed_draws=FULL_DECK, max_states=2048, progress=reports.append)

    def interrupt_after_two(solved: int) -> None:
        reports.append(solved)
        if len(reports) == 2:
            signal.raise_signal(signal.SIGINT)  # a real Ctrl-C, seen by the C loop itself
        if len(reports) > 50:
            raise RuntimeError("the C loop did not see the signal")

    solver.progress = interrupt_after_two
    solver._core.progress = interrupt_after_two
    # Python's own Ctrl-C handler, whatever the test process was given (as test_forked does)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            first_move(solver, "+1 -2 ±3 +4 +5", "±2 +3 -4 +1 -5")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert reports == sorted(reports) and reports[0] > 0


def test_a_python_search_past_its_bound_is_refused_not_grown() -> None:
    solver = SetSolver(RULES, fixed_draws=FULL_DECK, native=False, max_states=20_000)
    with pytest.raises(SolverTooLarge, match="more than 20,000 positions"):
        first_move(solver, "+1 -2 ±3 +4", "±2 +3 -4 +1")
    assert solver.states < 20_000 + 2 * 16_384


def test_a_python_search_reports_its_progress() -> None:
    reports: list[int] = []
    solver = SetSolver(RULES, fixed_draws=FULL_DECK, native=False, progress=reports.append)
    first_move(solver, "+1 -2", "±2 +3")
    assert reports and reports == sorted(reports)


def test_hands_too_large_to_explore_are_refused_with_the_reason() -> None:
    rules = parse_ruleset("kotor1/side-deck-size=40,hand-size=40")
    hand = parse_cards(" ".join(["+1 -1 ±1 +2 -2 ±2 +3 -3 ±3 +4 -4 ±4 +5 -5 ±5 +6 -6 ±6"] * 2))
    assert subhand_count(hand) == 3**18 > MAX_SUBHANDS
    with pytest.raises(PazaakError, match=r"your hand of 36 cards can be left in 387,420,489 ways"):
        check_hand_sizes(rules, [hand], [])


@pytest.mark.parametrize(("deck", "size"), [("+1 +1 -2 ±3 D T", 2), ("+1 +1 +1 -2 -2 ±3", 3)])
def test_hands_are_counted_without_listing_them(deck: str, size: int) -> None:
    cards = parse_cards(deck)
    copies = [cards.count(card) for card in dict.fromkeys(cards)]
    assert hand_count(copies, size) == len(possible_hands(cards, size))


def test_exact_past_its_bound_is_refused_saying_what_to_use_instead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pure-Python set solver (where the C loop is not built) holds every position it
    solves on the exact deck: past its bound it refuses, saying what to use instead (the C
    loop's positions are a bounded cache: it answers, test_native.py)."""
    monkeypatch.setattr(solver_module, "EXACT_MEMO_STATES", 10_000)
    monkeypatch.setattr(solver_module, "_fastsolve", None)
    # a 4 v 4 first move solved without replacement: millions of positions
    args = ["advise", "--table", "5", "--hand", "+1 -2 ±3 +4", "--opp-table", ""]
    result = CliRunner().invoke(
        main, [*args, "--opp-hand", "±3 +4 -1 +2", "--objective", "set", "--exact"]
    )
    assert result.exit_code == 1, result.output
    assert "drop --exact" in result.stderr and "Traceback" not in result.output


def test_a_variant_with_too_many_hidden_hands_is_refused_at_once(tmp_path: Path) -> None:
    # a hand size of 40: ten hidden cards of a 40-card deck are 3.8 million possible hands
    spec = "kotor1/side-deck-size=40,hand-size=40"
    pool = "+1 -1 ±1 +2 -2 ±2 +3 -3 ±3 +4 -4 ±4 +5 -5 ±5 +6 -6 ±6"
    deck = tmp_path / "forty.deck"
    deck.write_text(f"ruleset: {spec}\n{pool} {pool} +1 +2 +3 +4\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["advise", "--ruleset", spec, "--table", "5", "--hand", "+1", "--opp-table", "6",
         "--opp-hand-size", "10", "--opp-deck", str(deck)],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "could be any of 3,789,626 hands" in result.stderr
    assert "give its hand (--opp-hand)" in result.stderr
