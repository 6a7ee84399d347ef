"""``pazaak follow``: mirror a match played in KOTOR, turn by turn, with the advice at each of
your decisions and the cards counted for you.

A thin layer over :mod:`pazaak_cli.tools.follow` (which keeps the match and applies the rules): it
reads lines, prints what happened, the board and the advice (the table of ``pazaak advise``),
and saves after every event with :mod:`pazaak_cli.runtime.savefile`. Exit codes: 0 at the end of the
match, the input or ``quit``; 1 for a corrupt save, an unfinished match in the way (one of
``pazaak play`` even with ``--new``) or an invalid deck; 2 for usage errors; 130 on Ctrl-C (the
match is saved).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from pazaak_cli.commands.common import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    budget_seconds,
    fail,
    ponder_option,
    refuse_with_resume,
    ruleset_option,
    set_aside_saying,
    time_option,
)
from pazaak_cli.commands.deck_option import deck_option
from pazaak_cli.commands.position_options import CARDS, OPPONENT_HELP, check_cards
from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import SideDeck, default_deck, load_deck
from pazaak_cli.engine.errors import DeckError, PazaakError
from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import DEFAULT_RULESET, Ruleset, parse_ruleset
from pazaak_cli.runtime.savefile import (
    FOLLOW,
    NewerSaveError,
    SaveFileError,
    SaveInUseError,
    chosen_save,
    data_dir,
    hold_save,
    probe_save,
    read_save,
    refuse_others_match,
    refuse_to_resume_others,
    same_save,
    saved_by,
    unfinished,
    write_save,
)
from pazaak_cli.solve.answer_types import Advice
from pazaak_cli.solve.answers import Answer, answer
from pazaak_cli.solve.budgeted import DEFAULT_SECONDS, Refinement
from pazaak_cli.solve.models import OPPONENT_MODELS
from pazaak_cli.solve.pondering import Ponderer
from pazaak_cli.terminal.follow_screen import Screen, valid_text
from pazaak_cli.terminal.lines import (
    MAX_JSON_LINE_BYTES,
    MAX_LINE_BYTES,
    TOO_LONG,
    LineReader,
    read_line_bytes,
    stdin_is_terminal,
)
from pazaak_cli.terminal.text import SolveProgress
from pazaak_cli.tools.follow import (
    DEFAULT_OPP_DECKS,
    OPENER_WORDS,
    Followed,
    FollowError,
    FollowSetup,
    ahead_of,
    apply_line,
    from_document,
    question_for,
    request_for,
    start,
    to_document,
    transitions,
    undo,
)

DEFAULT_SAVE_NAME = "follow.json"
"""The save file in the data directory when --save is not given (``pazaak play`` uses
``match.json``: the two never overwrite each other by default)."""
COMMANDS = ("undo", "board", "position", "hint", "hint match", "help", "quit")
COMMAND_WORDS = frozenset({"undo", "board", "position", "hint", "help", "quit", "exit"})
"""The first words of the commands: a line that starts with one is no event."""


@click.command("follow", epilog=EXIT_CODES)
@ruleset_option(default=None)
@click.option(
    "--hand",
    type=CARDS,
    default=None,
    metavar="CARDS",
    help='Your 4 hand cards, as dealt: "+1 -2 ±3 +4".',
)
@deck_option(
    "--opp-deck",
    "opp_deck",
    help="The opponent's side deck (a file or sample deck name): the prior of its hidden hand, "
    "and what its plays are checked against (default: kotor1-strongest for kotor1, "
    "kotor2-hard for kotor2).",
)
@click.option(
    "--opponent",
    type=click.Choice(list(OPPONENT_MODELS)),
    default="kotor",
    show_default=True,
    help=f"{OPPONENT_HELP} (the advice's assumption; the game plays kotor).",
)
@click.option(
    "--first",
    type=click.Choice(["me", "opponent"]),
    default=None,
    help="Who opens the first set, where the game chooses at random (kotor2); asked otherwise.",
)
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"Save the match to this file after every event (default: {DEFAULT_SAVE_NAME} in the "
    "data directory). Never replaces another unfinished match (without --new), a match of "
    "`pazaak play` or a file that is not a pazaak save.",
)
@click.option(
    "--resume",
    "resume_path",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[PATH]",
    help="Continue the followed match saved in PATH (default: the default save file); with "
    "--save OTHER it goes on in OTHER, PATH left as it was.",
)
@click.option(
    "--new",
    "replace",
    is_flag=True,
    help="Start a new match even if an unfinished one is saved in the save file (replaced); "
    "an unreadable default save is kept aside as follow.json.corrupt.",
)
@click.option("--quiet-advice", is_flag=True, help="Show only the best move, not the table.")
@time_option("Default: 2 s; hint asks again, the answer refined from where it stopped.")
@ponder_option("the advice at your next decision")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Programs: one JSON object per line out (events, advice, refusals); see docs/follow.md.",
)
@click.pass_context
def follow_command(
    ctx: click.Context,
    ruleset: Ruleset | None,
    hand: tuple[Card, ...] | None,
    opp_deck: SideDeck | None,
    opponent: str,
    first: str | None,
    save_path: str | None,
    resume_path: str | None,
    replace: bool,
    quiet_advice: bool,
    time_budget: float | None,
    ponder: bool,
    as_json: bool,
) -> None:
    """Follow a match you play in KOTOR: type each event, get the advice at your decisions.

    You are player 1. Type what happens, in order, for both sides: the card drawn (7), a hand
    card (+3, ±3 -, D, T +), e (end the turn), s (stand); several on one line (7 +3 s). The
    tool keeps both tables, the sets, the main deck as it runs down across sets, and the cards
    the opponent has played; after each of your draws it shows the odds of every move. undo,
    board, position, hint, help and quit work at any time. Saved after every event.

    \b
    Examples:
      pazaak follow --hand "+1 -2 ±3 +4" --opp-deck kotor1-average
      pazaak follow -r kotor2 --hand "D T ±1/2 +3" --first opponent
      pazaak follow --resume
    """
    screen = Screen(as_json=as_json, quiet=quiet_advice)
    chosen = chosen_save(save_path)
    with contextlib.ExitStack() as held:  # the save files this session holds (hold_save)
        if resume_path is not None:
            _refuse_with_resume(ctx)
            path = Path(resume_path) if resume_path else _default_save_path()
            held.enter_context(_hold(path, create_directory=False))
            followed = _load(path)
            target = chosen or path
            if not same_save(target, path):
                held.enter_context(_hold(target))
                if unfinished(_probe_own(target)):
                    raise fail(
                        f"an unfinished match is saved in {target}: resuming {path} there would "
                        "replace it; choose another --save file"
                    )
                write_save(target, to_document(followed))
            screen.resumed(followed, path)
        else:
            followed = _new_match(ruleset, hand, opp_deck, opponent, first)
            target = chosen or _default_save_path()
            held.enter_context(_hold(target))
            if unfinished(_probe_new(target, replace=replace, chosen=chosen is not None)):
                raise fail(
                    f"an unfinished match is saved in {target}: continue it with "
                    f"`pazaak follow --resume {target}`, or start a new one with --new (it "
                    "replaces it)"
                )
            write_save(target, to_document(followed))
            screen.started(followed, target)
        seconds = budget_seconds(time_budget, default=DEFAULT_SECONDS)
        ahead = None if ponder and not as_json else False  # (None: at a terminal)
        code = Loop(followed, target, screen, seconds, ponder=ahead).run()
    if code:
        sys.exit(code)


def _new_match(
    ruleset: Ruleset | None,
    hand: tuple[Card, ...] | None,
    opp_deck: SideDeck | None,
    opponent: str,
    first: str | None,
) -> Followed:
    """The match the options describe (a usage error, exit 2, if they cannot start one)."""
    if hand is None:
        raise click.UsageError("give your hand with --hand (the 4 cards you were dealt)")
    rules = ruleset or parse_ruleset(DEFAULT_RULESET)
    check_cards(hand, rules, "--hand")  # (as advise: a gold card names the ruleset that has it)
    if opp_deck is not None and not opp_deck.fits(rules):
        # Checked against its own ruleset: refused now, as play does, not at every advice.
        try:
            opp_deck = load_deck(opp_deck.source, rules)
        except DeckError as error:
            raise fail(f"invalid {rules.spec} side deck: {error}") from None
    deck = opp_deck or default_deck(rules, option="--opp-deck", name=DEFAULT_OPP_DECKS[rules.name])
    setup = FollowSetup(rules, hand, deck.cards, deck.name, opponent)
    try:
        return start(setup, None if first is None else OPENER_WORDS[first])
    except FollowError as error:
        raise click.UsageError(str(error)) from None


@contextlib.contextmanager
def _hold(path: Path, *, create_directory: bool = True) -> Iterator[None]:
    """:func:`hold_save`, saying which command holds the file."""
    try:
        with hold_save(path, create_directory=create_directory, holder=f"pazaak {FOLLOW}"):
            yield
    except SaveInUseError as error:
        raise fail(error.message) from None


def _default_save_path() -> Path:
    return data_dir() / DEFAULT_SAVE_NAME


def _refuse_with_resume(ctx: click.Context) -> None:
    refuse_with_resume(
        ctx,
        (
            ("ruleset", "--ruleset"),
            ("hand", "--hand"),
            ("opp_deck", "--opp-deck"),
            ("opponent", "--opponent"),
            ("first", "--first"),
        ),
        "ruleset, hand, opponent deck and model",
    )


def _probe_own(target: Path) -> dict[str, Any] | None:
    """The save in ``target`` (``None``: none), which a new or resumed match may replace only
    if it is a followed one: an unfinished match of ``pazaak play`` is refused, even with
    --new (it is not this command's to replace)."""
    existing = probe_save(target)
    refuse_others_match(target, existing, FOLLOW)
    if existing is not None and saved_by(existing) == FOLLOW:
        try:  # (one that reads but cannot be resumed is as damaged: never replaced)
            from_document(existing)
        except FollowError as error:
            raise SaveFileError(
                f"{target} is a corrupt pazaak follow save: {error} (left untouched); "
                "choose another --save file"
            ) from None
    return existing


def _probe_new(target: Path, *, replace: bool, chosen: bool) -> dict[str, Any] | None:
    """:func:`_probe_own` for a new match, its save in ``target`` replaced only with --new
    (``None`` then). As ``pazaak play`` does, --new sets a damaged default save of this command
    aside (renamed, byte for byte as it was), so that it cannot block every new match; another
    command's unfinished match, a newer pazaak's save and a damaged save named by --save are
    refused as ever."""
    aside = replace and not chosen
    try:
        existing = probe_save(target)
    except NewerSaveError:
        raise
    except SaveFileError as error:
        if not aside:
            raise
        set_aside_saying(target, error.message.removeprefix(f"{target} "), err=True)
        return None
    refuse_others_match(target, existing, FOLLOW)
    if existing is not None and saved_by(existing) == FOLLOW:
        try:  # (one that reads but cannot be resumed is as damaged)
            from_document(existing)
        except FollowError as error:
            if not aside:
                raise SaveFileError(
                    f"{target} is a corrupt pazaak follow save: {error} (left untouched); "
                    "choose another --save file"
                ) from None
            set_aside_saying(target, f"is a corrupt pazaak follow save: {error}", err=True)
            return None
    return None if replace else existing


def _load(path: Path) -> Followed:
    document = read_save(path)
    refuse_to_resume_others(path, document, FOLLOW)
    try:
        return from_document(document)
    except FollowError as error:
        raise SaveFileError(f"{path} cannot be resumed by pazaak follow: {error}") from None


JSON_STARTS = ("{", "[", '"')
"""How a JSON value that is not a number begins (no typed event or command does): such a
--json input line must be the object ``{"line": "..."}``."""
JSON_OBJECT = 'a JSON input line is an object {"line": "..."}'
JSON_KINDS = {type(None): "null", bool: "a boolean", int: "a number", float: "a number"}
JSON_KINDS.update({list: "an array", dict: "an object"})


def _json_mode_line() -> str | None:
    """One line of --json input (``None`` at its end; :data:`TOO_LONG` for one over
    :data:`MAX_JSON_LINE_BYTES`, never held whole). Bytes that are not UTF-8 read as U+FFFD,
    as typed lines do: echoed as lone surrogates, strict JSON parsers would refuse the output."""
    raw, fits = read_line_bytes(MAX_JSON_LINE_BYTES)
    if raw is None:
        return None
    if not fits:
        return TOO_LONG
    return valid_text(raw.decode("utf-8", errors="replace")).strip()


def _line_of(text: str) -> str:
    """The typed line a --json input line ``{"line": "..."}`` carries; :class:`FollowError`
    saying what is wrong with any other JSON (or almost-JSON) line."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise FollowError(JSON_OBJECT) from None
    if not isinstance(message, dict) or "line" not in message:
        raise FollowError(JSON_OBJECT)
    line = message["line"]
    if not isinstance(line, str):
        kind = JSON_KINDS.get(type(line), "not a string")
        raise FollowError(f'the "line" field of a JSON input line must be a string, not {kind}')
    return valid_text(line).strip()


Solved = TypeVar("Solved")
"""What a solve under a progress line returns."""


class Loop:
    """Reads lines until the match ends, the input ends or ``quit``; saves after every event."""

    def __init__(
        self,
        followed: Followed,
        target: Path,
        screen: Screen,
        seconds: float | None,
        *,
        ponder: bool | None = None,
    ) -> None:
        self.followed = followed
        self.target = target
        self.screen = screen
        self.seconds = seconds
        """The time budget of the advice (``None``: exact, however long it takes)."""
        interactive = stdin_is_terminal()
        self.reader = LineReader(interactive)
        self.ponderer = Ponderer() if (interactive if ponder is None else ponder) else None
        """Works ahead on the next advice while a line is awaited (``ponder`` None: when a
        person types at a terminal; a script's lines come at once, and would only wait for it
        to stop)."""
        self.advised: dict[MatchState, tuple[Question, Advice, str | None]] = {}
        self.refining: dict[MatchState, Refinement] = {}
        """The advice within the budget at this decision, refined when asked again (only the
        last decision's is kept: each holds a solver's memo)."""

    def run(self) -> int:
        try:
            self.prompted()
            while not self.followed.state.is_terminal():
                self.ponder()
                try:
                    line = self.read()
                finally:
                    if self.ponderer is not None:
                        self.ponderer.stop()  # (before anything asks the solvers)
                if line is None:
                    self.screen.stopped(self.followed, self.target, "End of input.")
                    return 0
                if not self.handle(line if line is TOO_LONG else line.strip()):
                    return 0
            return 0
        except KeyboardInterrupt:
            if not self.screen.as_json:
                click.echo()  # the prompt's line
            self.screen.stopped(self.followed, self.target, "Interrupted.")
            return EXIT_INTERRUPTED

    def ponder(self) -> None:
        """Begin working ahead on the advice at the user's next decision: the later sets of
        the match answer, which do not depend on the card drawn (see
        :mod:`pazaak_cli.solve.pondering`)."""
        if self.ponderer is not None:
            self.ponderer.start(*ahead_of(self.followed))

    def read(self) -> str | None:
        if self.screen.as_json:
            return _json_mode_line()
        line = self.reader.read(self.screen.prompt(self.followed))
        if line is None or line is TOO_LONG:  # (kept as it is: handle tells it by identity)
            return line
        return valid_text(line)

    def handle(self, line: str) -> bool:
        """One input line; False when the session should stop."""
        screen = self.screen
        if line is TOO_LONG:
            limit = (
                f"{MAX_JSON_LINE_BYTES:,} bytes"
                if screen.as_json
                else f"{MAX_LINE_BYTES} characters"
            )
            screen.refused("", f"that line is over {limit}")  # (not held, not echoed)
            return True
        if screen.as_json and line.startswith(JSON_STARTS):
            try:
                line = _line_of(line)
            except FollowError as error:
                screen.refused(line, str(error))
                return True
        if not line:
            return True
        word = " ".join(line.lower().split())
        if word in ("quit", "q", "exit"):
            self.screen.stopped(self.followed, self.target, "")
            return False
        if word in ("help", "?", "h"):
            screen.help()
            return True
        if word == "board":
            screen.board(self.followed)
            return True
        if word == "position":
            screen.position(self.followed)
            return True
        if word in ("hint", "hint match"):
            if not self.followed.my_decision:
                screen.refused(line, "the advice comes at your decisions, after your draw")
            elif word == "hint match" or self.seconds is None:
                self.advise("match" if word != "hint" else None)
            else:
                self.advise_within_budget()
            return True
        if word != "undo" and word.split()[0] in COMMAND_WORDS:  # ("hint match x")
            shown = ", ".join(COMMANDS)
            screen.refused(line, f"{line!r} is not a command: {shown} come alone on a line")
            return True
        if word == "undo":
            try:
                before = undo(self.followed)
            except FollowError as error:
                screen.refused(line, str(error))
                return True
            undone = transitions(before, self.followed)[0]
            self.followed = before
            write_save(self.target, to_document(before))
            screen.undone(before, undone[1].state, undone[2].state, undone[0])
            self.prompted()
            return True
        return self.events(line)

    def events(self, line: str) -> bool:
        try:
            after, states = apply_line(self.followed, line)
        except PazaakError as error:
            self.screen.refused(line, str(error))
            return True
        previous = self.followed
        for state in states:
            # Saved after every event of the line (with the set it opened by itself, if any).
            write_save(self.target, to_document(state))
            for step, prior, now in transitions(previous, state):
                self.screen.step(step, prior, now, line)
            previous = state
        self.followed = after
        self.prompted()
        return not after.state.is_terminal()

    def prompted(self) -> None:
        """What the user must know before the next line: the match result, the opener
        question, the advice."""
        followed = self.followed
        if followed.state.is_terminal():
            self.screen.match_over(followed, self.target)
        elif followed.asks_opener:
            self.screen.ask_opener(followed)
        elif followed.my_decision:
            if self.seconds is None:
                self.advise()
            else:
                self.advise_within_budget()

    def advise_within_budget(self) -> None:
        """The advice at this decision within the time budget: exact where every possible hand
        of the opponent is solved in time, else sampled; asked again (hint), refined from
        where it stopped until it is exact. Ctrl-C keeps the answer so far."""
        seconds = self.seconds
        assert seconds is not None
        followed = self.followed

        def refined(progress: SolveProgress) -> Answer:
            kept = self.refining.get(followed.state)
            if kept is None:
                self.refining.clear()  # (one decision's solver at a time: its memory is large)
            request = request_for(followed, seconds, hand_progress=progress.budget)
            answered = answer(request, kept)
            if answered.refinement is not None:
                self.refining[followed.state] = answered.refinement
            return answered

        answered = self._solved(refined)
        if answered is None:
            return
        self.screen.advice(question_for(followed), answered.advice, answered.objective_note)
        if answered.notes:
            self.screen.note("\n".join(answered.notes))

    def _solved(self, solve: Callable[[SolveProgress], Solved]) -> Solved | None:
        """``solve(progress)`` with a progress line; ``None`` (and a note why) when Ctrl-C
        cancelled it or the position has no answer."""
        progress = SolveProgress(enabled=not self.screen.as_json)
        try:
            return solve(progress)
        except KeyboardInterrupt:
            self.screen.note("Advice cancelled; type hint to ask again.")
        except PazaakError as error:
            self.screen.note(f"No advice: {error}")
        finally:
            progress.close()
        return None

    def advise(self, objective: str | None = None) -> None:
        """The advice at this decision (``objective``: asked for, else the default's choice,
        shown again from memory when asked again)."""
        followed = self.followed
        found = self.advised.get(followed.state)
        if found is None or (objective and found[1].objective != objective):

            def asked(progress: SolveProgress) -> tuple[Question, Advice, str | None]:
                request = request_for(followed, None, objective, progress.update)
                answered = answer(request)
                return request.question, answered.advice, answered.objective_note

            found = self._solved(asked)
            if found is None:
                return
            self.advised[followed.state] = found
            self.screen.advice(*found)
            return
        self.screen.advice(*found[:2])  # (why its objective was said the first time)


# Output -----------------------------------------------------------------------------------
