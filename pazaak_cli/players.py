"""Players: policies that choose an action from what one seat at the table can see.

A player is given ``state.observed_by(seat)`` at its decision nodes (phase AFTER_DRAW, its turn):
its own hand, both tables and totals, the stand flags, the sets, the other hand's *count* (the
cards themselves are ``None``) and the main deck's remaining composition (public by counting).
It never sees the other hand's values or the order of the deck.

The policies:

- ``kotor``: the computer opponent of KOTOR I, exactly as RULES.md §7 (:class:`KotorPlayer`);
- ``heuristic``: a sensible rule a good human plays (:class:`HeuristicPlayer`);
- ``stand17``: never plays a hand card, stands at 17 or more (:class:`Stand17Player`);
- ``random``: a uniformly random legal action, never a forfeit (:class:`RandomPlayer`);
- ``expert``: the exact solver as a player (``pazaak_cli.expert.ExpertPlayer``).

:func:`make_player` builds any of them by name.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from pazaak_cli.cards import Card, CardKind
from pazaak_cli.errors import PazaakError
from pazaak_cli.game import (
    END_TURN,
    STAND,
    Action,
    Forfeit,
    MatchState,
    Placed,
    Play,
    Side,
    TableCard,
    current_values,
    table_total,
)
from pazaak_cli.rules import Ruleset


class Player(Protocol):
    """A policy for one seat."""

    def choose(self, view: MatchState) -> Action:
        """Return one of ``view.legal_actions()`` for the player to act (``view.turn``)."""
        ...


POLICY_NAMES: tuple[str, ...] = ("kotor", "heuristic", "stand17", "random", "expert")
"""Every policy :func:`make_player` knows, in the order they are listed to users."""

POLICY_HELP: dict[str, str] = {
    "kotor": "the KOTOR I computer opponent (RULES.md §7)",
    "heuristic": "a good human's rule: make 20, rescue busts, chase a standing lead, stand at 18",
    "stand17": "never plays a hand card, stands at 17 or more",
    "random": "a uniformly random legal action (never forfeits)",
    "expert": "the exact solver: the move with the best chance to win the set",
}

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

    ``own_deck`` and ``opponent_deck`` are the two side decks (the opponent's may be unknown);
    only the expert uses them, as the prior over the hidden hand (RULES.md §9).
    """
    if name == "kotor":
        return KotorPlayer()
    if name == "heuristic":
        return HeuristicPlayer()
    if name == "stand17":
        return Stand17Player()
    if name == "random":
        return RandomPlayer(rng)
    if name == "expert":
        try:
            from pazaak_cli.expert import (  # type: ignore[import-not-found,unused-ignore]
                ExpertPlayer,  # the solver is built in its own issue
            )
        except ModuleNotFoundError as error:
            if error.name != "pazaak_cli.expert":
                raise
            raise PazaakError("the expert player is not available yet") from None
        player: Player = ExpertPlayer(ruleset=ruleset, opponent_deck=opponent_deck)
        return player
    raise PazaakError(f"unknown policy {name!r}; choose one of {', '.join(POLICY_NAMES)}")


# The KOTOR I computer opponent -------------------------------------------------------------

BUST = -1_000_000
"""What the KOTOR I opponent counts a total over the target as (RULES.md §7)."""

_FLEXIBLE = frozenset({CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2, CardKind.TIEBREAKER})
"""Cards whose sign is chosen when played: the KOTOR rule keeps them when another card does as
well (RULES.md §7, "it keeps ± cards when it can"); gold ±1/2 and T count as ± cards."""

_GOLD_TRY_ORDER: dict[CardKind, tuple[int, ...]] = {
    CardKind.PLUS_MINUS_1_2: (2, 1, -1, -2),
    CardKind.TIEBREAKER: (-1, 1),
    CardKind.FLIP_2_4: (0,),
    CardKind.FLIP_3_6: (0,),
    CardKind.DOUBLE: (0,),
}
"""The values the KOTOR rule tries for each gold card, in its order (RULES.md §7: ±1/2 as +2,
+1, -1, -2; a Tiebreaker as ±1, minus first like a ± card; a flip or a Double by its effect)."""


_GOLD_EFFECTS = frozenset({CardKind.FLIP_2_4, CardKind.FLIP_3_6, CardKind.DOUBLE})
"""Cards whose effect depends on the table, not only on their own value."""


def _gold_effect(side: Side, kind: CardKind, ruleset: Ruleset) -> tuple[int, int]:
    """(value placed, total after) for a flip or a Double, by the engine's own table
    arithmetic: a flip is placed as 0 and turns cards over, a Double copies the last card."""
    if kind is CardKind.DOUBLE:
        value = current_values(side.table, ruleset.flip_targets)[-1]
        return value, side.total + value
    placed = Placed.FLIP_2_4 if kind is CardKind.FLIP_2_4 else Placed.FLIP_3_6
    return 0, table_total(side.table + (TableCard(placed, 0),), ruleset.flip_targets)


_PLUS, _MINUS, _PLUS_MINUS = CardKind.PLUS, CardKind.MINUS, CardKind.PLUS_MINUS


class CardTry(NamedTuple):
    """One value the KOTOR rule tries for one hand card."""

    value: int
    play: Play | None
    """The action; ``None`` for a flip or a Double, whose effect depends on the table."""
    position: int
    card: Card
    flexible: bool


def card_tries(hand: Sequence[Card | None]) -> tuple[CardTry, ...]:
    """Every (card, value) the KOTOR rule tries, in its order: hand order, a ± card as minus
    first then plus, ±1/2 as +2, +1, -1, -2, a Tiebreaker as -1 then +1 (RULES.md §7).

    Two equal cards are the same card to the rule: a play names the first hand slot that holds
    the card, as the engine's legal actions do.
    """
    tries = []
    for card in hand:
        assert card is not None, "a policy sees its own hand"
        index = hand.index(card)
        kind = card.kind
        if kind is _PLUS:
            values: tuple[int, ...] = (card.magnitude,)
        elif kind is _MINUS:
            values = (-card.magnitude,)
        elif kind is _PLUS_MINUS:
            values = (-card.magnitude, card.magnitude)
        else:
            values = _GOLD_TRY_ORDER[kind]
        flexible = kind in _FLEXIBLE
        for value in values:
            play = None if kind in _GOLD_EFFECTS else Play(index, card, value)
            tries.append(CardTry(value, play, index, card, flexible))
    return tuple(tries)


_PlainTries = tuple[tuple[int, bool], ...]
_TRIES_CACHE: dict[tuple[Card | None, ...], tuple[tuple[CardTry, ...], _PlainTries | None]] = {}
_TRIES_CACHE_SIZE = 100_000


def _cached_tries(
    hand: tuple[Card | None, ...],
) -> tuple[tuple[CardTry, ...], _PlainTries | None]:
    """:func:`card_tries` and :func:`_plain_tries`, remembered by hand: a tournament meets the
    same few hands again and again (a side deck deals at most 5,040 ordered hands)."""
    found = _TRIES_CACHE.get(hand)
    if found is None:
        if len(_TRIES_CACHE) >= _TRIES_CACHE_SIZE:
            _TRIES_CACHE.clear()
        tries = card_tries(hand)
        found = _TRIES_CACHE[hand] = (tries, _plain_tries(tries))
    return found


def _plain_tries(tries: tuple[CardTry, ...]) -> _PlainTries | None:
    """(value, flexible) of each try when none is a flip or a Double (the total each reaches
    is then the table's total plus its value), else ``None``."""
    if any(play is None for _, play, _, _, _ in tries):
        return None
    return tuple((value, flexible) for value, _, _, _, flexible in tries)


class CardChoice(NamedTuple):
    """The best-up and best-down of RULES.md §7 for one position."""

    best_up: int
    up_play: Play | None
    """The card that reaches best-up, ``None`` if no card improves on *mine*."""
    best_down: int


def kotor_card_choice(side: Side, ruleset: Ruleset) -> CardChoice:
    """Best-up (the highest total ≤ target one hand card reaches, with that card) and best-down
    (the lowest total below *mine* one card reaches) for the side to act, as RULES.md §7
    defines them: hand order, a ± card as minus then plus, a strictly better total replaces the
    chosen card, an equal one replaces only a chosen ± card."""
    tries = card_tries(side.hand)
    best_up, up, best_down = kotor_best_cards(
        side.total, ruleset.target, _try_totals(side, ruleset, tries)
    )
    return CardChoice(best_up, None if up < 0 else _try_play(side, ruleset, tries[up]), best_down)


def _try_totals(side: Side, ruleset: Ruleset, tries: tuple[CardTry, ...]) -> list[tuple[int, bool]]:
    """(total reached, flexible) for each try, in order: the input of :func:`kotor_rule`."""
    raw = side.total
    return [
        (raw + value, flexible)
        if play is not None
        else (_gold_effect(side, card.kind, ruleset)[1], flexible)
        for value, play, _, card, flexible in tries
    ]


def _try_play(side: Side, ruleset: Ruleset, chosen: CardTry) -> Play:
    """The engine action of one try (a flip or a Double gets the value it takes now)."""
    if chosen.play is not None:
        return chosen.play
    value = _gold_effect(side, chosen.card.kind, ruleset)[0]
    return Play(chosen.position, chosen.card, value)


KOTOR_END_TURN = -1
"""What :func:`kotor_rule` returns to end the turn."""
KOTOR_STAND = -2
"""What :func:`kotor_rule` returns to stand."""


def kotor_best_cards(
    mine: int, target: int, tries: Sequence[tuple[int, bool]]
) -> tuple[int, int, int]:
    """(best-up, index of the try that reaches it or -1, best-down) of RULES.md §7.

    ``mine`` is the raw total (over ``target`` counts as :data:`BUST`); ``tries`` lists
    (total reached, flexible) for every try in the rule's order (:func:`card_tries`).
    """
    if mine > target:
        mine = BUST
    best_up = best_down = mine  # over the target nothing goes "down": best-down stays BUST
    up = -1
    up_flexible = False
    for index, (total, flexible) in enumerate(tries):
        if total > target:
            continue
        if total > best_up or (total == best_up and up_flexible):
            best_up = total
            up = index
            up_flexible = flexible
        if total < best_down:
            best_down = total
    return best_up, up, best_down


def kotor_rule(
    mine: int,
    theirs: int,
    they_stand: bool,
    their_sets: int,
    tries: Sequence[tuple[int, bool]],
    played: bool,
    ruleset: Ruleset,
) -> int:
    """The KOTOR I computer opponent's choice (RULES.md §7) from exactly what it looks at.

    ``mine``, ``theirs``: the raw totals of the side to act and of the other side;
    ``they_stand``: whether the other side stands; ``their_sets``: the sets the other side has
    won; ``tries``: (total reached, flexible) for every (card, value) the rule tries, in its
    order (:func:`card_tries`); ``played``: a card of step 2 or 3 is already down this turn (step
    4 then, ``tries`` unused). Returns the index of the try to play, :data:`KOTOR_END_TURN` or
    :data:`KOTOR_STAND`. :class:`KotorPlayer` and the solver's KOTOR opponent
    (:mod:`pazaak_cli.kotor_reply`) both decide through this one function.

    The thresholds 20, 19, 18, 16, 14 and 12 are read relative to the ruleset's target (they are
    those numbers at the usual 20), and "fewer than 2 sets" as "not one set from the match".
    """
    target = ruleset.target
    raw = mine
    if mine > target:
        mine = BUST
    if theirs > target:
        theirs = BUST
        they_stand = True
    if played:  # step 4 after the card of step 2 or 3 (see KotorPlayer)
        if (they_stand and mine < theirs) or mine < target - 2:
            return KOTOR_END_TURN
        return KOTOR_STAND
    # Step 1: the other player stands behind us.
    if they_stand and theirs < mine:
        return KOTOR_STAND
    best_up, up, best_down = kotor_best_cards(raw, target, tries)
    # Step 2: a card that reaches 18..20 with a hand that backs it.
    if (
        up >= 0
        and theirs <= best_up
        and best_up >= target - 2
        and (
            best_up == target
            or (best_up == target - 1 and best_down >= target - 8)
            or best_down >= target - 6
        )
    ):
        return up
    # Step 3: over the target.
    if raw > target:
        if their_sets < ruleset.sets_to_win - 1 and theirs >= target - 2 and best_up < theirs:
            return KOTOR_END_TURN  # concede the set on purpose and keep the hand cards
        if up >= 0:
            return up
    # Step 4.
    if they_stand and mine < theirs:
        return KOTOR_END_TURN
    if mine < target - 2 and best_down < target - 4:
        return KOTOR_END_TURN
    return KOTOR_STAND


class KotorPlayer:
    """The KOTOR I computer opponent (RULES.md §7): deterministic, sees only totals, its own
    hand and the sets the other player has won. It decides through :func:`kotor_rule`.

    Step 4 after a played card uses the best-down computed before the play (the rule recomputes
    only *mine*). The rule plays a card only to reach 18..20 (step 2) or to come back from a
    bust (step 3, where best-down is -1,000,000), so after a play it ends the turn below 18
    and otherwise stands (unless the other player stands ahead): that is what
    :func:`kotor_rule` does when ``played``, which keeps the player stateless.
    """

    def __init__(self) -> None:
        # The tries of the last hand seen: a hand changes only when a card is played, so this
        # memo (checked by identity, the hand is kept alive here) saves rebuilding them.
        self._hand: tuple[Card | None, ...] = ()
        self._tries: tuple[CardTry, ...] = ()
        self._plain: _PlainTries | None = ()

    def choose(self, view: MatchState) -> Action:
        ruleset = view.ruleset
        seat = view.turn
        me = view.sides[seat]
        them = view.sides[1 - seat]
        if view.played:
            totals: list[tuple[int, bool]] = []
            tries: tuple[CardTry, ...] = ()
        else:
            if me.hand is not self._hand:
                self._hand = me.hand
                self._tries, self._plain = _cached_tries(me.hand)
            tries = self._tries
            if self._plain is not None:
                raw = me.total
                totals = [(raw + value, flexible) for value, flexible in self._plain]
            else:
                totals = _try_totals(me, ruleset, tries)
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
        return _try_play(me, ruleset, tries[choice])


# Baselines ---------------------------------------------------------------------------------


class Stand17Player:
    """Never plays a hand card; stands at 17 or more (the target less 3)."""

    def choose(self, view: MatchState) -> Action:
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
    flexible cards stay in hand.
    """

    def choose(self, view: MatchState) -> Action:
        target = view.ruleset.target
        seat = view.turn
        me = view.sides[seat]
        them = view.sides[1 - seat]
        total = me.total
        if not view.played:
            plays = _plays_by_total(view, me)
            exact = plays.get(target)
            if exact is not None:
                return exact
            if total > target:
                return _highest(plays, BUST, target) or END_TURN
            if them.standing and total <= them.total:
                winner = _highest(plays, them.total, target)
                if winner is not None:
                    return winner
        if total > target:
            return END_TURN
        if them.standing:
            if total > them.total:
                return STAND
            if total < them.total:
                return END_TURN
        return STAND if total >= target - 2 else END_TURN


def _plays_by_total(view: MatchState, side: Side) -> dict[int, Play]:
    """Each reachable total with the play that reaches it, a fixed-sign card preferred to a
    ± card and an earlier hand card to a later one."""
    best: dict[int, tuple[bool, Play]] = {}
    for action in view.legal_actions():
        if not isinstance(action, Play):
            continue
        total = _total_after(view, side, action)
        flexible = action.card.kind in _FLEXIBLE
        known = best.get(total)
        if known is None or (known[0] and not flexible):
            best[total] = (flexible, action)
    return {total: play for total, (_, play) in best.items()}


def _total_after(view: MatchState, side: Side, play: Play) -> int:
    """The mover's total after ``play``."""
    if play.card.kind in _GOLD_EFFECTS:
        return _gold_effect(side, play.card.kind, view.ruleset)[1]
    return side.total + play.value


def _highest(plays: dict[int, Play], above: int, target: int) -> Play | None:
    """The play leaving the highest total in (above, target], if any."""
    totals = [total for total in plays if above < total <= target]
    return plays[max(totals)] if totals else None


class RandomPlayer:
    """A uniformly random legal action, never a forfeit (a forfeit would end most matches at
    once and tell nothing about the engine). Meant for fuzzing the engine, not for play."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: MatchState) -> Action:
        actions = [a for a in view.legal_actions() if not isinstance(a, Forfeit)]
        return actions[self.rng.randrange(len(actions))]
