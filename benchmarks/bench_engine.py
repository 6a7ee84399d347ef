"""Speed of the rules engine (not a test): complete random matches per second, actions per
second, and the cost of each hot call on states met in real playouts.

    python benchmarks/bench_engine.py            # about 20 s

Times are CPU seconds of this process (``time.process_time``), so "per second" means per core
second even on a busy machine.
    python benchmarks/bench_engine.py --matches 2000 --seed 7

A "random match" deals two hands from a side deck that holds every card kind of the preset,
then plays uniformly random legal actions (never a forfeit), asking ``observed_by`` once per
decision as a policy would. If the KOTOR opponent (``pazaak_cli.players.roster.KotorPlayer``) is
available, kotor-vs-kotor matches are timed too: that is the simulator's workload.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.game import FORFEIT, Action, MatchState, deal_hand, new_match
from pazaak_cli.engine.rules import KOTOR1, KOTOR2, Ruleset

DECKS = {
    "kotor1": parse_cards("+1 -2 ±3 +4 -5 ±6 +2 -3 ±1 +5"),
    "kotor2": parse_cards("±1/2 F2/4 F3/6 D T ±3 +2 -4 ±5 +6"),
}


def random_match(ruleset: Ruleset, deck: tuple[Card, ...], rng: random.Random) -> int:
    """Play one random match; return the number of actions."""
    state = new_match(ruleset, (deal_hand(deck, ruleset, rng), deal_hand(deck, ruleset, rng)))
    actions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            state.observed_by(state.turn)
            legal = [a for a in state.legal_actions() if a is not FORFEIT]
            action = legal[rng.randrange(len(legal))]
        state = state.child(action)
        actions += 1
    return actions


def policy_match(
    ruleset: Ruleset, deck: tuple[Card, ...], rng: random.Random, players: list[object]
) -> int:
    state = new_match(ruleset, (deal_hand(deck, ruleset, rng), deal_hand(deck, ruleset, rng)))
    actions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            action = players[state.turn].choose(state.observed_by(state.turn))  # type: ignore[attr-defined]
        state = state.child(action)
        actions += 1
    return actions


def collect_states(
    ruleset: Ruleset, deck: tuple[Card, ...], seed: int, count: int
) -> list[MatchState]:
    rng = random.Random(seed)
    states: list[MatchState] = []
    while len(states) < count:
        state = new_match(ruleset, (deal_hand(deck, ruleset, rng), deal_hand(deck, ruleset, rng)))
        while not state.is_terminal():
            states.append(state)
            if state.is_chance_node():
                action = state.sample_chance(rng)
            else:
                legal = [a for a in state.legal_actions() if a is not FORFEIT]
                action = legal[rng.randrange(len(legal))]
            state = state.child(action)
    return states[:count]


def per_call(func: Callable[[], object], calls: int) -> float:
    """Microseconds of CPU per call (the best of three runs)."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best / calls * 1e6


def micro(ruleset: Ruleset, deck: tuple[Card, ...], seed: int) -> list[tuple[str, float]]:
    states = collect_states(ruleset, deck, seed, 20_000)
    deciding = [s for s in states if not s.is_chance_node()]
    chance = [s for s in states if s.is_chance_node()]
    pairs: list[tuple[MatchState, Action]] = []
    rng = random.Random(seed)
    for state in states:
        legal = [a for a in state.legal_actions() if a is not FORFEIT]
        pairs.append((state, legal[rng.randrange(len(legal))]))
    return [
        (
            "legal_actions (decision)",
            per_call(lambda: [s.legal_actions() for s in deciding], len(deciding)),
        ),
        (
            "legal_actions (chance)",
            per_call(lambda: [s.legal_actions() for s in chance], len(chance)),
        ),
        ("sample_chance", per_call(lambda: [s.sample_chance(rng) for s in chance], len(chance))),
        ("child", per_call(lambda: [s.child(a) for s, a in pairs], len(pairs))),
        ("observed_by", per_call(lambda: [s.observed_by(s.turn) for s in states], len(states))),
        ("hash(state)", per_call(lambda: [hash(s) for s in states], len(states))),
        (
            "chance_outcomes (Fraction)",
            per_call(lambda: [s.chance_outcomes() for s in chance], len(chance)),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=5000, help="random matches per preset")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"{'workload':34} {'matches/s':>10} {'actions/s':>11} {'actions/match':>14}")
    for ruleset in (KOTOR1, KOTOR2):
        deck = DECKS[ruleset.name]
        rng = random.Random(args.seed)
        start = time.process_time()
        actions = sum(random_match(ruleset, deck, rng) for _ in range(args.matches))
        elapsed = time.process_time() - start
        rate = args.matches / elapsed
        print(
            f"{'random ' + ruleset.name:34} {rate:10.0f} {actions / elapsed:11.0f}"
            f" {actions / args.matches:14.1f}"
        )
    try:
        from pazaak_cli.players.roster import KotorPlayer
    except ImportError:
        print("(no KotorPlayer: kotor-vs-kotor skipped)")
    else:
        for ruleset in (KOTOR1, KOTOR2):
            deck = DECKS[ruleset.name]
            rng = random.Random(args.seed)
            players: list[object] = [KotorPlayer(), KotorPlayer()]
            count = max(1, args.matches // 2)
            start = time.process_time()
            actions = sum(policy_match(ruleset, deck, rng, players) for _ in range(count))
            elapsed = time.process_time() - start
            print(
                f"{'kotor vs kotor, ' + ruleset.name:34} {count / elapsed:10.0f}"
                f" {actions / elapsed:11.0f} {actions / count:14.1f}"
            )
    print()
    print(f"{'call (states from kotor2 playouts)':34} {'µs/call':>10}")
    for name, micros in micro(KOTOR2, DECKS["kotor2"], args.seed):
        print(f"{name:34} {micros:10.2f}")


if __name__ == "__main__":
    main()
