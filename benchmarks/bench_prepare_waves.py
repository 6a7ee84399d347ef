"""Benchmark: ``prepare``'s match states in waves of tasks (pazaak_cli.solve.prepare_plan) against
the local run, the same deck pair from a fresh solver each.

The local run is ``prepare_all`` one of my hands at a time, as ``pazaak prepare`` does, in this
process (``--processes 1``) or with the two-process pipeline (2), its values order-free
(``MatchSolver.values_order_free``, as the plan's workers have them). The planned run cuts each wave
(a number of sets played and a count of cards in both hands) into tasks for ``--workers`` local
worker processes. Both must give the same values, bit for bit (checked); the figures are their
wall and CPU seconds (this process and its children).

    python benchmarks/bench_prepare_waves.py
    python benchmarks/bench_prepare_waves.py --hand-size 3 --workers 2
    python benchmarks/bench_prepare_waves.py --hand-size 3 --mine kotor1-starter \\
        --theirs kotor1-average
    python benchmarks/bench_prepare_waves.py --ruleset kotor2 --hand-size 2 \\
        --mine kotor2-flips --theirs kotor2-tiebreakers
"""

from __future__ import annotations

import argparse
import json
import os
import time

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.runtime.executors import Executor, InProcess, LocalProcesses
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_native import NativeMatchSolver
from pazaak_cli.solve.prepare_plan import prepare_planned

MINE = "+1 +1 +1 +1 +2 +2 +2 +3 +3 +3"
THEIRS = "-1 -1 -1 -1 +4 +4 +4 -2 -2 -2"
MAX_STATES = 5_000_000


def deck_cards(text: str, rules: Ruleset) -> list[Card]:
    """A sample deck's cards (by name, checked against the preset: its hand size aside), else
    the cards written out."""
    if " " in text:
        return list(parse_cards(text))
    return list(load_deck(text, parse_ruleset(rules.spec.split("/")[0])).cards)


def cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--ruleset", default="kotor1", help="kotor1 or kotor2 (its hand size set below)"
    )
    parser.add_argument("--hand-size", type=int, default=4)
    parser.add_argument("--mine", default=MINE, help="my side deck: cards, or a sample deck name")
    parser.add_argument("--theirs", default=THEIRS, help="theirs, the same")
    parser.add_argument("--workers", type=int, default=2, help="0: the tasks in this process")
    parser.add_argument("--processes", type=int, default=1, help="the local run's (1 or 2)")
    args = parser.parse_args()
    rules = parse_ruleset(f"{args.ruleset}/hand-size={args.hand_size}")
    mine = [hand for hand, _ in possible_hands(deck_cards(args.mine, rules), args.hand_size)]
    theirs = [hand for hand, _ in possible_hands(deck_cards(args.theirs, rules), args.hand_size)]

    local = NativeMatchSolver(rules, max_states=MAX_STATES)
    local.processes = args.processes
    local.values_order_free = True  # (as the plan's workers: the same bits whatever the order)
    started, used = time.monotonic(), cpu()
    for hand in mine:
        local.bound_memo()
        local.prepare_all((0, 0), ([hand], theirs))
    local_s, local_cpu = time.monotonic() - started, cpu() - used

    planned = NativeMatchSolver(rules, max_states=MAX_STATES)
    executor: Executor = LocalProcesses(args.workers) if args.workers else InProcess()
    started, used = time.monotonic(), cpu()
    try:
        prepare_planned(planned, (0, 0), (mine, theirs), executor, max_states=MAX_STATES)
    finally:
        executor.close()
    planned_s, planned_cpu = time.monotonic() - started, cpu() - used

    values = {(s, h, p): v for s, h, p, v in local.known_entries()}
    other = {(s, h, p): v for s, h, p, v in planned.known_entries()}
    print(
        json.dumps(
            {
                "states": len(values),
                "same_bits": values == other,
                "local_s": round(local_s, 1),
                "local_cpu": round(local_cpu, 1),
                "planned_s": round(planned_s, 1),
                "planned_cpu": round(planned_cpu, 1),
                "cpu_ratio": round(planned_cpu / local_cpu, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
