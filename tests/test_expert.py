"""The solver players' shared seat: what they see, sample and choose (checked through
``set-expert``, the cheapest of them), and the names that build them."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from click.testing import CliRunner

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import default_deck, load_deck
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FORFEIT, MatchState, Phase, deal_hand, new_match
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.players.expert import ExpertPlayer, MatchExpertPlayer, SetExpertPlayer
from pazaak_cli.players.roster import KotorPlayer, RandomPlayer, make_player
from pazaak_cli.solve.answer_types import Move, SolveOptions
from pazaak_cli.solve.hidden_hands import played_cards, possible_hands


def expert_decisions(
    rules: Ruleset, my_deck: tuple[Card, ...], their_deck: tuple[Card, ...], seed: int, count: int
) -> list[tuple[MatchState, object]]:
    """Play seeded matches of the expert (seat 1) against a random player (seat 2) until the
    expert has decided ``count`` times; return (the full state, the expert's action)."""
    rng = random.Random(seed)
    expert = SetExpertPlayer(ruleset=rules, opponent_deck=their_deck)
    other = RandomPlayer(random.Random(seed + 1))
    decided: list[tuple[MatchState, object]] = []
    while len(decided) < count:
        state = new_match(
            rules, (deal_hand(my_deck, rules, rng), deal_hand(their_deck, rules, rng))
        )
        while state.phase is not Phase.MATCH_OVER and len(decided) < count:
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
            elif state.turn == 0:
                action = expert.choose(state.observed_by(0))
                decided.append((state, action))
                state = state.child(action)
            else:
                state = state.child(other.choose(state.observed_by(1)))
    return decided


@pytest.mark.parametrize(
    ("spec", "mine", "theirs", "count"),
    [
        ("kotor1", "kotor1-average", "kotor1-strong", 6),
        ("kotor2", "kotor2-easy", "kotor2-average", 6),
    ],
)
def test_the_expert_chooses_a_legal_action_from_its_view(
    spec: str, mine: str, theirs: str, count: int
) -> None:
    """Every decision is legal in the real position, never a forfeit, made from the views alone
    (the opponent's hand hidden), and the same again from the same views (no hidden
    randomness: a fresh expert shown the same views chooses the same)."""
    rules = parse_ruleset(spec)
    my_deck, their_deck = load_deck(mine, rules).cards, load_deck(theirs, rules).cards
    decisions = expert_decisions(rules, my_deck, their_deck, seed=3, count=count)
    assert len(decisions) == count
    for state, action in decisions:
        assert action in state.legal_actions() and action != FORFEIT
    fresh = SetExpertPlayer(ruleset=rules, opponent_deck=their_deck)
    assert [fresh.choose(state.observed_by(0)) for state, _ in decisions] == [
        action for _, action in decisions
    ]


def test_the_sampled_hands_are_kept_through_a_set_while_the_plays_allow() -> None:
    """The expert draws its sample of the opponent's hands once a set (afresh at each decision
    until the opponent has drawn in it: the rule its tournaments were measured with);
    after the opponent plays a card, each sample that held it keeps the rest, and each that
    did not is redrawn from the hands still possible."""
    rules = parse_ruleset("kotor1")
    mine, theirs = load_deck("kotor1-average", rules).cards, load_deck("kotor1-strong", rules).cards
    rng = random.Random(5)
    expert = SetExpertPlayer(ruleset=rules, opponent_deck=theirs)
    other = RandomPlayer(random.Random(2))  # plays many hand cards
    kept = redrawn = 0
    for _ in range(4):
        state = new_match(rules, (deal_hand(mine, rules, rng), deal_hand(theirs, rules, rng)))
        before: tuple[int, list[tuple[Card, ...]], list[Card]] | None = None
        while state.phase is not Phase.MATCH_OVER:
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            if state.turn == 1:
                state = state.child(other.choose(state.observed_by(1)))
                continue
            view = state.observed_by(0)
            state = state.child(expert.choose(view))
            opponent = view.sides[1]
            if opponent.standing or not expert._samples:
                continue
            earlier = played_cards(expert._earlier, theirs)
            prior = list(theirs)
            for card in earlier:
                prior.remove(card)
            played = played_cards(opponent.table, prior)
            possible = {hand for hand, _ in possible_hands(prior, len(opponent.hand), played)}
            assert len(expert._samples) == 4 and set(expert._samples) <= possible
            sets = len(view.set_winners)
            if before is not None and before[0] == sets and opponent.table:
                new = Counter(played) - Counter(before[2])
                for old, now in zip(before[1], expert._samples, strict=True):
                    if not new - Counter(old):
                        assert Counter(now) == Counter(old) - new
                        kept += 1
                    else:
                        redrawn += 1
            before = (sets, list(expert._samples), played)
    assert kept >= 10 and redrawn >= 3, (kept, redrawn)


def test_the_expert_stands_on_a_sure_win() -> None:
    """The opponent stood on 15 and the expert holds 19: standing wins for sure."""
    from pazaak_cli.engine.notation import parse_position

    view = parse_position("kotor1 10,4,5 10,5 +1,-2 ?,?,? -S - 4443244442 a1 1")
    rules = view.ruleset
    expert = SetExpertPlayer(ruleset=rules, opponent_deck=default_deck(rules).cards)
    assert str(expert.choose(view)) == "stand"


def test_the_expert_needs_the_opponents_deck() -> None:
    with pytest.raises(PazaakError, match="side deck"):
        SetExpertPlayer(ruleset=parse_ruleset("kotor1"), opponent_deck=None)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("expert", ExpertPlayer),
        ("match-lite", ExpertPlayer),
        ("match-expert", MatchExpertPlayer),
        ("set-expert", SetExpertPlayer),
    ],
)
def test_make_player_builds_the_solver_players(name: str, kind: type[SetExpertPlayer]) -> None:
    """``expert`` plays for the match (the later sets blind to the opponent's cards: the
    model that needs no deck-pair table), ``match-lite`` is its earlier name; ``set-expert``
    plays for the set alone, with no margin for keeping cards."""
    rules = parse_ruleset("kotor1")
    deck = default_deck(rules).cards
    player = make_player(
        name, ruleset=rules, rng=random.Random(1), own_deck=deck, opponent_deck=deck
    )
    assert type(player) is kind
    assert isinstance(player, SetExpertPlayer) and not isinstance(player, KotorPlayer)
    assert player.match == (name != "set-expert")
    if isinstance(player, MatchExpertPlayer):
        assert player.later_blind == (kind is ExpertPlayer)


SIMULATE = ["simulate", "--p1", "expert", "--p2", "stand17", "--matches", "3", "--seed", "1"]


def test_simulate_with_the_expert_runs_and_replays_the_same() -> None:
    runner = CliRunner()
    first = runner.invoke(main, [*SIMULATE, "--json"], prog_name="pazaak")
    second = runner.invoke(main, [*SIMULATE, "--json"], prog_name="pazaak")
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert data["policies"] == {"p1": "expert", "p2": "stand17"}
    assert data["p1_wins"] + data["p2_wins"] == 3


@pytest.mark.parametrize("kind", [ExpertPlayer, MatchExpertPlayer])
def test_where_no_draw_can_bust_both_match_players_take_the_opponents_hand_as_empty(
    kind: type[MatchExpertPlayer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ask the match solver for the empty hand there (a ninth of match-expert's time, the
    same move in all but 26 of 5,403 such decisions: docs/benchmarks.md), and for their sampled
    hands elsewhere."""
    from pazaak_cli.players import expert as module
    from pazaak_cli.solve import match_advice

    rules = parse_ruleset("kotor1/main-deck=infinite")
    deck = default_deck(rules).cards
    asked: list[object] = []
    real = match_advice.best_match_move

    def best(question: Question, options: SolveOptions, **kwargs: Any) -> Move:
        asked.append(options.opponent_hands)
        return real(question, options, **kwargs)

    monkeypatch.setattr(module, "best_match_move", best)
    player = kind(ruleset=rules, opponent_deck=deck)
    rng = random.Random(3)
    state = new_match(rules, (deal_hand(deck, rules, rng), deal_hand(deck, rules, rng)))
    while not (state.phase is Phase.AFTER_DRAW and state.turn == 0):
        state = state.child(state.sample_chance(rng))
    view = state.observed_by(0)
    assert view.sides[0].total <= 10 and not view.sides[1].standing
    player.choose(view)
    assert asked == [[((), 1)]]
    standing = view._replace(sides=(view.sides[0], view.sides[1]._replace(standing=True)))
    player.choose(standing)
    assert asked[1] != [((), 1)]
