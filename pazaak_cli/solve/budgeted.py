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

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.solve.advice import solve_question
from pazaak_cli.solve.hand_rows import HandRows, HandsSolved, MoveRow, set_hands
from pazaak_cli.solve.match_advice import (
    average_match_moves,
    match_hands,
    match_other_hands,
    match_seconds,
)
from pazaak_cli.solve.match_solver import clean_probability
from pazaak_cli.solve.sampling import Estimate, HandDraws, estimate
from pazaak_cli.solve.solver import (
    BEST_TOLERANCE,
    EXACT_PROBE_STATES,
    Advice,
    Move,
    MoveResult,
    Outcome,
    SolveOptions,
    averaged_outcomes,
    ranked_set_results,
    weighted_opponent_hands,
)

DEFAULT_SECONDS = 2.0
"""The budget where a person waits at the table (``pazaak follow``, the hint of ``pazaak
play``, ``pazaak advise`` on a terminal)."""

MIN_HANDS = 2
"""A sampled answer rests on this many distinct hands at least (a spread needs two), solved
even past the budget: a question whose single hand takes longer says so by taking longer."""

DEFAULT_SEED = "0"
"""The draws' seed when none is given: the same question, budget and machine speed give the
same answer (``--seed`` with ``--hands`` replays any answer exactly, whatever the speed)."""


Progress = Callable[[int, int, "float | None"], None]
"""Told (hands solved, hands possible, seconds left in the budget or None) as hands are
solved."""


class Refinement:
    """One question's answer, refined hand by hand across calls of :meth:`refine`.

    ``options.objective`` must be set (``set`` or ``match``). The opponent's possible hands are
    those the exact answer averages; a question with one (a known hand, or a standing opponent
    in a set answer) is answered exactly at once."""

    def __init__(self, question: Question, options: SolveOptions, *, seed: str = DEFAULT_SEED):
        if options.objective not in ("set", "match"):
            raise PazaakError(f"unknown objective {options.objective!r}; choose match or set")
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
        seconds: float | None,
        *,
        hands: int | None = None,
        progress: Progress | None = None,
        started: float | None = None,
    ) -> Advice:
        """Solve more hands until about ``seconds`` after ``started`` (a :func:`time.monotonic`
        instant, default now; ``seconds`` ``None``: no limit), or until the first ``hands`` of
        the draws' order are solved, and return the answer they give. Ctrl-C ends the call
        with the answer so far (raised on if there is none yet)."""
        if self.exact:
            assert self.advice is not None
            return self.advice
        if self.possible == 1:
            self.advice = replace(solve_question(self.question, self.options), hands_solved=1)
            return self.advice
        if started is None:
            started = time.monotonic()
        deadline = None if seconds is None else started + seconds
        target = self.possible if hands is None else max(min(hands, self.possible), MIN_HANDS)
        solver = self._hand_solver()

        def solved_one(_: int) -> None:
            if progress is not None:
                left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                progress(len(self.rows) + 1, self.possible, left)

        self.interrupted = False
        before = self.solved_prefix()
        while not self.interrupted:
            prefix = self.solved_prefix()
            if prefix >= target:
                break
            now = time.monotonic()
            late = deadline is not None and now >= deadline
            if late and prefix >= MIN_HANDS and prefix > before:
                break
            order = self.draws.distinct(target)
            batch = [hand for hand in order if hand not in self.rows]
            until = deadline
            if late:  # what every call owes, past the budget if need be: the least sample, and
                # one hand more than the call before (so that asking again always refines)
                need = max(MIN_HANDS, before + 1)
                batch = [hand for hand in order[:need] if hand not in self.rows]
                until = None
            elif self.options.objective == "match" and deadline is not None:
                batch = self._match_batch(batch, deadline - now)
            try:
                done = solver.solve(batch, until, solved_one)
            except KeyboardInterrupt:
                done = HandsSolved({}, True)
            self.rows.update(done.rows)
            self.interrupted = done.interrupted
            if not done.rows and until is None:
                break  # (nothing more can be solved: never loop on it)
        self.advice = self._answer()
        return self.advice

    def _match_batch(self, batch: list[int], seconds: float) -> list[int]:
        """The longest start of ``batch`` whose match answer is foreseen to fit ``seconds``
        (one hand at least): a match answer solves its hands' later sets together, and a hand
        begun is finished."""

        def fits(count: int) -> bool:
            hands = [self.hands[index] for index in batch[:count]]
            return match_seconds(self.question, self.options, hands) <= seconds

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
        return Advice(
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
        )


def sampled_model(model: str, possible: int, solved: int, seed: str) -> str:
    """The exact answer's model line, said of a sample: how many of the possible hands were
    solved, how they were drawn, and the seed."""
    said = f"averaged over {possible:,} possible hands"
    instead = (
        f"sampled: {solved:,} of its {possible:,} possible hands solved, drawn by their deal "
        f"weights (seed {seed}), ± a 95 % interval"
    )
    if said in model:
        return model.replace(said, instead, 1)
    return f"{model}; {instead}"


def answer(
    question: Question,
    options: SolveOptions,
    seconds: float | None,
    *,
    seed: str = DEFAULT_SEED,
    hands: int | None = None,
    progress: Progress | None = None,
    started: float | None = None,
) -> Advice:
    """The answer to ``question`` within about ``seconds`` from ``started`` (default now;
    ``None``: exact, however long it takes), ``options.objective`` set; ``hands``: exactly the
    first this many hands of the draws, whatever the time (a replay)."""
    if seconds is None and hands is None:
        return solve_question(question, options)
    refinement = Refinement(question, options, seed=seed)
    return refinement.refine(seconds, hands=hands, progress=progress, started=started)


def budgeted_objective(
    question: Question, options: SolveOptions, seconds: float, *, seed: str = DEFAULT_SEED
) -> tuple[str, str | None]:
    """The objective to answer within ``seconds`` when the user named none: the match when
    the match answer for the least sample (:data:`MIN_HANDS` of the draws' first hands, or the
    one hand the opponent may hold) is foreseen to fit (:func:`~pazaak_cli.solve.match_advice.
    match_seconds`), else the set; with the sentence that says why the set, if it is."""
    state = question.state
    other = state.sides[1 - state.turn]
    match_options = replace(options, objective="match")
    try:
        possible = match_other_hands(other, match_options, state.ruleset)
    except PazaakError:
        return "match", None  # (the match solve itself then says what is wrong)
    draws = HandDraws([ways for _, ways in possible], seed)
    sample = [possible[index] for index in draws.distinct(MIN_HANDS)]
    try:
        foreseen = match_seconds(question, match_options, sample)
    except PazaakError:
        return "match", None
    if foreseen <= seconds:
        return "match", None
    if math.isinf(foreseen):
        why = "is out of reach against this opponent model here"
    else:
        who = "one hand" if len(possible) == 1 else f"{len(sample)} of the opponent's hands"
        why = f"would take about {foreseen:.0f} s for {who}"
    return "set", (
        f"The match answer {why}, beyond the {seconds:g} s budget: this set's odds instead "
        "(--objective match asks for the match, --time for more time)."
    )


def confidence_note(advice: Advice) -> str | None:
    """A sampled answer's verdict on its first move, in one sentence: how sure it is, or that
    it is too close to call; ``None`` for an exact answer."""
    if advice.exactness != "sampled" or advice.confidence is None or advice.gap is None:
        return None
    if len(advice.results) < 2:
        return None
    first, second = advice.results[0].move, advice.results[1].move
    gap, margin = advice.gap
    unit = 100.0 if advice.objective == "match" else 1.0
    shown = (
        f"{unit * gap:.2f} points of match win"
        if advice.objective == "match"
        else f"{gap:.3f} of equity"
    )
    spread = f"{unit * margin:.2f}" if advice.objective == "match" else f"{margin:.3f}"
    sure = advice.confidence
    if gap - margin > 0:
        percent = min(sure * 100, 99.9)
        return (
            f"{first} is best with {percent:.1f} % confidence (ahead of {second} by {shown}, "
            f"± {spread})."
        )
    return (
        f"Too close to call: {first} leads {second} by {shown}, ± {spread}; more time (--time) "
        "or --exact settles it."
    )


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


__all__ = [
    "DEFAULT_SECONDS",
    "MIN_HANDS",
    "Refinement",
    "answer",
    "budgeted_objective",
    "confidence_note",
    "refinement_note",
    "sampled_model",
]
