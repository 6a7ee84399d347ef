"""How much the later sets' deck model moves the match answer, on a sample of positions.

The match solver draws every later set with a full deck's odds (uniform 1..10): which cards a
later set will meet depends on every draw before it, and this model keeps the match solvable.
In KOTOR the 40-card deck is shared by the sets of a match (it is renewed only when it runs
out), so the next set starts on a deck with the cards of this one gone. This script solves each
sampled position twice, the set in progress alike (its own deck, as ``pazaak advise`` solves
it), the later sets drawn with:

* ``full``: a full deck's odds (the model ``pazaak advise`` answers with);
* ``as it stands``: the odds of the deck as it stands at the question, after the draw (the
  cards gone are public; the rest of this set's draws are not yet known).

and reports how often the best move changes, how far the best move's match-win probability
moves, and what the full model's choice loses when valued by the other (its regret).

Positions: seeded matches between ``heuristic`` and ``kotor`` (both seats), the given decks;
each decision of a player who holds a hand card, where the answer needs at most ``--max-pairs``
pairs of sub-hands (both hands known, as ``pazaak advise --opp-hand`` gives them) and the deck
holds at least ``--min-cards`` cards (a deck nearly drawn out is renewed during the next set:
its odds are no model of it); at most two positions a match, drawn at random.

    python benchmarks/bench_deck_model.py --positions 60
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import time

from tabulate import tabulate

from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.game import FULL_DECK, MatchState, Phase, Side, deal_hand, new_match
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players.roster import make_player
from pazaak_cli.solve.answer_types import Advice, SolveOptions
from pazaak_cli.solve.hidden_hands import subhand_count
from pazaak_cli.solve.match_advice import solve_match_question
from pazaak_cli.solve.match_native import make_match_solver
from pazaak_cli.solve.solver import deck_after_draw


def sample_positions(
    ruleset: str, deck_name: str, count: int, max_pairs: int, min_cards: int, seed: int
) -> list[MatchState]:
    """``count`` decision positions of seeded heuristic-v-kotor matches (see the module doc)."""
    rules = parse_ruleset(ruleset)
    deck = load_deck(deck_name, rules).cards
    rng = random.Random(seed)
    found: list[MatchState] = []
    match = 0
    while len(found) < count:
        names = ("heuristic", "kotor") if match % 2 == 0 else ("kotor", "heuristic")
        players = [
            make_player(name, ruleset=rules, rng=rng, own_deck=deck, opponent_deck=deck)
            for name in names
        ]
        state = new_match(rules, (deal_hand(deck, rules, rng), deal_hand(deck, rules, rng)))
        candidates = []
        while state.phase is not Phase.MATCH_OVER:
            if state.phase is Phase.AFTER_DRAW:
                me, other = state.sides[state.turn], state.sides[1 - state.turn]
                mine = tuple(card for card in me.hand if card is not None)
                theirs = tuple(card for card in other.hand if card is not None)
                if (
                    not state.played
                    and mine
                    and subhand_count(mine) * subhand_count(theirs) <= max_pairs
                    and sum(state.deck) >= min_cards
                ):
                    candidates.append(state)
                seat = state.turn
                state = state.child(players[seat].choose(state.observed_by(seat)))
            else:
                state = state.child(state.sample_chance(rng))
        found.extend(rng.sample(candidates, min(2, len(candidates), count - len(found))))
        match += 1
    return found


def describe(state: MatchState) -> str:
    me, other = state.sides[state.turn], state.sides[1 - state.turn]
    won = state.sets_won()
    score = f"{won[state.turn]}-{won[1 - state.turn]}"

    def hand(side: Side) -> str:
        return " ".join(str(card) for card in side.hand if card is not None) or "-"

    return f"{score}  {me.total} v {other.total}  [{hand(me)}] v [{hand(other)}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--ruleset", default="kotor1")
    parser.add_argument("--deck", default="kotor1-starter")
    parser.add_argument("--max-pairs", type=int, default=64)
    parser.add_argument(
        "--min-cards", type=int, default=20, help="only positions with this many cards in the deck"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object, no table")
    args = parser.parse_args()
    os.environ["PAZAAK_CACHE_DIR"] = "off"  # (each model solved here, none read from a file)
    rules = parse_ruleset(args.ruleset)
    positions = sample_positions(
        args.ruleset, args.deck, args.positions, args.max_pairs, args.min_cards, args.seed
    )
    full_solver = make_match_solver(rules)  # (one for every position: its later sets shared)
    options = SolveOptions(objective="match")
    rows = []
    started = time.perf_counter()
    for state in positions:
        question = question_from_state(state)
        deck = deck_after_draw(state, question.drawn)
        standing = deck if any(deck) else FULL_DECK
        full = solve_match_question(question, options, solver=full_solver)
        other = solve_match_question(
            question, options, solver=make_match_solver(rules, later_deck=standing)
        )
        rows.append(compare(state, full, other, sum(standing)))
    elapsed = time.perf_counter() - started
    changed = [row for row in rows if row.changed]
    moved = [row.moved for row in rows]
    regrets = [row.regret for row in rows]
    summary = {
        "positions": len(rows),
        "best_move_changed": len(changed),
        "best_match_win_moved_mean": statistics.fmean(moved),
        "best_match_win_moved_median": statistics.median(moved),
        "best_match_win_moved_max": max(moved),
        "regret_mean": statistics.fmean(regrets),
        "regret_max": max(regrets),
        "any_move_moved_max": max(row.any_moved for row in rows),
        "seconds": elapsed,
    }
    if args.json:
        print(json.dumps({"summary": summary, "positions": [dataclasses.asdict(r) for r in rows]}))
        return
    table = [
        [
            row.position,
            row.cards_left,
            row.best_full,
            f"{100 * row.win_full:.2f}",
            row.best_other if row.changed else "same",
            f"{100 * row.win_other:.2f}",
            f"{100 * row.regret:.2f}",
        ]
        for row in rows
    ]
    headers = ["score, totals, hands", "deck", "best (full)", "win %", "best (as it stands)"]
    headers += ["win %", "regret"]
    print(tabulate(table, headers=headers))
    print()
    print(
        f"{len(rows)} positions ({args.ruleset}, {args.deck}, seed {args.seed}), "
        f"{elapsed:.0f} s: the best move changed in {len(changed)}; the best move's match-win "
        f"probability moved by {100 * summary['best_match_win_moved_mean']:.2f} points on "
        f"average (median {100 * summary['best_match_win_moved_median']:.2f}, at most "
        f"{100 * summary['best_match_win_moved_max']:.2f}); any move's by at most "
        f"{100 * summary['any_move_moved_max']:.2f}; the full-deck choice lost "
        f"{100 * summary['regret_mean']:.3f} points on average under the other model "
        f"(at most {100 * summary['regret_max']:.2f})"
    )


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One position's two answers."""

    position: str
    cards_left: int
    best_full: str
    best_other: str
    changed: bool
    """Whether the other model's best move is strictly better than the full model's, by it."""
    win_full: float
    win_other: float
    moved: float
    """How far the best move's match-win probability moved."""
    regret: float
    """What the full model's choice loses, valued by the other model."""
    any_moved: float


def compare(state: MatchState, full: Advice, other: Advice, cards_left: int) -> Comparison:
    """One position's two answers: the best move of each, how far the best value moved, and
    the full model's choice valued by the other model (its regret)."""

    def values(advice: Advice) -> dict[str, float]:
        return {str(result.move): result.match_win or 0.0 for result in advice.results}

    a, b = values(full), values(other)
    best_a, best_b = str(full.results[0].move), str(other.results[0].move)
    return Comparison(
        position=describe(state),
        cards_left=cards_left,
        best_full=best_a,
        best_other=best_b,
        changed=best_a != best_b and b[best_a] < b[best_b] - 1e-9,
        win_full=a[best_a],
        win_other=b[best_b],
        moved=abs(a[best_a] - b[best_b]),
        regret=b[best_b] - b[best_a],
        any_moved=max(abs(a[move] - b[move]) for move in a),
    )


if __name__ == "__main__":
    main()
