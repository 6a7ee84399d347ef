"""``pazaak prepare`` cut into tasks that run anywhere at once: local processes, or a Dask cluster.

A match state's value is a function of the state alone (``MatchSolver._settle`` and ``_guess``
say why), so any order that solves a state after the states it reads gives the values of the
local run, bit for bit. A state reads the states of a set's ends: one more set won by either
side, or the same score after a tie; with the cards each side still holds, its own or fewer
(the same cards only at another score). So the plan goes in waves: for each number of sets
played, most first, and within it for each count of cards in both hands, fewest first, every
state of that many sets played and cards at once. A wave's states read only earlier waves'
values, and are cut into tasks, each carrying what its states read: the values, and what their
first guesses start from (``MatchSolver.solve_states``).

A task names hands by their cards (each process interns its own ids). A worker keeps one solver
between tasks: what it solved for one task (positions, values) is what another would solve.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.runtime.executors import Executor
from pazaak_cli.solve.match_native import make_match_solver
from pazaak_cli.solve.match_solver import Level, MatchKey, MatchSolver

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
    level: tuple[tuple[Hand, ...], tuple[Hand, ...]]
    """Every hand of each seat at this score (the pairs of the score's tables: the positions
    the tasks of a score share stay in the worker from one task to the next)."""


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
        (s0, s1, intern(h0), intern(h1), spec, value)
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
        level=[(intern(h0), intern(h1)) for h0 in task.level[0] for h1 in task.level[1]],
    )

    def state(match: MatchKey, spec: int) -> State:
        return (match[0], match[1], cards[match[2]], cards[match[3]], spec)

    return TaskResult(
        tuple((state(match, spec), value) for (match, spec), value in solved.values.items()),
        tuple((cards[h0], cards[h1], spec, share) for (h0, h1, spec), share in solved.shares.items()),
        tuple((state(match, spec), move) for (match, spec), move in solved.moves.items()),
    )


class _Plan:
    """The driver's side: the local solver holding every value found so far, the shares of the
    round under way and the moves, and the tasks of each wave cut from them."""

    def __init__(self, solver: MatchSolver, max_states: int, window: int) -> None:
        self.solver = solver
        self.max_states = max_states
        self.window = window
        self.shares = solver.starting_shares()
        self.moves = solver.share_moves()
        self.target = solver.ruleset.sets_to_win

    def waves(self, levels: Sequence[Level]) -> Iterator[list[tuple[Level, list[tuple[int, int]]]]]:
        """A round's states by the count of cards in both hands, fewest first."""
        cards = self.solver.hands.cards
        counts = sorted({len(cards[x]) + len(cards[y]) for level in levels for x, y in level.missing})
        for count in counts:
            yield [
                (level, [(x, y) for x, y in level.missing if len(cards[x]) + len(cards[y]) == count])
                for level in levels
            ]

    def tasks(
        self, wave: list[tuple[Level, list[tuple[int, int]]]], base: dict[tuple[int, int, int], float]
    ) -> list[StatesTask]:
        """The wave cut into about as many tasks as the executor runs at once."""
        states = sum(len(pairs) for _, pairs in wave)
        size = max(1, -(-states // self.window))
        cards = self.solver.hands.cards
        tasks = []
        for level, pairs in wave:
            hands = (
                tuple(cards[x] for x in dict.fromkeys(x for x, _ in level.missing)),
                tuple(cards[y] for y in dict.fromkeys(y for _, y in level.missing)),
            )
            for start in range(0, len(pairs), size):
                tasks.append(self._task(level.s0, level.s1, pairs[start : start + size], base, hands))
        return tasks

    def _task(
        self,
        s0: int,
        s1: int,
        pairs: list[tuple[int, int]],
        base: dict[tuple[int, int, int], float],
        level: tuple[tuple[Hand, ...], tuple[Hand, ...]],
    ) -> StatesTask:
        solver, cards = self.solver, self.solver.hands.cards
        known: dict[State, float] = {}
        moves: dict[State, float] = {}
        shares = []
        for x, y in pairs:
            for sx in solver.sub_hands(x):
                for sy in solver.sub_hands(y):
                    for t0, t1 in ((s0 + 1, s1), (s0, s1 + 1), (s0, s1)):
                        if max(t0, t1) >= self.target or (t0, t1, sx, sy) == (s0, s1, x, y):
                            continue
                        for spec in _SPECS:
                            value = solver.value_known((t0, t1, sx, sy), spec)
                            if value is not None:
                                known[(t0, t1, cards[sx], cards[sy], spec)] = value
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
            level,
        )

    def take(self, result: TaskResult, writes: dict[tuple[int, int, int], tuple[int, float]]) -> int:
        """A task's values into the local solver; its shares into the round's writes (the
        sequential order's rule: within a round, the score with fewest sets won by seat 0
        wins); its moves kept. Returns the states it solved."""
        intern = self.solver.hands.intern
        self.solver.add_entries(
            (s0, s1, intern(h0), intern(h1), spec, value)
            for (s0, s1, h0, h1, spec), value in result.values
        )
        order = -result.values[0][0][0] if result.values else 0
        for h0, h1, spec, share in result.shares:
            key = (intern(h0), intern(h1), spec)
            written = writes.get(key)
            if written is None or written[0] <= order:
                writes[key] = (order, share)
        for (s0, s1, h0, h1, spec), move in result.moves:
            self.moves[((s0, s1, intern(h0), intern(h1)), spec)] = move
        return len(result.values)


def prepare_planned(
    solver: MatchSolver,
    scores: tuple[int, int],
    hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
    executor: Executor,
    *,
    max_states: int,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """``solver.prepare_all(scores, hands)`` run by ``executor``'s workers, wave by wave: the
    same values, bit for bit, in ``solver`` at the end. ``progress(done, total)`` in states
    after each task. Returns the states solved."""
    rounds = solver.missing_states(scores, hands)
    specs = len(solver.opener_specs)
    total = sum(len(level.missing) for levels in rounds for level in levels) * specs
    plan = _Plan(solver, max_states, executor.window)
    done = 0
    for levels in rounds:
        base = dict(plan.shares)  # (a round's states read the shares as it began)
        writes: dict[tuple[int, int, int], tuple[int, float]] = {}
        for level in levels:  # (a score at a time: a worker keeps its positions, see above)
            for wave in plan.waves([level]):
                for _, result in executor.map_unordered(solve_task, plan.tasks(wave, base)):
                    done += plan.take(result, writes)
                    if progress is not None:
                        progress(done, total)
        plan.shares.update((key, share) for key, (_, share) in writes.items())
    solver.take_shares(plan.shares, plan.moves)
    return done
