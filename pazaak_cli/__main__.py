"""``python -m pazaak_cli``: the same as the ``pazaak`` command."""

from pazaak_cli.cli import main

main(prog_name="pazaak")
