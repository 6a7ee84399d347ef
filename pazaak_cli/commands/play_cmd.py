"""``pazaak play``: a line-based match in the shell, against the computer or a friend.

This module reads options and typed lines, asks :mod:`pazaak_cli.tools.session` to move the match
on, saves after every event, and draws the screen. Exit codes: 0 when the match ends, when the
player quits (``quit``) and at the end of the input (Ctrl-D or the end of a piped script): the
match is saved and can be resumed; 130 on Ctrl-C (saved too, the shell convention for an
interrupt); 1 for a corrupt or foreign save file, a save that another ``pazaak play`` holds (see
:func:`pazaak_cli.runtime.savefile.hold_save`), an unfinished match in the way (a followed one
even with ``--new``), or an invalid deck; 2 for usage errors (a path that cannot be used
included).
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from pazaak_cli.commands.common import (
    EXIT_CODES,
    RULESET,
    Seconds,
    WholeNumber,
    budget_seconds,
    fail,
    ponder_option,
    refuse_with_resume,
    seed_option,
    set_aside_saying,
    time_option,
)
from pazaak_cli.commands.common import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from pazaak_cli.commands.deck_option import complete_decks, load_deck_option
from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import SideDeck, default_deck, load_deck, sample_decks, sample_names
from pazaak_cli.engine.errors import DeckError, PazaakError
from pazaak_cli.engine.game import (
    FORFEIT,
    Action,
    MatchState,
    Open,
    Phase,
)
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import DEFAULT_RULESET, PRESETS, Ruleset
from pazaak_cli.players.roster import MATCH_POLICIES, POLICY_NAMES, Player, make_player
from pazaak_cli.runtime.savefile import (
    PLAY,
    NewerSaveError,
    SaveFileError,
    chosen_save,
    default_save_path,
    hold_save,
    probe_save,
    refuse_others_match,
    same_save,
    saved_by,
    unfinished,
)
from pazaak_cli.solve.budgeted import DEFAULT_SECONDS, Refinement
from pazaak_cli.solve.pondering import Ponderer
from pazaak_cli.terminal.hint import hint_ahead, hint_text
from pazaak_cli.terminal.lines import (
    MAX_LINE_BYTES,
    TOO_LONG,
    LineReader,
    clear_screen,
    stderr_is_terminal,
    stdin_is_terminal,
    stdout_is_terminal,
)
from pazaak_cli.terminal.match_text import (
    YOU,
    board_lines,
    board_text,
    describe_event,
    match_over_lines,
    set_over_lines,
)
from pazaak_cli.terminal.text import hanging, printable, style, wrap_lines
from pazaak_cli.tools.session import (
    COMMANDS,
    HUMAN,
    Event,
    MatchSession,
    Meta,
    Move,
    Seat,
    load_session,
    parse_command,
)

OPPONENTS = (*POLICY_NAMES, HUMAN)
TERMINAL_DELAY = 0.6
MAX_DELAY = 10.0
"""The longest --delay: a pause, not a hang (nan, inf and 1e300 are refused)."""
SECONDS = Seconds(0.0, MAX_DELAY)
"""Seconds between the computer's moves on a terminal, so that they appear one by one."""
RECAP = "Before the match was saved:"
"""Heads the last events shown when a match is resumed."""

HOLDER = f"pazaak {PLAY}"
"""How this command names itself in a save's lock file (another session finding it held
says so)."""


def _complete_deck(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[click.shell_completion.CompletionItem]:
    """Sample deck names and file names, as every deck option completes them."""
    return complete_decks(incomplete)


MAX_WAGER = 1_000_000_000
"""The most credits a match may stake (a number, not a typo of many digits)."""


@click.command("play", epilog=EXIT_CODES)
@click.option(
    "--ruleset",
    "-r",
    type=RULESET,
    default=None,
    help="Ruleset: kotor1 or kotor2, optionally with overrides (see `pazaak rules`). "
    f"Default: the ruleset your deck file names, else {DEFAULT_RULESET}.",
)
@click.option(
    "--deck",
    metavar="DECK",
    default=None,
    shell_complete=_complete_deck,
    help="Your side deck: a deck file or a sample deck name (see `pazaak decks`). Asked for on "
    "a terminal when missing; otherwise the ruleset's default deck.",
)
@click.option(
    "--opponent",
    "-o",
    type=click.Choice(OPPONENTS, case_sensitive=False),
    default="kotor",
    show_default=True,
    help="Who you play: a computer player, or human (two people at one keyboard).",
)
@click.option(
    "--opp-deck",
    metavar="DECK",
    default=None,
    shell_complete=_complete_deck,
    help="The opponent's side deck. Default: the game's average opponent deck for a computer, "
    "the default deck for a person.",
)
@seed_option
@click.option(
    "--wager",
    type=WholeNumber(0, MAX_WAGER),
    default=0,
    show_default=True,
    help="Credits at stake: the winner gains them, the loser loses them.",
)
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Save the match to this file after every move (default: match.json in the data "
    "directory: $PAZAAK_DATA_DIR, $XDG_DATA_HOME/pazaak or ~/.local/share/pazaak). Never "
    "replaces another unfinished match (without --new), a followed match (`pazaak follow`) or "
    "a file that is not a pazaak save; held by one pazaak play at a time.",
)
@click.option(
    "--resume",
    "resume_path",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[PATH]",
    help="Continue the match saved in PATH (default: the default save file); with "
    "--save OTHER it goes on in OTHER, PATH left as it was.",
)
@click.option(
    "--new",
    "replace",
    is_flag=True,
    help="Start a new match even if an unfinished one is saved in the save file (it is "
    "replaced); an unreadable default save is kept aside as match.json.corrupt.",
)
@click.option(
    "--delay",
    type=SECONDS,
    default=None,
    help=f"Seconds between the computer's moves, 0 to {MAX_DELAY:g} (default: {TERMINAL_DELAY} "
    "on a terminal, 0 otherwise).",
)
@time_option("Default: 2 s; h again refines the hint from where it stopped.")
@ponder_option("the hint")
@click.pass_context
def play_command(
    ctx: click.Context,
    ruleset: Ruleset | None,
    deck: str | None,
    opponent: str,
    opp_deck: str | None,
    seed: int | None,
    wager: int,
    save_path: str | None,
    resume_path: str | None,
    replace: bool,
    delay: float | None,
    time_budget: float | None,
    ponder: bool,
) -> None:
    """Play a match of Pazaak in the shell, one typed command per line.

    Commands: e (end the turn), s (stand), p N [+|-] (play hand card N; or name the card:
    p +3, p ±4 -, p D), h (hint: the solver's odds), h m (the odds of winning the match,
    however long they take), state, ? (help), forfeit, q (quit). The
    match is saved after every move; the end of the input, Ctrl-C and quit save it and say how
    to resume. Commands can be piped in: the same seed and commands play the same match.

    \b
    Examples:
      pazaak play --deck kotor1-starter --opponent kotor
      pazaak play --deck my.deck --opponent expert --wager 100 --seed 7
      pazaak play --opponent human --deck kotor1-starter --opp-deck kotor1-average
      printf 's\\ns\\ns\\n' | pazaak play --deck kotor1-starter --seed 1 --save /tmp/m.json
      pazaak play --resume
    """
    terminal = stdin_is_terminal()
    reader = LineReader(terminal)
    pause = delay if delay is not None else (TERMINAL_DELAY if stdout_is_terminal() else 0.0)
    chosen = chosen_save(save_path)
    with contextlib.ExitStack() as held:  # the save files this session holds (see hold_save)
        if resume_path is not None:
            _refuse_with_resume(ctx)
            path = Path(resume_path) if resume_path else default_save_path()
            held.enter_context(hold_save(path, create_directory=False, holder=HOLDER))
            session = load_session(path, computer_player)
            target = chosen or path
            if not same_save(target, path):
                held.enter_context(hold_save(target, holder=HOLDER))
                _refuse_to_replace(target, path)
            _play_saved(session, target, reader, pause, resumed_from=path)
            return
        target = chosen or default_save_path()
        held.enter_context(hold_save(target, holder=HOLDER))
        _start(ctx, target, chosen, reader, pause)


def _start(
    ctx: click.Context, target: Path, save_path: Path | None, reader: LineReader, pause: float
) -> None:
    """A new match saved in ``target`` (held; ``save_path``: the --save given), unless the person
    resumes the one saved there."""
    params = ctx.params
    replace, terminal = params["replace"], reader.terminal
    existing = _probe_target(target, replace=replace, chosen=save_path is not None)
    refuse_others_match(target, existing, PLAY)
    if unfinished(existing) and not replace:
        if not terminal:
            raise fail(
                f"an unfinished match is saved in {target}: continue it with "
                f"`{_resume_command(target)}`, or start a new one with --new (it replaces it)"
            )
        saved = load_session(target, computer_player)
        if _ask_resume(reader, saved, target, _new_match_options(ctx)):
            _play_saved(saved, save_path or target, reader, pause, resumed_from=target)
            return
    rules, seats = _choose_seats(
        params["ruleset"], params["deck"], params["opponent"], params["opp_deck"], reader
    )
    seed = params["seed"]
    match_seed = seed if seed is not None else random.SystemRandom().randrange(1 << 32)
    session = MatchSession.start(
        rules, seats, seed=match_seed, wager=params["wager"], player_factory=computer_player
    )
    session.save(target)
    screen = Screen(session, target, reader, pause)
    screen.hint_seconds = _hint_seconds()
    screen.ponderer = _ponderer(reader)
    screen.banner()
    _finish(screen.run())


def _refuse_to_replace(target: Path, resumed_from: Path) -> None:
    """``--resume A --save B``: B is checked as a new match's save file is. An unfinished match or
    a file that is not a pazaak save is never replaced (a finished match may be)."""
    existing = _probe_whole(target)
    refuse_others_match(target, existing, PLAY)
    if unfinished(existing):
        raise fail(
            f"an unfinished match is saved in {target}: resuming {resumed_from} there would "
            f"replace it; choose another --save file, or continue that match with "
            f"`{_resume_command(target)}`"
        )


def _probe_whole(target: Path) -> dict[str, Any] | None:
    """:func:`probe_save`, and a save of this command that reads as JSON but cannot be resumed
    (a hand its deck does not hold, a move the rules refuse, a missing stream) raises
    :class:`SaveFileError` as an unreadable one does: it is as damaged, and as protected (it
    was replaced by --new, and named as a match to continue that could not be)."""
    existing = probe_save(target)
    if existing is not None and saved_by(existing) == PLAY:
        load_session(target, computer_player)
    return existing


def _probe_target(target: Path, *, replace: bool, chosen: bool) -> dict[str, Any] | None:
    """The save in ``target`` (``None`` if none). An unreadable file is never replaced: it is an
    error, except that ``--new`` sets an unreadable default save aside (renamed, byte for byte
    as it was) so that a corrupt default save cannot block every new match."""
    try:
        return _probe_whole(target)
    except SaveFileError as error:
        if not replace or chosen or isinstance(error, NewerSaveError):  # (newer: not corrupt)
            if replace:
                raise fail(f"{error}; choose another --save file") from None
            raise
        set_aside_saying(target, error.message.removeprefix(f"{target} "))
        return None


def computer_player(
    kind: str, ruleset: Ruleset, rng: random.Random, own: tuple[Card, ...], other: tuple[Card, ...]
) -> Player:
    """Build a computer seat (the session's player factory)."""
    return make_player(kind, ruleset=ruleset, rng=rng, own_deck=own, opponent_deck=other)


def printable_seats(seats: tuple[Seat, Seat]) -> tuple[Seat, Seat]:
    """The seats with names safe to print: a deck file's ``name:`` header or a save can hold
    terminal escape codes, which are shown escaped, never sent to the terminal."""
    first, second = (
        dataclasses.replace(seat, name=printable(seat.name), deck_name=printable(seat.deck_name))
        for seat in seats
    )
    return (first, second)


_KEPT_BY_A_RESUMED_MATCH = (
    ("ruleset", "--ruleset"),
    ("deck", "--deck"),
    ("opponent", "--opponent"),
    ("opp_deck", "--opp-deck"),
    ("seed", "--seed"),
    ("wager", "--wager"),
)
"""The options that choose a new match: a resumed one keeps its own (parameter name, flag)."""


def _refuse_with_resume(ctx: click.Context) -> None:
    refuse_with_resume(
        ctx,
        _KEPT_BY_A_RESUMED_MATCH,
        "ruleset, decks, opponent, seed and wager",
    )


def _listed(flags: Sequence[str]) -> str:
    """``--deck``, ``--deck and --seed``, ``--deck, --seed and --wager``."""
    return flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"


def _new_match_options(ctx: click.Context) -> list[str]:
    """The flags given that choose a new match (a resumed one would not use them)."""
    return [
        flag
        for name, flag in _KEPT_BY_A_RESUMED_MATCH
        if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
    ]


def _play_saved(
    session: MatchSession, target: Path, reader: LineReader, pause: float, *, resumed_from: Path
) -> None:
    screen = Screen(session, target, reader, pause)
    screen.hint_seconds = _hint_seconds()
    screen.ponderer = _ponderer(reader)
    if session.finished:
        screen.say(f"The match saved in {resumed_from} is over; there is nothing to resume.")
        screen.match_over()
        return
    if target != resumed_from:
        session.save(target)
    screen.resumed(resumed_from)
    _finish(screen.run())


def _finish(code: int) -> None:
    if code:
        sys.exit(code)


def _ask_resume(
    reader: LineReader, saved: MatchSession, target: Path, given: Sequence[str]
) -> bool:
    """On a terminal: an unfinished match is in the way; resume it (True) or replace it.
    ``given``: the options of a new match typed (a resume does not use them, and says so; an
    empty answer then resumes nothing, as it does where none were typed)."""
    state = saved.state
    seats = printable_seats(saved.seats)
    names = f"{seats[0].name} {state.sets_won()[0]} - {state.sets_won()[1]} "
    click.echo(
        f"An unfinished match is saved in {target} (set {saved.set_number()}, "
        f"{names}{seats[1].name})."
    )
    choices = "[R/n]"
    if given:
        click.echo(
            f"Resumed, it keeps its own settings: {_listed(given)} would not be used; "
            "a new match (n) uses them and replaces it."
        )
        choices = "[r/n]"
    while True:
        answer = reader.read(f"Resume it (r) or replace it with a new match (n)? {choices} ")
        if answer is None:
            raise click.exceptions.Exit(0)
        if answer.strip().lower() in ("r", "resume", "y", "yes") or (
            not answer.strip() and not given
        ):
            return True
        if answer.strip().lower() in ("n", "new", "replace"):
            return False
        click.echo("Type r to resume the saved match or n to start a new one.")


# Choosing the seats -----------------------------------------------------------------------------


def _choose_seats(
    ruleset: Ruleset | None,
    deck_spec: str | None,
    opponent: str,
    opp_spec: str | None,
    reader: LineReader,
) -> tuple[Ruleset, tuple[Seat, Seat]]:
    opponent = opponent.lower()
    hot_seat = opponent == HUMAN
    first = "Player 1" if hot_seat else YOU
    second = "Player 2" if hot_seat else opponent
    mine = _seat_deck(deck_spec, ruleset, "--deck", first, reader)
    rules = ruleset or _header_ruleset(mine) or PRESETS[DEFAULT_RULESET]
    if ruleset is None and not mine.fits(rules):
        mine = load_deck(mine.source, rules)
    if opp_spec is None and not hot_seat:
        theirs = _computer_default_deck(rules)
    else:
        theirs = _seat_deck(opp_spec, rules, "--opp-deck", second, reader)
    seats = (
        Seat(HUMAN, first, mine.name, mine.cards),
        Seat(opponent, second, theirs.name, theirs.cards),
    )
    return rules, seats


def _header_ruleset(deck: SideDeck) -> Ruleset | None:
    if deck.ruleset is None:
        return None
    try:
        return RULESET.convert(deck.ruleset, None, None)  # type: ignore[no-any-return]
    except click.BadParameter:
        return None


def _seat_deck(
    spec: str | None, ruleset: Ruleset | None, option: str, who: str, reader: LineReader
) -> SideDeck:
    """The deck named by an option; when it is missing, ask on a terminal, else the default."""
    if spec == "-":
        raise click.UsageError(
            f"{option} - cannot be used: standard input carries the commands; give a deck file "
            "or a sample deck name"
        )
    if spec is not None:
        return load_deck_option(spec, ruleset, option)
    if not reader.terminal:
        deck = default_deck(ruleset or PRESETS[DEFAULT_RULESET], option=option)
        owner = "you play" if who == YOU else f"{who} plays"
        click.echo(f"No {option} given: {owner} the default deck {deck.name} ({deck}).")
        return deck
    return _ask_deck(ruleset, who, option, reader)


def _ask_deck(ruleset: Ruleset | None, who: str, option: str, reader: LineReader) -> SideDeck:
    fallback = default_deck(ruleset or PRESETS[DEFAULT_RULESET], option=option)
    whose = "your" if who == YOU else f"{who}'s"
    click.echo(f"Choose {whose} side deck: a sample deck name or a deck file. The samples:")
    samples = [deck for deck in sample_decks() if ruleset is None or deck.fits(ruleset)]
    width = max((len(sample.name) for sample in samples), default=0)  # (the longest: 23)
    for sample in samples:  # (on a terminal, each description wrapped under its start)
        click.echo(hanging(f"  {sample.name}", sample.description, width + 4))
    while True:
        answer = reader.read(f"Deck [{fallback.name}]: ")
        if answer is None:
            raise click.ClickException("no deck chosen: no match was started")
        choice = answer.strip()
        if not choice:
            return fallback
        try:
            return load_deck(choice, ruleset)
        except PazaakError as error:
            click.echo(style(wrap_lines(f"{error}"), fg="red"))
            click.echo(
                wrap_lines(
                    f"Type a sample name ({', '.join(sample_names()[:3])}, ...) or a file path."
                )
            )


def _computer_default_deck(ruleset: Ruleset) -> SideDeck:
    """The game's own 'average' opponent deck for the preset, if it fits the ruleset."""
    name = f"{ruleset.name}-average"
    if name in sample_names():
        deck = load_deck(name)
        if deck.fits(ruleset):
            return deck
    try:
        return default_deck(ruleset, option="--opp-deck")
    except DeckError:
        if name not in sample_names():
            raise
        # neither fits: the error names the default the docs give, and why it does not fit
        default_deck(ruleset, option="--opp-deck", name=name)
        raise


# Reading typed lines ---------------------------------------------------------------------------


# The screen ------------------------------------------------------------------------------------


class Screen:
    """Draws the match for the people at the keyboard and runs the command loop."""

    def __init__(
        self, session: MatchSession, save_path: Path, reader: LineReader, pause: float
    ) -> None:
        session.seats = printable_seats(session.seats)
        self.session = session
        self.save_path = save_path
        self.reader = reader
        self.pause = pause
        self.hot_seat = all(seat.is_human for seat in session.seats)
        self.board_due = True
        self.last_human: int | None = None
        self.unsaved = False
        """Chance events happened since the last save (saved before the next prompt)."""
        self.recent: list[str] = []
        """Event lines since the last hand-over (shown again after the screen is cleared)."""
        self.hint_seconds: float | None = DEFAULT_SECONDS
        """The hint's time budget (``None``: exact, however long it takes)."""
        self.ponderer: Ponderer | None = None
        """Works ahead on the hint while a person types (:mod:`pazaak_cli.solve.pondering`)."""
        self.refinements: dict[tuple[str, int], Refinement] = {}
        """The hint within the budget at the last position it was asked at (by position and
        seat), refined when asked again there; only one is kept (each holds a solver's memo)."""

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the match ends (0), the player quits or the input ends (0), or Ctrl-C
        (130). The match is saved after every event."""
        session = self.session
        try:
            while True:
                while not session.finished and session.human_to_act() is None:
                    thinking = self.thinking_line()
                    event = session.advance()
                    if thinking:
                        click.echo("\r" + " " * len(thinking) + "\r", nl=False, err=True)
                    if event.actor is None and not session.finished:
                        # A chance event: the saved random state deals it again on resume.
                        self.unsaved = True
                    else:
                        self.save()
                    self.event(event)
                if self.unsaved:
                    self.save()
                if session.finished:
                    self.match_over()
                    return 0
                seat = session.human_to_act()
                assert seat is not None
                if not self.turn(seat):
                    return 0
        except KeyboardInterrupt:
            click.echo()
            self.say(f"Interrupted. {self.saved_message()}")
            return EXIT_INTERRUPTED

    def thinking_line(self) -> str:
        """On a terminal, a status line before a match player's move (:data:`MATCH_POLICIES`:
        its first moves with new hands solve their match tables, up to a minute); the text
        shown, or "" for none."""
        state = self.session.state
        if state.is_chance_node() or not stderr_is_terminal():
            return ""
        seat = self.session.seats[state.turn]
        if seat.kind not in MATCH_POLICIES:
            return ""
        text = f"{seat.name} is thinking (the first moves with new hands take longer)..."
        click.echo(text, nl=False, err=True)
        return text

    def turn(self, seat: int) -> bool:
        """Ask the person at ``seat`` for one command; False when the session should stop."""
        handing_over = self.hot_seat and self.last_human not in (None, seat)
        if handing_over and not self.hand_over(seat):
            return self.stop("End of input.")
        self.last_human = seat
        if self.board_due:
            self.board(seat)
            self.board_due = False
        if self.ponderer is not None:
            self.ponderer.start(*hint_ahead(self.session, seat))
        try:
            line = self.reader.read("> ")
        finally:
            if self.ponderer is not None:
                self.ponderer.stop()  # (before anything asks the solvers)
        if line is None:
            return self.stop("End of input.")
        view = self.session.view(seat)
        if line is TOO_LONG:
            self.error(f"that line is over {MAX_LINE_BYTES} characters: type a command")
            return True
        try:
            command = parse_command(line, view)
        except PazaakError as error:
            self.error(str(error))
            return True
        if isinstance(command, Move):
            return self.move(command.action)
        return self.meta(command, seat, view)

    def move(self, action: Action) -> bool:
        try:
            event = self.session.apply(action)
        except PazaakError as error:
            self.error(str(error))
            return True
        self.save()
        self.event(event)
        return True

    def save(self) -> None:
        self.session.save(self.save_path)
        self.unsaved = False

    def meta(self, command: Meta, seat: int, view: MatchState) -> bool:
        if command is Meta.NOTHING:
            return True
        if command is Meta.HELP:
            self.help()
        elif command is Meta.STATE:
            click.echo(format_position(view))
        elif command is Meta.BOARD:
            click.echo(wrap_lines("\n".join(board_text(self.session, seat))))
        elif command is Meta.HINT:
            self.hint(seat)
        elif command is Meta.MATCH_HINT:
            self.hint(seat, objective="match")
        elif command is Meta.QUIT:
            return self.stop("")
        elif command is Meta.FORFEIT:
            return self.confirm_forfeit(seat)
        return True

    def hint(self, seat: int, objective: str | None = None) -> None:
        """The solver's table (for ``objective``, else the hint's own choice); on a terminal
        with a progress count, and Ctrl-C cancels only the hint (solving a hidden hand can take
        seconds, and the match answer minutes)."""
        progress = positions = None
        if stdout_is_terminal():
            shown = {"hands": "", "left": "", "positions": ""}

            def show() -> None:
                line = ", ".join(part for part in shown.values() if part)
                click.echo(f"\rSolving: {line}\033[K", nl=False, color=True)

            def progress(done: int, total: int, left: float | None = None) -> None:
                shown["hands"] = f"{done}/{total} possible hands of {self.opponent(seat)}"
                shown["left"] = "" if left is None else f"{left:.0f} s left"
                show()

            def positions(solved: int) -> None:
                shown["positions"] = f"{solved:,} positions"
                show()

        try:
            text = hint_text(
                self.session,
                seat,
                progress,
                positions,
                objective,
                seconds=self.hint_seconds,
                refinements=self.refinements,
            )
        except KeyboardInterrupt:
            text = "Hint cancelled; the match goes on."
        if progress is not None:
            click.echo("\r\033[K", nl=False, color=True)
        click.echo(text)

    def opponent(self, seat: int) -> str:
        return self.session.seats[1 - seat].name

    def confirm_forfeit(self, seat: int) -> bool:
        stake = f" and {self.session.wager} credits" if self.session.wager else ""
        answer = self.reader.read(f"Forfeit the match{stake}? Type yes to confirm: ")
        if answer is None:
            return self.stop("End of input.")
        if answer.strip().lower() not in ("y", "yes"):
            self.say("Not forfeited: the match goes on.")
            return True
        return self.move(FORFEIT)

    def stop(self, reason: str) -> bool:
        self.say((reason + " " if reason else "") + self.saved_message())
        return False

    def saved_message(self) -> str:
        return f"The match is saved in {self.save_path}; resume it with: " + _resume_command(
            self.save_path
        )

    def hand_over(self, seat: int) -> bool:
        """Hot seat: hide the last player's hand before the next player's board."""
        if not self.reader.terminal:
            return True
        other = self.session.seats[1 - seat].name
        clear_screen()
        name = self.session.seats[seat].name
        prompt = f"{name}'s turn ({other}, look away). {name}, press Enter to see your hand. "
        if self.reader.read(prompt) is None:
            return False
        clear_screen()
        for line in self.recent:
            click.echo(line)
        self.recent = []
        self.board_due = True
        return True

    # -- drawing ------------------------------------------------------------------------------

    def say(self, text: str) -> None:
        click.echo(text)

    def error(self, text: str) -> None:
        click.echo(style(text[0].upper() + text[1:] if text else text, fg="red"))

    def emit(self, line: str) -> None:
        click.echo(line)
        self.recent.append(line)

    def banner(self) -> None:
        session = self.session
        first, second = session.seats
        stake = f", wager {session.wager} credits" if session.wager else ""
        click.echo(
            style(f"Pazaak: {first.name} ({first.deck_name}) against ", bold=True)
            + style(f"{second.name} ({second.deck_name})", bold=True)
        )
        click.echo(
            f"Ruleset {session.ruleset.spec}, "
            f"first to {counted(session.ruleset.sets_to_win, 'set')}, "
            f"seed {session.seed}{stake}."
        )
        click.echo(
            f"The match is saved after every move in {self.save_path}. Type help for commands."
        )

    def resumed(self, path: Path) -> None:
        session = self.session
        won = session.state.sets_won()
        first, second = session.seats
        click.echo(
            style(f"Resuming the match saved in {path}", bold=True)
            + f" (set {session.set_number()}, {first.name} {won[0]} - {won[1]} {second.name}, "
            f"{session.ruleset.spec}, seed {session.seed})."
        )
        # What just happened: from the person's last move (or the set's opening) on.
        history = session.history()
        starts = [
            index
            for index, event in enumerate(history)
            if isinstance(event.action, Open)
            or (event.actor is not None and session.seats[event.actor].is_human)
        ]
        if starts:
            click.echo(RECAP)
            for event in history[starts[-1] :]:
                for line in self.event_lines(event):
                    self.emit(line)
        if self.hot_seat:
            self.last_human = -1  # whoever sits down first must not see the other's hand
        self.board_due = True

    def help(self) -> None:
        click.echo("Commands (upper or lower case):")
        for words, usage, text in COMMANDS:
            short = [w for w in words[1:]]
            shown = usage + (f" ({', '.join(short)})" if short else "")
            click.echo(hanging(f"  {shown}", text, 23))
        click.echo("  An empty line does nothing. The match is saved after every move.")

    def event(self, event: Event) -> None:
        """Show what just happened, one line each (the computer's moves one by one)."""
        mover = event.actor if event.actor is not None else event.before.turn
        if (
            self.pause
            and not isinstance(event.action, Open)
            and not self.session.seats[mover].is_human
        ):
            time.sleep(self.pause)
        for line in self.event_lines(event):
            self.emit(line)
        self.board_due = True

    def event_lines(self, event: Event) -> list[str]:
        """What an event did, and the set's result if it ended one."""
        lines = describe_event(self.session.seats, event)
        ended = (Phase.SET_OVER, Phase.MATCH_OVER)
        if event.after.phase in ended and event.before.phase not in ended:
            lines += set_over_lines(self.session.seats, event.after)
        return lines

    def board(self, seat: int) -> None:
        click.echo(wrap_lines("\n".join(board_lines(self.session, seat))))

    def match_over(self) -> None:
        for line in match_over_lines(self.session):
            click.echo(line)
        click.echo(f"The finished match is saved in {self.save_path}.")


# What the screen says (pure functions of the match) --------------------------------------------


def _resume_command(path: Path) -> str:
    if path == default_save_path():
        return "pazaak play --resume"
    return f"pazaak play --resume {shlex.quote(str(path))}"


# The hint ------------------------------------------------------------------------------------


def _ponderer(reader: LineReader) -> Ponderer | None:
    """Work ahead on the hint while a person types at a terminal, unless ``--no-ponder``."""
    wanted = click.get_current_context().params.get("ponder", True)
    return Ponderer() if wanted and reader.terminal else None


def _hint_seconds() -> float | None:
    """The hint's budget: the command's ``--time`` (0: none, the exact answer), else the
    default (:func:`~pazaak_cli.commands.common.budget_seconds`)."""
    time_budget = click.get_current_context().params.get("time_budget")
    return budget_seconds(time_budget, default=DEFAULT_SECONDS)
