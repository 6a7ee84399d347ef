"""``pazaak prepare`` cut into tasks that run anywhere at once: local processes, or a Dask cluster.

A match state's value is a function of the state alone when the solver has
``values_order_free`` (``MatchSolver._settle`` and ``_guess`` say why), so any order that solves
a state after the states it reads gives the local run's values, bit for bit. A state reads the
states of its set's ends: one more set won by either side (their values are all a task is
given), or the same score after a tie with cards played (fewer cards: solved in the same task).

So the plan goes a number of sets played at a time, most first (a round: its scores read none
of each other's values), and cuts each score as the local run cuts the work, by the hands of one
seat: a task solves every missing state of a run of neighbouring hands' sub-hands against the
other seat's, fewest cards first, in the tables of one worker. The positions of a score are
shared between the states of a family; cut finer (a task per count of cards, say), each task
solved its states' positions again and a deck pair took 8.4 times the CPU; a score's tables for
all its states would take 8.5 GB for two game decks. A state two runs share is solved in both,
with the same bits (checked as the values come back): about as many runs as the executor takes
at once, 1.3 times the CPU of the local run on two workers (docs/benchmarks.md).

A task names hands by their cards (each process interns its own ids). A worker keeps one solver
between tasks: what it solved for one task (positions, values) is what another would solve.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.runtime.executors import Executor
from pazaak_cli.solve.match_native import NativeMatchSolver, make_match_solver
from pazaak_cli.solve.match_solver import Level, MatchKey, MatchSolver, SolvedWork

__all__ = ["StatesTask", "TaskResult", "prepare_planned", "solve_task"]

Hand = tuple[Card, ...]
State = tuple[int, int, Hand, Hand, int]
"""(sets won by seat 0, by seat 1, hand of seat 0, hand of seat 1, opener spec)."""

_SPECS = (0, 1, 2)
"""Every opener spec a value may be kept under (a seat, or 2: a coin)."""


class StatesTask(NamedTuple):
    """The states of one score with these pairs of hands, and everything their solves read."""

    rules: Ruleset
    max_states: int
    """The worker solver's memo bound (the local solver's)."""
    s0: int
    s1: int
    pairs: tuple[tuple[Hand, Hand], ...]
    known: tuple[tuple[State, float], ...]
    """The values of the states they read."""
    shares: tuple[tuple[Hand, Hand, int, float], ...]
    """Where their first guesses start: the shares of these pairs as the round began."""
    moves: tuple[tuple[State, float], ...]
    """The moves of the states one card smaller, which those guesses borrow."""


class TaskResult(NamedTuple):
    """What a task found: its states' values, the shares they landed on and the moves."""

    values: tuple[tuple[State, float], ...]
    shares: tuple[tuple[Hand, Hand, int, float], ...]
    moves: tuple[tuple[State, float], ...]


_WORKER: dict[tuple[Ruleset, int], MatchSolver] = {}
"""The solver of this process's tasks (one: the last ruleset's)."""


def _worker_solver(rules: Ruleset, max_states: int) -> MatchSolver:
    solver = _WORKER.get((rules, max_states))
    if solver is None:
        _WORKER.clear()
        solver = _WORKER[(rules, max_states)] = make_match_solver(rules, max_states=max_states)
        if isinstance(solver, NativeMatchSolver):
            solver.processes = 1  # (a task is one score: nothing to share out)
        solver.values_order_free = True
    return solver


def solve_task(task: StatesTask) -> TaskResult:
    """Solve a task's states (in a worker: any process, any order of tasks)."""
    solver = _worker_solver(task.rules, task.max_states)
    intern = solver.hands.intern
    if any(
        solver.value_known((task.s0, task.s1, intern(h0), intern(h1)), spec) is not None
        for h0, h1 in task.pairs
        for spec in solver.opener_specs
    ):  # (a task run again here: solved afresh, so that its shares and moves come back too)
        _WORKER.clear()
        solver = _worker_solver(task.rules, task.max_states)
        intern = solver.hands.intern
    cards = solver.hands.cards
    solver.bound_memo()
    solver.add_entries(
        (((s0, s1, intern(h0), intern(h1)), spec), value)
        for (s0, s1, h0, h1, spec), value in task.known
    )
    solved = solver.solve_states(
        task.s0,
        task.s1,
        [(intern(h0), intern(h1)) for h0, h1 in task.pairs],
        shares={(intern(h0), intern(h1), spec): share for h0, h1, spec, share in task.shares},
        moves={
            ((s0, s1, intern(h0), intern(h1)), spec): move
            for (s0, s1, h0, h1, spec), move in task.moves
        },
    )

    def state(match: MatchKey, spec: int) -> State:
        return (match[0], match[1], cards[match[2]], cards[match[3]], spec)

    return TaskResult(
        tuple((state(match, spec), value) for (match, spec), value in solved.values.items()),
        tuple(
            (cards[h0], cards[h1], spec, share) for (h0, h1, spec), share in solved.shares.items()
        ),
        tuple((state(match, spec), move) for (match, spec), move in solved.moves.items()),
    )


class _Plan:
    """The driver's side: the local solver holding every value found so far, the shares of the
    round under way and the moves, and the tasks of each score cut from them."""

    def __init__(
        self,
        solver: MatchSolver,
        hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
        max_states: int,
        window: int,
    ) -> None:
        self.solver = solver
        self.max_states = max_states
        self.shares = solver.starting_shares()
        self.moves = solver.share_moves()
        self.target = solver.ruleset.sets_to_win
        intern = solver.hands.intern
        ids = [[intern(hand) for hand in dict.fromkeys(map(tuple, side))] for side in hands]
        self.split = 0 if len(ids[0]) >= len(ids[1]) else 1
        """The seat whose hands the tasks are cut by (the one with more)."""
        self.families: list[tuple[set[int], set[int]]] = []
        """Each task's sub-hands, a seat each: every sub-hand of a run of neighbouring hands of
        the split seat against every sub-hand of the other seat's hands, as the local run
        prepares one hand at a time. About ``window`` runs (what the executor runs at once):
        the fewer, the less the families overlap (their shared states are solved in each), a
        run's tables within the solver's bound (else one hand, and if need be one of the other
        seat's hands at a time, as the local run does then)."""
        split, others = ids[self.split], ids[1 - self.split]
        every_other = {sub for hand in others for sub in solver.sub_hands(hand)}
        size = max(1, -(-len(split) // max(1, window)))
        for start in range(0, len(split), size):
            run = split[start : start + size]
            if self._fits(run, others):
                self.families.append(({s for h in run for s in solver.sub_hands(h)}, every_other))
                continue
            for hand in run:
                mine = set(solver.sub_hands(hand))
                if self._fits([hand], others):
                    self.families.append((mine, every_other))
                else:
                    self.families += [(mine, set(solver.sub_hands(other))) for other in others]

    def _fits(self, run: list[int], others: list[int]) -> bool:
        """Whether a score's tables for these hands of the split seat against those of the
        other fit the solver's bound."""
        cards = self.solver.hands.cards
        pair = ([cards[hand] for hand in run], [cards[hand] for hand in others])
        return self.solver.fits(pair if self.split == 0 else (pair[1], pair[0]))

    def tasks(self, level: Level, base: dict[tuple[int, int, int], float]) -> list[StatesTask]:
        """A score's missing states cut by family: each task solves every missing state of its
        family, fewest cards first (a state its family shares with another's is solved in
        both, the same bits: :meth:`take` checks), reading only the values of the scores with
        more sets played."""
        tasks, seen = [], set()
        for family in self.families:
            mine, other = family if self.split == 0 else (family[1], family[0])
            pairs = [(x, y) for x, y in level.missing if x in mine and y in other]
            if pairs and tuple(pairs) not in seen:
                seen.add(tuple(pairs))
                tasks.append(self._task(level.s0, level.s1, pairs, (mine, other), base))
        return tasks

    def _task(
        self,
        s0: int,
        s1: int,
        pairs: list[tuple[int, int]],
        family: tuple[set[int], set[int]],
        base: dict[tuple[int, int, int], float],
    ) -> StatesTask:
        """A task of these states of the family (a seat's sub-hands each, closed under taking a
        card away: every hand a set of theirs can end with): the values known of the family at
        this score and the two a set won or lost leads to."""
        solver, cards = self.solver, self.solver.hands.cards
        known: dict[State, float] = {}
        moves: dict[State, float] = {}
        shares = []
        for t0, t1 in ((s0 + 1, s1), (s0, s1 + 1), (s0, s1)):
            if max(t0, t1) >= self.target:
                continue
            for sx in family[0]:
                for sy in family[1]:
                    for spec in _SPECS:
                        value = solver.value_known((t0, t1, sx, sy), spec)
                        if value is not None:
                            known[(t0, t1, cards[sx], cards[sy], spec)] = value
        for x, y in pairs:
            smaller = [(rest, y) for rest in solver.smaller_hands(x)]
            smaller += [(x, rest) for rest in solver.smaller_hands(y)]
            for spec in _SPECS:
                share = base.get((x, y, spec))
                if share is not None:
                    shares.append((cards[x], cards[y], spec, share))
                for sx, sy in smaller:
                    move = self.moves.get(((s0, s1, sx, sy), spec))
                    if move is not None:
                        moves[(s0, s1, cards[sx], cards[sy], spec)] = move
        return StatesTask(
            solver.ruleset,
            self.max_states,
            s0,
            s1,
            tuple((cards[x], cards[y]) for x, y in pairs),
            tuple(known.items()),
            tuple(shares),
            tuple(moves.items()),
        )

    def take(
        self, result: TaskResult, writes: dict[tuple[int, int, int], tuple[int, float]]
    ) -> int:
        """A task's values into the local solver (one another task found too must be the
        same, bit for bit); its shares into the round's writes (the sequential order's rule:
        within a round, the score with fewest sets won by seat 0 wins); its moves kept.
        Returns the states new here."""
        intern = self.solver.hands.intern
        new = self.solver.take_work(SolvedWork(result.values, (), ()))  # (its values alone)
        order = -result.values[0][0][0] if result.values else 0
        for h0, h1, spec, share in result.shares:
            key = (intern(h0), intern(h1), spec)
            written = writes.get(key)
            if written is None or written[0] <= order:
                writes[key] = (order, share)
        for (s0, s1, h0, h1, spec), move in result.moves:
            self.moves[((s0, s1, intern(h0), intern(h1)), spec)] = move
        return new


def prepare_planned(
    solver: MatchSolver,
    scores: tuple[int, int],
    hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    executor: Executor,
    *,
    max_states: int,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """``solver.prepare_all(scores, hands)`` run by ``executor``'s workers, a round at a time:
    the same values, bit for bit, in ``solver`` at the end (a solver with
    ``values_order_free``). ``progress(done, total)`` in states
    after each task. Returns the states solved."""
    rounds = solver.missing_states(scores, hands)
    specs = len(solver.opener_specs)
    total = sum(len(level.missing) for levels in rounds for level in levels) * specs
    plan = _Plan(solver, hands, max_states, executor.window)
    done = 0
    for levels in rounds:
        base = dict(plan.shares)  # (a round's states read the shares as it began)
        writes: dict[tuple[int, int, int], tuple[int, float]] = {}
        tasks = [task for level in levels for task in plan.tasks(level, base)]
        for _, result in executor.map_unordered(solve_task, tasks):
            done += plan.take(result, writes)
            if progress is not None:
                progress(done, total)
        plan.shares.update((key, share) for key, (_, share) in writes.items())
    solver.take_shares(plan.shares, plan.moves)
    return done
