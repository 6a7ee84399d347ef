"""The ``pazaak`` command group.

Commands are imported only when they run (or when ``--help`` lists them), so that a quick
``pazaak advise`` does not pay for importing ``play`` and ``simulate``. This lazy loading by name
(:meth:`LazyGroup.get_command`) is the package's one import inside a function; it is not a
circle: no command module imports this one (see the layers in :mod:`pazaak_cli`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import NoReturn

import click

from pazaak_cli import __version__
from pazaak_cli.commands.common import EXIT_DOMAIN, PazaakGroup
from pazaak_cli.solve.time_budget import mark_launched

COMMANDS = {
    "play": ("pazaak_cli.commands.play_cmd", "play_command"),
    "advise": ("pazaak_cli.commands.advise_cmd", "advise_command"),
    "chart": ("pazaak_cli.commands.chart_cmd", "chart_command"),
    "follow": ("pazaak_cli.commands.follow_cmd", "follow_command"),
    "prepare": ("pazaak_cli.commands.prepare_cmd", "prepare_command"),
    "validate": ("pazaak_cli.commands.validate_cmd", "validate_command"),
    "decks": ("pazaak_cli.commands.decks_cmd", "decks_command"),
    "simulate": ("pazaak_cli.commands.simulate_cmd", "simulate_command"),
    "deckbuild": ("pazaak_cli.commands.deckbuild_cmd", "deckbuild_command"),
    "rules": ("pazaak_cli.commands.rules_cmd", "rules_command"),
    "engine": ("pazaak_cli.commands.engine_cmd", "engine_command"),
}
"""Every command: (module, attribute), in the order ``--help`` lists them."""

SUMMARIES = {
    "play": "a match in the shell, against the computer or a friend",
    "advise": "the exact odds of every move at the table you see",
    "chart": "the best move at every total for one hand, as a grid",
    "follow": "follow a KOTOR match move by move, with advice and the cards left",
    "prepare": "solve a deck pair's later sets ahead, for the match advice",
    "validate": "check side-deck files against a ruleset, every problem at once",
    "decks": "the sample decks, or the named ones card by card",
    "simulate": "many matches between computer opponents: who wins, how often",
    "deckbuild": "the side deck, from the cards you own, that wins most",
    "rules": "every field of a ruleset, a preset or a variant",
    "engine": "play and analyse from a program: JSON lines in and out",
}
"""What ``pazaak --help`` says of each command, in a line (without importing them all)."""


class LazyGroup(PazaakGroup):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, SUMMARIES[name]) for name in COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = COMMANDS.get(cmd_name)
        if found is None:
            return None
        module, attribute = found
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="pazaak")
def main() -> None:
    """Play, solve and validate Pazaak, the card game of Star Wars: KOTOR I and II.

    `pazaak COMMAND --help` says how to use each command below.
    """


def run() -> None:
    """The ``pazaak`` program (its entry point, and ``python -m pazaak_cli``): :func:`main` in
    a process launched to run it, whose time budgets count from the launch. Output that cannot
    be written (a closed standard output, a full disk) is one line and exit code 1, as every
    error is (Click takes a closed pipe, ``| head``, itself). A closed standard input reads as
    an empty one (``< /dev/null``): a game ends at the end of its input, a deck read from ``-``
    is empty."""
    mark_launched()
    if sys.stdout is None:
        _output_failed("standard output is closed")
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (the process's own)
    try:
        main(prog_name="pazaak")
    except OSError as error:  # (what reaches here was raised writing the output)
        _output_failed(f"cannot write the output: {error.strerror or error}")


def _output_failed(reason: str) -> NoReturn:
    """End the program on output it cannot write: the reason on standard error if it can."""
    with contextlib.suppress(OSError, AttributeError, ValueError):
        sys.stderr.write(f"Error: {reason}.\n")
        sys.stderr.flush()
    os._exit(EXIT_DOMAIN)  # (not sys.exit: the interpreter would flush the output again)
