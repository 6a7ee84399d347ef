"""What every command shares: option decorators, parameter types, output and error handling.

Exit codes: 0 success, 1 a domain failure (an invalid deck, an impossible position, an illegal
move: any :class:`~pazaak_cli.engine.errors.PazaakError`), 2 a usage error (a bad option, a missing
file), 130 interrupted (Ctrl-C, in every command). No traceback reaches the user. A command run
with ``--json`` says its error in JSON too (:func:`emit_json_error`), where a script reads.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from pazaak_cli.engine.errors import InputError, PazaakError
from pazaak_cli.engine.numbers import is_ascii_digits, parse_whole
from pazaak_cli.engine.rules import DEFAULT_RULESET, PRESETS, Ruleset, parse_ruleset
from pazaak_cli.runtime.savefile import set_aside

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
ERROR_CODES = {EXIT_DOMAIN: "failure", EXIT_USAGE: "usage", EXIT_INTERRUPTED: "interrupted"}
"""The ``code`` of a ``--json`` error object, by exit code."""
JSON_ERRORS = "pazaak.json_errors"
"""The key of ``ctx.meta`` that says whether the command's errors are written as JSON."""


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
            ctx = super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            raise one_line_usage(error) from None
        ctx.meta[JSON_ERRORS] = self._asks_json(ctx, args)
        return ctx

    def _asks_json(self, ctx: click.Context, args: Sequence[str]) -> bool:
        """Whether the command line runs a command that takes ``--json`` with ``--json`` (read
        from the words, so that an error in reading the others is JSON too)."""
        words = list(args[: args.index("--")] if "--" in args else args)
        name = next((word for word in words if not word.startswith("-")), None)
        command = self.get_command(ctx, name) if name is not None else None
        takes_json = command is not None and any(p.name == "as_json" for p in command.params)
        return takes_json and "--json" in words

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command named first in ``args``; an unknown name is answered with the command
        it most likely meant, if one is close (``advize``: ``advise``)."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as error:
            name = args[0] if args else ""
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            if not close or self.get_command(ctx, name) is not None:
                raise
            raise click.UsageError(
                f"No such command {name!r}; did you mean {close[0]!r}?", error.ctx
            ) from None

    def invoke(self, ctx: click.Context) -> Any:
        if os.environ.get("NO_COLOR"):
            ctx.color = False
        try:
            return self._invoke_plainly(ctx)
        except click.ClickException as error:
            if not ctx.meta.get(JSON_ERRORS):
                raise
            emit_json_error(error.format_message(), error.exit_code)
            raise click.exceptions.Exit(error.exit_code) from None

    def _invoke_plainly(self, ctx: click.Context) -> Any:
        """The command, its errors turned into one line and an exit code."""
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:
            # (an option missing its value is raised with no context: name the subcommand)
            sub = ctx.invoked_subcommand
            where = f"{ctx.command_path} {sub}" if error.ctx is None and sub else None
            raise one_line_usage(error, where) from None
        except KeyboardInterrupt:
            # Click would say "Aborted!" and exit 1, the code of a domain failure.
            if ctx.meta.get(JSON_ERRORS):
                emit_json_error("Interrupted.", EXIT_INTERRUPTED)
            else:
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


def one_line_usage(error: click.UsageError, where: str | None = None) -> UsageFailure:
    """A usage error as one line (exit 2), as every error is: what was wrong, and where the
    command's options are listed (Click would print its usage banner over four lines;
    ``where``: the command, if the error does not know it)."""
    if where is None:
        where = error.ctx.command_path if error.ctx is not None else "pazaak"
    message = error.format_message()
    if isinstance(error, click.BadParameter) and not isinstance(error, click.MissingParameter):
        if isinstance(error.param, click.Argument):  # (not "Invalid value for '[NAME]...'")
            message = error.message
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
            digits = text.removeprefix("-")
            if parse_whole(digits, max_digits=40) is None:
                shown = text if len(text) <= 20 else text[:17] + "..."
                if is_ascii_digits(digits):  # (a number, of more digits than any taken)
                    limit = "give at most 40 digits" if self.max is None else self._in_words()
                    self.fail(f"{shown!r} is out of range: {limit}", param, ctx)
                self.fail(f"{shown!r} is not a whole number in the digits 0-9", param, ctx)
            value = text
        number = int(value)
        low, high = self.min, self.max
        if (low is not None and number < low) or (high is not None and number > high):
            self.fail(f"{number:,} is out of range: {self._in_words()}", param, ctx)
        return super().convert(value, param, ctx)

    def _in_words(self) -> str:
        """The range as a person says it (Click's ``1<=x<=100000000`` is a formula)."""
        low, high = self.min, self.max
        if high is None:
            return f"give a whole number of at least {low:,}"
        if low is None:
            return f"give a whole number of at most {high:,}"
        return f"give a whole number from {low:,} to {high:,}"


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
    """``--seed``: every random choice comes from this seed; the same seed replays the same. A
    whole number from 0, as every seed of the project is (a sampled answer's, the engine's)."""
    return click.option(
        "--seed",
        type=WholeNumber(0, None),
        default=None,
        help="Seed for the random generator, a whole number from 0 (default: random).",
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


def ponder_option(what: str) -> Callable[[F], F]:
    """``--ponder/--no-ponder``: work ahead on ``what`` while the person types (at a terminal:
    :mod:`pazaak_cli.solve.pondering`)."""
    return click.option(
        "--ponder/--no-ponder",
        default=True,
        help=f"While you type at a terminal, work ahead on {what} (the later sets of the match "
        "answer, in the background on one core), so that at the first moves of a match it can "
        "be the match's within the time budget. Default: on.",
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


def refuse_given(ctx: click.Context, options: Sequence[tuple[str, str]], reason: str) -> None:
    """An option among ``options`` (parameter name, flag) that the user gave is a usage error
    saying that it ``cannot be used with`` ``reason``: never silently ignored."""
    for name, flag in options:
        if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError(f"{flag} cannot be used with {reason}", ctx)


def refuse_with_known_hand(ctx: click.Context, given_by: str) -> None:
    """The options that choose and draw a hidden opponent hand (``--opp-deck``, ``--hands``,
    ``--seed``) given where the opponent's hand is known (``given_by``: the option or notation
    that gave it) are a usage error: they would change nothing, and a script that sets them
    believes it gets a sample."""
    refuse_given(
        ctx,
        (("opp_deck", "--opp-deck"), ("sample_hands", "--hands"), ("sample_seed", "--seed")),
        f"a known opponent hand ({given_by}): it is for a hidden hand, whose possible hands "
        "it chooses or samples",
    )


def refuse_with_resume(ctx: click.Context, options: Sequence[tuple[str, str]], kept: str) -> None:
    """A resumed match keeps its own settings: an option among ``options`` (parameter name,
    flag) given with ``--resume`` is a usage error saying so (``kept``: what the match keeps);
    so is ``--new`` (parameter ``replace``), which asks for the opposite."""
    refuse_given(ctx, options, f"--resume: a resumed match keeps its own {kept}")
    refuse_given(
        ctx,
        [("replace", "--new")],
        "--resume: --new starts a new match, --resume goes on with a saved one",
    )


def check_out_file(path: str, force: bool) -> None:
    """Refuse an ``--out`` that could not be written, or would replace a file without
    ``--force``, before the work, not after it (a usage error)."""
    if os.path.isdir(path):
        raise UsageFailure(f"--out {path}: is a directory; give a file name")
    if os.path.lexists(path) and not force:
        raise UsageFailure(f"--out {path}: the file exists; use --force to replace it")
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        if os.path.exists(directory):  # (a file: "no such directory" sent the user looking)
            raise UsageFailure(f"--out {path}: {directory} is a file, not a directory")
        raise UsageFailure(f"--out {path}: no such directory {directory}")


def write_out_file(path: str, text: str) -> None:
    """Write an ``--out`` file atomically (a temporary file beside it, renamed over: the old
    file whole or the new one, never half of one), readable as any file the user makes."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".pazaak-out-", dir=directory)
    except OSError as error:
        raise UsageFailure(f"--out {path}: cannot write there ({_reason(error)})") from None
    try:
        os.fchmod(handle, 0o644)  # (not mkstemp's private 0600)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise UsageFailure(f"--out {path}: cannot write it ({_reason(error)})") from None


def _reason(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


def emit_json_error(message: str, exit_code: int) -> None:
    """A command's error under ``--json``: one JSON object on standard output (in place of the
    line on standard error), as the engine protocol's errors read: ``{"error": {"code":
    "usage", "message": ..., "exit_code": 2}}``."""
    code = ERROR_CODES.get(exit_code, "failure")
    error = {"code": code, "message": message, "exit_code": exit_code}
    click.echo(json.dumps({"error": error}, ensure_ascii=False), color=False)


def emit_json(data: Any) -> None:
    """Write ``data`` as indented JSON (no colour, ever)."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False), color=False)


def set_aside_saying(target: Path, why: str, *, err: bool = False) -> None:
    """Set a damaged default save aside (:func:`~pazaak_cli.runtime.savefile.set_aside`) so
    that a new match can use its name, and say so in one flat sentence: ``why`` is the reason
    the save was refused ("is not a pazaak save file: ..."), its "left untouched" dropped (the
    file is moved) and its own parenthesis made a clause. ``err``: on standard error (a
    command whose standard output is JSON)."""
    aside = set_aside(target)
    why = re.sub(r" \(([^()]*)\)", r", \1", why.removesuffix(" (left untouched)"))
    click.echo(
        f"The save file {target} cannot be read ({why}); it is kept, byte for byte, as "
        f"{aside}, and the new match is saved in {target}.",
        err=err,
    )


def say_stalled(message: str) -> None:
    """A cluster run's word that its work waits for a worker: on standard error, on a line of
    its own (a progress bar's line is ended first), never in the JSON."""
    click.echo("", err=True)
    click.echo(message, err=True)


def fail(message: str) -> click.ClickException:
    """A domain failure (exit 1) with a one-line message."""
    return click.ClickException(message)


def cluster_option(func: F) -> F:
    """``--cluster ADDRESS``: send the batches to a running Dask scheduler instead."""
    return click.option(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="Run on a Dask distributed cluster: the scheduler's address, e.g. "
        "tcp://127.0.0.1:8786 (needs pip install 'pazaak[cluster]'; --workers is then "
        "ignored). Same results as a local run with the same seed.",
    )(func)
