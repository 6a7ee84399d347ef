"""What a person at a terminal reads: colour that honours NO_COLOR, lines wrapped to the terminal,
printable text, progress bars that appear only on long work, durations in words. The commands
write through these; nothing here computes a rule or an answer.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
import time
from typing import Any

import click


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: every character that is not printable (an escape
    code, a control character, a lone surrogate) is written as its Python escape (``\\x1b``), as
    ``validate`` shows a deck name; printable text of any script is kept as it is. Use it for
    every name that comes from a file or a save (deck names, seat names)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def terminal_width() -> int | None:
    """The width of the terminal standard output goes to (``None``: not a terminal, whose
    reader gets every line whole)."""
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


def wrap_lines(text: str, width: int | None = None) -> str:
    """``text`` with each line of prose longer than ``width`` (default: the terminal's; not a
    terminal: none) wrapped at spaces, its continuation lines indented by two; a table's lines
    (a run of two spaces, or a rule of dashes) are left as they are."""
    width = terminal_width() if width is None else width
    if width is None:
        return text
    lines = []
    for line in text.split("\n"):
        if len(click.unstyle(line)) <= width or "  " in line or line.startswith("--"):
            lines.append(line)
            continue
        lines += textwrap.wrap(
            line,
            width=max(width - 1, 20),
            subsequent_indent="  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return "\n".join(lines)


def widest_line(text: str) -> int:
    """The width of ``text``'s widest line as a terminal shows it (colour codes take none)."""
    return max(map(len, click.unstyle(text).split("\n")))


def hanging(label: str, text: str, indent: int, width: int | None = None) -> str:
    """``label`` padded to ``indent`` columns, then ``text``: on a terminal narrower than the
    line (``width``, default: the terminal's; not a terminal: none), ``text`` wrapped at
    spaces, its continuation lines indented to line up under its start (a list of commands or
    decks, one a line, each with what it does)."""
    head = label.ljust(indent) if len(label) < indent else f"{label} "
    width = terminal_width() if width is None else width
    if width is None or len(head) + len(text) <= width:
        return head + text
    return textwrap.fill(
        text,
        width=max(width - 1, indent + 20),
        initial_indent=head,
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def style(text: str, **styles: Any) -> str:
    """Colour for people: Click strips it when the output is not a terminal or when
    ``NO_COLOR`` is set (see :class:`PazaakGroup`)."""
    return click.style(text, **styles)


PROGRESS_AFTER_SECONDS = 1.0
"""A progress bar appears only once a run has taken this long (and stderr is a terminal)."""


class LazyProgress:
    """A progress bar on standard error that appears only once the run has lasted
    :data:`PROGRESS_AFTER_SECONDS` (short runs stay silent), and only when ``enabled`` (a
    terminal, no ``--json``); called with how many more ``label`` are done."""

    def __init__(self, total: int, *, enabled: bool, label: str = "matches") -> None:
        self.total = total
        self.enabled = enabled
        self.label = label
        self.done = 0
        self.started = time.monotonic()
        self.bar: Any = None

    def __call__(self, finished: int) -> None:
        self.done += finished
        if self.bar is not None:
            self.bar.update(finished)
        elif self.enabled and time.monotonic() - self.started >= PROGRESS_AFTER_SECONDS:
            self.bar = click.progressbar(
                length=self.total, label=self.label, file=sys.stderr, show_eta=True
            )
            self.bar.__enter__()
            self.bar.update(self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


class SolveProgress:
    """One status line on standard error while a solve takes more than a second (on a terminal
    only): the hidden hands averaged so far and the positions solved, so that a long search
    shows it is moving (Ctrl-C stops it)."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.owner = os.getpid()
        """The process that shows the line: a forked copy solving a share inherits this object
        and its callbacks, and its counts, written too, alternated with these on one line."""
        self.started = time.monotonic()
        self.hands = ""
        self.solved = ""
        self.width = 0
        self.shown = False

    def update(self, done: int, total: int) -> None:
        """Hidden hands averaged: ``done`` of ``total``, with the time left foreseen from the
        time they took."""
        self.hands = ""
        if done == 0:  # (nothing to foresee the time left from yet)
            self.hands = f"{done}/{total} hidden hands"
        elif done < total:
            spent = time.monotonic() - self.started
            left = spent * (total - done) / done
            self.hands = f"{done}/{total} hidden hands, about {duration_text(left)} left"
        self._show()

    def budget(self, solved: int, possible: int, left: float | None) -> None:
        """Hidden hands solved within a time budget (in every process), and the budget's time
        left; past it, that the hands under way are being ended (not "0 s left")."""
        if left is None:
            self.update(solved, possible)
            return
        when = "ending the hands under way"
        if left > 0:
            when = f"{duration_text(left)} left" if left >= 0.5 else "under a second left"
        self.hands = f"{solved}/{possible} hidden hands, {when}"
        self._show()

    def positions(self, solved: int) -> None:
        """Positions solved so far in this search."""
        self.solved = f"{solved:,} positions"
        self._show()

    def _show(self) -> None:
        spent = time.monotonic() - self.started
        if not self.enabled or spent < 1.0 or os.getpid() != self.owner:
            return
        # (a count of positions alone has no end in sight: the time it has run says it moves)
        ran = "" if self.hands else f"{duration_text(spent)} so far"
        line = "Solving: " + ", ".join(part for part in (self.hands, self.solved, ran) if part)
        self.width = max(self.width, len(line))
        click.echo("\r" + line.ljust(self.width), nl=False, err=True)
        self.shown = True

    def close(self) -> None:
        if self.shown:
            click.echo("\r" + " " * self.width + "\r", nl=False, err=True)


def duration_text(seconds: float) -> str:
    """``12 s``, ``3 min``, ``2 h``: a time left, as a person reads it."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def elapsed_text(seconds: float) -> str:
    """``12.3 s``, ``4 min 5 s``: how long a finished run took."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"
