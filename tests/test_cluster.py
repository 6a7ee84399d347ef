"""A real local Dask cluster (``dask scheduler`` and two ``dask worker`` processes on
127.0.0.1): the same numbers as a local run, and a worker killed mid-run loses nothing."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.rules import KOTOR1, parse_ruleset
from pazaak_cli.runtime.executors import DaskCluster
from pazaak_cli.solve.deck_pair_prepare import prepare_deck_pair
from pazaak_cli.solve.match_advice import clear_shared_solvers, shared_match_solver
from pazaak_cli.tools.deckbuild import Opponent, build_deck, pool_from_cards
from pazaak_cli.tools.simulate import Entrant, Pairing, simulate

distributed = pytest.importorskip("distributed")

DASK = [sys.executable, "-m", "dask"]
"""The Dask command line of this interpreter: the scheduler and the workers import the package
under test, whatever `dask` the caller's PATH finds first."""


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]
    logs: Path


PR_SET_PDEATHSIG = 1

TEST_DEADLINE_SECONDS = 240
"""A cluster test still running after this long is stuck (each takes seconds): an alarm
fails it where it waits, with the scheduler's state and the processes' logs, so a hang fails
the run instead of blocking it."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """In the child before exec: the kernel kills it when the pytest process ends, however it
    ends (an interrupted run, ``-x`` under xdist), so no scheduler outlives the tests."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _start(logs: Path, name: str, *args: str) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    with open(logs / f"{name}.log", "wb") as log:
        return subprocess.Popen(
            [*DASK, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


@contextlib.contextmanager
def running_cluster(logs: Path, workers: int = 2) -> Iterator[Cluster]:
    """A scheduler and ``workers`` one-thread workers on 127.0.0.1, stopped on leaving; their
    output goes to ``logs``."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _start(
        logs, "scheduler", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"
    )
    processes = [scheduler]
    try:
        started = [
            _start(
                logs,
                f"w{number}",
                "worker",
                address,
                "--host",
                "127.0.0.1",
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--name",
                f"w{number}",
            )
            for number in range(1, workers + 1)
        ]
        processes += started
        deadline = time.monotonic() + 90
        while True:
            try:
                with distributed.Client(address, timeout=5) as client:
                    if workers:
                        client.wait_for_workers(workers, timeout=60)
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield Cluster(address, scheduler, started, logs)
    finally:
        # the workers are killed: one told to stop while its scheduler stops too waits seconds
        # for it to come back (a teardown had taken 20 s, 10 for each worker); then the
        # scheduler is told to stop
        for process in reversed(processes):
            stop = signal.SIGTERM if process is scheduler else signal.SIGKILL
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, stop)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with running_cluster(tmp_path_factory.mktemp("dask-logs")) as started:
        yield started


def _stuck(test: str, cluster: Cluster | None) -> str:
    """What a stuck cluster test was waiting on: the scheduler's state and the logs' tails."""
    lines = [f"{test}: still running after {TEST_DEADLINE_SECONDS} s"]
    if cluster is not None:
        lines.append(f"scheduler exit status: {cluster.scheduler.poll()}")
        for log in sorted(cluster.logs.glob("*.log")):
            lines.append(f"--- {log.name} (last 40 lines)")
            lines += log.read_text(errors="replace").splitlines()[-40:]
    return "\n".join(lines)


@pytest.fixture(autouse=True)
def deadline(request: pytest.FixtureRequest) -> Iterator[None]:
    """SIGALRM after TEST_DEADLINE_SECONDS: the handler raises in the test's own (main)
    thread, which breaks any wait it is blocked in."""
    cluster = request.getfixturevalue("cluster") if "cluster" in request.fixturenames else None

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(_stuck(request.node.nodeid, cluster))

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TEST_DEADLINE_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def entrant(policy: str, deck: str) -> Entrant:
    side = load_deck(deck, KOTOR1)
    return Entrant(policy, side.name, side.cards)


PAIRINGS = [
    Pairing(entrant("kotor", "kotor1-starter"), entrant("kotor", "kotor1-strongest")),
    Pairing(entrant("random", "kotor1-average"), entrant("heuristic", "kotor1-strong")),
]


def test_simulate_on_the_cluster_gives_the_local_numbers(cluster: Cluster) -> None:
    local = simulate(KOTOR1, PAIRINGS, matches=200, seed=3, swap=True)
    executor = DaskCluster(cluster.address)
    try:
        remote = simulate(KOTOR1, PAIRINGS, matches=200, seed=3, swap=True, executor=executor)
    finally:
        executor.close()
    assert [r.tally for r in remote] == [r.tally for r in local]


def test_deckbuild_on_the_cluster_gives_the_local_answer(cluster: Cluster) -> None:
    small = parse_ruleset("kotor1/side-deck-size=4,hand-size=4,sets-to-win=1")
    pool = pool_from_cards(parse_cards("±1 ±2 ±3 ±4 +1 +1 -1 -1"), "test")
    field = (Opponent("plain", tuple(sorted(parse_cards("+3 -3 +4 -4")))),)
    local = build_deck(small, pool, field, player="kotor", budget=1500, seed=2)
    executor = DaskCluster(cluster.address)
    try:
        remote = build_deck(
            small, pool, field, player="kotor", budget=1500, seed=2, executor=executor
        )
    finally:
        executor.close()
    assert [(s.deck, s.tallies) for s in remote.best] == [(s.deck, s.tallies) for s in local.best]
    assert (remote.candidates_tried, remote.matches_played) == (
        local.candidates_tried,
        local.matches_played,
    )


def test_a_worker_killed_mid_run_loses_nothing(cluster: Cluster) -> None:
    """SIGKILL one of the two workers when the first batch comes back: the scheduler reruns
    its batches on the other, and every count is what a local run gives (none twice)."""
    local = simulate(KOTOR1, PAIRINGS[:1], matches=1500, seed=9)
    victim = cluster.workers[0]
    executor = DaskCluster(cluster.address)
    assert executor.threads == 2
    killed: list[int] = []

    def kill_a_worker(_: int) -> None:
        if not killed:
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(victim.pid)

    try:
        remote = simulate(
            KOTOR1, PAIRINGS[:1], matches=1500, seed=9, executor=executor, progress=kill_a_worker
        )
        workers_left = len(executor.client.nthreads())
    finally:
        executor.close()
    assert killed and victim.wait(timeout=10) == -signal.SIGKILL
    assert workers_left == 1
    assert remote[0].tally == local[0].tally
    assert remote[0].tally.matches == 1500


def test_pazaak_prepare_cluster_writes_the_local_cache_file(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command with --cluster: the same JSON report and the same cache file, byte for
    byte, as without."""
    arguments = ["prepare", "-r", "kotor1/hand-size=1", "--deck", "kotor1-starter"]
    arguments += ["--opp-deck", "kotor1-average", "--json"]
    reports, files = [], []
    for place, extra in (("local", []), ("cluster", ["--cluster", cluster.address])):
        monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / place))
        clear_shared_solvers()
        result = CliRunner().invoke(main, arguments + extra)
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        del report["seconds"], report["cache"]
        reports.append(report)
        files.append(next((tmp_path / place).glob("match-*.json")).read_bytes())
    clear_shared_solvers()
    assert reports[0] == reports[1] and reports[0]["solved"] == reports[0]["states"] > 0
    assert files[0] == files[1]


def test_prepare_on_the_cluster_gives_the_local_bits_with_a_worker_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """prepare's tasks on two workers, one SIGKILLed when the first task comes back:
    every match-state value equal, bit for bit, to the local run's (and the cache file's
    bytes too)."""
    rules = parse_ruleset("kotor1/hand-size=2")
    mine = parse_cards("+1 +1 +1 +1 +2 +2 +2 +3 +3 +3")
    theirs = parse_cards("-1 -1 -1 -1 +4 +4 +4 -2 -2 -2")
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / "local"))
    clear_shared_solvers()
    prepare_deck_pair(rules, mine, theirs)
    local = {(s, h, p): v for s, h, p, v in shared_match_solver(rules).known_entries()}
    clear_shared_solvers()
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / "cluster"))
    with running_cluster(tmp_path, workers=2) as own:
        victim = own.workers[0]
        executor = DaskCluster(own.address)
        killed: list[int] = []

        def kill_a_worker(done: int, total: int) -> None:
            if not killed:
                os.kill(victim.pid, signal.SIGKILL)
                killed.append(done)

        try:
            prepared = prepare_deck_pair(
                rules, mine, theirs, progress=kill_a_worker, executor=executor
            )
        finally:
            executor.close()
        assert killed and victim.wait(timeout=10) == -signal.SIGKILL
    remote = {(s, h, p): v for s, h, p, v in shared_match_solver(rules).known_entries()}
    clear_shared_solvers()
    assert prepared.solved == len(local) == 900
    assert remote == local
    (file,) = (tmp_path / "cluster").glob("match-*.json")
    assert file.read_bytes() == next((tmp_path / "local").glob("match-*.json")).read_bytes()


def test_a_scheduler_lost_mid_run_is_one_sentence_and_exit_1(tmp_path: Path) -> None:
    """The scheduler killed while `pazaak simulate --cluster` waits on it: the command says so
    in one line (no Dask traceback on the terminal) and exits 1."""
    with running_cluster(tmp_path, workers=1) as own:
        command = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pazaak_cli",
                "simulate",
                "--cluster",
                own.address,
                "--p1",
                "expert",
                "--p2",
                "kotor",
                "--matches",
                "400",
                "--seed",
                "1",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "NO_COLOR": "1"},
        )
        with distributed.Client(own.address, timeout=10) as watcher:
            deadline = time.monotonic() + 60
            while not any(watcher.processing().values()):  # the command's batches are running
                assert time.monotonic() < deadline and command.poll() is None
                time.sleep(0.2)
        os.killpg(own.scheduler.pid, signal.SIGKILL)
        _, err = command.communicate(timeout=120)
    assert command.returncode == 1, err
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1, err
    assert own.address in lines[0] and "lost" in lines[0]


def test_a_scheduler_without_workers_is_one_sentence(tmp_path: Path) -> None:
    """(The message had failed on Dask's timeout error, whose strerror is a number: a
    traceback, exit 1, nothing for --json.)"""
    with running_cluster(tmp_path, workers=0) as empty, pytest.raises(PazaakError) as refused:
        DaskCluster(empty.address, timeout=1.0)
    message = str(refused.value)
    assert message.startswith(f"--cluster {empty.address}: the scheduler has no worker (")
    assert message.endswith(f"start some with `dask worker {empty.address} --nthreads 1`")


def test_a_run_whose_workers_are_all_lost_says_it_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker lost mid-run: the work waits for one to join, and the run says so once."""
    from pazaak_cli.runtime import executors

    monkeypatch.setattr(executors, "STALL_CHECK_SECONDS", 0.0)
    monkeypatch.setattr(executors, "STALLED_SECONDS", 0.05)

    class Waiting:  # (as_completed with one future that never finishes, until told)
        def __init__(self) -> None:
            self.polls = 0

        def is_empty(self) -> bool:
            return self.polls > 40

        def has_ready(self) -> bool:
            self.polls += 1
            return False

    class NoWorkers:
        def scheduler_info(self) -> dict[str, Any]:
            return {"workers": {}}

    said: list[str] = []
    stalled = DaskCluster.__new__(DaskCluster)
    stalled.address, stalled.client, stalled.stalled = "tcp://h:1", NoWorkers(), said.append
    assert list(stalled._as_completed(Waiting())) == []
    assert said == [
        "Waiting: the scheduler at tcp://h:1 has no worker left; start one with `dask worker "
        "tcp://h:1 --nthreads 1` (the work goes on), or press Ctrl-C to stop."
    ]
