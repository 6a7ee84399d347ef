"""Record the solvers' answers to a fixed set of questions, to check a refactoring changed none.

Each question is a whole ``pazaak`` command (``advise --json`` on the four pairings of
objective and opponent model, known and hidden hands, exact and sampled with ``--hands``; a
``chart``; a seeded ``simulate`` of the solver players), run as a fresh process with the disk
cache off in the tree given by ``--tree`` (default: this checkout). The file written maps each
question's name to its exit code and its standard output, byte for byte; ``--compare`` checks a
new recording against an old one and names each question whose output differs.

    python benchmarks/record_answers.py --out /tmp/before.json
    python benchmarks/record_answers.py --tree ../old-checkout --out /tmp/old.json
    python benchmarks/record_answers.py --out /tmp/after.json --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

QUESTIONS: dict[str, list[str]] = {
    "set, optimal, known 4 v 4": shlex.split(
        "advise --objective set --table '8 5' --hand '+1 -2 ±3 +4' --opp-table '10 7' "
        "--opp-hand '+2 -1 ±4 +3'"
    ),
    "set, optimal, opponent stood": shlex.split(
        "advise --objective set --table '8 5' --hand '+1 -2 ±3 +4' --opp-table '10 7' --opp-stood"
    ),
    "set, optimal, hidden 4 of kotor1-starter": shlex.split(
        "advise --objective set --table 6 --hand '+1 -2 ±3 +4' --opp-hand-size 4"
    ),
    "set, optimal, hidden 3 of kotor2-average, shared deck seen cards": shlex.split(
        "advise --objective set --ruleset kotor2 --table '9 4' --hand '±1 ±2 D' --opp-table 7 "
        "--opp-hand-size 3 --opp-deck kotor2-average --seen '3 5 10'"
    ),
    "set, optimal, sampled 8 of hidden 4 kotor2-average": shlex.split(
        "advise --objective set --ruleset kotor2 --opp-hand-size 4 --opp-deck kotor2-average "
        "--table 6 --hand '±1 ±2 +3 D' --hands 8 --seed 3"
    ),
    "set, kotor, known 4 v 4": shlex.split(
        "advise --objective set --opponent kotor --table '8 5' --hand '+1 -2 ±3 +4' "
        "--opp-table '10 7' --opp-hand '+2 -1 +4 +3'"
    ),
    "set, kotor, hidden 4 of kotor1-starter": shlex.split(
        "advise --objective set --opponent kotor --table 6 --hand '+1 -2 ±3 +4' --opp-hand-size 4"
    ),
    "set, kotor, sampled 4 of hidden 4 kotor2-average": shlex.split(
        "advise --objective set --opponent kotor --ruleset kotor2 --opp-hand-size 4 "
        "--opp-deck kotor2-average --table 6 --hand '±1 ±2 +3 D' --hands 4 --seed 1"
    ),
    "match, optimal, known 2 v 2 at 1-1": shlex.split(
        "advise --objective match --sets 1-1 --table '7 5' --hand '+1 -3' --opp-table '9 2' "
        "--opp-hand '+2 -1'"
    ),
    "match, optimal, known 3 v 3 infinite deck": shlex.split(
        "advise --objective match --main-deck infinite --table 6 --hand '+1 +2 -3' --opp-hand "
        "'+2 +3 -1'"
    ),
    "match, optimal, hidden 2 of kotor1-starter at 2-1": shlex.split(
        "advise --objective match --sets 2-1 --table '8 6' --hand '+1 -2' --opp-table '10 2' "
        "--opp-hand-size 2"
    ),
    "match, optimal, sampled 3 of hidden 3 kotor1-average": shlex.split(
        "advise --objective match --table '7 4' --hand '+1 -2 ±3' --opp-table 9 "
        "--opp-hand-size 3 --opp-deck kotor1-average --hands 3 --seed 2"
    ),
    "match, kotor, known 2 v 2 at 2-2": shlex.split(
        "advise --objective match --opponent kotor --sets 2-2 --table '7 5' --hand '+1 -3' "
        "--opp-table '9 2' --opp-hand '+2 -1'"
    ),
    "match, kotor, hidden 1 of kotor1-starter at 2-2": shlex.split(
        "advise --objective match --opponent kotor --sets 2-2 --table '7 5' --hand '+1 -3' "
        "--opp-table '9 2' --opp-hand-size 1"
    ),
    "position notation, match, optimal": shlex.split(
        "advise --position 'kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1'"
    ),
    "chart, set, known hand": shlex.split(
        "chart --ruleset kotor1/main-deck=infinite --hand '+2 -3 ±4' --opp-hand '-1 +3'"
    ),
    "chart, set, sampled hidden hand": shlex.split(
        "chart --hand '+1 -2' --opp-hand-size 2 --hands 4 --seed 5 --my-totals 14-19 "
        "--opp-totals 15-20"
    ),
    "simulate, solver players": shlex.split(
        "simulate --p1 expert --p2 kotor --p1 set-expert --matches 6 --seed 11 --json"
    ),
}


def record(tree: Path, name: str, args: list[str]) -> dict[str, object]:
    """Run one question as ``python -m pazaak_cli`` in ``tree``; its exit code and output."""
    command = [sys.executable, "-m", "pazaak_cli", *args]
    if args[0] == "advise":
        command.append("--json")
    environment = dict(
        os.environ,
        PYTHONPATH=str(tree),
        NO_COLOR="1",
        COLUMNS="100",
        LC_ALL="C.UTF-8",
        PAZAAK_CACHE_DIR="off",
    )
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=tree, env=environment, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    print(f"{seconds:7.1f} s  exit {done.returncode}  {name}", file=sys.stderr, flush=True)
    return {"exit": done.returncode, "stdout": done.stdout}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--out", type=Path, required=True, help="the recording to write")
    parser.add_argument("--compare", type=Path, help="an earlier recording to check against")
    parser.add_argument("--only", help="the questions whose name holds this")
    options = parser.parse_args()
    answers = {
        name: record(options.tree.resolve(), name, args)
        for name, args in QUESTIONS.items()
        if not options.only or options.only in name
    }
    options.out.write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n")
    if options.compare is None:
        return
    earlier = json.loads(options.compare.read_text())
    differ = [name for name, answer in answers.items() if earlier.get(name) != answer]
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(answers) - len(differ)} of {len(answers)} answers identical")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
