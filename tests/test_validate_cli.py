"""`pazaak validate`, `pazaak decks` and the reusable --deck option, through Click's runner."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.commands.common import ruleset_option
from pazaak_cli.commands.deck_option import DeckType, complete_decks, deck_option
from pazaak_cli.engine import decks
from pazaak_cli.engine.decks import SideDeck, sample_names
from pazaak_cli.engine.rules import Ruleset

STARTER = "+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"
GOLD = "ruleset: kotor2\nD D F2/4 F2/4 F3/6 F3/6 T T ±1/2 ±1/2\n"


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def assert_clean_exit(result: Result, code: int) -> None:
    """The exit code, and no traceback: any exception is Click's own SystemExit."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- pazaak validate ------------------------------------------------------------------------


def test_a_valid_deck_exits_0_with_a_summary_by_kind(here: Path) -> None:
    Path("mine.deck").write_text("name: mixed\n+1 +1 -2 ±3, ±3 ±4 +5 -6 ±1 ±1\n", "utf-8")
    result = run("validate", "mine.deck")
    assert_clean_exit(result, 0)
    assert result.stdout == (
        "mine.deck: valid kotor1 side deck 'mixed', 10 cards\n"
        "kind          count  cards\n"
        "----------  -------  --------------\n"
        "plus              3  +1 +1 +5\n"
        "minus             2  -2 -6\n"
        "plus/minus        5  ±1 ±1 ±3 ±3 ±4\n"
        "total            10\n"
    )


def test_an_invalid_deck_exits_1_listing_every_problem_located(here: Path) -> None:
    Path("bad.deck").write_text("name: bad\n+1 +2 7 F2/4\n+3,+4 +999999999999\n", "utf-8")
    result = run("validate", "bad.deck")
    assert_clean_exit(result, 1)
    lines = result.stdout.splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == [
        "bad.deck:2:7",
        "bad.deck:2:9",
        "bad.deck:3:7",
        "bad.deck:3:20",
        "bad.deck",
    ]
    assert "'7' is a main-deck card" in lines[0]
    assert "'F2/4' (flip 2&4) is a KOTOR II gold card" in lines[1]
    assert "'+999999999999' is not a side card: the number must be 1 to 6" in lines[2]
    assert "the deck ends after 7 cards" in lines[3] and "add 3" in lines[3]
    assert lines[4] == "bad.deck: not a valid kotor1 side deck (4 problems)"


def test_a_long_list_s_total_counts_the_problems_not_listed(here: Path) -> None:
    Path("many.deck").write_text("zz " * 300, encoding="utf-8")
    result = run("validate", "many.deck")
    assert_clean_exit(result, 1)
    lines = result.stdout.splitlines()
    assert lines[-2].endswith(
        "201 more problems from here on are not listed (is this a deck file?)"
    )
    assert lines[-1] == "many.deck: not a valid kotor1 side deck (301 problems)"  # (it said 101)


def test_an_empty_file_exits_1_at_line_1_column_1(here: Path) -> None:
    Path("empty.deck").write_bytes(b"")
    result = run("validate", "empty.deck")
    assert_clean_exit(result, 1)
    assert result.stdout.startswith("empty.deck:1:1: the file is empty; a kotor1 side deck holds")


def test_invalid_utf8_exits_1_at_the_byte(here: Path) -> None:
    Path("latin.deck").write_bytes(b"+1 +1 +1 +1 +1 +1 +1 +1 +1\n \xb13\n")
    result = run("validate", "latin.deck")
    assert_clean_exit(result, 1)
    assert result.stdout.startswith("latin.deck:2:2: byte 0xB1 in '\\xb13' is not UTF-8")


def test_a_binary_file_is_an_invalid_deck_and_exits_1(here: Path) -> None:
    """It exists and was read: it is not a valid deck, a domain failure like any other."""
    Path("a.out").write_bytes(bytes(range(256)))
    result = run("validate", "a.out")
    assert_clean_exit(result, 1)
    assert result.stderr == (
        "Error: a.out: is a binary file (it holds NUL bytes), not a deck file: "
        "a deck file is UTF-8 text\n"
    )


def test_binary_standard_input_exits_1_and_says_so_in_json(here: Path) -> None:
    result = run("validate", "-", "--json", stdin=b"+1\x00+2\n")
    assert_clean_exit(result, 1)
    document = json.loads(result.stdout)
    assert document["valid"] is False
    assert document["files"][0]["error"].startswith("<stdin>: is a binary file")


def test_a_binary_file_next_to_a_missing_one_exits_2(here: Path) -> None:
    Path("a.out").write_bytes(b"\x00")
    assert_clean_exit(run("validate", "a.out", "nope.deck"), 2)


def test_a_missing_file_exits_2_and_names_the_samples(here: Path) -> None:
    result = run("validate", "nope.deck")
    assert_clean_exit(result, 2)
    assert result.stderr == (
        "Error: nope.deck: no such file, and no sample deck of that name "
        "(`pazaak decks` lists them)\n"
    )


def test_a_directory_exits_2(here: Path) -> None:
    Path("decks").mkdir()
    result = run("validate", "decks")
    assert_clean_exit(result, 2)
    assert result.stderr == "Error: decks: is a directory, not a deck file\n"


def test_a_100_mb_file_exits_2_without_being_read(here: Path) -> None:
    with open("huge.deck", "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: costs no disk and would take long to read
    result = run("validate", "huge.deck")
    assert_clean_exit(result, 2)
    assert result.stderr == (
        "Error: huge.deck: is 104,857,600 bytes, too large for a deck file (a deck is a few "
        "hundred bytes; the limit is 1 MiB), so it was refused\n"
    )


def test_an_unreadable_file_exits_2(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Path("secret.deck").write_text(STARTER, "utf-8")

    def refuse(path: str, mode: str = "r") -> object:
        raise PermissionError(13, "Permission denied", path)

    # chmod 000 does not stop root, so the refusal is simulated where the deck reader opens files
    monkeypatch.setattr(decks, "open", refuse, raising=False)
    result = run("validate", "secret.deck")
    assert_clean_exit(result, 2)
    assert result.stderr == "Error: secret.deck: cannot read it (permission denied)\n"


def test_a_huge_number_token_is_a_located_problem(here: Path) -> None:
    Path("n.deck").write_text(" ".join(["+1"] * 9) + " +999999999999\n", "utf-8")
    result = run("validate", "n.deck")
    assert_clean_exit(result, 1)
    assert result.stdout.splitlines()[0] == (
        "n.deck:1:28: '+999999999999' is not a side card: the number must be 1 to 6"
    )


def test_an_unknown_header_ruleset_is_located(here: Path) -> None:
    Path("r.deck").write_text(f"ruleset: kotor9\n{STARTER}\n", "utf-8")
    result = run("validate", "r.deck")
    assert_clean_exit(result, 1)
    assert result.stdout.splitlines()[0] == (
        "r.deck:1:10: unknown ruleset 'kotor9'; choose one of kotor1, kotor2 "
        "(in the 'ruleset:' header)"
    )


def test_the_header_ruleset_is_used_and_ruleset_option_overrides_it(here: Path) -> None:
    Path("gold.deck").write_text(GOLD, "utf-8")
    assert_clean_exit(run("validate", "gold.deck"), 0)
    result = run("validate", "--ruleset", "kotor1", "gold.deck")
    assert_clean_exit(result, 1)
    assert result.stdout.splitlines()[0].startswith("gold.deck:2:1: 'D' (double) is a KOTOR II")
    assert result.stdout.splitlines()[-1] == "gold.deck: not a valid kotor1 side deck (10 problems)"


def test_a_bad_ruleset_option_is_a_usage_error() -> None:
    result = run("validate", "--ruleset", "kotor3", "kotor1-starter")
    assert_clean_exit(result, 2)
    assert "unknown ruleset 'kotor3'" in result.stderr


def test_no_file_is_a_usage_error() -> None:
    result = run("validate")
    assert_clean_exit(result, 2)
    assert "Missing argument 'FILE...'" in result.stderr


def test_dash_reads_standard_input() -> None:
    result = run("validate", "-", stdin=f"# piped\n{STARTER}\n")
    assert_clean_exit(result, 0)
    assert result.stdout.startswith("<stdin>: valid kotor1 side deck 'stdin', 10 cards")
    result = run("validate", "-", stdin="+1 +1\r\n")
    assert_clean_exit(result, 1)
    assert result.stdout.startswith("<stdin>:1:6: the deck ends after 2 cards")


def test_a_sample_deck_name_is_validated_like_a_file() -> None:
    result = run("validate", "kotor2-very-hard")
    assert_clean_exit(result, 0)
    assert result.stdout.startswith(
        "sample:kotor2-very-hard: valid kotor2 side deck 'kotor2-very-hard', 10 cards"
    )


def test_every_sample_deck_validates_from_the_command_line() -> None:
    result = run("validate", *sample_names())
    assert_clean_exit(result, 0)
    assert result.stdout.count(" valid ") == len(sample_names())


def test_many_files_are_all_checked_and_the_worst_exit_code_wins(here: Path) -> None:
    Path("good.deck").write_text(STARTER, "utf-8")
    Path("bad.deck").write_text("+1", "utf-8")
    result = run("validate", "good.deck", "bad.deck")
    assert_clean_exit(result, 1)
    assert "good.deck: valid" in result.stdout and "bad.deck:1:3:" in result.stdout
    result = run("validate", "good.deck", "missing.deck", "bad.deck")
    assert_clean_exit(result, 2)
    assert "bad.deck:1:3:" in result.stdout, "files after an unreadable one are still checked"
    assert result.stderr.startswith("Error: missing.deck: no such file")


def test_json_reports_every_file_with_problems_located(here: Path) -> None:
    Path("good.deck").write_text(STARTER, "utf-8")
    Path("bad.deck").write_text("x\n", "utf-8")
    result = run("validate", "--json", "good.deck", "bad.deck", "missing.deck")
    assert_clean_exit(result, 2)
    data = json.loads(result.stdout)
    assert data["valid"] is False
    good, bad, missing = data["files"]
    assert good == {
        "file": "good.deck",
        "valid": True,
        "ruleset": "kotor1",
        "name": "good",
        "description": "",
        "cards": STARTER.split(),
        "kinds": {"plus": 10},
        "problems": [],
        "error": None,
    }
    assert bad["valid"] is False and bad["ruleset"] == "kotor1"
    assert bad.keys() == good.keys()  # (one shape: what an invalid deck lacks is null)
    assert bad["name"] is bad["cards"] is bad["kinds"] is None
    assert [(p["line"], p["column"], p["token"]) for p in bad["problems"]] == [
        (1, 1, "x"),
        (1, 2, "x"),
    ]
    assert missing["valid"] is False and missing["error"].startswith("missing.deck: no such file")
    assert missing.keys() == good.keys() and missing["problems"] == []  # (it had three keys)
    assert "\x1b[" not in result.stdout


def test_json_of_a_valid_set_of_files_exits_0() -> None:
    result = run("validate", "--json", "kotor1-starter")
    assert_clean_exit(result, 0)
    assert json.loads(result.stdout)["valid"] is True


def test_validate_help_shows_an_example() -> None:
    result = run("validate", "--help")
    assert_clean_exit(result, 0)
    assert "pazaak validate my.deck" in result.stdout


def test_standard_input_from_a_terminal_says_how_to_end_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`pazaak validate -` typed at a terminal waited, saying nothing, for a deck to be typed."""
    monkeypatch.setattr("pazaak_cli.commands.validate_cmd.stdin_is_terminal", lambda: True)
    result = run("validate", "-", stdin=STARTER)
    assert_clean_exit(result, 0)
    assert result.stderr == (
        "Reading a deck from the terminal: type or paste its cards, then Ctrl-D on a line of "
        "its own.\n"
    )
    monkeypatch.undo()
    assert run("validate", "-", stdin=STARTER).stderr == ""  # (a pipe: nothing to say)


# --- pazaak decks ---------------------------------------------------------------------------


def test_decks_lists_every_sample_with_ruleset_cards_and_description() -> None:
    result = run("decks")
    assert_clean_exit(result, 0)
    for name in sample_names():
        assert name in result.stdout
    assert "+1 +1 +2 +2 +3 +3 +4 +4 +5 +5" in result.stdout
    assert "Default deck: kotor1-starter." in result.stdout


def test_decks_with_a_ruleset_lists_only_decks_valid_under_it() -> None:
    kotor1 = json.loads(run("decks", "--ruleset", "kotor1", "--json").stdout)
    names = {deck["name"] for deck in kotor1}
    assert "kotor1-starter" in names and "kotor2-easy" in names
    assert "kotor2-hard" not in names and "kotor2-very-hard" not in names
    kotor2 = json.loads(run("decks", "--ruleset", "kotor2", "--json").stdout)
    assert {deck["name"] for deck in kotor2} == set(sample_names())


def test_decks_name_shows_the_cards_and_the_summary() -> None:
    result = run("decks", "kotor2-hard")
    assert_clean_exit(result, 0)
    assert result.stdout.splitlines()[0] == "kotor2-hard (kotor2)"
    assert "cards: F2/4 F3/6 ±4 ±6 D T ±1/2 ±3 ±6 F2/4" in result.stdout
    assert "flip 2&4              2  F2/4 F2/4" in result.stdout


def test_decks_json_gives_cards_and_kinds() -> None:
    result = run("decks", "kotor1-starter", "--json")
    assert_clean_exit(result, 0)
    assert json.loads(result.stdout) == [
        {
            "name": "kotor1-starter",
            "ruleset": "kotor1",
            "description": "KOTOR I starter deck (the game's default): two each of +1..+5",
            "cards": STARTER.split(),
            "kinds": {"plus": 10},
        }
    ]


def test_decks_with_an_unknown_name_is_a_usage_error() -> None:
    result = run("decks", "kotor3-nope")
    assert_clean_exit(result, 2)
    assert "no sample deck 'kotor3-nope'; the sample decks are kotor1-" in result.stderr


def test_decks_takes_the_sample_prefix_and_points_a_file_to_validate(here: Path) -> None:
    """`sample:NAME` works wherever a deck is asked for (docs/decks.md), and a new user who names
    a deck file to see its cards was shown only the list of samples."""
    result = run("decks", "sample:kotor1-starter")
    assert_clean_exit(result, 0)
    assert result.stdout.splitlines()[0] == "kotor1-starter (kotor1)"
    Path("my.deck").write_text(STARTER, encoding="utf-8")
    refused = run("decks", "my.deck")
    assert_clean_exit(refused, 2)
    assert (
        "no sample deck 'my.deck' (my.deck is a deck file: `pazaak validate my.deck` shows its "
        "cards); the sample decks are kotor1-" in refused.stderr
    )


# --- the --deck option other commands reuse -------------------------------------------------


@click.command()
@ruleset_option(default=None)
@deck_option("--deck", default="kotor1-starter", allow_stdin=True)
@deck_option("--p2-deck")
def show_decks(ruleset: Ruleset | None, deck: SideDeck, p2_deck: SideDeck | None) -> None:
    click.echo(f"{deck.name}: {deck}")
    click.echo(f"p2: {p2_deck}")


def run_option(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(show_decks, list(args), input=stdin)


def test_deck_option_gives_a_validated_deck_and_its_default() -> None:
    result = run_option()
    assert_clean_exit(result, 0)
    assert result.stdout == f"kotor1-starter: {STARTER}\np2: None\n"
    result = run_option("--deck", "kotor2-hard", "--p2-deck", "sample:kotor1-strongest")
    assert_clean_exit(result, 0)
    assert result.stdout.startswith("kotor2-hard: F2/4 F3/6")


def test_deck_option_checks_the_deck_against_the_commands_ruleset() -> None:
    result = run_option("--deck", "kotor2-hard", "--ruleset", "kotor1")
    assert_clean_exit(result, 1)
    assert result.stderr.startswith(
        "Error: invalid kotor1 side deck: sample:kotor2-hard:6:1: 'F2/4' (flip 2&4) is a KOTOR"
    )
    # the ruleset given after the deck is applied just the same
    assert_clean_exit(run_option("--ruleset", "kotor1", "--deck", "kotor2-hard"), 1)


def test_deck_option_reports_an_invalid_file_with_its_location(here: Path) -> None:
    Path("bad.deck").write_text("+1 +1\n+9\n", "utf-8")
    result = run_option("--deck", "bad.deck")
    assert_clean_exit(result, 1)
    assert result.stderr.startswith("Error: invalid kotor1 side deck: bad.deck:2:1: '+9' is not")
    assert result.stderr.endswith("(and 1 more problem: `pazaak validate` lists them all)\n")


def test_deck_option_unreadable_files_are_usage_errors(here: Path) -> None:
    result = run_option("--deck", "missing.deck")
    assert_clean_exit(result, 2)
    assert "Invalid value for '--deck': missing.deck: no such file" in result.stderr
    Path("d").mkdir()
    result = run_option("--p2-deck", "d")
    assert_clean_exit(result, 2)
    assert "Invalid value for '--p2-deck': d: is a directory, not a deck file" in result.stderr


def test_deck_option_reads_stdin_only_where_allowed() -> None:
    result = run_option("--deck", "-", stdin=STARTER.replace("+5 +5", "-6 -6"))
    assert_clean_exit(result, 0)
    assert result.stdout.startswith("stdin: +1 +1 +2 +2 +3 +3 +4 +4 -6 -6")
    result = run_option("--p2-deck", "-", stdin=STARTER)
    assert_clean_exit(result, 2)
    assert "'-' (standard input) cannot be a deck here; give a file" in result.stderr


def test_deck_completion_offers_sample_names_with_descriptions_and_files() -> None:
    items = complete_decks("kotor2-")
    assert items[0].type == "file"
    names = [item.value for item in items[1:]]
    assert names == [name for name in sample_names() if name.startswith("kotor2-")]
    assert all(item.help for item in items[1:])
    assert DeckType().get_metavar(click.Option(["--deck"])) == "DECK"


@pytest.mark.parametrize("invisible", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_a_zero_width_character_between_cards_separates_them_as_a_space_does(
    tmp_path: Path, invisible: str
) -> None:
    """A deck copied from a web page with a zero-width space after its last card was refused
    twice: the character as a card that is not one, and as an eleventh card."""
    deck = tmp_path / "copied.deck"
    deck.write_text(f"+1 +2{invisible}+3 +4 +5 -1 -2 -3 -4 -5 {invisible}\n", encoding="utf-8")
    valid = run("validate", str(deck))
    assert valid.exit_code == 0, valid.output
    assert "valid kotor1 side deck 'copied', 10 cards" in valid.output
    deck.write_text(f"+1 +2 +3 +4 +5 -1 -2 -3 -4 +7{invisible}-5\n", encoding="utf-8")
    problems = run("validate", str(deck))
    assert problems.exit_code == 1
    assert problems.output.splitlines()[:2] == [
        f"{deck}:1:28: '+7' is not a side card: the number must be 1 to 6",
        f"{deck}:1:31: '-5' is card 11, but a kotor1 side deck holds exactly 10 cards; this "
        "file lists 11: remove 1",
    ]
