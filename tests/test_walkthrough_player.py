"""A new player's walkthrough of the commands: what a Pazaak player (not a developer) met while
reading the README and each command's --help, and typing wrong cards, bad files and options."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from pazaak_cli.cli import main
from pazaak_cli.commands import play_cmd, rules_cmd, simulate_cmd
from pazaak_cli.terminal import advice_table, follow_screen, match_text, text

ENV = {"NO_COLOR": "1", "COLUMNS": "80"}


def run(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(main, list(args), input=stdin, env=ENV)


def test_follow_help_ends_with_the_exit_codes_as_every_command_does() -> None:
    """`pazaak follow --help` had no exit-code footer; `advise --help` and the others end
    with it."""
    follow = run("follow", "--help")
    advise = run("advise", "--help")
    assert follow.exit_code == 0 and advise.exit_code == 0
    footer = advise.output[advise.output.index("Exit codes:") :]
    assert follow.output.endswith(footer)


SAMPLED_SET = ["advise", "--main-deck", "infinite", "--table", "10 7", "--hand", "+3 +1 -2 ±4"]
SAMPLED_SET += ["--opp-table", "10", "--opp-hand-size", "4", "--opp-deck", "kotor1-average"]
SAMPLED_SET += ["--objective", "set", "--hands", "2"]


@pytest.mark.parametrize("width", [80, 78])
def test_a_move_with_a_note_folds_so_the_advice_table_fits_the_terminal(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """A sampled set table with `play +3, automatic stand at 20` was 84 columns on an
    80-column terminal (no header to fold there): the long moves now go on two lines, every
    word kept, the numbers on the move's first line."""
    monkeypatch.setattr(advice_table, "terminal_width", lambda: width)
    result = run(*SAMPLED_SET)
    assert result.exit_code == 0, result.output
    lines = click.unstyle(result.output).splitlines()
    head = next(at for at, line in enumerate(lines) if line.split()[:2] == ["move", "win"])
    table = list(
        itertools.takewhile(lambda line: line.startswith((" ", "-", "best")), lines[head:])
    )
    assert max(map(len, table)) <= width
    first = next(at for at, line in enumerate(table) if "play +3," in line)
    assert table[first].split() == [
        "best",
        "play",
        "+3,",
        "33.47",
        "66.53",
        "0.00",
        "+33.47",
        "88.48",
    ]
    assert table[first + 1].strip() == "automatic stand at 20"


def test_a_table_that_fits_keeps_one_line_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide enough, or not a terminal (a pipe reads every line whole), nothing is folded."""
    monkeypatch.setattr(advice_table, "terminal_width", lambda: 120)
    assert "play +3, automatic stand at 20" in run(*SAMPLED_SET).output
    monkeypatch.setattr(advice_table, "terminal_width", lambda: None)
    assert "play +3, automatic stand at 20" in run(*SAMPLED_SET).output


def test_the_readme_table_fits_a_narrow_terminal_with_its_note_folded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The README's match table, headers already folded, still did not fit 70 columns."""
    monkeypatch.setattr(advice_table, "terminal_width", lambda: 70)
    args = ["advise", "--main-deck", "infinite", "--table", "10 9", "--hand", "+1"]
    result = run(*args, "--opp-table", "10 8", "--opp-hand", "-1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    table = lines[lines.index(next(line for line in lines if line.split()[:1] == ["move"])) :]
    assert max(map(len, table)) <= 70
    assert [line.strip() for line in table[-2:]] == [
        "play +1,                   57.87    78.00    22.00      0.00",
        "automatic stand at 20",
    ]


def on_terminal(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """What wraps to a terminal sees one ``width`` columns wide (the rest still sees a pipe)."""
    monkeypatch.setattr(text, "terminal_width", lambda: width)
    monkeypatch.setattr(match_text, "terminal_width", lambda: width)
    monkeypatch.setattr(advice_table, "terminal_width", lambda: width)
    monkeypatch.setattr(follow_screen, "terminal_width", lambda: width)


def words_of(output: str) -> list[str]:
    return output.split()


KOTOR2_PLAY = ["play", "--ruleset", "kotor2", "--deck", "kotor2-very-hard", "--opponent"]
KOTOR2_PLAY += ["stand17", "--seed", "5", "--new", "--no-ponder"]


def test_play_fits_an_80_column_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """On an 80-column terminal `pazaak play` printed lines of 84 to 100 columns (the hand
    line of a kotor2 hand, `?`'s list, `b`'s first line), which the terminal cut anywhere:
    now each fits, every word kept, and a pipe still gets one line each."""
    monkeypatch.chdir(tmp_path)
    args = [*KOTOR2_PLAY, "--save", "m.json"]
    piped = run(*args, stdin="?\nb\nq\n")
    assert piped.exit_code == 0, piped.output
    assert max(map(len, piped.output.splitlines())) > 80  # (a pipe reads every line whole)
    on_terminal(monkeypatch, 80)
    shown = run(*args, stdin="?\nb\nq\n")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert words_of(shown.output) == words_of(piped.output)
    assert "  Your hand: 1) ±1/2   2) F3/6   3) F3/6   4) T" in lines
    assert "  stand17's hand: 4 cards face down" in lines
    at = next(at for at, line in enumerate(lines) if line.startswith("  play N [+|-] (p)"))
    assert lines[at + 1].startswith(" " * 23) and not lines[at + 1].startswith(" " * 24)


def test_play_asks_for_a_deck_in_lines_that_fit_the_terminal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The list of sample decks asked for on a terminal was up to 107 columns wide."""
    monkeypatch.setattr(play_cmd, "stdin_is_terminal", lambda: True)
    on_terminal(monkeypatch, 80)
    monkeypatch.chdir(tmp_path)
    result = run("play", "--seed", "5", "--save", "m.json", stdin="nosuch\n")
    # (the runner echoes no Enter after the typed name: the prompt's line goes on)
    lines = result.output.replace("Deck [kotor1-starter]: nosuch", "nosuch\n").splitlines()
    assert "kotor2-tiebreakers" in result.output and "no deck chosen" in result.output
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    at = next(at for at, line in enumerate(lines) if line.startswith("  kotor1-plusminus-range"))
    assert lines[at + 1].strip() == "from 14, rescues busts to 26"


def test_follow_wraps_its_prose_to_the_terminal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`pazaak follow` printed every line whole on a terminal (its first line 127 columns, the
    advice's note 449, the help 93), where `advise` and `play` wrap theirs: now each fits, every
    word kept; the advise command of `position` goes on a line of its own, never cut, to be
    copied."""
    monkeypatch.chdir(tmp_path)
    args = ["follow", "--hand", "+1 -2 ±3 +4", "--time", "0.05", "--no-ponder", "--new"]
    typed = "6\nhelp\nposition\nquit\n"
    piped = run(*args, "--save", "a.json", stdin=typed)
    assert piped.exit_code == 0, piped.output
    assert max(map(len, piped.output.splitlines())) > 120
    on_terminal(monkeypatch, 80)
    shown = run(*args, "--save", "b.json", stdin=typed)
    assert shown.exit_code == 0, shown.output
    command = next(line for line in shown.output.splitlines() if "pazaak advise --position" in line)
    assert command.startswith("  pazaak advise --position 'kotor1 6 - +1,-2,±3,+4 ?,?,?,? ")
    assert command.endswith(" --opp-deck kotor1-strongest --opponent kotor")
    lines = [line for line in shown.output.splitlines() if line != command]
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    help_shown = shown.output.split("> help\n")[1].split("\n[set 1]")[0]
    assert words_of(help_shown) == words_of(follow_screen.HELP_TEXT)
    assert "Commands: undo (one event back, again and again), board, position (the" in lines


def test_rules_wraps_its_meanings_to_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`pazaak rules` was 98 columns wide on an 80-column terminal: the meanings now wrap
    beside their fields, no word split; a pipe still gets one line a field."""
    piped = run("rules", "kotor2")
    assert max(map(len, piped.output.splitlines())) > 80
    monkeypatch.setattr(rules_cmd, "terminal_width", lambda: 80)
    shown = run("rules", "kotor2")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert max(map(len, lines)) < 80, max(lines, key=len)
    assert [w for w in words_of(shown.output) if "--" not in w] == [
        w for w in words_of(piped.output) if "--" not in w
    ]  # (but the rule of dashes)
    at = lines.index("flip-targets    all-signs  flips turn over all-signs (2, 4, -2, -4) or")
    assert lines[at + 1].strip() == "positive-only"


def test_simulate_folds_its_headers_to_fit_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table of one pairing was 92 columns on an 80-column terminal: its headers fold
    ("match" over "wins"), the rows as they were."""
    args = ["simulate", "--p1", "heuristic", "--p2", "kotor", "--matches", "20", "--seed", "1"]
    piped = run(*args)
    assert piped.exit_code == 0, piped.output
    assert "match wins" in piped.output and max(map(len, piped.output.splitlines())) > 80
    monkeypatch.setattr(simulate_cmd, "terminal_width", lambda: 80)
    shown = run(*args)
    lines = shown.output.splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    head = next(at for at, line in enumerate(lines) if line.startswith("side"))
    assert lines[head].split()[3:] == ["match", "win", "95%", "sets", "busts"]
    assert lines[head + 1].split() == ["wins", "rate", "CI", "won"]
    rows = [line.split() for line in piped.output.splitlines() if line.startswith("p")]
    assert [line.split() for line in lines if line.startswith("p")] == rows


def test_a_mistyped_header_names_the_header_meant(tmp_path: Path) -> None:
    """`rulset: kotor2` was only "unknown header": the kotor2 deck was then checked as kotor1,
    each gold card refused with "write the header 'ruleset: kotor2'", which the player had
    (mistyped). The header now says which one was meant; one with no close match, as before."""
    deck = tmp_path / "gold.deck"
    deck.write_text("rulset: kotor2\nColor: red\nT T ±1/2 ±1/2 ±2 ±3 ±3 ±4 ±4 ±5\n", "utf-8")
    result = run("validate", str(deck))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == (
        f"{deck}:1:1: unknown header 'rulset:' (did you mean 'ruleset:'?); the headers are "
        "'name:', 'ruleset:', 'description:' (cards need no header)"
    )
    assert lines[1] == (
        f"{deck}:2:1: unknown header 'Color:'; the headers are 'name:', 'ruleset:', "
        "'description:' (cards need no header)"
    )


@pytest.mark.parametrize("option", ["--table", "--opp-table"])
def test_a_table_given_as_its_total_says_to_give_the_cards(option: str) -> None:
    """A player who typed the total he sees (`--opp-table 18`) read only that '18' is not a
    table card, and a list of card spellings: the error now says what a table is."""
    tables = {"--table": "8", "--opp-table": "10 8"} | {option: "18"}
    args = ["advise", "--hand", "+1", "--opp-stood", "--table", tables["--table"]]
    result = run(*args, "--opp-table", tables["--opp-table"])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: Invalid value for '{option}': '18' is not a table card: main-deck cards are 1 "
        "to 10, and a table is given card by card in the order placed, not as its total\n"
    )


def test_follow_names_the_ruleset_of_a_gold_hand_card(tmp_path: Path) -> None:
    """`follow --hand "+1 +2 +3 D"` under kotor1 said only that D is not in the kotor1 card
    pool, where advise and chart say which ruleset has it; nothing is saved."""
    save = tmp_path / "f.json"
    result = run("follow", "--hand", "+1 +2 +3 D", "--save", str(save), stdin="")
    assert result.exit_code == 2
    assert result.output == (
        "Error: Invalid value for --hand: D is not a kotor1 card: kotor2 has it (--ruleset "
        "kotor2)\n"
    )
    assert not save.exists()
