"""How many matches can any player win against `kotor` (or `heuristic`)? A bound, by sampling.

For seeded deals of two hands from the deck pair, the *ceiling* of a deal is the exact best
reply over the match to the KOTOR I rule (:class:`pazaak_cli.solve.match_kotor.KotorMatchSolver`) by
a player who also knows the rule's hand: P(win the match) from 0-0, in the seat given (player 1
opens every set in kotor1). No player who does not see that hand does better, so the mean over
deals drawn with the deal's probabilities bounds the match-win rate of every player against
``kotor`` (in the solvers' model: every set drawn with a full deck's odds). ``--rule heuristic``:
the same against the ``heuristic`` player, through
:func:`pazaak_cli.policies.heuristic_rule.heuristic_rule` (for decks where no two different cards
reach the same total with the same kind of sign: plain and ± decks).

The pure-Python best reply takes minutes a deal and the deals differ widely, so the mean is
estimated with a control variate: the match value of the same deal when both sides play the
match perfectly (the native match solver), whose exact mean over every deal is known from the
deck pair's whole table (``--universe``, the table ``bench_expert_match.py --universe`` solves,
read from the match cache when it is there). The ceiling minus that value varies far less from
deal to deal than the ceiling does.

    python benchmarks/bench_kotor_ceiling.py --deals 12 --seat 1 --universe
    python benchmarks/bench_kotor_ceiling.py --deals 12 --seat 2 --universe --results c2.json
    python benchmarks/bench_kotor_ceiling.py --deals 8 --seat 1 --rule heuristic

``--results``: the ceilings found so far (a JSON file read first and written after each deal),
so that a run can be stopped and taken up again.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import time
from collections.abc import Sequence
from pathlib import Path

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import kotor_rule
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_cache import load_entries, save_entries
from pazaak_cli.solve.match_kotor import ME, OPP, KotorMatchSolver
from pazaak_cli.solve.match_native import make_match_solver
from pazaak_cli.solve.match_solver import MatchSolver

Hand = tuple[Card, ...]


def text(hand: Sequence[Card]) -> str:
    return " ".join(map(str, hand))


def optimal_value(solver: MatchSolver, mine: Hand, its: Hand, seat: int) -> float:
    """P(I win the match) from 0-0 in ``seat`` when both sides play the match perfectly."""
    if seat == 1:
        return solver.set_start_value((0, 0), (mine, its), 0)
    return 1.0 - solver.set_start_value((0, 0), (its, mine), 0)


def universe_mean(solver: MatchSolver, hands: list[tuple[Hand, int]], seat: int) -> float:
    """The exact mean of :func:`optimal_value` over every deal (solves what the cache lacks)."""
    dealt = [hand for hand, _ in hands]
    for hand in dealt:
        solver.prepare_all((0, 0), ([hand], dealt))
        solver.release_tables()
    save_entries(solver)
    total = sum(ways for _, ways in hands) ** 2
    return (
        sum(w0 * w1 * optimal_value(solver, h0, h1, seat) for h0, w0 in hands for h1, w1 in hands)
        / total
    )


def mean_and_error(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.nan
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="kotor1")
    parser.add_argument("--deck", default="kotor1-starter", help="both sides' side deck")
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--seat", type=int, choices=(1, 2), default=1, help="the player's seat")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rule", choices=("kotor", "heuristic"), default="kotor")
    parser.add_argument("--memo", type=int, default=20_000_000, help="positions kept at most")
    parser.add_argument("--universe", action="store_true", help="the control variate's mean")
    parser.add_argument(
        "--optimal-mean",
        type=float,
        help="the control variate's mean for player 1 when known (skips --universe)",
    )
    parser.add_argument("--results", type=Path, help="ceilings found so far (JSON, updated)")
    args = parser.parse_args()

    rules = parse_ruleset(args.ruleset)
    deck = load_deck(args.deck, rules).cards
    hands = possible_hands(deck, rules.hand_size)
    weights = [ways for _, ways in hands]
    rng = random.Random(args.seed)
    deals = [
        (rng.choices(hands, weights)[0][0], rng.choices(hands, weights)[0][0])
        for _ in range(args.deals)
    ]
    print(
        f"against {args.rule}: {args.ruleset}, {args.deck} both sides, seat {args.seat},"
        f" seed {args.seed}",
        flush=True,
    )

    optimal = make_match_solver(rules, max_states=args.memo)
    load_entries(optimal)
    exact_mean: float | None = None
    if args.optimal_mean is not None:
        exact_mean = args.optimal_mean if args.seat == 1 else 1.0 - args.optimal_mean
    elif args.universe:
        start = time.perf_counter()
        exact_mean = universe_mean(optimal, hands, args.seat)
        print(
            f"both optimal, mean over all {len(hands) ** 2:,} deals: {exact_mean:.5f}"
            f" ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )

    found: dict[str, float] = {}
    if args.results is not None and args.results.exists():
        found = json.loads(args.results.read_text(encoding="utf-8"))
    rule = kotor_rule if args.rule == "kotor" else heuristic_rule
    solver = KotorMatchSolver(rules, args.seat - 1, max_states=args.memo, rule=rule)
    opener = ME if args.seat == 1 else OPP
    ceilings: list[float] = []
    gaps: list[float] = []
    for index, (mine, its) in enumerate(deals, 1):
        key = f"{args.rule} {args.seat}: {text(mine)} v {text(its)}"
        start = time.perf_counter()
        if key not in found:
            solver.bound_memo()
            found[key] = solver.set_start_value((0, 0), (mine, its), opener)
            if args.results is not None:
                args.results.write_text(json.dumps(found, indent=1), encoding="utf-8")
        ceiling = found[key]
        optimal.bound_memo()
        both = optimal_value(optimal, mine, its, args.seat)
        ceilings.append(ceiling)
        gaps.append(ceiling - both)
        mean, error = mean_and_error(ceilings)
        gap, gap_error = mean_and_error(gaps)
        line = (
            f"{index:3} {text(mine):>12} v {text(its):<12} ceiling {ceiling:.4f}"
            f" optimal {both:.4f}  mean {mean:.4f} (se {error:.4f})"
        )
        if exact_mean is not None:
            line += f"  controlled {exact_mean + gap:.4f} (se {gap_error:.4f})"
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        line += f"  {time.perf_counter() - start:5.0f} s  peak {peak:,.0f} MB"
        print(line, flush=True)
    save_entries(optimal)  # (the next run, in the other seat or against the other rule, reads them)


if __name__ == "__main__":
    main()
