"""The prior over a hidden hand: exact, when a value on the table could have come from several
cards of the deck (a +5 from a +5 or a ±5), checked against a brute-force enumeration of deals."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import Card, CardKind, parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import Placed, Side, TableCard, table_total
from pazaak_cli.engine.notation import parse_table
from pazaak_cli.engine.rules import KOTOR1, KOTOR2
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.hidden_hands import hidden_hands, weighted_opponent_hands

Posterior = dict[tuple[str, ...], Fraction]


def could_make(card: Card, shown: TableCard) -> bool:
    """Whether ``card`` can have put ``shown`` on a table (written from the rules, not from the
    solver's candidate list)."""
    if shown.placed is Placed.TIEBREAKER:
        return card.kind is CardKind.TIEBREAKER
    if shown.placed is Placed.HAND:
        plain = (CardKind.PLUS, CardKind.MINUS, CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2)
        return card.kind in plain and shown.value in card.values
    gold = {
        Placed.DOUBLE: CardKind.DOUBLE,
        Placed.FLIP_2_4: CardKind.FLIP_2_4,
        Placed.FLIP_3_6: CardKind.FLIP_3_6,
    }
    return card.kind is gold[shown.placed]


def brute_force(
    deck: list[Card], earlier: list[Card], shown: list[TableCard], hidden: int
) -> Posterior:
    """Every deal (a set of distinct positions of ``deck``) of the earlier cards, the played ones
    and ``hidden`` more, and every way to say which dealt position made each played card: the
    hand left, counted once per (deal, way)."""
    played = [card for card in shown if card.placed is not Placed.MAIN]
    size = len(earlier) + len(played) + hidden
    counts: Counter[tuple[str, ...]] = Counter()
    for dealt in itertools.combinations(range(len(deck)), size):
        for used in itertools.permutations(dealt, len(earlier) + len(played)):
            if all(deck[p] == card for p, card in zip(used, earlier, strict=False)) and all(
                could_make(deck[p], card)
                for p, card in zip(used[len(earlier) :], played, strict=True)
            ):
                left = sorted(str(deck[p]) for p in dealt if p not in used)
                counts[tuple(left)] += 1
    total = sum(counts.values())
    return {hand: Fraction(n, total) for hand, n in counts.items()}


def solver_posterior(
    deck: list[Card], earlier: list[Card], shown: list[TableCard], hidden: int
) -> Posterior:
    side = Side(
        tuple(shown), table_total(tuple(shown), KOTOR2.flip_targets), (None,) * hidden, False
    )
    hands, _ = hidden_hands(side, deck, earlier)
    total = sum(ways for _, ways in hands)
    result: Posterior = {}
    for hand, ways in hands:
        key = tuple(sorted(str(card) for card in hand))
        assert key not in result  # each hand once
        result[key] = Fraction(ways, total)
    return result


def test_a_plus_five_on_the_table_may_have_been_the_plus_minus_five() -> None:
    # the case: one +5 and one ±5 in ten cards, four dealt, a +5 played. Taking the +5
    # for the +5 card gave a still-held ±5 3 chances in 9; every deal counted, it is 28 in 168
    deck = list(parse_cards("+1 +2 +3 +4 +5 ±5 -1 -2 -3 -4"))
    shown = list(parse_table("6 +5", KOTOR1.flip_targets))
    exact = solver_posterior(deck, [], shown, 3)
    assert exact == brute_force(deck, [], shown, 3)
    held = sum(p for hand, p in exact.items() if "±5" in hand)
    assert held == Fraction(1, 6)


LOOK_ALIKES = parse_cards("+1 -1 ±1 ±1/2 +2 -2 ±2 +5 ±5 -5 T D")
SHOWN = ["+1", "-1", "+2", "-2", "+5", "-5", "+1T", "-1T", "D"]


@settings(max_examples=80, deadline=None)
@given(
    deck=st.lists(st.sampled_from(LOOK_ALIKES), min_size=3, max_size=8),
    shown=st.lists(st.sampled_from(SHOWN), max_size=3),
    earlier_count=st.integers(0, 2),
    hidden=st.integers(0, 3),
)
def test_the_prior_is_the_exact_posterior_of_a_uniform_deal(
    deck: list[Card], shown: list[str], earlier_count: int, hidden: int
) -> None:
    earlier = deck[:earlier_count]
    table = list(parse_table(" ".join(f"1 {card}" for card in shown), KOTOR2.flip_targets))
    expected = brute_force(deck, earlier, table, hidden)
    if not expected:  # no deal explains the table
        with pytest.raises(PazaakError):
            solver_posterior(deck, earlier, table, hidden)
        return
    assert solver_posterior(deck, earlier, table, hidden) == expected


def test_the_solvers_prior_refuses_a_deck_its_ruleset_does_not_allow() -> None:
    # a KOTOR II deck (D, ±1/2, T) as the prior of a kotor1 game: an impossible game
    side = Side(parse_table("6", KOTOR1.flip_targets), 6, (None,) * 3, False)
    options = SolveOptions(opponent_deck=parse_cards("±1 ±2 +3 +4 +5 +6 ±5 -6 ±4 D"))
    with pytest.raises(PazaakError, match="holds D, which is not in the kotor1 card pool"):
        weighted_opponent_hands(side, options, KOTOR1)
    assert len(weighted_opponent_hands(side, options, KOTOR2)) > 1
