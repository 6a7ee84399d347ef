"""An answer as JSON data: the document ``pazaak advise --json`` prints, ``pazaak follow --json``
emits at each decision and the engine protocol replies (docs/protocol.md), written once."""

from __future__ import annotations

from typing import Any

from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import seed_number
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.solve.advice import FallbackAdvice
from pazaak_cli.solve.answer_types import Advice, MoveResult
from pazaak_cli.solve.budgeted import VERDICT_MIN_HANDS, SampledAdvice


def advice_json(advice: Advice, question: Question) -> dict[str, Any]:
    """The JSON document of ``pazaak advise --json``."""
    document: dict[str, Any] = {
        "ruleset": question.state.ruleset.spec,
        "objective": advice.objective,
        "model": advice.model,
        "hands_averaged": advice.hands_averaged,
        "exactness": advice.exactness,
        "hands_possible": advice.hands_averaged,
        "hands_solved": (
            advice.hands_averaged if advice.hands_solved is None else advice.hands_solved
        ),
        "draws": advice.draws,
        "seed": seed_number(advice.seed),
        "confidence": _stated_confidence(advice),
        "fixed_probabilities": advice.fixed_probabilities,
        "position": format_position(question.state),
        "drawn": question.drawn,
        "moves": [
            {
                "card": None if r.move.card is None else str(r.move.card),
                "value": r.move.value,
                "then": r.move.then,
                "note": r.move.note or None,
                "match_win": r.match_win,
                "p_win": r.outcome.p_win,
                "p_tie": r.outcome.p_tie,
                "p_loss": r.outcome.p_loss,
                "equity": r.outcome.equity,
                "interval": _interval(r, advice.objective),
                "best": r.best,
            }
            for r in advice.results
        ],
    }
    if isinstance(advice, SampledAdvice):  # (the precise terms: exact answers keep their keys)
        for move, same in zip(document["moves"], advice.same, strict=True):
            move["same_in_every_hand_solved"] = same
    if isinstance(advice, FallbackAdvice):
        document["not_solved"] = advice.not_solved
    return document


def _stated_confidence(advice: Advice) -> float | None:
    """The confidence a sampled answer states, as its verdict does: none from fewer than
    :data:`~pazaak_cli.solve.budgeted.VERDICT_MIN_HANDS` hands (the text says "too few hands to
    say how sure"; a number there would claim what the sample cannot show)."""
    if advice.hands_solved is not None and advice.hands_solved < VERDICT_MIN_HANDS:
        return None
    return advice.confidence


def _interval(result: MoveResult, objective: str) -> list[float] | None:
    """A sampled move's 95 % interval of the value it is ranked by (the match-win probability,
    else the set's equity); ``None`` in an exact answer."""
    if result.margin is None:
        return None
    value = result.match_win if objective == "match" else result.outcome.equity
    assert value is not None
    low = 0.0 if objective == "match" else -1.0  # (what the value can be, at most 1)
    return [max(value - result.margin, low), min(value + result.margin, 1.0)]
