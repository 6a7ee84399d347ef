"""The rules engine, rule by rule (docs/rules.md §2-§5); each test is named after its rule.

Matches are driven with explicit actions: ``Draw(v)`` stands for the card chance deals.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.errors import HiddenInformationError, IllegalActionError, WagerError
from pazaak_cli.engine.game import (
    CHANCE,
    END_TURN,
    FORFEIT,
    FULL_DECK,
    STAND,
    TERMINAL,
    Action,
    Draw,
    MatchState,
    Open,
    Phase,
    Placed,
    Play,
    TableCard,
    current_values,
    deal_hand,
    new_match,
    set_outcome,
    settle_wager,
    table_total,
)
from pazaak_cli.engine.rules import KOTOR1, KOTOR2, FlipTargets, Ruleset, parse_ruleset

INFINITE1 = parse_ruleset("kotor1/main-deck=infinite")
INFINITE2 = parse_ruleset("kotor2/main-deck=infinite")


def begin(ruleset: Ruleset = KOTOR2, hand1: str = "", hand2: str = "") -> MatchState:
    """A match whose first set player 1 has just opened."""
    return new_match(ruleset, (parse_cards(hand1), parse_cards(hand2))).child(Open(0))


def run(state: MatchState, *actions: Action) -> MatchState:
    for action in actions:
        state = state.child(action)
    return state


def play(state: MatchState, token: str, value: int | None = None) -> Play:
    """The Play action of the mover's first hand card ``token`` (with ``value`` if it has a
    choice)."""
    card = Card.parse(token)
    hand = state.sides[state.turn].hand
    chosen = card.values[0] if value is None else value
    return Play(hand.index(card), card, chosen)


def values(state: MatchState, player: int) -> list[int]:
    return state.current_table_values(player)


def win_set(state: MatchState, winner: int) -> MatchState:
    """Play the set in progress so that ``winner`` wins it: he draws his way to exactly 20
    (and stands automatically), the other draws 9s and 10s until he busts."""
    while state.phase is Phase.BEFORE_DRAW:
        total = state.sides[state.turn].total
        if state.turn == winner:
            value = 20 - total if 20 - total <= 10 else 9
        else:
            value = 10 if total + 9 == 20 else 9
        state = state.child(Draw(value))
        if state.phase is Phase.AFTER_DRAW:
            state = state.child(END_TURN)
    return state


def tie_set(state: MatchState) -> MatchState:
    """Both draw their way to exactly 20 and stand: a tie."""
    while state.phase is Phase.BEFORE_DRAW:
        total = state.sides[state.turn].total
        state = state.child(Draw(20 - total if 20 - total <= 10 else 10))
        if state.phase is Phase.AFTER_DRAW:
            state = state.child(END_TURN)
    return state


def p1_over_20(state: MatchState, last: int = 8) -> MatchState:
    """Player 1 draws 9, 9 and ``last`` (26 with an 8); player 2 draws two 1s meanwhile.
    Player 1 is left to decide after his third draw."""
    return run(
        state,
        Draw(9),
        END_TURN,
        Draw(1),
        END_TURN,
        Draw(9),
        END_TURN,
        Draw(1),
        END_TURN,
        Draw(last),
    )


# §2 Decks and hands -----------------------------------------------------------------------


def test_a_new_match_is_between_sets_with_a_full_deck_and_no_sets() -> None:
    state = new_match(KOTOR1, (parse_cards("+1 +2 +3 +4"), parse_cards("-1 -2 -3 -4")))
    assert state.phase is Phase.SET_OVER and state.is_chance_node()
    assert state.deck == FULL_DECK == (4,) * 10
    assert state.sets_won() == (0, 0) and state.set_winners == ()
    assert state.legal_actions() == (Open(0),)


def test_deal_hand_draws_hand_size_distinct_positions_of_the_side_deck() -> None:
    side_deck = parse_cards("+1 +2 +3 +4 +5 -1 -2 -3 -4 -5")
    for seed in range(50):
        hand = deal_hand(side_deck, KOTOR1, random.Random(seed))
        assert len(hand) == 4 and len(set(hand)) == 4
        assert set(hand) <= set(side_deck)


def test_deal_hand_keeps_duplicates_apart_by_position() -> None:
    side_deck = parse_cards("+1 +1 +1 +1 +2 +2 +2 +2 +3 +3")
    hands = [deal_hand(side_deck, KOTOR1, random.Random(seed)) for seed in range(200)]
    assert any(hand.count(Card.parse("+1")) >= 2 for hand in hands), "equal cards can be dealt"
    assert all(hand.count(card) <= side_deck.count(card) for hand in hands for card in hand)


def test_deal_hand_is_replayed_by_the_same_seed() -> None:
    side_deck = parse_cards("+1 +2 +3 +4 +5 -1 -2 -3 -4 -5")
    first = deal_hand(side_deck, KOTOR1, random.Random(42))
    assert deal_hand(side_deck, KOTOR1, random.Random(42)) == first


def test_deal_hand_refuses_a_side_deck_smaller_than_the_hand() -> None:
    with pytest.raises(IllegalActionError, match="a side deck of 3 cards cannot deal a hand of 4"):
        deal_hand(parse_cards("+1 +2 +3"), KOTOR1, random.Random(1))


def test_new_match_refuses_more_hand_cards_than_the_ruleset_deals() -> None:
    with pytest.raises(
        IllegalActionError, match="player 2's hand holds 5 cards; the ruleset deals 4"
    ):
        new_match(KOTOR1, (parse_cards("+1"), parse_cards("+1 +2 +3 +4 +5")))


def test_new_match_refuses_a_hand_card_outside_the_card_pool() -> None:
    with pytest.raises(IllegalActionError, match="hand card F2/4 is not in the kotor1 card pool"):
        new_match(KOTOR1, (parse_cards("+1 F2/4"), parse_cards("+1")))


def test_the_hand_lasts_the_whole_match_a_played_card_is_gone_in_later_sets() -> None:
    state = begin(INFINITE1, "+1 -2 ±3 +4", "+5")
    state = run(state, Draw(5), play(state.child(Draw(5)), "-2"), END_TURN)
    assert state.sides[0].hand == parse_cards("+1 ±3 +4")
    state = win_set(state, 1).child(Open(0))
    assert state.sides[0].hand == parse_cards("+1 ±3 +4"), "not refilled in the next set"
    assert state.sides[1].hand == parse_cards("+5")


def test_a_player_without_hand_cards_plays_on_with_draws_only() -> None:
    state = run(begin(KOTOR1), Draw(5))
    assert state.legal_actions() == (END_TURN, STAND, FORFEIT)


def test_shared_deck_is_kept_across_sets() -> None:
    state = p1_over_20(begin(KOTOR1)).child(END_TURN)
    assert state.phase is Phase.SET_OVER and state.set_winners == (1,)
    left = (2, 4, 4, 4, 4, 4, 4, 3, 2, 4)
    assert state.deck == left
    assert state.child(Open(0)).deck == left, "not reshuffled between sets"


def test_shared_deck_is_renewed_only_when_empty() -> None:
    state = begin(KOTOR1)._replace(deck=(0,) * 9 + (1,))
    assert state.chance_outcomes() == ((Draw(10), Fraction(1)),)
    state = run(state, Draw(10), END_TURN)
    assert state.deck == (0,) * 10, "empty, not yet renewed"
    assert state.draw_counts() == FULL_DECK
    assert [p for _, p in state.chance_outcomes()] == [Fraction(1, 10)] * 10
    state = state.child(Draw(3))
    assert state.deck == (4, 4, 3, 4, 4, 4, 4, 4, 4, 4), "a fresh 40-card deck less the 3"


def test_a_value_gone_from_the_deck_cannot_be_drawn() -> None:
    state = begin(KOTOR1)._replace(deck=(4, 4, 4, 4, 4, 4, 0, 4, 4, 4))
    assert Draw(7) not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="no 7 is left in the main deck"):
        state.child(Draw(7))


def test_chance_outcomes_are_exact_probabilities_from_the_remaining_deck() -> None:
    state = begin(KOTOR1)._replace(deck=(1, 0, 2, 0, 0, 0, 0, 0, 0, 1))
    assert state.chance_outcomes() == (
        (Draw(1), Fraction(1, 4)),
        (Draw(3), Fraction(1, 2)),
        (Draw(10), Fraction(1, 4)),
    )
    assert state.chance_weights() == ((Draw(1), 1), (Draw(3), 2), (Draw(10), 1))
    assert state.legal_actions() == (Draw(1), Draw(3), Draw(10))


def test_sample_chance_draws_only_cards_left_and_a_seed_replays_it() -> None:
    state = begin(KOTOR1)._replace(deck=(0, 0, 0, 0, 0, 0, 3, 0, 0, 0))
    assert {state.sample_chance(random.Random(seed)) for seed in range(30)} == {Draw(7)}
    full = begin(KOTOR1)
    draws = [full.sample_chance(random.Random(9)) for _ in range(5)]
    assert len(set(draws)) == 1


def test_sample_chance_follows_the_deck_counts() -> None:
    state = begin(KOTOR1)._replace(deck=(3, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    rng = random.Random(5)
    ones = sum(state.sample_chance(rng) == Draw(1) for _ in range(4000))
    assert 2850 < ones < 3150, "3 ones against one 10: about 3/4"


def test_per_set_deck_is_reshuffled_at_the_start_of_every_set() -> None:
    rules = parse_ruleset("kotor1/main-deck=per-set")
    state = p1_over_20(begin(rules)).child(END_TURN)
    assert state.deck == (2, 4, 4, 4, 4, 4, 4, 3, 2, 4)
    assert state.child(Open(0)).deck == FULL_DECK


def test_infinite_deck_draws_are_uniform_and_never_run_out() -> None:
    state = begin(INFINITE1)
    for _ in range(3):
        state = run(state, Draw(7), END_TURN) if state.turn == 0 else run(state, Draw(1), END_TURN)
    assert state.deck == FULL_DECK
    assert state.chance_outcomes() == tuple((Draw(v), Fraction(1, 10)) for v in range(1, 11))
    state = run(state, Draw(7))  # a fifth 7 after four earlier ones is fine
    assert state.deck == FULL_DECK


# §3 A set --------------------------------------------------------------------------------


def test_a_set_starts_with_empty_tables_and_no_stands_hands_and_sets_carry_over() -> None:
    state = begin(INFINITE1, "+1 +2", "-1")
    state = win_set(run(state, Draw(4), play(run(state, Draw(4)), "+2"), END_TURN), 0)
    assert state.set_winners == (0,)
    state = state.child(Open(0))
    assert [side.table for side in state.sides] == [(), ()]
    assert [side.total for side in state.sides] == [0, 0]
    assert not any(side.standing for side in state.sides)
    assert state.sides[0].hand == parse_cards("+1") and state.sets_won() == (1, 0)


def test_a_turn_is_a_draw_then_at_most_one_hand_card_then_end_or_stand() -> None:
    state = begin(KOTOR1, "+1 +2", "-1")
    assert state.current_player() == CHANCE and state.legal_actions() == tuple(
        Draw(v) for v in range(1, 11)
    )
    state = state.child(Draw(5))
    assert state.current_player() == 0 and state.phase is Phase.AFTER_DRAW
    assert state.legal_actions() == (
        Play(0, Card.parse("+1"), 1),
        Play(1, Card.parse("+2"), 2),
        END_TURN,
        STAND,
        FORFEIT,
    )
    state = state.child(play(state, "+2"))
    assert state.played and state.legal_actions() == (END_TURN, STAND, FORFEIT)
    state = state.child(END_TURN)
    assert state.phase is Phase.BEFORE_DRAW and state.turn == 1


def test_only_one_hand_card_may_be_played_in_a_turn() -> None:
    state = run(begin(KOTOR1, "+1 +2"), Draw(5))
    state = state.child(play(state, "+1"))
    with pytest.raises(IllegalActionError, match="only one hand card may be played in a turn"):
        state.child(play(state, "+2"))


def test_a_standing_player_is_skipped_and_the_other_plays_on_alone() -> None:
    state = run(begin(KOTOR1), Draw(10), END_TURN, Draw(9), STAND)
    assert state.turn == 0 and state.sides[1].standing
    state = run(state, Draw(2), END_TURN)
    assert state.turn == 0 and state.phase is Phase.BEFORE_DRAW, "player 1 draws again"


def test_automatic_stand_at_20_after_the_draw_forbids_a_hand_card() -> None:
    state = run(begin(KOTOR1, "+1 -1"), Draw(10), END_TURN, Draw(5), END_TURN, Draw(10))
    assert state.sides[0].total == 20 and state.sides[0].standing
    assert state.phase is Phase.BEFORE_DRAW and state.turn == 1, "the turn is over at once"
    assert state.sides[0].hand == parse_cards("+1 -1")


def test_automatic_stand_at_20_after_a_hand_card() -> None:
    state = run(begin(KOTOR1, "+3"), Draw(10), END_TURN, Draw(5), END_TURN, Draw(7))
    state = state.child(play(state, "+3"))
    assert state.sides[0].total == 20 and state.sides[0].standing
    assert state.phase is Phase.BEFORE_DRAW and state.turn == 1


def test_reaching_20_when_the_other_stands_ends_the_set() -> None:
    state = run(begin(KOTOR1), Draw(10), END_TURN, Draw(9), STAND, Draw(10))
    assert state.phase is Phase.SET_OVER and state.set_winners == (0,)


def test_bust_is_judged_at_the_end_of_the_turn_a_hand_card_can_rescue() -> None:
    state = p1_over_20(begin(KOTOR1, "-5"), 10)
    assert state.sides[0].total == 28 and state.phase is Phase.AFTER_DRAW, "no bust at the draw"
    assert STAND not in state.legal_actions()
    state = state.child(play(state, "-5"))
    assert state.sides[0].total == 23 and state.phase is Phase.AFTER_DRAW
    state = state.child(END_TURN)
    assert state.set_winners == (1,) and set_outcome(state) == (1, "bust")


def test_a_rescue_below_20_saves_the_set() -> None:
    state = p1_over_20(begin(KOTOR1, "-6"), 7)
    state = run(state, play(state, "-6"), END_TURN)
    assert state.phase is Phase.BEFORE_DRAW and state.sides[0].total == 19
    assert state.set_winners == ()


def test_over_20_at_the_end_of_the_turn_loses_the_set() -> None:
    state = p1_over_20(begin(KOTOR1)).child(END_TURN)
    assert state.phase is Phase.SET_OVER and state.set_winners == (1,)
    assert set_outcome(state) == (1, "bust")


def test_standing_over_20_is_not_allowed() -> None:
    state = p1_over_20(begin(KOTOR1))
    with pytest.raises(IllegalActionError, match="cannot stand on 26: it is over 20"):
        state.child(STAND)


def nine_small_cards(ruleset: Ruleset, last: int, hand: str = "") -> MatchState:
    """Player 2 stands on 19; player 1 then draws 1,1,1,1,2,2,2,2 (12 on eight cards) and
    ``last`` as his ninth card."""
    state = run(begin(ruleset, hand), Draw(1), END_TURN, Draw(10), END_TURN, Draw(1), END_TURN)
    state = run(state, Draw(9), STAND)
    for value in (1, 1, 2, 2, 2, 2):
        state = run(state, Draw(value), END_TURN)
    assert len(state.sides[0].table) == 8 and state.sides[0].total == 12
    return state.child(Draw(last))


def test_nine_cards_kotor1_stands_automatically_and_totals_are_compared() -> None:
    state = nine_small_cards(KOTOR1, 3)
    assert state.sides[0].standing and state.sides[0].total == 15
    assert state.set_winners == (1,), "15 against a standing 19: the nine cards do not win"
    assert set_outcome(state) == (1, "higher total")


def test_nine_cards_kotor2_wins_the_set_at_once() -> None:
    state = nine_small_cards(KOTOR2, 3)
    assert state.set_winners == (0,), "15 on nine cards beats a standing 19"
    assert set_outcome(state) == (0, "nine cards")


def test_nine_cards_reached_with_a_hand_card_also_count() -> None:
    state = run(begin(KOTOR2, "+1"), Draw(1), END_TURN, Draw(10), END_TURN, Draw(1), END_TURN)
    state = run(state, Draw(9), STAND)
    for value in (1, 1, 2, 2, 2):
        state = run(state, Draw(value), END_TURN)
    state = state.child(Draw(2))
    assert len(state.sides[0].table) == 8 and state.phase is Phase.AFTER_DRAW
    state = state.child(play(state, "+1"))
    assert state.set_winners == (0,) and len(state.sides[0].table) == 9


def test_a_ninth_card_drawn_over_20_is_a_bust_with_no_rescue() -> None:
    for ruleset in (KOTOR1, KOTOR2):
        state = nine_small_cards(ruleset, 10, hand="-6")
        assert state.sides[0].total == 22
        assert state.set_winners == (1,), "no hand card can follow the ninth card"
        assert state.sides[0].hand == parse_cards("-6")


def test_a_ninth_card_reaching_exactly_20_kotor1_stands_kotor2_wins() -> None:
    kotor1 = nine_small_cards(KOTOR1, 8)
    assert kotor1.sides[0].standing and kotor1.set_winners == (0,), "20 beats 19"
    kotor2 = nine_small_cards(KOTOR2, 8)
    assert kotor2.set_winners == (0,) and set_outcome(kotor2) == (0, "nine cards")


def test_nine_cards_win_can_be_turned_into_a_stand_by_the_ruleset() -> None:
    state = nine_small_cards(parse_ruleset("kotor2/nine-cards=stand"), 3)
    assert state.set_winners == (1,)


def test_when_both_stand_the_higher_total_wins() -> None:
    state = run(begin(KOTOR1), Draw(10), END_TURN, Draw(9), END_TURN, Draw(8), STAND)
    state = run(state, Draw(10), STAND)
    assert (state.sides[0].total, state.sides[1].total) == (18, 19)
    assert state.set_winners == (1,) and set_outcome(state) == (1, "higher total")


def test_equal_totals_are_a_tie_nobody_scores_and_hands_are_not_refilled() -> None:
    state = begin(INFINITE1, "+1 +2", "-1")
    state = run(state, Draw(3), play(run(state, Draw(3)), "+2"), END_TURN)
    state = tie_set(state)
    assert state.set_winners == (None,) and state.sets_won() == (0, 0) and state.ties() == 1
    assert set_outcome(state) == (None, "tie")
    state = state.child(Open(0))
    assert state.sides[0].hand == parse_cards("+1"), "the tied set's card is gone for good"


def test_ties_can_repeat_without_limit() -> None:
    state = begin(INFINITE1)
    for _ in range(7):
        state = tie_set(state).child(Open(0))
    assert state.set_winners == (None,) * 7 and not state.is_terminal()


def test_first_player_player1_opens_every_set() -> None:
    state = win_set(begin(INFINITE1), 0)
    assert state.possible_openers() == (0,) and state.legal_actions() == (Open(0),)
    state = win_set(state.child(Open(0)), 0)
    assert state.possible_openers() == (0,)


def test_first_player_random_is_a_fair_coin_every_set() -> None:
    state = new_match(INFINITE2, ((), ()))
    assert state.chance_outcomes() == ((Open(0), Fraction(1, 2)), (Open(1), Fraction(1, 2)))
    state = win_set(state.child(Open(1)), 0)
    assert state.possible_openers() == (0, 1)
    assert {state.sample_chance(random.Random(seed)) for seed in range(20)} == {Open(0), Open(1)}


def test_first_player_alternate_alternates_ties_included() -> None:
    rules = parse_ruleset("kotor1/main-deck=infinite,first-player=alternate")
    state = new_match(rules, ((), ()))
    assert state.possible_openers() == (0,)
    state = tie_set(state.child(Open(0)))
    assert state.possible_openers() == (1,)
    state = win_set(state.child(Open(1)), 1)
    assert state.possible_openers() == (0,)


def test_first_player_loser_opens_and_after_a_tie_the_same_player_opens() -> None:
    rules = parse_ruleset("kotor1/main-deck=infinite,first-player=loser")
    state = win_set(new_match(rules, ((), ())).child(Open(0)), 1)
    assert state.possible_openers() == (0,), "player 1 lost"
    state = win_set(state.child(Open(0)), 0)
    assert state.possible_openers() == (1,), "player 2 lost"
    state = tie_set(state.child(Open(1)))
    assert state.possible_openers() == (1,), "after a tie the opener opens again"


def test_a_set_cannot_be_opened_by_a_player_the_rule_forbids() -> None:
    with pytest.raises(
        IllegalActionError, match="player 2 cannot open this set under the 'player1'"
    ):
        new_match(KOTOR1, ((), ())).child(Open(1))


def test_the_opener_draws_first() -> None:
    rules = parse_ruleset("kotor1/first-player=random")
    state = new_match(rules, ((), ())).child(Open(1))
    assert state.turn == 1 and state.opener == 1
    assert state.child(Draw(4)).sides[1].table == (TableCard(Placed.MAIN, 4),)


def test_forfeit_loses_the_match_and_the_wager() -> None:
    state = run(begin(KOTOR1), Draw(4), END_TURN, Draw(6))
    state = state.child(FORFEIT)
    assert state.is_terminal() and state.forfeited == 1 and state.match_winner() == 0
    assert state.returns() == (1, -1) and state.current_player() == TERMINAL
    assert settle_wager(state, 200) == (200, -200)
    assert set_outcome(state) == (0, "forfeit")
    assert state.legal_actions() == ()


def test_forfeit_after_playing_a_card_leaves_no_played_flag() -> None:
    state = run(begin(KOTOR1, "+1"), Draw(4))
    state = run(state, play(state, "+1"), FORFEIT)
    assert state.forfeited == 0 and not state.played


# §4 The match -----------------------------------------------------------------------------


def test_the_match_ends_at_exactly_three_set_wins() -> None:
    state = begin(INFINITE1)
    for winner in (0, 1, 0, 1):
        state = win_set(state, winner).child(Open(0))
    assert state.sets_won() == (2, 2) and state.match_winner() is None
    state = win_set(state, 1)
    assert state.is_terminal() and state.sets_won() == (2, 3)
    assert state.match_winner() == 1 and state.returns() == (-1, 1)
    assert state.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="a set can only be opened between sets"):
        state.child(Open(0))


def test_settle_wager_the_winner_gains_it_and_the_loser_loses_it_not_doubled() -> None:
    state = begin(INFINITE1)
    for _ in range(3):
        state = win_set(state, 0)
        if not state.is_terminal():
            state = state.child(Open(0))
    assert settle_wager(state, 750) == (750, -750)
    assert settle_wager(state, 0) == (0, 0), "no wager is allowed"


def test_settle_wager_refuses_an_unfinished_match_and_a_negative_wager() -> None:
    with pytest.raises(WagerError, match="the match is not over"):
        settle_wager(begin(KOTOR1), 100)
    finished = run(begin(KOTOR1), Draw(3), FORFEIT)
    with pytest.raises(WagerError, match="a wager is a whole number of credits, 0 or more, not -5"):
        settle_wager(finished, -5)


# §5 Gold cards ----------------------------------------------------------------------------


def test_flip_2_4_flips_every_2_and_4_already_on_the_table_both_signs() -> None:
    state = begin(KOTOR2, "-2 F2/4", "")
    state = run(state, Draw(4), play(run(state, Draw(4)), "-2"), END_TURN, Draw(10), END_TURN)
    state = run(state, Draw(2), END_TURN, Draw(1), END_TURN, Draw(3))
    assert values(state, 0) == [4, -2, 2, 3] and state.sides[0].total == 7
    state = state.child(play(state, "F2/4"))
    assert values(state, 0) == [-4, 2, -2, 3, 0], "4, -2 and 2 flipped; the 3 not"
    assert state.sides[0].total == -1


def test_flip_never_touches_the_opponents_table() -> None:
    state = run(begin(KOTOR2, "F2/4"), Draw(2), END_TURN, Draw(4), END_TURN, Draw(4))
    state = state.child(play(state, "F2/4"))
    assert values(state, 0) == [-2, -4, 0] and values(state, 1) == [4]


def test_flip_does_not_touch_cards_that_come_later() -> None:
    state = run(begin(KOTOR2, "F2/4"), Draw(2), END_TURN, Draw(5), END_TURN, Draw(1))
    state = run(state, play(state, "F2/4"), END_TURN, Draw(5), END_TURN, Draw(4))
    assert values(state, 0) == [-2, 1, 0, 4] and state.sides[0].total == 3


def test_flip_positive_only_variant_leaves_negative_cards() -> None:
    rules = parse_ruleset("kotor2/flip-targets=positive-only")
    state = run(begin(rules, "-2 F2/4"), Draw(4))
    state = run(state, play(state, "-2"), END_TURN, Draw(10), END_TURN, Draw(2))
    state = state.child(play(state, "F2/4"))
    assert values(state, 0) == [-4, -2, -2, 0] and state.sides[0].total == -8


def test_flip_3_6_flips_3s_and_6s_only() -> None:
    state = run(begin(KOTOR2, "F3/6"), Draw(3), END_TURN, Draw(5), END_TURN, Draw(6))
    state = run(state, END_TURN, Draw(5), END_TURN, Draw(2))
    state = state.child(play(state, "F3/6"))
    assert values(state, 0) == [-3, -6, 2, 0]


def test_flip_is_worth_zero_and_takes_a_table_slot() -> None:
    state = run(begin(KOTOR2, "F3/6"), Draw(5))
    state = state.child(play(state, "F3/6"))
    assert state.sides[0].table == (TableCard(Placed.MAIN, 5), TableCard(Placed.FLIP_3_6, 0))
    assert state.sides[0].total == 5


def test_a_flip_that_makes_20_stands_automatically() -> None:
    state = run(begin(KOTOR2, "-4 F2/4"), Draw(10))
    state = run(state, play(state, "-4"), END_TURN, Draw(1), END_TURN, Draw(6))
    assert state.sides[0].total == 12
    state = state.child(play(state, "F2/4"))
    assert values(state, 0) == [10, 4, 6, 0]
    assert state.sides[0].total == 20 and state.sides[0].standing and state.turn == 1


def test_double_copies_the_card_just_drawn() -> None:
    state = run(begin(KOTOR2, "D"), Draw(7))
    assert Play(0, Card.parse("D"), 7) in state.legal_actions()
    state = state.child(play(state, "D", 7))
    assert state.sides[0].table[-1] == TableCard(Placed.DOUBLE, 7) and state.sides[0].total == 14


def test_double_cannot_take_another_value() -> None:
    state = run(begin(KOTOR2, "D"), Draw(7))
    with pytest.raises(IllegalActionError, match=r"D can be played as \+7, not \+3"):
        state.child(Play(0, Card.parse("D"), 3))


def test_a_double_that_copied_a_2_counts_as_a_2_for_a_later_flip() -> None:
    state = run(begin(KOTOR2, "D F2/4"), Draw(2))
    state = run(state, play(state, "D", 2), END_TURN, Draw(10), END_TURN, Draw(5))
    assert values(state, 0) == [2, 2, 5]
    state = state.child(play(state, "F2/4"))
    assert values(state, 0) == [-2, -2, 5, 0] and state.sides[0].total == 1


def test_plus_minus_1_2_is_played_as_plus_1_plus_2_minus_1_or_minus_2() -> None:
    state = run(begin(KOTOR2, "±1/2"), Draw(5))
    card = Card.parse("±1/2")
    assert [a.value for a in state.legal_actions() if isinstance(a, Play)] == [1, 2, -1, -2]
    assert state.child(Play(0, card, -2)).sides[0].total == 3
    with pytest.raises(IllegalActionError, match=r"±1/2 can be played as \+1 or \+2 or -1 or -2"):
        state.child(Play(0, card, 3))


def test_plus_minus_card_value_is_chosen_when_played_and_fixed_after() -> None:
    state = run(begin(KOTOR1, "±4"), Draw(5))
    state = state.child(Play(0, Card.parse("±4"), -4))
    assert state.sides[0].table[-1] == TableCard(Placed.HAND, -4) and state.sides[0].total == 1


def tied_on_19(ruleset: Ruleset, p1_tiebreaker: bool, p2_tiebreaker: bool) -> MatchState:
    """Both players end on 19 with a last card that is a Tiebreaker (+1) or a main-deck 9."""
    state = run(begin(ruleset, "T", "T"), Draw(10), END_TURN, Draw(10), END_TURN)
    for tiebreaker in (p1_tiebreaker, p2_tiebreaker):
        if tiebreaker:
            state = state.child(Draw(8))
            state = run(state, play(state, "T", 1), STAND)
        else:
            state = run(state, Draw(9), STAND)
    return state


def test_tiebreaker_as_the_last_card_wins_a_tie() -> None:
    state = tied_on_19(KOTOR2, True, False)
    assert state.sides[0].total == state.sides[1].total == 19
    assert state.set_winners == (0,) and set_outcome(state) == (0, "tiebreaker")
    assert tied_on_19(KOTOR2, False, True).set_winners == (1,)


def test_tiebreakers_on_both_sides_are_a_tie() -> None:
    assert tied_on_19(KOTOR2, True, True).set_winners == (None,)


def test_tiebreaker_is_plus_or_minus_1() -> None:
    state = run(begin(KOTOR2, "T"), Draw(5))
    assert [a.value for a in state.legal_actions() if isinstance(a, Play)] == [1, -1]
    assert state.child(play(state, "T", -1)).sides[0].table[-1] == TableCard(Placed.TIEBREAKER, -1)


def tiebreaker_then_draw(ruleset: Ruleset) -> MatchState:
    """Player 1 plays a Tiebreaker early, then draws; both end on 19."""
    state = run(begin(ruleset, "T"), Draw(10))
    state = run(state, play(state, "T", -1), END_TURN, Draw(10), END_TURN, Draw(5), END_TURN)
    state = run(state, Draw(9), STAND, Draw(5), STAND)
    assert state.sides[0].total == state.sides[1].total == 19
    return state


def test_tiebreaker_that_is_not_the_last_card_does_not_count() -> None:
    assert tiebreaker_then_draw(KOTOR2).set_winners == (None,)


def test_tiebreaker_any_played_variant_counts_an_earlier_tiebreaker() -> None:
    rules = parse_ruleset("kotor2/tiebreaker=any-played")
    state = tiebreaker_then_draw(rules)
    assert state.set_winners == (0,) and set_outcome(state) == (0, "tiebreaker")


def test_current_values_and_table_total_replay_flips() -> None:
    table = (
        TableCard(Placed.MAIN, 4),
        TableCard(Placed.HAND, -2),
        TableCard(Placed.FLIP_2_4, 0),
        TableCard(Placed.MAIN, 2),
        TableCard(Placed.FLIP_2_4, 0),
    )
    assert current_values(table, FlipTargets.ALL_SIGNS) == [4, -2, 0, -2, 0]
    assert table_total(table, FlipTargets.ALL_SIGNS) == 0
    assert current_values(table, FlipTargets.POSITIVE_ONLY) == [-4, -2, 0, -2, 0]
    assert table_total(table[:3], FlipTargets.POSITIVE_ONLY) == -6


# The API ---------------------------------------------------------------------------------


def test_equal_hand_cards_give_one_action_each_value() -> None:
    state = run(begin(KOTOR1, "+2 +2 ±2 ±2"), Draw(5))
    plays = [a for a in state.legal_actions() if isinstance(a, Play)]
    assert plays == [
        Play(0, Card.parse("+2"), 2),
        Play(2, Card.parse("±2"), 2),
        Play(2, Card.parse("±2"), -2),
    ]


def test_child_never_changes_the_state_and_equal_states_hash_equal() -> None:
    state = run(begin(KOTOR2, "+1"), Draw(5))
    before = (state, hash(state))
    state.child(play(state, "+1"))
    assert (state, hash(state)) == before
    again = run(begin(KOTOR2, "+1"), Draw(5))
    assert again == state and hash(again) == hash(state) and len({again, state}) == 1


def test_observed_by_hides_only_the_other_players_hand() -> None:
    state = run(begin(KOTOR1, "+1 +2", "-1 -2 -3"), Draw(5))
    view = state.observed_by(0)
    assert view.sides[0] == state.sides[0]
    assert view.sides[1].hand == (None, None, None) and view.sides[1].table == state.sides[1].table
    assert view.legal_actions() == state.legal_actions()
    assert not view.sides[1].hand_known and view.sides[0].hand_known
    with pytest.raises(HiddenInformationError, match="player 1's hand is hidden"):
        state.observed_by(1).legal_actions()


def test_a_hidden_hand_card_cannot_be_played() -> None:
    view = run(begin(KOTOR1, "+1"), Draw(5)).observed_by(1)
    with pytest.raises(HiddenInformationError, match="hand card number 1 is hidden"):
        view.child(Play(0, Card.parse("+1"), 1))


def test_observed_by_refuses_a_third_player() -> None:
    with pytest.raises(IllegalActionError, match="there is no seat 2: the seats are 0 and 1"):
        begin(KOTOR1).observed_by(2)


def test_set_outcome_is_none_while_a_set_is_played() -> None:
    assert set_outcome(begin(KOTOR1)) is None
    assert set_outcome(new_match(KOTOR1, ((), ()))) is None


# Illegal actions ---------------------------------------------------------------------------


def test_drawing_when_a_player_must_decide_is_illegal() -> None:
    state = run(begin(KOTOR1), Draw(5))
    with pytest.raises(
        IllegalActionError, match="cannot draw now: the match is in phase 'after draw'"
    ):
        state.child(Draw(3))


def test_drawing_a_value_outside_1_to_10_is_illegal() -> None:
    with pytest.raises(IllegalActionError, match=r"11 is not a main-deck card \(1..10\)"):
        begin(KOTOR1).child(Draw(11))


def test_deciding_at_a_chance_node_is_illegal() -> None:
    with pytest.raises(
        IllegalActionError, match="stand is not possible now: the match is in phase 'before draw'"
    ):
        begin(KOTOR1).child(STAND)
    with pytest.raises(IllegalActionError, match=r"end turn is not possible now: .* 'set over'"):
        new_match(KOTOR1, ((), ())).child(END_TURN)


def test_playing_a_card_number_the_hand_does_not_have_is_illegal() -> None:
    state = run(begin(KOTOR1, "+1 +2"), Draw(5))
    with pytest.raises(
        IllegalActionError, match="there is no hand card number 3: the hand holds 2"
    ):
        state.child(Play(2, Card.parse("+1"), 1))


def test_playing_a_card_under_the_wrong_name_is_illegal() -> None:
    state = run(begin(KOTOR1, "+1 +2"), Draw(5))
    with pytest.raises(IllegalActionError, match=r"hand card number 1 is \+1, not -1"):
        state.child(Play(0, Card.parse("-1"), -1))


def test_playing_a_card_with_a_value_it_cannot_take_is_illegal() -> None:
    state = run(begin(KOTOR1, "±3"), Draw(5))
    with pytest.raises(IllegalActionError, match=r"±3 can be played as \+3 or -3, not \+2"):
        state.child(Play(0, Card.parse("±3"), 2))


def test_chance_outcomes_at_a_decision_node_are_an_error() -> None:
    state = run(begin(KOTOR1), Draw(5))
    with pytest.raises(IllegalActionError, match="no chance event happens in phase 'after draw'"):
        state.chance_outcomes()
    with pytest.raises(IllegalActionError, match="no chance event happens"):
        state.sample_chance(random.Random(1))


def test_opening_a_set_in_the_middle_of_one_is_illegal() -> None:
    with pytest.raises(
        IllegalActionError,
        match="a set can only be opened between sets, not in phase 'before draw'",
    ):
        begin(KOTOR1).child(Open(0))
