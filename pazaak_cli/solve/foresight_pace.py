"""How fast this machine does the match answer's work, against the rates its foresight counts.

The foresight (:func:`~pazaak_cli.solve.match_advice.match_seconds`) counts pairs of sub-hands
at rates measured on one machine on one day; the same machine ran 1.2 to 1.4 times slower on
another (a `--time 20` answer foreseen at 19.0 s took 25.2 s, docs/benchmarks.md). So each
batch of a budgeted match answer that ran whole teaches the foresight its pace: how many times
the counted rates this machine takes, kept as a running average of the batches seen (each
weighing half) for each kind of foresight (:data:`PACE_KINDS`), beside the match values in the
cache directory, so that the next command starts from it. With the cache off it is kept for
the process alone. It never makes an answer wrong: it decides how many hands a budget is given,
which the answer states.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path

from pazaak_cli.solve.match_cache import cache_dir

FORESIGHT_ENV = "PAZAAK_FORESIGHT"
"""``fixed``: the foresights count their measured rates alone, neither this machine's pace nor
the load of other programs (:mod:`pazaak_cli.runtime.cpu_load`): the same question then gets
the same batches on any machine, as the tests and the benchmarks need."""

FORMAT = "pazaak-foresight-pace"
FILE_NAME = "foresight-pace.json"

LEARN_FROM_SECONDS = 2.0
"""A batch foreseen shorter teaches nothing: its forks and first pages weigh too much in it."""

LOWEST, HIGHEST = 0.5, 3.0
"""The pace is kept within these (one batch, stopped or suspended, must not teach a wild one)."""

WEIGHT = 0.5
"""How much the last batch weighs in the pace (of its logarithm)."""


def foresight_fixed() -> bool:
    """Whether the foresights count their measured rates alone (:data:`FORESIGHT_ENV`)."""
    return os.environ.get(FORESIGHT_ENV) == "fixed"


PACE_KINDS = ("plain", "gold", "rule")
"""The foresights that learn a pace apart, their rates being measured apart: an optimal
opponent's with plain cards, with flip cards or Doubles (ten times the pairs' rate, a rough
weight), and the reply to a rule. One kind's misses do not teach another's."""


class ForesightPace:
    """The pace of each kind of foresight, read from its file on first use, and what each batch
    teaches it."""

    def __init__(self) -> None:
        self._paces: dict[str, float] | None = None

    def _path(self) -> Path | None:
        directory = cache_dir()
        return None if directory is None else directory / FILE_NAME

    def pace(self, kind: str = "plain") -> float:
        """How many times the foresight's rates of ``kind`` this machine takes (1 until taught,
        or where the foresight is fixed)."""
        return 1.0 if foresight_fixed() else self._known().get(kind, 1.0)

    def learn(self, kind: str, foreseen: float, took: float) -> None:
        """A batch foreseen at ``foreseen`` seconds (this pace counted) took ``took``."""
        if foreseen < LEARN_FROM_SECONDS or took <= 0.0 or foresight_fixed():
            return
        paces = self._known()
        pace = paces.get(kind, 1.0)
        seen = min(HIGHEST, max(LOWEST, pace * took / foreseen))
        paces[kind] = math.exp(WEIGHT * math.log(seen) + (1.0 - WEIGHT) * math.log(pace))
        self._write(paces)

    def _known(self) -> dict[str, float]:
        """The paces taught, read from the file on first use."""
        if self._paces is None:
            self._paces = self._read()
        return self._paces

    def forget(self) -> None:
        """Read the file again at next use (another process may have taught it)."""
        self._paces = None

    def _read(self) -> dict[str, float]:
        path = self._path()
        if path is None:
            return {}
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            paces = document["paces"] if document.get("format") == FORMAT else {}
            return {
                kind: float(paces[kind])
                for kind in PACE_KINDS
                if kind in paces and LOWEST <= float(paces[kind]) <= HIGHEST
            }
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return {}  # (none yet, or not one of ours: counted as not taught)

    def _write(self, paces: dict[str, float]) -> None:
        path = self._path()
        if path is None:
            return
        with contextlib.suppress(OSError):  # (a cache: the answer stands without it)
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".pace-", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    shown = {kind: round(pace, 4) for kind, pace in sorted(paces.items())}
                    json.dump({"format": FORMAT, "paces": shown}, stream)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise


MATCH_PACE = ForesightPace()
"""The match answer's pace, which :func:`~pazaak_cli.solve.match_advice.match_seconds` reads."""

__all__ = ["FORESIGHT_ENV", "MATCH_PACE", "PACE_KINDS", "ForesightPace", "foresight_fixed"]
