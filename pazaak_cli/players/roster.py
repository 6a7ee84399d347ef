"""Players: policies that choose an action from what one seat at the table can see.

A player is given ``state.observed_by(seat)`` at its decision nodes (phase AFTER_DRAW, its turn):
its own hand, both tables and totals, the stand flags, the sets, the other hand's *count* (the
cards themselves are ``None``) and the main deck's remaining composition (public by counting).
It never sees the other hand's values or the order of the deck.

The policies:

- ``kotor``: the computer opponent of KOTOR I, exactly as docs/rules.md §7 (:class:`KotorPlayer`);
- ``heuristic``: a sensible rule a good human plays (:class:`HeuristicPlayer`);
- ``stand17``: never plays a hand card, stands at 17 or more (:class:`Stand17Player`);
- ``random``: a uniformly random legal action, never a forfeit (:class:`RandomPlayer`);
- ``expert`` (also ``match-lite``): the match solver as a player, the opponent's later hands
  taken as empty (``pazaak_cli.players.expert.ExpertPlayer``): no deck-pair table to solve first;
- ``match-expert``: the match solver as a player, every later set with both sides' hands
  (``pazaak_cli.players.expert.MatchExpertPlayer``): a deck-pair table first (``pazaak prepare``);
- ``set-expert``: the exact set solver as a player (``pazaak_cli.players.expert.SetExpertPlayer``).

:func:`make_player` builds any of them by name. This registry of named players sits at the
top of the package's layers: it imports the expert (and through it the solvers) and the KOTOR I
rule (:mod:`pazaak_cli.policies.kotor_rule`); none of them imports it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import require_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import (
    END_TURN,
    STAND,
    Action,
    Forfeit,
    MatchState,
    require_decision,
)
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.players.expert import ExpertPlayer, MatchExpertPlayer, SetExpertPlayer
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import (
    KOTOR_END_TURN,
    KOTOR_STAND,
    CardTry,
    PlainTries,
    cached_tries,
    kotor_rule,
    try_play,
    try_totals,
)


class Player(Protocol):
    """A policy for one seat."""

    def choose(self, view: MatchState) -> Action:
        """Return one of ``view.legal_actions()`` for the player to act (``view.turn``), given
        its seat's view at a decision; anything else is refused (:func:`require_decision`)."""
        ...


POLICY_NAMES: tuple[str, ...] = (
    "kotor",
    "heuristic",
    "stand17",
    "random",
    "expert",
    "match-expert",
    "set-expert",
    "match-lite",
)
"""Every policy :func:`make_player` knows, in the order they are listed to users."""

POLICY_HELP: dict[str, str] = {
    "kotor": "the KOTOR I computer opponent (docs/rules.md §7)",
    "heuristic": "a good human's rule: make 20, rescue a bust, chase a lead",
    "stand17": "never plays a hand card, stands at 17 or more",
    "random": "a uniformly random legal action (never forfeits)",
    "expert": "plays to win the match (the match solver; quick with any deck)",
    "match-expert": "the full match model: stronger, slow until its table is solved (prepare)",
    "set-expert": "plays to win the set in progress (the set solver)",
    "match-lite": "the same player as expert (its earlier name)",
}
"""One line per policy, for the commands' help (at most 66 characters, so that it fits an
80-column terminal beside the name)."""

MATCH_POLICIES = frozenset({"expert", "match-expert", "match-lite"})
"""Policies that solve match-state tables as they meet new hands: their first moves with new
hands take longer (``pazaak play`` shows a status line meanwhile)."""

RANDOMISED_POLICIES = frozenset({"random"})
"""Policies whose choices use the ``rng`` given to :func:`make_player`; the others are
deterministic functions of the view, so one instance can serve many matches."""


def make_player(
    name: str,
    *,
    ruleset: Ruleset,
    rng: random.Random,
    own_deck: Sequence[Card],
    opponent_deck: Sequence[Card] | None,
) -> Player:
    """Build the policy called ``name`` for one seat.

    ``own_deck`` and ``opponent_deck`` are the two side decks' cards (the opponent's may be
    unknown); only the solver players use them, as the prior over the hidden hand (docs/rules.md
    §9). A deck's name or text is refused with a :class:`DeckError`, anything else than cards
    in a deck with a :class:`CardError`, each saying how to make cards (a name was once taken as
    its letters: ``set-expert`` failed, ``expert`` played on a prior of none).
    """
    require_cards(own_deck, "make_player's own_deck")
    require_cards(opponent_deck, "make_player's opponent_deck")
    if name == "kotor":
        return KotorPlayer()
    if name == "heuristic":
        return HeuristicPlayer()
    if name == "stand17":
        return Stand17Player()
    if name == "random":
        return RandomPlayer(rng)
    if name in ("expert", "match-lite"):
        return ExpertPlayer(ruleset=ruleset, opponent_deck=opponent_deck)
    if name == "match-expert":
        return MatchExpertPlayer(ruleset=ruleset, opponent_deck=opponent_deck)
    if name == "set-expert":
        return SetExpertPlayer(ruleset=ruleset, opponent_deck=opponent_deck)
    raise PazaakError(f"unknown policy {name!r}; choose one of {', '.join(POLICY_NAMES)}")


# The KOTOR I computer opponent -------------------------------------------------------------


class KotorPlayer:
    """The KOTOR I computer opponent (docs/rules.md §7): deterministic, sees only totals, its own
    hand and the sets the other player has won. It decides through :func:`kotor_rule`.

    After a card of step 2 or 3 it asks the rule again with ``played`` and the position as it
    is now: step 4 then reads *mine* and best-down from the table and the hand after the card
    (a hand card left that could still bring the total below 16 keeps it drawing below 18). The
    player keeps no state between calls.
    """

    def __init__(self) -> None:
        # The tries of the last hand seen: a hand changes only when a card is played, so this
        # memo (checked by identity, the hand is kept alive here) saves rebuilding them.
        self._hand: tuple[Card | None, ...] = ()
        self._tries: tuple[CardTry, ...] = ()
        self._plain: PlainTries | None = ()

    def choose(self, view: MatchState) -> Action:
        require_decision(view)
        ruleset = view.ruleset
        seat = view.turn
        me = view.sides[seat]
        them = view.sides[1 - seat]
        # Before a card: the tries of step 1..3. After one: those of the hand left, from the
        # table as it is now, for step 4's best-down.
        if me.hand is not self._hand:
            self._hand = me.hand
            self._tries, self._plain = cached_tries(me.hand)
        tries = self._tries
        if self._plain is not None:
            raw = me.total
            totals = [(raw + value, flexible) for value, flexible in self._plain]
        else:
            totals = try_totals(me, ruleset, tries)
        choice = kotor_rule(
            me.total,
            them.total,
            them.standing,
            view.set_winners.count(1 - seat),
            totals,
            view.played,
            ruleset,
        )
        if choice == KOTOR_END_TURN:
            return END_TURN
        if choice == KOTOR_STAND:
            return STAND
        return try_play(me, ruleset, tries[choice])


# Baselines ---------------------------------------------------------------------------------


class Stand17Player:
    """Never plays a hand card; stands at 17 or more (the target less 3)."""

    def choose(self, view: MatchState) -> Action:
        require_decision(view)
        total = view.sides[view.turn].total
        target = view.ruleset.target
        if target - 3 <= total <= target:
            return STAND
        return END_TURN


class HeuristicPlayer:
    """A sensible rule a good human plays, in this order:

    1. a card that makes exactly the target (20) is played;
    2. over 20, the card that leaves the highest total is played (none: the set is lost);
    3. when the other player stands, a card that takes the total above his (and not over 20)
       is played, the one leaving the highest total; a total above his stands at once, a total
       below his keeps drawing, an equal total stands from 18;
    4. otherwise it stands at 18 or more and draws below.

    Among cards that do equally well it plays a fixed-sign card before a ± card, so that the
    flexible cards stay in hand. It decides through :func:`heuristic_rule` (as
    :class:`KotorPlayer` through :func:`kotor_rule`), which the match solver can also play.
    """

    def choose(self, view: MatchState) -> Action:
        require_decision(view)
        ruleset = view.ruleset
        me, them = view.sides[view.turn], view.sides[1 - view.turn]
        tries = () if view.played else cached_tries(me.hand)[0]
        choice = heuristic_rule(
            me.total,
            them.total,
            them.standing,
            view.set_winners.count(1 - view.turn),
            try_totals(me, ruleset, tries),
            view.played,
            ruleset,
        )
        if choice == KOTOR_END_TURN:
            return END_TURN
        if choice == KOTOR_STAND:
            return STAND
        return try_play(me, ruleset, tries[choice])


class RandomPlayer:
    """A uniformly random legal action, never a forfeit (a forfeit would end most matches at
    once and tell nothing about the engine). Meant for fuzzing the engine, not for play."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: MatchState) -> Action:
        require_decision(view)
        actions = [a for a in view.legal_actions() if not isinstance(a, Forfeit)]
        return actions[self.rng.randrange(len(actions))]
