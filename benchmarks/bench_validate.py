"""Time of the whole ``pazaak validate`` command on 1 MiB worst-case deck files (not a test).

    python benchmarks/bench_validate.py              # about 20 s
    python benchmarks/bench_validate.py --runs 5

Each case is a fresh ``python -m pazaak_cli validate FILE`` (interpreter start and imports
included, as a user pays them), timed on the wall clock, best of ``--runs``. Times are also
printed as ratios to ``pazaak validate`` of a normal 10-card deck measured in the same run, so
that runs on machines of different speed compare. The files are the shapes that once took
seconds: a Python step per token, per line, per undecodable byte or per distinct bad token.
Exit status 1 from the command is expected (the decks are invalid).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MIB = 1024 * 1024

CASES: dict[str, Callable[[int], bytes]] = {
    "w1 latin1 '+1 \\xb1'": lambda n: ("+1 \xb1 " * n).encode("latin-1"),
    "w2 one long line": lambda n: " ".join(["+1"] * n).encode(),
    "w3 '+1 +2 x' lines": lambda n: "\n".join(["+1 +2 x"] * n).encode(),
    "short bad lines": lambda n: ("x\n" * n).encode(),
    "short good lines": lambda n: ("+1\n" * n).encode(),
    "distinct bad tokens": lambda n: " ".join(f"x{i}" for i in range(n)).encode(),
    "one long token": lambda n: b"+1 " + b"a" * (3 * n),
    "comment lines": lambda n: ("# comment line\n" * n).encode(),
    "bad ruleset headers": lambda n: ("ruleset: kotor9\n" * n).encode(),
    "unknown headers": lambda n: ("a:\n" * n).encode(),
    "header keys": lambda n: ("name\n" * n).encode(),
    "blanks": lambda n: b" " * (3 * n),
    "new lines": lambda n: b"\n" * (3 * n),
    "CRLF": lambda n: ("+1 +2 x\r\n" * n).encode(),
    "mixed cards": lambda n: ("+1 ±3 F2/4 T 7 +9 ±1/2 D foo\n" * n).encode(),
    "latin1 lines": lambda n: ("+1 \xb1\n" * n).encode("latin-1"),
    "good then bad": lambda n: ("+1 " * n).encode() + b"x",
}


def make(case: Callable[[int], bytes]) -> bytes:
    """The case at just under 1 MiB (the largest file the size guard lets in)."""
    unit = len(case(1000)) / 1000
    return case(int(MIB / unit))[: MIB - 1]


def run(path: str, *extra: str, runs: int) -> float:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pazaak_cli", "validate", *extra, path],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs (3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        normal = os.path.join(folder, "normal.deck")
        Path(normal).write_text("+1 +1 +2 +2 +3 +3 +4 +4 +5 +5\n", encoding="utf-8")
        base = run(normal, runs=args.runs)
        print(f"{'normal 10-card deck':26} {base:6.3f} s   1.0x")
        for name, case in CASES.items():
            path = os.path.join(folder, "case.deck")
            Path(path).write_bytes(make(case))
            took = run(path, runs=args.runs)
            print(f"{name:26} {took:6.3f} s {took / base:5.1f}x")
        took = run(path, "--json", runs=args.runs)
        print(f"{'good then bad, --json':26} {took:6.3f} s {took / base:5.1f}x")


if __name__ == "__main__":
    main()
