"""The exact best reply to the KOTOR I computer opponent (``pazaak advise --opponent kotor``).

The game's computer opponent is a deterministic rule (docs/rules.md §7): it sees its own total
and hand, the other player's total, whether he stands and how many sets he has won, and picks
one action. Against it the best play is not the optimal (minimax) play: this module solves the
set exactly with the opponent following that rule. At the advised player's nodes the solver
maximises (equity, p_win) exactly as :mod:`pazaak_cli.solve.solver` does (the same tie rule, so
every move's numbers are unique); at the opponent's nodes after its draw there is no choice to
optimise: :func:`pazaak_cli.policies.kotor_rule.kotor_rule` (the very function
:class:`~pazaak_cli.players.roster.KotorPlayer` plays by) names a card, then ending the turn or
standing.

The rule reads the hand *in order* (on equal totals it keeps the first fixed card, or the last
± card it tried), so the opponent's hand is kept as an ordered tuple. A hidden hand is averaged
over its possible multisets (as the optimal solver does) and, within each, over every order of
the cards whose order can change the rule's choice (gold cards; never KOTOR I's cards), each
order equally likely, as the game deals them.

The state is compact like the optimal solver's: a playing side is ``(total, cards, hand id,
f24, f36, tiebreak)`` (``f24`` the sum a Flip 2&4 would turn over, kept only while the hand
holds one; the same for ``f36``), a standing side is ``(total, tiebreak)``; both seats intern
their sides as small integers, and the memo keys say whose turn it is.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, NamedTuple

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK, MatchState, Placed, Side
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import FlipTargets, MainDeck, NineCards, Ruleset, Tiebreaker
from pazaak_cli.policies.kotor_rule import KOTOR_END_TURN, KOTOR_STAND, card_tries, kotor_rule
from pazaak_cli.solve.solver import ACTION_KIND as _KIND
from pazaak_cli.solve.solver import DOUBLE as _DOUBLE
from pazaak_cli.solve.solver import (
    EPSILON,
    PROGRESS_MASK,
    Advice,
    DeckDraws,
    HandFacts,
    HandsSolved,
    Move,
    MoveRow,
    Outcome,
    SolveOptions,
    SolverTooLarge,
    compact_side,
    deadline_watch,
    deck_after_draw,
    hand_facts,
    hand_processes,
    place_card,
    place_flip,
    ranked_set_results,
    rows_in_order,
    set_row,
    solve_dealt,
    weighted_opponent_hands,
)
from pazaak_cli.solve.solver import FLIP24 as _FLIP24
from pazaak_cli.solve.solver import FLIP36 as _FLIP36
from pazaak_cli.solve.solver import PLAIN as _PLAIN
from pazaak_cli.solve.solver import TIEBREAKER as _TIEBREAKER

Value = tuple[float, float]
"""(equity, p_win) for the advised player."""
_WIN: Value = (1.0, 1.0)
_LOSS: Value = (-1.0, 0.0)
_TIE: Value = (0.0, 0.0)

# How a card acts on the compact side.

# Turn-end codes (side ids are >= 0).
_BUSTS = -1
"""The side ended its turn over the target: it loses the set."""
_NINE_WINS = -2
"""The side's ninth card won the set at once (nine-cards=win)."""

_Playing = tuple[int, int, int, int, int, bool]
_Standing = tuple[int, bool]
_Play = tuple[Card, int, int, int, bool]
"""(card, value, action kind, hand id after, flexible)."""


_FINISHERS = frozenset({CardKind.PLUS, CardKind.DOUBLE})
"""Cards that only ever raise the total: the KOTOR rule plays one only to reach 18..20 (step
2), and then it stands, so the cards it keeps no longer matter in the set."""


def rule_hand(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The opponent's hand as far as the KOTOR rule can tell it apart: the same play whatever
    happens. Plus cards and Doubles (:data:`_FINISHERS`) count only by the totals they reach:
    a second copy adds nothing, nor a +n when a ±n (or, for +1 and +2, a ±1/2) reaches the
    same total, unless a +1 keeps the rule from playing a Tiebreaker; and their place in the
    order decides only
    between cards that finish the turn the same way. So they are kept once each, after the
    other cards (whose order the rule reads), in a fixed order. (Step 4 after a card reads the
    lowest total one card left can reach: a plus card never goes down, and one Double, which
    would copy the card just played, says as much as two.)"""
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


def hand_plays(
    hand: tuple[Card, ...], intern: Callable[[Sequence[Card]], int], *, ordered: bool
) -> tuple[_Play, ...]:
    """The plays of ``hand`` as (card, value, action kind, id of the hand left, flexible), the
    hands left interned by ``intern``. ``ordered``: the KOTOR seat's, in the rule's order of
    tries (:func:`card_tries`, duplicates included); otherwise the distinct (card, value) pairs,
    which is all a maximising player needs (a flip or a Double is one play, valued 0)."""
    plays: list[_Play] = []
    if ordered:
        for value, _, position, card, flexible in card_tries(hand):
            rest = intern(hand[:position] + hand[position + 1 :])
            plays.append((card, value, _KIND[card.kind], rest, flexible))
        return tuple(plays)
    for index, card in enumerate(hand):
        if index and hand[index - 1] == card:
            continue
        rest = intern(hand[:index] + hand[index + 1 :])
        kind = _KIND[card.kind]
        values = (0,) if kind in (_FLIP24, _FLIP36, _DOUBLE) else card.values
        plays.extend((card, value, kind, rest, False) for value in values)
    return tuple(plays)


class _Seat:
    """One player's hands and sides, interned as small integers.

    ``ordered``: hands keep their order and list their plays in the KOTOR rule's order
    (:func:`card_tries`, duplicates included); otherwise a hand is a multiset whose plays are its
    distinct (card, value) pairs, which is all a maximising player needs.
    """

    def __init__(self, ruleset: Ruleset, *, ordered: bool) -> None:
        self.ordered = ordered
        self.ruleset = ruleset
        self.flip_all = ruleset.flip_targets is FlipTargets.ALL_SIGNS
        self.hand_ids: dict[tuple[Card, ...], int] = {}
        self.hands: list[tuple[Card, ...]] = []
        self.facts: list[HandFacts] = []
        self.plays: list[tuple[_Play, ...]] = []
        self.side_ids: dict[_Playing | _Standing, int] = {}
        self.sides: list[_Playing | _Standing] = []
        self.standing: list[bool] = []
        self.totals: list[int] = []

    def hand(self, cards: Sequence[Card]) -> int:
        key = rule_hand(cards) if self.ordered else tuple(sorted(cards, key=str))
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

    def side(self, side: _Playing | _Standing) -> int:
        found = self.side_ids.get(side)
        if found is None:
            found = len(self.sides)
            self.side_ids[side] = found
            self.sides.append(side)
            self.standing.append(len(side) == 2)
            self.totals.append(side[0])
        return found

    def forget_sides(self) -> None:
        """Drop every interned side (side ids restart from 0; hands stay)."""
        self.side_ids.clear()
        self.sides.clear()
        self.standing.clear()
        self.totals.clear()

    def add(self, side: _Playing, value: int, hand: int) -> _Playing:
        """``side`` with a card worth ``value`` placed and ``hand`` left in hand."""
        return place_card(side, value, hand, self.facts[hand], self.flip_all)

    def flip(self, side: _Playing, kind: int, hand: int) -> _Playing:
        """``side`` after a flip card (placed as 0) turned its 2s and 4s (or 3s and 6s) over."""
        return place_flip(side, kind == _FLIP24, hand, self.facts[hand], self.flip_all)

    def play(self, side: _Playing, drawn: int, play: _Play, any_tiebreak: bool) -> _Playing:
        """``side`` after playing a hand card right after drawing ``drawn``."""
        _, value, kind, rest, _ = play
        if kind == _PLAIN:
            return self.add(side, value, rest)
        if kind == _DOUBLE:
            return self.add(side, drawn, rest)  # a copy of the card just drawn
        if kind == _TIEBREAKER:
            placed = self.add(side, value, rest)
            return (*placed[:5], True) if any_tiebreak else placed
        return self.flip(side, kind, rest)


class _TurnEnd(NamedTuple):
    """One way a turn can end: the move's label and the turn-end code it leads to."""

    then: str
    note: str
    code: int


class _OppPlay(NamedTuple):
    """One card the KOTOR rule may play after its draw, and where it leads."""

    total: int
    forced: int | None
    """The turn-end code the rules force after the card (a ninth card, 20), else ``None``."""
    end: int
    """The code of ending the turn after it."""
    stand: int | None
    """The code of standing after it."""
    left: tuple[tuple[int, bool], ...]
    """(total reached, flexible) for each card left in hand, tried on the table after this one:
    step 4 of the rule reads its best-down from them."""


class _OppTurn(NamedTuple):
    """The opponent's choices after a draw that the rules leave open."""

    total: int
    end: int
    """The code of ending the turn with no card (busting if over the target)."""
    stand: int | None
    """The code of standing with no card (``None`` over the target)."""
    tries: tuple[tuple[int, bool], ...]
    """(total reached, flexible) for each card the rule tries, in its order."""
    plays: tuple[_OppPlay, ...]
    """The same tries, with where each leads."""


MEMO_LIMIT = 2_000_000
"""Positions kept in memory at most (about 0.7 GB) before :meth:`KotorReplySolver.trim` forgets
them between two hands of a hidden-hand average."""
SEARCH_LIMIT = 2 * MEMO_LIMIT
"""A single search (one hand) that needs more positions than this is refused: its memo cannot
be trimmed while it runs."""
STATE_BYTES = 280
"""Bytes a position takes, measured: a search refused at :data:`SEARCH_LIMIT` (the kotor1 first
move with ±1 ±2 ±3 ±4 a side, on its exact deck, ``--exact``) peaked at 1.13 GB after 101 s:
the whole process, within the 2 GB every answer keeps to."""


class KotorReplySolver:
    """Solves sets of the advised player (to maximise) against the KOTOR I rule.

    ``their_sets`` is how many sets the advised player has won (the rule's step 3 reads it; it
    cannot change within a set). ``fixed_draws``: draw with these fixed counts of each value,
    without depletion (the infinite deck is ``FULL_DECK``); ``None`` solves the finite deck
    exactly, without replacement (a fresh full deck when it runs out).
    """

    def __init__(
        self,
        ruleset: Ruleset,
        their_sets: int,
        *,
        fixed_draws: Sequence[int] | None = None,
        budget: int | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.their_sets = their_sets
        self.fixed = tuple(fixed_draws) if fixed_draws is not None else None
        self.budget = budget
        self.me = _Seat(ruleset, ordered=False)
        self.opp = _Seat(ruleset, ordered=True)
        self._target = ruleset.target
        self._size = ruleset.table_size
        self._nine_win = ruleset.nine_cards is NineCards.WIN
        self._any_tiebreak = ruleset.tiebreaker is Tiebreaker.ANY_PLAYED
        self._decks = DeckDraws(self.fixed)
        self._draws = self._decks.table
        self._my_after: dict[int, tuple[int, tuple[int, ...]]] = {}
        self._list_ids: dict[tuple[int, ...], int] = {}
        self._my_choice: dict[int, dict[int, Value]] = {}
        self._opp_turns: dict[int, int | _OppTurn] = {}
        self._replies: dict[int, tuple[int, ...]] = {}
        self._my_before: dict[int, dict[int, Value]] = {}
        self._opp_before: dict[int, dict[int, Value]] = {}
        self.states = 0
        """Positions solved so far (before a draw, either player's)."""
        self._trimmed_at = 0
        self.progress: Callable[[int], None] | None = None
        """Called with :attr:`states` every so many positions of a long search."""

    # -- decks -------------------------------------------------------------------------------------

    def deck_id(self, deck: tuple[int, ...]) -> int:
        """Intern a deck (remaining counts of 1..10); with fixed draws every deck is one."""
        return self._decks.intern(deck)

    # -- turn ends ---------------------------------------------------------------------------------

    def _stands(self, side: _Playing, tiebreaker_last: bool) -> _Standing:
        return (side[0], side[5] or (tiebreaker_last and not self._any_tiebreak))

    def _turn_ends(
        self, seat: _Seat, side: _Playing, tiebreaker_last: bool, full: bool | None = None
    ) -> list[_TurnEnd]:
        """How a turn can end once ``side`` holds its last card of the turn (the automatic rules
        leave one way; otherwise end or stand), with the notes the optimal solver gives.
        ``full``: the table's last slot is taken (by default, as the compact side counts)."""
        total = side[0]
        target = self._target
        if side[1] >= self._size if full is None else full:
            if total > target:
                return [_TurnEnd("bust", "ninth card over the target", _BUSTS)]
            if self._nine_win:
                return [_TurnEnd("stand", "ninth card: wins the set", _NINE_WINS)]
            stood = seat.side(self._stands(side, tiebreaker_last))
            return [_TurnEnd("stand", "ninth card: automatic stand", stood)]
        if total == target:
            stood = seat.side(self._stands(side, tiebreaker_last))
            return [_TurnEnd("stand", f"automatic stand at {target}", stood)]
        if total > target:
            return [_TurnEnd("bust", "", _BUSTS)]
        return [
            _TurnEnd("end", "", seat.side(side)),
            _TurnEnd("stand", "", seat.side(self._stands(side, tiebreaker_last))),
        ]

    def root_moves(
        self, side: _Playing, drawn: int, played: bool, tiebreaker_last: bool, count: int
    ) -> list[tuple[Move, int]]:
        """Every move of the advised side that has just drawn ``drawn`` (on its table already),
        as (move, turn-end code), in the optimal solver's order and wording. ``played``: a hand
        card (a Tiebreaker if ``tiebreaker_last``) already followed the draw. ``count``: the
        cards on its table (the compact side may have dropped it; the moves offered may not)."""
        seat = self.me
        full = count >= self._size
        moves = [
            (Move(None, None, end.then, end.note), end.code)
            for end in self._turn_ends(seat, side, tiebreaker_last, full)
        ]
        if played or full or side[0] == self._target:
            return moves
        full = count + 1 >= self._size
        for play in seat.plays[side[2]]:
            card, value, kind, _, _ = play
            placed = seat.play(side, drawn, play, self._any_tiebreak)
            shown = drawn if kind == _DOUBLE else None if kind in (_FLIP24, _FLIP36) else value
            for end in self._turn_ends(seat, placed, kind == _TIEBREAKER, full):
                moves.append((Move(card, shown, end.then, end.note), end.code))
        return moves

    def _my_list(self, me: int, drawn: int) -> tuple[int, tuple[int, ...]]:
        """The distinct turn ends of the advised side ``me`` after drawing ``drawn``, and the
        number of that list (equal lists share a number, so their best choice is solved once)."""
        seat = self.me
        side = seat.sides[me]
        assert len(side) == 6
        placed = seat.add(side, drawn, side[2])
        moves = self.root_moves(placed, drawn, False, False, placed[1])
        codes = tuple(dict.fromkeys(code for _, code in moves))
        number = self._list_ids.get(codes)
        if number is None:
            number = self._list_ids[codes] = len(self._list_ids)
        self._my_after[me * 16 + drawn] = (number, codes)
        return number, codes

    # -- the opponent's turn -----------------------------------------------------------------------

    def _opp_turn(self, opp: int, drawn: int) -> int | _OppTurn:
        """What the opponent's side ``opp`` can do after drawing ``drawn``: a turn-end code when
        the rules leave it no choice (a ninth card, 20), else its choices for the rule."""
        seat = self.opp
        side = seat.sides[opp]
        assert len(side) == 6
        placed = seat.add(side, drawn, side[2])
        total = placed[0]
        if placed[1] >= self._size or total == self._target:
            return self._turn_ends(seat, placed, False)[0].code
        end = seat.side(placed) if total <= self._target else _BUSTS
        stand = seat.side(self._stands(placed, False)) if total <= self._target else None
        totals: list[tuple[int, bool]] = []
        plays: list[_OppPlay] = []
        for play in seat.plays[placed[2]]:
            after = seat.play(placed, drawn, play, self._any_tiebreak)
            totals.append((after[0], play[4]))
            tiebreaker = play[2] == _TIEBREAKER
            if after[1] >= self._size or after[0] >= self._target:
                forced = self._turn_ends(seat, after, tiebreaker)[0].code
                plays.append(_OppPlay(after[0], forced, _BUSTS, None, ()))
            else:
                stood = seat.side(self._stands(after, tiebreaker))
                left = self._tries_after(seat, after, drawn, play)
                plays.append(_OppPlay(after[0], None, seat.side(after), stood, left))
        return _OppTurn(total, end, stand, tuple(totals), tuple(plays))

    def _tries_after(
        self, seat: _Seat, after: _Playing, drawn: int, played: _Play
    ) -> tuple[tuple[int, bool], ...]:
        """(total reached, flexible) for each try of the hand left once ``played`` is down on
        ``after`` (drawn ``drawn`` before it), in the rule's order: a Double copies the card now
        last on the table, the one just played (a flip is placed as 0), as the engine would."""
        _, value, kind, _, _ = played
        last = drawn if kind == _DOUBLE else 0 if kind in (_FLIP24, _FLIP36) else value
        return tuple(
            (seat.play(after, last, play, self._any_tiebreak)[0], play[4])
            for play in seat.plays[after[2]]
        )

    def _opp_reply(self, opp: int, drawn: int, theirs: int, they_stand: bool) -> int:
        """The turn-end code the KOTOR rule reaches from side ``opp`` after drawing ``drawn``,
        facing the advised player's total ``theirs`` (standing or not)."""
        key = opp * 16 + drawn
        turn = self._opp_turns.get(key)
        if turn is None:
            turn = self._opp_turns[key] = self._opp_turn(opp, drawn)
        if isinstance(turn, int):
            return turn
        total, end, stand, tries, plays = turn
        rules, sets = self.ruleset, self.their_sets
        choice = kotor_rule(total, theirs, they_stand, sets, tries, False, rules)
        if choice == KOTOR_END_TURN:
            return end
        if choice == KOTOR_STAND:
            assert stand is not None, "the KOTOR rule never stands over the target"
            return stand
        after = plays[choice]
        if after.forced is not None:
            return after.forced
        # step 4 on the position after the card: its total and the hand it left
        then = kotor_rule(after.total, theirs, they_stand, sets, after.left, True, rules)
        if then == KOTOR_END_TURN:
            return after.end
        assert after.stand is not None
        return after.stand

    # -- the recursion -----------------------------------------------------------------------------

    def _judge(self, mine: int, theirs: int) -> Value:
        """Both stand: the higher total wins; equal totals go to a lone tiebreaker."""
        a = self.me.sides[mine]
        b = self.opp.sides[theirs]
        if a[0] != b[0]:
            return _WIN if a[0] > b[0] else _LOSS
        if a[1] != b[1]:
            return _WIN if a[1] else _LOSS
        return _TIE

    # The memo has two levels: (opponent side, deck) -> {advised side: value}. A node reads the
    # memo of its children inline and calls the solving method only for a new one: that is the
    # hot loop (the advised side has up to ~20 turn ends after each draw).

    def _table(self, memo: dict[int, dict[int, Value]], opp: int, deck: int) -> dict[int, Value]:
        key = (opp << 28) | deck
        table = memo.get(key)
        if table is None:
            table = memo[key] = {}
        return table

    def my_before_draw(self, me: int, opp: int, deck: int) -> Value:
        """Value of the advised side ``me`` (playing), about to draw, against ``opp``: the
        average over the draws of its best turn end (higher equity, then higher p_win)."""
        table = self._table(self._my_before, opp, deck)
        found = table.get(me)
        if found is not None:
            return found
        self._new_state()
        lists = self._my_after
        opp_stands = self.opp.standing[opp]
        standing = self.me.standing
        if opp_stands:
            memo, solve = self._my_before, self.my_before_draw
        else:
            memo, solve = self._opp_before, self.opp_before_draw
        choices = self._my_choice
        draws = self._draws[deck] or self._decks.make(deck)
        # with fixed draw probabilities every draw leaves the same deck: read the memos once
        same_deck = self.fixed is not None
        chosen = self._table(choices, opp, deck)
        known = self._table(memo, opp, deck)
        equity = p_win = 0.0
        for value, probability, rest in draws:
            listed = lists.get(me * 16 + value)
            if listed is None:
                listed = self._my_list(me, value)
            number, codes = listed
            if not same_deck:
                chosen = self._table(choices, opp, rest)
            best = chosen.get(number)
            if best is not None:
                equity += probability * best[0]
                p_win += probability * best[1]
                continue
            if not same_deck:
                known = self._table(memo, opp, rest)
            best_e, best_w = _LOSS
            for code in codes:
                if code < 0:
                    e, w = _LOSS if code == _BUSTS else _WIN
                elif opp_stands and standing[code]:
                    e, w = self._judge(code, opp)
                else:
                    e, w = known.get(code) or solve(code, opp, rest)
                if e > best_e + EPSILON or (e > best_e - EPSILON and w > best_w):
                    best_e, best_w = e, w
                    if e >= 1.0 - EPSILON:
                        break  # a certain win cannot be beaten
            chosen[number] = (best_e, best_w)
            equity += probability * best_e
            p_win += probability * best_w
        result = (equity, p_win)
        table[me] = result
        return result

    def after_my_turn(self, code: int, opp: int, deck: int) -> Value:
        """Value once the advised player's turn ended as ``code``, against ``opp``."""
        if code < 0:
            return _LOSS if code == _BUSTS else _WIN
        if self.opp.standing[opp]:
            if self.me.standing[code]:
                return self._judge(code, opp)
            return self.my_before_draw(code, opp, deck)
        return self.opp_before_draw(code, opp, deck)

    def opp_before_draw(self, me: int, opp: int, deck: int) -> Value:
        """Value for the advised side ``me`` when the opponent's side ``opp`` is to draw."""
        table = self._table(self._opp_before, opp, deck)
        found = table.get(me)
        if found is not None:
            return found
        self._new_state()
        mine = self.me
        theirs, they_stand = mine.totals[me], mine.standing[me]
        reply_key = (((opp << 12) | (theirs + 1024)) << 1) | they_stand  # totals within ±1,000
        replies = self._replies.get(reply_key)
        if replies is None:
            replies = self._replies[reply_key] = tuple(
                self._opp_reply(opp, value, theirs, they_stand) if value else 0
                for value in range(11)
            )
        standing = self.opp.standing
        if they_stand:
            memo, solve = self._opp_before, self.opp_before_draw
        else:
            memo, solve = self._my_before, self.my_before_draw
        equity = p_win = 0.0
        for value, probability, rest in self._draws[deck] or self._decks.make(deck):
            code = replies[value]
            if code < 0:
                e, w = _WIN if code == _BUSTS else _LOSS
            elif they_stand and standing[code]:
                e, w = self._judge(me, code)
            else:
                known = memo.get((code << 28) | rest)
                e, w = (known and known.get(me)) or solve(me, code, rest)
            equity += probability * e
            p_win += probability * w
        result = (equity, p_win)
        table[me] = result
        return result

    def trim(self) -> None:
        """Forget the solved positions once more than :data:`MEMO_LIMIT` were added since the
        last trim (between the hands of an average, whose positions rarely recur): the memory
        stays bounded, the numbers do not change."""
        if self.states - self._trimmed_at > MEMO_LIMIT:
            self._my_before.clear()
            self._opp_before.clear()
            self._my_choice.clear()
            # the opponent's sides too (each hand of an average has its own): the next hand
            # interns its side again
            self._opp_turns.clear()
            self._replies.clear()
            self.opp.forget_sides()
            self._trimmed_at = self.states

    def _new_state(self) -> None:
        self.states += 1
        if self.budget is not None and self.states > self.budget:
            raise SolverTooLarge("the exact solve exceeds its state budget")
        if not self.states & PROGRESS_MASK:
            self._check_search()

    def _check_search(self) -> None:
        """Every 16,384 positions: report progress, and refuse a single search that would hold
        more than :data:`SEARCH_LIMIT` positions (the memo can only be trimmed between two)."""
        if self.progress is not None:
            self.progress(self.states)
        if self.states - self._trimmed_at > SEARCH_LIMIT:
            raise SolverTooLarge(
                f"the best reply to the KOTOR rule needs more than {SEARCH_LIMIT:,} positions in "
                "memory here (over 1 GB); ask about --opponent optimal, or a smaller hand"
            )

    # -- from engine sides -------------------------------------------------------------------------

    def playing_side(self, seat: _Seat, side: Side, hand: Sequence[Card]) -> _Playing:
        """The compact form of an engine side still playing, holding ``hand``."""
        hid = seat.hand(hand)
        return compact_side(self.ruleset, side, hid, seat.facts[hid])

    def standing_side(self, side: Side) -> _Standing:
        """The compact form of an engine side that stands."""
        if self._any_tiebreak:
            tiebreak = any(card.placed is Placed.TIEBREAKER for card in side.table)
        else:
            tiebreak = bool(side.table) and side.table[-1].placed is Placed.TIEBREAKER
        return (side.total, tiebreak)


# ------------------------------------------------------------------------------------------------
# Hidden hands: the orders that matter.


_LOWERING = frozenset({CardKind.MINUS, CardKind.FLIP_2_4, CardKind.FLIP_3_6})
"""Fixed cards that can bring a total down (a plus card and a Double never do)."""


def _may_tie(a: Card, b: Card) -> bool:
    """Whether the order of distinct cards ``a`` and ``b`` in the opponent's hand can change
    what happens in the set.

    The rule picks by order only between cards that reach the same best-up total: the first
    fixed card, or the last ± card (a fixed card beats a ± card in either order). Then the
    order matters only if the two cards leave different sets: two ± cards sharing a value (a
    Tiebreaker decides ties; otherwise at a rescue from over 20 the opponent plays on with
    different cards), or two fixed cards that can both rescue, that is bring a total down (two
    flips, a flip and a minus card). A play that is not a rescue reaches 18 or more and the
    rule then stands, so which of two fixed cards made the total does not matter: a Double or
    a plus card never needs ordering.
    """
    if a == b:
        return False
    flexible = (CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2, CardKind.TIEBREAKER)
    if (a.kind in flexible) != (b.kind in flexible):
        return False  # a fixed card always wins over a ± card, in either order
    if a.kind in flexible:
        return bool(set(a.values) & set(b.values))
    return a.kind in _LOWERING and b.kind in _LOWERING and a.kind is not b.kind


def hand_orders(hand: Sequence[Card]) -> list[tuple[Card, ...]]:
    """The orders of ``hand`` that can make the KOTOR rule choose differently, each standing for
    an equal share of all its orders (a hand is dealt in a uniformly random order).

    Only the relative order of cards that may tie (:func:`_may_tie`) matters, and between a
    fixed and a ± card never; so the fixed and the ± such cards are each put in every distinct
    order, the other cards after them in a fixed order.
    """
    cards = sorted(hand, key=str)
    tying = [card for card in cards if any(_may_tie(card, other) for other in cards)]
    rest = list(cards)
    for card in tying:
        rest.remove(card)
    flexible = (CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2, CardKind.TIEBREAKER)
    fixed = [card for card in tying if card.kind not in flexible]
    signed = [card for card in tying if card.kind in flexible]
    return [
        (*first, *second, *rest)
        for first in dict.fromkeys(itertools.permutations(fixed))
        for second in dict.fromkeys(itertools.permutations(signed))
    ]


# ------------------------------------------------------------------------------------------------
# The entry point (advice.solve_question dispatches here for ``opponent="kotor"``).

EXACT_PROBE_STATES = 20_000
"""Both players still drawing from a finite deck: the exact without-replacement solve is tried
only when the solve with fixed draw probabilities needed at most this many positions..."""
EXACT_BUDGET_FACTOR = 40
"""...and it may then use at most this many times as many positions."""


def solve_kotor_question(question: Question, options: SolveOptions) -> Advice:
    """Every move of the player who has just drawn ``question.drawn``, valued against the KOTOR
    I rule (docs/rules.md §7) playing the other side; a hidden hand is averaged exactly over its
    possible hands (and their orders that matter)."""
    state = question.state
    me_side, other_side = state.sides[state.turn], state.sides[1 - state.turn]
    if not me_side.hand_known:
        raise PazaakError("the hand of the player to move must be known")
    rules = state.ruleset
    their_sets = state.set_winners.count(state.turn)
    other_hands = weighted_opponent_hands(other_side, options, rules)
    deck_after = deck_after_draw(state, question.drawn)
    fresh = deck_after if any(deck_after) else FULL_DECK

    def solve(fixed: Sequence[int] | None, budget: int | None) -> tuple[list[_Row], int]:
        solver = KotorReplySolver(rules, their_sets, fixed_draws=fixed, budget=budget)
        solver.progress = options.positions
        return _average(question, solver, other_hands, deck_after, options), solver.states

    fixed = False
    if rules.main_deck is MainDeck.INFINITE:
        results, states = solve(FULL_DECK, None)
    elif options.exact or other_side.standing:
        try:
            results, states = solve(None, None if options.exact else options.budget)
        except SolverTooLarge:
            if options.exact:  # (the exact deck or a refusal, never fixed draws)
                raise SolverTooLarge(
                    f"this set drawn without replacement from its exact {sum(fresh)}-card deck "
                    f"needs more than {SEARCH_LIMIT:,} positions in memory against the KOTOR "
                    f"rule (over {SEARCH_LIMIT * STATE_BYTES / 1e9:.1f} GB): drop --exact for "
                    "the answer that draws it with the fixed odds of the cards left"
                ) from None
            fixed = True
            results, states = solve(fresh, None)
    else:
        # Both still play: solve with fixed draw probabilities first (fast); when that search
        # was small, the exact one is affordable too and replaces it.
        fixed = True
        results, states = solve(fresh, None)
        if states <= EXACT_PROBE_STATES:
            try:
                results, states = solve(None, EXACT_BUDGET_FACTOR * max(states, 1000))
                fixed = False
            except SolverTooLarge:
                pass
    return Advice(
        results=ranked_set_results(results),
        model=_describe(state, other_hands, fixed, deck_after, sampled=options.max_hands),
        hands_averaged=len(other_hands),
        fixed_probabilities=fixed,
        states=states,
    )


_Row = tuple[Move, Outcome]


def _average(
    question: Question,
    solver: KotorReplySolver,
    other_hands: list[tuple[tuple[Card, ...], int]],
    deck_after: tuple[int, ...],
    options: SolveOptions,
) -> list[_Row]:
    """Every move's outcome, averaged over the opponent's possible hands and orders."""
    other_side = question.state.sides[1 - question.state.turn]
    moves = _root_moves(question, solver)
    deck = solver.deck_id(deck_after)
    total_ways = sum(ways for _, ways in other_hands)
    sums = [[0.0, 0.0] for _ in moves]
    for done, (hand, ways) in enumerate(other_hands):
        opps = _opponent_sides(solver, other_side, hand)
        weight = ways / total_ways / len(opps)
        for opp in opps:
            for index, (_, code) in enumerate(moves):
                equity, p_win = solver.after_my_turn(code, opp, deck)
                sums[index][0] += weight * equity
                sums[index][1] += weight * p_win
        solver.trim()
        if options.progress is not None:
            options.progress(done + 1, len(other_hands))
    return [
        (move, Outcome.from_value((s[0], s[1]))) for (move, _), s in zip(moves, sums, strict=True)
    ]


def _root_moves(question: Question, solver: KotorReplySolver) -> list[tuple[Move, Any]]:
    """The mover's moves at the question's root, each with the end of turn it leads to."""
    state = question.state
    me_side = state.sides[state.turn]
    my_hand = tuple(card for card in me_side.hand if card is not None)
    me = solver.playing_side(solver.me, me_side, my_hand)
    if not state.played:
        me = solver.me.add(me, question.drawn, me[2])
    tiebreaker_last = state.played and me_side.table[-1].placed is Placed.TIEBREAKER
    return solver.root_moves(
        me, question.drawn, state.played, tiebreaker_last, len(me_side.table) + (not state.played)
    )


def _opponent_sides(
    solver: KotorReplySolver, other_side: Side, hand: tuple[Card, ...]
) -> list[Any]:
    """The rule's side for one possible hand: one per order of its cards that changes the
    rule's choices when the hand is hidden (each as likely), the hand as given when known."""
    if other_side.standing:
        return [solver.opp.side(solver.standing_side(other_side))]
    hidden = not other_side.hand_known
    orders = hand_orders(hand) if hidden else [hand]
    return [solver.opp.side(solver.playing_side(solver.opp, other_side, h)) for h in orders]


class KotorSetHands:
    """The set answer against the KOTOR I rule, one possible opponent hand at a time (as
    :class:`~pazaak_cli.solve.solver.SetHands` is against an optimal opponent): one solver for every
    hand asked for, fixed draw probabilities on a finite deck, the hands shared out among the
    cores as :func:`~pazaak_cli.solve.solver.solve_dealt` deals them."""

    def __init__(
        self,
        question: Question,
        options: SolveOptions,
        other_hands: list[tuple[tuple[Card, ...], int]],
    ) -> None:
        state = question.state
        rules = state.ruleset
        deck_after = deck_after_draw(state, question.drawn)
        fresh = deck_after if any(deck_after) else FULL_DECK
        their_sets = state.set_winners.count(state.turn)
        self.solver = KotorReplySolver(rules, their_sets, fixed_draws=fresh)
        self.processes = hand_processes(other_hands)
        self._positions = options.positions
        self._other_side = state.sides[1 - state.turn]
        self._hands = other_hands
        moves = _root_moves(question, self.solver)
        self.moves = [move for move, _ in moves]
        self._codes = [code for _, code in moves]
        self._deck = self.solver.deck_id(deck_after)
        self.fixed_probabilities = rules.main_deck is not MainDeck.INFINITE
        self.model = _describe(
            state, other_hands, self.fixed_probabilities, deck_after, sampled=None
        )

    @property
    def states(self) -> int:
        return self.solver.states

    def solve(
        self,
        indices: Sequence[int],
        deadline: float | None,
        solved: Callable[[int], None] | None = None,
    ) -> HandsSolved:
        """The rows of the hands ``indices`` solved before ``deadline``, in their order (with
        several cores, shared out as :func:`~pazaak_cli.solve.solver.solve_dealt` deals them)."""
        here = partial(self._rows, deadline=deadline, positions=self._positions, solved=solved)
        there = partial(self._rows, deadline=deadline, positions=None)
        return solve_dealt(indices, here, there, self.processes)

    def _rows(
        self,
        indices: Iterable[int],
        *,
        deadline: float | None,
        positions: Callable[[int], None] | None,
        solved: Callable[[int], None] | None = None,
    ) -> HandsSolved:
        """The rows of as many of ``indices`` as are solved before ``deadline`` (or Ctrl-C)."""
        self.solver.progress = deadline_watch(deadline, positions)
        try:
            return rows_in_order(indices, deadline, self._row, solved)
        finally:
            self.solver.progress = positions

    def _row(self, index: int) -> MoveRow:
        """Every move's values if the opponent holds hand ``index`` (its orders averaged)."""
        solver = self.solver
        opps = _opponent_sides(solver, self._other_side, self._hands[index][0])
        sums = [[0.0, 0.0] for _ in self._codes]
        try:
            for opp in opps:
                for row, code in zip(sums, self._codes, strict=True):
                    equity, p_win = solver.after_my_turn(code, opp, self._deck)
                    row[0] += equity / len(opps)
                    row[1] += p_win / len(opps)
        finally:
            solver.trim()
        return tuple(set_row((equity, p_win)) for equity, p_win in sums)


def _describe(
    state: MatchState,
    other_hands: list[tuple[tuple[Card, ...], int]],
    fixed: bool,
    deck_after: tuple[int, ...],
    *,
    sampled: int | None,
) -> str:
    rules = state.ruleset
    other = state.sides[1 - state.turn]
    sets = state.set_winners.count(state.turn)
    who = f"opponent plays the KOTOR I rule (docs/rules.md §7), seeing you have won {sets} set"
    who += "" if sets == 1 else "s"
    if other.standing:
        who += f"; it stood on {other.total}"
    elif other.hand_known:
        who += "; its hand known, in the order given"
    else:
        kind = "sampled" if sampled is not None else "possible"
        who += f"; its {len(other.hand)} hidden cards averaged over {len(other_hands)} {kind} hands"
        orders = sum(len(hand_orders(hand)) for hand, _ in other_hands)
        if orders > len(other_hands):  # gold cards whose order the rule reads
            who += f" ({orders} with the orders that change its choices)"
    if rules.main_deck is MainDeck.INFINITE:
        deck = "infinite deck (uniform 1..10)"
    elif fixed:
        deck = "deck approximated by fixed draw probabilities (exact solve too large; --exact)"
    else:
        deck = f"exact {sum(deck_after) or 40}-card deck, drawn without replacement"
    return f"{rules.spec}: {who}; {deck}"


__all__ = ["KotorReplySolver", "hand_orders", "solve_kotor_question"]
