"""Rulesets: the presets are docs/rules.md §6, variants are written ``preset/key=value,...`` and the
spec round-trips; a bad spec names the bad part."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine import rules as rules_module
from pazaak_cli.engine.cards import Card, all_cards
from pazaak_cli.engine.errors import RulesetError
from pazaak_cli.engine.rules import (
    KOTOR1,
    KOTOR1_POOL,
    KOTOR2,
    KOTOR2_POOL,
    PRESETS,
    FirstPlayer,
    FlipTargets,
    MainDeck,
    NineCards,
    Ruleset,
    Tiebreaker,
    parse_ruleset,
)


def test_kotor1_preset_is_rules_section_6() -> None:
    assert KOTOR1.card_pool == frozenset(card for card in all_cards() if not card.is_gold)
    assert len(KOTOR1.card_pool) == 18
    assert KOTOR1.main_deck is MainDeck.SHARED
    assert KOTOR1.nine_cards is NineCards.STAND
    assert KOTOR1.first_player is FirstPlayer.PLAYER1
    assert KOTOR1.tiebreaker is Tiebreaker.LAST_CARD
    assert KOTOR1.flip_targets is FlipTargets.ALL_SIGNS
    assert (KOTOR1.side_deck_size, KOTOR1.hand_size, KOTOR1.table_size) == (10, 4, 9)
    assert (KOTOR1.target, KOTOR1.sets_to_win) == (20, 3)


def test_kotor2_preset_is_rules_section_6() -> None:
    assert KOTOR2.card_pool == frozenset(all_cards()) and len(KOTOR2.card_pool) == 23
    assert KOTOR2.main_deck is MainDeck.SHARED
    assert KOTOR2.nine_cards is NineCards.WIN
    assert KOTOR2.first_player is FirstPlayer.RANDOM
    assert KOTOR2.tiebreaker is Tiebreaker.LAST_CARD
    assert (KOTOR2.side_deck_size, KOTOR2.hand_size, KOTOR2.table_size) == (10, 4, 9)
    assert (KOTOR2.target, KOTOR2.sets_to_win) == (20, 3)
    assert KOTOR2.has_gold_cards and not KOTOR1.has_gold_cards


def test_a_preset_name_alone_is_the_preset() -> None:
    assert parse_ruleset("kotor1") is KOTOR1 or parse_ruleset("kotor1") == KOTOR1
    assert parse_ruleset(" KOTOR2 ") == KOTOR2
    assert KOTOR1.spec == "kotor1" and KOTOR2.spec == "kotor2"


def test_overrides_change_only_the_fields_named() -> None:
    rules = parse_ruleset("kotor2/main-deck=infinite,nine-cards=stand,sets-to-win=2")
    assert rules.main_deck is MainDeck.INFINITE and rules.nine_cards is NineCards.STAND
    assert rules.sets_to_win == 2
    assert (
        dataclasses.replace(
            rules, main_deck=MainDeck.SHARED, nine_cards=NineCards.WIN, sets_to_win=3
        )
        == KOTOR2
    )
    assert rules.spec == "kotor2/main-deck=infinite,nine-cards=stand,sets-to-win=2"


def test_keys_and_values_are_case_insensitive_and_underscores_allowed() -> None:
    assert parse_ruleset("Kotor1/Main_Deck=Per-Set").main_deck is MainDeck.PER_SET


def test_an_override_equal_to_the_preset_disappears_from_the_spec() -> None:
    assert parse_ruleset("kotor1/nine-cards=stand,target=20").spec == "kotor1"


def test_the_card_pool_can_be_switched_between_the_two_games() -> None:
    rules = parse_ruleset("kotor1/card-pool=kotor2")
    assert rules.card_pool == KOTOR2_POOL and rules.allows(Card.parse("D"))
    assert not KOTOR1.allows(Card.parse("D")) and KOTOR1.allows(Card.parse("±6"))
    assert rules.spec == "kotor1/card-pool=kotor2"
    assert parse_ruleset("kotor2/card-pool=kotor1").card_pool == KOTOR1_POOL


ENUM_FIELDS = {
    "main_deck": MainDeck,
    "nine_cards": NineCards,
    "first_player": FirstPlayer,
    "tiebreaker": Tiebreaker,
    "flip_targets": FlipTargets,
}


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    base = draw(st.sampled_from(list(PRESETS.values())))
    changes: dict[str, object] = {
        name: draw(st.sampled_from(list(kind))) for name, kind in ENUM_FIELDS.items()
    }
    changes["card_pool"] = draw(st.sampled_from([KOTOR1_POOL, KOTOR2_POOL]))
    changes["side_deck_size"] = draw(st.integers(4, 20))
    changes["hand_size"] = draw(st.integers(1, 4))
    changes["table_size"] = draw(st.integers(2, 12))
    changes["target"] = draw(st.integers(1, 40))
    changes["sets_to_win"] = draw(st.integers(1, 9))
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


@settings(deadline=None)
@given(rulesets())
def test_every_ruleset_round_trips_through_its_spec(rules: Ruleset) -> None:
    parsed = parse_ruleset(rules.spec)
    assert parsed == rules and hash(parsed) == hash(rules)
    assert parse_ruleset(parsed.spec).spec == rules.spec


def test_an_unknown_preset_is_refused_with_the_choices() -> None:
    with pytest.raises(
        RulesetError, match="unknown ruleset 'kotor3'; choose one of kotor1, kotor2"
    ):
        parse_ruleset("kotor3/main-deck=infinite")


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            "kotor1/infinite",
            "'infinite' is not a ruleset setting; write key=value with a key among "
            "card-pool, main-deck",
        ),
        # (it said "target must be a whole number from 1 to 50", of "21/hand-size=3")
        (
            "kotor1/target=21/hand-size=3",
            "'target=21/hand-size=3': settings are separated by commas, not '/': write "
            "kotor1/target=21,hand-size=3",
        ),
    ],
)
def test_a_malformed_setting_is_refused_saying_what_to_write(spec: str, said: str) -> None:
    with pytest.raises(RulesetError, match=said):
        parse_ruleset(spec)


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(RulesetError, match="'deck=shared' is not a ruleset setting"):
        parse_ruleset("kotor1/deck=shared")


def test_an_unknown_choice_is_refused_with_the_choices() -> None:
    with pytest.raises(
        RulesetError, match="'main-deck=endless': main-deck is one of shared, per-set, infinite"
    ):
        parse_ruleset("kotor1/main-deck=endless")


def test_a_setting_given_twice_is_refused_not_overwritten() -> None:
    # (a variant written by hand, "main-deck=infinite,...,main-deck=per-set", kept only the
    # last: which one the user meant is not for the parser to guess)
    with pytest.raises(
        RulesetError, match="'Main_Deck=per-set': main-deck is set twice in 'kotor1/main-deck="
    ) as raised:
        parse_ruleset("kotor1/main-deck=infinite,target=21,Main_Deck=per-set")
    assert raised.value.token == "Main_Deck=per-set"
    assert parse_ruleset("kotor1/main-deck=infinite,target=21").target == 21


def test_a_number_setting_needs_a_whole_number_in_its_range() -> None:
    with pytest.raises(
        RulesetError, match="'target=twenty': target must be a whole number from 1 to 50"
    ):
        parse_ruleset("kotor1/target=twenty")
    with pytest.raises(RulesetError, match="'target=0': target must be a whole number from 1"):
        parse_ruleset("kotor1/target=0")
    with pytest.raises(RulesetError, match="'target=1000': target must be a whole number from 1"):
        parse_ruleset("kotor1/target=1000")


@pytest.mark.parametrize(
    "value",
    [
        "\N{SUPERSCRIPT TWO}",
        "\N{ARABIC-INDIC DIGIT TWO}\N{ARABIC-INDIC DIGIT ZERO}",
        "２０",
        "1_5",
        " +15",
        "9" * 5000,
    ],
)
def test_a_number_setting_takes_ascii_digits_only(value: str) -> None:
    """``str.isdigit()`` accepts these; ``int()`` refuses or misreads them."""
    with pytest.raises(RulesetError, match="target must be a whole number from 1 to 50"):
        parse_ruleset(f"kotor1/target={value}")


@pytest.mark.parametrize(
    ("setting", "allowed"),
    [
        ("side-deck-size=999", "from 1 to 200"),
        ("side-deck-size=999,hand-size=999", "from 1 to 200"),
        ("hand-size=0", "from 1 to 200"),
        ("table-size=1", "from 2 to 20"),
        ("table-size=100", "from 2 to 20"),
        ("sets-to-win=10", "from 1 to 9"),
        ("sets-to-win=0", "from 1 to 9"),
    ],
)
def test_every_number_setting_has_a_range_that_the_message_names(
    setting: str, allowed: str
) -> None:
    with pytest.raises(RulesetError, match=allowed):
        parse_ruleset(f"kotor1/{setting}")


def test_a_long_setting_is_shortened_in_the_message() -> None:
    with pytest.raises(RulesetError) as caught:
        parse_ruleset("kotor1/target=" + "9" * 5000)
    assert len(str(caught.value)) < 200


def test_a_ruleset_built_in_code_is_held_to_the_same_ranges() -> None:
    with pytest.raises(RulesetError, match="target must be from 1 to 50"):
        dataclasses.replace(KOTOR1, target=1000)


def test_a_hand_larger_than_the_side_deck_is_refused() -> None:
    with pytest.raises(
        RulesetError,
        match="'kotor1/hand-size=11': the hand size must be from 1 to the side-deck size \\(10\\)",
    ):
        parse_ruleset("kotor1/hand-size=11")


def test_a_ruleset_starts_from_a_preset() -> None:
    with pytest.raises(
        RulesetError, match="a ruleset starts from a preset \\(kotor1, kotor2\\), not 'kotor3'"
    ):
        dataclasses.replace(KOTOR1, name="kotor3")


def test_a_ruleset_is_frozen_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        KOTOR1.target = 21  # type: ignore[misc]
    assert {parse_ruleset("kotor2"): "x"}[KOTOR2] == "x"


def test_every_field_is_listed_with_its_meaning() -> None:
    rows = KOTOR2.fields()
    keys = [key for key, _, _ in rows]
    assert keys == [
        "card-pool",
        "main-deck",
        "nine-cards",
        "first-player",
        "tiebreaker",
        "flip-targets",
        "side-deck-size",
        "hand-size",
        "table-size",
        "target",
        "sets-to-win",
    ]
    assert all(meaning for _, _, meaning in rows)
    assert dict((key, value) for key, value, _ in rows)["nine-cards"] == "win"


def test_every_ruleset_field_has_a_docstring() -> None:
    source = Path(rules_module.__file__).read_text(encoding="utf-8")
    for field in dataclasses.fields(Ruleset):
        declaration = f"    {field.name}: "
        after = source[source.index(declaration) :].splitlines()[1].strip()
        assert after.startswith('"""'), f"{field.name} has no docstring"
