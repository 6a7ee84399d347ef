"""``--deck``-style options that every command taking a side deck reuses.

A deck option accepts a path, a sample-deck name (``pazaak decks`` lists them; the shell
completes them) or ``sample:NAME``, and ``-`` for standard input where the command allows it.
A file that cannot be read is a usage error (exit 2); a deck that is not valid for the command's
ruleset is a domain failure (exit 1) whose message locates the problems as ``FILE:LINE:COLUMN``.

Usage::

    @click.command()
    @ruleset_option(default=None)
    @deck_option("--deck", default="kotor1-starter")
    def play(ruleset: Ruleset | None, deck: SideDeck) -> None: ...

The command receives a :class:`~pazaak_cli.engine.decks.SideDeck` already validated against the
value of its ``ruleset`` parameter (``None``: the deck's own ``ruleset:`` header, else the default).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click
from click.shell_completion import CompletionItem

from pazaak_cli.engine.decks import (
    STDIN_SPEC,
    SideDeck,
    check_deck,
    describe_problems,
    load_deck,
    read_source,
    sample_deck,
    sample_names,
)
from pazaak_cli.engine.errors import DeckError, InputError, PazaakError
from pazaak_cli.engine.rules import Ruleset

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class DeckSource:
    """A deck file read but not yet validated: validation needs the command's ruleset, which
    Click may parse after the deck option."""

    spec: str
    """What the user typed."""
    source: str
    """The path, ``<stdin>`` or ``sample:NAME``: what messages call it."""
    data: bytes
    sample: str | None
    """The sample-deck name, when it is one."""

    def load(self, ruleset: Ruleset | None = None) -> SideDeck:
        """The valid deck, checked against ``ruleset`` (``None``: the header's, else the
        default); a one-line :class:`click.ClickException` (exit 1) locating the problems."""
        report = check_deck(self.data, self.source, ruleset, name=self.sample)
        if report.deck is None:
            raise click.ClickException(
                f"invalid {report.ruleset.spec} side deck: {describe_problems(report.problems)}"
            )
        return report.deck


def load_deck_option(spec: str, ruleset: Ruleset | None, option: str) -> SideDeck:
    """The deck an option of a command names, read when the command runs (not by Click): one
    that cannot be read is a usage error naming the option (exit 2), one not valid a domain
    error naming it (exit 1), as :class:`DeckType` and :meth:`DeckSource.load` say them."""
    try:
        return load_deck(spec, ruleset)
    except InputError as error:
        raise click.BadParameter(error.message, param_hint=f"'{option}'") from None
    except DeckError as error:
        under = "" if ruleset is None else f"{ruleset.spec} "
        raise click.ClickException(f"invalid {under}side deck for {option}: {error}") from None


class DeckType(click.ParamType):  # type: ignore[type-arg]
    """A path, a sample-deck name, ``sample:NAME`` or (if allowed) ``-``, read into a
    :class:`DeckSource`. Unreadable input fails as a usage error (exit 2)."""

    name = "deck"

    def __init__(self, allow_stdin: bool = False) -> None:
        self.allow_stdin = allow_stdin

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, (DeckSource, SideDeck)):
            return value
        spec = str(value)
        if spec == STDIN_SPEC and not self.allow_stdin:
            self.fail("'-' (standard input) cannot be a deck here; give a file", param, ctx)
        try:
            source, data, sample = read_source(spec)
        except InputError as error:
            self.fail(str(error), param, ctx)
        return DeckSource(spec, source, data, sample)

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        """Sample-deck names (with their descriptions), and file names."""
        return complete_decks(incomplete)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "DECK"


def complete_decks(incomplete: str) -> list[CompletionItem]:
    """Shell completion for a deck argument: file names, then the matching sample names (bash
    falls back to files only when no sample name matches)."""
    items = [CompletionItem(incomplete, type="file")]
    for name in sample_names():
        if name.startswith(incomplete):
            try:
                help_text: str | None = sample_deck(name).description or None
            except PazaakError:
                help_text = None
            items.append(CompletionItem(name, help=help_text))
    return items


def deck_option(
    *param_decls: str,
    ruleset_param: str | None = "ruleset",
    default: str | None = None,
    required: bool = False,
    allow_stdin: bool = False,
    help: str | None = None,
) -> Callable[[F], F]:
    """A deck option (``deck_option("--deck")``, ``deck_option("--p1-deck", "p1_deck")``).

    The command receives a valid :class:`SideDeck` (or ``None`` when the option is not given and
    has no default), checked against the command's ``ruleset_param`` argument (``None`` or a
    missing parameter: the deck's header, else the default ruleset). Place it *below*
    ``@click.command`` like any option.
    """
    decls = param_decls or ("--deck",)
    text = help or (
        "Side deck: a deck file, or a sample deck name (see `pazaak decks`)"
        + (", or - for standard input" if allow_stdin else "")
        + "."
    )
    # (no default at all when there is none: Click 8.3 and later take an explicit None for a
    # value given, and a required option would then never be missing)
    defaults: dict[str, Any] = {} if default is None else {"default": default}
    option = click.option(
        *decls,
        type=DeckType(allow_stdin=allow_stdin),
        required=required,
        show_default=default is not None,
        help=text,
        **defaults,
    )

    def decorator(func: F) -> F:
        probe = click.Option(list(decls))
        name = probe.name
        assert name is not None

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            value = kwargs.get(name)
            if isinstance(value, DeckSource):
                ruleset = kwargs.get(ruleset_param) if ruleset_param else None
                kwargs[name] = value.load(ruleset if isinstance(ruleset, Ruleset) else None)
            return func(*args, **kwargs)

        return option(wrapper)  # type: ignore[return-value]

    return decorator
