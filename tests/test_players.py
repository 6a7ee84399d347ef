"""The policy registry and the baseline policies (stand17, heuristic, random)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import (
    END_TURN,
    STAND,
    Action,
    Forfeit,
    MatchState,
    Phase,
    Play,
    deal_hand,
    new_match,
)
from pazaak_cli.engine.notation import parse_position
from pazaak_cli.engine.rules import KOTOR1, KOTOR1_POOL, KOTOR2, KOTOR2_POOL, Ruleset
from pazaak_cli.players.roster import (
    POLICY_NAMES,
    HeuristicPlayer,
    KotorPlayer,
    Player,
    RandomPlayer,
    Stand17Player,
    make_player,
)

STARTER = parse_cards("+1 +1 +2 +2 +3 +3 +4 +4 +5 +5")


def position(
    p1_table: str,
    p2_table: str,
    p2_hand: str,
    *,
    stands: str = "--",
    to_move: str = "a2",
    ruleset: str = "kotor1",
) -> MatchState:
    """A valid position (player 1 opened the set; the deck is full less the tables)."""
    counts = [4] * 10
    for table in (p1_table, p2_table):
        for token in table.split(","):
            if token.isdigit():
                counts[int(token) - 1] -= 1
    deck = "".join(str(count) for count in counts)
    fields = (ruleset, p1_table, p2_table, "?,?,?,?", p2_hand, stands, "-", deck, to_move, "1")
    return parse_position(" ".join(fields))


def move(player: Player, state: MatchState) -> Action:
    return player.choose(state.observed_by(state.turn))


def play(index: int, card: str, value: int) -> Play:
    return Play(index, Card.parse(card), value)


# The registry ------------------------------------------------------------------------------


def test_policy_names_are_the_documented_eight() -> None:
    documented = "kotor heuristic stand17 random expert match-expert set-expert match-lite"
    assert tuple(documented.split()) == POLICY_NAMES


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("kotor", KotorPlayer),
        ("heuristic", HeuristicPlayer),
        ("stand17", Stand17Player),
        ("random", RandomPlayer),
    ],
)
def test_make_player_builds_each_policy_by_name(name: str, kind: type) -> None:
    player = make_player(
        name, ruleset=KOTOR1, rng=random.Random(1), own_deck=STARTER, opponent_deck=None
    )
    assert isinstance(player, kind)


def test_make_player_refuses_an_unknown_policy_naming_the_choices() -> None:
    with pytest.raises(
        PazaakError, match=r"unknown policy 'smart'; choose one of kotor, heuristic"
    ):
        make_player(
            "smart", ruleset=KOTOR1, rng=random.Random(1), own_deck=STARTER, opponent_deck=None
        )


def test_the_random_policy_uses_the_rng_it_is_given() -> None:
    state = position("10,5", "9,6", "+1,-2,±3,+4")
    choices = []
    for _ in range(2):
        player = make_player(
            "random", ruleset=KOTOR1, rng=random.Random(7), own_deck=STARTER, opponent_deck=None
        )
        choices.append([move(player, state) for _ in range(20)])
    assert choices[0] == choices[1]


# stand17 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "expected"),
    [("10,6", END_TURN), ("10,7", STAND), ("10,9", STAND), ("10,5,8", END_TURN)],
)
def test_stand17_stands_from_17_and_never_plays(table: str, expected: Action) -> None:
    p1 = "10,3,2" if table.count(",") == 2 else "10,5"
    # A hand that could make 20 or rescue the bust: stand17 ignores it.
    assert move(Stand17Player(), position(p1, table, "+4,-3,+3")) == expected


# heuristic ---------------------------------------------------------------------------------


def test_heuristic_plays_a_card_that_makes_exactly_20() -> None:
    assert move(HeuristicPlayer(), position("10,5", "10,4", "+2,+6")) == play(1, "+6", 6)


def test_heuristic_makes_20_with_a_fixed_card_before_a_plus_minus_card() -> None:
    assert move(HeuristicPlayer(), position("10,5", "10,7", "±3,+3")) == play(1, "+3", 3)


def test_heuristic_rescues_a_bust_with_the_card_leaving_the_highest_total() -> None:
    state = position("10,3,2", "10,5,8", "-6,-2,-4")  # 23: 17, 21 (still bust) or 19
    assert move(HeuristicPlayer(), state) == play(2, "-4", -4)


def test_heuristic_ends_the_turn_when_nothing_rescues_a_bust() -> None:
    assert move(HeuristicPlayer(), position("10,3,2", "10,5,8", "+1,-1")) == END_TURN


def test_heuristic_plays_a_card_to_pass_a_standing_opponent() -> None:
    # The other stands on 18; at 16, +3 gives 19 (wins), +1 would give 17.
    state = position("10,8", "10,6", "+1,+3", stands="S-")
    assert move(HeuristicPlayer(), state) == play(1, "+3", 3)


def test_heuristic_keeps_drawing_behind_a_standing_opponent() -> None:
    state = position("10,9", "10,8", "+5", stands="S-")  # 18 against 19, no card helps
    assert move(HeuristicPlayer(), state) == END_TURN


def test_heuristic_stands_ahead_of_a_standing_opponent_even_low() -> None:
    assert move(HeuristicPlayer(), position("10,3", "10,4", "+2", stands="S-")) == STAND


def test_heuristic_stands_from_18_and_draws_below() -> None:
    assert move(HeuristicPlayer(), position("10,5", "10,8", "+5")) == STAND
    assert move(HeuristicPlayer(), position("10,5", "10,7", "+5")) == END_TURN


def test_heuristic_after_a_played_card_only_ends_or_stands() -> None:
    assert move(HeuristicPlayer(), position("10,5", "10,5,+3", "+2", to_move="p2")) == STAND
    assert move(HeuristicPlayer(), position("10,5", "10,1,+3", "+2", to_move="p2")) == END_TURN


def test_heuristic_uses_gold_cards_by_the_total_they_produce() -> None:
    # kotor2: F2/4 on 10, -4, 6 turns the -4 over: 20.
    state = position("10,5", "10,-4,6", "+1,F2/4", ruleset="kotor2")
    assert move(HeuristicPlayer(), state) == play(1, "F2/4", 0)


# random ------------------------------------------------------------------------------------


def test_random_is_uniform_over_the_legal_actions_but_forfeit() -> None:
    state = position("10,5", "9,6", "+1,-2,±3")
    legal = [a for a in state.legal_actions() if not isinstance(a, Forfeit)]
    player = RandomPlayer(random.Random(3))
    counts = Counter(move(player, state) for _ in range(7000))
    assert set(counts) == set(legal)  # every legal action, never a forfeit
    expected = 7000 / len(legal)
    assert all(abs(n - expected) < 0.15 * expected for n in counts.values())


# Every policy, every decision: a legal action from the view alone ------------------------------


def _deck(pool: frozenset[Card], rng: random.Random) -> tuple[Card, ...]:
    cards = sorted(pool)
    return tuple(rng.choice(cards) for _ in range(10))


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    ruleset=st.sampled_from([KOTOR1, KOTOR2]),
    names=st.tuples(
        st.sampled_from(["kotor", "heuristic", "stand17", "random"]),
        st.sampled_from(["kotor", "heuristic", "stand17", "random"]),
    ),
)
def test_every_policy_returns_a_legal_action_seeing_only_its_view(
    seed: int, ruleset: Ruleset, names: tuple[str, str]
) -> None:
    rng = random.Random(seed)
    pool = KOTOR1_POOL if ruleset is KOTOR1 else KOTOR2_POOL
    decks = (_deck(pool, rng), _deck(pool, rng))
    players = [
        make_player(
            names[i], ruleset=ruleset, rng=rng, own_deck=decks[i], opponent_deck=decks[1 - i]
        )
        for i in (0, 1)
    ]
    state = new_match(
        ruleset, (deal_hand(decks[0], ruleset, rng), deal_hand(decks[1], ruleset, rng))
    )
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps < 5000, "a match between these policies must end"
        if state.phase is Phase.AFTER_DRAW:
            view = state.observed_by(state.turn)
            assert all(card is None for card in view.sides[1 - state.turn].hand)
            action = players[state.turn].choose(view)
            assert action in state.legal_actions()
            assert not isinstance(action, Forfeit)
            state = state.child(action)
        else:
            state = state.child(state.sample_chance(rng))
    assert state.forfeited is None
