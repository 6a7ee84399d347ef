"""What every command shares: option decorators, parameter types, output and error handling.

Exit codes: 0 success, 1 a domain failure (an invalid deck, an impossible position, an illegal
move: any :class:`~pazaak_cli.engine.errors.PazaakError`), 2 a usage error (a bad option, a missing
file), 130 interrupted (Ctrl-C, in every command). No traceback reaches the user.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import textwrap
import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

from pazaak_cli.engine.errors import InputError, PazaakError
from pazaak_cli.engine.numbers import parse_whole
from pazaak_cli.engine.rules import DEFAULT_RULESET, PRESETS, Ruleset, parse_ruleset

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_DOMAIN = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""Ctrl-C: the shell convention (128 + SIGINT), in every command."""
EXIT_CODES = (
    "Exit codes: 0 success; 1 a domain failure (an invalid deck, an impossible position, a "
    "corrupt save, a save in use by another pazaak play); 2 a usage error (a bad option, a "
    "file that cannot be read); 130 interrupted by Ctrl-C."
)
"""The epilog of every command's --help: one meaning for each exit code."""


class PazaakGroup(click.Group):
    """A group that turns library errors into one clean line and exit code 1, and that turns
    colour off when ``NO_COLOR`` is set."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise one_line_usage(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        if os.environ.get("NO_COLOR"):
            ctx.color = False
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise one_line_usage(error) from None
        except KeyboardInterrupt:
            # Click would say "Aborted!" and exit 1, the code of a domain failure.
            click.echo("\nInterrupted.", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except InputError as error:
            raise UsageFailure(str(error)) from None
        except PazaakError as error:
            raise click.ClickException(str(error)) from None


class UsageFailure(click.ClickException):
    """A usage error (exit 2) shown as one line, without Click's usage banner: used for input
    files that cannot be read."""

    exit_code = EXIT_USAGE


def one_line_usage(error: click.UsageError) -> UsageFailure:
    """A usage error as one line (exit 2), as every error is: what was wrong, and where the
    command's options are listed (Click would print its usage banner over four lines)."""
    where = error.ctx.command_path if error.ctx is not None else "pazaak"
    message = error.format_message()
    if isinstance(error, click.BadParameter) and not isinstance(error, click.MissingParameter):
        return UsageFailure(message)  # (it says what was wrong with the value given)
    return UsageFailure(f"{message.rstrip('.')} (`{where} --help` lists what it takes).")


class RulesetType(click.ParamType):  # type: ignore[type-arg]
    """A ruleset spec: a preset name with optional overrides (``kotor2/main-deck=infinite``)."""

    name = "ruleset"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, Ruleset):
            return value
        try:
            return parse_ruleset(str(value))
        except PazaakError as error:
            self.fail(str(error), param, ctx)

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[click.shell_completion.CompletionItem]:
        return [
            click.shell_completion.CompletionItem(n) for n in PRESETS if n.startswith(incomplete)
        ]


RULESET = RulesetType()


class WholeNumber(click.IntRange):
    """Click's ``IntRange`` in ASCII digits only: Click's ``int`` takes ``٣`` for 3 and a number
    of thousands of digits to ``int()``; the text is read by
    :func:`pazaak_cli.engine.numbers.parse_whole` first (after a leading ``-``), then
    range-checked."""

    name = "integer"

    def _describe_range(self) -> str:
        """Nothing for a number without bounds (Click would show ``x<=None``)."""
        return "" if self.min is None and self.max is None else super()._describe_range()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if parse_whole(text.removeprefix("-"), max_digits=40) is None:
                shown = text if len(text) <= 20 else text[:17] + "..."
                self.fail(f"{shown!r} is not a whole number in the digits 0-9", param, ctx)
            value = text
        return super().convert(value, param, ctx)


class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A duration in seconds: a finite number in a range (``float()`` also reads ``nan``,
    ``inf`` and ``1e300``, which no pause should be)."""

    name = "seconds"

    def __init__(self, low: float, high: float) -> None:
        self.low = low
        self.high = high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            number = value
        else:
            text = str(value).strip()
            try:
                number = float(text) if text.isascii() and len(text) <= 20 else math.nan
            except ValueError:
                number = math.nan
        if not (math.isfinite(number) and self.low <= number <= self.high):
            shown = str(value) if len(str(value)) <= 20 else str(value)[:17] + "..."
            self.fail(
                f"{shown!r} is not a number of seconds from {self.low:g} to {self.high:g}",
                param,
                ctx,
            )
        return number


def ruleset_option(default: str | None = DEFAULT_RULESET) -> Callable[[F], F]:
    """``--ruleset``: a preset (kotor1, kotor2) with optional ``/key=value`` overrides."""
    return click.option(
        "--ruleset",
        "-r",
        type=RULESET,
        default=default,
        show_default=default is not None,
        help="Ruleset: kotor1 or kotor2, optionally with overrides, e.g. "
        "kotor2/main-deck=infinite (see `pazaak rules`).",
    )


def json_option(func: F) -> F:
    """``--json``: machine-readable output on standard output, never coloured."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print JSON for scripts instead of a table."
    )(func)


def seed_option(func: F) -> F:
    """``--seed``: every random choice comes from this seed; the same seed replays the same."""
    return click.option(
        "--seed",
        type=WholeNumber(),
        default=None,
        help="Seed for the random generator (default: random).",
    )(func)


TIME_HELP = (
    "Answer within about this many seconds: exactly where every possible hand of the opponent "
    "can be solved in time, else from a sample of them with a 95 % interval on every value. "
    "0: the exact answer however long it takes."
)


def time_option(default_help: str, *, lead: str = TIME_HELP) -> Callable[[F], F]:
    """``--time SECONDS``: the time budget of an answer about a hidden hand.
    ``default_help``: the budget the command takes when none is given; ``lead``: what the
    budget buys (a chart's differs from one answer's)."""
    return click.option(
        "--time",
        "time_budget",
        type=Seconds(0.0, MAX_BUDGET_SECONDS),
        default=None,
        metavar="SECONDS",
        help=f"{lead} {default_help}",
    )


def budget_seconds(
    time_budget: float | None,
    *,
    default: float | None,
    hands: int | None = None,
    exact: bool = False,
) -> float | None:
    """The one mapping of the command line to an answer's seconds (``None``: the exact answer,
    or exactly ``--hands`` hands, however long): ``--time`` as given, ``0`` meaning none;
    ``default`` where it is not given (each command's: a person waits at a terminal, a script
    does not); none with ``--exact`` or ``--hands``, which are usage errors beside ``--time``."""
    if hands is not None and (exact or time_budget is not None):
        also = "--time" if time_budget is not None else "--exact"
        raise click.UsageError(
            f"give either --hands (exactly the first N sampled hands) or {also}, not both"
        )
    if exact and time_budget:
        raise click.UsageError("--exact answers however long it takes: drop --time")
    if exact or hands is not None:
        return None
    if time_budget is not None:
        return time_budget or None
    return default


def sample_options(func: F) -> F:
    """``--seed`` and ``--hands``: the seed of a sampled answer's hands, and a replay of a
    sampled answer (exactly its first N sampled hands, whatever the time)."""
    func = click.option(
        "--seed",
        "sample_seed",
        type=WholeNumber(0, None),
        default=0,
        show_default=True,
        help="Seed of the sampled hands of a sampled answer: the same seed and --hands "
        "give the same answer.",
    )(func)
    return click.option(
        "--hands",
        "sample_hands",
        type=WholeNumber(2, None),
        default=None,
        metavar="N",
        help="Answer from exactly the first N sampled hands, however long it takes (a "
        "sampled answer's JSON gives its N: with its --seed, this replays it).",
    )(func)


MAX_BUDGET_SECONDS = 86_400.0
"""The longest --time taken (a day): more is a typing error, not a wish."""


def emit_json(data: Any) -> None:
    """Write ``data`` as indented JSON (no colour, ever)."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False), color=False)


def fail(message: str) -> click.ClickException:
    """A domain failure (exit 1) with a one-line message."""
    return click.ClickException(message)


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
        self.started = time.monotonic()
        self.hands = ""
        self.solved = ""
        self.width = 0
        self.shown = False

    def update(self, done: int, total: int) -> None:
        """Hidden hands averaged: ``done`` of ``total``, with the time left foreseen from the
        time they took."""
        self.hands = ""
        if done < total:
            spent = time.monotonic() - self.started
            left = spent * (total - done) / max(done, 1)
            self.hands = f"{done}/{total} hidden hands, about {duration_text(left)} left"
        self._show()

    def budget(self, solved: int, possible: int, left: float | None) -> None:
        """Hidden hands solved within a time budget, and the budget's time left."""
        if left is None:
            self.update(solved, possible)
            return
        self.hands = f"{solved}/{possible} hidden hands, {duration_text(left)} left"
        self._show()

    def positions(self, solved: int) -> None:
        """Positions solved so far in this search."""
        self.solved = f"{solved:,} positions"
        self._show()

    def _show(self) -> None:
        if not self.enabled or time.monotonic() - self.started < 1.0:
            return
        line = "Solving: " + ", ".join(part for part in (self.hands, self.solved) if part)
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
