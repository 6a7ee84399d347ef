"""Side cards and their notation (docs/rules.md §1): every card round-trips through its canonical
spelling, every accepted spelling reads as the same card, and bad tokens are refused with an
error that quotes them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import (
    CARD_SYNTAX,
    MAX_MAGNITUDE,
    Card,
    CardKind,
    all_cards,
    parse_cards,
    split_tokens,
)
from pazaak_cli.engine.errors import CardError

ALL_CARDS = all_cards()


def spellings(card: Card) -> list[str]:
    """Every accepted way to write ``card`` (docs/rules.md §1 and the game files' tokens)."""
    n = card.magnitude
    return {
        CardKind.PLUS: [f"+{n}"],
        CardKind.MINUS: [f"-{n}", f"−{n}"],
        CardKind.PLUS_MINUS: [f"±{n}", f"+-{n}", f"*{n}", f"+−{n}"],
        CardKind.PLUS_MINUS_1_2: ["±1/2", "+-1/2", "VV", "vv"],
        CardKind.FLIP_2_4: ["F2/4", "F1", "f1", "f2/4"],
        CardKind.FLIP_3_6: ["F3/6", "F2", "f2"],
        CardKind.DOUBLE: ["D", "$$", "d"],
        CardKind.TIEBREAKER: ["T", "TT", "±1T", "+-1T", "1T", "t", "tt"],
    }[card.kind]


@settings(deadline=None)
@given(st.sampled_from(ALL_CARDS))
def test_every_card_round_trips_through_its_canonical_spelling(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert str(Card.parse(str(card))) == str(card)


@settings(deadline=None)
@given(st.sampled_from(ALL_CARDS), st.data())
def test_every_accepted_spelling_reads_as_the_same_card(card: Card, data: st.DataObject) -> None:
    spelling = data.draw(st.sampled_from(spellings(card)))
    padding = data.draw(st.sampled_from(["", " ", "\t"]))
    parsed = Card.parse(padding + spelling + padding)
    assert parsed == card
    assert Card.parse(str(parsed)) == card


def test_game_file_tokens_are_the_gold_cards_and_plus_minus() -> None:
    assert [str(Card.parse(t)) for t in ("*3", "VV", "F1", "F2", "$$", "TT")] == [
        "±3",
        "±1/2",
        "F2/4",
        "F3/6",
        "D",
        "T",
    ]


def test_ascii_spellings_read_as_plus_minus_cards() -> None:
    assert Card.parse("+-3") == Card(CardKind.PLUS_MINUS, 3)
    assert Card.parse("+-1/2") == Card(CardKind.PLUS_MINUS_1_2)
    assert Card.parse("±1T") == Card.parse("+-1T") == Card(CardKind.TIEBREAKER)


@settings(deadline=None)
@given(st.text(max_size=12))
def test_any_token_is_a_card_or_a_card_error_quoting_it(token: str) -> None:
    try:
        card = Card.parse(token)
    except CardError as error:
        assert error.token == token
        assert repr(token) in str(error)
    else:
        assert Card.parse(str(card)) == card


def test_a_number_out_of_range_is_refused_with_the_range() -> None:
    with pytest.raises(CardError, match=r"'\+7' is not a side card: the number must be 1 to 6"):
        Card.parse("+7")
    with pytest.raises(CardError, match=r"'±0' is not a side card: the number must be 1 to 6"):
        Card.parse("±0")


def test_a_main_deck_number_is_refused_with_the_side_cards_it_may_mean() -> None:
    with pytest.raises(
        CardError, match=r"'5' is a main-deck card, not a side card: write \+5, -5 or ±5"
    ):
        Card.parse("5")
    with pytest.raises(CardError, match=r"^'9' is a main-deck card, not a side card$"):
        Card.parse("9")


def test_an_unknown_token_is_refused_with_the_valid_cards() -> None:
    with pytest.raises(CardError) as caught:
        Card.parse("Q7")
    assert str(caught.value) == f"'Q7' is not a card; valid cards are {CARD_SYNTAX}"
    assert caught.value.token == "Q7"
    with pytest.raises(CardError, match="'' is not a card"):
        Card.parse("")


def test_a_very_long_token_is_shortened_in_the_message_but_kept_whole() -> None:
    token = "x" * 100
    with pytest.raises(CardError) as caught:
        Card.parse(token)
    assert "'" + "x" * 37 + "...'" in str(caught.value) and caught.value.token == token


def test_the_syntax_help_names_every_canonical_spelling_kind() -> None:
    for text in ("+1..+6", "-1..-6", "±1..±6", "±1/2", "F2/4", "F3/6", "D", "T", "VV", "$$"):
        assert text in CARD_SYNTAX


def test_a_card_needs_a_number_exactly_when_its_kind_has_one() -> None:
    with pytest.raises(CardError, match="a plus card needs a number from 1 to 6"):
        Card(CardKind.PLUS, 0)
    with pytest.raises(CardError, match="a plus/minus card needs a number from 1 to 6"):
        Card(CardKind.PLUS_MINUS, MAX_MAGNITUDE + 1)
    with pytest.raises(CardError, match="a double card has no number"):
        Card(CardKind.DOUBLE, 2)


def test_card_values_are_those_of_rules_section_1() -> None:
    assert Card.parse("+4").values == (4,)
    assert Card.parse("-4").values == (-4,)
    assert Card.parse("±4").values == (4, -4)
    assert Card.parse("±1/2").values == (1, 2, -1, -2)
    assert Card.parse("T").values == (1, -1)
    assert Card.parse("F2/4").values == Card.parse("F3/6").values == (0,)
    assert Card.parse("D").values == (0,), "fixed by the game from the card before"


def test_there_are_18_kotor1_kinds_and_5_gold_cards() -> None:
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 23
    assert not any(card.is_gold for card in ALL_CARDS[:18])
    assert all(card.is_gold for card in ALL_CARDS[18:])
    assert {str(card) for card in ALL_CARDS[18:]} == {"±1/2", "F2/4", "F3/6", "D", "T"}


def test_cards_sort_by_kind_then_number() -> None:
    cards = parse_cards("T -1 +2 ±1/2 ±1 +1 D")
    assert [str(card) for card in sorted(cards)] == ["+1", "+2", "-1", "±1", "±1/2", "D", "T"]
    assert sorted(ALL_CARDS) == list(ALL_CARDS)


def test_equal_cards_are_one_value() -> None:
    assert Card.parse("*3") == Card.parse("±3") and hash(Card.parse("*3")) == hash(Card.parse("±3"))
    assert len({Card.parse(t) for t in ("D", "$$", "d")}) == 1
    assert repr(Card.parse("+-2")) == "Card.parse('±2')"


def test_parse_cards_reads_a_list_separated_by_commas_or_spaces() -> None:
    assert parse_cards("+1, -2 ±3,,VV") == (
        Card.parse("+1"),
        Card.parse("-2"),
        Card.parse("±3"),
        Card.parse("±1/2"),
    )
    assert parse_cards("  ") == ()
    assert split_tokens("a,b  c") == ["a", "b", "c"]
    with pytest.raises(CardError, match="'x' is not a card"):
        parse_cards("+1 x")
