"""The hint of ``pazaak play``: the answer service asked at a seat's decision, as the seat sees
the match (the other hand hidden, averaged over the deck it was dealt from), against the model
of the seat it faces, rendered as the table of moves.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Protocol

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.answers import AnswerRequest, answer
from pazaak_cli.solve.budgeted import (
    DEFAULT_SEED,
    PLAY_ASKS,
    Asks,
    Refinement,
    prepare_line,
    sample_word,
)
from pazaak_cli.solve.models import Objective, model_of_player
from pazaak_cli.solve.time_budget import TimeBudget
from pazaak_cli.terminal.advice_table import render_advice
from pazaak_cli.terminal.text import wrap_lines
from pazaak_cli.tools.session import MatchSession


class HintProgress(Protocol):
    """Told the possible hands solved of all, and within a budget the seconds left."""

    def __call__(self, done: int, total: int, left: float | None = None) -> None: ...


def hint_text(
    session: MatchSession,
    seat: int,
    progress: HintProgress | None = None,
    positions: Callable[[int], None] | None = None,
    objective: str | None = None,
    *,
    seconds: float | None = None,
    refinements: dict[tuple[str, int], Refinement] | None = None,
) -> str:
    """The solver's table of moves for ``seat``, as ``pazaak advise`` shows it: the other hand
    is hidden, so it is averaged over the hands its side deck can have dealt (less the cards it
    played in earlier sets). The probability of winning the match when that answer is quick
    (few cards left, or the later sets solved before) or ``objective`` is ``"match"``, else the
    set's (the table's columns and model line say which): against the KOTOR I computer the best
    reply to its rule (over the match, the rule playing every set), against anyone else both
    playing for the match (with ``objective`` ``"match"`` against the KOTOR I computer, an
    optimal opponent where the rule's match answer is out of reach: see
    :func:`~pazaak_cli.solve.advice.solve_match_asked`). Within ``seconds`` (``None``: exact,
    however long), the budgeted answer (:mod:`pazaak_cli.solve.budgeted`), kept in ``refinements``
    so that a hint asked again at the same position goes on refining it."""
    view = session.view(seat)
    try:
        asks = play_asks(session, seat)
        question = question_from_state(view)
        request = AnswerRequest(
            question,
            model=model_of_player(session.seats[1 - seat].kind),
            objective=Objective.MATCH if objective == "match" else None,
            opponent_deck=session.seats[1 - seat].deck,
            opponent_played=session.cards_played_in_earlier_sets(1 - seat),
            budget=TimeBudget(seconds),
            stand_in=objective == "match",
            asks=asks,
            progress=progress,
            positions=positions,
            hand_progress=progress,
        )
        key = (format_position(view), seat)
        kept = (refinements or {}).get(key)
        found = answer(request, kept)
        if refinements is not None and found.refinement is not None and kept is None:
            refinements.clear()  # (one position's solver at a time: its memo is large)
            refinements[key] = found.refinement
        table = render_advice(found.advice, asks, found.objective_note)
        table += "".join(f"\n{note}" for note in found.notes)
    except PazaakError as error:
        return f"No hint: {error}."
    except Exception as error:  # a failing hint must not end the match
        return f"No hint: the solver failed ({type(error).__name__}: {error}); please report it."
    return wrap_lines(table, shutil.get_terminal_size().columns)


def play_asks(session: MatchSession, seat: int) -> Asks:
    """What the player in ``seat`` can type at the prompt, as the hint's notes name it, and the
    ``pazaak prepare`` command for this match's decks and opponent."""
    mine, theirs = session.seats[seat], session.seats[1 - seat]
    return PLAY_ASKS._replace(
        prepare=prepare_line(
            session.ruleset,
            sample_word(theirs.deck_name, theirs.deck, "THEIR-DECK"),
            seat,
            model_of_player(theirs.kind).name,
            sample_word(mine.deck_name, mine.deck, "YOUR-DECK"),
        )
    )


def hint_ahead(session: MatchSession, seat: int) -> tuple[MatchState, int, SolveOptions, str]:
    """What to work ahead on while ``seat`` types (:class:`~pazaak_cli.solve.pondering.Ponderer`'s
    ``start``): the match as the seat sees it, the seat, and the options and seed of the hint
    :func:`hint_text` will ask for."""
    model = model_of_player(session.seats[1 - seat].kind)
    options = SolveOptions(
        opponent_deck=session.seats[1 - seat].deck,
        opponent_played=session.cards_played_in_earlier_sets(1 - seat),
        opponent=model.name,
    )
    return session.view(seat), seat, options, DEFAULT_SEED
