"""The optional C inner loop is built by the README's install command, and the solver uses it."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import Card, all_cards, parse_cards
from pazaak_cli.engine.game import FULL_DECK
from pazaak_cli.engine.rules import KOTOR1, parse_ruleset
from pazaak_cli.solve import solver as solver_module
from pazaak_cli.solve.answer_types import SolverTooLarge
from pazaak_cli.solve.solver import SetSolver


@pytest.mark.skipif(
    bool(os.environ.get("PAZAAK_PURE_PYTHON")), reason="the pure-Python solver was asked for"
)
def test_the_c_inner_loop_is_built_and_used() -> None:
    # fails if `pip install -e` did not build it (mypy cannot see into a C module: the ignore)
    from pazaak_cli.solve import _fastsolve  # type: ignore[attr-defined]  # noqa: F401

    assert SetSolver(KOTOR1, fixed_draws=FULL_DECK).native
    assert not SetSolver(KOTOR1, fixed_draws=FULL_DECK, native=False).native
    assert SetSolver(KOTOR1).native  # the exact finite deck too (its decks named by codes)
    assert not SetSolver(KOTOR1, native=False).native


_NATIVE = pytest.mark.skipif(
    not SetSolver(KOTOR1, fixed_draws=FULL_DECK).native, reason="the C loop is not built"
)
_LIST_RULES = [
    "kotor1",
    "kotor2",
    "kotor2/flip-targets=positive-only",
    "kotor2/tiebreaker=any-played",
    "kotor1/nine-cards=win",
    "kotor2/nine-cards=stand,table-size=5,target=15",
]


@_NATIVE
@settings(max_examples=300, deadline=None)
@given(
    spec=st.sampled_from(_LIST_RULES),
    hand=st.lists(st.sampled_from(all_cards()), max_size=4),
    total=st.integers(-12, 24),
    cards=st.integers(0, 9),
    flips=st.tuples(st.integers(-12, 12), st.integers(-12, 12)),
    tiebreak=st.booleans(),
    drawn=st.integers(1, 10),
)
def test_the_core_builds_the_candidate_lists_python_builds(
    spec: str,
    hand: list[Card],
    total: int,
    cards: int,
    flips: tuple[int, int],
    tiebreak: bool,
    drawn: int,
) -> None:
    """The C core builds the ways a turn can end after a draw from the hands' plays; the
    Python solver's lists (the reference) are the same sides in the same order, for any side."""
    rules = parse_ruleset(spec)
    python = SetSolver(rules, fixed_draws=FULL_DECK, native=False)
    native = SetSolver(rules, fixed_draws=FULL_DECK)
    held = python.hands.intern(hand)
    assert native.hands.intern(hand) == held
    flip24, flip36, _ = python.hands.facts[held]
    side = (total, cards, held, flips[0] if flip24 else 0, flips[1] if flip36 else 0, tiebreak)

    made = python._candidates[python._candidate_list(python.side_id(side), drawn)]
    expected = [code if code < 0 else python._sides[code] for code in made]
    core = native._core
    codes = core.candidates(native.side_id(side), drawn)
    assert [code if code < 0 else core.side(code) for code in codes] == expected
    assert core.candidates(native.side_id(side), drawn) == codes  # (kept, not made again)


@_NATIVE
def test_the_core_refuses_what_it_cannot_hold() -> None:
    solver = SetSolver(KOTOR1, fixed_draws=FULL_DECK)
    core = solver._core
    with pytest.raises(ValueError, match="hand not added"):
        core.intern_side((10, 2, 5, 0, 0, False))  # (no hand 5 was added)
    with pytest.raises(ValueError, match="range"):
        core.intern_side((300, 2, 0, 0, 0, False))
    with pytest.raises(ValueError, match="names no kind"):
        core.add_hands([(False, False, 0, [(3, 9, 0)], [1])])  # (kind 9)
    with pytest.raises(ValueError, match="sorted"):
        core.add_hands([(False, False, 0, [], [2, 1])])
    with pytest.raises(IndexError):
        core.candidates(core.intern_side((15, False)), 3)  # (a standing side draws nothing)
    assert core.nsides == 1 and core.nlists == 0
    core.add_hands([(False, False, 0, [], []), (False, False, 0, [(5, 0, 0)], [1])])
    with pytest.raises(ValueError, match="in order"):
        core.add_alive(1, [()])
    with pytest.raises(ValueError, match="not added"):
        core.add_alive(0, [(), (), ()])
    with pytest.raises(ValueError, match="do not rise"):
        core.add_alive(0, [(), ((15, 0), (15, 0))])
    with pytest.raises(ValueError, match="names no hand"):
        core.add_alive(0, [(), ((15, 7),)])
    core.add_alive(0, [(), ((15, 0),)])  # (+5 is dead from 15 on: the hand left is hand 0)
    assert core.side(core.intern_side((16, 0, 1, 0, 0, False))) == (16, 0, 0, 0, 0, False)
    assert core.side(core.intern_side((14, 0, 1, 0, 0, False))) == (14, 0, 1, 0, 0, False)


@_NATIVE
@settings(max_examples=50, deadline=None)
@given(
    spec=st.sampled_from(_LIST_RULES),
    hands=st.tuples(
        st.lists(st.sampled_from(all_cards()), max_size=2),
        st.lists(st.sampled_from(all_cards()), max_size=2),
    ),
    totals=st.tuples(st.integers(8, 19), st.integers(8, 20)),
    other_stands=st.booleans(),
    deck=st.lists(st.integers(0, 2), min_size=10, max_size=10),
)
def test_the_core_solves_the_exact_deck_as_python_does(
    spec: str,
    hands: tuple[list[Card], list[Card]],
    totals: tuple[int, int],
    other_stands: bool,
    deck: list[int],
) -> None:
    """On the exact deck (drawn without replacement, renewed whole once empty: small decks run
    out) the C loop keys each position by the deck's code and makes its draws itself; the
    values are Python's (the reference), whatever the sides, hands and deck."""
    rules = parse_ruleset(spec)
    values = []
    for native in (False, True):
        solver = SetSolver(rules, native=native)
        assert solver.native is native
        mine, theirs = (solver.hands.intern(hand) for hand in hands)
        mover = solver.side_id((totals[0], 2, mine, 0, 0, False))
        if other_stands:
            other = solver.side_id((totals[1], False))
        else:
            other = solver.side_id((totals[1], 2, theirs, 0, 0, False))
        values.append(solver.before_draw(mover, other, solver.deck_id(tuple(deck))))
    assert values[1] == pytest.approx(values[0], abs=1e-12)


@_NATIVE
def test_the_core_s_exact_positions_are_a_cache_with_a_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A core on the exact deck forgets positions to stay within its bound and solves them
    again, to the same values; a budget stops its search (the caller then draws with fixed
    odds)."""
    rules = parse_ruleset("kotor1")
    deck = (1,) * 10  # (a cache far too small solves the same positions over and over: a
    # small search, 118 K positions, 4.6 M solved with 2,048 slots)

    def solve(solver: SetSolver) -> tuple[float, float]:
        hand = solver.hands.intern(tuple(parse_cards("+1 -2 +3")))
        other = solver.hands.intern(tuple(parse_cards("-1 +2")))
        mover = solver.side_id((5, 1, hand, 0, 0, False))
        theirs = solver.side_id((8, 1, other, 0, 0, False))
        return solver.before_draw(mover, theirs, solver.deck_id(deck))

    roomy = SetSolver(rules)
    value = solve(roomy)
    assert roomy._core.replaced == 0 and roomy.states > 8 * 2048
    monkeypatch.setattr(solver_module, "NATIVE_EXACT_ENTRIES", 2048)
    small = SetSolver(rules)
    assert solve(small) == value
    assert small.states <= 2048 < small._core.replaced
    assert small.solved > roomy.solved
    monkeypatch.setattr(solver_module, "NATIVE_EXACT_ENTRIES", 4096)
    halved = SetSolver(rules, shares=2)  # (one of two processes sharing an average: half)
    held = halved._core.memo_bytes
    halved.reserve(10_000_000)  # (its fixed-odds memos unused: nothing to make room in)
    assert halved._core.memo_bytes == held
    assert solve(halved) == value
    assert halved.states <= 2048 < halved._core.replaced
    with pytest.raises(SolverTooLarge, match="budget"):
        solve(SetSolver(rules, budget=1000))
