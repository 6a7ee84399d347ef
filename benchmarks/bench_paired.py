"""Two versions of the project timed side by side: the way this project compares versions.

The machines are noisy (other work shares them, and their speed drifts by tens of per cent in
an hour), so a figure of one version taken an hour after the other's says little. This runs the
same benchmark command in two versions at once, each pinned to one core, the cores exchanged
every round, and reports each round's pair of figures and their ratio: whatever slows the
machine slows both.

    python benchmarks/bench_paired.py HEAD~1 HEAD --rounds 4 -- \\
        benchmarks/bench_expert_match.py --player match-expert --opponent kotor --matches 50

Each version (a git revision, or ``.`` for the working tree as it is) is exported to a
temporary directory with its C extensions built (``.`` is used in place, built first); the
command runs there with that directory on ``PYTHONPATH`` and ``PAZAAK_SOLVER_PROCESSES=1``.
The figure of a run is the number ``--field`` names in the last JSON object the command prints
(``s_per_match`` for ``bench_expert_match.py``), else its wall time. Results that differ
between the versions (the command's JSON without its timing fields) are reported: a faster
version must give the same answers.

``--alternate`` times a command that uses every core (an answer shared with a forked copy):
the two versions run one after the other, neither pinned, ``PAZAAK_SOLVER_PROCESSES`` as the
caller has it, which goes first exchanged every round; the figure is the wall time, and the
outputs are compared (a benchmark's JSON summary without its timing fields, else the whole
output).

    python benchmarks/bench_paired.py HEAD . --alternate --rounds 10 -- -m pazaak_cli advise \
        --table 5 --hand "+1 +2 +3 +4" --opp-table "" --opp-hand-size 4 \
        --opp-deck kotor1-average --objective match --time 0 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
TIMING_FIELDS = {"s_per_match", "peak_mb", "s", "seconds", "wall", "cpu"}
"""Fields of a command's JSON that are measurements, not results."""


def prepare(revision: str, scratch: Path) -> Path:
    """A directory holding ``revision`` of the project with its C extensions built."""
    if revision == ".":
        tree = ROOT
    else:
        tree = scratch / revision.replace("/", "_").replace("~", "-").replace("^", "-")
        tree.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace", "--force"],
        cwd=tree,
        check=True,
        capture_output=True,
    )
    return tree


def last_json(output: str) -> dict[str, object] | None:
    """The last line of ``output`` that is a JSON object, if any."""
    for line in reversed(output.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                found = json.loads(line)
            except ValueError:
                continue
            if isinstance(found, dict):
                return found
    return None


def start(
    tree: Path, command: list[str], core: int | None, *, one_process: bool = True
) -> subprocess.Popen[str]:
    environment = dict(os.environ, PYTHONPATH=str(tree))
    if one_process:
        environment["PAZAAK_SOLVER_PROCESSES"] = "1"

    def pin() -> None:  # (in the child, before it runs the command)
        if core is not None:
            os.sched_setaffinity(0, {core})

    return subprocess.Popen(
        [sys.executable, *command],
        cwd=tree,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=pin,
    )


def wait(run: subprocess.Popen[str], began: float) -> tuple[str, float]:
    """The output of a run and its wall time since ``began`` (exits on its failure)."""
    output, _ = run.communicate()
    wall = time.perf_counter() - began
    if run.returncode != 0:
        sys.exit(f"the command failed (exit {run.returncode}) in {run.args!r}")
    return output, wall


def figure(output: str, wall: float, field: str) -> tuple[float, dict[str, object] | None]:
    """A run's figure: ``field`` of the JSON it printed last, else its wall time."""
    found = last_json(output)
    value = found.get(field) if found is not None else None
    if isinstance(value, (int, float)):
        return float(value), found
    return wall, found


def results_of(found: dict[str, object] | None) -> dict[str, object] | None:
    if found is None:
        return None
    return {key: value for key, value in found.items() if key not in TIMING_FIELDS}


def alternated(trees: list[Path], command: list[str], *, first: int) -> tuple[float, float, bool]:
    """One round of ``--alternate``: each tree's wall time (tree ``first`` run first) and
    whether their outputs are the same."""
    walls, outputs = [0.0, 0.0], ["", ""]
    for which in (first, 1 - first):
        began = time.perf_counter()
        run = start(trees[which], command, None, one_process=False)
        outputs[which], walls[which] = wait(run, began)
    found = [results_of(last_json(output)) for output in outputs]
    if found[0] is not None and found[1] is not None:  # (a JSON summary: its timings aside)
        return walls[0], walls[1], found[0] == found[1]
    return walls[0], walls[1], outputs[0] == outputs[1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], usage="%(prog)s FIRST [SECOND] [options] -- SCRIPT ..."
    )
    parser.add_argument("first", help="a git revision, or . for the working tree")
    parser.add_argument("second", nargs="?", default=".", help="the same (default: .)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (cores exchanged each)")
    parser.add_argument("--field", default="s_per_match", help="the JSON field to compare")
    parser.add_argument(
        "--alternate",
        action="store_true",
        help="run the versions one after the other on every core (the figure: wall time)",
    )
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if not command:
        parser.error("give the benchmark command after --: SCRIPT ARGS...")
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pair = (cores[0], cores[1]) if len(cores) >= 2 else (None, None)
    scratch = Path(tempfile.mkdtemp(prefix="pazaak-paired-"))
    rows: list[list[object]] = []
    ratios: list[float] = []
    differ = False
    try:
        trees = [prepare(args.first, scratch), prepare(args.second, scratch)]
        for round_ in range(args.rounds):
            order = pair if round_ % 2 == 0 else (pair[1], pair[0])
            if args.alternate:
                a, b, same = alternated(trees, command, first=round_ % 2)
                differ = differ or not same
                ratios.append(b / a)
                rows.append([round_ + 1, "AB" if round_ % 2 == 0 else "BA", a, b, b / a])
                continue
            began = time.perf_counter()
            runs = [start(tree, command, core) for tree, core in zip(trees, order, strict=True)]
            with ThreadPoolExecutor(len(runs)) as pool:  # (both read to their end at once)
                finished = list(pool.map(wait, runs, [began] * len(runs)))
            (a, found_a), (b, found_b) = (
                figure(output, wall, args.field) for output, wall in finished
            )
            differ = differ or results_of(found_a) != results_of(found_b)
            ratios.append(b / a)
            rows.append([round_ + 1, f"{order[0]}/{order[1]}", f"{a:.4g}", f"{b:.4g}", b / a])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    headers = ["round", "cores", args.first, args.second, "ratio"]
    print(tabulate(rows, headers=headers, floatfmt=".3f"))
    print(f"median ratio {args.second} / {args.first}: {statistics.median(ratios):.3f}")
    if differ:
        print("the two versions' results differ (the command's JSON, timings aside)")


if __name__ == "__main__":
    main()
