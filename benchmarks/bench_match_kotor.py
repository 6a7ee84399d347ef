"""Benchmark: the exact best reply over the MATCH to the KOTOR I rule
(:class:`pazaak_cli.solve.match_kotor.KotorMatchSolver`), pure Python against its C inner loop
(:mod:`pazaak_cli.solve._fastkotormatch`), side by side in one run.

Three questions, each solved from a fresh solver in a fresh child process (so that its time
covers every later set it prepares and their fixed points, and its peak memory is its own), the
C loop first, then Python (``native=False``), both with the memo bound of the advice's shared
solver (``max_states``: ``PYTHON_KOTOR_MATCH.budget``, the same bound for both):

* ``first``: both hands known, set 1, player 1's first move after drawing a 6, kotor1, the set in
  progress with the fixed odds of the deck left (the advice's default), ``--size`` cards a side
  (the first n of ``+1 +2 -3 +4`` against ``+2 +3 -1 +5``; 4: a 4 v 4 first move);
* ``mid``: both hands known, kotor1 at 1-1 in sets, two cards a side, a few cards on the table;
* ``prepare``: what a hidden hand's answer solves first, every later set of my ``+1 -2 +3``
  against ``--hands`` possible hands of 3 cards of ``kotor1-average`` (drawn with a seed), as
  :meth:`KotorMatchSolver.prepare` does.

Each row: positions solved (every one, those the bounded memo forgot and solved again too), wall
seconds (and the child's CPU seconds: the machine may be
shared), positions per second, the child's peak resident memory, the C loop's tables, and the
ratio of Python's seconds to C's. The two paths must agree (the best move's value, to 1e-12).

    python benchmarks/bench_match_kotor.py                      # all three, 4 v 4
    python benchmarks/bench_match_kotor.py --size 3 --only first,mid
    python benchmarks/bench_match_kotor.py --no-python          # the C loop alone
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import time
from typing import Any

from tabulate import tabulate

from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.game import Draw, MatchState, Open, Phase, new_match
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.solve import match_kotor
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import PYTHON_KOTOR_MATCH
from pazaak_cli.solve.match_kotor import KotorMatchSolver, match_hand_orders
from pazaak_cli.solve.solver import deck_after_draw

MINE = "+1 +2 -3 +4"
THEIRS = "+2 +3 -1 +5"


def decision(
    spec: str, hands: tuple[str, str], winners: tuple[int, ...], draws: tuple[int, ...]
) -> MatchState:
    """Player 1's decision after the draws (each but the last followed by ending the turn)."""
    rules = parse_ruleset(spec)
    cards = (tuple(parse_cards(hands[0])), tuple(parse_cards(hands[1])))
    state = new_match(rules, cards)._replace(set_winners=winners).child(Open(0))
    for index, drawn in enumerate(draws):
        state = state.child(Draw(drawn))
        if index + 1 < len(draws):
            end = next(a for a in state.legal_actions() if str(a) == "end turn")
            state = state.child(end)
    assert state.phase is Phase.AFTER_DRAW and state.turn == 0
    return state


class Counted(KotorMatchSolver):
    """The solver, counting the positions its bounded memo forgot (:attr:`states` restarts
    from 0 when :meth:`bound_memo` empties it): :attr:`solved` is every position solved."""

    forgotten = 0

    def bound_memo(self) -> None:
        before = self.states
        super().bound_memo()
        if self.states < before:
            self.forgotten += before

    @property
    def solved(self) -> int:
        return self.forgotten + self.states


def solve_moves(state: MatchState, native: bool) -> tuple[Counted, float]:
    """Every move of the decision; the best move's match value."""
    question = question_from_state(state)
    solver = Counted(state.ruleset, 0, max_states=PYTHON_KOTOR_MATCH.budget, native=native)
    other = tuple(card for card in state.sides[1].hand if card is not None)
    current = deck_after_draw(state, question.drawn)
    moves = solver.solve_moves(question, other, current_deck=current)
    return solver, max(move.match_win for move in moves)


def question_first(native: bool, size: int, hands: int) -> tuple[Counted, float]:
    mine, theirs = " ".join(MINE.split()[:size]), " ".join(THEIRS.split()[:size])
    return solve_moves(decision("kotor1", (mine, theirs), (), (6,)), native)


def question_mid(native: bool, size: int, hands: int) -> tuple[Counted, float]:
    return solve_moves(decision("kotor1", ("+2 -3", "+4 -1"), (0, 1), (6, 4, 3)), native)


def question_prepare(native: bool, size: int, hands: int) -> tuple[Counted, float]:
    rules = parse_ruleset("kotor1")
    deck = load_deck("kotor1-average").cards
    possible = [hand for hand, _ in possible_hands(deck, 3)]
    chosen = random.Random(45).sample(possible, hands)
    solver = Counted(rules, 0, max_states=PYTHON_KOTOR_MATCH.budget, native=native)
    mine = solver.me.hand(tuple(parse_cards("+1 -2 +3")))
    its = [solver.opp.hand(order) for hand in chosen for order in match_hand_orders(hand)]
    solver.prepare((0, 0), mine, its)
    return solver, solver.entry((0, 0, mine, its[0]), match_kotor.ME)


QUESTIONS = {"first": question_first, "mid": question_mid, "prepare": question_prepare}


def child(name: str, native: bool, size: int, hands: int, out: Any) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    solver, value = QUESTIONS[name](native, size, hands)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tables = solver._core.memo_bytes / 2**20 if solver.native else None
    out.send((solver.native, solver.solved, seconds, cpu, peak, tables, value))


def run(name: str, native: bool, size: int, hands: int) -> tuple[Any, ...]:
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=child, args=(name, native, size, hands, send))
    process.start()
    result = receive.recv()
    process.join()
    return tuple(result)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(QUESTIONS), help="questions, comma-separated")
    parser.add_argument("--size", type=int, default=4, help="cards a side of `first` (1-4)")
    parser.add_argument("--hands", type=int, default=3, help="opponent hands of `prepare`")
    parser.add_argument("--no-python", action="store_true", help="time the C loop only")
    args = parser.parse_args()
    if match_kotor._fastkotormatch is None:
        parser.error("the C loop is not built (python setup.py build_ext --inplace)")
    rows = []
    for name in args.only.split(","):
        label = {"first": f"first move, {args.size} v {args.size}", "prepare": "prepare"}
        label["prepare"] = f"prepare, 3 v {args.hands} hands"
        label["mid"] = "mid-match 1-1, 2 v 2"
        results = [run(name, True, args.size, args.hands)]
        if not args.no_python:
            results.append(run(name, False, args.size, args.hands))
        for native, states, seconds, cpu, peak, tables, value in results:
            rows.append(
                [
                    label[name],
                    "C" if native else "Python",
                    f"{states:,}",
                    f"{seconds:.2f}",
                    f"{cpu:.2f}",
                    f"{states / seconds / 1e3:,.0f} K",
                    f"{peak:,.0f}",
                    "" if tables is None else f"{tables:,.0f}",
                    f"{value:.15f}",
                ]
            )
        if len(results) == 2:
            c, python = results
            assert abs(c[6] - python[6]) <= 1e-12, (c[6], python[6])
            rows[-1].append(f"{python[2] / c[2]:.1f}x")
        print(tabulate(rows[-len(results) :], tablefmt="plain", disable_numparse=True), flush=True)
    headers = ["question", "path", "positions", "s", "cpu s", "pos/s", "peak MB", "C MB"]
    headers += ["best value", "Python/C"]
    print()
    print(tabulate(rows, headers=headers, disable_numparse=True))


if __name__ == "__main__":
    main()
