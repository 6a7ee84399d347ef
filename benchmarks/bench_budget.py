"""The time budget's targets: every default answer about a hidden hand within 3 s, beside the
exact answer, as whole commands.

Each case runs as a fresh process (imports included) ``--repeat`` times with its default (a 2 s
budget: what ``pazaak follow``, the hint of ``pazaak play`` and ``pazaak advise`` on a terminal
take; ``advise`` is given ``--time 2`` here, its output not being a terminal), and once with
its exact answer (``--time 0``: every possible hand solved; ``--exact`` means the deck drawn
without replacement, which these positions refuse), stopped past ``--timeout`` seconds. The
columns: the median run's wall and CPU seconds and peak memory (every process of the command,
as bench_memory counts it), how it ended, and for the default, what it answered (from a second
run with ``--json`` where the command has it: exact or sampled, hands solved of possible).
Compare ratios within one run, not seconds across runs: the machine may be shared.

    python benchmarks/bench_budget.py
    python benchmarks/bench_budget.py --repeat 1 --timeout 120 --only kotor1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_memory import run_process
from tabulate import tabulate

KOTOR2_FIRST = ["--ruleset", "kotor2", "--table", "6", "--hand", "±1 ±2 +3 D", "--opp-hand-size"]
KOTOR2_FIRST += ["4"]

CASES: list[tuple[str, list[str], str | None, list[str] | None, list[str]]] = [
    # (name, pazaak arguments, standard input, default's extra arguments, exact's)
    (
        "advise, kotor2, hidden 4 of kotor2-average",
        ["advise", *KOTOR2_FIRST, "--opp-deck", "kotor2-average"],
        None,
        ["--time", "2"],
        ["--time", "0"],
    ),
    (
        "advise match, kotor2, hidden 4 of kotor2-average",
        ["advise", *KOTOR2_FIRST, "--opp-deck", "kotor2-average", "--objective", "match"],
        None,
        None,
        ["--time", "0"],
    ),
    (
        "advise, kotor2, hidden 4 of kotor2-hard",
        ["advise", *KOTOR2_FIRST, "--opp-deck", "kotor2-hard"],
        None,
        ["--time", "2"],
        ["--time", "0"],
    ),
    (
        "advise match, kotor2, hidden 4 of kotor2-hard",
        ["advise", *KOTOR2_FIRST, "--opp-deck", "kotor2-hard", "--objective", "match"],
        None,
        None,
        ["--time", "0"],
    ),
    (
        "advise, kotor1, hidden 4 of kotor1-average",
        ["advise", "--table", "6", "--hand", "+1 -2 ±3 +4", "--opp-hand-size", "4"]
        + ["--opp-deck", "kotor1-average"],
        None,
        ["--time", "2"],
        ["--time", "0"],
    ),
    (
        "advise match, kotor1, hidden 4 of kotor1-average",
        ["advise", "--table", "6", "--hand", "+1 -2 ±3 +4", "--opp-hand-size", "4"]
        + ["--opp-deck", "kotor1-average", "--objective", "match"],
        None,
        None,
        ["--time", "0"],
    ),
    (
        "follow -r kotor2, first decision (kotor2-hard, KOTOR rule)",
        ["follow", "-r", "kotor2", "--hand", "D T ±1/2 +3", "--first", "me", "--new"],
        "6\nquit\n",
        [],
        ["--time", "0"],
    ),
    (
        "play hint, kotor2-very-hard, first move",
        ["play", "--ruleset", "kotor2", "--deck", "kotor2-very-hard", "--seed", "4", "--new"],
        "h\nq\n",
        [],
        ["--time", "0"],
    ),
]
"""A case whose default is None is an exact answer asked for by name only (the match with
``--objective match``: no sample of it fits the budget): its exact run alone is measured."""


def measure(
    args: list[str], stdin: str | None, repeat: int, timeout: float
) -> tuple[float, float, float, str]:
    """The median run (by wall time) of ``repeat`` runs; one only if the first is stopped."""
    runs = [run_process(args, timeout, stdin)]
    while len(runs) < repeat and runs[0][3] == "ok":
        runs.append(run_process(args, timeout, stdin))
    runs.sort(key=lambda figures: figures[0])
    return runs[len(runs) // 2]


def what_it_answered(args: list[str], stdin: str | None, timeout: float) -> str:
    """``exact`` or ``sampled N/M`` (and the objective), from the command's JSON."""
    if args[0] == "play":
        return "(no --json)"
    command = [sys.executable, "-m", "pazaak_cli", *args, "--json"]
    env = {**os.environ, "PAZAAK_CACHE_DIR": "off"}
    try:
        done = subprocess.run(
            command, input=stdin or "", capture_output=True, text=True, env=env, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "(timed out)"
    for line in done.stdout.splitlines()[::-1] if args[0] == "follow" else [done.stdout]:
        try:
            document = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "exactness" in document:
            solved, possible = document["hands_solved"], document["hands_possible"]
            return f"{document['objective']}, {document['exactness']} {solved}/{possible}"
    return "(no answer)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case and answer")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per exact run")
    parser.add_argument("--only", help="run the cases whose name holds this")
    options = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, args, stdin, default, exact in CASES:
            if options.only and options.only not in name:
                continue
            save = ["--save", os.path.join(folder, "save.json")] if args[0] != "advise" else []
            answers = [("default", default, 60.0)] if default is not None else []
            for label, extra, timeout in [*answers, ("exact", exact, options.timeout)]:
                command = [*args, *save, *extra]
                repeat = options.repeat if label == "default" else 1
                wall, cpu, peak, ended = measure(command, stdin, repeat, timeout)
                said = what_it_answered(command, stdin, timeout) if label == "default" else ""
                row = [name, label, f"{wall:.1f}", f"{cpu:.1f}", f"{peak:.0f}", ended, said]
                rows.append(row)
                print(tabulate([row], tablefmt="plain"), file=sys.stderr, flush=True)
    print(
        tabulate(
            rows,
            headers=["case", "answer", "wall s", "CPU s", "peak MB", "ended", "answered"],
            colalign=("left", "left", "right", "right", "right", "left", "left"),
        )
    )


if __name__ == "__main__":
    main()
