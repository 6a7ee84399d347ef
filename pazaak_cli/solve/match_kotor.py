"""The exact best reply over the MATCH to the KOTOR I computer opponent.

``pazaak advise --objective match --opponent kotor``: for every move of the advised player, the
probability of winning the match when the opponent plays the KOTOR I rule (docs/rules.md §7) in
this set and in every later one, and the advised player plays to win the match. It joins the two
exact solvers: the opponent decides as in :mod:`pazaak_cli.solve.kotor_reply`, through the same
seat and turn (:class:`pazaak_cli.solve.rule_opponent.RuleSeat`, over a match: its sides keep their
hands), the match is modelled as in :mod:`pazaak_cli.solve.match_solver`:

* Values are P(the advised player wins the match); only he chooses (the rule is deterministic),
  so the value of a match state is a maximum of averages, not a minimax.
* Hand cards are kept for the whole match: a side that stands, busts or wins by its ninth card
  keeps its hand, and the next set starts with what is left. The rule reads "the sets the other
  player has won": the advised player's score in the match state.
* Who opens each later set follows the ruleset's first-player rule; later sets draw with a full
  deck's probabilities; the set in progress on its real deck (without replacement, or its fixed
  draw odds), as the match solver does.
* A set tied with no hand card played comes back to the same match state: its value is the fixed
  point of a piecewise-linear, nondecreasing, convex function of slope below 1, found by Newton's
  method on (value, slope) pairs inside a bracket, to :data:`FIXED_POINT_TOLERANCE`.
* The opponent's hand is an ordered tuple in a *canonical order*
  (:func:`~pazaak_cli.solve.rule_opponent.canonical_order`): only the relative order of cards that
  can reach the same total matters to the rule (on equal totals it keeps the first fixed card or
  the last ± card). Unlike one set, where after such a play the rule stands, so which card made the
  total does not matter, over a match the card kept does matter in later sets: so a Double before
  or after a plus card, a flip before or after another fixed card are different hands here
  (:func:`~pazaak_cli.solve.rule_opponent.may_tie`), and no copy of a plus card is dropped
  (:func:`~pazaak_cli.solve.rule_opponent.rule_hand` does that for one set). For KOTOR I's cards
  no order matters. A hidden hand is averaged over its multisets (by the caller,
  :mod:`pazaak_cli.solve.match_advice`) and over every order of each that can change the rule's
  choice, equally likely (:func:`~pazaak_cli.solve.rule_opponent.match_hand_orders`, which this
  module gives the match answer with :func:`~pazaak_cli.solve.rule_opponent.canonical_order`).

Positions are memoised per *group* ``(context, my hand, its hand)``, the context being the score,
the opener of the set where the first-player rule reads it, and the deck model; only the group of
the match state whose fixed point is being iterated is solved again.

The recursion inside a set (:meth:`KotorMatchSolver.my_before_draw`, ``opp_before_draw``,
``_turn_ended``, and the set's odds along the line chosen, ``_odds_ended``) and the rule's
choice have an optional C inner loop
(:mod:`pazaak_cli.solve._fastkotormatch`, for the rules of :data:`NATIVE_RULES`): Python keeps the
seats, hands, decks, contexts and match states and the fixed point (Newton on value/slope pairs),
and the C loop builds the rule's turns after a draw itself (numbering their sides as
:meth:`RuleSeat.turn` would, taken over by Python before it numbers one: :meth:`_pull_their_sides`)
and calls back for what it has not met (a list of turn ends, a deck's draws, the value at a set's
end). Both give the same floats (the same sums in the same order); ``native=False`` keeps the
Python recursion, the reference the tests compare it with.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import FirstPlayer, Ruleset
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import DecisionRule, kotor_rule
from pazaak_cli.runtime.executors import ForkedCall, WorkerLost, two_solver_processes
from pazaak_cli.solve.answer_types import BEST_TOLERANCE, SolverTooLarge, clean_probability
from pazaak_cli.solve.match_pipeline import StateSplit
from pazaak_cli.solve.match_solver import (
    MatchMove,
    MatchStates,
    capped_search,
    exact_room,
)
from pazaak_cli.solve.rule_opponent import (
    BUST,
    NO_STAND,
    PLAYING,
    STANDING,
    CompactSide,
    RuleSeat,
    RuleTurn,
    Seat,
    canonical_order,
    match_hand_orders,
)
from pazaak_cli.solve.solver import PROGRESS_MASK, DeckDraws, DeckModels, root_moves

_fastkotormatch: Any = None
with contextlib.suppress(ImportError):  # the optional C inner loop (setup.py builds it)
    from pazaak_cli.solve import _fastkotormatch  # type: ignore[attr-defined,no-redef]
if os.environ.get("PAZAAK_PURE_PYTHON"):  # benchmarks compare the two paths
    _fastkotormatch = None

NATIVE_RULES: dict[DecisionRule, int] = (
    {}
    if _fastkotormatch is None
    else {kotor_rule: _fastkotormatch.RULE_KOTOR, heuristic_rule: _fastkotormatch.RULE_HEURISTIC}
)
"""The rules the C loop decides by itself (``_rule.h``, line for line as their Python
functions); empty when it is not built."""
NATIVE_MEMO_ENTRIES = 1 << 22
"""Slots of the C loop's main table of positions at most (16 bytes each, a value and no slope: 64
MiB, for 2 million positions, the table at most half full); past that it forgets them all (a cache:
never wrong, at most slower; on an exact deck each new position takes its home's slot instead:
:meth:`KotorMatchSolver._exact_table`). :meth:`KotorMatchSolver.bound_memo` still empties it
between match states past ``max_states``, as it empties the Python memo. Smaller was faster
here (what a larger table saves in positions forgotten, it lost in reads that missed the
caches). Measured
side by side (docs/benchmarks.md), 2^22 slots against 2^24: 0.90 and 0.94 times the time of the
exact answer about 4 hidden cards of ``kotor1-average``, 0.84 and 0.85 times a 4 v 4 known first
move, the same answers; 2^20 forgot too often (0.92 times, on the first). (Those were 24-byte slots;
at 16 bytes 2^21 and 2^23 slots were no faster on the first, within the machine's drift.)"""

NATIVE_EXACT_MEMO_ENTRIES = 1 << 24
"""The main table's bound once a set is drawn without replacement (256 MiB, 8 million
positions): 2^22 slots made the kotor1 first move with 4 v 4 known cards on its exact deck
solve past 1.7 billion positions without an answer (275 s), against 38 s in 2^24 slots."""

SPLIT_MIN_STATES = 64
"""The fewest match states :meth:`KotorMatchSolver.prepare_in_two` forks for (the later sets
of one 2 v 2 question are 81: below that, the fork is most of the work)."""

HUGE_PAGES_MIN_STATES = 1024
"""The fewest match states for which :meth:`KotorMatchSolver.prepare_in_two` puts the C loop's
main table in huge pages (``own_tables``): a long search reads it at random, and found it in the
address cache more often (0.89 to 0.94 times the time: the cold answer about 4 hidden cards of
``kotor1-average``, a 4 v 4 first move, ``prepare``), but a huge page first written may wait for
the kernel to gather free memory, which a search of a second or two does not earn back: the
3 v 3 first move (576 states, 1.3 s) took 0.85 to 0.87 times as long run after itself and 1.10
to 1.14 times run after the version without them (docs/benchmarks.md)."""

NATIVE_SIDES = 1 << 20
"""Sides a seat (or lists of turn ends) past which :meth:`KotorMatchSolver.bound_memo` forgets
them all and numbers them again (the C loop numbers at most ``_fastkotormatch.MAX_IDS``, 2^21)."""

ME, OPP, RANDOM = 0, 1, 2
"""Who opens a set (a *spec*): the advised player, the KOTOR opponent, or a coin."""
_OPENER_FREE = -1
"""The context's opener field when the first-player rule does not read the current opener."""
_LATER = 0
"""The deck model of later sets (full-deck probabilities); the set in progress gets its own."""

Pair = tuple[float, float]
"""(P(the advised player wins the match), its slope in the value being iterated). Inside the
match state iterated a pair is a line in the value x tried, (a, b) for a + b x: its card-free tie
reads x as (0, 1), so a pair's bits do not depend on x, only its choices do (compared at x)."""
CHOICE_MARGIN = 1e-14
"""A choice between two lines in the value tried stands where it is higher by this much: where
every choice of a position stands so, the same search at another value tried makes them all
again and sums the same lines in the same order, so the C loop keeps such a position from one
try to the next (its interval, :meth:`KotorMatchSolver._narrow`) where Python solves it again,
and both give the same bits."""
_WON: Pair = (1.0, 0.0)
_LOST: Pair = (0.0, 0.0)
_NO_PAIR: Pair = (-1.0, 0.0)
_INFINITY = float("inf")

CACHED_RULES: dict[DecisionRule, str] = {kotor_rule: "kotor", heuristic_rule: "heuristic"}
"""The rules whose match values the disk cache keeps, by the name in its files."""


def rule_cache_kind(rule: DecisionRule, seat: int) -> str | None:
    """The disk cache's name for the values against ``rule`` of the player in ``seat`` (0 or
    1): its file is named by it beside the ruleset; None for a rule it does not keep."""
    name = CACHED_RULES.get(rule)
    return None if name is None else f"{name}/player{seat + 1}"


MatchKey = tuple[int, int, int, int]
"""(sets won by me, sets won by the opponent, my hand id, its hand id)."""


EXACT_POSITION_BYTES = 250
"""Bytes a position of this solver takes on an exact deck (the count
:data:`pazaak_cli.solve.match_solver.EXACT_MEMORY_BYTES` caps such a solve by, the later sets it
prepares included: the positions it holds, a memo emptied between two match states making room
again), measured: the resident memory over the positions held was 178 to 244 bytes (the most
at the start), sampled every 100 MB through the kotor1 first move with two cards a side on its
exact deck (4.5 million positions, 1.0 GB at the end: 221 bytes with the set's odds), and 176
with three cards a side, refused at 300 bytes (5.9 million positions, 1.04 GB after 127 s;
without the bound it answered after 321 s, at 1.94 GB). The Python recursion's figure."""

NATIVE_EXACT_POSITION_BYTES = 10
"""The same for the C loop (:data:`NATIVE_RULES`), whose memo is a bounded cache (on an exact deck
:data:`NATIVE_EXACT_MEMO_ENTRIES`, 256 MiB since its slots hold no slope): past it positions are
forgotten and solved again, so its memory does not grow with the positions it counts. Measured,
kotor1 first move on the exact deck, 4 v 4 known cards with a ± card each side: the process held 634
MB at 13.6 M and at 44 M positions, 702 MB at the end (answered in 32.8 s). At 10 bytes the cap
still stops, at about 180 M positions (a few minutes), a search that would not end."""


# ------------------------------------------------------------------------------------------------
# The solver.


class KotorMatchSolver(MatchStates):
    """Solves matches of the advised player (seat ``me_seat``, maximising P(win the match))
    against the KOTOR I rule, remembering every position and match state it solved (shared by
    every move, every hidden hand and order averaged)."""

    def __init__(
        self,
        ruleset: Ruleset,
        me_seat: int = 0,
        *,
        max_states: int | None = None,
        rule: DecisionRule = kotor_rule,
        native: bool = True,
    ) -> None:
        """``native``: search in C when the extension is built and ``rule`` is one it decides
        by (:data:`NATIVE_RULES`); ``False``: always in Python, the reference."""
        self._core: Any = None
        self.ruleset = ruleset
        self.me_seat = me_seat
        self.max_states = max_states
        self.decision_rule = rule
        self.me = Seat(ruleset, over_match=True)
        self.opp = RuleSeat(ruleset, rule, over_match=True)
        """The opponent's seat, deciding by ``rule``: the KOTOR I rule, or another with its
        inputs (the benchmark's ceiling against ``heuristic``; its hands are still read in the
        KOTOR rule's order)."""
        self._init_match_states(ruleset, ME if me_seat == 0 else OPP)
        self._memos: list[dict[int, Pair]] = []
        """The positions solved, one table per context."""
        self._overs: list[dict[int, Pair]] = []
        self._context_decks: list[DeckDraws] = []
        """The value of each end of a set (winner, hands left), one table per context."""
        self._live: tuple[tuple[int, ...], int, int] | None = None
        """(contexts, my hand, its hand) of the match state being iterated: its card-free
        positions are recorded in :attr:`_live_keys`, to be forgotten after each evaluation
        and once the value is found."""
        self._live_keys: list[tuple[dict[int, Pair], int]] = []
        self._entries: dict[tuple[MatchKey, int], float] = {}
        self._known_below: set[tuple[tuple[int, int], int, tuple[int, ...]]] = set()
        """(scores, my hand, its hands) whose later sets :meth:`later_sets_known` found known
        (values are never dropped: asked again, as a time budget's foresight does for every
        hand a few times an answer, it answers at once)."""
        self._iterating: dict[tuple[MatchKey, int], Pair] = {}
        self._split: StateSplit | None = None
        """While :meth:`prepare_in_two` runs: the states the other process solves, and where
        their values come from."""
        later = DeckDraws(FULL_DECK)
        later.intern(FULL_DECK)
        self._models = DeckModels(later)
        self._odds_memo: dict[tuple[int, ...], tuple[float, float]] = {}
        self._positions = 0
        self._budget: int | None = None
        self._budget_held = False
        """Whether :attr:`budget` bounds the positions held (the exact deck's memory cap: a
        memo emptied makes room again) rather than those solved."""
        self._progress: Callable[[int], None] | None = None
        self._interval = (-_INFINITY, _INFINITY)
        """The values tried over which every choice made stands."""
        self._x = 0.0
        """The value tried for the match state iterated."""
        rule_id = NATIVE_RULES.get(rule)
        if native and rule_id is not None:
            self._start_core(rule_id)

    # -- the C inner loop ----------------------------------------------------------------------

    def _start_core(self, rule_id: int) -> None:
        """Hand the recursion inside a set to the C loop: it mirrors both seats' sides, my
        candidate lists and the contexts (:meth:`_sync`), and calls back for the rest."""
        rules = self.ruleset
        self._rule_id = rule_id
        self._core = _fastkotormatch.Core(
            rule_id,
            rules.target,
            rules.sets_to_win,
            self._expand_mine,
            self._deck_draws,
            self._native_over,
            SolverTooLarge,
            NATIVE_MEMO_ENTRIES,
        )
        seat = self.opp
        self._core.set_sides_rules(seat.size, seat.nine_win, seat.any_tiebreak, seat.flip_all)
        seat.before_new = self._pull_their_sides
        self._iterating = _Volatile(self._core)
        self.my_before_draw = self._native_my_before_draw  # type: ignore[method-assign]
        self.opp_before_draw = self._native_opp_before_draw  # type: ignore[method-assign]
        self._turn_ended = self._native_turn_ended  # type: ignore[method-assign]
        self._odds_ended = self._native_odds_ended  # type: ignore[method-assign]

    @property
    def exact_position_bytes(self) -> int:
        """Bytes a position takes on an exact deck, as the memory cap counts it."""
        return NATIVE_EXACT_POSITION_BYTES if self.native else EXACT_POSITION_BYTES

    @property
    def native(self) -> bool:
        """Whether the C inner loop does the search."""
        return self._core is not None

    @property
    def budget(self) -> int | None:
        """The count of :attr:`states` at which a search raises :class:`SolverTooLarge`
        (``None``: no budget)."""
        return self._budget

    @budget.setter
    def budget(self, budget: int | None) -> None:
        self._budget = budget
        if self._core is not None:
            self._core.budget = budget

    @property
    def progress(self) -> Callable[[int], None] | None:
        """Called with :attr:`states` every so many new positions (16,384 in Python)."""
        return self._progress

    @progress.setter
    def progress(self, progress: Callable[[int], None] | None) -> None:
        self._progress = progress
        if self._core is not None:
            self._core.progress = progress

    def _sync(self) -> None:
        """Tell the C loop of the hands, sides, candidate lists and contexts Python interned
        since it last heard (the ids are Python's: the loop mirrors them, and numbers the rule's
        sides its turns find as :meth:`RuleSeat.turn` would: :meth:`_pull_their_sides`)."""
        core = self._core
        mine, theirs = self.me, self.opp
        if (
            core.mine_sides == len(mine.sides)
            and core.their_sides == len(theirs.sides)
            and core.lists == len(mine.lists)
            and core.contexts == len(self._context_info)
        ):
            return  # (the common case: nothing new)
        self._pull_their_sides()
        start = core.mine_sides
        if start < len(mine.sides):
            core.add_sides(
                ME,
                mine.kind[start:],
                mine.total[start:],
                [_tiebreak(side) for side in mine.sides[start:]],
                mine.hand_of[start:],
            )
        new_hands = range(core.their_hands, len(theirs.hands))
        if new_hands:
            core.add_their_hands(
                [
                    (*theirs.facts[hand], [play[1:4] for play in theirs.plays[hand]], [])
                    for hand in new_hands
                ],
                [play[4] for hand in new_hands for play in theirs.plays[hand]],
            )
        if core.their_sides < len(theirs.sides):
            core.add_their_sides(theirs.sides[core.their_sides :])
        for codes in mine.lists[core.lists :]:
            core.add_list(codes)
        for context in range(core.contexts, len(self._context_info)):
            sets, _, _, model = self._context_info[context]
            core.add_context(sets, model, self._models[model].fixed is not None)

    def _pull_their_sides(self) -> None:
        """Number in Python the rule's sides the C loop's turns numbered since (the same ids:
        it numbers them in :meth:`RuleSeat.turn`'s order). Called before Python numbers a new
        side of the rule's, so that both number it alike."""
        core = self._core
        if core is not None and core.their_sides > len(self.opp.sides):
            self.opp.adopt(core.their_sides_from(len(self.opp.sides)))

    def _expand_mine(self, me: int, drawn: int) -> int:
        """The C loop's callback: the number of my list of turn ends after ``drawn``."""
        number = self.me.after.get(me * 16 + drawn)
        if number is None:
            number = self.me.ends_after_draw(me, drawn)
        self._sync()
        return number

    def _deck_draws(self, model: int, deck: int) -> tuple[tuple[int, float, int], ...]:
        """The C loop's callback: the draws from ``deck`` in deck model ``model``."""
        return self._models[model].draws(deck)

    def _native_over(
        self, context: int, winner: int, my_hand: int, its_hand: int
    ) -> tuple[float, float, bool]:
        """The C loop's callback: :meth:`_set_over` (``winner`` -1: a tie), and whether that
        value is final (not the value being iterated, which the loop keeps apart)."""
        before = self._read_unknown
        self._read_unknown = False
        try:
            value, slope = self._set_over(
                context, None if winner < 0 else winner, my_hand, its_hand
            )
        finally:
            iterated = self._read_unknown
            self._read_unknown = before or iterated
        return value, slope, not iterated

    def _native_my_before_draw(self, context: int, me: int, opp: int, deck: int) -> Pair:
        self._sync()
        pair: Pair = self._core.before(context, ME, me, opp, deck)
        return pair

    def _native_opp_before_draw(self, context: int, me: int, opp: int, deck: int) -> Pair:
        self._sync()
        pair: Pair = self._core.before(context, OPP, me, opp, deck)
        return pair

    def _native_turn_ended(self, context: int, mover: int, me: int, opp: int, deck: int) -> Pair:
        self._sync()
        pair: Pair = self._core.turn_ended(context, mover, me, opp, deck)
        return pair

    def _native_odds_ended(
        self, context: int, mover: int, me: int, opp: int, deck: int
    ) -> tuple[float, float]:
        self._sync()
        odds: tuple[float, float] = self._core.odds_ended(
            context, mover, me, opp, deck, BEST_TOLERANCE
        )
        return odds

    def _enter_live(
        self, contexts: tuple[int, ...], my_hand: int, its_hand: int, keep: bool
    ) -> Any:
        """The match state (``contexts``, hands) is iterated from now on: the C loop keeps its
        positions apart (from one value tried to the next where ``keep``: their lines do not
        read it); what it held of the state iterated before is returned to restore."""
        core = self._core
        if core is None:
            return None
        saved = (core.interval, core.read_unknown, core.x)
        core.push_live(contexts, my_hand, its_hand, keep)
        return saved

    def _leave_live(self, saved: Any) -> None:
        """The match state :meth:`_enter_live` began is done (solved or given up)."""
        core = self._core
        if core is not None:
            core.pop_live()
            core.interval, core.read_unknown, core.x = saved

    @property
    def states(self) -> int:
        """Positions solved so far, over every group."""
        if self._core is not None:
            return int(self._core.solved)
        return self._positions

    def bound_memo(self) -> None:
        """Empty a bounded memo that is full (between searches only); the match-state values,
        sides and hands stay."""
        if self.max_states is not None and self.states >= self.max_states:
            self._memos = [{} for _ in self._memos]
            self._odds_memo.clear()
            if self.budget is not None and not self._budget_held:
                self.budget -= self.states  # (it counts new positions: keep what is left)
            self._positions = 0
            if self._core is not None:
                self._core.clear_memo()
                self._core.solved = 0
        if self._core is not None:
            self._renumber_sides()

    def _renumber_sides(self) -> None:
        """Between searches: once either seat holds more than :data:`NATIVE_SIDES` sides (the C
        loop numbers at most ``MAX_IDS``, and a solver shared by a whole ``play`` or
        ``simulate`` session keeps adding some), forget every side, list and position, in both
        seats and in a new C loop; the match states' values and the set ends' stay (they are
        keyed by hands)."""
        mine, theirs = self.me, self.opp
        if max(len(mine.sides), self._core.their_sides, len(mine.lists)) <= NATIVE_SIDES:
            return
        mine.forget_sides()
        theirs.forget_sides()
        self._memos = [{} for _ in self._memos]
        self._odds_memo.clear()
        core = self._core
        solved, budget, progress = int(core.solved), self.budget, self.progress
        self._start_core(self._rule_id)
        self._core.solved = solved
        self.budget, self.progress = budget, progress

    def _new_position(self) -> None:
        self._positions += 1
        if self._budget is not None and self._positions >= self._budget:
            raise SolverTooLarge("the exact solve exceeds its state budget")
        if not self._positions & PROGRESS_MASK and self._progress is not None:
            self._progress(self._positions)

    # -- contexts, groups, decks -------------------------------------------------------------------

    def _new_context(self, model: int) -> None:
        """A new context's tables: its positions, its ends of a set, its deck model."""
        self._memos.append({})
        self._overs.append({})
        self._context_decks.append(self._models[model])

    def _is_live(self, context: int, me: int, opp: int) -> bool:
        """Whether the position (``me``, ``opp``) of ``context`` is a card-free position of the
        match state being iterated (its value then depends on the value iterated)."""
        live = self._live
        return (
            live is not None
            and context in live[0]
            and self.me.hand_of[me] == live[1]
            and self.opp.hand_of[opp] == live[2]
        )

    def _draws_of(self, context: int, deck: int) -> tuple[tuple[int, float, int], ...]:
        return self._context_decks[context].draws(deck)

    def deck_model(self, deck: tuple[int, ...], exact: bool) -> int:
        """The id of the model of a set in progress on ``deck`` (exact: without replacement;
        every deck drawn exactly shares one model: :class:`DeckModels`)."""
        return self._models.model(deck, exact)

    # -- the recursion inside a set ----------------------------------------------------------------

    # Memo keys: ((side ids) << 28 | deck) << 2 | tag; tag 0: I am to draw, 1: the opponent is
    # to draw, 2: my best end of turn from a candidate list (the list number in place of my side).
    # The loops read their children's values inline and call the solving method only for a new
    # position: that is the hot path.

    def my_before_draw(self, context: int, me: int, opp: int, deck: int) -> Pair:
        """I (side ``me``, playing) am about to draw against side ``opp``."""
        memo = self._memos[context]
        key = ((((me << 28) | opp) << 28) | deck) << 2
        found = memo.get(key)
        if found is not None:
            return found
        self._new_position()
        live = self._is_live(context, me, opp)
        mine = self.me
        after = mine.after
        lists = mine.lists
        kinds = mine.kind
        they_stand = self.opp.standing[opp]
        end = self._turn_ended
        mine_next = self.my_before_draw
        theirs_next = self.opp_before_draw
        value = slope = 0.0
        for drawn, probability, rest in self._draws_of(context, deck):
            number = after.get(me * 16 + drawn)
            if number is None:
                number = mine.ends_after_draw(me, drawn)
            choice_key = ((((number << 28) | opp) << 28) | rest) << 2 | 2
            best = memo.get(choice_key)
            if best is None:
                best = _NO_PAIR
                best_at = -1.0
                seen: list[Pair] | None = [] if live else None
                for code in lists[number]:
                    kind = kinds[code]
                    if kind == PLAYING and they_stand:
                        pair = memo.get(((((code << 28) | opp) << 28) | rest) << 2)
                        if pair is None:
                            pair = mine_next(context, code, opp, rest)
                    elif kind <= STANDING and not they_stand:
                        pair = memo.get((((((code << 28) | opp) << 28) | rest) << 2) | 1)
                        if pair is None:
                            pair = theirs_next(context, code, opp, rest)
                    else:
                        pair = end(context, ME, code, opp, rest)
                    if seen is not None:  # a line: compared at the value tried, all of them seen
                        seen.append(pair)
                        at = pair[0] + pair[1] * self._x
                        if at > best_at:
                            best, best_at = pair, at
                    elif pair[0] > best[0]:
                        best = pair
                        if best[0] >= 1.0:
                            break
                memo[choice_key] = best
                self._positions += 1
                if seen is not None:
                    self._live_keys.append((memo, choice_key))
                    self._narrow(best, seen)
            value += probability * best[0]
            slope += probability * best[1]
        return self._solved(memo, key, (value, slope), live)

    def opp_before_draw(self, context: int, me: int, opp: int, deck: int) -> Pair:
        """The opponent (side ``opp``, playing) is about to draw against my side ``me``."""
        memo = self._memos[context]
        key = (((((me << 28) | opp) << 28) | deck) << 2) | 1
        found = memo.get(key)
        if found is not None:
            return found
        self._new_position()
        live = self._is_live(context, me, opp)
        mine, theirs = self.me, self.opp
        i_stand = mine.standing[me]
        sets = self._context_info[context][0]
        replies = theirs.replies(opp, mine.total[me], i_stand, sets)
        kinds = theirs.kind
        end = self._turn_ended
        if i_stand:  # the sets it can end, read inline: (winner, my hand) as _set_over keys them
            stood = mine.sides[me]
            assert len(stood) == 4
            _, my_total, my_tiebreak, my_hand = stood
            overs = self._overs[context]
            sides = theirs.sides
            hand_of = theirs.hand_of
            i_win = (((ME + 1) << 28) | my_hand) << 28
            it_wins = (((OPP + 1) << 28) | my_hand) << 28
            tied = my_hand << 28
        value = slope = 0.0
        for drawn, probability, rest in self._draws_of(context, deck):
            code = replies[drawn]
            kind = kinds[code]
            if i_stand:
                if kind == PLAYING:
                    pair = memo.get((((((me << 28) | code) << 28) | rest) << 2) | 1)
                    if pair is None:
                        pair = self.opp_before_draw(context, me, code, rest)
                else:
                    if kind == STANDING:
                        side = sides[code]
                        if side[1] != my_total:
                            over = i_win if my_total > side[1] else it_wins
                        elif side[2] != my_tiebreak:
                            over = i_win if my_tiebreak else it_wins
                        else:
                            over = tied
                    else:
                        over = i_win if kind == BUST else it_wins
                    pair = overs.get(over | hand_of[code])
                    if pair is None:
                        pair = end(context, OPP, me, code, rest)
            elif kind <= STANDING:
                pair = memo.get(((((me << 28) | code) << 28) | rest) << 2)
                if pair is None:
                    pair = self.my_before_draw(context, me, code, rest)
            else:
                pair = end(context, OPP, me, code, rest)
            value += probability * pair[0]
            slope += probability * pair[1]
        return self._solved(memo, key, (value, slope), live)

    def _solved(self, memo: dict[int, Pair], key: int, result: Pair, live: bool) -> Pair:
        """Remember a position's value ``result`` under ``key``, and, where it depends on the
        value being iterated (``live``), where to forget it (:meth:`_forget`, :meth:`_settle`)."""
        memo[key] = result
        if live:
            self._live_keys.append((memo, key))
        return result

    def _turn_ended(self, context: int, mover: int, me: int, opp: int, deck: int) -> Pair:
        """The value once ``mover``'s turn ended, my side ``me`` against its side ``opp``: the
        other player draws next while he still plays, else the mover while it still plays;
        once neither does, or a side busted or won by its ninth card, the set is over."""
        mine, theirs = self.me, self.opp
        if mover == ME:
            kind, other_stands = mine.kind[me], theirs.standing[opp]
        else:
            kind, other_stands = theirs.kind[opp], mine.standing[me]
        if kind <= STANDING and not other_stands:
            mover = 1 - mover
        elif kind == STANDING:
            return self._judge(context, me, opp)
        elif kind != PLAYING:
            winner = 1 - mover if kind == BUST else mover
            return self._set_over(context, winner, mine.hand_of[me], theirs.hand_of[opp])
        if mover == ME:
            return self.my_before_draw(context, me, opp, deck)
        return self.opp_before_draw(context, me, opp, deck)

    def _winner(self, me: int, opp: int) -> int | None:
        """Both stand: the higher total wins; equal totals go to a lone tiebreaker."""
        a, b = self.me.sides[me], self.opp.sides[opp]
        if a[1] != b[1]:
            return ME if a[1] > b[1] else OPP
        if a[2] != b[2]:
            return ME if a[2] else OPP
        return None

    def _judge(self, context: int, me: int, opp: int) -> Pair:
        winner = self._winner(me, opp)
        return self._set_over(context, winner, self.me.hand_of[me], self.opp.hand_of[opp])

    # -- the match: from one set to the next ------------------------------------------------------

    def _set_over(self, context: int, winner: int | None, my_hand: int, its_hand: int) -> Pair:
        """The value once a set of ``context`` ends (``winner`` None: a tie) with these hands
        left: the start of the next set, or the end of the match."""
        overs = self._overs[context]
        over_key = ((((0 if winner is None else winner + 1) << 28) | my_hand) << 28) | its_hand
        known = overs.get(over_key)
        if known is not None:
            return known
        mine, theirs, opener, _ = self._context_info[context]
        if winner == ME:
            mine += 1
            if mine >= self._sets_to_win:
                return _WON
        elif winner == OPP:
            theirs += 1
            if theirs >= self._sets_to_win:
                return _LOST
        match = (mine, theirs, my_hand, its_hand)
        spec = self._next_opener(winner, opener)
        found = self._iterated(match, spec)
        if found is not None:
            return found
        result = overs[over_key] = (self.entry(match, spec), 0.0)  # (final: never iterated)
        return result

    def entry(self, match: MatchKey, spec: int) -> float:
        """P(I win the match) when a set starts in ``match`` and ``spec`` says who opens it."""
        found = self._entries.get((match, spec))
        if found is None:
            found = self._peer_value(self._split, match, spec)
        return self._solve_entry(match, spec) if found is None else found

    def _root(self, match: MatchKey, opener: int) -> Pair:
        """A set started from empty tables, ``opener`` drawing first."""
        mine, theirs, my_hand, its_hand = match
        context = self._context(mine, theirs, opener, _LATER)
        me = self.me.side((0, 0, my_hand, 0, 0, False))
        opp = self.opp.side((0, 0, its_hand, 0, 0, False))
        if opener == ME:
            return self.my_before_draw(context, me, opp, 0)
        return self.opp_before_draw(context, me, opp, 0)

    def _narrow(self, best: Pair, seen: list[Pair]) -> None:
        """Narrow the interval of values tried over which the choice of the line ``best`` among
        the lines ``seen`` stands, each by :data:`CHOICE_MARGIN`."""
        value, slope = best
        low, high = self._interval
        for other, other_slope in seen:
            if other_slope > slope:
                high = min(high, (value - other - CHOICE_MARGIN) / (other_slope - slope))
            elif other_slope < slope:
                low = max(low, (other - value + CHOICE_MARGIN) / (slope - other_slope))
        self._interval = (low, high)

    def _forget(self) -> None:
        """A new value is tried: drop the positions whose lines were chosen at the value tried
        before (Python drops them all; the C loop keeps those whose choices stand at the new
        one, the same bits: :data:`CHOICE_MARGIN`). They stay counted: they were searched."""
        if self._core is not None:
            self._core.forget()
            return
        for memo, key in self._live_keys:
            del memo[key]
        self._live_keys.clear()

    def _settle(self) -> None:
        """The value iterated is known: drop its card-free positions (those that read it), as
        for a new evaluation. A state with more cards that reaches them solves them again from
        the value found, so every value is a pure function of its key, to the last bit: the same
        however the hands of an answer are shared among processes, in whatever order its states
        are solved, whatever the bounded tables forgot. (Moved along their slopes to the value
        found instead, they kept it to about 1e-15, in last bits that depended on all that; the
        exact answer about 4 hidden cards took as long either way: docs/benchmarks.md.)"""
        if self._core is not None:
            self._core.settle()
            return
        for memo, key in self._live_keys:  # (counted: they were solved)
            del memo[key]
        self._live_keys.clear()

    def _solve_entry(self, match: MatchKey, spec: int) -> float:
        """Solve the fixed point of ``match``: a tie with no card played comes back to it."""
        rule = self._rule
        iterating = self._iterating
        evaluate: Callable[[float], Pair]
        if rule is FirstPlayer.ALTERNATE:
            unknown = (match, ME)  # the openers alternate after a tie: iterate on my entry

            def evaluate(x: float) -> Pair:
                iterating[unknown] = (0.0, 1.0)
                iterating.pop((match, OPP), None)
                self._forget()
                iterating[(match, OPP)] = self._root(match, OPP)  # its ties come back to x
                return self._root(match, ME)

        elif rule is FirstPlayer.RANDOM:
            unknown = (match, RANDOM)

            def evaluate(x: float) -> Pair:
                iterating[unknown] = (0.0, 1.0)
                self._forget()
                (v0, d0), (v1, d1) = self._root(match, ME), self._root(match, OPP)
                return (0.5 * (v0 + v1), 0.5 * (d0 + d1))

        else:  # the same player opens after a tie (player 1 always, or the loser rule)
            unknown = (match, spec if rule is FirstPlayer.LOSER else self._player1)
            opener = unknown[1]

            def evaluate(x: float) -> Pair:
                iterating[unknown] = (0.0, 1.0)
                self._forget()
                return self._root(match, opener)

        mine, theirs, my_hand, its_hand = match
        openers = (ME, OPP) if self._reads_opener else (_OPENER_FREE,)
        contexts = tuple(self._context(mine, theirs, opener, _LATER) for opener in openers)
        guess = self._guess(match, unknown[1])
        outer = (self._live, self._live_keys, self._interval, self._x)
        self._live, self._live_keys = (contexts, my_hand, its_hand), []
        outer_core = self._enter_live(
            contexts, my_hand, its_hand, keep=rule is not FirstPlayer.ALTERNATE
        )
        try:
            value, _ = self._fixed_point(evaluate, guess)
            self._entries[unknown] = value
            if rule is FirstPlayer.ALTERNATE:  # the other opener's line at the value found
                other, slope = iterating[(match, OPP)]
                self._entries[(match, OPP)] = other + slope * value
            self._settle()
        except BaseException:  # a budget, Ctrl-C: these positions read a value never found
            self._forget()
            raise
        finally:
            iterating.pop(unknown, None)
            iterating.pop((match, OPP), None)
            self._live, self._live_keys, self._interval, self._x = outer
            self._leave_live(outer_core)
        found = self._entries.get((match, spec))
        if found is None:  # one opener's entry under the random rule, or a set typed by hand
            found = self._entries[(match, spec)] = self._root(match, spec)[0]
        return found

    def _guess(self, match: MatchKey, spec: int) -> float:
        """Newton's start: halfway between winning and losing this set with the same hands."""
        mine, theirs, my_hand, its_hand = match
        context = self._context(mine, theirs, spec if spec in (ME, OPP) else ME, _LATER)
        won = self._set_over(context, ME, my_hand, its_hand)[0]
        lost = self._set_over(context, OPP, my_hand, its_hand)[0]
        return 0.5 * (won + lost)

    def _evaluation(
        self, evaluate: Callable[[float], Pair], x: float
    ) -> tuple[Pair, tuple[float, float] | None]:
        """``evaluate(x)``: the root's line read at x, and the offsets from x over which every
        choice it made stands (narrowed by :meth:`_narrow` as the evaluation goes)."""
        self._x = x
        self._interval = (-_INFINITY, _INFINITY)
        core = self._core
        if core is not None:
            core.x = x
            core.interval = (-_INFINITY, _INFINITY)
            core.read_unknown = False
        value, slope = evaluate(x)
        low, high = self._interval
        if core is not None:
            if core.read_unknown:  # (a set's end read the value tried from the loop's tables)
                self._read_unknown = True
            low, high = max(low, core.interval[0]), min(high, core.interval[1])
        return (value + slope * x, slope), (low - x, high - x)

    # -- questions ---------------------------------------------------------------------------------

    def _specs(self) -> tuple[int, ...]:
        if self._reads_opener:
            return (ME, OPP)
        return (RANDOM,) if self._rule is FirstPlayer.RANDOM else (self._player1,)

    def _exact_table(self) -> None:
        """Let the C loop's main table grow to :data:`NATIVE_EXACT_MEMO_ENTRIES` from now on: a
        set drawn without replacement has a position per deck, and in the smaller table it
        forgets them faster than it solves them; and at that bound give each new position its
        home's slot rather than forget them all (such a search may need four times the
        positions the table holds: docs/benchmarks.md, "the rule's main table")."""
        if self._core is not None:
            if self._core.main_bound < NATIVE_EXACT_MEMO_ENTRIES:
                self._core.main_bound = NATIVE_EXACT_MEMO_ENTRIES
            self._core.main_evicts = True

    # -- the disk cache (pazaak_cli.solve.match_cache) -----------------------------------------

    later_deck = FULL_DECK
    """The later sets are drawn with a full deck's odds (the model the disk cache keeps)."""

    @property
    def cache_kind(self) -> str | None:
        """What the values mean beside the ruleset, for the disk cache's file: the rule and the
        advised seat (they are that seat's chances, the rule at the other); None for a rule the
        cache does not name (its values are not kept)."""
        return rule_cache_kind(self.decision_rule, self.me_seat)

    def cache_interns(
        self,
    ) -> tuple[Callable[[Sequence[Card]], int], Callable[[Sequence[Card]], int]]:
        """How the cache's two hands of a row (mine, then the rule's, in its order) become ids."""
        return self.me.hand, self.opp.hand

    def known_entries(
        self,
    ) -> Iterable[tuple[tuple[int, int], tuple[tuple[Card, ...], tuple[Card, ...]], int, float]]:
        """Every match state's value solved so far: (sets won by me and by the rule, my hand and
        the rule's, the opener spec, the value)."""
        mine, theirs = self.me.hands, self.opp.hands
        for ((s0, s1, h0, h1), spec), value in list(self._entries.items()):
            yield (s0, s1), (mine[h0], theirs[h1]), spec, value

    @property
    def opener_count(self) -> int:
        """The values a match state has: one per opener the first-player rule leaves open."""
        return len(self._specs())

    def holds(self, match: MatchKey) -> int:
        """How many of ``match``'s values (one per opener) are known."""
        return sum((match, spec) in self._entries for spec in self._specs())

    def prepare(self, scores: tuple[int, int], my_hand: int, its_hands: Iterable[int]) -> None:
        """Solve the match states below ``scores`` (mine, its) and the hands bottom up (fewer
        cards and more sets first), so that no solve nests inside another. (Asked again, as
        every hand's moves ask it, it answers at once: :attr:`_known_below`.)"""
        key = (scores, my_hand, tuple(its_hands))
        if key not in self._known_below:
            self._solve_in_order(self.states_below(scores, my_hand, key[2]))
            self._known_below.add(key)

    def prepare_in_two(
        self,
        scores: tuple[int, int],
        my_hand: int,
        its_hands: Iterable[Iterable[int]],
        budget: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> bool:
        """:meth:`prepare` for each group of ``its_hands`` (one hand's orders), in their order,
        in this process and a forked copy at once, each taking every other score
        (:class:`~pazaak_cli.solve.match_pipeline.StateSplit`): the same values to the last bit,
        a value being a function of its key (:meth:`_settle`). (One hand at a time, as the
        rows solve them: the states of all the hands in ``prepare``'s order, each score's
        lattice at once, outgrew the bounded tables: 1.24 times the CPU.) ``budget``: the
        positions each process may search; ``progress(done, total)``: the groups this process
        is past. False: not done so (no fork here, one process allowed, or too few states left
        for two); a copy that dies leaves its states to this process."""
        specs = self._specs()
        listed: dict[MatchKey, int] = {}  # (each state to solve, and its first group)
        groups = [list(group) for group in its_hands]
        if all((scores, my_hand, tuple(group)) in self._known_below for group in groups):
            return False  # (every one known already, as the foresight found: nothing to list)
        for number, group in enumerate(groups):
            for match in self.states_below(scores, my_hand, group):
                if match not in listed and any(
                    (match, spec) not in self._entries for spec in specs
                ):
                    listed[match] = number
        states = list(listed)
        if not states:  # (every one known: the hands' moves need not list them again)
            self._known_below.update((scores, my_hand, tuple(group)) for group in groups)
            return False
        if len(states) < SPLIT_MIN_STATES or not two_solver_processes():
            return False
        split = StateSplit(states)
        split.huge = len(states) >= HUGE_PAGES_MIN_STATES
        saved_budget = self.budget
        self.budget = None if budget is None else self.states + budget
        self._split = split
        try:
            try:
                child: ForkedCall | None = ForkedCall(partial(self._split_child, split))
            except OSError:
                child = None
            if self._huge_tables(split):
                self._core.own_tables(True)  # (:meth:`_split_child`)
            try:
                split.child = child.pid if child is not None else None
                split.lost = child is None
                reached = None
                if progress is not None:

                    def reached(match: MatchKey) -> None:
                        progress(listed[match], len(groups))

                self._solve_in_order(split.mine(), reached)
                if child is not None:
                    with contextlib.suppress(WorkerLost):  # (died: what it left is solved below)
                        child.result()
            finally:
                if child is not None:
                    child.stop()
            split.lost = True  # (nothing more to wait for)
            for key, value in split.values().items():
                self._entries.setdefault(key, value)
            self._split = None
            self._solve_in_order(states)  # (what a copy that died left; the rest is known)
            if progress is not None:
                progress(len(groups), len(groups))
        finally:
            self._split = None
            self.budget = saved_budget
            split.close()
        return True

    def _split_child(self, split: StateSplit) -> None:
        """In the forked copy: solve the split's other states (their values pass through its
        table)."""
        split.seat = 1
        self.progress = None  # (the parent shows the progress)
        if self._huge_tables(split):
            self._core.own_tables(True)
        self._solve_in_order(split.mine())

    def _huge_tables(self, split: StateSplit) -> bool:
        """Whether both processes of ``split``, once forked, take the main table into huge
        pages of their own: for a long search (:data:`HUGE_PAGES_MIN_STATES`), and always once
        it is in huge pages (shared with the other process, they would be copied a small page
        at a time as either writes them)."""
        core = self._core
        return core is not None and (split.huge or bool(core.huge_pages))

    def _solve_in_order(
        self, states: Iterable[MatchKey], reached: Callable[[MatchKey], None] | None = None
    ) -> None:
        """Solve each of ``states`` for every opener spec, in order (each reads only states
        before it, or smaller ones solved on the way), calling ``reached`` before each; under
        :meth:`prepare_in_two`, each published for the other process."""
        specs = self._specs()
        split = self._split
        entries = self._entries
        for match in states:
            if reached is not None:
                reached(match)
            if split is None and all((match, spec) in entries for spec in specs):
                continue  # (known: a prepared pair's, or the cache's)
            if split is not None:
                split.start(match)
            for spec in specs:
                # nothing is being searched between two match states: a full memo may be
                # emptied there (what a later state reads again is solved again)
                self.bound_memo()
                self.entry(match, spec)
            if split is not None:
                split.publish(
                    match,
                    {spec: entries[(match, spec)] for spec in range(3) if (match, spec) in entries},
                )

    def states_below(
        self, scores: tuple[int, int], my_hand: int, its_hands: Iterable[int]
    ) -> list[MatchKey]:
        """The match states at ``scores`` (mine, its) and after, with sub-hands of these hands,
        in :meth:`prepare`'s order: more sets played first, then fewer cards."""
        mine = self.me.sub_hands(my_hand)
        theirs: dict[int, None] = {}
        for hand in its_hands:
            theirs.update(dict.fromkeys(self.opp.sub_hands(hand)))
        pairs = sorted(
            ((x, y) for x in mine for y in theirs),
            key=lambda pair: len(self.me.hands[pair[0]]) + len(self.opp.hands[pair[1]]),
        )
        target = self._sets_to_win
        states = []
        for total in range(2 * target - 2, scores[0] + scores[1] - 1, -1):
            for s0 in range(target - 1, scores[0] - 1, -1):
                s1 = total - s0
                if scores[1] <= s1 < target:
                    states += [(s0, s1, x, y) for x, y in pairs]
        return states

    def set_start_value(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Card], Sequence[Card]],
        opener: int,
    ) -> float:
        """P(I win the match) when a set starts from empty tables at ``scores`` (mine, its)
        with ``hands`` (mine, its, in its order), ``opener`` (:data:`ME` or :data:`OPP`)
        drawing first."""
        if max(scores) >= self._sets_to_win:
            return 1.0 if scores[0] >= self._sets_to_win else 0.0
        my_hand, its_hand = self.me.hand(hands[0]), self.opp.hand(hands[1])
        self.prepare(scores, my_hand, [its_hand])
        match = (scores[0], scores[1], my_hand, its_hand)
        if self._rule is FirstPlayer.RANDOM or (
            self._rule is FirstPlayer.PLAYER1 and opener != self._player1
        ):
            self.entry(match, self._specs()[0])
            return self._root(match, opener)[0]
        return self.entry(match, opener)

    def solve_moves(
        self,
        question: Question,
        other_hand: Sequence[Card],
        *,
        current_deck: tuple[int, ...] | None,
        exact: bool = False,
        budget: int | None = None,
        orders: bool = False,
    ) -> list[MatchMove]:
        """Every move of the question's mover (seat :attr:`me_seat`) with its match value and the
        set's odds along its line, the opponent holding ``other_hand`` (in that order, or, with
        ``orders``, averaged over the orders of it that matter: a hidden hand). ``current_deck``:
        the main deck after the draw, for the set in progress (``None``: a full deck's odds);
        ``exact``: draw it without replacement."""
        state = question.state
        mover = state.turn
        me_side, other_side = state.sides[mover], state.sides[1 - mover]
        my_cards = tuple(card for card in me_side.hand if card is not None)
        hands = match_hand_orders(other_hand) if orders else [tuple(other_hand)]
        scores, my_hand, its_hands = self._question_states(question, hands)
        capped = None  # (room, resident) when the exact deck's memory cap is the bound
        if exact and current_deck is not None:
            self._exact_table()
            room, resident = exact_room(self.exact_position_bytes)
            if budget is None or room < budget:
                budget, capped = room, (room, resident)
        saved_budget, saved_held = self.budget, self._budget_held
        self.budget = None if budget is None else self.states + budget
        self._budget_held = capped is not None
        try:
            with capped_search(capped, current_deck, self.exact_position_bytes):
                self.prepare(scores, my_hand, its_hands)  # (the later sets count in the budget)
                model, deck = self._set_deck(current_deck, exact)
                opener = ME if state.opener == mover else OPP
                context = self._context(scores[0], scores[1], opener, model)
                me = self.me.playing_side(me_side, my_cards)
                moves = root_moves(
                    question,
                    me,
                    lambda side, drawn: self.me.add(side, drawn, my_hand),
                    self.me.labelled_moves,
                )
                sums = [[0.0, 0.0, 0.0] for _ in moves]
                for hand in hands:
                    other = self.opp.engine_side(other_side, hand)
                    for row, (_, code) in zip(sums, moves, strict=True):
                        row[0] += self._turn_ended(context, ME, code, other, deck)[0]
                        win, tie = self._odds_ended(context, ME, code, other, deck)
                        row[1] += win
                        row[2] += tie
        finally:
            self.budget, self._budget_held = saved_budget, saved_held
        share = 1.0 / len(hands)
        results = []
        for (move, _), (value, win, tie) in zip(moves, sums, strict=True):
            win, tie = share * win, share * tie
            results.append(
                MatchMove(
                    move,
                    clean_probability(share * value),
                    clean_probability(win),
                    clean_probability(tie),
                    clean_probability(1.0 - win - tie),
                )
            )
        return results

    def prepare_question(
        self,
        question: Question,
        other_hands: Iterable[Sequence[Card]],
        *,
        budget: int | None = None,
        orders: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> bool:
        """Solve the later sets of :meth:`solve_moves` for each of ``other_hands`` at once, in
        two processes (:meth:`prepare_in_two`; False: not done so, left to each hand's
        :meth:`solve_moves`). ``budget``: the positions each process may search;
        ``progress(done, total)``: the hands whose later sets this process is past."""
        groups = [match_hand_orders(hand) if orders else [tuple(hand)] for hand in other_hands]
        scores, my_hand, _ = self._question_states(question, [])
        its_hands = [[self.opp.hand(order) for order in group] for group in groups]
        return self.prepare_in_two(scores, my_hand, its_hands, budget, progress)

    def later_sets_known(
        self,
        scores: tuple[int, int],
        my_cards: Sequence[Card],
        hand: Sequence[Card],
        *,
        orders: bool = False,
    ) -> bool:
        """Whether every match state :meth:`prepare_hand` would solve is known."""
        mine, its = self._hand_ids(my_cards, hand, orders)
        key = (scores, mine, tuple(its))
        if key in self._known_below:
            return True
        specs, entries = self._specs(), self._entries
        if all(
            (match, spec) in entries
            for match in self.states_below(scores, mine, its)
            for spec in specs
        ):
            self._known_below.add(key)
            return True
        return False

    def prepare_hand(
        self,
        scores: tuple[int, int],
        my_cards: Sequence[Card],
        hand: Sequence[Card],
        *,
        orders: bool = False,
    ) -> None:
        """Solve, in this process, the later sets :meth:`solve_moves` reads at ``scores`` (mine,
        its) with ``my_cards`` against ``hand`` (``orders``: each order of a hidden hand's
        cards the rule tells apart, as :meth:`prepare_question` does)."""
        self.prepare(scores, *self._hand_ids(my_cards, hand, orders))

    def _hand_ids(
        self, my_cards: Sequence[Card], hand: Sequence[Card], orders: bool
    ) -> tuple[int, list[int]]:
        """My hand's id, and those of ``hand``'s orders (or of the hand alone)."""
        group = match_hand_orders(hand) if orders else [tuple(hand)]
        return self.me.hand(tuple(my_cards)), [self.opp.hand(order) for order in group]

    def _question_states(
        self, question: Question, its_hands: Iterable[Sequence[Card]]
    ) -> tuple[tuple[int, int], int, list[int]]:
        """The score (mine, its), my hand's id and ``its_hands``' ids of a question to the
        advised seat: where its later sets start."""
        state = question.state
        mover = state.turn
        if mover != self.me_seat:
            raise PazaakError("this solver advises the other seat")
        my_cards = tuple(card for card in state.sides[mover].hand if card is not None)
        won = state.sets_won()
        scores = (won[mover], won[1 - mover])
        return scores, self.me.hand(my_cards), [self.opp.hand(hand) for hand in its_hands]

    # -- the set's odds along the chosen line ------------------------------------------------------

    def _odds_ended(
        self, context: int, mover: int, me: int, opp: int, deck: int
    ) -> tuple[float, float]:
        """(P(I win the set), P(tie)) once ``mover``'s turn ended, my side ``me`` against its
        side ``opp``, both then playing on (I for the match, the opponent by its rule), in the
        order :meth:`_turn_ended` says."""
        mine, theirs = self.me, self.opp
        kind = mine.kind[me] if mover == ME else theirs.kind[opp]
        other_stands = theirs.standing[opp] if mover == ME else mine.standing[me]
        if kind == PLAYING or (kind == STANDING and not other_stands):
            drawer = mover if kind == PLAYING and other_stands else 1 - mover
            return self._odds_before(context, drawer, me, opp, deck)
        if kind == STANDING:
            return _judged(self._winner(me, opp))
        return _judged(1 - mover if kind == BUST else mover)

    def _odds_before(
        self, context: int, mover: int, me: int, opp: int, deck: int
    ) -> tuple[float, float]:
        key = (context, mover, me, opp, deck)
        found = self._odds_memo.get(key)
        if found is not None:
            return found
        win = tie = 0.0
        draws = self._draws_of(context, deck)
        mine = self.me
        if mover == OPP:
            sets = self._context_info[context][0]
            replies = self.opp.replies(opp, mine.total[me], mine.standing[me], sets)
            for drawn, probability, rest in draws:
                w, t = self._odds_ended(context, OPP, me, replies[drawn], rest)
                win += probability * w
                tie += probability * t
        else:
            for drawn, probability, rest in draws:
                number = mine.after.get(me * 16 + drawn)
                if number is None:
                    number = mine.ends_after_draw(me, drawn)
                code = self._choice(context, number, opp, rest)
                w, t = self._odds_ended(context, ME, code, opp, rest)
                win += probability * w
                tie += probability * t
        self._odds_memo[key] = (win, tie)
        return win, tie

    def _choice(self, context: int, number: int, opp: int, deck: int) -> int:
        """My match-best turn end among list ``number``; among ends of equal match value
        (within :data:`BEST_TOLERANCE`), the one that keeps the most set equity."""
        scored = [
            (self._turn_ended(context, ME, code, opp, deck)[0], code)
            for code in self.me.lists[number]
        ]
        best = max(value for value, _ in scored)
        near = [code for value, code in scored if value >= best - BEST_TOLERANCE]
        if len(near) == 1:
            return near[0]

        def set_equity(code: int) -> float:
            win, tie = self._odds_ended(context, ME, code, opp, deck)
            return 2.0 * win + tie - 1.0

        return max(near, key=set_equity)


class _Volatile(dict[tuple[MatchKey, int], Pair]):
    """:attr:`KotorMatchSolver._iterating` for the C loop: at every change the loop forgets the
    set ends that read the values iterated (it keeps them apart while they hold)."""

    def __init__(self, core: Any) -> None:
        super().__init__()
        self._core = core

    def __setitem__(self, key: tuple[MatchKey, int], value: Pair) -> None:
        super().__setitem__(key, value)
        self._core.clear_volatile()

    def __delitem__(self, key: tuple[MatchKey, int]) -> None:
        super().__delitem__(key)
        self._core.clear_volatile()

    def pop(self, key: tuple[MatchKey, int], *default: Any) -> Any:
        try:
            return super().pop(key, *default)
        finally:
            self._core.clear_volatile()

    def popitem(self) -> tuple[tuple[MatchKey, int], Pair]:
        try:
            return super().popitem()
        finally:
            self._core.clear_volatile()

    def clear(self) -> None:
        super().clear()
        self._core.clear_volatile()

    def setdefault(self, key: tuple[MatchKey, int], default: Pair = (0.0, 0.0)) -> Pair:
        try:
            return super().setdefault(key, default)
        finally:
            self._core.clear_volatile()

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self._core.clear_volatile()


def _tiebreak(side: CompactSide) -> bool:
    """Whether a side, playing or ended, has its tiebreak."""
    return bool(side[5] if len(side) == 6 else side[2])


def _flat_turn(turn: int | RuleTurn) -> list[int]:
    """The rule's turn after a draw (:meth:`RuleSeat.turn`) as the C loop builds and reads it
    (the reference its tests compare with):
    ``[0, code]`` when the rules leave no choice; else ``[1, total, end, stand, n]``, the n
    tries as (total, flexible), where each play starts (from the turn's start), then each play
    as ``[total, forced (0/1), forced code, end, stand, k]`` and its k cards left as (total,
    flexible)."""
    if isinstance(turn, int):
        return [0, turn]
    total, end, stand, tries, plays = turn
    head = [1, total, end, stand, len(tries)]
    for reached, flexible in tries:
        head += [reached, int(flexible)]
    starts: list[int] = []
    body: list[int] = []
    base = len(head) + len(plays)
    for play in plays:
        starts.append(base + len(body))
        if play.forced is not None:
            body += [play.total, 1, play.forced, NO_STAND, NO_STAND, 0]
            continue
        body += [play.total, 0, 0, play.end, play.stand, len(play.left)]
        for reached, flexible in play.left:
            body += [reached, int(flexible)]
    return head + starts + body


def _judged(winner: int | None) -> tuple[float, float]:
    """(P(I win the set), P(tie)) once it is decided: ``winner`` (``None``: a tie)."""
    if winner is None:
        return (0.0, 1.0)
    return (1.0, 0.0) if winner == ME else (0.0, 0.0)


__all__ = [
    "ME",
    "OPP",
    "RANDOM",
    "KotorMatchSolver",
    "canonical_order",
    "match_hand_orders",
]
