"""How fast the `expert` player plays: seconds per match against `kotor`, in one process.

The expert's cost falls as its memo fills (the decisions of later matches find their positions
solved), so a run of N matches is reported whole and by its last tenth (the rate once warm).
Each deck pair starts in a fresh process, so the figures do not share a memo; the peak memory
is that process's maximum resident size.

    python benchmarks/bench_expert.py
    python benchmarks/bench_expert.py --matches 300 --pair kotor1:kotor1-starter:kotor1-starter
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import resource
import time

from tabulate import tabulate

from pazaak_cli import expert
from pazaak_cli.decks import load_deck
from pazaak_cli.rules import parse_ruleset
from pazaak_cli.simulate import Entrant, Pairing, play_matches

PAIRS = (
    "kotor1:kotor1-starter:kotor1-starter",
    "kotor1:kotor1-strong:kotor1-strong",
    "kotor2:kotor2-average:kotor2-average",
)
SEED = 2024


def run_pair(spec: str, matches: int) -> dict[str, object]:
    """Play ``matches`` matches of expert (player 1) against kotor in this process."""
    ruleset_name, first, second = spec.split(":")
    rules = parse_ruleset(ruleset_name)
    mine, theirs = load_deck(first, rules), load_deck(second, rules)
    pairing = Pairing(
        Entrant("expert", mine.name, mine.cards), Entrant("kotor", theirs.name, theirs.cards)
    )
    tail = max(1, matches // 10)
    start = time.perf_counter()
    warm = play_matches(rules, pairing, SEED, 0, matches - tail, swap=False)
    middle = time.perf_counter()
    last = play_matches(rules, pairing, SEED, matches - tail, matches, swap=False)
    end = time.perf_counter()
    solver = next(iter(expert._SOLVERS.values()))
    warm.add(last)
    return {
        "pair": spec,
        "matches": matches,
        "s_per_match": (end - start) / matches,
        "last_tenth_s_per_match": (end - middle) / tail,
        "expert_win_rate": warm.wins[0] / warm.matches,
        "memo_positions": solver.states,
        "memo_clears": solver.memo_clears,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _child(spec: str, matches: int, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put(run_pair(spec, matches))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100, help="matches per deck pair")
    parser.add_argument(
        "--pair",
        action="append",
        help="RULESET:EXPERT_DECK:KOTOR_DECK (repeat; default: three pairs)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = []
    context = multiprocessing.get_context("spawn")  # a fresh memo per pair
    for spec in args.pair or PAIRS:
        queue = context.Queue()
        process = context.Process(target=_child, args=(spec, args.matches, queue))
        process.start()
        rows.append(queue.get())
        process.join()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"python {platform.python_version()}, expert memo limit {expert.MEMO_LIMIT:,} positions")
    print(
        tabulate(
            [
                [
                    row["pair"],
                    row["matches"],
                    f"{row['s_per_match']:.3f}",
                    f"{row['last_tenth_s_per_match']:.3f}",
                    f"{row['expert_win_rate']:.1%}",
                    f"{row['memo_positions']:,}",
                    row["memo_clears"],
                    f"{row['peak_mb']:.0f}",
                ]
                for row in rows
            ],
            headers=[
                "ruleset:expert deck:kotor deck",
                "matches",
                "s/match",
                "last 10% s/match",
                "expert wins (as p1)",
                "memo positions",
                "memo clears",
                "peak MB",
            ],
        )
    )


if __name__ == "__main__":
    main()
