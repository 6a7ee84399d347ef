"""``pazaak decks``: list the sample decks, or show some of them card by card."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

import click
from click.shell_completion import CompletionItem
from tabulate import tabulate

from pazaak_cli.commands.common import EXIT_CODES, emit_json, json_option, ruleset_option
from pazaak_cli.engine.decks import (
    DEFAULT_DECKS,
    SAMPLE_PREFIX,
    SideDeck,
    card_counts,
    load_deck,
    sample_deck,
    sample_decks,
    sample_names,
)
from pazaak_cli.engine.errors import DeckError
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.terminal.deck_table import summary_table
from pazaak_cli.terminal.text import style, wrap_lines


class SampleName(click.ParamType):  # type: ignore[type-arg]
    """The name of a sample deck (completed by the shell), or ``sample:NAME`` as every deck
    option takes it; a deck file named is pointed to ``pazaak validate``, which shows one."""

    name = "name"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        name = str(value).removeprefix(SAMPLE_PREFIX)
        if name in sample_names():
            return name
        shown = ""
        if os.path.isfile(value):
            shown = f" ({value} is a deck file: `pazaak validate {value}` shows its cards)"
        self.fail(
            f"no sample deck {value!r}{shown}; the sample decks are {', '.join(sample_names())}",
            param,
            ctx,
        )

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        return [CompletionItem(name) for name in sample_names() if name.startswith(incomplete)]


@click.command("decks", epilog=EXIT_CODES)
@click.argument("names", nargs=-1, type=SampleName(), metavar="[NAME]...")
@ruleset_option(default=None)
@json_option
def decks_command(names: tuple[str, ...], ruleset: Ruleset | None, as_json: bool) -> None:
    """List the sample decks, or show the named ones card by card.

    Any command that takes a deck (--deck, --p1-deck, validate) accepts a sample deck's name in
    place of a file. With --ruleset, only the decks valid under that ruleset are listed, and a
    deck named is shown with whether it is valid under it, and why not.

    \b
    Examples:
      pazaak decks
      pazaak decks --ruleset kotor1
      pazaak decks kotor2-hard --json
    """
    decks = [sample_deck(name) for name in names] if names else list(sample_decks())
    if ruleset is not None and not names:
        decks = [deck for deck in decks if deck.fits(ruleset)]
    if as_json:
        documents = [_deck_json(deck) for deck in decks]
        if ruleset is not None and names:
            for document, deck in zip(documents, decks, strict=True):
                problem = _misfit(deck, ruleset)
                document["valid_under"] = {"ruleset": ruleset.spec, "problem": problem}
        emit_json(documents)
        return
    if not decks:  # an empty table would say nothing
        under = (
            f" is valid under ruleset {ruleset.spec}" if ruleset is not None else " is installed"
        )
        click.echo(f"No sample deck{under}.")
        return
    if names:
        for index, deck in enumerate(decks):
            if index:
                click.echo()
            _print_deck(deck)
            if ruleset is not None:
                problem = _misfit(deck, ruleset)
                click.echo(
                    f"Valid under ruleset {ruleset.spec}."
                    if problem is None
                    else f"Not valid under ruleset {ruleset.spec}: {problem}"
                )
        return
    headers = ["name", "ruleset", "cards", "description"]
    rows = [[deck.name, deck.ruleset or "", str(deck), deck.description] for deck in decks]
    widths: list[int | None] = [None] * 4
    if sys.stdout.isatty():  # wrap to the terminal; a pipe gets one line a deck
        widths[2], widths[3] = _wrapped_widths(rows, headers, shutil.get_terminal_size().columns)
    table = tabulate(rows, headers=headers, maxcolwidths=widths)
    click.echo(table)
    defaults = sorted(set(DEFAULT_DECKS.values()))
    click.echo(
        wrap_lines(
            f"\nUse a name wherever a deck is asked for: pazaak validate NAME, --deck NAME. "
            f"Default deck: {', '.join(defaults)}."
        )
    )


def _wrapped_widths(rows: list[list[str]], headers: list[str], columns: int) -> tuple[int, int]:
    """The widths of the cards and description columns that fit a terminal ``columns`` wide
    beside the name and ruleset (two spaces between columns): the cards wrapped five or more
    to a line where they must, the description taking the rest (20 at least)."""
    name, ruleset = (  # (tabulate pads a header 2 past its text)
        max(len(headers[i]) + 2, *(len(row[i]) for row in rows)) for i in range(2)
    )
    left = columns - 1 - (name + 2) - (ruleset + 2) - 2
    cards = max(len(row[2]) for row in rows)
    if cards + 30 > left:
        cards = max(14, min(cards, left // 3))
    return cards, max(20, left - cards)


def _print_deck(deck: SideDeck) -> None:
    click.echo(f"{style(deck.name, bold=True)} ({deck.ruleset or 'any ruleset'})")
    if deck.description:
        click.echo(deck.description)
    click.echo(f"cards: {deck}")
    click.echo(summary_table(deck))


def _misfit(deck: SideDeck, ruleset: Ruleset) -> str | None:
    """Why a sample deck is not valid under ``ruleset`` (its first problem), or ``None``."""
    if deck.fits(ruleset):
        return None
    try:
        load_deck(deck.source, ruleset)
    except DeckError as error:
        return str(error)
    return "it does not fit"


def _deck_json(deck: SideDeck) -> dict[str, Any]:
    return {
        "name": deck.name,
        "ruleset": deck.ruleset,
        "description": deck.description,
        "cards": [str(card) for card in deck.cards],
        "kinds": {kind.value: len(cards) for kind, cards in card_counts(deck.cards)},
    }
