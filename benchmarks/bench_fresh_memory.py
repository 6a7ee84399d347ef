"""What a page costs the first time it is written, in huge pages and in small ones.

The set answer's memo tables are mapped from the system and written at random; on a virtual
machine whose host takes back the memory the system frees, the first write of a page is dear,
and of a huge page far dearer (docs/benchmarks.md, "fresh memory"). This maps ``--mb`` of
memory in each kind of page, writes each page once (or makes them all in one call with
``MADV_POPULATE_WRITE``, where the system has it), then reads it at random, and prints the
seconds as JSON, one line a kind. Run it in fresh processes some seconds apart: memory this
process freed a moment ago costs less to map again than memory the host has taken back.

    python benchmarks/bench_fresh_memory.py --mb 1024 --pause 8
"""

from __future__ import annotations

import argparse
import json
import mmap
import random
import subprocess
import sys
import time

PAGE = 4096
POPULATE_WRITE = 23
"""Linux's ``MADV_POPULATE_WRITE`` (5.14 and newer): the pages of a range made at once."""


def measure(megabytes: int, huge: bool, at_once: bool) -> dict[str, object]:
    """Map ``megabytes``, make its pages (page by page, or ``at_once``), read it at random."""
    size = megabytes << 20
    # (private, as the cores' tables: a shared anonymous map is the system's shared memory,
    # which huge pages follow other settings for)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory.madvise(mmap.MADV_HUGEPAGE if huge else mmap.MADV_NOHUGEPAGE)
    began = time.perf_counter()
    if at_once:
        memory.madvise(POPULATE_WRITE)
    else:
        for offset in range(0, size, PAGE):
            memory[offset] = 1
    made = time.perf_counter() - began
    picks = random.Random(0)
    offsets = [picks.randrange(size) for _ in range(1_000_000)]
    began = time.perf_counter()
    total = sum(memory[offset] for offset in offsets)
    read = time.perf_counter() - began
    memory.close()
    return {
        "pages": "huge" if huge else "small",
        "made": "at once" if at_once else "page by page",
        "mb": megabytes,
        "seconds": round(made, 3),
        "gb_per_s": round(megabytes / 1024 / made, 2),
        "random_reads_s": round(read, 3),
        "checksum": total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1024, help="memory to map (MB)")
    parser.add_argument("--pause", type=float, default=8.0, help="seconds between processes")
    parser.add_argument("--one", nargs=2, metavar=("HUGE", "AT_ONCE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not hasattr(mmap, "MADV_HUGEPAGE"):
        sys.exit("this system has no huge pages to compare (Linux's MADV_HUGEPAGE)")
    if args.one:
        print(json.dumps(measure(args.mb, args.one[0] == "1", args.one[1] == "1")))
        return
    for huge in ("1", "0"):
        for at_once in ("0", "1"):
            time.sleep(args.pause)
            command = [sys.executable, __file__, "--mb", str(args.mb), "--one", huge, at_once]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            print(done.stdout, end="")


if __name__ == "__main__":
    main()
