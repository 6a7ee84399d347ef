"""The match players: ``match-expert`` (:class:`MatchExpertPlayer`) and ``expert``
(:class:`ExpertPlayer`, its later sets blind to the opponent's cards)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from click.testing import CliRunner
from match_reference import TINY, MatchReference, decision
from reference_solver import each_move

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.game import FORFEIT, MatchState, Phase, deal_hand, new_match
from pazaak_cli.engine.notation import parse_position
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.players import expert
from pazaak_cli.players.expert import ExpertPlayer, MatchExpertPlayer, SetExpertPlayer
from pazaak_cli.players.roster import KotorPlayer
from pazaak_cli.solve import match_advice
from pazaak_cli.solve.answer_types import Move, SolveOptions
from pazaak_cli.solve.hand_rows import MoveRow
from pazaak_cli.solve.match_advice import solve_match_question
from pazaak_cli.solve.match_cache import cache_path
from pazaak_cli.solve.match_solver import MatchSolver


@pytest.fixture(autouse=True)
def _fresh_solvers() -> None:
    """Each test starts without the match values an earlier one solved (and its own cache)."""
    expert._MATCH_SOLVERS.clear()


def play_whole_move(player: MatchExpertPlayer, state: MatchState) -> MatchState:
    """The player's move from a decision: its action, and its next one while it still chooses
    (a hand card played is followed by ending the turn or standing)."""
    me = state.turn
    while True:
        action = player.choose(state.observed_by(me))
        assert action in state.legal_actions() and action != FORFEIT
        state = state.child(action)
        if not (state.phase is Phase.AFTER_DRAW and state.turn == me):
            return state


DECISIONS = {
    "first set, one card each": (f"kotor1/{TINY}", ("+1", "-2"), (), 0, (2,), ()),
    "one set each, the decider": (f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,), ()),
    "two cards against one, 0-1": (f"kotor1/{TINY}", ("+1 -1", "+2"), (1,), 0, (3,), ()),
    "player 2 to move, 1-0": (f"kotor1/{TINY}", ("-1", "+1"), (0,), 0, (2, 1), ()),
    "after a tie with cards played": (f"kotor1/{TINY}", ("+1", "+2"), (None,), 0, (3,), ()),
    "a flip on the table": (f"kotor2/{TINY}", ("F2/4", "+1"), (), 0, (2, 1), ("end turn",)),
}


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_the_match_expert_makes_a_move_the_reference_values_best(name: str) -> None:
    """When its prior leaves the opponent one possible hand, the match expert's whole move is
    worth, by the independent reference, as much as the reference's best move."""
    spec, hands, winners, opener, draws, actions = DECISIONS[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    me = state.turn
    their_cards = parse_cards(hands[1 - me])
    player = MatchExpertPlayer(ruleset=state.ruleset, opponent_deck=their_cards)
    after = play_whole_move(player, state)
    reference = MatchReference(me, start=solved_starts(state.ruleset, me))
    values = [reference.value(state_after) for _, state_after in each_move(state)]
    assert reference.value(after) == pytest.approx(max(values), abs=1e-9)


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_match_lite_makes_a_move_its_reference_values_best(name: str) -> None:
    """``expert``: the same, by the reference whose later sets start with the opponent's
    hand empty."""
    spec, hands, winners, opener, draws, actions = DECISIONS[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    me = state.turn
    player = ExpertPlayer(ruleset=state.ruleset, opponent_deck=parse_cards(hands[1 - me]))
    after = play_whole_move(player, state)
    reference = MatchReference(me, blind=1 - me, start=solved_starts(state.ruleset, me))
    values = [reference.value(state_after) for _, state_after in each_move(state)]
    assert reference.value(after) == pytest.approx(max(values), abs=1e-9)


def solved_starts(rules: Ruleset, me: int) -> Callable[[MatchState], float]:
    """Set-start values for the reference's first iteration, from a solver of its own (the
    reference iterates from them to its own fixed point: tests/test_match_solver.py shows a
    wrong start does not steer it; it only shortens the iteration)."""
    solver = MatchSolver(rules)

    def start(begin: MatchState) -> float:
        hands = (tuple(begin.sides[0].hand), tuple(begin.sides[1].hand))
        value = solver.set_start_value(begin.sets_won(), hands, begin.turn)  # type: ignore[arg-type]
        return value if me == 0 else 1.0 - value

    return start


def test_the_match_expert_keeps_a_card_the_set_expert_spends() -> None:
    """At 19 with a +1 against 18 (docs/advise.md), the set says play the +1 for 20 and the
    set expert does; the match says stand and keep it, unless this set can end the match."""
    deck = parse_cards(" ".join(["-1"] * 10))  # the opponent's one possible hand: -1
    for sets, set_move, match_move in (("-", "play +1", "stand"), ("212", "play +1", "play +1")):
        view = parse_position(
            f"kotor1/main-deck=infinite,hand-size=1 10,8 10,9 ? +1 -- {sets} 4444444444 a2 1"
        )
        rules = view.ruleset
        assert str(SetExpertPlayer(ruleset=rules, opponent_deck=deck).choose(view)) == set_move
        assert str(MatchExpertPlayer(ruleset=rules, opponent_deck=deck).choose(view)) == match_move
        assert str(ExpertPlayer(ruleset=rules, opponent_deck=deck).choose(view)) == match_move


def play_tiny_match(
    seed: int, kind: type[MatchExpertPlayer] = MatchExpertPlayer
) -> tuple[list[str], MatchState]:
    """A whole match of the match expert (player 1, the starter deck) against ``kotor``."""
    rules = parse_ruleset(f"kotor1/{TINY}")
    deck = load_deck("kotor1-starter", rules).cards
    rng = random.Random(seed)
    state = new_match(rules, (deal_hand(deck, rules, rng), deal_hand(deck, rules, rng)))
    players = (kind(ruleset=rules, opponent_deck=deck), KotorPlayer())
    actions = []
    while state.phase is not Phase.MATCH_OVER:
        if state.is_chance_node():
            state = state.child(state.sample_chance(rng))
            continue
        action = players[state.turn].choose(state.observed_by(state.turn))
        assert action in state.legal_actions() and action != FORFEIT
        actions.append(str(action))
        state = state.child(action)
    return actions, state


@pytest.mark.parametrize("kind", [MatchExpertPlayer, ExpertPlayer])
def test_a_match_expert_match_is_legal_and_replays_from_its_seed(
    kind: type[MatchExpertPlayer],
) -> None:
    first, end = play_tiny_match(4, kind)
    assert max(end.sets_won()) == end.ruleset.sets_to_win
    expert._MATCH_SOLVERS.clear()
    again, _ = play_tiny_match(4, kind)
    assert again == first


def test_match_lite_solves_only_match_states_of_the_empty_opponent_hand() -> None:
    """What makes it quick: its later sets meet one opponent hand, the empty one (and what it
    solves is true of that hand, so it may share the match cache)."""
    play_tiny_match(5, ExpertPlayer)
    rules = parse_ruleset(f"kotor1/{TINY}")
    ((solver, _),) = [found for key, found in expert._MATCH_SOLVERS.items() if key[1] is not None]
    assert solver.later_blind == 1 and solver.entry_count > 0
    assert all(hands[1] == () for _, hands, _, _ in solver.known_entries())
    exact = MatchSolver(rules)
    for score, hands, spec, value in list(solver.known_entries())[:20]:
        assert exact.set_start_value(score, hands, spec) == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize(
    ("position", "empty"),
    [
        ("kotor1 3,4 5 +1,-2,+3,+4 ?,?,?,? -- - 4433344444 a1 1", True),
        ("kotor1 4,6 5 +1,-2,+3,+4 ?,?,?,? -- - 4443334444 a1 1", True),
        ("kotor1 10,1 5 +1,-2,+3,+4 ?,?,?,? -- - 3444344443 a1 1", False),
        ("kotor1 3,4 5 +1,-2,+3,+4 ?,?,?,? -S - 4433344444 a1 1", False),
    ],
)
def test_expert_takes_the_opponent_hand_as_empty_where_no_draw_can_bust(
    position: str, empty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``expert`` on 7 or 10 (no card of the main deck can take it past 20), the opponent still
    playing: the set in progress is solved with the opponent holding no cards; on 11, or
    against a standing opponent, with its sampled hands (four of them)."""
    asked: list[SolveOptions] = []

    def recording(question: Question, options: SolveOptions, **kwargs: Any) -> Move:
        asked.append(options)
        return match_advice.best_match_move(question, options, **kwargs)

    monkeypatch.setattr(expert, "best_match_move", recording)
    view = parse_position(position)
    rules = view.ruleset
    player = ExpertPlayer(ruleset=rules, opponent_deck=load_deck("kotor1-starter", rules).cards)
    assert player.choose(view) in view.legal_actions()
    (options,) = asked
    if empty:
        assert options.opponent_hands == [((), 1)]
    else:
        hands = options.opponent_hands
        assert hands is not None and sum(ways for _, ways in hands) == expert.SAMPLED_HANDS
        assert all(len(hand) == 4 for hand, _ in hands)


def test_the_match_expert_keeps_its_values_in_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """What it solves is written to the user's match cache (shared with ``pazaak advise``) and
    read back by the next process's first match expert."""
    monkeypatch.setattr(expert, "SAVE_EVERY", 1)
    play_tiny_match(2)
    path = cache_path(parse_ruleset(f"kotor1/{TINY}"))
    assert path is not None and path.is_file()
    written = len(json.loads(path.read_text(encoding="utf-8"))["entries"])
    assert written > 0
    expert._MATCH_SOLVERS.clear()
    rules = parse_ruleset(f"kotor1/{TINY}")
    assert expert._match_solver(rules).entry_count == written


def test_simulate_runs_the_match_expert() -> None:
    result = CliRunner().invoke(
        main,
        [
            "simulate",
            "--p1",
            "match-expert",
            "--p2",
            "kotor",
            "--ruleset",
            f"kotor1/{TINY}",
            "--matches",
            "3",
            "--seed",
            "1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["policies"] == {"p1": "match-expert", "p2": "kotor"}


@pytest.mark.parametrize("spec", [f"kotor1/{TINY}", "kotor1/target=4,table-size=3,sets-to-win=2"])
def test_the_match_expert_moves_as_the_match_advice_ranks_first(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The match expert asks :func:`best_match_move`, which skips the set odds unless two moves
    share the best match value: over whole matches (hidden hands averaged, the shared deck
    counted and drawn exactly once the opponent stands, exact ties met), its move is always the
    one :func:`solve_match_question` ranks first."""
    compared, tied = 0, 0
    real = match_advice._best_tied

    def counting(rows: Sequence[tuple[float, MoveRow]]) -> bool:
        nonlocal tied
        found = real(rows)
        tied += found
        return found

    monkeypatch.setattr(match_advice, "_best_tied", counting)

    class Checked(MatchExpertPlayer):
        def _best(self, view: MatchState, options: SolveOptions) -> Move:
            nonlocal compared
            move = super()._best(view, options)
            solver = expert._match_solver(view.ruleset)
            advice = solve_match_question(question_from_state(view), options, solver=solver)
            assert advice.results[0].move == move
            compared += 1
            return move

    rules = parse_ruleset(spec)
    deck = load_deck("kotor1-starter", rules).cards
    for seed in range(20):
        rng = random.Random(seed)
        state = new_match(rules, (deal_hand(deck, rules, rng), deal_hand(deck, rules, rng)))
        players = (Checked(ruleset=rules, opponent_deck=deck), KotorPlayer())
        while state.phase is not Phase.MATCH_OVER:
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            state = state.child(players[state.turn].choose(state.observed_by(state.turn)))
    assert compared >= 30 and tied >= 1
