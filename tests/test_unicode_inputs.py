"""Every parser, fed arbitrary Unicode: only the library's clean errors come out.

Arbitrary text of every Unicode category (lone surrogates too), and targeted text that mixes the
parsers' own syntax with what broke them before: digits of other scripts that ``str.isdigit()``
accepts and ``int()`` refuses or misreads (``²``, ``٣``, ``１``), terminal escape codes, numbers
of thousands of digits, and deep nesting. A parser may accept the input or refuse it with a
:class:`~pazaak_cli.engine.errors.PazaakError` (a Click parameter type: with
``click.BadParameter``); any other exception is a bug that would reach the user as a traceback.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pazaak_cli.commands.common import RULESET, Seconds
from pazaak_cli.commands.position_options import MAIN_CARDS, SetsType
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.decks import check_deck, parse_deck, read_deck
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import Phase
from pazaak_cli.engine.notation import format_position, parse_position, parse_table
from pazaak_cli.engine.numbers import parse_in_range, parse_signed, parse_whole
from pazaak_cli.engine.position_builder import build_question
from pazaak_cli.engine.rules import KOTOR1, FlipTargets, parse_ruleset
from pazaak_cli.runtime.savefile import FORMAT, VERSION, read_save
from pazaak_cli.tools.session import HUMAN, MatchSession, Seat, load_session, parse_command

FUZZ = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

OTHER_DIGITS = [
    "\N{SUPERSCRIPT TWO}",
    "\N{SUPERSCRIPT ONE}",
    "\N{SUBSCRIPT FIVE}",
    "\N{ARABIC-INDIC DIGIT THREE}",
    "\N{EXTENDED ARABIC-INDIC DIGIT FIVE}",
    "\N{DEVANAGARI DIGIT ONE}",
    "\N{BENGALI DIGIT SEVEN}",
    "\N{THAI DIGIT NINE}",
    "\N{FULLWIDTH DIGIT ONE}",
    "\N{FULLWIDTH DIGIT ZERO}",
    "\N{MATHEMATICAL BOLD DIGIT TWO}",
    "\N{CIRCLED DIGIT ONE}",
    "\N{MINUS SIGN}",
    "\N{PLUS-MINUS SIGN}",
]
ESCAPES = ["\x1b[2J", "\x1b]0;owned\x07", "\x00", "\r", "\t", "\u202e", "\ufeff", "\udc80"]
SYNTAX = ["+", "-", "±", "+-", "*", "/", ",", " ", "=", "?", "T", "D", "F", "S", "p", "1", "2"]
SYNTAX += ["10", "4", "6", "kotor1", "kotor2", "target", "hand-size", "main-deck", "1/2", "$$"]

any_text = st.text(alphabet=st.characters(blacklist_categories=()), max_size=60)
"""Arbitrary text, every category (control characters and lone surrogates included)."""
huge_number = st.integers(19, 6000).map(lambda n: "9" * n) | st.integers(10**17, 10**40).map(str)
piece = st.one_of(
    st.sampled_from(OTHER_DIGITS),
    st.sampled_from(ESCAPES),
    st.sampled_from(SYNTAX),
    huge_number,
    st.integers(-20, 1000).map(str),
    st.characters(blacklist_categories=()),
)
tricky_text = st.lists(piece, max_size=8).map("".join)
"""The parsers' own syntax mixed with other scripts' digits, escape codes and huge numbers."""
fuzz = any_text | tricky_text


def clean(call: Any, *args: Any) -> Any:
    """Call a parser; a refusal must be a PazaakError (or a Click parameter error)."""
    try:
        return call(*args)
    except (PazaakError, click.BadParameter):
        return None


# -- numbers, cards, rulesets ---------------------------------------------------------------------


@FUZZ
@given(text=fuzz)
def test_numbers_are_ascii_digits_only(text: str) -> None:
    for number in (parse_whole(text), parse_in_range(text, 0, 99)):
        assert number is None or (text.isascii() and text.isdigit())
    signed = parse_signed(text)
    assert signed is None or (text[1:].isascii() and text[1:].isdigit())


@FUZZ
@given(text=fuzz)
def test_cards_refuse_cleanly(text: str) -> None:
    clean(Card.parse, text)
    clean(parse_cards, text)


@FUZZ
@given(
    value=fuzz,
    key=st.sampled_from(
        [
            "target",
            "hand-size",
            "side-deck-size",
            "table-size",
            "sets-to-win",
            "main-deck",
            "card-pool",
            "nine-cards",
        ]
    ),
)
def test_ruleset_specs_refuse_cleanly(value: str, key: str) -> None:
    for spec in (value, f"kotor1/{key}={value}", f"kotor2/{value}"):
        ruleset = clean(parse_ruleset, spec)
        if ruleset is not None:
            assert parse_ruleset(ruleset.spec) == ruleset
        clean(RULESET.convert, spec, None, None)


# -- decks ----------------------------------------------------------------------------------------


@FUZZ
@given(body=fuzz, header=fuzz)
def test_deck_files_never_raise(body: str, header: str) -> None:
    """The deck reader reports every problem and never raises, whatever the text."""
    for text in (body, f"ruleset: {header}\nname: {header}\n{body}", f"ruleset: kotor1/{header}"):
        parse_deck(text, "fuzz.deck")
        read_deck(text, "fuzz.deck")
        check_deck(text.encode("utf-8", "surrogatepass"), "fuzz.deck")


# -- positions, tables and the --sets option ------------------------------------------------------

VALID_POSITION = "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1"


@FUZZ
@given(text=fuzz, field=st.integers(0, 9))
def test_positions_refuse_cleanly(text: str, field: int) -> None:
    clean(parse_position, text)
    fields = VALID_POSITION.split()
    fields[field] = text.replace(" ", "") or "?"
    state = clean(parse_position, " ".join(fields))
    if state is not None:
        assert parse_position(format_position(state)) == state
    clean(parse_table, text, FlipTargets.ALL_SIGNS)


@FUZZ
@given(mine=fuzz | st.integers(0, 10**30).map(str), theirs=fuzz | huge_number)
def test_sets_refuse_cleanly_and_at_once(mine: str, theirs: str) -> None:
    sets = clean(SetsType().convert, f"{mine}-{theirs}", None, None)
    if sets is not None:
        clean(
            lambda: build_question(
                KOTOR1,
                table=parse_table("5", FlipTargets.ALL_SIGNS),
                hand=(),
                opp_table=parse_table("10", FlipTargets.ALL_SIGNS),
                opp_stood=True,
                opp_hand=(),
                sets=sets,
            )
        )
    clean(MAIN_CARDS.convert, mine, None, None)
    clean(Seconds(0.0, 10.0).convert, mine, None, None)


# -- the play command line ------------------------------------------------------------------------


def _session(seed: int = 3) -> MatchSession:
    deck = parse_cards("+1 -2 ±3 +4 -5 ±6 +2 -3 ±4 +5")
    seats = (Seat(HUMAN, "You", "d", deck), Seat(HUMAN, "Friend", "d", deck))
    session = MatchSession.start(KOTOR1, seats, seed=seed, wager=0, player_factory=None)
    while session.human_to_act() is None:
        session.advance()
    return session


_TURN = _session()


@FUZZ
@given(line=fuzz, verb=st.sampled_from(["p", "play", "P", "e", "s", "h", "state", ""]))
def test_play_commands_refuse_cleanly(line: str, verb: str) -> None:
    seat = _TURN.human_to_act()
    assert seat is not None and _TURN.state.phase is Phase.AFTER_DRAW
    view = _TURN.view(seat)
    for text in (line, f"{verb} {line}", f"p 1 {line}", f"p {line} +"):
        clean(parse_command, text, view)


# -- saves ----------------------------------------------------------------------------------------


def _document() -> dict[str, Any]:
    session = _session(seed=5)
    rng = random.Random(1)
    for _ in range(12):
        if session.finished:
            break
        seat = session.human_to_act()
        if seat is None:
            session.advance()
        else:
            actions = [a for a in session.state.legal_actions() if str(a) != "forfeit"]
            session.apply(actions[rng.randrange(len(actions))])
    return {"format": FORMAT, "version": VERSION, **session.to_document()}


_SAVE = _document()


@FUZZ
@given(data=st.binary(max_size=200) | fuzz.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_bytes_as_a_save_are_refused_cleanly(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    clean(read_save, path)
    clean(load_session, path, None)
    assert path.read_bytes() == data


@FUZZ
@given(
    field=st.sampled_from(["ruleset", "seed", "wager", "moves", "hands", "position", "seats"]),
    junk=fuzz | huge_number | st.recursive(st.none() | fuzz, st.lists, max_leaves=5),
)
def test_any_field_of_a_save_replaced_by_text_is_refused_cleanly(
    tmp_path: Path, field: str, junk: Any
) -> None:
    document = json.loads(json.dumps(_SAVE))
    if field in ("moves", "hands") and isinstance(junk, str):
        document[field][0] = junk
    else:
        document[field] = junk
    path = tmp_path / "fuzz.json"
    text = json.dumps(document, ensure_ascii=False)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = path.read_bytes()
    clean(load_session, path, None)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "text",
    [
        "[" * 50_000 + "]" * 50_000,
        '{"format": "pazaak-match", "version": 1, "seed": ' + "9" * 5000 + "}",
        '{"format": "pazaak-match", "version": ' + "9" * 5000 + "}",
        '{"format": "pazaak-match", "version": 1, "ruleset": "kotor1/target=\\u00b2"}',
    ],
    ids=[
        "deep nesting",
        "a seed of 5000 digits",
        "a version of 5000 digits",
        "ruleset with \u00b2",
    ],
)
def test_saves_that_python_cannot_read_are_refused_cleanly(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PazaakError):
        load_session(path, None)
