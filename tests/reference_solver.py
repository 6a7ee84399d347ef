"""An independent, slow reference for the solver: plain recursion over the engine's own states
(``MatchState.child`` and ``chance_outcomes``) with exact fractions. It shares no code with
:mod:`pazaak_cli.solver` beyond the rules engine, so agreement checks the solver's compact model,
its canonical keys and its tie rules against the rules themselves."""

from __future__ import annotations

from fractions import Fraction

from pazaak_cli.game import FORFEIT, Action, MatchState, Phase

Exact = tuple[Fraction, Fraction]  # (equity, p_win) for the player `me`


def set_value(state: MatchState, me: int, memo: dict[MatchState, Exact] | None = None) -> Exact:
    """(equity, p_win) of the current set for player ``me``; both sides maximise their own
    (equity, p_win) in that order."""
    memo = {} if memo is None else memo
    found = memo.get(state)
    if found is not None:
        return found
    result: Exact
    if state.phase in (Phase.SET_OVER, Phase.MATCH_OVER):
        winner = state.set_winners[-1]
        if winner is None:
            result = (Fraction(0), Fraction(0))
        elif winner == me:
            result = (Fraction(1), Fraction(1))
        else:
            result = (Fraction(-1), Fraction(0))
    elif state.is_chance_node():
        equity = p_win = Fraction(0)
        for action, probability in state.chance_outcomes():
            e, w = set_value(state.child(action), me, memo)
            equity += probability * e
            p_win += probability * w
        result = (equity, p_win)
    else:
        options = [
            set_value(state.child(a), me, memo) for a in state.legal_actions() if a != FORFEIT
        ]
        if state.turn == me:
            result = max(options, key=lambda v: (v[0], v[1]))
        else:
            # the opponent maximises its own (equity, p_win) = (-e, w - e)
            result = max(options, key=lambda v: (-v[0], v[1] - v[0]))
    memo[state] = result
    return result


def move_values(state: MatchState) -> dict[Action, Exact]:
    """Every non-forfeit action of the player to move in ``state``, valued for that player.
    A Play is followed by that player's best follow-up, so the caller compares play-then-end and
    play-then-stand through :func:`follow_up_values`."""
    me = state.turn
    memo: dict[MatchState, Exact] = {}
    return {a: set_value(state.child(a), me, memo) for a in state.legal_actions() if a != FORFEIT}
