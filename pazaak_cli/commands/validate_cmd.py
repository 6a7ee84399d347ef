"""``pazaak validate``: check side-deck files and explain every problem at once."""

from __future__ import annotations

import sys
from typing import Any

import click
from click.shell_completion import CompletionItem

from pazaak_cli.commands.common import (
    EXIT_DOMAIN,
    EXIT_OK,
    EXIT_USAGE,
    emit_json,
    json_option,
    ruleset_option,
)
from pazaak_cli.commands.deck_option import complete_decks
from pazaak_cli.engine.decks import (
    STDIN_SPEC,
    BinaryInputError,
    DeckReport,
    card_counts,
    check_deck,
    read_source,
)
from pazaak_cli.engine.errors import InputError
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.terminal.deck_table import summary_table
from pazaak_cli.terminal.text import style


class DeckArgument(click.ParamType):  # type: ignore[type-arg]
    """A deck path, ``-`` or a sample-deck name, kept as typed (the command reads it so that
    one unreadable file does not stop the others), with shell completion."""

    name = "file"

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        return complete_decks(incomplete)


def stdin_is_terminal() -> bool:
    """Whether standard input is a terminal: ``-`` then reads what the user types."""
    return sys.stdin.isatty()


@click.command("validate")
@click.argument("files", nargs=-1, required=True, type=DeckArgument(), metavar="FILE...")
@ruleset_option(default=None)
@json_option
def validate_command(files: tuple[str, ...], ruleset: Ruleset | None, as_json: bool) -> None:
    """Check side-deck files and list every problem at once.

    FILE is a path, - for standard input, or a sample deck's name. Each problem is printed as
    FILE:LINE:COLUMN: message; a valid deck gets a summary of its cards by kind. The ruleset is
    --ruleset if given, else the file's `ruleset:` header, else kotor1. Exit code 0: every file
    is a valid deck; 1: some deck is invalid (a binary file too); 2: some file cannot be read
    (missing, a directory, too large, - given a second time).

    \b
    Examples:
      pazaak validate my.deck
      pazaak validate --ruleset kotor2 a.deck b.deck
      cat my.deck | pazaak validate - --json
      pazaak validate kotor2-hard
    """
    results: list[dict[str, Any]] = []
    exit_code = EXIT_OK
    printed = False
    stdin_read = False
    for spec in files:
        try:
            if spec == STDIN_SPEC:
                if stdin_read:  # a second read would find it empty: say why, not "empty"
                    raise InputError(
                        f"{STDIN_SPEC}: standard input was already read for an earlier "
                        f"{STDIN_SPEC}; give {STDIN_SPEC} only once",
                        token=spec,
                    )
                stdin_read = True
                if stdin_is_terminal():  # (else it waits, saying nothing, for what it reads)
                    click.echo(
                        "Reading a deck from the terminal: type or paste its cards, then Ctrl-D "
                        "on a line of its own.",
                        err=True,
                    )
            source, data, sample = read_source(spec)
        except InputError as error:
            # a file read and found binary is not a valid deck (1); one that cannot be read is
            # a usage error (2)
            failed = EXIT_DOMAIN if isinstance(error, BinaryInputError) else EXIT_USAGE
            exit_code = max(exit_code, failed)
            results.append(_unread_json(spec, ruleset, str(error)))
            if not as_json:
                click.echo(style("Error: ", fg="red", bold=True) + str(error), err=True)
            continue
        report = check_deck(data, source, ruleset, name=sample)
        if report.deck is None:
            exit_code = max(exit_code, EXIT_DOMAIN)
        results.append(_report_json(source, report))
        if not as_json:
            if printed:
                click.echo()
            _print_report(source, report)
            printed = True
    if as_json:
        emit_json({"valid": exit_code == EXIT_OK, "files": results})
    click.get_current_context().exit(exit_code)


def _print_report(source: str, report: DeckReport) -> None:
    spec = report.ruleset.spec
    if report.deck is None:
        for problem in report.problems:
            where = f"{problem.path}:{problem.line}:{problem.column}:"
            click.echo(f"{style(where, bold=True)} {problem.message}")
        count = sum(problem.count for problem in report.problems)
        verdict = style("not a valid", fg="red", bold=True)
        plural = "s" if count != 1 else ""
        click.echo(f"{source}: {verdict} {spec} side deck ({count} problem{plural})")
        return
    deck = report.deck
    verdict = style("valid", fg="green", bold=True)
    cards = counted(len(deck.cards), "card")
    click.echo(f"{source}: {verdict} {spec} side deck {deck.name!r}, {cards}")
    click.echo(summary_table(deck))


def _unread_json(spec: str, ruleset: Ruleset | None, error: str) -> dict[str, Any]:
    """The entry of a file that could not be read as a deck: the keys of every other entry
    (a script reads one shape), with the ``error`` that kept it from being read."""
    return {
        "file": spec,
        "valid": False,
        "ruleset": None if ruleset is None else ruleset.spec,
        "error": error,
        "name": None,
        "description": None,
        "cards": None,
        "kinds": None,
        "problems": [],
    }


def _report_json(source: str, report: DeckReport) -> dict[str, Any]:
    """A file's entry: the same keys whether its deck is valid or not, or could not be read (a
    script reads one shape), ``name`` to ``kinds`` null for an invalid one, ``error`` null for
    one that was read."""
    data: dict[str, Any] = {
        "file": source,
        "valid": report.deck is not None,
        "ruleset": report.ruleset.spec,
        "error": None,
    }
    if report.deck is None:
        data.update(name=None, description=None, cards=None, kinds=None)
        data["problems"] = [
            {
                "line": problem.line,
                "column": problem.column,
                "token": problem.token,
                "message": problem.message,
            }
            for problem in report.problems
        ]
        return data
    deck = report.deck
    data["name"] = deck.name
    data["description"] = deck.description
    data["cards"] = [str(card) for card in deck.cards]
    data["kinds"] = {kind.value: len(cards) for kind, cards in card_counts(deck.cards)}
    data["problems"] = []
    return data
