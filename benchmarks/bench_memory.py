"""Peak memory and time of ``pazaak advise`` on the game's hardest side decks.

Each case runs as a fresh process with the disk cache off; the table shows its wall and CPU time
and its peak memory, the processes it forks included (the sum of their proportional shares,
sampled every 50 ms: a page a forked child still shares with its parent counts once; never below
the kernel's own peak for the largest process, as ``/usr/bin/time -v`` prints it). The decks are
the KOTOR II computer's: ``kotor2-very-hard`` (two of each gold card), ``kotor2-hard`` and
``kotor2-average``; for each, a 4 v 4 first move with both hands known and one with the
opponent's four cards hidden (averaged over every hand its deck can deal).

    python benchmarks/bench_memory.py                     # set objective, every case
    python benchmarks/bench_memory.py --objective match   # the match solver instead
    python benchmarks/bench_memory.py --only very-hard --timeout 120

A case still running at ``--timeout`` seconds is stopped with Ctrl-C (SIGINT), and the table
says so, with the memory it had reached and whether it exited cleanly (130).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

from tabulate import tabulate

HANDS = {
    # deck -> (my hand, the opponent's hand when known): cards of that deck
    "kotor2-very-hard": ("F2/4 F3/6 D T", "F2/4 F3/6 D ±1/2"),
    "kotor2-hard": ("F2/4 F3/6 ±4 D", "F2/4 T ±6 ±1/2"),
    "kotor2-average": ("±1 ±2 +3 D", "+4 ±5 -6 ±4"),
}


def cases(only: str | None) -> list[tuple[str, list[str]]]:
    found = []
    for deck, (mine, theirs) in HANDS.items():
        if only and only not in deck:
            continue
        base = ["--ruleset", "kotor2", "--table", "5", "--hand", mine, "--opp-table", "6"]
        found.append((f"{deck}: 4 v 4, both known", [*base, "--opp-hand", theirs]))
        found.append(
            (
                f"{deck}: 4 v 4, opponent's hidden",
                [*base, "--opp-hand-size", "4", "--opp-deck", deck],
            )
        )
    return found


def tree_memory_mb(pid: int) -> float:
    """The memory of process ``pid`` and of its descendants now (the solver forks copies of
    itself on several cores: together they take what the machine must have), MB: each one's
    proportional share (PSS: a page shared between a forked child and its parent, as all are
    just after the fork, counts once, not once in each), or its resident memory where the
    system gives no share; 0 where /proc cannot say."""
    total_kb = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            total_kb += _process_kb(current)
            with open(f"/proc/{current}/task/{current}/children") as children:
                stack.extend(int(child) for child in children.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total_kb / 1024


def _process_kb(pid: int) -> int:
    """One process's proportional memory (PSS), else its resident memory, kB."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    with open(f"/proc/{pid}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def run(args: list[str], timeout: float) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, how it ended) of one ``pazaak advise ARGS --json`` process: see
    :func:`run_process`."""
    return run_process(["advise", *args, "--json"], timeout)


def run_process(
    args: list[str], timeout: float, stdin: str | None = None
) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, how it ended) of one ``pazaak ARGS`` process, fed ``stdin``:
    its CPU time with its children's, its peak memory with its children's (sampled every 50
    ms, and never below its own peak as the kernel counts it)."""
    command = [sys.executable, "-m", "pazaak_cli", *args]
    # the solve is measured, not the disk cache of match-state values (a second run would read
    # what the first one saved)
    env = {**os.environ, "PAZAAK_CACHE_DIR": "off"}
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # a shell's background job ignores SIGINT, and so would the child: let it see Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    if stdin is not None:
        assert child.stdin is not None
        child.stdin.write(stdin.encode())
        child.stdin.close()
    ended = "ok"
    sampled = 0.0
    while True:
        sampled = max(sampled, tree_memory_mb(child.pid))
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - started > timeout and ended == "ok":
            child.send_signal(signal.SIGINT)
            ended = "timeout"
        time.sleep(0.05)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if ended == "timeout":
        ended = f"stopped at {timeout:.0f} s (exit {code})"
    elif code != 0:
        assert child.stderr is not None
        ended = f"exit {code}: {child.stderr.read().decode(errors='replace').strip()[:60]}"
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, max(sampled, usage.ru_maxrss / 1024), ended


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objective", choices=["set", "match"], default="set")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per case")
    parser.add_argument("--only", help="run the cases whose deck name holds this")
    options = parser.parse_args()
    rows = []
    for name, args in cases(options.only):
        wall, cpu, peak, ended = run([*args, "--objective", options.objective], options.timeout)
        rows.append([name, f"{wall:.1f}", f"{cpu:.1f}", f"{peak:.0f}", ended])
        print(tabulate([rows[-1]], tablefmt="plain"), file=sys.stderr, flush=True)
    print(
        tabulate(
            rows,
            headers=["case", "wall s", "CPU s", "peak MB", "result"],
            colalign=("left", "right", "right", "right", "left"),
        )
    )


if __name__ == "__main__":
    main()
