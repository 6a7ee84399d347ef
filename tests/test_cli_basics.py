"""The command group itself: --version, -h/--help, ``python -m pazaak_cli``, ``pazaak rules``,
shell completion, and colour only where it belongs (never with NO_COLOR, never in JSON)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from pazaak_cli import __version__
from pazaak_cli.cli import main
from pazaak_cli.commands.common import PazaakGroup
from pazaak_cli.engine.errors import CardError, InputError
from pazaak_cli.terminal.text import printable

ESCAPE = "\x1b["


def invoke(
    *args: str, color: bool = False, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), color=color, env=env, prog_name="pazaak")
    return result.exit_code, result.stdout, result.stderr


def test_version_prints_the_package_version() -> None:
    for flag in ("--version", "-V"):
        code, out, _ = invoke(flag)
        assert code == 0 and out == f"pazaak, version {__version__}\n"


def test_help_is_shown_by_h_and_help() -> None:
    for flag in ("-h", "--help"):
        code, out, _ = invoke(flag)
        assert code == 0
        assert out.startswith("Usage: pazaak [OPTIONS] COMMAND [ARGS]...")
        assert "rules" in out and "--version" in out
    # every command, each with its whole line (the list cut them off, and the summary above
    # it named five of the eleven)
    from pazaak_cli.cli import COMMANDS, SUMMARIES

    assert list(SUMMARIES) == list(COMMANDS)
    listed = invoke("--help", env={"COLUMNS": "100"})[1].split("Commands:\n", 1)[1]
    assert [line.split()[0] for line in listed.splitlines()] == list(COMMANDS)
    assert "play       a match in the shell, against the computer or a friend" in listed


def test_python_m_pazaak_cli_runs_the_same_group() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pazaak_cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0 and result.stdout == f"pazaak, version {__version__}\n"


def test_an_unknown_command_is_a_usage_error() -> None:
    code, _, err = invoke("nonsense")
    assert code == 2 and "No such command 'nonsense'" in err
    assert "did you mean" not in err  # (no command is close to it)


def test_a_misspelt_command_is_answered_with_the_one_meant() -> None:
    code, _, err = invoke("advize")
    assert code == 2
    assert err.strip() == (
        "Error: No such command 'advize'; did you mean 'advise'? "
        "(`pazaak --help` lists what it takes)."
    )


def test_rules_shows_the_default_ruleset_as_a_table() -> None:
    code, out, _ = invoke("rules")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Ruleset kotor1"
    assert lines[1].split() == ["field", "value", "meaning"]
    rows = {line.split()[0]: line.split()[1] for line in lines[3:]}
    assert rows["nine-cards"] == "stand" and rows["first-player"] == "player1"
    assert rows["target"] == "20" and rows["sets-to-win"] == "3"
    assert all(len(line) <= 100 for line in lines), "fits a terminal"


def test_rules_shows_a_variant_with_its_spec() -> None:
    code, out, _ = invoke("rules", "--ruleset", "kotor2/main-deck=infinite")
    assert code == 0 and out.startswith("Ruleset kotor2/main-deck=infinite\n")
    assert "infinite" in out and "win" in out and "random" in out


def test_rules_json_is_plain_data_for_scripts() -> None:
    code, out, _ = invoke("rules", "-r", "kotor2", "--json", color=True)
    assert code == 0 and ESCAPE not in out
    data = json.loads(out)
    assert data["ruleset"] == data["preset"] == "kotor2"
    assert data["nine-cards"] == "win" and data["target"] == 20 and data["sets-to-win"] == 3
    assert len(data["card-pool"]) == 23 and data["card-pool"][:2] == ["+1", "+2"]
    assert data["card-pool"][-5:] == ["±1/2", "F2/4", "F3/6", "D", "T"]


def test_rules_refuses_an_unknown_ruleset_in_one_line() -> None:
    code, out, err = invoke("rules", "--ruleset", "kotor3")
    assert code == 2 and out == ""
    assert "unknown ruleset 'kotor3'; choose one of kotor1, kotor2" in err
    assert "Traceback" not in err


def test_a_bad_argument_is_said_without_clicks_label_for_it() -> None:
    # (it read "Invalid value for '[NAME]...': no sample deck 'nosuch'")
    code, _, err = invoke("decks", "nosuch")
    assert code == 2 and err.startswith("Error: no sample deck 'nosuch'; the sample decks are ")
    code, _, err = invoke("rules", "kotor3")
    assert (code, err) == (2, "Error: unknown ruleset 'kotor3'; choose one of kotor1, kotor2\n")


def test_rules_refuses_a_bad_override_naming_it() -> None:
    code, _, err = invoke("rules", "--ruleset", "kotor1/main-deck=endless")
    assert code == 2
    assert "'main-deck=endless': main-deck is one of shared, per-set, infinite" in err


def test_rules_help_has_examples() -> None:
    code, out, _ = invoke("rules", "--help")
    assert code == 0 and "Examples:" in out and "pazaak rules kotor2" in out


def test_colour_is_used_on_a_terminal() -> None:
    code, out, _ = invoke("rules", color=True)
    assert code == 0 and ESCAPE in out


def test_no_color_turns_colour_off() -> None:
    code, out, _ = invoke("rules", color=True, env={"NO_COLOR": "1"})
    assert code == 0 and ESCAPE not in out and out.startswith("Ruleset kotor1\n")


def test_shell_completion_script_is_printed_for_bash() -> None:
    code, out, _ = invoke(env={"_PAZAAK_COMPLETE": "bash_source"})
    assert code == 0 and "_pazaak_completion" in out and "complete " in out


def test_shell_completion_completes_ruleset_names() -> None:
    env = {
        "_PAZAAK_COMPLETE": "bash_complete",
        "COMP_WORDS": "pazaak rules --ruleset ko",
        "COMP_CWORD": "3",
    }
    code, out, _ = invoke(env=env)
    assert code == 0 and out.split() == ["plain,kotor1", "plain,kotor2"]


def failing_group() -> click.Group:
    """A throwaway PazaakGroup whose commands raise library errors."""

    @click.group(cls=PazaakGroup)
    def group() -> None:
        pass

    @group.command("domain")
    def domain() -> None:
        raise CardError("'+9' is not a side card: the number must be 1 to 6", token="+9")

    @group.command("usage")
    def usage() -> None:
        raise InputError("cannot read deck.txt: no such file")

    return group


def test_a_domain_error_is_one_line_and_exit_1() -> None:
    result = CliRunner().invoke(failing_group(), ["domain"])
    assert result.exit_code == 1
    assert result.stderr == "Error: '+9' is not a side card: the number must be 1 to 6\n"
    assert result.stdout == ""


def test_an_input_error_is_one_line_and_exit_2_without_the_usage_banner() -> None:
    result = CliRunner().invoke(failing_group(), ["usage"])
    assert result.exit_code == 2
    assert result.stderr == "Error: cannot read deck.txt: no such file\n"


# -- Ctrl-C and names from files (issue 12 item 16) ------------------------------------------------


@pytest.mark.parametrize(
    ("command", "module", "function", "args"),
    [
        (
            "simulate",
            "pazaak_cli.commands.simulate_cmd",
            "simulate",
            ["--matches", "2", "--seed", "1"],
        ),
        (
            "advise",
            "pazaak_cli.commands.advise_cmd",
            "answer",
            ["--table", "8 5", "--opp-table", "10 7", "--opp-stood"],
        ),
    ],
)
def test_ctrl_c_exits_130_in_every_command(
    monkeypatch: pytest.MonkeyPatch, command: str, module: str, function: str, args: list[str]
) -> None:
    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(module), function, interrupted)
    code, out, err = invoke(command, *args, env={"NO_COLOR": "1"})
    assert code == 130
    assert err == "\nInterrupted.\n"
    assert "Aborted" not in out + err


@pytest.mark.parametrize(
    "command", ["play", "advise", "chart", "prepare", "simulate", "rules", "decks", "engine"]
)
def test_every_command_documents_its_exit_codes(command: str) -> None:
    code, out, _ = invoke(command, "--help", env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert code == 0
    text = " ".join(out.split())
    assert "130 interrupted by Ctrl-C" in text
    assert "2 a usage error" in text and "1 a domain failure" in text


EVIL_NAME = "evil\x1b[2J\x1b]0;owned\x07"


def _evil_deck(tmp_path: Path) -> Path:
    deck = tmp_path / "evil.deck"
    deck.write_text(f"name: {EVIL_NAME}\n+1 +1 +2 +2 +3 +3 +4 +4 +5 +5\n", encoding="utf-8")
    return deck


def test_printable_escapes_control_characters_and_keeps_every_script() -> None:
    assert printable(EVIL_NAME) == "evil\\x1b[2J\\x1b]0;owned\\x07"
    assert printable("Ŝtaŕ ±5 Пазаак 星") == "Ŝtaŕ ±5 Пазаак 星"
    assert printable("a\nb\udc80") == "a\\nb\\udc80"


def test_play_shows_a_deck_name_with_escape_codes_escaped(tmp_path: Path) -> None:
    deck = _evil_deck(tmp_path)
    save = tmp_path / "m.json"
    runner = CliRunner()
    result = runner.invoke(
        main,
        ["play", "--deck", str(deck), "--seed", "1", "--save", str(save)],
        input="s\n" * 60,
        env={"NO_COLOR": "1", "PAZAAK_DATA_DIR": str(tmp_path)},
    )
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "You (evil\\x1b[2J\\x1b]0;owned\\x07) against" in result.stdout


def test_play_shows_seat_names_from_a_save_escaped(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    runner = CliRunner()
    env = {"NO_COLOR": "1", "PAZAAK_DATA_DIR": str(tmp_path)}
    args = ["play", "--opponent", "human", "--deck", "kotor1-starter", "--save", str(save)]
    runner.invoke(main, [*args, "--seed", "1"], input="e\n", env=env)
    document = json.loads(save.read_text(encoding="utf-8"))
    document["seats"][1]["name"] = EVIL_NAME
    save.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(main, ["play", "--resume", str(save)], input="state\n", env=env)
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "evil\\x1b[2J" in result.stdout


def test_simulate_shows_a_deck_name_with_escape_codes_escaped(tmp_path: Path) -> None:
    deck = _evil_deck(tmp_path)
    code, out, err = invoke(
        "simulate", "--p1-deck", str(deck), "--matches", "2", "--seed", "1",
        env={"NO_COLOR": "1", "COLUMNS": "200"},
    )  # fmt: skip
    assert code == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "evil\\x1b[2J\\x1b]0;owned\\x07" in out


@pytest.mark.parametrize(
    "args",
    [
        ["play", "--seed", "\N{ARABIC-INDIC DIGIT THREE}"],
        ["play", "--wager", "\N{FULLWIDTH DIGIT ONE}0"],
        ["simulate", "--matches", "\N{DEVANAGARI DIGIT FIVE}"],
        ["simulate", "--workers", "\N{SUPERSCRIPT TWO}"],
        ["advise", "--table", "5", "--opp-table", "7", "--opp-hand-size", "\N{THAI DIGIT THREE}"],
    ],
)
def test_number_options_take_ascii_digits_only(args: list[str]) -> None:
    """Click's ``int`` reads the digits of other scripts as numbers nobody typed."""
    code, _, err = invoke(*args, env={"NO_COLOR": "1"})
    assert code == 2
    assert "is not a whole number in the digits 0-9" in err
    assert err.count("\n") <= 4 and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--seed", "9" * 5000], "'99999999999999999...' is out of range: give at most 40"),
        (["simulate", "--seed", "1" * 41], "is out of range: give at most 40 digits"),
        (["simulate", "--matches", "1" + "0" * 40], "give a whole number from 1 to 100,000,000"),
    ],
)
def test_a_number_of_too_many_digits_is_out_of_range(args: list[str], said: str) -> None:
    """It is a whole number in the digits 0-9: only too long to be taken."""
    code, _, err = invoke(*args, env={"NO_COLOR": "1"})
    assert code == 2
    assert said in err
    assert "not a whole number" not in err and err.count("\n") == 1


ADVISE = ["advise", "--table", "7 3", "--opp-table", "10", "--opp-stood"]


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--table", "7 \N{SUPERSCRIPT TWO}"], 2, "'²' is not a table card"),
        (["--opp-table", "1\N{SUPERSCRIPT TWO}"], 2, "'1²' is not a table card"),
        (["--opp-table", "+\N{ARABIC-INDIC DIGIT THREE}"], 2, "'+٣' is not a table card"),
        (["--sets", "\N{SUPERSCRIPT TWO}-0"], 2, "'²-0' is not MINE-THEIRS"),
        (["--sets", "1000000000000-0"], 2, "is not MINE-THEIRS (two small whole numbers)"),
        (["--sets", "9" * 5000 + "-0"], 2, "'99999999999999999...' is not MINE-THEIRS"),
        (["--sets", "10000000-0"], 2, "is not MINE-THEIRS"),
        (["--sets", "100-0"], 1, "the match ends at 3 sets won: each player has won 0 to 2"),
        (["--ruleset", "kotor1/target=1000"], 2, "target must be a whole number from 1 to 50"),
        (["--ruleset", "kotor1/target=\N{SUPERSCRIPT TWO}"], 2, "from 1 to 50"),
        (["--ruleset", "kotor1/side-deck-size=999,hand-size=999"], 2, "from 1 to 200"),
        (["--seen", "\N{SUPERSCRIPT TWO}"], 2, "'²' is not a main-deck card"),
        (["--opp-hand-size", "9" * 40], 1, "is more than the 4 cards kotor1 deals to a hand"),
    ],
)
def test_advise_refuses_absurd_or_foreign_numbers_at_once(
    args: list[str], code: int, said: str
) -> None:
    """Each was a traceback, a MemoryError or seconds of work before a refusal."""
    exit_code, _, err = invoke(*ADVISE, *args, env={"NO_COLOR": "1"})
    assert exit_code == code, err
    assert said in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "position",
    [
        "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 433434344\N{SUPERSCRIPT TWO} a1 1",
        "kotor1/target=\N{SUPERSCRIPT TWO} 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1",
        "kotor1 3,2,\N{SUPERSCRIPT TWO} 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1",
    ],
)
def test_advise_refuses_other_digits_in_a_position_in_one_line(position: str) -> None:
    exit_code, _, err = invoke("advise", "--position", position, env={"NO_COLOR": "1"})
    assert exit_code == 2, err  # (a position that cannot be read: a bad option value)
    assert err.startswith("Error: field ") and err.count("\n") == 1


def test_the_solve_status_foresees_no_time_before_a_hand_is_done(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The status line on a terminal says how many hidden hands are averaged, and the time left
    only once one is done (from nothing done, any figure would be made up)."""
    from pazaak_cli.terminal import text

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    progress = text.SolveProgress(enabled=True)
    progress.started -= 10.0  # (shown after its first second)
    progress.update(0, 40)
    assert capsys.readouterr().err.strip() == "Solving: 0/40 hidden hands"
    progress.update(10, 40)
    assert capsys.readouterr().err.strip() == "Solving: 10/40 hidden hands, about 30 s left"
    # a count of positions alone (one hand, as `h m`'s) says how long it has run
    alone = text.SolveProgress(enabled=True)
    alone.started -= 42.0
    alone.positions(70_516_736)
    assert capsys.readouterr().err.strip() == "Solving: 70,516,736 positions, 42 s so far"
    # a forked copy that inherited the line writes nothing to it (its own counts alternated
    # with these on one line)
    monkeypatch.setattr(os, "getpid", lambda: alone.owner + 1)
    alone.positions(80_000_000)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["play", "--opponent"], "pazaak play"),
        (["advise", "--table"], "pazaak advise"),
        (["advise", "--bogus"], "pazaak advise"),
        (["nosuch"], "pazaak"),
    ],
)
def test_a_usage_error_points_at_the_commands_own_help(args: list[str], where: str) -> None:
    """An option missing its value pointed at `pazaak --help` (Click raises it with no
    context)."""
    code, _, err = invoke(*args)
    assert code == 2
    assert err.rstrip().endswith(f"(`{where} --help` lists what it takes).")


@pytest.mark.parametrize(
    ("args", "code", "exit_code", "words"),
    [
        (["advise", "--table", "5 x", "--hand", "+1", "--json"], "usage", 2, "'x' is not a table"),
        (["advise", "--tabel", "5", "--json"], "usage", 2, "No such option '--tabel'"),
        (["advise", "--position", "nonsense", "--json"], "usage", 2, "10 fields"),
        (
            ["advise", "--json", "--position", "kotor1 10,5 - +1 - -S - 4444344443 a1 1"],
            "failure",
            1,
            "cannot stand before his first draw",
        ),
        (["simulate", "--matches", "0", "--json"], "usage", 2, "--matches"),
        (["decks", "--ruleset", "kotor9", "--json"], "usage", 2, "kotor9"),
    ],
)
def test_a_json_commands_error_is_json_on_standard_output(
    args: list[str], code: str, exit_code: int, words: str
) -> None:
    """Under --json a script reads the error where it reads the answer: one JSON object on
    standard output, shaped as the engine protocol's errors, and nothing on standard error."""
    got, out, err = invoke(*args, env={"NO_COLOR": "1"})
    assert got == exit_code, (out, err)
    assert err == ""
    error = json.loads(out)["error"]
    assert error["code"] == code and error["exit_code"] == exit_code
    assert words in error["message"]
    assert out.count("\n") == 1


def test_an_error_is_a_line_on_standard_error_without_json_or_where_json_is_not_an_option() -> None:
    got, out, err = invoke("advise", "--position", "nonsense", env={"NO_COLOR": "1"})
    assert (got, out) == (2, "") and err.startswith("Error: a position has 10 fields")
    got, out, err = invoke("play", "--json", env={"NO_COLOR": "1"})  # (play has no --json)
    assert (got, out) == (2, "") and "No such option '--json'" in err
    got, out, err = invoke("advise", "--table", "5 x", "--", "--json", env={"NO_COLOR": "1"})
    assert got == 2 and out == "" and err.startswith("Error:")


@pytest.mark.parametrize(
    "args",
    [
        ["play", "--seed", "-3"],
        ["simulate", "--seed", "-3"],
        ["deckbuild", "--seed", "-3"],
        ["advise", "--table", "5", "--hand", "+1", "--opp-hand-size", "1", "--seed", "-3"],
        ["chart", "--hand", "+1", "--opp-hand-size", "1", "--seed", "-3"],
    ],
)
def test_every_seed_is_a_whole_number_from_0(args: list[str]) -> None:
    """One meaning for --seed in every command (and in the engine protocol): a negative seed
    is a usage error, where play, simulate and deckbuild took it and advise refused it."""
    got, _, err = invoke(*args, env={"NO_COLOR": "1"})
    assert got == 2 and "'--seed': -3 is out of range: give a whole number of at least 0" in err, (
        err
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_output_that_cannot_be_written_is_one_line_and_exit_1() -> None:
    """A full disk under standard output, or standard output closed: one line on standard
    error and exit 1, where a traceback was shown."""
    env = {**os.environ, "NO_COLOR": "1"}
    with open("/dev/full", "w", encoding="utf-8") as full:
        ran = subprocess.run(
            [sys.executable, "-m", "pazaak_cli", "rules", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            check=False,
        )
    assert ran.returncode == 1
    assert ran.stderr == "Error: cannot write the output: No space left on device.\n"
    closed = subprocess.run(
        [sys.executable, "-m", "pazaak_cli", "rules"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert (closed.returncode, closed.stderr) == (1, "Error: standard output is closed.\n")


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (
            ["play", "--deck", "kotor1-starter", "--seed", "1", "--save", "{tmp}/game.json"],
            0,
            "End of input. The match is saved in",
        ),
        (["validate", "-"], 1, "<stdin>:1:1: the file is empty"),
        (["engine"], 0, ""),
    ],
)
def test_a_closed_standard_input_reads_as_an_empty_one(
    args: list[str], code: int, said: str, tmp_path: Path
) -> None:
    """Standard input closed (``<&-``): what an empty input gives (a game saved at the end of
    its input, an empty deck refused), where a traceback was shown."""
    env = {**os.environ, "NO_COLOR": "1", "PAZAAK_CACHE_DIR": "off", "HOME": str(tmp_path)}
    ran = subprocess.run(
        [sys.executable, "-m", "pazaak_cli", *(a.format(tmp=tmp_path) for a in args)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert ran.returncode == code, ran.stderr
    assert "Traceback" not in ran.stderr
    assert said in ran.stdout + ran.stderr


def test_counts_agree_with_their_nouns_in_a_one_set_match() -> None:
    rules = "kotor1/sets-to-win=1"
    got, _, err = invoke(
        "advise",
        "-r",
        rules,
        "--table",
        "5",
        "--hand",
        "+1",
        "--opp-table",
        "10",
        "--opp-stood",
        "--sets",
        "1-0",
        env={"NO_COLOR": "1"},
    )
    assert got == 1 and "the match ends at 1 set won: each player has won none" in err
    got, out, _ = invoke("simulate", "--matches", "1", "--seed", "1", env={"NO_COLOR": "1"})
    assert got == 0 and "1 match, ruleset kotor1" in out and "1 matches" not in out
