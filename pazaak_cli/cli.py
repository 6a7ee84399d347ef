"""The ``pazaak`` command group."""

from __future__ import annotations

import click

from pazaak_cli import __version__
from pazaak_cli.commands.advise_cmd import advise_command
from pazaak_cli.commands.common import PazaakGroup
from pazaak_cli.commands.decks_cmd import decks_command
from pazaak_cli.commands.play_cmd import play_command
from pazaak_cli.commands.rules_cmd import rules_command
from pazaak_cli.commands.simulate_cmd import simulate_command
from pazaak_cli.commands.validate_cmd import validate_command


@click.group(cls=PazaakGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="pazaak")
def main() -> None:
    """Play, solve and validate Pazaak, the card game of Star Wars: KOTOR I and II.

    \b
    pazaak play       a game in the shell, against the computer or a friend
    pazaak advise     exact win/tie/loss odds for every move at your table
    pazaak validate   check a side-deck file against a ruleset
    """


main.add_command(rules_command)
main.add_command(play_command)
main.add_command(validate_command)
main.add_command(decks_command)
main.add_command(simulate_command)
main.add_command(advise_command)
