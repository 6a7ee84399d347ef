"""How honest a sampled answer is: the coverage of its 95 % interval and the agreement of its
best move with the exact one, on many positions of every sample deck.

For each position (every sample deck as the opponent's, kotor1 decks under kotor1 and kotor2
decks under kotor2, an infinite main deck so that every hand's exact answer is quick; a few
tables and hands, hidden hands of 2 and 3 cards; set answers, and match answers at several
scores with 1-card hands) every possible hand is solved once (:class:`Refinement` grown to the
exact answer). Then for ``--seeds`` seeds and 3, 6 and 12 hands the sample is drawn exactly as
``pazaak advise --hands N --seed S`` draws it and estimated, and compared with the exact average:

- coverage: how often each move's exact value lies in its 95 % interval;
- agreement: how often the sampled best move is the exact best, or within the reported interval
  of the lead (its exact value within that much of the exact best's: a disagreement the answer
  itself said it could not rule out);
- calls: of the samples that called their best move best with confidence, how many were wrong.

    python benchmarks/bench_coverage.py
    python benchmarks/bench_coverage.py --seeds 20
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

from tabulate import tabulate

from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import sample_decks
from pazaak_cli.engine.notation import parse_table
from pazaak_cli.engine.position_builder import Question, build_question
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.budgeted import Refinement
from pazaak_cli.solve.sampling import HandDraws, estimate
from pazaak_cli.solve.time_budget import TimeBudget

HANDS = (3, 6, 12)
SET_POSITIONS = [("10 4", "10 5"), ("8 7", "7 6"), ("6 6 2", "10 8")]
MY_HANDS = {"kotor1": ["+2 -3", "±1 +4"], "kotor2": ["+2 -3", "±1/2 D"]}
MATCH_POSITIONS = [("10 3", "9 4", (0, 0)), ("10 3", "9 4", (1, 0)), ("8 7", "10", (1, 1))]


def positions() -> Iterator[tuple[str, str, Question, SolveOptions]]:
    """(deck, answer, question, options) of every position measured."""
    for deck in sample_decks():
        family = "kotor2" if deck.name.startswith("kotor2") else "kotor1"
        rules = parse_ruleset(f"{family}/main-deck=infinite")
        for table, opp in SET_POSITIONS:
            for hand in MY_HANDS[family]:
                for hidden in (2, 3):
                    asked = _question(rules, table, hand, opp, hidden, (0, 0))
                    options = SolveOptions(opponent_deck=deck.cards, objective="set")
                    yield deck.name, "set", asked, options
        match_rules = parse_ruleset(f"{family}/main-deck=infinite,sets-to-win=2")
        for table, opp, sets in MATCH_POSITIONS:
            asked = _question(match_rules, table, "+2", opp, 1, sets)
            options = SolveOptions(opponent_deck=deck.cards, objective="match")
            yield deck.name, f"match {sets[0]}-{sets[1]}", asked, options


def _question(
    rules: Any, table: str, hand: str, opp: str, hidden: int, sets: tuple[int, int]
) -> Question:
    return build_question(
        rules,
        table=parse_table(table, rules.flip_targets),
        hand=parse_cards(hand),
        opp_table=parse_table(opp, rules.flip_targets),
        opp_stood=False,
        opp_hand=(None,) * hidden,
        sets=sets,
        seen=(),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="samples per position and size")
    options = parser.parse_args()
    started = time.perf_counter()
    tally: dict[tuple[str, int], list[int]] = {}
    measured = 0
    for _deck, kind, asked, solve_options in positions():
        refinement = Refinement(asked, solve_options)
        refinement.refine(TimeBudget())
        weights = [ways for _, ways in refinement.hands]
        rows = refinement.rows
        if len(weights) < 4:
            continue
        measured += 1
        whole = sum(weights)
        exact = [
            sum(w * rows[i][move][0] for i, w in enumerate(weights)) / whole
            for move in range(len(rows[0]))
        ]
        best = max(exact)
        family = "set" if kind == "set" else "match"
        for hands in HANDS:
            if hands >= len(weights):
                continue
            counts = tally.setdefault((family, hands), [0, 0, 0, 0, 0, 0, 0])
            for seed in range(options.seeds):
                draws = HandDraws(weights, str(seed))
                draws.distinct(hands)
                found = estimate(rows, draws.usable_draws(hands))
                for move in found.moves:
                    counts[0] += 1
                    counts[1] += abs(exact[move.place] - move.means[0]) <= move.margin + 1e-12
                chosen = exact[found.moves[0].place]
                counts[2] += 1
                counts[3] += chosen >= best - 1e-12
                counts[4] += chosen >= best - found.gap_margin - 1e-12
                if found.gap - found.gap_margin > 0:
                    counts[5] += 1
                    counts[6] += chosen < best - 1e-12
        print(f"{measured} positions, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    table = []
    for (family, hands), c in sorted(tally.items()):
        table.append(
            [
                family,
                hands,
                c[0],
                f"{100 * c[1] / c[0]:.1f}",
                f"{100 * c[3] / c[2]:.1f}",
                f"{100 * c[4] / c[2]:.1f}",
                c[5],
                c[6],
            ]
        )
    print(
        tabulate(
            table,
            headers=[
                "answer",
                "hands",
                "move values",
                "in interval %",
                "best = exact best %",
                "best within interval %",
                "confident calls",
                "wrong calls",
            ],
        )
    )
    print(f"{measured} positions, {options.seeds} seeds, {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
