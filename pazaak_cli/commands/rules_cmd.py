"""``pazaak rules``: show a ruleset, field by field."""

from __future__ import annotations

import click
from tabulate import tabulate

from pazaak_cli.commands.common import emit_json, json_option, ruleset_option, style
from pazaak_cli.engine.rules import Ruleset


@click.command("rules")
@ruleset_option()
@json_option
def rules_command(ruleset: Ruleset, as_json: bool) -> None:
    """Show every field of a ruleset (a preset, optionally with overrides).

    \b
    Examples:
      pazaak rules --ruleset kotor2
      pazaak rules --ruleset kotor1/main-deck=infinite --json
    """
    rows = ruleset.fields()
    if as_json:
        data: dict[str, object] = {"ruleset": ruleset.spec, "preset": ruleset.name}
        for key, value, _ in rows:
            data[key] = int(value) if value.isdigit() else value
        data["card-pool"] = [str(card) for card in sorted(ruleset.card_pool)]
        emit_json(data)
        return
    click.echo(style(f"Ruleset {ruleset.spec}", bold=True))
    click.echo(tabulate(rows, headers=["field", "value", "meaning"]))
