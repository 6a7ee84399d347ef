"""Benchmark: the exact match solver, pure Python against the C inner loop
(pazaak_cli.solve._fastmatch).

The question is the issue's first one: both hands known, set 1, the first move of player 1
after drawing a 6, kotor1 with the infinite deck; hands of 1 to 4 cards (the first n of
``+1 +2 -3 +4`` against ``+2 +3 -1 +5``). Each solve runs in a fresh child process, so that its
time covers the whole solve (every later set and its fixed point) and its peak memory is its
own (with the process it forks: on two cores or more the native solver solves every other
score in a forked copy, see ``pazaak_cli/solve/match_pipeline.py``). The native solver is timed
``--repeat`` times for each count of processes in ``--processes`` (the median is shown), the
pure one once and only for the sizes in ``--pure`` (it takes minutes from 2 cards a side).

Positions/s: positions computed (one solved again counts again) per second of the whole solve
(wall clock; the CPU seconds of the child are shown beside it, as the machine may be shared).
The two count alike except that the C core does not solve again, at each step of a fixed point,
the positions that did not read the value iterated (Python drops the whole group).

    python benchmarks/bench_match.py                      # 1-4 cards native, 1-2 pure
    python benchmarks/bench_match.py --sizes 1,2,3 --pure 1,2,3 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from bench_memory import tree_memory_mb

MINE = "+1 +2 -3 +4"
THEIRS = "+2 +3 -1 +5"
RULES = "kotor1/main-deck=infinite"
DRAWN = 6


def worker(kind: str, size: int, rules_spec: str) -> None:
    """Solve once in this process and print the figures as JSON."""
    from pazaak_cli.engine.cards import parse_cards
    from pazaak_cli.engine.game import Draw, Open, new_match
    from pazaak_cli.engine.position_builder import question_from_state
    from pazaak_cli.engine.rules import parse_ruleset
    from pazaak_cli.solve.match_native import NativeMatchSolver
    from pazaak_cli.solve.match_solver import MatchKey, MatchSolver

    class CountingSolver(MatchSolver):
        """The pure solver, counting the positions its fixed points drop (solved again)."""

        dropped = 0

        def _forget(self, match: MatchKey) -> None:
            before = self._positions
            super()._forget(match)
            self.dropped += before - self._positions

    rules = parse_ruleset(rules_spec)
    mine = parse_cards(" ".join(MINE.split()[:size]))
    theirs = parse_cards(" ".join(THEIRS.split()[:size]))
    state = new_match(rules, (mine, theirs)).child(Open(0)).child(Draw(DRAWN))
    question = question_from_state(state)
    started = time.perf_counter()
    if kind == "native":
        solver: MatchSolver = NativeMatchSolver(rules)
    else:
        solver = CountingSolver(rules)
    moves = solver.solve_moves(question, theirs, current_deck=None)
    elapsed = time.perf_counter() - started
    if isinstance(solver, NativeMatchSolver):
        computed = solver.positions_computed
    else:
        assert isinstance(solver, CountingSolver)
        computed = solver.states + solver.dropped
    best = max(moves, key=lambda move: move.match_win)
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "computed": computed,
                "held": solver.states,
                "fixed_points": solver.fixed_point_solves,
                "shortcuts": solver.fixed_point_shortcuts,
                "best": f"{best.move} {best.match_win:.6f}",
            }
        )
    )


def measure(kind: str, size: int, rules_spec: str, processes: int = 1) -> dict[str, float | str]:
    """One solve in a child process allowed ``processes`` processes: its figures, its peak
    resident memory (MB, the processes it forks included) and its CPU time (theirs included)."""
    command = [sys.executable, __file__, "--worker", kind, str(size), "--rules", rules_spec]
    env = dict(os.environ)
    env.pop("PAZAAK_PURE_PYTHON", None)
    env["PAZAAK_SOLVER_PROCESSES"] = str(processes)
    child = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout is not None
    sampled = 0.0
    while True:  # (the output is one short line: the pipe cannot fill meanwhile)
        sampled = max(sampled, tree_memory_mb(child.pid))
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.05)
    output = child.stdout.read()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{kind} {size}v{size} failed (exit {child.returncode})")
    figures: dict[str, float | str] = json.loads(output.strip().splitlines()[-1])
    figures["peak_mb"] = max(sampled, usage.ru_maxrss / 1024)  # (kilobytes on Linux)
    figures["cpu"] = usage.ru_utime + usage.ru_stime  # (the whole child, imports included)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,3,4", help="hand sizes to solve natively")
    parser.add_argument("--pure", default="1,2", help="hand sizes to solve in pure Python too")
    parser.add_argument("--repeat", type=int, default=3, help="native solves per size")
    parser.add_argument(
        "--processes", default="1,2", help="processes the native solver may use, each in turn"
    )
    parser.add_argument("--rules", default=RULES)
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), args.rules)
        return
    sizes = [int(n) for n in args.sizes.split(",") if n]
    pure_sizes = {int(n) for n in args.pure.split(",") if n}
    print(f"{args.rules}, first move after a {DRAWN}, both hands known ({MINE} v {THEIRS})")
    header = (
        f"{'hands':>5} {'path':>6} {'seconds':>9} {'cpu s':>8} {'positions':>12} {'pos/s':>10} "
        f"{'held':>11} {'peak MB':>8}  best move"
    )
    print(header)
    counts = [int(n) for n in args.processes.split(",") if n]
    for size in sizes:
        rows = []
        for count in counts:
            runs = [measure("native", size, args.rules, count) for _ in range(args.repeat)]
            native = sorted(runs, key=lambda run: float(run["seconds"]))[len(runs) // 2]
            median = statistics.median(float(r["seconds"]) for r in runs)
            rows.append((f"C x{count}", native, median))
        if size in pure_sizes:
            pure = measure("pure", size, args.rules)
            rows.append(("pure", pure, float(pure["seconds"])))
        for path, figures, seconds in rows:
            rate = float(figures["computed"]) / seconds
            print(
                f"{size}v{size:<3} {path:>6} {seconds:9.2f} {float(figures['cpu']):8.2f} "
                f"{int(figures['computed']):>12,} "
                f"{rate:>10,.0f} {int(figures['held']):>11,} {float(figures['peak_mb']):>8.0f}"
                f"  {figures['best']}"
            )
        if size in pure_sizes:
            print(f"      pure / native (one process) time: {rows[-1][2] / rows[0][2]:.1f}x")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
