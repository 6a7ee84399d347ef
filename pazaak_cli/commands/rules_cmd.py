"""``pazaak rules``: show a ruleset, field by field."""

from __future__ import annotations

import textwrap

import click
from tabulate import tabulate

from pazaak_cli.commands.common import EXIT_CODES, RULESET, emit_json, json_option, ruleset_option
from pazaak_cli.engine.rules import DEFAULT_RULESET, Ruleset, parse_ruleset
from pazaak_cli.terminal.text import style, terminal_width, widest_line


@click.command("rules", epilog=EXIT_CODES)
@click.argument("named", required=False, type=RULESET, metavar="[RULESET]")
@ruleset_option(default=None)
@json_option
def rules_command(named: Ruleset | None, ruleset: Ruleset | None, as_json: bool) -> None:
    """Show every field of a ruleset (a preset, optionally with overrides), named as an
    argument (as `pazaak decks NAME` takes a deck) or with --ruleset; kotor1 by default.

    \b
    Examples:
      pazaak rules kotor2
      pazaak rules --ruleset kotor1/main-deck=infinite --json
    """
    if named is not None and ruleset is not None and named.spec != ruleset.spec:
        raise click.UsageError(f"give the ruleset once: {named.spec} or --ruleset {ruleset.spec}")
    ruleset = named or ruleset or parse_ruleset(DEFAULT_RULESET)
    rows = ruleset.fields()
    if as_json:
        data: dict[str, object] = {"ruleset": ruleset.spec, "preset": ruleset.name}
        for key, value, _ in rows:
            data[key] = int(value) if value.isdigit() else value
        data["card-pool"] = [str(card) for card in sorted(ruleset.card_pool)]
        emit_json(data)
        return
    click.echo(style(f"Ruleset {ruleset.spec}", bold=True))
    headers = ["field", "value", "meaning"]
    table = tabulate(rows, headers=headers)
    width = terminal_width()
    if width is not None and widest_line(table) > width:
        # (the meanings wrapped beside the fields: the table was 98 columns at 80)
        left = sum(max(len(headers[i]), *(len(row[i]) for row in rows)) + 2 for i in (0, 1))
        room = max(20, width - 1 - left)
        wrapped = [
            (key, value, textwrap.fill(meaning, room, break_on_hyphens=False))
            for key, value, meaning in rows
        ]
        table = tabulate(wrapped, headers=headers)
    click.echo(table)
