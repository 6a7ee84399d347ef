"""The KOTOR I rule as an opponent of an exact solver: its seat's hands and sides, and its turn.

Both best replies to the rule (docs/rules.md §7), over one set (:mod:`pazaak_cli.solve.kotor_reply`)
and over a match (:mod:`pazaak_cli.solve.match_kotor`), search the same tree at the rule's nodes:
after its draw the rule has no choice to optimise, :func:`pazaak_cli.policies.kotor_rule.kotor_rule`
(or another :data:`~pazaak_cli.policies.kotor_rule.DecisionRule` with its inputs) names a card,
then ending the turn or standing. So this module holds, once for both:

* :class:`Seat`, one player's hands and sides interned as small integers, placing cards and
  ending turns; the advised player's seat also lists its ways to end a turn after a draw.
* :class:`RuleSeat`, the rule's seat, whose turn after each draw is worked out once into compact
  transitions (:class:`RuleTurn`) and then answered for every total it faces
  (:meth:`RuleSeat.replies`), memoised.
* The orders of the rule's hand that can change its choices (:func:`hand_orders`).

Where the set and the match really differ, a knob says which (``over_match``):

* A side whose turns are over keeps its hand over a match (the next set starts with it): a
  standing side is ``("S", total, tiebreak, hand)``, a busted one ``("B", 0, False, hand)``, one
  won by its ninth card ``("W", 0, False, hand)``, all interned. In a set the hand left no longer
  matters: a standing side is ``("S", total, tiebreak, NO_HAND)`` and the other two are the codes
  :data:`BUSTS` and :data:`NINE_WINS` (negative, never interned), so the set solver has fewer
  positions and tests them without a lookup.
* The rule's hand is read in order, kept in a canonical order that stands for every order the
  rule plays alike. In a set a plus card or a Double that finishes the turn the same way as
  another is dropped (:func:`rule_hand`: the rule stands after such a card, so which card made
  the total does not matter); over a match the card kept matters in later sets, so no card is
  dropped and more orders are told apart (:func:`canonical_order`, :func:`may_tie`).

A playing side is the set solver's compact ``(total, cards, hand, f24, f36, tiebreak)``
(:func:`pazaak_cli.solve.solver.place_card`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.game import Side
from pazaak_cli.engine.rules import FlipTargets, NineCards, Ruleset, Tiebreaker
from pazaak_cli.policies.kotor_rule import (
    FLEXIBLE,
    KOTOR_END_TURN,
    KOTOR_STAND,
    DecisionRule,
    card_tries,
)
from pazaak_cli.solve.answer_types import Move
from pazaak_cli.solve.solver import (
    ACTION_KIND,
    BUST_END,
    DOUBLE,
    FLIP24,
    FLIP36,
    NINTH_BUST_END,
    NINTH_WIN_END,
    PLAIN,
    TIEBREAKER,
    HandFacts,
    LiveHands,
    compact_side,
    hand_facts,
    label_turn_ends,
    place_card,
    place_flip,
    standing_side,
    turn_end,
)

Playing = tuple[int, int, int, int, int, bool]
"""A side still playing: (total, cards, hand id, f24, f36, tiebreak)."""
Ended = tuple[str, int, bool, int]
"""A side whose turns in the set are over: (tag, total, tiebreak, hand id), the tag ``"S"``
standing, ``"B"`` busted, ``"W"`` won by its ninth card (busted and won: total 0, no tiebreak)."""
CompactSide = Playing | Ended
"""Any side a seat interns."""
Play = tuple[Card, int, int, int, bool]
"""(card, value, action kind, hand id after, flexible)."""

PLAYING, STANDING, BUST, NINE_WIN = range(4)
"""What a side id stands for (:attr:`Seat.kind`): still playing, standing, busted, won by its
ninth card (the last two only over a match: a set ends them as codes)."""
_ENDED_KIND = {"S": STANDING, "B": BUST, "W": NINE_WIN}

BUSTS = -1
"""In a set, the turn-end code of a side that ended its turn over the target: it loses."""
NINE_WINS = -2
"""In a set, the turn-end code of a side whose ninth card won at once (nine-cards=win)."""
NO_HAND = -1
"""The hand of a standing side in a set: it no longer matters, so it is not kept."""

NO_STAND = -1
"""Where :class:`RuleTurn` and :class:`RulePlay` have no stand (over the target, or a card the
rules end the turn after): the rule never chooses one there."""


# ------------------------------------------------------------------------------------------------
# The rule's hand: the orders that matter.


_FINISHERS = frozenset({CardKind.PLUS, CardKind.DOUBLE})
"""Cards that only ever raise the total: the KOTOR rule plays one only to reach 18..20 (step
2), and then it stands, so the cards it keeps no longer matter in the set."""

_LOWERING = frozenset({CardKind.MINUS, CardKind.FLIP_2_4, CardKind.FLIP_3_6})
"""Fixed cards that can bring a total down (a plus card and a Double never do)."""


def rule_hand(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The opponent's hand as far as the KOTOR rule can tell it apart within one set: the same
    play whatever happens. Plus cards and Doubles (:data:`_FINISHERS`) count only by the totals
    they reach: a second copy adds nothing, nor a +n when a ±n (or, for +1 and +2, a ±1/2)
    reaches the same total, unless a +1 keeps the rule from playing a Tiebreaker; and their
    place in the order decides only between cards that finish the turn the same way. So they
    are kept once each, after the other cards (whose order the rule reads), in a fixed order.
    (Step 4 after a card reads the lowest total one card left can reach: a plus card never goes
    down, and one Double, which would copy the card just played, says as much as two.)"""
    others = tuple(card for card in cards if card.kind not in _FINISHERS)
    kinds = {card.kind for card in others}
    flexible = {card.magnitude for card in others if card.kind is CardKind.PLUS_MINUS}
    if CardKind.PLUS_MINUS_1_2 in kinds:
        flexible |= {1, 2}
    if CardKind.TIEBREAKER in kinds:
        flexible.discard(1)  # a +1 keeps the rule from finishing with the Tiebreaker
    finishers = {
        card
        for card in cards
        if card.kind is CardKind.DOUBLE
        or (card.kind is CardKind.PLUS and card.magnitude not in flexible)
    }
    return others + tuple(sorted(finishers))


def may_tie(a: Card, b: Card, *, over_match: bool) -> bool:
    """Whether the order of the distinct cards ``a`` and ``b`` in the rule's hand can change
    what happens: in one set, or (``over_match``) in this set and the later ones.

    The rule picks by order only between cards that reach the same best-up total: the first
    fixed card, or the last ± card (a fixed card beats a ± card in either order). Two ± cards
    can tie when they share a value; that always matters (a Tiebreaker decides ties; at a rescue
    from over 20 the rule plays on with different cards; over a match it keeps a different one).
    Two fixed cards: over a match, whenever they can reach the same total (one is a flip, which
    reaches any total, or a Double, a copy of the card just drawn, 1..10, and a plus card; two
    plus or minus cards of different values never do, nor a Double and a minus card), since the
    card kept matters later. In one set only when both can rescue, that is bring a total down
    (two flips, a flip and a minus card): a play that is not a rescue reaches 18 or more and the
    rule then stands, so which of two fixed cards made the total does not matter.
    """
    if a == b:
        return False
    if (a.kind in FLEXIBLE) != (b.kind in FLEXIBLE):
        return False  # a fixed card always wins over a ± card, in either order
    if a.kind in FLEXIBLE:
        return bool(set(a.values) & set(b.values))
    if not over_match:
        return a.kind in _LOWERING and b.kind in _LOWERING and a.kind is not b.kind
    kinds = {a.kind, b.kind}
    plain = kinds <= {CardKind.PLUS, CardKind.MINUS}
    return not plain and kinds != {CardKind.DOUBLE, CardKind.MINUS}


Tying = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


def _tying(cards: Sequence[Card], over_match: bool) -> Tying:
    """The cards that may tie with another card of ``cards`` (:func:`may_tie`), fixed and ±
    apart (each in the order given), and the others (in the order given)."""
    return _tying_of(tuple(cards), over_match)


@functools.lru_cache(maxsize=1 << 16)
def _tying_of(cards: tuple[Card, ...], over_match: bool) -> Tying:
    """:func:`_tying`, remembered: a question's foresight orders the same few hundred hands
    and sub-hands again and again (it took 0.9 s of a 2 s answer)."""
    fixed: list[Card] = []
    signed: list[Card] = []
    rest: list[Card] = []
    for card in cards:
        if any(may_tie(card, other, over_match=over_match) for other in cards):
            (signed if card.kind in FLEXIBLE else fixed).append(card)
        else:
            rest.append(card)
    return tuple(fixed), tuple(signed), tuple(rest)


def canonical_order(cards: Sequence[Card]) -> tuple[Card, ...]:
    """One representative, over a match, of every order of ``cards`` that the rule plays alike:
    the fixed cards that may tie, in their order, then the ± cards that may tie, in theirs, then
    the others sorted (their place never changes a choice). (In a set: :func:`rule_hand`.)"""
    fixed, signed, rest = _tying(cards, True)
    return (*fixed, *signed, *sorted(rest, key=str))


def hand_orders(hand: Sequence[Card], *, over_match: bool = False) -> list[tuple[Card, ...]]:
    """The orders of ``hand`` that can make the rule choose differently (in one set, or
    ``over_match``), each standing for an equal share of all its orders (a hand is dealt in a
    uniformly random order).

    Only the relative order of cards that may tie (:func:`may_tie`) matters, and between a
    fixed and a ± card never; so the fixed and the ± such cards are each put in every distinct
    order, the other cards after them sorted.
    """
    fixed, signed, rest = _tying(sorted(hand, key=str), over_match)
    return [
        (*first, *second, *rest)
        for first in dict.fromkeys(itertools.permutations(fixed))
        for second in dict.fromkeys(itertools.permutations(signed))
    ]


def match_hand_orders(hand: Sequence[Card]) -> list[tuple[Card, ...]]:
    """:func:`hand_orders` over a match (the name the match answer imports)."""
    return hand_orders(hand, over_match=True)


def hand_plays(
    hand: tuple[Card, ...], intern: Callable[[Sequence[Card]], int], *, ordered: bool
) -> tuple[Play, ...]:
    """The plays of ``hand`` as (card, value, action kind, id of the hand left, flexible), the
    hands left interned by ``intern``. ``ordered``: the rule's seat's, in the rule's order of
    tries (:func:`card_tries`, duplicates included); otherwise the distinct (card, value) pairs,
    which is all a maximising player needs (a flip or a Double is one play, valued 0)."""
    plays: list[Play] = []
    if ordered:
        for value, _, position, card, flexible in card_tries(hand):
            rest = intern(hand[:position] + hand[position + 1 :])
            plays.append((card, value, ACTION_KIND[card.kind], rest, flexible))
        return tuple(plays)
    for index, card in enumerate(hand):
        if index and hand[index - 1] == card:
            continue
        rest = intern(hand[:index] + hand[index + 1 :])
        kind = ACTION_KIND[card.kind]
        values = (0,) if kind in (FLIP24, FLIP36, DOUBLE) else card.values
        plays.extend((card, value, kind, rest, False) for value in values)
    return tuple(plays)


def _multiset(cards: Sequence[Card]) -> tuple[Card, ...]:
    """A maximising player's hand: its cards in a fixed order (their order never matters)."""
    return tuple(sorted(cards, key=str))


# ------------------------------------------------------------------------------------------------
# One player's hands and sides.


class Seat:
    """One player's hands and sides, interned as small integers, and how its turns end.

    ``over_match``: sides that end their set keep their hand, and busting or winning by the
    ninth card are interned sides too (see the module's docstring); else the set's forms.
    ``order``: the rule's seat, whose hands are kept in this canonical order and list their
    plays in the rule's order of tries; ``None``, a maximising player, whose hand is a multiset
    with its distinct (card, value) plays.
    """

    def __init__(
        self,
        ruleset: Ruleset,
        *,
        over_match: bool,
        order: Callable[[Sequence[Card]], tuple[Card, ...]] | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.over_match = over_match
        self.ordered = order is not None
        self._order = _multiset if order is None else order
        self.target = ruleset.target
        self.size = ruleset.table_size
        self.nine_win = ruleset.nine_cards is NineCards.WIN
        self.flip_all = ruleset.flip_targets is FlipTargets.ALL_SIGNS
        self.any_tiebreak = ruleset.tiebreaker is Tiebreaker.ANY_PLAYED
        self.hand_ids: dict[tuple[Card, ...], int] = {}
        self.hands: list[tuple[Card, ...]] = []
        self.facts: list[HandFacts] = []
        self.plays: list[tuple[Play, ...]] = []
        self._doubles: dict[int, bool] = {}
        self.side_ids: dict[CompactSide, int] = {}
        self.sides: list[CompactSide] = []
        self.kind: list[int] = []
        """Per side id: :data:`PLAYING`, :data:`STANDING`, :data:`BUST` or :data:`NINE_WIN`."""
        self.hand_of: list[int] = []
        self.total: list[int] = []
        self.standing: list[bool] = []
        self.after: dict[int, int] = {}
        """Side id * 16 + card drawn -> the number of its list of turn ends (:attr:`lists`)."""
        self.list_ids: dict[tuple[int, ...], int] = {}
        self.lists: list[tuple[int, ...]] = []
        """The distinct lists of turn ends: equal lists share a number, so that the best
        choice among one is solved once."""
        self.before_new: Callable[[], None] | None = None
        """Called before a side is numbered: where a C loop numbers sides too
        (:meth:`adopt`), it tells those first, so that both number alike."""
        self._live = (
            LiveHands(self.hands.__getitem__, self.hand, self.target)
            if not over_match and order is None
            else None
        )
        """Where set: a maximising side in a set, whose sides are keyed without the cards it
        can no longer play (:class:`~pazaak_cli.solve.solver.LiveHands`)."""

    # -- hands -------------------------------------------------------------------------------------

    def hand(self, cards: Sequence[Card]) -> int:
        """The id of the hand ``cards`` (in the seat's canonical order), interned with every
        hand its plays leave."""
        key = self._order(cards)
        found = self.hand_ids.get(key)
        if found is not None:
            return found
        hid = len(self.hands)
        self.hand_ids[key] = hid
        self.hands.append(key)
        self.facts.append(hand_facts(key, self.ruleset))
        self.plays.append(())
        self.plays[hid] = hand_plays(key, self.hand, ordered=self.ordered)
        return hid

    def holds_double(self, hand: int) -> bool:
        """Whether hand id ``hand`` holds a Double (a turn after a draw then depends on the
        card drawn, which it copies, not only on the table it leaves)."""
        found = self._doubles.get(hand)
        if found is None:
            found = self._doubles[hand] = any(play[2] == DOUBLE for play in self.plays[hand])
        return found

    def sub_hands(self, hand: int) -> list[int]:
        """Every hand ``hand`` can leave after playing cards (itself included)."""
        found: dict[int, None] = {hand: None}
        stack = [hand]
        while stack:
            for play in self.plays[stack.pop()]:
                if play[3] not in found:
                    found[play[3]] = None
                    stack.append(play[3])
        return list(found)

    # -- sides -------------------------------------------------------------------------------------

    def side(self, side: CompactSide) -> int:
        """The id of ``side``, playing or ended (see the module's docstring)."""
        found = self.side_ids.get(side)
        if found is None and self.before_new is not None:
            self.before_new()
            found = self.side_ids.get(side)
        if found is None and self._live is not None and len(side) == 6:
            alive = self._live.side(side)
            if alive != side:
                found = self.side_ids[side] = self.side(alive)
        return self._number(side) if found is None else found

    def _number(self, side: CompactSide) -> int:
        """Number ``side``, not numbered yet, next."""
        found = len(self.sides)
        self.side_ids[side] = found
        self.sides.append(side)
        if len(side) == 6:
            self.kind.append(PLAYING)
            self.hand_of.append(side[2])
            self.total.append(side[0])
            self.standing.append(False)
        else:
            tag = side[0]
            self.kind.append(_ENDED_KIND[tag])
            self.hand_of.append(side[3])
            self.total.append(side[1])
            self.standing.append(tag == "S")
        return found

    def adopt(self, sides: Iterable[CompactSide]) -> None:
        """Number ``sides``, none numbered yet, next, in this order (the sides a C loop
        numbered as :meth:`side` would have)."""
        for side in sides:
            assert side not in self.side_ids, side
            self._number(side)

    def forget_sides(self) -> None:
        """Drop every interned side (side ids restart from 0; hands stay), and what is keyed by
        side ids."""
        self.side_ids.clear()
        self.sides.clear()
        self.kind.clear()
        self.hand_of.clear()
        self.total.clear()
        self.standing.clear()
        self.after.clear()
        self.list_ids.clear()
        self.lists.clear()

    def add(self, side: Playing, value: int, hand: int) -> Playing:
        """``side`` with a card worth ``value`` placed and ``hand`` left in hand."""
        return place_card(side, value, hand, self.facts[hand], self.flip_all)

    def play(self, side: Playing, drawn: int, play: Play) -> Playing:
        """``side`` after playing a hand card right after drawing ``drawn`` (a Double copies
        it; a flip is placed as 0 and turns cards over)."""
        _, value, kind, rest, _ = play
        if kind == PLAIN:
            return self.add(side, value, rest)
        if kind == DOUBLE:
            return self.add(side, drawn, rest)
        if kind == TIEBREAKER:
            placed = self.add(side, value, rest)
            return (*placed[:5], True) if self.any_tiebreak else placed
        return place_flip(side, kind == FLIP24, rest, self.facts[rest], self.flip_all)

    def stands(self, side: Playing, tiebreaker_last: bool) -> Ended:
        """The standing form of the playing ``side`` (``tiebreaker_last``: the card it stands
        on is a Tiebreaker played as its last card)."""
        tiebreak = side[5] or (tiebreaker_last and not self.any_tiebreak)
        return ("S", side[0], tiebreak, side[2] if self.over_match else NO_HAND)

    def busted(self, hand: int) -> int:
        """The code of a side holding ``hand`` that ended its turn over the target."""
        return self.side(("B", 0, False, hand)) if self.over_match else BUSTS

    def end_codes(self, side: Playing, tiebreaker_last: bool, full: bool) -> tuple[int, ...]:
        """The codes of the ways a turn can end once ``side`` holds its last card of the turn
        (``full``: its table's last slot), as :func:`~pazaak_cli.solve.solver.turn_end` says:
        ending the turn then standing, or the one the rules force. A hot path: no labels."""
        if not full and side[0] < self.target:  # turn_end's FREE_END, the common case, inline
            ends = self.side(side)  # (interned before the standing side: the ids follow this)
            return (ends, self.side(self.stands(side, tiebreaker_last)))
        kind = turn_end(side[0], full, self.target, self.nine_win)
        if kind in (BUST_END, NINTH_BUST_END):
            return (self.busted(side[2]),)
        if kind == NINTH_WIN_END:
            return (self.side(("W", 0, False, side[2])) if self.over_match else NINE_WINS,)
        return (self.side(self.stands(side, tiebreaker_last)),)

    def turn_ends(
        self, side: Playing, tiebreaker_last: bool, full: bool
    ) -> list[tuple[str, str, int]]:
        """:meth:`end_codes` with their labels: (then, note, code) each, as the optimal solvers
        word them."""
        kind = turn_end(side[0], full, self.target, self.nine_win)
        codes = self.end_codes(side, tiebreaker_last, full)
        return label_turn_ends(kind, self.target, codes, self.size)

    def labelled_moves(
        self, side: Playing, drawn: int, played: bool, tiebreaker_last: bool, count: int
    ) -> list[tuple[Move, int]]:
        """Every move of the side that has just drawn ``drawn`` (on its table already), as
        (move, turn-end code), in the optimal solvers' order and wording. ``played``: a hand
        card (a Tiebreaker if ``tiebreaker_last``) already followed the draw. ``count``: the
        cards on its table (the compact side may have dropped it; the moves offered may not)."""
        size = self.size
        full = count >= size
        moves = [
            (Move(None, None, then, note), code)
            for then, note, code in self.turn_ends(side, tiebreaker_last, full)
        ]
        if played or full or side[0] == self.target:
            return moves
        full = count + 1 >= size
        for play in self.plays[side[2]]:
            card, value, kind, _, _ = play
            placed = self.play(side, drawn, play)
            shown = drawn if kind == DOUBLE else None if kind in (FLIP24, FLIP36) else value
            for then, note, code in self.turn_ends(placed, kind == TIEBREAKER, full):
                moves.append((Move(card, shown, then, note), code))
        return moves

    def ends_after_draw(self, side_id: int, drawn: int) -> int:
        """The number of the list of distinct turn ends (:attr:`lists`) of the playing side
        ``side_id`` once it drew ``drawn``: the codes of :meth:`labelled_moves`, unlabelled (the
        advised player's choices, a hot path), remembered in :attr:`after`."""
        side = self.sides[side_id]
        assert len(side) == 6
        placed = self.add(side, drawn, side[2])
        size = self.size
        codes = list(self.end_codes(placed, False, placed[1] >= size))
        if placed[1] < size and placed[0] != self.target:
            for play in self.plays[placed[2]]:
                after = self.play(placed, drawn, play)
                codes += self.end_codes(after, play[2] == TIEBREAKER, after[1] >= size)
        unique = tuple(dict.fromkeys(codes))
        found = self.list_ids.get(unique)
        if found is None:
            found = self.list_ids[unique] = len(self.lists)
            self.lists.append(unique)
        self.after[side_id * 16 + drawn] = found
        return found

    # -- from engine sides -------------------------------------------------------------------------

    def playing_side(self, side: Side, hand: Sequence[Card]) -> Playing:
        """The compact form of an engine side still playing, holding ``hand``."""
        hid = self.hand(hand)
        return compact_side(self.ruleset, side, hid, self.facts[hid])

    def standing_side(self, side: Side, hand: int = NO_HAND) -> Ended:
        """The form of an engine side that stands, holding hand id ``hand`` (kept over a match
        only)."""
        total, tiebreak = standing_side(self.ruleset, side)
        return ("S", total, tiebreak, hand if self.over_match else NO_HAND)

    def engine_side(self, side: Side, hand: Sequence[Card]) -> int:
        """The id of an engine side (playing or standing) holding ``hand``."""
        if side.standing:
            return self.side(self.standing_side(side, self.hand(hand)))
        return self.side(self.playing_side(side, hand))


# ------------------------------------------------------------------------------------------------
# The rule's turn.


class RulePlay(NamedTuple):
    """One card the rule may play after its draw, and where it leads."""

    total: int
    forced: int | None
    """The turn-end code the rules force after the card (a ninth card, the target, over it),
    else ``None``."""
    end: int
    """The code of ending the turn after it."""
    stand: int
    """The code of standing after it (:data:`NO_STAND` where forced)."""
    left: tuple[tuple[int, bool], ...]
    """(total reached, flexible) for each card left in hand, tried on the table after this one:
    step 4 of the rule reads its best-down from them."""


class RuleTurn(NamedTuple):
    """The rule's choices after a draw that the rules leave open."""

    total: int
    end: int
    """The code of ending the turn with no card (busting if over the target)."""
    stand: int
    """The code of standing with no card (:data:`NO_STAND` over the target)."""
    tries: tuple[tuple[int, bool], ...]
    """(total reached, flexible) for each card the rule tries, in its order."""
    plays: tuple[RulePlay, ...]
    """The same tries, with where each leads."""


def _total_after(side: Playing, last: int, play: Play) -> int:
    """The total of ``side`` once ``play`` is played on it, the card last on its table worth
    ``last``: :meth:`Seat.play`'s total without making the side (the rule's step 4 reads only
    the totals of the tries left, thousands of them a question)."""
    _, value, kind, _, _ = play
    if kind in (PLAIN, TIEBREAKER):
        return side[0] + value
    if kind == DOUBLE:
        return side[0] + last
    return side[0] - 2 * (side[3] if kind == FLIP24 else side[4])


class RuleSeat(Seat):
    """The seat of the opponent that plays by ``rule`` (the KOTOR I rule, or another with its
    inputs): its hands in the rule's canonical order (:func:`rule_hand` in a set,
    :func:`canonical_order` over a match), and its turn after each draw, memoised by side."""

    def __init__(self, ruleset: Ruleset, rule: DecisionRule, *, over_match: bool) -> None:
        order = canonical_order if over_match else rule_hand
        super().__init__(ruleset, over_match=over_match, order=order)
        self.decide = rule
        self.turns: dict[int, int | RuleTurn] = {}
        """Side id * 16 + card drawn -> :meth:`turn`."""
        self.reply_memo: dict[int, tuple[int, ...]] = {}
        """:meth:`replies` by (side, total faced, standing or not, sets won by the other)."""

    def forget_sides(self) -> None:
        """Drop every interned side and the turns and replies keyed by them."""
        super().forget_sides()
        self.turns.clear()
        self.reply_memo.clear()

    def turn(self, opp: int, drawn: int) -> int | RuleTurn:
        """What the rule's side ``opp`` can do after drawing ``drawn``: a turn-end code when the
        rules leave it no choice (a ninth card, the target), else its choices for the rule."""
        side = self.sides[opp]
        assert len(side) == 6
        placed = self.add(side, drawn, side[2])
        total, hand = placed[0], placed[2]
        target, size = self.target, self.size
        if placed[1] >= size or total == target:
            return self.end_codes(placed, False, placed[1] >= size)[0]
        over = total > target
        end = self.busted(hand) if over else self.side(placed)
        stand = NO_STAND if over else self.side(self.stands(placed, False))
        tries: list[tuple[int, bool]] = []
        plays: list[RulePlay] = []
        for play in self.plays[hand]:
            after = self.play(placed, drawn, play)
            tries.append((after[0], play[4]))
            tiebreaker = play[2] == TIEBREAKER
            if after[1] >= size or after[0] >= target:
                forced = self.end_codes(after, tiebreaker, after[1] >= size)[0]
                plays.append(RulePlay(after[0], forced, NO_STAND, NO_STAND, ()))
                continue
            # step 4 reads the tries of the hand left on the table after the card: a Double
            # copies the card now last on the table, the one just played (a flip is placed as 0)
            kind = play[2]
            last = drawn if kind == DOUBLE else 0 if kind in (FLIP24, FLIP36) else play[1]
            left = tuple(
                (_total_after(after, last, rest), rest[4]) for rest in self.plays[after[2]]
            )
            stood = self.side(self.stands(after, tiebreaker))
            plays.append(RulePlay(after[0], None, self.side(after), stood, left))
        return RuleTurn(total, end, stand, tuple(tries), tuple(plays))

    def reply(self, opp: int, drawn: int, theirs: int, they_stand: bool, sets: int) -> int:
        """The turn-end code the rule reaches from side ``opp`` after drawing ``drawn``, facing
        the other player's total ``theirs`` (standing or not) and his ``sets`` won."""
        key = opp * 16 + drawn
        turn = self.turns.get(key)
        if turn is None:
            turn = self.turns[key] = self.turn(opp, drawn)
        if isinstance(turn, int):
            return turn
        total, end, stand, tries, plays = turn
        rules = self.ruleset
        choice = self.decide(total, theirs, they_stand, sets, tries, False, rules)
        if choice == KOTOR_END_TURN:
            return end
        if choice == KOTOR_STAND:
            assert stand != NO_STAND, "the rule never stands over the target"
            return stand
        after = plays[choice]
        if after.forced is not None:
            return after.forced
        # step 4 on the position after the card: its total and the hand it left
        then = self.decide(after.total, theirs, they_stand, sets, after.left, True, rules)
        return after.end if then == KOTOR_END_TURN else after.stand

    def replies(self, opp: int, theirs: int, they_stand: bool, sets: int) -> tuple[int, ...]:
        """The rule's turn-end code from side ``opp`` after each draw 1..10 (index 0 unused),
        facing ``theirs`` (standing or not) and ``sets`` won: computed once per such key."""
        key = (((((opp << 12) | (theirs + 1024)) << 8) | sets) << 1) | they_stand  # |totals| < 1000
        found = self.reply_memo.get(key)
        if found is None:
            found = self.reply_memo[key] = tuple(
                self.reply(opp, drawn, theirs, they_stand, sets) if drawn else 0
                for drawn in range(11)
            )
        return found


__all__ = [
    "BUSTS",
    "NINE_WINS",
    "NO_HAND",
    "NO_STAND",
    "RulePlay",
    "RuleSeat",
    "RuleTurn",
    "Seat",
    "canonical_order",
    "hand_orders",
    "hand_plays",
    "match_hand_orders",
    "may_tie",
    "rule_hand",
]
