"""What an answer is: the moves with their odds, the options a question is solved under.

Every solver returns an :class:`Advice` (each :class:`MoveResult` a :class:`Move` and its
:class:`Outcome`); every solver reads a :class:`SolveOptions`. They are values with no solver in
them, so that the answer service, the reports and the commands read them without the solvers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.policies.kotor_rule import DecisionRule
from pazaak_cli.solve.models import Objective, OpponentModel, opponent_model

EPSILON = 1e-12
"""Two equities closer than this are equal while searching (the float noise is far below)."""


BEST_TOLERANCE = 1e-9
"""Moves whose equities differ by at most this are all marked best."""


Value = tuple[float, float]


WIN: Value = (1.0, 1.0)


LOSS: Value = (-1.0, 0.0)


TIE: Value = (0.0, 0.0)


@dataclass(frozen=True)
class Outcome:
    """Exact probabilities of winning, tying and losing the set."""

    p_win: float
    p_tie: float
    p_loss: float

    @property
    def equity(self) -> float:
        return self.p_win - self.p_loss

    @staticmethod
    def from_value(value: Value) -> Outcome:
        """From (equity, p_win); rounding noise within 1e-13 of 0 or 1 (a sum of exact zeros or
        of probabilities that make a certainty, in floating point) is shown as the 0 or 1 it
        is."""
        equity, p_win = value
        p_loss = p_win - equity
        p_tie = 1.0 - p_win - p_loss
        return Outcome(*(clean_probability(p) for p in (p_win, p_tie, p_loss)))


@dataclass(frozen=True)
class Move:
    """One legal move of the player to act: an optional hand card, then end, stand or bust."""

    card: Card | None
    value: int | None
    then: str
    """``end``, ``stand`` or ``bust``."""
    note: str = ""
    """Why the move is forced, if it is (``automatic stand at 20``, ``ninth card`` ...)."""

    def __str__(self) -> str:
        if self.card is None:
            head = {"end": "end turn", "stand": "stand", "bust": "end turn (bust)"}[self.then]
            return head + (f" ({self.note})" if self.note else "")
        shown = str(self.card)
        if self.card.kind not in (CardKind.FLIP_2_4, CardKind.FLIP_3_6, CardKind.DOUBLE):
            if len(self.card.values) > 1:
                shown += f" as {self.value:+d}"
        elif self.card.kind is CardKind.DOUBLE:
            shown += f" (= {self.value:+d})"
        tail = {"end": "end turn", "stand": "stand", "bust": "bust"}[self.then]
        if self.note:
            tail = self.note
        return f"play {shown}, {tail}"


@dataclass(frozen=True)
class MoveResult:
    move: Move
    outcome: Outcome
    """The current set's odds along the move's line."""
    best: bool
    match_win: float | None = None
    """The probability of winning the match (match advice only)."""
    margin: float | None = None
    """A sampled answer's 95 % interval of the value the moves are ranked by (the match-win
    probability, else the set's equity) is that value ± this; ``None`` in an exact answer."""


@dataclass(frozen=True)
class Advice:
    """Every move of a position with its exact outcome, best first."""

    results: tuple[MoveResult, ...]
    model: str
    """One sentence: which model was solved."""
    hands_averaged: int
    """How many possible opponent hands were averaged (1 when the hand is known or irrelevant)."""
    fixed_probabilities: bool
    """True when the deck was approximated by fixed draw probabilities."""
    states: int
    """Positions the solver evaluated (memo entries)."""
    objective: str = "set"
    """What the best move maximises: ``set`` (the set's equity) or ``match`` (P(win match))."""
    exactness: str = "exact"
    """``exact``: every possible opponent hand was solved; ``sampled``: a sample of them, drawn
    by their deal weights (:mod:`pazaak_cli.solve.budgeted`), each move's value with its
    interval."""
    hands_solved: int | None = None
    """How many distinct possible hands the answer rests on (``None``: as averaged)."""
    draws: int | None = None
    """A sampled answer: the draws of the opponent's hand (with replacement) it averages."""
    seed: str | None = None
    """A sampled answer: the seed its draws came from (``--seed``)."""
    confidence: float | None = None
    """A sampled answer: how sure it is that the move ranked first beats the second (the
    probability from their paired differences over the draws)."""
    gap: tuple[float, float] | None = None
    """A sampled answer: the first move's lead over the second, and half its 95 % interval."""


class SolverTooLarge(PazaakError):
    """The exact solve would exceed its state budget."""


@dataclass
class SolveOptions:
    """How to model what the position does not say."""

    opponent_deck: Sequence[Card] | None = None
    """The prior of a hidden opponent hand: its side deck."""
    opponent_played: Sequence[Card] = ()
    """Cards the opponent played in earlier sets of this match (removed from the prior)."""
    exact: bool = False
    """Solve a finite deck without replacement whatever the size (else a budget applies)."""
    budget: int = 400_000
    """The state budget of an exact finite-deck solve before it falls back to fixed draws."""
    progress: Callable[[int, int], None] | None = None
    """Called as progress(done, total) while averaging hidden hands."""
    positions: Callable[[int], None] | None = None
    """Called as positions(solved) every so many positions of a long search (counting those of
    every hand averaged so far): progress where there is no total to show."""
    max_hands: int | None = None
    """Average over at most this many of the opponent's possible hands, drawn by their weights
    with ``sample_seed`` (the expert player's shortcut); ``None``: every hand, exactly."""
    sample_seed: str = ""
    opponent_hands: Sequence[tuple[tuple[Card, ...], int]] | None = None
    """The hidden hands to average over, with their weights, when the caller chose them (the
    expert keeps its samples through a set); used instead of the prior."""
    solver: object | None = field(default=None, repr=False)
    """A :class:`~pazaak_cli.solve.solver.SetSolver` to reuse (its memo carries over), e.g. by
    the expert player (typed ``object`` here: the answer types do not import the solvers)."""
    opponent: str = "optimal"
    """How the opponent plays: the name of one of :data:`pazaak_cli.solve.models.OPPONENT_MODELS`
    (``optimal`` minimises my equity; a model with a rule is replied to by
    :mod:`pazaak_cli.solve.kotor_reply`)."""
    objective: str = Objective.SET
    """What to maximise (an :class:`~pazaak_cli.solve.models.Objective`): ``set`` (this set's
    equity) or ``match`` (the probability of winning the match:
    :mod:`pazaak_cli.solve.match_solver`)."""

    @property
    def model(self) -> OpponentModel:
        """The opponent model :attr:`opponent` names (:class:`PazaakError` if none)."""
        return opponent_model(self.opponent)

    @property
    def rule(self) -> DecisionRule | None:
        """The opponent's decision rule, ``None`` for an optimal opponent."""
        return self.model.rule


_THEN_ORDER = {"stand": 0, "end": 1, "bust": 2}
"""Among moves of equal numbers, which is listed first: the stand, which ends the drawing."""


def clean_probability(p: float) -> float:
    """A probability within 1e-13 of 0 or 1 is that certainty (the rest is rounding), shown as
    the exact value it is."""
    if abs(p) < 1e-13:
        return 0.0
    if abs(p - 1.0) < 1e-13:
        return 1.0
    return p


def ranked_set_results(results: Sequence[tuple[Move, Outcome]]) -> tuple[MoveResult, ...]:
    """A set answer's moves best first (by equity, then P(win)), those within
    :data:`BEST_TOLERANCE` of the best equity marked best. Moves whose numbers are equal (to
    1e-12) are listed with the one that plays no card first (the card is kept for the match),
    then a stand before ending the turn; then in the order given."""
    best_equity = max(outcome.equity for _, outcome in results)

    def rank(item: tuple[Move, Outcome]) -> tuple[float, float, bool, int]:
        move, outcome = item
        return (
            -round(outcome.equity, 12),
            -round(outcome.p_win, 12),
            move.card is not None,
            _THEN_ORDER[move.then],
        )

    ranked = sorted(results, key=rank)
    return tuple(
        MoveResult(move, outcome, outcome.equity >= best_equity - BEST_TOLERANCE)
        for move, outcome in ranked
    )


__all__ = [
    "BEST_TOLERANCE",
    "EPSILON",
    "LOSS",
    "TIE",
    "WIN",
    "Advice",
    "Move",
    "MoveResult",
    "Outcome",
    "SolveOptions",
    "SolverTooLarge",
    "Value",
    "clean_probability",
    "ranked_set_results",
]
