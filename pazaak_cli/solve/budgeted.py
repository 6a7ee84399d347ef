"""Answers within a time budget: exact where they fit, sampled with stated error bars beyond.

The exact answer about a hidden hand solves every hand the opponent may hold, each as if known,
and averages them by their deal weights: its cost grows with the number of hands, to minutes
for a kotor2 deck. Here the hands are solved one at a time in the order a seeded draw by deal
weight first meets them (:class:`~pazaak_cli.solve.sampling.HandDraws`), until the budget is spent:

- every hand solved in time: the exact answer (``exactness == "exact"``), the same numbers as
  the unbudgeted one;
- else: each move's mean over the draws of the hands solved, with its 95 % interval, and how
  sure the first-ranked move is (``exactness == "sampled"``; :func:`confidence_note` says it
  in a sentence).

:class:`Refinement` keeps what it solved, so a later call (``hint`` again in ``pazaak play``
or ``pazaak follow``) goes on where the last stopped, until the answer is exact; Ctrl-C stops a
call and keeps the answer so far. :func:`budgeted_objective` picks the match answer when a
sample of it fits the budget (from the counts the match solver keeps), else the set's.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import SAMPLE_PREFIX, SideDeck, sample_deck, sample_names
from pazaak_cli.engine.numbers import counted, seconds_text
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import DEFAULT_RULESET, Ruleset
from pazaak_cli.solve.advice import solve_question
from pazaak_cli.solve.answer_types import (
    BEST_TOLERANCE,
    Advice,
    Move,
    MoveResult,
    Outcome,
    SolveOptions,
    clean_probability,
    ranked_set_results,
)
from pazaak_cli.solve.hand_rows import HandRows, HandsSolved, MoveRow, set_hands
from pazaak_cli.solve.hidden_hands import weighted_opponent_hands
from pazaak_cli.solve.match_advice import (
    average_match_moves,
    match_hands,
    match_other_hands,
    match_seconds,
    teach_match_pace,
)
from pazaak_cli.solve.models import OPTIMAL, objective_named
from pazaak_cli.solve.sampling import Estimate, HandDraws, estimate
from pazaak_cli.solve.solver import EXACT_PROBE_STATES, HANDS_SHARING, averaged_outcomes
from pazaak_cli.solve.time_budget import TimeBudget

DEFAULT_SECONDS = 2.0
"""The budget where a person waits at the table (``pazaak follow``, the hint of ``pazaak
play``, ``pazaak advise`` on a terminal)."""

MIN_HANDS = 2
"""A sampled answer rests on this many distinct hands at least (a spread needs two), solved
even past the budget: a question whose single hand takes longer says so by taking longer."""

DEFAULT_SEED = "0"
"""The draws' seed when none is given: the same question, budget and machine speed give the
same answer (``--seed`` with ``--hands`` replays any answer exactly, whatever the speed)."""


PROBE_SHARE = 0.15
"""Once the least sample is in, a set answer's next hands are solved in this process alone for
this share of the time left: the hands of many questions share most of their positions, and
one memo then goes faster than two processes that each solve them again (kotor2-average's 210
hands at one position: 1.7 s in one process, 3.1 to 3.4 s dealt to two, on a machine with one
core busy). If the rest is foreseen to fit the budget at the rate measured, they stay here;
else they are dealt to the cores."""


ROOM_SHARE = 0.5
"""A round of a set answer that runs to its deadline first makes room in the memo for the
positions it is foreseen to add (:meth:`~pazaak_cli.solve.hand_rows.HandRows.make_room`): this
share of the rate this process's memo grew at in the round before, times the time left. Measured
on the 2 s answer about 4 hidden cards of `kotor2-average`: the probe alone gained 3.5 to 4.7 M
positions a second, the next round shared with a forked copy 1.6 M in this process. With room
for the full rate (twice the table) and for half of it, the answers were the same (1.94 to
1.97 s, 21 to 25 hands, against 2.36 to 2.54 s and 16 hands without): the half holds less."""


SHORT_SEARCH_SECONDS = 10.0
"""A call of :meth:`Refinement.refine` with a budget of at most this many seconds searches
with the set answer's memo in small pages made at once (:meth:`HandRows.short_searches
<pazaak_cli.solve.hand_rows.HandRows.short_searches>`): measured on the 2 s answer about 4
hidden cards of ``kotor2-hard``, two series of 20 runs alternated, within 2.5 s 20 and 20
times against 17 and 19 in huge pages; ``kotor2-average``'s sample 10.0 hands against 5.1; an
exact answer of 14 s in one process took as long either way (docs/benchmarks.md, "fresh
memory")."""


def _exact_fits(first: float, batch: Sequence[int], solver: HandRows, deadline: float) -> bool:
    """Whether the hands ``batch`` are foreseen to be solved before ``deadline`` in runs shared
    out among the solver's processes, the least sample having taken ``first`` seconds: each
    later hand foreseen at :data:`~pazaak_cli.solve.solver.HANDS_SHARING` times fewer positions
    than a first one (they share the rest)."""
    foreseen = first * len(batch) / (HANDS_SHARING * solver.processes)
    return time.monotonic() + foreseen <= deadline


def _alone_fits(solved: int, asked: int, spent: float, deadline: float) -> bool:
    """Whether the ``asked - solved`` hands left of a probe that solved ``solved`` in
    ``spent`` seconds are foreseen to be solved in this process before ``deadline``."""
    if solved == 0:
        return False
    left = deadline - time.monotonic()
    return spent * (asked - solved) / solved <= left


VERDICT_MIN_HANDS = 3
"""A verdict states a confidence only from this many distinct hands (the fewest the coverage of
the interval was measured at, docs/advise.md); from fewer, it says in how many the first move
led, and that they are too few."""

OVERRUN_SLACK = 1.05
"""An answer that took longer than its budget times this says by how much."""


@dataclass(frozen=True)
class SampledAdvice(Advice):
    """A sampled answer, with what a player reads of its sample beside the numbers."""

    same: tuple[bool, ...] = ()
    """Per result: the value it is ranked by was the same in every hand solved (shown
    without ±)."""
    leads: int = 0
    """In how many of the distinct hands solved the first move led the second."""


class Asks(NamedTuple):
    """What the user can type where an answer is shown, as the notes name it: more time, the
    match answer, the exact answer (``None``: nothing to type there)."""

    more_time: str
    match: str | None
    exact: str | None
    exact_deck: str | None = None
    """What counts every card drawn where the answer drew them with fixed odds."""
    again: str | None = None
    """What asks the same question again to refine its answer (``None``: a command asked once,
    whose notes say how to get the same answer again instead)."""
    prepare: str | None = None
    """The command that solves ahead the later sets of the player's deck against the hidden
    hand's (``pazaak prepare ...``), after which a match answer has only its set in progress to
    solve (``None``: not offered)."""


ADVISE_ASKS = Asks("--time for more time", "--objective match", "--time 0", "--exact")
"""``pazaak advise``'s options."""
PLAY_ASKS = Asks("h again for more time", "h m", None, again="h")
"""What ``pazaak play`` takes at its prompt."""
FOLLOW_ASKS = Asks("hint again for more time", "hint match", None, again="type hint")
"""What ``pazaak follow`` takes at its prompt."""


def prepare_line(
    rules: Ruleset, their_deck: str, seat: int, opponent: str, my_deck: str = "YOUR-DECK"
) -> str:
    """The ``pazaak prepare`` command (:attr:`Asks.prepare`) for the player in ``seat`` (0 or 1)
    with ``my_deck`` against ``their_deck`` (as a command line names them: :func:`deck_word`)
    under ``rules`` and the ``opponent`` model (its name)."""
    words = ["pazaak", "prepare"]
    if rules.spec != DEFAULT_RULESET:
        words += ["-r", rules.spec]
    words += ["--deck", my_deck, "--opp-deck", their_deck]
    if seat == 1:
        words += ["--player", "2"]
    if opponent != OPTIMAL.name:
        words += ["--opponent", opponent]
    return shlex.join(words)


def sample_word(name: str, cards: Sequence[Card], unknown: str) -> str:
    """``name`` where it names the sample deck of these cards (a command line reads it, where a
    session keeps only a deck's name and cards), else ``unknown``."""
    if name in sample_names() and sample_deck(name).cards == tuple(cards):
        return name
    return unknown


def deck_word(deck: SideDeck, unknown: str = "THEIR-DECK") -> str:
    """How a command line names ``deck``: its sample name or its file (``unknown`` where it was
    read from standard input)."""
    source = deck.source
    if source == "<stdin>":
        return unknown
    return source[len(SAMPLE_PREFIX) :] if source.startswith(SAMPLE_PREFIX) else source


Progress = Callable[[int, int, "float | None"], None]
"""Told (hands solved, hands possible, seconds left in the budget or None) as hands are
solved."""


WARM_SHARE = 0.35
"""A hand solved in a process after its first takes about this share of the first one's time
(the sides, candidate lists and many positions are made by then): 0.37 to 0.64 s against 1.0 to
1.75 s, 4 hidden cards of kotor2-hard at the first move (docs/benchmarks.md). Before a budgeted
answer has timed a later hand, it foresees the next round's from the least sample's so."""


class Refinement:
    """One question's answer, refined hand by hand across calls of :meth:`refine`.

    ``options.objective`` must be set (``set`` or ``match``). The opponent's possible hands are
    those the exact answer averages; a question with one (a known hand, or a standing opponent
    in a set answer) is answered exactly at once."""

    def __init__(self, question: Question, options: SolveOptions, *, seed: str = DEFAULT_SEED):
        objective_named(options.objective)  # (a PazaakError naming the choices)
        self.question = question
        self.options = options
        self.seed = seed
        state = question.state
        other = state.sides[1 - state.turn]
        if options.objective == "match":
            self.hands = match_other_hands(other, options, state.ruleset)
        else:
            self.hands = weighted_opponent_hands(other, options, state.ruleset)
        self.draws = HandDraws([ways for _, ways in self.hands], seed)
        self.rows: dict[int, MoveRow] = {}
        self.advice: Advice | None = None
        self.interrupted = False
        self.seconds: float | None = None
        """How long the last :meth:`refine` took, measured from its ``started``..."""
        self.budget: float | None = None
        """...and the budget it was given (``None``: none)."""
        self.objective_note: str | None = None
        """Why the set's answer where the match's was not asked for, if the caller says
        (:func:`budgeted_objective`)."""
        self._solver: HandRows | None = None

    @property
    def possible(self) -> int:
        """How many hands the opponent may hold."""
        return len(self.hands)

    @property
    def exact(self) -> bool:
        return self.advice is not None and self.advice.exactness == "exact"

    def solved_prefix(self) -> int:
        """How many hands of the draws' order are solved, from the first, without a gap."""
        count = 0
        for hand in self.draws.order:
            if hand not in self.rows:
                break
            count += 1
        return count

    def refine(
        self,
        budget: TimeBudget | None = None,
        *,
        hands: int | None = None,
        progress: Progress | None = None,
    ) -> Advice:
        """Solve more hands until ``budget``'s deadline (``None``: no limit, counted from now),
        or until the first ``hands`` of the draws' order are solved, and return the answer they
        give. Ctrl-C ends the call with the answer so far (raised on if there is none yet)."""
        if budget is None:
            budget = TimeBudget()
        self.budget = budget.seconds
        if self.exact:
            assert self.advice is not None
            self.seconds = budget.spent()
            return self.advice
        if self.possible == 1:
            self.advice = replace(solve_question(self.question, self.options), hands_solved=1)
            self.seconds = budget.spent()
            return self.advice
        deadline = budget.deadline
        target = self.possible if hands is None else max(min(hands, self.possible), MIN_HANDS)
        solver = self._hand_solver()
        solver.short_searches(budget.seconds is not None and budget.seconds <= SHORT_SEARCH_SECONDS)

        here = there = 0  # (hands this call solved so far, here and in the forked copies)

        def show() -> None:  # (out of the hands asked for: --hands 2 showed "1/45, 4 min left")
            if progress is not None:
                progress(len(self.rows) + here + there, target, budget.left())

        def solved_one(_: int) -> None:
            nonlocal here
            here += 1
            show()

        def solved_elsewhere(more: int) -> None:
            nonlocal there
            there += more
            show()

        self.interrupted = False
        before = self.solved_prefix()
        shared = deadline is not None and self.options.objective == "set" and solver.processes > 1
        alone: bool | None = None  # (whether this call's hands stay in this process: probed)
        first: float | None = None  # (the least sample's seconds, when this call solved it)
        warm: float | None = None  # (a hand's seconds in a process, the last round past it)
        rate: float | None = None  # (positions this process's memo gained a second, last round)
        while not self.interrupted:
            prefix = self.solved_prefix()
            if prefix >= target:
                break
            now = time.monotonic()
            late = budget.late()
            if late and prefix >= MIN_HANDS and prefix > before:
                break
            foreseen = warm
            if foreseen is None and first is not None:
                foreseen = first * WARM_SHARE
            if (  # (a round foreseen to end past the deadline is not begun: see rows_in_order)
                foreseen is not None
                and deadline is not None
                and now + foreseen > deadline
                and prefix >= MIN_HANDS
                and prefix > before
            ):
                break
            order = self.draws.distinct(target)
            batch = [hand for hand in order if hand not in self.rows]
            until, processes = deadline, None
            probing = contiguous = exact_try = False
            if late:  # what every call owes, past the budget if need be: the least sample, and
                # one hand more than the call before (so that asking again always refines)
                need = max(MIN_HANDS, before + 1)
                batch = [hand for hand in order[:need] if hand not in self.rows]
                until = None
            elif self.options.objective == "match" and deadline is not None:
                fitting = self._match_batch(batch, deadline - now)
                if not fitting and prefix >= MIN_HANDS and prefix > before:
                    break  # (not even one more hand is foreseen to fit: none is begun)
                if len(fitting) == len(batch) > 1:  # the rest foreseen to fit: solved in runs
                    contiguous = True  # as the exact average solves them, each run in the draws'
                    # order (cut short, on a machine slower than foreseen, they are a sample)
                else:
                    batch = fitting or batch[:1]
            elif shared and prefix < MIN_HANDS:
                batch = [hand for hand in order[:MIN_HANDS] if hand not in self.rows]
            elif (
                shared
                and first is not None
                and deadline is not None
                and _exact_fits(first, batch, solver, deadline)
            ):
                # the rest of the hands foreseen to fit: solved in runs of neighbouring hands as
                # the exact average solves them, each run in the draws' order (cut short by the
                # deadline, each run has solved its first draws: a sample, where sorted runs
                # left a prefix of a few hands; the same speed, measured)
                first, contiguous, exact_try = None, True, True
            elif shared and alone is None and deadline is not None:
                first, probing = None, True
                until, processes = now + PROBE_SHARE * (deadline - now), 1
            elif alone:
                processes = 1
            if until is not None and rate is not None and not exact_try:  # (runs to its deadline)
                left = max(until - time.monotonic(), 0.0)
                solver.make_room(solver.states + int(ROOM_SHARE * rate * left))
            foreseen = None  # (a match batch's foresight, which its time teaches: foresight_pace)
            if self.options.objective == "match" and deadline is not None and batch:
                foreseen = self._match_foresight(batch)
            held = solver.states
            began = time.monotonic()
            here = there = 0
            try:
                done = solver.solve(
                    batch,
                    until,
                    solved_one,
                    processes=processes,
                    contiguous=contiguous,
                    elsewhere=solved_elsewhere if progress is not None else None,
                )
            except KeyboardInterrupt:
                done = HandsSolved({}, True)
            except BaseException:  # (given up past its deadline: answers._OverrunWatch)
                took = time.monotonic() - began
                if foreseen is not None and took > foreseen:  # (at least that much slower)
                    ran = [self.hands[index] for index in batch]
                    teach_match_pace(self.question, self.options, ran, foreseen, took)
                raise
            self.rows.update(done.rows)
            self.interrupted = done.interrupted
            took = time.monotonic() - began
            if foreseen is not None and not done.interrupted and len(done.rows) == len(batch):
                ran = [self.hands[index] for index in batch]
                teach_match_pace(self.question, self.options, ran, foreseen, took)
            if took > 0.0 and solver.states > held:
                rate = (solver.states - held) / took
            if prefix >= MIN_HANDS:  # (the least sample's hands start cold)
                if done.rows:
                    used = processes or solver.processes
                    warm = took * min(used, len(done.rows)) / len(done.rows)
                elif until is not None:  # (cut at its deadline: a hand takes longer than that)
                    warm = max(warm or 0.0, took)
            if shared and prefix < MIN_HANDS and first is None and alone is None:
                first = time.monotonic() - began
            if exact_try:
                alone = False  # (out of time after all: the rest dealt as they are drawn)
            if probing and deadline is not None:
                alone = _alone_fits(len(done.rows), len(batch), time.monotonic() - began, deadline)
            elif not done.rows and until is None:
                break  # (nothing more can be solved: never loop on it)
        self.advice = self._answer()
        self.seconds = budget.spent()
        return self.advice

    def _match_foresight(self, batch: list[int]) -> float:
        """The seconds the match answer's hands ``batch`` are foreseen to take, beside the hands
        solved already."""
        solved = [self.hands[index] for index in self.rows]
        hands = [self.hands[index] for index in batch]
        return match_seconds(self.question, self.options, hands, solved)

    def _match_batch(self, batch: list[int], seconds: float) -> list[int]:
        """The longest start of ``batch`` whose match answer is foreseen to fit ``seconds``
        (none when not even its first hand is): a match answer solves its hands' later sets
        together, and a hand begun is finished."""

        def fits(count: int) -> bool:
            return self._match_foresight(batch[:count]) <= seconds

        if not batch or not fits(1):
            return []
        low, high = 1, len(batch)
        while low < high:
            middle = (low + high + 1) // 2
            if fits(middle):
                low = middle
            else:
                high = middle - 1
        return batch[:low]

    def _hand_solver(self) -> HandRows:
        """The question's moves valued one possible hand at a time, for its objective against
        its opponent model (made once, on first use: its solver keeps what it solved)."""
        if self._solver is None:
            if self.options.objective == "match":
                self._solver = match_hands(self.question, self.options)
            else:
                self._solver = set_hands(self.question, self.options, self.hands)
        return self._solver

    def _answer(self) -> Advice:
        """The answer the hands solved so far give (Ctrl-C before two: raised on)."""
        prefix = self.solved_prefix()
        if prefix < MIN_HANDS:
            raise KeyboardInterrupt
        solver = self._hand_solver()
        moves = solver.moves
        if prefix >= self.possible:
            if self.options.objective == "set" and solver.states <= EXACT_PROBE_STATES:
                # a search this small: the exact average (its deck drawn without replacement
                # where the set answer takes that model) costs less than what was done
                exact = solve_question(self.question, self.options)
                return replace(exact, hands_solved=self.possible)
            return self._exact_answer(solver, moves)
        found = estimate(self.rows, self.draws.usable_draws(prefix))
        return self._sampled_answer(solver, moves, found, prefix)

    def _exact_answer(self, solver: HandRows, moves: Sequence[Move]) -> Advice:
        """Every hand's rows summed by their weights, in the order of the possible hands (by
        the functions the exact averages sum with)."""
        total = sum(ways for _, ways in self.hands)
        rows = [(ways / total, self.rows[index]) for index, (_, ways) in enumerate(self.hands)]
        if self.options.objective == "match":
            advice = average_match_moves(
                moves,
                rows,
                model=solver.model,
                hands_averaged=self.possible,
                fixed_probabilities=solver.fixed_probabilities,
                states=solver.states,
            )
            return replace(advice, hands_solved=self.possible)
        return Advice(
            ranked_set_results(averaged_outcomes(moves, rows)),
            model=solver.model,
            hands_averaged=self.possible,
            fixed_probabilities=solver.fixed_probabilities,
            states=solver.states,
            hands_solved=self.possible,
        )

    def _sampled_answer(
        self, solver: HandRows, moves: Sequence[Move], found: Estimate, prefix: int
    ) -> Advice:
        match = self.options.objective == "match"
        top = found.moves[0].means[0]
        results = []
        for move in found.moves:
            value, p_win, p_tie, p_loss = move.means
            results.append(
                MoveResult(
                    moves[move.place],
                    Outcome(*(clean_probability(p) for p in (p_win, p_tie, p_loss))),
                    value >= top - BEST_TOLERANCE,
                    match_win=clean_probability(value) if match else None,
                    margin=move.margin,
                )
            )
        return SampledAdvice(
            results=tuple(results),
            model=sampled_model(solver.model, self.possible, prefix, self.seed),
            hands_averaged=self.possible,
            fixed_probabilities=solver.fixed_probabilities,
            states=solver.states,
            objective=self.options.objective,
            exactness="sampled",
            hands_solved=prefix,
            draws=found.draws,
            seed=self.seed,
            confidence=found.confidence,
            gap=(found.gap, found.gap_margin),
            same=tuple(move.same for move in found.moves),
            leads=found.leads,
        )


def sampled_model(model: str, possible: int, solved: int, seed: str) -> str:
    """The exact answer's model line, said of a sample: how many of the possible hands were
    solved, how they were drawn, and the seed."""
    said = f"averaged over {counted(possible, 'possible hand')}"
    instead = (
        f"sampled: {solved:,} of its {possible:,} possible hands solved, each drawn as often as "
        f"its deck deals it (seed {seed}), ± a 95 % interval"
    )
    if said in model:
        return model.replace(said, instead, 1)
    return f"{model}; {instead}"


def confidence_note(advice: Advice, asks: Asks = ADVISE_ASKS) -> str | None:
    """A sampled answer's verdict on its first move, in one sentence that says how many hands
    it rests on: how sure it is, that it is too close to call, or (from fewer than
    :data:`VERDICT_MIN_HANDS`) in how many hands it led; ``None`` for an exact answer."""
    if advice.exactness != "sampled" or advice.confidence is None or advice.gap is None:
        return None
    if len(advice.results) < 2:
        return None
    first, second = advice.results[0].move, advice.results[1].move
    gap, margin = advice.gap
    unit = "points of match win" if advice.objective == "match" else "points of win-loss"
    solved = advice.hands_solved or 0
    rests = f"{solved:,} of {advice.hands_averaged:,} possible hands"
    more = asks.more_time if asks.exact is None else f"{asks.more_time}, {asks.exact} for all"
    if solved < VERDICT_MIN_HANDS:
        leads = advice.leads if isinstance(advice, SampledAdvice) else 0
        led = "both" if leads == solved == 2 else f"{leads} of the {solved}"
        return (
            f"{first} leads {second} by {100 * gap:.2f} {unit} in {led} hands solved (of "
            f"{advice.hands_averaged:,}): too few hands to say how sure ({more})."
        )
    if gap - margin > 0:
        percent = min(advice.confidence * 100, 99.9)
        return (
            f"{first} is best with {percent:.1f} % confidence, from {rests} (ahead of {second} "
            f"by {100 * gap:.2f} {unit}, ± {100 * margin:.2f})."
        )
    return (
        f"Too close to call from {rests}: {first} leads {second} by {100 * gap:.2f} {unit}, ± "
        f"{100 * margin:.2f} ({more})."
    )


def overrun_note(
    taken: float | None, seconds: float | None, hands: int | None = None
) -> str | None:
    """What an answer says when it took longer than its budget (measured, ``taken`` seconds):
    by how much, and why: the least sample, two hands, is solved past the budget if need be;
    an answer that rests on more (``hands``) went over as the hands under way at the deadline
    ended (it had said the least sample's reason after 24 hands); one about a known hand (one
    hand) is one search, not cut short; ``None`` within it. The time shown never rounds down
    to the budget ("0.3 s, over the 0.3 s budget" said nothing)."""
    if taken is None or seconds is None or taken <= seconds * OVERRUN_SLACK:
        return None
    why = f"the fewest hands an answer rests on ({MIN_HANDS}) take that long here"
    if hands == 1:
        why = "the opponent's hand is known, and its one search is not cut short"
    elif hands is not None and hands > MIN_HANDS:
        why = "the hands under way at the deadline took that long to end"
    budget = seconds_text(seconds)
    return f"This took {taken_text(taken, seconds)} s, over the {budget} s budget: {why}."


def taken_text(taken: float, seconds: float) -> str:
    """The seconds an answer took past its budget, never rounded down to the budget itself."""
    digits = 1 if taken >= 0.1 else 3
    while float(f"{taken:.{digits}f}") <= seconds and digits < 3:
        digits += 1
    return f"{taken:.{digits}f}"


def repeat_note(
    advice: Advice, asks_hands: bool = True, objective: str | None = None
) -> str | None:
    """A sampled answer's word that how many hands fit a budget depends on the machine's speed,
    with the options that give the same answer again (``asks_hands``: the command has
    ``--hands``; ``objective``: the option that asks for the objective the budget chose, which
    a count of hands alone would not choose)."""
    if advice.exactness != "sampled" or advice.hands_solved is None:
        return None
    words = f"--hands {advice.hands_solved} --seed {advice.seed}"
    if objective:
        words += f" {objective}"
    again = f": {words} gives this answer again" if asks_hands else ""
    return f"How many hands fit the time depends on the machine's speed{again}."


def refinement_note(refinement: Refinement, was_sampled: bool, again: str) -> str | None:
    """What a refined answer adds under its table: stopped by Ctrl-C, still sampled (``again``
    names what refines it), or exact now after being sampled; ``None`` if nothing."""
    advice = refinement.advice
    if advice is None:
        return None
    if refinement.interrupted:
        return f"Stopped: the answer so far; {again} to go on refining it."
    if advice.exactness == "sampled":
        return (
            f"Sampled from {advice.hands_solved} of {advice.hands_averaged} possible hands; "
            f"{again} to refine it."
        )
    if was_sampled:
        return "Exact now: every possible hand is solved."
    return None


def refined_note(refinement: Refinement, was_sampled: bool, again: str) -> str | None:
    """:func:`refinement_note`, and the overrun of the call's budget if it had one
    (:func:`overrun_note`)."""
    advice = refinement.advice
    notes = [
        refinement_note(refinement, was_sampled, again),
        overrun_note(
            refinement.seconds, refinement.budget, advice.hands_solved if advice else None
        ),
    ]
    return "\n".join(note for note in notes if note) or None


__all__ = [
    "ADVISE_ASKS",
    "DEFAULT_SECONDS",
    "FOLLOW_ASKS",
    "MIN_HANDS",
    "PLAY_ASKS",
    "Asks",
    "Refinement",
    "SampledAdvice",
    "confidence_note",
    "deck_word",
    "overrun_note",
    "prepare_line",
    "refined_note",
    "refinement_note",
    "repeat_note",
    "sample_word",
    "sampled_model",
    "taken_text",
]
