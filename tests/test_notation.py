"""The position notation: exact round trips on every state random playouts reach, and one test
per impossible position that :func:`check_position` refuses (with its message)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import NotationError, PazaakError
from pazaak_cli.engine.game import (
    FORFEIT,
    STAND,
    MatchState,
    Phase,
    Placed,
    Play,
    Side,
    TableCard,
    deal_hand,
    new_match,
)
from pazaak_cli.engine.notation import check_position, format_position, parse_position, parse_table
from pazaak_cli.engine.rules import FlipTargets, parse_ruleset

EXAMPLE = "kotor1 7,+3,5 10 +1,-2,±3 ?,?,? -- 1=2 2322312121 a1 1"
"""The README's example."""

SPECS = [
    "kotor1",
    "kotor2",
    "kotor1/main-deck=per-set,first-player=alternate",
    "kotor2/main-deck=infinite,first-player=loser,tiebreaker=any-played",
    "kotor2/flip-targets=positive-only,nine-cards=stand,first-player=player1",
]


def random_states(spec: str, seed: int) -> list[MatchState]:
    """Every state of one random match (rarely a forfeit)."""
    rules = parse_ruleset(spec)
    rng = random.Random(seed)
    pool = sorted(rules.card_pool)
    decks = [[rng.choice(pool) for _ in range(10)] for _ in range(2)]
    state = new_match(rules, (deal_hand(decks[0], rules, rng), deal_hand(decks[1], rules, rng)))
    states = [state]
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            total = state.sides[state.turn].total
            if rng.random() < 0.01:
                action = FORFEIT
            elif STAND in legal and total >= rng.randrange(12, 21):
                action = STAND
            else:
                choices = [a for a in legal if a is not FORFEIT and a is not STAND]
                action = choices[rng.randrange(len(choices))]
        state = state.child(action)
        states.append(state)
    return states


def position(text: str) -> MatchState:
    return parse_position(text)


def refused(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_position(text)


def refused_state(state: MatchState, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        check_position(state)


# Round trips -----------------------------------------------------------------------------


def test_the_readme_example_is_a_valid_position_and_round_trips() -> None:
    state = parse_position(EXAMPLE)
    assert format_position(state) == EXAMPLE
    assert state.phase is Phase.AFTER_DRAW and state.turn == 0 and not state.played
    assert state.sides[0].total == 15 and state.sides[1].total == 10
    assert state.sides[1].hand == (None, None, None)
    assert state.set_winners == (0, None, 1) and state.opener == 0


def test_a_new_match_is_written_with_empty_tables_and_a_full_deck() -> None:
    rules = parse_ruleset("kotor2")
    state = new_match(rules, ((Card.parse("D"),), (Card(CardKind.FLIP_2_4),)))
    assert format_position(state) == "kotor2 - - D F2/4 -- - 4444444444 o1 1"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), spec=st.sampled_from(SPECS))
def test_notation_round_trips_every_state_of_a_random_playout(seed: int, spec: str) -> None:
    for state in random_states(spec, seed):
        for view in (state, state.observed_by(0), state.observed_by(1)):
            text = format_position(view)
            parsed = parse_position(text)
            assert parsed == view, text
            assert format_position(parsed) == text


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    index=st.integers(0, 200),
    char=st.sampled_from(list("0123456789+-,SsdapoxfDFT?=-/ ±")),
)
def test_a_corrupted_position_is_refused_cleanly_or_read_back_exactly(
    seed: int, index: int, char: str
) -> None:
    states = random_states("kotor2", seed)
    text = format_position(states[index % len(states)])
    at = index % len(text)
    corrupted = text[:at] + char + text[at + 1 :]
    try:
        state = parse_position(corrupted)
    except NotationError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert parse_position(format_position(state)) == state


@settings(deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_position_or_a_notation_error(text: str) -> None:
    try:
        state = parse_position(text)
    except NotationError:
        return
    assert parse_position(format_position(state)) == state


def test_played_state_is_written_p_and_read_back() -> None:
    state = parse_position("kotor1 7,+3 - +1,-2,±3 ?,?,?,? -- - 4444443444 p1 1")
    assert state.played and state.phase is Phase.AFTER_DRAW
    assert not any(isinstance(a, Play) for a in state.legal_actions())


def test_a_forfeited_match_is_written_f_and_read_back() -> None:
    state = parse_position("kotor1 7 - +1 ? -- 1 4444443444 a1 1").child(FORFEIT)
    text = format_position(state)
    assert text == "kotor1 7 - +1 ? -- 1 4444443444 f1 1"
    assert parse_position(text) == state and parse_position(text).match_winner() == 1


def test_parse_table_reads_every_table_card_and_computes_doubles_and_flips() -> None:
    table = parse_table("4 D,+2 F2/4 -1T 6", FlipTargets.ALL_SIGNS)
    assert table == (
        TableCard(Placed.MAIN, 4),
        TableCard(Placed.DOUBLE, 4),
        TableCard(Placed.HAND, 2),
        TableCard(Placed.FLIP_2_4, 0),
        TableCard(Placed.TIEBREAKER, -1),
        TableCard(Placed.MAIN, 6),
    )
    assert parse_table("-", FlipTargets.ALL_SIGNS) == parse_table("", FlipTargets.ALL_SIGNS) == ()
    assert parse_table("2,F1", FlipTargets.ALL_SIGNS)[-1] == TableCard(Placed.FLIP_2_4, 0)
    assert parse_table("3,$$", FlipTargets.ALL_SIGNS)[-1] == TableCard(Placed.DOUBLE, 3)


# Refused: a field that cannot be read ------------------------------------------------------


def test_refuses_a_position_without_ten_fields() -> None:
    refused("kotor1 - -", "a position has 10 fields separated by spaces, this one has 3")


def test_refuses_an_unknown_ruleset() -> None:
    refused(EXAMPLE.replace("kotor1", "kotor3"), r"field 1 \(ruleset\): unknown ruleset 'kotor3'")


def test_refuses_a_table_card_that_does_not_exist() -> None:
    refused(
        EXAMPLE.replace("7,+3,5", "7,+9,5"),
        r"field 2 \(player 1's table\): '\+9' is not a table card",
    )


def test_refuses_a_double_as_the_first_card() -> None:
    refused(
        "kotor2 D - - - -- - 4444444444 o1 1",
        "'D' cannot be the first card: it copies the card before it",
    )


def test_refuses_a_hand_card_that_does_not_exist() -> None:
    refused(
        EXAMPLE.replace("+1,-2,±3", "+1,-2,+7"),
        r"field 4 \(player 1's hand\): '\+7' is not a side card",
    )


def test_refuses_bad_stand_flags() -> None:
    refused(
        EXAMPLE.replace(" -- ", " S "),
        r"field 6 \(stand flags\): 'S' must be two characters, S or -",
    )


def test_refuses_bad_finished_sets() -> None:
    refused(
        EXAMPLE.replace("1=2", "1x2"), r"field 7 \(finished sets\): '1x2' must be '-' or a string"
    )


def test_refuses_a_deck_field_that_is_not_ten_counts_of_0_to_4() -> None:
    refused(
        EXAMPLE.replace("2322312121", "5322312121"),
        r"field 8 \(main deck\): '5322312121' must be ten digits 0..4",
    )


def test_refuses_an_unknown_phase() -> None:
    refused(
        EXAMPLE.replace(" a1 ", " z1 "), r"field 9 \(phase\): 'z1' must be one of d, a, p, o, x, f"
    )


def test_refuses_an_opener_that_is_not_1_or_2() -> None:
    refused(EXAMPLE[:-1] + "3", r"field 10 \(opener\): '3' is not 1 or 2")


# Refused: impossible tables ---------------------------------------------------------------


def test_refuses_more_cards_than_a_table_holds() -> None:
    refused(
        "kotor1 1,1,1,1,2,2,2,2,3,3 - - - S- 1 0024444444 o1 1",
        "player 1's table holds 10 cards; a table holds 9",
    )


def test_refuses_a_table_that_starts_with_a_hand_card() -> None:
    refused(
        EXAMPLE.replace("7,+3,5", "+3,7,5"), r"player 1's table must start with a main-deck card"
    )


def test_refuses_two_hand_cards_in_one_turn() -> None:
    refused(
        EXAMPLE.replace("7,+3,5", "7,+3,-2,5").replace("+1,-2,±3", "+1,±3"),
        r"player 1's table has -2 right after \+3",
    )


def test_refuses_a_gold_card_on_a_kotor1_table() -> None:
    refused(
        EXAMPLE.replace("7,+3,5", "7,F2/4,5"),
        "player 1's table holds F2/4, which kotor1 does not have",
    )


def test_refuses_a_table_card_with_a_value_it_cannot_have() -> None:
    state = position(EXAMPLE)
    first = state.sides[0]
    table = (first.table[0], TableCard(Placed.HAND, 9), first.table[2])
    bad = state._replace(sides=(first._replace(table=table, total=21), state.sides[1]))
    refused_state(bad, r"player 1's table card 2 \(\+9\) cannot be worth that")


def test_refuses_a_double_worth_something_else_than_the_card_before() -> None:
    state = position("kotor2 7,D - - - -- - 4444443444 p1 1")
    first = state.sides[0]
    table = (first.table[0], TableCard(Placed.DOUBLE, 5))
    bad = state._replace(sides=(first._replace(table=table, total=12), state.sides[1]))
    refused_state(bad, r"player 1's table card 2 \(D\) cannot be worth that")


def test_refuses_a_total_that_is_not_the_sum_of_the_table() -> None:
    state = position(EXAMPLE)
    bad = state._replace(sides=(state.sides[0]._replace(total=14), state.sides[1]))
    refused_state(bad, "player 1's total is 14, but his table adds up to 15")


def test_refuses_more_hand_cards_than_were_dealt() -> None:
    refused(
        EXAMPLE.replace("+1,-2,±3", "+1,-2,±3,+4"),
        "player 1 has 4 cards in hand and played 1 this set: more than the 4 dealt",
    )


def test_refuses_a_hand_card_outside_the_card_pool() -> None:
    refused(
        EXAMPLE.replace("+1,-2,±3", "+1,-2,F2/4"),
        "player 1's hand card F2/4 is not in the kotor1 card pool",
    )


# Refused: totals and stands the rules would already have acted on ----------------------------


def test_refuses_a_player_standing_over_20() -> None:
    refused(
        "kotor1 10,5 10,10,5 - - -S - 4444244441 a1 1",
        "player 2 stands on 25, over 20",
    )


def test_refuses_a_waiting_player_over_20() -> None:
    refused(
        "kotor1 10,5,1 10,10,5 - - -- - 3444244441 a1 1",
        "player 2's total is 25: over 20, the set would be over",
    )


def test_refuses_a_waiting_player_on_20_who_does_not_stand() -> None:
    refused(
        "kotor1 9,5 10,10 - - -- - 4444434422 d1 1",
        "player 2's total is 20, so he stands automatically: mark him S",
    )


def test_refuses_a_waiting_player_with_a_full_table_who_does_not_stand() -> None:
    refused(
        "kotor1 10,5 1,1,1,1,2,2,2,2,3 - - -- - 0003434443 d1 1",
        "player 2 has a full table, so he stands automatically: mark him S",
    )


def test_refuses_a_full_table_under_the_nine_card_win() -> None:
    refused(
        "kotor2 10,5 1,1,1,1,2,2,2,2,3 - - -S - 0003434443 d1 1",
        "player 2 has a full table, so he has already won the set",
    )


def test_refuses_a_standing_player_to_move() -> None:
    refused(EXAMPLE.replace(" -- ", " S- "), "player 1 stands, so it cannot be his move")


def test_refuses_a_moving_player_on_20() -> None:
    refused(
        EXAMPLE.replace("7,+3,5", "7,+3,10").replace("2322312121", "2322322120"),
        "player 1's total is 20: he would stand automatically",
    )


def test_refuses_a_moving_player_with_a_full_table() -> None:
    refused(
        "kotor1 1,1,1,1,2,2,2,2,3 5 - - -- - 0034344444 a1 1",
        "player 1's table is full: his turn would be over",
    )


def test_refuses_a_player_who_has_just_drawn_with_a_hand_card_last() -> None:
    refused(
        "kotor1 7,5,+3 10 +1,-2,±3 ?,?,? -- 1=2 2322312121 a1 1",
        "player 1 has just drawn, so his last card must be a main-deck card",
    )


def test_refuses_a_player_who_has_played_with_a_drawn_card_last() -> None:
    refused(
        EXAMPLE.replace(" a1 ", " p1 "),
        "player 1 has played a hand card, so his last card must be one",
    )


def test_refuses_a_standing_player_about_to_draw() -> None:
    refused(
        "kotor1 7,+3 10 +1,-2,±3 ?,?,? S- 1=2 2322322121 d1 1",
        "player 1 stands, so he cannot be about to draw",
    )


def test_refuses_both_players_standing_in_the_middle_of_a_set() -> None:
    refused(
        "kotor1 7,5 10,8 - - SS - 4444343343 a1 1",
        "both players stand, so the set is already over",
    )


def test_refuses_an_empty_table_for_the_player_who_has_drawn() -> None:
    state = position("kotor1 - - - - -- - 4444444444 d1 1")
    refused_state(
        state._replace(phase=Phase.AFTER_DRAW),
        "player 1 is to move after his draw, but his table is empty",
    )


# Refused: whose turn, who opened, which sets ------------------------------------------------


def test_refuses_the_wrong_player_to_move_for_the_cards_drawn() -> None:
    refused(
        "kotor1 7,+3,5 4,10 +1,-2,±3 ?,?,? -- 1=2 2321312121 a1 1",
        r"the main-deck cards on the tables \(2 for player 1, who opened the set, 2 for player 2\) "
        "do not fit player 1 to move after his draw",
    )


def test_refuses_the_wrong_player_to_draw_for_the_cards_drawn() -> None:
    refused(
        "kotor1 7 10 - - -- - 4444443443 d2 1",
        r"\(1 for player 1, who opened the set, 1 for player 2\) do not fit player 2 to draw",
    )


def test_refuses_an_opener_the_first_player_rule_forbids() -> None:
    refused(
        EXAMPLE[:-1] + "2",
        "player 2 cannot have opened set 4: under the 'player1' first-player rule "
        "player 1 opens it",
    )


def test_refuses_an_alternate_opener_out_of_turn() -> None:
    refused(
        "kotor1/first-player=alternate 7 - - - -- 1 4444443444 a1 1",
        "player 1 cannot have opened set 2: under the 'alternate' first-player rule "
        "player 2 opens it",
    )


def test_refuses_a_loser_rule_opener_who_won_the_last_set() -> None:
    refused(
        "kotor1/first-player=loser - 7 - - -- 2 4444443444 a2 2",
        "player 2 cannot have opened set 2: under the 'loser' first-player rule player 1 opens it",
    )


def test_refuses_more_set_wins_than_a_match_has() -> None:
    refused(
        "kotor1 - - - - -- 1111 4444444444 x1 1", "player 1 has won 4 sets: the match ends at 3"
    )


def test_refuses_three_set_wins_in_a_match_still_played() -> None:
    refused(EXAMPLE.replace("1=2", "1=11"), "player 1 has won 3 sets: the match ends at 3")


def test_refuses_a_match_over_without_three_set_wins() -> None:
    refused(
        "kotor1 10,9,5 10,8 - - -- 12 4444344331 x1 1",
        "the match is over but nobody has won 3 sets",
    )


def test_refuses_a_match_that_went_on_after_three_set_wins() -> None:
    refused(
        "kotor1 10,9,5 10,8 - - -- 1112 4444344331 x1 1", "the match ended when player 1 won set 3"
    )


def test_refuses_a_last_set_result_the_tables_contradict() -> None:
    refused(
        "kotor1 10,9,5 10,8 - - -- 1 4444344331 o1 1",
        r"the last set must be won by player 2 \(player 1 went over 20\), as the tables show",
    )


def test_refuses_a_set_over_that_nothing_ended() -> None:
    refused(
        "kotor1 10,5 10 - - -- 1 4444344442 o1 1",
        "the set is over, but player 1 neither went over 20, nor filled his table",
    )


def test_refuses_a_set_over_with_the_other_player_over_20() -> None:
    refused(
        "kotor1 10,5,3 10,9,+5 - - -- 2 4434344432 o1 1",
        "player 2's total 24 is over 20, but the set ended on player 1's turn",
    )


def test_refuses_a_full_table_that_should_have_ended_the_other_players_turn() -> None:
    refused(
        "kotor2 1,1,3,3,4,4 1,+1,1,+1,2,+1,2,+1,2 - - SS 1 0122444444 o1 1",
        "player 2's full table would have ended his own turn",
    )


def test_refuses_a_tie_the_totals_do_not_show() -> None:
    refused(
        "kotor1 10,9 10,8 - - SS = 4444444322 o2 1",
        r"the last set must be won by player 1 \(both stand\)",
    )


def test_refuses_tables_before_the_first_set() -> None:
    refused(
        "kotor1/main-deck=infinite 5 - - - -- - 4444444444 o1 1",
        "no set has been played, so the tables must be empty",
    )


def test_refuses_a_used_deck_before_the_first_set() -> None:
    refused(
        "kotor1 - - - - -- - 4444444443 o1 1",
        "no set has been played, so the main deck must be full",
    )


def test_refuses_a_second_player_before_the_first_set() -> None:
    refused(
        "kotor1 - - - - -- - 4444444444 o2 1",
        "before the first set the position is 'o1' with opener 1",
    )


# Refused: the main deck -------------------------------------------------------------------


def test_refuses_five_cards_of_a_value() -> None:
    refused(
        EXAMPLE.replace("2322312121", "2322314121"),
        "the tables hold 1 card of value 7 and the deck 4 more: there are only 4 of each value",
    )


def test_refuses_a_per_set_deck_that_is_not_a_full_deck_less_the_tables() -> None:
    refused(
        "kotor1/main-deck=per-set 7 - - - -- - 4444444444 a1 1",
        "with a deck per set, the deck must be a full deck less the cards on the tables",
    )


def test_refuses_an_infinite_deck_that_is_not_full() -> None:
    refused(
        "kotor1/main-deck=infinite 7 - - - -- - 4444443444 a1 1",
        "the deck is infinite, so its field must be 4444444444",
    )


def test_accepts_a_shared_deck_renewed_in_the_middle_of_the_set() -> None:
    state = parse_position("kotor1 5,5,5 5,5 - - -- 2=1=2=1 4444244444 d2 1")
    assert state.deck[4] == 2, "two 5s drawn since the renewal, five 5s on the tables in all"


def test_refuses_a_full_shared_deck_beside_cards_drawn_from_it() -> None:
    """A renewed deck has given at least the card drawn from it (one that runs out reads
    0000000000 until the next draw): a full deck beside drawn cards was taken as "renewed"."""
    refused(
        "kotor1 10,9 10 +1 -1 -- - 4444444444 a1 1",
        re.escape(
            "the deck is full while the tables hold 3 cards drawn from it (a deck that runs out "
            "reads 0000000000 until the next draw, which then takes a card from the renewed deck)"
        ),
    )
    assert parse_position("kotor1 10,9 10 +1 -1 -- - 4444444443 a1 1").deck[9] == 3


# Refused: fields a hand-built state can get wrong ------------------------------------------


def test_refuses_a_played_flag_outside_a_turn() -> None:
    state = position("kotor1 7 - - - -- - 4444443444 d2 1")
    refused_state(state._replace(played=True), "a hand card can only have been played after a draw")


def test_refuses_a_forfeit_while_the_match_goes_on() -> None:
    state = position(EXAMPLE)
    refused_state(
        state._replace(forfeited=0),
        "a forfeit ends the match, and it is the forfeiting player's move",
    )


def test_refuses_a_third_player() -> None:
    state = position(EXAMPLE)
    refused_state(
        state._replace(turn=2), "the player to move and the opener are player 1 or player 2"
    )


def test_every_refusal_is_a_pazaak_error_with_one_line() -> None:
    with pytest.raises(PazaakError) as caught:
        parse_position("kotor1 x")
    assert "\n" not in str(caught.value)


def test_hidden_hand_view_lists_its_cards_as_question_marks() -> None:
    state = position("kotor1 7 - +1,-2 +3,+4 -- - 4444443444 a1 1")
    assert format_position(state.observed_by(0)) == "kotor1 7 - +1,-2 ?,? -- - 4444443444 a1 1"
    assert format_position(state.observed_by(1)) == "kotor1 7 - ?,? +3,+4 -- - 4444443444 a1 1"
    assert isinstance(state.observed_by(1).sides[0], Side)


# Refused: digits that str.isdigit() accepts and int() does not (issue 12 item 6) ----------------

SUPER_2 = "\N{SUPERSCRIPT TWO}"
ARABIC_3 = "\N{ARABIC-INDIC DIGIT THREE}"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("7,+3,5", f"7,+3,{SUPER_2}", rf"field 2 \(player 1's table\): '{SUPER_2}' is not a table"),
        ("7,+3,5", f"7,+{SUPER_2},5", r"field 2 \(player 1's table\): '\+²' is not a table card"),
        ("7,+3,5", f"7,+3,1{ARABIC_3}", r"field 2 \(player 1's table\): '1٣' is not a table card"),
        ("2322312121", f"232231212{SUPER_2}", r"field 8 \(main deck\): '232231212²' must be ten"),
        ("2322312121", f"232231212{ARABIC_3}", r"field 8 \(main deck\): '232231212٣' must be ten"),
        ("kotor1", f"kotor1/target={SUPER_2}", r"field 1 \(ruleset\): 'target=²': target must be"),
        ("+1,-2,±3", f"+1,-2,±{SUPER_2}", r"field 4 \(player 1's hand\): '±²' is not a card"),
    ],
)
def test_refuses_digits_of_other_scripts(old: str, new: str, message: str) -> None:
    refused(EXAMPLE.replace(old, new), message)


@pytest.mark.parametrize("token", [SUPER_2, f"+{SUPER_2}", "1" + ARABIC_3, "+" + "9" * 5000])
def test_a_table_refuses_digits_of_other_scripts_and_huge_numbers(token: str) -> None:
    with pytest.raises(NotationError, match="is not a table card"):
        parse_table(f"5 {token}", FlipTargets.ALL_SIGNS)
