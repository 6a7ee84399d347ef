"""Hidden hands: every hand the opponent may hold, with its exact weight.

The prior is the opponent's side deck, less the cards it played in earlier sets; the values on
its table in this set say which cards it may have played (a +5 from a +5 or a ±5 card, each way
counted). Every answer about a hidden hand averages over these hands, or samples them by their
weights.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import Placed, Side, TableCard
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.solve.answer_types import SolveOptions, SolverTooLarge


def possible_hands(
    deck: Sequence[Card], size: int, played: Sequence[Card] = ()
) -> list[tuple[tuple[Card, ...], int]]:
    """Every hand of ``size`` cards drawn without replacement from ``deck`` less ``played``,
    as (sorted hand, number of ways): the weights of the uniform prior over positions."""
    remaining = Counter(deck)
    for card in played:
        if remaining[card] <= 0:
            raise PazaakError(
                f"the opponent played {card}, which its side deck does not hold (often enough)"
            )
        remaining[card] -= 1
    kinds = sorted((card for card, count in remaining.items() if count > 0), key=str)
    if size > sum(remaining.values()):
        raise PazaakError(
            f"the opponent's side deck has {sum(remaining.values())} cards left, "
            f"fewer than the {size} hidden in its hand"
        )
    results: list[tuple[tuple[Card, ...], int]] = []

    def extend(index: int, chosen: list[Card], ways: int) -> None:
        if len(chosen) == size:
            results.append((tuple(chosen), ways))
            return
        if index == len(kinds):
            return
        card = kinds[index]
        for take in range(min(remaining[card], size - len(chosen)) + 1):
            extend(index + 1, chosen + [card] * take, ways * _binomial(remaining[card], take))

    extend(0, [], 1)
    return results


def _binomial(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


MAX_SUBHANDS = 200_000
"""A hand's every sub-hand (what it can hold after each play) is interned with its plays: a hand
with more than this many (a ruleset's hand size of 40) is refused rather than hanging."""


MAX_HIDDEN_HANDS = 100_000
"""Averaging over more possible hidden hands than this is refused (give the hand, or sample)."""


def subhand_count(hand: Iterable[Card]) -> int:
    """How many distinct sub-multisets ``hand`` has: what interning it costs."""
    count = 1
    for copies in Counter(hand).values():
        count *= copies + 1
    return count


def check_hand_sizes(
    rules: Ruleset,
    mine: Sequence[Sequence[Card]],
    others: Sequence[tuple[tuple[Card, ...], int]],
) -> None:
    """Refuse, with the reason, a solve whose hands are too large to explore (a variant with a
    hand size of 40), or too many to average, instead of running out of time or memory."""
    if len(others) > MAX_HIDDEN_HANDS:
        raise SolverTooLarge(
            f"the opponent's hidden hand could be any of {len(others):,} hands, more than the "
            f"{MAX_HIDDEN_HANDS:,} an exact average can take; give its hand (--opp-hand)"
        )
    for whose, hand in [("your", h) for h in mine] + [("the opponent's", h) for h, _ in others]:
        count = subhand_count(hand)
        if count > MAX_SUBHANDS:
            raise SolverTooLarge(
                f"{whose} hand of {len(hand)} cards can be left in {count:,} ways as it is "
                f"played, more than the {MAX_SUBHANDS:,} the solver can explore (hand size "
                f"{rules.hand_size} in {rules.spec}); solve a ruleset with a smaller hand size"
            )


def hidden_hands(
    side: Side,
    deck: Sequence[Card],
    earlier: Sequence[Card],
    *,
    earlier_table: Sequence[TableCard] = (),
    ruleset: Ruleset | None = None,
) -> tuple[list[tuple[tuple[Card, ...], int]], list[Card]]:
    """Every hand ``side`` can be hiding, with its exact weight; and the cards it most likely
    played in this set (:func:`played_cards`: the most specific card behind each value).

    The deal is uniform: ``deck``'s positions, of which the hand cards played in earlier sets
    (``earlier``, known cards; ``earlier_table``, only seen on the table) and in this one (read
    from its table) are among the dealt ones. A value on a table can have come from several
    cards of the deck (a +5 from a +5 or a ±5 card): every way counts, as :func:`played_posterior`
    says. ``ruleset``: refuse a deck that could not be played under it (:func:`check_prior`)."""
    if ruleset is not None:
        check_prior(deck, ruleset)
    prior = list(deck)
    for card in earlier:
        if card not in prior:
            raise PazaakError(
                f"the opponent played {card} in an earlier set, but its side deck holds no "
                "such card (or not that many)"
            )
        prior.remove(card)
    shown = [*earlier_table, *side.table]
    played = played_cards(side.table, prior)
    return played_posterior(shown, prior, len(side.hand)), played


def played_posterior(
    table: Sequence[TableCard], deck: Sequence[Card], size: int
) -> list[tuple[tuple[Card, ...], int]]:
    """The hands of ``size`` cards left to a player who played the hand cards on ``table`` from
    the side deck ``deck``, each with its exact weight: the number of (deal, which dealt card
    made each played value) pairs that leave it, for a uniform deal of ``size`` plus the played
    cards distinct positions of ``deck``.

    A value seen on a table may have come from several cards (+5: a +5 or a ±5; +1: a +1, a ±1 or
    a ±1/2). Taking it for the most specific one would drop every deal where it was the other:
    a ±5 still held would weigh as if no ±5 could have been played. So the assignments are
    enumerated, merged by the cards they leave (a few states: the cards that could have made a
    value), and each weighs the ordered ways to pick its played positions times the hands the
    rest of the deck can deal (:func:`possible_hands`)."""
    states: dict[tuple[tuple[Card, int], ...], int] = {
        tuple(sorted(Counter(deck).items(), key=_by_card)): 1
    }
    for placed in table:
        if placed.placed is Placed.MAIN:
            continue
        candidates = _candidates(placed.placed, placed.value)
        after: dict[tuple[tuple[Card, int], ...], int] = {}
        for counts, ways in states.items():
            left = dict(counts)
            for card in candidates:
                held = left.get(card, 0)
                if held:
                    rest = tuple((c, n - (c == card)) for c, n in counts if n - (c == card))
                    after[rest] = after.get(rest, 0) + ways * held
        if not after:
            raise _not_made(placed, deck)
        states = after
    for counts in states:
        found = hand_count([n for _, n in counts], size)
        if found > MAX_HIDDEN_HANDS:
            raise SolverTooLarge(
                f"the opponent's {size} hidden cards could be any of {found:,} hands, more than "
                f"the {MAX_HIDDEN_HANDS:,} an exact average can take; give its hand (--opp-hand)"
            )
    hands: dict[tuple[Card, ...], int] = {}
    for counts, ways in states.items():
        remaining = [card for card, count in counts for _ in range(count)]
        for hand, dealt in possible_hands(remaining, size):
            hands[hand] = hands.get(hand, 0) + ways * dealt
    return list(hands.items())


def hand_count(copies: Sequence[int], size: int) -> int:
    """How many distinct hands of ``size`` cards a deck holding ``copies`` of each of its kinds
    can deal (counted, not listed: a check before :func:`possible_hands` lists them)."""
    ways = [1] + [0] * size  # ways[n]: distinct hands of n cards from the kinds so far
    for count in copies:
        ways = [sum(ways[n - take] for take in range(min(count, n) + 1)) for n in range(size + 1)]
    return ways[size]


def _by_card(item: tuple[Card, int]) -> str:
    return str(item[0])


def check_prior(deck: Sequence[Card], ruleset: Ruleset) -> None:
    """Refuse a side deck given as the prior of a hidden hand that ``ruleset`` does not allow
    (a KOTOR II deck under kotor1 would solve a game that cannot be played)."""
    for card in deck:
        if not ruleset.allows(card):
            raise PazaakError(
                f"the opponent's side deck holds {card}, which is not in the {ruleset.spec} card "
                "pool: give a deck of that ruleset (or the ruleset of that deck)"
            )


def weighted_opponent_hands(
    side: Side, options: SolveOptions, ruleset: Ruleset | None = None
) -> list[tuple[tuple[Card, ...], int]]:
    """The opponent's possible hands with their weights (one, if it is known or irrelevant);
    a prior deck ``ruleset`` does not allow is refused."""
    if side.standing or side.hand_known:
        return [(tuple(card for card in side.hand if card is not None), 1)]
    if options.opponent_hands is not None:
        return list(options.opponent_hands)
    if options.opponent_deck is None:
        raise PazaakError("the opponent's hand is hidden: give its side deck as the prior")
    hands, _ = hidden_hands(side, options.opponent_deck, options.opponent_played, ruleset=ruleset)
    if options.max_hands is None or len(hands) <= options.max_hands:
        return hands
    rng = random.Random(options.sample_seed)
    drawn = rng.choices(range(len(hands)), weights=[ways for _, ways in hands], k=options.max_hands)
    return [(hands[index][0], drawn.count(index)) for index in sorted(set(drawn))]


def played_cards(table: Sequence[TableCard], deck: Sequence[Card]) -> list[Card]:
    """The side cards behind the hand cards on a table, as cards of the side deck ``deck``.

    The table shows a played ± card only as its signed value, so a +3 on the table is taken to
    be a +3 card if the deck holds one, else a ±3, else a ±1/2 (for ±1 and ±2): the most specific
    card that could have produced it.
    """
    left = Counter(deck)
    cards: list[Card] = []
    for placed in table:
        if placed.placed is Placed.MAIN:
            continue
        for candidate in _candidates(placed.placed, placed.value):
            if left[candidate] > 0:
                left[candidate] -= 1
                cards.append(candidate)
                break
        else:
            raise _not_made(placed, deck)
    return cards


def _not_made(placed: TableCard, deck: Sequence[Card]) -> PazaakError:
    """A hand card on the opponent's table that its side deck cannot have made, the deck's cards
    named: one left out is the ruleset's sample deck, which the reader may not know was taken."""
    cards = " ".join(str(card) for card in deck)
    return PazaakError(
        f"the opponent's table shows {placed}, which no card left in its side deck ({cards}) "
        "could have made"
    )


def _candidates(placed: Placed, value: int) -> list[Card]:
    if placed is Placed.TIEBREAKER:
        return [Card(CardKind.TIEBREAKER)]
    if placed is Placed.FLIP_2_4:
        return [Card(CardKind.FLIP_2_4)]
    if placed is Placed.FLIP_3_6:
        return [Card(CardKind.FLIP_3_6)]
    if placed is Placed.DOUBLE:
        return [Card(CardKind.DOUBLE)]
    magnitude = abs(value)
    exact = Card(CardKind.PLUS if value > 0 else CardKind.MINUS, magnitude)
    found = [exact, Card(CardKind.PLUS_MINUS, magnitude)]
    if magnitude <= 2:
        found.append(Card(CardKind.PLUS_MINUS_1_2))
    return found


__all__ = [
    "MAX_HIDDEN_HANDS",
    "MAX_SUBHANDS",
    "check_hand_sizes",
    "check_prior",
    "hand_count",
    "hidden_hands",
    "played_cards",
    "played_posterior",
    "possible_hands",
    "subhand_count",
    "weighted_opponent_hands",
]
