"""The exact set solver: win, tie and loss probabilities of every move, under optimal play.

The solver answers one question: *it is my turn and I have drawn; for every legal move, what are
the exact probabilities that I win, tie and lose this set if both sides then play as the model
says?* It maximises the set equity P(win) - P(loss) for the player to move; among continuations
of equal equity it prefers the higher P(win) (which, at equal equity, is also the opponent's
preference: both prefer fewer ties), so the reported numbers are unique.

Design (why it is fast):

* A set is solved on its own compact state, not on :class:`~pazaak_cli.engine.game.MatchState`: each
  side is a small tuple ``(total, cards, hand, f24p, f24n, f36p, f36n, tiebreak)`` (see
  :class:`_Side`), a standing side is reduced to ``(total, tiebreak)``, hands are interned as small
  integers, and the deck is a tuple of counts (or a constant for fixed probabilities).
* Keys are canonical: a flip sum is kept only while its owner still holds that flip card, the
  tiebreak flag only where the ruleset can use it, the hand as a sorted multiset without the
  cards that can no longer be played without busting (:func:`dead_card_steps`). Positions that
  differ only in what cannot matter share one memo entry.
* Values are negamax pairs ``(equity, p_win)`` from the point of view of the player to move;
  the other side's view is ``(-equity, p_win - equity)``. One memo table serves every move of the
  root, every hand of a hidden-hand average and every later call on the same solver.

The rules it applies are those of :mod:`pazaak_cli.engine.game` (the tests check the two against
each other on thousands of positions, and against a slow exact-fraction reference).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, NamedTuple

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import (
    COPIES_PER_VALUE,
    FULL_DECK,
    MatchState,
    Phase,
    Placed,
    Side,
    current_values,
)
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import FlipTargets, MainDeck, NineCards, Ruleset, Tiebreaker
from pazaak_cli.runtime.executors import (
    fork_available,
    run_from_both_ends,
    run_shared,
    solver_processes,
)
from pazaak_cli.solve.answer_types import (
    EPSILON,
    LOSS,
    TIE,
    WIN,
    Advice,
    Move,
    Outcome,
    SolveOptions,
    SolverTooLarge,
    Value,
    ranked_set_results,
)
from pazaak_cli.solve.hidden_hands import (
    check_hand_sizes,
    weighted_opponent_hands,
)

_fastsolve: Any = None
with contextlib.suppress(ImportError):  # the optional C inner loop (setup.py builds it)
    from pazaak_cli.solve import _fastsolve  # type: ignore[attr-defined,no-redef]
if os.environ.get("PAZAAK_PURE_PYTHON"):  # benchmarks compare the two paths
    _fastsolve = None


# Internal values are pairs (equity, p_win) for the player to move.

PROGRESS_MASK = 0x3FFF
"""A Python search checks its bounds and reports progress every 16,384 positions (when
``positions & PROGRESS_MASK`` is 0); the KOTOR reply and the match solvers too."""

PLAIN, FLIP24, FLIP36, DOUBLE, TIEBREAKER = range(5)
"""What playing a hand card does in the compact model (:data:`ACTION_KIND` of each card kind):
add its value, flip the 2s and 4s or the 3s and 6s, copy the card before it, add ±1 as a
tiebreaker. The KOTOR reply and the match solvers share them."""


# ------------------------------------------------------------------------------------------------
# Hands: interned multisets with their precomputed plays.


class _Hands:
    """Interns hands (multisets of cards) as small integers and precomputes their plays."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.ids: dict[tuple[Card, ...], int] = {}
        """Hand id by its sorted cards, and by every order it was asked for in (a player's
        questions ask for the same hands many times: they are not sorted again)."""
        self.cards: list[tuple[Card, ...]] = []
        self.plays: list[tuple[tuple[Card, int, int, int], ...]] = []
        """Per hand: (card, value, action kind, hand id after) for each distinct play."""
        self.facts: list[HandFacts] = []
        self._card_codes: dict[Card, int] = {}

    def described(
        self, start: int
    ) -> list[tuple[bool, bool, int, list[tuple[int, int, int]], list[int]]]:
        """The hands from id ``start`` on as the C cores take them: each its facts, its plays
        (value, action kind, hand id after) and its cards as small codes, sorted (one code a
        distinct card: whether a hand keeps every card of another is then a merge)."""
        codes = self._card_codes
        return [
            (
                *self.facts[hid],
                [play[1:] for play in self.plays[hid]],
                sorted(codes.setdefault(card, len(codes)) for card in self.cards[hid]),
            )
            for hid in range(start, len(self.cards))
        ]

    def intern(self, hand: Iterable[Card]) -> int:
        given = hand if isinstance(hand, tuple) else tuple(hand)
        found = self.ids.get(given)
        if found is not None:
            return found
        key = tuple(sorted(given, key=str))
        found = self.ids.get(key)
        if found is not None:
            self.ids[given] = found
            return found
        hid = len(self.cards)
        self.ids[key] = hid
        self.cards.append(key)
        self.plays.append(())
        self.facts.append(hand_facts(key, self.ruleset))
        plays: list[tuple[Card, int, int, int]] = []
        for index, card in enumerate(key):
            if index and key[index - 1] == card:
                continue
            rest = self.intern(key[:index] + key[index + 1 :])
            kind = ACTION_KIND[card.kind]
            values = (0,) if kind in (FLIP24, FLIP36, DOUBLE) else card.values
            plays.extend((card, value, kind, rest) for value in values)
        self.plays[hid] = tuple(plays)
        return hid


ACTION_KIND = {
    CardKind.PLUS: PLAIN,
    CardKind.MINUS: PLAIN,
    CardKind.PLUS_MINUS: PLAIN,
    CardKind.PLUS_MINUS_1_2: PLAIN,
    CardKind.FLIP_2_4: FLIP24,
    CardKind.FLIP_3_6: FLIP36,
    CardKind.DOUBLE: DOUBLE,
    CardKind.TIEBREAKER: TIEBREAKER,
}
"""The action of each card kind (see :data:`PLAIN`)."""

# ------------------------------------------------------------------------------------------------
# The compact set model.
#
# A playing side is the tuple (total, cards, hand, f24, f36, tiebreak):
#   total     the table's total now
#   cards     cards on the table (the one that fills it triggers the nine-card rule)
#   hand      interned hand id
#   f24       what a Flip 2&4 would turn over, kept only while the hand holds one: the sum of the
#             values of magnitude 2 or 4 (all-signs flips), or of the positive ones only
#             (positive-only flips, which never turn a negative card); f36 the same for 3 and 6
#   tiebreak  any-played tiebreak rule: a Tiebreaker was played this set (else always False)
# A standing side is the pair (total, tiebreak). Both kinds are interned as small integers
# (side ids) so that memo keys are integers.
_Playing = tuple[int, int, int, int, int, bool]
_Standing = tuple[int, bool]
_Deck = tuple[int, ...]

_LOSS_MOVE = -1
"""Candidate code: the move busts."""
_WIN_MOVE = -2
"""Candidate code: the move wins the set at once (nine cards, kotor2)."""

FREE_END, BUST_END, NINTH_BUST_END, NINTH_WIN_END, NINTH_STAND_END, TARGET_STAND_END = range(6)
"""How a turn can end once a side holds its last card of the turn (:func:`turn_end`): freely
(end the turn, or stand), or forced: a bust, the ninth card over the target, winning or standing
by the ninth card, an automatic stand on the target."""


def turn_end(total: int, full: bool, target: int, nine_win: bool) -> int:
    """Which way a turn ends on ``total`` (``full``: the side's table has its last card; its
    ninth card wins the set if ``nine_win``). The one rule every solver's end codes follow."""
    if full:
        if total > target:
            return NINTH_BUST_END
        return NINTH_WIN_END if nine_win else NINTH_STAND_END
    if total == target:
        return TARGET_STAND_END
    return BUST_END if total > target else FREE_END


def label_turn_ends(
    kind: int, target: int, codes: Sequence[int], table_size: int
) -> list[tuple[str, str, int]]:
    """(then, note, code) for each of ``codes``, the end codes of a turn that ends as ``kind``
    says (two for a free end: ending the turn, then standing), labelled for the moves shown
    (the card that fills a table of ``table_size`` named as such: the ninth in the games)."""
    if kind == FREE_END:
        return [("end", "", codes[0]), ("stand", "", codes[1])]
    last = "ninth card" if table_size == 9 else f"table full at {table_size} cards"
    label = {
        BUST_END: ("bust", ""),
        NINTH_BUST_END: ("bust", f"{last} over the target"),
        NINTH_WIN_END: ("stand", f"{last}: wins the set"),
        NINTH_STAND_END: ("stand", f"{last}: automatic stand"),
        TARGET_STAND_END: ("stand", f"automatic stand at {target}"),
    }[kind]
    return [(*label, codes[0])]


HandFacts = tuple[bool, bool, int]
"""What placing a card needs to know of the hand left: (holds a Flip 2&4, holds a Flip 3&6,
count slack; see :func:`hand_facts`)."""

NO_SLACK = -1_000_000
"""The count slack of a hand holding a flip card: its card count always matters."""


def hand_facts(cards: Iterable[Card], ruleset: Ruleset) -> HandFacts:
    """The :data:`HandFacts` of a hand.

    The count slack says when a side's card count can no longer change anything: every later
    card adds at least 1 (a draw, a plus card, a Double) or at least its lowest value (a minus,
    ± or Tiebreaker card), so a side on ``total`` with ``count`` cards reaches its ninth card, or
    a rescue just after it, on at least ``total + (table size - count) - drop``, where ``drop``
    sums ``1 - lowest value`` over the hand's cards that can go below 1. When that exceeds the
    target, the nine-card rule can only meet a side that has busted anyway, and the count is
    dropped from the state (kept as 0: positions differing only in it share one memo entry).
    That is ``count < total + slack`` with ``slack = table size - target - drop``. A flip can
    bring a total down by more than its cards say: a hand holding one keeps the count.
    """
    flip24 = flip36 = False
    drop = 0
    for card in cards:
        if card.kind is CardKind.FLIP_2_4:
            flip24 = True
        elif card.kind is CardKind.FLIP_3_6:
            flip36 = True
        elif card.kind is not CardKind.DOUBLE:  # a Double copies a draw: at least 1
            drop += max(0, 1 - min(card.values))
    if flip24 or flip36:
        return (flip24, flip36, NO_SLACK)
    return (False, False, ruleset.table_size - ruleset.target - drop)


def place_card(side: _Playing, value: int, hand: int, facts: HandFacts, flip_all: bool) -> _Playing:
    """A compact side with a card worth ``value`` placed, leaving ``hand`` (whose
    :data:`HandFacts` are ``facts``); ``flip_all``: flips turn negative cards too."""
    total, cards, _, f24, f36, tiebreak = side
    flip24, flip36, slack = facts
    magnitude = value if value > 0 else -value
    counts = value > 0 or flip_all
    if not flip24:
        f24 = 0
    elif counts and (magnitude == 2 or magnitude == 4):
        f24 += value
    if not flip36:
        f36 = 0
    elif counts and (magnitude == 3 or magnitude == 6):
        f36 += value
    total += value
    cards += 1
    if cards < total + slack:
        cards = 0  # the count no longer matters (see hand_facts)
    return (total, cards, hand, f24, f36, tiebreak)


def place_flip(
    side: _Playing, flips_2_4: bool, hand: int, facts: HandFacts, flip_all: bool
) -> _Playing:
    """A compact side after a flip card (placed as 0) turned its 2s and 4s (``flips_2_4``) or
    its 3s and 6s over; the other arguments as for :func:`place_card`."""
    total, cards, _, f24, f36, tiebreak = side
    flip24, flip36, slack = facts
    turned = f24 if flips_2_4 else f36
    total -= 2 * turned
    # all signs: the turned cards can be turned back; positive only: they never can
    after = -turned if flip_all else 0
    if flips_2_4:
        f24 = after
    else:
        f36 = after
    cards += 1
    if cards < total + slack:
        cards = 0
    return (total, cards, hand, f24 if flip24 else 0, f36 if flip36 else 0, tiebreak)


def dead_card_steps(cards: Sequence[Card], target: int) -> list[tuple[int, tuple[Card, ...]]]:
    """From which totals a hand's plus cards and Double are dead, ascending: (the least total
    at which some more are, the cards still alive there), for a side at the end of its turn
    (the set solver's keys; a set's value only: later sets would still play them).

    A turn draws first (at least 1) and plays one hand card at most, so a minus, ± or
    Tiebreaker card that can take the total down by ``r`` takes it down by ``r - 1`` at most
    over its turn, and the total at the start of a later turn is at least ``total - reach``,
    ``reach`` summing those ``r - 1``. A ``+k`` card can then only be played onto ``total -
    reach + 1 + k`` or more, and a Double, which copies the draw it follows, onto ``total -
    reach + 2`` or more. Past the target that card busts wherever it is played: the side's
    plays with it are all losses, never better than any other way to end the turn, so its
    positions are worth those of the hand without it. A flip card can take a total down by more
    than its cards say: a hand holding one keeps every card."""
    if any(card.kind in (CardKind.FLIP_2_4, CardKind.FLIP_3_6) for card in cards):
        return []
    reach = sum(max(0, -min(card.values) - 1) for card in cards if card.kind is not CardKind.DOUBLE)
    dies: dict[int, list[int]] = {}  # the least total where it is dead -> the cards' places
    for place, card in enumerate(cards):
        if card.kind is CardKind.DOUBLE:
            least = 2
        elif min(card.values) > 0:
            least = 1 + min(card.values)
        else:
            continue
        dies.setdefault(target + reach - least + 1, []).append(place)
    steps: list[tuple[int, tuple[Card, ...]]] = []
    dead: set[int] = set()
    for total in sorted(dies):
        dead.update(dies[total])
        steps.append((total, tuple(card for at, card in enumerate(cards) if at not in dead)))
    return steps


class LiveHands:
    """Per hand id, the hand a set's keys keep for a side on each total: its cards less those
    dead there (:func:`dead_card_steps`). For a maximising side in a set only: later sets, and
    a rule that reads its hand, would still see them."""

    def __init__(
        self,
        cards_of: Callable[[int], Sequence[Card]],
        intern: Callable[[Sequence[Card]], int],
        target: int,
    ) -> None:
        self._cards_of, self._intern, self._target = cards_of, intern, target
        self._steps: list[tuple[tuple[int, int], ...]] = []

    def steps(self, hid: int) -> tuple[tuple[int, int], ...]:
        """(least total, hand id left) where more of hand ``hid``'s cards are dead, ascending
        (made for it and every hand id before it)."""
        while len(self._steps) <= hid:
            made = dead_card_steps(self._cards_of(len(self._steps)), self._target)
            self._steps.append(tuple((total, self._intern(left)) for total, left in made))
        return self._steps[hid]

    def side(self, side: _Playing) -> _Playing:
        """``side`` holding only the cards it can still play without busting."""
        total, hid = side[0], side[2]
        left = hid
        for least, alive in self.steps(hid):
            if total < least:
                break
            left = alive
        return side if left == hid else (total, side[1], left, side[3], side[4], side[5])


def compact_side(ruleset: Ruleset, side: Side, hand: int, facts: HandFacts) -> _Playing:
    """The compact form of an engine side still playing, holding interned ``hand`` (whose
    :data:`HandFacts` are ``facts``): the one conversion both set solvers start from."""
    values = current_values(side.table, ruleset.flip_targets)
    every = ruleset.flip_targets is FlipTargets.ALL_SIGNS

    def flippable(magnitudes: tuple[int, int]) -> int:
        return sum(v for v in values if abs(v) in magnitudes and (v > 0 or every))

    f24 = flippable((2, 4)) if facts[0] else 0
    f36 = flippable((3, 6)) if facts[1] else 0
    tiebreak = ruleset.tiebreaker is Tiebreaker.ANY_PLAYED and any(
        card.placed is Placed.TIEBREAKER for card in side.table
    )
    total, cards = sum(values), len(side.table)
    if cards < total + facts[2]:
        cards = 0
    return (total, cards, hand, f24, f36, tiebreak)


class DeckDraws:
    """Interned main decks and their next draws, for the set solvers.

    ``intern(deck)`` gives a small id for a deck (the remaining count of each value 1..10);
    ``table[id]`` holds, once ``make(id)`` has run, the (value, probability, id of the deck after)
    of every possible next draw. A shared deck that has run out is renewed by the draw. With
    ``fixed`` counts the draws never deplete anything: every deck is one.
    """

    def __init__(self, fixed: tuple[int, ...] | None) -> None:
        self.fixed = fixed
        self._ids: dict[_Deck, int] = {}
        self._decks: list[_Deck] = []
        self.table: list[tuple[tuple[int, float, int], ...] | None] = []

    def intern(self, deck: _Deck) -> int:
        if self.fixed is not None:
            deck = ()
        found = self._ids.get(deck)
        if found is None:
            found = len(self._decks)
            self._ids[deck] = found
            self._decks.append(deck)
            self.table.append(None)
        return found

    def make(self, deck_id: int) -> tuple[tuple[int, float, int], ...]:
        """Compute (and keep) the draws from deck ``deck_id``."""
        if self.fixed is not None:
            total = sum(self.fixed)
            draws = tuple((v + 1, n / total, deck_id) for v, n in enumerate(self.fixed) if n)
        else:
            deck = self._decks[deck_id]
            source = deck if any(deck) else FULL_DECK
            total = sum(source)
            draws = tuple(
                (v + 1, n / total, self.intern(source[:v] + (n - 1,) + source[v + 1 :]))
                for v, n in enumerate(source)
                if n
            )
        self.table[deck_id] = draws
        return draws

    def draws(self, deck_id: int) -> tuple[tuple[int, float, int], ...]:
        """The draws from deck ``deck_id`` (made the first time)."""
        return self.table[deck_id] or self.make(deck_id)


DECK_RADIX = COPIES_PER_VALUE + 1
"""The base of a deck's code: a value's count is one of its digits (:func:`deck_code`)."""


def deck_code(deck: _Deck) -> int:
    """The code of a deck (the counts of 1..10 left): the counts as the digits of a number in
    base :data:`DECK_RADIX`, value 1's the lowest. The C match core names an exact deck by it."""
    code = 0
    for count in reversed(deck):
        if not 0 <= count <= COPIES_PER_VALUE:
            raise ValueError(f"a deck holds 0 to {COPIES_PER_VALUE} cards of a value: {deck}")
        code = code * DECK_RADIX + count
    return code


class DeckCodes(DeckDraws):
    """A deck drawn exactly, each deck named by its code (:func:`deck_code`) rather than
    interned: the ids the C match core computes itself, so that a search on an exact deck needs
    no callback and no table of the decks met."""

    def __init__(self) -> None:
        super().__init__(None)
        self._made: dict[int, tuple[tuple[int, float, int], ...]] = {}

    def intern(self, deck: _Deck) -> int:
        return deck_code(deck)

    def make(self, deck_id: int) -> tuple[tuple[int, float, int], ...]:
        code = deck_id or deck_code(FULL_DECK)  # (an empty deck is renewed whole)
        counts = [(code // DECK_RADIX**value) % DECK_RADIX for value in range(len(FULL_DECK))]
        total = sum(counts)
        draws = tuple((v + 1, n / total, code - DECK_RADIX**v) for v, n in enumerate(counts) if n)
        self._made[deck_id] = draws
        return draws

    def draws(self, deck_id: int) -> tuple[tuple[int, float, int], ...]:
        return self._made.get(deck_id) or self.make(deck_id)


class DeckModels(list[DeckDraws]):
    """The deck models of a match solver's sets in progress, by id: ``[0]`` the later sets'
    (given), then one per deck drawn with fixed probabilities, and one that every deck drawn
    exactly shares (its positions are keyed by the deck's composition, so once the opponent
    stands a player's later questions of the set find their positions solved by the first)."""

    def __init__(self, later: DeckDraws, *, coded: bool = False) -> None:
        """``coded``: name the decks of an exact model by their codes (:class:`DeckCodes`)."""
        super().__init__([later])
        self._ids: dict[tuple[_Deck, bool], int] = {}
        self._coded = coded

    def model(self, deck: _Deck, exact: bool) -> int:
        """The id of the model of a set in progress on ``deck``: its composition drawn without
        replacement (``exact``) or with fixed probabilities."""
        key = (() if exact else deck, exact)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self)
            if exact and self._coded:
                self.append(DeckCodes())
            else:
                self.append(DeckDraws(None if exact else deck))
        return found

    def forget(self) -> None:
        """Keep only the later sets' model (a context of a dropped model finds a new one)."""
        del self[1:]
        self._ids.clear()


class SetSolver:
    """Solves sets under one ruleset and deck model, remembering every position it solved.

    Internally a position before a draw is ``(mover side id, other side id, deck id)``; the
    moves after each draw are precomputed once per (side, drawn value) as a *candidate list*
    (the distinct sides the turn can end in), interned too, so that the position after a draw is
    ``(candidate list id, other side id, deck id)``. With the C core, the core numbers the sides
    and builds the lists itself, from the hands' plays handed to it: Python keeps only the ids
    of the sides it asked for; the Python lists here are the reference its tests compare with.
    On the exact deck the core names each deck by its code (:class:`DeckCodes`) and keeps the
    positions in a cache (:data:`NATIVE_EXACT_ENTRIES`).
    """

    def __init__(
        self,
        ruleset: Ruleset,
        *,
        fixed_draws: Sequence[int] | None = None,
        budget: int | None = None,
        native: bool = True,
        max_states: int | None = None,
        progress: Callable[[int], None] | None = None,
        shares: int = 1,
    ) -> None:
        """``fixed_draws``: draw with these fixed counts of each value, without depletion (the
        infinite deck is ``FULL_DECK``); ``None`` solves the finite deck exactly. ``shares``: the
        processes that will hold a copy of it (a hidden hand's average shared out): on the exact
        deck each copy's cache is that share of :data:`NATIVE_EXACT_ENTRIES`. ``native``:
        use the C inner loop when it is installed (``False`` for the tests that check one
        against the other); on the exact deck its positions are a cache of
        :data:`NATIVE_EXACT_ENTRIES` (``max_states`` does not bound it, ``budget`` does stop
        it). ``max_states``: bound the memo's memory. The C loop keeps
        at most that many positions, a cache that forgets the cheapest ones to make room (a
        forgotten one is solved again: slower, never wrong); in Python, :meth:`bound_memo`
        (called between searches) empties a memo that is full, and a single search that would
        outgrow it raises :class:`SolverTooLarge`. The sides and candidate lists, which cost far
        less, are kept. ``budget`` instead fails a search past that many positions.
        ``progress``: called with :attr:`solved` every so many positions of a long search."""
        self.ruleset = ruleset
        self.hands = _Hands(ruleset)
        self.fixed = tuple(fixed_draws) if fixed_draws is not None else None
        self.budget = budget
        self.max_states = max_states
        self.progress = progress
        self._clears = 0
        self._solved = 0
        self._target = ruleset.target
        self._size = ruleset.table_size
        self._nine_win = ruleset.nine_cards is NineCards.WIN
        self._any_tiebreak = ruleset.tiebreaker is Tiebreaker.ANY_PLAYED
        self._flip_all = ruleset.flip_targets is FlipTargets.ALL_SIGNS
        # interned sides
        self._side_ids: dict[_Playing | _Standing, int] = {}
        self._sides: list[_Playing | _Standing] = []
        self._standing: list[bool] = []
        # interned decks and their draws: (value, probability, deck id after); the C loop names
        # an exact deck by its code (DeckCodes) and makes its draws itself
        coded = self.fixed is None and _fastsolve is not None and native
        self._decks = DeckCodes() if coded else DeckDraws(self.fixed)
        self._draws = self._decks.table
        # candidate lists, per (side id, drawn value)
        self._after: dict[tuple[int, int], int] = {}
        self._candidate_ids: dict[tuple[int, ...], int] = {}
        self._list_of_placed: dict[Any, int] = {}
        """Candidate list id by the side after the draw (with the draw, for a Double)."""
        self._double_in: dict[int, bool] = {}
        """Per hand id: whether it holds a Double."""
        self._live = LiveHands(self.hands.cards.__getitem__, self.hands.intern, self._target)
        """The hand each side keeps in its key (without its dead cards)."""
        self._candidates: list[tuple[int, ...]] = []
        self._uniques: list[tuple[int, ...]] = []
        """Per candidate list: the codes it was found by, before :meth:`_undominated` (its key
        in ``_candidate_ids``)."""
        # memo tables
        self._before: dict[int, Value] = {}
        self._after_memo: dict[int, Value] = {}
        # the C inner loop, when it was built: with fixed draw probabilities, or on the exact deck
        self._core: Any = None
        self._hands_pushed = 0
        """Hands handed to the C core so far (its ids are Python's)."""
        if _fastsolve is not None and native:
            rules = (self._target, self._size, self._nine_win, self._any_tiebreak, self._flip_all)
            if self.fixed is None:  # (its positions on the decks met: a cache of a fixed bound)
                probabilities, entries = None, NATIVE_EXACT_ENTRIES // 2 // max(1, shares)
            else:
                total = sum(self.fixed)
                probabilities = [n / total for n in self.fixed]
                entries = (max_states or 0) // 2
            self._core = _fastsolve.Core(probabilities, entries, rules, _fastsolve.MAX_IDS)
            self._core.progress = progress
            if self.fixed is None:
                self._core.budget = budget
            self.before_draw = self._native_before_draw  # type: ignore[method-assign]
            self.candidate_value = self._native_candidate_value  # type: ignore[method-assign]

    @property
    def native(self) -> bool:
        """Whether the C inner loop does the search."""
        return self._core is not None

    @property
    def states(self) -> int:
        """Positions solved so far (before and after a draw)."""
        if self._core is not None:
            return int(self._core.states)
        return len(self._before) + len(self._after_memo)

    @property
    def memo_clears(self) -> int:
        """How many times the bounded memo (``max_states``) was full and emptied."""
        if self._core is not None:
            return int(self._core.clears)
        return self._clears

    @property
    def solved(self) -> int:
        """Positions computed so far (one forgotten by the bounded memo and computed again
        counts again): what :attr:`progress` reports."""
        if self._core is not None:
            return int(self._core.solved)
        return self._solved

    def reserve(self, positions: int) -> None:
        """Make room in the C memo for about this many positions at once (within its bound):
        a search known to be large skips the tables' doublings (a pure-Python memo ignores
        it)."""
        if self._core is not None:
            self._core.reserve(positions // 2)  # (before and after a draw: a table each)

    def short_searches(self, short: bool) -> None:
        """Whether the searches from now on are short (a budgeted answer's): the C memo's
        tables made from then on in small pages at once, not in huge pages (``slots_alloc`` in
        ``_core.h``: on the machines measured a huge page first written cost five times as
        much, docs/benchmarks.md). The same values either way."""
        if self._core is not None:
            self._core.small_pages = short

    def next_round(self) -> None:
        """Begin a new round of searches (another hidden hand): once the C memo is full, the
        positions stored in earlier rounds are forgotten first, before this round's own (a
        pure-Python memo ignores it)."""
        if self._core is not None:
            self._core.next_round()

    def bound_memo(self) -> None:
        """Empty a bounded memo that is full. Only between searches: emptied in the middle of
        one, the memo would make it redo its own work (exponentially, when it is too small).
        The C loop's memo bounds itself (a cache)."""
        if self.max_states is None or self.states < self.max_states or self._core is not None:
            return
        else:
            self._before.clear()
            self._after_memo.clear()
            self._clears += 1

    def _check_size(self) -> None:
        """Every so many new positions of a Python search: stop at the memory bound, report
        progress."""
        if self.max_states is not None and self.states >= self.max_states:
            raise SolverTooLarge(
                f"the search needs more than {self.max_states:,} positions in memory"
            )
        if self.progress is not None:
            self.progress(self._solved)

    def watch(self, progress: Callable[[int], None] | None) -> None:
        """Report to ``progress`` from now on (:attr:`progress`), the C loop's searches too: what
        a caller that watches the searches for a while sets, and sets back."""
        self.progress = progress
        if self._core is not None:
            self._core.progress = progress

    def _native_before_draw(self, mover: int, other: int, deck: int) -> Value:
        try:
            result: Value = self._core.before_draw(mover, other, deck)
        except OverflowError as error:  # (more sides or lists than the core can number; a budget)
            raise SolverTooLarge(str(error)) from None
        return result

    def _native_candidate_value(self, code: int, other: int, deck: int) -> Value:
        try:
            result: Value = self._core.candidate_value(code, other, deck)
        except OverflowError as error:
            raise SolverTooLarge(str(error)) from None
        return result

    def _push_hands(self) -> None:
        """Hand the C core the hands interned since (it builds the candidate lists from their
        plays), and where their cards die (it keys its sides without them)."""
        start = self._hands_pushed
        if start < len(self.hands.cards):
            count = len(self.hands.cards)
            self._core.add_hands(self.hands.described(start))
            self._core.add_alive(start, [self._live.steps(hid) for hid in range(start, count)])
            self._hands_pushed = count

    # -- interning ------------------------------------------------------------------------------

    def side_id(self, side: _Playing | _Standing) -> int:
        found = self._side_ids.get(side)
        if found is None:
            if self._core is not None:  # the core numbers the sides (it makes most of them)
                if len(side) == 6:
                    self._push_hands()
                try:
                    found = self._side_ids[side] = int(self._core.intern_side(side))
                except OverflowError as error:
                    raise SolverTooLarge(str(error)) from None
                return found
            key = side if len(side) == 2 else self._live.side(side)
            found = self._side_ids.get(key)
            if found is None:
                found = len(self._sides)
                self._side_ids[key] = found
                self._sides.append(key)
                self._standing.append(len(key) == 2)
            self._side_ids[side] = found
        return found

    def deck_id(self, deck: _Deck) -> int:
        """Intern a deck (remaining counts of 1..10); with fixed draws every deck is one."""
        return self._decks.intern(deck)

    # -- sides -----------------------------------------------------------------------------------

    def _add(self, side: _Playing, value: int, hand: int) -> _Playing:
        """``side`` with a card of ``value`` placed and ``hand`` left in hand."""
        return place_card(side, value, hand, self.hands.facts[hand], self._flip_all)

    def _flip(self, side: _Playing, kind: int, hand: int) -> _Playing:
        """``side`` after playing a flip card (placed as 0), leaving ``hand``."""
        return place_flip(side, kind == FLIP24, hand, self.hands.facts[hand], self._flip_all)

    def _play(self, side: _Playing, drawn: int, card_play: tuple[Card, int, int, int]) -> _Playing:
        _, value, kind, rest = card_play
        if kind == PLAIN:
            return self._add(side, value, rest)
        if kind == DOUBLE:
            return self._add(side, drawn, rest)
        if kind == TIEBREAKER:
            placed = self._add(side, value, rest)
            if self._any_tiebreak:
                placed = (*placed[:5], True)
            return placed
        return self._flip(side, kind, rest)

    def _stands(self, side: _Playing, tiebreaker_last: bool) -> _Standing:
        return (side[0], side[5] or (tiebreaker_last and not self._any_tiebreak))

    def _end_codes(self, side: _Playing, tiebreaker_last: bool, full: bool) -> tuple[int, ...]:
        """The candidate codes of the ways a turn can end once ``side`` holds its last card of
        the turn (``full``: its table's last slot): :func:`turn_end` says which. A hot path:
        no labels."""
        if not full and side[0] < self._target:  # turn_end's FREE_END, the common case, inline
            return (self.side_id(side), self.side_id(self._stands(side, tiebreaker_last)))
        kind = turn_end(side[0], full, self._target, self._nine_win)
        if kind in (BUST_END, NINTH_BUST_END):
            return (_LOSS_MOVE,)
        if kind == NINTH_WIN_END:
            return (_WIN_MOVE,)
        return (self.side_id(self._stands(side, tiebreaker_last)),)

    def _turn_ends(
        self, side: _Playing, tiebreaker_last: bool, full: bool
    ) -> list[tuple[str, str, int]]:
        """:meth:`_end_codes` with their labels: (then, note, candidate code) each."""
        kind = turn_end(side[0], full, self._target, self._nine_win)
        codes = self._end_codes(side, tiebreaker_last, full)
        return label_turn_ends(kind, self._target, codes, self._size)

    def labelled_moves(
        self, side: _Playing, drawn: int, played: bool, tiebreaker_last: bool, count: int
    ) -> list[tuple[Move, int]]:
        """Every move of a side that has just drawn ``drawn`` (on its table already), as
        (move, candidate code). ``played``: a hand card (a Tiebreaker if ``tiebreaker_last``)
        already followed the draw, so only ending the turn or standing is left. ``count``: the
        cards on its table (the compact side may have dropped it; the moves offered may not)."""
        full = count >= self._size
        moves = [
            (Move(None, None, then, note), code)
            for then, note, code in self._turn_ends(side, tiebreaker_last, full)
        ]
        if played or full or side[0] == self._target:
            return moves
        full = count + 1 >= self._size
        for card_play in self.hands.plays[side[2]]:
            card, value, kind, _ = card_play
            placed = self._play(side, drawn, card_play)
            shown = drawn if kind == DOUBLE else None if kind in (FLIP24, FLIP36) else value
            for then, note, code in self._turn_ends(placed, kind == TIEBREAKER, full):
                moves.append((Move(card, shown, then, note), code))
        return moves

    def _undominated(self, codes: tuple[int, ...]) -> tuple[int, ...]:
        """``codes`` less every stand but the best: for the set, a stand on a higher total, or
        on the same total with a Tiebreaker, does at least as well against every way the other
        side can go on (the hand left does not matter once standing), so the best of the list
        is found without the others' values. (A match solver keeps them: there the hand left
        matters.)"""
        sides, standing = self._sides, self._standing
        best = -1
        for code in codes:
            if code >= 0 and standing[code] and (best < 0 or sides[code] > sides[best]):
                best = code
        return tuple(code for code in codes if code < 0 or not standing[code] or code == best)

    def place_draw(self, side: _Playing, drawn: int) -> _Playing:
        """``side`` after drawing ``drawn``."""
        return self._add(side, drawn, side[2])

    def _candidate_list(self, side_id: int, drawn: int) -> int:
        """The interned list of distinct ways the turn can end after ``side_id`` draws."""
        side = self._sides[side_id]
        assert len(side) == 6
        placed = self._add(side, drawn, side[2])
        # many draws lead to one side (5 then 3, 6 then 2): its list once (the draw counts too
        # where the hand holds a Double, which copies it)
        placed_key = (placed, drawn) if self._holds_double(placed[2]) else placed
        found = self._list_of_placed.get(placed_key)
        if found is None:
            found = self._list_of_placed[placed_key] = self._placed_list(placed, drawn)
        self._after[(side_id, drawn)] = found
        return found

    def _placed_list(self, placed: _Playing, drawn: int) -> int:
        """The interned candidate list of a side holding the card it just drew (``drawn``)."""
        ends = self._end_codes
        # the same moves as labelled_moves, without building their labels (a hot path)
        size = self._size
        codes = list(ends(placed, False, placed[1] >= size))
        if placed[1] < size and placed[0] != self._target:
            play = self._play
            for card_play in self.hands.plays[placed[2]]:
                after = play(placed, drawn, card_play)
                codes += ends(after, card_play[2] == TIEBREAKER, after[1] >= size)
        unique = tuple(dict.fromkeys(codes))
        found = self._candidate_ids.get(unique)
        if found is None:
            found = len(self._candidates)
            self._candidate_ids[unique] = found
            self._candidates.append(self._undominated(unique))
            self._uniques.append(unique)
        return found

    def _holds_double(self, hand: int) -> bool:
        """Whether hand id ``hand`` holds a Double (its plays then depend on the draw)."""
        found = self._double_in.get(hand)
        if found is None:
            found = self._double_in[hand] = any(
                play[2] == DOUBLE for play in self.hands.plays[hand]
            )
        return found

    # -- the recursion ----------------------------------------------------------------------------

    def before_draw(self, mover: int, other: int, deck: int) -> Value:
        """Value for ``mover`` (a playing side id), about to draw, against ``other`` (a playing
        or standing side id), drawing from deck id ``deck``."""
        key = (((mover << 32) | other) << 32) | deck  # ids stay far below 2**32
        found = self._before.get(key)
        if found is not None:
            return found
        if self.budget is not None and self.states >= self.budget:
            raise SolverTooLarge("the exact solve exceeds its state budget")
        self._solved += 1
        if not self._solved & PROGRESS_MASK:
            self._check_size()
        after = self._after
        after_draw = self.after_draw
        equity = p_win = 0.0
        draws = self._draws[deck] or self._decks.make(deck)
        for value, probability, rest in draws:
            candidates = after.get((mover, value))
            if candidates is None:
                candidates = self._candidate_list(mover, value)
            e, w = after_draw(candidates, other, rest)
            equity += probability * e
            p_win += probability * w
        result = (equity, p_win)
        self._before[key] = result
        return result

    def after_draw(self, candidates: int, other: int, deck: int) -> Value:
        """Value for the mover of the best candidate in list ``candidates``."""
        key = (((candidates << 32) | other) << 32) | deck
        found = self._after_memo.get(key)
        if found is not None:
            return found
        value = self.candidate_value
        best = LOSS
        for code in self._candidates[candidates]:
            e, w = value(code, other, deck)
            if e > best[0] + EPSILON or (e > best[0] - EPSILON and w > best[1]):
                best = (e, w)
                if e >= 1.0 - EPSILON:
                    break  # a certain win cannot be beaten
        self._after_memo[key] = best
        return best

    def candidate_value(self, code: int, other: int, deck: int) -> Value:
        """Value for the mover of ending its turn as ``code`` says, against ``other``."""
        if code < 0:
            return LOSS if code == _LOSS_MOVE else WIN
        standing = self._standing
        if standing[other]:
            if not standing[code]:
                return self.before_draw(code, other, deck)
            mine, theirs = self._sides[code], self._sides[other]
            if mine[0] != theirs[0]:
                return WIN if mine[0] > theirs[0] else LOSS
            if mine[1] != theirs[1]:
                return WIN if mine[1] else LOSS
            return TIE
        e, w = self.before_draw(other, code, deck)
        return (-e, w - e)


# ------------------------------------------------------------------------------------------------
# From engine states to the compact model.


def playing_side(solver: SetSolver, side: Side, hand: Sequence[Card]) -> _Playing:
    """The compact form of a side that is still playing, with ``hand`` as its hand."""
    hid = solver.hands.intern(hand)
    return compact_side(solver.ruleset, side, hid, solver.hands.facts[hid])


def standing_side(ruleset: Ruleset, side: Side) -> _Standing:
    if ruleset.tiebreaker is Tiebreaker.ANY_PLAYED:
        tiebreak = any(card.placed is Placed.TIEBREAKER for card in side.table)
    else:
        tiebreak = bool(side.table) and side.table[-1].placed is Placed.TIEBREAKER
    return (side.total, tiebreak)


# ------------------------------------------------------------------------------------------------
# Hidden hands.


# ------------------------------------------------------------------------------------------------
# The public entry point.


def solve_set_question(question: Question, options: SolveOptions | None = None) -> Advice:
    """Solve every move of the player who has just drawn ``question.drawn`` (see
    :class:`~pazaak_cli.engine.position_builder.Question`), including the forced ones after a draw
    to 20 or a ninth card, against an opponent who plays optimally (``options.opponent`` is not
    read here: :func:`pazaak_cli.solve.advice.solve_question` chooses the solver by it)."""
    options = options or SolveOptions()
    state = question.state
    me_side, other_side = state.sides[state.turn], state.sides[1 - state.turn]
    if not me_side.hand_known:
        raise PazaakError("the hand of the player to move must be known")
    rules = state.ruleset
    other_hands = weighted_opponent_hands(other_side, options, rules)
    deck_after = deck_after_draw(state, question.drawn)
    check_hand_sizes(rules, [tuple(c for c in me_side.hand if c is not None)], other_hands)
    fixed = False
    processes = _averaging_processes(other_hands)

    def fixed_solver() -> SetSolver:
        counts = deck_after if any(deck_after) else FULL_DECK
        return bounded_fixed_solver(rules, counts, options, processes)

    def average(solver: SetSolver, shares: int = 1) -> list[tuple[Move, Outcome]]:
        return _average(question, solver, other_hands, deck_after, options, processes=shares)

    reused = options.solver
    if reused is not None and not isinstance(reused, SetSolver):
        raise TypeError(f"SolveOptions.solver must be a SetSolver, not {type(reused).__name__}")
    if rules.main_deck is MainDeck.INFINITE:
        solver = reused or fixed_solver()
        results = average(solver, 1 if options.solver else processes)
    elif options.exact or other_side.standing:
        # --exact in C shares the hands out as fixed odds do, each process's cache a share (a
        # budgeted try stays in one: whether it answers must not depend on the processes)
        shared = processes if options.exact and _fastsolve is not None else 1
        solver = SetSolver(
            rules,
            budget=None if options.exact else options.budget,
            max_states=EXACT_MEMO_STATES,
            progress=options.positions,
            shares=shared,
        )
        try:
            results = average(solver, shared if solver.native else 1)
        except SolverTooLarge:
            if options.exact:
                raise SolverTooLarge(
                    f"--exact: the solve without replacement needs more than "
                    f"{EXACT_MEMO_STATES:,} positions in memory (over "
                    f"{EXACT_MEMO_STATES * PYTHON_STATE_BYTES / 1e9:.1f} GB), too many to "
                    "hold; drop --exact to solve it with fixed draw probabilities"
                ) from None
            fixed = True
            solver = fixed_solver()
            results = average(solver, processes)
    else:
        # Both still play: the exact without-replacement solve multiplies the positions by the
        # deck's compositions. Solve with fixed draw probabilities first (fast); when that
        # search was small, the exact one is affordable too and replaces it.
        fixed = True
        solver = fixed_solver()
        results = average(solver, processes)
        if solver.solved <= EXACT_PROBE_STATES:  # (computed: it never drops, see _average)
            exact_solver = SetSolver(rules, budget=EXACT_BUDGET_FACTOR * max(solver.states, 1000))
            try:
                results = average(exact_solver)
                fixed, solver = False, exact_solver
            except SolverTooLarge:
                pass
    return Advice(
        results=ranked_set_results(results),
        model=describe_model(
            state,
            other_hands,
            fixed,
            deck_after,
            sampled=options.max_hands is not None or options.opponent_hands is not None,
        ),
        hands_averaged=len(other_hands),
        fixed_probabilities=fixed,
        states=solver.states,
    )


AVERAGE_MEMO_LIMIT = 20_000_000
"""An average over hidden hands shares one memo between the hands (they reach many of the same
positions); past this many positions it is emptied before the next hand, which bounds its
memory (about 1.5 GB) at the cost of solving some positions again (the expert's shared solver;
:func:`solve_set_question` bounds its own solvers by the limits below)."""
NATIVE_MEMO_STATES = 1 << 25
"""The C loop's memo holds at most this many positions (24 bytes each: 768 MiB; a sixteenth
more once full, when the positions before a draw take most of the room of those after one:
``rebalance`` in _fastsolve.c), forgetting the cheapest ones to make room: a search that needs
more runs slower, in the same memory (measured on a 4 v 4 first move: 1.2 times the work with
room for 65 % of its positions, 17 times with 30 %)."""
PYTHON_MEMO_STATES = 3_000_000
"""A pure-Python fixed-draw search (no C compiler) is refused past this many positions..."""
EXACT_MEMO_STATES = 3_000_000
"""...and so is an exact solve without replacement (``--exact``) in Python: at about
:data:`PYTHON_STATE_BYTES` each, some 0.6 GB."""

NATIVE_EXACT_ENTRIES = 1 << 25
"""The C loop's positions on the exact deck: a cache of this many slots (32 bytes each, 1 GiB,
made as it fills), which forgets the positions that took the least work to solve and solves
them again when asked: never refused, the same bits."""
PYTHON_STATE_BYTES = 200
"""Bytes a position takes in a Python memo (its key, its value pair and the dict's slot),
measured: the figure the refusals quote."""


def bounded_fixed_solver(
    rules: Ruleset, counts: Sequence[int], options: SolveOptions, processes: int = 1
) -> SetSolver:
    """A solver with fixed draw probabilities whose memo has a bound that holds: in all, over
    the ``processes`` that will share its work (each forked copy has its own memo)."""
    bound = NATIVE_MEMO_STATES // processes if _fastsolve is not None else PYTHON_MEMO_STATES
    return SetSolver(rules, fixed_draws=counts, max_states=bound, progress=options.positions)


def _averaging_processes(other_hands: Sequence[object]) -> int:
    """How many processes average over these possible hands (see :func:`_average`)."""
    if len(other_hands) < FORK_MIN_HANDS or not fork_available():
        return 1
    return min(solver_processes(), len(other_hands))


def hand_processes(other_hands: Sequence[object]) -> int:
    """How many processes solve a budgeted answer's hands
    (:func:`~pazaak_cli.solve.hand_rows.solve_dealt`): those of an
    exact average (:func:`_averaging_processes`), two at most (the only count measured: the
    machines this was built on have two cores)."""
    return min(_averaging_processes(other_hands), 2)


EXACT_PROBE_STATES = 20_000
"""Both players still drawing from a finite deck: the exact solve is tried only when the solve
with fixed draw probabilities needed at most this many positions..."""
EXACT_BUDGET_FACTOR = 40
"""...and it may then use at most this many times as many positions."""


def deck_after_draw(state: MatchState, drawn: int) -> _Deck:
    """The main deck once ``drawn`` is out of it (it already is after a played card)."""
    if state.phase is Phase.AFTER_DRAW or state.ruleset.main_deck is MainDeck.INFINITE:
        return state.deck
    deck = state.draw_counts()
    if deck[drawn - 1] == 0:
        raise PazaakError(f"no {drawn} is left in the main deck to draw")
    return deck[: drawn - 1] + (deck[drawn - 1] - 1,) + deck[drawn:]


FORK_MIN_HANDS = 16
"""A hidden hand is averaged in forked processes (one share of its possible hands each) only
when it has this many possible hands at least."""


def _average(
    question: Question,
    solver: SetSolver,
    other_hands: list[tuple[tuple[Card, ...], int]],
    deck_after: _Deck,
    options: SolveOptions,
    *,
    processes: int = 1,
) -> list[tuple[Move, Outcome]]:
    """Every move's outcome, averaged over the opponent's possible hands, shared out among
    ``processes`` (forked copies of the solver, each with its own memo: the solver must be this
    question's own). Every hand's values come back and are summed here in the hands' order, so
    the answer is the same to the last bit however many processes solved it. The first hands
    are solved here until the search has computed more than :data:`EXACT_PROBE_STATES`
    positions: a search that stays below (after which the exact solve is tried) is never
    shared out, so whether it is tried does not depend on the processes either."""
    moves = question_moves(question, solver)
    job = HandJob(
        question, solver, other_hands, [code for _, code in moves], solver.deck_id(deck_after)
    )
    values: list[list[tuple[float, float]]] = []
    first = 0
    while first < len(other_hands) and solver.solved <= EXACT_PROBE_STATES:
        values += hand_values(job, range(first, first + 1), options.progress)
        first += 1
    if first < len(other_hands):
        # contiguous shares: neighbouring hands (in the prior's order) share the most positions
        size = -(-(len(other_hands) - first) // processes)
        if first:  # (a solver that had searched before solves no hand first: no estimate)
            job = job._replace(reserve=solver.states * size // (first * HANDS_SHARING))
        if processes == 2:
            values += _values_from_both_ends(job, first, options.progress)
        else:
            shares = [
                range(start, min(start + size, len(other_hands)))
                for start in range(first, len(other_hands), size)
            ]
            parts = run_shared(
                shares,
                partial(hand_values, job, progress=options.progress, processes=len(shares)),
                partial(_forked_hand_values, job),
            )
            values += [hand for part in parts for hand in part]
    total_ways = sum(ways for _, ways in other_hands)
    weighted = [
        (ways / total_ways, hand) for (_, ways), hand in zip(other_hands, values, strict=True)
    ]
    return averaged_outcomes([move for move, _ in moves], weighted)


def weighted_sums(
    weighted: Iterable[tuple[float, Sequence[Sequence[float]]]], width: int, count: int
) -> list[list[float]]:
    """The first ``width`` values of each of ``count`` moves summed over the hands, each times
    its hand's weight (``weighted``: the weight and the values of every move, hand by hand).
    The exact averages of the set answer against an optimal opponent and of the match answers
    sum here, in the hands' order, as the budgeted answer does once every hand is solved: the
    same values give the same bits however they were solved (at once, forked, hand by hand)."""
    sums = [[0.0] * width for _ in range(count)]
    for weight, values in weighted:
        for row, value in zip(sums, values, strict=True):
            for column in range(width):
                row[column] += weight * value[column]
    return sums


def averaged_outcomes(
    moves: Sequence[Move], weighted: Iterable[tuple[float, Sequence[Sequence[float]]]]
) -> list[tuple[Move, Outcome]]:
    """Each move's set outcome averaged over the hands (``weighted``: each hand's weight and
    every move's equity and P(win) first, :func:`weighted_sums`): the set answers' exact
    average, whether its hands were solved at once or one at a time."""
    sums = weighted_sums(weighted, 2, len(moves))
    return [
        (move, Outcome.from_value((row[0], row[1]))) for move, row in zip(moves, sums, strict=True)
    ]


def question_moves(question: Question, solver: SetSolver) -> list[tuple[Move, int]]:
    """The mover's moves at the question's root, each with the end of turn it leads to."""
    state = question.state
    me_side = state.sides[state.turn]
    my_hand = tuple(card for card in me_side.hand if card is not None)
    me = playing_side(solver, me_side, my_hand)
    return root_moves(question, me, solver.place_draw, solver.labelled_moves)


def root_moves(
    question: Question,
    me: Any,
    place_draw: Callable[[Any, int], Any],
    labelled_moves: Callable[[Any, int, bool, bool, int], list[tuple[Move, Any]]],
) -> list[tuple[Move, Any]]:
    """The mover's moves at the question's root from its compact side ``me``, each with the
    end of turn it leads to: ``place_draw(me, drawn)`` puts the card drawn on it when no hand
    card followed yet, ``labelled_moves`` lists them (each solver has its own side and its
    own of both, the question's root is read the same way by all)."""
    state = question.state
    me_side = state.sides[state.turn]
    if not state.played:
        me = place_draw(me, question.drawn)
    tiebreaker_last = state.played and me_side.table[-1].placed is Placed.TIEBREAKER
    count = len(me_side.table) + (not state.played)
    return labelled_moves(me, question.drawn, state.played, tiebreaker_last, count)


class HandJob(NamedTuple):
    """What :func:`hand_values` needs of a hidden-hand average, whichever share it solves."""

    question: Question
    solver: SetSolver
    other_hands: list[tuple[tuple[Card, ...], int]]
    codes: list[Any]
    """The end of turn of every move."""
    deck: int
    reserve: int = 0
    """Positions a share's memo makes room for at once (see :data:`HANDS_SHARING`)."""


HANDS_SHARING = 8
"""A share of an average's hands is foreseen to compute this many times fewer positions than
its first hands did each, times its hands (they share positions). Measured on the hidden hands
of ``kotor2-average`` on two processes: 1.1 M positions for the first hand, 21.8 and 22.5 M
computed by the shares of 104 and 105 hands, whose memos filled their bound (about 15 M) on the
way; the foreseen 14.4 M is within a doubling of it."""


def _values_from_both_ends(
    job: HandJob, first: int, progress: Callable[[int, int], None] | None
) -> list[list[tuple[float, float]]]:
    """:func:`hand_values` of the hands from ``first`` on, in two processes taking them from
    both ends until they meet (:func:`~pazaak_cli.runtime.executors.run_from_both_ends`). The
    hands' costs differ by tens of times (a Double or a flip in the opponent's hand makes many
    sides), so halves of their count left one process working alone for a fifth of the time;
    each end still goes through neighbouring hands, which share the most positions."""
    count = len(job.other_hands)

    def shown(taken: int, _: int) -> None:
        if progress is not None:
            progress(first + taken, count)

    return run_from_both_ends(
        first,
        count,
        lambda hand: hand_values(job, [hand])[0],
        progress=shown,
        in_copy=lambda: job.solver.watch(None),  # (silent: this process shows the progress)
    )


def _forked_hand_values(job: HandJob, share: range) -> list[list[tuple[float, float]]]:
    """:func:`hand_values` in a forked child, silent (the parent shows the progress)."""
    job.solver.watch(None)
    return hand_values(job, share)


def hand_values(
    job: HandJob,
    share: Sequence[int],
    progress: Callable[[int, int], None] | None = None,
    processes: int = 1,
) -> list[list[tuple[float, float]]]:
    """(equity, P(win)) of every move, for each of the hands ``job.other_hands[share]`` the
    opponent may hold. ``progress``: told the hands done (those before the share, and this
    share's times ``processes``: the others run alongside)."""
    question, solver, other_hands, codes, deck, reserve = job
    state = question.state
    other_side = state.sides[1 - state.turn]
    solver.reserve(reserve)
    values = []
    for done, index in enumerate(share):
        solver.bound_memo()
        solver.next_round()
        if other_side.standing:
            other = solver.side_id(standing_side(state.ruleset, other_side))
        else:
            other = solver.side_id(playing_side(solver, other_side, other_hands[index][0]))
        values.append([solver.candidate_value(code, other, deck) for code in codes])
        if progress is not None:
            done_here = share[0] + (done + 1) * processes
            progress(min(done_here, len(other_hands)), len(other_hands))
    return values


def describe_model(
    state: MatchState,
    other_hands: list[tuple[tuple[Card, ...], int]],
    fixed: bool,
    deck_after: _Deck,
    *,
    sampled: bool = False,
) -> str:
    rules = state.ruleset
    other = state.sides[1 - state.turn]
    if other.standing:
        who = f"opponent stood on {other.total}"
    elif other.hand_known:
        who = "both hands known, opponent plays optimally"
    else:
        who = (
            f"opponent's {counted(len(other.hand), 'hidden card')} averaged over "
            f"{counted(len(other_hands), 'sampled hand' if sampled else 'possible hand')} "
            "(each solved with both hands known), "
            "opponent plays optimally"
        )
    return f"{rules.spec}: {who}; {deck_model_said(rules, fixed, deck_after)}"


FIXED_DECK_SAID = (
    "cards drawn at the odds of the deck as it is now (counting each card as it goes is too "
    "large to solve)"
)
"""What a model line says of a deck drawn with the fixed odds of the cards left, the exact deck
being too large a search (the table of moves adds what asks for it where a command has it)."""


def deck_model_said(rules: Ruleset, fixed: bool, deck_after: Sequence[int]) -> str:
    """How a set answer drew the main deck, as its model line says it (``fixed``: with the
    fixed odds of the cards left): the same words against every opponent model."""
    if rules.main_deck is MainDeck.INFINITE:
        return "infinite deck (uniform 1..10)"
    if fixed:
        return FIXED_DECK_SAID
    return f"exact {sum(deck_after) or 40}-card deck, drawn without replacement"


__all__ = [
    "ACTION_KIND",
    "BUST_END",
    "DOUBLE",
    "EXACT_PROBE_STATES",
    "FLIP24",
    "FLIP36",
    "FREE_END",
    "HANDS_SHARING",
    "NINTH_BUST_END",
    "NINTH_WIN_END",
    "PLAIN",
    "PROGRESS_MASK",
    "TIEBREAKER",
    "DeckDraws",
    "DeckModels",
    "HandFacts",
    "HandJob",
    "SetSolver",
    "averaged_outcomes",
    "bounded_fixed_solver",
    "compact_side",
    "deck_after_draw",
    "deck_model_said",
    "describe_model",
    "hand_facts",
    "hand_processes",
    "hand_values",
    "label_turn_ends",
    "place_card",
    "place_flip",
    "playing_side",
    "question_moves",
    "root_moves",
    "solve_set_question",
    "standing_side",
    "turn_end",
    "weighted_sums",
]
