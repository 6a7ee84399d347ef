"""Fixes to deckbuild, validate and decks found in testing: the least budget plays a match, a
DECK:POLICY with an unknown policy names it, --out on a directory, a side deck smaller than the
hand, standard input given twice, an empty list of sample decks, and counts of one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import check_deck, read_source
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.rules import KOTOR1, parse_ruleset
from pazaak_cli.players.roster import POLICY_NAMES
from pazaak_cli.tools.deckbuild import (
    build_deck,
    default_field,
    minimum_budget,
    pool_from_cards,
    whole_pool,
)

STARTER = "+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / "cache"))


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def assert_clean_exit(result: Result, code: int) -> None:
    """The exit code, and no traceback: any exception is Click's own SystemExit."""
    assert result.exit_code == code, result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output + result.stderr


# 1. the least budget the option accepts plays matches and gives a best deck -------------------


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_deckbuild_at_the_stated_minimum_budget_finds_a_deck(seed: str) -> None:
    least = minimum_budget(len(default_field(KOTOR1)))
    refused = run("deckbuild", "-n", str(least - 1), "--seed", seed, "-w", "1")
    assert_clean_exit(refused, 2)
    assert f"give at least {least} " in refused.stderr
    result = run("deckbuild", "-n", str(least), "--seed", seed, "-w", "1")
    assert_clean_exit(result, 0)
    assert "The best deck against each opponent" in result.output
    assert f"{least} matches played (budget {least})" in result.output


def test_deckbuild_json_at_the_stated_minimum_budget_lists_a_best_deck() -> None:
    least = minimum_budget(len(default_field(KOTOR1)))
    result = run("deckbuild", "-n", str(least), "--seed", "1", "-w", "1", "--json")
    assert_clean_exit(result, 0)
    data = json.loads(result.output)
    assert data["matches_played"] == least
    assert len(data["best"]) >= 1
    assert data["best"][0]["matches"] == least


@pytest.mark.parametrize("budget", [10, 11, 12])
def test_a_five_opponent_field_is_searched_on_any_budget_the_minimum_allows(budget: int) -> None:
    """Keeping a quarter for the finalists left less than one deal per opponent to the race."""
    ruleset = parse_ruleset("kotor2")
    field = default_field(ruleset)
    assert minimum_budget(len(field)) == 10
    result = build_deck(ruleset, whole_pool(ruleset), field, player="kotor", budget=budget, seed=1)
    assert result.best
    assert 10 <= result.matches_played <= budget


# 2. --against DECK:POLICY with an unknown policy ------------------------------------------------


def test_deckbuild_against_an_unknown_policy_names_it() -> None:
    result = run("deckbuild", "--against", "kotor1-strong:alien", "-n", "6", "-w", "1")
    assert_clean_exit(result, 2)
    assert "'alien'" in result.stderr
    assert "no such file" not in result.stderr
    assert all(name in result.stderr for name in POLICY_NAMES)


def test_deckbuild_against_a_sample_prefix_or_a_file_with_a_colon_is_still_a_deck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "odd:name").write_text(STARTER + "\n", encoding="utf-8")
    for spec in ("sample:kotor1-strong", "odd:name", "odd:name:expert"):
        result = run("deckbuild", "--against", spec, "-n", "2", "-w", "1", "--seed", "1")
        assert_clean_exit(result, 0)


# 3. --out on a directory ------------------------------------------------------------------------


@pytest.mark.parametrize("force", [False, True])
def test_deckbuild_out_on_a_directory_says_so_at_once(tmp_path: Path, force: bool) -> None:
    target = tmp_path / "d"
    target.mkdir()
    args = ["deckbuild", "--out", str(target), "-n", "6", "-w", "1", "--seed", "1"]
    result = run(*args, *(["--force"] if force else []))
    assert_clean_exit(result, 2)
    assert result.stderr == f"Error: --out {target}: is a directory; give a file name\n"


def test_deckbuild_out_in_a_missing_directory_is_refused_before_the_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("the search ran before --out was checked")

    monkeypatch.setattr("pazaak_cli.commands.deckbuild_cmd.build_deck", no_search)
    target = tmp_path / "missing" / "best.deck"
    result = run("deckbuild", "--out", str(target), "-n", "7", "-w", "1", "--seed", "1")
    assert_clean_exit(result, 2)
    assert result.stderr == f"Error: --out {target}: no such directory {target.parent}\n"


# 4. a side deck smaller than the hand ------------------------------------------------------------


def test_a_side_deck_smaller_than_the_hand_names_both_sizes() -> None:
    report = check_deck("ruleset: kotor1/side-deck-size=3\n+1 +2 +3\n", "s.deck")
    message = report.problems[0].message
    assert "side-deck-size=3" in message
    assert "hand size" in message and "4" in message
    assert "hand-size to at most 3" in message


def test_the_ruleset_option_says_the_same() -> None:
    result = run("decks", "--ruleset", "kotor1/side-deck-size=3")
    assert_clean_exit(result, 2)
    assert "side-deck-size to at least 4" in result.stderr


# 5. standard input given twice -----------------------------------------------------------------


def test_validate_stdin_twice_says_it_was_already_read() -> None:
    result = run("validate", "-", "-", stdin=STARTER + "\n")
    assert_clean_exit(result, 2)
    assert "<stdin>: valid kotor1 side deck" in result.output
    assert "the file is empty" not in result.output
    assert "standard input was already read" in result.stderr


def test_validate_stdin_twice_in_json() -> None:
    result = run("validate", "--json", "-", "-", stdin=STARTER + "\n")
    assert_clean_exit(result, 2)
    files = json.loads(result.output)["files"]
    assert files[0]["valid"] is True
    assert "standard input was already read" in files[1]["error"]


def test_deckbuild_stdin_for_two_decks_is_refused() -> None:
    result = run("deckbuild", "--pool", "-", "--against", "-", "-n", "6", "-w", "1", stdin=STARTER)
    assert_clean_exit(result, 2)
    assert "standard input" in result.stderr


# 6. no sample deck fits a ruleset ----------------------------------------------------------------


def test_decks_with_a_ruleset_no_sample_fits_says_so() -> None:
    result = run("decks", "--ruleset", "kotor1/side-deck-size=5")
    assert_clean_exit(result, 0)
    assert result.output == "No sample deck is valid under ruleset kotor1/side-deck-size=5.\n"
    as_json = run("decks", "--ruleset", "kotor1/side-deck-size=5", "--json")
    assert_clean_exit(as_json, 0)
    assert json.loads(as_json.output) == []


def test_a_deck_named_with_a_ruleset_is_shown_with_whether_it_is_valid_under_it() -> None:
    """The --ruleset was silently ignored when decks were named (a kotor2 deck shown for
    kotor1 without a word)."""
    result = run("decks", "--ruleset", "kotor1", "kotor2-hard", "kotor1-strong")
    assert_clean_exit(result, 0)
    said = [line for line in result.output.splitlines() if "under ruleset" in line]
    assert said[0].startswith(
        "Not valid under ruleset kotor1: sample:kotor2-hard:6:1: 'F2/4' (flip 2&4) is a KOTOR II"
    )
    assert said[1] == "Valid under ruleset kotor1."
    as_json = json.loads(run("decks", "--ruleset", "kotor1", "kotor1-strong", "--json").output)
    assert as_json[0]["valid_under"] == {"ruleset": "kotor1", "problem": None}
    assert "valid_under" not in json.loads(run("decks", "kotor1-strong", "--json").output)[0]


# 7. counts of one --------------------------------------------------------------------------------


def test_deckbuild_pool_of_one_kind_is_not_one_kinds(tmp_path: Path) -> None:
    pool = tmp_path / "pool.deck"
    pool.write_text("+1 +1 +1 +1\n", encoding="utf-8")
    result = run(
        "deckbuild",
        "--ruleset",
        "kotor1/side-deck-size=4",
        "--pool",
        str(pool),
        "--against",
        str(pool),
        "-n",
        "2",
        "-w",
        "1",
        "--seed",
        "1",
    )
    assert_clean_exit(result, 0)
    assert "4 cards of 1 kind;" in result.output


def test_build_deck_says_one_card_and_one_match() -> None:
    ruleset = parse_ruleset("kotor1/side-deck-size=2,hand-size=1")
    field = default_field(KOTOR1)[:1]
    one = pool_from_cards(parse_cards("+1"), "one")
    with pytest.raises(PazaakError, match="the pool holds 1 card,"):
        build_deck(ruleset, one, field, player="kotor", budget=100, seed=1)
    with pytest.raises(PazaakError, match="a budget of 1 match is too small"):
        build_deck(KOTOR1, whole_pool(KOTOR1), field, player="kotor", budget=1, seed=1)


def test_a_one_card_deck_is_one_card() -> None:
    ruleset = "kotor1/side-deck-size=1,hand-size=1"
    too_many = check_deck(f"ruleset: {ruleset}\n+1 +2\n", "d.deck")
    assert "holds exactly 1 card;" in too_many.problems[0].message
    empty = check_deck(f"ruleset: {ruleset}\n", "d.deck")
    assert "holds exactly 1 card, for example +1" in empty.problems[0].message
    assert "+1 +1 +2" not in empty.problems[0].message


def test_validate_a_one_card_deck_says_one_card(tmp_path: Path) -> None:
    path = tmp_path / "one.deck"
    path.write_text("ruleset: kotor1/side-deck-size=1,hand-size=1\n+3\n", encoding="utf-8")
    result = run("validate", str(path))
    assert_clean_exit(result, 0)
    assert "side deck 'one', 1 card\n" in result.output


def test_a_gold_card_in_a_deck_whose_header_says_kotor2_asks_for_the_ruleset() -> None:
    """A sample KOTOR II deck under kotor1 was told to "write the header 'ruleset: kotor2'",
    which it has: the fix there is the command's --ruleset; and so it is for a deck without a
    header given to a command, whose --ruleset a header would not change (validate without
    --ruleset reads the header, so there the header is the fix)."""
    source, data, sample = read_source("kotor2-hard")
    report = check_deck(data, source, parse_ruleset("kotor1"), name=sample)
    assert report.deck is None
    message = report.problems[0].message
    assert message.endswith("this deck's header says ruleset 'kotor2': give --ruleset kotor2")
    headerless = b"F2/4 +1 +2 +3 +4 +5 -1 -2 -3 -4\n"
    given = check_deck(headerless, "g.deck", parse_ruleset("kotor1"))  # (a command's --ruleset)
    assert given.problems[0].message.endswith("for KOTOR II give the command --ruleset kotor2")
    alone = check_deck(headerless, "g.deck")  # (pazaak validate: the file's header decides)
    assert alone.problems[0].message.endswith("write the header 'ruleset: kotor2'")
