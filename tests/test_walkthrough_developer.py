"""A new developer's walkthrough of the three surfaces (the Python API, the engine protocol, the
RL environments) and the engine's value types: each test is a problem met there, failing before
its fix. Small positions only: every test runs in well under a second or two."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

from pazaak_cli import api
from pazaak_cli.engine.rules import MainDeck
from pazaak_cli.tools.engine_protocol import Engine

HANDS = (api.parse_cards("+1 -2 ±3 +4"), api.parse_cards("+1 +2 +3 +4"))


def decision() -> api.MatchState:
    """Player 1 has drawn a 5 at the start of the first set."""
    return api.new_match(api.KOTOR1, HANDS).child(api.Open(0)).child(api.Draw(5))


# The API: hands, enums, actions, players, repr ---------------------------------------------


def test_new_match_takes_0_to_hand_size_cards_and_an_empty_hand_plays_draws_only() -> None:
    """Decided and documented (docs/api.md, new_match's docstring): fewer cards than dealt is a
    position to analyse; an empty hand is a player whose hand cards are all played."""
    state = api.new_match(api.KOTOR1, ((), HANDS[1][:2])).child(api.Open(0)).child(api.Draw(5))
    assert state.legal_actions() == (api.END_TURN, api.STAND, api.FORFEIT)
    assert api.parse_position(api.format_position(state)) == state
    with pytest.raises(api.IllegalActionError, match=r"holds 5 cards; the ruleset deals 4 \(deal"):
        api.new_match(api.KOTOR1, ((), api.parse_cards("+1 +2 +3 +4 +5")))


def test_an_enum_built_from_a_value_it_lacks_names_the_choices() -> None:
    """``Phase("x")`` was Python's bare "'x' is not a valid Phase"."""
    with pytest.raises(api.PazaakError, match=r"^unknown phase 'x'; choose one of set over, bef"):
        api.Phase("x")
    with pytest.raises(api.PazaakError, match=r"^unknown main deck 'y'; choose one of shared,"):
        MainDeck("y")
    with pytest.raises(api.PazaakError, match=r"^unknown card kind 'z'") as caught:
        api.CardKind("z")
    assert caught.value.token == "z"
    assert api.Phase("after draw") is api.Phase.AFTER_DRAW


def test_an_objective_of_no_name_names_the_choices() -> None:
    with pytest.raises(api.PazaakError, match=r"^unknown objective 'win'; choose one of set, ma"):
        api.Objective("win")


def test_the_mixin_works_for_a_string_enum_as_objective_would_use_it() -> None:
    from enum import StrEnum

    from pazaak_cli.engine.errors import NamedChoices

    class Goal(NamedChoices, StrEnum):
        SET = "set"
        MATCH = "match"

    with pytest.raises(api.PazaakError, match=r"^unknown goal 'win'; choose one of set, match$"):
        Goal("win")
    assert Goal("set") == "set" and Goal("match") is Goal.MATCH


def test_an_actions_numbers_are_whole_numbers_and_the_state_stays_writable() -> None:
    """``Play(0, +1, 1.0)`` was taken: the table then held 1.0 and format_position failed with
    "Unknown format code 'd'"; a numpy integer leaked into the totals (not JSON)."""
    state = decision()
    plus_one = api.Card.parse("+1")
    for bad in (1.0, True):
        with pytest.raises(api.IllegalActionError, match=r"a Play's value is a whole number, n"):
            state.child(api.Play(0, plus_one, bad))  # type: ignore[arg-type]
    with pytest.raises(api.IllegalActionError, match=r"a Draw's value is a whole number"):
        api.new_match(api.KOTOR1, HANDS).child(api.Open(0)).child(api.Draw(5.0))  # type: ignore[arg-type]
    with pytest.raises(api.IllegalActionError, match=r"an Open's player is a whole number"):
        api.new_match(api.KOTOR1, HANDS).child(api.Open(True))
    played = state.child(api.Play(np.int64(0), plus_one, np.int64(1)))  # type: ignore[arg-type]
    drawn = api.new_match(api.KOTOR1, HANDS).child(api.Open(0)).child(api.Draw(np.int8(5)))  # type: ignore[arg-type]
    for child in (played, drawn):
        assert type(child.sides[0].total) is int
        json.dumps([child.sides[0].total, [card.value for card in child.sides[0].table]])
        assert api.parse_position(api.format_position(child)) == child
    assert played == state.child(api.Play(0, plus_one, 1))


def test_a_play_of_a_cards_text_or_a_negative_index_says_what_is_wrong() -> None:
    """Was "hand card number 1 is +1, not +1" and "there is no hand card number 0"."""
    state = decision()
    with pytest.raises(api.CardError, match=r"a Play's card is a Card, not '\+1': Card.parse"):
        state.child(api.Play(0, "+1", 1))  # type: ignore[arg-type]
    with pytest.raises(api.IllegalActionError, match=r"no hand card at index -1: a Play's index"):
        state.child(api.Play(-1, api.Card.parse("+4"), 4))


def test_a_cards_number_is_a_whole_number() -> None:
    """``Card(CardKind.PLUS, 3.0)`` was a card written '+3.0'; ``True`` one written '+True'."""
    for bad in (3.0, True):
        with pytest.raises(api.CardError, match="a card's number is a whole number"):
            api.Card(api.CardKind.PLUS, bad)  # type: ignore[arg-type]
    with pytest.raises(api.CardError, match="a card's kind is a CardKind, not 'plus'"):
        api.Card("plus", 3)  # type: ignore[arg-type]
    assert api.Card(api.CardKind.PLUS, np.int64(3)) == api.Card.parse("+3")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["kotor", "heuristic", "stand17", "random", "expert"])
def test_a_player_refuses_a_state_that_is_not_its_decision(name: str) -> None:
    """At a chance node kotor, heuristic and stand17 answered EndTurn(), random a chance action
    (Open) or a crash ("empty range for randrange()"); another seat's view was an
    AssertionError."""
    deck = api.sample_deck("kotor1-strong").cards
    player = api.make_player(
        name, ruleset=api.KOTOR1, rng=random.Random(1), own_deck=deck, opponent_deck=deck
    )
    start = api.new_match(api.KOTOR1, HANDS)
    state = decision()
    for wrong in (start, start.child(api.Open(0)), state.child(api.FORFEIT)):
        with pytest.raises(api.IllegalActionError, match="a player chooses at a decision"):
            player.choose(wrong)
    with pytest.raises(api.HiddenInformationError, match=r"its hand is hidden in this view"):
        player.choose(state.observed_by(1))
    assert player.choose(state.observed_by(0)) in state.legal_actions()


def test_a_ruleset_prints_as_the_notation_that_reads_it_back() -> None:
    """Its repr was the fields, 2,000 characters of card pool."""
    rules = api.parse_ruleset("kotor2/main-deck=infinite")
    assert repr(rules) == "parse_ruleset('kotor2/main-deck=infinite')"
    assert eval(repr(rules), {"parse_ruleset": api.parse_ruleset}) == rules


def test_a_position_without_ten_fields_is_quoted() -> None:
    with pytest.raises(api.NotationSyntaxError, match=r"this one has 1: 'garbage' \(docs") as got:
        api.parse_position("garbage")
    assert got.value.token == "garbage"


# The engine protocol -------------------------------------------------------------------------


def ask(engine: Engine, **request: Any) -> dict[str, Any]:
    reply = engine.reply({"id": 1, **request})
    assert reply["id"] == 1
    return reply


KNOWN = "kotor1/main-deck=infinite 10,9 10 +1 -1 -- - 4444444444 a1 1"
"""Both hands known, the set nearly over: its exact answer takes a tenth of a second."""


def test_a_stateless_advise_refuses_a_deck_for_a_hand_the_position_shows() -> None:
    """`opp_deck` was silently ignored where the opponent's hand is known."""
    engine = Engine()
    for position, shown in ((KNOWN, "(-1)"), (KNOWN.replace(" -1 ", " - "), "(-)")):
        reply = ask(engine, cmd="advise", position=position, opp_deck="kotor1-strong", time=0)
        assert reply["error"]["code"] == "bad_request"
        assert (
            "field 'opp_deck' is the deck a hidden hand is dealt from, but the position shows "
            f"seat 2's hand {shown}"
        ) in reply["error"]["message"]
    assert ask(engine, cmd="advise", position=KNOWN, time=0)["ok"]


def test_a_stateless_advise_refuses_a_seat_that_is_not_the_movers() -> None:
    """`seat` was silently ignored with a `position`: the advice was for the other seat."""
    engine = Engine()
    reply = ask(engine, cmd="advise", position=KNOWN, seat=2, time=0)
    assert reply["error"] == {
        "code": "not_your_turn",
        "message": "field 'seat' is 2, but in the position seat 1 is to move: the advice is "
        "always for the seat to move (leave 'seat' out)",
    }
    assert ask(engine, cmd="advise", position=KNOWN, seat=1, time=0)["result"]["exactness"] == (
        "exact"
    )


def test_an_end_stand_or_forfeit_naming_a_card_is_refused_and_changes_nothing() -> None:
    """`{"move": "end", "slot": 3}` ended the turn, the slot silently ignored."""
    engine = Engine()
    hands = [["+1", "+2", "+3", "+4"], ["-1", "-2", "-3", "-4"]]
    game = ask(engine, cmd="new", hands=hands, seed=2)["result"]["game"]
    before = ask(engine, cmd="view", game=game, seat=1)["result"]
    for kind, extra, named in (
        ("end", {"slot": 3}, "'slot'"),
        ("stand", {"card": "+1", "value": 1}, "'card' and 'value'"),
        ("forfeit", {"slot": 1}, "'slot'"),
    ):
        reply = ask(engine, cmd="move", game=game, move=kind, **extra)
        assert reply["error"]["code"] == "bad_request"
        assert reply["error"]["message"].startswith(
            f"{'an' if kind == 'end' else 'a'} '{kind}' move takes no {named}: only 'play' names"
        )
    assert ask(engine, cmd="view", game=game, seat=1)["result"] == before
    assert ask(engine, cmd="move", game=game, move="end", slot=None)["ok"]  # (null: not given)


def test_a_bad_card_field_is_named() -> None:
    engine = Engine()
    hands = [["+1", "+2", "+3", "+4"], ["-1", "-2", "-3", "-4"]]
    game = ask(engine, cmd="new", hands=hands, seed=2)["result"]["game"]
    reply = ask(engine, cmd="move", game=game, move="play", slot=1, card="+9")
    assert reply["error"] == {
        "code": "bad_card",
        "message": "field 'card': '+9' is not a side card: the number must be 1 to 6",
    }


# The RL environment --------------------------------------------------------------------------


def test_the_environments_seat_is_a_whole_number() -> None:
    """``seat=2.0`` was taken, and ``reset()`` failed on a float index."""
    rl = pytest.importorskip("pazaak_cli.rl")
    for bad in (2.0, True, "1"):
        with pytest.raises(api.PazaakError, match="the agent's seat is 1 or 2, not"):
            rl.PazaakEnv(seat=bad)
    env = rl.PazaakEnv(seat=np.int64(2), opponent="stand17")
    assert env.seat == 1 and type(env.seat) is int
