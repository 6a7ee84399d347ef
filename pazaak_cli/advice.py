"""Advice: the one entry point for "what are the odds of every move here?".

``pazaak advise``, the hint of ``pazaak play`` and the expert player ask through this module.
It chooses the solver by the opponent model (:attr:`SolveOptions.opponent`):

- ``"optimal"``: the exact set solver, the opponent minimising my equity
  (:func:`pazaak_cli.solver.solve_set_question`);
- ``"kotor"``: the exact best reply to the KOTOR I rule
  (:func:`pazaak_cli.kotor_reply.solve_kotor_question`).

It sits above both solvers and imports them; neither imports it.
"""

from __future__ import annotations

from pazaak_cli.errors import PazaakError
from pazaak_cli.game import MatchState
from pazaak_cli.kotor_reply import solve_kotor_question
from pazaak_cli.position_builder import Question, question_from_state
from pazaak_cli.solver import Advice, SolveOptions, solve_set_question


def solve_question(question: Question, options: SolveOptions | None = None) -> Advice:
    """Every move of the player who has just drawn ``question.drawn`` (see
    :class:`~pazaak_cli.position_builder.Question`), including the forced ones after a draw to
    20 or a ninth card, with its exact win, tie and loss odds against ``options.opponent``."""
    options = options or SolveOptions()
    if options.opponent == "optimal":
        return solve_set_question(question, options)
    if options.opponent == "kotor":
        return solve_kotor_question(question, options)
    raise PazaakError(f"unknown opponent model {options.opponent!r}; choose optimal or kotor")


def advise(state: MatchState, options: SolveOptions | None = None) -> Advice:
    """Every legal move of the player to act in ``state`` (phase AFTER_DRAW), as
    :func:`solve_question`. The opponent's hand may be hidden (``None`` cards): then
    ``options.opponent_deck`` gives the prior and the answer is the exact average over every
    possible hand."""
    return solve_question(question_from_state(state), options)


__all__ = ["advise", "solve_question"]
