"""The match solver against the independent reference (``tests/match_reference.py``), the fixed
point of tied sets, self-play, and the match advice of ``pazaak advise``.

The reference plays the engine's own states with value iteration; it is slow, so the positions
are small variants (a target of 4 on a table of 3, first to 2 sets), which keep every rule that
the match adds: the score, hands kept across sets, ties with and without cards played, every
first-player rule, both nine-card rules, tiebreakers and flips. Most comparisons start the
reference's iteration from the solver's own set-start values: the iteration is a contraction
with one fixed point, so a wrong start value would move it (and the move values would then
disagree); one comparison starts it from one half, as the reference does alone.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from match_reference import TINY, MatchReference, decision
from reference_solver import MoveKey, each_move

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.game import (
    FULL_DECK,
    Action,
    Draw,
    MatchState,
    Open,
    new_match,
)
from pazaak_cli.engine.notation import parse_position
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players.expert import action_for
from pazaak_cli.solve import match_advice
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.match_advice import solve_match_question
from pazaak_cli.solve.match_solver import MatchSolver


def reference_moves(state: MatchState, solver: MatchSolver | None) -> dict[MoveKey, float]:
    """Every move's P(win the match) for the mover, from the reference (its iteration started
    from ``solver``'s set-start values, or from one half without a solver), keyed as the set
    reference keys moves: (card, value, then)."""
    me = state.turn

    def start(begin: MatchState) -> float:
        assert solver is not None
        hands = (tuple(begin.sides[0].hand), tuple(begin.sides[1].hand))
        value = solver.set_start_value(begin.sets_won(), hands, begin.turn)  # type: ignore[arg-type]
        return value if me == 0 else 1.0 - value

    reference = MatchReference(
        me,
        start=start if solver is not None else None,
        blind=None if solver is None else solver.later_blind,
    )
    return {key: reference.value(after) for key, after in each_move(state)}


def solver_moves(state: MatchState, solver: MatchSolver) -> dict[MoveKey, float]:
    """The solver's match value of every move, keyed as :func:`reference_moves` keys them."""
    question = question_from_state(state)
    other = tuple(c for c in state.sides[1 - state.turn].hand if c is not None)
    named: dict[MoveKey, float] = {}
    for result in solver.solve_moves(question, other, current_deck=None):
        move = result.move
        key = (None if move.card is None else str(move.card), move.value, move.then)
        assert key not in named, f"the solver lists {key} twice"
        named[key] = result.match_win
    return named


CASES = {
    "first set, both hold one card": (f"kotor1/{TINY}", ("+1", "-2"), (), 0, (2,), ()),
    "one set each, a tie replays the decider": (
        f"kotor1/{TINY}",
        ("+1", "-2"),
        (0, 1),
        0,
        (2,),
        (),
    ),
    "after a tie with cards played": (f"kotor1/{TINY}", ("+1", "+2"), (None,), 0, (3,), ()),
    "player 2 to move, 1-0": (f"kotor1/{TINY}", ("-1", "+1"), (0,), 0, (2, 1), ()),
    "two cards each, 0-1": (f"kotor1/{TINY}", ("+1 -1", "+2"), (1,), 0, (3,), ()),
    "nine cards win (kotor2)": (f"kotor2/{TINY}", ("+1", "-1"), (), 0, (1, 2, 1), ("end turn",)),
    "nine cards stand": (f"kotor1/{TINY}", ("+1", "-1"), (), 0, (1, 2, 1), ("end turn",)),
    "random opener with a tiebreaker": (f"kotor2/{TINY}", ("T", "F2/4"), (), 0, (2,), ()),
    "random opener, player 2 opened": (f"kotor2/{TINY}", ("T", "-1"), (0,), 1, (3,), ()),
    "alternate openers": (f"kotor1/{TINY},first-player=alternate", ("+1", "-1"), (), 0, (2,), ()),
    "alternate, second set": (
        f"kotor1/{TINY},first-player=alternate",
        ("-1", "+1"),
        (1,),
        1,
        (1,),
        (),
    ),
    "the loser opens": (f"kotor1/{TINY},first-player=loser", ("+1", "-2"), (1,), 0, (2,), ()),
    "the loser opens after a tie": (
        f"kotor1/{TINY},first-player=loser",
        ("-1", "+1"),
        (None,),
        0,
        (2,),
        (),
    ),
    "a flip on the table": (f"kotor2/{TINY}", ("F2/4", "+1"), (), 0, (2, 1), ("end turn",)),
    "a double": (f"kotor2/{TINY},tiebreaker=any-played", ("D", "T"), (1,), 0, (2,), ()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_move_agrees_with_the_reference(name: str) -> None:
    spec, hands, winners, opener, draws, actions = CASES[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    solver = MatchSolver(state.ruleset)
    fast = solver_moves(state, solver)
    exact = reference_moves(state, solver)
    assert fast.keys() == exact.keys()
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-9), move


@pytest.mark.parametrize("name", ["the loser opens", "two cards each, 0-1", "a double"])
def test_the_cases_above_see_the_solver_drop_dominated_stands(name: str) -> None:
    """The agreement above covers the stands a match solver leaves out of its candidate lists
    (a stand on a total as high, keeping every card, does at least as well): it does drop some."""
    spec, hands, winners, opener, draws, actions = CASES[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    solver = MatchSolver(state.ruleset)
    solver_moves(state, solver)
    dropped = [
        set(codes) - set(solver._candidates[found])
        for codes, found in solver._candidate_ids.items()
    ]
    assert any(dropped)
    for gone in dropped:
        assert all(solver._standing[code] for code in gone)  # only stands are ever dropped


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_solver_blind_to_the_later_hands_agrees_with_its_reference(name: str) -> None:
    """``later_blind`` (the ``match-lite`` model): every later set starts with the opponent's
    hand empty, in the solver as in the reference (which empties it at each set's end)."""
    spec, hands, winners, opener, draws, actions = CASES[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    solver = MatchSolver(state.ruleset, later_blind=1 - state.turn)
    fast = solver_moves(state, solver)
    exact = reference_moves(state, solver)
    assert fast.keys() == exact.keys()
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-9), move


def test_the_reference_alone_finds_the_same_values() -> None:
    """Started from one half (no help from the solver), the reference lands on the solver's
    values: the start only changes how long it iterates."""
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,))
    fast = solver_moves(state, MatchSolver(state.ruleset))
    exact = reference_moves(state, None)
    assert fast.keys() == exact.keys()
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-9), move


def test_a_wrong_start_value_does_not_steer_the_reference() -> None:
    """The reference is not an echo of the values it starts from: started from set-start values
    that are all 0.01 too high, it still lands on the true move values."""
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,))
    solver = MatchSolver(state.ruleset)
    fast = solver_moves(state, solver)
    wrong = MatchSolver(state.ruleset)
    solver_moves(state, wrong)
    for key in list(wrong._entries):
        wrong._entries[key] = min(1.0, wrong._entries[key] + 0.01)
    exact = reference_moves(state, wrong)
    assert max(abs(fast[m] - exact[m]) for m in exact) <= 1e-9


def test_hidden_hands_average_the_known_hand_values() -> None:
    state = decision(f"kotor1/{TINY}", ("+1 -1", "+2 -2"), (0,), 0, (2,))
    hidden = state.sides[1]._replace(hand=(None, None))
    view = state._replace(sides=(state.sides[0], hidden))
    deck = parse_cards("+2 -2 +1 +3")
    advice = solve_match_question(
        question_from_state(view), SolveOptions(opponent_deck=deck, objective="match")
    )
    hands: dict[tuple[Card, ...], int] = {}
    for i, first in enumerate(deck):
        for second in deck[i + 1 :]:
            pair = tuple(sorted((first, second), key=str))
            hands[pair] = hands.get(pair, 0) + 1
    assert advice.hands_averaged == len(hands)
    total = sum(hands.values())
    expected: dict[MoveKey, float] = {}
    for hand, ways in hands.items():
        known = state._replace(sides=(state.sides[0], state.sides[1]._replace(hand=hand)))
        for move, value in solver_moves(known, MatchSolver(state.ruleset)).items():
            expected[move] = expected.get(move, 0.0) + ways / total * value
    got = {
        (None if r.move.card is None else str(r.move.card), r.move.value, r.move.then): r.match_win
        for r in advice.results
    }
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def card_free_match_values(spec: str, deck: tuple[int, ...] | None) -> dict[tuple[int, int], float]:
    """Each score's match value with no hand cards, player 1 opening every set, from that
    score's set odds (along the match-optimal line, the set played on ``deck``'s odds, ``None``:
    the later sets' full deck) by V = (w V(won) + l V(lost)) / (1 - t), the tie fixed point;
    each checked against the solver's own value (its later sets drawn from the same deck)."""
    rules = parse_ruleset(spec)
    solver = MatchSolver(rules) if deck is None else MatchSolver(rules, later_deck=deck)
    odds = FULL_DECK if deck is None else deck
    start = new_match(rules, ((), ())).child(Open(0))
    values: dict[tuple[int, int], float] = {}
    for s0 in range(2, -1, -1):
        for s1 in range(2, -1, -1):
            win = tie = 0.0
            for drawn in range(1, 11):
                if not odds[drawn - 1]:
                    continue
                state = start._replace(set_winners=(0,) * s0 + (1,) * s1).child(Draw(drawn))
                best = max(
                    solver.solve_moves(question_from_state(state), (), current_deck=deck),
                    key=lambda r: r.match_win,
                )
                chance = odds[drawn - 1] / sum(odds)
                win += best.set_win * chance
                tie += best.set_tie * chance
            loss = 1.0 - win - tie
            won = 1.0 if s0 == 2 else values[(s0 + 1, s1)]
            lost = 0.0 if s1 == 2 else values[(s0, s1 + 1)]
            values[(s0, s1)] = (win * won + loss * lost) / (1.0 - tie)
            assert solver.set_start_value((s0, s1), ((), ()), 0) == pytest.approx(
                values[(s0, s1)], abs=1e-12
            )
    return values


def test_a_match_without_hand_cards_is_worth_what_its_set_odds_imply() -> None:
    """No hand cards, infinite deck, player 1 opening every set: every set is played alike at a
    given score, so the match value at 0-0 follows from each score's set odds: the tie fixed
    point (see :func:`card_free_match_values`)."""
    values = card_free_match_values("kotor1/main-deck=infinite", None)
    # the number in docs/advise.md and the README
    assert values[(0, 0)] == pytest.approx(0.449163, abs=5e-7)


def test_later_sets_on_another_deck_are_worth_what_its_set_odds_imply() -> None:
    """The same fixed point with the later sets drawn from a depleted deck's odds (the model
    ``later_deck`` measures against), each score's set played on those odds as a set in
    progress; and the values are not the full deck's."""
    values = card_free_match_values("kotor1", (4, 1, 2, 4, 0, 3, 4, 4, 2, 4))
    assert abs(values[(0, 0)] - 0.449163) > 1e-3


@pytest.mark.parametrize("deck", [(0,) * 10, (4,) * 9, (4,) * 9 + (-1,)])
def test_a_later_deck_that_is_no_deck_is_refused(deck: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="ten counts"):
        MatchSolver(parse_ruleset("kotor1"), later_deck=deck)


def test_self_play_agrees_with_the_solved_match_value() -> None:
    """Both seats play the solver's match-optimal move at every decision; over 3,000 seeded
    matches player 1 wins as often as the solved value says (within 4 standard errors)."""
    spec = f"kotor1/{TINY}"
    rules = parse_ruleset(spec)
    hands = (tuple(parse_cards("+1 -1")), tuple(parse_cards("+2")))
    solver = MatchSolver(rules)
    solved = solver.set_start_value((0, 0), hands, 0)
    rng = random.Random(5)
    wins = 0
    matches = 3000
    for _ in range(matches):
        state = new_match(rules, hands).child(Open(0))
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            state = state.child(_best_action(state, solver))
        wins += state.sets_won()[0] >= rules.sets_to_win
    error = (solved * (1 - solved) / matches) ** 0.5
    assert abs(wins / matches - solved) <= 4 * error


def _best_action(state: MatchState, solver: MatchSolver) -> Action:
    """The engine action that starts the mover's match-optimal move."""
    other = tuple(c for c in state.sides[1 - state.turn].hand if c is not None)
    results = solver.solve_moves(question_from_state(state), other, current_deck=None)
    return action_for(state, max(results, key=lambda r: r.match_win).move)


# -- the command -------------------------------------------------------------------------------


def advise(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["advise", *args], prog_name="pazaak")
    assert "Traceback" not in result.output
    return result.exit_code, result.output


SMALL = ["--ruleset", f"kotor1/{TINY}", "--table", "2", "--hand", "+1", "--opp-table", ""]


def test_advise_answers_for_the_match_by_default() -> None:
    code, output = advise(*SMALL, "--opp-hand", "-2", "--sets", "1-1")
    assert code == 0, output
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Model: "))
    assert lines[at].startswith("Model: kotor1/") and "match to 2 sets won, 1-1" in lines[at]
    assert lines[at + 1].split() == [
        "move",
        "match",
        "win",
        "%",
        "set",
        "win",
        "%",
        "tie",
        "%",
        "loss",
        "%",
    ]


def test_advise_json_gives_the_match_win_of_every_move() -> None:
    code, output = advise(*SMALL, "--opp-hand", "-2", "--sets", "1-1", "--json")
    assert code == 0, output
    data = json.loads(output)
    assert data["objective"] == "match"
    state = decision(f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,))
    expected = solver_moves(state, MatchSolver(state.ruleset))
    assert sorted(m["match_win"] for m in data["moves"]) == pytest.approx(
        sorted(expected.values()), abs=1e-12
    )
    assert data["moves"][0]["best"] and data["moves"][0]["match_win"] == max(expected.values())
    assert all(m["p_win"] + m["p_tie"] + m["p_loss"] == pytest.approx(1.0) for m in data["moves"])


def test_advise_set_objective_keeps_the_set_answer() -> None:
    code, output = advise(
        *SMALL, "--opp-hand", "-2", "--sets", "1-1", "--objective", "set", "--json"
    )
    assert code == 0, output
    data = json.loads(output)
    assert data["objective"] == "set"
    assert all(m["match_win"] is None for m in data["moves"])


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--sets", "2-0"], 1, "the match ends at 2 sets won"),
        (["--sets", "0-2"], 1, "the match ends at 2 sets won"),
        (["--opp-hand", "-2 +1 +3"], 1, "more than the 2"),
    ],
)
def test_impossible_match_questions_are_refused_in_one_line(
    args: list[str], code: int, words: str
) -> None:
    base = SMALL + ([] if "--opp-hand" in args else ["--opp-hand", "-2"])
    got, output = advise(*base, *args)
    assert got == code, output
    assert words in output
    assert len([line for line in output.splitlines() if line.startswith("Error")]) == 1


def test_a_long_match_answer_falls_back_to_the_set_and_says_so() -> None:
    """Both hands known with plain cards (four a side at most: 256 pairs) answer for the match
    by default; a hidden hand brings the sub-hands of every hand it may be (two hidden starter
    cards against four: 336 pairs), so the default is then the set's, with a note (and
    --objective match still asks for the match)."""
    known = parse_position("kotor1 10,6 10 +1,-2,+3,-4 +1,+2,+3,+4 -- - 4444434442 a1 1")
    assert match_advice.match_is_quick(question_from_state(known), SolveOptions())
    args = ["--main-deck", "infinite", "--table", "10 6", "--hand", "+1 -2 +3 -4"]
    args += ["--opp-table", "10", "--opp-hand-size", "2", "--json"]
    code, output = advise(*args)
    assert code == 0, output
    data = json.loads(output)
    assert data["objective"] == "set"
    assert "--objective match" in data["note"] and "336 pairs here" in data["note"]
    assert "allow 256;" in data["note"]
    code, output = advise(*SMALL, "--opp-hand", "-2", "--json")
    assert json.loads(output)["note"] is None


def test_unsolved_counts_the_match_states_not_known_yet() -> None:
    """What prepare_all has left: every (score, pair of sub-hands) at first, less the pairs a
    smaller question solved, nothing once asked."""
    solver = MatchSolver(parse_ruleset(f"kotor1/{TINY}"))
    small = ([parse_cards("+1")], [parse_cards("-2")])
    big = ([parse_cards("+1 +2")], [parse_cards("-2 +3")])
    assert solver.unsolved((0, 0), big) == (64, 64)  # 4 x 4 sub-hands, 4 scores
    solver.prepare_all((0, 0), small)
    assert solver.unsolved((0, 0), big) == (48, 64)  # 2 x 2 of them solved at every score
    assert solver.unsolved((1, 1), big) == (12, 16)
    solver.prepare_all((1, 0), big)
    assert solver.unsolved((0, 0), big) == (24, 64)  # (left: 0-0 and 0-1, less the small pairs)
    assert solver.unsolved((1, 0), big) == (0, 32)


def test_the_default_answers_for_the_match_once_the_later_sets_are_solved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the default's limit, the match answer is the default all the same when the match
    states it needs were solved before: in this process, or by another (the disk cache)."""
    monkeypatch.setattr(match_advice, "QUICK_MATCH_PAIRS", 4)
    base = ["--ruleset", f"kotor1/{TINY}", "--table", "2", "--opp-table", "", "--json"]
    big = [*base, "--hand", "+1 -1", "--opp-hand", "-2 +1"]
    code, output = advise(*big)
    assert code == 0, output
    assert json.loads(output)["objective"] == "set"
    assert "16 pairs here, where a few seconds allow 4;" in json.loads(output)["note"]
    code, output = advise(*base, "--hand", "+1", "--opp-hand", "-2 +1", "--objective", "match")
    assert code == 0, output
    code, output = advise(*big)
    assert json.loads(output)["objective"] == "set"
    assert "8 of its 16 pairs here still to solve, where" in json.loads(output)["note"]
    code, output = advise(*big, "--objective", "match")
    assert code == 0, output
    answer = json.loads(output)
    code, output = advise(*big)
    assert json.loads(output) == {**answer, "note": None}
    match_advice.clear_shared_solvers()  # (another process: the values come from the disk)
    code, output = advise(*big)
    assert json.loads(output) == {**answer, "note": None}


def test_flip_cards_have_a_lower_limit_for_the_default() -> None:
    """A flip or a Double makes far more sides: two cards against one with a flip (8 pairs,
    past the 6 allowed) answer for the set by default; the same without the flip for the match."""
    args = ["--ruleset", "kotor2/main-deck=infinite,first-player=player1", "--table", "10 6"]
    args += ["--opp-table", "10", "--opp-hand", "-2", "--json"]
    code, output = advise(*args, "--hand", "F2/4 +1")
    assert code == 0, output
    assert json.loads(output)["objective"] == "set"
    assert "8 pairs here, where a few seconds allow 6;" in json.loads(output)["note"]
    code, output = advise(*args, "--hand", "+4 +1")
    assert code == 0, output
    assert json.loads(output)["objective"] == "match"
