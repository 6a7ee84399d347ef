"""What ``pazaak follow`` shows: each event of the followed match in a sentence, the board, the
advice, and the same as one JSON object a line for programs (docs/follow.md).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import click

from pazaak_cli.engine.cards import CardKind
from pazaak_cli.engine.game import Draw, MatchState, Open, Phase, Play, Stand, set_outcome
from pazaak_cli.engine.move_notation import format_action
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import counted
from pazaak_cli.solve.answer_types import Advice
from pazaak_cli.solve.budgeted import FOLLOW_ASKS
from pazaak_cli.solve.models import opponent_model
from pazaak_cli.terminal.advice_table import render_advice
from pazaak_cli.terminal.text import printable, terminal_width, wrap_lines
from pazaak_cli.tools.advice_report import advice_json
from pazaak_cli.tools.board import board_head, seen_text, table_text
from pazaak_cli.tools.follow import ME, Followed, Step, advise_words, describe_result

LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
"""A lone surrogate: what ``surrogateescape`` makes of a byte that is not UTF-8, or what a
JSON ``"\\ud800"`` escape reads as (a Python string holds no surrogate pairs)."""


def valid_text(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD: a JSON document (or a terminal) must never
    get one; strict parsers refuse it."""
    return LONE_SURROGATE.sub("\ufffd", text)


def _player(player: int | None) -> str | None:
    if player is None:
        return None
    return "me" if player == ME else "opponent"


def state_json(followed: Followed) -> dict[str, Any]:
    """The followed match as JSON (docs/follow.md, "state")."""
    state = followed.state
    me, them = state.sides
    acting = state.phase in (Phase.BEFORE_DRAW, Phase.AFTER_DRAW)
    return {
        "set": followed.set_number,
        "phase": state.phase.value,
        "to_move": _player(state.turn) if acting else None,
        "played": state.played,
        "sets": list(state.sets_won()),
        "ties": state.ties(),
        "me": {
            "table": [str(card) for card in me.table],
            "total": me.total,
            "standing": me.standing,
            "hand": [str(card) for card in me.hand if card is not None],
        },
        "opponent": {
            "table": [str(card) for card in them.table],
            "total": them.total,
            "standing": them.standing,
            "hand_size": len(them.hand),
            "played": [[number + 1, str(card)] for number, card in followed.opp_played],
        },
        "deck": list(state.deck),
        "position": format_position(state),
    }


class Screen:
    """Prints for people, or one JSON object a line for programs."""

    def __init__(self, *, as_json: bool, quiet: bool) -> None:
        self.as_json = as_json
        self.quiet = quiet

    def emit(self, kind: str, **fields: Any) -> None:
        """One JSON object a line; never a lone surrogate (:func:`valid_text`): the input is
        echoed in it, and it may come from anywhere."""
        text = json.dumps({"type": kind, **fields}, ensure_ascii=False)
        click.echo(valid_text(text), color=False)

    def say(self, text: str) -> None:
        """Print for people, on a terminal each line of prose wrapped to its width (a note of
        the advice was one line of 449 characters: the terminal cut its words anywhere). Text
        from outside (a deck's ``name:``, a typed token, a path) goes through
        :func:`printable` first: it never sends a control code to the terminal."""
        click.echo(wrap_lines(text))

    def note(self, text: str) -> None:
        if self.as_json:
            self.emit("note", message=text)
        else:
            self.say(text)

    # -- the session's edges --------------------------------------------------------------

    def started(self, followed: Followed, target: Path) -> None:
        setup = followed.setup
        if self.as_json:
            self.emit("start", save=str(target), state=state_json(followed))
            return
        hand = " ".join(str(card) for card in setup.hand)
        self.say(
            f"Following a {setup.ruleset.spec} match: your hand {hand}; the opponent's deck "
            f"{printable(setup.opp_deck_name)}, advice assuming it plays {_model(setup.opponent)}."
        )
        self.say(f"Saved after every event in {printable(str(target))}. Type help for the input.")

    def resumed(self, followed: Followed, path: Path) -> None:
        if self.as_json:
            self.emit("start", save=str(path), resumed=True, state=state_json(followed))
            return
        self.say(f"Resumed the match saved in {printable(str(path))}.")
        # (a finished match's result is said next, with its save, by match_over: once)
        for line in board_lines(followed, result=False):
            self.say(line)

    def stopped(self, followed: Followed, target: Path, why: str) -> None:
        if self.as_json:
            self.emit("stopped", save=str(target), finished=followed.state.is_terminal())
            return
        if followed.state.is_terminal():
            return
        head = f"{why} " if why else ""
        shown = printable(str(target))
        self.say(f"{head}Saved in {shown}: continue with `pazaak follow --resume {shown}`.")

    def prompt(self, followed: Followed) -> str:
        state = followed.state
        if followed.asks_opener:
            return f"who opens set {followed.set_number + 1}? (me/opponent)> "
        who = "you" if state.turn == ME else "opp"
        if state.phase is Phase.BEFORE_DRAW:
            return f"[set {followed.set_number}] {who} draw> "
        return f"[set {followed.set_number}] {who} {state.sides[state.turn].total}> "

    # -- events ---------------------------------------------------------------------------

    def step(self, step: Step, before: Followed, after: Followed, line: str) -> None:
        """One step of the match, from ``before`` to ``after``."""
        action = step.action
        prior, now = before.state, after.state
        actor = None if isinstance(action, Open) else prior.turn
        set_over = now.phase in (Phase.SET_OVER, Phase.MATCH_OVER) and len(now.set_winners) > len(
            prior.set_winners
        )
        if self.as_json:
            fields: dict[str, Any] = {}
            if isinstance(action, Play):
                fields = {"card": str(action.card), "value": action.value}
            elif isinstance(action, Draw):
                fields = {"value": action.value}
            elif isinstance(action, Open):
                fields = {"opener": _player(action.player)}
            self.emit(
                "event",
                input=line,
                player=_player(actor),
                action=format_action(action),
                automatic=step.automatic,
                **fields,
                state=state_json(after),
            )
            if set_over:
                self.set_over_json(now)
            return
        text = _describe(prior, now, action)
        if text:
            self.say(text)
        if set_over:
            self.say(_set_result(now))

    def set_over_json(self, state: MatchState) -> None:
        outcome = set_outcome(state)
        assert outcome is not None
        self.emit(
            "set_over",
            set=len(state.set_winners),
            winner=_player(outcome.winner),
            reason=outcome.reason,
            totals=[state.sides[0].total, state.sides[1].total],
            sets=list(state.sets_won()),
            ties=state.ties(),
        )

    def match_over(self, followed: Followed, target: Path) -> None:
        state = followed.state
        winner = state.match_winner()
        if self.as_json:
            self.emit("match_over", winner=_player(winner), sets=list(state.sets_won()))
            return
        self.say(f"Match over: {describe_result(followed)}. (Saved in {printable(str(target))}.)")

    def ask_opener(self, followed: Followed) -> None:
        if self.as_json:
            self.emit(
                "question",
                question="opener",
                set=followed.set_number + 1,
                answers=["me", "opponent"],
            )
        # A person sees the question in the prompt.

    def refused(self, line: str, message: str) -> None:
        if self.as_json:
            self.emit("refused", input=line, message=message)
        else:
            self.say(f"Refused: {printable(message.rstrip('.'))}.")

    def undone(self, followed: Followed, prior: MatchState, now: MatchState, step: Step) -> None:
        """``step`` (from ``prior`` to ``now``) was undone: ``followed`` is the match now."""
        if self.as_json:
            self.emit("undo", undone=format_action(step.action), state=state_json(followed))
            return
        text = _describe(prior, now, step.action)
        self.say(f"Undone: {text[0].lower()}{text[1:]}")
        self.board(followed)

    # -- commands -------------------------------------------------------------------------

    def help(self) -> None:
        if self.as_json:
            self.emit("help", text=HELP_TEXT)
        elif terminal_width() is None:
            self.say(HELP_TEXT)
        else:  # (its last paragraph joined, for the terminal's width to wrap it)
            events, commands = HELP_TEXT.split("\nCommands: ")
            self.say(f"{events}\nCommands: {' '.join(commands.splitlines())}")

    def position(self, followed: Followed) -> None:
        """The position's notation; at the user's decision, the ``pazaak advise`` command that
        asks its question as the advice here does (the notation alone takes advise's own
        opponent deck and model)."""
        position = format_position(followed.state)
        words = advise_words(followed) if followed.my_decision else None
        if self.as_json:
            self.emit("position", position=position, advise=words)
            return
        self.say(position)
        if words is not None:
            earlier = followed.opponent_earlier_cards()
            unseen = (
                f" (it takes the whole deck: the {counted(len(earlier), 'card')} the opponent "
                f"played in earlier sets, {' '.join(map(str, earlier))}, are not in the notation)"
                if earlier
                else ""
            )
            # (on a terminal, the command on a line of its own, never wrapped: it is copied)
            apart = "\n  " if terminal_width() is not None else " "
            self.say(f"The same question for advise{unseen}:{apart}{shlex.join(words)}")

    def board(self, followed: Followed) -> None:
        if self.as_json:
            self.emit("board", state=state_json(followed))
            return
        for line in board_lines(followed):
            self.say(line)

    def advice(self, question: Any, advice: Advice, note: str | None = None) -> None:
        """The table of moves (``note``: why its objective, under its first line)."""
        if self.as_json:
            if note:
                self.emit("note", message=note)
            self.emit("advice", **advice_json(advice, question))
            return
        if self.quiet:
            best = advice.results[0]
            o = best.outcome
            self.say(
                f"Best: {best.move} (win {100 * o.p_win:.1f} %, tie {100 * o.p_tie:.1f} %, "
                f"loss {100 * o.p_loss:.1f} %)."
            )
            return
        self.say(render_advice(advice, FOLLOW_ASKS, note))


def _model(opponent: str) -> str:
    return opponent_model(opponent).short


def _describe(before: MatchState, after: MatchState, action: Any) -> str:
    """One line for one event, as a person reads it."""
    if isinstance(action, Open):
        number = len(after.set_winners) + 1
        who = "you open" if action.player == ME else "the opponent opens"
        deck = sum(after.draw_counts()) if after.ruleset.main_deck.value != "infinite" else None
        left = f" ({deck} cards left in the main deck)" if deck is not None else ""
        return f"Set {number}: {who}{left}."
    mover = before.turn
    who = "You" if mover == ME else "Opponent"
    side = after.sides[mover]
    if isinstance(action, Draw):
        renewed = (
            " (the main deck had run out: a fresh one is shuffled)"
            if before.ruleset.main_deck.value == "shared" and not any(before.deck)
            else ""
        )
        stood = _stood(before, after)
        return (
            f"{who} draw{'s' if mover else ''} {action.value}: total {side.total}.{renewed}{stood}"
        )
    if isinstance(action, Play):
        card = action.card
        what = str(card)
        if card.kind is CardKind.DOUBLE:
            what += f" (= {action.value:+d})"
        elif len(card.values) > 1:
            what += f" as {action.value:+d}"
        return (
            f"{who} play{'s' if mover else ''} {what}: total {side.total}.{_stood(before, after)}"
        )
    if isinstance(action, Stand):
        return f"{who} stand{'s' if mover else ''} on {side.total}."
    return f"{who} end{'s' if mover else ''} the turn on {side.total}."


def _stood(before: MatchState, after: MatchState) -> str:
    """`` The opponent stands automatically at 20.`` where a draw or a card made the mover stand
    without an ``s``
    (the target always stands, and so does a full table), else nothing."""
    mover = before.turn
    side = after.sides[mover]
    if before.sides[mover].standing or not (side.standing or after.phase is Phase.SET_OVER):
        return ""
    rules = before.ruleset
    said = "You stand" if mover == ME else "The opponent stands"
    if side.total == rules.target:
        return f" {said} automatically at {rules.target}."
    if len(side.table) >= rules.table_size and side.total < rules.target:
        return f" {said} automatically: a full table of {rules.table_size} cards."
    return ""


def _set_result(state: MatchState) -> str:
    outcome = set_outcome(state)
    assert outcome is not None
    number = len(state.set_winners)
    mine, theirs = state.sides[0].total, state.sides[1].total
    won = state.sets_won()
    if outcome.winner is None:
        head = f"Set {number} is a tie, {mine} to {theirs}"
    else:
        head = f"Set {number}: {'you win' if outcome.winner == ME else 'the opponent wins'}"
        head += f" ({outcome.reason}, {mine} to {theirs})"
    ties = state.ties()
    tail = f", {ties} tie{'s' if ties != 1 else ''}" if ties else ""
    return f"{head}. Sets: you {won[0]}, opponent {won[1]}{tail}."


def board_lines(followed: Followed, *, result: bool = True) -> list[str]:
    """The board for ``board``, after an undo and on resuming (``result``: with the result of
    a finished match, which a resumed one leaves to :meth:`Screen.match_over`)."""
    state = followed.state
    me, them = state.sides
    head = board_head(state, followed.set_number, ("you", "opponent"))
    hand = " ".join(str(card) for card in me.hand if card is not None) or "none"
    played = seen_text(followed.opp_played)
    lines = [
        head + ".",
        f"  You:      {table_text(me)}; hand {hand}",
        f"  Opponent: {table_text(them)}; {counted(len(them.hand), 'hidden hand card')}; "
        f"played {played}",
    ]
    if state.is_terminal():
        if result:
            lines.append(f"Match over: {describe_result(followed)}.")
    elif followed.asks_opener:
        lines.append(f"Who opens set {followed.set_number + 1}? Type me or opponent.")
    else:
        who = "You" if state.turn == ME else "The opponent"
        lines.append(
            f"{who} {'draw' if state.turn == ME else 'draws'} next."
            if state.phase is Phase.BEFORE_DRAW
            else f"{who} {'have' if state.turn == ME else 'has'} drawn and "
            f"{'choose' if state.turn == ME else 'chooses'}."
        )
    return lines


HELP_TEXT = """\
Type what happens in the game, in order; the tool knows whose turn it is.
  7            a main-deck card drawn (1..10), by whoever is to draw
  +3  -2       a hand card played (a plain +3 may be a ±3 played as +3)
  ±3 -  *3 +   a ± card and its sign; ±1/2 (VV) needs +1, +2, -1 or -2
  F2/4 F3/6 D  flips and Double (F1, F2, $$ too); T + / T - a Tiebreaker
  e  s         end the turn, stand
  7 +3 s       several events on one line
  me / opponent  who opens the set, when the game chose at random
Commands: undo (one event back, again and again), board, position (the notation, and the
pazaak advise command of your decision), hint (the advice again), hint match (the odds of
winning the match, however long they take), help, quit. The match is saved after every event."""
