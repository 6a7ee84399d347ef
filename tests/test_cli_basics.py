"""The command group itself: --version, -h/--help, ``python -m pazaak_cli``, ``pazaak rules``,
shell completion, and colour only where it belongs (never with NO_COLOR, never in JSON)."""

from __future__ import annotations

import json
import subprocess
import sys

import click
from click.testing import CliRunner

from pazaak_cli import __version__
from pazaak_cli.cli import main
from pazaak_cli.commands.common import PazaakGroup
from pazaak_cli.errors import CardError, InputError

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


def test_rules_refuses_a_bad_override_naming_it() -> None:
    code, _, err = invoke("rules", "--ruleset", "kotor1/main-deck=endless")
    assert code == 2
    assert "'main-deck=endless': main-deck is one of shared, per-set, infinite" in err


def test_rules_help_has_examples() -> None:
    code, out, _ = invoke("rules", "--help")
    assert code == 0 and "Examples:" in out and "pazaak rules --ruleset kotor2" in out


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
