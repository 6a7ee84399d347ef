"""The public API (pazaak_cli/api.py): every name imports, docs/api.md lists exactly them, and
the page's example runs."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from pathlib import Path

import pytest

from pazaak_cli import api

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
TEXT = DOC.read_text(encoding="utf-8")


def test_every_public_name_imports_and_is_listed_once() -> None:
    assert len(set(api.__all__)) == len(api.__all__)
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert missing == []
    assert len(api.__all__) >= 60


def test_the_page_lists_exactly_the_public_names() -> None:
    listed = re.findall(r"^- `([A-Za-z_][A-Za-z0-9_]*)`:", TEXT, re.MULTILINE)
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert sorted(listed) == sorted(api.__all__)


def test_nothing_else_is_public_in_the_module() -> None:
    """A name imported into api.py but not in __all__ would look public by accident."""
    extra = {
        name
        for name in vars(api)
        if not name.startswith("_") and name not in api.__all__ and name != "annotations"
    }
    assert extra == set()


def test_the_example_of_the_page_runs() -> None:
    code = re.search(r"```python\n(.*?)```", TEXT, re.DOTALL)
    assert code is not None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.group(1), str(DOC), "exec"), {})
    assert re.search(r"(exact|sampled)$", printed.getvalue().strip())


# What a program passing a wrong value is told ------------------------------------------------


def test_text_where_cards_are_asked_for_is_refused_saying_how_to_make_cards() -> None:
    rng = random.Random(1)
    with pytest.raises(api.DeckError, match="not the text 'kotor1-strong': sample_deck"):
        api.deal_hand("kotor1-strong", api.KOTOR1, rng)  # type: ignore[arg-type]
    with pytest.raises(api.DeckError, match="holds F2/4, not in the kotor1 card pool"):
        api.deal_hand(api.sample_deck("kotor2-hard").cards, api.KOTOR1, rng)
    with pytest.raises(api.CardError, match="holds '\\+1', not a card: parse_cards"):
        api.new_match(api.KOTOR1, (["+1"] * 4, ()))  # type: ignore[list-item]
    with pytest.raises(api.IllegalActionError, match="a match needs two hands, not 1 hand"):
        api.new_match(api.KOTOR1, (api.parse_cards("+1"),))  # type: ignore[arg-type]
    state = api.new_match(api.KOTOR1, ((), ()))
    with pytest.raises(api.IllegalActionError, match="there is no seat 2: the seats are 0 and 1"):
        state.observed_by(2)


def test_an_answer_request_takes_names_and_refuses_what_cannot_be() -> None:
    """(No question is needed to be refused: ``None`` stands for one.)"""
    with pytest.raises(api.PazaakError, match="unknown opponent model 'nobody'"):
        api.AnswerRequest(None, model="nobody")  # type: ignore[arg-type]
    assert api.AnswerRequest(None, model="kotor").model.name == "kotor"  # type: ignore[arg-type]
    for hands in (0, -3, 1, 2.5, True):
        with pytest.raises(api.PazaakError, match="hands is a whole number of 2 or more"):
            api.AnswerRequest(None, hands=hands)  # type: ignore[arg-type]
    for seconds in ("x", float("nan"), -1.0, float("inf")):
        with pytest.raises(api.PazaakError, match="a time budget is a number of seconds"):
            api.TimeBudget(seconds)  # type: ignore[arg-type]


def test_a_session_never_replaces_a_file_that_is_not_a_save(tmp_path: Path) -> None:
    deck = tmp_path / "my.deck"
    deck.write_text("+1 +2 +3 +4 +5 +6 -1 -2 -3 -4\n", encoding="utf-8")
    before = deck.read_bytes()
    cards = api.sample_deck("kotor1-starter").cards
    seats = (api.Seat("human", "You", "kotor1-starter", cards),) * 2
    session = api.MatchSession.start(api.KOTOR1, seats, seed=3, wager=0, player_factory=None)
    with pytest.raises(api.SaveFileError, match="is not a pazaak save file"):
        session.save(deck)
    assert deck.read_bytes() == before
    session.save(str(tmp_path / "match.json"))  # (a path as text, too)
    session.save(tmp_path / "match.json")  # (its own save: replaced)
    assert json.loads((tmp_path / "match.json").read_text(encoding="utf-8"))["seed"] == 3


def test_make_player_refuses_a_decks_name_where_its_cards_are_asked_for() -> None:
    """A deck's name was taken as its letters: ``set-expert`` failed with an AttributeError,
    ``expert`` played on without a prior, and the others never looked."""
    rng = random.Random(1)
    cards = api.sample_deck("kotor1-strong").cards
    for name in ("kotor", "expert", "set-expert"):
        with pytest.raises(api.DeckError, match="opponent_deck is a side deck's cards, not 'k"):
            api.make_player(
                name,
                ruleset=api.KOTOR1,
                rng=rng,
                own_deck=cards,
                opponent_deck="kotor1-strong",  # type: ignore[arg-type]
            )
    with pytest.raises(api.CardError, match="own_deck holds '\\+1', not a card: parse_cards"):
        api.make_player(
            "kotor",
            ruleset=api.KOTOR1,
            rng=rng,
            own_deck=["+1"] * 10,  # type: ignore[list-item]
            opponent_deck=None,
        )
    player = api.make_player(
        "set-expert", ruleset=api.KOTOR1, rng=rng, own_deck=cards, opponent_deck=cards
    )
    assert callable(player.choose)


def test_an_answer_request_refuses_a_decks_name_where_its_cards_are_asked_for() -> None:
    """`opponent_deck="kotor1-strong"` was read letter by letter: "holds k, which is not in
    the kotor1 card pool"."""
    with pytest.raises(api.DeckError, match=r"^opponent_deck is a side deck's cards, not 'k"):
        api.AnswerRequest(None, opponent_deck="kotor1-strong")  # type: ignore[arg-type]
