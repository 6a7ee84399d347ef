"""A basic-strategy chart: the best move for one hand at every pair of totals.

Blackjack players learn from a chart; this module computes Pazaak's. For a hand of side cards
(and the opponent's hand, known or hidden), each cell is a position right after your draw: your
total, the opponent's total, and whether it stands. The cell holds the best move there (stand,
end the turn, or play a hand card with a sign, then end or stand) and its margin over the next
best move, by the objective asked for (this set's equity, or the probability of winning the
match).

Every cell is a question ``pazaak advise`` would ask: :func:`cell_tables` chooses the tables
(main-deck cards only, the card just drawn last, you having opened the set, docs/chart.md says
why), :func:`pazaak_cli.engine.position_builder.build_question` checks them, and :func:`solve_cell`
is the one place a cell is solved (today through :func:`pazaak_cli.solve.advice.solve_question`, the
entry point of ``pazaak advise``). The cells share work: with an infinite deck one set solver's
memo serves every cell and every hidden hand (:attr:`SolveOptions.solver`), and the match
solver keeps the match states it solved for the whole process.

A hidden hand is averaged exactly, or sampled as the time-budgeted ``advise`` samples it
(:class:`ChartRun`): every cell averages the same draws of the first N hands the seeded draws
meet, and :meth:`ChartRun.within` doubles N pass by pass while the next pass fits a time
budget, each pass finding the hands of the one before already solved.

Nothing here prints; :mod:`pazaak_cli.tools.chart_svg` draws a chart, ``pazaak chart`` shows it.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import COPIES_PER_VALUE, FULL_DECK, MAIN_VALUES, Placed, TableCard
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import PositionError, Question, build_question
from pazaak_cli.engine.rules import MainDeck, Ruleset
from pazaak_cli.solve.advice import solve_question
from pazaak_cli.solve.answer_types import Advice, Move, MoveResult, SolveOptions
from pazaak_cli.solve.budgeted import DEFAULT_SEED, MIN_HANDS
from pazaak_cli.solve.hidden_hands import weighted_opponent_hands
from pazaak_cli.solve.match_advice import match_other_hands
from pazaak_cli.solve.models import (
    OPTIMAL,
    Objective,
    OpponentModel,
    objective_named,
    opponent_model,
)
from pazaak_cli.solve.sampling import HandDraws
from pazaak_cli.solve.solver import SetSolver
from pazaak_cli.solve.time_budget import TimeBudget

CHART_MEMO_STATES = 12_000_000
"""The bound of the set solver shared by the cells of an infinite-deck chart (the C loop's
cache, or a Python memo emptied between hands when full): the expert player's bound."""
CLOSE_CALL = 0.01
"""A best move that leads the next by less than this (one point of equity or of match-win
probability) is a close call: shown in lower case, and pale in the picture."""
DEFAULT_CHART_SECONDS = 10.0
"""The time budget of a chart about a hidden hand that a person waits for (on a terminal)."""

Hands = list[tuple[tuple[Card, ...], int]]
"""The opponent's possible hands with their weights (deal weights, or counts of draws)."""
CellProgress = Callable[[int], None]
"""Told each cell solved, with 1."""
PassStart = Callable[[int, int], None]
"""Told (hands, hands possible) as a pass of a time-budgeted chart begins."""


@dataclass(frozen=True)
class ChartSpec:
    """What to chart: the ruleset, both hands, the opponent model, the objective, the score,
    and the totals of the rows and the columns."""

    ruleset: Ruleset
    hand: tuple[Card, ...]
    my_totals: tuple[int, ...]
    """The rows: your total just after your draw."""
    opp_totals: tuple[int, ...]
    """The columns: the opponent's total (at most the target while it stands, below it while it
    still draws)."""
    opp_hand: tuple[Card, ...] | None = None
    """The opponent's hand, in order, when you know it; ``None``: hidden."""
    opp_hand_size: int = 0
    """How many cards a hidden hand holds."""
    opp_deck: tuple[Card, ...] | None = None
    """The prior of a hidden hand: the opponent's side deck."""
    opp_deck_name: str = ""
    opponent: str = OPTIMAL.name
    """The opponent model's name (:data:`~pazaak_cli.solve.models.OPPONENT_MODELS`)."""
    objective: str = Objective.SET
    """``set`` (this set's equity) or ``match`` (the probability of winning the match)."""
    sets: tuple[int, int] = (0, 0)
    """Sets won so far, yours first."""

    @property
    def model(self) -> OpponentModel:
        """The opponent model :attr:`opponent` names (a :class:`PazaakError` if none)."""
        return opponent_model(self.opponent)

    def opp_side_hand(self) -> tuple[Card | None, ...]:
        """The opponent's hand as the position holds it (``None`` for each hidden card)."""
        if self.opp_hand is not None:
            return self.opp_hand
        return (None,) * self.opp_hand_size


@dataclass(frozen=True)
class Cell:
    """One solved cell: the position ``pazaak advise`` would be asked and its answer."""

    my_total: int
    opp_total: int
    opp_standing: bool
    table: tuple[int, ...]
    """Your main-deck cards in order, the card just drawn last."""
    opp_table: tuple[int, ...]
    question: Question
    advice: Advice
    best: MoveResult
    """The best move (of several equally best, one that plays no card where there is one: the
    card is kept)."""
    second: MoveResult | None
    """The next move by the objective (``None``: the move was forced)."""
    label: str
    """The best move's short name (:func:`move_label`)."""

    @property
    def margin(self) -> float | None:
        """How far the best move leads the next, by the objective (equity or match-win
        probability); ``None`` when it was the only move."""
        if self.second is None:
            return None
        return max(0.0, objective_value(self.best) - objective_value(self.second))

    @property
    def close(self) -> bool:
        """Whether the best move leads the next by less than :data:`CLOSE_CALL`."""
        margin = self.margin
        return margin is not None and margin < CLOSE_CALL


CellKey = tuple[int, int, bool]
"""(your total, the opponent's total, whether it stands)."""
Tables = tuple[tuple[int, ...], tuple[int, ...]]
"""A cell's main-deck cards: yours (the card just drawn last), the opponent's."""


@dataclass(frozen=True)
class ChartPass:
    """One pass of a time-budgeted chart: the whole grid solved on the first ``hands`` hands of
    the draws."""

    hands: int
    new_hands: int
    """The hands the pass before did not have (all a memo carried over has left to solve)."""
    seconds: float


@dataclass(frozen=True)
class ChartSample:
    """Which hands of the opponent's a chart averages."""

    exactness: str
    """``exact``: every possible hand (or the one it holds); ``sampled``: the first
    :attr:`hands_solved` hands of the draws of :attr:`seed`."""
    hands_solved: int
    hands_possible: int
    seed: str | None = None
    draws: int | None = None
    """A sample's draws of the opponent's hand (with replacement) that every cell averages."""


@dataclass(frozen=True)
class Chart:
    """Every cell of a chart (``None`` where no table fits the totals), the model solved and
    the legend of the moves that appear."""

    spec: ChartSpec
    cells: dict[CellKey, Cell | None]
    model: str
    legend: tuple[tuple[str, str], ...]
    """(label, what the move is) for every best move that appears, in a fixed order."""
    sample: ChartSample = ChartSample("exact", 1, 1)
    passes: tuple[ChartPass, ...] = ()
    """A time-budgeted chart's passes, the last one shown (none otherwise)."""
    interrupted: bool = False
    """Ctrl-C stopped the pass after the one shown."""

    def columns(self, standing: bool) -> tuple[int, ...]:
        """The opponent's totals of one panel: while it draws it is below the target."""
        target = self.spec.ruleset.target
        return tuple(t for t in self.spec.opp_totals if t <= target and (standing or t < target))

    def cell(self, my_total: int, opp_total: int, standing: bool) -> Cell | None:
        return self.cells.get((my_total, opp_total, standing))


def default_my_totals(ruleset: Ruleset, hand: Sequence[Card]) -> tuple[int, ...]:
    """The rows of a chart by default: from the first total a draw can bust (the target less
    10) to one below the target, then the totals over it that a minus card in hand can bring
    back (at the target itself the stand is forced, and the bust beyond any rescue)."""
    target = ruleset.target
    rescue = max((-value for card in hand for value in card.values if value < 0), default=0)
    low = max(1, target - max(MAIN_VALUES) + 1)
    return tuple(range(low, target)) + tuple(range(target + 1, target + rescue + 1))


def default_opp_totals(ruleset: Ruleset) -> tuple[int, ...]:
    """The columns of a chart by default: every total the opponent can have, 1 to the target."""
    return tuple(range(1, ruleset.target + 1))


def chart_keys(spec: ChartSpec) -> list[CellKey]:
    """Every cell of the chart, in the order they are solved: the opponent drawing, then
    standing; your totals down, its totals across."""
    target = spec.ruleset.target
    return [
        (mine, theirs, standing)
        for standing in (False, True)
        for mine in spec.my_totals
        for theirs in spec.opp_totals
        if theirs <= target and (standing or theirs < target)
    ]


@lru_cache(maxsize=4096)
def splits(total: int, count: int) -> tuple[tuple[int, ...], ...]:
    """Every way to make ``total`` with ``count`` main-deck cards, each from 1 to 10, written
    largest first: the most even first (the smallest gap between the largest and the smallest
    card), then the largest cards first."""
    high = max(MAIN_VALUES)
    found: list[tuple[int, ...]] = []

    def walk(left: int, slots: int, cap: int, prefix: tuple[int, ...]) -> None:
        if slots == 0:
            if left == 0:
                found.append(prefix)
            return
        for value in range(min(cap, left - (slots - 1)), 0, -1):
            if value * slots < left:
                break
            walk(left - value, slots - 1, value, (*prefix, value))

    walk(total, count, high, ())
    return tuple(sorted(found, key=lambda cards: (cards[0] - cards[-1], [-v for v in cards])))


def cell_tables(
    ruleset: Ruleset, my_total: int, opp_total: int, opp_standing: bool
) -> Tables | None:
    """The main-deck cards of both tables for one cell (yours with the card just drawn last),
    or ``None`` if none fit. You opened the set (as in KOTOR I, where the player opens every
    set): a drawing opponent holds one card fewer than you, a standing one at most that many.
    Each table has as few cards as that allows, split as evenly as possible, largest first (so
    the card you just drew is your smallest); no value is used more than the four times a deck
    holds it, and your total before the draw is below the target (else you would have stood or
    busted)."""
    target = ruleset.target
    high = max(MAIN_VALUES)
    their_least = math.ceil(opp_total / high)
    if opp_total < 1 or opp_total > target or (opp_total == target and not opp_standing):
        return None
    least = max(math.ceil(my_total / high), their_least + 1)
    for count in range(least, ruleset.table_size + 1):
        their_count = their_least if opp_standing else count - 1
        for mine in splits(my_total, count):
            if my_total - mine[-1] >= target:
                continue
            used = Counter(mine)
            for theirs in splits(opp_total, their_count):
                both = used + Counter(theirs)
                if max(both.values()) <= COPIES_PER_VALUE:
                    return mine, theirs
    return None


def cell_question(spec: ChartSpec, tables: Tables, opp_standing: bool) -> Question:
    """The question ``pazaak advise`` builds for these tables (the same checks, the same
    state): raise :class:`~pazaak_cli.engine.position_builder.PositionError` if it cannot occur."""
    mine, theirs = tables
    return build_question(
        spec.ruleset,
        table=[TableCard(Placed.MAIN, value) for value in mine],
        hand=spec.hand,
        opp_table=[TableCard(Placed.MAIN, value) for value in theirs],
        opp_stood=opp_standing,
        opp_hand=spec.opp_side_hand(),
        sets=spec.sets,
    )


def chart_options(spec: ChartSpec) -> SolveOptions:
    """The solve options every cell shares: the opponent model, the objective, the prior of a
    hidden hand, and, with an infinite deck and the set objective against an optimal opponent,
    one set solver whose memo carries from cell to cell (the one case the set solver reuses a
    solver across questions)."""
    options = SolveOptions(
        opponent_deck=spec.opp_deck if spec.opp_hand is None else None,
        opponent=spec.opponent,
        objective=spec.objective,
    )
    if (
        spec.ruleset.main_deck is MainDeck.INFINITE
        and spec.objective == Objective.SET
        and spec.model.rule is None
    ):
        options.solver = SetSolver(
            spec.ruleset, fixed_draws=FULL_DECK, max_states=CHART_MEMO_STATES
        )
    return options


def solve_cell(question: Question, options: SolveOptions) -> Advice:
    """Every move of one cell's position with its odds: the one place a cell is solved, the
    same answer as ``pazaak advise`` on that position."""
    return solve_question(question, options)


def objective_value(result: MoveResult) -> float:
    """What the best move maximises: the match-win probability of match advice, else the
    set's equity."""
    return result.match_win if result.match_win is not None else result.outcome.equity


def pick_best(advice: Advice) -> tuple[MoveResult, MoveResult | None]:
    """The move a cell shows and the next one. Of several equally best moves (within the
    solver's tolerance: in the set, spending a card often changes nothing), the first that plays
    no card, which keeps the card, else the first; the next is the best move that is worse,
    or another of the equally best where none is (``None``: the move was forced)."""
    best = [result for result in advice.results if result.best]
    chosen = next((result for result in best if result.move.card is None), best[0])
    worse = [result for result in advice.results if not result.best]
    others = [result for result in best if result is not chosen]
    following = worse or others
    return chosen, following[0] if following else None


_THEN = {"stand": "S", "end": "E", "bust": "X"}


def move_label(move: Move, hand: Sequence[Card]) -> str:
    """A move's short name: ``S`` stand, ``E`` end the turn, ``X`` end it over the target (a
    bust: the set is lost, the cards kept), and a card
    played then ``S`` or ``E``: ``+2S``, ``-3E`` (a ± card by the sign it is played with, its
    own name too where a card of the hand gives the same value: ``±3-E``), ``DS``, ``F2/4E``,
    ``+1TS`` (a Tiebreaker)."""
    then = _THEN[move.then]
    card = move.card
    if card is None:
        return then
    if card.kind in (CardKind.PLUS, CardKind.MINUS):
        return f"{card}{then}"
    if card.kind in (CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2) and move.value is not None:
        same = [other for other in set(hand) if other != card and move.value in other.values]
        sign = "+" if move.value > 0 else "-"
        return f"{card}{sign}{then}" if same else f"{move.value:+d}{then}"
    if card.kind is CardKind.TIEBREAKER and move.value is not None:
        return f"{move.value:+d}T{then}"
    return f"{card}{then}"


def move_text(move: Move) -> str:
    """What a label stands for, in words (the legend)."""
    then = {"stand": "stand", "end": "end turn", "bust": "end turn over the target (bust)"}[
        move.then
    ]
    card = move.card
    if card is None:
        return then
    shown = str(card)
    if len(card.values) > 1 and move.value is not None:
        shown += f" as {move.value:+d}"
    return f"play {shown}, {then}"


def _label_order(label: str) -> tuple[int, str]:
    """The legend's order: stand, end turn, the card plays by name, bust last."""
    rank = {"S": 0, "E": 1, "X": 3}.get(label, 2)
    return rank, label


def cell_questions(spec: ChartSpec) -> dict[CellKey, tuple[Tables, Question] | None]:
    """Every cell's tables and question (``None`` where no table fits); when no cell can be
    built at all, the first reason is raised (a score that has ended the match, a hand larger
    than the ruleset deals...)."""
    questions: dict[CellKey, tuple[Tables, Question] | None] = {}
    first_error: PositionError | None = None
    for key in chart_keys(spec):
        tables = cell_tables(spec.ruleset, *key)
        if tables is None:
            questions[key] = None
            continue
        try:
            questions[key] = (tables, cell_question(spec, tables, key[2]))
        except PositionError as error:
            first_error = first_error or error
            questions[key] = None
    if first_error is not None and not any(questions.values()):
        raise first_error
    if not any(questions.values()):
        raise PazaakError("no position fits these totals: widen --my-totals or --opp-totals")
    return questions


def possible_hands(spec: ChartSpec, questions: Iterable[Question], options: SolveOptions) -> Hands:
    """The hands the opponent may hold that the cells average, with their deal weights (one
    hand when there is nothing to average: a known hand, or none hidden). A cell's hands depend
    on the opponent's side only through its hand's size, whether it stands and the hand cards on
    its table (:func:`~pazaak_cli.solve.hidden_hands.hidden_hands`); the chart's tables hold
    main-deck cards only, so every cell that averages a hidden hand averages the same hands, in
    the same order. They are found once per such side, and a cell with other hands is refused (it
    cannot happen: the check keeps it so)."""
    found: dict[tuple[object, ...], Hands] = {}
    averaged: Hands | None = None
    for question in questions:
        state = question.state
        other = state.sides[1 - state.turn]
        played = tuple(card for card in other.table if card.placed is not Placed.MAIN)
        side = (other.standing, other.hand_known, len(other.hand), played)
        if side not in found:
            if spec.objective == "match":  # (its later sets need the hand even once it stands)
                found[side] = match_other_hands(other, options, state.ruleset)
            else:
                found[side] = weighted_opponent_hands(other, options, state.ruleset)
        hands = found[side]
        if len(hands) < 2:
            continue
        if averaged is None:
            averaged = hands
        elif hands != averaged:
            raise PazaakError("the chart's cells would average different hidden hands")
    return averaged or [(spec.opp_hand or (), 1)]


class ChartRun:
    """A chart's cells, built once, solved on any sample of the opponent's hidden hand.

    ``solve(N)`` takes the first N distinct hands of the seeded draws by deal weight
    (:class:`~pazaak_cli.solve.sampling.HandDraws`: the order ``pazaak advise --seed S --hands N``
    solves them in) and averages in every cell the same usable draws, each hand weighted by its
    count of draws (:attr:`SolveOptions.opponent_hands`): each cell is the mean over the draws,
    as ``advise --hands N --seed S`` gives it on that cell's position (with an infinite deck: on
    a finite one the cell takes the deck model the exact chart takes, where ``advise``'s sample
    draws with fixed probabilities). ``solve()``, or N at least the number of possible hands:
    every hand, exactly. The solve options, and the set solver they may share, are kept from one
    solve to the next: a larger sample's hands begin with a smaller one's, whose positions are
    then already solved (:attr:`memoised`)."""

    def __init__(self, spec: ChartSpec, seed: str = DEFAULT_SEED) -> None:
        objective_named(spec.objective)  # (a PazaakError naming the choices)
        self.spec = spec
        self.seed = seed
        self.questions = cell_questions(spec)
        self.options = chart_options(spec)
        built = [found[1] for found in self.questions.values() if found is not None]
        self.possible = possible_hands(spec, built, self.options)
        self.draws = HandDraws([ways for _, ways in self.possible], seed)

    @property
    def memoised(self) -> bool:
        """Whether a solve finds the hands of the solves before it solved: the one set solver
        the cells share, or the match solver, which keeps its states for the process (the
        finite deck and the set against the KOTOR rule solve every cell afresh)."""
        return self.options.solver is not None or self.spec.objective == "match"

    def solve(self, hands: int | None = None, progress: CellProgress | None = None) -> Chart:
        """The chart on the first ``hands`` hands of the draws (``None``, or every possible
        hand: the exact chart); ``progress`` is told each cell done, with 1."""
        possible = len(self.possible)
        if hands is None or hands >= possible:
            return self._solve(self.options, progress, ChartSample("exact", possible, possible))
        hands = max(hands, MIN_HANDS)
        usable = self.draws.usable_draws(hands)
        counts = Counter(usable)
        drawn = [(self.possible[index][0], counts[index]) for index in sorted(counts)]
        options = replace(self.options, opponent_hands=drawn)
        sample = ChartSample("sampled", hands, possible, self.seed, len(usable))
        return self._solve(options, progress, sample)

    def within(
        self,
        budget: TimeBudget,
        *,
        progress: CellProgress | None = None,
        on_pass: PassStart | None = None,
    ) -> Chart:
        """The chart on the largest sample that fits ``budget`` (a limited one): the grid on
        :data:`~pazaak_cli.solve.budgeted.MIN_HANDS` hands (past the budget if need be), then on
        twice as many, and so on while the next pass is foreseen to fit, or until every hand is
        in (the exact chart). A pass is foreseen from the last one's time per hand it solved:
        its new hands where the solver kept the others (:attr:`memoised`), else all of them.
        Ctrl-C during a pass returns the last complete one (raised on if there is none);
        ``on_pass`` is told (hands, hands possible) as each pass begins."""
        deadline = budget.deadline
        if deadline is None:
            raise ValueError("a chart within a budget needs a limited one")
        possible = len(self.possible)
        hands, before = min(MIN_HANDS, possible), 0
        passes: list[ChartPass] = []
        chart: Chart | None = None
        try:
            while True:
                if on_pass is not None:
                    on_pass(hands, possible)
                began = time.monotonic()
                chart = self.solve(hands, progress)
                spent = time.monotonic() - began
                passes.append(ChartPass(hands, hands - before, spent))
                if hands >= possible:
                    break
                following = min(2 * hands, possible)
                if self.memoised:
                    foreseen = spent * (following - hands) / (hands - before)
                else:
                    foreseen = spent * following / hands
                if time.monotonic() + foreseen > deadline:
                    break
                before, hands = hands, following
        except KeyboardInterrupt:
            if chart is None:
                raise
            return replace(chart, passes=tuple(passes), interrupted=True)
        return replace(chart, passes=tuple(passes))

    def _solve(
        self, options: SolveOptions, progress: CellProgress | None, sample: ChartSample
    ) -> Chart:
        spec = self.spec
        cells: dict[CellKey, Cell | None] = {}
        legend: dict[str, str] = {}
        for key, found in self.questions.items():
            if found is None:
                cells[key] = None
            else:
                tables, question = found
                advice = solve_cell(question, options)
                best, second = pick_best(advice)
                label = move_label(best.move, spec.hand)
                legend.setdefault(label, move_text(best.move))
                cells[key] = Cell(*key, *tables, question, advice, best, second, label)
            if progress is not None:
                progress(1)
        return Chart(
            spec=spec,
            cells=cells,
            model=describe_chart(spec, [cell for cell in cells.values() if cell], sample),
            legend=tuple(sorted(legend.items(), key=lambda item: _label_order(item[0]))),
            sample=sample,
        )


def compute_chart(
    spec: ChartSpec,
    progress: CellProgress | None = None,
    *,
    hands: int | None = None,
    budget: TimeBudget | None = None,
    seed: str = DEFAULT_SEED,
    on_pass: PassStart | None = None,
) -> Chart:
    """Solve every cell of the chart (``progress`` is told each cell done, with 1): exactly,
    on the first ``hands`` hands of the draws of ``seed`` (:meth:`ChartRun.solve`), or within
    ``budget`` when it is limited (:meth:`ChartRun.within`). A cell no table fits is ``None``;
    when no cell can be built at all, the first reason is raised."""
    limited = budget is not None and budget.limited
    if hands is not None and limited:
        raise ValueError("a chart rests on a number of hands or on a time budget, not both")
    run = ChartRun(spec, seed)
    if budget is None or not limited:
        return run.solve(hands, progress)
    return run.within(budget, progress=progress, on_pass=on_pass)


def describe_chart(spec: ChartSpec, cells: Sequence[Cell], sample: ChartSample) -> str:
    """The model line: the ruleset, the objective (and that the set is the default), how the
    opponent plays and what it holds (the hands averaged, or sampled), the score, how the
    tables are built, the deck."""
    rules = spec.ruleset
    if spec.objective == "match":
        objective = (
            "best move for the match (its win probability; hand cards kept for the whole "
            "match, later sets drawn with a full deck's odds)"
        )
    else:
        objective = (
            "best move for this set only (its win odds less its loss odds; --objective match: "
            "for the match)"
        )
    model = spec.model
    where = " in this set and every later one" if model.rule and spec.objective == "match" else ""
    opponent = f"opponent plays {model.plays}{where}"
    if spec.opp_hand is not None:
        shown = " ".join(str(card) for card in spec.opp_hand)
        held = f"its hand {shown} known" if shown else "it holds no hand cards"
    else:
        deck = f" of {spec.opp_deck_name}" if spec.opp_deck_name else ""
        held = f"its {counted(spec.opp_hand_size, 'hidden card')}{deck}"
        if sample.exactness == "sampled":
            held += (
                f", sampled: {sample.hands_solved:,} of {sample.hands_possible:,} possible "
                f"hands (seed {sample.seed})"
            )
        else:
            held += f" averaged over {counted(sample.hands_possible, 'hand')}"
    score = f"sets {spec.sets[0]}-{spec.sets[1]} of a match to {rules.sets_to_win}"
    if rules.main_deck is MainDeck.INFINITE:
        deck_model = "infinite deck (uniform 1..10)"
    else:
        fixed = sum(1 for cell in cells if cell.advice.fixed_probabilities)
        deck_model = "the deck less both tables, drawn without replacement" + (
            f" (fixed draw probabilities in {fixed} of {len(cells)} cells)" if fixed else ""
        )
    return (
        f"{rules.spec}: {objective}; {opponent}, {held}; {score}; "
        f"you opened the set, tables as docs/chart.md says; {deck_model}"
    )


def iter_cells(chart: Chart, standing: bool) -> Iterator[tuple[int, int, Cell | None]]:
    """(your total, its total, the cell) of one panel, row by row."""
    for mine in chart.spec.my_totals:
        for theirs in chart.columns(standing):
            yield mine, theirs, chart.cell(mine, theirs, standing)


__all__ = [
    "CLOSE_CALL",
    "DEFAULT_CHART_SECONDS",
    "Cell",
    "Chart",
    "ChartPass",
    "ChartRun",
    "ChartSample",
    "ChartSpec",
    "cell_question",
    "cell_tables",
    "compute_chart",
    "default_my_totals",
    "default_opp_totals",
    "move_label",
    "move_text",
    "solve_cell",
]
