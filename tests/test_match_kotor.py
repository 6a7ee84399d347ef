"""The match solver against the KOTOR I rule (``pazaak_cli.solve.match_kotor``) and its advice.

The independent reference is ``tests/match_reference.py`` with its ``kotor`` seat: value
iteration over the engine's own states, the KOTOR seat choosing through
:class:`pazaak_cli.players.roster.KotorPlayer` on its view of the table. The positions are small
variants (a target of 4 on a table of 3, first to 2 sets) that keep every rule the match adds: the
score, hands kept across sets, ties with and without cards played, every first-player rule, both
nine-card rules, tiebreakers, flips and Doubles, and the rule's give-up at a low score.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace

import pytest
from click.testing import CliRunner
from match_reference import TINY, MatchReference, decision
from reference_solver import MoveKey, each_move

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.game import Draw, MatchState, Open, new_match
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players.expert import action_for
from pazaak_cli.players.roster import KotorPlayer
from pazaak_cli.policies.kotor_rule import kotor_rule
from pazaak_cli.solve import match_advice
from pazaak_cli.solve.advice import FallbackAdvice, solve_match_asked, solve_question
from pazaak_cli.solve.answer_types import SolveOptions, SolverTooLarge
from pazaak_cli.solve.answers import AnswerRequest, choose_objective
from pazaak_cli.solve.match_advice import match_is_quick, solve_match_question
from pazaak_cli.solve.match_kotor import (
    ME,
    OPP,
    KotorMatchSolver,
    canonical_order,
    match_hand_orders,
)
from pazaak_cli.solve.match_solver import MatchSolver
from pazaak_cli.solve.models import KOTOR


def solver_moves(state: MatchState, solver: KotorMatchSolver) -> dict[MoveKey, float]:
    """The solver's match value of every move, keyed (card, value, then)."""
    other = tuple(c for c in state.sides[1 - state.turn].hand if c is not None)
    named: dict[MoveKey, float] = {}
    for result in solver.solve_moves(question_from_state(state), other, current_deck=None):
        move = result.move
        key = (None if move.card is None else str(move.card), move.value, move.then)
        assert key not in named, f"the solver lists {key} twice"
        named[key] = result.match_win
    return named


def reference_moves(
    state: MatchState, solver: KotorMatchSolver | None = None
) -> dict[MoveKey, float]:
    """Every move's P(win the match) for the mover against the KOTOR seat, from the reference;
    its iteration starts from ``solver``'s set-start values (a contraction: a wrong start would
    move), or from one half."""
    me = state.turn

    def start(begin: MatchState) -> float:
        assert solver is not None
        won = begin.sets_won()
        hands = (tuple(begin.sides[me].hand), tuple(begin.sides[1 - me].hand))
        opener = ME if begin.turn == me else OPP
        return solver.set_start_value((won[me], won[1 - me]), hands, opener)  # type: ignore[arg-type]

    reference = MatchReference(me, kotor=1 - me, start=start if solver is not None else None)
    return {key: reference.value(after) for key, after in each_move(state)}


Case = tuple[str, tuple[str, str], tuple[int | None, ...], int, tuple[int, ...], tuple[str, ...]]
CASES: dict[str, Case] = {
    "first set, one card each": (f"kotor1/{TINY}", ("+1", "-2"), (), 0, (2,), ()),
    "one set each: a tie replays the decider": (
        f"kotor1/{TINY}",
        ("+1", "-2"),
        (0, 1),
        0,
        (2,),
        (),
    ),
    "after a tie with cards played": (f"kotor1/{TINY}", ("+1", "+2"), (None,), 0, (3,), ()),
    "player 2 advised, 1-0": (f"kotor1/{TINY}", ("-1", "+1"), (0,), 0, (2, 1), ()),
    "two cards against a ± card, 0-1": (f"kotor1/{TINY}", ("+1 -1", "±2"), (1,), 0, (3,), ()),
    "nine cards win (kotor2)": (f"kotor2/{TINY}", ("+1", "-1"), (), 0, (1, 2, 1), ("end turn",)),
    "nine cards stand": (f"kotor1/{TINY}", ("+1", "-1"), (), 0, (1, 2, 1), ("end turn",)),
    "random opener, a tiebreaker against a flip": (
        f"kotor2/{TINY}",
        ("T", "F2/4"),
        (),
        0,
        (2,),
        (),
    ),
    "alternate openers, second set": (
        f"kotor1/{TINY},first-player=alternate",
        ("-1", "+1"),
        (1,),
        1,
        (1,),
        (),
    ),
    "the loser opens after a tie": (
        f"kotor1/{TINY},first-player=loser",
        ("-1", "+1"),
        (None,),
        0,
        (2,),
        (),
    ),
    "a tiebreaker against a Double and a plus card, in that order": (
        f"kotor2/{TINY},tiebreaker=any-played",
        ("T", "D +1"),
        (1,),
        0,
        (2,),
        (),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_move_agrees_with_the_reference(name: str) -> None:
    spec, hands, winners, opener, draws, actions = CASES[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    solver = KotorMatchSolver(state.ruleset, state.turn)
    fast = solver_moves(state, solver)
    exact = reference_moves(state, solver)
    assert fast.keys() == exact.keys()
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-9), move


def test_the_reference_alone_finds_the_same_values() -> None:
    """Started from one half, with no help from the solver, the reference lands on the
    solver's values (to 1e-12), at a score where the rule may give a set up (I have won none)
    and with a tie that replays the match state."""
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (1,), 0, (2,))
    solver = KotorMatchSolver(state.ruleset, 0)
    fast = solver_moves(state, solver)
    assert solver.fixed_point_shortcuts > 0  # (Newton steps that needed no evaluation)
    exact = reference_moves(state)
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-12), move


def test_the_order_of_the_rules_hand_matters_over_the_match() -> None:
    """D before +1 or after it: on a drawn 1 the rule plays the first of the two and keeps the
    other for later sets, so the two orders are two different opponents; each agrees with the
    reference, and they differ."""
    values = []
    for hand in ("D +1", "+1 D"):
        state = decision(f"kotor2/{TINY},first-player=player1", ("-1", hand), (), 0, (2,))
        solver = KotorMatchSolver(state.ruleset, 0)
        fast = solver_moves(state, solver)
        exact = reference_moves(state, solver)
        assert all(fast[m] == pytest.approx(v, abs=1e-9) for m, v in exact.items())
        values.append(fast)
    assert max(abs(values[0][m] - values[1][m]) for m in values[0]) > 1e-6
    assert len(match_hand_orders(parse_cards("D +1"))) == 2
    assert len(match_hand_orders(parse_cards("±3 +4 -2 ±6"))) == 1  # KOTOR I cards: no order
    assert canonical_order(parse_cards("+4 ±3 -2")) == canonical_order(parse_cards("-2 +4 ±3"))


def test_a_hidden_hand_is_the_average_over_every_deal_and_order() -> None:
    """A hidden hand of two cards of the side deck: the advice equals the reference averaged
    over every ordered deal of two positions of the deck (its hand order included)."""
    state = decision(f"kotor2/{TINY},first-player=player1", ("+1", "D +1"), (0,), 0, (2,))
    deck = parse_cards("D +1 T")
    hidden = state._replace(sides=(state.sides[0], state.sides[1]._replace(hand=(None, None))))
    options = SolveOptions(opponent_deck=deck, objective="match", opponent="kotor")
    advice = solve_match_question(question_from_state(hidden), options)
    assert "with the orders that change its choices" in advice.model
    got = {
        (None if r.move.card is None else str(r.move.card), r.move.value, r.move.then): r.match_win
        for r in advice.results
    }
    deals = list(itertools.permutations(range(len(deck)), 2))
    expected: dict[MoveKey, float] = {}
    for deal in deals:
        hand = tuple(deck[i] for i in deal)
        known = state._replace(sides=(state.sides[0], state.sides[1]._replace(hand=hand)))
        solver = KotorMatchSolver(state.ruleset, 0)
        for move, value in reference_moves(known, solver).items():
            expected[move] = expected.get(move, 0.0) + value / len(deals)
    assert got.keys() == expected.keys()
    for move, value in expected.items():
        assert got[move] == pytest.approx(value, abs=1e-9), move


def test_the_best_reply_is_at_least_the_optimal_solvers_move() -> None:
    """Against the rule, the move the minimax match solver recommends is worth no more than
    the best reply's, in every position of a small match."""
    for draws in ((2,), (1,), (3,), (1, 2)):
        state = decision(f"kotor1/{TINY}", ("+1 -1", "-1"), (), 0, draws)
        against_kotor = solver_moves(state, KotorMatchSolver(state.ruleset, state.turn))
        other = tuple(c for c in state.sides[1 - state.turn].hand if c is not None)
        optimal = MatchSolver(state.ruleset).solve_moves(
            question_from_state(state), other, current_deck=None
        )
        chosen = max(optimal, key=lambda r: r.match_win).move
        key = (None if chosen.card is None else str(chosen.card), chosen.value, chosen.then)
        assert max(against_kotor.values()) >= against_kotor[key] - 1e-12


def test_playing_the_solver_against_the_kotor_player_wins_as_often_as_solved() -> None:
    """Player 1 plays the solver's best move at every decision, player 2 is the game's KOTOR
    player; over 2,000 seeded matches player 1 wins as often as the solved value says (within
    4 standard errors)."""
    rules = parse_ruleset(f"kotor1/{TINY}")
    hands = (tuple(parse_cards("+1 -1")), tuple(parse_cards("+2 -1")))
    solver = KotorMatchSolver(rules, 0)
    solved = solver.set_start_value((0, 0), hands, ME)
    kotor = KotorPlayer()
    policy: dict[MatchState, object] = {}
    rng = random.Random(7)
    wins = 0
    matches = 2000
    for _ in range(matches):
        state = new_match(rules, hands).child(Open(0))
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
            elif state.turn == 1:
                state = state.child(kotor.choose(state.observed_by(1)))
            else:
                action = policy.get(state)
                if action is None:
                    other = tuple(c for c in state.sides[1].hand if c is not None)
                    results = solver.solve_moves(
                        question_from_state(state), other, current_deck=None
                    )
                    action = policy[state] = action_for(
                        state, max(results, key=lambda r: r.match_win).move
                    )
                state = state.child(action)  # type: ignore[arg-type]
        wins += state.sets_won()[0] >= rules.sets_to_win
    error = (solved * (1 - solved) / matches) ** 0.5
    assert abs(wins / matches - solved) <= 4 * error


def test_the_set_odds_along_the_line_add_up() -> None:
    state = decision(f"kotor1/{TINY}", ("+1 -1", "±2"), (1,), 0, (3,))
    solver = KotorMatchSolver(state.ruleset, 0)
    other = tuple(parse_cards("±2"))
    for result in solver.solve_moves(question_from_state(state), other, current_deck=None):
        assert result.set_win + result.set_tie + result.set_loss == pytest.approx(1.0)
        assert all(0.0 <= p <= 1.0 for p in (result.set_win, result.set_tie, result.set_loss))


# -- the command -------------------------------------------------------------------------------


def advise(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["advise", *args], prog_name="pazaak")
    assert "Traceback" not in result.output
    return result.exit_code, result.output


SMALL = ["--ruleset", f"kotor1/{TINY}", "--table", "2", "--hand", "+1", "--opp-table", ""]
KOTOR_MATCH = ["--opponent", "kotor", "--objective", "match"]


def test_advise_answers_for_the_match_against_the_kotor_rule() -> None:
    code, output = advise(*SMALL, "--opp-hand", "-2", "--sets", "1-1", *KOTOR_MATCH)
    assert code == 0, output
    lines = output.splitlines()
    assert lines[1].startswith("Best for the whole match")
    assert "match to 2 sets won, 1-1" in lines[2]
    assert "opponent plays the KOTOR I rule (docs/rules.md §7) in this set and every" in lines[2]
    assert lines[3].split()[:4] == ["move", "match", "win", "%"]


def test_advise_json_gives_the_match_win_against_the_rule() -> None:
    code, output = advise(*SMALL, "--opp-hand", "-2", "--sets", "1-1", *KOTOR_MATCH, "--json")
    assert code == 0, output
    data = json.loads(output)
    assert data["objective"] == "match"
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,))
    expected = solver_moves(state, KotorMatchSolver(state.ruleset, 0))
    assert all(isinstance(m["match_win"], float) for m in data["moves"])
    assert sorted(m["match_win"] for m in data["moves"]) == pytest.approx(
        sorted(expected.values()), abs=1e-12
    )
    assert data["moves"][0]["best"] and data["moves"][0]["match_win"] == max(expected.values())
    assert all(m["p_win"] + m["p_tie"] + m["p_loss"] == pytest.approx(1.0) for m in data["moves"])


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--sets", "2-0"], 1, "the match ends at 2 sets won"),
        (["--opp-hand", "-2 +1 +3"], 1, "more than the 2"),
        (["--opp-hand", "Q"], 2, "'Q'"),
    ],
)
def test_bad_kotor_match_questions_are_refused_in_one_line(
    args: list[str], code: int, words: str
) -> None:
    base = SMALL + ([] if "--opp-hand" in args else ["--opp-hand", "-2"])
    got, output = advise(*base, *KOTOR_MATCH, *args)
    assert got == code, output
    assert words in output
    assert len([line for line in output.splitlines() if line.startswith("Error")]) == 1


def test_solve_question_routes_the_match_objective_against_kotor() -> None:
    """``advice.solve_question`` answers objective match, opponent kotor from this solver: every
    move with its match-win probability, the model line says which model was solved."""
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,))
    options = SolveOptions(objective="match", opponent="kotor")
    advice = solve_question(question_from_state(state), options)
    assert advice.objective == "match"
    assert (
        "opponent plays the KOTOR I rule (docs/rules.md §7) in this set and every" in advice.model
    )
    assert "match to 2 sets won, 1-1" in advice.model
    expected = solver_moves(state, KotorMatchSolver(state.ruleset, 0))
    got = {
        (None if r.move.card is None else str(r.move.card), r.move.value, r.move.then): r.match_win
        for r in advice.results
    }
    assert got == pytest.approx(expected, abs=1e-12)
    assert advice.results[0].best and advice.results[0].match_win == max(expected.values())


def test_a_kotor_match_answer_out_of_reach_is_refused_at_once() -> None:
    """Five cards against four known: 512 pairs of sub-hands, past what fits the memory bound
    (measured: 256 in C, 64 in Python): refused in one line before any solving, not minutes
    later."""
    reach = match_advice.kotor_match_limits(kotor_rule).reach_pairs
    args = ["--ruleset", "kotor1/hand-size=5", "--table", "6", "--hand", "+1 +2 +3 +4 +5"]
    args += ["--opp-table", "", "--opp-hand", "+1 +3 +4 +5"]
    code, output = advise(*args, *KOTOR_MATCH)
    assert code == 1, output
    assert output == (
        "Error: the match answer against the KOTOR rule would solve 512 pairs of sub-hands here, "
        f"where {reach} fit its memory bound (the set answer needs far less)\n"
    )


def test_the_match_answer_asked_for_against_kotor_is_the_optimal_one_out_of_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`hint match` against the KOTOR computer: its rule's match answer within reach, else the
    match answer against an optimal opponent, the model line saying why."""
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,))
    question = question_from_state(state)
    options = SolveOptions(opponent="kotor")
    kotor = solve_match_asked(question, options)
    assert kotor.model == solve_question(question, replace(options, objective="match")).model
    assert "opponent plays the KOTOR I rule" in kotor.model
    limited = replace(match_advice.kotor_match_limits(kotor_rule), reach_pairs=1)
    monkeypatch.setattr(match_advice, "kotor_match_limits", lambda rule: limited)  # (4 pairs)
    asked = solve_match_asked(question, options)
    optimal = solve_question(question, SolveOptions(objective="match"))
    assert asked.model == (
        f"{optimal.model}; against the KOTOR rule the match answer is too large to solve here, "
        "so this one is against an opponent who plays the match perfectly"
    )
    assert isinstance(asked, FallbackAdvice)  # (the precise reason kept for --json and docs)
    assert asked.not_solved == (
        "the match answer against the KOTOR rule would solve 4 pairs of sub-hands here, where 1 "
        "fit its memory bound (the set answer needs far less)"
    )
    assert [(r.move, r.outcome) for r in asked.results] == [
        (r.move, r.outcome) for r in optimal.results
    ]
    assert [r.match_win for r in asked.results] == pytest.approx(
        [r.match_win for r in optimal.results], abs=1e-12
    )
    assert options.objective == "set"  # (the caller's options are left as they were)


def test_advise_kotor_without_an_objective_answers_for_the_match_when_it_is_quick() -> None:
    code, output = advise(*SMALL, "--opp-hand", "-2", "--opponent", "kotor", "--json")
    assert code == 0, output
    assert json.loads(output)["objective"] == "match"


def test_the_hint_uses_the_kotor_match_answer_when_it_is_quick() -> None:
    """Quick is as many pairs of sub-hands as the rule's solver answers in a few seconds (64 in
    C, 9 in Python): 4 pairs are, 256 are not (then the set, with the note saying why)."""
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0,), 0, (2,))
    options = SolveOptions(opponent="kotor")
    assert match_is_quick(question_from_state(state), options)
    assert choose_objective(AnswerRequest(question_from_state(state), KOTOR))[0] == "match"
    rules = parse_ruleset("kotor1/main-deck=infinite")
    hands = (tuple(parse_cards("+1 -2 +3 -4")), tuple(parse_cards("+2 -3 +4 -1")))
    big = new_match(rules, hands).child(Open(0)).child(Draw(1))
    assert not match_is_quick(question_from_state(big), options)
    objective, note = choose_objective(AnswerRequest(question_from_state(big), KOTOR))
    assert objective == "set" and note is not None and "256 pairs" in note


def test_a_kotor_match_answer_past_its_memory_bound_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match_advice.clear_shared_solvers()  # (a solver that solved this question would not count)
    limited = replace(match_advice.kotor_match_limits(kotor_rule), budget=3)
    monkeypatch.setattr(match_advice, "kotor_match_limits", lambda rule: limited)
    code, output = advise(*SMALL, "--opp-hand", "-2", "--sets", "1-1", *KOTOR_MATCH)
    assert code == 1, output
    assert output == (
        "Error: the match answer against the KOTOR rule for these hands needs more than the 3 "
        "positions it may search (the set answer needs far less)\n"
    )


def test_a_search_stopped_by_its_budget_leaves_the_solver_exact() -> None:
    """A budget (or Ctrl-C) that stops a fixed point half way forgets its positions: the same
    solver then answers as a fresh one."""
    state = decision(f"kotor1/{TINY}", ("+1 -1", "-2 +1"), (), 0, (2,))
    other = tuple(c for c in state.sides[1].hand if c is not None)
    solver = KotorMatchSolver(state.ruleset, 0)
    for budget in (5, 40, 200):
        with pytest.raises(SolverTooLarge):
            solver.solve_moves(question_from_state(state), other, current_deck=None, budget=budget)
    fresh = KotorMatchSolver(state.ruleset, 0)
    assert solver_moves(state, solver) == pytest.approx(solver_moves(state, fresh), abs=1e-12)


def test_a_bounded_memo_is_emptied_between_match_states_and_keeps_its_budget() -> None:
    """With a small memo bound the solver empties its memo between the match states it
    prepares (so a long solve holds a bounded number of positions), answers the same values,
    and a budget still counts every new position across those emptyings."""
    state = decision(f"kotor1/{TINY}", ("+1 -1", "-2 +1"), (), 0, (2,))
    other = tuple(c for c in state.sides[1].hand if c is not None)
    free = KotorMatchSolver(state.ruleset, 0)
    expected = solver_moves(state, free)
    bounded = KotorMatchSolver(state.ruleset, 0, max_states=50)
    assert solver_moves(state, bounded) == pytest.approx(expected, abs=1e-12)
    assert bounded.states < free.states / 2
    needed = free.states
    tight = KotorMatchSolver(state.ruleset, 0, max_states=50)
    with pytest.raises(SolverTooLarge):
        tight.solve_moves(question_from_state(state), other, current_deck=None, budget=needed // 2)


@pytest.mark.usefixtures("room_of_a_fresh_process")
def test_exact_decks_share_one_model_and_answer_as_a_fresh_solver() -> None:
    """As for the match solver: every deck drawn without replacement shares one deck model, and
    a solver that answered other exact questions first gives exactly what a fresh one gives."""
    state = decision("kotor1/target=4,table-size=3,sets-to-win=2", ("+1", "-2"), (1,), 0, (2,))
    question, other = question_from_state(state), parse_cards("-2")
    decks = [
        (4, 3, 4, 4, 2, 4, 4, 4, 4, 4),
        (4, 3, 4, 4, 2, 4, 4, 4, 4, 3),
        (3, 3, 4, 4, 2, 4, 4, 4, 4, 4),
    ]
    reused = KotorMatchSolver(state.ruleset, 0)
    for deck in decks:
        got = reused.solve_moves(question, other, current_deck=deck, exact=True)
        fresh = KotorMatchSolver(state.ruleset, 0).solve_moves(
            question, other, current_deck=deck, exact=True
        )
        assert got == fresh
    assert len({reused.deck_model(deck, True) for deck in decks}) == 1
