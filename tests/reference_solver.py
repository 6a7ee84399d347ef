"""An independent, slow reference for the solver: plain recursion over the engine's own states
(``MatchState.child``, ``legal_actions`` and ``chance_outcomes``) with exact fractions.

It shares no code with :mod:`pazaak_cli.solve.solver` beyond the rules engine, so agreement checks
the solver's compact model, its canonical keys, its move list and its tie rules against the rules
themselves. Both sides maximise their own (equity, P(win)) in that order, as the solver does.

:func:`move_outcomes` values every move the way the solver names them, ``(card, value, then)``:
the hand card is played with the engine's ``Play``, then the turn ends with ``END_TURN`` or
``STAND`` (or with whatever the engine does automatically: a stand at 20, the ninth card).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction

from pazaak_cli.engine.cards import CardKind
from pazaak_cli.engine.game import (
    END_TURN,
    FORFEIT,
    STAND,
    Action,
    Draw,
    MatchState,
    Phase,
    Play,
)
from pazaak_cli.engine.rules import MainDeck
from pazaak_cli.solve.answer_types import MoveResult

Exact = tuple[Fraction, Fraction]
"""(equity, P(win)) of the current set for one player."""
MoveKey = tuple[str | None, int | None, str]
"""(hand card played or None, value it added or None, "end" / "stand" / "bust")."""
ExactOutcome = tuple[Fraction, Fraction, Fraction]
"""(P(win), P(tie), P(loss))."""

_WIN: Exact = (Fraction(1), Fraction(1))
_LOSS: Exact = (Fraction(-1), Fraction(0))
_TIE: Exact = (Fraction(0), Fraction(0))


class ReferenceTooLarge(Exception):
    """The position needs more states than the caller allowed (pick a later position)."""


class Reference:
    """Exact set values for player ``me``, memoised per instance.

    ``draws``: draw with these fixed counts of each value 1..10 at every draw, without depletion
    (the state's ruleset must then have an infinite deck, so that the engine does not deplete
    it either): the model the solver uses for its fixed-probability approximation.
    ``limit``: raise :class:`ReferenceTooLarge` beyond this many memoised states.
    """

    def __init__(
        self, me: int, *, draws: Sequence[int] | None = None, limit: int | None = None
    ) -> None:
        self.me = me
        self.limit = limit
        self.memo: dict[MatchState, Exact] = {}
        self.fixed: tuple[tuple[Action, Fraction], ...] | None = None
        if draws is not None:
            total = sum(draws)
            self.fixed = tuple(
                (Draw(value + 1), Fraction(count, total))
                for value, count in enumerate(draws)
                if count
            )

    def value(self, state: MatchState) -> Exact:
        """(equity, P(win)) of the current set for ``me`` from ``state`` on."""
        found = self.memo.get(state)
        if found is not None:
            return found
        if self.limit is not None and len(self.memo) >= self.limit:
            raise ReferenceTooLarge(f"more than {self.limit} states")
        result: Exact
        if state.phase is Phase.SET_OVER or state.phase is Phase.MATCH_OVER:
            winner = state.set_winners[-1]
            result = _TIE if winner is None else _WIN if winner == self.me else _LOSS
        elif state.phase is Phase.BEFORE_DRAW:
            outcomes = state.chance_outcomes()
            if self.fixed is not None:
                assert state.ruleset.main_deck is MainDeck.INFINITE
                outcomes = self.fixed
            equity = p_win = Fraction(0)
            for action, probability in outcomes:
                e, w = self.value(state.child(action))
                equity += probability * e
                p_win += probability * w
            result = (equity, p_win)
        else:
            options = [self.value(state.child(a)) for a in state.legal_actions() if a != FORFEIT]
            if state.turn == self.me:
                result = max(options)  # lexicographic: equity, then P(win)
            else:
                # the opponent maximises its own (equity, P(win)) = (-e, w - e)
                result = max(options, key=lambda v: (-v[0], v[1] - v[0]))
        self.memo[state] = result
        return result


def outcome_of(value: Exact) -> ExactOutcome:
    equity, p_win = value
    p_loss = p_win - equity
    return (p_win, 1 - p_win - p_loss, p_loss)


def move_outcomes(
    state: MatchState,
    drawn: int | None = None,
    *,
    draws: Sequence[int] | None = None,
    limit: int | None = None,
    reference: Reference | None = None,
) -> dict[MoveKey, ExactOutcome]:
    """Every move of the player to act, with its exact outcome.

    ``state`` is either the mover's decision (phase AFTER_DRAW, ``drawn`` ignored) or the
    position before his draw (phase BEFORE_DRAW) with the value ``drawn`` he then draws: the
    only way to ask about a draw that the engine answers automatically (20, the ninth card).
    ``limit``: at most this many new states (:class:`ReferenceTooLarge`); ``reference``: reuse
    this instance's memo (it must be for the player to act, with the same ``draws``).
    """
    me = state.turn
    ref = reference or Reference(me, draws=draws)
    if limit is not None:
        ref.limit = len(ref.memo) + limit
    assert ref.me == me
    target = state.ruleset.target
    if state.phase is Phase.BEFORE_DRAW:
        assert drawn is not None
        after = state.child(Draw(drawn))
        if not _decides(after, me):
            return {(None, None, _forced(after, me, target)): outcome_of(ref.value(after))}
        state = after
    assert state.phase is Phase.AFTER_DRAW
    return {key: outcome_of(ref.value(after)) for key, after in each_move(state)}


def each_move(state: MatchState) -> Iterator[tuple[MoveKey, MatchState]]:
    """Every move of the player to act (phase AFTER_DRAW), named as the solvers name them, with
    the state once it is made (the engine ends the turn by itself where the rules say so)."""
    me = state.turn
    target = state.ruleset.target
    for action in state.legal_actions():
        if action == FORFEIT:
            continue
        if isinstance(action, Play):
            card = action.card
            shown = None if card.kind in (CardKind.FLIP_2_4, CardKind.FLIP_3_6) else action.value
            placed = state.child(action)
            if not _decides(placed, me):
                yield (str(card), shown, _forced(placed, me, target)), placed
                continue
            for follow in placed.legal_actions():
                if follow != FORFEIT:
                    yield (str(card), shown, _then(placed, follow, target)), placed.child(follow)
        else:
            yield (None, None, _then(state, action, target)), state.child(action)


def _decides(state: MatchState, me: int) -> bool:
    """Whether ``me`` still chooses in ``state`` (else the engine moved on by itself)."""
    return state.phase is Phase.AFTER_DRAW and state.turn == me


def _forced(state: MatchState, me: int, target: int) -> str:
    """How an automatic end of ``me``'s turn is named: a bust or a stand."""
    return "bust" if state.sides[me].total > target else "stand"


def _then(state: MatchState, action: Action, target: int) -> str:
    if action == STAND:
        return "stand"
    assert action == END_TURN
    return "bust" if state.sides[state.turn].total > target else "end"


def solver_moves(results: Sequence[MoveResult]) -> dict[MoveKey, tuple[float, float, float]]:
    """The solver's answer keyed as :func:`move_outcomes` keys the reference's."""
    moves: dict[MoveKey, tuple[float, float, float]] = {}
    for result in results:
        move, outcome = result.move, result.outcome
        key = (None if move.card is None else str(move.card), move.value, move.then)
        assert key not in moves, f"the solver lists {key} twice"
        moves[key] = (outcome.p_win, outcome.p_tie, outcome.p_loss)
    return moves


def disagreements(
    exact: dict[MoveKey, ExactOutcome],
    fast: dict[MoveKey, tuple[float, float, float]],
    tolerance: float = 1e-12,
) -> list[str]:
    """Every difference between the reference and the solver, as readable lines (empty: they
    agree on the move list and on P(win), P(tie), P(loss) of every move)."""
    problems = [f"only the reference has {key}" for key in exact if key not in fast]
    problems += [f"only the solver has {key}" for key in fast if key not in exact]
    for key, want in exact.items():
        got = fast.get(key)
        if got is not None and any(
            abs(float(w) - g) > tolerance for w, g in zip(want, got, strict=True)
        ):
            shown = ", ".join(f"{float(w):.15f}" for w in want)
            problems.append(f"{key}: reference ({shown}), solver {got}")
    return problems
