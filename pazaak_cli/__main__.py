"""``python -m pazaak_cli``: the same as the ``pazaak`` command."""

from pazaak_cli.cli import run

run()
