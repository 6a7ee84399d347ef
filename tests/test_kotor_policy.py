"""The KOTOR I computer opponent makes the choice docs/rules.md §7 documents, step by step.

Every position is hand-built in the position notation; the computer opponent is player 2 (as in
the game) unless a test says otherwise, and it sees only ``observed_by(seat)``.
"""

from __future__ import annotations

import pytest

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.game import END_TURN, STAND, Action, MatchState, Play
from pazaak_cli.engine.notation import parse_position
from pazaak_cli.engine.rules import KOTOR1
from pazaak_cli.players.roster import KotorPlayer
from pazaak_cli.policies.kotor_rule import (
    KOTOR_END_TURN,
    KOTOR_STAND,
    kotor_card_choice,
    kotor_rule,
)


def position(
    p1_table: str,
    p2_table: str,
    p2_hand: str,
    *,
    p1_hand: str = "?,?,?,?",
    stands: str = "--",
    sets: str = "-",
    to_move: str = "a2",
    ruleset: str = "kotor1",
    opener: str = "1",
) -> MatchState:
    """A valid position: the deck field is a full deck less the main-deck cards on the tables.

    Player 1 opens the set unless ``opener`` says otherwise, so the acting player has drawn as
    often as the other (player 2 to move) or once more (player 1), unless the other stands."""
    counts = [4] * 10
    for table in (p1_table, p2_table):
        for token in table.split(","):
            if token.isdigit():
                counts[int(token) - 1] -= 1
    deck = "".join(str(count) for count in counts)
    fields = (ruleset, p1_table, p2_table, p1_hand, p2_hand, stands, sets, deck, to_move, opener)
    return parse_position(" ".join(fields))


def kotor_move(state: MatchState) -> Action:
    return KotorPlayer().choose(state.observed_by(state.turn))


def play(index: int, card: str, value: int) -> Play:
    return Play(index, Card.parse(card), value)


# Step 1 ------------------------------------------------------------------------------------


def test_step1_stands_when_the_other_player_stands_behind_even_with_a_card_for_20() -> None:
    state = position("10,4", "9,6", "+5", stands="S-")
    assert kotor_move(state) == STAND


def test_step1_needs_the_other_player_to_stand() -> None:
    state = position("10,4", "9,6", "+5")
    assert kotor_move(state) == play(0, "+5", 5)


def test_step1_does_not_stand_on_an_equal_total() -> None:
    # The other stands on 15 too: step 1 does not apply; step 4 (15 < 18, best-down 11 < 16).
    state = position("10,5", "9,6", "-4", stands="S-")
    assert kotor_move(state) == END_TURN


# Step 2 ------------------------------------------------------------------------------------


def test_step2_plays_a_card_that_makes_20() -> None:
    state = position("10,5", "8,6", "-1,+6")
    assert kotor_move(state) == play(1, "+6", 6)


def test_step2_plays_for_19_when_best_down_is_at_least_12() -> None:
    state = position("10,5", "9,6", "+4,-3")  # best-up 19, best-down 12
    assert kotor_move(state) == play(0, "+4", 4)


def test_step2_does_not_play_for_19_when_best_down_is_below_12() -> None:
    state = position("10,5", "9,6", "+4,-4")  # best-up 19, best-down 11: step 4 ends the turn
    assert kotor_move(state) == END_TURN


def test_step2_plays_for_18_when_best_down_is_at_least_14() -> None:
    state = position("10,5", "10,6", "+2,-2")  # best-up 18, best-down 14
    assert kotor_move(state) == play(0, "+2", 2)


def test_step2_does_not_play_for_18_when_best_down_is_below_14() -> None:
    state = position("10,5", "10,6", "+2,-3")  # best-up 18, best-down 13
    assert kotor_move(state) == END_TURN


def test_step2_does_not_play_when_the_other_total_is_above_best_up() -> None:
    # best-up 18 (best-down 15 >= 14) but theirs is 19: no play; step 4 ends the turn.
    assert kotor_move(position("10,9", "10,5", "+3")) == END_TURN
    # The same hand against 18 plays.
    assert kotor_move(position("10,8", "10,5", "+3")) == play(0, "+3", 3)


def test_step2_does_not_play_for_a_total_below_18() -> None:
    state = position("10,5", "6,4", "+6")  # best-up 16
    assert kotor_move(state) == END_TURN


def test_step2_comes_first_for_a_busted_table_when_a_card_makes_20() -> None:
    # 23 against a player on 19 who has won one set: step 3 would concede, but -3 makes 20.
    state = position("10,9", "10,5,8", "-3", stands="S-", sets="1")
    assert kotor_move(state) == play(0, "-3", -3)


# Step 3 ------------------------------------------------------------------------------------


def test_step3_concedes_a_busted_set_to_keep_its_cards() -> None:
    # 23; -5 would give 18 < 19; the other player has won 1 set: end the turn busted.
    state = position("10,9", "10,5,8", "-5", stands="S-", sets="1")
    assert kotor_move(state) == END_TURN


def test_step3_does_not_concede_when_the_other_player_has_won_two_sets() -> None:
    state = position("10,9", "10,5,8", "-5", stands="S-", sets="11")
    assert kotor_move(state) == play(0, "-5", -5)


def test_step3_does_not_concede_when_the_other_total_is_below_18() -> None:
    state = position("10,4,3", "10,5,8", "-5", sets="1")
    assert kotor_move(state) == play(0, "-5", -5)


def test_step3_does_not_concede_when_best_up_reaches_the_other_total() -> None:
    state = position("10,5,3", "10,5,8", "-5", sets="1")  # best-up 18 = theirs
    assert kotor_move(state) == play(0, "-5", -5)


def test_step3_rescues_with_the_card_that_leaves_the_highest_total() -> None:
    state = position("10,3,2", "10,5,8", "-6,-4,-2")  # 17, 19 or 21: -4 leaves 19
    assert kotor_move(state) == play(1, "-4", -4)


def test_step3_ends_the_turn_busted_without_a_rescue_card() -> None:
    state = position("10,3,2", "10,5,8", "+1,-1")
    assert kotor_move(state) == END_TURN


# Step 4 ------------------------------------------------------------------------------------


def test_step4_keeps_drawing_when_the_other_player_stands_ahead() -> None:
    state = position("10,9", "10,8", "+4", stands="S-")  # 18 against a standing 19
    assert kotor_move(state) == END_TURN


def test_step4_stands_from_18() -> None:
    state = position("10,5", "10,8", "-1")
    assert kotor_move(state) == STAND


def test_step4_stands_on_16_without_a_card_to_go_down() -> None:
    state = position("10,5", "10,6", "+5")  # best-down = mine = 16, not below 16
    assert kotor_move(state) == STAND


def test_step4_ends_the_turn_on_17_with_a_card_to_go_down_below_16() -> None:
    state = position("10,5", "10,7", "-2")  # best-down 15
    assert kotor_move(state) == END_TURN


def test_step4_stands_on_17_when_best_down_is_16() -> None:
    state = position("10,5", "10,7", "-1")  # best-down 16
    assert kotor_move(state) == STAND


def test_step4_after_a_rescue_ends_the_turn_below_18_with_a_card_left_to_go_below_16() -> None:
    # Over 20 it played -6 (step 3) to 17; the -2 left reaches 15, below 16: the turn ends.
    state = position("10,6,3", "10,5,8,-6", "-2", to_move="p2")
    assert kotor_move(state) == END_TURN


def test_step4_after_a_rescue_recomputes_best_down_from_the_cards_left() -> None:
    # On 17 after the rescue, the -1 left reaches only 16: best-down is 16, not below 16, so it
    # stands (the best-down of before the card, -1,000,000 over 20, would end the turn).
    state = position("10,6,3", "10,5,8,-6", "-1", to_move="p2")
    assert kotor_move(state) == STAND


def test_step4_after_a_rescue_with_a_card_left_that_cannot_go_down_stands() -> None:
    state = position("10,6,3", "10,5,8,-6", "+2,+5", to_move="p2")  # best-down = mine = 17
    assert kotor_move(state) == STAND


def test_step4_after_a_rescue_with_no_card_left_stands_from_16() -> None:
    # docs/rules.md §7.4 (2): no card left, best-down = mine = 16.
    state = position("10,6,3", "10,5,7,-6", "-", to_move="p2")
    assert kotor_move(state) == STAND


def test_step4_after_a_rescue_with_no_card_left_ends_the_turn_below_16() -> None:
    state = position("10,6,3", "10,5,6,-6", "-", to_move="p2")  # 15: best-down 15 < 16
    assert kotor_move(state) == END_TURN


@pytest.mark.parametrize("left", ["-2", "-", "±6,-5"])
def test_step4_after_a_step2_card_stands_on_its_18_whatever_is_left(left: str) -> None:
    # It played +2 for 18 (step 2); 18 stands, whatever best-down the cards left give.
    state = position("10,5", "10,6,+2", left, to_move="p2")
    assert kotor_move(state) == STAND


def test_a_whole_turn_step2_card_then_step4_on_the_cards_left() -> None:
    state = position("10,5", "10,6", "-4,+2,-5")  # best-up 18 (+2), best-down 11: no step 2
    assert kotor_move(state) == END_TURN
    state = position("10,5", "10,6", "+2,-1,-2")  # best-up 18, best-down 14: step 2 plays +2
    assert kotor_move(state) == play(0, "+2", 2)
    after = state.child(play(0, "+2", 2))
    assert kotor_move(after) == STAND  # on 18, the -2 left (best-down 16) does not matter


def test_the_rules_example_stands_on_16_once_its_hand_is_empty() -> None:
    """docs/rules.md §7.4 (2), the position of issue 11: I stand on 3; it plays -6 over 20 and
    ends the turn on 15 (±6 left: best-down 9), then plays ±6 as -6 over 20 and stands on 16."""
    spec = "kotor1/main-deck=infinite"

    def at(p1_table: str, p1_hand: str, phase: str) -> MatchState:
        return parse_position(f"{spec} {p1_table} 2,1 {p1_hand} ±6,+4 -S 2 4444444444 {phase} 1")

    assert kotor_move(at("10,-2,3,10", "-6,±6", "a1")) == play(0, "-6", -6)
    assert kotor_move(at("10,-2,3,10,-6", "±6", "p1")) == END_TURN
    assert kotor_move(at("10,-2,3,10,-6,7", "±6", "a1")) == play(0, "±6", -6)
    assert kotor_move(at("10,-2,3,10,-6,7,-6", "-", "p1")) == STAND


@pytest.mark.parametrize(
    ("mine", "left", "expected"),
    [
        (16, [], KOTOR_STAND),  # no card left: best-down = mine = 16
        (16, [(10, True), (22, True)], KOTOR_END_TURN),  # ±6 left: best-down 10
        (17, [(16, False)], KOTOR_STAND),  # -1 left: best-down 16
        (17, [(15, False)], KOTOR_END_TURN),  # -2 left: best-down 15
        (18, [(12, False)], KOTOR_STAND),  # from 18 it stands
    ],
)
def test_kotor_rule_after_a_card_reads_best_down_from_the_tries_it_is_given(
    mine: int, left: list[tuple[int, bool]], expected: int
) -> None:
    assert kotor_rule(mine, 3, True, 1, left, True, KOTOR1) == expected


def test_step4_after_a_play_keeps_drawing_behind_a_standing_player() -> None:
    state = position("10,9", "10,5,8,-5", "-", stands="S-", sets="11", to_move="p2")
    assert kotor_move(state) == END_TURN


def test_the_rule_plays_the_same_as_player_1() -> None:
    state = position("9,6", "10", "?,?,?,?", p1_hand="+4,-3", to_move="a1")
    assert kotor_move(state) == play(0, "+4", 4)


# Card order and ties -----------------------------------------------------------------------


def test_a_plus_minus_card_is_tried_with_both_signs() -> None:
    assert kotor_move(position("10,3,2", "10,5,8", "±3")) == play(0, "±3", -3)
    assert kotor_move(position("10,5", "10,7", "±3")) == play(0, "±3", 3)


def test_an_equal_total_replaces_a_chosen_plus_minus_card() -> None:
    # ±3 reaches 20 first; +3 reaches 20 too and replaces it: the ± card is kept.
    assert kotor_move(position("10,5", "10,7", "±3,+3")) == play(1, "+3", 3)


def test_an_equal_total_does_not_replace_a_chosen_fixed_card() -> None:
    assert kotor_move(position("10,5", "10,7", "+3,±3")) == play(0, "+3", 3)
    assert kotor_move(position("10,5", "10,7", "+3,-1,+3")) == play(0, "+3", 3)


def test_equal_cards_are_played_from_the_first_slot_that_holds_them() -> None:
    # The later ±3 replaces the first (equal total, chosen ± card), but the two are the same
    # card: the play names the first slot, as the engine's legal actions do.
    state = position("10,5", "10,7", "±3,+1,±3")
    assert kotor_move(state) == play(0, "±3", 3)
    assert kotor_move(state) in state.legal_actions()


def test_the_minus_side_of_a_rescue_keeps_the_plus_minus_card() -> None:
    assert kotor_move(position("10,3,2", "10,5,8", "±3,-3")) == play(1, "-3", -3)


def test_a_strictly_better_total_wins_over_keeping_a_plus_minus_card() -> None:
    assert kotor_move(position("10,5", "10,7", "+2,±3")) == play(1, "±3", 3)


def test_best_down_counts_the_minus_side_of_a_plus_minus_card() -> None:
    # best-up 18 with +2 (kept over ±2 as +2); best-down 14 with ±2 as -2: play.
    assert kotor_move(position("10,5", "10,6", "+2,±2")) == play(0, "+2", 2)
    # At 15, +4 reaches 19 (±4 as +4 too, and +4 is kept); ±4 as -4 makes best-down 11 < 12.
    assert kotor_move(position("10,5", "9,6", "+4,±4")) == END_TURN
    assert kotor_move(position("10,5", "9,6", "+4,+1")) == play(0, "+4", 4)


@pytest.mark.parametrize(
    ("table", "hand", "up", "down"),
    [
        ("10,6", "+2,-2", 18, 14),
        ("10,6", "+5,+6", 16, 16),  # no card improves: best-up = mine; none goes down
        ("10,5,8", "+1,-1", -1_000_000, -1_000_000),  # over 20 and no rescue
        ("10,5,8", "-6", 17, -1_000_000),  # nothing goes "down" from over 20
        ("10,1", "-6,±6", 17, 5),  # ±6 as +6 = 17; -6 and ±6 as -6 both give 5
    ],
)
def test_best_up_and_best_down_follow_the_definitions(
    table: str, hand: str, up: int, down: int
) -> None:
    p1_table = "10,3,2" if table.count(",") == 2 else "10,5"  # as many draws as player 2
    state = position(p1_table, table, hand)
    choice = kotor_card_choice(state.sides[1], state.ruleset)
    assert (choice.best_up, choice.best_down) == (up, down)


# The gold cards (KOTOR II), by the total each one produces --------------------------------------


def test_gold_double_counts_as_the_drawn_value() -> None:
    state = position("10,5", "4,6,5", "D", ruleset="kotor2", opener="2")
    assert kotor_move(state) == play(0, "D", 5)


def test_gold_double_left_after_a_rescue_copies_the_card_just_played() -> None:
    # On 17 after playing -6 over 20, a Double would copy the -6 (11): best-down 11 < 16, so
    # the turn ends (read as the drawn 8 it could not go down, and the rule would stand).
    state = position("10,6,3", "10,5,8,-6", "D", ruleset="kotor2", to_move="p2")
    assert kotor_move(state) == END_TURN


def test_gold_flip_counts_by_the_total_after_flipping() -> None:
    state = position("10,5", "10,-4,6", "F2/4", ruleset="kotor2")  # 12 -> 10 + 4 + 6 = 20
    assert kotor_move(state) == play(0, "F2/4", 0)


def test_gold_plus_minus_one_two_is_tried_as_2_1_minus1_minus2() -> None:
    assert kotor_move(position("10,5", "10,8", "±1/2", ruleset="kotor2")) == play(0, "±1/2", 2)
    over = position("10,5", "10,5,6", "±1/2", ruleset="kotor2", opener="2")
    assert kotor_move(over) == play(0, "±1/2", -1)


def test_gold_tiebreaker_counts_as_plus_minus_one_and_is_kept_on_equal_totals() -> None:
    assert kotor_move(position("10,5", "10,9", "T", ruleset="kotor2")) == play(0, "T", 1)
    assert kotor_move(position("10,5", "10,9", "T,+1", ruleset="kotor2")) == play(1, "+1", 1)


# What the rule may see --------------------------------------------------------------------


def test_the_choice_does_not_depend_on_the_hidden_hand() -> None:
    base = "10,9", "10,5,8", "-5"
    seen = {
        kotor_move(position(*base, p1_hand=hand, stands="S-", sets="1"))
        for hand in ("+1,+2,+3,+4", "-6,-6,±6,±1", "?,?,?,?")
    }
    assert seen == {END_TURN}


def test_the_rule_is_deterministic() -> None:
    state = position("10,5", "10,6", "+2,-2")
    assert len({kotor_move(state) for _ in range(5)}) == 1
