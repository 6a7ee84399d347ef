"""The solvers as players: ``expert`` (match values, the later sets blind to the opponent's
cards), ``match-expert`` (the full match model) and ``set-expert`` (the set alone).

Each sees only what its seat sees: the opponent's hand is hidden, so each decision averages the
exact values over hands the opponent's side deck can still hold (docs/rules.md §9), less the cards
it has been seen to play this match: all of them when there are few, else a sample drawn once a
set and kept while the opponent's plays agree with it.

``set-expert`` maximises the equity of the current set (:class:`SetExpertPlayer`). To be fast
enough for tournaments it draws with the uniform (infinite-deck) probabilities while the
opponent still plays, so that one memo (bounded, see :data:`MEMO_LIMIT`) serves every decision
of every match between the same two decks; once the opponent stands, the single-player
remainder is solved exactly on the real deck. ``match-expert`` and ``expert`` maximise the
probability of winning the match, counting the cards of the set in progress
(:class:`MatchExpertPlayer`, :class:`ExpertPlayer`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import (
    END_TURN,
    FULL_DECK,
    MAIN_VALUES,
    STAND,
    Action,
    MatchState,
    Placed,
    Play,
    TableCard,
    require_decision,
)
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import MainDeck, Ruleset
from pazaak_cli.solve.advice import advise
from pazaak_cli.solve.answer_types import Move, SolveOptions
from pazaak_cli.solve.hidden_hands import hidden_hands, played_cards
from pazaak_cli.solve.match_advice import best_match_move
from pazaak_cli.solve.match_cache import load_entries, save_entries
from pazaak_cli.solve.match_native import make_match_solver
from pazaak_cli.solve.match_solver import MatchSolver
from pazaak_cli.solve.solver import SetSolver

SAMPLED_HANDS = 4
"""The expert averages over at most this many of the opponent's possible hands (drawn by their
weights, seeded by the position: the same views in the same order give the same decisions);
with fewer, over all of them. The samples are kept through the set while the opponent's plays
agree with them, so that later decisions of the set find their positions already solved."""

MEMO_LIMIT = 12_000_000
"""Positions the shared memo may hold; when full it is emptied between searches (its sides and
candidate lists stay). Measured: 1.0 GB per process with the starter decks, 1.6 GB with
kotor2-average, and 0.21 s a match against ``kotor`` with the starter decks over 1,000 matches
(the earlier design, throwing the whole solver away at 3 million, took 0.6 s)."""

_SOLVERS: dict[tuple[str, tuple[Card, ...] | None], SetSolver] = {}


def _shared_solver(ruleset: Ruleset, opponent_deck: Sequence[Card] | None) -> SetSolver:
    key = (ruleset.spec, tuple(sorted(opponent_deck)) if opponent_deck else None)
    solver = _SOLVERS.get(key)
    if solver is None:
        solver = _SOLVERS[key] = SetSolver(ruleset, fixed_draws=FULL_DECK, max_states=MEMO_LIMIT)
    return solver


class SetExpertPlayer:
    """``set-expert``: the move of highest equity in the set in progress (ties: the higher
    win probability), as if the set were the whole match: a hand card is spent whenever it
    gains anything in this set. The baseline the match players are measured against."""

    match = False
    """Whether it values moves by the match (:class:`MatchExpertPlayer`) rather than the set."""

    def __init__(
        self,
        *,
        ruleset: Ruleset,
        opponent_deck: Sequence[Card] | None,
        samples: int = SAMPLED_HANDS,
    ) -> None:
        if opponent_deck is None:
            raise PazaakError("the expert player needs the opponent's side deck as its prior")
        self.ruleset = ruleset
        self.opponent_deck = tuple(opponent_deck)
        self.samples = samples
        self._sets_seen = 0
        self._earlier: list[TableCard] = []
        self._this_set: list[TableCard] = []
        self._samples: list[tuple[Card, ...]] = []
        """The opponent hands sampled this set, as they stood after ``_sampled_after`` plays."""
        self._sampled_after: list[Card] = []

    def choose(self, view: MatchState) -> Action:
        require_decision(view)
        seat = view.turn
        self._track(view, seat)
        try:
            earlier = played_cards(self._earlier, self.opponent_deck)
        except PazaakError:  # earlier plays the deck cannot explain: forget them
            self._earlier, earlier = [], []
        options = SolveOptions(
            opponent_deck=self.opponent_deck,
            opponent_played=earlier,
            max_hands=self.samples,
            sample_seed=format_position(view),
        )
        other = view.sides[1 - seat]
        if self.samples and not other.hand_known and (self.match or not other.standing):
            try:
                options.opponent_hands = self._sample_hands(view, earlier)
            except PazaakError:
                options.opponent_hands = None  # the plays do not fit the prior: see below
        try:
            return action_for(view, self._best(view, options))
        except PazaakError:
            # Plays the prior cannot explain (a new match we did not notice, or a deck other
            # than the one we were told): play on without the earlier-set information.
            self._earlier = []
            options.opponent_played = ()
            options.opponent_hands = None
            return action_for(view, self._best(view, options))

    def _best(self, view: MatchState, options: SolveOptions) -> Move:
        """The move to make: the best by the set's equity."""
        rules, other = view.ruleset, view.sides[1 - view.turn]
        if not other.standing and rules.main_deck is not MainDeck.INFINITE:
            view = view._replace(ruleset=_infinite(rules), deck=FULL_DECK)
        if self.samples == 0 and not other.standing:
            # the cheapest model: the opponent is taken to hold no cards at all
            hidden = other._replace(hand=())
            sides = (view.sides[0], hidden) if view.turn == 0 else (hidden, view.sides[1])
            view = view._replace(sides=sides)
        if view.ruleset.main_deck is MainDeck.INFINITE:
            options.solver = _shared_solver(view.ruleset, self.opponent_deck)
        return advise(view, options).results[0].move

    def _track(self, view: MatchState, seat: int) -> None:
        """Remember the hand cards the opponent has played in earlier sets of this match."""
        sets = len(view.set_winners)
        if sets < self._sets_seen:  # a new match
            self._earlier, self._this_set = [], []
        elif sets > self._sets_seen:
            self._earlier.extend(self._this_set)
            self._this_set = []
        if sets != self._sets_seen or not view.sides[1 - seat].table:
            # a new set, or the opponent has not drawn in this one yet: sample afresh
            self._samples = []
        self._sets_seen = sets
        table = view.sides[1 - seat].table
        self._this_set = [card for card in table if card.placed is not Placed.MAIN]
        dealt = view.ruleset.hand_size
        if len(self._earlier) + len(self._this_set) + len(view.sides[1 - seat].hand) > dealt:
            self._earlier = []  # inconsistent: a new match began without a smaller set count

    def _sample_hands(
        self, view: MatchState, earlier: Sequence[Card]
    ) -> list[tuple[tuple[Card, ...], int]]:
        """The opponent's hands to average over: every possible one if there are few, else
        :data:`SAMPLED_HANDS` drawn by weight at the set's first decision and kept while they
        hold the cards the opponent has played since (a sample that cannot have made a play is
        drawn again)."""
        other = view.sides[1 - view.turn]
        possible, played = hidden_hands(other, self.opponent_deck, earlier)
        if len(possible) <= self.samples:
            self._samples = []
            return possible
        still = set(hand for hand, _ in possible)
        since = Counter(played)
        since.subtract(self._sampled_after)
        kept: list[tuple[Card, ...] | None] = []
        for hand in self._samples:
            left = Counter(hand)
            left.subtract(since)
            now = tuple(sorted(left.elements(), key=str))
            kept.append(now if min(left.values(), default=0) >= 0 and now in still else None)
        kept.extend([None] * (self.samples - len(kept)))
        rng = random.Random(format_position(view))
        weights = [ways for _, ways in possible]
        samples = [
            hand if hand is not None else possible[rng.choices(range(len(possible)), weights)[0]][0]
            for hand in kept
        ]
        self._samples, self._sampled_after = samples, played
        return sorted(Counter(samples).items(), key=lambda item: [str(c) for c in item[0]])


class MatchExpertPlayer(SetExpertPlayer):
    """``match-expert``: the move with the highest probability of winning the MATCH.

    It sees what :class:`SetExpertPlayer` sees and samples the opponent's hand the same way, but
    values each move by the exact match solver (:func:`best_match_move`: both sides play
    for the match, hand cards kept for later sets, the score weighing each set). It counts the
    cards: while the opponent plays, the set in progress is drawn with the odds of the main
    deck as it stands (the cards gone since the shuffle are public);
    once the opponent stands, exactly, without replacement. (Drawing with a full deck's odds
    instead, so that one memo serves every decision, won 2 points fewer matches against
    ``kotor``: docs/simulate.md.)

    The match-state values it needs (every sub-hand of its hand against every sub-hand of the
    sampled ones, at every score) are solved when first needed and kept in the user's match
    cache (:mod:`pazaak_cli.solve.match_cache`), shared with ``pazaak advise``: the first matches of
    a deck pair are slow (docs/simulate.md gives the measured costs), later ones read them;
    ``pazaak prepare`` solves them ahead.

    On a total no draw can bust, the opponent still playing (:func:`_draw_cannot_bust`), it
    takes the opponent's hand as empty, as :class:`ExpertPlayer` does: those decisions took
    nine tenths of its time, each solving its set in progress nearly whole for each sampled
    hand, and nearly always end the turn. Measured on 600 matches against ``kotor``, the deck
    pair prepared (benchmarks/bench_match_expert_no_bust.py, docs/benchmarks.md): 26 of 5,403
    such decisions differ, 220 wins against 221 on the same deals, a seventh of the time.
    """

    match = True
    later_blind = False
    """Whether the later sets take the opponent's hand as empty (``MatchSolver.later_blind``)."""

    def _best(self, view: MatchState, options: SolveOptions) -> Move:
        if _draw_cannot_bust(view):
            options.opponent_hands = [((), 1)]
        solver = _match_solver(view.ruleset, 1 - view.turn if self.later_blind else None)
        options.objective = "match"
        move = best_match_move(question_from_state(view), options, solver=solver)
        _save_now_and_then(solver)
        return move


class ExpertPlayer(MatchExpertPlayer):
    """``expert`` (also named ``match-lite``): :class:`MatchExpertPlayer` with a lighter model
    of the later sets, so that it plays any deck from its first move.

    The set in progress is the match expert's (the sampled opponent hands, the cards counted),
    but the later sets take the opponent's hand as empty (:attr:`MatchSolver.later_blind`): its
    own cards are valued over the rest of the match, the opponent's only in this set. The match
    states it needs are then its own sub-hands against the empty hand at every score (3,474
    for all of ``kotor2-average``) instead of every sub-hand pair of the two decks (for KOTOR II
    decks with a Double, hours of solving; with the starter decks minutes for the first
    matches). On a total no draw can bust it takes the opponent's hand as empty in the set in
    progress too, as the match expert does (measured for this player first: docs/simulate.md).
    """

    later_blind = True


def _draw_cannot_bust(view: MatchState) -> bool:
    """Whether the mover is on a total that no main-deck card can take past the target, the
    opponent still playing: where ``expert`` and ``match-expert`` take the opponent's hand as
    empty.

    Measured (docs/simulate.md): four fifths to nine tenths of its time went to these
    decisions, the set in progress solved nearly whole for each sampled hand, and they end the
    turn nearly always; with the opponent's hand taken as empty they cost a seventh to a
    fourteenth as much, and the move differed in 14 of 2,665 such decisions with the starter
    decks, 1 of 183 with ``kotor2-average``."""
    me, other = view.sides[view.turn], view.sides[1 - view.turn]
    return not other.standing and me.total + MAIN_VALUES[-1] <= view.ruleset.target


MATCH_MEMO_LIMIT = 6_000_000
"""Positions the match expert's memo may hold (emptied between decisions past it; the
match-state values stay)."""

SAVE_EVERY = 2_000
"""The match expert writes its match-state values to the cache once it has this many more
than at the last write (each write is the whole file)."""

_MATCH_SOLVERS: dict[tuple[Ruleset, bool], tuple[MatchSolver, list[int]]] = {}


def _match_solver(rules: Ruleset, later_blind: int | None = None) -> MatchSolver:
    """One match solver per ruleset for every match expert of the process, and one for every
    ``expert`` whichever seat its later sets are blind to (it sits in either seat in turn:
    one memo, not two; ``MatchSolver.blind_to``), with the values of the cache (and the entry
    count at the last write)."""
    key = (rules, later_blind is not None)
    found = _MATCH_SOLVERS.get(key)
    if found is None:
        solver = make_match_solver(rules, max_states=MATCH_MEMO_LIMIT, later_blind=later_blind)
        load_entries(solver)
        found = _MATCH_SOLVERS[key] = (solver, [solver.entry_count])
    found[0].blind_to(later_blind)
    return found[0]


def _save_now_and_then(solver: MatchSolver) -> None:
    saved = _MATCH_SOLVERS[solver.ruleset, solver.later_blind is not None][1]
    if solver.entry_count >= saved[0] + SAVE_EVERY:
        save_entries(solver)
        saved[0] = solver.entry_count


def _infinite(rules: Ruleset) -> Ruleset:
    import dataclasses

    return dataclasses.replace(rules, main_deck=MainDeck.INFINITE)


def action_for(view: MatchState, move: Move) -> Action:
    """The engine action that starts ``move`` (a play is followed by end or stand next call)."""
    if move.card is None:
        return STAND if move.then == "stand" else END_TURN
    for action in view.legal_actions():
        if (
            isinstance(action, Play)
            and action.card == move.card
            and (move.value is None or action.value == move.value)
        ):
            return action
    raise PazaakError(f"the solver chose {move}, which is not a legal action here")
