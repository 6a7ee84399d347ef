"""Why the sampled answer draws hands by weight with replacement: two designs compared on
synthetic populations shaped like the sample decks' hands.

- ``by weight``: draws with replacement in proportion to the weights, each distinct hand solved
  once, the draws up to the first hand not solved used (the project's design,
  :class:`pazaak_cli.solve.sampling.HandDraws`), their plain mean;
- ``uniform``: N distinct hands drawn uniformly without replacement, their weighted mean (a
  ratio estimate) with the finite-population correction.

Both with the plain Student-t interval on N - 1 degrees of freedom, so that the designs alone
differ. Populations: the 45 hands of a 10-card deck with three kinds of pairs (weights 1, 4 and
16, as ``kotor1-starter``; values rising with the weight, with noise), 210 hands of equal weight
(as ``kotor2-average``), and a skewed one (a value of 1 on one hand in ten, else 0).

    python benchmarks/bench_sampling_design.py
"""

from __future__ import annotations

import math
import random

from tabulate import tabulate

from pazaak_cli.solve.sampling import HandDraws, student_t_quantile


def by_weight(
    values: list[float], weights: list[int], hands: int, seed: int
) -> tuple[float, float]:
    draws = HandDraws(weights, str(seed))
    draws.distinct(hands)
    used = [values[hand] for hand in draws.usable_draws(hands)]
    n = len(used)
    mean = sum(used) / n
    spread = math.sqrt(sum((x - mean) ** 2 for x in used) / (n - 1) / n)
    return mean, student_t_quantile(0.975, n - 1) * spread


def uniform(values: list[float], weights: list[int], hands: int, seed: int) -> tuple[float, float]:
    chosen = random.Random(seed).sample(range(len(values)), hands)
    total = sum(weights[i] for i in chosen)
    mean = sum(weights[i] * values[i] for i in chosen) / total
    average = total / hands
    squares = sum((weights[i] / average) ** 2 * (values[i] - mean) ** 2 for i in chosen)
    spread = math.sqrt((1 - hands / len(values)) * squares / (hands - 1) / hands)
    return mean, student_t_quantile(0.975, hands - 1) * spread


def main() -> None:
    rng = random.Random(1)
    starter = [1] * 10 + [4] * 30 + [16] * 5
    populations = {
        "starter-like": ([rng.gauss(0.1 * math.log(w), 0.3) for w in starter], starter),
        "equal weights": ([rng.gauss(0.0, 0.3) for _ in range(210)], [1] * 210),
        "skewed": ([1.0 if rng.random() < 0.1 else 0.0 for _ in starter], starter),
    }
    rows = []
    for name, (values, weights) in populations.items():
        exact = sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
        for hands in (3, 5, 10, 20):
            row: list[object] = [name, hands]
            for design in (by_weight, uniform):
                errors, covered = 0.0, 0
                for seed in range(2000):
                    mean, margin = design(values, weights, hands, seed)
                    errors += (mean - exact) ** 2
                    covered += abs(mean - exact) <= margin
                row += [f"{math.sqrt(errors / 2000):.4f}", f"{100 * covered / 2000:.1f}"]
            rows.append(row)
    headers = ["population", "hands", "by weight: RMS error", "covered %", "uniform: RMS error"]
    print(tabulate(rows, headers=[*headers, "covered %"]))


if __name__ == "__main__":
    main()
