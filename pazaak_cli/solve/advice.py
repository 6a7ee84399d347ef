"""Advice: the one entry point for "what are the odds of every move here?".

``pazaak advise``, the hint of ``pazaak play`` and the expert player ask through this module.
It chooses the solver by the objective (:attr:`SolveOptions.objective`) and the opponent model
(:attr:`SolveOptions.opponent`):

- objective ``"match"``, opponent ``"optimal"``: the exact match solver, both sides playing to
  win the match (:func:`pazaak_cli.solve.match_advice.solve_match_question`);
- objective ``"match"``, opponent ``"kotor"``: the exact best reply over the match to the KOTOR
  I rule played in every set (:func:`pazaak_cli.solve.match_advice.solve_kotor_match_question`);
- objective ``"set"``, opponent ``"optimal"``: the exact set solver, the opponent minimising my
  equity (:func:`pazaak_cli.solve.solver.solve_set_question`);
- objective ``"set"``, opponent ``"kotor"``: the exact best reply to the KOTOR I rule in this set
  (:func:`pazaak_cli.solve.kotor_reply.solve_kotor_question`).

It sits above both solvers and imports them; neither imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MatchState
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.solve.kotor_reply import solve_kotor_question
from pazaak_cli.solve.match_advice import match_is_quick, solve_match_question
from pazaak_cli.solve.solver import Advice, SolveOptions, SolverTooLarge, solve_set_question


def solve_question(question: Question, options: SolveOptions | None = None) -> Advice:
    """Every move of the player who has just drawn ``question.drawn`` (see
    :class:`~pazaak_cli.engine.position_builder.Question`), including the forced ones after a draw
    to 20 or a ninth card, with its exact win, tie and loss odds against ``options.opponent``."""
    options = options or SolveOptions()
    if options.objective not in ("set", "match"):
        raise PazaakError(f"unknown objective {options.objective!r}; choose match or set")
    if options.opponent not in ("optimal", "kotor"):
        raise PazaakError(f"unknown opponent model {options.opponent!r}; choose optimal or kotor")
    if options.objective == "match":
        return solve_match_question(question, options)  # (it reads options.opponent)
    if options.opponent == "kotor":
        return solve_kotor_question(question, options)
    return solve_set_question(question, options)


def default_objective(question: Question, options: SolveOptions) -> str:
    """The objective to answer when the user named none: the match against an optimal opponent
    when that answer is quick (:func:`pazaak_cli.solve.match_advice.match_is_quick`), else the set
    (against the KOTOR I rule, always the set)."""
    if options.opponent != "optimal":
        return "set"
    try:
        return "match" if match_is_quick(question, options) else "set"
    except PazaakError:
        return "match"  # (the match solve itself then says what is wrong)


def hint_objective(question: Question, options: SolveOptions) -> str:
    """The objective of ``pazaak play``'s hint: the match, against the opponent model of the
    seat it faces (the KOTOR I rule included), when that answer is quick
    (:func:`pazaak_cli.solve.match_advice.match_is_quick`, which has its own limit for the KOTOR
    rule); else :func:`default_objective`'s choice."""
    if options.opponent != "kotor":
        return default_objective(question, options)
    try:
        return "match" if match_is_quick(question, options) else "set"
    except PazaakError:
        return "set"  # (the set solve then says what is wrong, as before)


def solve_match_asked(question: Question, options: SolveOptions) -> Advice:
    """The match answer asked for by name (``hint match`` in ``pazaak play`` and ``pazaak
    follow``), however long it takes; against the KOTOR I rule where that answer is out of reach
    (refused: :data:`~pazaak_cli.solve.match_advice.KOTOR_MATCH_REACH_PAIRS`, or its memory bound),
    the match answer against an optimal opponent, its model line saying why."""
    options = replace(options, objective="match")
    try:
        return solve_question(question, options)
    except SolverTooLarge as refused:
        if options.opponent != "kotor":
            raise
        reason = str(refused)
    advice = solve_question(question, replace(options, opponent="optimal"))
    said = (
        f"{advice.model}; against the KOTOR rule the match answer is too large to solve here, "
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
    "default_objective",
    "hint_objective",
    "solve_match_asked",
    "solve_question",
]
