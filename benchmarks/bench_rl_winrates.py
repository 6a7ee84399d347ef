"""Win rates through the Gymnasium environment against ``kotor``, beside ``pazaak simulate``'s
on the same decks (not a test; needs the ``rl`` extra): the environment plays the same game.

    python benchmarks/bench_rl_winrates.py                       # about 2 minutes on 2 cores
    python benchmarks/bench_rl_winrates.py --matches 1000 --expert-matches 200 --seed 1

Each agent plays seat 1 of ``Pazaak-v0`` (opponent ``kotor``); match I is dealt from the stream
``pazaak simulate --seed S`` deals its match I from (``reset(options={"match_seed": "S:I"})``).
``random`` picks uniformly among the masked legal actions (numpy, seeded); ``heuristic`` and
``expert`` are the roster's players acting through the environment (``env.action_of``). Then
``simulate`` plays the same pairings. 95 % Wilson intervals.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from pazaak_cli.engine.decks import sample_deck
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players.roster import make_player
from pazaak_cli.rl import PazaakEnv
from pazaak_cli.tools.simulate import Entrant, Pairing, simulate, wilson_interval


def env_wins(agent: str, matches: int, seed: int, deck: str, opponent_deck: str) -> int:
    rules = parse_ruleset("kotor1")
    mine, theirs = sample_deck(deck).cards, sample_deck(opponent_deck).cards
    env = PazaakEnv(ruleset=rules, opponent="kotor", deck=mine, opponent_deck=theirs)
    picker = np.random.default_rng(seed)
    player = (
        None
        if agent == "random"
        else make_player(
            agent, ruleset=rules, rng=random.Random(0), own_deck=mine, opponent_deck=theirs
        )
    )
    wins = 0
    for index in range(matches):
        env.reset(options={"match_seed": f"{seed}:{index}"})
        done, reward = False, 0.0
        while not done:
            if player is None:
                action = int(picker.choice(np.flatnonzero(env.action_masks())))
            else:
                action = env.action_of(player.choose(env.view))
            _, step_reward, done, _, _ = env.step(action)
            reward = float(step_reward)
        wins += reward > 0
    return wins


def shown(wins: int, matches: int) -> str:
    low, high = wilson_interval(wins, matches)
    return f"{100 * wins / matches:5.1f} % ({100 * low:.1f}–{100 * high:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--expert-matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deck", default="kotor1-starter")
    parser.add_argument("--opp-deck", default="kotor1-starter")
    args = parser.parse_args()
    rules = parse_ruleset("kotor1")
    print(f"seat 1 against kotor, {args.deck} vs {args.opp_deck}, kotor1, seed {args.seed}")
    print(f"{'agent':<10} {'matches':>7}  {'through Pazaak-v0':<24} {'pazaak simulate':<24}")
    for agent in ("random", "heuristic", "expert"):
        matches = args.expert_matches if agent == "expert" else args.matches
        started = time.monotonic()
        wins = env_wins(agent, matches, args.seed, args.deck, args.opp_deck)
        env_seconds = time.monotonic() - started
        pairing = Pairing(
            Entrant(agent, args.deck, sample_deck(args.deck).cards),
            Entrant("kotor", args.opp_deck, sample_deck(args.opp_deck).cards),
        )
        result = simulate(rules, [pairing], matches=matches, seed=args.seed)[0]
        simulated = result.tally.wins[0]
        print(
            f"{agent:<10} {matches:>7}  {shown(wins, matches):<24} "
            f"{shown(simulated, matches):<24} ({env_seconds:.1f} s through the env)"
        )


if __name__ == "__main__":
    main()
