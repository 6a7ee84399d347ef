"""Sampling the opponent's hidden hand: the draws, the estimate and its 95 % interval.

The opponent's possible hands are a finite population, each with its deal weight (how many
deals leave it). :class:`HandDraws` draws from it as the game deals, with replacement and in
proportion to the weights, from a seeded generator: a hand dealt 16 ways comes 16 times as often
as one dealt once. Each distinct hand is solved once, exactly, as if known, and every draw of it
reuses that value, so a heavy hand drawn again costs nothing. The usable draws are those before
the first draw of a hand not solved yet: a sample whose size depends only on the seed and on how
many distinct hands were solved, so that ``--seed S --hands N`` replays any answer.

:func:`estimate` turns the solved hands' rows into each move's mean over the draws (an unbiased
estimate of the exact average over every possible hand), with a 95 % Student-t interval from
the draws' spread (shrunk toward the spread of the other moves: :data:`SHRINK`), and the
confidence that the move ranked first beats the second from their
paired differences (the same hands under both moves: far less noise than either value alone).
docs/advise.md gives the measured coverage of the interval.

Pure arithmetic on numbers: nothing here knows the solvers or the game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import NamedTuple

Row = tuple[tuple[float, ...], ...]
"""One hand's values of every move: a tuple per move whose first item is what the moves are
ranked by (the solvers' :data:`~pazaak_cli.solve.hand_rows.MoveRow`)."""

DRAW_BLOCK = 256
"""Draws are made this many at a time (the generator's sequence is the same whatever the
block: one ``choices`` call per block, always of this size)."""

COVER_DRAWS_PER_HAND = 64
"""Past this many draws per possible hand (a population whose lightest hands are very rare),
the hands never drawn yet are put at the end of the order, heaviest first, without drawing
them: they can only matter once every other hand is solved, and then the answer is exact."""


class HandDraws:
    """The draws of a hidden hand, with replacement by deal weight, from ``seed``; the order in
    which the distinct hands are first drawn (the order they are solved in)."""

    def __init__(self, weights: Sequence[int], seed: str) -> None:
        if not weights or min(weights) <= 0:
            raise ValueError("every possible hand needs a positive weight")
        self.weights = tuple(weights)
        self._rng = random.Random(f"pazaak hand draws {seed}")
        self._cumulative = list(_running_sums(self.weights))
        self.draws: list[int] = []
        """The hand drawn at each draw, so far."""
        self.order: list[int] = []
        """The distinct hands in the order of their first draw."""
        self.first_drawn: list[int] = []
        """For each hand of :attr:`order`, the draw that first drew it (past the cover: the
        number of draws made, as if it were drawn next)."""
        self._seen: set[int] = set()

    @property
    def population(self) -> int:
        return len(self.weights)

    def distinct(self, count: int) -> list[int]:
        """The first ``count`` distinct hands (all of them at most), drawing as needed."""
        count = min(count, self.population)
        while len(self.order) < count:
            if len(self.draws) >= COVER_DRAWS_PER_HAND * self.population:
                self._cover()
                break
            self._draw_block()
        return self.order[:count]

    def usable_draws(self, solved: int) -> list[int]:
        """The draws usable with the first ``solved`` hands of :attr:`order` solved: every draw
        before the one that first drew the next hand (all of them once every hand is solved)."""
        self.distinct(solved + 1)
        if solved >= len(self.order):
            return list(self.draws)
        return self.draws[: self.first_drawn[solved]]

    def _draw_block(self) -> None:
        population = range(self.population)
        block = self._rng.choices(population, cum_weights=self._cumulative, k=DRAW_BLOCK)
        for hand in block:
            if hand not in self._seen:
                self._seen.add(hand)
                self.order.append(hand)
                self.first_drawn.append(len(self.draws))
            self.draws.append(hand)

    def _cover(self) -> None:
        rest = sorted(
            (hand for hand in range(self.population) if hand not in self._seen),
            key=lambda hand: (-self.weights[hand], hand),
        )
        for hand in rest:
            self._seen.add(hand)
            self.order.append(hand)
            self.first_drawn.append(len(self.draws))


def _running_sums(values: Sequence[int]) -> list[int]:
    total, sums = 0, []
    for value in values:
        total += value
        sums.append(total)
    return sums


SHRINK = 2
"""A move's variance is taken as if this many more draws had shown the spread of the moves
that vary (their pooled variance): a small sample of hands whose values happen to agree says
less than "no spread". With the Student t of the distinct hands less one, this brought the
measured coverage of the 95 % interval from 85-92 % to 94-95 % (docs/advise.md)."""


class MoveEstimate(NamedTuple):
    """One move's estimated values and the 95 % interval of the first."""

    place: int
    """The move's place in the rows."""
    means: tuple[float, ...]
    """The mean over the draws of each of the move's values."""
    margin: float
    """Half the width of the 95 % interval of the first value (shrunk toward the other moves'
    spread: not 0 when every draw agrees, see :data:`SHRINK`)."""
    same: bool = False
    """Every draw gave the first value the same number (what a player reads as "no spread")."""


class Estimate(NamedTuple):
    """A sample's answer: every move, ranked by its first value, best first."""

    moves: tuple[MoveEstimate, ...]
    draws: int
    """How many draws it rests on."""
    hands: int
    """How many distinct hands they are."""
    confidence: float
    """The probability (Student t, from the paired differences) that the first-ranked move is
    better than the second: 1.0 when every draw puts it ahead by the same amount."""
    gap: float
    """The first-ranked move's lead over the second, as estimated."""
    gap_margin: float
    """Half the width of the 95 % interval of that lead."""
    leads: int = 0
    """In how many of the distinct hands the first-ranked move is ahead of the second (what a
    verdict from too few hands for a confidence can still say)."""


def estimate(rows: Mapping[int, Row], draws: Sequence[int]) -> Estimate:
    """Each move's mean over ``draws`` (hands whose rows are in ``rows``), its 95 % interval,
    and how sure the ranking's first place is."""
    if len(draws) < 2:
        raise ValueError("an estimate needs two draws at least")
    counts: dict[int, int] = {}
    for hand in draws:
        counts[hand] = counts.get(hand, 0) + 1
    n = len(draws)
    first_row = rows[draws[0]]
    width = len(first_row[0])
    means: list[tuple[float, ...]] = []
    for move in range(len(first_row)):
        sums = [0.0] * width
        for hand, count in counts.items():
            for k, value in enumerate(rows[hand][move]):
                sums[k] += count * value
        means.append(tuple(total / n for total in sums))
    quantile = student_t_quantile(0.975, max(len(counts) - 1, 1))

    def squares(values: Mapping[int, float], mean: float) -> float:
        return sum(count * (values[hand] - mean) ** 2 for hand, count in counts.items())

    spreads = [
        squares({hand: rows[hand][move][0] for hand in counts}, means[move][0])
        for move in range(len(first_row))
    ]
    varying = [spread for spread in spreads if spread > 1e-18]
    pooled = sum(varying) / len(varying) / (n - 1) if varying else 0.0
    estimates = [
        MoveEstimate(
            move,
            means[move],
            quantile * math.sqrt((spread + SHRINK * pooled) / (n - 1 + SHRINK) / n),
            spread <= 1e-18,
        )
        for move, spread in enumerate(spreads)
    ]
    ranked = sorted(estimates, key=lambda e: (-e.means[0], e.place))
    if len(ranked) < 2:
        return Estimate(tuple(ranked), n, len(counts), 1.0, 0.0, 0.0)
    best, second = ranked[0].place, ranked[1].place
    differences = {hand: rows[hand][best][0] - rows[hand][second][0] for hand in counts}
    gap = sum(count * differences[hand] for hand, count in counts.items()) / n
    error = math.sqrt(squares(differences, gap) / (n - 1) / n)
    leads = sum(1 for difference in differences.values() if difference > 1e-12)
    if error <= 1e-15:
        confidence = 1.0 if gap > 1e-12 else 0.5
    else:
        confidence = student_t_cdf(gap / error, max(len(counts) - 1, 1))
    return Estimate(tuple(ranked), n, len(counts), confidence, gap, quantile * error, leads)


def student_t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (``df`` >= 1): the regularized
    incomplete beta function, by its continued fraction."""
    if df < 1:
        raise ValueError("degrees of freedom must be 1 or more")
    x = df / (df + t * t)
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (0.5 < p < 1) of Student's t with ``df`` degrees of freedom, by
    bisection of :func:`student_t_cdf`."""
    low, high = 0.0, 1.0
    while student_t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(100):
        middle = (low + high) / 2
        if student_t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1) / (a + b + 2):  # (the continued fraction converges fast on this side)
        return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b
    return math.exp(log_front) * _beta_fraction(a, b, x) / a


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


__all__ = [
    "Estimate",
    "HandDraws",
    "MoveEstimate",
    "estimate",
    "student_t_cdf",
    "student_t_quantile",
]
