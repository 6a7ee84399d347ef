"""What a match says to the people at the table, as pure functions of the match: each event in a
sentence, the end of a set and of the match, the board with both tables and the hand the reader
may see. ``pazaak play`` prints them; nothing here reads or writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from pazaak_cli.engine.cards import CardKind
from pazaak_cli.engine.game import (
    Action,
    Draw,
    EndTurn,
    MatchState,
    Open,
    Phase,
    Play,
    Stand,
    set_outcome,
)
from pazaak_cli.engine.numbers import counted
from pazaak_cli.terminal.text import printable, style, terminal_width
from pazaak_cli.tools.board import board_head, seen_text, table_text
from pazaak_cli.tools.session import Event, MatchSession, Seat

YOU = "You"
"""The name of the person at the keyboard when the other seat is a computer."""


def _verb(seat: Seat, base: str, third: str) -> str:
    return f"{seat.name} {base if seat.name == YOU else third}"


def _possessive(seat: Seat) -> str:
    return "Your" if seat.name == YOU else f"{seat.name}'s"


def describe_event(seats: Sequence[Seat], event: Event) -> list[str]:
    """The line(s) that tell what ``event`` did."""
    action, before, after = event.action, event.before, event.after
    if isinstance(action, Open):
        number = len(before.set_winners) + 1
        opener = seats[action.player]
        return [style(f"--- Set {number}: {_verb(opener, 'open', 'opens')}. ---", bold=True)]
    mover = seats[before.turn]
    side_after = after.sides[before.turn]
    total = _total_after(before, after)
    if isinstance(action, Draw):
        text = f"{_verb(mover, 'draw', 'draws')} {action.value}: total {total}"
    elif isinstance(action, Play):
        text = f"{_verb(mover, 'play', 'plays')} {_played(action)}: total {total}"
    elif isinstance(action, EndTurn):
        over = total > before.ruleset.target
        text = f"{_verb(mover, 'end', 'ends')} the turn on {total}" + (
            f" and {'bust' if mover.name == YOU else 'busts'}" if over else ""
        )
    elif isinstance(action, Stand):
        text = f"{_verb(mover, 'stand', 'stands')} on {total}"
    else:
        return [f"{_verb(mover, 'forfeit', 'forfeits')} the match."]
    text += _automatic(mover, before, after, action, side_after.standing)
    return [text + "."]


def _total_after(before: MatchState, after: MatchState) -> int:
    """The mover's total after the event (read before the next set clears the tables)."""
    return after.sides[before.turn].total


def _automatic(
    mover: Seat, before: MatchState, after: MatchState, action: Action, standing: bool
) -> str:
    """The automatic stand that a card can cause (at 20, or the ninth card)."""
    if not isinstance(action, (Draw, Play)) or not standing:
        return ""
    rules = before.ruleset
    side = after.sides[before.turn]
    stands = "stand" if mover.name == YOU else "stands"
    if side.total == rules.target:
        return f", {stands} automatically"
    if len(side.table) >= rules.table_size:
        return f", the ninth card: {stands} automatically"
    return ""


def _played(action: Play) -> str:
    card = action.card
    if card.kind is CardKind.DOUBLE:
        return f"D (copies {action.value:+d})"
    if card.kind is CardKind.FLIP_2_4:
        return "F2/4 (flips the 2s and 4s)"
    if card.kind is CardKind.FLIP_3_6:
        return "F3/6 (flips the 3s and 6s)"
    if len(card.values) > 1:
        return f"{card} as {action.value:+d}"
    return str(card)


def set_over_lines(seats: Sequence[Seat], state: MatchState) -> list[str]:
    """The final tables of the set that just ended, its result and the sets won."""
    outcome = set_outcome(state)
    if outcome is None or outcome.reason == "forfeit":
        return []
    number = len(state.set_winners)
    totals = (state.sides[0].total, state.sides[1].total)
    lines = table_lines(seats, state)
    if outcome.winner is None:
        result = f"Set {number} is a tie at {totals[0]}: nobody scores."
    else:
        winner, loser = seats[outcome.winner], seats[1 - outcome.winner]
        wins = _verb(winner, "win", "wins") + f" set {number}"
        if outcome.reason == "bust":
            busts = "bust" if loser.name == YOU else "busts"
            result = f"{wins}: {loser.name} {busts} with {totals[1 - outcome.winner]}."
        elif outcome.reason == "nine cards":
            result = f"{wins} with nine cards on the table."
        elif outcome.reason == "tiebreaker":
            result = f"{wins}: the tiebreaker breaks the tie at {totals[0]}."
        else:
            result = f"{wins}, {totals[outcome.winner]} to {totals[1 - outcome.winner]}."
    lines.append(style(result, bold=True) + "  " + sets_line(seats, state))
    return lines


def sets_line(seats: Sequence[Seat], state: MatchState) -> str:
    won = state.sets_won()
    ties = state.ties()
    tied = f", {ties} tie{'s' if ties != 1 else ''}" if ties else ""
    return f"Sets: {seats[0].name} {won[0]} - {won[1]} {seats[1].name}{tied}."


def table_lines(seats: Sequence[Seat], state: MatchState) -> list[str]:
    """Both tables in order, with totals and stand marks."""
    rules = state.ruleset
    width = max(len(seat.name) for seat in seats)
    rows = ["".join(f"{card!s:>5}" for card in side.table) or "    -" for side in state.sides]
    span = max(len(row) for row in rows)
    lines = []
    for number, (seat, side) in enumerate(zip(seats, state.sides, strict=True)):
        cards = rows[number].ljust(span)
        total = f"{side.total:>3}"
        if side.total > rules.target:
            total = style(total, fg="red", bold=True)
        elif side.total == rules.target:
            total = style(total, fg="green", bold=True)
        marks = []
        if side.standing:
            marks.append(style("stands", fg="yellow"))
        if side.total > rules.target:
            marks.append(style("over " + str(rules.target), fg="red"))
        if state.phase in (Phase.BEFORE_DRAW, Phase.AFTER_DRAW) and state.turn == number:
            marks.append("<- to play")
        lines.append(f"  {seat.name:<{width}} {cards} = {total}  {' '.join(marks)}".rstrip())
    return lines


def board_lines(session: MatchSession, seat: int) -> list[str]:
    """The screen before ``seat`` types a move: the set, both tables, the hands, whose turn."""
    state = session.state
    seats = session.seats
    rules = state.ruleset
    me, other = seats[seat], seats[1 - seat]
    won = state.sets_won()
    ties = state.ties()
    tied = f", {ties} tie{'s' if ties != 1 else ''}" if ties else ""
    score = f"({seats[0].name} {won[0]} - {won[1]} {seats[1].name}{tied})"
    lines = [style(f"Set {session.set_number()}", bold=True) + " " + score]
    lines += table_lines(seats, state)
    hand = state.sides[seat].hand
    shown = "   ".join(f"{i}) {card}" for i, card in enumerate(hand, start=1)) or "(empty)"
    count = len(state.sides[1 - seat].hand)
    face_down = f"{count} card{'s' if count != 1 else ''} face down"
    mine, theirs = f"  {_possessive(me)} hand: {shown}", f"{_possessive(other)} hand: {face_down}"
    width = terminal_width()
    if width is not None and len(mine) + 4 + len(theirs) > width:  # (on a line of its own)
        lines += [mine, f"  {theirs}"]
    else:
        lines.append(f"{mine}    {theirs}")
    side = state.sides[seat]
    whose = "Your move" if me.name == YOU else f"{me.name}'s move"
    if side.total > rules.target:
        if _can_come_back(state):
            advice = "play a card to come back (p N), or the turn ends in a bust"
        else:
            advice = "no card can bring you back; end the turn (e) and bust"
        lines.append(
            style(f"{whose}, total {side.total}, over {rules.target}: {advice}.", fg="red")
        )
    elif state.played:
        lines.append(f"{whose}, total {side.total}: card played; e end, s stand.")
    else:
        lines.append(
            f"{whose}, total {side.total}: e end, s stand, p N play a card, h hint, ? help."
        )
    return lines


def _can_come_back(state: MatchState) -> bool:
    """Whether a hand card can bring the player to act back to the target or under it."""
    target = state.ruleset.target
    return any(
        state.child(action).sides[state.turn].total <= target
        for action in state.legal_actions()
        if isinstance(action, Play)
    )


def match_over_lines(session: MatchSession) -> list[str]:
    """The winner, the sets, the wager settled and a one-line summary."""
    state = session.state
    seats = session.seats
    winner = state.match_winner()
    assert winner is not None
    won = state.sets_won()
    champ, loser = seats[winner], seats[1 - winner]
    lines = []
    if state.forfeited is not None:
        how = f"{loser.name} forfeited with the sets at {won[0]} - {won[1]}"
    else:
        how = f"{won[winner]} sets to {won[1 - winner]}"
        if state.ties():
            how += f" ({state.ties()} tie{'s' if state.ties() != 1 else ''})"
    lines.append(style(f"=== Match over: {_verb(champ, 'win', 'wins')}, {how}. ===", bold=True))
    if session.wager:
        gain = session.wager_settled()
        lines.append(
            f"Wager settled: {seats[0].name} {gain[0]:+d} credits, "
            f"{seats[1].name} {gain[1]:+d} credits."
        )
    else:
        lines.append("No wager was at stake.")
    sets_played = len(state.set_winners)
    ties = state.ties()
    # (the score said the winner's first, as a person says it: "kotor beat You 3-2")
    if state.forfeited is not None:
        summary = (
            f"Summary: {loser.name} forfeited to {champ.name} at {won[1 - winner]}-{won[winner]}"
        )
    else:
        summary = f"Summary: {champ.name} beat {loser.name} {won[winner]}-{won[1 - winner]}"
    if sets_played or state.forfeited is None:  # (not "in 0 sets": a forfeit in set 1)
        summary += f" in {sets_played} set{'s' if sets_played != 1 else ''}"
    if ties:
        summary += f" ({ties} tie{'s' if ties != 1 else ''})"
    if session.wager:
        summary += f", {session.wager} credits to {champ.name}"
    summary += (
        f"; {seats[0].deck_name} vs {seats[1].deck_name}, {session.ruleset.spec}, "
        f"seed {session.seed}."
    )
    lines.append(summary)
    return lines


def board_text(session: MatchSession, seat: int) -> list[str]:
    """The board as ``seat`` sees it (``board``): the lines ``pazaak follow``'s ``board``
    shows (:mod:`pazaak_cli.tools.board`), the other hand face down."""
    view = session.view(seat)
    names = tuple(printable(s.name) for s in session.seats)
    ordered = (names[seat], names[1 - seat]) if seat == 0 else (names[1], names[0])
    head = board_head(view, session.set_number(), (names[0], names[1]))
    mine, theirs = view.sides[seat], view.sides[1 - seat]
    hand = " ".join(str(card) for card in mine.hand if card is not None) or "none"
    played = seen_text(session.cards_played(1 - seat))
    width = max(len(name) for name in ordered) + 1
    return [
        head + ".",
        f"  {(ordered[0] + ':').ljust(width)} {table_text(mine)}; hand {hand}",
        f"  {(ordered[1] + ':').ljust(width)} {table_text(theirs)}; "
        f"{counted(len(theirs.hand), 'hand card')} face down; played {played}",
    ]
