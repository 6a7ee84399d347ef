"""Players: policies that choose an action from what one seat at the table can see.

A player is given ``state.observed_by(seat)`` at its decision nodes (phase AFTER_DRAW, its turn):
its own hand, both tables and totals, the stand flags, the sets, the other hand's *count* (the
cards themselves are ``None``) and the main deck's remaining composition (public by counting).
It never sees the other hand's values or the order of the deck.
"""

from __future__ import annotations

from typing import Protocol

from pazaak_cli.game import Action, MatchState


class Player(Protocol):
    """A policy for one seat."""

    def choose(self, view: MatchState) -> Action:
        """Return one of ``view.legal_actions()`` for the player to act (``view.turn``)."""
        ...
