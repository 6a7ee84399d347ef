"""Typed lines: what a person types at the prompt of ``pazaak play`` and ``pazaak follow``, one
line at a time, from a terminal or a pipe (echoed, so that a transcript reads like the session),
and the checks of where input and output go.
"""

from __future__ import annotations

import sys

import click

MAX_LINE_BYTES = 1000
"""A typed command longer than this is refused (and the rest of the line skipped)."""


class _Marker(str):
    """A value that stands for something else than the text it holds: told apart by identity
    (``is``), so that no line typed can be taken for it."""


TOO_LONG: str = _Marker("\x00")
"""What :meth:`LineReader.read` returns for a line over :data:`MAX_LINE_BYTES` (compare with
``is``: a typed line holding a lone NUL is equal to it, and is an ordinary wrong command)."""


MAX_JSON_LINE_BYTES = 8 * MAX_LINE_BYTES
"""A ``--json`` input line longer than this is refused: room for a typed line of
:data:`MAX_LINE_BYTES` written with JSON escapes (``\\u00b1`` for ``±``)."""


def read_line_bytes(limit: int) -> tuple[bytes | None, bool]:
    """One line of standard input (``None`` at its end), and whether it fitted in ``limit``
    bytes: the rest of a longer line is read and dropped, never held."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        text = sys.stdin.readline()
        return (text.encode("utf-8") if text else None), len(text) <= limit
    raw: bytes = stream.readline(limit + 1)
    if not raw:
        return None, True
    if len(raw) > limit and not raw.endswith(b"\n"):
        while True:
            rest = stream.readline(64 * 1024)
            if not rest or rest.endswith(b"\n"):
                break
        return raw, False
    return raw, True


CLEAR_SCREEN = "\033[H\033[2J\033[3J"
"""Clears the terminal and its scrollback: hides one player's hand from the other (hot seat)."""


def stdin_is_terminal() -> bool:
    """Whether a person types at a terminal (else the commands come from a pipe or a file)."""
    return sys.stdin.isatty()


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    """Whether status lines (written to stderr) reach a terminal."""
    return sys.stderr.isatty()


def clear_screen() -> None:
    """Clear a terminal and its scrollback. Not a colour, so NO_COLOR does not turn it off (the
    hot seat needs it to hide a hand); nothing is written when the output is not a terminal."""
    if stdout_is_terminal():
        click.echo(CLEAR_SCREEN, nl=False, color=True)


class LineReader:
    """Reads one command line at a time; ``None`` at the end of the input.

    From a pipe, the line read is echoed after the prompt, so that a transcript reads like the
    session it was; a terminal echoes by itself (and ``input`` gives line editing).
    """

    def __init__(self, terminal: bool) -> None:
        self.terminal = terminal

    def read(self, prompt: str) -> str | None:
        if self.terminal:
            try:
                return input(prompt)
            except EOFError:
                click.echo()
                return None
        click.echo(prompt, nl=False)
        raw, complete = self._read_bytes()
        if raw is None:
            click.echo()
            return None
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not complete:
            click.echo(line[:40] + "...")
            return TOO_LONG
        click.echo(line)
        return line

    @staticmethod
    def _read_bytes() -> tuple[bytes | None, bool]:
        """One line (``None`` at the end of the input), and whether it fitted in
        :data:`MAX_LINE_BYTES` (the rest of a longer line is read and dropped)."""
        return read_line_bytes(MAX_LINE_BYTES)
