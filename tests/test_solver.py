"""The exact set solver: golden numbers, hidden hands, the public API's promises, and a
simulation of its own policy. (Agreement with the slow exact reference, position by position,
is in test_solver_reference.py.)"""

from __future__ import annotations

import itertools
import math
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_solver import solver_moves

from pazaak_cli.engine.cards import Card, all_cards, parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import (
    COPIES_PER_VALUE,
    END_TURN,
    FULL_DECK,
    STAND,
    Action,
    Draw,
    MatchState,
    Phase,
    Play,
    Side,
    TableCard,
)
from pazaak_cli.engine.notation import parse_table
from pazaak_cli.engine.position_builder import PositionError, Question, build_question
from pazaak_cli.engine.rules import KOTOR1, KOTOR2, parse_ruleset
from pazaak_cli.runtime import executors
from pazaak_cli.solve import solver as set_solver
from pazaak_cli.solve.advice import advise, solve_question
from pazaak_cli.solve.answer_types import (
    BEST_TOLERANCE,
    Advice,
    Move,
    Outcome,
    SolveOptions,
    SolverTooLarge,
)
from pazaak_cli.solve.hidden_hands import played_cards, played_posterior, possible_hands
from pazaak_cli.solve.solver import SetSolver, dead_card_steps, playing_side

INF = "kotor2/main-deck=infinite"
_SOLVER: dict[str, SetSolver] = {}


def infinite_solver(spec: str = INF) -> SetSolver:
    """One infinite-deck solver per ruleset for the module (its memo carries over)."""
    if spec not in _SOLVER:
        _SOLVER[spec] = SetSolver(parse_ruleset(spec), fixed_draws=FULL_DECK)
    return _SOLVER[spec]


def ask(
    spec: str,
    table: str,
    hand: str = "",
    opp_table: str = "",
    opp_hand: str | None = None,
    *,
    hidden: int | None = None,
    seen: str = "",
) -> Question:
    """The question of ``pazaak advise`` for these flags: ``opp_hand=None`` and no ``hidden``
    means the opponent stands; ``hidden`` is --opp-hand-size."""
    rules = parse_ruleset(spec)
    opponent: tuple[Card | None, ...] = parse_cards(opp_hand or "")
    if hidden is not None:
        opponent = (None,) * hidden
    return build_question(
        rules,
        table=parse_table(table, rules.flip_targets),
        hand=parse_cards(hand),
        opp_table=parse_table(opp_table, rules.flip_targets),
        opp_stood=opp_hand is None and hidden is None,
        opp_hand=opponent,
        seen=[int(v) for v in seen.split()],
    )


def by_move(advice: Advice) -> dict[tuple[str | None, int | None, str], Outcome]:
    return {
        (None if r.move.card is None else str(r.move.card), r.move.value, r.move.then): r.outcome
        for r in advice.results
    }


# ------------------------------------------------------------------------------------------------
# Golden numbers: no hand cards, infinite deck, both optimal, kotor2.


def opening_value(native: bool) -> Outcome:
    """The opener's outcome before his first draw, both sides empty and without hand cards."""
    solver = SetSolver(KOTOR2_INFINITE, fixed_draws=FULL_DECK, native=native)
    empty = Side((), 0, (), False)
    opener = solver.side_id(playing_side(solver, empty, ()))
    other = solver.side_id(playing_side(solver, empty, ()))
    return Outcome.from_value(solver.before_draw(opener, other, solver.deck_id(())))


KOTOR2_INFINITE = parse_ruleset(INF)


@pytest.mark.parametrize("native", [True, False], ids=["native", "python"])
def test_golden_the_opener_without_hand_cards_has_equity_minus_0_0473(native: bool) -> None:
    outcome = opening_value(native)
    assert round(outcome.equity, 4) == -0.0473
    assert round(outcome.p_win, 4) == 0.4117  # about 41.2 %
    assert round(outcome.p_tie, 4) == 0.1293  # about 12.9 %
    assert round(outcome.p_loss, 4) == 0.4590  # about 45.9 %
    assert math.isclose(outcome.p_win + outcome.p_tie + outcome.p_loss, 1.0)


def test_golden_numbers_are_the_average_of_the_first_draws_best_moves() -> None:
    """The public API agrees with the bare solve: the opener's value is the mean over his first
    draw of the best move's value."""
    equity = p_win = 0.0
    for drawn in range(1, 11):
        advice = solve_question(
            ask(INF, str(drawn), "", "", ""), SolveOptions(solver=infinite_solver())
        )
        equity += advice.results[0].outcome.equity / 10
        p_win += advice.results[0].outcome.p_win / 10
    golden = opening_value(native=True)
    assert math.isclose(equity, golden.equity, abs_tol=1e-12)
    assert math.isclose(p_win, golden.p_win, abs_tol=1e-12)


def stand_threshold(opponent_total: int) -> int | None:
    """The smallest total at which standing beats ending the turn, both without hand cards and
    the opponent still drawing on ``opponent_total``; None if ending the turn is always at
    least as good. Two cards on each table (the second player to move)."""

    def table(total: int) -> str:
        high = min(10, total - 1)
        return f"{total - high} {high}"

    threshold = None
    for total in range(2, 20):
        question = ask(INF, table(total), "", table(opponent_total), "")
        outcome = by_move(solve_question(question, SolveOptions(solver=infinite_solver())))
        gain = outcome[(None, None, "stand")].equity - outcome[(None, None, "end")].equity
        if threshold is None and gain > 1e-12:
            threshold = total
        if threshold is not None:
            assert gain > 1e-12, f"standing on {total} is no better after all"  # monotone
    return threshold


def test_golden_the_stand_threshold_is_16_while_the_opponent_draws_on_11_or_less() -> None:
    """Without hand cards (kotor2, infinite deck) standing beats drawing on from 16 while the
    opponent still draws on 11 or less (it cannot pass 20 with one card), from 17 against
    12..15, from 18 against 16..17, on 19 against 18, and never against 19 (it must draw and
    will probably bust). Above the threshold standing stays better."""
    thresholds = {total: stand_threshold(total) for total in range(2, 20)}
    assert thresholds == {
        **dict.fromkeys(range(2, 12), 16),
        **dict.fromkeys(range(12, 16), 17),
        16: 18,
        17: 18,
        18: 19,
        19: None,
    }


# ------------------------------------------------------------------------------------------------
# Hidden hands.


OPP_DECK = parse_cards("+1 +1 -2 ±3 D T F2/4 +4 -5 ±1/2")


def test_a_hidden_hand_is_the_weighted_average_of_the_known_hands() -> None:
    """The opponent holds 2 of its deck's cards, less one played earlier in the match and one
    played this set (a +1 on its table)."""
    earlier = parse_cards("-2")
    hidden = ask(INF, "9 6", "+1 -1", "10 +1 4", hidden=2)
    options = SolveOptions(
        opponent_deck=OPP_DECK, opponent_played=earlier, solver=infinite_solver()
    )
    averaged = solve_question(hidden, options)
    prior = list(OPP_DECK)
    prior.remove(Card.parse("-2"))
    # the +1 was one of the two +1 cards (2 ways, 8 cards left) or the ±1/2 (1 way, 8 left)
    hands = played_posterior(parse_table("10 +1 4", KOTOR2.flip_targets), prior, 2)
    assert averaged.hands_averaged == len(hands)
    assert f"averaged over {len(hands)} possible hands" in averaged.model
    total = sum(ways for _, ways in hands)
    assert total == 3 * math.comb(8, 2)
    expected: dict[tuple[str | None, int | None, str], list[float]] = {}
    for hand, ways in hands:
        known = ask(INF, "9 6", "+1 -1", "10 +1 4", " ".join(map(str, hand)))
        for key, outcome in by_move(
            solve_question(known, SolveOptions(solver=infinite_solver()))
        ).items():
            sums = expected.setdefault(key, [0.0, 0.0, 0.0])
            for i, p in enumerate((outcome.p_win, outcome.p_tie, outcome.p_loss)):
                sums[i] += ways / total * p
    got = by_move(averaged)
    assert set(got) == set(expected)
    for key, (win, tie, loss) in expected.items():
        outcome = got[key]
        assert math.isclose(outcome.p_win, win, abs_tol=1e-12), key
        assert math.isclose(outcome.p_tie, tie, abs_tol=1e-12), key
        assert math.isclose(outcome.p_loss, loss, abs_tol=1e-12), key


def test_progress_is_reported_once_per_hidden_hand() -> None:
    calls: list[tuple[int, int]] = []
    question = ask(INF, "9 8", "+1", "10 7", hidden=1)
    options = SolveOptions(
        opponent_deck=OPP_DECK, progress=lambda done, total: calls.append((done, total))
    )
    advice = solve_question(question, options)
    kinds = len(set(OPP_DECK))
    assert advice.hands_averaged == kinds
    assert calls == [(done, kinds) for done in range(1, kinds + 1)]


def test_a_hidden_hand_needs_its_deck_as_the_prior() -> None:
    with pytest.raises(PazaakError, match="side deck as the prior"):
        solve_question(ask(INF, "9 8", "+1", "10 7", hidden=2), SolveOptions())


def test_earlier_plays_the_deck_cannot_explain_are_refused() -> None:
    options = SolveOptions(opponent_deck=OPP_DECK, opponent_played=parse_cards("+6"))
    with pytest.raises(PazaakError, match=r"\+6"):
        solve_question(ask(INF, "9 8", "+1", "10 7", hidden=2), options)


def test_a_table_card_the_deck_cannot_explain_is_refused() -> None:
    options = SolveOptions(opponent_deck=parse_cards("+1 +2 +3 +4 +5 +1 +2 +3 +4 +5"))
    with pytest.raises(PazaakError, match="-3"):
        solve_question(ask(INF, "9 8", "+1", "10 -3 7", hidden=2), options)


def test_sampled_hands_are_reproducible_and_say_so() -> None:
    question = ask(INF, "9 6", "+1 -1", "10 4", hidden=3)

    def options(seed: str) -> SolveOptions:
        return SolveOptions(
            opponent_deck=OPP_DECK, max_hands=5, sample_seed=seed, solver=infinite_solver()
        )

    first, again = solve_question(question, options("a")), solve_question(question, options("a"))
    assert first.results == again.results and first.hands_averaged <= 5
    assert "sampled hands" in first.model
    exact = solve_question(question, SolveOptions(opponent_deck=OPP_DECK, solver=infinite_solver()))
    assert exact.hands_averaged == len(possible_hands(OPP_DECK, 3)) > 5
    assert "possible hands" in exact.model


CARD_POOL = sorted(all_cards(), key=str)


@settings(max_examples=60, deadline=None)
@given(
    deck=st.lists(st.sampled_from(CARD_POOL[:8]), min_size=4, max_size=10),
    size=st.integers(0, 4),
    played_count=st.integers(0, 3),
)
def test_possible_hands_weigh_each_hand_by_its_number_of_deals(
    deck: list[Card], size: int, played_count: int
) -> None:
    """Against brute force: every set of ``size`` distinct positions of the deck less the
    played cards, counted by the sorted hand it gives. The weights sum to C(n, k)."""
    played = deck[:played_count]
    rest = deck[played_count:]
    if size > len(rest):
        with pytest.raises(PazaakError, match="fewer than"):
            possible_hands(deck, size, played)
        return
    brute = Counter(
        tuple(sorted((rest[i] for i in chosen), key=str))
        for chosen in itertools.combinations(range(len(rest)), size)
    )
    hands = possible_hands(deck, size, played)
    assert dict(hands) == dict(brute)
    assert sum(ways for _, ways in hands) == math.comb(len(rest), size)
    assert len({hand for hand, _ in hands}) == len(hands)  # each hand once


def test_possible_hands_with_duplicates() -> None:
    hands = dict(possible_hands(parse_cards("+1 +1 +1 -2"), 2))
    plus, minus = Card.parse("+1"), Card.parse("-2")
    assert hands == {(plus, plus): 3, (plus, minus): 3} or hands == {
        (plus, plus): 3,
        (minus, plus): 3,
    }


def test_possible_hands_refuse_a_played_card_the_deck_lacks() -> None:
    with pytest.raises(PazaakError, match="does not hold"):
        possible_hands(parse_cards("+1 +2"), 1, parse_cards("+3"))
    with pytest.raises(PazaakError, match="does not hold"):
        possible_hands(parse_cards("+1 +2"), 0, parse_cards("+1 +1"))


def table(text: str) -> tuple[TableCard, ...]:
    return parse_table(text, KOTOR2.flip_targets)


@pytest.mark.parametrize(
    ("shown", "deck", "cards"),
    [
        ("5 +3", "+3 ±3", "+3"),  # the exact card when the deck holds it
        ("5 +3", "±3 +2", "±3"),  # else the ±n
        ("5 -3", "+3 ±3", "±3"),  # a -3 cannot be a +3
        ("5 +2", "±1/2 +1", "±1/2"),  # ±1/2 for a 1 or a 2
        ("5 -1", "±1/2 ±1", "±1"),  # the ±1 before the ±1/2
        ("5 -1 6 -2", "±1/2 ±1 -1", "-1 ±1/2"),
        ("5 +1T", "T", "T"),
        ("5 -1T", "T", "T"),
        ("4 2 F2/4", "F2/4", "F2/4"),
        ("6 F3/6", "F3/6", "F3/6"),
        ("6 D", "D", "D"),
        ("6 8 7", "+1", ""),  # main-deck cards are not side cards
    ],
)
def test_played_cards_are_the_most_specific_cards_the_deck_holds(
    shown: str, deck: str, cards: str
) -> None:
    assert played_cards(table(shown), parse_cards(deck)) == list(parse_cards(cards))


@pytest.mark.parametrize(("shown", "deck"), [("5 +4", "+3 ±3"), ("5 +1T", "+1"), ("5 -3", "+3")])
def test_played_cards_the_deck_cannot_have_made_are_refused(shown: str, deck: str) -> None:
    with pytest.raises(PazaakError, match="could have made"):
        played_cards(table(shown), parse_cards(deck))


# ------------------------------------------------------------------------------------------------
# What every answer promises.


ANSWERS = [
    ("kotor1", "8 5", "+1 -2 ±3 +4", "10 7", None),
    ("kotor1", "6 9", "+1", "10 8", "+2"),
    (INF, "9 6", "D T ±1/2", "10 4", "F2/4 -1"),
    (INF, "2 1 3 1 2 6 3", "F3/6 +1", "10 8", None),
    ("kotor2", "9 8 6", "-1 ±1/2", "10 9", None),
]


@pytest.mark.parametrize("spec,mine,hand,theirs,their_hand", ANSWERS)
def test_every_answer_is_ranked_marked_and_adds_up(
    spec: str, mine: str, hand: str, theirs: str, their_hand: str | None
) -> None:
    advice = solve_question(ask(spec, mine, hand, theirs, their_hand))
    results = advice.results
    best = max(r.outcome.equity for r in results)
    for result in results:
        o = result.outcome
        assert all(-1e-12 <= p <= 1 + 1e-12 for p in (o.p_win, o.p_tie, o.p_loss))
        assert math.isclose(o.p_win + o.p_tie + o.p_loss, 1.0, abs_tol=1e-12)
        assert math.isclose(o.equity, o.p_win - o.p_loss)
        assert result.best is (o.equity >= best - BEST_TOLERANCE)
    keys = [(-r.outcome.equity, -r.outcome.p_win) for r in results]
    assert keys == sorted(keys)
    assert results[0].best
    assert len(by_move(advice)) == len(results)  # no move twice


def test_equal_moves_are_all_marked_best() -> None:
    """Ending the turn and playing -2 both win for sure (see the README example)."""
    advice = solve_question(ask("kotor1", "8 5", "+1 -2 ±3 +4", "10 7"))
    best = [str(r.move) for r in advice.results if r.best]
    assert best == ["end turn", "play -2, end turn"]


def test_every_legal_move_is_listed_with_each_value_of_the_card() -> None:
    advice = solve_question(ask(INF, "9 5", "±1/2 T D F2/4 ", "10 7"))
    keys = set(by_move(advice))
    for value in (1, 2, -1, -2):
        assert ("±1/2", value, "end") in keys and ("±1/2", value, "stand") in keys
    assert {("T", 1, "stand"), ("T", -1, "stand")} <= keys
    assert ("D", 5, "end") in keys  # a Double copies the drawn 5
    assert ("F2/4", None, "end") in keys
    assert {(None, None, "end"), (None, None, "stand")} <= keys
    assert len(keys) == 2 * (1 + 4 + 2 + 1 + 1)


def test_equal_hand_cards_give_one_move_each() -> None:
    advice = solve_question(ask("kotor1", "9 5", "+1 +1 ±2 ±2", "10 7"))
    assert sorted(by_move(advice), key=str) == sorted(
        [(None, None, t) for t in ("end", "stand")]
        + [(c, v, t) for c, v in (("+1", 1), ("±2", 2), ("±2", -2)) for t in ("end", "stand")],
        key=str,
    )


def test_the_model_sentence_names_each_model() -> None:
    stood = solve_question(ask("kotor1", "8 5", "+1", "10 7"))
    assert stood.model == (
        "kotor1: opponent stood on 17; exact 36-card deck, drawn without replacement"
    )
    known = solve_question(
        ask(INF, "8 5", "+1", "10 7", "-1"), SolveOptions(solver=infinite_solver())
    )
    assert known.model == (
        f"{INF}: both hands known, opponent plays optimally; infinite deck (uniform 1..10)"
    )
    assert not stood.fixed_probabilities and not known.fixed_probabilities
    assert stood.hands_averaged == known.hands_averaged == 1


def test_the_mover_must_know_his_own_hand() -> None:
    question = ask(INF, "9 5", "+1", "10 7")
    state = question.state
    me = state.sides[state.turn]._replace(hand=(None,))
    sides = (me, state.sides[1]) if state.turn == 0 else (state.sides[0], me)
    with pytest.raises(PazaakError, match="must be known"):
        solve_question(Question(state._replace(sides=sides), question.drawn))


def test_advise_wants_a_decision_after_a_draw() -> None:
    state = ask("kotor1", "9 5", "+1", "10 7").state  # before the draw
    with pytest.raises(PositionError, match="after his draw"):
        advise(state)


def test_advise_on_an_engine_state_equals_the_question_it_came_from() -> None:
    question = ask("kotor1", "9 5", "+1 -2", "10 7", "+3")
    after = question.state.child(Draw(question.drawn))
    assert solver_moves(advise(after).results) == solver_moves(solve_question(question).results)


def test_a_shared_memo_gives_the_same_answers_as_a_fresh_one() -> None:
    """A solver's memo carries over between positions (the expert relies on it)."""
    first = ask(INF, "6 7", "+1 -2 T", "10 5", "±3 D")
    second = ask(INF, "9 4", "-2 T", "8 8", "±3")
    shared = SetSolver(KOTOR2_INFINITE, fixed_draws=FULL_DECK)
    solve_question(first, SolveOptions(solver=shared))
    reused = solve_question(second, SolveOptions(solver=shared))
    fresh = solve_question(
        second, SolveOptions(solver=SetSolver(KOTOR2_INFINITE, fixed_draws=FULL_DECK))
    )
    assert reused.results == fresh.results


def test_the_c_inner_loop_and_pure_python_agree_on_a_long_solve() -> None:
    """Nearly a whole set, both hands known with gold cards: about 100 000 positions, every
    move equal to 1e-12 (too far for the reference)."""
    question = ask(INF, "6 5", "±1/2 D", "7", "T F3/6")
    answers = []
    for native in (True, False):
        solver = SetSolver(KOTOR2_INFINITE, fixed_draws=FULL_DECK, native=native)
        answers.append(solver_moves(solve_question(question, SolveOptions(solver=solver)).results))
        if native and not solver.native:
            pytest.skip("the C extension is not built")
    assert answers[0].keys() == answers[1].keys()
    for key, outcome in answers[0].items():
        assert all(abs(a - b) <= 1e-12 for a, b in zip(outcome, answers[1][key], strict=True))


def test_a_bounded_native_memo_holds_its_bound_and_gives_the_same_answers() -> None:
    """The C memo is a cache of at most ``max_states`` entries (rounded up to a power of two):
    a search larger than it forgets the cheapest entries and computes them again, the same. (A
    cache far smaller than the search thrashes: half of it costs little.)"""
    question = ask(INF, "6 5", "±1/2 +2", "7", hidden=2)
    options = SolveOptions(opponent_deck=parse_cards("T -3 +1 ±2 -5"))
    bounded = SetSolver(KOTOR2_INFINITE, fixed_draws=FULL_DECK, max_states=60_000)
    if not bounded.native:
        pytest.skip("the C extension is not built")
    free = SetSolver(KOTOR2_INFINITE, fixed_draws=FULL_DECK)
    options.solver = bounded
    answer = solve_question(question, options)
    options.solver = free
    assert answer.results == solve_question(question, options).results
    assert bounded.states <= 65_536 < free.states  # (the search needs about 125,000)


def test_a_pure_python_search_past_its_bound_is_refused_with_the_reason() -> None:
    question = ask(INF, "6 5", "±1/2 +2", "7", hidden=2)
    options = SolveOptions(opponent_deck=parse_cards("T -3 +1 ±2 -5"))
    options.solver = SetSolver(
        KOTOR2_INFINITE, fixed_draws=FULL_DECK, native=False, max_states=2_000
    )
    with pytest.raises(SolverTooLarge, match="more than 2,000 positions in memory"):
        solve_question(question, options)


def test_the_card_count_is_dropped_once_the_nine_card_rule_cannot_matter() -> None:
    """A table of 15 in three cards or in two, holding only plus cards: the ninth card would
    come on 15 + 6 = 21 or more, over the target, so both are one position for the memo."""
    rules = parse_ruleset("kotor1/main-deck=infinite")
    solver = SetSolver(rules, fixed_draws=FULL_DECK)
    plus = parse_cards("+1 +3")
    three = playing_side(solver, Side(table("5 5 5"), 15, plus, False), plus)
    two = playing_side(solver, Side(table("10 5"), 15, plus, False), plus)
    assert three == two and three[1] == 0
    # a -5 could bring the ninth card back under the target: the count stays
    minus = parse_cards("+1 -5")
    kept = playing_side(solver, Side(table("5 5 5"), 15, minus, False), minus)
    assert kept[1] == 3
    # and a flip card can always bring a total down
    flips = parse_cards("F2/4")
    assert playing_side(solver, Side(table("10 5"), 15, flips, False), flips)[1] == 2
    # (that the dropped count changes no number, and no move offered after a ninth card, is
    # checked against the reference in test_solver_reference.py)


def test_a_played_card_on_an_infinite_deck_can_be_advised() -> None:
    question = ask(INF, "9 5 +3", "-1", "10 8")
    assert question.state.played and question.state.deck == FULL_DECK


# ------------------------------------------------------------------------------------------------
# Simulation: the solver's own policy, played out, wins as often as it says.


def best_action(state: MatchState, cache: dict[MatchState, Action]) -> Action:
    """The first action of the best move for the player to act (the engine action that starts
    it: a Play is followed by another decision, or by the engine's automatic stand)."""
    found = cache.get(state)
    if found is not None:
        return found
    advice = advise(state, SolveOptions(solver=infinite_solver()))
    move: Move = advice.results[0].move
    action: Action
    if move.card is None:
        action = STAND if move.then == "stand" else END_TURN
    else:
        action = next(
            a
            for a in state.legal_actions()
            if isinstance(a, Play)
            and a.card == move.card
            and (move.value is None or a.value == move.value)
        )
    cache[state] = action
    return action


def test_playing_the_solver_against_itself_wins_as_often_as_it_predicts() -> None:
    """Both sides follow the solver's best move at every decision, from the opener's first move
    with both hands known (gold cards included) on an infinite deck: the frequencies of win,
    tie and loss of the opener agree with the predicted ones within 4 standard errors."""
    question = ask(INF, "7", "-2 T", "", "+2 ±1/2")
    start = question.state.child(Draw(question.drawn))
    me = start.turn
    predicted = advise(start, SolveOptions(solver=infinite_solver())).results[0].outcome
    rng = random.Random(6)
    cache: dict[MatchState, Action] = {}
    counts: Counter[str] = Counter()
    games = 5000
    for _ in range(games):
        state = start
        while state.phase is Phase.BEFORE_DRAW or state.phase is Phase.AFTER_DRAW:
            if state.phase is Phase.BEFORE_DRAW:
                state = state.child(state.sample_chance(rng))
            else:
                state = state.child(best_action(state, cache))
        winner = state.set_winners[-1]
        counts["tie" if winner is None else "win" if winner == me else "loss"] += 1
    for name, p in (
        ("win", predicted.p_win),
        ("tie", predicted.p_tie),
        ("loss", predicted.p_loss),
    ):
        error = math.sqrt(p * (1 - p) / games)
        assert abs(counts[name] / games - p) <= 4 * error + 1e-9, (name, counts, predicted)
    assert 0.05 < predicted.p_win < 0.95 and predicted.p_tie > 0.01  # a real test of all three


@pytest.mark.parametrize(
    ("spec", "table", "hand", "opp_table", "processes", "forks", "exact"),
    [
        (INF, "4 8", "+1 -2", "9 3", 3, 2, False),
        ("kotor1", "4 8", "+1 -2", "9 3", 3, 2, False),
        # two processes take the hands from either end until they meet
        (INF, "4 8", "+1 -2", "9 3", 2, 1, False),
        ("kotor1", "4 8", "+1 -2", "9 3", 2, 1, False),
        # a small search: never shared out, and its exact solve is tried all the same
        ("kotor1", "5 4 9", "", "9 3 5", 3, 0, False),
        # --exact: the exact deck's hands shared out too (the C core's cache a share each)
        ("kotor1", "4 8", "+1 -2", "9 3", 2, 1, True),
    ],
)
def test_a_hidden_hand_averaged_in_forked_processes_is_the_same_to_the_last_bit(
    spec: str,
    table: str,
    hand: str,
    opp_table: str,
    processes: int,
    forks: int,
    exact: bool,
    monkeypatch: pytest.MonkeyPatch,
    forks_made: list[int],
) -> None:
    """With several cores the possible hands are shared out among forked copies of the
    question's solver; their values are summed here in the hands' order, so the answer is the
    one a single process gives, bit for bit (with the infinite deck and with the game's, and on
    the exact deck under ``--exact``). A search that stays small (whose exact solve without
    replacement is then tried) is not shared out: the same model is answered whatever the
    processes."""
    if exact and set_solver._fastsolve is None:
        pytest.skip("the C core is not built (the Python search is not shared out)")
    made = forks_made
    question = ask(spec, table, hand, opp_table, hidden=2)
    deck = SolveOptions(opponent_deck=parse_cards("+1 +2 +3 -1 -2 -3 ±1 ±2 +4 -4"), exact=exact)
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "1")
    alone = solve_question(question, deck)
    assert not made
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", str(processes))
    shared = solve_question(question, deck)
    assert len(made) == forks
    assert alone.hands_averaged == shared.hands_averaged >= set_solver.FORK_MIN_HANDS
    fixed = forks > 0 and spec != INF and not exact
    assert shared.fixed_probabilities == alone.fixed_probabilities == fixed
    assert shared.model == alone.model
    assert [(r.move, r.outcome) for r in shared.results] == [
        (r.move, r.outcome) for r in alone.results
    ]


def test_two_ends_lose_no_hand_when_the_copy_dies_midway(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The forked copy that takes the hands from the back dies after it has taken two: this
    process then solves every hand past its own (the copy's values died with it), and the
    answer is the single process's, bit for bit."""
    if not executors.fork_available():
        pytest.skip("no fork on this system")
    question = ask("kotor1", "4 8", "+1 -2", "9 3", hidden=2)
    deck = SolveOptions(opponent_deck=parse_cards("+1 +2 +3 -1 -2 -3 ±1 ±2 +4 -4"))
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "1")
    alone = solve_question(question, deck)
    parent = os.getpid()
    solved = set_solver.hand_values
    hands = alone.hands_averaged
    done_here: list[int] = []

    def dying(job: Any, share: Any, *args: Any, **kwargs: Any) -> Any:
        if os.getpid() == parent and share[0] >= hands - 4:  # (the front waits near the end
            deadline = time.monotonic() + 30  # for the copy's death, however loaded the machine)
            while not (tmp_path / "died").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        values = solved(job, share, *args, **kwargs)
        if os.getpid() != parent and share[0] == hands - 2:
            (tmp_path / "died").write_text("")
            os._exit(3)  # (the copy, killed after its second hand)
        if os.getpid() == parent:
            done_here.extend(share)
        return values

    monkeypatch.setattr(set_solver, "hand_values", dying)
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "2")
    shared = solve_question(question, deck)
    assert [(r.move, r.outcome) for r in shared.results] == [
        (r.move, r.outcome) for r in alone.results
    ]
    assert (tmp_path / "died").exists()
    assert {hands - 1, hands - 2} <= set(done_here)  # (the copy's two, solved here again)


@pytest.mark.parametrize(
    ("spec", "total", "cards", "full", "then", "note"),
    [
        ("kotor1", 25, 9, True, "bust", "ninth card over the target"),
        ("kotor2", 18, 9, True, "stand", "ninth card: wins the set"),
        ("kotor1", 18, 9, True, "stand", "ninth card: automatic stand"),
        ("kotor1", 20, 9, True, "stand", "ninth card: automatic stand"),
        ("kotor1", 20, 3, False, "stand", "automatic stand at 20"),
        ("kotor1", 23, 3, False, "bust", ""),
    ],
)
def test_a_forced_end_of_turn_is_labelled_and_coded_alike(
    spec: str, total: int, cards: int, full: bool, then: str, note: str
) -> None:
    """The candidate lists use the codes alone (_end_codes); the moves shown label them
    (_turn_ends): both must agree, and each forced end carries its reason."""
    solver = SetSolver(parse_ruleset(spec), fixed_draws=FULL_DECK)
    side = (total, cards, solver.hands.intern(()), 0, 0, False)
    ends = solver._turn_ends(side, False, full)
    assert [(t, n) for t, n, _ in ends] == [(then, note)]
    assert tuple(code for _, _, code in ends) == solver._end_codes(side, False, full)
    if then == "bust":
        assert ends[0][2] == set_solver._LOSS_MOVE
    elif note.endswith("wins the set"):
        assert ends[0][2] == set_solver._WIN_MOVE
    else:
        assert ends[0][2] == solver.side_id((total, False))


def test_a_free_end_of_turn_offers_ending_then_standing() -> None:
    solver = SetSolver(parse_ruleset("kotor1"), fixed_draws=FULL_DECK)
    side = (15, 3, solver.hands.intern(()), 0, 0, False)
    ends = solver._turn_ends(side, False, False)
    assert ends == [("end", "", solver.side_id(side)), ("stand", "", solver.side_id((15, False)))]
    assert solver._end_codes(side, False, False) == (ends[0][2], ends[1][2])


@pytest.mark.parametrize("spec", ["kotor1", "kotor2"])
def test_the_match_solver_labels_its_ends_as_the_set_solver_does(spec: str) -> None:
    """Both solvers label a turn's ends from the one rule (solver.turn_end); their codes
    differ (the match solver interns busts and ninth-card wins as sides of their own)."""
    from pazaak_cli.solve.match_solver import MatchSolver

    rules = parse_ruleset(spec)
    set_side, match_solver = SetSolver(rules, fixed_draws=FULL_DECK), MatchSolver(rules)
    assert set_side.hands.intern(()) == 0 == match_solver.hands.intern(())
    for total in range(10, 27):
        for cards, full in ((3, False), (9, True)):
            side = (total, cards, 0, 0, 0, False)
            labels = [end[:2] for end in set_side._turn_ends(side, False, full)]
            match_ends = match_solver._turn_ends(side, False, full)
            assert [end[:2] for end in match_ends] == labels
            codes = match_solver._end_codes(side, False, full)
            assert tuple(end[2] for end in match_ends) == codes


class _EveryStand(SetSolver):
    """A set solver that keeps every stand in its candidate lists (none dropped as dominated;
    the C core's lists by its flag)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._core is not None:
            self._core.every_stand = True

    def _undominated(self, codes: tuple[int, ...]) -> tuple[int, ...]:
        return codes


def _stands_per_list(solver: SetSolver) -> list[int]:
    """How many stands each candidate list the solver made holds (Python's or the core's)."""
    core = solver._core
    if core is None:
        return [sum(solver._standing[c] for c in codes if c >= 0) for codes in solver._candidates]
    return [
        sum(len(core.side(c)) == 2 for c in core.candidates(side, value) if c >= 0)
        for side in range(core.nsides)
        if len(core.side(side)) == 6
        for value in range(1, 11)
    ]


@pytest.mark.parametrize(
    "native, rules, mine, theirs",
    [
        (True, KOTOR2_INFINITE, "±1 ±2 +3 D", "±4 -6 T ±5"),
        (True, parse_ruleset("kotor1/main-deck=infinite"), "+1 -2 ±3", "±2 +3 -4"),
        (False, KOTOR2_INFINITE, "±1 T", "D -3"),
    ],
    ids=["native-kotor2", "native-kotor1", "python-kotor2"],
)
def test_dropping_the_dominated_stands_changes_no_value(
    native: bool, rules: Any, mine: str, theirs: str
) -> None:
    def values(solver: SetSolver) -> list[tuple[float, float]]:
        found = []
        for mine_total, theirs_total in [(0, 0), (5, 9), (12, 14), (16, 11)]:
            me = playing_side(solver, Side((), mine_total, (), False), parse_cards(mine))
            them = playing_side(solver, Side((), theirs_total, (), False), parse_cards(theirs))
            deck = solver.deck_id(FULL_DECK)
            found.append(solver.before_draw(solver.side_id(me), solver.side_id(them), deck))
        return found

    pruned = SetSolver(rules, fixed_draws=FULL_DECK, native=native)
    every = _EveryStand(rules, fixed_draws=FULL_DECK, native=native)
    assert values(pruned) == values(every)  # to the last bit, win odds too
    assert max(_stands_per_list(pruned)) == 1  # one stand at most a list: the best
    assert max(_stands_per_list(every)) > 1
    assert pruned.solved <= every.solved


def test_the_cards_a_side_can_no_longer_play_leave_its_key() -> None:
    """A plus card (a Double) is dead once even the side's minus cards cannot bring it back
    within the target after a draw; flips keep every card (dead_card_steps)."""
    cards = parse_cards
    assert dead_card_steps(cards("+1 +5"), 20) == [(15, cards("+1")), (19, ())]
    # (a minus card is played after its turn's draw: -2 takes a total down by 1 at most)
    assert dead_card_steps(cards("+5 -2"), 20) == [(16, cards("-2"))]
    assert dead_card_steps(cards("+5 -1 T"), 20) == [(15, cards("-1 T"))]
    assert dead_card_steps(cards("D ±3"), 20) == [(21, cards("±3"))]
    assert dead_card_steps(cards("T ±1/2 -6"), 20) == []
    assert dead_card_steps(cards("+5 F2/4"), 20) == []
    for native in (False, True):
        solver = SetSolver(KOTOR1, fixed_draws=FULL_DECK, native=native)
        full, left = solver.hands.intern(cards("+1 +5")), solver.hands.intern(cards("+1"))
        assert solver.side_id((15, 0, full, 0, 0, False)) == solver.side_id(
            (15, 0, left, 0, 0, False)
        )
        assert solver.side_id((14, 0, full, 0, 0, False)) != solver.side_id(
            (14, 0, left, 0, 0, False)
        )


@given(st.lists(st.integers(0, COPIES_PER_VALUE), min_size=10, max_size=10))
def test_a_deck_named_by_its_code_draws_as_the_interned_deck(counts: list[int]) -> None:
    """The decks drawn exactly that the C match core names by their codes (``DeckCodes``) draw
    the same values with the same probabilities, to the bit, as the interned decks, into the
    same decks after; an empty deck is renewed whole."""
    deck = tuple(counts)
    coded, interned = set_solver.DeckCodes(), set_solver.DeckDraws(None)
    code = coded.intern(deck)
    assert 0 <= code < set_solver.DECK_RADIX**10
    assert [coded.intern(other) for other in (deck, FULL_DECK)] == [
        code,
        set_solver.DECK_RADIX**10 - 1,  # (the C core's FULL_DECK_CODE)
    ]
    mine = coded.draws(code)
    theirs = interned.draws(interned.intern(deck))
    assert [(v, p) for v, p, _ in mine] == [(v, p) for v, p, _ in theirs]
    after = [interned._decks[rest] for _, _, rest in theirs]
    assert [rest for _, _, rest in mine] == [coded.intern(rest) for rest in after]
