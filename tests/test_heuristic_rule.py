"""``heuristic_rule``, the rule the ``heuristic`` player decides through (its steps are tested in
tests/test_players.py), and the match solver's best reply to it, checked against the independent
reference playing the ``heuristic`` player itself."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest
from click.testing import CliRunner
from match_reference import TINY, MatchReference, decision
from reference_solver import each_move

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players.roster import HeuristicPlayer
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import KOTOR_END_TURN, KOTOR_STAND, kotor_rule
from pazaak_cli.solve.answers import AnswerRequest, answer
from pazaak_cli.solve.match_kotor import ME, OPP, KotorMatchSolver
from pazaak_cli.solve.match_native import make_match_solver
from pazaak_cli.solve.models import HEURISTIC, KOTOR, OPTIMAL, Objective, model_of_player


def test_the_rule_takes_its_steps_and_never_reads_the_sets() -> None:
    rules = parse_ruleset("kotor1")
    for sets in range(3):
        # a card that makes 20 is played, whatever the score
        assert heuristic_rule(17, 15, False, sets, ((20, False), (21, True)), False, rules) == 0
    # against a standing player: stand ahead, draw behind, play a card that passes him
    assert heuristic_rule(17, 16, True, 0, (), False, rules) == KOTOR_STAND
    assert heuristic_rule(15, 16, True, 0, (), False, rules) == KOTOR_END_TURN
    assert heuristic_rule(16, 17, True, 0, ((18, False),), False, rules) == 0
    # of two cards reaching 20, the fixed one; of two fixed ones, the first; over 20, the card
    # leaving the highest total at most 20; nothing to play: stand from 18, draw below
    assert heuristic_rule(17, 10, False, 0, ((20, True), (20, False)), False, rules) == 1
    assert heuristic_rule(17, 10, False, 0, ((20, False), (20, False)), False, rules) == 0
    assert heuristic_rule(23, 10, False, 0, ((18, True), (19, False)), False, rules) == 1
    assert heuristic_rule(18, 10, False, 0, (), False, rules) == KOTOR_STAND
    assert heuristic_rule(17, 10, False, 0, (), False, rules) == KOTOR_END_TURN
    # after a card only the standing steps are left
    assert heuristic_rule(18, 19, True, 0, ((20, False),), True, rules) == KOTOR_END_TURN


def test_the_rule_differs_from_kotors_where_the_two_players_do() -> None:
    """At 16 against 10 with nothing to play, ``kotor`` stands (docs/rules.md §7) and the
    heuristic draws; at 15 behind a standing 17 with a ±3 that makes 18, the heuristic plays it
    and ``kotor`` keeps drawing."""
    rules = parse_ruleset("kotor1")
    assert kotor_rule(16, 10, False, 0, (), False, rules) == KOTOR_STAND
    assert heuristic_rule(16, 10, False, 0, (), False, rules) == KOTOR_END_TURN
    signed = ((18, True), (12, True))
    assert kotor_rule(15, 17, True, 0, signed, False, rules) == KOTOR_END_TURN
    assert heuristic_rule(15, 17, True, 0, signed, False, rules) == 0


def test_the_match_solver_replies_to_the_rule_it_is_given() -> None:
    """Against either rule the best reply wins at least what optimal play guarantees against
    any opponent (the match's value with both hands known), and the two rules' values differ."""
    rules = parse_ruleset(f"kotor1/{TINY}")
    hands = (parse_cards("+1 -1"), parse_cards("+2 -2"))
    guaranteed = make_match_solver(rules).set_start_value((0, 0), hands, 0)
    against = {}
    for name, rule in (("kotor", kotor_rule), ("heuristic", heuristic_rule)):
        solver = KotorMatchSolver(rules, 0, rule=rule)
        against[name] = solver.set_start_value((0, 0), hands, ME)
        assert guaranteed - 1e-12 <= against[name] < 1.0
    assert against["heuristic"] != pytest.approx(against["kotor"], abs=1e-6)


HEURISTIC_CASES = {
    "first set, one card each": (f"kotor1/{TINY}", ("+1", "-2"), (), 0, (2,), ()),
    "one set each, the decider": (f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,), ()),
    "player 2 advised, 1-0": (f"kotor1/{TINY}", ("-1", "+1"), (0,), 0, (2, 1), ()),
    "two cards against a ± card, 0-1": (f"kotor1/{TINY}", ("+1 -1", "±2"), (1,), 0, (3,), ()),
}


def reference_values(state: MatchState) -> dict[tuple[str | None, int | None, str], float]:
    """Every move of ``state`` valued by the independent reference whose rule seat asks the
    ``heuristic`` player itself, the later sets' starts taken from the solver (the reference
    iterates from there to its own)."""
    me = state.turn
    solver = KotorMatchSolver(state.ruleset, me, rule=heuristic_rule)

    def start(begin: MatchState) -> float:
        won = begin.sets_won()
        hands = (tuple(begin.sides[me].hand), tuple(begin.sides[1 - me].hand))
        opener = ME if begin.turn == me else OPP
        return solver.set_start_value((won[me], won[1 - me]), hands, opener)  # type: ignore[arg-type]

    reference = MatchReference(me, kotor=1 - me, rule_player=HeuristicPlayer(), start=start)
    return {key: reference.value(after) for key, after in each_move(state)}


def by_move(results: Iterable[Any]) -> dict[tuple[str | None, int | None, str], float | None]:
    return {
        (None if r.move.card is None else str(r.move.card), r.move.value, r.move.then): r.match_win
        for r in results
    }


@pytest.mark.parametrize("name", sorted(HEURISTIC_CASES))
def test_the_best_reply_to_the_heuristic_agrees_with_the_reference(name: str) -> None:
    """The match solver given the heuristic rule against the independent reference whose rule
    seat asks the ``heuristic`` player itself (1e-9 on every move)."""
    state = decision(*HEURISTIC_CASES[name])
    me = state.turn
    solver = KotorMatchSolver(state.ruleset, me, rule=heuristic_rule)
    other = tuple(c for c in state.sides[1 - me].hand if c is not None)
    fast = by_move(solver.solve_moves(question_from_state(state), other, current_deck=None))
    exact = reference_values(state)
    assert fast.keys() == exact.keys()
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-9), move


@pytest.mark.parametrize("name", ["first set, one card each", "two cards against a ± card, 0-1"])
def test_the_service_answers_the_match_against_the_heuristic_as_the_reference(name: str) -> None:
    """``heuristic`` is one entry of the opponent registry: the answer service, asked for the
    match against it (as ``advise --opponent heuristic --objective match`` asks), gives every
    move the value the independent reference gives playing the ``heuristic`` player itself."""
    state = decision(*HEURISTIC_CASES[name])
    found = answer(AnswerRequest(question_from_state(state), HEURISTIC, Objective.MATCH))
    assert "the heuristic player's rule" in found.advice.model
    served = by_move(found.advice.results)
    exact = reference_values(state)
    assert served.keys() == exact.keys()
    for move, value in exact.items():
        assert served[move] == pytest.approx(value, abs=1e-9), move


def test_the_heuristic_is_a_choice_of_every_command_that_advises() -> None:
    """One registry entry puts ``heuristic`` in ``advise``, ``chart``, ``follow`` and the
    hint against the heuristic seat of ``play``, each saying so in its model line."""
    env = {"NO_COLOR": "1", "COLUMNS": "100"}
    runner = CliRunner()
    small = ["--ruleset", f"kotor1/{TINY}", "--table", "2", "--hand", "+1", "--opp-table", ""]
    result = runner.invoke(
        main,
        [
            "advise",
            *small,
            "--opp-hand",
            "-2",
            "--opponent",
            "heuristic",
            "--objective",
            "set",
            "--json",
        ],
        env=env,
    )
    assert result.exit_code == 0, result.output
    assert "the heuristic player's rule" in json.loads(result.output)["model"]
    chart = runner.invoke(
        main,
        [
            "chart",
            "--ruleset",
            "kotor1/main-deck=infinite",
            "--hand",
            "+2",
            "--opp-hand",
            "-1",
            "--opponent",
            "heuristic",
        ],
        env=env,
    )
    assert chart.exit_code == 0, chart.output
    assert "opponent plays the heuristic player's rule" in " ".join(chart.output.split())
    for command in ("advise", "chart", "follow"):
        shown = runner.invoke(main, [command, "--help"], env=env)
        assert "heuristic" in shown.output, command
    assert model_of_player("heuristic") is HEURISTIC
    assert model_of_player("kotor") is KOTOR
    assert model_of_player("expert") is OPTIMAL
