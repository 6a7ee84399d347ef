"""The match solver with its inner loop in C (:mod:`pazaak_cli.solve._fastmatch`).

:class:`NativeMatchSolver` is :class:`~pazaak_cli.solve.match_solver.MatchSolver` with the recursion
inside a set (``value_before_draw``, ``_value_after_draw``, ``_end``, ``_set_over``) run by the C
core: every later set and the set in progress, drawn with fixed probabilities or exactly without
replacement (then the core keys its positions by the deck too). Python keeps every rule: it
interns the sides, candidate lists, contexts, decks and match entries, and mirrors them into the
core, which calls back for a new candidate list (``expand``), for the draws from a deck it has
not met (``draws``) and for a match state it does not hold (``entry``, which may solve that state
and re-enter the core).

Before it solves a score, it interns every side the later sets can reach and gives that score's
groups dense tables in the core (:meth:`NativeMatchSolver._start_level`, within
:data:`DENSE_LIMIT_BYTES`); a position outside them goes to the core's hash tables.

The values are the same floats as in Python: the same sums in the same order, the same choice
among equal values (a fixed point the core finds by the linear-piece shortcut agrees to 1e-13).
:func:`make_match_solver` picks the native solver when the extension is built (and
``PAZAAK_PURE_PYTHON`` is not set).
"""

from __future__ import annotations

import contextlib
import heapq
import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple, TypeVar, cast

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.rules import FirstPlayer, Ruleset
from pazaak_cli.runtime import executors
from pazaak_cli.runtime.executors import (
    WorkerLost,
    fork_available,
    resident_bytes,
    solver_processes,
)
from pazaak_cli.solve.answer_types import BEST_TOLERANCE, SolverTooLarge
from pazaak_cli.solve.match_pipeline import Pipeline
from pazaak_cli.solve.match_solver import (
    PLAYING,
    STANDING,
    Level,
    MatchKey,
    MatchSolver,
    Pair,
    exact_room,
)
from pazaak_cli.solve.solver import DeckDraws

_fastmatch: Any = None
with contextlib.suppress(ImportError):  # the optional C inner loop (setup.py builds it)
    from pazaak_cli.solve import _fastmatch  # type: ignore[attr-defined,no-redef]

DENSE_LIMIT_BYTES = 1_200_000_000
"""The dense tables of one score level may take this much memory (the slopes of the match state
being iterated come on top, a few MB): beyond, they keep the before-draw positions and the
after-draw ones of as many groups as fit (:func:`groups_with_after`), and a level whose
before-draw positions alone need more than this is refused (a hand pair of gold cards each:
flips make thousands of sides)."""

FORK_MEMORY_BYTES = 1_600_000_000
"""Scores are solved in forked processes only when this process's resident memory and the
tables of a score for each process stay within this: the answer's whole peak is bounded at
2 GB, and a forked process also copies the pages of its parent's memory it writes to (counted
in :meth:`NativeMatchSolver._run_seat` as each process holding what this one does). Measured on
the hidden `kotor2-average` match answer, whose parent holds 0.7 to 1.3 GB between hands and
some of whose hands take 0.5 GB of tables a score: stopped after 200 s, the processes together
peaked at 1.83 GB without this bound (2.1 GB in another run) and 1.42 GB with it."""

EXACT_ENTRY_BYTES = 32
"""Bytes a slot of the C core's cache of positions drawn exactly takes (``ExactEntry``)."""

EXACT_ENTRIES_MOST = 1 << 25
"""The most slots that cache grows to (1 GiB), split between the processes that solve an
average's hands at once, and smaller where the process's memory leaves less of
:data:`~pazaak_cli.solve.match_solver.EXACT_MEMORY_BYTES`. Measured on `--exact` with four known
cards a side at the kotor1 first move, alone on a core: 2^25 slots 301.5 s and 1.61 GB for the
whole process (334 M positions solved, 300 M of them again after they were forgotten); 2^24 slots
806 M solved, 510.8 s and 0.82 GB, the two run side by side on the two cores. The table held
every position of three cards a side at 9.6 GB."""

EXACT_ENTRIES_LEAST = 1 << 16
"""The fewest slots that cache is given, whatever the memory (2 MiB: it stays exact, and slow)."""

TRIM_FREE_BYTES = 16 << 20
"""After :meth:`NativeMatchSolver.prepare_all` the heap's free pages are given back once more
than this is free: a score's tables leave tens to hundreds of MB (up to 0.6 GB for 4 hidden
cards of `kotor1-strong`), while the small solves of the `expert` player (2,003 in 40 matches,
each under 12 MB free) made it 7.5 % slower, trimmed every time."""

FORK_MIN_PAIRS = 16
"""Scores are solved in forked processes only when the ones dealt out hold this many match
states at least (a fork, and the dense tables it sets up, cost a few tens of milliseconds)."""


class Blocks(NamedTuple):
    """A score's groups cut so that their tables fit (:meth:`NativeMatchSolver.level_blocks`)."""

    steps: list[tuple[list[tuple[int, int]], list[tuple[int, int]]]]
    """In turn: the pairs of hands whose tables are made and whose states are solved (fewest
    cards first), then those whose tables are freed."""
    peak: int
    """The most bytes of tables held at once."""
    made: int
    """The bytes of tables made in all (more than the score's where rows are made again)."""


class Blocking(NamedTuple):
    """How :meth:`NativeMatchSolver.level_blocks` cuts the scores of a prepare_all
    (:meth:`NativeMatchSolver._run_seat`)."""

    seat: int
    """The seat with more hands (its sub-hands are the rows)."""
    whole: frozenset[int]
    """Its hands that are no sub-hand of another (ids)."""
    limit: int
    """The bytes of tables a process may hold at once."""
    others: frozenset[int]
    """The same as ``whole`` for the other seat (several: a prepare's hands of mine)."""


Counts = tuple[int, int, int]
"""What a forked process's solves counted: fixed-point solves, shortcuts, positions (its values
and shares pass through the pipeline's table)."""

_RULE_CODES = {
    FirstPlayer.PLAYER1: 0,
    FirstPlayer.RANDOM: 1,
    FirstPlayer.ALTERNATE: 2,
    FirstPlayer.LOSER: 3,
}
"""The first-player rules as the C core numbers them."""


def _neighbours(hands: Sequence[int], subs: dict[int, list[int]]) -> list[int]:
    """These hands in an order where each shares the most sub-hands with the one before it
    (greedy, from the first): a plan's next pair of hands then finds more of its groups held
    (for `kotor1-starter` against `kotor1-average`, 6 % fewer tables made than in the hands'
    own order, docs/benchmarks.md)."""
    left = list(hands)
    order = [left.pop(0)] if left else []
    while left:
        last = set(subs[order[-1]])
        best = max(left, key=lambda hand: sum(sub in last for sub in subs[hand]))
        left.remove(best)
        order.append(best)
    return order


def native_available() -> bool:
    """Whether the C core is built and not switched off by ``PAZAAK_PURE_PYTHON``."""
    return _fastmatch is not None and not os.environ.get("PAZAAK_PURE_PYTHON")


def make_match_solver(ruleset: Ruleset, **options: Any) -> MatchSolver:
    """The fastest match solver available: the native one when its C core is built."""
    if native_available():
        return NativeMatchSolver(ruleset, **options)
    return MatchSolver(ruleset, **options)


class _Iterating(dict[tuple[MatchKey, int], Pair]):
    """MatchSolver._iterating, mirrored into the C core at every change (at most a few keys)."""

    def __init__(self, core: Any) -> None:
        super().__init__()
        self._core = core

    def _push(self) -> None:
        self._core.set_iterating([(*match, spec, *pair) for (match, spec), pair in self.items()])

    def __setitem__(self, key: tuple[MatchKey, int], value: Pair) -> None:
        super().__setitem__(key, value)
        self._push()

    def __delitem__(self, key: tuple[MatchKey, int]) -> None:
        super().__delitem__(key)
        self._push()

    def pop(self, key: tuple[MatchKey, int], *default: Any) -> Any:
        try:
            return super().pop(key, *default)
        finally:
            self._push()

    def popitem(self) -> tuple[tuple[MatchKey, int], Pair]:
        try:
            return super().popitem()
        finally:
            self._push()

    def clear(self) -> None:
        super().clear()
        self._push()

    def setdefault(self, key: tuple[MatchKey, int], default: Pair = (0.0, 0.0)) -> Pair:
        try:
            return super().setdefault(key, default)
        finally:
            self._push()

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self._push()


_Entry = TypeVar("_Entry", bound=Callable[..., Any])


def _in_core(python: _Entry, core_name: str) -> _Entry:
    """An entry of the recursion (``python``, MatchSolver's method) run by the core's method
    ``core_name`` once the core is in sync, where the core solves the context; by Python
    where it does not (a context id past the core's). One spelling for every entry."""

    def entry(self: NativeMatchSolver, context: int, *args: int) -> Any:
        if not self._native(context):
            return python(self, context, *args)
        self._sync()
        return getattr(self._fast, core_name)(context, *args)

    return cast(_Entry, entry)


def groups_with_after(
    sizes: Sequence[tuple[int, tuple[int, int]]], room: int
) -> set[tuple[int, int]]:
    """The groups whose after-draw positions get a dense table in ``room`` doubles, given each
    group's (after-draw doubles, group): the smallest first, as many as fit. The others search
    an after-draw position again at each read (keeping them in the hash tables instead was
    3.5 times slower). Measured on `±6 D F3/6 T` against `F2/4 T` (kotor2, one process) with a
    dense bound of 500 MB, where the before-draw tables take 342 MB: none kept 102.4 s, the
    smallest fitting 57.7 s, the same answer (docs/benchmarks.md)."""
    kept: set[tuple[int, int]] = set()
    for doubles, group in sorted(sizes):
        if doubles > room:
            break
        room -= doubles
        kept.add(group)
    return kept


class NativeMatchSolver(MatchSolver):
    """A :class:`MatchSolver` whose fixed-probability positions are solved by the C core."""

    deck_codes = True

    def __init__(self, ruleset: Ruleset, **options: Any) -> None:
        """``options`` as :class:`~pazaak_cli.solve.match_solver.MatchSolver` takes them."""
        if _fastmatch is None:  # pragma: no cover - depends on the installation
            raise RuntimeError("the C match core (pazaak_cli.solve._fastmatch) is not built")
        # the core first: the base constructors already set the attributes it mirrors
        self._fast: Any = _fastmatch.Core(
            _RULE_CODES[ruleset.first_player],
            ruleset.sets_to_win,
            self._expand,
            self._entry_callback,
            SolverTooLarge,
            BEST_TOLERANCE,
        )
        self._py_positions = 0
        self._budget: int | None = None
        super().__init__(ruleset, **options)
        blind = self.later_blind
        self._fast.set_blind(-1 if blind is None else blind, self._empty_hand)
        self._iterating = _Iterating(self._fast)
        self._pushed: dict[int, DeckDraws] = {}
        """The deck model of each model id as last given to the core."""
        self._max_contexts = int(self._fast.max_contexts)
        self._callbacks = 0
        """How deep the core's entry callbacks are nested now (0: a question from outside)."""
        self._lowest_total = 1 << 30
        """The fewest sets played of a match state asked from outside so far."""
        self._dense_level: tuple[int, int] | None = None
        """The score level whose groups have dense tables now."""
        self._set_groups: tuple[int, int, int] | None = None
        """The last set in progress given dense tables of its own: (context, hand 0, hand 1)."""
        self._blocking: Blocking | None = None
        """While :meth:`prepare_all` runs: how :meth:`level_blocks` cuts its scores
        (:meth:`_run_seat`)."""
        self._planned_blocks: tuple[object, Blocks | None] = (None, None)
        """The last plan :meth:`level_blocks` made, and what it was made for (a prepare's
        rounds ask the same one again)."""
        self._ranked = (0, 0)
        """How many sides and candidate lists the core had when it last ranked them."""
        self.processes: int | None = None
        """Processes :meth:`prepare_all` may solve scores in at once (two at most, see
        :meth:`_prepare_pipelined`); None: as many as ``$PAZAAK_SOLVER_PROCESSES`` says when it
        solves (read then, not now: a solver kept at module level reaches a pool's workers,
        which forked it and say 1)."""
        self._forked_positions = 0
        """Positions computed by forked processes (for :attr:`positions_computed`)."""
        self.exact_share = 1
        """How many processes solve positions drawn exactly at once (an average's hands shared
        out): each bounds its cache of them at its share (:meth:`size_exact_cache`)."""
        self._fast.set_sides_rules(
            self._target, self._size, self._nine_win, self._any_tiebreak, self._flip_all
        )

    # -- state shared with the core ---------------------------------------------------------------

    @property
    def _positions(self) -> int:
        """Positions held: the Python ones (a context past the core's) and the core's."""
        return self._py_positions + int(self._fast.states)

    @_positions.setter
    def _positions(self, value: int) -> None:
        self._py_positions = value - int(self._fast.states)

    @property
    def progress(self) -> Callable[[int], None] | None:
        """Called with the positions computed so far every so many positions of a search."""
        callback: Callable[[int], None] | None = self._fast.progress
        return callback

    @progress.setter
    def progress(self, callback: Callable[[int], None] | None) -> None:
        self._fast.progress = callback

    @property
    def budget(self) -> int | None:
        """Fail a search past this many positions held (None: no budget)."""
        return self._budget

    @budget.setter
    def budget(self, value: int | None) -> None:
        self._budget = value
        self._fast.budget = None if value is None else max(0, value - self._py_positions)

    @property
    def _read_unknown(self) -> bool:
        """Whether an iterated value was read (the core reads them too)."""
        return bool(self._fast.read_unknown)

    @_read_unknown.setter
    def _read_unknown(self, value: bool) -> None:
        self._fast.read_unknown = value

    @property
    def positions_computed(self) -> int:
        """Positions the core computed so far (again if forgotten), in this process and in the
        ones it forked: a progress counter."""
        return int(self._fast.solved) + self._forked_positions

    @staticmethod
    def _fixed_probabilities(decks: DeckDraws) -> list[float] | None:
        """The draw probabilities of a fixed deck model, as DeckDraws.make computes them."""
        if decks.fixed is None:
            return None
        total = sum(decks.fixed)
        return [n / total for n in decks.fixed]

    def _sync(self) -> None:
        """Mirror into the core the hands, sides, candidate lists and contexts Python interned
        since (and into Python what the core's walk interned: :meth:`_pull`)."""
        fast = self._fast
        self._pull()
        if self._hands_pushed < len(self.hands.cards):
            fast.add_hands(self.hands.described(self._hands_pushed))
            self._hands_pushed = len(self.hands.cards)
        start = fast.nsides
        if start < len(self._hand_of):
            kinds, hands, sides = self._kind, self._hand_of, self._sides
            for index in range(start, len(hands)):
                side: Any = sides[index]
                kind = kinds[index]
                if kind == 0:  # playing: (total, cards, hand, f24, f36, tiebreak)
                    fast.add_side(0, hands[index], side[0], side[5], side[1], side[3], side[4])
                elif kind == 1:  # standing: ("S", total, tiebreak, hand)
                    fast.add_side(1, hands[index], side[1], side[2])
                else:
                    fast.add_side(kind, hands[index], 0, False)
        start = fast.nlists
        if start < len(self._candidates):
            for codes, found_by in zip(
                self._candidates[start:], self._uniques[start:], strict=True
            ):
                fast.add_list(codes, found_by)
        start = fast.ncontexts
        if start < min(len(self._context_info), self._max_contexts):
            for info in self._context_info[start : self._max_contexts]:
                fast.add_context(*info)

    def _native(self, context: int) -> bool:
        """Whether the core solves ``context``: a context id the core can hold (the others
        stay in Python)."""
        model = self._context_info[context][3]
        decks = self._models[model]
        if self._pushed.get(model) is not decks:  # a new model, or an id given again
            if model in self._pushed:
                self._dense_level = None  # (the core frees its dense tables)
            self._pushed[model] = decks
            exact = decks.fixed is None
            self._fast.set_model(model, self._fixed_probabilities(decks), exact)
        return context < self._max_contexts

    def _expand(self, side: int, drawn: int) -> int:
        """The core's callback: the candidate list after ``side`` draws ``drawn``."""
        found = self._after.get((side, drawn))
        if found is None:
            found = self._candidate_list(side, drawn)
        self._sync()
        return found

    def _entry_callback(self, s0: int, s1: int, h0: int, h1: int, spec: int) -> float:
        """The core's callback: the value of a match state it does not hold."""
        self._callbacks += 1
        try:
            return self.entry((s0, s1, h0, h1), spec)
        finally:
            self._callbacks -= 1

    def entry(self, match: MatchKey, spec: int) -> float:
        """MatchSolver.entry; asked from outside (``prepare`` goes from the most sets played to
        the fewest) for fewer sets played than ever, it first drops the positions of the later
        sets' contexts with more sets played: only their match-state values are read from then
        on, and the memory is that of one score level instead of every one (a position asked
        again is solved again, the same)."""
        total = match[0] + match[1]
        if total < self._lowest_total and self._callbacks == 0 and not self._iterating:
            self._lowest_total = total
            drop = [
                context
                for context, (s0, s1, _, model) in enumerate(self._context_info)
                if model == 0 and s0 + s1 > total and context < self._max_contexts
            ]
            if drop:
                self._sync()
                self._fast.drop_contexts(drop)
        return super().entry(match, spec)

    # -- dense tables for the later sets ----------------------------------------------------------

    def prepare_all(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        *,
        processes: int = 1,
    ) -> None:
        """MatchSolver.prepare_all, after interning every side the later sets can reach from
        these hands (so that each score level's groups get dense tables of the right size).
        Where a score's tables for all of them do not fit, a score at a time in blocks
        (:meth:`level_blocks`), the tables sized for ``processes`` at once (or the pipeline's
        two)."""
        for seat_hands in hands:
            for hand in seat_hands:
                self._intern_later_sides(hand)
        self._blocking = self._run_seat(hands, max(processes, 2 if self._may_fork() else 1))
        try:
            if not self._prepare_pipelined(scores, hands):
                super().prepare_all(scores, hands)
        finally:
            self._blocking = None
            # (the freed tables' arrays stay in the heap, where a forked copy for the sets in
            # progress writing into them would copy them: 2.13 GB for both processes where
            # 1.72 with this, `kotor1-strong`'s blocks, docs/benchmarks.md)
            _fastmatch.trim_heap(TRIM_FREE_BYTES)

    def _prepare_pipelined(
        self,
        scores: tuple[int, int],
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    ) -> bool:
        """prepare_all in two processes at once, each taking every other score and solving
        it as soon as what it reads is known (:mod:`pazaak_cli.solve.match_pipeline`), when there
        are two cores, enough states for the other process (:data:`FORK_MIN_PAIRS`) and room for
        two scores' tables; False: not done so (all solved here, then)."""
        hands = self._later_hands(hands)
        asked = self._asked(scores, hands)
        if asked in self._prepared or not self._may_fork():
            return False
        pairs, specs, rounds = self._unsolved(scores, hands)
        self._levels_done, self._levels_total = 0, sum(len(levels) for levels in rounds)
        pipeline: Pipeline[Level] = Pipeline(rounds, pairs, dict(self._shares))
        try:
            if not self._worth_forking([pipeline.levels_of(1)], pairs):
                return False
            self._pipeline, self._share_base, self._share_writes = pipeline, {}, {}
            try:
                self._run_pipeline(pipeline, pairs, specs)
                # what a forked process that died left: solved here (nothing to wait for now)
                for levels in self._unsolved(scores, hands)[2]:
                    self._solve_levels(levels, pairs, specs)
            finally:
                self._pipeline, self._share_base, self._share_writes = None, None, {}
            self._shares = pipeline.shares()
        finally:
            pipeline.close()
        self._prepared.add(asked)
        return True

    def _may_fork(self) -> bool:
        """Whether :meth:`prepare_all` may solve scores in a forked process beside this one."""
        return fork_available() and min(self.processes or solver_processes(), 2) >= 2

    def _run_seat(
        self, hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]], processes: int
    ) -> Blocking:
        """How :meth:`level_blocks` cuts the scores of :meth:`prepare_all` of these hands: the
        seat with more hands given, the hands of each seat that are no sub-hand of another
        (ids), and the bytes of tables each of ``processes`` may hold at once: within
        :data:`DENSE_LIMIT_BYTES`, and with two, their tables beside what each holds (about
        what this one does) within :data:`FORK_MEMORY_BYTES`, the bound of the whole answer's
        memory. (Both processes' tables had been held to :data:`DENSE_LIMIT_BYTES` together,
        which the blocks of 4 hidden cards of `kotor1-average`, 0.69 GB a process, do not
        fit: docs/benchmarks.md, "the later sets in blocks".)"""
        hands = self._later_hands(hands)
        seat = 1 if len(hands[1]) >= len(hands[0]) else 0
        limit = DENSE_LIMIT_BYTES
        if processes > 1:  # (each process holds about what this one does, and its tables)
            room = max(0, FORK_MEMORY_BYTES - processes * resident_bytes()) // processes
            limit = min(limit, room)
        return Blocking(seat, self._whole(hands[seat]), limit, self._whole(hands[1 - seat]))

    def _whole(self, hands: Sequence[Sequence[Card]]) -> frozenset[int]:
        """The ids of these hands that are no sub-hand of another of them."""
        given = {self.hands.intern(hand) for hand in hands}
        inner = {sub for hand in given for sub in self.sub_hands(hand) if sub != hand}
        return frozenset(given - inner)

    def level_blocks(self, pairs: Sequence[tuple[int, int]]) -> Blocks | None:
        """A score's groups in blocks, where the tables of all ``pairs`` do not fit the bytes
        :meth:`prepare_all` sized them for. A set only plays cards, so the groups of a
        sub-hand of the run seat (a row: it against every sub-hand of the other seat) are read
        only by the rows of the hands that hold it; the whole hands given are taken one at a
        time, each bringing the rows of its sub-hands not held, and a row's tables are freed
        once every hand that holds it is done. Each group's positions are then searched once
        a score, where runs of hands (each with all the sub-hands it holds) searched the
        shared ones again in every run: three times the groups for 4 hidden cards of
        `kotor1-average` (docs/benchmarks.md). The hands go in the order that frees the most
        beside what it makes (greedy). Where a hand's rows do not fit beside those held, rows
        it does not hold are freed early, those the fewest hands left hold first, and made
        again for the hands that hold them (searched again, as a run searched its sub-hands:
        `kotor1-strong`'s blocks make 1.6 times its groups where its runs made 5 times).
        Where the other seat has several whole hands too (a prepare's hands of mine), group by
        group instead (:meth:`_group_blocks`). None: no blocks (all fit, or one hand's rows do
        not, or not preparing)."""
        blocking = self._blocking
        if blocking is None:
            return None
        self._sync()
        openers = 2 if self._reads_opener else 1
        total = sum(self._dense_bytes(pairs, openers))
        if total <= blocking.limit:
            return None
        asked = (blocking, tuple(pairs), total)
        if self._planned_blocks[0] != asked:
            sizes = [sum(self._dense_bytes([pair], openers)) for pair in pairs]
            if len(blocking.others) > 1:
                blocks = self._group_blocks(pairs, sizes, blocking)
            else:
                blocks = self._row_blocks(pairs, sizes, blocking)
            self._planned_blocks = (asked, blocks)
        return self._planned_blocks[1]

    def _row_blocks(
        self, pairs: Sequence[tuple[int, int]], sizes: Sequence[int], blocking: Blocking
    ) -> Blocks | None:
        """:meth:`level_blocks` by rows: the run seat's whole hands one at a time."""
        seat, whole, limit = blocking.seat, blocking.whole, blocking.limit
        order = {pair: at for at, pair in enumerate(pairs)}  # (fewest cards first)
        rows: dict[int, list[tuple[int, int]]] = {}
        for pair in pairs:
            rows.setdefault(pair[seat], []).append(pair)
        row_bytes = dict.fromkeys(rows, 0)
        for pair, size in zip(pairs, sizes, strict=True):
            row_bytes[pair[seat]] += size
        holds = {hand: [sub for sub in self.sub_hands(hand) if sub in rows] for hand in whole}
        users = {sub: 0 for sub in rows}
        for subs in holds.values():
            for sub in subs:
                users[sub] += 1
        if any(count == 0 for count in users.values()):
            return None  # (a row no whole hand holds: no order frees it)
        cards = self.hands.cards
        left = sorted(whole)
        held: set[int] = set()
        steps: list[tuple[list[tuple[int, int]], list[tuple[int, int]]]] = []
        held_bytes = peak = made_bytes = 0
        while left:

            def cost(hand: int) -> tuple[int, int, int]:
                new = sum(row_bytes[sub] for sub in holds[hand] if sub not in held)
                freed = sum(row_bytes[sub] for sub in holds[hand] if users[sub] == 1)
                return (new - freed, new, hand)

            hand = min(left, key=cost)
            left.remove(hand)
            new_rows = sorted(
                (sub for sub in holds[hand] if sub not in held), key=lambda sub: len(cards[sub])
            )
            needed = sum(row_bytes[sub] for sub in new_rows)
            if held_bytes + needed > limit:  # (rows freed early, after the step before)
                mine = set(holds[hand])
                early = sorted(
                    (sub for sub in held if sub not in mine),
                    key=lambda sub: (users[sub], -row_bytes[sub], sub),
                )
                while early and held_bytes + needed > limit:
                    sub = early.pop(0)
                    held.discard(sub)
                    held_bytes -= row_bytes[sub]
                    steps[-1][1].extend(rows[sub])
                if held_bytes + needed > limit:
                    return None  # (this hand's rows alone do not fit)
            held.update(new_rows)
            held_bytes += needed
            made_bytes += needed
            peak = max(peak, held_bytes)
            done = []
            for sub in holds[hand]:
                users[sub] -= 1
                if users[sub] == 0:
                    done.append(sub)
                    held.discard(sub)
                    held_bytes -= row_bytes[sub]
            steps.append(
                (
                    sorted((pair for sub in new_rows for pair in rows[sub]), key=order.__getitem__),
                    [pair for sub in done for pair in rows[sub]],
                )
            )
        return Blocks(steps, peak, made_bytes)

    def _group_blocks(
        self, pairs: Sequence[tuple[int, int]], sizes: Sequence[int], blocking: Blocking
    ) -> Blocks | None:
        """:meth:`level_blocks` where both seats have several whole hands (a prepare's tile of
        my hands against all of theirs): the pairs of whole hands in turn, each of the other
        seat's against every one of the run seat's (snaking back and forth, so that
        neighbours share sub-hands), each pair making the groups of its sub-hands it lacks.
        A group is freed once no pair left reads it; where a pair's groups do not fit beside
        those held, the held group read again last is freed first (Belady's rule). Planned for
        `kotor1-starter` against `kotor1-average` at 0.7 GB a process, my hands one at a time
        in rows made 6.5 times a score's tables (each of mine searching its sub-hands' groups
        again); this, with tiles of 12 of my hands, 3.9 times (docs/benchmarks.md)."""
        seat, limit = blocking.seat, blocking.limit
        index = {pair: at for at, pair in enumerate(pairs)}  # (fewest cards first)
        subs = {hand: self.sub_hands(hand) for hand in blocking.whole | blocking.others}
        runs = _neighbours(sorted(blocking.whole), subs)
        units: list[list[int]] = []
        for turn, other in enumerate(_neighbours(sorted(blocking.others), subs)):
            for hand in runs[:: -1 if turn % 2 else 1]:
                seated = ((x, y) if seat == 1 else (y, x) for x in subs[other] for y in subs[hand])
                units.append([index[pair] for pair in seated])
        never = len(units)
        next_uses: list[list[int]] = [[] for _ in units]
        first = [never] * len(pairs)
        for at in range(len(units) - 1, -1, -1):
            uses = next_uses[at]
            for group in units[at]:
                uses.append(first[group])
                first[group] = at
        if never in first:
            return None  # (a group no pair of whole hands reads)
        next_use = first
        held = [False] * len(pairs)
        by_next: list[tuple[int, int]] = []  # (a heap: minus the next use, the group)
        steps: list[tuple[list[tuple[int, int]], list[tuple[int, int]]]] = []
        held_bytes = peak = made_bytes = 0
        for at, unit in enumerate(units):
            new = [group for group in unit if not held[group]]
            needed = sum(sizes[group] for group in new)
            while held_bytes + needed > limit and by_next:  # (freed early, after the step before)
                minus, group = heapq.heappop(by_next)
                if not held[group] or next_use[group] != -minus:
                    continue  # (stale: freed, or read since)
                if -minus == at:  # (every group held is this pair's)
                    heapq.heappush(by_next, (minus, group))
                    break
                held[group] = False
                held_bytes -= sizes[group]
                steps[-1][1].append(pairs[group])
            if held_bytes + needed > limit:
                return None  # (this pair's groups alone do not fit)
            for group in new:
                held[group] = True
            held_bytes += needed
            made_bytes += needed
            peak = max(peak, held_bytes)
            done = []
            for group, use in zip(unit, next_uses[at], strict=True):
                next_use[group] = use
                if use == never:
                    held[group] = False
                    held_bytes -= sizes[group]
                    done.append(pairs[group])
                else:
                    heapq.heappush(by_next, (-use, group))
            steps.append(([pairs[group] for group in sorted(new)], done))
        return Blocks(steps, peak, made_bytes)

    def _later_pairs(
        self, hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]]
    ) -> list[tuple[int, int]]:
        """The pairs of sub-hands of a score below these hands (as the later sets meet them),
        every side their sets reach interned first (what the tables are sized by)."""
        hands = self._later_hands(hands)
        for seat_hands in hands:
            for hand in seat_hands:
                self._intern_later_sides(hand)
        below0 = self._union_sub_hands(hands[0])
        below1 = self._union_sub_hands(hands[1])
        return [(x, y) for x in below0 for y in below1]

    def _planned(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int,
    ) -> tuple[int, int, int, int]:
        """The blocks :meth:`prepare_all` of these hands would take: (the bytes of tables held
        at most, the bytes each of ``processes`` may hold, the bytes made in all, the score's
        bytes), sized with a sixteenth to spare (prepare_all sizes them again, this process's
        memory grown)."""
        pairs = self._later_pairs(hands)
        blocking = self._run_seat(hands, processes)
        limit = blocking.limit - blocking.limit // 16
        kept, self._blocking = self._blocking, blocking._replace(limit=limit)
        try:
            blocks = self.level_blocks(pairs)
            openers = 2 if self._reads_opener else 1
            total = sum(self._dense_bytes(pairs, openers))
        finally:
            self._blocking = kept
        if blocks is None:
            return total, limit, total, total
        return blocks.peak, limit, blocks.made, total

    def fits_in_blocks(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int = 1,
    ) -> bool:
        """MatchSolver.fits_in_blocks: a score's tables, all at once or in :meth:`level_blocks`,
        within the bytes :meth:`_run_seat` gives each of ``processes``."""
        needed, limit, _, _ = self._planned(hands, processes)
        return needed <= limit

    def blocks_rework(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int = 1,
    ) -> float:
        """MatchSolver.blocks_rework: the bytes of tables the blocks make over the score's
        (rows freed early are made again)."""
        _, _, made, total = self._planned(hands, processes)
        return made / total if total else 1.0

    def _solve_levels(
        self, levels: Sequence[Level], pairs: Sequence[tuple[int, int]], specs: Sequence[int]
    ) -> None:
        """MatchSolver._solve_levels, in :meth:`level_blocks` where a score's tables do not
        all fit: each block's tables made, its states solved (fewest cards first), the rows
        no later block reads freed (their arrays given back before the next block's tables
        are made, so that the plan's peak bounds the memory). The states are
        solved as the whole score at once would: each reads its later scores and its own
        score's states with fewer cards, solved before it either way (a row made again only
        searches its positions again, its states known)."""
        blocks = self.level_blocks(pairs)
        if blocks is None:
            super()._solve_levels(levels, pairs, specs)
            return
        for level in levels:
            s0, s1 = level.s0, level.s1
            missing = set(level.missing)
            contexts = self._level_contexts(s0, s1)
            self._sync()
            if self._dense_level != (s0, s1):
                self._fast.drop_dense(True)  # (the level before's tables, if any are left)
                self._rank()
                self._dense_level = (s0, s1)
            groups = sum(len(made) for made, _ in blocks.steps)
            solved = 0
            for made, freed in blocks.steps:
                self._fast.free_spares()  # (kept, the arrays freed would pass the peak)
                for context in contexts:
                    for x, y in made:
                        self._fast.densify(context, x, y, True)
                for x, y in made:
                    if (x, y) in missing:  # (a row made again: its states are known)
                        missing.discard((x, y))
                        for spec in specs:
                            self.entry((s0, s1, x, y), spec)
                for context in contexts:
                    self._fast.drop_groups(context, freed)
                solved += len(made)
                self._level_done(solved / groups)  # (1 at the last step: the score is done)

    def _run_pipeline(
        self, pipeline: Pipeline[Level], pairs: Sequence[tuple[int, int]], specs: Sequence[int]
    ) -> None:
        """Solve this process's scores while a forked one solves the others, and take what it
        wrote (if it died first, the states it left are missing from ``_entries``)."""
        try:
            child: executors.ForkedCall | None = executors.ForkedCall(
                partial(self._pipelined_child, pipeline, pairs, specs)
            )
        except OSError:
            child = None
        try:
            pipeline.child = child.pid if child is not None else None
            pipeline.lost = child is None
            self._solve_levels(pipeline.mine(), pairs, specs)
            if child is not None:
                with contextlib.suppress(WorkerLost):  # (died: what it left is solved here)
                    self._take_counts(child.result())
            pipeline.lost = True  # (nothing more to wait for)
            self._entries.update(pipeline.values(specs))
            self._share_moves.update(pipeline.moves())
        finally:
            if child is not None:
                child.stop()

    def _pipelined_child(
        self, pipeline: Pipeline[Level], pairs: Sequence[tuple[int, int]], specs: Sequence[int]
    ) -> Counts:
        """In the forked process: solve the pipeline's other scores; what the solves counted
        (their values and shares pass through the pipeline's table)."""
        pipeline.seat = 1
        self.progress = None  # (the parent shows the progress)
        counted = (self.fixed_point_solves, self.fixed_point_shortcuts, self.positions_computed)
        self._solve_levels(pipeline.mine(), pairs, specs)
        return (
            self.fixed_point_solves - counted[0],
            self.fixed_point_shortcuts - counted[1],
            self.positions_computed - counted[2],
        )

    def release_tables(self) -> None:
        """MatchSolver.release_tables; the arrays of one question's tables are kept for the
        next question's (a player's next decision: the same hands or fewer, tables of the same
        sizes), which frees those it does not take."""
        self._fast.drop_dense(True)
        self._dense_level = None

    def fits(
        self,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        processes: int = 1,
    ) -> bool:
        """Whether one score of the match states below these hands has dense tables within
        :data:`DENSE_LIMIT_BYTES`, after-draw positions included (interning their sides);
        ``processes`` > 1: a score's tables for each within it, and beside what this process
        holds, within :data:`FORK_MEMORY_BYTES` (what the pipeline forks for)."""
        openers = 2 if self._reads_opener else 1
        before, after = self._dense_bytes(self._later_pairs(hands), openers)
        tables = processes * (before + after)
        if processes > 1 and resident_bytes() + tables > FORK_MEMORY_BYTES:
            return False
        return tables <= DENSE_LIMIT_BYTES

    def _intern_later_sides(self, cards: Sequence[Card]) -> None:
        """MatchSolver._intern_later_sides, walked by the core (the same sides and lists, in
        the same order, so the same ids), then mirrored into Python."""
        key = self.hands.intern(cards)
        if key in self._interned_from:
            return
        self._interned_from.add(key)
        starts = [self.side_id((0, 0, hand, 0, 0, False)) for hand in sorted(self.sub_hands(key))]
        self._sync()
        draws = [value + 1 for value, count in enumerate(self.later_deck) if count]
        self._fast.walk(starts, draws)
        self._pull()

    def _pull(self) -> None:
        """Mirror into Python the sides and candidate lists the core's walk interned."""
        fast = self._fast
        start = len(self._sides)
        if fast.nsides > start:
            sides, kinds, hands = fast.sides_from(start)
            self._side_ids.update(zip(sides, range(start, start + len(sides)), strict=True))
            self._sides.extend(sides)
            self._kind.extend(kinds)
            self._hand_of.extend(hands)
            self._standing.extend(kind == STANDING for kind in kinds)
        start = len(self._candidates)
        if fast.nlists > start:
            codes, found_by = fast.lists_from(start)
            self._candidate_ids.update(zip(found_by, range(start, start + len(codes)), strict=True))
            self._candidates.extend(codes)
            self._uniques.extend(found_by)

    def side_id(self, side: Any) -> int:
        if self._fast.nsides > len(self._sides):  # (the core's walk numbered sides since)
            self._pull()
        return super().side_id(side)

    def _start_set(self, context: int, hands: tuple[Sequence[Card], Sequence[Card]]) -> None:
        """The set in progress gets dense tables: a later set's context (the infinite deck)
        those of its score; one on a deck of its own (fixed probabilities) its own, if they fit
        beside the level's (else its positions stay in the hash tables). (A set in progress on
        a deck of its own reads only match-state values once it ends: its score's later-set
        tables would be of no use to it.)"""
        if not self._native(context) or self._models[self._context_info[context][3]].fixed is None:
            return  # (drawn exactly: its positions are keyed by the deck too, in hash tables)
        h0, h1 = self.hands.intern(hands[0]), self.hands.intern(hands[1])
        pairs = [(x, y) for x in self.sub_hands(h0) for y in self.sub_hands(h1)]
        s0, s1, _, model = self._context_info[context]
        if model == 0:
            self._start_level(s0, s1, pairs)
            return
        self._set_groups = (context, h0, h1)
        self._sync()
        before, after = self._dense_bytes(pairs, 1)
        if self._fast.memo_bytes + before + after > DENSE_LIMIT_BYTES:
            # the tables of earlier questions make room first: this set reads only match-state
            # values once it ends, and a set's positions in the hash tables grow without bound
            # (a row after another of the exact average held 10.7 M dense and 5.1 M hashed
            # positions at 1.6 GB where the tables were kept)
            self.release_tables()
        self._fast.free_spares()  # (the level's arrays: lazy tables take the lazy ones)
        # (lazy: a table gets its values when first read, and marks the pages it writes: most
        # positions of a set in progress are never read, and a later question's table of the
        # same size takes its array, those pages stale until written again)
        if self._fast.memo_bytes + before + after <= DENSE_LIMIT_BYTES:
            for x, y in pairs:
                self._fast.densify(context, x, y, True, True)
        elif self._fast.memo_bytes + before <= DENSE_LIMIT_BYTES:
            for x, y in pairs:
                self._fast.densify(context, x, y, False, True)

    def drop_set_hand(self, seat: int) -> None:
        if self._set_groups is None:
            return
        context, h0, h1 = self._set_groups
        self._set_groups = None
        if seat == 0:
            pairs = [(h0, y) for y in self.sub_hands(h1)]
        else:
            pairs = [(x, h1) for x in self.sub_hands(h0)]
        self._fast.drop_groups(context, pairs)

    def _worth_forking(
        self, dealt: Sequence[Sequence[Level]], pairs: Sequence[tuple[int, int]]
    ) -> bool:
        """Whether the scores dealt out are enough work to fork for, and their dense tables
        fit: each process's, all at once or in blocks, within what :meth:`_run_seat` gives a
        process while :meth:`prepare_all` runs; else (no blocking known) both processes'
        within :data:`DENSE_LIMIT_BYTES` and, beside what this process holds already,
        :data:`FORK_MEMORY_BYTES`."""
        if (
            not fork_available()
            or sum(len(level.missing) for share in dealt for level in share) < FORK_MIN_PAIRS
        ):
            return False
        self._sync()
        openers = 2 if self._reads_opener else 1
        before, after = self._dense_bytes(pairs, openers)
        if self._blocking is not None and (
            self.level_blocks(pairs) is not None or before + after <= self._blocking.limit
        ):
            return True  # (sized for two processes beside this one's memory: _run_seat)
        tables = (1 + len(dealt)) * (before + after)
        return tables <= DENSE_LIMIT_BYTES and resident_bytes() + tables <= FORK_MEMORY_BYTES

    def _take_counts(self, counts: Counts) -> None:
        """Add what a forked process's solves counted to this solver's statistics."""
        self.fixed_point_solves += counts[0]
        self.fixed_point_shortcuts += counts[1]
        self._forked_positions += counts[2]

    def _rank(self) -> None:
        """Order each hand's sides in the dense tables by table count, then total (standing
        sides after the playing ones, by total), and each candidate list by its first side (the
        draw placed, no hand card): the positions one position reads, after each draw and each
        end of turn, then lie side by side in memory, not scattered in the order the sides were
        found (the core's time goes mostly into those reads)."""
        fast = self._fast
        if self._ranked == (fast.nsides, fast.nlists):
            return
        sides = self._sides
        kinds = self._kind

        def side_order(side: int) -> tuple[int, int, int, int, int, int]:
            found: Any = sides[side]
            if kinds[side] == PLAYING:  # (total, cards, hand, f24, f36, tiebreak)
                return (0, found[1], found[0], found[3], found[4], found[5])
            if kinds[side] == STANDING:  # ("S", total, tiebreak, hand)
                return (1, found[1], found[2], 0, 0, 0)
            return (2 + kinds[side], 0, 0, 0, 0, 0)

        order = sorted(range(fast.nsides), key=side_order)
        rank = [0] * len(order)
        for position, side in enumerate(order):
            rank[side] = position
        candidates = self._candidates
        lists = sorted(range(fast.nlists), key=lambda found: rank[candidates[found][0]])
        fast.rank(order, lists)
        self._ranked = (fast.nsides, fast.nlists)

    def _dense_bytes(self, pairs: Sequence[tuple[int, int]], contexts: int) -> tuple[int, int]:
        """The bytes of the before-draw and of the after-draw positions of these groups' dense
        tables, in each of ``contexts`` contexts."""
        before, after = self._fast.table_sizes(pairs)
        return before * contexts * 8, after * contexts * 8

    def _level_contexts(self, s0: int, s1: int) -> list[int]:
        """The later sets' contexts of score ``s0``-``s1`` the core solves (one per opener
        where the rule reads it)."""
        openers = (0, 1) if self._reads_opener else (0,)
        return sorted(
            context
            for context in {self._context(s0, s1, opener, 0) for opener in openers}
            if self._native(context)
        )

    def _start_level(self, s0: int, s1: int, pairs: Sequence[tuple[int, int]]) -> None:
        """Give the groups of this score level dense tables, the other levels' being freed
        first (from now on only their match-state values are read), within
        :data:`DENSE_LIMIT_BYTES`: where the after-draw positions do not all fit, those of as
        many groups as fit beside the before-draw ones (:func:`groups_with_after`); where not
        even the before-draw ones fit, refused (:class:`SolverTooLarge`)."""
        contexts = self._level_contexts(s0, s1)
        self._sync()
        if self._dense_level != (s0, s1):
            self._fast.drop_dense(True)  # (its arrays serve this level's tables, of the same sizes)
            self._rank()
            self._dense_level = (s0, s1)
        before, after = self._dense_bytes(pairs, len(contexts))
        if before > DENSE_LIMIT_BYTES:
            self._dense_level = None
            self._fast.free_spares()
            raise SolverTooLarge(
                f"the match answer for these hands needs about {before / 1e9:.1f} GB of "
                f"positions at each score, more than its bound of "
                f"{DENSE_LIMIT_BYTES / 1e9:.1f} GB (the set answer needs far less)"
            )
        kept = set(pairs)
        if before + after > DENSE_LIMIT_BYTES:
            room = (DENSE_LIMIT_BYTES - before) // (8 * len(contexts))
            kept = groups_with_after(
                [(self._fast.table_sizes([pair])[1], pair) for pair in pairs], room
            )
        for context in contexts:
            for x, y in pairs:
                self._fast.densify(context, x, y, (x, y) in kept)
        self._fast.free_spares()  # (the arrays these tables did not take)

    # -- the recursion, in the core ---------------------------------------------------------------

    value_before_draw = _in_core(MatchSolver.value_before_draw, "before")
    _value_after_draw = _in_core(MatchSolver._value_after_draw, "after")
    _end = _in_core(MatchSolver._end, "end")
    value_of_end = _in_core(MatchSolver.value_of_end, "end_value")

    # -- the set's odds along the match-optimal line ----------------------------------------------

    _odds_end = _in_core(MatchSolver._odds_end, "odds_end")
    _choice = _in_core(MatchSolver._choice, "choice")

    # -- match states -----------------------------------------------------------------------------

    def _forget(self, match: MatchKey) -> None:
        super()._forget(match)  # (Python holds none of these positions: a no-op)
        self._fast.forget(*match)

    def _settle(self, match: MatchKey, shift: float = 0.0) -> None:
        if self.values_order_free:  # (Python holds none of these positions)
            self._fast.drop_level(*match)
        else:
            super()._settle(match, shift)
            self._fast.settle(*match, shift)

    def _evaluation(
        self, evaluate: Callable[[float], Pair], x: float
    ) -> tuple[Pair, tuple[float, float] | None]:
        # the interval a nested fixed point's evaluations narrow is its own: the outer one's is
        # put back after, as its evaluation goes on
        saved = (self._fast.track, self._fast.interval)
        self._fast.track_interval(True)
        try:
            pair = evaluate(x)
            interval: tuple[float, float] = self._fast.interval
        finally:
            self._fast.track_interval(saved[0])
            self._fast.interval = saved[1]
        return pair, interval

    def _solve_entry(self, match: MatchKey, spec: int) -> float:
        try:
            return super()._solve_entry(match, spec)
        except BaseException:  # Ctrl-C, a budget: the unsettled positions would be wrong
            self._fast.drop_level(*match)
            raise

    def _exact_cap(self, budget: int | None) -> tuple[int, int] | None:
        """None: the core's positions drawn exactly are a cache of a bounded size, so a search
        on an exact deck needs no cap on its memory (it forgets what it must and solves it
        again); the bound is set here (:meth:`size_exact_cache`)."""
        self.size_exact_cache()
        return None

    def size_exact_cache(self) -> None:
        """Bound the cache of positions drawn exactly by what is left of the memory bound
        beside this process (the cache's own slots counted as left; its last doubling holds
        the half-size table beside the new one: half as much again) and by this process's
        share of :data:`EXACT_ENTRIES_MOST`; a new bound forgets what the cache held."""
        room = exact_room(EXACT_ENTRY_BYTES)[0] + int(self._fast.exact_bytes) // EXACT_ENTRY_BYTES
        entries = EXACT_ENTRIES_MOST // max(1, self.exact_share)
        while entries > EXACT_ENTRIES_LEAST and entries + entries // 2 > room:
            entries //= 2
        if entries != self._fast.exact_entries:
            self._fast.exact_entries = entries

    def forget_positions(self) -> None:
        """MatchSolver.forget_positions; the core's too (and its odds and dense tables)."""
        super().forget_positions()
        self._fast.clear_positions()
        self._dense_level = None
        self._py_positions = 0
        self._pushed.clear()  # the model ids are given anew

    def blind_to(self, seat: int | None) -> None:
        """MatchSolver.blind_to, told to the core."""
        super().blind_to(seat)
        self._fast.set_blind(-1 if seat is None else seat, self._empty_hand)
