"""Time the whole ``pazaak advise`` command on a fixed suite of positions.

Each position runs as a fresh process (interpreter start-up included, as a user waits for it),
``--repeat`` times; the table shows the median wall and CPU time (CPU time is what a busy,
shared machine distorts least), the target of issue 6, the hands averaged and whether the draws
were exact or fixed. The last column is the CPU-time ratio of the pure-Python search
(``PAZAAK_PURE_PYTHON=1``) to the C inner loop on the same position in the same run.

    python benchmarks/bench_solver.py            # the suite, 3 runs each
    python benchmarks/bench_solver.py --quick    # 1 run each, no pure-Python comparison
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from tabulate import tabulate

SUITE: list[tuple[str, list[str], float | None]] = [
    (
        "opponent stood, 4-card hand, exact 40-card deck (kotor1)",
        ["--table", "3 2 5", "--hand", "+1 -2 ±3 +4", "--opp-table", "10 7", "--opp-stood"],
        0.3,
    ),
    (
        "both hands known, 4+4 cards, first move, infinite deck (kotor1)",
        [
            "--table",
            "5",
            "--hand",
            "±1 -2 +3 ±4",
            "--opp-table",
            "",
            "--opp-hand",
            "±3 +4 -1 +2",
            "--main-deck",
            "infinite",
        ],
        2.0,
    ),
    (
        "both hands known, 4+4 with gold cards, first move, infinite deck (kotor2)",
        [
            "--ruleset",
            "kotor2",
            "--table",
            "5",
            "--hand",
            "±1/2 D +3 -4",
            "--opp-table",
            "",
            "--opp-hand",
            "±2 T -3 +4",
            "--main-deck",
            "infinite",
        ],
        2.0,
    ),
    (
        "both hands known, 4+4 all gold (very hard deck), first move, infinite deck (kotor2)",
        [
            "--ruleset",
            "kotor2",
            "--table",
            "5",
            "--hand",
            "±1/2 F2/4 D T",
            "--opp-table",
            "",
            "--opp-hand",
            "±1/2 D F3/6 T",
            "--main-deck",
            "infinite",
        ],
        None,
    ),
    (
        "hidden 4-card hand from a 10-card deck, early in the set (kotor1)",
        [
            "--table",
            "8 5",
            "--hand",
            "±1 -2 +3 ±4",
            "--opp-table",
            "4",
            "--opp-hand-size",
            "4",
            "--opp-deck",
            "kotor1-strong",
        ],
        10.0,
    ),
    (
        "hidden 3-card hand from a 10-card deck, mid-set (kotor1)",
        [
            "--table",
            "8 5 2",
            "--hand",
            "±1 -2 +3 ±4",
            "--opp-table",
            "4 7",
            "--opp-hand-size",
            "3",
            "--opp-deck",
            "kotor1-strong",
        ],
        10.0,
    ),
]


def run(args: list[str], *, pure: bool) -> tuple[float, float, dict[str, object]]:
    """(wall seconds, CPU seconds, the JSON answer) of one ``pazaak advise`` process."""
    env = dict(os.environ)
    if pure:
        env["PAZAAK_PURE_PYTHON"] = "1"
    command = [sys.executable, "-m", "pazaak_cli", "advise", *args, "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return elapsed, cpu, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    repeat = 1 if options.quick else options.repeat
    startup = statistics.median(
        _time([sys.executable, "-m", "pazaak_cli", "--version"]) for _ in range(repeat)
    )
    rows = []
    for name, args, target in SUITE:
        times, cpus = [], []
        data: dict[str, object] = {}
        for _ in range(repeat):
            elapsed, cpu, data = run(args, pure=False)
            times.append(elapsed)
            cpus.append(cpu)
        median = statistics.median(times)
        ratio = "-"
        if not options.quick and target is not None and "infinite" in " ".join(args):
            _, pure_cpu, _ = run(args, pure=True)
            ratio = f"{pure_cpu / statistics.median(cpus):.1f}x"
        rows.append(
            [
                name,
                f"{median:.2f}",
                f"{statistics.median(cpus):.2f}",
                "-" if target is None else f"< {target:g}",
                "yes" if target is None or median < target else "NO",
                data.get("hands_averaged", 1),
                "fixed" if data.get("fixed_probabilities") else "exact",
                ratio,
            ]
        )
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; "
        f"`pazaak --version` alone: {startup:.2f} s (median of {repeat})"
    )
    print(
        tabulate(
            rows,
            headers=[
                "position",
                "wall s",
                "CPU s",
                "target",
                "met",
                "hands",
                "draws",
                "C vs Python",
            ],
        )
    )


def _time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
