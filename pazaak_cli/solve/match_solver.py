"""The exact match solver: the probability of winning the MATCH for every move.

A player wants the match, not the set in front of him: the four hand cards are dealt once for the
whole match, a card played now is gone for every later set, and the score changes what a set is
worth. This solver values a position by the probability that the player to move wins the match
when both sides play to win it (docs/advise.md, "Match advice").

The model:

* Values are the probability that **player 1** (seat 0) wins the match; seat 0 maximises it,
  seat 1 minimises it (the match is zero-sum: it always ends, since a set ties with probability
  below 1).
* The set in progress is solved on the set solver's compact sides (:mod:`pazaak_cli.solve.solver`),
  except that a side that stands, busts or wins by its ninth card keeps its hand: what is left in
  hand is what the later sets are played with.
* A set's end leads to the start of the next one: a *match state* ``(sets won by each, hand of
  each)`` and who opens it (the ruleset's first-player rule). Its value is the value of a set
  started from empty tables. Later sets draw with the probabilities of a full main deck (the
  infinite-deck model): the deck a later set will meet depends on every draw before it, and
  that model is what keeps the match solvable; the set in progress is solved on the real deck.
* A set that ties with no hand card played leads back to the same match state: its value ``x``
  is a fixed point ``x = F(x)`` of the set solved with the tie worth ``x``. ``F`` is piecewise
  linear with slope below 1: Newton's method (:func:`solve_fixed_point`) lands on it exactly
  once a step stays on the linear piece it started from, which the native solver can tell
  without solving again (about 1.8 solves of that set's card-free positions a match state); it
  stops at :data:`FIXED_POINT_TOLERANCE`.
* Positions are memoised per *group* ``(context, hand of each)``, where the context is the score,
  the opener of the set where the first-player rule reads it, and the deck model. Only the
  positions of the group whose value is being iterated are solved again; every other group is
  final once solved, and is shared by every later question to the same solver (every move, every
  hidden hand averaged, every decision of a ``play`` or ``simulate`` match).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK, Side
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import FirstPlayer, NineCards, Ruleset
from pazaak_cli.runtime.executors import resident_bytes
from pazaak_cli.solve.answer_types import BEST_TOLERANCE, Move, SolverTooLarge, clean_probability
from pazaak_cli.solve.match_pipeline import Peer, PeerLost, Pipeline
from pazaak_cli.solve.solver import (
    BUST_END,
    FREE_END,
    NINTH_BUST_END,
    NINTH_WIN_END,
    PROGRESS_MASK,
    DeckModels,
    SetSolver,
    compact_side,
    place_card,
    root_moves,
    turn_end,
)
from pazaak_cli.solve.solver import standing_side as engine_standing

FIXED_POINT_TOLERANCE = 1e-13
"""A match state's value is accepted once ``|F(x) - x|`` is at most this."""

EXACT_MEMORY_BYTES = 1_800_000_000
"""The memory this process may hold while a set in progress is solved on its exact deck (drawn
without replacement): such a solve may add at most what is left of this over the process's
resident memory when it starts, counted at :data:`EXACT_POSITION_BYTES` a position, whatever
budget it was given (``None`` included: ``--exact``), and is refused past that
(:func:`exact_deck_refusal`) instead of growing (the KOTOR match solver counts its own figure).
The C match core needs no such cap: its positions drawn exactly are a cache of a fixed size
(``NativeMatchSolver``)."""

EXACT_POSITION_BYTES = 250
"""Bytes a position of the pure-Python match solver takes on an exact deck, measured: 170 to 190
(a process's resident memory over the positions it held, sampled every 100 MB through the 5.2
million positions of a kotor1 first move with one card a side, 1.0 GB at the end), the rest
for a table's growth (a dict doubles)."""

PLAYING, STANDING, BUST, NINE_WIN = range(4)
"""What a side id stands for: still playing, standing, busted, won by its ninth card."""

_OPENER_FREE = -1
"""The context's opener field when the first-player rule does not read the current opener."""

_LATER = 0
"""The deck model of later sets: full-deck probabilities. The set in progress gets a model of
its own for each deck it is asked about (ids 1, 2, ...: its deck's composition, drawn with fixed
probabilities or exactly without replacement)."""

_RANDOM = 2
"""An opener 'spec': a coin decides (the specs 0 and 1 name the seat that opens)."""


def _landed(value: float, won: float, lost: float) -> float | None:
    """Where ``value`` lies between losing (0) and winning (1) its set, the share the next
    fixed point of the same hands starts from; ``None`` where the two barely differ."""
    return (value - lost) / (won - lost) if won - lost > 1e-9 else None


def _write_share(
    writes: dict[tuple[int, int, int], tuple[int, float]],
    key: tuple[int, int, int],
    match: MatchKey,
    landed: float,
) -> None:
    """Keep ``landed`` as the share of ``key``'s hands unless a score of the same round later
    in ``prepare_all``'s order (fewer sets won by seat 0) wrote one."""
    written = writes.get(key)
    if written is None or written[0] <= -match[0]:
        writes[key] = (-match[0], landed)


class _NotKnown(Exception):
    """A match state's value asked for while the solver only reads (see ``rebuild_starts``)."""


_NO_ODDS = (math.nan, math.nan, math.nan)
"""The set odds of a move solved without them (:meth:`MatchSolver.solve_moves`, ``odds=False``)."""


Pair = tuple[float, float]
"""(value, slope): P(seat 0 wins the match), and its derivative in the value of the match state
whose fixed point is being iterated (zero outside that state's card-free positions)."""
_WON: Pair = (1.0, 0.0)
_LOST: Pair = (0.0, 0.0)
_NO_PAIR: Pair = (-1.0, 0.0)

MatchKey = tuple[int, int, int, int]
"""(sets won by seat 0, sets won by seat 1, hand id of seat 0, hand id of seat 1)."""


def exact_room(position_bytes: int) -> tuple[int, int]:
    """(How many positions a solve on an exact deck may add now, this process's resident memory
    in bytes): what is left of :data:`EXACT_MEMORY_BYTES` over that memory, at
    ``position_bytes`` a position (0 when nothing is left)."""
    resident = resident_bytes()
    return max(0, (EXACT_MEMORY_BYTES - resident) // position_bytes), resident


def exact_deck_refusal(
    deck: Sequence[int], room: int, resident: int, position_bytes: int
) -> SolverTooLarge:
    """The refusal of a set in progress on its exact deck (counts of 1 to 10 left) that needs
    more than the ``room`` positions :func:`exact_room` gave it (when this process held
    ``resident`` bytes), with the alternative."""
    return SolverTooLarge(
        f"this set drawn without replacement from its exact {sum(deck)}-card deck needs "
        f"more than {room:,} positions in memory (over {room * position_bytes / 1e9:.1f} GB "
        f"beside the {resident / 1e9:.1f} GB held, where the bound is "
        f"{EXACT_MEMORY_BYTES / 1e9:.1f} GB): drop --exact for the answer that draws it with "
        "the fixed odds of the cards left"
    )


@contextlib.contextmanager
def capped_search(
    capped: tuple[int, int] | None, deck: Sequence[int] | None, position_bytes: int
) -> Iterator[None]:
    """Around a search of the set in progress: stopped at the exact deck's memory cap
    (``capped``: the room :func:`exact_room` gave it and the resident memory then; ``None``:
    no cap), it is refused with the reason (:func:`exact_deck_refusal`); stopped at a budget
    the caller gave, it is raised on as it is (the caller falls back to the deck's odds). What
    every match solver's ``solve_moves`` wraps its search in."""
    try:
        yield
    except SolverTooLarge:
        if capped is None:
            raise
        assert deck is not None
        room, resident = capped
        raise exact_deck_refusal(deck, room, resident, position_bytes) from None


def standing_side(side: Any, tiebreaker_last: bool, *, any_tiebreak: bool) -> Any:
    """The interned form ``("S", total, tiebreak, hand)`` of a playing ``side`` that stands
    (``tiebreaker_last``: the card it stands on is a Tiebreaker played as its last card)."""
    return ("S", side[0], side[5] or (tiebreaker_last and not any_tiebreak), side[2])


def end_codes(
    side: Any,
    tiebreaker_last: bool,
    full: bool,
    ruleset: Ruleset,
    intern: Callable[[Any], int],
    any_tiebreak: bool,
) -> tuple[int, ...]:
    """The side ids of the ways a turn can end once the playing ``side`` holds its last card of
    the turn (``full``: the table's last slot), as :func:`turn_end` says, interned by
    ``intern``: standing ``("S", total, tiebreak, hand)``, busted ``("B", hand)``, won by its
    ninth card ``("W", hand)``, or still playing (the side itself, ending the turn)."""
    kind = turn_end(side[0], full, ruleset.target, ruleset.nine_cards is NineCards.WIN)
    if kind == FREE_END:
        ends = intern(side)  # (interned before the standing side: the ids follow this order)
        return (ends, intern(standing_side(side, tiebreaker_last, any_tiebreak=any_tiebreak)))
    if kind in (BUST_END, NINTH_BUST_END):
        return (intern(("B", side[2])),)
    if kind == NINTH_WIN_END:
        return (intern(("W", side[2])),)
    return (intern(standing_side(side, tiebreaker_last, any_tiebreak=any_tiebreak)),)


@dataclass(frozen=True)
class MatchMove:
    """One root move: its probability of winning the match for the player to move, and the odds
    of the current set along the same line (both sides playing for the match)."""

    move: Move
    match_win: float
    set_win: float
    set_tie: float
    set_loss: float


class MatchStates:
    """What both match solvers (against an optimal opponent, :class:`MatchSolver`, and against
    a rule, :class:`~pazaak_cli.solve.match_kotor.KotorMatchSolver`) keep of the match above
    its sets: the contexts a set is played in (the score, the opener where the first-player
    rule reads it, the deck model), who opens the next set, and the fixed point of a match
    state's value (a tied set replays it). Each solver's own recursion values the sets."""

    def _init_match_states(self, ruleset: Ruleset, player1: int) -> None:
        """The match-level state; ``player1``: the spec of the seat that opens every set under
        :attr:`FirstPlayer.PLAYER1`."""
        self._rule = ruleset.first_player
        self._reads_opener = self._rule in (FirstPlayer.ALTERNATE, FirstPlayer.LOSER)
        self._sets_to_win = ruleset.sets_to_win
        self._player1 = player1
        self._contexts: dict[tuple[int, int, int, int], int] = {}
        self._context_info: list[tuple[int, int, int, int]] = []
        self._read_unknown = False
        self.fixed_point_solves = 0
        """How many times the card-free positions of a match state were solved (statistics)."""
        self.fixed_point_shortcuts = 0
        """Fixed points found by a Newton step inside the interval where F is linear."""

    def _context(self, s0: int, s1: int, opener: int, model: int) -> int:
        """The id of the context (scores, opener, deck model); a new one gets its tables
        (:meth:`_new_context`)."""
        key = (s0, s1, opener if self._reads_opener else _OPENER_FREE, model)
        found = self._contexts.get(key)
        if found is None:
            found = self._contexts[key] = len(self._context_info)
            self._context_info.append(key)
            self._new_context(model)
        return found

    _iterating: dict[tuple[MatchKey, int], Pair]
    """The match states whose fixed point is being iterated, with the value tried."""

    def _iterated(self, match: MatchKey, spec: int) -> Pair | None:
        """The value tried for ``match`` (``spec`` opening) if its fixed point is being
        iterated (then the evaluation under way read it), else None."""
        found = self._iterating.get((match, spec))
        if found is not None:
            self._read_unknown = True
        return found

    def _new_context(self, model: int) -> None:
        """The tables a solver keeps per context, made for a new one (none here)."""

    _entries: dict[tuple[MatchKey, int], float]
    """The match-state values found, by (match state, opener spec)."""

    def add_entries(self, entries: Iterable[tuple[tuple[MatchKey, int], float]]) -> None:
        """Values solved elsewhere (the disk cache's, another process's), their hands interned
        by the solver's own tables: ((s0, s1, hand 0, hand 1), spec) and the value, each; a
        value already held stays."""
        setdefault = self._entries.setdefault
        for key, value in entries:
            setdefault(key, value)

    @property
    def entry_count(self) -> int:
        """How many match states' values are known."""
        return len(self._entries)

    def _peer_value(self, peer: Peer | None, match: MatchKey, spec: int) -> float | None:
        """The value of ``match`` for ``spec`` that another process solves (``peer``: the table
        its values come through, while two solve at once), kept once it is written; None: it is
        for this process to solve (no peer, not the peer's, or the peer gone)."""
        if peer is None or not peer.elsewhere(match):
            return None
        try:
            found = peer.value(match, spec)
        except PeerLost:
            peer.lost = True  # (solved here, then)
            return None
        if found is not None:
            self._entries[(match, spec)] = found
        return found

    _models: DeckModels

    def deck_model(self, deck: tuple[int, ...], exact: bool) -> int:
        """The id of the deck model of the set in progress drawing from ``deck``."""
        raise NotImplementedError

    def _set_deck(self, current_deck: tuple[int, ...] | None, exact: bool) -> tuple[int, int]:
        """The deck model and deck id of the set in progress (``None``: the later sets'
        full-deck odds)."""
        if current_deck is None:
            return _LATER, 0
        model = self.deck_model(current_deck, exact)
        return model, self._models[model].intern(current_deck)

    def _next_opener(self, winner: int | None, opener: int) -> int:
        """Who opens the set after one that ``opener`` opened and ``winner`` won (a spec)."""
        rule = self._rule
        if rule is FirstPlayer.PLAYER1:
            return self._player1
        if rule is FirstPlayer.RANDOM:
            return _RANDOM
        if rule is FirstPlayer.ALTERNATE:
            return 1 - opener
        return opener if winner is None else 1 - winner  # the loser opens

    def _fixed_point(
        self, evaluate: Callable[[float], Pair], guess: float = 0.5
    ) -> tuple[float, float]:
        """:func:`solve_fixed_point` of ``evaluate``, each evaluation telling whether it read
        the value iterated and, where the solver can say (:meth:`_evaluation`), on which
        interval around its x every choice it made stands."""
        reads_before = self._read_unknown

        def once(x: float) -> Evaluation:
            self._read_unknown = False
            (value, slope), interval = self._evaluation(evaluate, x)
            self.fixed_point_solves += 1
            return Evaluation(value, slope, self._read_unknown, interval)

        try:
            x, shift = solve_fixed_point(once, guess)
        finally:
            self._read_unknown = reads_before
        self.fixed_point_shortcuts += shift != 0.0
        return x, shift

    def _evaluation(
        self, evaluate: Callable[[float], Pair], x: float
    ) -> tuple[Pair, tuple[float, float] | None]:
        """``evaluate(x)``, and the offsets from x over which every choice it made stands, if
        known (none here)."""
        return evaluate(x), None


class MatchSolver(SetSolver, MatchStates):
    """Solves matches under one ruleset, remembering every position and match state it solved.

    It reuses the set solver's compact sides, hands and candidate lists (a subclass), with its
    own side kinds (a standing side keeps its hand) and its own memo (one table per group).
    """

    deck_codes = False
    """Whether a deck drawn exactly is named by its code (:class:`DeckCodes`, the C core's
    names) rather than interned."""

    def __init__(
        self,
        ruleset: Ruleset,
        *,
        max_states: int | None = None,
        later_blind: int | None = None,
        later_deck: Sequence[int] = FULL_DECK,
    ) -> None:
        if len(later_deck) != 10 or min(later_deck) < 0 or not any(later_deck):
            raise ValueError(
                f"a later deck is ten counts of the values 1 to 10, not all zero: {later_deck!r}"
            )
        super().__init__(ruleset, fixed_draws=later_deck, native=False)
        self.later_deck = tuple(later_deck)
        """The main deck every later set is drawn from, with its fixed odds (counts of 1 to
        10). The model is a full deck (uniform 1..10): which cards a later set meets depends
        on every draw before it. Another composition (the deck as it stands, say) measures how
        much that choice moves an answer (``benchmarks/bench_deck_model.py``)."""
        self.max_states = max_states
        self.after_step: Callable[[float], None] | None = None
        """Told, after each score (and in the native solver each block of a score) whose
        states :meth:`prepare_all` solved, the share of its scores done (a score's blocks
        counted by the groups they make): a long preparation's progress."""
        self._levels_done = 0
        self._levels_total = 0
        self.values_order_free = False
        """True: a converged state's card-free positions are dropped (solved again from its
        value when a state with more cards reads them) instead of moved along their slopes to
        its fixed point. Moved, they differ in the last bits from the same positions solved
        afresh, so a value's last bits depend on which states the solver solved before it;
        dropped, every value is a function of the state alone, whatever the order (``prepare``
        sets it, so that its values do not depend on how its work is cut up:
        :mod:`pazaak_cli.solve.prepare_plan`). It costs a tenth more time to ``prepare``, a
        third more to a cold 4 v 4 match answer (docs/benchmarks.md), so answers leave it off."""
        self.later_blind = later_blind
        """A seat whose hand the later sets take as empty, or None (the exact match). A player
        that cannot afford the later sets against every hand the opponent may hold (KOTOR II
        decks: hours of solving) values its own cards over the match against a card-less
        opponent: the match states it needs are then its sub-hands against the empty hand."""
        self._empty_hand = self.hands.intern(())
        self._init_match_states(ruleset, 0)
        self._kind: list[int] = []
        self._hand_of: list[int] = []
        self._groups: dict[int, dict[int, Pair]] = {}
        self._entries: dict[tuple[MatchKey, int], float] = {}
        self._iterating: dict[tuple[MatchKey, int], Pair] = {}
        self._models = DeckModels(self._decks, coded=self.deck_codes)
        """The deck models by id (see :data:`_LATER`)."""
        self._odds_memo: dict[tuple[int, int, int, int, int], tuple[float, float]] = {}
        self._decks.intern(self.later_deck)  # later sets: deck id 0, fixed probabilities
        self._positions = 0
        self._shares: dict[tuple[int, int, int], float] = {}
        """Per (hand, hand, opener spec): where the last fixed point of those hands lay between
        losing and winning its set, (x - lost) / (won - lost): the start of the next one."""
        self._share_moves: dict[tuple[MatchKey, int], float] = {}
        """Per match state and opener spec solved: how far its share moved from the last one of
        the same hands (the correction the next states' starts borrow, see :meth:`_guess`)."""
        self._reading_only = False
        """While set: a match state's value not known is not solved (:class:`_NotKnown`)."""
        self._share_base: dict[tuple[int, int, int], float] | None = None
        """While :meth:`prepare_all` solves a number of sets played: the shares as they were
        before it (its scores read none of each other's, whatever order they are solved in)."""
        self._share_writes: dict[tuple[int, int, int], tuple[int, float]] = {}
        """The shares those scores found, each with its place in prepare's order."""
        self._pipeline: Pipeline[Level] | None = None
        """While two processes share out the scores of a ``prepare_all`` (see
        :mod:`pazaak_cli.solve.match_pipeline`): where the other's values come from."""
        self._interned_from: set[int] = set()
        """The hands whose later sets' sides are all interned."""
        self._expanded: set[int] = set()
        """The sides whose candidate lists :meth:`_intern_later_sides` has made (or will, in
        the call under way; the native solver's core walks them, and keeps its own)."""
        self._complete: dict[tuple[int, int], set[tuple[int, int]]] = {}
        """Per score: the hand pairs found with every opener's value solved (a value is never
        dropped), which :meth:`prepare_all` need not look up again."""
        self._prepared: set[tuple[tuple[int, int], tuple[int, ...], tuple[int, ...]]] = set()
        """The (score, hands, hands) :meth:`prepare_all` has solved everything below."""
        self._kept_cards: dict[tuple[int, int], bool] = {}
        """(hand id, hand id): whether the first holds every card of the second."""

    # -- interning --------------------------------------------------------------------------------

    def side_id(self, side: Any) -> int:
        found = self._side_ids.get(side)
        if found is None:
            found = len(self._sides)
            self._side_ids[side] = found
            self._sides.append(side)
            kind = side[0] if isinstance(side[0], str) else None
            if kind is None:
                self._kind.append(PLAYING)
                self._hand_of.append(side[2])
                self._standing.append(False)
            else:
                self._kind.append({"S": STANDING, "B": BUST, "W": NINE_WIN}[kind])
                self._hand_of.append(side[-1])
                self._standing.append(kind == "S")
        return found

    @property
    def states(self) -> int:
        """Positions solved so far (before and after a draw), over every group."""
        return self._positions

    def bound_memo(self) -> None:
        """Empty a bounded memo that is full (between searches only); the match-state values
        and the sides stay."""
        if self.max_states is not None and self._positions >= self.max_states:
            self.forget_positions()
            self._clears += 1

    def forget_positions(self) -> None:
        """Forget every position solved (between searches only); the match-state values and
        the sides stay."""
        self._groups.clear()
        self._odds_memo.clear()
        self._models.forget()
        self._positions = 0

    def blind_to(self, seat: int | None) -> None:
        """Make the later sets blind to ``seat`` (see :attr:`later_blind`; None: the exact
        match), between searches. The positions are forgotten if it changes (their values read
        the later sets); the match-state values stay, each true whatever the model: a blind
        model solves only states where that seat's hand is already empty. So one solver serves
        a player that sits in either seat in turn, with one memo."""
        if seat != self.later_blind:
            self.forget_positions()
            self.later_blind = seat

    # -- sides ------------------------------------------------------------------------------------

    def _stands(self, side: Any, tiebreaker_last: bool) -> Any:
        return standing_side(side, tiebreaker_last, any_tiebreak=self._any_tiebreak)

    def _undominated(self, codes: tuple[int, ...]) -> tuple[int, ...]:
        """``codes`` less every stand another stand of the list dominates: one on a total as
        high (with a Tiebreaker if this one has it) that keeps every card this one keeps. Its
        set ends at least as well against every way the other side can go on, and a match is
        worth at least as much a set won than tied, tied than lost, and holding a card more
        (it need never be played): the best of the list is found without the other's value."""
        sides: Sequence[Any] = self._sides  # (a stand is ("S", total, tiebreak, hand))
        standing, hand_of = self._standing, self._hand_of
        stands = [code for code in codes if code >= 0 and standing[code]]
        if len(stands) < 2:
            return codes
        dominated = {
            code
            for code in stands
            for other in stands
            if other != code
            and sides[other][1:3] >= sides[code][1:3]
            and self._keeps_all(hand_of[other], hand_of[code])
        }
        return tuple(code for code in codes if code not in dominated) if dominated else codes

    def _keeps_all(self, hand: int, sub: int) -> bool:
        """Whether hand id ``hand`` holds every card of hand id ``sub``."""
        found = self._kept_cards.get((hand, sub))
        if found is None:
            found = self._kept_cards[hand, sub] = sub in self.sub_hands(hand)
        return found

    def _end_codes(self, side: Any, tiebreaker_last: bool, full: bool) -> tuple[int, ...]:
        return end_codes(
            side, tiebreaker_last, full, self.ruleset, self.side_id, self._any_tiebreak
        )

    # -- the recursion inside a set ----------------------------------------------------------------

    def _group(self, context: int, a: int, b: int) -> dict[int, Pair]:
        key = (((context << 24) | self._hand_of[a]) << 24) | self._hand_of[b]
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = {}
        return group

    def _draws_of(self, context: int, deck: int) -> tuple[tuple[int, float, int], ...]:
        return self._models[self._context_info[context][3]].draws(deck)

    def deck_model(self, deck: tuple[int, ...], exact: bool) -> int:
        """The id of the model of a set in progress on ``deck``: its composition drawn without
        replacement (``exact``) or with fixed probabilities (see :class:`DeckModels`)."""
        return self._models.model(deck, exact)

    def value_before_draw(self, context: int, mover: int, a: int, b: int, deck: int) -> Pair:
        """(P(seat 0 wins the match), its slope in the value being iterated): seat ``mover`` is
        about to draw; ``a`` and ``b`` are the side ids of seats 0 and 1."""
        group = self._group(context, a, b)
        key = (((((a << 32) | b) << 24) | deck) << 2) | mover
        found = group.get(key)
        if found is not None:
            return found
        if self.budget is not None and self._positions >= self.budget:
            raise SolverTooLarge("the exact solve exceeds its state budget")
        side = a if mover == 0 else b
        after = self._after
        value = slope = 0.0
        for drawn, probability, rest in self._draws_of(context, deck):
            candidates = after.get((side, drawn))
            if candidates is None:
                candidates = self._candidate_list(side, drawn)
            v, d = self._value_after_draw(context, mover, candidates, a, b, rest)
            value += probability * v
            slope += probability * d
        result = (value, slope)
        group[key] = result
        self._positions += 1
        if self.progress is not None and not self._positions & PROGRESS_MASK:
            self.progress(self._positions)
        return result

    def _value_after_draw(
        self, context: int, mover: int, candidates: int, a: int, b: int, deck: int
    ) -> Pair:
        """The mover's best choice among the candidate ends of his turn (the first of equal
        values, in the candidate list's order)."""
        group = self._group(context, a, b)
        other = b if mover == 0 else a
        key = (((((candidates << 32) | other) << 24) | deck) << 2) | 2 | mover
        found = group.get(key)
        if found is not None:
            return found
        end = self._end
        best = _NO_PAIR
        if mover == 0:
            for code in self._candidates[candidates]:
                pair = end(context, 0, code, other, deck)
                if pair[0] > best[0]:
                    best = pair
                    if best[0] >= 1.0:
                        break
        else:
            best = (2.0, 0.0)
            for code in self._candidates[candidates]:
                pair = end(context, 1, code, other, deck)
                if pair[0] < best[0]:
                    best = pair
                    if best[0] <= 0.0:
                        break
        group[key] = best
        self._positions += 1
        return best

    def value_of_end(self, context: int, mover: int, code: int, other: int, deck: int) -> float:
        """P(seat 0 wins the match) once seat ``mover`` ends its turn as side ``code``, against
        the other seat's side ``other``."""
        return self._end(context, mover, code, other, deck)[0]

    def _end(self, context: int, mover: int, code: int, other: int, deck: int) -> Pair:
        kind = self._kind[code]
        if kind == PLAYING or (kind == STANDING and not self._standing[other]):
            a, b = (code, other) if mover == 0 else (other, code)
            if self._standing[other]:
                return self.value_before_draw(context, mover, a, b, deck)
            return self.value_before_draw(context, 1 - mover, a, b, deck)
        hands = (self._hand_of[code], self._hand_of[other])
        if mover == 1:
            hands = (hands[1], hands[0])
        if kind == BUST:
            return self._set_over(context, 1 - mover, hands)
        if kind == NINE_WIN:
            return self._set_over(context, mover, hands)
        mine: Any = self._sides[code]
        theirs: Any = self._sides[other]
        if mine[1] != theirs[1]:
            winner = mover if mine[1] > theirs[1] else 1 - mover
        elif mine[2] != theirs[2]:
            winner = mover if mine[2] else 1 - mover
        else:
            return self._set_over(context, None, hands)
        return self._set_over(context, winner, hands)

    # -- the match: from one set to the next ------------------------------------------------------

    def _set_over(self, context: int, winner: int | None, hands: tuple[int, int]) -> Pair:
        """The value once a set of ``context`` ends (``winner`` None: a tie) with ``hands``
        left: the start of the next set, or the end of the match."""
        s0, s1, opener, _ = self._context_info[context]
        if winner == 0:
            s0 += 1
            if s0 >= self._sets_to_win:
                return _WON
        elif winner == 1:
            s1 += 1
            if s1 >= self._sets_to_win:
                return _LOST
        h0, h1 = hands
        if self.later_blind == 0:
            h0 = self._empty_hand
        elif self.later_blind == 1:
            h1 = self._empty_hand
        match = (s0, s1, h0, h1)
        spec = self._next_opener(winner, opener)
        found = self._iterated(match, spec)
        if found is not None:
            return found
        return (self.entry(match, spec), 0.0)

    def entry(self, match: MatchKey, spec: int) -> float:
        """P(seat 0 wins the match) when a set starts in match state ``match`` and ``spec`` says
        who opens it (a seat, or a coin)."""
        found = self._entries.get((match, spec))
        if found is None and self._reading_only:
            raise _NotKnown
        if found is None:
            found = self._peer_value(self._pipeline, match, spec)
        return self._solve_entry(match, spec) if found is None else found

    def _root(self, match: MatchKey, opener: int) -> Pair:
        """The value of a set started from empty tables, ``opener`` drawing first."""
        s0, s1, h0, h1 = match
        context = self._context(s0, s1, opener, _LATER)
        a = self.side_id((0, 0, h0, 0, 0, False))
        b = self.side_id((0, 0, h1, 0, 0, False))
        return self.value_before_draw(context, opener, a, b, 0)

    def _forget(self, match: MatchKey) -> None:
        """Drop the positions whose value depends on ``match``'s value being iterated: its own
        card-free groups, for every opener."""
        s0, s1, h0, h1 = match
        for opener in (_OPENER_FREE, 0, 1):
            context = self._contexts.get((s0, s1, opener, _LATER))
            if context is not None:
                group = self._groups.pop((((context << 24) | h0) << 24) | h1, None)
                if group is not None:
                    self._positions -= len(group)

    def _settle(self, match: MatchKey, shift: float = 0.0) -> None:
        """The value of ``match`` is known: its card-free positions keep their values (moved
        by ``shift`` times their slopes: the fixed point lies that far from the value they were
        computed with, on the linear piece they hold on), and their slopes (in a value no longer
        iterated) become 0, as for every final position. Where the values must not depend on
        the order they are solved in (:attr:`values_order_free`) they are dropped instead."""
        if self.values_order_free:
            self._forget(match)
            return
        s0, s1, h0, h1 = match
        for opener in (_OPENER_FREE, 0, 1):
            context = self._contexts.get((s0, s1, opener, _LATER))
            if context is not None:
                group = self._groups.get((((context << 24) | h0) << 24) | h1)
                if group:
                    for key, (value, slope) in group.items():
                        group[key] = (value + slope * shift, 0.0)

    def _solve_entry(self, match: MatchKey, spec: int) -> float:
        """Solve the fixed point of ``match``: a tie with no card played comes back to it."""
        if self.later_blind is not None and match[2 + self.later_blind] != self._empty_hand:
            raise ValueError("a solver blind to a seat's later hands solves only the empty hand")
        rule = self._rule
        iterating = self._iterating
        unknown = (match, self._share_spec(spec))  # (the entry its fixed point iterates)
        if rule is FirstPlayer.ALTERNATE:
            # the openers alternate after a tie: iterate on seat 0's entry; seat 1's follows

            def evaluate(x: float) -> Pair:
                iterating[unknown] = (x, 1.0)
                iterating.pop((match, 1), None)
                self._forget(match)
                iterating[(match, 1)] = self._root(match, 1)  # its ties come back to x
                return self._root(match, 0)  # its ties go to seat 1's entry

        elif rule is FirstPlayer.RANDOM:

            def evaluate(x: float) -> Pair:
                iterating[unknown] = (x, 1.0)
                self._forget(match)
                (v0, d0), (v1, d1) = self._root(match, 0), self._root(match, 1)
                return (0.5 * (v0 + v1), 0.5 * (d0 + d1))

        else:  # player 1 always opens, or the loser does (after a tie, the same opener)
            opener = unknown[1]

            def evaluate(x: float) -> Pair:
                iterating[unknown] = (x, 1.0)
                self._forget(match)
                return self._root(match, opener)

        won, lost = self._set_ends(match, unknown[1])
        share_key = (match[2], match[3], unknown[1])
        landed: float | None = None
        move: float | None = None
        if self._pipeline is not None:  # (another process may still be finding it)
            share = self._pipeline.share(match, share_key)
        else:
            shares = self._shares if self._share_base is None else self._share_base
            share = shares.get(share_key, 0.5)
        start = min(max(share + self._guess(match, unknown[1]), 0.0), 1.0)
        try:
            value, shift = self._fixed_point(evaluate, lost + start * (won - lost))
            self._entries[unknown] = value
            landed = _landed(value, won, lost)
            if landed is not None:
                move = landed - share
                self._note_move(match, unknown[1], move)
                if self._share_base is None:
                    self._shares[share_key] = landed
                else:
                    _write_share(self._share_writes, share_key, match, landed)
            if rule is FirstPlayer.ALTERNATE:
                other, slope = iterating[(match, 1)]
                self._entries[(match, 1)] = other + slope * shift
        except BaseException:  # a budget, Ctrl-C: these positions read a value never found
            self._forget(match)
            raise
        finally:
            iterating.pop(unknown, None)
            iterating.pop((match, 1), None)
        self._settle(match, shift)
        if self._pipeline is not None:
            values = {
                other: self._entries[(match, other)]
                for other in (0, 1, _RANDOM)
                if (match, other) in self._entries
            }
            self._pipeline.publish(match, values, unknown[1], landed, move)
        found = self._entries.get((match, spec))
        if found is None:  # a seat's entry under the random rule: its set, ties worth the coin
            found = self._entries[(match, spec)] = self._root(match, spec)[0]
        return found

    def _guess(self, match: MatchKey, spec: int) -> float:
        """How far the share of ``match`` is likely to move from the last one of its hands: as
        far, on average, as the shares of the same score whose hands lack one card of these
        (solved before it, bottom up). Newton's first step then lands on the fixed point's
        linear piece more often (a miss costs one more solve of the state's positions): the
        4 v 4 first move of ``benchmarks/bench_match.py`` took 3,100 solves of its 2,304 match
        states, against 4,142 with no correction (the same 43,858,163 positions since the last
        states solved stopped being read). Only states that every order of solving solves first
        are read, so that the start, and the value's last bits, depend on the state alone."""
        s0, s1, h0, h1 = match
        moves = self._share_moves
        near = [
            moves[key]
            for key in [((s0, s1, rest, h1), spec) for rest in self.smaller_hands(h0)]
            + [((s0, s1, h0, rest), spec) for rest in self.smaller_hands(h1)]
            if key in moves
        ]
        return sum(near) / len(near) if near else 0.0

    def smaller_hands(self, hand: int) -> set[int]:
        """The hands one card short of ``hand``."""
        return {rest for _, _, _, rest in self.hands.plays[hand]}

    def _note_move(self, match: MatchKey, spec: int, move: float) -> None:
        """Keep how far a solved state's share moved (for :meth:`_guess`)."""
        self._share_moves[(match, spec)] = move

    def _set_ends(self, match: MatchKey, spec: int) -> tuple[float, float]:
        """The values of winning and of losing this set with the same hands (both already
        solved, as more sets have been played). The first value of Newton's method lies between
        them, where the same hands landed at the score solved before (see :attr:`_shares`); the
        nearer the start, the more often one step lands on the piece of F that holds the fixed
        point."""
        s0, s1, h0, h1 = match
        opener = spec if spec in (0, 1) else 0
        context = self._context(s0, s1, opener, _LATER)
        won = self._set_over(context, 0, (h0, h1))[0]
        lost = self._set_over(context, 1, (h0, h1))[0]
        return won, lost

    # -- questions --------------------------------------------------------------------------------

    def prepare(
        self, scores: tuple[int, int], hands: tuple[Sequence[Card], Sequence[Card]]
    ) -> None:
        """Solve the match states below ``scores`` and ``hands`` bottom up (fewer cards and
        more sets first), so that no solve nests inside another (the recursion stays shallow)."""
        self.prepare_all(scores, ([hands[0]], [hands[1]]))

    def prepare_all(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        *,
        processes: int = 1,
    ) -> None:
        """:meth:`prepare` for every hand each seat may hold (a hidden hand's possible hands):
        each score once for all of them, instead of once a hand. (``processes``: how many
        processes' tables the native solver sizes a score's for; the memo here is one.)"""
        hands = self._later_hands(hands)
        asked = self._asked(scores, hands)
        if asked in self._prepared:
            return  # (all solved when it was asked before: match-state values are never dropped)
        pairs, specs, rounds = self._unsolved(scores, hands)
        self._levels_done, self._levels_total = 0, sum(len(levels) for levels in rounds)
        for levels in rounds:
            if not levels:
                continue  # (all solved before: nothing to share out)
            self._share_base, self._share_writes = dict(self._shares), {}
            try:
                self._solve_levels(levels, pairs, specs)
            finally:
                self._shares.update((key, share) for key, (_, share) in self._share_writes.items())
                self._share_base, self._share_writes = None, {}
        self._prepared.add(asked)

    def unsolved(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    ) -> tuple[int, int]:
        """What :meth:`prepare_all` of these scores and hands has left to solve: the (score,
        pair of sub-hands) match states whose values are not known yet (solved before, or read
        from the disk cache), and how many there are in all."""
        hands = self._later_hands(hands)
        pairs, _, rounds = self._unsolved(scores, hands)
        missing = sum(len(level.missing) for levels in rounds for level in levels)
        return missing, len(pairs) * self._scores_from(scores)

    def missing_states(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    ) -> list[list[Level]]:
        """What :meth:`prepare_all` of these scores and hands would solve, in its rounds: for
        each number of sets played, most first, the scores whose pairs of sub-hands (ids of
        :attr:`hands`, fewest cards first) are not all solved."""
        return self._unsolved(scores, self._later_hands(hands))[2]

    def drop_unfinished_rounds(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        kept: set[tuple[MatchKey, int]],
    ) -> int:
        """Forget the values (but those in ``kept``) that :meth:`prepare_all` of these scores
        and hands solved for a pair of sub-hands in the round it left unfinished for that pair
        (the most sets played with one of the pair's states not solved), and in the rounds
        after it. A preparation stopped there, and asked again, then solves each pair's rounds
        from where it would have, its first guesses where they would have been
        (:meth:`rebuild_starts` restores those of the rounds finished, which are a pair's own),
        so its values have the last bits of a preparation never stopped. How many values were
        forgotten."""
        unfinished: dict[tuple[int, int], int] = {}
        for levels in self._unsolved(scores, self._later_hands(hands))[2]:  # (most sets first)
            for level in levels:
                for pair in level.missing:
                    unfinished.setdefault(pair, level.s0 + level.s1)
        dropped = [
            key
            for key in self._entries
            if key not in kept
            and key[0][0] + key[0][1] <= unfinished.get((key[0][2], key[0][3]), -1)
        ]
        for key in dropped:
            del self._entries[key]
            self._share_moves.pop(key, None)
        return len(dropped)

    def rebuild_starts(self) -> None:
        """Give the values known but not solved here (read from the disk cache) the shares and
        moves their solves left (:attr:`_shares`, :attr:`_share_moves`), as ``prepare_all``
        would have had them: each number of sets played in turn, most first, each state's share
        where its value lies between losing and winning its set, a round's share of two hands
        its score's with the fewest sets won by seat 0. Newton's first guesses then start where
        they would have, and a ``prepare`` stopped and asked again gives the values of one never
        stopped, bit for bit (their last bits depend on the start)."""
        rounds: dict[int, list[tuple[MatchKey, int]]] = {}
        for match, spec in self._entries:
            if spec == self._share_spec(spec):
                rounds.setdefault(match[0] + match[1], []).append((match, spec))
        self._reading_only = True
        try:
            for played in sorted(rounds, reverse=True):
                base = dict(self._shares)
                writes: dict[tuple[int, int, int], tuple[int, float]] = {}
                for match, spec in rounds[played]:
                    try:
                        won, lost = self._set_ends(match, spec)
                    except _NotKnown:
                        continue  # (a later state not known: this one's start is not read)
                    landed = _landed(self._entries[(match, spec)], won, lost)
                    if landed is None:
                        continue
                    key = (match[2], match[3], spec)
                    if (match, spec) not in self._share_moves:  # (one solved here keeps its own)
                        self._note_move(match, spec, landed - base.get(key, 0.5))
                    _write_share(writes, key, match, landed)
                self._shares.update((key, share) for key, (_, share) in writes.items())
        finally:
            self._reading_only = False

    def _share_spec(self, spec: int) -> int:
        """The opener spec whose entry a state's fixed point iterates (:meth:`_solve_entry`'s
        ``unknown``) for a value of ``spec``."""
        rule = self._rule
        if rule is FirstPlayer.ALTERNATE:
            return 0
        if rule is FirstPlayer.RANDOM:
            return _RANDOM
        return spec if rule is FirstPlayer.LOSER else 0

    def value_known(self, match: MatchKey, spec: int) -> float | None:
        """A match state's value for opener ``spec`` if it is known here (None: not yet)."""
        return self._entries.get((match, spec))

    def starting_shares(self) -> dict[tuple[int, int, int], float]:
        """The shares Newton's first guesses start from now (per hand, hand, opener spec):
        what :meth:`solve_states` is given for a state."""
        return dict(self._shares)

    def share_moves(self) -> dict[tuple[MatchKey, int], float]:
        """How far each solved state's share moved (what the states with one card more read
        for their first guesses)."""
        return dict(self._share_moves)

    def take_shares(
        self,
        shares: dict[tuple[int, int, int], float],
        moves: dict[tuple[MatchKey, int], float],
    ) -> None:
        """Take the shares and moves of states solved elsewhere (:mod:`.prepare_plan`), as if
        solved here: later solves start where they would have."""
        self._shares.update(shares)
        self._share_moves.update(moves)

    def entry_keys(self) -> set[tuple[MatchKey, int]]:
        """The (state, opener spec) keys of the values known now (see :meth:`work_since`)."""
        return set(self._entries)

    def work_since(self, before: set[tuple[MatchKey, int]]) -> SolvedWork:
        """What was solved here since ``before`` (:meth:`entry_keys`), named by cards: the
        values, and the shares and moves later solves start from, for another process's
        solver (:meth:`take_work`; its hand ids differ)."""
        cards = self.hands.cards
        new = [key for key in self._entries if key not in before]
        pairs = {(h0, h1) for (_, _, h0, h1), _ in new}
        return SolvedWork(
            tuple(
                ((s0, s1, cards[h0], cards[h1], spec), self._entries[(s0, s1, h0, h1), spec])
                for (s0, s1, h0, h1), spec in new
            ),
            tuple(
                (cards[h0], cards[h1], spec, share)
                for (h0, h1, spec), share in self._shares.items()
                if (h0, h1) in pairs
            ),
            tuple(
                ((s0, s1, cards[h0], cards[h1], spec), self._share_moves[(s0, s1, h0, h1), spec])
                for (s0, s1, h0, h1), spec in new
                if ((s0, s1, h0, h1), spec) in self._share_moves
            ),
        )

    def take_work(self, work: SolvedWork) -> int:
        """Take what another process solved (:meth:`work_since`), as if solved here; a value
        both solved must be the same, bit for bit (order-free values: RuntimeError if not).
        The shares and moves held here are kept. Returns the values new here."""
        intern = self.hands.intern
        new = 0
        for (s0, s1, c0, c1, spec), value in work.values:
            key = ((s0, s1, intern(c0), intern(c1)), spec)
            held = self._entries.get(key)
            if held is None:
                self._entries[key] = value
                new += 1
            elif held != value:
                raise RuntimeError(
                    f"two solves found different values for the state {s0}-{s1} "
                    f"{' '.join(map(str, c0)) or '-'} against {' '.join(map(str, c1)) or '-'}: "
                    f"{held!r} and {value!r}"
                )
        for c0, c1, spec, share in work.shares:
            self._shares.setdefault((intern(c0), intern(c1), spec), share)
        for (s0, s1, c0, c1, spec), move in work.moves:
            self._share_moves.setdefault(((s0, s1, intern(c0), intern(c1)), spec), move)
        return new

    def solve_states(
        self,
        s0: int,
        s1: int,
        pairs: Sequence[tuple[int, int]],
        *,
        shares: dict[tuple[int, int, int], float],
        moves: dict[tuple[MatchKey, int], float],
    ) -> StatesSolved:
        """Solve the match states of score ``s0``-``s1`` with these pairs of hands (ids), for
        every opener spec, as :meth:`prepare_all` would at that point of its order: every value
        they read already known here (:meth:`add_entries`), their first guesses starting from
        ``shares`` (as the round's start has them) and ``moves`` (of the states one card
        smaller). Their groups get the score's tables, as in :meth:`prepare_all` (the sides
        their sets reach interned first, what the native solver sizes them by). A state they
        read that is neither known nor one of them (solved before it: fewest cards first) is an
        error (its solve would start from shares it was not given), not solved on the way."""
        cards = self.hands.cards
        for hand in dict.fromkeys(hand for pair in pairs for hand in pair):
            self._intern_later_sides(cards[hand])
        self._share_moves.update(moves)
        self._share_base, self._share_writes = dict(shares), {}
        states = [((s0, s1, x, y), spec) for x, y in pairs for spec in self.opener_specs]
        asked = sum(state not in self._entries for state in states)
        known = len(self._entries)
        try:
            self._start_level(s0, s1, pairs)
            for match, spec in states:
                self.entry(match, spec)
            writes = self._share_writes
        finally:
            self._share_base, self._share_writes = None, {}
        if len(self._entries) - known != asked:
            raise RuntimeError(
                f"solving {asked} states of {s0}-{s1} solved "
                f"{len(self._entries) - known - asked} more that were not given"
            )
        return StatesSolved(
            {state: self._entries[state] for state in states},
            {key: share for key, (_, share) in writes.items()},
            {state: self._share_moves[state] for state in states if state in self._share_moves},
        )

    @property
    def opener_specs(self) -> tuple[int, ...]:
        """The openers a set start's value is kept for (a seat, or 2: a coin): both seats where
        the opener alternates or the loser opens, one value otherwise."""
        if self._rule in (FirstPlayer.ALTERNATE, FirstPlayer.LOSER):
            return (0, 1)
        return (_RANDOM,) if self._rule is FirstPlayer.RANDOM else (0,)

    def _scores_from(self, scores: tuple[int, int]) -> int:
        """How many scores a match at ``scores`` can still pass through, this one included."""
        left = self._sets_to_win - scores[0], self._sets_to_win - scores[1]
        return left[0] * left[1]

    def _unsolved(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    ) -> tuple[list[tuple[int, int]], tuple[int, ...], list[list[Level]]]:
        """The pairs of sub-hands of these hands (fewest cards first), the opener specs, and
        for each number of sets played, most first, the scores whose pairs are not all solved
        (a round: they read none of each other's values)."""
        below0 = self._union_sub_hands(hands[0])
        below1 = self._union_sub_hands(hands[1])
        pairs = sorted(
            ((x, y) for x in below0 for y in below1),
            key=lambda pair: len(self.hands.cards[pair[0]]) + len(self.hands.cards[pair[1]]),
        )
        target = self._sets_to_win
        specs = self.opener_specs
        rounds = []
        for total in range(2 * target - 2, scores[0] + scores[1] - 1, -1):
            levels = []
            for s0 in range(target - 1, scores[0] - 1, -1):
                s1 = total - s0
                if not scores[1] <= s1 < target:
                    continue
                complete = self._complete.setdefault((s0, s1), set())
                missing = []
                for pair in pairs:
                    if pair in complete:
                        continue
                    if any(((s0, s1, *pair), spec) not in self._entries for spec in specs):
                        missing.append(pair)
                    else:
                        complete.add(pair)
                if missing:
                    levels.append(Level(s0, s1, missing))
            rounds.append(levels)
        return pairs, specs, rounds

    def prepared(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    ) -> bool:
        """Whether :meth:`prepare_all` of these scores and hands was done before (and so has
        nothing left to solve)."""
        return self._asked(scores, self._later_hands(hands)) in self._prepared

    def _later_hands(
        self, hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]]
    ) -> tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]]:
        """The hands each seat may hold as the later sets meet them: those given, but only the
        empty hand for the seat the later sets are blind to (:attr:`later_blind`)."""
        if self.later_blind == 0:
            return ([()], hands[1])
        if self.later_blind == 1:
            return (hands[0], [()])
        return hands

    def _asked(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    ) -> tuple[tuple[int, int], tuple[int, ...], tuple[int, ...]]:
        return (
            scores,
            tuple(self.hands.intern(hand) for hand in hands[0]),
            tuple(self.hands.intern(hand) for hand in hands[1]),
        )

    def _solve_levels(
        self, levels: Sequence[Level], pairs: Sequence[tuple[int, int]], specs: Sequence[int]
    ) -> None:
        """Solve the missing match states of these scores, all with as many sets played: none
        of them reads another's values (a set played changes the number), so they may be
        solved in any order, or at once (the native solver's two processes)."""
        for level in levels:
            self._start_level(level.s0, level.s1, pairs)
            for x, y in level.missing:
                for spec in specs:
                    self.entry((level.s0, level.s1, x, y), spec)
            self._level_done()

    def _level_done(self, within: float = 1.0) -> None:
        """Tell :attr:`after_step` that this share of the score being solved is done (1: all
        of it, and the next one begins)."""
        if within >= 1.0:
            self._levels_done += 1
            within = 0.0
        if self.after_step is not None and self._levels_total:
            self.after_step(min((self._levels_done + within) / self._levels_total, 1.0))

    def _start_level(self, s0: int, s1: int, pairs: Sequence[tuple[int, int]]) -> None:
        """``prepare`` is about to solve the match states of score ``s0``-``s1`` with these
        hand pairs (a hook: the native solver gives their groups dense tables)."""

    def _start_set(self, context: int, hands: tuple[Sequence[Card], Sequence[Card]]) -> None:
        """A question about the set in progress in ``context`` with these hands is coming (a
        hook: the native solver gives its groups dense tables when its deck model allows)."""

    def drop_set_hand(self, seat: int) -> None:
        """Free what only the last set in progress asked about needed for seat ``seat``'s whole
        hand (a hook: the native solver's dense tables of the groups that hold it; a hidden
        hand's rows each ask about another whole hand, and the next row's tables take their
        memory). Its positions, asked again, are solved again, the same."""

    def set_start_value(
        self, scores: tuple[int, int], hands: tuple[Sequence[Card], Sequence[Card]], opener: int
    ) -> float:
        """P(seat 0 wins the match) when a set starts from empty tables at ``scores`` with
        ``hands``, seat ``opener`` drawing first."""
        match = (scores[0], scores[1], self.hands.intern(hands[0]), self.hands.intern(hands[1]))
        if max(scores) >= self._sets_to_win:
            return 1.0 if scores[0] >= self._sets_to_win else 0.0
        if self._rule is FirstPlayer.RANDOM:
            self.entry(match, _RANDOM)
            return self._root(match, opener)[0]
        if self._rule is FirstPlayer.PLAYER1 and opener == 1:
            return self._root(match, 1)[0]  # (only a position typed by hand opens so)
        return self.entry(match, opener)

    def add_entry(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Card], Sequence[Card]],
        spec: int,
        value: float,
    ) -> None:
        """Take a match state's value solved elsewhere (:mod:`pazaak_cli.solve.match_cache`):
        ``spec`` the opener (a seat, or 2: a coin). A value already held stays."""
        h0 = self.hands.intern(hands[0])
        h1 = self.hands.intern(hands[1])
        self.add_entries([(((scores[0], scores[1], h0, h1), spec), value)])

    cache_kind: str | None = ""
    """What the values mean beside the ruleset, for the disk cache's file (""; the solver of
    the match against a rule names its rule and seat)."""

    def cache_interns(
        self,
    ) -> tuple[Callable[[Sequence[Card]], int], Callable[[Sequence[Card]], int]]:
        """How the cache's two hands of a row (seat 0's, seat 1's) become ids."""
        return self.hands.intern, self.hands.intern

    def known_entries(
        self,
    ) -> Iterator[tuple[tuple[int, int], tuple[tuple[Card, ...], tuple[Card, ...]], int, float]]:
        """Every match state's value solved so far: (score, both hands, opener spec, value)."""
        cards = self.hands.cards
        for ((s0, s1, h0, h1), spec), value in list(self._entries.items()):
            yield (s0, s1), (cards[h0], cards[h1]), spec, value

    def release_tables(self) -> None:
        """Free what only the question just answered needed (the native solver's dense tables);
        the match-state values and the memo stay."""

    def fits(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int = 1,
    ) -> bool:
        """Whether :meth:`prepare_all` of these hands stays within the solver's memory bound
        (the native solver's dense tables; this one has none), ``processes`` solving a score
        each at once."""
        return True

    def fits_in_blocks(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int = 1,
    ) -> bool:
        """Whether :meth:`prepare_all` of these hands stays within the memory bound when each
        score's tables are made a block at a time (the native solver's ``level_blocks``)."""
        return True

    def blocks_rework(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int = 1,
    ) -> float:
        """How many times a score's positions :meth:`prepare_all` of these hands searches in
        blocks (1.0: each once; more where rows are freed early and made again)."""
        return 1.0

    def _intern_later_sides(self, cards: Sequence[Card]) -> None:
        """Intern every side reachable from a set started with any sub-hand of ``cards``,
        drawing from a full deck (the later sets' model), with its candidate lists: what the
        native solver sizes its dense tables by."""
        key = self.hands.intern(cards)
        if key in self._interned_from:
            return
        self._interned_from.add(key)
        draws = [value + 1 for value, count in enumerate(self.later_deck) if count]
        after, candidates, kinds = self._after, self._candidates, self._kind
        sides, facts_of, of_placed = self._sides, self.hands.facts, self._list_of_placed
        flip_all = self._flip_all
        seen = self._expanded  # (kept: a new hand's sub-hands were mostly walked before)
        starts = [self.side_id((0, 0, hand, 0, 0, False)) for hand in sorted(self.sub_hands(key))]
        stack = [side for side in starts if side not in seen]
        seen.update(stack)
        while stack:
            side = stack.pop()
            compact: Any = sides[side]
            hand = compact[2]
            facts, double = facts_of[hand], self._holds_double(hand)
            for drawn in draws:
                found = after.get((side, drawn))
                # (_candidate_list inline: 61 hands' walk 0.38 s, 0.44 s calling it)
                if found is None:
                    placed = place_card(compact, drawn, hand, facts, flip_all)
                    placed_key = (placed, drawn) if double else placed
                    found = of_placed.get(placed_key)
                    if found is None:
                        found = of_placed[placed_key] = self._placed_list(placed, drawn)
                    after[(side, drawn)] = found
                for code in candidates[found]:
                    if code not in seen:
                        seen.add(code)
                        if kinds[code] == PLAYING:
                            stack.append(code)

    def intern_sides(self, hands: Sequence[Sequence[Card]]) -> None:
        """Intern every side the sets of these hands (and their sub-hands) can reach, with
        their candidate lists (:meth:`_intern_later_sides` for each; the native solver's core
        walks them)."""
        for cards in hands:
            self._intern_later_sides(cards)

    def _union_sub_hands(self, hands: Sequence[Sequence[Card]]) -> list[int]:
        """The hand ids of every sub-hand of any of ``hands``."""
        found: dict[int, None] = {}
        for hand in hands:
            found.update(dict.fromkeys(self.sub_hands(self.hands.intern(hand))))
        return list(found)

    def sub_hands(self, hand: int) -> list[int]:
        """The ids of every sub-hand of ``hand`` (itself included)."""
        found: dict[int, None] = {hand: None}
        stack = [hand]
        while stack:
            for _, _, _, rest in self.hands.plays[stack.pop()]:
                if rest not in found:
                    found[rest] = None
                    stack.append(rest)
        return list(found)

    def solve_moves(
        self,
        question: Question,
        other_hand: Sequence[Card],
        *,
        current_deck: tuple[int, ...] | None,
        exact: bool = False,
        budget: int | None = None,
        odds: bool = True,
    ) -> list[MatchMove]:
        """Every move of the question's mover with its match value and the set odds along its
        line, the other seat holding ``other_hand``. ``current_deck``: the main deck after the
        draw, for the set in progress (``None``: full-deck probabilities); ``exact``: draw it
        without replacement (else with its fixed probabilities). ``odds=False``: the match
        values alone (the set odds NaN)."""
        state = question.state
        mover = state.turn
        me_side, other_side = state.sides[mover], state.sides[1 - mover]
        my_hand = tuple(card for card in me_side.hand if card is not None)
        hands = (my_hand, tuple(other_hand)) if mover == 0 else (tuple(other_hand), my_hand)
        scores = state.sets_won()
        self.prepare(scores, hands)
        model, deck = self._set_deck(current_deck, exact)
        context = self._context(scores[0], scores[1], state.opener, model)
        self._start_set(context, hands)
        capped = None  # (room, resident) when the exact deck's memory cap is the bound
        if exact and current_deck is not None:
            capped = self._exact_cap(budget)
            if capped is not None:
                budget = capped[0]
        saved_budget = self.budget
        self.budget = None if budget is None else self._positions + budget
        try:
            with capped_search(capped, current_deck, EXACT_POSITION_BYTES):
                me = self._compact(me_side, my_hand)
                moves = root_moves(question, me, self.place_draw, self.labelled_moves)
                other = self.side_id(self._engine_side(other_side, tuple(other_hand)))
                results = []
                for move, code in moves:
                    value = self.value_of_end(context, mover, code, other, deck)
                    line = _NO_ODDS
                    if odds:
                        line = self._line_odds(context, mover, code, other, deck, mover)
                    match_win = value if mover == 0 else 1.0 - value
                    results.append(MatchMove(move, clean_probability(match_win), *line))
        finally:
            self.budget = saved_budget
        return results

    def _exact_cap(self, budget: int | None) -> tuple[int, int] | None:
        """The cap of a search of the set in progress on its exact deck when it is below
        ``budget`` (``None``: no budget), as (room, resident memory): see
        :data:`EXACT_MEMORY_BYTES` (a search here holds every position it solves)."""
        room, resident = exact_room(EXACT_POSITION_BYTES)
        return (room, resident) if budget is None or room < budget else None

    def _compact(self, side: Side, hand: Sequence[Card]) -> Any:
        hid = self.hands.intern(hand)
        return compact_side(self.ruleset, side, hid, self.hands.facts[hid])

    def _engine_side(self, side: Side, hand: tuple[Card, ...]) -> Any:
        """The compact form of the other seat's engine side (standing or playing)."""
        if not side.standing:
            return self._compact(side, hand)
        return ("S", *engine_standing(self.ruleset, side), self.hands.intern(hand))

    # -- the set's odds along the match-optimal line ----------------------------------------------

    def _line_odds(
        self, context: int, mover: int, code: int, other: int, deck: int, me: int
    ) -> tuple[float, float, float]:
        """(win, tie, loss) of the current set for seat ``me`` when seat ``mover`` ends its turn
        as ``code`` and both then play the match-optimal moves."""
        win0, tie = self._odds_end(context, mover, code, other, deck)
        win = win0 if me == 0 else 1.0 - win0 - tie
        loss = 1.0 - win - tie
        return clean_probability(win), clean_probability(tie), clean_probability(loss)

    def _odds_end(
        self, context: int, mover: int, code: int, other: int, deck: int
    ) -> tuple[float, float]:
        """(P(seat 0 wins the set), P(tie)) once ``mover`` ends its turn as ``code``."""
        kind = self._kind[code]
        if kind == PLAYING or (kind == STANDING and not self._standing[other]):
            a, b = (code, other) if mover == 0 else (other, code)
            nxt = mover if self._standing[other] else 1 - mover
            return self._odds_before(context, nxt, a, b, deck)
        if kind == BUST:
            return (1.0, 0.0) if mover == 1 else (0.0, 0.0)
        if kind == NINE_WIN:
            return (1.0, 0.0) if mover == 0 else (0.0, 0.0)
        mine: Any = self._sides[code]
        theirs: Any = self._sides[other]
        if mine[1] == theirs[1] and mine[2] == theirs[2]:
            return (0.0, 1.0)
        mover_wins = mine[1] > theirs[1] if mine[1] != theirs[1] else mine[2]
        return (1.0, 0.0) if mover_wins == (mover == 0) else (0.0, 0.0)

    def _odds_before(
        self, context: int, mover: int, a: int, b: int, deck: int
    ) -> tuple[float, float]:
        key = (context, mover, a, b, deck)
        found = self._odds_memo.get(key)
        if found is not None:
            return found
        side, other = (a, b) if mover == 0 else (b, a)
        win = tie = 0.0
        for drawn, probability, rest in self._draws_of(context, deck):
            candidates = self._after.get((side, drawn))
            if candidates is None:
                candidates = self._candidate_list(side, drawn)
            code = self._choice(context, mover, candidates, other, rest)
            w, t = self._odds_end(context, mover, code, other, rest)
            win += probability * w
            tie += probability * t
        self._odds_memo[key] = (win, tie)
        return win, tie

    def _choice(self, context: int, mover: int, candidates: int, other: int, deck: int) -> int:
        """The match-optimal end of the mover's turn; among ends of equal match value (within
        :data:`BEST_TOLERANCE`), the one that keeps the most set equity for the mover."""
        scored = [
            (self.value_of_end(context, mover, code, other, deck), code)
            for code in self._candidates[candidates]
        ]
        sign = 1.0 if mover == 0 else -1.0
        best = max(sign * value for value, _ in scored)
        near = [code for value, code in scored if sign * value >= best - BEST_TOLERANCE]
        if len(near) == 1:
            return near[0]

        def set_equity(code: int) -> float:
            win0, tie = self._odds_end(context, mover, code, other, deck)
            loss0 = 1.0 - win0 - tie
            return sign * (win0 - loss0)

        return max(near, key=set_equity)


class StatesSolved(NamedTuple):
    """What :meth:`MatchSolver.solve_states` found."""

    values: dict[tuple[MatchKey, int], float]
    """Each state's value, per (state, opener spec)."""
    shares: dict[tuple[int, int, int], float]
    """The shares they landed on, per (hand, hand, opener spec) (none where the set's result
    did not matter)."""
    moves: dict[tuple[MatchKey, int], float]
    """How far each share moved from its start, per (state, opener spec)."""


class SolvedWork(NamedTuple):
    """Match states solved in one process, named by cards, for another's solver
    (:meth:`MatchSolver.work_since`, :meth:`MatchSolver.take_work`)."""

    values: tuple[tuple[tuple[int, int, tuple[Card, ...], tuple[Card, ...], int], float], ...]
    """(s0, s1, hand 0, hand 1, opener spec) and its value."""
    shares: tuple[tuple[tuple[Card, ...], tuple[Card, ...], int, float], ...]
    """The shares of their pairs of hands: (hand 0, hand 1, opener spec, share)."""
    moves: tuple[tuple[tuple[int, int, tuple[Card, ...], tuple[Card, ...], int], float], ...]
    """How far each state's share moved."""


class Level(NamedTuple):
    """A score whose match states :meth:`MatchSolver.prepare_all` solves."""

    s0: int
    s1: int
    missing: list[tuple[int, int]]
    """The (hand, hand) pairs whose values are not known yet."""


class Evaluation(NamedTuple):
    """One evaluation of the function whose fixed point :func:`solve_fixed_point` finds."""

    value: float
    """F(x)."""
    slope: float
    """F'(x) (on the linear piece that holds x)."""
    loops: bool
    """Whether the evaluation read x at all (a set that can tie with no card played)."""
    interval: tuple[float, float] | None
    """Offsets t such that F is linear on [x + low, x + high] (every choice made stands), or
    None if not known."""


def solve_fixed_point(evaluate: Callable[[float], Evaluation], guess: float) -> tuple[float, float]:
    """The x in [0, 1] with F(x) = x, for F piecewise linear, nondecreasing, of slope below 1,
    from [0, 1] into [0, 1] (a match state's value, as a function of the value its card-free tie
    comes back to): Newton's method from ``guess``, kept inside the bracket where F(x) - x changes
    sign (bisection if a step leaves it), to :data:`FIXED_POINT_TOLERANCE`. A Newton step that
    lands inside the evaluation's interval is the fixed point itself (F is linear there), found
    with no evaluation to confirm it. Returns (x, shift): the last evaluation was at x - shift."""
    low, high = 0.0, 1.0
    x = min(max(guess, 0.0), 1.0)
    for _ in range(200):
        value, slope, loops, interval = evaluate(x)
        if not loops:  # no card-free tie can happen: no loop at all
            return value, 0.0
        gap = value - x
        if abs(gap) <= FIXED_POINT_TOLERANCE:
            return value, 0.0
        if gap > 0:
            low = x
        else:
            high = x
        step = x + gap / (1.0 - slope) if slope < 1.0 else (low + high) / 2
        if (
            interval is not None
            and slope < 1.0
            and low <= step <= high
            and interval[0] <= step - x <= interval[1]
        ):
            return step, step - x
        x = step if low < step < high else (low + high) / 2
    raise PazaakError("the match value did not converge")  # pragma: no cover


def iter_sub_hands(hand: Sequence[Card]) -> Iterator[tuple[Card, ...]]:  # pragma: no cover
    """Every sub-multiset of ``hand`` (a helper for tests and benchmarks)."""
    cards = sorted(hand, key=str)
    seen: set[tuple[Card, ...]] = set()
    for mask in range(1 << len(cards)):
        sub = tuple(card for index, card in enumerate(cards) if mask >> index & 1)
        if sub not in seen:
            seen.add(sub)
            yield sub
