"""How the work spreads: matches per second on 1 and 2 local workers and on a 2-worker local
Dask cluster (efficiency = rate / (workers x the 1-worker rate)), and the cost of one batch.

The workload is ``kotor`` against ``kotor`` under kotor1 rules (three deck pairings), played in
the simulator's batches of 250 matches. The cost per batch is measured with empty batches (no
match): what sending one unit of work out and its tally back costs on each backend. The Dask
cluster is started here (``dask scheduler`` and two ``dask worker --nthreads 1`` processes on
127.0.0.1) and stopped at the end. One run of each: the machine is shared, so the ratios matter
more than the absolute figures.

    python benchmarks/bench_cluster.py
    python benchmarks/bench_cluster.py --matches 4000 --empty 2000
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

from tabulate import tabulate

from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.rules import KOTOR1
from pazaak_cli.runtime.executors import (
    DaskCluster,
    Executor,
    InProcess,
    LocalProcesses,
    load_distributed,
)
from pazaak_cli.tools.simulate import Batch, Entrant, Pairing, play_batch, simulate

DECK_PAIRS = (
    ("kotor1-starter", "kotor1-starter"),
    ("kotor1-average", "kotor1-strong"),
    ("kotor1-strongest", "kotor1-strongest"),
)
SEED = 2024


def pairing(first: str, second: str) -> Pairing:
    a, b = load_deck(first, KOTOR1), load_deck(second, KOTOR1)
    return Pairing(Entrant("kotor", a.name, a.cards), Entrant("kotor", b.name, b.cards))


@contextlib.contextmanager
def dask_cluster(workers: int) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers on 127.0.0.1; yields the address."""
    distributed = load_distributed()  # the benchmark needs the cluster extra (untyped: Any)

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = shutil.which("dask") or os.path.join(os.path.dirname(sys.executable), "dask")

    def start(*args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [dask, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    processes = [start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")]
    try:
        for _ in range(workers):
            processes.append(
                start(
                    "worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                    "--no-nanny", "--no-dashboard",
                )
            )  # fmt: skip
        deadline = time.monotonic() + 120
        while True:
            try:
                with distributed.Client(address, timeout=5) as client:
                    client.wait_for_workers(workers, timeout=90)
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield address
    finally:
        for process in reversed(processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # a worker still trying to reach its scheduler
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def time_matches(executor: Executor, matches: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) to play the tournament on ``executor``."""
    pairs = [pairing(a, b) for a, b in DECK_PAIRS]
    wall, cpu = time.perf_counter(), time.process_time()
    simulate(KOTOR1, pairs, matches=matches, seed=SEED, executor=executor)
    return time.perf_counter() - wall, time.process_time() - cpu


def time_empty_batches(executor: Executor, batches: int) -> float:
    """Wall seconds per batch of no match: the cost of the unit of work itself."""
    pair = pairing(*DECK_PAIRS[0])
    empty = (Batch(KOTOR1, pair, SEED, 0, 0, False) for _ in range(batches))
    wall = time.perf_counter()
    for _ in executor.map_unordered(play_batch, empty):
        pass
    return (time.perf_counter() - wall) / batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000, help="matches per pairing")
    parser.add_argument("--empty", type=int, default=1000, help="empty batches timed")
    args = parser.parse_args()
    total = 3 * args.matches
    rows = []
    base_rate = 0.0
    with dask_cluster(2) as address:
        backends: list[tuple[str, int, Executor]] = [
            ("this process (--workers 1)", 1, InProcess()),
            ("2 local workers (--workers 2)", 2, LocalProcesses(2)),
            ("2-worker local Dask cluster (--cluster)", 2, DaskCluster(address)),
        ]
        for label, workers, executor in backends:
            try:
                time_empty_batches(executor, 20)  # warm up: start the processes
                wall, cpu = time_matches(executor, args.matches)
                overhead = time_empty_batches(executor, args.empty)
            finally:
                executor.close()
            rate = total / wall
            base_rate = base_rate or rate
            rows.append(
                [
                    label,
                    f"{total:,}",
                    f"{wall:.1f}",
                    f"{rate:,.0f}",
                    f"{100 * rate / (workers * base_rate):.0f}%",
                    f"{1000 * overhead:.3f}",
                    f"{cpu:.1f}",
                ]
            )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"kotor vs kotor, kotor1, 3 pairings, batches of 250 matches; "
        f"load average at the end {load:.1f} on {os.cpu_count()} cores"
    )
    print(
        tabulate(
            rows,
            headers=[
                "backend",
                "matches",
                "wall s",
                "matches/s",
                "efficiency",
                "ms per empty batch",
                "parent CPU s",
            ],
            colalign=("left", "right", "right", "right", "right", "right", "right"),
        )
    )


if __name__ == "__main__":
    main()
