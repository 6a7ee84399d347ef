"""The C inner loop of the match solver (``NativeMatchSolver``) against the pure-Python one.

Both solve the same questions: every move's match value and set odds must agree to 1e-12 (the
same sums in the same order: equal, but for the fixed point's last step, below 1e-13, when one
solver settled a match state's positions at the last iterate and the other solved them again
from its final value). Positions come from seeded random playouts through the engine, stopped
at a decision after a draw, with the score set by hand; hands are small (0 to 2 cards) and
scores late, so that the pure solver answers in seconds. One solver per ruleset and path serves the
whole module, so memos carried from one question to the next are checked too.

Then: a KeyboardInterrupt raised inside the C recursion (from a Python callback, or Ctrl-C by a
signal) leaves the solver usable and exact.
"""

from __future__ import annotations

import os
import random
import signal
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

import pytest

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.game import FORFEIT, FULL_DECK, Open, Phase, new_match
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.runtime import executors
from pazaak_cli.solve import match_advice, match_native, match_solver
from pazaak_cli.solve.answer_types import SolveOptions, SolverTooLarge
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import solve_match_question
from pazaak_cli.solve.match_native import NativeMatchSolver, make_match_solver, native_available
from pazaak_cli.solve.match_pipeline import Pipeline
from pazaak_cli.solve.match_solver import Level, MatchMove, MatchSolver

pytestmark = pytest.mark.skipif(not native_available(), reason="the C match core is not built")

_SOLVERS: dict[tuple[str, bool], MatchSolver] = {}


def shared(spec: str, native: bool) -> MatchSolver:
    key = (spec, native)
    if key not in _SOLVERS:
        rules = parse_ruleset(spec)
        _SOLVERS[key] = NativeMatchSolver(rules) if native else MatchSolver(rules)
    return _SOLVERS[key]


def playout(
    spec: str, hands: tuple[str, str], score: tuple[int, int], seed: int, decisions: int
) -> tuple[Question, tuple[Card, ...]]:
    """A question after ``decisions`` random decisions of a set at ``score``, and the hand of
    the seat not to move."""
    rules = parse_ruleset(spec)
    state = new_match(rules, (parse_cards(hands[0]), parse_cards(hands[1])))
    winners = (0,) * score[0] + (1,) * score[1]
    rng = random.Random(seed)
    state = state._replace(set_winners=winners)
    state = state.child(Open(rng.choice(state.possible_openers())))
    seen = 0
    while True:
        if state.phase is Phase.AFTER_DRAW and not state.played:
            if seen == decisions:
                break
            seen += 1
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [float(p) for _, p in outcomes])[0]
        else:
            action = rng.choice([a for a in state.legal_actions() if a != FORFEIT])
        child = state.child(action)
        if child.phase in (Phase.SET_OVER, Phase.MATCH_OVER):  # start this set over
            return playout(spec, hands, score, seed + 1000, decisions)
        state = child
    other = state.sides[1 - state.turn].hand
    return question_from_state(state), tuple(card for card in other if card is not None)


def compare(
    spec: str,
    question: Question,
    other: Sequence[Card],
    current_deck: tuple[int, ...] | None = None,
    exact: bool = False,
) -> list[MatchMove]:
    pure = shared(spec, False).solve_moves(question, other, current_deck=current_deck, exact=exact)
    fast = shared(spec, True).solve_moves(question, other, current_deck=current_deck, exact=exact)
    assert [m.move for m in fast] == [m.move for m in pure]
    for a, b in zip(fast, pure, strict=True):
        for field in ("match_win", "set_win", "set_tie", "set_loss"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), abs=1e-12), (a, b)
    return fast


K1 = "kotor1/main-deck=infinite"


@pytest.fixture(autouse=True)
def _memory_left_for_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solver forks only when its process's resident memory leaves room for two scores'
    tables; a test worker holds what earlier tests left, so the tests that count forks would
    depend on the order they run in. They see a process holding nothing (the bound's own test
    sets it back)."""
    monkeypatch.setattr(match_native, "resident_bytes", lambda: 0)


K2 = "kotor2/main-deck=infinite"
K2P1 = K2 + ",first-player=player1"  # (one opener: half the pure solver's work)

CASES = [
    # (ruleset, hands, score, seed, decisions)
    (K1, ("+1", ""), (2, 2), 1, 0),
    (K1, ("+1 +2", ""), (2, 2), 3, 2),
    (K1, ("", ""), (2, 1), 4, 0),
    (K1, ("", ""), (1, 2), 5, 1),
    (K1 + ",nine-cards=win", ("", ""), (2, 2), 6, 3),
    (K1 + ",first-player=random", ("", ""), (2, 2), 7, 0),
    (K1 + ",first-player=alternate", ("", ""), (2, 2), 8, 1),
    (K1 + ",first-player=alternate", ("", ""), (2, 1), 9, 2),
    (K1 + ",first-player=loser", ("", ""), (2, 1), 11, 1),
    (K2, ("T", ""), (2, 2), 12, 0),
    (K2 + ",nine-cards=stand,tiebreaker=any-played", ("", "T"), (2, 2), 17, 2),
    (K2P1, ("", "F2/4"), (2, 2), 13, 1),
    (K2P1, ("F3/6", ""), (2, 2), 14, 2),
    (K2P1, ("D", ""), (2, 2), 15, 1),
    (K2P1, ("", "±1/2"), (2, 2), 16, 0),
]


@pytest.mark.parametrize(("spec", "hands", "score", "seed", "decisions"), CASES)
def test_native_agrees_with_pure_python(
    spec: str, hands: tuple[str, str], score: tuple[int, int], seed: int, decisions: int
) -> None:
    question, other = playout(spec, hands, score, seed, decisions)
    assert question.state.sets_won() == score
    compare(spec, question, other)


def test_both_seats_and_a_depleted_current_deck() -> None:
    """The seat to move is 1 as well as 0; the set in progress draws with the fixed
    probabilities of a depleted deck (its own model id in the core), then a full one again."""
    for seed in range(3):
        question, other = playout(K1, ("+1", ""), (2, 2), 20 + seed, seed + 1)
        compare(K1, question, other, current_deck=(4, 4, 1, 3, 4, 0, 4, 2, 4, 4))
        compare(K1, question, other, current_deck=(1, 4, 4, 4, 4, 4, 4, 4, 4, 2))
        compare(K1, question, other)
    seats = set()
    for seed in range(8):
        question, other = playout(K1, ("", ""), (2, 2), 30 + seed, 1 + seed % 3)
        seats.add(question.state.turn)
        compare(K1, question, other, current_deck=(4, 4, 4, 4, 3, 4, 4, 4, 1, 4))
    assert seats == {0, 1}


LATER_DECK = (1, 4, 2, 4, 0, 3, 4, 4, 2, 4)
"""A depleted composition for the later sets' model (``MatchSolver.later_deck``)."""


def test_later_sets_drawn_from_another_deck_agree_with_pure_python() -> None:
    """The later sets' model on another deck than a full one (the deck-model measurement's):
    the core draws them with its odds as Python does, at two scores, and the values differ from
    the full deck's."""
    rules = parse_ruleset(K1)
    pure = MatchSolver(rules, later_deck=LATER_DECK)
    fast = NativeMatchSolver(rules, later_deck=LATER_DECK)
    moved = 0.0
    for seed, (hands, score) in enumerate([(("+1", "-2"), (2, 2)), (("", "+1"), (2, 1))]):
        question, other = playout(K1, hands, score, 40 + seed, 1 + seed % 2)
        slow = pure.solve_moves(question, other, current_deck=LATER_DECK)
        quick = fast.solve_moves(question, other, current_deck=LATER_DECK)
        full = shared(K1, True).solve_moves(question, other, current_deck=LATER_DECK)
        for a, b, c in zip(quick, slow, full, strict=True):
            assert a.move == b.move == c.move
            assert a.match_win == pytest.approx(b.match_win, abs=1e-12), (a, b)
            moved = max(moved, abs(a.match_win - c.match_win))
    assert moved > 1e-3


EXACT_DECKS = [
    (1, 1, 0, 1, 0, 1, 0, 0, 1, 1),
    (0, 2, 1, 0, 1, 0, 2, 1, 0, 1),
]


@pytest.mark.parametrize(("spec", "hands", "score", "seed", "decisions"), CASES[::2])
@pytest.mark.usefixtures("room_of_a_fresh_process")
def test_an_exact_current_deck_is_solved_by_the_core_as_python_solves_it(
    spec: str, hands: tuple[str, str], score: tuple[int, int], seed: int, decisions: int
) -> None:
    """A set drawn without replacement: the core keys its positions by the deck's code as well
    (each deck's draws made from it, an empty deck renewed whole), and answers as the pure
    solver does, on small decks; Python holds none of its positions."""
    question, other = playout(spec, hands, score, seed + 40, decisions)
    for deck in EXACT_DECKS:
        compare(spec, question, other, current_deck=deck, exact=True)
    fast = shared(spec, True)
    assert isinstance(fast, NativeMatchSolver)
    assert not fast._groups and fast._py_positions == 0


def test_the_positions_drawn_exactly_are_a_cache_that_forgets_to_the_same_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The core keeps the positions of a set drawn exactly in a cache of ``exact_entries``
    slots: far too few for the search, it forgets the cheapest to make room and solves them
    again, and the answers are the same to the last bit (a value is a function of its
    position); set between searches, the size forgets what the cache held."""
    question, other = playout(K1, ("+1 +2 -3", "-3 +4 +1"), (2, 2), 41, 1)
    deck = tuple(count - 1 for count in FULL_DECK)
    roomy = NativeMatchSolver(parse_ruleset(K1))
    first = roomy.solve_moves(question, other, current_deck=deck, exact=True)
    held = roomy._fast.exact_states  # (before a draw: those after one are not kept)
    assert held > 1024 and roomy._fast.exact_replaced == 0
    monkeypatch.setattr(match_native, "EXACT_ENTRIES_MOST", 1024)
    monkeypatch.setattr(match_native, "EXACT_ENTRIES_LEAST", 1024)
    small = NativeMatchSolver(parse_ruleset(K1))
    assert small.solve_moves(question, other, current_deck=deck, exact=True) == first
    assert small._fast.exact_states <= 1024 < small._fast.exact_replaced
    assert small._fast.solved > roomy._fast.solved  # (what it forgot, solved again)
    roomy._fast.exact_entries = 1 << 20
    assert roomy._fast.exact_states == 0
    with pytest.raises(ValueError, match="power of two"):
        roomy._fast.exact_entries = 3000


BLIND_CASES = [
    # (ruleset, hands, score, seed, decisions): the seat not to move holds cards
    (K1, ("+1", "-2"), (2, 1), 50, 1),
    (K1, ("", "+1 -1"), (1, 2), 51, 0),
    (K1 + ",first-player=alternate", ("+2", "+1"), (2, 2), 52, 2),
    (K2P1, ("", "±1/2"), (2, 2), 53, 1),
]


@pytest.mark.parametrize(("spec", "hands", "score", "seed", "decisions"), BLIND_CASES)
def test_a_solver_blind_to_the_later_hands_agrees_with_pure_python(
    spec: str, hands: tuple[str, str], score: tuple[int, int], seed: int, decisions: int
) -> None:
    """``later_blind``: the later sets take the opponent's hand as empty; the core maps it where
    Python does, and every match state either solves is the opponent's empty hand."""
    question, other = playout(spec, hands, score, seed, decisions)
    blind = 1 - question.state.turn
    rules = parse_ruleset(spec)
    pure = MatchSolver(rules, later_blind=blind)
    fast = NativeMatchSolver(rules, later_blind=blind)
    slow_moves = pure.solve_moves(question, other, current_deck=None)
    fast_moves = fast.solve_moves(question, other, current_deck=None)
    assert [m.move for m in fast_moves] == [m.move for m in slow_moves]
    for a, b in zip(fast_moves, slow_moves, strict=True):
        for field in ("match_win", "set_win", "set_tie", "set_loss"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), abs=1e-12), (a, b)
    for solver in (pure, fast):
        assert solver.entry_count > 0
        assert all(hands[blind] == () for _, hands, _, _ in solver.known_entries())


@pytest.mark.parametrize(
    ("solver_class", "score", "seeds"),
    # (the pure solver on one question of each seat, one set from the end: it took a minute on
    # the four at 1-1)
    [(MatchSolver, (2, 1), (71, 77)), (NativeMatchSolver, (1, 1), (70, 73, 71, 74))],
)
def test_one_solver_blind_to_either_seat_in_turn_answers_as_fresh_ones(
    solver_class: type[MatchSolver], score: tuple[int, int], seeds: tuple[int, ...]
) -> None:
    """``blind_to``: a ``match-lite`` sits in either seat in turn with one solver. Switching
    the seat forgets the positions (their values read the later sets) and keeps the match-state
    values (true whatever the model): each answer is a fresh solver's of that seat."""
    rules = parse_ruleset(K1)
    questions = [playout(K1, ("+1 -2", "+2 -1"), score, seed, 2) for seed in seeds]
    assert {question.state.turn for question, _ in questions} == {0, 1}
    shared = solver_class(rules, later_blind=0)
    answers: dict[int, list[MatchMove]] = {}
    order = list(enumerate(questions))
    for index, (question, other) in order + order[::-1]:
        blind = 1 - question.state.turn
        shared.blind_to(blind)
        assert shared.later_blind == blind
        got = shared.solve_moves(question, other, current_deck=None)
        if index not in answers:
            fresh_solver = solver_class(rules, later_blind=blind)
            answers[index] = fresh_solver.solve_moves(question, other, current_deck=None)
        fresh = answers[index]
        assert [m.move for m in got] == [m.move for m in fresh]
        for a, b in zip(got, fresh, strict=True):
            for field in ("match_win", "set_win", "set_tie", "set_loss"):
                assert getattr(a, field) == pytest.approx(getattr(b, field), abs=1e-9), (a, b)
    assert {hands.index(()) for _, hands, _, _ in shared.known_entries() if () in hands} == {0, 1}


def test_a_blind_solver_is_the_exact_one_against_an_empty_hand() -> None:
    """Blind to a hand that is empty, the model is the match itself: the same values as the
    exact solver; blind to a hand that holds cards, it is another model (its values differ)."""
    rules = parse_ruleset(K1)
    for seed, hands in ((60, ("+1 -2", "")), (61, ("+2", "+1 -1"))):
        question, other = playout(K1, hands, (1, 1), seed, 1)
        blind = NativeMatchSolver(rules, later_blind=1 - question.state.turn)
        exact = NativeMatchSolver(rules)
        a = [m.match_win for m in blind.solve_moves(question, other, current_deck=None)]
        b = [m.match_win for m in exact.solve_moves(question, other, current_deck=None)]
        if other:
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) > 1e-3
        else:
            assert a == pytest.approx(b, abs=1e-12)


def test_a_blind_solver_prepares_the_later_sets_once_whatever_the_hands_it_is_blind_to() -> None:
    """Its later sets meet only the empty hand of that seat: preparing them for some opponent
    hands prepares them for any (a player asks at every decision, with new samples)."""
    solver = make_match_solver(parse_ruleset(K1), later_blind=1)
    mine = [parse_cards("+1 -1")]
    solver.prepare_all((1, 1), (mine, [parse_cards("+2"), parse_cards("-2 +3")]))
    assert solver.prepared((1, 1), (mine, [parse_cards("+4 +5")]))
    assert not solver.prepared((1, 1), ([parse_cards("+1 -2")], [parse_cards("+4 +5")]))
    assert all(hands[1] == () for _, hands, _, _ in solver.known_entries())


def test_a_blind_solver_refuses_a_match_state_with_the_hand_it_is_blind_to() -> None:
    """Its values of such a state would be another model's, and the match cache keeps values."""
    solver = make_match_solver(parse_ruleset(K1), later_blind=1)
    with pytest.raises(ValueError, match="blind"):
        solver.set_start_value((1, 1), (parse_cards("+1"), parse_cards("-1")), 0)
    assert solver.set_start_value((1, 1), (parse_cards("+1"), ()), 0) == pytest.approx(
        make_match_solver(parse_ruleset(K1)).set_start_value((1, 1), (parse_cards("+1"), ()), 0),
        abs=1e-12,
    )


def test_the_factory() -> None:
    rules = parse_ruleset(K1)
    assert isinstance(make_match_solver(rules), NativeMatchSolver)


def test_the_factory_honours_pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAZAAK_PURE_PYTHON", "1")
    solver = make_match_solver(parse_ruleset(K1))
    assert type(solver) is MatchSolver


def _clean_after_interrupt(solver: NativeMatchSolver) -> None:
    assert solver._fast.levels == 0  # no scratch table of an unfinished fixed point is left
    assert not solver._iterating


def _reached_from_the_core(name: str) -> bool:
    """Whether the C core called the Python function ``name`` that is running now."""
    return any(frame.name == name for frame in traceback.extract_stack())


CALLBACK_RULES = K1 + ",first-player=alternate"
CALLBACK_HANDS = (parse_cards("+1 +2"), parse_cards("-1"))
"""A set start asked with no ``prepare`` (``set_start_value``): the core meets sides no one has
interned and match states no one has solved, and calls back into Python for both."""


def test_an_interrupt_from_a_callback_leaves_the_solver_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KeyboardInterrupt raised by the core's `expand` callback at several depths of the
    recursion (inside nested fixed points too); the same solver then answers exactly."""
    rules = parse_ruleset(CALLBACK_RULES)
    expected = NativeMatchSolver(rules).set_start_value((1, 1), CALLBACK_HANDS, 0)
    solver = NativeMatchSolver(rules)
    real = solver._candidate_list
    for limit in (5, 40, 150, 300):
        calls = 0

        def interrupting(side: int, drawn: int, limit: int = limit) -> int:
            nonlocal calls
            calls += 1
            if calls == limit:
                assert _reached_from_the_core("_expand")
                raise KeyboardInterrupt
            return real(side, drawn)

        monkeypatch.setattr(solver, "_candidate_list", interrupting)
        with pytest.raises(KeyboardInterrupt):
            solver.set_start_value((1, 1), CALLBACK_HANDS, 0)
        _clean_after_interrupt(solver)
        monkeypatch.setattr(solver, "_candidate_list", real)
    got = solver.set_start_value((1, 1), CALLBACK_HANDS, 0)
    assert got == pytest.approx(expected, abs=1e-12)


def test_an_interrupt_from_the_entry_callback_leaves_the_solver_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KeyboardInterrupt while a match state's value is being solved, called from the core."""
    rules = parse_ruleset(CALLBACK_RULES)
    expected = NativeMatchSolver(rules).set_start_value((1, 1), CALLBACK_HANDS, 0)
    solver = NativeMatchSolver(rules)
    real = solver._fixed_point
    calls = 0

    def interrupting(evaluate, guess=0.5):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 3:
            assert _reached_from_the_core("_entry_callback")
            raise KeyboardInterrupt
        return real(evaluate, guess)

    monkeypatch.setattr(solver, "_fixed_point", interrupting)
    with pytest.raises(KeyboardInterrupt):
        solver.set_start_value((1, 1), CALLBACK_HANDS, 0)
    _clean_after_interrupt(solver)
    monkeypatch.setattr(solver, "_fixed_point", real)
    got = solver.set_start_value((1, 1), CALLBACK_HANDS, 0)
    assert got == pytest.approx(expected, abs=1e-12)


def test_ctrl_c_stops_a_long_solve_and_the_solver_stays_exact() -> None:
    """SIGINT while the core searches: the core checks for signals every so many positions."""
    rules = parse_ruleset(K1)
    hands = (parse_cards("+1 -2"), parse_cards("+2 -1"))
    state = new_match(rules, hands).child(Open(0))  # 0-0, 2 v 2: about a second
    question = question_from_state(state.child(state.chance_outcomes()[0][0]))
    other = hands[1]
    solver = NativeMatchSolver(rules)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, lambda *_: signal.raise_signal(signal.SIGINT))
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        try:
            solver.solve_moves(question, other, current_deck=None)
            interrupted = False
        except KeyboardInterrupt:
            interrupted = True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0.0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
    finally:
        signal.signal(signal.SIGINT, previous)
    if not interrupted:  # pragma: no cover - a very fast machine
        pytest.skip("the solve ended before the signal")
    _clean_after_interrupt(solver)
    got = solver.solve_moves(question, other, current_deck=None)
    fresh = NativeMatchSolver(rules).solve_moves(question, other, current_deck=None)
    assert [m.match_win for m in got] == pytest.approx([m.match_win for m in fresh], abs=1e-12)


def test_the_bounded_memo_is_emptied_between_searches() -> None:
    spec = K1
    # (cards on both sides: a state's card-free positions are dropped once its value is found,
    # the positions after a card is played stay)
    question, other = playout(spec, ("+1 -2", "+3"), (2, 2), 60, 1)
    rules = parse_ruleset(spec)
    solver = NativeMatchSolver(rules, max_states=1000)
    first = solver.solve_moves(question, other, current_deck=None)
    assert solver.states > 1000
    solver.bound_memo()
    assert solver.states == 0
    again = solver.solve_moves(question, other, current_deck=FULL_DECK)
    assert [m.match_win for m in again] == pytest.approx([m.match_win for m in first], abs=1e-12)


@pytest.mark.parametrize(
    ("spec", "hands", "score"),
    [(K1, ("+1 -2", "+3"), (2, 1)), (K1 + ",first-player=alternate", ("+1 +2", ""), (2, 2))],
)
def test_fixed_points_found_by_the_linear_piece_agree_with_pure_python(
    spec: str, hands: tuple[str, str], score: tuple[int, int]
) -> None:
    """The core's shortcut (a Newton step inside the interval where every choice stands, the
    positions moved along their slopes) gives what the pure solver's full iteration gives."""
    question, other = playout(spec, hands, score, 5, 1)
    native = NativeMatchSolver(parse_ruleset(spec))
    pure = MatchSolver(parse_ruleset(spec))
    fast = native.solve_moves(question, other, current_deck=None)
    slow = pure.solve_moves(question, other, current_deck=None)
    assert native.fixed_point_shortcuts > 0
    assert native.fixed_point_solves < pure.fixed_point_solves
    for a, b in zip(fast, slow, strict=True):
        assert a.move == b.move
        for field in ("match_win", "set_win", "set_tie", "set_loss"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), abs=1e-12), (a, b)


def test_a_long_solve_reports_its_progress() -> None:
    """The positions callback is called while the core searches, with growing counts."""
    rules = parse_ruleset(K1)
    question, other = playout(K1, ("+1 +2", "-1 +3"), (1, 1), 8, 0)
    solver = NativeMatchSolver(rules)
    seen: list[int] = []
    solver.progress = seen.append
    solver.solve_moves(question, other, current_deck=None)
    assert len(seen) >= 2
    assert seen == sorted(seen)
    assert seen[-1] <= solver.positions_computed


def test_match_advice_passes_the_positions_callback_to_the_solver() -> None:
    question, _ = playout(K1, ("+1 +2", "-1 +3"), (1, 1), 8, 0)  # (both hands known)
    seen: list[int] = []
    solver = NativeMatchSolver(parse_ruleset(K1))
    options = SolveOptions(objective="match", positions=seen.append)
    solve_match_question(question, options, solver=solver)
    assert seen
    assert solver.progress is None  # (put back once the question is answered)


def test_the_dense_tables_keep_their_memory_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the bound a level keeps its before-draw positions and the after-draw ones of as
    many groups as fit, the smallest first (the same values); past it even so, the match
    answer is refused with the reason, not a runaway."""
    sizes = [(5, (0, 1)), (3, (1, 1)), (4, (2, 0)), (9, (3, 3))]
    assert match_native.groups_with_after(sizes, 8) == {(1, 1), (2, 0)}
    assert match_native.groups_with_after(sizes, 2) == set()
    question, other = playout(K1, ("+1 +2", "-1 +3"), (1, 1), 8, 0)
    rules = parse_ruleset(K1)
    full = NativeMatchSolver(rules).solve_moves(question, other, current_deck=None)
    kept: list[tuple[int, int]] = []
    chosen = match_native.groups_with_after

    def counted(sizes: Any, room: int) -> set[tuple[int, int]]:
        groups = chosen(sizes, room)
        kept.append((len(groups), len(sizes)))
        return groups

    monkeypatch.setattr(match_native, "groups_with_after", counted)
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", 5_000_000)
    lean = NativeMatchSolver(rules)
    got = lean.solve_moves(question, other, current_deck=None)
    assert kept and all(0 < groups < pairs for groups, pairs in kept)  # (some, not all)
    assert [m.match_win for m in got] == pytest.approx([m.match_win for m in full], abs=1e-12)
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", 1_000_000)
    with pytest.raises(SolverTooLarge, match=r"needs about .* GB of positions at each score"):
        NativeMatchSolver(rules).solve_moves(question, other, current_deck=None)


def hidden_pair_question(spec: str, opponent_deck: str) -> tuple[Ruleset, Question, SolveOptions]:
    """The first decision of a match under ``spec`` with ``+1 -2`` against a hidden hand of two
    drawn from ``opponent_deck``, asked for the match: the ruleset, question and options."""
    rules = parse_ruleset(spec)
    state = new_match(rules, (parse_cards("+1 -2"), parse_cards("+2 -1"))).child(Open(0))
    state = state.child(state.chance_outcomes()[0][0])
    hidden = state.sides[1]._replace(hand=(None, None))
    question = question_from_state(state._replace(sides=(state.sides[0], hidden)))
    options = SolveOptions(objective="match", opponent_deck=tuple(parse_cards(opponent_deck)))
    return rules, question, options


def prepare_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of the opponent's hands of each ``prepare_all`` of the native solver from now
    on (the calls go through)."""
    calls: list[int] = []
    original = NativeMatchSolver.prepare_all

    def spy(self: NativeMatchSolver, scores: Any, hands: Any, **options: Any) -> None:
        calls.append(len(hands[1]))
        original(self, scores, hands, **options)

    monkeypatch.setattr(NativeMatchSolver, "prepare_all", spy)
    return calls


def test_a_hidden_hand_prepares_every_score_once_for_all_its_hands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The possible hands' sub-hands are prepared together when their tables fit, in runs of
    neighbouring hands when only runs do (a score's tables for each of two processes), and hand
    by hand when not even two fit; the averaged answer is the same every way."""
    rules, question, options = hidden_pair_question(K1, "+2 -1 +3 -3")
    calls = prepare_calls(monkeypatch)
    together = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    hands = together.hands_averaged
    assert hands > 4 and calls == [hands] + [1] * hands  # once for all, then (no work) a hand
    monkeypatch.setattr(NativeMatchSolver, "fits_in_blocks", lambda *args: False)
    monkeypatch.setattr(
        NativeMatchSolver, "fits", lambda self, seats, processes=1: len(seats[1]) <= 2
    )
    calls.clear()
    runs = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    assert calls[: hands // 2] == [2] * (hands // 2) and calls[hands // 2 :].count(1) >= hands
    monkeypatch.setattr(NativeMatchSolver, "fits", lambda self, seats, processes=1: False)
    calls.clear()
    alone = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    assert calls == [1] * hands
    for other in (runs, alone):
        assert [r.match_win for r in other.results] == pytest.approx(
            [r.match_win for r in together.results], abs=1e-12
        )


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
@pytest.mark.parametrize(("processes", "expected"), [("1", "together"), ("2", "runs")])
def test_with_two_processes_the_hands_go_in_runs_the_pipeline_has_room_for(
    monkeypatch: pytest.MonkeyPatch, processes: str, expected: str
) -> None:
    """Where the possible hands' tables fit one process but not two, two processes allowed
    take them in runs the pipeline can fork for (all of them in one process's tables left it
    no room: 1.27 times as long, docs/benchmarks.md); one process takes them all at once."""
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", processes)
    rules, question, options = hidden_pair_question(K1, "+2 -1 +3 -3")
    calls = prepare_calls(monkeypatch)
    monkeypatch.setattr(NativeMatchSolver, "fits_in_blocks", lambda *args: False)
    monkeypatch.setattr(
        NativeMatchSolver,
        "fits",
        lambda self, seats, processes=1: processes == 1 or len(seats[1]) <= 2,
    )
    answer = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    hands = answer.hands_averaged
    together = calls[0] == hands
    assert together == (expected == "together")
    if not together:
        assert calls[: hands // 2] == [2] * (hands // 2)


def test_a_set_in_progress_makes_room_rather_than_filling_the_hash_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each possible hand's set in progress gets dense tables; where they do not fit beside
    those the hands before it left, those are freed first (the set reads only match-state
    values once it ends), rather than its positions going to the hash tables, which grow
    without bound (an exact average of kotor1-strong's hands reached 3.2 GB so): the memory
    stays within the bound, the answer the same."""
    # (a finite deck: the set in progress has odds of its own)
    rules, question, options = hidden_pair_question("kotor1", "+2 -1 +3 -3")
    held: list[tuple[int, int]] = []  # (bytes, positions of sets in progress hashed) a row
    original = match_advice.MatchHands.row

    def spy(self: match_advice.MatchHands, index: int, with_odds: bool) -> Any:
        row = original(self, index, with_odds)
        fast = self.solver._fast  # type: ignore[attr-defined]
        held.append((fast.memo_bytes, fast.hashed_states[1]))
        return row

    monkeypatch.setattr(match_advice.MatchHands, "row", spy)
    roomy = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    assert roomy.hands_averaged > 4 and all(hashed == 0 for _, hashed in held)
    bound = (held[0][0] + held[-1][0]) // 2  # (the first hand's tables fit, not all hands')
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", bound)
    held.clear()
    lean = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    assert all(held_bytes <= bound and hashed == 0 for held_bytes, hashed in held)
    assert [r.match_win for r in lean.results] == pytest.approx(
        [r.match_win for r in roomy.results], abs=1e-12
    )


class HiddenTables(NamedTuple):
    """A hidden hand's first match question, its answer all at once, and the score's groups."""

    rules: Ruleset
    question: Question
    options: SolveOptions
    together: Any
    """The answer with room for every table."""
    solver: NativeMatchSolver
    hands: tuple[list[tuple[Card, ...]], list[tuple[Card, ...]]]
    pairs: list[tuple[int, int]]
    whole: int
    """The bytes of a score's tables for all of them."""


def hidden_tables(deck: str) -> HiddenTables:
    """``+1 -2`` against 2 hidden cards of ``deck`` (kotor1): answered all at once, and the
    groups of a score of its later sets, with their bytes."""
    rules, question, options = hidden_pair_question(K1, deck)
    together = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    solver = NativeMatchSolver(rules)
    mine = tuple(card for card in question.state.sides[0].hand if card is not None)
    theirs = [hand for hand, _ in possible_hands(parse_cards(deck), 2)]
    solver.fits(([mine], theirs))
    pairs = [
        (x, y)
        for x in solver.sub_hands(solver.hands.intern(mine))
        for y in solver._union_sub_hands(theirs)
    ]
    whole = sum(solver._dense_bytes(pairs, 1))
    hands = ([mine], theirs)
    return HiddenTables(rules, question, options, together, solver, hands, pairs, whole)


def bound_tables(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    """Each of two processes may hold ``limit`` bytes of tables (this one holding nothing)."""
    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", limit)
    monkeypatch.setattr(match_native, "FORK_MEMORY_BYTES", 2 * limit)
    monkeypatch.setattr(match_native, "resident_bytes", lambda: 0)


def planned_blocks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The blocks every ``level_blocks`` of the native solver plans from now on (each checked:
    every group made is freed)."""
    plans: list[Any] = []
    level_blocks = NativeMatchSolver.level_blocks

    def counted(self: NativeMatchSolver, pairs: Any) -> Any:
        blocks = level_blocks(self, pairs)
        if blocks is not None:
            made = [pair for step, _ in blocks.steps for pair in step]
            freed = [pair for _, step in blocks.steps for pair in step]
            assert sorted(made) == sorted(freed) and set(made) == set(pairs)
            plans.append(blocks)
        return blocks

    monkeypatch.setattr(NativeMatchSolver, "level_blocks", counted)
    return plans


def assert_same_answer(got: Any, expected: Any) -> None:
    assert [r.move for r in got.results] == [r.move for r in expected.results]
    assert [r.match_win for r in got.results] == pytest.approx(
        [r.match_win for r in expected.results], abs=1e-12
    )


def test_a_hidden_hand_goes_at_once_in_blocks_where_its_tables_do_not_all_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a score's tables for all the possible hands do not fit but its blocks do (a
    sub-hand's row kept while the hands that hold it are solved), all the hands are prepared
    at once, each group made once a score and freed once no hand left reads it; the answer is
    the one of all at once, to 1e-12."""
    asked = hidden_tables("+2 -1 +3 -3")
    bound_tables(monkeypatch, asked.whole * 4 // 5)
    calls = prepare_calls(monkeypatch)
    plans = planned_blocks(monkeypatch)
    blocked = solve_match_question(
        asked.question, asked.options, solver=NativeMatchSolver(asked.rules)
    )
    assert calls[0] == asked.together.hands_averaged and plans
    assert all(sum(len(made) for made, _ in blocks.steps) == len(asked.pairs) for blocks in plans)
    assert_same_answer(blocked, asked.together)


def test_rows_the_next_hand_needs_room_for_are_freed_early_and_made_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where even the blocks' shared rows do not fit beside a hand's own, rows that hand does
    not hold are freed early and made again for the hands that hold them: the tables held
    stay within the bound, every group made is freed, some are made twice, and the answer is
    the one of all at once, to 1e-12."""
    asked = hidden_tables("+2 -1 +3 -3 +4 -4")
    limit = asked.whole * 3 // 10  # (the blocks without early frees hold 0.41 of it)
    assert asked.solver.blocks_rework(asked.hands, 2) == 1.0
    bound_tables(monkeypatch, limit)
    assert asked.solver.blocks_rework(asked.hands, 2) > 1.0  # (the foresight's factor)
    plans = planned_blocks(monkeypatch)
    blocked = solve_match_question(
        asked.question, asked.options, solver=NativeMatchSolver(asked.rules)
    )
    assert plans
    for blocks in plans:
        made = sum(len(step) for step, _ in blocks.steps)
        assert blocks.peak <= limit and made > len(asked.pairs) and blocks.made > asked.whole
    assert_same_answer(blocked, asked.together)


def test_hands_with_a_double_about_are_not_prepared_in_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a flip or a Double among the hands the later sets stay with each hand's row (their
    sides make the memo grow past the room the runs' tables leave): no run is prepared."""
    rules, question, options = hidden_pair_question(
        "kotor2/main-deck=infinite,sets-to-win=2", "+2 -1 D -3"
    )
    calls = prepare_calls(monkeypatch)
    monkeypatch.setattr(
        NativeMatchSolver, "fits", lambda self, seats, processes=1: len(seats[1]) <= 2
    )
    advice = solve_match_question(question, options, solver=NativeMatchSolver(rules))
    assert advice.hands_averaged > 2 and calls == [1] * advice.hands_averaged


def test_questions_of_one_match_share_the_later_sets() -> None:
    """A second question under the same ruleset (the next hint of a match) finds the match-state
    values already solved, and answers as a fresh solver does."""
    rules = parse_ruleset(K1 + ",sets-to-win=2")
    first, _ = playout(K1 + ",sets-to-win=2", ("+1 -2", "+2 -1"), (0, 0), 31, 1)
    second, _ = playout(K1 + ",sets-to-win=2", ("+1 -2", "+2 -1"), (0, 0), 32, 2)
    shared = match_advice.shared_match_solver(rules)
    solve_match_question(first, SolveOptions(objective="match"))
    before = shared.fixed_point_solves
    again = solve_match_question(second, SolveOptions(objective="match"))
    assert match_advice.shared_match_solver(rules) is shared
    assert shared.fixed_point_solves == before  # (every match state was known)
    alone = NativeMatchSolver(rules)  # (native = pure: the tests above)
    fresh = solve_match_question(second, SolveOptions(objective="match"), solver=alone)
    assert [r.match_win for r in again.results] == pytest.approx(
        [r.match_win for r in fresh.results], abs=1e-12
    )


class _CountedFork(executors.ForkedCall):
    made = 0

    def __init__(self, function: Callable[[], Any]) -> None:
        type(self).made += 1
        super().__init__(function)


class _LostFork:
    """A forked child that died: the solver must solve its scores itself."""

    def __init__(self, function: Callable[[], Any]) -> None:
        self.pid = None

    def result(self) -> Any:
        raise executors.WorkerLost("gone")

    def stop(self) -> None:
        pass


def _two_by_two(processes: int, spec: str = K1) -> tuple[NativeMatchSolver, list[MatchMove]]:
    """The first move of a 2 v 2 match, solved with this many processes."""
    rules = parse_ruleset(spec)
    hands = (parse_cards("+1 -2"), parse_cards("+2 -1"))
    state = new_match(rules, hands).child(Open(0))
    question = question_from_state(state.child(state.chance_outcomes()[5][0]))
    solver = NativeMatchSolver(rules)
    solver.processes = processes
    return solver, solver.solve_moves(question, hands[1], current_deck=None)


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
@pytest.mark.parametrize(
    "spec",
    [K1, K1 + ",first-player=alternate", K1 + ",first-player=random", K1 + ",first-player=loser"],
)
def test_scores_solved_in_forked_processes_give_the_very_same_values(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every other score is solved in a forked copy of the solver, each state as soon as the
    values it reads are known (the pipeline); the match-state values, the shares Newton's
    guesses start from, the answer and the statistics are bit for bit those of one process,
    whoever opens the later sets."""
    monkeypatch.setattr(executors, "ForkedCall", _CountedFork)
    _CountedFork.made = 0
    alone, moves = _two_by_two(1, spec)
    assert _CountedFork.made == 0
    forked, got = _two_by_two(2, spec)
    assert _CountedFork.made == 1  # (one process beside this one, for all its scores)
    assert got == moves
    assert forked._entries == alone._entries
    assert forked._shares == alone._shares
    assert forked.fixed_point_solves == alone.fixed_point_solves
    assert forked.positions_computed == alone.positions_computed
    _CountedFork.made = 0
    _, three = _two_by_two(3, spec)  # (two processes still: the pipeline has two seats)
    assert _CountedFork.made == 1 and three == moves


def test_a_lost_forked_process_leaves_its_scores_to_this_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A forked process that dies leaves its states to this one: solved where they are first
    read (the same values to float precision: their first guesses lack its shares)."""
    alone, moves = _two_by_two(1)
    monkeypatch.setattr(executors, "ForkedCall", _LostFork)
    monkeypatch.setattr(match_native, "fork_available", lambda: True)
    solver, got = _two_by_two(2)
    assert [m.move for m in got] == [m.move for m in moves]
    for mine, theirs in zip(got, moves, strict=True):
        assert mine.match_win == pytest.approx(theirs.match_win, abs=1e-12)
        assert mine.set_win == pytest.approx(theirs.set_win, abs=1e-12)
    assert solver._entries.keys() == alone._entries.keys()
    for key, value in alone._entries.items():
        assert solver._entries[key] == pytest.approx(value, abs=1e-12)
    assert solver._forked_positions == 0


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
@pytest.mark.parametrize("spec", [K1, K1 + ",first-player=loser"])
def test_the_pipeline_reads_the_shares_the_sequential_order_keeps(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second question whose smaller hands were solved by the first (some pairs of each
    score already known): the pipeline finds each state's first guess where one process
    would, so the values and shares stay bit for bit those of one process."""
    monkeypatch.setattr(executors, "ForkedCall", _CountedFork)
    _CountedFork.made = 0
    rules = parse_ruleset(spec)
    solved = []
    for processes in (1, 2):
        solver = NativeMatchSolver(rules)
        solver.processes = processes
        for mine, theirs, scores in (("+1", "-1", (1, 0)), ("+1 -2", "+2 -1", (0, 0))):
            hands = (parse_cards(mine), parse_cards(theirs))
            solver.prepare(scores, hands)
        solved.append(solver)
    one, two = solved
    assert _CountedFork.made == 1  # (the second question, in two processes)
    assert two._entries == one._entries
    assert two._shares == one._shares
    assert two.fixed_point_solves == one.fixed_point_solves


def test_a_share_the_lost_process_never_wrote_falls_back_to_what_was_known() -> None:
    """Waiting for a first guess's share that a dead process was to write gives up (the state
    starts from the share known before, the same fixed point), instead of failing the solve."""
    pairs = [(0, 0), (0, 1)]
    rounds = [
        [Level(2, 2, list(pairs))],
        [Level(2, 1, list(pairs)), Level(1, 2, list(pairs))],
        [Level(1, 1, list(pairs))],
    ]
    pipeline: Pipeline[Level] = Pipeline(rounds, pairs, {(0, 1, 0): 0.25})
    try:
        assert pipeline.owner == {(2, 2): 0, (2, 1): 1, (1, 2): 0, (1, 1): 1}
        pipeline.child = None  # (seat 0; the other process gone)
        # (2, 1)'s share comes from (2, 2): this seat's, not written yet -> the known one
        assert pipeline.share((2, 1, 0, 1), (0, 1, 0)) == 0.25
        pipeline.publish((2, 2, 0, 1), {0: 0.6}, 0, 0.75, 0.25)
        assert pipeline.share((1, 2, 0, 1), (0, 1, 0)) == 0.75
        # a later round's state reads round 1's last score, (1, 2): written here
        pipeline.publish((1, 2, 0, 1), {0: 0.4}, 0, 0.5, 0.0)
        assert pipeline.share((1, 1, 0, 1), (0, 1, 0)) == 0.5
        # with (1, 2) holding no share, round 1's (2, 1) is the other seat's: given up on
        pipeline.publish((1, 2, 0, 1), {0: 0.4}, 0, None, None)
        assert pipeline.share((1, 1, 0, 1), (0, 1, 0)) == 0.75
        assert pipeline.lost
        assert not pipeline.elsewhere((2, 1, 0, 1))
    finally:
        pipeline.close()


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_a_forked_process_dying_midway_leaves_the_rest_to_this_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The forked process solves its first score, then dies: this one, waiting for a value of
    its next score, sees it gone and solves what is left (the same values to float
    precision), instead of waiting for ever."""
    alone, moves = _two_by_two(1)
    solve_levels = MatchSolver._solve_levels

    def die_after_one(self: NativeMatchSolver, pipeline: Any, pairs: Any, specs: Any) -> Any:
        pipeline.seat = 1
        solve_levels(self, pipeline.mine()[:1], pairs, specs)
        os._exit(1)

    monkeypatch.setattr(NativeMatchSolver, "_pipelined_child", die_after_one)
    solver, got = _two_by_two(2)
    assert [m.move for m in got] == [m.move for m in moves]
    for mine, theirs in zip(got, moves, strict=True):
        assert mine.match_win == pytest.approx(theirs.match_win, abs=1e-12)
    for key, value in alone._entries.items():
        assert solver._entries[key] == pytest.approx(value, abs=1e-12)
    assert solver._pipeline is None


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_an_error_in_a_forked_process_is_raised_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def too_large(*args: Any, **kwargs: Any) -> Any:
        raise SolverTooLarge("the exact solve exceeds its state budget")

    monkeypatch.setattr(NativeMatchSolver, "_pipelined_child", too_large)
    with pytest.raises(SolverTooLarge, match="state budget"):
        _two_by_two(2)


@pytest.mark.parametrize("bound", ["tables", "memory"])
def test_no_fork_past_the_memory_bounds(bound: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two scores' tables must fit FORK_MEMORY_BYTES beside what each process holds (about
    what this one does), each process's within DENSE_LIMIT_BYTES: else the scores are solved
    here alone, the same."""
    monkeypatch.setattr(executors, "ForkedCall", _CountedFork)
    _CountedFork.made = 0
    _, moves = _two_by_two(1)
    if bound == "tables":
        # (this process's memory well within the bound, whatever earlier tests left in it)
        monkeypatch.setattr(match_native, "resident_bytes", lambda: 200_000_000)
        monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", 5_000_000)  # (one fits...)
        monkeypatch.setattr(match_native, "FORK_MEMORY_BYTES", 405_000_000)  # (...not two)
    else:
        limit = match_native.FORK_MEMORY_BYTES
        monkeypatch.setattr(match_native, "resident_bytes", lambda: limit)
    _, got = _two_by_two(2)
    assert _CountedFork.made == 0
    assert got == moves


def test_ranking_the_sides_checks_what_it_is_given() -> None:
    """``rank`` numbers each hand's sides anew: it wants every side of a hand, once, and no
    dense table alive (their indexes would change under them)."""
    question, other = playout(K1, ("+1 -2", "+3"), (2, 1), 5, 1)
    solver = NativeMatchSolver(parse_ruleset(K1))
    solver.solve_moves(question, other, current_deck=None)
    fast = solver._fast
    solver.release_tables()
    sides, lists = list(range(fast.nsides)), list(range(fast.nlists))
    with pytest.raises(ValueError, match="out of range or given twice"):
        fast.rank([*sides, 0], lists)
    with pytest.raises(ValueError, match="out of range or given twice"):
        fast.rank([*sides, fast.nsides], lists)
    with pytest.raises(ValueError, match="not all given"):
        fast.rank(sides[1:], lists)
    fast.rank(list(reversed(sides)), lists)  # (any order of whole hands)
    fast.densify(0, 0, 0)
    with pytest.raises(RuntimeError, match="dense tables exist"):
        fast.rank(sides, lists)


def test_the_processes_are_read_when_solving_not_when_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A solver kept at module level is inherited by a pool's forked workers, which set
    PAZAAK_SOLVER_PROCESSES=1 after it was made: it must not fork there."""
    monkeypatch.setattr(executors, "ForkedCall", _CountedFork)
    _CountedFork.made = 0
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "2")
    rules = parse_ruleset(K1)
    solver = NativeMatchSolver(rules)
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "1")  # (as a pool worker's start sets it)
    hands = (parse_cards("+1 -2"), parse_cards("+2 -1"))
    state = new_match(rules, hands).child(Open(0))
    question = question_from_state(state.child(state.chance_outcomes()[5][0]))
    solver.solve_moves(question, hands[1], current_deck=None)
    assert _CountedFork.made == 0


def test_exact_decks_share_one_model_and_answer_as_a_fresh_solver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every deck drawn without replacement shares one deck model (its positions keyed by the
    deck's composition, so a player's later questions of a set reuse them): a solver that
    answered other exact questions first gives exactly what a fresh one gives. (The exact
    deck's memory cap counts this process's memory: it is pinned, so that what earlier tests
    left in a test worker cannot bound one solver and not the other.)"""
    monkeypatch.setattr(match_solver, "resident_bytes", lambda: 200_000_000)
    rules = parse_ruleset(K1)
    question, other = playout(K1, ("+1", ""), (2, 2), 41, 2)
    decks = [
        (1, 1, 0, 1, 0, 1, 0, 0, 1, 1),
        (1, 1, 0, 1, 0, 1, 0, 0, 1, 0),  # the first after a 10 was drawn
        (2, 1, 0, 1, 0, 1, 0, 0, 1, 1),
    ]
    reused = NativeMatchSolver(rules)
    for deck in decks:
        got = reused.solve_moves(question, other, current_deck=deck, exact=True)
        fresh = NativeMatchSolver(rules).solve_moves(question, other, current_deck=deck, exact=True)
        assert got == fresh
    assert len({reused.deck_model(deck, True) for deck in decks}) == 1


def test_a_set_in_progress_reuses_the_last_questions_tables_and_answers_as_a_fresh_solver() -> None:
    """The set in progress on a deck of its own gets lazy tables; dropped after a question,
    their arrays serve the next question's tables of the same size, only the pages written
    zeroed again: a player's questions of one set (the same hands, the deck changing) give
    exactly what a fresh solver gives (a page left unzeroed makes them differ)."""
    rules = parse_ruleset(K1)
    reused = NativeMatchSolver(rules)
    asked = [
        (playout(K1, ("+1 -2", "+2 -1"), (1, 1), 50, decisions), deck)
        for decisions, deck in [
            (0, (4, 4, 4, 4, 3, 4, 4, 4, 1, 4)),
            (1, (4, 3, 4, 4, 3, 4, 2, 4, 1, 4)),
            (2, (1, 4, 4, 4, 4, 4, 4, 4, 4, 2)),
            (0, (4, 4, 1, 3, 4, 0, 4, 2, 4, 4)),
        ]
    ]
    for (question, other), deck in asked:
        got = reused.solve_moves(question, other, current_deck=deck)
        reused.release_tables()  # (its arrays kept for the next question)
        fresh = NativeMatchSolver(rules).solve_moves(question, other, current_deck=deck)
        assert got == fresh


def _held_after(
    solve: Any, solver: NativeMatchSolver, held: list[int], *args: Any, **kw: Any
) -> Any:
    """``solve(*args, **kw)``, then the core's memory noted in ``held``."""
    found = solve(*args, **kw)
    held.append(solver._fast.memo_bytes)
    return found


def test_a_hidden_hands_rows_drop_each_whole_hands_tables_and_answer_the_same() -> None:
    """Each possible hand's row frees the tables of the groups that hold that whole hand (no
    other row has it; their arrays serve the next row's): the answer is the same bits as with
    every table kept, the memory lower, and the hand asked again after its drop answers the
    same."""
    rules, question, options = hidden_pair_question("kotor1", "+2 -1 +3 -3")
    held: dict[bool, list[int]] = {True: [], False: []}
    answers = {}
    for dropping in (True, False):
        solver = NativeMatchSolver(rules)
        if not dropping:
            solver.drop_set_hand = lambda seat: None  # type: ignore[method-assign]
        solver.solve_moves = partial(  # type: ignore[method-assign]
            _held_after, solver.solve_moves, solver, held[dropping]
        )
        answers[dropping] = solve_match_question(question, options, solver=solver).results
    assert answers[True] == answers[False]
    assert max(held[True]) < max(held[False])
    solver = NativeMatchSolver(rules)
    deck = (4, 4, 4, 3, 4, 4, 4, 4, 4, 4)
    first = solver.solve_moves(question, parse_cards("+2 -1"), current_deck=deck)
    bytes_before = solver._fast.memo_bytes
    solver.drop_set_hand(1)
    assert solver._fast.memo_bytes < bytes_before
    again = solver.solve_moves(question, parse_cards("+2 -1"), current_deck=deck)
    assert (
        again
        == first
        == NativeMatchSolver(rules).solve_moves(question, parse_cards("+2 -1"), current_deck=deck)
    )


@pytest.mark.parametrize(
    ("spec", "walks"),
    [
        (K1, ["+1 -2 ±3 +4", "+2 -1 +3 -3"]),
        (K2 + ",tiebreaker=any-played", ["F2/4 T ±1/2 D", "F3/6 D -3"]),
        (K2 + ",nine-cards=stand,flip-targets=positive-only", ["F2/4 F3/6 ±4 D"]),
        ("kotor2/main-deck=infinite,table-size=5,target=15", ["+1 T ±2", "-1 D"]),
    ],
)
def test_the_core_walks_the_later_sides_as_python_does(spec: str, walks: list[str]) -> None:
    """The core's walk of the later sets' sides (``_intern_later_sides``) interns the sides
    and candidate lists Python's walk does, in the same order (so with the same ids), also
    after sides and lists of Python's own and after an earlier walk."""
    rules = parse_ruleset(spec)
    python, native = MatchSolver(rules), NativeMatchSolver(rules)
    for solver in (python, native):
        mine = solver.side_id((7, 2, solver.hands.intern(parse_cards("+1 -2")), 0, 0, False))
        solver._candidate_list(mine, 3)  # (Python's own, before the core holds any)
        for cards in walks:
            solver._intern_later_sides(parse_cards(cards))
    native._pull()
    assert native._sides == python._sides and native._side_ids == python._side_ids
    assert (native._kind, native._hand_of) == (python._kind, python._hand_of)
    assert native._standing == python._standing
    assert native._candidates == python._candidates and native._uniques == python._uniques
    assert native._candidate_ids == python._candidate_ids
    assert (native._fast.nsides, native._fast.nlists) == (len(python._sides), len(python._uniques))


def test_the_core_walks_only_from_playing_sides_of_hands_it_holds() -> None:
    solver = NativeMatchSolver(parse_ruleset(K1))
    solver._intern_later_sides(parse_cards("+1"))
    fast = solver._fast
    stand = solver.side_id(("S", 15, False, solver.hands.intern(())))
    solver._sync()
    for starts, draws in (([stand], [1]), ([fast.nsides], [1]), ([0], [11]), ([0], [0])):
        with pytest.raises((ValueError, IndexError)):
            fast.walk(starts, draws)
    with pytest.raises(ValueError, match="held already"):
        fast.add_side(1, solver.hands.intern(()), 15, False)  # (the stand above)


def test_a_run_of_possible_hands_costs_its_hands_and_their_sub_hands_one_card_smaller() -> None:
    """What balances the exact average's two runs: a run's hands and the distinct sub-hands of
    one card fewer they hold between them (the tables a process starting it cold makes)."""
    _, question, options = hidden_pair_question(K1, "+2 -1 +3 -3")
    hands = match_advice.MatchHands(question, options, solver=NativeMatchSolver(parse_ruleset(K1)))
    named = [sorted(map(str, hand)) for hand, _ in hands.other_hands]
    for run in ([0], [0, 1], list(range(len(named)))):
        smaller = {card for index in run for card in named[index]}  # (one card of two left)
        assert hands.run_cost(run) == 2 * len(run) + len(smaller)


def test_a_run_of_hands_interns_their_sides_before_its_first_row_and_answers_the_same() -> None:
    """Before a run of possible hands, the sides their sets reach are interned at once (the
    tables of a set in progress are sized by the sides interned when they are made): the same
    answer as rows interning their own, and no row interns a side of its hand after that."""
    rules, question, options = hidden_pair_question(K1, "+2 -1 +3 -3")
    plain = solve_match_question(question, options, solver=NativeMatchSolver(rules)).results
    solver = NativeMatchSolver(rules)
    hands = match_advice.MatchHands(question, options, solver=solver)
    every = list(range(len(hands.other_hands)))
    hands.start_run(every)
    interned = len(solver._sides)
    assert all(solver.hands.intern(hand) in solver._interned_from for hand, _ in hands.other_hands)
    ahead = solve_match_question(question, options, solver=solver).results
    assert ahead == plain and len(solver._sides) == interned
