"""The deck builder: the side deck, drawn from the cards a player owns, that wins most matches
against a field of opponents.

The space is far too large to try every deck (8.4 million 10-card multisets of KOTOR I's 18
kinds), so the search is a local one, raced:

1. **Starts**: the sample decks of the ruleset (the game's and this project's), each restricted
   to the pool (cards the pool lacks replaced by the pool's cards in card order), and a few
   seeded random decks.
2. **Race** (successive halving): every candidate plays a few matches against every opponent
   (the starts 64 deals each, from both seats; neighbours 8); the better half (by match-win
   rate) gets twice as many, and so on, until one is left or the leader's 95 % Wilson interval
   is clear of every other's.
3. **Climb**: the race winner's neighbours (every deck one card swap away that the pool allows)
   race against it; a better neighbour becomes the new leader. When the leader holds on, its
   neighbours race again on twice as many matches (a neighbour keeps the matches it already
   played), until the leader's interval is clear of its strongest neighbour's, or the budget
   is spent.
4. **Confirm**: a quarter of the budget is kept for the finalists: the leader, the leaders
   before it, and the decks with the best lower interval bounds (five in all), each played as
   often as the leader, then twice as often, and so on, until the leader's interval is clear
   of the others' or the budget is spent. (Among hundreds of candidates, a few look great
   after a few lucky matches: they are shown only once measured as long as the leader.) The
   share kept never leaves the race less than one deal per opponent, so the least budget
   (:func:`minimum_budget`) still measures one deck.

Every candidate plays match ``i`` against opponent ``j`` from the run's seed and ``i`` alone
(the simulator's seeding), each deal from both seats, and a candidate that plays more matches
keeps the ones it played: so two candidates are always compared on the same deals (common random
numbers), and every decision depends on integer tallies only, which do not depend on which
worker played what. The same seed gives the same answer for any number of workers, local or on
a cluster.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import (
    describe_problems,
    parse_deck,
    pool_problems,
    read_source,
    sample_decks,
)
from pazaak_cli.engine.errors import DeckError, PazaakError
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.runtime.executors import Executor, InProcess
from pazaak_cli.tools.simulate import (
    CHUNK_MATCHES,
    Batch,
    Entrant,
    Pairing,
    Tally,
    check_entrants,
    play_batch,
    split,
    wilson_interval,
)

POOL_COPIES = 4
"""The default pool holds this many copies of every card of the ruleset's pool."""

FIRST_RUNG = 8
"""Deals (each played from both seats) per opponent a candidate gets in a race's first rung."""

STARTS_RUNG = 64
"""Deals per opponent in the first rung of the race between the starts: few candidates, so
they can afford a fair first look (a good start lost to noise is hard to climb back to)."""

RANDOM_STARTS = 2
"""Seeded random decks among the starts, beside the game's own decks."""

CONFIRM_FINALISTS = 5
"""How many of the best decks (the leader and the next by the lower end of their interval)
are measured on in the last step."""

CONFIRM_SHARE = 0.25
"""The share of the budget kept for measuring the finalists: a deck that looks best after a
few lucky matches among hundreds of candidates (the winner's curse) is measured as long as the
leader before it is shown."""

SHOWN = 5
"""How many of the best decks a result lists."""

DEFAULT_FIELDS = {
    "kotor1": ("kotor1-average", "kotor1-strong", "kotor1-strongest"),
    "kotor2": (
        "kotor2-very-easy",
        "kotor2-easy",
        "kotor2-average",
        "kotor2-hard",
        "kotor2-very-hard",
    ),
}
"""The game's own opponent decks (pazaakdecks.2da) of each ruleset, the default field, each
played by ``kotor``. KOTOR I's starter deck is the player's, not an opponent's."""

DEFAULT_FIELD_POLICY = "kotor"

Deck = tuple[Card, ...]
"""A candidate deck, its cards sorted: one spelling per multiset."""


@dataclass(frozen=True)
class Opponent:
    """One member of the field: a deck and the policy that plays it."""

    deck_name: str
    deck: Deck
    policy: str = DEFAULT_FIELD_POLICY

    @property
    def label(self) -> str:
        return f"{self.deck_name} ({self.policy})"


@dataclass(frozen=True)
class Pool:
    """The cards a player owns: each card with its number of copies."""

    copies: tuple[tuple[Card, int], ...]
    """(card, copies), cards sorted, copies at least 1."""
    source: str
    """Where it came from: a file, or ``"whole <ruleset> pool"``."""

    @property
    def size(self) -> int:
        return sum(count for _, count in self.copies)

    @property
    def cards(self) -> Deck:
        """Every card, copies repeated, sorted."""
        return tuple(card for card, count in self.copies for _ in range(count))

    def allows(self, deck: Deck) -> bool:
        """Whether the pool holds every card of ``deck``, copies counted."""
        owned = dict(self.copies)
        return all(owned.get(card, 0) >= n for card, n in Counter(deck).items())


@dataclass(frozen=True)
class Score:
    """A candidate's matches against each opponent of the field."""

    deck: Deck
    tallies: tuple[Tally, ...]
    """One per opponent, entrant 0 the candidate."""

    @property
    def matches(self) -> int:
        return sum(t.matches for t in self.tallies)

    @property
    def wins(self) -> int:
        return sum(t.wins[0] for t in self.tallies)

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the match-win rate over the whole field (each opponent
        weighs the same, since each gets the same number of matches)."""
        return wilson_interval(self.wins, self.matches)

    def against(self, opponent: int) -> tuple[int, int, float, tuple[float, float]]:
        """(matches, wins, rate, 95 % interval) against one opponent."""
        tally = self.tallies[opponent]
        rate = tally.wins[0] / tally.matches if tally.matches else 0.0
        return tally.matches, tally.wins[0], rate, wilson_interval(tally.wins[0], tally.matches)


@dataclass(frozen=True)
class SearchResult:
    """What the search found and what it cost."""

    ruleset: Ruleset
    player: str
    field: tuple[Opponent, ...]
    pool: Pool
    seed: int
    budget: int
    best: tuple[Score, ...]
    """The finalists, best first (by match-win rate): the search's leader and the decks that
    came closest, each measured on as many matches as the budget allowed."""
    candidates_tried: int
    climbs: int
    """Races of a leading deck against its one-swap neighbours."""
    matches_played: int
    seconds: float
    stopped: str
    """Why the search ended, in words."""


# --- the pool and the field -------------------------------------------------------------------


def whole_pool(ruleset: Ruleset, copies: int = POOL_COPIES) -> Pool:
    """Every card the ruleset allows, ``copies`` of each (the default ``--pool``)."""
    cards = sorted(ruleset.card_pool)
    return Pool(tuple((card, copies) for card in cards), f"whole {ruleset.spec} pool")


def pool_from_cards(cards: Sequence[Card], source: str) -> Pool:
    counts = Counter(cards)
    return Pool(tuple(sorted(counts.items())), source)


def read_pool(spec: str, ruleset: Ruleset) -> Pool:
    """The pool a deck-like file lists (any number of cards, copies repeated), read by the one
    deck reader. :class:`~pazaak_cli.engine.errors.InputError` (exit 2) if it cannot be read,
    :class:`DeckError` (exit 1) locating what is wrong: a token that is not a card, a card the
    ruleset does not allow, fewer cards than a deck holds."""
    source, data, _ = read_source(spec)
    parsed = parse_deck(data, source)
    problems = pool_problems(parsed, ruleset)
    if problems:
        raise DeckError(f"invalid card pool: {describe_problems(problems)}", token=spec)
    cards = [entry.card for entry in parsed.entries if entry.card is not None]
    need = ruleset.side_deck_size
    if len(cards) < need:
        raise DeckError(
            f"{source}: the pool holds {counted(len(cards), 'card')}, "
            f"fewer than the {need} of a {ruleset.spec} side deck",
            token=spec,
        )
    return pool_from_cards(cards, source)


def default_field(ruleset: Ruleset) -> tuple[Opponent, ...]:
    """The game's own opponent decks of the ruleset, played by ``kotor``
    (:data:`DEFAULT_FIELDS`; a variant uses its preset's)."""
    names = DEFAULT_FIELDS.get(ruleset.name, DEFAULT_FIELDS["kotor1"])
    decks = {deck.name: deck for deck in sample_decks()}
    field = []
    for name in names:
        deck = decks[name]
        if not deck.fits(ruleset):
            raise PazaakError(
                f"the default opponent deck {name} is not valid for ruleset {ruleset.spec}; "
                "give the field with --against"
            )
        field.append(Opponent(name, deck.cards))
    return tuple(field)


# --- the search -------------------------------------------------------------------------------


class _Evaluator:
    """Plays candidates against the field, keeping every tally: a candidate topped up to ``n``
    deals per opponent plays only the deals ``[played, n)`` it has not played yet."""

    def __init__(
        self,
        ruleset: Ruleset,
        player: str,
        field: tuple[Opponent, ...],
        seed: int,
        executor: Executor,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.ruleset = ruleset
        self.player = player
        self.field = field
        self.seed = seed
        self.executor = executor
        self.progress = progress
        self.deals: dict[Deck, int] = {}
        self.tallies: dict[Deck, list[Tally]] = {}
        self.matches_played = 0
        self.climbs = 0
        """Races of a leader against its neighbours."""

    def cost(self, decks: Sequence[Deck], deals: int) -> int:
        """Matches that topping ``decks`` up to ``deals`` deals would play."""
        per_deal = 2 * len(self.field)
        return sum(max(0, deals - self.deals.get(deck, 0)) * per_deal for deck in decks)

    def top_up(self, decks: Sequence[Deck], deals: int) -> None:
        """Play every deck up to ``deals`` deals (from both seats) against every opponent."""
        jobs: list[tuple[Deck, int]] = []
        for deck in decks:
            if deck not in self.tallies:
                self.tallies[deck] = [Tally() for _ in self.field]
                self.deals[deck] = 0
            start = self.deals[deck]
            if start < deals:
                for opponent in range(len(self.field)):
                    jobs.append((deck, opponent))

        def batches() -> Iterator[Batch]:
            for deck, opponent in jobs:
                other = self.field[opponent]
                pairing = Pairing(
                    Entrant(self.player, "candidate", deck),
                    Entrant(other.policy, other.deck_name, other.deck),
                )
                yield from split(
                    self.ruleset, pairing, self.seed, self.deals[deck], deals, swap=True
                )

        keys = [
            (deck, opponent)
            for deck, opponent in jobs
            for _ in range(-(-(deals - self.deals[deck]) // CHUNK_MATCHES))
        ]
        for index, tally in self.executor.map_unordered(play_batch, batches()):
            deck, opponent = keys[index]
            self.tallies[deck][opponent].add(tally)
            self.matches_played += tally.matches
            if self.progress is not None:
                self.progress(tally.matches)
        for deck in decks:
            self.deals[deck] = max(self.deals[deck], deals)

    def score(self, deck: Deck) -> Score:
        return Score(deck, tuple(self.tallies.get(deck, [Tally() for _ in self.field])))


def _ranked(scores: Sequence[Score]) -> list[Score]:
    """Best first by match-win rate; equal rates by the deck's spelling (deterministic)."""
    return sorted(scores, key=lambda s: (-s.win_rate, _spelling(s.deck)))


def _by_lower_bound(scores: Sequence[Score]) -> list[Score]:
    """Best first by the lower end of the 95 % interval: a deck must have shown it is good."""
    return sorted(scores, key=lambda s: (-s.interval[0], -s.win_rate, _spelling(s.deck)))


def _spelling(deck: Deck) -> str:
    return " ".join(str(card) for card in deck)


def _separated(ranked: Sequence[Score]) -> bool:
    """Whether the leader's interval lies wholly above every other's."""
    low = ranked[0].interval[0]
    return all(low > other.interval[1] for other in ranked[1:])


class _Budget(Exception):
    """The next step would play more matches than the budget has left."""


def _race(
    evaluator: _Evaluator, decks: Sequence[Deck], budget: int, first_rung: int
) -> tuple[list[Score], bool]:
    """Successive halving over ``decks``: the ranked survivors of the last rung played, and
    whether the leader's interval separated from the others'. Raise :class:`_Budget` if not
    even the first rung fits."""
    alive = list(dict.fromkeys(decks))
    deals = first_rung
    played_one = False
    while True:
        cost = evaluator.cost(alive, deals)
        if evaluator.matches_played + cost > budget:
            if not played_one:
                raise _Budget
            return _ranked([evaluator.score(d) for d in alive]), False
        evaluator.top_up(alive, deals)
        played_one = True
        ranked = _ranked([evaluator.score(d) for d in alive])
        if len(ranked) == 1:
            return ranked, True
        if _separated(ranked):
            return ranked, True
        alive = [score.deck for score in ranked[: max(1, math.ceil(len(ranked) / 2))]]
        deals *= 2


def neighbours(deck: Deck, pool: Pool) -> list[Deck]:
    """Every deck one card swap away from ``deck`` that ``pool`` allows, in a fixed order."""
    found: dict[Deck, None] = {}
    kinds = [card for card, _ in pool.copies]
    for out in sorted(set(deck)):
        rest = list(deck)
        rest.remove(out)
        for card in kinds:
            if card == out:
                continue
            candidate = tuple(sorted((*rest, card)))
            if pool.allows(candidate):
                found[candidate] = None
    return list(found)


def starts(ruleset: Ruleset, pool: Pool, rng: random.Random) -> list[Deck]:
    """The search's first candidates: the game's decks of the ruleset restricted to the pool,
    and :data:`RANDOM_STARTS` seeded random decks from the pool."""
    size = ruleset.side_deck_size
    found: dict[Deck, None] = {}
    for sample in sample_decks():
        if sample.ruleset is not None and sample.ruleset != ruleset.name:
            continue
        found[_restricted(sample.cards, pool, size)] = None
    for _ in range(RANDOM_STARTS):
        found[tuple(sorted(rng.sample(pool.cards, size)))] = None
    return list(found)


def _restricted(cards: Sequence[Card], pool: Pool, size: int) -> Deck:
    """``cards`` without what the pool lacks, filled up to ``size`` from the pool in card order."""
    left = dict(pool.copies)
    kept: list[Card] = []
    for card in cards:
        if left.get(card, 0) > 0 and len(kept) < size:
            kept.append(card)
            left[card] -= 1
    for card, _ in pool.copies:
        while left[card] > 0 and len(kept) < size:
            kept.append(card)
            left[card] -= 1
    return tuple(sorted(kept))


def minimum_budget(field_size: int) -> int:
    """The fewest matches a search can run on: one deal from both seats against each
    opponent."""
    return 2 * field_size


def build_deck(
    ruleset: Ruleset,
    pool: Pool,
    field: Sequence[Opponent],
    *,
    player: str,
    budget: int,
    seed: int,
    executor: Executor | None = None,
    start_decks: Sequence[Deck] | None = None,
    progress: Callable[[int], None] | None = None,
) -> SearchResult:
    """Search ``pool`` for the deck ``player`` wins most matches with against ``field``,
    playing at most ``budget`` matches (see the module docstring). ``start_decks`` replaces the
    default starts. A pool of exactly one deck's worth of cards is that deck: it is only
    measured, not searched."""
    field = tuple(field)
    if not field:
        raise PazaakError("the field is empty: give at least one --against deck")
    if budget < minimum_budget(len(field)):
        raise PazaakError(
            f"a budget of {counted(budget, 'match', 'matches')} is too small: at least "
            f"{minimum_budget(len(field))} (one deal from both seats per opponent)"
        )
    size = ruleset.side_deck_size
    if pool.size < size:
        raise PazaakError(
            f"the pool holds {counted(pool.size, 'card')}, fewer than the {size} of a "
            f"{ruleset.spec} side deck"
        )
    refused = [card for card, _ in pool.copies if not ruleset.allows(card)]
    if refused:
        raise PazaakError(
            f"the pool holds {refused[0]}, a card the {ruleset.spec} card pool does not allow"
        )
    check_entrants(
        ruleset,
        [
            Pairing(Entrant(player, "candidate", pool.cards[:size]), Entrant(o.policy, "", o.deck))
            for o in field
        ],
    )
    began = time.monotonic()
    runner = executor or InProcess()
    evaluator = _Evaluator(ruleset, player, field, seed, runner, progress)
    rng = random.Random(f"deckbuild:{seed}")
    try:
        if pool.size == size:
            only = pool.cards
            deals = max(1, budget // minimum_budget(len(field)))
            deals = min(deals, FIRST_RUNG * 2**6)
            evaluator.top_up([only], deals)
            stopped = "the pool holds exactly one deck: measured, not searched"
            finalists = [only]
        else:
            stopped, finalists = _search(evaluator, ruleset, pool, budget, rng, start_decks)
    finally:
        if executor is None:
            runner.close()
    shown = (
        _ranked([evaluator.score(deck) for deck in finalists])
        or _by_lower_bound([evaluator.score(deck) for deck in evaluator.tallies])[:SHOWN]
    )
    return SearchResult(
        ruleset=ruleset,
        player=player,
        field=field,
        pool=pool,
        seed=seed,
        budget=budget,
        best=tuple(shown),
        candidates_tried=len(evaluator.tallies),
        climbs=evaluator.climbs,
        matches_played=evaluator.matches_played,
        seconds=time.monotonic() - began,
        stopped=stopped,
    )


def _search(
    evaluator: _Evaluator,
    ruleset: Ruleset,
    pool: Pool,
    budget: int,
    rng: random.Random,
    start_decks: Sequence[Deck] | None,
) -> tuple[str, list[Deck]]:
    """Race the starts, climb through neighbourhoods, confirm the finalists: why it stopped,
    and the finalists (the leader first)."""
    # never less than the least budget (one deal per opponent): otherwise keeping a share for
    # the finalists leaves a budget of a few times the field's size no first race at all
    least = minimum_budget(len(evaluator.field))
    climb_budget = max(least, budget - int(budget * CONFIRM_SHARE))
    first = [tuple(sorted(deck)) for deck in start_decks] if start_decks else None
    candidates = first or starts(ruleset, pool, rng)
    first_rung = STARTS_RUNG
    while True:  # a first race that fits the budget, however small
        try:
            ranked, _ = _race(evaluator, candidates, climb_budget, first_rung)
            break
        except _Budget:
            if first_rung > 1:
                first_rung //= 2
            elif len(candidates) > 1:
                candidates = candidates[: len(candidates) // 2]
            else:
                return "budget spent", []
    leader = ranked[0].deck
    leaders = [leader]
    rung = FIRST_RUNG
    while True:
        around = neighbours(leader, pool)
        if not around:
            stop = "the best deck has no neighbour in the pool"
            break
        try:
            ranked, separated = _race(evaluator, [leader, *around], climb_budget, rung)
        except _Budget:
            stop = "climbing budget spent"
            break
        evaluator.climbs += 1
        if ranked[0].deck != leader:
            leader = ranked[0].deck
            leaders.append(leader)
            continue
        if separated:
            stop = "the best deck's interval is clear of its strongest neighbour's"
            break
        rung *= 2  # the leader held on: look at its neighbours more closely
    # The leader, the leaders before it (a move can be won by noise: a better deck left
    # behind is measured again here), then the best lower bounds.
    others = [s.deck for s in _by_lower_bound([evaluator.score(d) for d in evaluator.tallies])]
    finalists = list(dict.fromkeys([*reversed(leaders), *others]))[:CONFIRM_FINALISTS]
    target = max(evaluator.deals[deck] for deck in finalists)
    while len(finalists) > 1:
        deals = target
        left = budget - evaluator.matches_played
        while deals > 1 and evaluator.cost(finalists, deals) > left:
            deals //= 2
        if evaluator.cost(finalists, deals) == 0 or evaluator.cost(finalists, deals) > left:
            # (the matches left, fewer than a round of the finalists costs, go unplayed)
            return (
                f"{stop}; the {left:,} matches of the budget left pay for no further round "
                "confirming the finalists",
                finalists,
            )
        evaluator.top_up(finalists, deals)
        if _separated(_ranked([evaluator.score(d) for d in finalists])):
            return f"{stop}; the best deck's interval is clear of the other finalists'", finalists
        if deals < target:
            return f"{stop}; the budget's last round confirming the finalists played", finalists
        target *= 2
    return stop, finalists
