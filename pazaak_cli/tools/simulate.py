"""Tournaments between policies: many seeded matches, tallied, identical for any number of
workers, local or on a cluster.

Match ``i`` of every pairing draws all its randomness (both hands, every main-deck card, and
the choices of a randomised policy) from ``random.Random(f"{seed}:{i}")``: a match's result
depends only on the seed, its index and the pairing, never on which process played it or on
the other pairings. With ``swap`` every match is also played with the seats exchanged, from the
same seed (the same hands and the same stream of main-deck cards).

Matches are played in batches (:class:`Batch`, the unit of work) on an executor of
:mod:`pazaak_cli.runtime.executors`: this process, local worker processes or a Dask cluster. Tallies
are integer counts keyed by batch, so neither the order in which batches finish nor the batch size
changes a result.

The simulator plays through :meth:`MatchState.child` only: the rules live in the engine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MatchState, Phase, deal_hand, new_match, set_outcome
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.players.roster import POLICY_NAMES, RANDOMISED_POLICIES, Player, make_player
from pazaak_cli.runtime.executors import Executor, make_executor

Z_95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution."""

CHUNK_MATCHES = 250
"""Matches per batch, the unit of work sent to a worker (results do not depend on it)."""

MAX_WORKERS = 64


@dataclass(frozen=True)
class Entrant:
    """One side of a pairing: a policy with a side deck."""

    policy: str
    deck_name: str
    deck: tuple[Card, ...]

    @property
    def label(self) -> str:
        return f"{self.policy} ({self.deck_name})"


@dataclass(frozen=True)
class Pairing:
    """Two entrants: ``first`` is player 1 and ``second`` player 2 (with ``swap`` they also
    play every match in the other seats)."""

    first: Entrant
    second: Entrant


@dataclass
class Tally:
    """Counts over many matches, by entrant (index 0 = the pairing's ``first``)."""

    matches: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    sets_won: list[int] = field(default_factory=lambda: [0, 0])
    sets_tied: int = 0
    busts: list[int] = field(default_factory=lambda: [0, 0])
    """Sets lost by ending a turn over the target (deliberate concessions included)."""
    forfeits: list[int] = field(default_factory=lambda: [0, 0])
    turns: int = 0
    """Turns of both players (one per main-deck draw)."""

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these (integers: the order of additions does not matter)."""
        self.matches += other.matches
        self.sets_tied += other.sets_tied
        self.turns += other.turns
        for i in (0, 1):
            self.wins[i] += other.wins[i]
            self.sets_won[i] += other.sets_won[i]
            self.busts[i] += other.busts[i]
            self.forfeits[i] += other.forfeits[i]

    @property
    def sets_played(self) -> int:
        return self.sets_won[0] + self.sets_won[1] + self.sets_tied


@dataclass(frozen=True)
class PairingResult:
    """The tally of one pairing, with what is needed to replay it."""

    pairing: Pairing
    tally: Tally
    ruleset: Ruleset
    seed: int
    swap: bool

    def win_rate(self, entrant: int) -> float:
        return self.tally.wins[entrant] / self.tally.matches if self.tally.matches else 0.0

    def win_interval(self, entrant: int) -> tuple[float, float]:
        """The 95 % Wilson score interval of the entrant's match-win probability."""
        return wilson_interval(self.tally.wins[entrant], self.tally.matches)

    def to_json(self) -> dict[str, object]:
        """The result as plain JSON data (rates rounded to 6 places, so output is stable)."""
        t = self.tally
        matches = t.matches or 1
        data: dict[str, object] = {
            "ruleset": self.ruleset.spec,
            "seed": self.seed,
            "swap": self.swap,
            "policies": {"p1": self.pairing.first.policy, "p2": self.pairing.second.policy},
            "decks": {
                key: {"name": entrant.deck_name, "cards": [str(card) for card in entrant.deck]}
                for key, entrant in (("p1", self.pairing.first), ("p2", self.pairing.second))
            },
            "matches": t.matches,
        }
        for i, key in enumerate(("p1", "p2")):
            low, high = self.win_interval(i)
            data[f"{key}_wins"] = t.wins[i]
            data[f"{key}_win_rate"] = round(self.win_rate(i), 6)
            data[f"{key}_win_ci95"] = [round(low, 6), round(high, 6)]
        data.update(
            {
                "sets_played": t.sets_played,
                "sets_tied": t.sets_tied,
                "p1_sets_won": t.sets_won[0],
                "p2_sets_won": t.sets_won[1],
                "turns": t.turns,
                "sets_per_match": round(t.sets_played / matches, 6),
                "turns_per_match": round(t.turns / matches, 6),
                "p1_busts": t.busts[0],
                "p2_busts": t.busts[1],
                "p1_forfeits": t.forfeits[0],
                "p2_forfeits": t.forfeits[1],
            }
        )
        return data


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (good near 0 and 1, unlike the
    normal approximation); (0, 1) for no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise PazaakError(f"{successes} successes in {trials} trials: 0 to {trials} can be")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def match_rng(seed: int, index: int) -> random.Random:
    """The generator of match ``index``: a function of the seed and the index only."""
    return random.Random(f"{seed}:{index}")


def play_match(
    state: MatchState,
    players: Sequence[Player],
    rng: random.Random,
    tally: Tally,
    seats: tuple[int, int],
) -> MatchState:
    """Play ``state`` to the end, chance events from ``rng``, and count the match into
    ``tally``; ``seats[s]`` is the tally index (entrant) of the player in seat ``s``.

    Each player sees only ``state.observed_by(seat)``.
    """
    after_draw, before_draw, match_over = Phase.AFTER_DRAW, Phase.BEFORE_DRAW, Phase.MATCH_OVER
    turns = 0
    busts = tally.busts
    choose = (players[0].choose, players[1].choose)
    while True:
        phase = state.phase
        if phase is after_draw:
            seat = state.turn
            state = state.child(choose[seat](state.observed_by(seat)))
            continue
        if phase is before_draw:
            turns += 1
        elif phase is match_over:
            break
        elif state.set_winners:  # SET_OVER after a set: count a bust
            _count_bust(state, busts, seats)
        state = state.child(state.sample_chance(rng))
    if state.forfeited is None:
        _count_bust(state, busts, seats)
    else:
        tally.forfeits[seats[state.forfeited]] += 1
    winner = state.match_winner()
    assert winner is not None
    winners = state.set_winners
    tally.matches += 1
    tally.turns += turns
    tally.wins[seats[winner]] += 1
    tally.sets_won[seats[0]] += winners.count(0)
    tally.sets_won[seats[1]] += winners.count(1)
    tally.sets_tied += winners.count(None)
    return state


def _count_bust(state: MatchState, busts: list[int], seats: tuple[int, int]) -> None:
    """Count the set just finished if its loser ended a turn over the target."""
    outcome = set_outcome(state)
    if outcome is not None and outcome.reason == "bust" and outcome.winner is not None:
        busts[seats[1 - outcome.winner]] += 1


def play_matches(
    ruleset: Ruleset, pairing: Pairing, seed: int, start: int, stop: int, swap: bool
) -> Tally:
    """Play matches ``start`` to ``stop - 1`` of ``pairing`` (and their swapped twins)."""
    tally = Tally()
    entrants = (pairing.first, pairing.second)
    fixed: dict[int, Player] = {}

    def player(entrant: int, rng: random.Random) -> Player:
        """A deterministic policy serves every match; a randomised one gets the match's rng."""
        me, other = entrants[entrant], entrants[1 - entrant]
        if me.policy in RANDOMISED_POLICIES:
            return make_player(
                me.policy, ruleset=ruleset, rng=rng, own_deck=me.deck, opponent_deck=other.deck
            )
        if entrant not in fixed:
            fixed[entrant] = make_player(
                me.policy,
                ruleset=ruleset,
                rng=random.Random(0),
                own_deck=me.deck,
                opponent_deck=other.deck,
            )
        return fixed[entrant]

    for index in range(start, stop):
        for swapped in (False, True) if swap else (False,):
            rng = match_rng(seed, index)
            hands = (
                deal_hand(pairing.first.deck, ruleset, rng),
                deal_hand(pairing.second.deck, ruleset, rng),
            )
            seats = (1, 0) if swapped else (0, 1)
            players = (player(seats[0], rng), player(seats[1], rng))
            state = new_match(ruleset, (hands[seats[0]], hands[seats[1]]))
            play_match(state, players, rng, tally, seats)
    return tally


@dataclass(frozen=True)
class Batch:
    """The unit of work sent to a worker: matches ``start`` to ``stop - 1`` of one pairing.

    Each match is seeded by the run's seed and its index alone (see the module docstring), so a
    batch's tally is the same wherever and however often it is played: results do not depend
    on the batch size, the number of workers or the backend, and a batch rerun after a worker
    died gives the same tally again.
    """

    ruleset: Ruleset
    pairing: Pairing
    seed: int
    start: int
    stop: int
    swap: bool

    @property
    def matches(self) -> int:
        """Matches this batch plays (twice each with ``swap``)."""
        return (self.stop - self.start) * (2 if self.swap else 1)


def play_batch(batch: Batch) -> Tally:
    """Play one batch (a module-level function, so that any backend can pickle it)."""
    return play_matches(
        batch.ruleset, batch.pairing, batch.seed, batch.start, batch.stop, batch.swap
    )


def split(
    ruleset: Ruleset,
    pairing: Pairing,
    seed: int,
    start: int,
    stop: int,
    swap: bool,
    size: int = CHUNK_MATCHES,
) -> Iterator[Batch]:
    """Matches ``start`` to ``stop - 1`` of ``pairing`` as batches of at most ``size``."""
    for first in range(start, stop, size):
        yield Batch(ruleset, pairing, seed, first, min(stop, first + size), swap)


def check_entrants(ruleset: Ruleset, pairings: Iterable[Pairing]) -> None:
    """Fail before any work on a policy that is unknown or cannot be built."""
    for pairing in pairings:
        for entrant, other in ((pairing.first, pairing.second), (pairing.second, pairing.first)):
            if entrant.policy not in POLICY_NAMES:
                raise PazaakError(
                    f"unknown policy {entrant.policy!r}; choose one of {', '.join(POLICY_NAMES)}"
                )
            make_player(
                entrant.policy,
                ruleset=ruleset,
                rng=random.Random(0),
                own_deck=entrant.deck,
                opponent_deck=other.deck,
            )


def simulate(
    ruleset: Ruleset,
    pairings: Sequence[Pairing],
    *,
    matches: int,
    seed: int,
    swap: bool = False,
    workers: int = 1,
    executor: Executor | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[PairingResult]:
    """Play ``matches`` matches of every pairing (twice each with ``swap``) and tally them.

    The work goes to ``executor`` (a Dask cluster, say), else to ``workers`` local processes;
    the results are the same for any. Batches are made lazily and at most the executor's window
    of them is in flight, so memory stays flat for any ``matches``. ``progress`` is called with
    the number of matches just finished.
    """
    if matches < 1:
        raise PazaakError("the number of matches must be at least 1")
    if not 1 <= workers <= MAX_WORKERS:
        raise PazaakError(f"the number of workers must be between 1 and {MAX_WORKERS}")
    check_entrants(ruleset, pairings)
    per_pairing = -(-matches // CHUNK_MATCHES)
    batches = (
        batch for pairing in pairings for batch in split(ruleset, pairing, seed, 0, matches, swap)
    )
    tallies = [Tally() for _ in pairings]
    runner = executor or make_executor(min(workers, len(pairings) * per_pairing))
    try:
        for index, tally in runner.map_unordered(play_batch, batches):
            tallies[index // per_pairing].add(tally)
            if progress is not None:
                progress(tally.matches)
    finally:
        if executor is None:
            runner.close()
    return [
        PairingResult(pairing, tally, ruleset, seed, swap)
        for pairing, tally in zip(pairings, tallies, strict=True)
    ]
