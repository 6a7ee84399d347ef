"""Round trips of ``pazaak engine`` (not a test): the time a client waits for a reply.

    python benchmarks/bench_protocol.py                 # about 20 s
    python benchmarks/bench_protocol.py --lines 5000 --budget 1

A real engine subprocess is driven one request at a time (send a line, wait for its reply,
as a bot does). ``legal`` and ``move`` are timed over whole matches (a ``legal`` before every
move, each move a random legal one, new matches as the old ones end) and reported as the median
and the 90th percentile of ``--lines`` round trips each. Then a stateless ``advise`` on a hidden
kotor1 hand and one on a hidden kotor2 hand, with ``--budget`` seconds: the wall time of the
round trip against the budget, and how much of the answer it holds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from typing import Any

QUESTIONS = {
    "kotor1, 4 hidden cards (kotor1-strongest)": (
        "kotor1 8,5 10 +1,-2,±3,+4 ?,?,?,? -- - 4444344343 a1 1",
        "kotor1-strongest",
    ),
    "kotor2, 4 hidden cards (kotor2-hard)": (
        "kotor2 6,9 10 D,T,±1/2,+3 ?,?,?,? -- - 4443434433 a1 1",
        "kotor2-hard",
    ),
}


class Engine:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pazaak_cli", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.count = 0

    def ask(self, cmd: str, **fields: Any) -> tuple[dict[str, Any], float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.count += 1
        line = json.dumps({"id": self.count, "cmd": cmd, **fields}) + "\n"
        started = time.perf_counter()
        self.process.stdin.write(line)
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        elapsed = time.perf_counter() - started
        assert reply["id"] == self.count and reply["ok"], reply
        result: dict[str, Any] = reply["result"]
        return result, elapsed

    def close(self) -> None:
        self.ask("quit")
        self.process.wait()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000, help="round trips of each command")
    parser.add_argument("--budget", type=float, default=2.0, help="the advise's time budget")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    engine = Engine()
    engine.ask("hello")
    legal_times: list[float] = []
    move_times: list[float] = []
    matches = 0
    game = None
    while len(move_times) < args.lines:
        if game is None:
            game = engine.ask("new", seed=rng.randrange(10**9), decks=["kotor1-strong"] * 2)[0][
                "game"
            ]
            matches += 1
        legal, elapsed = engine.ask("legal", game=game)
        legal_times.append(elapsed)
        moves = [m for m in legal["moves"] if m["move"] != "forfeit"]
        result, elapsed = engine.ask("move", game=game, **rng.choice(moves))
        move_times.append(elapsed)
        if result["winner"] is not None:
            engine.ask("close", game=game)
            game = None
    print(f"{len(move_times)} moves over {matches} matches (kotor1, random legal moves)")
    print(f"{'request':<10} {'median ms':>10} {'p90 ms':>8}")
    for name, times in (("legal", legal_times), ("move", move_times)):
        print(
            f"{name:<10} {1000 * statistics.median(times):>10.3f} "
            f"{1000 * percentile(times, 0.9):>8.3f}"
        )
    print()
    print(f"stateless advise, --budget {args.budget:g} s")
    for label, (position, deck) in QUESTIONS.items():
        result, elapsed = engine.ask(
            "advise", position=position, opp_deck=deck, time=args.budget, objective="set"
        )
        print(
            f"  {label}: {elapsed:.2f} s, {result['exactness']}, "
            f"{result['hands_solved']} of {result['hands_possible']} hands"
        )
    engine.close()


if __name__ == "__main__":
    main()
