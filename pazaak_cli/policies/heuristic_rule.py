"""The ``heuristic`` player's decision as a rule of the game, from what it looks at.

:class:`pazaak_cli.players.roster.HeuristicPlayer` decides through :func:`heuristic_rule`, which
takes the inputs :func:`pazaak_cli.policies.kotor_rule.kotor_rule` takes, so that the exact best
reply over a match (:class:`pazaak_cli.solve.match_kotor.KotorMatchSolver`, given it as its rule)
can be solved against it: how many matches any player could win against ``heuristic``
(``benchmarks/bench_kotor_ceiling.py --rule heuristic``).

Among cards reaching the same total the rule prefers a fixed-sign card to a ± card, then the
earlier try. The solver reads the rule's hand in the KOTOR rule's canonical order, which stands
for every order of the hand here whenever no two different cards can reach the same total with
the same kind of sign (true of plain decks and of decks of ± cards).
"""

from __future__ import annotations

from collections.abc import Sequence

from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.policies.kotor_rule import BUST, KOTOR_END_TURN, KOTOR_STAND


def heuristic_rule(
    mine: int,
    theirs: int,
    they_stand: bool,
    their_sets: int,
    tries: Sequence[tuple[int, bool]],
    played: bool,
    ruleset: Ruleset,
) -> int:
    """The heuristic player's choice: the index of the try to play, :data:`KOTOR_END_TURN` or
    :data:`KOTOR_STAND` (the arguments as :func:`pazaak_cli.policies.kotor_rule.kotor_rule`'s; the
    sets won are not read). Its steps (docs/simulate.md): a card that makes the target; over the
    target, the card leaving the highest total; when the other player stands at or above it, the
    card that passes him leaving the highest total; then stand above a standing player, draw
    below him, and otherwise stand from two under the target."""
    del their_sets  # the heuristic plays every set alike
    target = ruleset.target
    if not played:
        reached = _first_by_total(tries)
        exact = reached.get(target)
        if exact is not None:
            return exact
        if mine > target:
            rescue = _highest(reached, BUST, target)
            return KOTOR_END_TURN if rescue is None else rescue
        if they_stand and mine <= theirs:
            passing = _highest(reached, theirs, target)
            if passing is not None:
                return passing
    if mine > target:
        return KOTOR_END_TURN
    if they_stand:
        if mine > theirs:
            return KOTOR_STAND
        if mine < theirs:
            return KOTOR_END_TURN
    return KOTOR_STAND if mine >= target - 2 else KOTOR_END_TURN


def _first_by_total(tries: Sequence[tuple[int, bool]]) -> dict[int, int]:
    """Each total reached with the index of the first try reaching it, a fixed-sign card's
    before any ± card's."""
    best: dict[int, int] = {}
    for index, (total, flexible) in enumerate(tries):
        known = best.get(total)
        if known is None or (tries[known][1] and not flexible):
            best[total] = index
    return best


def _highest(reached: dict[int, int], above: int, target: int) -> int | None:
    """The try leaving the highest total in (above, target], if any."""
    totals = [total for total in reached if above < total <= target]
    return reached[max(totals)] if totals else None
