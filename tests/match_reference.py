"""An independent, slow reference for the match solver: plain recursion over the engine's own
states (``MatchState.child``, ``legal_actions``, ``chance_outcomes``), with value iteration
for the ties.

It shares no code with :mod:`pazaak_cli.solve.match_solver` or :mod:`pazaak_cli.solve.solver` beyond
the rules engine. The match is infinite only through ties (a tied set scores nothing), so the
reference solves it as a sequence of finite games: in iteration ``k`` every set that begins
after a tie is worth what iteration ``k - 1`` found for that set start (iteration 0: one half),
and every other set is played out in full. The iterates converge geometrically (at the rate of
the tie probability) to the match values; iteration stops when no value moves by more than
1e-15. The later-set deck model is the match solver's: once a set is over, the next one draws
from a full deck with uniform probabilities (the ruleset's deck becomes ``infinite``), which is
exact for rulesets whose deck is infinite.

With ``kotor`` a seat plays the KOTOR I rule instead of maximising: at its decisions the
reference asks :class:`pazaak_cli.players.roster.KotorPlayer` (the game's own player, on the
engine's view of that seat) for its action, so the reference shares nothing with
:mod:`pazaak_cli.solve.match_kotor` either.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.game import FORFEIT, FULL_DECK, Draw, MatchState, Open, Phase, new_match
from pazaak_cli.engine.rules import MainDeck, parse_ruleset
from pazaak_cli.players.roster import KotorPlayer, Player

StartKey = tuple[object, ...]


class MatchReference:
    """P(seat ``me`` wins the match) from engine states, both seats maximising their own (or
    seat ``kotor`` playing the KOTOR I rule)."""

    def __init__(
        self,
        me: int,
        *,
        limit: int = 2_000_000,
        start: Callable[[MatchState], float] | None = None,
        kotor: int | None = None,
        rule_player: Player | None = None,
        blind: int | None = None,
    ) -> None:
        self.me = me
        self.blind = blind
        """A seat whose hand every later set starts without (the model of ``match-lite``)."""
        self.kotor = kotor
        self.kotor_player = KotorPlayer() if rule_player is None else rule_player
        """The rule the seat ``kotor`` plays: the KOTOR I player unless another is given."""
        self.start = start
        self.limit = limit
        self.previous: dict[StartKey, float] = {}
        self.current: dict[StartKey, float] = {}
        self.memo: dict[MatchState, float] = {}
        self.pending: set[StartKey] = set()
        self.final: dict[MatchState, float] = {}
        self.starts: dict[StartKey, MatchState] = {}
        self.reads = 0

    def value(self, state: MatchState) -> float:
        """The converged value of ``state`` for ``me``.

        An iteration that moved nothing leaves its memo and set starts in place: they were all
        computed against the same iterate (``previous``), so the next call's first iteration
        reads them as its own, and iterates again only if the states it adds move."""
        for _ in range(200):
            result = self._value(state)
            moved = max(
                (abs(v - self._earlier(k, None)) for k, v in self.current.items()), default=0
            )
            if moved <= 1e-15:
                return result
            self.previous = self.current
            self.memo = {}
            self.current = {}
        raise AssertionError("the reference did not converge")

    def _value(self, state: MatchState) -> float:
        found = self.memo.get(state)
        if found is not None:
            self.reads += 1  # (the memo holds only values that read an earlier iterate)
            return found
        found = self.final.get(state)
        if found is not None:
            return found
        reads = self.reads
        if len(self.memo) + len(self.final) > self.limit:
            raise AssertionError("the reference position is too large")
        phase = state.phase
        if phase is Phase.MATCH_OVER:
            result = 1.0 if state.sets_won()[self.me] >= state.ruleset.sets_to_win else 0.0
        elif phase is Phase.SET_OVER:
            result = self._next_set(state)
        elif phase is Phase.BEFORE_DRAW:
            result = 0.0
            for action, probability in state.chance_outcomes():
                result += float(probability) * self._value(state.child(action))
        elif state.turn == self.kotor:
            action = self.kotor_player.choose(state.observed_by(state.turn))
            result = self._value(state.child(action))
        else:
            options = [self._value(state.child(a)) for a in state.legal_actions() if a != FORFEIT]
            result = max(options) if state.turn == self.me else min(options)
        # a value that read no earlier iterate is final: later iterations reuse it
        (self.memo if self.reads != reads else self.final)[state] = result
        return result

    def _next_set(self, state: MatchState) -> float:
        """The value once a set is over: the next set starts (each opener by its chance), from
        a full deck under the later-set model."""
        later = state
        if state.ruleset.main_deck is not MainDeck.INFINITE:
            rules = dataclasses.replace(state.ruleset, main_deck=MainDeck.INFINITE)
            later = state._replace(ruleset=rules, deck=FULL_DECK)
        if self.blind is not None:
            sides = list(later.sides)
            sides[self.blind] = sides[self.blind]._replace(hand=())
            later = later._replace(sides=(sides[0], sides[1]))
        total = 0.0
        for action, probability in later.chance_outcomes():
            start = later.child(action)
            key = _start_key(start)
            if later.set_winners[-1] is None:  # after a tie: the previous iterate
                if key not in self.current and key not in self.pending:
                    self._start_value(start, key)  # (solved now, for the next iteration)
                value = self._earlier(key, start)
                self.reads += 1
            else:
                value = self._start_value(start, key)
            total += float(probability) * value
        return total

    def _earlier(self, key: StartKey, start: MatchState | None) -> float:
        """The previous iterate's value of a set start (the first iterate: ``start``'s guess)."""
        found = self.previous.get(key)
        if found is None:
            if start is None:
                start = self.starts[key]
            found = 0.5 if self.start is None else self.start(start)
            self.previous[key] = found
        return found

    def _start_value(self, start: MatchState, key: StartKey) -> float:
        found = self.current.get(key)
        if found is not None:
            self.reads += 1  # a value of this iteration: it may have read an earlier iterate
        else:
            self.starts[key] = start
            self.pending.add(key)
            found = self.current[key] = self._value(start)
            self.pending.discard(key)
        return found


def _start_key(start: MatchState) -> StartKey:
    """What a set start's value depends on: the score, both hands and who opens it (the
    first-player rules read nothing else), under one ruleset."""
    return (start.ruleset, start.sets_won(), start.sides[0].hand, start.sides[1].hand, start.turn)


def match_win(state: MatchState, me: int, kotor: int | None = None) -> float:
    """P(``me`` wins the match) from ``state`` (seat ``kotor`` playing the KOTOR I rule)."""
    return MatchReference(me, kotor=kotor).value(state)


TINY = "main-deck=infinite,target=4,table-size=3,sets-to-win=2,hand-size=2"
"""A match small enough for the reference: first to 2 sets, a target of 4 on 3 cards."""


def decision(
    spec: str,
    hands: tuple[str, str],
    winners: Sequence[int | None],
    opener: int,
    draws: Sequence[int],
    actions: Sequence[str] = (),
) -> MatchState:
    """A decision of the match: ``winners`` of the finished sets, ``opener`` opens this one,
    then the draws are dealt in turn, each but the last followed by the mover's action (the
    next of ``actions``, else ending the turn)."""
    rules = parse_ruleset(spec)
    cards = tuple(tuple(parse_cards(h)) if h else () for h in hands)
    state = new_match(rules, (cards[0], cards[1]))._replace(set_winners=tuple(winners))
    state = state.child(Open(opener))
    pending = list(actions)
    for index, drawn in enumerate(draws):
        state = state.child(Draw(drawn))
        if index + 1 < len(draws):
            assert state.phase is Phase.AFTER_DRAW, state.phase
            name = pending.pop(0) if pending else "end turn"
            action = next(a for a in state.legal_actions() if str(a) == name)
            state = state.child(action)
    assert state.phase is Phase.AFTER_DRAW, state.phase
    return state
