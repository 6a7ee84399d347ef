"""The exact best reply to the KOTOR I computer opponent (``pazaak advise --opponent kotor``).

The game's computer opponent is a deterministic rule (docs/rules.md §7): it sees its own total
and hand, the other player's total, whether he stands and how many sets he has won, and picks
one action. Against it the best play is not the optimal (minimax) play: this module solves the
set exactly with the opponent following that rule. At the advised player's nodes the solver
maximises (equity, p_win) exactly as :mod:`pazaak_cli.solve.solver` does (the same tie rule, so
every move's numbers are unique); at the opponent's nodes after its draw there is no choice to
optimise: :func:`pazaak_cli.policies.kotor_rule.kotor_rule` (the very function
:class:`~pazaak_cli.players.roster.KotorPlayer` plays by) names a card, then ending the turn or
standing. The seats and the rule's turn are :mod:`pazaak_cli.solve.rule_opponent`'s, which the
match solver against the rule (:mod:`pazaak_cli.solve.match_kotor`) shares; this module keeps
the set's recursion (its values, its tie rule, its memo) and the set answer built on it.

The rule reads the hand *in order* (on equal totals it keeps the first fixed card, or the last
± card it tried), so the opponent's hand is kept as an ordered tuple. A hidden hand is averaged
over its possible multisets (as the optimal solver does) and, within each, over every order of
the cards whose order can change the rule's choice (gold cards; never KOTOR I's cards), each
order equally likely, as the game deals them.

The state is compact like the optimal solver's: a playing side is ``(total, cards, hand id,
f24, f36, tiebreak)`` (``f24`` the sum a Flip 2&4 would turn over, kept only while the hand
holds one; the same for ``f36``), a standing side ``("S", total, tiebreak, NO_HAND)`` (its hand
no longer matters in the set); both seats intern their sides as small integers, busting and
winning by the ninth card are negative codes, and the memo keys say whose turn it is.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from typing import Any

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK, MatchState, Side
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import FlipTargets, MainDeck, NineCards, Ruleset, Tiebreaker
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import DecisionRule, kotor_rule
from pazaak_cli.runtime.executors import run_from_both_ends
from pazaak_cli.solve.answer_types import (
    EPSILON,
    Advice,
    Move,
    Outcome,
    SolveOptions,
    SolverTooLarge,
    ranked_set_results,
)
from pazaak_cli.solve.hidden_hands import weighted_opponent_hands
from pazaak_cli.solve.models import KOTOR, OpponentModel
from pazaak_cli.solve.rule_opponent import (
    BUSTS,
    CompactSide,
    RuleSeat,
    Seat,
    hand_orders,
)
from pazaak_cli.solve.solver import (
    NATIVE_EXACT_ENTRIES,
    PROGRESS_MASK,
    DeckCodes,
    DeckDraws,
    deck_after_draw,
    deck_model_said,
    hand_processes,
    root_moves,
)

_fastreply: Any = None
with contextlib.suppress(ImportError):  # the optional C inner loop (setup.py builds it)
    from pazaak_cli.solve import _fastreply  # type: ignore[attr-defined,no-redef]
if os.environ.get("PAZAAK_PURE_PYTHON"):  # benchmarks compare the two paths
    _fastreply = None

Value = tuple[float, float]
"""(equity, p_win) for the advised player."""
_WIN: Value = (1.0, 1.0)
_LOSS: Value = (-1.0, 0.0)
_TIE: Value = (0.0, 0.0)

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


NATIVE_RULES: dict[DecisionRule, int] = (
    {}
    if _fastreply is None
    else {kotor_rule: _fastreply.RULE_KOTOR, heuristic_rule: _fastreply.RULE_HEURISTIC}
)
"""The rules the C loop decides by itself, line for line as their Python functions."""
NATIVE_MEMO_ENTRIES = 1 << 22
"""Positions each of the C loop's three memo tables holds at most (24 bytes each: 288 MiB in
all); past that it forgets the cheapest (a cache: never wrong, at most slower)."""
NATIVE_RULE_SIDES = 1_000_000
"""The rule's sides kept between two hands of an average before they are forgotten (each hand
adds its own)..."""
NATIVE_RULE_BYTES = 256 << 20
"""...and the memory their turns and replies may hold before they are (about 5 kB a side: a
million would be 5 GB; `kotor2-hard`'s hands against `D F2/4 F3/6 T` reached 3.2 GB before this
bound)."""


def _tiebreak(side: CompactSide) -> bool:
    """Whether a side, playing or ended, has its tiebreak."""
    return bool(side[5] if len(side) == 6 else side[2])


class KotorReplySolver:
    """Solves sets of the advised player (to maximise) against the KOTOR I rule.

    ``their_sets`` is how many sets the advised player has won (the rule's step 3 reads it; it
    cannot change within a set). ``fixed_draws``: draw with these fixed counts of each value,
    without depletion (the infinite deck is ``FULL_DECK``); ``None`` solves the finite deck
    exactly, without replacement (a fresh full deck when it runs out).

    Both seats are the set's (:mod:`pazaak_cli.solve.rule_opponent`): a side that stands forgets
    its hand, busting and winning by the ninth card are the codes ``BUSTS`` and ``NINE_WINS``.
    """

    def __init__(
        self,
        ruleset: Ruleset,
        their_sets: int,
        *,
        fixed_draws: Sequence[int] | None = None,
        budget: int | None = None,
        rule: DecisionRule = kotor_rule,
        native: bool = True,
        shares: int = 1,
    ) -> None:
        """``rule``: the opponent's decision (the KOTOR I rule, or another with its inputs, its
        hand still read in the KOTOR rule's order). ``native``: with a rule the C loop knows
        (:data:`NATIVE_RULES`), search in C when it was built, with fixed draws (no budget) or on
        the exact deck (``False``: always in Python, the reference the tests compare it with).
        ``budget``: refuse (:class:`SolverTooLarge`) past that many positions computed, as
        :attr:`states` counts them. ``shares``: the processes that
        will hold a copy of it (its average's hands taken from both ends): each copy's memo and
        rule's memory bounded at that share of :data:`NATIVE_MEMO_ENTRIES` and
        :data:`NATIVE_RULE_BYTES`."""
        self.ruleset = ruleset
        self.their_sets = their_sets
        self.fixed = tuple(fixed_draws) if fixed_draws is not None else None
        self.budget = budget
        self.me = Seat(ruleset, over_match=False)
        self.opp = RuleSeat(ruleset, rule, over_match=False)
        rule_id = NATIVE_RULES.get(rule)  # (NATIVE_RULES is empty when the C loop is not built)
        in_c = native and rule_id is not None and (self.fixed is None or budget is None)
        # the C loop names an exact deck by its code and makes its draws itself
        self._decks = DeckCodes() if in_c and self.fixed is None else DeckDraws(self.fixed)
        self._draws = self._decks.table
        self._my_choice: dict[int, dict[int, Value]] = {}
        self._my_before: dict[int, dict[int, Value]] = {}
        self._opp_before: dict[int, dict[int, Value]] = {}
        self.states = 0
        """Positions solved so far (before a draw, either player's)."""
        self._trimmed_at = 0
        self.shares = max(shares, 1)
        self._progress: Callable[[int], None] | None = None
        self._core: Any = None
        self._list_of_placed: dict[Any, int] = {}
        """The C loop's list of turn ends by the advised side after its draw (see
        :meth:`_expand_mine`)."""
        if in_c:
            assert rule_id is not None
            self._start_core(rule_id)

    # -- the C inner loop ----------------------------------------------------------------------

    def _start_core(self, rule_id: int) -> None:
        """Hand the search to the C loop (a rule it knows): it asks this solver's seat for each
        new list of the advised player's turn ends, and holds the rule's seat itself (its hands
        from :attr:`opp`, its sides, its turns and its replies). On the exact deck its positions
        are a cache of :data:`NATIVE_EXACT_ENTRIES` (a share of them in each process) and the
        budget is its own."""
        rules = self.ruleset
        if self.fixed is None:
            probabilities, entries = None, NATIVE_EXACT_ENTRIES // self.shares
        else:
            total = sum(self.fixed)
            probabilities = [n / total for n in self.fixed]
            entries = NATIVE_MEMO_ENTRIES // self.shares
        self._core = _fastreply.Core(
            probabilities,
            self._expand_mine,
            rule_id,
            (
                rules.target,
                rules.sets_to_win,
                rules.table_size,
                rules.nine_cards is NineCards.WIN,
                rules.flip_targets is FlipTargets.ALL_SIGNS,
                rules.tiebreaker is Tiebreaker.ANY_PLAYED,
            ),
            self.their_sets,
            entries,
        )
        self._core.budget = self.budget
        self.after_my_turn = self._native_after_my_turn  # type: ignore[method-assign]

    @property
    def native(self) -> bool:
        """Whether the C inner loop does the search."""
        return self._core is not None

    @property
    def progress(self) -> Callable[[int], None] | None:
        """Called with :attr:`states` every so many positions of a long search."""
        return self._progress

    @progress.setter
    def progress(self, progress: Callable[[int], None] | None) -> None:
        self._progress = progress
        if self._core is not None:
            self._core.progress = progress

    def _sync(self) -> None:
        """Tell the C loop of the advised player's sides and lists, and the rule's hands,
        interned since it last heard."""
        core = self._core
        mine = self.me
        for side_id in range(core.mine_sides, len(mine.sides)):
            if side_id >= _fastreply.MAX_IDS:
                raise SolverTooLarge(
                    f"the search needs more than {_fastreply.MAX_IDS:,} distinct sides, "
                    "more than the C solver can number"
                )
            core.add_mine(
                mine.standing[side_id], _tiebreak(mine.sides[side_id]), mine.total[side_id]
            )
        for codes in mine.lists[core.lists :]:
            core.add_list(codes)
        theirs = self.opp
        for hand in range(core.hands, len(theirs.hands)):
            plays = [
                (value, kind, rest, flexible)
                for _, value, kind, rest, flexible in theirs.plays[hand]
            ]
            core.add_hand(*theirs.facts[hand], plays)

    def rule_side(self, side: CompactSide) -> int:
        """The id of a side of the rule's seat, interned where the search keeps them (the C
        loop's, or :attr:`opp`'s)."""
        if self._core is None:
            return self.opp.side(side)
        self._sync()
        if len(side) == 6:
            total, cards, hand, f24, f36, tiebreak = side
            return int(self._core.their_side(total, cards, hand, f24, f36, tiebreak, False))
        _, total, tiebreak, _ = side
        return int(self._core.their_side(total, 0, 0, 0, 0, tiebreak, True))

    def _expand_mine(self, me: int, drawn: int) -> int:
        """The C loop's callback: the list of the advised side's turn ends after ``drawn``,
        worked out once for every side that draws to the same table (with the draw, where the
        hand holds a Double, which copies it)."""
        seat = self.me
        side = seat.sides[me]
        assert len(side) == 6
        placed = seat.add(side, drawn, side[2])
        key = (placed, drawn) if seat.holds_double(placed[2]) else placed
        number = self._list_of_placed.get(key)
        if number is None:
            number = self._list_of_placed[key] = seat.ends_after_draw(me, drawn)
            self._sync()
        self._core.set_list(me, drawn, number)
        return number

    def _native_after_my_turn(self, code: int, opp: int, deck: int) -> Value:
        self._sync()
        try:
            result: Value = self._core.after_my_turn(code, opp, deck)
        except OverflowError as error:  # (a budget; more sides than the core can number)
            raise SolverTooLarge(str(error)) from None
        finally:
            self.states = int(self._core.solved)
        return result

    # -- decks and moves ---------------------------------------------------------------------------

    def deck_id(self, deck: tuple[int, ...]) -> int:
        """Intern a deck (remaining counts of 1..10); with fixed draws every deck is one."""
        return self._decks.intern(deck)

    # -- the recursion -----------------------------------------------------------------------------

    def _judge(self, mine: int, theirs: int) -> Value:
        """Both stand: the higher total wins; equal totals go to a lone tiebreaker."""
        a = self.me.sides[mine]
        b = self.opp.sides[theirs]
        if a[1] != b[1]:
            return _WIN if a[1] > b[1] else _LOSS
        if a[2] != b[2]:
            return _WIN if a[2] else _LOSS
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
        mine = self.me
        after, lists, standing = mine.after, mine.lists, mine.standing
        opp_stands = self.opp.standing[opp]
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
            number = after.get(me * 16 + value)
            if number is None:
                number = mine.ends_after_draw(me, value)
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
            for code in lists[number]:
                if code < 0:
                    e, w = _LOSS if code == BUSTS else _WIN
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
            return _LOSS if code == BUSTS else _WIN
        if self.opp.standing[opp]:
            if self.me.standing[code]:
                return self._judge(code, opp)
            return self.my_before_draw(code, opp, deck)
        return self.opp_before_draw(code, opp, deck)

    def opp_before_draw(self, me: int, opp: int, deck: int) -> Value:
        """Value for the advised side ``me`` when the opponent's side ``opp`` is to draw: its
        turn after each draw is the rule's reply (:meth:`RuleSeat.replies`)."""
        table = self._table(self._opp_before, opp, deck)
        found = table.get(me)
        if found is not None:
            return found
        self._new_state()
        they_stand = self.me.standing[me]
        theirs = self.opp
        replies = theirs.replies(opp, self.me.total[me], they_stand, self.their_sets)
        standing = theirs.standing
        if they_stand:
            memo, solve = self._opp_before, self.opp_before_draw
        else:
            memo, solve = self._my_before, self.my_before_draw
        equity = p_win = 0.0
        for value, probability, rest in self._draws[deck] or self._decks.make(deck):
            code = replies[value]
            if code < 0:
                e, w = _WIN if code == BUSTS else _LOSS
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

    def watch(self, progress: Callable[[int], None] | None) -> None:
        """Report to ``progress`` from now on, as :meth:`SetSolver.watch
        <pazaak_cli.solve.solver.SetSolver.watch>` does (the hand-by-hand answers set it), the
        C loop's searches too."""
        self.progress = progress

    def short_searches(self, short: bool) -> None:
        """Whether the searches from now on are short, as :meth:`SetSolver.short_searches
        <pazaak_cli.solve.solver.SetSolver.short_searches>` says (the C loop's memo tables)."""
        if self._core is not None:
            self._core.small_pages = short

    def trim(self) -> None:
        """Forget the solved positions once more than :data:`MEMO_LIMIT` were added since the
        last trim (between the hands of an average, whose positions rarely recur): the memory
        stays bounded, the numbers do not change."""
        if self._core is not None:
            # the C memo bounds itself (a cache); the rule's sides, which every hand adds to,
            # are forgotten in both once there are many or they hold much memory
            core = self._core
            bound = NATIVE_RULE_BYTES // self.shares
            if core.their_sides > NATIVE_RULE_SIDES or core.their_bytes > bound:
                core.forget_theirs()
            return
        if self.states - self._trimmed_at > MEMO_LIMIT:
            self._my_before.clear()
            self._opp_before.clear()
            self._my_choice.clear()
            # the opponent's sides too, with its turns and replies (each hand of an average has
            # its own): the next hand interns its side again
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
                f"the best reply to the opponent's rule needs more than {SEARCH_LIMIT:,} positions "
                "in memory here (over 1 GB); ask about --opponent optimal, or a smaller hand"
            )

    # -- from engine sides -------------------------------------------------------------------------


# ------------------------------------------------------------------------------------------------
# The entry point (advice.solve_question dispatches here for a model with a rule).

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
        # (a budgeted try of the exact deck counts its positions in one process: whether it
        # answers must not depend on how many share the hands)
        processes = hand_processes(other_hands) if budget is None else 1
        solver = KotorReplySolver(
            rules,
            their_sets,
            fixed_draws=fixed,
            budget=budget,
            rule=options.rule or kotor_rule,
            shares=processes,
        )
        if not solver.native:  # (the Python search, the reference: one process)
            processes = 1
        solver.progress = options.positions
        results = _average(question, solver, other_hands, deck_after, options, processes=processes)
        return results, solver.states

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
                    f"needs more than {SEARCH_LIMIT:,} positions in memory against "
                    f"{options.model.short} (over {SEARCH_LIMIT * STATE_BYTES / 1e9:.1f} GB): drop "
                    "--exact for the answer that draws it with the fixed odds of the cards left"
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
        model=describe_model(
            state, other_hands, fixed, deck_after, sampled=options.max_hands, model=options.model
        ),
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
    *,
    processes: int = 1,
) -> list[_Row]:
    """Every move's outcome, averaged over the opponent's possible hands and orders. With two
    ``processes`` (the C loop's solver, made for that share), the hands after the first are
    taken from both ends by this process and a forked copy
    (:func:`~pazaak_cli.runtime.executors.run_from_both_ends`) once the search has computed more
    than :data:`EXACT_PROBE_STATES` positions (so whether the exact deck is tried after it does
    not depend on the processes); the values are summed here in the hands' order, the same bits
    however they were solved."""
    other_side = question.state.sides[1 - question.state.turn]
    moves = question_moves(question, solver)
    codes = [code for _, code in moves]
    deck = solver.deck_id(deck_after)
    count = len(other_hands)

    def hand_values(index: int) -> list[list[Value]]:
        """Every move's values against each order of hand ``index`` that the rule reads."""
        opps = opponent_sides(solver, other_side, other_hands[index][0])
        values = [[solver.after_my_turn(code, opp, deck) for code in codes] for opp in opps]
        solver.trim()
        return values

    def shown(done: int) -> None:
        if options.progress is not None:
            options.progress(done, count)

    per_hand: list[list[list[Value]]] = []
    while len(per_hand) < count and (processes < 2 or solver.states <= EXACT_PROBE_STATES):
        per_hand.append(hand_values(len(per_hand)))
        shown(len(per_hand))
    if len(per_hand) < count:
        first = len(per_hand)
        per_hand += run_from_both_ends(
            first,
            count,
            hand_values,
            progress=lambda taken, _: shown(first + taken),
            in_copy=lambda: setattr(solver, "progress", None),  # (silent: this one shows it)
        )
    total_ways = sum(ways for _, ways in other_hands)
    sums = [[0.0, 0.0] for _ in moves]
    for (_, ways), values in zip(other_hands, per_hand, strict=True):
        weight = ways / total_ways / len(values)
        for opp_values in values:
            for row, (equity, p_win) in zip(sums, opp_values, strict=True):
                row[0] += weight * equity
                row[1] += weight * p_win
    return [
        (move, Outcome.from_value((s[0], s[1]))) for (move, _), s in zip(moves, sums, strict=True)
    ]


def question_moves(question: Question, solver: KotorReplySolver) -> list[tuple[Move, Any]]:
    """The mover's moves at the question's root, each with the end of turn it leads to."""
    me_side = question.state.sides[question.state.turn]
    me = solver.me.playing_side(me_side, tuple(card for card in me_side.hand if card is not None))
    return root_moves(
        question,
        me,
        lambda side, drawn: solver.me.add(side, drawn, side[2]),
        solver.me.labelled_moves,
    )


def opponent_sides(solver: KotorReplySolver, other_side: Side, hand: tuple[Card, ...]) -> list[Any]:
    """The rule's side for one possible hand: one per order of its cards that changes the
    rule's choices when the hand is hidden (each as likely), the hand as given when known."""
    if other_side.standing:
        return [solver.rule_side(solver.opp.standing_side(other_side))]
    hidden = not other_side.hand_known
    orders = hand_orders(hand) if hidden else [hand]
    return [solver.rule_side(solver.opp.playing_side(other_side, h)) for h in orders]


def describe_model(
    state: MatchState,
    other_hands: list[tuple[tuple[Card, ...], int]],
    fixed: bool,
    deck_after: tuple[int, ...],
    *,
    sampled: int | None,
    model: OpponentModel = KOTOR,
) -> str:
    """The model line of a set answer against a rule (``model``'s): whom the rule sees, how the
    hidden hand is averaged, how the deck is drawn (the exact and the time-budgeted answers share
    it)."""
    rules = state.ruleset
    other = state.sides[1 - state.turn]
    sets = state.set_winners.count(state.turn)
    who = f"opponent plays {model.plays}"
    if model.reads_sets:
        who += f", seeing you have won {sets} set" + ("" if sets == 1 else "s")
    if other.standing:
        who += f"; it stood on {other.total}"
    elif other.hand_known:
        who += "; its hand known, in the order given"
    else:
        kind = "sampled" if sampled is not None else "possible"
        who += (
            f"; its {counted(len(other.hand), 'hidden card')} averaged over "
            f"{counted(len(other_hands), f'{kind} hand')}"
        )
        orders = sum(len(hand_orders(hand)) for hand, _ in other_hands)
        if orders > len(other_hands):  # gold cards whose order the rule reads
            who += f" ({orders} with the orders that change its choices)"
    return f"{rules.spec}: {who}; {deck_model_said(rules, fixed, deck_after)}"


__all__ = ["KotorReplySolver", "hand_orders", "solve_kotor_question"]
