"""How fast a solver player plays: seconds per match against `kotor`, in one process.

`expert` by default (the match player; `--player set-expert` for the set player). Its cost
falls as it meets the hands it will meet again (the match-state values of its hands, or the
set expert's memo, are solved once), so a run of N matches is reported whole and by its last
tenth (the rate once warm).
Each deck pair starts in a fresh process, so the figures do not share a memo; the peak memory
is that process's maximum resident size.

    python benchmarks/bench_expert.py
    python benchmarks/bench_expert.py --matches 300 --pair kotor1:kotor1-starter:kotor1-starter
    python benchmarks/bench_expert.py --player set-expert
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import resource
import time

from tabulate import tabulate

from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players import expert
from pazaak_cli.solve.solver import SetSolver
from pazaak_cli.tools.simulate import Entrant, Pairing, play_matches

PAIRS = (
    "kotor1:kotor1-starter:kotor1-starter",
    "kotor1:kotor1-strong:kotor1-strong",
    "kotor2:kotor2-average:kotor2-average",
)
SEED = 2024


def run_pair(spec: str, matches: int, player: str = "expert") -> dict[str, object]:
    """Play ``matches`` matches of ``player`` (player 1) against kotor in this process."""
    ruleset_name, first, second = spec.split(":")
    rules = parse_ruleset(ruleset_name)
    mine, theirs = load_deck(first, rules), load_deck(second, rules)
    pairing = Pairing(
        Entrant(player, mine.name, mine.cards), Entrant("kotor", theirs.name, theirs.cards)
    )
    tail = max(1, matches // 10)
    start = time.perf_counter()
    warm = play_matches(rules, pairing, SEED, 0, matches - tail, swap=False)
    middle = time.perf_counter()
    last = play_matches(rules, pairing, SEED, matches - tail, matches, swap=False)
    end = time.perf_counter()
    solver: SetSolver = (
        next(iter(expert._SOLVERS.values()))
        if player == "set-expert"
        else next(iter(expert._MATCH_SOLVERS.values()))[0]
    )
    warm.add(last)
    return {
        "pair": spec,
        "matches": matches,
        "s_per_match": (end - start) / matches,
        "last_tenth_s_per_match": (end - middle) / tail,
        "expert_win_rate": warm.wins[0] / warm.matches,
        "memo_positions": solver.states,
        "memo_clears": solver.memo_clears,
        "match_states": getattr(solver, "entry_count", 0),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _child(spec: str, matches: int, player: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put(run_pair(spec, matches, player))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100, help="matches per deck pair")
    parser.add_argument(
        "--pair",
        action="append",
        help="RULESET:PLAYER_DECK:KOTOR_DECK (repeat; default: three pairs)",
    )
    parser.add_argument(
        "--player", default="expert", choices=("expert", "match-expert", "set-expert")
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = []
    context = multiprocessing.get_context("spawn")  # a fresh memo per pair
    for spec in args.pair or PAIRS:
        queue = context.Queue()
        process = context.Process(target=_child, args=(spec, args.matches, args.player, queue))
        process.start()
        rows.append(queue.get())
        process.join()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    limit = expert.MEMO_LIMIT if args.player == "set-expert" else expert.MATCH_MEMO_LIMIT
    print(f"python {platform.python_version()}, {args.player}, memo limit {limit:,} positions")
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
                    f"{row['match_states']:,}",
                    f"{row['peak_mb']:.0f}",
                ]
                for row in rows
            ],
            headers=[
                "ruleset:player deck:kotor deck",
                "matches",
                "s/match",
                "last 10% s/match",
                "player wins (as p1)",
                "memo positions",
                "memo clears",
                "match states",
                "peak MB",
            ],
        )
    )


if __name__ == "__main__":
    main()
