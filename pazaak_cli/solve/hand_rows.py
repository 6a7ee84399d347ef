"""A hidden opponent hand averaged one possible hand at a time, whatever the model.

An answer about a hidden hand values every move for each hand the opponent may hold, as if
known, and averages those values by the hands' deal weights. :class:`HandRows` is that unit of
work for every answer: given a solver and the function that values every move for one hand (a
:data:`MoveRow`), it solves the hands asked for in their order until a deadline, shared out
among the cores (:func:`solve_dealt`) where the searches can be stopped at the deadline (the
set answers), each hand begun finished where they cannot (the match answers). The
time-budgeted answer (:mod:`pazaak_cli.solve.budgeted`) asks it for a sample of the hands and
the exact match answers (:mod:`pazaak_cli.solve.match_advice`) for all of them.

:func:`set_hands` builds it for the set answer against an optimal opponent
(:mod:`pazaak_cli.solve.solver`) or the KOTOR I rule (:mod:`pazaak_cli.solve.kotor_reply`);
:func:`pazaak_cli.solve.match_advice.match_hands` for the match answer against either.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, NamedTuple, Protocol

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.game import FULL_DECK, Side
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import MainDeck
from pazaak_cli.runtime.executors import SharedDeal, SharedTally, run_shared
from pazaak_cli.solve.answer_types import Move, Outcome, SolveOptions, Value
from pazaak_cli.solve.kotor_reply import KotorReplySolver, opponent_sides
from pazaak_cli.solve.kotor_reply import describe_model as describe_kotor_model
from pazaak_cli.solve.kotor_reply import question_moves as kotor_question_moves
from pazaak_cli.solve.solver import (
    HandJob,
    bounded_fixed_solver,
    deck_after_draw,
    describe_model,
    hand_processes,
    hand_values,
    question_moves,
)

MoveRow = tuple[tuple[float, float, float, float], ...]
"""One possible opponent hand's value of every move, in the moves' order: (the objective's
value, P(win the set), P(tie), P(lose)); the objective's value is the set's equity in a set
answer, the probability of winning the match in a match answer. What the answers average, one
hand at a time."""

Progress = Callable[[int], None]
"""A search's progress callback: told the positions computed so far, every so many."""


class OutOfTime(Exception):
    """The answer's deadline passed during a search: the hand being solved is dropped (the
    solvers' memos hold only finished values, so they stay sound)."""


class HandsSolved(NamedTuple):
    """What one call of a hand-by-hand solver did."""

    rows: dict[int, MoveRow]
    """Each hand solved, by its index in the list of possible hands."""
    interrupted: bool
    """Ctrl-C stopped it: no more hands should be asked for."""


def deadline_watch(deadline: float | None, chained: Progress | None) -> Progress | None:
    """A search's progress callback that raises :class:`OutOfTime` past ``deadline`` (a
    :func:`time.monotonic` instant), after calling ``chained``."""
    if deadline is None:
        return chained

    def watch(solved: int) -> None:
        if chained is not None:
            chained(solved)
        if time.monotonic() >= deadline:
            raise OutOfTime

    return watch


HandsSolver = Callable[[Iterable[int]], HandsSolved]
"""Solves the hands it is given, in their order, until its deadline: a process's work."""


def solve_dealt(
    indices: Sequence[int],
    here: HandsSolver,
    there: HandsSolver,
    processes: int,
    *,
    contiguous: bool = False,
    weigh: Callable[[Sequence[int]], float] | None = None,
    waiting: Callable[[], None] | None = None,
) -> HandsSolved:
    """The hands ``indices`` solved by ``here`` in this process and ``there`` in forked copies
    of it (``processes`` in all), each taking the next hand when it is free
    (:class:`~pazaak_cli.runtime.executors.SharedDeal`). The copies start at once, even from an
    empty memo: the first two hands in parallel halve the wait for the least sample, where solving
    one first so that the copy inherits its positions measured no faster (docs/benchmarks.md,
    "Answers within a time budget"). Ctrl-C here (or the engine's stop) is passed on to the
    copies, whose searches stop as this one's does: each answers with the hands it finished.
    ``contiguous``: each process takes one run of neighbouring hands instead (neighbouring in
    the prior's order, whatever order ``indices`` come in: they share the most positions, the
    fastest way to solve every hand), each run in the order given (a sample's draws: cut short
    by its deadline, a run has solved its first draws); ``weigh(run)``: what a run of hands
    costs a process that starts it cold, by which two processes' runs are balanced (default: as
    many hands); ``waiting()``: called every half second while this process waits for a copy."""
    indices = list(indices)
    parts = []
    if processes < 2 or len(indices) < 2:
        parts.append(here(indices))
    elif contiguous:
        ordered = sorted(indices)
        if processes == 2 and weigh is not None:
            cuts = [0, balanced_split(ordered, weigh), len(ordered)]
        else:
            size = -(-len(ordered) // processes)
            cuts = [*range(0, len(ordered), size), len(ordered)]
        # (each run a block of neighbouring hands, taken in the order given: a sample's draws)
        block = {
            index: at for at in range(len(cuts) - 1) for index in ordered[cuts[at] : cuts[at + 1]]
        }
        runs = [[index for index in indices if block[index] == at] for at in range(len(cuts) - 1)]
        parts += run_shared(
            runs, here, there, stopped=_was_stopped, given_up=_none_solved, waiting=waiting
        )
    else:
        deal = SharedDeal(len(indices))

        def here_first(share: Iterable[int]) -> HandsSolved:
            part = here(share)
            if part.interrupted:  # Ctrl-C (or the engine's stop): the copies take no more
                deal.drain()
            return part

        try:
            parts += run_shared(
                [_Dealt(indices, deal)] * processes,
                here_first,
                there,
                stopped=_was_stopped,
                given_up=_none_solved,
                waiting=waiting,
            )
        finally:
            deal.close()
    rows: dict[int, MoveRow] = {}
    for part in parts:
        rows.update(part.rows)
    return HandsSolved(rows, any(part.interrupted for part in parts))


def _was_stopped(part: HandsSolved) -> bool:
    return part.interrupted


def _none_solved(share: Iterable[int]) -> HandsSolved:
    """A copy's share once it was stopped and ended without an answer: no hand of it."""
    return HandsSolved({}, True)


def balanced_split(indices: Sequence[int], weigh: Callable[[Sequence[int]], float]) -> int:
    """Where to cut ``indices`` (1 to len - 1) in two runs so that the costlier run, as ``weigh``
    says, costs the least (the first such cut)."""
    return min(
        range(1, len(indices)),
        key=lambda cut: max(weigh(indices[:cut]), weigh(indices[cut:])),
    )


class _Dealt:
    """The hands of ``indices`` as a :class:`~pazaak_cli.runtime.executors.SharedDeal` deals
    them."""

    def __init__(self, indices: Sequence[int], deal: SharedDeal) -> None:
        self.indices, self.deal = indices, deal

    def __iter__(self) -> Iterator[int]:
        while (taken := self.deal.take()) is not None and taken < len(self.indices):
            yield self.indices[taken]


def rows_in_order(
    indices: Iterable[int],
    deadline: float | None,
    row_of: Callable[[int], MoveRow],
    solved: Callable[[int], None] | None = None,
    *,
    at_least_one: bool = False,
) -> HandsSolved:
    """``row_of(index)`` for the hands ``indices`` in their order, until ``deadline`` (after one
    row at least, if ``at_least_one``), a search out of time (:class:`OutOfTime`: that hand is
    dropped) or Ctrl-C; ``solved(index)`` after each. The loop of every hand-by-hand solver.
    A hand is not begun when the last one took longer than the time left: most searches
    cannot be cut short, and one begun anyway ended a 2 s answer past 2.5 s (the next hand
    takes about as long as the last, and seldom longer: the first one of a process is the
    slowest, docs/benchmarks.md)."""
    rows: dict[int, MoveRow] = {}
    last: float | None = None
    try:
        for index in indices:
            now = time.monotonic()
            late = deadline is not None and (
                now >= deadline or (last is not None and now + last > deadline)
            )
            if late and (rows or not at_least_one):
                break
            try:
                rows[index] = row_of(index)
            except OutOfTime:
                break
            last = time.monotonic() - now
            if solved is not None:
                solved(index)
    except KeyboardInterrupt:
        return HandsSolved(rows, True)
    return HandsSolved(rows, False)


def set_row(value: Value) -> tuple[float, float, float, float]:
    """A set value (equity, P(win)) as a row entry: (equity, P(win), P(tie), P(loss))."""
    outcome = Outcome.from_value(value)
    return (value[0], outcome.p_win, outcome.p_tie, outcome.p_loss)


class Counting(Protocol):
    """What :class:`HandRows` reads of its solver: the positions it holds."""

    @property
    def states(self) -> int: ...


class Described(Protocol):
    """What an answer says of the hands it solved: the moves in the rows' order, the model
    line, and whether the deck was drawn with fixed probabilities (a match answer's may change
    as its hands are solved: a set in progress too large for its exact deck is drawn with fixed
    odds from then on)."""

    @property
    def moves(self) -> list[Move]: ...

    @property
    def model(self) -> str: ...

    @property
    def fixed_probabilities(self) -> bool: ...


class Description(NamedTuple):
    """A :class:`Described` settled before any hand is solved (the set answers')."""

    moves: list[Move]
    model: str
    fixed_probabilities: bool


LATE_ROWS_SHARE = 0.25
"""Where a batch made its hands' later sets past the deadline, its rows get this share of the
time that took (see :meth:`HandRows.solve`)."""

Batch = Callable[[Sequence[int], Callable[[Sequence[int]], HandsSolved]], HandsSolved]
"""Solves the hands given with the function given, with what the solver does before and after
a batch of hands around it (the match answer's: solve the batch's later sets together first,
then free the tables and save what was solved)."""


class HandRows:
    """A question's moves valued one possible opponent hand at a time, against any opponent
    model and for any objective: the unit of work of every answer that averages a hidden hand.

    ``solver`` is the one search every hand asked for shares (so that later hands find the
    positions earlier ones solved); ``row_of(index)`` values every move for hand ``index`` in
    it; ``about`` says what the answer is. ``watch`` hands ``solver`` a progress callback: the
    searches then stop at the deadline (that hand is dropped), and the hands of one call are
    shared among ``processes`` (the forked copies' memos are dropped with them); without it, a
    hand begun is finished, one at least is solved past the deadline, all in this process.
    ``positions``: the progress callback of the searches in this process. ``batch``: what is
    done around each call's hands. ``weigh``: what a run of hands costs a process that starts
    it cold (:func:`solve_dealt` balances two processes' runs by it). ``share(indices)``: how
    many processes may share those hands once the batch has prepared them (a match answer's
    rows read the same bits in any process only once their later sets are known).
    ``start(run)``: told, in the process that solves it, of a run of hands before its first
    (a match answer interns the sides they reach, so that its tables are sized for all).
    ``reserve(positions)``: make room in the solver's memo for that many at once
    (:meth:`make_room`). ``short(yes)``: tell the solver whether its searches from now on are
    short (:meth:`short_searches`)."""

    def __init__(
        self,
        solver: Counting,
        row_of: Callable[[int], MoveRow],
        about: Described,
        *,
        watch: Callable[[Progress | None], None] | None = None,
        processes: int = 1,
        positions: Progress | None = None,
        batch: Batch | None = None,
        weigh: Callable[[Sequence[int]], float] | None = None,
        share: Callable[[Sequence[int]], int] | None = None,
        start: Callable[[Sequence[int]], None] | None = None,
        reserve: Callable[[int], None] | None = None,
        short: Callable[[bool], None] | None = None,
    ) -> None:
        self.solver = solver
        self.processes = processes
        self._row_of = row_of
        self._about = about
        self._watch = watch
        self._positions = positions
        self._batch = batch
        self._weigh = weigh
        self._share = share
        self._start = start
        self._reserve = reserve
        self._short = short

    @property
    def moves(self) -> list[Move]:
        """Every move of the question, in the rows' order (known once a hand is solved)."""
        return self._about.moves

    @property
    def model(self) -> str:
        return self._about.model

    @property
    def fixed_probabilities(self) -> bool:
        return self._about.fixed_probabilities

    @property
    def states(self) -> int:
        return self.solver.states

    def make_room(self, positions: int) -> None:
        """Size the memo for about ``positions`` before a round of hands that runs to its
        deadline, where the solver can (a set answer against an optimal opponent): its tables
        are made once at that size, not doubled on the way. A doubling zeroes a whole new
        table (most of it in the kernel) and moves every position, in one go that no deadline
        can cut: the 2 s answer about `kotor2-average` spent a third of its time there and
        ended at 2.5 to 2.7 s, at 2.0 s with its room made (docs/benchmarks.md)."""
        if self._reserve is not None:
            self._reserve(positions)

    def short_searches(self, short: bool) -> None:
        """Whether the searches from now on are short (a budget of a few seconds), where the
        solver can tell its memo (a set answer's): its tables are then made in small pages at
        once, whose first writes cost less than huge pages' (docs/benchmarks.md)."""
        if self._short is not None:
            self._short(short)

    def solve(
        self,
        indices: Sequence[int],
        deadline: float | None,
        solved: Callable[[int], None] | None = None,
        *,
        processes: int | None = None,
        contiguous: bool = False,
        elsewhere: Callable[[int], None] | None = None,
    ) -> HandsSolved:
        """The rows of the hands ``indices`` solved before ``deadline``, in their order (a
        prefix of each process's share); ``solved(index)`` after each one solved here,
        ``elsewhere(more)`` as the forked copies solve more hands (told as this process solves,
        and while it waits for them: a progress line).
        ``processes``: how many share them this time (default :attr:`processes`; 1 keeps every
        hand in this process's memo, where hands that share most of their positions go
        fastest); ``contiguous``: shared in runs (:func:`solve_dealt`)."""
        dealt = partial(
            self._dealt,
            solved=solved,
            processes=self.processes if processes is None else processes,
            contiguous=contiguous,
            elsewhere=elsewhere,
        )
        if self._batch is None:
            return dealt(indices, deadline=deadline)
        began = time.monotonic()

        def prepared(ready: Sequence[int]) -> HandsSolved:
            # A deadline that passed while the batch made the hands' later sets is put off by a
            # share of what they took: a row is then mostly a small part of what its hand has
            # already cost (0.3 s for the 9 rows of a batch whose later sets took 27 s), and a
            # row dropped throws that away; the rows of a batch too large to make together
            # make their own later sets, and are still cut (docs/benchmarks.md).
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return dealt(ready, deadline=now + LATE_ROWS_SHARE * (now - began))
            return dealt(ready, deadline=deadline)

        return self._batch(indices, prepared)

    def _dealt(
        self,
        indices: Sequence[int],
        *,
        deadline: float | None,
        solved: Callable[[int], None] | None,
        processes: int,
        contiguous: bool,
        elsewhere: Callable[[int], None] | None,
    ) -> HandsSolved:
        """:meth:`solve` without its batch: the hands shared among ``processes`` (at most as many
        as ``share`` allows them, asked once the batch has prepared them)."""
        if self._share is not None:
            processes = min(processes, self._share(indices))
        if elsewhere is None or processes < 2 or len(indices) < 2:
            here = partial(self._rows, deadline=deadline, positions=self._positions, solved=solved)
            there = partial(self._rows, deadline=deadline, positions=None)
            return solve_dealt(
                indices, here, there, processes, contiguous=contiguous, weigh=self._weigh
            )
        tally = SharedTally()
        told = 0

        def tell() -> None:  # (in this process: the hands the copies solved since last told)
            nonlocal told
            if (count := tally.count()) != told:
                elsewhere(count - told)
                told = count

        def positions(count: int) -> None:
            if self._positions is not None:
                self._positions(count)
            tell()

        def solved_here(index: int) -> None:
            if solved is not None:
                solved(index)
            tell()

        try:
            here = partial(self._rows, deadline=deadline, positions=positions, solved=solved_here)
            there = partial(
                self._rows, deadline=deadline, positions=None, solved=lambda _: tally.add()
            )
            done = solve_dealt(
                indices,
                here,
                there,
                processes,
                contiguous=contiguous,
                weigh=self._weigh,
                waiting=tell,
            )
            tell()  # (the copies' last hands, told before they answered)
            return done
        finally:
            tally.close()

    def _rows(
        self,
        indices: Iterable[int],
        *,
        deadline: float | None,
        positions: Progress | None,
        solved: Callable[[int], None] | None = None,
    ) -> HandsSolved:
        """The rows of as many of ``indices`` as are solved before ``deadline`` (or Ctrl-C), in
        their order: the work of one process (``start`` told first of a run known whole)."""
        if self._start is not None and isinstance(indices, Sequence):
            self._start(indices)
        if self._watch is None:
            return rows_in_order(indices, deadline, self._row_of, solved, at_least_one=True)
        self._watch(deadline_watch(deadline, positions))
        try:
            return rows_in_order(indices, deadline, self._row_of, solved)
        finally:
            self._watch(positions)


def set_hands(
    question: Question, options: SolveOptions, other_hands: list[tuple[tuple[Card, ...], int]]
) -> HandRows:
    """The set answer, one possible opponent hand at a time, against ``options.opponent``: an
    optimal opponent, or the KOTOR I rule (``kotor``; each hand averaged over the orders of its
    cards that change the rule's choices). The deck model is the one the exact average takes
    for any search past its probe: fixed draw probabilities on a finite deck (the small
    searches, where the exact average solves the deck without replacement, are answered
    exactly within any budget)."""
    state = question.state
    rules = state.ruleset
    deck_after = deck_after_draw(state, question.drawn)
    fresh = deck_after if any(deck_after) else FULL_DECK
    processes = hand_processes(other_hands)
    fixed = rules.main_deck is not MainDeck.INFINITE
    solver: Counting
    watch: Callable[[Progress | None], None]
    reserve: Callable[[int], None] | None = None  # (the rule's reply memo has no reserve)
    short: Callable[[bool], None]
    if options.rule is not None:
        kotor = KotorReplySolver(
            rules,
            state.set_winners.count(state.turn),
            fixed_draws=fresh,
            rule=options.rule,
            shares=processes,  # (each process's memo and rule bound a share, as the optimal's)
        )
        moves = kotor_question_moves(question, kotor)
        codes = [code for _, code in moves]
        other_side = state.sides[1 - state.turn]
        job = _KotorJob(kotor, other_side, other_hands, codes, kotor.deck_id(deck_after))
        row_of = partial(_kotor_row, job)
        model = describe_kotor_model(
            state, other_hands, fixed, deck_after, sampled=None, model=options.model
        )
        solver, watch, short = kotor, kotor.watch, kotor.short_searches
    else:
        optimal = bounded_fixed_solver(rules, fresh, options, processes)
        moves = question_moves(question, optimal)
        codes = [code for _, code in moves]
        set_job = HandJob(question, optimal, other_hands, codes, optimal.deck_id(deck_after))
        row_of = partial(_optimal_row, set_job)
        model = describe_model(state, other_hands, fixed, deck_after)
        solver, watch, reserve, short = (
            optimal,
            optimal.watch,
            optimal.reserve,
            optimal.short_searches,
        )
    about = Description([move for move, _ in moves], model, fixed)
    return HandRows(
        solver,
        row_of,
        about,
        watch=watch,
        processes=processes,
        positions=options.positions,
        reserve=reserve,
        short=short,
    )


def _optimal_row(job: HandJob, index: int) -> MoveRow:
    """Every move's set values if the opponent, playing optimally, holds hand ``index`` (the
    exact average's own function, for one hand)."""
    return tuple(set_row(value) for value in hand_values(job, [index])[0])


class _KotorJob(NamedTuple):
    """What :func:`_kotor_row` needs of a set answer against the KOTOR rule."""

    solver: KotorReplySolver
    other_side: Side
    other_hands: list[tuple[tuple[Card, ...], int]]
    codes: list[Any]
    """The end of turn of every move."""
    deck: int


def _kotor_row(job: _KotorJob, index: int) -> MoveRow:
    """Every move's set values if the KOTOR rule holds hand ``index`` (its orders that change
    the rule's choices averaged, each as likely)."""
    solver = job.solver
    opps = opponent_sides(solver, job.other_side, job.other_hands[index][0])
    sums = [[0.0, 0.0] for _ in job.codes]
    try:
        for opp in opps:
            for row, code in zip(sums, job.codes, strict=True):
                equity, p_win = solver.after_my_turn(code, opp, job.deck)
                row[0] += equity / len(opps)
                row[1] += p_win / len(opps)
    finally:
        solver.trim()
    return tuple(set_row((equity, p_win)) for equity, p_win in sums)


__all__ = [
    "HandRows",
    "HandsSolved",
    "MoveRow",
    "OutOfTime",
    "rows_in_order",
    "set_hands",
    "solve_dealt",
]
