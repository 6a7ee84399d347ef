"""The answer service: one question asked as a value, one answer returned as a value.

``pazaak advise``, the hint of ``pazaak play``, ``pazaak follow`` and the engine protocol ask
here, so the policy of which answer to give is written once: an :class:`AnswerRequest` names the
position, the opponent model (:data:`~pazaak_cli.solve.models.OPPONENT_MODELS`), the objective
(or none: :func:`choose_objective` picks it within the budget), the prior over hidden hands and a
:class:`~pazaak_cli.solve.time_budget.TimeBudget`; :func:`answer` returns the :class:`Answer`:
the advice, why its objective, the notes a reader needs under it (stated as fields, rendered by
the commands), and the refinement to hand back when the same question is asked again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import require_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.numbers import seconds_text
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.solve.advice import solve_match_asked, solve_question
from pazaak_cli.solve.answer_types import Advice, SolveOptions, SolverTooLarge
from pazaak_cli.solve.budgeted import (
    ADVISE_ASKS,
    DEFAULT_SEED,
    MIN_HANDS,
    Asks,
    Progress,
    Refinement,
    overrun_note,
    refined_note,
    repeat_note,
)
from pazaak_cli.solve.match_advice import (
    match_foresight_kind,
    match_other_hands,
    match_question_pairs,
    match_seconds,
)
from pazaak_cli.solve.models import (
    OPTIMAL,
    Objective,
    OpponentModel,
    objective_named,
    opponent_model,
)
from pazaak_cli.solve.sampling import HandDraws
from pazaak_cli.solve.time_budget import TimeBudget


@dataclass(frozen=True)
class AnswerRequest:
    """One question for the service: what is asked, of whom, within what time."""

    question: Question
    """The position and the card just drawn."""
    model: OpponentModel = OPTIMAL
    """How the opponent is assumed to play."""
    objective: Objective | None = None
    """What the best move maximises; ``None``: the service chooses (:func:`choose_objective`)."""
    opponent_deck: Sequence[Card] | None = None
    """The prior of a hidden opponent hand: its side deck."""
    opponent_played: Sequence[Card] = ()
    """Cards the opponent played in earlier sets of this match (gone from the prior)."""
    budget: TimeBudget = field(default_factory=TimeBudget)
    """How long the answer may take (no limit by default: the exact answer)."""
    seed: str = DEFAULT_SEED
    """The seed of the hands a sampled answer draws."""
    hands: int | None = None
    """Exactly the first this many hands of the draws, whatever the time (a replay)."""
    exact: bool = False
    """Draw a finite deck without replacement however large the search."""
    stand_in: bool = False
    """The match asked for by name at the table (``hint match``): however long it takes, and
    against an optimal opponent where the rule's match answer is out of reach
    (:func:`~pazaak_cli.solve.advice.solve_match_asked`)."""
    asks: Asks = ADVISE_ASKS
    """What the reader can type where the answer is shown (the notes name it)."""
    progress: Callable[[int, int], None] | None = field(default=None, compare=False)
    """Told (hands done, hands in all) while an exact answer averages hidden hands."""
    positions: Callable[[int], None] | None = field(default=None, compare=False)
    """Told the positions solved so far of a long search."""
    hand_progress: Progress | None = field(default=None, compare=False)
    """Told (hands solved, possible, seconds left) as a budgeted answer solves hands."""

    def __post_init__(self) -> None:
        # a program may name the model and the objective as the command line does
        if isinstance(self.model, str):
            object.__setattr__(self, "model", opponent_model(self.model))
        elif not isinstance(self.model, OpponentModel):
            raise PazaakError(f"model is an opponent model or its name, not {self.model!r}")
        if isinstance(self.objective, str):
            object.__setattr__(self, "objective", objective_named(self.objective))
        hands = self.hands
        if hands is not None and (
            isinstance(hands, bool) or not isinstance(hands, int) or hands < MIN_HANDS
        ):
            raise PazaakError(
                f"hands is a whole number of {MIN_HANDS} or more (a sample rests on {MIN_HANDS} "
                f"hands at least), or None, not {hands!r}"
            )
        require_cards(self.opponent_deck, "opponent_deck")
        if not isinstance(self.budget, TimeBudget):
            raise PazaakError(f"budget is a TimeBudget, not {self.budget!r}")

    def options(self, objective: Objective) -> SolveOptions:
        """The solvers' options for ``objective``."""
        return SolveOptions(
            opponent_deck=self.opponent_deck,
            opponent_played=self.opponent_played,
            exact=self.exact,
            progress=self.progress,
            positions=self.positions,
            opponent=self.model.name,
            objective=objective,
        )

    def key(self) -> tuple[object, ...]:
        """What makes two requests the same question (a refinement kept under it goes on)."""
        return (
            self.question,
            self.model.name,
            self.objective,
            tuple(self.opponent_deck or ()),
            tuple(self.opponent_played),
            self.seed,
            self.exact,
        )


@dataclass(frozen=True)
class Answer:
    """The service's answer: the advice and what a reader must be told about it."""

    advice: Advice
    objective_note: str | None = None
    """Why this objective, where it is not the one a reader expects (shown under the table's
    first line); ``None`` when there is nothing to say, or it was said at the first call."""
    notes: tuple[str, ...] = ()
    """What to say under the table: the sample's repeatability, a refinement's state, an
    overrun of the budget."""
    refinement: Refinement | None = field(default=None, compare=False)
    """The hands solved so far, to hand back to :func:`answer` when the question is asked again
    (``None``: the answer was solved at once, nothing to go on with)."""
    seconds: float = 0.0
    """How long the call took, from the budget's start."""


def choose_objective(request: AnswerRequest) -> tuple[Objective, str | None]:
    """The objective to answer, and why if it is not the match: the one asked for; within a
    budget, the match when a sample of its answer is foreseen to fit
    (:func:`budgeted_objective`); with no budget, the match when its answer is quick
    (:func:`~pazaak_cli.solve.match_advice.match_is_quick`), else the set."""
    if request.objective is not None:
        return request.objective, None
    seconds = request.budget.seconds
    if seconds is not None:
        return budgeted_objective(request, seconds)
    options = request.options(Objective.MATCH)
    try:
        cost = match_question_pairs(request.question, options)
    except PazaakError:  # the match solve then says what is wrong; the rule's set answer stands
        return (Objective.MATCH if request.model.rule is None else Objective.SET), None
    if cost.left <= cost.quick:
        return Objective.MATCH, None
    count = (
        f"{cost.pairs:,} pairs here"
        if cost.left == cost.pairs
        else f"{cost.left:,} of its {cost.pairs:,} pairs here still to solve"
    )
    ask = ""
    if request.asks.match:
        ask = (
            f" ({request.asks.match} asks for the match anyway, and keeps what it solves for the "
            "later questions of this match)"
        )
    return Objective.SET, (
        f"The match answer solves every pair of hands left to both of you at every score: "
        f"{count}, where a few seconds allow {cost.quick}; this set's odds instead{ask}."
    )


def budgeted_objective(request: AnswerRequest, seconds: float) -> tuple[Objective, str | None]:
    """The objective to answer within ``seconds``: the match when the match answer for the
    least sample (:data:`~pazaak_cli.solve.budgeted.MIN_HANDS` of the draws' first hands, or the
    one hand the opponent may hold) is foreseen to fit
    (:func:`~pazaak_cli.solve.match_advice.match_seconds`), else the set; with the sentence that
    says why the set, if it is."""
    state = request.question.state
    other = state.sides[1 - state.turn]
    options = request.options(Objective.MATCH)
    try:
        possible = match_other_hands(other, options, state.ruleset)
    except PazaakError:
        return Objective.MATCH, None  # (the match solve itself then says what is wrong)
    draws = HandDraws([ways for _, ways in possible], request.seed)
    sample = [possible[index] for index in draws.distinct(MIN_HANDS)]
    try:
        foreseen = match_seconds(request.question, options, sample)
    except PazaakError:
        return Objective.MATCH, None
    if foreseen <= seconds:
        return Objective.MATCH, None
    asks = request.asks
    ask = f" ({asks.match} asks for the match however long it takes)" if asks.match else ""
    if math.isinf(foreseen):
        return Objective.SET, (
            f"The match answer against this opponent is too large to solve here: the best move "
            f"for this set only instead{ask}."
        )
    who = (
        "the one hand the opponent may hold"
        if len(possible) == 1
        else f"{len(sample)} of the {len(possible)} hands the opponent may hold (the fewest a "
        "sampled answer rests on)"
    )
    ahead = ""  # (not where flip cards or Doubles are about: a pair of them alone takes minutes)
    gold = match_foresight_kind(request.question, options, sample) == "gold"
    if asks.prepare and len(possible) > 1 and not gold:
        ahead = (
            f" `{asks.prepare}` solves the later sets of your deck against this one ahead, once "
            "(minutes); the match answer then has only this set left to solve."
        )
    return Objective.SET, (
        f"The match answer would take about {beyond(foreseen, seconds)} for {who}, beyond the "
        f"{seconds_text(seconds)} s budget: the best move for this set only instead{ask}.{ahead}"
    )


def chose_match(request: AnswerRequest, objective: str) -> bool:
    """Whether ``objective`` is the match, chosen by the service (not asked for by name)."""
    return request.objective is None and objective == Objective.MATCH


def chosen_match_words(request: AnswerRequest, advice: Advice) -> str | None:
    """The option that asks for the match (``--objective match``) where the service chose it:
    the same question asked without a budget, or with a count of hands, would get the set's
    answer, so a note that says how to ask it again must name it; ``None`` otherwise."""
    return request.asks.match if chose_match(request, advice.objective) else None


def too_large_note(error: SolverTooLarge) -> str:
    """Why the set's answer where the match's was chosen but is too large to solve here."""
    said = str(error)
    return f"{said[:1].upper()}{said[1:]}: the best move for this set only instead."


def beyond(foreseen: float, seconds: float) -> str:
    """``foreseen`` seconds with their unit, written with the fewest decimals (up to two) that
    still read as more than the ``seconds`` it exceeds: "about 6 s, beyond the 6 s budget" said
    nothing; from two minutes on, in whole minutes where those still read as more ("about 395
    s" was a kotor2 hand's)."""
    minutes = round(foreseen / 60)
    if foreseen >= 120 and minutes * 60 > seconds:
        return f"{minutes} min"
    for decimals in (0, 1):
        shown = f"{foreseen:.{decimals}f}"
        if float(shown) > seconds:
            return f"{shown} s"
    return f"{foreseen:.2f} s"


OVERRUN_SHARE = 0.5
"""A match answer the service chose within a budget (:func:`budgeted_objective`) is given up
for the set's once its least sample runs past the deadline by this share of the budget, or by
:data:`OVERRUN_SECONDS` if that is more: its foresight was wrong (a machine far slower than
measured, or a question whose cost the foresight counts badly: one kotor2 hand of gold cards
foreseen at 31 s took 13 minutes, docs/benchmarks.md), and a player who asked for seconds is
not kept waiting for minutes. The later sets it solved are kept (the next question goes on from
them)."""

OVERRUN_SECONDS = 10.0
"""The least overrun :data:`OVERRUN_SHARE` allows: a few seconds late on a slow machine is
the match answer still worth waiting for."""


class _MatchGivenUp(Exception):
    """Raised through the match solver's progress by :class:`_OverrunWatch`."""


class _OverrunWatch:
    """The progress callback of a match answer the service chose within a budget: raises
    :class:`_MatchGivenUp` past the time :data:`OVERRUN_SHARE` allows while the answer has no
    sample yet (then it is disarmed: a later refinement's hands are foreseen before they are
    begun, and a sample in hand is kept), and tells the caller's callback otherwise."""

    def __init__(self, budget: TimeBudget, told: Callable[[int], None] | None) -> None:
        seconds = budget.seconds or 0.0
        deadline = budget.deadline or budget.started
        self.until: float | None = deadline + max(OVERRUN_SHARE * seconds, OVERRUN_SECONDS)
        self.told = told

    def __call__(self, positions: int) -> None:
        if self.until is not None and time.monotonic() > self.until:
            raise _MatchGivenUp
        if self.told is not None:
            self.told(positions)


def given_up_note(seconds: float | None, spent: float) -> str:
    """Why the set's answer where the match's was chosen within the budget but given up."""
    budget = f"the {seconds_text(seconds)} s budget" if seconds is not None else "its budget"
    return (
        f"The match answer was foreseen to fit {budget} but had no sample after {spent:.0f} s: "
        "the best move for this set only instead (what it solved of the later sets is kept "
        "for the next question)."
    )


def _watched(
    request: AnswerRequest, refinement: Refinement, watch: _OverrunWatch
) -> tuple[Refinement, Advice]:
    """``refinement`` (the match's, chosen within the budget) refined under ``watch``; given up,
    the set's in its place, refined within what is left of the budget."""
    budget = request.budget
    try:
        return refinement, refinement.refine(
            budget, hands=request.hands, progress=request.hand_progress
        )
    except _MatchGivenUp:
        pass
    finally:
        watch.until = None
    refinement = Refinement(request.question, request.options(Objective.SET), seed=request.seed)
    refinement.objective_note = given_up_note(budget.seconds, budget.spent())
    return refinement, refinement.refine(
        budget, hands=request.hands, progress=request.hand_progress
    )


def answer(request: AnswerRequest, refinement: Refinement | None = None) -> Answer:
    """The answer to ``request``: going on with ``refinement`` (the one an earlier answer to the
    same request returned) where given, else from scratch. The objective is chosen here
    (:func:`choose_objective`); a budget or a hand count is kept hand by hand by a
    :class:`~pazaak_cli.solve.budgeted.Refinement`, and Ctrl-C during it stops it with the answer
    so far."""
    budget = request.budget
    watch: _OverrunWatch | None = None
    if request.stand_in:
        advice = solve_match_asked(request.question, request.options(Objective.MATCH))
        return Answer(advice, seconds=budget.spent())
    if refinement is None:
        objective, why = choose_objective(request)
        options = request.options(objective)
        if budget.seconds is None and request.hands is None:
            try:
                advice = solve_question(request.question, options)
            except SolverTooLarge as error:
                if not chose_match(request, objective):
                    raise
                advice = solve_question(request.question, request.options(Objective.SET))
                why = too_large_note(error)
            return Answer(advice, objective_note=why, seconds=budget.spent())
        if chose_match(request, objective) and request.hands is None:
            watch = _OverrunWatch(budget, options.positions)
            options = replace(options, positions=watch)
        refinement = Refinement(request.question, options, seed=request.seed)
        refinement.objective_note = why
    was_sampled = refinement.advice is not None and not refinement.exact
    try:
        if watch is None:
            advice = refinement.refine(budget, hands=request.hands, progress=request.hand_progress)
        else:
            refinement, advice = _watched(request, refinement, watch)
    except SolverTooLarge as error:
        # the match answer, chosen within the budget, too large for its memory: the set's
        if not chose_match(request, refinement.options.objective) or refinement.advice is not None:
            raise
        refinement = Refinement(request.question, request.options(Objective.SET), seed=request.seed)
        refinement.objective_note = too_large_note(error)
        advice = refinement.refine(budget, hands=request.hands, progress=request.hand_progress)
    lead = None if was_sampled else refinement.objective_note  # (said once, at the first call)
    if request.asks.again is None:  # asked once: how to ask the same again, and the overrun
        chose = chosen_match_words(request, advice)
        notes = [
            repeat_note(advice, objective=chose) if request.hands is None else None,
            overrun_note(budget.spent(), budget.seconds, advice.hands_solved),
        ]
    else:
        notes = [refined_note(refinement, was_sampled, request.asks.again)]
    said = tuple(note for note in notes if note)
    return Answer(advice, lead, said, refinement, budget.spent())


__all__ = [
    "Answer",
    "AnswerRequest",
    "answer",
    "budgeted_objective",
    "choose_objective",
]
