"""Where batches of work run: in this process, on local worker processes, or on a Dask cluster.

Every backend offers the one operation the simulator and the deck builder need,
:meth:`Executor.map_unordered`: apply a module-level function to a stream of picklable work
items and yield ``(index, result)`` as each finishes, in any order. Two promises hold for all
three backends:

- **Bounded**: at most :attr:`Executor.window` items are in flight at once; the stream is read
  lazily, so memory stays flat however many items it holds (issue 12, item 13).
- **Exactly once**: each index is yielded exactly once. A worker that dies mid-item loses
  nothing: the item is run again (a new local pool, or Dask's retries) and a duplicate result
  for an index already yielded is dropped. Work items are deterministic (seeded), so a rerun
  gives the same result.

Local worker processes end with their parent, whatever ends it (issue 12, item 14): on Linux
the kernel sends them SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``), and on every
system each worker also watches its parent's process id. They ignore SIGINT: Ctrl-C reaches
the parent, which kills its pool.

Dask (``pip install 'pazaak[cluster]'``) is imported only when ``--cluster`` is given.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import logging
import mmap
import os
import pickle
import re
import select
import signal
import socket
import struct
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, Protocol, TypeVar

from pazaak_cli.engine.errors import InputError, PazaakError

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")
ShareT = TypeVar("ShareT")

IN_FLIGHT_PER_WORKER = 2
"""Items kept in flight per worker: one running, one queued behind it, so no worker idles
between two items and nothing more piles up."""

MAX_POOL_RESTARTS = 3
"""A local pool whose worker died is replaced this many times per run before giving up
(a worker that keeps dying is out of memory, not unlucky)."""

PARENT_CHECK_SECONDS = 0.5
"""How often a local worker checks that its parent is still alive."""

CLUSTER_CONNECT_SECONDS = 10.0
"""How long ``--cluster`` waits for the scheduler to answer (and for a first worker)."""

CLUSTER_RETRIES = 3
"""Dask reruns an item whose task raised this many times (a worker lost mid-item is rerun by
the scheduler anyway, up to its own ``allowed-failures``)."""

CLUSTER_EXTRA_HINT = "install the cluster extra: pip install 'pazaak[cluster]' (Dask distributed)"

_PR_SET_PDEATHSIG = 1


class Executor(Protocol):
    """A place where work items run; see the module docstring for the promises."""

    @property
    def window(self) -> int:
        """The most items in flight at once."""
        ...

    @property
    def description(self) -> str:
        """What it is, for reports: ``"1 process"``, ``"2 local workers"``, ``"Dask at ..."``."""
        ...

    def map_unordered(
        self, function: Callable[[ItemT], ResultT], items: Iterable[ItemT]
    ) -> Iterator[tuple[int, ResultT]]:
        """``(index, function(item))`` for every item, as each finishes (any order)."""
        ...

    def close(self) -> None:
        """Stop everything this executor started (idempotent)."""
        ...


class InProcess:
    """Runs each item here, in order: no processes, no pickling (``--workers 1``)."""

    window = 1
    description = "1 process"

    def map_unordered(
        self, function: Callable[[ItemT], ResultT], items: Iterable[ItemT]
    ) -> Iterator[tuple[int, ResultT]]:
        for index, item in enumerate(items):
            yield index, function(item)

    def close(self) -> None:
        pass


class LocalProcesses:
    """A pool of worker processes on this machine that die with their parent."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise PazaakError("the number of workers must be at least 1")
        self.workers = workers
        self.window = IN_FLIGHT_PER_WORKER * workers
        self.description = f"{workers} local worker{'s' if workers > 1 else ''}"
        self._pool: ProcessPoolExecutor | None = None

    def _new_pool(self) -> ProcessPoolExecutor:
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, initializer=_worker_started, initargs=(os.getpid(),)
        )
        return self._pool

    def map_unordered(
        self, function: Callable[[ItemT], ResultT], items: Iterable[ItemT]
    ) -> Iterator[tuple[int, ResultT]]:
        stream = iter(enumerate(items))
        pool = self._pool or self._new_pool()
        in_flight: dict[Future[ResultT], tuple[int, ItemT]] = {}
        again: list[tuple[int, ItemT]] = []  # items to run (again) before the stream's next
        restarts = 0
        try:
            while True:
                broken = False
                while len(in_flight) < self.window:  # refill the window
                    entry = again.pop() if again else next(stream, None)
                    if entry is None:
                        break
                    try:
                        in_flight[pool.submit(function, entry[1])] = entry
                    except BrokenProcessPool:
                        again.append(entry)
                        broken = True
                        break
                if not in_flight and not again:
                    return
                if not broken:
                    done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                    for future in done:
                        entry = in_flight.pop(future)
                        try:
                            result = future.result()
                        except BrokenProcessPool:
                            again.append(entry)
                            broken = True
                            continue
                        yield entry[0], result
                if broken:  # a worker died: a new pool runs what was lost, once more
                    restarts += 1
                    if restarts > MAX_POOL_RESTARTS:
                        raise PazaakError(
                            "a worker process died again and again (out of memory, or "
                            "killed): try fewer --workers"
                        )
                    again.extend(in_flight.values())
                    in_flight = {}
                    self._kill_pool()
                    pool = self._new_pool()
        finally:
            if in_flight:  # stopped early (an error, Ctrl-C): do not wait for the workers
                self._kill_pool()

    def _kill_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        killed = _workers(pool)
        _kill_and_reap(killed)
        pool.shutdown(wait=False, cancel_futures=True)
        # The pool starts workers on demand: one started while the first ones were killed
        # is killed too (else it outlives the pool; seen in CI, twice), until none is new.
        for _ in range(5):
            new = [process for process in _workers(pool) if process not in killed]
            if not new:
                break
            _kill_and_reap(new)
            killed += new

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _workers(pool: Any) -> list[Any]:
    """The worker processes ``pool`` has now."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _kill_and_reap(processes: list[Any]) -> None:
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
    for process in processes:  # reap them: SIGKILL cannot be ignored, this is quick
        with contextlib.suppress(OSError, ValueError, AttributeError, AssertionError):
            process.join(timeout=10)  # (quick, but a loaded machine may take seconds)


def _worker_started(parent: int) -> None:
    """A local worker's first act: end with the parent, leave Ctrl-C to the parent, and solve
    in this one process (the pool already uses the cores)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ[SOLVER_PROCESSES_VARIABLE] = "1"
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    watcher = threading.Thread(target=_watch_parent, args=(parent,), daemon=True)
    watcher.start()


def _watch_parent(parent: int) -> None:
    """End this worker as soon as its parent is gone (a new parent id: it was re-parented)."""
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


class DaskCluster:
    """Work items sent to a running Dask distributed scheduler (``dask scheduler`` plus
    ``dask worker`` processes); the client lives as long as this object."""

    def __init__(
        self,
        address: str,
        *,
        timeout: float = CLUSTER_CONNECT_SECONDS,
        stalled: Callable[[str], None] | None = None,
    ) -> None:
        """``stalled(message)``: told once when the scheduler has had no worker for
        :data:`STALLED_SECONDS` while work is waiting (every worker lost mid-run: the work
        waits for a worker to join)."""
        self.stalled = stalled
        distributed = load_distributed()
        _silence_dask_logging()
        self.address = address
        _check_reachable(address, timeout)
        try:
            self.client: Any = distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise InputError(
                f"--cluster {address}: cannot reach a Dask scheduler there ({_reason(error)})",
                token=address,
            ) from None
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as error:
            self.close()
            raise PazaakError(
                f"--cluster {address}: the scheduler has no worker ({_reason(error)}); "
                f"start some with `dask worker {address} --nthreads 1`",
                token=address,
            ) from None
        self.threads = max(1, sum(self.client.nthreads().values()))
        self.window = IN_FLIGHT_PER_WORKER * self.threads
        self.description = f"Dask at {address} ({self.threads} worker threads)"
        self._distributed = distributed

    def map_unordered(
        self, function: Callable[[ItemT], ResultT], items: Iterable[ItemT]
    ) -> Iterator[tuple[int, ResultT]]:
        distributed = self._distributed
        run = uuid.uuid4().hex[:12]
        stream = enumerate(items)
        index_of: dict[str, int] = {}
        live: dict[str, Any] = {}
        finished: set[int] = set()
        completed = distributed.as_completed(loop=self.client.loop)

        def submit_next() -> None:
            following = next(stream, None)
            if following is None:
                return
            index, item = following
            future = self.client.submit(
                function,
                item,
                key=f"pazaak-{run}-{index}",
                pure=False,
                retries=CLUSTER_RETRIES,
            )
            index_of[future.key] = index
            live[future.key] = future
            completed.add(future)

        for _ in range(self.window):
            submit_next()
        try:
            for future in self._as_completed(completed):
                index = index_of.pop(future.key)
                live.pop(future.key, None)
                try:
                    result = future.result()
                except (distributed.KilledWorker, distributed.CancelledError, OSError) as error:
                    raise PazaakError(
                        f"the Dask cluster at {self.address} lost work item {index} "
                        f"({_reason(error)})"
                    ) from None
                future.release()
                if index not in finished:  # keyed by index: never counted twice
                    finished.add(index)
                    yield index, result
                submit_next()
        finally:
            if live:  # stopped early: the cluster forgets the rest
                with contextlib.suppress(Exception):
                    self.client.cancel(list(live.values()))

    def _as_completed(self, completed: Any) -> Iterator[Any]:
        """The futures of ``completed`` as they finish. While none does, the scheduler's
        workers are counted every :data:`STALL_CHECK_SECONDS`, and ``stalled`` is told once
        they have been none for :data:`STALLED_SECONDS` (a worker that joins takes the work on:
        nothing is given up)."""
        checked = time.monotonic()
        idle_since: float | None = None  # (when the scheduler was first seen without a worker)
        told = False
        while not completed.is_empty():
            if completed.has_ready():
                yield from completed.next_batch(block=False)
                continue
            time.sleep(STALL_POLL_SECONDS)
            now = time.monotonic()
            if now - checked < STALL_CHECK_SECONDS:
                continue
            checked = now
            if self.client.scheduler_info().get("workers"):
                idle_since = None
                continue
            idle_since = now if idle_since is None else idle_since
            if now - idle_since >= STALLED_SECONDS and not told and self.stalled is not None:
                self.stalled(
                    f"Waiting: the scheduler at {self.address} has no worker left; start one "
                    f"with `dask worker {self.address} --nthreads 1` (the work goes on), or "
                    "press Ctrl-C to stop."
                )
                told = True

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
            self.client = None


STALL_POLL_SECONDS = 0.02
"""How often a cluster run looks for finished work."""

STALL_CHECK_SECONDS = 2.0
"""How often a cluster run with no work finishing counts the scheduler's workers."""

STALLED_SECONDS = 10.0
"""How long a scheduler may have no worker, work waiting, before the run says so (as long as
a new run waits for its first worker)."""


_ADDRESS = re.compile(
    r"(?:(?P<scheme>[a-z][a-z0-9+.-]*)://)?(?P<host>\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):(?P<port>[0-9]{1,5})"
)


def _check_reachable(address: str, timeout: float) -> None:
    """Refuse at once an address that is not ``[tcp://]HOST:PORT`` or where nothing listens
    (Dask itself would retry until its timeout, then leave a half-made client behind)."""
    match = _ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise InputError(
            f"--cluster {address!r}: not a scheduler address; write tcp://HOST:PORT, "
            "e.g. tcp://127.0.0.1:8786",
            token=address,
        )
    if (match["scheme"] or "tcp") != "tcp":
        raise InputError(
            f"--cluster {address}: only tcp:// addresses are supported, not {match['scheme']}://",
            token=address,
        )
    host = match["host"].strip("[]")
    wait = min(timeout, SCHEDULER_PROBE_SECONDS)
    try:
        with socket.create_connection((host, int(match["port"])), timeout=wait) as probe:
            greeting = _first_bytes(probe, DASK_GREETING_BYTES, wait)
    except OSError as error:
        raise InputError(
            f"--cluster {address}: cannot reach a Dask scheduler there ({_reason(error)})",
            token=address,
        ) from None
    if not _dask_greeting(greeting):  # (a web server, a proxy, a silent listener: Dask's
        # client would wait on it for ever, or read its bytes as a message's length)
        raise InputError(
            f"--cluster {address}: something listens there, but it does not answer as a Dask "
            f"scheduler does within {wait:g} s (a dashboard's or another server's port?)",
            token=address,
        )


SCHEDULER_PROBE_SECONDS = 5.0
"""How long an address may take to connect and to greet as a Dask scheduler does."""

DASK_GREETING_BYTES = 16
"""What :func:`_dask_greeting` reads of a scheduler's first message."""


def _first_bytes(connection: socket.socket, count: int, seconds: float) -> bytes:
    """Up to ``count`` bytes the peer sends first, within ``seconds`` (fewer if it stops or
    closes)."""
    deadline = time.monotonic() + seconds
    data = b""
    while len(data) < count:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        connection.settimeout(left)
        try:
            chunk = connection.recv(count - len(data))
        except TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data


def _dask_greeting(data: bytes) -> bool:
    """Whether ``data`` begins as a Dask scheduler's first message over TCP does: its length in
    bytes and its number of frames, each 8 bytes little-endian, both small (its handshake,
    sent as soon as a client connects)."""
    if len(data) < DASK_GREETING_BYTES:
        return False
    length = int.from_bytes(data[:8], "little")
    frames = int.from_bytes(data[8:16], "little")
    return 0 < length < 1 << 24 and 0 < frames < 1 << 10


def _silence_dask_logging() -> None:
    """Keep Dask's own logging (a lost scheduler is logged with a traceback) off the user's
    terminal: the command says what went wrong in one sentence. Dask's configuration gives
    some of its loggers, such as ``distributed.client``, a level of their own, so the parent's
    level is not enough."""
    for name in [*logging.root.manager.loggerDict, "distributed", "tornado", "asyncio"]:
        if name.partition(".")[0] in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def load_distributed() -> Any:
    """The ``distributed`` module, or an :class:`InputError` (exit 2) saying to install it."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InputError(f"--cluster needs Dask distributed: {CLUSTER_EXTRA_HINT}") from None


def make_executor(
    workers: int, cluster: str | None = None, stalled: Callable[[str], None] | None = None
) -> Executor:
    """The executor the options ask for: a Dask cluster (``stalled``: see
    :class:`DaskCluster`), else ``workers`` local processes (one: this process)."""
    if cluster is not None:
        return DaskCluster(cluster, stalled=stalled)
    if workers <= 1:
        return InProcess()
    return LocalProcesses(workers)


INTERRUPT_SIGNAL = getattr(signal, "SIGUSR1", signal.SIGINT)  # (no fork without it)
"""The signal by which a forked child is told of a Ctrl-C (it ignores SIGINT itself: a Ctrl-C
at the terminal reaches every process of the group, and only the parent decides)."""


class WorkerLost(Exception):
    """A forked child ended without an answer (killed, out of memory)."""


def fork_available() -> bool:
    """Whether :class:`ForkedCall` can run here: a system with ``fork``, called from the main
    thread (a fork copies only the thread that calls it, and the locks others hold: work done
    ahead in a background thread, :mod:`pazaak_cli.solve.pondering`, stays in its process)."""
    return hasattr(os, "fork") and threading.current_thread() is threading.main_thread()


WAITING_SECONDS = 0.5
"""How often a process waiting for a forked child's answer is told it still waits
(:meth:`ForkedCall.result`)."""


class ForkedCall:
    """``function()`` run in a forked child of this process, its result (or the exception it
    raised) sent back pickled through a pipe: for work on state this process holds (a solver's
    tables), which a fork shares for free and a pool would have to rebuild. The child ends
    with its parent and leaves Ctrl-C to it, as the pool's workers do; the parent can pass a
    Ctrl-C on (:meth:`interrupt`). It never returns into the caller's code (``os._exit``), so
    nothing the parent buffered or registered runs twice.
    """

    def __init__(self, function: Callable[[], Any]) -> None:
        parent = os.getpid()
        read, write = os.pipe()
        # Ctrl-C waits until the fork is done: raised in the handlers Python runs after a fork
        # (the logging module's), it would be printed and lost, and the solve would go on
        # (and an interrupt() until the child has its handler: SIGUSR1 would end it)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, INTERRUPT_SIGNAL})
        # the objects held now are the child's to read, not to collect: frozen there, its
        # collector never walks them (a walk writes to every object it visits, and each page
        # written is copied); here they stay collectable (unless the program froze its own)
        freezing = gc.get_freeze_count() == 0
        if freezing:
            gc.freeze()
        try:
            pid = os.fork()
        except OSError:
            if freezing:
                gc.unfreeze()
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            os.close(read)
            os.close(write)
            raise
        if pid != 0 and freezing:
            gc.unfreeze()
        if pid == 0:  # pragma: no cover - the child's side (its coverage is not collected)
            os.close(read)
            status = 1
            try:
                _worker_started(parent)  # (ignores Ctrl-C: one pending is dropped)
                signal.signal(INTERRUPT_SIGNAL, signal.default_int_handler)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                try:
                    outcome = (True, function())
                except Exception as error:  # (sent back: the parent raises it)
                    outcome = (False, error)
                signal.signal(INTERRUPT_SIGNAL, signal.SIG_IGN)  # (too late: it goes back whole)
                payload = pickle.dumps(outcome)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        self.pid: int | None = pid
        self._read: int | None = read
        self._payload = bytearray()
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a Ctrl-C pending is raised here)
        except BaseException:
            self.stop()
            raise

    def result(self, waiting: Callable[[], None] | None = None) -> Any:
        """Wait for the child: its function's result, or the exception it raised, raised here
        (:class:`WorkerLost` if it died without a word); ``waiting()`` every
        :data:`WAITING_SECONDS` meanwhile (a progress bar kept moving). A Ctrl-C here while it
        waits loses nothing: asked again, it goes on reading where it was."""
        assert self._read is not None, "result() is asked until it answers"
        while True:
            if waiting is not None and not select.select([self._read], [], [], WAITING_SECONDS)[0]:
                waiting()
                continue
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                break
            self._payload += chunk
        os.close(self._read)
        self._read = None
        self._reap()
        try:
            ok, value = pickle.loads(self._payload)
        except Exception as error:
            raise WorkerLost("a worker process ended without an answer") from error
        if not ok:
            raise value
        return value

    def interrupt(self) -> None:
        """Pass a Ctrl-C on to the child: its function sees a :class:`KeyboardInterrupt` where
        a Ctrl-C would have raised one (in a search, at its next check), and may still answer
        (the work done so far); if it ends without one, :meth:`result` says so."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, INTERRUPT_SIGNAL)

    def stop(self) -> None:
        """End the child now if it is still running (after an error or Ctrl-C here)."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()
        if self._read is not None:
            with contextlib.suppress(OSError):
                os.close(self._read)
            self._read = None

    def _reap(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None


def run_shared(
    shares: Sequence[ShareT],
    here: Callable[[ShareT], ResultT],
    there: Callable[[ShareT], ResultT],
    *,
    stopped: Callable[[ResultT], bool] | None = None,
    given_up: Callable[[ShareT], ResultT] | None = None,
    waiting: Callable[[], None] | None = None,
) -> list[ResultT]:
    """``here(shares[0])`` in this process while ``there(share)`` runs for every other share in
    a forked child (:class:`ForkedCall`), all at once; the results in the shares' order. A
    child that cannot be forked (no memory, a process limit) or dies without an answer has its
    share run ``here`` after all; an exception raised in one is raised here, and the other
    children are ended.

    Work that answers a Ctrl-C with what it did so far says how its result shows one
    (``stopped``) and what a share given up is worth (``given_up``): a Ctrl-C that stopped
    ``here``, or came while this process waits, is then passed on to the children
    (:meth:`ForkedCall.interrupt`), which answer at their next check instead of ending the work
    under way (a hand's search takes up to a minute); a child lost after it is
    ``given_up(share)``, not solved here. A second Ctrl-C, or one while waiting without
    ``stopped``, is raised and the children are ended. ``waiting()``: called every
    :data:`WAITING_SECONDS` while this process waits for a child."""
    children: list[ForkedCall | None] = []
    interrupted = False

    def interrupt_all() -> None:
        nonlocal interrupted
        interrupted = True
        for child in children:
            if child is not None:
                child.interrupt()

    def answer_of(child: ForkedCall) -> ResultT:
        while True:
            try:
                return child.result(waiting)  # type: ignore[no-any-return]
            except KeyboardInterrupt:
                if stopped is None or interrupted:  # (asked twice: the user will not wait)
                    raise
                interrupt_all()

    try:
        for share in shares[1:]:
            try:
                children.append(ForkedCall(partial(there, share)))
            except OSError:
                children.append(None)
        results = [here(shares[0])]
        if stopped is not None and stopped(results[0]):
            interrupt_all()
        for child, share in zip(children, shares[1:], strict=True):
            try:
                if child is None:
                    raise WorkerLost("not forked")
                results.append(answer_of(child))
            except WorkerLost:  # (killed, out of memory: this process does it)
                if interrupted and given_up is not None:
                    results.append(given_up(share))
                else:
                    results.append(here(share))
        return results
    finally:
        for child in children:
            if child is not None:
                child.stop()


class SharedDeal:
    """Numbers 0 to ``count`` - 1 dealt one at a time to this process and its forked copies,
    each number once, in order: the next piece of work goes to whichever process is free
    first (a slow piece in one does not hold back the others). A pipe holds them; a read of a
    few bytes from a pipe is atomic, and a process that dies takes nothing with it but the
    number it held. At most :data:`SHARED_DEAL_MOST` numbers (what a pipe holds at once)."""

    def __init__(self, count: int) -> None:
        count = min(count, SHARED_DEAL_MOST)
        read, write = os.pipe()
        try:
            os.write(write, b"".join(number.to_bytes(4, "little") for number in range(count)))
        finally:
            os.close(write)  # (an empty pipe then reads as its end: no more numbers)
        self._read: int | None = read

    def take(self) -> int | None:
        """The next number, or ``None`` when all are dealt."""
        if self._read is None:
            return None
        data = os.read(self._read, 4)
        return int.from_bytes(data, "little") if len(data) == 4 else None

    def drain(self) -> None:
        """Take every number left, so that no process takes another (after a Ctrl-C: the
        copies finish the piece they hold and stop, instead of dealing out the rest)."""
        if self._read is None:
            return
        while os.read(self._read, 4 * 1024):
            pass

    def close(self) -> None:
        if self._read is not None:
            os.close(self._read)
            self._read = None


SHARED_DEAL_MOST = 16_384
"""The most numbers a :class:`SharedDeal` holds: 64 KiB, a Linux pipe's buffer."""


class SharedTally:
    """How many pieces of work this process's forked copies have finished so far, as they
    finish them (a progress line counts every process's, not only this one's): a copy writes a
    byte to a pipe for each (:meth:`add`), this process reads what is there without waiting
    (:meth:`count`). Counts up to a pipe's buffer unread (:data:`SHARED_DEAL_MOST`) at a time;
    past that a copy would wait for the next :meth:`count`."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        self._count = 0

    def add(self) -> None:
        """One more piece finished (in a copy; never fails it: a count is only shown)."""
        with contextlib.suppress(OSError):
            os.write(self._write, b"\x01")

    def count(self) -> int:
        """The pieces the copies have finished so far."""
        with contextlib.suppress(BlockingIOError):
            while data := os.read(self._read, 4096):
                self._count += len(data)
        return self._count

    def close(self) -> None:
        for end in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(end)


class TwoEnds:
    """Numbers ``first`` to ``end`` - 1 taken from both ends, the front by one process and the
    back by another (one forked from the other), until they meet: unlike :class:`SharedDeal`,
    each process goes through neighbouring numbers, and neither waits for a share fixed
    before the work's costs are known. Each process writes only its own end, in memory both
    share (an aligned 8-byte store, whole on the machines Python forks on), and reads the
    other's before it takes a number; where both take the number they meet on, both do it
    (the work must not mind: a pure function of the number). Made before the fork."""

    def __init__(self, first: int, end: int) -> None:
        self._shared = mmap.mmap(-1, 16)
        self._end = end
        self._set(0, first - 1)
        self._set(1, end)

    def _get(self, at: int) -> int:
        return int(struct.unpack_from("q", self._shared, 8 * at)[0])

    def _set(self, at: int, number: int) -> None:
        struct.pack_into("q", self._shared, 8 * at, number)

    def take_front(self) -> int | None:
        """The next number from the front, or ``None`` once the back has taken it."""
        number = self._get(0) + 1
        if number >= self._get(1):
            return None
        self._set(0, number)
        return number

    def take_back(self) -> int | None:
        """The next number from the back, or ``None`` once the front has taken it."""
        number = self._get(1) - 1
        if number <= self._get(0):
            return None
        self._set(1, number)
        return number

    def taken(self) -> int:
        """How many numbers both ends have taken (the one each is on counted)."""
        return self._get(0) + 1 + self._end - self._get(1)

    def back_lost(self) -> None:
        """The back's process died with its numbers: the back starts again from the end."""
        self._set(1, self._end)


def run_from_both_ends(
    first: int,
    end: int,
    solve: Callable[[int], ResultT],
    *,
    progress: Callable[[int, int], None] | None = None,
    in_copy: Callable[[], None] | None = None,
) -> list[ResultT]:
    """``solve(number)`` for every number from ``first`` to ``end`` - 1, in two processes: this
    one takes them from the front, a forked copy from the back, until they meet
    (:class:`TwoEnds`); the results in the numbers' order. Where the work's costs are not known
    before it is done, neither process waits long for the other, and each goes through
    neighbouring numbers (what a solver's memo shares most). ``solve`` must be a pure function of
    the number (the one they meet on may be solved twice). A copy lost midway: every number past
    this process's is solved here. ``progress(numbers taken, all)``: told here, after each;
    ``in_copy()``: called first in the copy (to silence it)."""
    ends = TwoEnds(first, end)
    count = end - first

    def run(take: Callable[[], int | None], shown: bool) -> dict[int, ResultT]:
        done: dict[int, ResultT] = {}
        while (number := take()) is not None:
            done[number] = solve(number)
            if shown and progress is not None:
                progress(min(ends.taken() - first, count), count)
        return done

    def here(which: str) -> dict[int, ResultT]:
        if which == "front":
            return run(ends.take_front, True)
        ends.back_lost()
        return run(ends.take_back, True)

    def there(_: str) -> dict[int, ResultT]:
        if in_copy is not None:
            in_copy()
        return run(ends.take_back, False)

    front, back = run_shared(["front", "back"], here, there)
    solved = {**back, **front}
    return [solved[number] for number in range(first, end)]


def resident_bytes() -> int:
    """This process's resident memory in bytes (0 where the system does not say: Linux's
    ``/proc`` only)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


SOLVER_PROCESSES_VARIABLE = "PAZAAK_SOLVER_PROCESSES"
"""How many processes one exact solve may use (default: the cores available; 1: no more than
its own). A pool's workers set it to 1."""


def solver_processes() -> int:
    """The processes one exact solve may use (``$PAZAAK_SOLVER_PROCESSES``, else the cores
    available); one off the main thread (see :func:`fork_available`)."""
    if threading.current_thread() is not threading.main_thread():
        return 1
    text = os.environ.get(SOLVER_PROCESSES_VARIABLE, "").strip()
    if text.isdigit() and int(text) >= 1:
        return int(text)
    return available_cores()


def two_solver_processes() -> bool:
    """Whether an exact solve may share its work with a forked copy here: a fork, and two
    processes allowed (:func:`solver_processes`)."""
    return fork_available() and solver_processes() >= 2


def available_cores() -> int:
    """The processor cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and isinstance(error.strerror, str) and error.strerror:
        return error.strerror.lower()
    text = str(error).strip().splitlines()
    return text[0] if text and text[0] else type(error).__name__
