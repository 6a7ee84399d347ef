"""The set reply to a rule (``--opponent kotor``, objective set): the C loop against Python.

Each question is a whole ``pazaak advise --json`` command run as a fresh process, once with the
C loop (``_fastreply``) and once in pure Python (``PAZAAK_PURE_PYTHON=1``), alternately, the
disk cache off; the two answers must be the same bytes. One row per question and round: the
two wall times, their ratio, and whether the answers agree.

    python benchmarks/bench_reply.py --rounds 2
    python benchmarks/bench_reply.py --only kotor2 --processes 1
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

from tabulate import tabulate

QUESTIONS: dict[str, str] = {
    "hidden 4 of kotor1-average, first move": (
        "--table 5 --hand '+1 -2 +3 +4' --opp-table '' --opp-hand-size 4 --opp-deck kotor1-average"
    ),
    "hidden 4 of kotor2-average, first move": (
        "--ruleset kotor2 --table 5 --hand '+1 -2 +3 +4' --opp-table '' --opp-hand-size 4 "
        "--opp-deck kotor2-average"
    ),
    "kotor2, gold hand, hidden 4 of kotor2-very-hard": (
        "--ruleset kotor2 --table '6 3' --hand 'D T ±1/2 F3/6' --opp-table 8 --opp-hand-size 4 "
        "--opp-deck kotor2-very-hard"
    ),
    "known 4 v 4, kotor2 gold cards, infinite deck": (
        "--ruleset kotor2 --main-deck infinite --table 5 --hand 'D F2/4 ±1/2 T' --opp-table '' "
        "--opp-hand '±1/2 D F3/6 -3'"
    ),
}


def run(question: str, pure: bool, processes: int | None) -> tuple[float, bytes]:
    """Wall time and standard output of one answer."""
    env = dict(os.environ, PAZAAK_CACHE_DIR="off")
    env.pop("PAZAAK_PURE_PYTHON", None)
    if pure:
        env["PAZAAK_PURE_PYTHON"] = "1"
    if processes is not None:
        env["PAZAAK_SOLVER_PROCESSES"] = str(processes)
    command = [sys.executable, "-m", "pazaak_cli", "advise", *shlex.split(question)]
    command += ["--opponent", "kotor", "--objective", "set", "--time", "0", "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"exit {done.returncode}: {shlex.join(command)}\n{done.stderr.decode()}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", help="the questions whose name holds this")
    parser.add_argument("--processes", type=int, help="PAZAAK_SOLVER_PROCESSES for both")
    args = parser.parse_args()
    rows = []
    ratios = []
    for name, question in QUESTIONS.items():
        if args.only and args.only not in name:
            continue
        for round_ in range(args.rounds):
            order = (False, True) if round_ % 2 == 0 else (True, False)
            results = {pure: run(question, pure, args.processes) for pure in order}
            (c_time, c_out), (py_time, py_out) = results[False], results[True]
            ratios.append(c_time / py_time)
            same = "yes" if c_out == py_out else "NO"
            rows.append(
                [name, round_ + 1, f"{c_time:.2f}", f"{py_time:.2f}", f"{ratios[-1]:.3f}", same]
            )
    print(tabulate(rows, ["question", "round", "C s", "Python s", "C / Python", "same answer"]))
    if ratios:
        print(f"median ratio C / Python: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
