"""The match answer's speed targets: ``pazaak advise`` as a whole command, match beside set.

Each position of the match issue's table is asked twice per run, ``--objective set`` and
``--objective match``, each as a fresh process (imports included), ``--repeat`` times (the
median is shown; a case past ``--timeout`` seconds is stopped and not repeated). The columns
give wall and CPU seconds and the peak memory (as bench_memory counts it) of the median run, and
the ratio of the match answer's wall time to the set answer's, measured in the same run (the
machine may be shared: compare ratios, not seconds, across runs).

    python benchmarks/bench_advise_targets.py
    python benchmarks/bench_advise_targets.py --repeat 1 --timeout 120 --only known
"""

from __future__ import annotations

import argparse
import sys

from bench_memory import run  # (the same process runner and its peak memory)
from tabulate import tabulate

CASES = [
    (
        "4 v 4 known, set 1, first move, infinite deck",
        ["--main-deck", "infinite", "--table", "6", "--hand", "+1 +2 -3 +4"]
        + ["--opp-hand", "+2 +3 -1 +5"],
    ),
    (
        "1-1 in sets, 2 v 2 known, mid-set (kotor1 deck)",
        ["--sets", "1-1", "--table", "7 5", "--hand", "+1 -3", "--opp-table", "9 2"]
        + ["--opp-hand", "+2 -1"],
    ),
    (
        "kotor2, hidden 4 of kotor2-average, set 1, first move",
        ["--ruleset", "kotor2", "--table", "6", "--hand", "±1 ±2 +3 D"]
        + ["--opp-hand-size", "4", "--opp-deck", "kotor2-average"],
    ),
    (
        "kotor2, hidden 4 of kotor2-very-hard, set 1, first move",
        ["--ruleset", "kotor2", "--table", "6", "--hand", "F2/4 F3/6 D T"]
        + ["--opp-hand-size", "4", "--opp-deck", "kotor2-very-hard"],
    ),
]


def measure(args: list[str], repeat: int, timeout: float) -> tuple[float, float, float, str]:
    """The median run (by wall time) of ``repeat`` runs; one only if the first is stopped."""
    runs = [run(args, timeout)]
    while len(runs) < repeat and runs[0][3] == "ok":
        runs.append(run(args, timeout))
    runs.sort(key=lambda figures: figures[0])
    return runs[len(runs) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case and objective")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--only", help="run the cases whose name holds this")
    options = parser.parse_args()
    rows = []
    for name, args in CASES:
        if options.only and options.only not in name:
            continue
        figures = {
            objective: measure([*args, "--objective", objective], options.repeat, options.timeout)
            for objective in ("set", "match")
        }
        for objective, (wall, cpu, peak, ended) in figures.items():
            ratio = f"{wall / figures['set'][0]:.1f}x" if objective == "match" else ""
            rows.append([name, objective, f"{wall:.1f}", f"{cpu:.1f}", f"{peak:.0f}", ratio, ended])
            print(tabulate([rows[-1]], tablefmt="plain"), file=sys.stderr, flush=True)
    print(
        tabulate(
            rows,
            headers=["position", "objective", "wall s", "CPU s", "peak MB", "match/set", "result"],
            colalign=("left", "left", "right", "right", "right", "right", "left"),
        )
    )


if __name__ == "__main__":
    main()
