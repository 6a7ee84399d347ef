"""The KOTOR I computer opponent's rule (docs/rules.md §7), as a rule of the game.

The game's opponent is a fixed, deterministic rule: it sees its own total and hand, the other
player's total, whether he stands and how many sets he has won. :func:`kotor_rule` is that rule
from exactly those inputs; :func:`card_tries` lists the (card, value) pairs it tries, in its
order; :func:`kotor_best_cards` computes its best-up and best-down.

Both the player that plays by the rule (:class:`pazaak_cli.players.roster.KotorPlayer`) and the
exact best reply to it (:mod:`pazaak_cli.solve.kotor_reply`) decide through :func:`kotor_rule`, so
this module sits below both: it imports only the cards, the rules and the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.game import Placed, Play, Side, TableCard, current_values, table_total
from pazaak_cli.engine.rules import Ruleset

BUST = -1_000_000
"""What the KOTOR I opponent counts a total over the target as (docs/rules.md §7)."""

FLEXIBLE = frozenset({CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2, CardKind.TIEBREAKER})
"""Cards whose sign is chosen when played: the KOTOR rule keeps them when another card does as
well (docs/rules.md §7.2: an equal total replaces only a ± card); ±1/2 and T count as ± cards."""

_GOLD_TRY_ORDER: dict[CardKind, tuple[int, ...]] = {
    CardKind.PLUS_MINUS_1_2: (2, 1, -1, -2),
    CardKind.TIEBREAKER: (-1, 1),
    CardKind.FLIP_2_4: (0,),
    CardKind.FLIP_3_6: (0,),
    CardKind.DOUBLE: (0,),
}
"""The values the KOTOR rule tries for each gold card, in its order (docs/rules.md §7: ±1/2 as +2,
+1, -1, -2; a Tiebreaker as ±1, minus first like a ± card; a flip or a Double by its effect)."""


GOLD_EFFECTS = frozenset({CardKind.FLIP_2_4, CardKind.FLIP_3_6, CardKind.DOUBLE})
"""Cards whose effect depends on the table, not only on their own value."""


def gold_effect(side: Side, kind: CardKind, ruleset: Ruleset) -> tuple[int, int]:
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
    first then plus, ±1/2 as +2, +1, -1, -2, a Tiebreaker as -1 then +1 (docs/rules.md §7).

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
        flexible = kind in FLEXIBLE
        for value in values:
            play = None if kind in GOLD_EFFECTS else Play(index, card, value)
            tries.append(CardTry(value, play, index, card, flexible))
    return tuple(tries)


PlainTries = tuple[tuple[int, bool], ...]
_TRIES_CACHE: dict[tuple[Card | None, ...], tuple[tuple[CardTry, ...], PlainTries | None]] = {}
_TRIES_CACHE_SIZE = 100_000


def cached_tries(
    hand: tuple[Card | None, ...],
) -> tuple[tuple[CardTry, ...], PlainTries | None]:
    """:func:`card_tries` and :func:`_plain_tries`, remembered by hand: a tournament meets the
    same few hands again and again (a side deck deals at most 5,040 ordered hands)."""
    found = _TRIES_CACHE.get(hand)
    if found is None:
        if len(_TRIES_CACHE) >= _TRIES_CACHE_SIZE:
            _TRIES_CACHE.clear()
        tries = card_tries(hand)
        found = _TRIES_CACHE[hand] = (tries, _plain_tries(tries))
    return found


def _plain_tries(tries: tuple[CardTry, ...]) -> PlainTries | None:
    """(value, flexible) of each try when none is a flip or a Double (the total each reaches
    is then the table's total plus its value), else ``None``."""
    if any(play is None for _, play, _, _, _ in tries):
        return None
    return tuple((value, flexible) for value, _, _, _, flexible in tries)


class CardChoice(NamedTuple):
    """The best-up and best-down of docs/rules.md §7 for one position."""

    best_up: int
    up_play: Play | None
    """The card that reaches best-up, ``None`` if no card improves on *mine*."""
    best_down: int


def kotor_card_choice(side: Side, ruleset: Ruleset) -> CardChoice:
    """Best-up (the highest total ≤ target one hand card reaches, with that card) and best-down
    (the lowest total below *mine* one card reaches) for the side to act, as docs/rules.md §7
    defines them: hand order, a ± card as minus then plus, a strictly better total replaces the
    chosen card, an equal one replaces only a chosen ± card."""
    tries = card_tries(side.hand)
    best_up, up, best_down = kotor_best_cards(
        side.total, ruleset.target, try_totals(side, ruleset, tries)
    )
    return CardChoice(best_up, None if up < 0 else try_play(side, ruleset, tries[up]), best_down)


def try_totals(side: Side, ruleset: Ruleset, tries: tuple[CardTry, ...]) -> list[tuple[int, bool]]:
    """(total reached, flexible) for each try, in order: the input of :func:`kotor_rule`."""
    raw = side.total
    return [
        (raw + value, flexible)
        if play is not None
        else (gold_effect(side, card.kind, ruleset)[1], flexible)
        for value, play, _, card, flexible in tries
    ]


def try_play(side: Side, ruleset: Ruleset, chosen: CardTry) -> Play:
    """The engine action of one try (a flip or a Double gets the value it takes now)."""
    if chosen.play is not None:
        return chosen.play
    value = gold_effect(side, chosen.card.kind, ruleset)[0]
    return Play(chosen.position, chosen.card, value)


KOTOR_END_TURN = -1
"""What :func:`kotor_rule` returns to end the turn."""
KOTOR_STAND = -2
"""What :func:`kotor_rule` returns to stand."""


def kotor_best_cards(
    mine: int, target: int, tries: Sequence[tuple[int, bool]]
) -> tuple[int, int, int]:
    """(best-up, index of the try that reaches it or -1, best-down) of docs/rules.md §7.

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


DecisionRule = Callable[[int, int, bool, int, Sequence[tuple[int, bool]], bool, Ruleset], int]
"""A deterministic opponent's decision from what it looks at: :func:`kotor_rule`'s arguments
and answer (:func:`pazaak_cli.policies.heuristic_rule.heuristic_rule` is another)."""


def kotor_rule(
    mine: int,
    theirs: int,
    they_stand: bool,
    their_sets: int,
    tries: Sequence[tuple[int, bool]],
    played: bool,
    ruleset: Ruleset,
) -> int:
    """The KOTOR I computer opponent's choice (docs/rules.md §7) from exactly what it looks at.

    ``mine``, ``theirs``: the raw totals of the side to act and of the other side;
    ``they_stand``: whether the other side stands; ``their_sets``: the sets the other side has
    won; ``tries``: (total reached, flexible) for every (card, value) the rule tries, in its
    order (:func:`card_tries`); ``played``: a card of step 2 or 3 is already down this turn, so
    only step 4 is left, and it recomputes *mine* and best-down from the table and the hand
    after that card: ``mine`` and ``tries`` are then those of the position after the card (the
    hand without it; docs/rules.md §7.3, step 4). Returns the index of the try to play,
    :data:`KOTOR_END_TURN` or :data:`KOTOR_STAND`. :class:`~pazaak_cli.players.roster.KotorPlayer`
    and the solver's KOTOR opponent (:mod:`pazaak_cli.solve.rule_opponent`) both decide through this
    one function.

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
    best_up, up, best_down = kotor_best_cards(raw, target, tries)
    if played:  # only step 4 is left, on the numbers after the card of step 2 or 3
        return _step4(mine, theirs, they_stand, best_down, target)
    # Step 1: the other player stands behind us.
    if they_stand and theirs < mine:
        return KOTOR_STAND
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
    return _step4(mine, theirs, they_stand, best_down, target)


def _step4(mine: int, theirs: int, they_stand: bool, best_down: int, target: int) -> int:
    """Step 4 of the rule: keep drawing behind a standing player, or below 18 with a hand that
    can still come down below 16; otherwise stand. ``mine`` counts a bust as :data:`BUST`."""
    if they_stand and mine < theirs:
        return KOTOR_END_TURN
    if mine < target - 2 and best_down < target - 4:
        return KOTOR_END_TURN
    return KOTOR_STAND
