"""The project's move notation: one move as a short text that reads back to the same move
(``open 1``, ``draw 7``, ``play 2 ±3 -3``, ``end``, ``stand``, ``forfeit``), as the position
notation (:mod:`pazaak_cli.engine.notation`) does for a whole position. Save files, the followed
match's steps and the engine protocol write moves in it; ``str(action)`` is the sentence a person
reads.
"""

from __future__ import annotations

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import CardError, NotationError
from pazaak_cli.engine.game import (
    END_TURN,
    FORFEIT,
    STAND,
    Action,
    Draw,
    EndTurn,
    Open,
    Play,
    Stand,
)
from pazaak_cli.engine.numbers import parse_signed, parse_whole


def format_action(action: Action) -> str:
    """One move as a short text: ``open 1``, ``draw 7``, ``play 2 ±3 -3``, ``end``, ``stand``,
    ``forfeit``."""
    if isinstance(action, Open):
        return f"open {action.player + 1}"
    if isinstance(action, Draw):
        return f"draw {action.value}"
    if isinstance(action, Play):
        return f"play {action.index + 1} {action.card} {action.value:+d}"
    if isinstance(action, EndTurn):
        return "end"
    if isinstance(action, Stand):
        return "stand"
    return "forfeit"


def parse_action(text: str) -> Action:
    """Read :func:`format_action`'s text back; raise :class:`NotationError` (quoting it) if it
    is not a move."""
    words = text.split() if isinstance(text, str) else []
    try:
        if words == ["end"]:
            return END_TURN
        if words == ["stand"]:
            return STAND
        if words == ["forfeit"]:
            return FORFEIT
        if len(words) == 2 and words[0] == "open" and words[1] in ("1", "2"):
            return Open(int(words[1]) - 1)
        if len(words) == 2 and words[0] == "draw":
            value = parse_whole(words[1], max_digits=2)
            if value is not None:
                return Draw(value)
        if len(words) == 4 and words[0] == "play":
            number = parse_whole(words[1], max_digits=3)
            value = parse_signed(words[3], max_digits=2)
            if number is not None and value is not None:
                return Play(number - 1, Card.parse(words[2]), value)
    except (CardError, ValueError):
        pass
    shown = repr(text)
    raise NotationError(f"{shown if len(shown) <= 40 else shown[:37] + '...'} is not a move")


__all__ = ["format_action", "parse_action"]
