"""Advice: the exact answer to "what are the odds of every move here?", by objective and model.

It chooses the solver by the objective (:attr:`SolveOptions.objective`, an
:class:`~pazaak_cli.solve.models.Objective`) and whether the opponent model has a rule
(:attr:`SolveOptions.rule`):

- the match against an optimal opponent, both sides playing to win the match, or the best
  reply over the match to a rule played in every set:
  :func:`pazaak_cli.solve.match_advice.solve_match_question` (it reads the model);
- the set against an optimal opponent, who minimises my equity:
  :func:`pazaak_cli.solve.solver.solve_set_question`;
- the set against a rule: the exact best reply to it in this set
  (:func:`pazaak_cli.solve.kotor_reply.solve_kotor_question`).

Which objective to answer, within which time, is the answer service's choice
(:mod:`pazaak_cli.solve.answers`), which asks here. It sits above the solvers and imports them;
none imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.solve.answer_types import Advice, SolveOptions, SolverTooLarge
from pazaak_cli.solve.kotor_reply import solve_kotor_question
from pazaak_cli.solve.match_advice import solve_match_question
from pazaak_cli.solve.models import OPTIMAL, Objective, objective_named
from pazaak_cli.solve.solver import solve_set_question


def solve_question(question: Question, options: SolveOptions | None = None) -> Advice:
    """Every move of the player who has just drawn ``question.drawn`` (see
    :class:`~pazaak_cli.engine.position_builder.Question`), including the forced ones after a draw
    to 20 or a ninth card, with its exact win, tie and loss odds against ``options.opponent``."""
    options = options or SolveOptions()
    objective = objective_named(options.objective)
    rule = options.rule  # (a PazaakError naming the models if there is none of that name)
    if objective is Objective.MATCH:
        return solve_match_question(question, options)
    if rule is not None:
        return solve_kotor_question(question, options)
    return solve_set_question(question, options)


def solve_match_asked(question: Question, options: SolveOptions) -> Advice:
    """The match answer asked for by name (``hint match`` in ``pazaak play`` and ``pazaak
    follow``), however long it takes; against a rule where that answer is out of reach (refused:
    past its reach, :func:`~pazaak_cli.solve.match_advice.kotor_match_limits`, or its memory
    bound), the match answer against an optimal opponent, its model line saying why."""
    options = replace(options, objective=Objective.MATCH)
    try:
        return solve_question(question, options)
    except SolverTooLarge as refused:
        if options.rule is None:
            raise
        reason = str(refused)
    model = options.model
    advice = solve_question(question, replace(options, opponent=OPTIMAL.name))
    said = (
        f"{advice.model}; against {model.short} the match answer is too large to solve here, "
        "so this one is against an opponent who plays the match perfectly"
    )
    return FallbackAdvice(**{**vars(advice), "model": said, "not_solved": reason})


@dataclass(frozen=True)
class FallbackAdvice(Advice):
    """An answer given instead of the one asked for, with the precise reason the one asked for
    was not solved (for ``--json`` and the docs; the model line says it in plain words)."""

    not_solved: str = ""


def advise(state: MatchState, options: SolveOptions | None = None) -> Advice:
    """Every legal move of the player to act in ``state`` (phase AFTER_DRAW), as
    :func:`solve_question`. The opponent's hand may be hidden (``None`` cards): then
    ``options.opponent_deck`` gives the prior and the answer is the exact average over every
    possible hand."""
    return solve_question(question_from_state(state), options)


__all__ = [
    "FallbackAdvice",
    "advise",
    "solve_match_asked",
    "solve_question",
]
