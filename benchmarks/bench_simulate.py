"""How fast `pazaak simulate` plays: matches per second, `kotor` against `kotor`, kotor1 rules.

One process plays the matches (so the figure is per core); each pairing is timed ``--repeat``
times and the best run is kept (other load on the machine only ever slows a run down). CPU time
is shown beside wall time. ``--profile`` adds where the time goes, by function and by module
(engine, policy, simulator), and ``--workers K`` also times the whole tournament over K
processes.

    python benchmarks/bench_simulate.py
    python benchmarks/bench_simulate.py --matches 5000 --repeat 5 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections import defaultdict

from tabulate import tabulate

from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.rules import KOTOR1
from pazaak_cli.tools.simulate import Entrant, Pairing, play_matches, simulate

DECK_PAIRS = (
    ("kotor1-starter", "kotor1-starter"),
    ("kotor1-average", "kotor1-strong"),
    ("kotor1-strongest", "kotor1-strongest"),
)
SEED = 2024


def pairing(first: str, second: str, policy: str = "kotor") -> Pairing:
    a, b = load_deck(first, KOTOR1), load_deck(second, KOTOR1)
    return Pairing(Entrant(policy, a.name, a.cards), Entrant(policy, b.name, b.cards))


def time_pairing(pair: Pairing, matches: int, repeat: int) -> tuple[float, float]:
    """The best (wall, CPU) seconds of ``repeat`` runs of ``matches`` matches in this process."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        play_matches(KOTOR1, pair, SEED, 0, matches, swap=False)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def profile(pair: Pairing, matches: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    play_matches(KOTOR1, pair, SEED, 0, matches, swap=False)
    profiler.disable()
    stats = pstats.Stats(profiler)
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    rows = []
    by_module: dict[str, float] = defaultdict(float)
    for (path, line, name), (_, calls, own, cumulative, _) in raw.items():
        module = _module(path)
        by_module[module] += own
        rows.append((own, calls, cumulative, f"{module}:{name}:{line}"))
    rows.sort(reverse=True)
    print(f"\nProfile of {matches:,} matches ({pair.first.label} vs {pair.second.label})")
    print("by function (own time, % of all):")
    print(
        tabulate(
            [
                [where, f"{calls:,}", f"{own:.3f}", f"{100 * own / total:.1f}%", f"{cum:.3f}"]
                for own, calls, cum, where in rows[:15]
            ],
            headers=["function", "calls", "own s", "own %", "cumulative s"],
            colalign=("left", "right", "right", "right", "right"),
        )
    )
    print("by module (own time):")
    print(
        tabulate(
            [
                [module, f"{own:.3f}", f"{100 * own / total:.1f}%"]
                for module, own in sorted(by_module.items(), key=lambda item: -item[1])
            ],
            headers=["module", "own s", "own %"],
            colalign=("left", "right", "right"),
        )
    )


def _module(path: str) -> str:
    if "pazaak_cli" in path:
        return "pazaak_cli." + path.rsplit("pazaak_cli/", 1)[-1].removesuffix(".py").replace(
            "/", "."
        )
    if path == "~":
        return "builtins"
    return path.rsplit("/", 1)[-1].removesuffix(".py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000, help="matches per pairing")
    parser.add_argument("--repeat", type=int, default=3, help="runs per pairing (best kept)")
    parser.add_argument("--profile", action="store_true", help="show where the time goes")
    parser.add_argument("--workers", type=int, default=0, help="also time K processes")
    args = parser.parse_args()

    rows = []
    all_matches = all_wall = all_cpu = 0.0
    for first, second in DECK_PAIRS:
        pair = pairing(first, second)
        wall, cpu = time_pairing(pair, args.matches, args.repeat)
        all_matches += args.matches
        all_wall += wall
        all_cpu += cpu
        rows.append(
            [
                f"{first} vs {second}",
                f"{args.matches:,}",
                f"{wall:.2f}",
                f"{cpu:.2f}",
                f"{args.matches / wall:,.0f}",
                f"{args.matches / cpu:,.0f}",
            ]
        )
    rows.append(
        [
            "all",
            f"{all_matches:,.0f}",
            f"{all_wall:.2f}",
            f"{all_cpu:.2f}",
            f"{all_matches / all_wall:,.0f}",
            f"{all_matches / all_cpu:,.0f}",
        ]
    )
    print(f"kotor vs kotor, ruleset kotor1, one process, best of {args.repeat} runs")
    print(
        tabulate(
            rows,
            headers=["decks", "matches", "wall s", "CPU s", "matches/s", "matches/CPU s"],
            colalign=("left", "right", "right", "right", "right", "right"),
        )
    )
    if args.workers > 1:
        pairs = [pairing(a, b) for a, b in DECK_PAIRS]
        wall = time.perf_counter()
        simulate(KOTOR1, pairs, matches=args.matches, seed=SEED, workers=args.workers)
        wall = time.perf_counter() - wall
        total = args.matches * len(pairs)
        print(
            f"\n{args.workers} processes: {total:,} matches in {wall:.2f} s = "
            f"{total / wall:,.0f} matches/s"
        )
    if args.profile:
        profile(pairing(*DECK_PAIRS[1]), min(args.matches, 2000))


if __name__ == "__main__":
    main()
