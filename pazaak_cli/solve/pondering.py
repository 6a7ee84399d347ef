"""Work ahead for the answer service while the player reads or types.

At the first moves of a match the match answer's cost is its later sets: the match states of
every pair of sub-hands left to both sides, at every score from this one (nearly all of the
least sample's seconds). They do not depend on the card about to be drawn, only on the score,
the advised player's hand and the opponent's possible hands, so they can be solved before the
question comes, as a chess engine thinks on its opponent's time. :func:`ponder` solves them in
the shared solvers the answers read (:func:`~pazaak_cli.solve.match_advice.shared_match_solver`,
and its counterpart against a rule), for the hands the budgeted answer draws first (its least
sample, then on in the draws' order), until every possible hand's are known or it is told to
stop. The values are the ones the answer would have computed itself; its foresight
(:func:`~pazaak_cli.solve.match_advice.match_seconds`) counts them as known, so a budget that
the cold match answer would have overrun now gives the match.

It runs in a background thread (:class:`Ponderer`) while the main thread waits for input, in
one process (:func:`~pazaak_cli.runtime.executors.fork_available` is false off the main
thread). ``stop()`` is checked between hands and a few times a second inside the solvers (their
progress callback); the stop is a :class:`Stopped` raised there, which the solvers treat as
Ctrl-C: what a state half solved read is forgotten, what was solved is kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MatchState
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.match_advice import later_sets_known, match_other_hands, prepare_later_sets
from pazaak_cli.solve.models import Objective
from pazaak_cli.solve.sampling import HandDraws

FIRST_BATCH = 2
"""The hands solved together first: the budgeted answer's least sample
(:data:`~pazaak_cli.solve.budgeted.MIN_HANDS`); each batch after it is twice the one before, up
to :data:`LARGEST_BATCH` (an optimal opponent's later sets share the most when solved
together, in runs where they do not fit at once)."""

LARGEST_BATCH = 32


class Stopped(Exception):
    """The work ahead was told to stop: the player's next line came."""


def ponder(
    state: MatchState,
    seat: int,
    options: SolveOptions,
    seed: str,
    stop: Callable[[], bool],
) -> int:
    """Solve the later sets the match answer to ``seat``'s next decision in ``state`` will read
    (``options``: its opponent model and the prior of the hidden hand; ``seed``: the seed of
    the hands its sample draws), in the order it draws the hands, until all are known or
    ``stop()`` is true. Returns how many of the possible hands have their later sets known (from
    the first of the draws' order, without a gap). A question the match answer refuses (too
    large against a rule) ponders nothing."""
    if state.is_terminal() or not state.sides[seat].hand_known:
        return 0
    options = _match_options(options)
    try:
        possible = match_other_hands(state.sides[1 - seat], options, state.ruleset)
    except PazaakError:
        return 0
    order = HandDraws([ways for _, ways in possible], seed).distinct(len(possible))
    hands = [possible[index][0] for index in order]

    def check(_: int = 0) -> None:
        if stop():
            raise Stopped

    known = 0
    size = FIRST_BATCH
    try:
        while known < len(hands):
            check()
            batch = hands[known : known + size]
            if not later_sets_known(state, seat, options, batch):
                last = known + len(batch) >= len(hands)  # (saved once, at the end)
                prepare_later_sets(state, seat, options, batch, check, save=last)
            known += len(batch)
            size = min(2 * size, LARGEST_BATCH)
    except Stopped:
        pass
    except (PazaakError, MemoryError):
        pass  # (the answer itself says what is wrong, when asked)
    return known


def _match_options(options: SolveOptions) -> SolveOptions:
    """``options`` asking for the match, with no callbacks of the caller's."""
    return SolveOptions(
        opponent_deck=options.opponent_deck,
        opponent_played=options.opponent_played,
        opponent=options.opponent,
        objective=Objective.MATCH,
    )


class Ponderer:
    """One :func:`ponder` at a time in a background thread: :meth:`start` begins it, :meth:`stop`
    ends it and waits (call it before the main thread asks anything of the solvers)."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.known = 0
        """Hands whose later sets the last ponder found known."""
        self.error: BaseException | None = None
        """An unexpected exception the last ponder ended with (it never reaches the caller:
        work ahead must not break the session; the tests read it)."""

    def start(self, state: MatchState, seat: int, options: SolveOptions, seed: str) -> None:
        """Begin pondering ``state`` for ``seat`` (the one before is stopped first)."""
        self.stop()
        self._stop.clear()
        self.error = None

        def run() -> None:
            try:
                self.known = ponder(state, seat, options, seed, self._stop.is_set)
            except BaseException as error:  # (kept for the tests: see error)
                self.error = error

        self._thread = threading.Thread(target=run, name="pazaak-ponder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Tell the ponder to stop, and wait until it has (a fraction of a second)."""
        thread = self._thread
        if thread is None:
            return
        self._stop.set()
        thread.join()
        self._thread = None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the ponder ends by itself (or ``timeout``); whether it has."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()
