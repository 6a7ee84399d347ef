"""Two processes solving the later sets' scores at once, each state as soon as what it reads is
known.

A score's match states read only the values of the scores with one more set won on either side
(and, for Newton's first guess, a share found at an earlier number of sets played). Solved a
number of sets played at a time, two cores took six score-times for the nine scores of a first
to 3 match (one core idles while 2-2, 0-0 and the odd score of three are solved); here each
process takes every other score of ``prepare``'s order and solves it pair of hands by pair of
hands, waiting only for the values it reads: five score-times, the second process a few pairs
behind the first.

The values go through a shared table (one mapping, inherited by the forked process): for every
(score, pair of hands) nine doubles, the match-state value for each opener spec, the share
found for each (NaN: not yet; ``inf``: that solve wrote no share) and how far it moved from the
share it started from (what the next states' first guesses read, ``MatchSolver._guess``: a move
the parent lacked once made its later solves start elsewhere, and their values differ in the
last bits). A solve writes its share
before its values, so a reader that sees a value sees the share too (x86 and ARM keep a single
process's stores of aligned doubles whole; the reader only polls). The values are those of the
solve done one score after the other, to the last bit: each state reads the same values, and its
first guess the same share (:meth:`Pipeline.share` finds the state whose share the sequential
order would have kept).

Against a rule (``KotorMatchSolver``) a value is a function of its key alone, with no share to
carry, so the cut can be finer: :class:`StateSplit` deals the states of ``prepare``'s order in
turn to the two processes, each score half in each, the processes going through the scores
side by side.
"""

from __future__ import annotations

import math
import mmap
import os
import struct
import time
from collections.abc import Iterator, Sequence
from typing import Generic, Protocol, TypeVar

MatchKey = tuple[int, int, int, int]
"""(sets won by seat 0, by seat 1, hand of seat 0, hand of seat 1), as match_solver has it."""


class Level(Protocol):
    """A score to solve and its pairs of hands not known yet (match_solver.Level; this module
    sits below match_solver, which uses it)."""

    @property
    def s0(self) -> int: ...

    @property
    def s1(self) -> int: ...

    @property
    def missing(self) -> list[tuple[int, int]]: ...


LevelT = TypeVar("LevelT", bound=Level)

SLOTS = 9
"""Doubles per (score, pair of hands): the values of opener specs 0, 1, 2, then their shares,
then their shares' moves."""

NO_SHARE = math.inf
"""A share slot of a solve that found no share (the set's result did not matter)."""

POLL_SECONDS = 0.0002
"""How long a process waits before it looks again for a value the other is solving."""


class PeerLost(Exception):
    """The other process ended before it wrote a value this one waits for."""


class Peer(Protocol):
    """What a solver asks of the table through which the other process's values come
    (:class:`Pipeline`, :class:`StateSplit`)."""

    lost: bool
    """The other process ended before its share was done: this one solves what is left."""

    def elsewhere(self, match: MatchKey) -> bool:
        """Whether to wait for the other process's value of ``match``."""
        ...

    def value(self, match: MatchKey, spec: int) -> float | None:
        """The other process's value of ``match`` for ``spec`` once written (None: it has none;
        PeerLost if that process ended first)."""
        ...


class SharedTable:
    """Doubles in memory shared between this process and a fork of it, NaN until written: the
    values one of the two solves and the other waits for. Seat 0 is the process that forked,
    seat 1 the forked one."""

    def __init__(self, doubles: int) -> None:
        self._buffer = mmap.mmap(-1, max(1, doubles) * 8)  # (anonymous, shared with a fork)
        self._buffer.write(struct.pack("d", math.nan) * max(1, doubles))
        self._table = memoryview(self._buffer).cast("d")
        self.seat = 0
        """Which process this is (0: the one that forked, 1: the forked one)."""
        self.parent = os.getpid()
        self.child: int | None = None
        """The forked process's id (None: not forked, or ended: nothing more to wait for)."""
        self.lost = False
        """The other process ended before its share was done: this one solves what is left."""

    def close(self) -> None:
        """Let go of the shared table."""
        self._table.release()
        self._buffer.close()

    def _wait(self, slot: int) -> float:
        """The double at ``slot`` once the other process has written it (PeerLost if that
        process ended first)."""
        found = self._table[slot]
        while math.isnan(found):
            self._check_peer()
            time.sleep(POLL_SECONDS)
            found = self._table[slot]
        return found

    def _check_peer(self) -> None:
        if self.seat == 1:
            if os.getppid() != self.parent:
                raise PeerLost("the process that forked this one ended")
            return
        if self.child is None:
            raise PeerLost("no process solves these states")
        try:
            pid, _ = os.waitpid(self.child, os.WNOHANG)
        except ChildProcessError:
            pid = self.child
        if pid:
            # (it may have ended after writing: the caller looks once more)
            self.child = None


class Pipeline(SharedTable, Generic[LevelT]):
    """The scores of one ``prepare_all`` shared out between two processes (seat 0 of the
    pipeline: the parent, every other score from the first; seat 1: the forked child), and the
    table through which their values pass."""

    def __init__(
        self,
        rounds: Sequence[Sequence[LevelT]],
        pairs: Sequence[tuple[int, int]],
        base: dict[tuple[int, int, int], float],
    ) -> None:
        self.rounds = [list(levels) for levels in rounds]
        self.levels = [level for levels in self.rounds for level in levels]
        self.base = base
        """The shares known before this ``prepare_all`` (the sequential solve's starting ones)."""
        self._round_of: dict[tuple[int, int], int] = {}
        self._index: dict[tuple[int, int], int] = {}
        self.owner: dict[tuple[int, int], int] = {}
        for number, levels in enumerate(self.rounds):
            for level in levels:
                score = (level.s0, level.s1)
                self._round_of[score] = number
                self._index[score] = len(self._index)
                self.owner[score] = len(self.owner) % 2
        self._pair_index = {pair: index for index, pair in enumerate(pairs)}
        self._missing = {(level.s0, level.s1): frozenset(level.missing) for level in self.levels}
        super().__init__(len(self._index) * len(pairs) * SLOTS)

    def levels_of(self, seat: int) -> list[LevelT]:
        """The levels a seat solves, in order."""
        return [level for level in self.levels if self.owner[(level.s0, level.s1)] == seat]

    def mine(self) -> list[LevelT]:
        """The levels this process solves, in order."""
        return self.levels_of(self.seat)

    def elsewhere(self, match: MatchKey) -> bool:
        """Whether the other process solves this match state."""
        score = (match[0], match[1])
        owner = self.owner.get(score)
        return (
            not self.lost
            and owner is not None
            and owner != self.seat
            and (match[2], match[3]) in self._missing[score]
        )

    def _slot(self, match: MatchKey) -> int:
        return (
            self._index[(match[0], match[1])] * len(self._pair_index)
            + self._pair_index[(match[2], match[3])]
        ) * SLOTS

    def publish(
        self,
        match: MatchKey,
        values: dict[int, float],
        share_spec: int,
        share: float | None,
        move: float | None,
    ) -> None:
        """A solved state: its share and the share's move first, then its value for each
        opener spec."""
        if (match[0], match[1]) not in self._index:
            return
        slot = self._slot(match)
        self._table[slot + 3 + share_spec] = NO_SHARE if share is None else share
        if move is not None:
            self._table[slot + 6 + share_spec] = move
        for spec, value in values.items():
            self._table[slot + spec] = value

    def value(self, match: MatchKey, spec: int) -> float:
        """The value of a state the other process solves, once it is written (PeerLost if
        that process ended first)."""
        return self._wait(self._slot(match) + spec)

    def share(self, match: MatchKey, key: tuple[int, int, int]) -> float:
        """The share Newton's first guess starts from for ``match`` (``key``: its hands and
        opener spec), as the solve one number of sets played at a time has it: the one written
        by the latest earlier round that wrote one for these hands, within a round by its last
        score (fewest sets won by seat 0), else the one known before."""
        rounds = self._round_of.get((match[0], match[1]), 0)
        pair = (key[0], key[1])
        for number in range(rounds - 1, -1, -1):
            for level in reversed(self.rounds[number]):
                if pair not in self._missing[(level.s0, level.s1)]:
                    continue
                state = (level.s0, level.s1, key[0], key[1])
                slot = self._slot(state)
                if self.owner[(level.s0, level.s1)] != self.seat and not self.lost:
                    try:
                        self.value(state, key[2])  # (its share is written before its value)
                    except PeerLost:
                        self.lost = True  # (this state starts without it: the same fixed point)
                found = self._table[slot + 3 + key[2]]
                if not math.isnan(found) and found != NO_SHARE:
                    return found
        return self.base.get(key, 0.5)

    def _states(self) -> Iterator[tuple[MatchKey, int]]:
        """Every state to solve and its slot, in ``prepare_all``'s order."""
        for level in self.levels:
            for x, y in level.missing:
                match = (level.s0, level.s1, x, y)
                yield match, self._slot(match)

    def values(self, specs: Sequence[int]) -> dict[tuple[MatchKey, int], float]:
        """Every value written, by (match state, spec)."""
        return {
            (match, spec): self._table[slot + spec]
            for match, slot in self._states()
            for spec in specs
            if not math.isnan(self._table[slot + spec])
        }

    def moves(self) -> dict[tuple[MatchKey, int], float]:
        """Every share's move written, by (match state, spec)."""
        return {
            (match, spec): self._table[slot + 6 + spec]
            for match, slot in self._states()
            for spec in range(3)
            if not math.isnan(self._table[slot + 6 + spec])
        }

    def shares(self) -> dict[tuple[int, int, int], float]:
        """The shares the sequential solve ends with: the base, then each share written, in
        ``prepare_all``'s order (a later round's over an earlier one's; within a round, the
        last score's)."""
        result = dict(self.base)
        for match, slot in self._states():
            for spec in range(3):
                share = self._table[slot + 3 + spec]
                if not math.isnan(share) and share != NO_SHARE:
                    result[(match[2], match[3], spec)] = share
        return result


NOT_SOLVED = math.inf
"""A value slot of a state whose solve set no value for that opener spec."""

SPECS = 3
"""Value slots per state in a :class:`StateSplit`: one per opener spec (seat 0, seat 1, a coin)."""


class StateSplit(SharedTable):
    """The match states of one ``prepare``, in its order (each reads only states before it),
    shared out between two processes a score at a time, every other score of the order to
    each (a score's states share the positions of their sets: dealt in turn state by state,
    each process solved again what the other had, 1.25 times the work; the last of nine scores
    cut in two runs as well measured no faster). For a solver whose
    values are functions of their keys alone (``KotorMatchSolver``: no first guess carried from
    one state to the next), so either process may solve any of them and get the same bits;
    each writes the values of its states, and waits for the other's only when they come before
    the state it is solving (:meth:`elsewhere`), so the two never wait for each other."""

    def __init__(self, states: Sequence[MatchKey]) -> None:
        self.states = list(states)
        self._index = {match: index for index, match in enumerate(self.states)}
        owners: dict[tuple[int, int], int] = {}
        for match in self.states:
            owners.setdefault((match[0], match[1]), len(owners) % 2)
        self.owner = [owners[(match[0], match[1])] for match in self.states]
        """The seat that solves each state."""
        self.solving = len(self.states)
        """The index of the state this process is solving (its own, in order)."""
        self.huge = False
        """Whether the solvers' tables go to huge pages for it (a long search)."""
        super().__init__(len(self.states) * SPECS)

    def mine(self) -> list[MatchKey]:
        """The states this process solves, in order."""
        pairs = zip(self.states, self.owner, strict=True)
        return [match for match, seat in pairs if seat == self.seat]

    def start(self, match: MatchKey) -> None:
        """This process begins its state ``match``."""
        self.solving = self._index[match]

    def elsewhere(self, match: MatchKey) -> bool:
        """Whether to wait for the other process's value of ``match``: its state, before the one
        this process is solving (one after it is solved here: waiting for it could wait for a
        state the other process is waiting for)."""
        index = self._index.get(match)
        return (
            not self.lost
            and index is not None
            and self.owner[index] != self.seat
            and index < self.solving
        )

    def publish(self, match: MatchKey, values: dict[int, float]) -> None:
        """A state solved here: its value for each opener spec (the others marked not solved)."""
        slot = self._index[match] * SPECS
        for spec in range(SPECS):
            self._table[slot + spec] = values.get(spec, NOT_SOLVED)

    def value(self, match: MatchKey, spec: int) -> float | None:
        """The other process's value of ``match`` for ``spec``, once written (None: its solve
        set none for that spec; PeerLost if that process ended first)."""
        found = self._wait(self._index[match] * SPECS + spec)
        return None if found == NOT_SOLVED else found

    def values(self) -> dict[tuple[MatchKey, int], float]:
        """Every value written, by (match state, spec)."""
        table = self._table
        return {
            (match, spec): table[index * SPECS + spec]
            for index, match in enumerate(self.states)
            for spec in range(SPECS)
            if not math.isnan(table[index * SPECS + spec])
            and table[index * SPECS + spec] != NOT_SOLVED
        }
