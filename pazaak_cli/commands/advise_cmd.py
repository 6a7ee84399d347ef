"""``pazaak advise``: exact win/tie/loss odds for every move at the table you see."""

from __future__ import annotations

import dataclasses
import sys
import time
from typing import Any

import click
from tabulate import tabulate

from pazaak_cli.commands.common import (
    EXIT_CODES,
    WholeNumber,
    emit_json,
    json_option,
    ruleset_option,
    sample_options,
    style,
    time_option,
)
from pazaak_cli.commands.deck_option import deck_option
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.decks import SideDeck, default_deck
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MAIN_VALUES, TableCard
from pazaak_cli.engine.notation import format_position, parse_position, parse_table
from pazaak_cli.engine.numbers import parse_in_range, parse_whole
from pazaak_cli.engine.position_builder import Question, build_question, question_from_state
from pazaak_cli.engine.rules import DEFAULT_RULESET, MainDeck, Ruleset, parse_ruleset
from pazaak_cli.solve.advice import default_objective
from pazaak_cli.solve.budgeted import DEFAULT_SECONDS, answer, budgeted_objective, confidence_note
from pazaak_cli.solve.match_advice import match_question_pairs
from pazaak_cli.solve.solver import Advice, MoveResult, SolveOptions


class CardListType(click.ParamType):  # type: ignore[type-arg]
    """A list of side cards separated by spaces or commas (``"+1 -2 ±3"``; ``""`` is none)."""

    name = "cards"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        try:
            return parse_cards(str(value))
        except PazaakError as error:
            self.fail(str(error), param, ctx)


class MainCardListType(click.ParamType):  # type: ignore[type-arg]
    """A list of main-deck values 1..10 (``--seen "5 10 2"``)."""

    name = "values"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        values = []
        for token in str(value).replace(",", " ").split():
            number = parse_in_range(token, min(MAIN_VALUES), max(MAIN_VALUES))
            if number is None:
                shown = token if len(token) <= 20 else token[:17] + "..."
                self.fail(f"{shown!r} is not a main-deck card: write 1 to 10", param, ctx)
            values.append(number)
        return tuple(values)


class SetsType(click.ParamType):  # type: ignore[type-arg]
    """Sets won so far, ``MINE-THEIRS`` (``1-2``)."""

    name = "MINE-THEIRS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        text = str(value)
        mine, sep, theirs = text.partition("-")
        counts = (parse_whole(mine, max_digits=3), parse_whole(theirs, max_digits=3))
        if not sep or counts[0] is None or counts[1] is None:
            shown = text if len(text) <= 20 else text[:17] + "..."
            self.fail(
                f"{shown!r} is not MINE-THEIRS (two small whole numbers), e.g. 1-2", param, ctx
            )
        return counts


CARDS = CardListType()
MAIN_CARDS = MainCardListType()


@click.command("advise", epilog=EXIT_CODES)
@ruleset_option(default=None)
@click.option(
    "--table",
    "table_text",
    default=None,
    metavar="CARDS",
    help='Your table in order, the card you just drew last: "7 4 +3 9".',
)
@click.option(
    "--hand", type=CARDS, default="", metavar="CARDS", help='Your hand cards: "+1 -2 ±3 D".'
)
@click.option(
    "--opp-table",
    "opp_table_text",
    default="",
    metavar="CARDS",
    help="The opponent's table in order.",
)
@click.option("--opp-stood", is_flag=True, help="The opponent stands.")
@click.option(
    "--opp-hand",
    type=CARDS,
    default=None,
    metavar="CARDS",
    help="The opponent's hand, if you know it (an empty string: no cards).",
)
@click.option(
    "--opp-hand-size",
    type=WholeNumber(0, 10),
    default=None,
    help="How many cards the opponent holds, values unknown (averaged over its deck).",
)
@deck_option(
    "--opp-deck",
    "opp_deck",
    help="The opponent's side deck, the prior of a hidden "
    "hand: a file or sample deck name (default: kotor1-starter / the preset's).",
)
@click.option(
    "--opponent",
    type=click.Choice(["optimal", "kotor"]),
    default="optimal",
    show_default=True,
    help="How the opponent plays.",
)
@click.option(
    "--objective",
    type=click.Choice(["match", "set"]),
    default=None,
    help="What the best move maximises: the probability of winning the match (hand cards are "
    "kept for the whole match) or this set's equity. Default: the match where its answer (or "
    "a sample of it) fits the time budget, else the set, with a note; with no budget (--time "
    "0, or not on a terminal) the match against an optimal opponent when it takes seconds, the "
    "set against --opponent kotor.",
)
@click.option(
    "--sets",
    type=SetsType(),
    default="0-0",
    show_default=True,
    help="Sets won so far, yours first.",
)
@click.option(
    "--seen",
    type=MAIN_CARDS,
    default="",
    metavar="VALUES",
    help="Main-deck cards gone in earlier sets since the last shuffle.",
)
@click.option(
    "--main-deck",
    type=click.Choice([m.value for m in MainDeck]),
    default=None,
    help="Override the ruleset's main-deck model (infinite: uniform 1..10).",
)
@click.option(
    "--exact",
    is_flag=True,
    help="Always solve a finite deck without replacement, however long it takes (refused in "
    "one line where it cannot fit in memory).",
)
@click.option(
    "--position",
    default=None,
    metavar="NOTATION",
    help="A whole position in the project's notation instead of the flags above.",
)
@time_option("Default: 2 s when the answer goes to a terminal, else the exact answer.")
@sample_options
@json_option
def advise_command(
    ruleset: Ruleset | None,
    table_text: str | None,
    hand: tuple[Card, ...],
    opp_table_text: str,
    opp_stood: bool,
    opp_hand: tuple[Card, ...] | None,
    opp_hand_size: int | None,
    opp_deck: SideDeck | None,
    opponent: str,
    objective: str | None,
    sets: tuple[int, int],
    seen: tuple[int, ...],
    main_deck: str | None,
    exact: bool,
    position: str | None,
    time_budget: float | None,
    sample_seed: int,
    sample_hands: int | None,
    as_json: bool,
) -> None:
    """Exact odds of winning the match, and this set, for every legal move.

    You have just drawn (the drawn card is the last card of --table). For each move (end the
    turn, stand, or play a hand card with each value it can take, then end or stand) the solver
    gives the exact probability of winning the match if both sides then play to win it (hand
    cards are kept for the whole match; --sets gives the score), with this set's win, tie and
    loss odds along that line, and marks the best. --objective set values moves by this set
    alone; --opponent kotor answers for the set against the KOTOR I computer's rule, and with
    --objective match for the match, the rule playing every set.

    \b
    Examples:
      pazaak advise --table "8 5" --hand "+1 -2 ±3 +4" --opp-table "10 7" --opp-stood
      pazaak advise --ruleset kotor2 --table 6,9 --hand "D,T,±1/2" --opp-table "10" \\
          --opp-hand-size 4 --opp-deck kotor2-average
      pazaak advise --position "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1"

    A hidden hand (--opp-hand-size) is averaged over every hand the opponent's deck can deal.
    On a terminal the answer comes within --time (2 s): exact if every possible hand is solved
    in time, else from a sample of them drawn by their deal weights, each move with its 95 %
    interval (the model line and the JSON say "sampled"); --exact or --time 0 wait for the
    exact answer.
    """
    started = time.monotonic()
    question = _question(
        ruleset,
        table_text,
        hand,
        opp_table_text,
        opp_stood,
        opp_hand,
        opp_hand_size,
        sets,
        seen,
        main_deck,
        position,
    )
    state = question.state
    other = state.sides[1 - state.turn]
    prior = None
    if not other.hand_known:  # (a standing opponent's hand still plays the later sets)
        prior = (opp_deck or default_deck(state.ruleset)).cards
    progress = _Progress(enabled=not as_json)
    options = SolveOptions(
        opponent_deck=prior,
        exact=exact,
        progress=progress.update,
        positions=progress.positions,
        opponent=opponent,
    )
    seconds = _budget(time_budget, exact, sample_hands)
    seed = str(sample_seed)
    fell_back = False
    note = None
    if objective is not None:
        options.objective = objective
    elif seconds is not None:
        options.objective, note = budgeted_objective(question, options, seconds, seed=seed)
    else:
        options.objective = default_objective(question, options)
        fell_back = opponent == "optimal" and options.objective == "set"
    try:
        advice = answer(
            question,
            options,
            seconds,
            seed=seed,
            hands=sample_hands,
            progress=progress.budget,
            started=started,
        )
    finally:
        progress.close()
    if fell_back:
        cost = match_question_pairs(question, options)
        count = (
            f"{cost.pairs:,} pairs here"
            if cost.left == cost.pairs
            else f"{cost.left:,} of its {cost.pairs:,} pairs here still to solve"
        )
        note = (
            f"The match answer solves every pair of hands left to both of you at every score: "
            f"{count}, where a few seconds allow {cost.quick}; this set's odds instead "
            "(--objective match asks for the match anyway, and keeps what it solves for the "
            "later questions of this match)."
        )
    if (
        advice.objective == "match"
        and position is None
        and opp_stood
        and opp_hand is None
        and opp_hand_size is None
    ):
        note = (
            "The opponent's hand was not given: the match answer takes it to keep no hand cards "
            "for the later sets (--opp-hand or --opp-hand-size says what it holds)."
        )
    if as_json:
        document = advice_json(advice, question)
        document["note"] = note
        document["time_budget"] = seconds
        emit_json(document)
        return
    click.echo(_position_line(question))
    if note:
        click.echo(note)
    click.echo(render_advice(advice))


def _budget(time_budget: float | None, exact: bool, sample_hands: int | None) -> float | None:
    """The seconds an answer may take (``None``: exact, however long): ``--time`` as given
    (0: none), none with ``--exact`` or ``--hands``, else :data:`DEFAULT_SECONDS` when the
    answer goes to a terminal (a person waits) and none when a script reads it."""
    if sample_hands is not None and (exact or time_budget is not None):
        raise click.UsageError("--hands answers from that many sampled hands: drop --time/--exact")
    if exact and time_budget:
        raise click.UsageError("--exact answers however long it takes: drop --time")
    if exact or sample_hands is not None:
        return None
    if time_budget is not None:
        return time_budget or None
    return DEFAULT_SECONDS if sys.stdout.isatty() else None


def _question(
    ruleset: Ruleset | None,
    table_text: str | None,
    hand: tuple[Card, ...],
    opp_table_text: str,
    opp_stood: bool,
    opp_hand: tuple[Card, ...] | None,
    opp_hand_size: int | None,
    sets: tuple[int, int],
    seen: tuple[int, ...],
    main_deck: str | None,
    position: str | None,
) -> Question:
    if position is not None:
        if table_text is not None:
            raise click.UsageError("give either --position or --table, not both")
        state = parse_position(position)
        if main_deck is not None:
            rules = dataclasses.replace(state.ruleset, main_deck=MainDeck(main_deck))
            deck = state.deck if rules.main_deck is not MainDeck.INFINITE else (4,) * 10
            state = state._replace(ruleset=rules, deck=deck)
        return question_from_state(state)
    if table_text is None:
        raise click.UsageError(
            "give your table with --table (the card you drew last), "
            "or a whole position with --position"
        )
    if opp_hand is not None and opp_hand_size is not None:
        raise click.UsageError("give either --opp-hand or --opp-hand-size, not both")
    rules = ruleset or parse_ruleset(DEFAULT_RULESET)
    if main_deck is not None:
        rules = dataclasses.replace(rules, main_deck=MainDeck(main_deck))
    table = _table(table_text, rules, "--table")
    opp_table = _table(opp_table_text, rules, "--opp-table")
    hidden: tuple[Card | None, ...]
    if opp_hand is not None:
        hidden = opp_hand
    else:
        hidden = (None,) * (opp_hand_size if opp_hand_size is not None else 0)
        if opp_hand_size is None and not opp_stood:
            raise click.UsageError(
                "the opponent still plays: give its hand with --opp-hand, or its size with "
                "--opp-hand-size (its deck with --opp-deck), or say --opp-stood"
            )
    for card in hand:
        if not rules.allows(card):
            raise click.BadParameter(f"{card} is not a {rules.name} card", param_hint="'--hand'")
    return build_question(
        rules,
        table=table,
        hand=hand,
        opp_table=opp_table,
        opp_stood=opp_stood,
        opp_hand=hidden,
        sets=sets,
        seen=seen,
    )


def _table(text: str, rules: Ruleset, option: str) -> tuple[TableCard, ...]:
    try:
        return parse_table(text, rules.flip_targets, where=option)
    except PazaakError as error:
        raise click.BadParameter(
            str(error).removeprefix(f"{option}: "), param_hint=f"'{option}'"
        ) from None


class _Progress:
    """One status line on standard error while a solve takes more than a second (on a terminal
    only): the hidden hands averaged so far and the positions solved, so that a long search
    shows it is moving (Ctrl-C stops it)."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.started = time.monotonic()
        self.hands = ""
        self.solved = ""
        self.width = 0
        self.shown = False

    def update(self, done: int, total: int) -> None:
        """Hidden hands averaged: ``done`` of ``total``, with the time left foreseen from the
        time they took."""
        self.hands = ""
        if done < total:
            spent = time.monotonic() - self.started
            left = spent * (total - done) / max(done, 1)
            self.hands = f"{done}/{total} hidden hands, about {_duration(left)} left"
        self._show()

    def budget(self, solved: int, possible: int, left: float | None) -> None:
        """Hidden hands solved within a time budget, and the budget's time left."""
        if left is None:
            self.update(solved, possible)
            return
        self.hands = f"{solved}/{possible} hidden hands, {_duration(left)} left"
        self._show()

    def positions(self, solved: int) -> None:
        """Positions solved so far in this search."""
        self.solved = f"{solved:,} positions"
        self._show()

    def _show(self) -> None:
        if not self.enabled or time.monotonic() - self.started < 1.0:
            return
        line = "Solving: " + ", ".join(part for part in (self.hands, self.solved) if part)
        self.width = max(self.width, len(line))
        click.echo("\r" + line.ljust(self.width), nl=False, err=True)
        self.shown = True

    def close(self) -> None:
        if self.shown:
            click.echo("\r" + " " * self.width + "\r", nl=False, err=True)


def _duration(seconds: float) -> str:
    """``12 s``, ``3 min``, ``2 h``: a time left, as a person reads it."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def _position_line(question: Question) -> str:
    state = question.state
    me = state.sides[state.turn]
    other = state.sides[1 - state.turn]
    table = " ".join(str(card) for card in me.table)
    if not state.played:
        table = f"{table} {question.drawn}".strip()
    opp = " ".join(str(card) for card in other.table) or "empty"
    stood = ", stands" if other.standing else ""
    return f"Your table {table}; opponent's {opp}{stood}."


def render_advice(advice: Advice) -> str:
    """The human table of moves, best first (``pazaak play``'s hint shows the same): for match
    advice the match-win column first, then the set's odds along the same line."""
    match = advice.objective == "match"
    sampled = advice.exactness == "sampled"
    rows = []
    for result in advice.results:
        o = result.outcome
        mark = style("best", bold=True, fg="green") if result.best else ""
        row = [mark, str(result.move)]
        if match:
            row.append(f"{100 * (result.match_win or 0.0):.2f}")
            if sampled:
                row.append(f"{100 * (result.margin or 0.0):.2f}")
        row += [f"{100 * o.p_win:.2f}", f"{100 * o.p_tie:.2f}", f"{100 * o.p_loss:.2f}"]
        if not match:
            row.append(f"{o.equity:+.4f}")
            if sampled:
                row.append(f"{result.margin or 0.0:.4f}")
        rows.append(row)
    if match:
        headers = ["", "move", "match win %", *(["±"] if sampled else []), "set win %"]
        headers += ["tie %", "loss %"]
    else:
        headers = ["", "move", "win %", "tie %", "loss %", "equity", *(["±"] if sampled else [])]
    table = tabulate(
        rows,
        headers=headers,
        disable_numparse=True,
        colalign=("left", "left", *("right",) * (len(headers) - 2)),
    )
    verdict = confidence_note(advice)
    return f"Model: {advice.model}.\n{table}" + (f"\n{verdict}" if verdict else "")


def advice_json(advice: Advice, question: Question) -> dict[str, Any]:
    """The JSON document of ``pazaak advise --json``."""
    return {
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
        "seed": advice.seed,
        "confidence": advice.confidence,
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


def _interval(result: MoveResult, objective: str) -> list[float] | None:
    """A sampled move's 95 % interval of the value it is ranked by (the match-win probability,
    else the set's equity); ``None`` in an exact answer."""
    if result.margin is None:
        return None
    value = result.match_win if objective == "match" else result.outcome.equity
    assert value is not None
    low = 0.0 if objective == "match" else -1.0  # (what the value can be, at most 1)
    return [max(value - result.margin, low), min(value + result.margin, 1.0)]
