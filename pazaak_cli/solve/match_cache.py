"""The match-state values on disk, so that the next ``pazaak advise`` finds the later sets solved.

The value at the start of a set depends only on the ruleset, the score, both hands and who
opens it (and, against a rule, on the rule and the seat advised); one ``pazaak advise``
process solves thousands of them, and the next question of the same match needs most of them
again. They are kept in one file per ruleset (and rule and seat) under the user's cache
directory (``$PAZAAK_CACHE_DIR``, else ``$XDG_CACHE_HOME/pazaak``, else ``~/.cache/pazaak``;
``PAZAAK_CACHE_DIR=off`` turns it off).

It must never make an answer wrong or a command fail:

* the file names the cache format, the solver's :data:`SOLVER_VERSION` (raised whenever what a
  value means changes) and the ruleset; a file that differs in any of them, cannot be read, is
  not valid JSON or holds one value out of place (a score past the match, a hand the ruleset
  would not deal, a probability outside 0..1) is ignored whole, and rewritten by the next save;
* a save first reads the file's values into the solver (what another process added since is
  kept), then writes a temporary file beside it and renames it over the old one: a reader sees
  the old file or the new one, never half of one; of two processes saving at the same moment,
  the values only the first one held may be lost (solved again when next needed);
* a save that fails (a read-only or full disk) is given up silently;
* at most :data:`MAX_ENTRIES` values are written (beyond, the file is left as it is).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.solve.match_solver import MatchKey

_fastmatch: Any = None
with contextlib.suppress(ImportError):  # (the C core's reader of the rows, when it is built)
    from pazaak_cli.solve import _fastmatch  # type: ignore[attr-defined,no-redef]

CACHE_DIR_ENV = "PAZAAK_CACHE_DIR"
"""Where the cache lives (``off``: no cache)."""

FORMAT = "pazaak-match-cache"
SOLVER_VERSION = 1
"""Raised whenever the meaning of a match-state value changes (the model of the later sets, a
rule): every older file is then ignored."""

MAX_ENTRIES = 500_000
"""The most values one file holds (about 40 MB)."""


Interns = tuple[Callable[[Sequence[Card]], int], Callable[[Sequence[Card]], int]]


class CachedSolver(Protocol):
    """What a solver shows the cache: ``MatchSolver`` (against an optimal opponent) and
    ``KotorMatchSolver`` (against a rule)."""

    ruleset: Ruleset

    @property
    def later_deck(self) -> Sequence[int]: ...

    @property
    def cache_kind(self) -> str | None: ...

    def cache_interns(self) -> Interns: ...

    def known_entries(
        self,
    ) -> Iterable[
        tuple[tuple[int, int], tuple[tuple[Card, ...], tuple[Card, ...]], int, float]
    ]: ...

    def add_entries(self, entries: Iterable[tuple[tuple[MatchKey, int], float]]) -> None: ...


def cache_dir() -> Path | None:
    """The cache directory, or None when the cache is off."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override == "off":
        return None
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "pazaak"


def cache_path(rules: Ruleset, kind: str = "") -> Path | None:
    """The file of ``rules``' values (named by a digest of the ruleset and the versions; and of
    ``kind``, the rule and seat, for the values against a rule)."""
    directory = cache_dir()
    if directory is None:
        return None
    named = f"{FORMAT}/{SOLVER_VERSION}/{rules.spec}" + (f"/{kind}" if kind else "")
    digest = hashlib.sha256(named.encode()).hexdigest()
    return directory / f"match-{digest[:20]}.json"


def unwritable(path: Path) -> str | None:
    """Why the cache file ``path`` could not be written (its directory is a file, cannot be
    made or written in), or None: what a long preparation checks before it begins (a save
    that fails is otherwise given up without a word)."""
    directory = path.parent
    if directory.exists() and not directory.is_dir():
        return f"the cache directory {directory} is a file, not a directory"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".probe-"):
            pass
    except OSError as error:
        return f"cannot write in the cache directory {directory}: {error.strerror or error}"
    return None


def _solver_path(solver: CachedSolver) -> Path | None:
    """The file of ``solver``'s values: none for a solver whose later sets are not drawn with a
    full deck's odds (the values the file holds are of that model alone), or against a rule
    the cache does not name."""
    kind = solver.cache_kind
    if tuple(solver.later_deck) != FULL_DECK or kind is None:
        return None
    return cache_path(solver.ruleset, kind)


def load_entries(solver: CachedSolver) -> int:
    """Give ``solver`` the values its ruleset's file holds; how many (0 if none or unreadable)."""
    path = _solver_path(solver)
    if path is None:
        return 0
    # (the collector paused: the hundred thousand tuples made here hold no cycle, and its
    # passes over them, as they pile up, took 0.24 s of a prepared deck pair's 0.39 s read)
    enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            kind = solver.cache_kind or ""
            entries = _checked(document, solver.ruleset, kind, solver.cache_interns())
        except (
            OSError,
            UnicodeError,
            ValueError,
            TypeError,
            KeyError,
            PazaakError,
            RecursionError,
        ):
            return 0  # (unreadable or not ours: ignored, rewritten by the next save)
        solver.add_entries(entries)
    finally:
        if enabled:
            gc.enable()
    return len(entries)


def save_entries(solver: CachedSolver) -> bool:
    """Write ``solver``'s match-state values to its ruleset's file, atomically; whether it did.
    What the file holds that the solver lacks (another process's work since this one read it)
    is read into the solver first, so that a save adds to the file and never drops from it."""
    path = _solver_path(solver)
    if path is None:
        return False
    load_entries(solver)
    # (in the order of the states, not of their solving: the same values, the same bytes)
    rows = sorted(
        [s0, s1, " ".join(map(str, cards0)), " ".join(map(str, cards1)), spec, value]
        for (s0, s1), (cards0, cards1), spec, value in solver.known_entries()
    )
    if len(rows) > MAX_ENTRIES:
        return False
    document: dict[str, Any] = {
        "format": FORMAT,
        "solver": SOLVER_VERSION,
        "ruleset": solver.ruleset.spec,
    }
    if solver.cache_kind:
        document["against"] = solver.cache_kind
    document["entries"] = rows
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".match-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(document, stream, separators=(",", ":"))
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False  # (a cache: the answer stands without it)
    return True


def _checked(
    document: Any, rules: Ruleset, kind: str, interns: Interns
) -> list[tuple[tuple[MatchKey, int], float]]:
    """The entries of a cache document as the solver's ``add_entries`` takes them, their hands
    interned by ``interns`` (each text read once: a file holds a few hundred distinct hands), if
    every one of them is in place (else ValueError: then none is taken). One pass: a prepared
    deck pair's hundred thousand values are read before its first answer."""
    if not isinstance(document, dict):
        raise ValueError("not a cache document")
    if (
        document.get("format"),
        document.get("solver"),
        document.get("ruleset"),
        document.get("against", ""),
    ) != (FORMAT, SOLVER_VERSION, rules.spec, kind):
        raise ValueError("another format, solver, ruleset or opponent")
    rows = document["entries"]
    if not isinstance(rows, list) or len(rows) > MAX_ENTRIES:
        raise ValueError("no list of entries")
    id_tables: tuple[dict[str, int], dict[str, int]] = ({}, {})

    def reader(column: int) -> Callable[[object], int]:
        ids, intern = id_tables[column], interns[column]

        def hand_id(text: object) -> int:
            if not isinstance(text, str):
                raise ValueError("a hand that is not text")
            cards = tuple(parse_cards(text))
            if len(cards) > rules.hand_size:
                raise ValueError("a hand the ruleset does not deal")
            if not all(rules.allows(card) for card in cards):
                raise ValueError("a card the ruleset does not allow")
            found = ids[text] = intern(cards)
            return found

        return hand_id

    hand_ids = (reader(0), reader(1))
    sets = rules.sets_to_win
    if not kind and _fastmatch is not None and not os.environ.get("PAZAAK_PURE_PYTHON"):
        ids, hand_id = id_tables[0], hand_ids[0]  # (one interner for both hands)
        entries: list[tuple[tuple[MatchKey, int], float]] = _fastmatch.cache_entries(
            rows, sets, ids, hand_id
        )
        return entries  # (the loop below, in C: 0.05 s of a prepared pair's read)
    checked = []
    for row in rows:
        s0, s1, hand0, hand1, spec, value = row
        # (a JSON number is an int or a float; true and false are bools, not ints here)
        if type(s0) is not int or type(s1) is not int or type(spec) is not int:
            raise ValueError("a score or opener that is not a whole number")
        if not (0 <= s0 < sets and 0 <= s1 < sets and 0 <= spec <= 2):
            raise ValueError("a score past the match")
        if type(value) is not float or not 0.0 <= value <= 1.0:  # (NaN fails the range)
            raise ValueError("a value that is not a probability")
        h0 = id_tables[0][hand0] if hand0 in id_tables[0] else hand_ids[0](hand0)
        h1 = id_tables[1][hand1] if hand1 in id_tables[1] else hand_ids[1](hand1)
        checked.append((((s0, s1, h0, h1), spec), value))
    return checked


__all__ = ["cache_dir", "cache_path", "load_entries", "save_entries", "unwritable"]
