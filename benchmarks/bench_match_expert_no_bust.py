"""What `expert`'s shortcut would give `match-expert`: its decisions where no draw can bust.

`match-expert` spends most of its time (docs/benchmarks.md, "`match-expert` with its deck pair
prepared") on the decisions where its total after the draw is one no main-deck card can take
past the target while the opponent still plays: each solves the set in progress nearly whole
for each sampled hand. `expert` takes the opponent's hand as empty there
(``players.expert._draw_cannot_bust``). This plays seeded matches of `match-expert` against an
opponent policy and, at each such decision, also asks the move that shortcut gives, timing
both, and counts where they differ. The matches are `match-expert`'s own (the shortcut's move is
asked, never played), so the count is of its decisions as it makes them; ``--play-shortcut``
plays the shortcut's moves instead, on the same deals (a match's draws change only once a
move does), for the wins of both.

Prepare the deck pair first (`pazaak prepare --deck D --opp-deck O`, the same cache directory),
or the first matches measure solving their later sets.

    PAZAAK_CACHE_DIR=... python benchmarks/bench_match_expert_no_bust.py --matches 20
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import time
from typing import Any

from pazaak_cli.cli import main as pazaak
from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.players import expert
from pazaak_cli.solve.answer_types import Move, SolveOptions
from pazaak_cli.solve.match_advice import best_match_move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--deck", default="kotor1-starter")
    parser.add_argument("--opp-deck", default="kotor1-average")
    parser.add_argument("--opponent", default="kotor")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--play-shortcut",
        action="store_true",
        help="play the shortcut's move (and do not ask the exact one): its wins on the same deals",
    )
    args = parser.parse_args()

    counts: dict[str, Any] = {"decisions": 0, "no_bust": 0, "differ": 0}
    seconds = {"all": 0.0, "no_bust_exact": 0.0, "no_bust_shortcut": 0.0}

    def exact_best(self: expert.MatchExpertPlayer, view: MatchState, options: SolveOptions) -> Move:
        """The move of the match solver for the options as given (the player's own ``_best``
        takes the shortcut where no draw can bust; this one never does)."""
        later_blind = 1 - view.turn if self.later_blind else None
        solver = expert._match_solver(view.ruleset, later_blind)
        options.objective = "match"
        return best_match_move(question_from_state(view), options, solver=solver)

    def best(self: expert.MatchExpertPlayer, view: MatchState, options: SolveOptions) -> Move:
        started = time.perf_counter()
        no_bust = expert._draw_cannot_bust(view)
        if args.play_shortcut and no_bust:
            options = SolveOptions(**{**vars(options), "opponent_hands": [((), 1)]})
        move = exact_best(self, view, options)
        spent = time.perf_counter() - started
        counts["decisions"] += 1
        seconds["all"] += spent
        if args.play_shortcut:
            counts["no_bust"] += no_bust
            seconds["no_bust_shortcut"] += spent if no_bust else 0.0
        elif no_bust:
            counts["no_bust"] += 1
            seconds["no_bust_exact"] += spent
            shortcut = SolveOptions(**{**vars(options), "opponent_hands": [((), 1)]})
            started = time.perf_counter()
            other = exact_best(self, view, shortcut)
            seconds["no_bust_shortcut"] += time.perf_counter() - started
            counts["differ"] += other != move
        return move

    expert.MatchExpertPlayer._best = best  # type: ignore[method-assign]
    started = time.perf_counter()
    command = ["simulate", "--p1", "match-expert", "--p2", args.opponent, "--p1-deck", args.deck]
    command += ["--p2-deck", args.opp_deck, "--matches", str(args.matches)]
    command += ["--seed", str(args.seed), "--workers", "1", "--json"]
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        pazaak(command, standalone_mode=False)
    result = json.loads(printed.getvalue())
    wall = time.perf_counter() - started
    print(
        json.dumps(
            {
                **counts,
                **{f"{key}_s": round(value, 2) for key, value in seconds.items()},
                "wall_s": round(wall, 2),
                "matches": args.matches,
                "match_expert_wins": result["p1_wins"],
            }
        )
    )


if __name__ == "__main__":
    main()
