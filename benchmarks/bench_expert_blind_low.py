"""What `expert` gives up on a total no draw can bust: its move there against the full model's.

On such a total, the opponent still playing, `expert` solves the set in progress with the
opponent's hand taken as empty (`expert._draw_cannot_bust`). This plays `expert` against `kotor`
(player 1, as `bench_expert.py` does) and, at every such decision, also asks the full model (the
opponent's sampled hands, as at any other total): how often the two moves differ, the CPU each
model took there and over the whole run, and, where they differ, how much match-win probability
the quick model's move loses by the full model's own values (summed, per match played: the
expected cost of the shortcut in matches won, as the full model sees it).

    python benchmarks/bench_expert_blind_low.py --matches 300
    python benchmarks/bench_expert_blind_low.py --matches 20 \\
        --pair kotor2:kotor2-average:kotor2-average
"""

from __future__ import annotations

import argparse
import copy
import time
from dataclasses import dataclass

from bench_expert import run_pair  # (the same pairing and seeds)

from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.players import expert
from pazaak_cli.solve.answer_types import Move, SolveOptions
from pazaak_cli.solve.match_advice import solve_match_question


@dataclass
class Tally:
    """What the decisions on a safe total cost in each model, and what the quick one lost."""

    decisions: int = 0
    differ: int = 0
    quick_s: float = 0.0
    full_s: float = 0.0
    lost: float = 0.0
    check_s: float = 0.0


def compare(tally: Tally) -> None:
    """Make every `expert` decision on a safe total in both models (playing the quick one's)."""
    full_best = expert.MatchExpertPlayer._best

    def both(self: expert.ExpertPlayer, view: MatchState, options: SolveOptions) -> Move:
        if not expert._draw_cannot_bust(view):
            return full_best(self, view, options)
        quick_options = copy.copy(options)
        quick_options.opponent_hands = [((), 1)]
        start = time.process_time()
        quick = full_best(self, view, quick_options)
        middle = time.process_time()
        full = full_best(self, view, options)
        tally.quick_s += middle - start
        tally.full_s += time.process_time() - middle
        tally.decisions += 1
        if quick != full:
            start = time.process_time()
            solver = expert._match_solver(view.ruleset, 1 - view.turn)
            advice = solve_match_question(question_from_state(view), options, solver=solver)
            value = {result.move: result.match_win or 0.0 for result in advice.results}
            tally.differ += 1
            tally.lost += value[full] - value[quick]
            tally.check_s += time.process_time() - start
        return quick

    expert.ExpertPlayer._best = both  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--pair", default="kotor1:kotor1-starter:kotor1-starter")
    args = parser.parse_args()
    tally = Tally()
    compare(tally)
    start = time.process_time()
    row = run_pair(args.pair, args.matches)
    whole = time.process_time() - start - tally.check_s
    print(f"{args.pair}, {args.matches} matches of expert against kotor (expert player 1)")
    print(f"decisions on a total no draw can bust: {tally.decisions:,}")
    print(f"  moves that differ: {tally.differ} ({tally.differ / max(1, tally.decisions):.2%})")
    print(f"  CPU there: quick model {tally.quick_s:.1f} s, full model {tally.full_s:.1f} s")
    print(f"  match-win lost by the quick moves, per match: {tally.lost / args.matches:.5f}")
    quick = (whole - tally.full_s) / args.matches
    full = (whole - tally.quick_s) / args.matches
    print(f"CPU a match: {quick:.3f} s with the quick model there, {full:.3f} s with the full one")
    print(f"expert won {row['expert_win_rate']:.1%} as player 1")


if __name__ == "__main__":
    main()
