"""A side deck as a player reads it: its cards by kind, with their counts (``pazaak validate`` and
``pazaak decks show``).
"""

from __future__ import annotations

from tabulate import tabulate

from pazaak_cli.engine.decks import SideDeck, card_counts


def summary_table(deck: SideDeck) -> str:
    """The cards by kind with their counts, and the total."""
    rows: list[list[object]] = [
        [kind.value, len(cards), " ".join(str(card) for card in cards)]
        for kind, cards in card_counts(deck.cards)
    ]
    rows.append(["total", len(deck.cards), ""])
    return tabulate(rows, headers=["kind", "count", "cards"])
