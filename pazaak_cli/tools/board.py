"""The board a player reads at any moment: the score, the main deck's cards left, both tables
and hands, and the opponent's cards already seen. ``pazaak follow``'s ``board`` and ``pazaak
play``'s ``board`` show the same lines (the card count is what a KOTOR player keeps in their
head); nothing here prints."""

from __future__ import annotations

from collections.abc import Sequence

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.game import MatchState, Side
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import MainDeck


def deck_count(state: MatchState) -> str | None:
    """``main deck 35 left (1:4 2:4 ...)``: how many of each value the next draw is made from;
    ``None`` with an infinite deck (every value always as likely)."""
    if state.ruleset.main_deck is MainDeck.INFINITE:
        return None
    counts = state.draw_counts()
    each = " ".join(f"{value}:{count}" for value, count in enumerate(counts, start=1))
    return f"main deck {sum(counts)} left ({each})"


def board_head(state: MatchState, set_number: int, names: tuple[str, str]) -> str:
    """``Set 2; sets: you 1, opponent 0, 1 tie; main deck 35 left (...)``: the line above the
    tables (``names``: how the two seats are called)."""
    won = state.sets_won()
    ties = state.ties()
    where = f"Set {set_number}" if set_number else "Before set 1"  # (its opener not yet said)
    head = f"{where}; sets: {names[0]} {won[0]}, {names[1]} {won[1]}"
    if ties:
        head += f", {counted(ties, 'tie')}"
    drawn = deck_count(state)
    if drawn:
        head += f"; {drawn}"
    return head


def table_text(side: Side) -> str:
    """``7 +3 5 = 15, stands``: a side's table, its total, and whether it stands."""
    cards = " ".join(str(card) for card in side.table) or "-"
    stands = ", stands" if side.standing else ""
    return f"{cards} = {side.total}{stands}"


def seen_text(played: Sequence[tuple[int, Card]]) -> str:
    """``+3 (set 1) -2 (set 2)``: the hand cards a hidden hand has shown, with their sets."""
    return " ".join(f"{card} (set {number + 1})" for number, card in played) or "none"


__all__ = ["board_head", "deck_count", "seen_text", "table_text"]
