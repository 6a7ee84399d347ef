"""Benchmark: ``pazaak prepare`` for one deck pair, the whole command, from an empty cache.

Runs ``python -m pazaak_cli prepare`` with ``PAZAAK_CACHE_DIR`` set to a fresh temporary
directory and prints one JSON object: the wall seconds, the peak memory of the command (it and
its forked copies, the largest one), what it reported, and a digest of the cache file it wrote,
so that two versions timed side by side with ``bench_paired.py`` show whether they wrote the
same values (the values are order-free: the same bits however they were grouped).

    python benchmarks/bench_prepare.py
    python benchmarks/bench_prepare.py --ruleset "kotor1/hand-size=3"
    python benchmarks/bench_paired.py HEAD~1 . --rounds 1 -- benchmarks/bench_prepare.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="kotor1")
    parser.add_argument("--deck", default="kotor1-starter")
    parser.add_argument("--opp-deck", default="kotor1-average")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pazaak-prepare-") as cache:
        env = {**os.environ, "PAZAAK_CACHE_DIR": cache, "NO_COLOR": "1"}
        command = [sys.executable, "-m", "pazaak_cli", "prepare", "-r", args.ruleset]
        command += ["--deck", args.deck, "--opp-deck", args.opp_deck, "--json"]
        started = time.monotonic()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            sys.exit(f"prepare failed ({done.returncode}): {done.stdout}{done.stderr}")
        report = json.loads(done.stdout)
        digest = hashlib.sha256()
        for file in sorted(Path(cache).glob("match-*")):
            digest.update(file.read_bytes())
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = {
        "deck": args.deck,
        "opp_deck": args.opp_deck,
        "ruleset": args.ruleset,
        "states": report["states"],
        "solved": report["solved"],
        "values_sha256": digest.hexdigest()[:16],
        "seconds": round(seconds, 1),
        "peak_mb": round(peak_kb / 1024),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
