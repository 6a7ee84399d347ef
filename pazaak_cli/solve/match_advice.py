"""Match advice: every move of a position with its probability of winning the match.

The question layer over the match solver (:mod:`pazaak_cli.solve.match_solver`, and its C core
through :func:`pazaak_cli.solve.match_native.make_match_solver`): it checks that the position can
occur in a match, averages a hidden opponent hand over its possible hands (each solved with both
hands known), chooses the deck model of the set in progress, and returns an
:class:`~pazaak_cli.solve.answer_types.Advice` whose moves carry their match-win probability.
Against a model with a rule (``options.rule``: the KOTOR I rule, the heuristic) the same, solved by
:mod:`pazaak_cli.solve.match_kotor` (:func:`solve_kotor_match_question`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, NamedTuple

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import FULL_DECK, MatchState, Side
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import PositionError, Question
from pazaak_cli.engine.rules import MainDeck, Ruleset
from pazaak_cli.policies.kotor_rule import DecisionRule
from pazaak_cli.runtime.cpu_load import slowdown
from pazaak_cli.runtime.executors import available_cores, two_solver_processes
from pazaak_cli.solve.answer_types import (
    BEST_TOLERANCE,
    Advice,
    Move,
    MoveResult,
    Outcome,
    SolveOptions,
    SolverTooLarge,
    clean_probability,
)
from pazaak_cli.solve.foresight_pace import MATCH_PACE, foresight_fixed
from pazaak_cli.solve.hand_rows import HandRows, HandsSolved, MoveRow
from pazaak_cli.solve.hidden_hands import (
    check_hand_sizes,
    subhand_count,
    weighted_opponent_hands,
)
from pazaak_cli.solve.match_cache import load_entries, save_entries
from pazaak_cli.solve.match_kotor import NATIVE_RULES as KOTOR_NATIVE_RULES
from pazaak_cli.solve.match_kotor import KotorMatchSolver, canonical_order, match_hand_orders
from pazaak_cli.solve.match_native import NativeMatchSolver, make_match_solver
from pazaak_cli.solve.match_solver import MatchMove, MatchSolver
from pazaak_cli.solve.models import OPTIMAL, OpponentModel
from pazaak_cli.solve.solver import deck_after_draw, hand_processes, weighted_sums

MATCH_MEMO_STATES = 30_000_000
"""The match solver's memo is emptied between questions once it holds this many positions (the
match-state values stay): a bound on its memory."""


def check_match_position(state: MatchState) -> None:
    """Refuse a position that no match can reach: a score that already ended the match, or a
    hand larger than the ruleset deals."""
    rules = state.ruleset
    won = state.sets_won()
    if max(won) >= rules.sets_to_win:
        raise PositionError(
            f"the score {won[0]}-{won[1]} has already ended a match to "
            f"{counted(rules.sets_to_win, 'set')} "
            "won: no move is left to advise"
        )
    for seat, side in enumerate(state.sides):
        if len(side.hand) > rules.hand_size:
            raise PositionError(
                f"player {seat + 1} holds {counted(len(side.hand), 'hand card')}, more than the "
                f"{rules.hand_size} that {rules.spec} deals for a match"
            )


def match_other_hands(
    side: Side, options: SolveOptions, ruleset: Ruleset
) -> list[tuple[tuple[Card, ...], int]]:
    """The opponent's possible hands with their weights. Unlike the set, the match needs them
    even when the opponent stands: what it keeps is what it plays the later sets with."""
    if side.hand_known:
        return [(tuple(card for card in side.hand if card is not None), 1)]
    if not side.standing:
        return weighted_opponent_hands(side, options, ruleset)
    hidden = side._replace(standing=False)
    return weighted_opponent_hands(hidden, options, ruleset)


QUICK_MATCH_PAIRS = 256
"""The most (my sub-hand, opponent sub-hand) pairs a match answer solves by default: every
question with both hands known and plain cards (four a side: 16 x 16 sub-hands). Each pair is a
set solved from empty tables at every score; measured, the whole command on two cores
(docs/advise.md): 4 v 4 plain cards about 4 s, all four ± cards a side about 7 s (6 and 12 s in
one process), kotor2 hands with Tiebreakers and ±1/2 cards up to about 12 s. Beyond it (a
hidden hand brings every sub-hand of every hand it may be) the default answer is the set's
(:func:`match_is_quick`)."""

QUICK_GOLD_MATCH_PAIRS = 6
"""The same limit where either hand may hold a flip card or a Double (:data:`MANY_SIDE_KINDS`):
they make many more sides (a flip remembers what it would turn over, and keeps the card count),
about 1 s of CPU a pair (1 v 1 flips: 3.8 s; 2 v 2: 7 to 17 s)."""

GOLD_PAIR_WEIGHT = 10
"""How many times a set in progress with a flip card or a Double about counts against
:data:`QUICK_SET_PAIRS` (its sides, as above)."""

GOLD_PAIR_SECONDS = 0.10
"""Seconds a pair of sub-hands without a flip card or a Double costs the match answer where
either hand holds one, solved at every score in one process (kotor2's ± and Tiebreaker cards;
the later sets of a hand with gold cards are solved hand by hand, in one process), each flip
card or Double in the pair's two sub-hands multiplying it by :data:`GOLD_CARD_FACTOR`. Fitted
in logarithm on eight kotor2 questions with both hands known, the disk cache off, one process
(docs/benchmarks.md, "the gold foresight counted card by card"): from `F2/4` against `F3/6` (4
pairs, 0.9 s) to `±6 D F3/6 T` against `F2/4 F2/4 T ±1/2` (192 pairs, 377 s with room for its
tables, 782 s within the bound), each within a factor of 1.7. A flat weight of 10 on the plain
cards' rate had foreseen that last one at 31 s."""

GOLD_CARD_FACTOR = 2.8
"""How many times a flip card or a Double in a pair's sub-hands multiplies its cost (see
:data:`GOLD_PAIR_SECONDS`): a flip keeps the sums it would turn over, a Double the card it
doubles, in every side of the hand."""


def gold_pairs(
    my_hand: Sequence[Card], other_hands: Sequence[tuple[tuple[Card, ...], int]]
) -> float:
    """The (my sub-hand, opponent sub-hand) pairs of :func:`match_pairs`, each counted
    :data:`GOLD_CARD_FACTOR` times over for each flip card or Double the two hold: what a
    question with gold cards costs, in pairs without one."""

    def by_gold(hands: Iterable[Sequence[Card]]) -> float:
        return sum(
            GOLD_CARD_FACTOR ** sum(card.kind in MANY_SIDE_KINDS for card in sub)
            for sub in _sub_hands(hands)
        )

    return by_gold([my_hand]) * by_gold([hand for hand, _ in other_hands])


@dataclass(frozen=True)
class KotorMatchLimits:
    """What the match answer against a rule may cost, by where its recursion runs (measured,
    docs/benchmarks.md): the C loop of :mod:`pazaak_cli.solve.match_kotor` for a rule it
    decides itself, else Python, 16 to 28 times slower."""

    budget: int
    """Positions one question may search (and the memo is emptied between hidden hands past
    as many); past that the question is refused with the reason, not left to run away."""
    quick_pairs: int
    """The most pairs of sub-hands the default answers for the match in a few seconds."""
    reach_pairs: int
    """The most pairs of sub-hands (counted with the orders that change the rule's choices)
    one hand of the opponent may bring; past it the answer is refused at once instead of after
    minutes (the budget stays the guard)."""
    pair_seconds: float
    """Wall seconds a pair of sub-hands costs, solved at every score, in one process."""
    split_share: float
    """The share of that time left when the later sets are solved in two processes
    (:func:`~pazaak_cli.runtime.executors.two_solver_processes`): what the foresight multiplies
    by."""


PYTHON_KOTOR_MATCH = KotorMatchLimits(
    budget=5_000_000, quick_pairs=9, reach_pairs=64, pair_seconds=2.0, split_share=1.0
)
"""Pure Python, measured at 1.1 to 2.4 s of CPU a pair (1 v 1 cards: 4 pairs, 4.4 s; 2 v 1: 9
pairs, about 10 s; 2 v 2: 16 pairs, 18 s; 3 v 3: 64 pairs, 155 s within the budget of 5 M
positions, about 1.5 GB at Python's 250 bytes; 3 and 4 cards against 4 known, 96 and 192 pairs,
were refused at that bound after 122 and 125 s). Its two processes were not measured: foreseen
as one."""

NATIVE_KOTOR_MATCH = KotorMatchLimits(
    budget=64_000_000, quick_pairs=128, reach_pairs=256, pair_seconds=0.030, split_share=0.62
)
"""The C loop, measured as whole commands, kotor1 first move, both hands known, the disk cache off
(docs/benchmarks.md, "the rule's rates measured again"): 4 v 4 (256 pairs) 6.4 s in one process
(``PAZAAK_SOLVER_PROCESSES=1``: 0.025 s a pair; 3 v 3, 64 pairs, 0.028 with its start-up; 0.030
foreseen), 3.7 to 3.8 s with its later sets in two (0.58 of that); 3 cards against 4 (128 pairs) 2.0
s on two cores; 3 v 3 1.2 s. In two processes the least sample of a time budget (two hidden hands of
``kotor1-average``) took 0.61 (4 cards) and 0.63 (3 cards) of one process's time: the share
foreseen. So 128 pairs answer by default in about 2 s; a hand of 4 cards against 4 (256 pairs) fits;
the budget (64 M positions, about 15 s) guards the time, the table the memory. Past the reach:
kotor2's all-gold 4 v 4 (512 pairs with the orders the rule reads) had searched 400 M positions
after 119 s, unanswered. (Before the main table of values and the replies by index: 0.035 s a pair,
64 pairs quick.)"""


def kotor_match_limits(rule: DecisionRule) -> KotorMatchLimits:
    """The limits of the match answer against ``rule``: the C loop's where it decides the rule
    itself (:data:`~pazaak_cli.solve.match_kotor.NATIVE_RULES`, the extension built)."""
    return NATIVE_KOTOR_MATCH if rule in KOTOR_NATIVE_RULES else PYTHON_KOTOR_MATCH


MANY_SIDE_KINDS = frozenset((CardKind.FLIP_2_4, CardKind.FLIP_3_6, CardKind.DOUBLE))
"""The card kinds :data:`QUICK_GOLD_MATCH_PAIRS` and :data:`GOLD_PAIR_WEIGHT` are for."""


def match_pairs(
    my_hand: Sequence[Card],
    other_hands: Sequence[tuple[tuple[Card, ...], int]],
    *,
    ordered: bool = False,
) -> int:
    """How many (my sub-hand, opponent sub-hand) pairs a match answer must solve: the measure
    of its cost. ``ordered``: against the KOTOR rule, whose hands count with the orders of their
    cards that change its choices."""
    if not ordered:
        return subhand_count(my_hand) * len(_sub_hands(hand for hand, _ in other_hands))
    theirs = {
        canonical_order(sub)
        for hand, _ in other_hands
        for cards in match_hand_orders(hand)
        for sub in _masked(cards)
    }
    return subhand_count(my_hand) * len(theirs)


def _masked(cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every sub-sequence of ``cards`` (a card kept or not, in their order)."""
    for mask in range(1 << len(cards)):
        yield tuple(card for at, card in enumerate(cards) if mask >> at & 1)


def _sub_hands(hands: Iterable[Sequence[Card]]) -> set[tuple[Card, ...]]:
    """The distinct sub-hands of any of ``hands`` (their cards in a fixed order)."""
    return {sub for hand in hands for sub in _masked(sorted(hand, key=str))}


QUICK_SET_PAIRS = 16_384
"""The most pairs of sub-hands, summed over the opponent's possible hands, whose set in progress
a match answer solves by default once every later set's value is known (solved before in this
process, or read from the disk cache): each possible hand's set in progress is solved on its
own; measured at 2.2 s for a hidden 4-card `kotor1-starter` hand against four cards (45
hands, 11,520 pairs; docs/advise.md)."""


class MatchCost(NamedTuple):
    """What a match answer costs, in pairs of sub-hands solved at every score."""

    pairs: int
    """The pairs of sub-hands of the question (:func:`match_pairs`)."""
    left: int
    """Those still to solve: the match states not solved before in this process nor read from
    the disk cache, counted in pairs solved at every score (see :func:`_pairs_left`)."""
    quick: int
    """The most pairs left that answer in a few seconds: the default's limit."""


def match_question_pairs(question: Question, options: SolveOptions) -> MatchCost:
    """The pairs of sub-hands the match answer to ``question`` against ``options.opponent``
    solves at every score (:func:`match_pairs`), those it still has to (less what the shared
    solver already knows: see :func:`_pairs_left`), and the most it answers by default in a
    few seconds (:data:`QUICK_MATCH_PAIRS`, :data:`QUICK_GOLD_MATCH_PAIRS` where a flip or a
    Double is about; :func:`kotor_match_limits` against a rule)."""
    state = question.state
    me_side, other_side = state.sides[state.turn], state.sides[1 - state.turn]
    other_hands = match_other_hands(other_side, options, state.ruleset)
    my_hand = tuple(card for card in me_side.hand if card is not None)
    if options.rule is not None:
        pairs = match_pairs(my_hand, other_hands, ordered=True)
        quick = kotor_match_limits(options.rule).quick_pairs
        left = pairs
        if pairs > quick:
            left = _rule_pairs_left(state, my_hand, other_hands, options, pairs)
        return MatchCost(pairs, left, quick)
    cards = [*my_hand, *(card for hand, _ in other_hands for card in hand)]
    gold = any(card.kind in MANY_SIDE_KINDS for card in cards)
    weight = GOLD_PAIR_WEIGHT if gold else 1
    pairs = match_pairs(my_hand, other_hands)
    quick = QUICK_GOLD_MATCH_PAIRS if gold else QUICK_MATCH_PAIRS
    left = pairs
    if pairs > quick:
        left = _pairs_left(state, my_hand, other_hands, pairs, QUICK_SET_PAIRS // weight)
    return MatchCost(pairs, left, quick)


def _rule_pairs_left(
    state: MatchState,
    my_hand: tuple[Card, ...],
    other_hands: Sequence[tuple[tuple[Card, ...], int]],
    options: SolveOptions,
    pairs: int,
) -> int:
    """:func:`_pairs_left` against a rule: the pairs of the hands whose later sets the shared
    solver against it does not know (solved before, or read from the disk cache, as
    ``pazaak prepare --opponent`` leaves them); ``pairs`` itself where the sets in progress
    (each order of a hand the rule tells apart on its own) are more than
    :data:`QUICK_SET_PAIRS`."""
    hidden = not state.sides[1 - state.turn].hand_known
    orders = (len(match_hand_orders(hand)) if hidden else 1 for hand, _ in other_hands)
    in_progress = subhand_count(my_hand) * sum(
        count * subhand_count(hand) for count, (hand, _) in zip(orders, other_hands, strict=True)
    )
    if in_progress > QUICK_SET_PAIRS:
        return pairs
    unknown = [
        (hand, ways)
        for hand, ways in other_hands
        if not later_sets_known(state, state.turn, options, [hand])
    ]
    return match_pairs(my_hand, unknown, ordered=True) if unknown else 0


def _pairs_left(
    state: MatchState,
    my_hand: tuple[Card, ...],
    other_hands: Sequence[tuple[tuple[Card, ...], int]],
    pairs: int,
    set_limit: int,
) -> int:
    """The pairs of sub-hands still to solve, counted as :func:`match_pairs` counts them (a
    pair solved at every score) from the match states the shared solver does not know yet:
    ``pairs`` itself when the sets in progress of all the possible hands are more than
    ``set_limit`` pairs (then the answer is slow whatever the later sets)."""
    in_progress = subhand_count(my_hand) * sum(subhand_count(hand) for hand, _ in other_hands)
    if in_progress > set_limit:
        return pairs
    solver = shared_match_solver(state.ruleset)
    seats = _seated(state.turn, my_hand, [hand for hand, _ in other_hands])
    missing, states = solver.unsolved(state.sets_won(), seats)
    return -(-missing * pairs // states) if states else 0


MATCH_PAIR_SECONDS = 0.016
"""Wall seconds a pair of sub-hands costs the match answer, solved at every score on two
cores: measured on the 4 v 4 first move (256 pairs, 4.2 s; docs/benchmarks.md). A flip card or
a Double about multiplies it by :data:`GOLD_PAIR_WEIGHT`. Blocks that make rows again
(``MatchSolver.blocks_rework``) add those at :data:`REBUILT_PAIR_SECONDS`: 4 hidden cards of
`kotor1-strong`, 3,552 pairs made 1.6 times over: 68 s foreseen (its sets in progress
included), 71 s taken."""

REBUILT_PAIR_SECONDS = 0.004
"""Wall seconds a pair of sub-hands costs each time a score's blocks make its tables again
(``MatchSolver.blocks_rework``: its states are solved by then, so no fixed point is iterated)."""

KNOWN_PAIR_SECONDS = 0.010
"""Wall seconds a pair of sub-hands whose match states are known costs a batch of hands that
still has states to solve: their sets pass through those pairs' positions, whose tables the
batch before freed, and search them again. Measured on the growth of samples of `+1 +2 +3 +4`
against 4 hidden cards of `kotor1-average` after a first batch of 17, 31 and 47 hands: 800 to
912 known pairs beside 192 to 320 new ones, 5.8 to 8.8 s more than the new pairs foresee (0.0071
to 0.0094 s a known pair; the growth's hands are lost if it is cut at the deadline, so the
foresight errs long). At :data:`REBUILT_PAIR_SECONDS` these growths took 1.4 to 1.6 times
their foresight: `--time 30` overran by 2.9 s, its growth cut with 2 of its 13 hands solved."""

SET_PAIR_SECONDS = 1.57 / 15_616
"""The same for a pair of sub-hands of a set in progress solved once the later sets are known,
its rows shared by two processes: measured on the first move of `kotor1-starter`'s `+1 +2 +3
+4` against 4 hidden cards of `kotor1-average`, prepared (61 hands, 15,616 pairs, 1.57 s from
the first row to the answer; it was 2.2 s for 11,520 pairs, the whole command, before the sets
in progress were made faster: docs/benchmarks.md)."""

SET_PAIR_SECONDS_ALONE = 2.6 / 15_616
"""The same in one process (measured on the same question)."""


def match_seconds(
    question: Question,
    options: SolveOptions,
    hands: Sequence[tuple[tuple[Card, ...], int]],
    solved: Sequence[tuple[tuple[Card, ...], int]] = (),
) -> float:
    """The wall seconds the match answer to ``question`` is foreseen to take with the opponent
    holding one of ``hands`` (its possible hands, or a sample of them), from the pairs of
    sub-hands still to solve (:func:`match_question_pairs`' counts) at the measured rates; the
    infinite where it would be refused. ``solved``: hands whose answers the same solver has
    given already (against a rule, their pairs are not counted again: their later sets are
    known, as are those of hands whose later sets the shared solver knows; an optimal
    opponent's shared solver says itself what it knows). The rates are counted at this
    machine's pace (:data:`~pazaak_cli.solve.foresight_pace.MATCH_PACE`, which the budgeted
    answers teach) on an idle machine, and stretched by what other work is using of it now
    (:func:`slowdown`); both left out where the foresight is fixed (``PAZAAK_FORESIGHT``)."""
    pace = MATCH_PACE.pace(match_foresight_kind(question, options, hands))
    idle = _idle_match_seconds(question, options, hands, solved) * pace
    if foresight_fixed():
        return idle
    return idle * slowdown(2 if two_solver_processes() else 1, available_cores())


def match_foresight_kind(
    question: Question, options: SolveOptions, hands: Sequence[tuple[tuple[Card, ...], int]]
) -> str:
    """Which pace :func:`match_seconds` counts for these hands
    (:data:`~pazaak_cli.solve.foresight_pace.PACE_KINDS`): against a rule, or with a flip card
    or a Double in either hand, or plain."""
    if options.rule is not None:
        return "rule"
    state = question.state
    mine = (card for card in state.sides[state.turn].hand if card is not None)
    cards = [*mine, *(card for hand, _ in hands for card in hand)]
    return "gold" if any(card.kind in MANY_SIDE_KINDS for card in cards) else "plain"


def teach_match_pace(
    question: Question,
    options: SolveOptions,
    hands: Sequence[tuple[tuple[Card, ...], int]],
    foreseen: float,
    took: float,
) -> None:
    """A batch of ``hands`` that :func:`match_seconds` foresaw at ``foreseen`` seconds ran whole
    in ``took``: its kind of foresight learns this machine's pace from it."""
    MATCH_PACE.learn(match_foresight_kind(question, options, hands), foreseen, took)


def _idle_match_seconds(
    question: Question,
    options: SolveOptions,
    hands: Sequence[tuple[tuple[Card, ...], int]],
    solved: Sequence[tuple[tuple[Card, ...], int]],
) -> float:
    """:func:`match_seconds` on an idle machine."""
    state = question.state
    my_hand = tuple(card for card in state.sides[state.turn].hand if card is not None)
    if options.rule is not None:
        limits = kotor_match_limits(options.rule)
        largest = max(match_pairs(my_hand, [(hand, 1)], ordered=True) for hand, _ in hands)
        if largest > limits.reach_pairs:
            return math.inf
        share = limits.split_share if two_solver_processes() else 1.0
        # (hands whose later sets were solved ahead of the question count as solved:
        # :mod:`pazaak_cli.solve.pondering`)
        ahead = [later_sets_known(state, state.turn, options, [hand]) for hand, _ in hands]
        solved = [*solved, *(hand for hand, known in zip(hands, ahead, strict=True) if known)]
        hands = [hand for hand, known in zip(hands, ahead, strict=True) if not known]
        known = match_pairs(my_hand, solved, ordered=True) if solved else 0
        pairs = match_pairs(my_hand, [*solved, *hands], ordered=True) - known
        return pairs * limits.pair_seconds * share
    cards = [*my_hand, *(card for hand, _ in hands for card in hand)]
    weight = GOLD_PAIR_WEIGHT if any(card.kind in MANY_SIDE_KINDS for card in cards) else 1
    pairs = match_pairs(my_hand, hands)
    left = _pairs_left(state, my_hand, hands, pairs, QUICK_SET_PAIRS // weight)
    again = pairs - left if 0 < left < pairs else 0  # (see KNOWN_PAIR_SECONDS)
    in_progress = subhand_count(my_hand) * sum(subhand_count(hand) for hand, _ in hands)
    each = SET_PAIR_SECONDS if two_solver_processes() else SET_PAIR_SECONDS_ALONE
    if weight > 1:  # (hand by hand, card by card: see GOLD_PAIR_SECONDS)
        new = gold_pairs(my_hand, hands) * left / pairs if left else 0.0
        return new * GOLD_PAIR_SECONDS + weight * (again * KNOWN_PAIR_SECONDS + in_progress * each)
    rework = 1.0
    if left and weight == 1 and len(hands) > 1:  # (the rows the blocks make again)
        seats = _seated(state.turn, my_hand, [hand for hand, _ in hands])
        processes = 2 if two_solver_processes() else 1
        rework = shared_match_solver(state.ruleset).blocks_rework(seats, processes)
    rebuilt = left * (rework - 1.0)  # (made again: their states known)
    return weight * (
        left * MATCH_PAIR_SECONDS
        + again * KNOWN_PAIR_SECONDS
        + rebuilt * REBUILT_PAIR_SECONDS
        + in_progress * each
    )


def match_is_quick(question: Question, options: SolveOptions) -> bool:
    """Whether the match answer to ``question`` against ``options.opponent`` is quick enough to
    be the default (a few seconds): see :func:`match_question_pairs`."""
    cost = match_question_pairs(question, options)
    return cost.left <= cost.quick


def solve_match_question(
    question: Question,
    options: SolveOptions | None = None,
    *,
    solver: MatchSolver | None = None,
    full_deck_odds: bool = False,
) -> Advice:
    """Every move of the player who has just drawn ``question.drawn`` with its probability of
    winning the match (both sides playing for the match from then on) and the set's odds along
    the same line; an opponent hand that is hidden is averaged over its possible hands, each
    solved with both hands known. ``solver``: one to reuse (its match-state values carry over).
    ``full_deck_odds``: the set in progress too is drawn with a full deck's odds, as the later
    sets are (the expert's shortcut: one model, one memo for every decision)."""
    options = options or SolveOptions()
    if options.rule is not None:
        return solve_kotor_match_question(question, options)
    return _solve_match(question, options, solver, full_deck_odds, odds="all")


def best_match_move(
    question: Question,
    options: SolveOptions,
    *,
    solver: MatchSolver | None = None,
    full_deck_odds: bool = False,
) -> Move:
    """The move :func:`solve_match_question` ranks first, for a player that needs no more.

    The set's odds along each line only order moves of exactly equal match value, so they are
    computed only then (a fifth of the match expert's time went to them, docs/benchmarks.md):
    the move is the same."""
    if options.rule is not None:
        return solve_kotor_match_question(question, options).results[0].move
    return _solve_match(question, options, solver, full_deck_odds, odds="ties").results[0].move


def _solve_match(
    question: Question,
    options: SolveOptions,
    solver: MatchSolver | None,
    full_deck_odds: bool,
    *,
    odds: Literal["all", "ties"],
) -> Advice:
    """:func:`solve_match_question` (``odds="all"``); ``odds="ties"``: the set odds of the
    moves only if two of them share the best match value (else NaN: see
    :func:`best_match_move`)."""
    hands = MatchHands(question, options, solver=solver, full_deck_odds=full_deck_odds)
    try:
        hands.prepare(range(len(hands.other_hands)))
        processes = hands.processes_for(range(len(hands.other_hands)))
        rows = _every_hand(
            hands,
            partial(hands.row, with_odds=odds == "all"),
            options.progress,
            processes=processes,
        )
        if odds == "ties" and _best_tied(rows):
            rows = _every_hand(hands, partial(hands.row, with_odds=True), None)
    finally:
        hands.release()
        hands.save()  # (also where Ctrl-C stopped it: the values kept are final)
    return _averaged(rows, hands)


class _MatchHands:
    """What the match answer's two hand-by-hand solvers share: the question checked
    (:func:`_checked_question`), the opponent's possible hands, the deck model of the set in
    progress (``current``: its deck, ``None`` for a full deck's odds; ``exact``: drawn without
    replacement), the moves of the last hand solved, and the model line."""

    def __init__(
        self, question: Question, options: SolveOptions, *, full_deck_odds: bool = False
    ) -> None:
        state, self.my_hand, self.other_hands, deck_after = _checked_question(question, options)
        self.question, self.options = question, options
        self.current: tuple[int, ...] | None = None
        self.exact = False
        if state.ruleset.main_deck is not MainDeck.INFINITE and not full_deck_odds:
            self.current = deck_after if any(deck_after) else FULL_DECK
            self.exact = options.exact or state.sides[1 - state.turn].standing
        self.moves: list[Move] = []

    @property
    def model(self) -> str:
        state = self.question.state
        return describe_match_model(
            state, self.other_hands, self.current, self.exact, model=self.options.model
        )

    @property
    def fixed_probabilities(self) -> bool:
        return self.current is not None and not self.exact


def _longest_fitting(
    solver: MatchSolver,
    seats: Callable[
        [Sequence[Sequence[Card]]], tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]]
    ],
    hands: Sequence[Sequence[Card]],
    processes: int,
) -> int:
    """How many of ``hands``, from the first, the solver's dense tables hold at once, a score's
    for each of ``processes`` (found by halving: a run's sub-hands only grow with it); 1 when
    not even two fit."""
    if solver.fits(seats(hands), processes):
        return len(hands)
    low, high = 1, len(hands) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if solver.fits(seats(hands[:middle]), processes):
            low = middle
        else:
            high = middle - 1
    return low


def prepare_runs(
    solver: MatchSolver,
    scores: tuple[int, int],
    seat: int,
    my_hand: Sequence[Card],
    theirs: Sequence[Sequence[Card]],
    *,
    each: bool = False,
    processes: int | None = None,
) -> None:
    """Solve every score's match states of ``my_hand`` (``seat``'s) against each of ``theirs``:
    all at once where they fit in memory together (they share sub-hands), else in runs of
    neighbouring hands (the hands' order keeps those that share sub-hands near), the longest
    that fit, one after another; with flips or Doubles about, none in runs (their sides make
    the memo grow past what the runs' tables leave room for). ``each``: a hand that no run
    takes is prepared alone (else it is left to its row, which prepares it with its set).
    ``processes``: the tables sized for that many processes at once (default: the pipeline's
    two where it may fork, all at once included: all of them in one process's tables left the
    pipeline no room, and took 1.27 times as long, docs/benchmarks.md)."""
    seats = partial(_seated, seat, my_hand)
    left = list(theirs)
    if not left or solver.prepared(scores, seats(left)) or _all_known(solver, scores, seats(left)):
        return
    if processes is None:
        processes = 2 if two_solver_processes() else 1
    if (len(left) > 1 or each) and solver.fits(seats(left), processes):
        solver.prepare_all(scores, seats(left))
        return
    cards = [*my_hand, *(card for hand in left for card in hand)]
    runs = not any(card.kind in MANY_SIDE_KINDS for card in cards)
    if runs and len(left) > 1 and solver.fits_in_blocks(seats(left), processes):
        # (all at once, each score in blocks: the sub-hands the hands share searched once a
        # score, not once a run; NativeMatchSolver.level_blocks)
        solver.prepare_all(scores, seats(left), processes=processes)
        return
    while left:
        run = _longest_fitting(solver, seats, left, processes) if runs and len(left) > 1 else 1
        if (run > 1 or each) and not solver.prepared(scores, seats(left[:run])):
            try:
                solver.prepare_all(scores, seats(left[:run]))
            finally:
                solver.release_tables()
        left = left[run:]


def _seated(
    seat: int, my_hand: Sequence[Card], theirs: Sequence[Sequence[Card]]
) -> tuple[list[Sequence[Card]], list[Sequence[Card]]]:
    """My hand and ``theirs`` as the match solvers take hands: in seat order, ``seat`` mine."""
    mine: list[Sequence[Card]] = [my_hand]
    return (mine, list(theirs)) if seat == 0 else (list(theirs), mine)


def _all_known(
    solver: MatchSolver,
    scores: tuple[int, int],
    hands: tuple[Sequence[Sequence[Card]], Sequence[Sequence[Card]]],
) -> bool:
    """Whether every match state below ``hands`` from ``scores`` on has its value known (a
    deck pair prepared: read from the disk cache, which :meth:`MatchSolver.prepared` does not
    know of)."""
    return solver.unsolved(scores, hands)[0] == 0


def later_sets_known(
    state: MatchState, seat: int, options: SolveOptions, theirs: Sequence[Sequence[Card]]
) -> bool:
    """Whether the shared solver of ``options``' opponent model knows every later set of the
    match answer to ``seat``'s decision in ``state`` against each of the hands ``theirs``
    (:mod:`pazaak_cli.solve.pondering` solves them ahead)."""
    my_hand = tuple(card for card in state.sides[seat].hand if card is not None)
    won = state.sets_won()
    if options.rule is None:
        return _all_known(shared_match_solver(state.ruleset), won, _seated(seat, my_hand, theirs))
    kotor = shared_kotor_solver(state.ruleset, seat, options.rule)  # (the disk cache read)
    hidden = not state.sides[1 - seat].hand_known
    return all(
        kotor.later_sets_known((won[seat], won[1 - seat]), my_hand, hand, orders=hidden)
        for hand in theirs
    )


def prepare_later_sets(
    state: MatchState,
    seat: int,
    options: SolveOptions,
    theirs: Sequence[Sequence[Card]],
    check: Callable[[int], None],
    *,
    save: bool = True,
) -> None:
    """Solve in the shared solver of ``options``' opponent model the later sets of the match
    answer to ``seat``'s decision in ``state`` against each of ``theirs`` (together, as
    :class:`MatchHands` does, or hand by hand against a rule), in this process, ``check``
    called a few times a second as the solver's progress (it may raise to stop it: what was
    solved is kept). ``save``: the values to the disk cache once done (not when stopped: a save
    of a large cache takes most of a second, which a stop would wait for).
    A question the match answer refuses raises its :class:`SolverTooLarge`."""
    my_hand = tuple(card for card in state.sides[seat].hand if card is not None)
    won = state.sets_won()
    if options.rule is None:
        solver = shared_match_solver(state.ruleset)
        previous = solver.progress
        solver.progress = check
        try:
            prepare_runs(solver, won, seat, my_hand, theirs, each=True)
        finally:
            solver.progress = previous
            solver.release_tables()
        if save:
            save_entries(solver)
        return
    limits = kotor_match_limits(options.rule)
    pairs = max(match_pairs(my_hand, [(tuple(hand), 1)], ordered=True) for hand in theirs)
    if pairs > limits.reach_pairs:
        raise SolverTooLarge(f"{pairs:,} pairs of sub-hands, {limits.reach_pairs} in reach")
    kotor = shared_kotor_solver(state.ruleset, seat, options.rule)
    hidden = not state.sides[1 - seat].hand_known
    previous = kotor.progress
    kotor.progress = check
    try:
        for hand in theirs:
            kotor.prepare_hand((won[seat], won[1 - seat]), my_hand, hand, orders=hidden)
    finally:
        kotor.progress = previous
    if save:
        save_entries(kotor)


class MatchHands(_MatchHands):
    """The match answer against an optimal opponent, one possible opponent hand at a time:
    what the exact average sums over every hand and the time-budgeted answer
    (:mod:`pazaak_cli.solve.budgeted`) over a sample. Each hand is solved with both hands known, in
    the shared solver (:func:`shared_match_solver`, unless ``solver`` is given), the set in
    progress on the exact deck where that fits (``options.exact``, or the opponent standing),
    else with the draw odds of the cards left."""

    def __init__(
        self,
        question: Question,
        options: SolveOptions,
        *,
        solver: MatchSolver | None = None,
        full_deck_odds: bool = False,
    ) -> None:
        super().__init__(question, options, full_deck_odds=full_deck_odds)
        self.shared = solver is None
        self.solver = solver or shared_match_solver(question.state.ruleset)
        self._known = self.solver.entry_count
        self._models: dict[int, bool] = {}
        """The deck model each hand was solved with (exact or not)."""
        self._previous = self.solver.progress
        self.solver.progress = options.positions

    def prepare(self, indices: Sequence[int]) -> None:
        """Solve every score's match states of the hands ``indices`` before their sets in
        progress (:func:`prepare_runs`; a hand no run takes is left to its row), in the
        hands' own order whatever order they are asked in (a sample's draws): its runs of
        neighbouring hands share the most sub-hands."""
        state = self.question.state
        theirs = [self.other_hands[i][0] for i in sorted(indices)]
        prepare_runs(self.solver, state.sets_won(), state.turn, self.my_hand, theirs)

    def run_cost(self, indices: Sequence[int]) -> int:
        """What a run of the possible hands ``indices`` costs a process that starts it cold, in
        units of a sub-hand's tables: each hand's own (its sides interned and its tables), and
        those of each sub-hand with one card fewer the run's hands hold between them, half as
        costly (fitted on the prepared answer of `kotor1-starter` against `kotor1-average`,
        the run's sides interned first: 0.034 and 0.017 s; halves by count had taken 1.58 and
        1.90 s, the cut where this balances, at 34 of 61 hands, takes 1.52 to 1.56 and 1.57 to
        1.64 s)."""
        smaller: set[tuple[str, ...]] = set()
        for index in indices:
            names = sorted(map(str, self.other_hands[index][0]))
            smaller.update(tuple(names[:at] + names[at + 1 :]) for at in range(len(names)))
        return 2 * len(indices) + len(smaller)

    def start_run(self, indices: Sequence[int]) -> None:
        """Before the rows of a run of hands, in the process that solves them: intern the sides
        their sets reach, all at once. A set in progress's tables are sized by the sides of
        each hand interned when they are made, and a hand met later in the run brings sides of
        the sub-hands it shares (a card played on another way), whose positions went to the
        hash tables: a run of 25 prepared hands took 1.39 s so against 1.49 to 1.54 s."""
        self.solver.intern_sides([self.my_hand, *(self.other_hands[i][0] for i in indices)])

    def processes_for(self, indices: Sequence[int]) -> int:
        """How many processes may share the rows of the hands ``indices``: those of the exact
        average where every later set of theirs has its value known (prepared, or read from
        the disk cache: a row then only reads values, the same bits in any process), else one
        (a row solves what it lacks, whose last bits would depend on the process). The C solver
        is told, for the share of memory its positions drawn exactly may take."""
        state = self.question.state
        theirs = [self.other_hands[index][0] for index in indices]
        known = _all_known(self.solver, state.sets_won(), _seated(state.turn, self.my_hand, theirs))
        processes = hand_processes(self.other_hands) if known else 1
        if isinstance(self.solver, NativeMatchSolver):
            self.solver.exact_share = processes  # (each process's positions drawn exactly bounded)
        return processes

    def row(self, index: int, with_odds: bool) -> MoveRow:
        """Every move's values if the opponent holds hand ``index`` (``with_odds``: the set's
        odds too, else NaN)."""
        solver, question, hand = self.solver, self.question, self.other_hands[index][0]
        solver.bound_memo()
        if index in self._models:
            results = solver.solve_moves(
                question, hand, current_deck=self.current, exact=self._models[index], odds=with_odds
            )
            return match_row(results)
        try:
            results = solver.solve_moves(
                question,
                hand,
                current_deck=self.current,
                exact=self.exact,
                budget=None if self.options.exact or not self.exact else self.options.budget,
                odds=with_odds,
            )
        except SolverTooLarge:
            if self.options.exact:
                raise  # (--exact: the exact deck or a refusal, never fixed draws)
            self.exact = False  # the set in progress with fixed probabilities instead
            results = solver.solve_moves(question, hand, current_deck=self.current, odds=with_odds)
        self._models[index] = self.exact
        self.moves = [result.move for result in results]
        solver.drop_set_hand(1 - question.state.turn)  # (no other row holds this whole hand)
        return match_row(results)

    def batch(
        self, indices: Sequence[int], solve: Callable[[Sequence[int]], HandsSolved]
    ) -> HandsSolved:
        """The hands ``indices`` solved by ``solve`` (:class:`HandRows`' ``batch``): their later
        sets first, together (:meth:`prepare`); then the dense tables freed, and what was
        solved saved, also where Ctrl-C stopped it (the values kept are final: the next
        question goes on from them, as a stopped ``pazaak prepare`` does)."""
        try:
            self.prepare(indices)
            return solve(indices)
        finally:
            self.release(keep=True)
            self.save()

    def release(self, *, keep: bool = False) -> None:
        """Free the dense tables; ``keep``: more hands may still be asked for (else the solver's
        progress callback is given back)."""
        if not keep:
            self.solver.progress = self._previous
        self.solver.release_tables()

    def save(self) -> None:
        """Save what was solved to the disk cache (the shared solver only)."""
        if self.shared and self.solver.entry_count > self._known:
            save_entries(self.solver)
            self._known = self.solver.entry_count


def match_row(results: Sequence[MatchMove]) -> MoveRow:
    """One hand's match moves as a row (:data:`~pazaak_cli.solve.hand_rows.MoveRow`)."""
    return tuple((r.match_win, r.set_win, r.set_tie, r.set_loss) for r in results)


def _best_tied(rows: Sequence[tuple[float, MoveRow]]) -> bool:
    """Whether two moves share the highest averaged match value (summed as
    :func:`average_match_moves` sums it, so that equal there is equal here)."""
    sums = [row[0] for row in weighted_sums(rows, 1, len(rows[0][1]))]
    return sums.count(max(sums)) > 1


_SHARED: dict[Ruleset, MatchSolver] = {}
"""The last ruleset's match solver, kept between questions (see :func:`shared_match_solver`)."""


def shared_match_solver(rules: Ruleset) -> MatchSolver:
    """The match solver the questions under ``rules`` share: the values at the start of a set
    depend only on the ruleset, the score, both hands and the opener, so every hint of a
    ``pazaak play`` match after the first finds the later sets solved (only the current score's
    positions are solved again). One ruleset's solver is kept, with its match-state values and
    its memo (bounded by :data:`MATCH_MEMO_STATES`); its dense tables are freed after each
    question."""
    solver = _SHARED.get(rules)
    if solver is None:
        _SHARED.clear()
        solver = _SHARED[rules] = make_match_solver(rules, max_states=MATCH_MEMO_STATES)
        load_entries(solver)  # (what earlier processes solved: docs/advise.md, the cache)
    return solver


_SHARED_KOTOR: dict[tuple[Ruleset, int, DecisionRule], KotorMatchSolver] = {}
"""The same for the match answer against a rule, per ruleset, advised seat and rule."""


def clear_shared_solvers() -> None:
    """Drop the solvers kept between questions (their memory, and what they solved)."""
    _SHARED.clear()
    _SHARED_KOTOR.clear()


def shared_kotor_solver(rules: Ruleset, seat: int, rule: DecisionRule) -> KotorMatchSolver:
    """The match solver against ``rule`` the questions of ``seat`` under ``rules`` share (as
    :func:`shared_match_solver`; its memo is emptied past its limits' budget
    (:func:`kotor_match_limits`), between questions and between the match states a question
    prepares)."""
    solver = _SHARED_KOTOR.get((rules, seat, rule))
    if solver is None:
        _SHARED_KOTOR.clear()
        limits = kotor_match_limits(rule)
        solver = KotorMatchSolver(rules, seat, max_states=limits.budget, rule=rule)
        _SHARED_KOTOR[(rules, seat, rule)] = solver
        load_entries(solver)  # (what earlier processes solved, or `pazaak prepare --opponent`)
    return solver


def _checked_question(
    question: Question, options: SolveOptions
) -> tuple[MatchState, tuple[Card, ...], list[tuple[tuple[Card, ...], int]], tuple[int, ...]]:
    """A match question checked (a possible score, hands the ruleset deals): its state, the
    mover's hand, the other seat's possible hands with their weights, the deck after the draw."""
    state = question.state
    me_side, other_side = state.sides[state.turn], state.sides[1 - state.turn]
    if not me_side.hand_known:
        raise PazaakError("the hand of the player to move must be known")
    check_match_position(state)
    other_hands = match_other_hands(other_side, options, state.ruleset)
    my_hand = tuple(card for card in me_side.hand if card is not None)
    check_hand_sizes(state.ruleset, [my_hand], other_hands)
    return state, my_hand, other_hands, deck_after_draw(state, question.drawn)


def solve_kotor_match_question(question: Question, options: SolveOptions) -> Advice:
    """As :func:`solve_match_question`, the opponent playing the KOTOR I rule (docs/rules.md §7)
    in this set and every later one: every move with my exact probability of winning the match
    when I play for it (:class:`~pazaak_cli.solve.match_kotor.KotorMatchSolver`), and the set's odds
    along that line; a hidden hand is averaged over its possible hands and, within each, over
    the orders of its cards that change the rule's choices."""
    hands = KotorMatchHands(question, options)
    # Its values do not depend on which process solved what (KotorMatchSolver._settle), so two
    # processes solve the later sets of all the hands at once, every other score each, and then
    # take a run of the hands each: the same bits as one. The hands are not shared where a
    # hand's exact deck may be given up for its draw odds, which the later hands would then
    # take in one process and not in the other.
    shared = not hands.exact or options.exact
    processes = hand_processes(hands.other_hands) if shared else 1
    progress = options.progress
    try:
        if hands.prepare_in_two(range(len(hands.other_hands)), progress) and not hands.exact:
            progress = None  # (the rows then take a moment: the progress shown was the work's)
        rows = _every_hand(hands, hands.row, progress, processes=processes)
    finally:
        hands.release()
        hands.save()  # (also where Ctrl-C stopped it: the values kept are final)
    return _averaged(rows, hands)


def _every_hand(
    hands: MatchHands | KotorMatchHands,
    row_of: Callable[[int], MoveRow],
    progress: Callable[[int, int], None] | None,
    *,
    processes: int = 1,
) -> list[tuple[float, MoveRow]]:
    """Every possible hand's row (``row_of``) with its weight, in the hands' order: the exact
    average's hands, solved one at a time as the time-budgeted answer solves its sample
    (:class:`HandRows`); ``progress(done, total)`` after each (of this process's run, times
    ``processes``: the others run alongside, in forked copies, silent); Ctrl-C raised on."""
    count = len(hands.other_hands)

    def told(index: int) -> None:
        if progress is not None:
            progress(min((index + 1) * processes, count), count)

    solver = hands.solver
    positions = solver.progress
    rows = HandRows(
        solver,
        row_of,
        hands,
        watch=partial(setattr, solver, "progress"),
        processes=processes,
        positions=positions,
        # (the rule's rows have their own costs: the cut by counts is the faster there,
        # 0.80 to 0.82 s against 0.91 to 0.96 s for 4 hidden cards of kotor1-average)
        weigh=hands.run_cost if isinstance(hands, MatchHands) else None,
        start=hands.start_run if isinstance(hands, MatchHands) else None,
    )
    done = rows.solve(range(count), None, told, contiguous=True)
    if done.interrupted:
        raise KeyboardInterrupt
    total_ways = sum(ways for _, ways in hands.other_hands)
    return [
        (ways / total_ways, done.rows[index]) for index, (_, ways) in enumerate(hands.other_hands)
    ]


def _averaged(rows: Sequence[tuple[float, MoveRow]], hands: MatchHands | KotorMatchHands) -> Advice:
    """The exact average of every possible hand's rows (:func:`average_match_moves`)."""
    return average_match_moves(
        hands.moves,
        rows,
        model=hands.model,
        hands_averaged=len(hands.other_hands),
        fixed_probabilities=hands.fixed_probabilities,
        states=hands.solver.states,
    )


class KotorMatchHands(_MatchHands):
    """The match answer against the KOTOR I rule, one possible opponent hand at a time (as
    :class:`MatchHands`), in the solver the questions of this seat share. A question whose
    largest possible hand brings more pairs of sub-hands than its limits reach
    (:func:`kotor_match_limits`) is refused here, before any solving."""

    def __init__(self, question: Question, options: SolveOptions) -> None:
        super().__init__(question, options)
        state = question.state
        # each possible hand is solved on its own memory bound: the largest one decides
        pairs = max(
            match_pairs(self.my_hand, [(hand, 1)], ordered=True) for hand, _ in self.other_hands
        )
        assert options.rule is not None
        self.limits = kotor_match_limits(options.rule)
        if pairs > self.limits.reach_pairs:
            which = "for a possible hand of the opponent" if len(self.other_hands) > 1 else "here"
            raise SolverTooLarge(
                f"the match answer against {options.model.short} would solve {pairs:,} pairs of "
                f"sub-hands {which}, where {self.limits.reach_pairs} fit its memory bound (the "
                "set answer needs far less)"
            )
        self.solver = shared_kotor_solver(state.ruleset, state.turn, options.rule)
        self.solver.progress = options.positions
        self._hidden = not state.sides[1 - state.turn].hand_known
        self._known = self.solver.entry_count

    def row(self, index: int) -> MoveRow:
        """Every move's values if the opponent holds hand ``index`` (its orders averaged)."""
        solver, question, hand = self.solver, self.question, self.other_hands[index][0]
        solver.bound_memo()
        results = None
        if self.exact:
            try:
                results = solver.solve_moves(
                    question,
                    hand,
                    current_deck=self.current,
                    exact=True,
                    budget=None if self.options.exact else self.options.budget,
                    orders=self._hidden,
                )
            except SolverTooLarge:
                if self.options.exact:
                    raise  # (--exact: the exact deck or a refusal, never fixed draws)
                self.exact = False  # the set in progress with fixed probabilities instead
        if results is None:
            try:
                results = solver.solve_moves(
                    question,
                    hand,
                    current_deck=self.current,
                    orders=self._hidden,
                    budget=self.limits.budget,
                )
            except SolverTooLarge:
                raise self._past_budget() from None
        self.moves = [result.move for result in results]
        return match_row(results)

    def prepare_in_two(
        self, indices: Sequence[int], progress: Callable[[int, int], None] | None = None
    ) -> bool:
        """Solve the later sets of the possible hands ``indices`` first, in this process and a
        forked copy at once (``KotorMatchSolver.prepare_question``), so that each hand's
        :meth:`row` reads them: the same values as one process solving them hand by hand.
        ``progress(done, total)``: hands whose later sets are solved (nearly all of the
        answer's time). False: not done so (left to the rows)."""
        budget = self.limits.budget * len(indices)
        try:
            return self.solver.prepare_question(
                self.question,
                [self.other_hands[index][0] for index in indices],
                budget=budget,
                orders=self._hidden,
                progress=progress,
            )
        except SolverTooLarge:
            raise self._past_budget() from None

    def batch(
        self, indices: Sequence[int], solve: Callable[[Sequence[int]], HandsSolved]
    ) -> HandsSolved:
        """The hands ``indices`` solved by ``solve`` (:class:`HandRows`' ``batch``), their later
        sets first, in two processes (:meth:`prepare_in_two`); what was solved saved, also
        where Ctrl-C stopped it (the values kept are final)."""
        try:
            self.prepare_in_two(indices)
            return solve(indices)
        finally:
            self.save()

    def save(self) -> None:
        """Save what was solved to the disk cache, as :meth:`MatchHands.save` does: the next
        question of this match, in another process, reads the later sets it shares."""
        if self.solver.entry_count > self._known:
            save_entries(self.solver)
            self._known = self.solver.entry_count

    def _past_budget(self) -> SolverTooLarge:
        return SolverTooLarge(
            f"the match answer against {self.options.model.short} for these hands needs "
            f"more than the {self.limits.budget:,} positions it may search (the set "
            "answer needs far less)"
        )

    def release(self) -> None:
        self.solver.progress = None


def match_hands(question: Question, options: SolveOptions) -> HandRows:
    """The match answer one possible opponent hand at a time, against ``options.opponent``:
    the time-budgeted answer's unit of work (a hand begun is finished: the estimate of its cost
    decides whether to begin, :func:`match_seconds`)."""
    if options.rule is not None:
        kotor = KotorMatchHands(question, options)
        return HandRows(kotor.solver, kotor.row, kotor, batch=kotor.batch)
    hands = MatchHands(question, options)
    return HandRows(
        hands.solver,
        partial(hands.row, with_odds=True),
        hands,
        processes=hand_processes(hands.other_hands),
        batch=hands.batch,
        weigh=hands.run_cost,
        share=hands.processes_for,
        start=hands.start_run,
    )


def average_match_moves(
    moves: Sequence[Move],
    rows: Sequence[tuple[float, MoveRow]],
    *,
    model: str,
    hands_averaged: int,
    fixed_probabilities: bool,
    states: int,
) -> Advice:
    """The advice of ``moves`` valued for each hidden hand (``rows``: each hand's weight and
    row), averaged by the hands' weights, best first (ties of match value: more set wins over
    losses first)."""
    sums = weighted_sums(rows, 4, len(moves))
    best = max(row[0] for row in sums)
    ranked = sorted(
        zip(moves, sums, strict=True), key=lambda item: (-item[1][0], item[1][3] - item[1][1])
    )
    return Advice(
        results=tuple(
            MoveResult(
                move,
                Outcome(*(clean_probability(p) for p in row[1:])),
                row[0] >= best - BEST_TOLERANCE,
                match_win=clean_probability(row[0]),
            )
            for move, row in ranked
        ),
        model=model,
        hands_averaged=hands_averaged,
        fixed_probabilities=fixed_probabilities,
        states=states,
        objective="match",
    )


def describe_match_model(
    state: MatchState,
    other_hands: Sequence[tuple[tuple[Card, ...], int]],
    current: tuple[int, ...] | None,
    exact: bool,
    *,
    model: OpponentModel = OPTIMAL,
) -> str:
    """One sentence: which match model was solved, against which opponent ``model``."""
    rules = state.ruleset
    won = state.sets_won()
    me = state.turn
    to_win = counted(rules.sets_to_win, "set")
    score = f"match to {to_win} won, you lead {won[me]}-{won[1 - me]}"
    if won[me] < won[1 - me]:
        score = f"match to {to_win} won, you trail {won[me]}-{won[1 - me]}"
    elif won[me] == won[1 - me]:
        score = f"match to {to_win} won, {won[me]}-{won[1 - me]}"
    other = state.sides[1 - me]
    if model.rule is not None:
        who = (
            f"opponent plays {model.plays} in this set and every later one, you play for the match"
        )
        if other.hand_known:
            who += "; its hand known, in the order given" if other.hand else "; its hand empty"
        else:
            orders = sum(len(match_hand_orders(hand)) for hand, _ in other_hands)
            who += (
                f"; its {counted(len(other.hand), 'hidden card')} averaged over "
                f"{counted(len(other_hands), 'possible hand')}"
            )
            if orders > len(other_hands):
                who += f" ({orders} with the orders that change its choices)"
    elif other.hand_known:
        who = "both hands known" if other.hand else "your hand known, the opponent's empty"
        who += ", both play for the match"
    else:
        who = (
            f"opponent's {counted(len(other.hand), 'hidden card')} averaged over "
            f"{counted(len(other_hands), 'possible hand')} (each solved with both hands known), "
            "both play for the match"
        )
    if current is None and state.ruleset.main_deck is not MainDeck.INFINITE:
        deck = "every set drawn with a full deck's odds (uniform 1..10)"
    elif current is None:
        deck = "infinite deck (uniform 1..10)"
    elif exact:
        deck = f"this set on the exact {sum(current)}-card deck, later sets on a full deck's odds"
    else:
        deck = (
            f"this set with the draw odds of the {sum(current)} cards left, later sets on a "
            "full deck's odds"
        )
    return f"{rules.spec}: {score}; {who}; {deck}"
