"""The match expert against the set expert: match-win rates on the same seeded matches.

Plays ``--matches`` matches of each player against an opponent policy (seats exchanged for every
match, so 2 x N), all on the same deals (seed 1):

* ``set-expert``: the set solver (until the version that renamed the players, ``expert`` was
  this player with a thrift margin of 0.15);
* ``match-expert``: the match solver, counting the cards of the set in progress;
* ``expert`` (formerly ``match-lite``): the same, the later sets taking the opponent's hand as
  empty (no table);
* ``full-deck``: the match solver drawing the set in progress with a full deck's odds;
* ``sight``: ``full-deck`` shown the opponent's hand (how much the hidden hand costs it;
  ``kotor`` and ``heuristic`` never read the other hand, so only the expert gains).

The match-state values of the deck pair are solved first, for every hand the deck deals against
every one (``--universe``; measured: 1,250 s for two kotor1-starter decks on one core, 742 s
on two), and kept in the
match cache, so the matches measure playing, not solving. Each run is one process.

    python benchmarks/bench_expert_match.py --universe --deck kotor1-starter
    python benchmarks/bench_expert_match.py --player match-expert --opponent kotor --matches 500
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.players import roster as players
from pazaak_cli.players.expert import MatchExpertPlayer, _match_solver
from pazaak_cli.solve.answer_types import Move, SolveOptions
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import solve_match_question
from pazaak_cli.solve.match_cache import save_entries
from pazaak_cli.tools.simulate import Entrant, Pairing, play_matches

SEED = 1


class FullDeckMatchExpert(MatchExpertPlayer):
    """The match expert drawing the set in progress with a full deck's odds while the opponent
    plays (one memo for every decision; no card counting)."""

    def _best(self, view: MatchState, options: SolveOptions) -> Move:
        options.objective = "match"
        standing = view.sides[1 - view.turn].standing
        advice = solve_match_question(
            question_from_state(view),
            options,
            solver=_match_solver(view.ruleset),
            full_deck_odds=not standing,
        )
        return advice.results[0].move


def build_universe(rules: Ruleset, deck_name: str) -> dict[str, object]:
    """Solve every match state of two decks ``deck_name`` (every dealt hand against every one,
    one of my hands at a time to stay within the solver's memory bound) and save them."""
    deck = load_deck(deck_name, rules).cards
    hands = [hand for hand, _ in possible_hands(deck, rules.hand_size)]
    solver = _match_solver(rules)
    start = time.perf_counter()
    for hand in hands:
        solver.prepare_all((0, 0), ([hand], hands))
        solver.release_tables()
    seconds = time.perf_counter() - start
    save_entries(solver)
    return {"deck": deck_name, "hands": len(hands), "entries": solver.entry_count, "s": seconds}


def run(
    rules: Ruleset, player: str, opponent: str, deck_name: str, matches: int
) -> dict[str, object]:
    deck = load_deck(deck_name, rules)
    policy = {"full-deck": "match-expert", "sight": "match-expert"}.get(player, player)
    if player in ("full-deck", "sight"):
        players.MatchExpertPlayer = FullDeckMatchExpert  # type: ignore[attr-defined]
    if player == "sight":
        MatchState.observed_by = lambda self, player: self  # type: ignore[method-assign]
    pairing = Pairing(
        Entrant(policy, deck.name, deck.cards), Entrant(opponent, deck.name, deck.cards)
    )
    start = time.perf_counter()
    tally = play_matches(rules, pairing, SEED, 0, matches, swap=True)
    seconds = time.perf_counter() - start
    return {
        "player": player,
        "opponent": opponent,
        "deck": deck_name,
        "matches": tally.matches,
        "win_rate": tally.wins[0] / tally.matches,
        "sets": tally.sets_won,
        "busts": tally.busts,
        "s_per_match": seconds / tally.matches,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="kotor1")
    parser.add_argument("--deck", default="kotor1-starter")
    parser.add_argument("--universe", action="store_true", help="solve the deck pair's values")
    parser.add_argument(
        "--player",
        default="match-expert",
        choices=("set-expert", "expert", "match-expert", "full-deck", "sight"),
    )
    parser.add_argument("--opponent", default="kotor")
    parser.add_argument("--matches", type=int, default=250, help="per seat order")
    args = parser.parse_args()
    rules = parse_ruleset(args.ruleset)
    if args.universe:
        print(json.dumps(build_universe(rules, args.deck)))
    else:
        print(json.dumps(run(rules, args.player, args.opponent, args.deck, args.matches)))


if __name__ == "__main__":
    main()
