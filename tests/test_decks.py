"""The deck library: the file format, located problems, file checks and the sample decks."""

from __future__ import annotations

import importlib.resources
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine import decks
from pazaak_cli.engine.cards import CARD_SYNTAX, Card, all_cards, parse_cards
from pazaak_cli.engine.decks import (
    MAX_DECK_BYTES,
    MAX_PROBLEMS,
    Problem,
    card_counts,
    default_deck,
    load_deck,
    read_deck,
    sample_decks,
    sample_names,
)
from pazaak_cli.engine.errors import DeckError, InputError
from pazaak_cli.engine.rules import KOTOR1, KOTOR1_POOL, KOTOR2, KOTOR2_POOL, PRESETS, parse_ruleset

STARTER = "+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"

GAME_DECKS = {
    # docs/rules.md §8 (pazaakdecks.2da): sample name -> (ruleset, cards of the row)
    "kotor1-starter": ("kotor1", "+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"),  # row 0
    "kotor1-average": ("kotor1", "+3 -3 +4 -4 +5 -5 +5 -3 +4 -5"),  # row 1
    "kotor1-strong": ("kotor1", "±6 +4 -4 -2 +3 -2 -3 +3 +2 ±1"),  # row 2
    "kotor1-strongest": ("kotor1", "±3 ±3 ±2 ±2 ±4 ±4 ±2 ±2 ±1 ±1"),  # row 3
    "kotor2-very-easy": ("kotor2", "+3 -3 +4 -4 +5 -5 +5 -3 +4 -5"),  # row 10
    "kotor2-easy": ("kotor2", "+1 +2 +3 +4 +5 -6 -4 -3 -2 -1"),  # row 11
    "kotor2-average": ("kotor2", "±1 ±2 +3 +4 +5 +6 ±5 -6 ±4 D"),  # row 12
    "kotor2-hard": ("kotor2", "F2/4 F3/6 ±4 ±6 D T ±1/2 ±3 ±6 F2/4"),  # row 13
    "kotor2-very-hard": ("kotor2", "D D F2/4 F2/4 F3/6 F3/6 T T ±1/2 ±1/2"),  # row 14
}


def problems_of(text: str | bytes, ruleset: str | None = None) -> list[str]:
    deck, problems = read_deck(text, "d.deck", parse_ruleset(ruleset) if ruleset else None)
    assert (deck is None) == bool(problems)
    return [str(problem) for problem in problems]


# --- the sample decks -----------------------------------------------------------------------


def test_every_game_deck_of_rules_section_8_is_a_sample_with_its_cards() -> None:
    for name, (ruleset, cards) in GAME_DECKS.items():
        deck = load_deck(name)
        assert deck.cards == parse_cards(cards), name
        assert deck.ruleset == ruleset, name
        assert len(deck.cards) == 10, name


@pytest.mark.parametrize("name", sample_names())
def test_every_sample_deck_is_valid_for_its_header_ruleset(name: str) -> None:
    path = Path(__file__).resolve().parent.parent / "sample_decks" / f"{name}.deck"
    deck, problems = read_deck(path.read_bytes(), str(path))
    assert problems == []
    assert deck is not None
    assert deck.name == name, "the name: header matches the file name"
    assert deck.ruleset in PRESETS, "every sample says which game it is for"
    assert deck.fits(PRESETS[deck.ruleset])
    assert deck.description and "\n" not in deck.description
    assert len(deck.description) <= 90, "one short line for `pazaak decks`"


def test_sample_decks_lists_every_file_of_sample_decks_folder() -> None:
    folder = Path(__file__).resolve().parent.parent / "sample_decks"
    assert {p.stem for p in folder.glob("*.deck")} == set(sample_names())
    assert [d.name for d in sample_decks()] == sorted(sample_names())
    assert {d.source for d in sample_decks()} == {f"sample:{n}" for n in sample_names()}


def test_there_are_strong_decks_for_each_preset_beyond_the_game_decks() -> None:
    extra = [d for d in sample_decks() if d.name not in GAME_DECKS]
    for preset in ("kotor1", "kotor2"):
        assert len([d for d in extra if d.ruleset == preset]) >= 3, preset


def test_kotor2_decks_with_gold_cards_are_invalid_for_kotor1() -> None:
    with pytest.raises(DeckError, match=r"sample:kotor2-hard:6:1: 'F2/4' \(flip 2&4\) is a KOTOR"):
        load_deck("kotor2-hard", KOTOR1)


def test_default_deck_is_the_starter_deck_for_both_presets() -> None:
    for ruleset in (KOTOR1, KOTOR2):
        assert default_deck(ruleset).name == "kotor1-starter"
        assert str(default_deck(ruleset)) == STARTER


def test_default_deck_refuses_a_ruleset_whose_deck_size_it_does_not_have() -> None:
    with pytest.raises(DeckError, match="side-deck-size=12"):
        default_deck(parse_ruleset("kotor1/side-deck-size=12"))


def test_samples_are_found_in_the_repository_when_the_package_data_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_package(name: str) -> object:
        raise ModuleNotFoundError(name)

    decks._sample_files.cache_clear()
    monkeypatch.setattr(importlib.resources, "files", no_package)
    try:
        assert "kotor1-starter" in decks._sample_files()
    finally:
        monkeypatch.undo()
        decks._sample_files.cache_clear()


# --- the format -----------------------------------------------------------------------------


def test_cards_may_be_separated_by_spaces_commas_and_new_lines() -> None:
    deck, problems = read_deck("+1,+1 +2\n+2,, +3\t+3\n\n+4 ,+4\n+5\n+5\n", "d.deck")
    assert problems == []
    assert deck is not None and str(deck) == STARTER


def test_bom_and_crlf_and_cr_line_ends_are_accepted() -> None:
    for data in (
        b"\xef\xbb\xbfname: bom\r\n+1 +1 +2 +2 +3\r\n+3 +4 +4 +5 +5\r\n",
        "\ufeffname: bom\r+1 +1 +2 +2 +3\r+3 +4 +4 +5 +5",
    ):
        deck, problems = read_deck(data, "d.deck")
        assert problems == [], data
        assert deck is not None and deck.name == "bom" and str(deck) == STARTER


def test_a_bom_does_not_shift_the_columns() -> None:
    assert problems_of(b"\xef\xbb\xbf+1 x\n")[0].startswith("d.deck:1:4: 'x' is not a card")


def test_hash_starts_a_comment_anywhere_on_a_line() -> None:
    text = "# my deck\n+1 +1 +2 +2 +3 # the small ones\n+3 +4 +4 +5 +5#no space needed\n# 7 8 9\n"
    deck, problems = read_deck(text, "d.deck")
    assert problems == [] and deck is not None and str(deck) == STARTER


def test_headers_set_name_ruleset_and_description_and_any_case_works() -> None:
    text = (
        "Name: gold\nRULESET: kotor2  # KOTOR II\ndescription: a: colon\n"
        "D D F2/4 F2/4 F3/6\nF3/6 T T VV VV\n"
    )
    deck, problems = read_deck(text, "dir/gold-file.deck")
    assert problems == []
    assert deck is not None
    assert (deck.name, deck.ruleset, deck.description) == ("gold", "kotor2", "a: colon")
    assert deck.source == "dir/gold-file.deck"


def test_without_a_name_header_the_name_is_the_file_stem() -> None:
    deck, _ = read_deck(STARTER, "some/dir/my-deck.deck")
    assert deck is not None and deck.name == "my-deck" and deck.ruleset is None


def test_every_card_notation_of_rules_section_1_is_read() -> None:
    spellings = {
        "+3": "+3",
        "-6": "-6",
        "−2": "-2",
        "±4": "±4",
        "+-4": "±4",
        "*4": "±4",
        "±1/2": "±1/2",
        "+-1/2": "±1/2",
        "VV": "±1/2",
        "F2/4": "F2/4",
        "F1": "F2/4",
        "F3/6": "F3/6",
        "F2": "F3/6",
        "D": "D",
        "$$": "D",
        "T": "T",
        "TT": "T",
        "±1T": "T",
        "+-1T": "T",
    }
    for token, canonical in spellings.items():
        text = f"ruleset: kotor2\n{token} " + " ".join(["+1"] * 9)
        deck, problems = read_deck(text, "d.deck")
        assert problems == [], token
        assert deck is not None and str(deck.cards[0]) == canonical, token


def test_a_deck_may_hold_duplicates_of_one_card() -> None:
    deck, problems = read_deck(" ".join(["±6"] * 10), "d.deck")
    assert problems == [] and deck is not None and len(set(deck.cards)) == 1


def test_the_ruleset_header_decides_the_pool_and_an_explicit_ruleset_overrides_it() -> None:
    gold = "ruleset: kotor2\nD D F2/4 F2/4 F3/6 F3/6 T T VV VV"
    assert problems_of(gold) == []
    assert len(problems_of(gold, "kotor1")) == 10
    assert problems_of("ruleset: kotor1\n" + STARTER, "kotor2") == []


def test_without_header_or_override_the_default_ruleset_is_kotor1() -> None:
    assert problems_of("D " + " ".join(["+1"] * 9)) == [
        "d.deck:1:1: 'D' (double) is a KOTOR II gold card, not in the kotor1 card pool "
        "(+1..+6, -1..-6, ±1..±6); for KOTOR II write the header 'ruleset: kotor2'"
    ]


def test_a_ruleset_variant_in_the_header_is_accepted() -> None:
    deck, problems = read_deck("ruleset: kotor2/main-deck=infinite\n" + STARTER, "d.deck")
    assert problems == [] and deck is not None and deck.ruleset == "kotor2/main-deck=infinite"


def test_a_variant_deck_size_changes_the_count_checked() -> None:
    twelve = STARTER + " ±1 ±1"
    assert problems_of(twelve, "kotor1/side-deck-size=12") == []
    assert problems_of(twelve) == [
        "d.deck:1:31: '±1' is card 11, but a kotor1 side deck holds exactly 10 cards; "
        "this file lists 12: remove 2"
    ]


# --- located problems -----------------------------------------------------------------------


KOTOR1_CARDS = (
    "valid kotor1 cards are +1..+6, -1..-6, ±1..±6 (or +-n, *n) (KOTOR II adds gold cards)"
)
"""What a kotor1 deck's typo lists: its own cards only (issue 46: it listed KOTOR II's)."""


def test_a_typo_lists_only_the_cards_of_the_decks_ruleset() -> None:
    """A kotor1 deck's typo names the kotor1 cards; a kotor2 deck's, every card."""
    assert problems_of("+1 +2 +3 +4 +5 -1 -2 -3 -4 +7x") == [
        f"d.deck:1:28: '+7x' is not a card; {KOTOR1_CARDS}"
    ]
    assert problems_of("ruleset: kotor2\n+1 +2 +3 +4 +5 -1 -2 -3 -4 +7x") == [
        f"d.deck:2:28: '+7x' is not a card; valid cards are {CARD_SYNTAX}"
    ]


def test_every_problem_is_reported_at_once_sorted_by_place() -> None:
    text = "name: bad\n+1 7 F2/4\n  x, +7 ±1/2\n+2"
    assert problems_of(text) == [
        "d.deck:2:4: '7' is a main-deck card, not a side card: side cards are numbered 1 to 6 "
        "(+n, -n or ±n)",
        "d.deck:2:6: 'F2/4' (flip 2&4) is a KOTOR II gold card, not in the kotor1 card pool "
        "(+1..+6, -1..-6, ±1..±6); for KOTOR II write the header 'ruleset: kotor2'",
        f"d.deck:3:3: 'x' is not a card; {KOTOR1_CARDS}",
        "d.deck:3:6: '+7' is not a side card: the number must be 1 to 6",
        "d.deck:3:9: '±1/2' (plus/minus 1/2) is a KOTOR II gold card, not in the kotor1 card "
        "pool (+1..+6, -1..-6, ±1..±6); for KOTOR II write the header 'ruleset: kotor2'",
        "d.deck:4:3: the deck ends after 7 cards; a kotor1 side deck holds exactly 10: add 3",
    ]


def test_problem_prints_as_file_line_column_message() -> None:
    problem = Problem("a.deck", 3, 7, "7", "no")
    assert str(problem) == "a.deck:3:7: no"


def test_small_main_deck_numbers_suggest_the_side_cards() -> None:
    assert problems_of("3 " + " ".join(["+1"] * 9)) == [
        "d.deck:1:1: '3' is a main-deck card, not a side card: write +3, -3 or ±3"
    ]


def test_a_huge_number_is_a_located_problem_not_a_crash() -> None:
    for token in ("+999999999999", "-" + "9" * 5000, "±00000000001"):
        problems = problems_of(f"+1 +1 {token} " + " ".join(["+1"] * 7))
        assert len(problems) == 1
        assert problems[0].startswith("d.deck:1:7: '")
        assert problems[0].endswith("is not a side card: the number must be 1 to 6")


def test_a_long_token_is_shortened_in_the_message() -> None:
    problems = problems_of("x" * 10_000)
    assert problems[0] == (f"d.deck:1:1: '{'x' * 37}...' is not a card; {KOTOR1_CARDS}")


def test_too_many_cards_points_at_the_first_card_too_many() -> None:
    assert problems_of(STARTER + "\n+6 +6") == [
        "d.deck:2:1: '+6' is card 11, but a kotor1 side deck holds exactly 10 cards; "
        "this file lists 12: remove 2"
    ]


def test_too_few_cards_points_just_after_the_last_card() -> None:
    assert problems_of("+1 +2\n+3  # more later\n") == [
        "d.deck:2:3: the deck ends after 3 cards; a kotor1 side deck holds exactly 10: add 7"
    ]


def test_an_invalid_token_still_counts_as_a_card_so_the_count_is_not_reported_twice() -> None:
    assert problems_of("8 " + " ".join(["+1"] * 9)) == [
        "d.deck:1:1: '8' is a main-deck card, not a side card: side cards are numbered 1 to 6 "
        "(+n, -n or ±n)"
    ]


def test_an_empty_file_and_a_file_of_comments_say_so_at_line_1_column_1() -> None:
    example = "a kotor1 side deck holds exactly 10 cards, for example " + STARTER
    assert problems_of("") == [f"d.deck:1:1: the file is empty; {example}"]
    assert problems_of(b"\xef\xbb\xbf \n\r\n") == [f"d.deck:1:1: the file is empty; {example}"]
    assert problems_of("# nothing\nname: x\n") == [
        f"d.deck:1:1: the file lists no cards; {example}"
    ]


def test_an_unknown_header_ruleset_is_located_at_its_value() -> None:
    assert problems_of("ruleset:   kotor3\n" + STARTER) == [
        "d.deck:1:12: unknown ruleset 'kotor3'; choose one of kotor1, kotor2 "
        "(in the 'ruleset:' header)"
    ]


def test_header_mistakes_are_located() -> None:
    text = "name:\nruleset kotor2\ncolour: red\nname: a\nname: b\n" + STARTER
    assert problems_of(text) == [
        "d.deck:1:1: the 'name:' header is empty; write for example 'name: my-deck'",
        "d.deck:2:1: 'ruleset' is not a card; a header is written 'ruleset: VALUE' (with a colon)",
        "d.deck:3:1: unknown header 'colour:'; the headers are 'name:', 'ruleset:', "
        "'description:' (cards need no header)",
        "d.deck:5:1: a second 'name:' header; the first is on line 4",
    ]


def test_invalid_utf8_is_located_at_the_byte_with_a_hint_for_latin1_plus_minus() -> None:
    data = b"+1 +1 +1 +1 +1\n+1 +1 +1 +1 \xb13 # caf\xe9\n"
    assert problems_of(data) == [
        "d.deck:2:13: byte 0xB1 in '\\xb13' is not UTF-8; save the file as UTF-8 "
        "(0xB1 is '±' in Latin-1: write ± in UTF-8, or the ASCII +-)",
        "d.deck:2:21: byte 0xE9 in a comment is not UTF-8; save the file as UTF-8",
    ]


def test_problems_beyond_the_limit_are_counted_in_one_last_line() -> None:
    problems = problems_of("x " * 500)  # 500 tokens that are not cards, and "card 11"
    assert len(problems) == MAX_PROBLEMS + 1
    first_hidden = 2 * (MAX_PROBLEMS - 1) + 1  # the count problem took one place before it
    assert problems[-1] == (
        f"d.deck:1:{first_hidden}: 401 more problems from here on are not listed "
        "(is this a deck file?)"
    )


def test_a_long_line_of_latin1_bytes_is_checked_in_linear_time() -> None:
    # Each bad byte used to rescan its whole line: 10 KB took 11 s, 200 KB minutes.
    data = ("+1 \xb1 " * 40_000).encode("latin-1")  # 200 KB, one line, 40,000 bad bytes
    started = time.process_time()  # CPU time: a busy shared machine distorts it least
    problems = problems_of(data)
    elapsed = time.process_time() - started
    assert elapsed < 2.0, f"{elapsed:.2f} s of CPU"
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1].endswith(
        "39901 more problems from here on are not listed (is this a deck file?)"
    )


WORST_CASES: dict[str, Callable[[int], bytes]] = {
    # shapes that were slow (1.5 s to 10 s for 1 MiB): a Python step, an object or a CardError
    # per token, line, bad byte or distinct token
    "latin1 bytes": lambda n: ("+1 \xb1 " * n).encode("latin-1"),
    "one long line": lambda n: " ".join(["+1"] * n).encode(),
    "bad token per line": lambda n: "\n".join(["+1 +2 x"] * n).encode(),
    "short lines": lambda n: ("x\n" * n).encode(),
    "distinct bad tokens": lambda n: " ".join(f"x{i}" for i in range(n)).encode(),
    "header lines": lambda n: ("a:\n" * n).encode(),
    "blanks": lambda n: b" " * n,
}


def _check_time(data: bytes) -> float:
    started = time.process_time()  # CPU time: a busy shared machine distorts it least
    problems_of(data)
    return time.process_time() - started


@pytest.mark.parametrize("shape", sorted(WORST_CASES))
def test_checking_a_file_takes_time_linear_in_its_size(shape: str) -> None:
    # 1 MiB against 64 KiB of the same shape: linear is a ratio of 16, quadratic 256. A ratio,
    # not a wall-clock limit, so that a loaded CI machine does not fail it; the best of a few
    # runs of the small one, whose time is the noisier.
    make = WORST_CASES[shape]
    unit = len(make(1000)) / 1000
    big = make(int(MAX_DECK_BYTES / unit))[:MAX_DECK_BYTES]
    small = make(int(MAX_DECK_BYTES / 16 / unit))[: MAX_DECK_BYTES // 16]
    small_time = min(_check_time(small) for _ in range(3))
    big_time = _check_time(big)
    assert big_time < 64 * max(small_time, 0.002), f"{big_time:.3f} s vs {small_time:.4f} s"


@pytest.mark.parametrize("shape", sorted(WORST_CASES))
def test_a_large_file_is_not_read_a_python_step_per_token(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what made 1 MiB take seconds, counted rather than timed: a DeckEntry per token, a
    # Card.parse (with its CardError) per distinct token, the line reader on every line
    calls = {"entry": 0, "read": 0, "line": 0}

    def counted(name: str, function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(decks, "DeckEntry", counted("entry", decks.DeckEntry))
    monkeypatch.setattr(decks, "_read_token", counted("read", decks._read_token))
    monkeypatch.setattr(decks, "_line_problems", counted("line", decks._line_problems))
    make = WORST_CASES[shape]
    data = make(int(MAX_DECK_BYTES / (len(make(1000)) / 1000)))[:MAX_DECK_BYTES]
    problems_of(data)
    assert calls["entry"] <= 2 * MAX_PROBLEMS, calls
    assert calls["read"] <= 2 * MAX_PROBLEMS, calls
    assert calls["line"] <= 2 * MAX_PROBLEMS + decks._BLOCK_LINES, calls


def test_every_token_a_card_is_made_of_is_looked_at() -> None:
    # parse_deck counts tokens that are not cards without Card.parse, from a regex that must
    # match every token Card.parse accepts: all short tokens of card characters, in any case
    alphabet = "+-−±*/$0123456789TVFDtvfd"
    tokens = [a + b + c for a in alphabet for b in ["", *alphabet] for c in ["", *alphabet]]
    tokens += [
        token + tail
        for token in ("±1", "+-1", "+−1", "F2", "F3")
        for tail in ("/2", "T", "t", "/4", "/6")
    ]
    for token in tokens:
        try:
            Card.parse(token)
        except ValueError:
            continue
        assert decks._CARD_LIKE.fullmatch(token), token


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["+1", "x", "\xb1", "\xe9\xe9", "+9", "F2/4", "# \xb1 x", "\n", " "]),
        max_size=400,
    )
)
def test_counting_the_problems_past_the_limit_changes_nothing_shown(pieces: list[str]) -> None:
    # parse_deck writes out only the first problems; the list shown must be the one it would
    # give if it wrote them all
    data = " ".join(pieces).encode("latin-1")
    quick = problems_of(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decks, "_KEPT_PROBLEMS", 10**9)
        assert problems_of(data) == quick


# --- files ----------------------------------------------------------------------------------


def test_load_deck_reads_a_file_by_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.deck"
    path.write_text("ruleset: kotor2\n" + STARTER.replace("+5 +5", "T VV"), encoding="utf-8")
    deck = load_deck(str(path))
    assert deck.name == "mine" and deck.ruleset == "kotor2" and deck.source == str(path)


def test_load_deck_raises_deck_error_with_the_first_problems_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.deck"
    path.write_text("7 8 9 10 x\n", encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        load_deck(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}:1:1: '7' is a main-deck card")
    assert "'8'" not in message  # (one problem: an error is one sentence)
    assert message.endswith("(and 5 more problems: `pazaak validate` lists them all)")


def test_a_file_path_wins_over_a_sample_name_and_sample_prefix_forces_the_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("kotor1-starter").write_text(" ".join(["-1"] * 10), encoding="utf-8")
    assert str(load_deck("kotor1-starter")) == " ".join(["-1"] * 10)
    assert str(load_deck("sample:kotor1-starter")) == STARTER


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, r"missing\.deck: no such file, and no sample deck of that name"),
        (lambda p: p.mkdir(), r"is a directory, not a deck file"),
        (lambda p: p.write_bytes(b"+1\x00+2"), r"is a binary file \(it holds NUL bytes\)"),
        (
            lambda p: os.truncate(p.write_bytes(b"") or p, 100 * 1024 * 1024),
            r"is 104,857,600 bytes, too large for a deck file",
        ),
    ],
    ids=["missing", "directory", "binary", "100 MB"],
)
def test_unreadable_files_raise_input_error(tmp_path: Path, make: object, message: str) -> None:
    path = tmp_path / "missing.deck"
    make(path)  # type: ignore[operator]
    with pytest.raises(InputError, match=message):
        load_deck(str(path))


def test_an_unknown_sample_name_lists_the_samples() -> None:
    with pytest.raises(InputError, match=r"^no sample deck 'nope' \(`pazaak decks` lists them\)$"):
        load_deck("sample:nope")


def test_a_file_just_over_the_limit_is_refused_and_one_at_the_limit_is_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.deck"
    padding = b"#" + b"x" * (MAX_DECK_BYTES - len(STARTER) - 2) + b"\n"
    path.write_bytes(padding + STARTER.encode())
    assert path.stat().st_size == MAX_DECK_BYTES
    assert str(load_deck(str(path))) == STARTER
    path.write_bytes(padding + STARTER.encode() + b" ")
    with pytest.raises(InputError, match="too large"):
        load_deck(str(path))


def test_card_counts_groups_by_kind_in_kind_order() -> None:
    cards = parse_cards("T ±1 +2 ±1/2 -3 +1")
    assert [(k.value, [str(c) for c in cs]) for k, cs in card_counts(cards)] == [
        ("plus", ["+1", "+2"]),
        ("minus", ["-3"]),
        ("plus/minus", ["±1"]),
        ("plus/minus 1/2", ["±1/2"]),
        ("tiebreaker", ["T"]),
    ]


# --- properties -----------------------------------------------------------------------------


def _assert_clean(data: str | bytes) -> None:
    deck, problems = read_deck(data, "f.deck")
    if deck is not None:
        assert problems == []
        assert len(deck.cards) == 10 and all(card in KOTOR2_POOL for card in deck.cards)
        return
    assert 1 <= len(problems) <= MAX_PROBLEMS + 1
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    lines = max(1, len(text.splitlines()) + 1)
    for problem in problems:
        assert problem.path == "f.deck"
        assert 1 <= problem.line <= lines + 1
        assert problem.column >= 1
        assert problem.message
        str(problem).encode("utf-8")  # printable: no lone surrogates


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_gives_a_valid_deck_or_clean_located_problems(text: str) -> None:
    _assert_clean(text)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_give_a_valid_deck_or_clean_located_problems(data: bytes) -> None:
    _assert_clean(data)


_CARD_TEXT = st.sampled_from(
    [str(c) for c in all_cards()] + ["+-3", "*2", "VV", "F1", "F2", "$$", "TT", "+-1T", "−4"]
)
_DECK_LIKE = st.lists(
    st.one_of(
        _CARD_TEXT,
        st.sampled_from([" ", ",", "\n", "\r\n", "\t", "# c\n", "name: x\n", "ruleset: kotor2\n"]),
        st.text(alphabet="+-±*/0123456789DTFV$# :\n", max_size=4),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_DECK_LIKE)
def test_deck_like_text_gives_a_valid_deck_or_clean_located_problems(text: str) -> None:
    _assert_clean(text)
    _assert_clean(text.encode("utf-8"))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(KOTOR1_POOL)), min_size=10, max_size=10),
    st.lists(
        st.sampled_from([" ", ",", "\n", ", ", "\r\n", " # note\n"]), min_size=10, max_size=10
    ),
)
def test_a_written_deck_reads_back_to_the_same_cards(
    cards: list[Card], separators: list[str]
) -> None:
    text = "".join(str(card) + sep for card, sep in zip(cards, separators, strict=True))
    deck, problems = read_deck(text, "f.deck")
    assert problems == [] and deck is not None and list(deck.cards) == cards
