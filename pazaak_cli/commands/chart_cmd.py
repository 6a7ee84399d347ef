"""``pazaak chart``: the best move for one hand at every pair of totals, as a coloured grid."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import click

from pazaak_cli.commands.common import (
    EXIT_CODES,
    UsageFailure,
    budget_seconds,
    emit_json,
    json_option,
    ruleset_option,
    sample_options,
    time_option,
)
from pazaak_cli.commands.deck_option import deck_option
from pazaak_cli.commands.position_options import (
    CARDS,
    check_cards,
    main_deck_option,
    opp_hand_option,
    opp_hand_size_option,
    opponent_option,
    sets_option,
)
from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import SideDeck, default_deck
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import parse_whole
from pazaak_cli.engine.rules import DEFAULT_RULESET, MainDeck, Ruleset, parse_ruleset
from pazaak_cli.solve.answer_types import Move
from pazaak_cli.solve.budgeted import OVERRUN_SLACK, overrun_note
from pazaak_cli.solve.time_budget import TimeBudget
from pazaak_cli.terminal.text import LazyProgress, printable, style
from pazaak_cli.tools.chart import (
    CLOSE_CALL,
    DEFAULT_CHART_SECONDS,
    Cell,
    Chart,
    ChartSpec,
    chart_keys,
    compute_chart,
    default_my_totals,
    default_opp_totals,
)
from pazaak_cli.tools.chart_svg import render_svg

MAX_TOTAL = 60
"""The largest total a range may name (the largest target, 50, and a draw of 10 beyond)."""
TERMINAL_COLOURS = {"S": "green", "E": "blue", "X": "red"}
"""A cell's background on a terminal by its best move: stand, end turn, bust; a card played then
stand is cyan, then end turn magenta."""


class TotalsType(click.ParamType):  # type: ignore[type-arg]
    """A range of totals, ``LOW-HIGH`` (``11-19``), or one total."""

    name = "LOW-HIGH"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        text = str(value).strip()
        low_text, sep, high_text = text.partition("-")
        low = parse_whole(low_text.strip(), max_digits=3)
        high = parse_whole(high_text.strip(), max_digits=3) if sep else low
        if low is None or high is None or not 1 <= low <= high <= MAX_TOTAL:
            shown = text if len(text) <= 20 else text[:17] + "..."
            self.fail(
                f"{shown!r} is not a range of totals LOW-HIGH, from 1 to {MAX_TOTAL}, e.g. 11-19",
                param,
                ctx,
            )
        return tuple(range(low, high + 1))


TOTALS = TotalsType()


@click.command("chart", epilog=EXIT_CODES)
@ruleset_option(default=None)
@click.option(
    "--hand",
    type=CARDS,
    required=True,
    metavar="CARDS",
    help='Your hand cards: "+2 -3 ±4" ("" for none: the plain stand-or-draw chart).',
)
@opp_hand_option
@opp_hand_size_option
@opponent_option
@sets_option
@main_deck_option
@deck_option(
    "--opp-deck",
    "opp_deck",
    help="The prior of a hidden opponent hand: its side deck, a file or sample deck name "
    "(default: kotor1-starter / the preset's).",
)
@click.option(
    "--objective",
    type=click.Choice(["set", "match"]),
    default="set",
    show_default=True,
    help="What the best move maximises: this set's win odds less its loss odds (quick), or the "
    "probability of "
    "winning the match (hand cards kept for the whole match; slower).",
)
@click.option(
    "--my-totals",
    type=TOTALS,
    default=None,
    help="The rows: your totals after the draw (default: the target less 9 to one below it, "
    "then the totals over it a minus card in hand can rescue).",
)
@click.option(
    "--opp-totals",
    type=TOTALS,
    default=None,
    help="The columns: the opponent's totals (default: 1 to the target).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE.svg",
    help="Also write the chart as an SVG picture (a browser shows it).",
)
@time_option(
    f"Default: {DEFAULT_CHART_SECONDS:g} s for a hidden hand when the chart goes to a terminal, "
    "else the exact chart.",
    lead="Draw the chart within about this many seconds: exactly where every possible hand of "
    "a hidden opponent hand is solved in time, else on the largest sample of them that fits "
    "(each drawn as often as the deck deals it, doubled pass by pass). 0: the exact chart "
    "however long it takes.",
)
@sample_options
@json_option
def chart_command(
    ruleset: Ruleset | None,
    hand: tuple[Card, ...],
    opp_hand: tuple[Card, ...] | None,
    opp_hand_size: int | None,
    opp_deck: SideDeck | None,
    opponent: str,
    objective: str,
    sets: tuple[int, int],
    main_deck: str | None,
    my_totals: tuple[int, ...] | None,
    opp_totals: tuple[int, ...] | None,
    out: Path | None,
    time_budget: float | None,
    sample_seed: int,
    sample_hands: int | None,
    as_json: bool,
) -> None:
    """The best move at every total, for one hand: a basic-strategy chart.

    For each of your totals just after your draw (down), each total of the opponent (across),
    the opponent drawing or standing, the best move (stand, end the turn, or play a hand card
    with its sign, then stand or end), exactly as `pazaak advise` answers on that position (the
    tables are built as docs/chart.md says). Upper case: the best move leads the next by a point
    or more; lower case: a close call. The opponent's hand is hidden unless --opp-hand gives it.

    A hidden hand is averaged over every hand the opponent's deck can deal; on a terminal the
    chart comes within --time (10 s): the whole grid on a sample of those hands, each drawn as
    often as the deck deals it, twice as many each pass, the last pass that fits shown (the
    model line says "sampled"), or exact if every hand is in. --hands N --seed S: exactly the
    first N hands.

    \b
    Examples:
      pazaak chart --ruleset kotor1/main-deck=infinite --hand "+2 -3 ±4" --opp-hand "-1 +3"
      pazaak chart --hand "+1 -2 ±3 +4" --opp-deck kotor1-average --out chart.svg
      pazaak chart --hand "±2 -3" --objective match --sets 2-1 --opp-hand "+4"
    """
    started = time.monotonic()  # (the budget counts from here, as advise's does)
    if out is not None and out.suffix.lower() != ".svg":
        if out.suffix.lower() == ".png":
            raise click.BadParameter(
                "PNG is not written (it would need an image library, which pazaak does not "
                "depend on): write FILE.svg, which any browser shows and can save as PNG",
                param_hint="'--out'",
            )
        raise click.BadParameter(
            "the chart is written as SVG: name a .svg file", param_hint="'--out'"
        )
    if out is not None and not out.parent.is_dir():
        raise UsageFailure(f"cannot write {out}: no directory {out.parent}")
    if opp_hand is not None and opp_hand_size is not None:
        raise click.UsageError("give either --opp-hand or --opp-hand-size, not both")
    rules = ruleset or parse_ruleset(DEFAULT_RULESET)
    if main_deck is not None:
        rules = dataclasses.replace(rules, main_deck=MainDeck(main_deck))
    for option, cards in (("--hand", hand), ("--opp-hand", opp_hand or ())):
        check_cards(cards, rules, f"'{option}'")
    prior = None
    if opp_hand is None:
        prior = opp_deck or default_deck(rules)
    spec = ChartSpec(
        ruleset=rules,
        hand=hand,
        my_totals=my_totals or default_my_totals(rules, hand),
        opp_totals=opp_totals or default_opp_totals(rules),
        opp_hand=opp_hand,
        opp_hand_size=rules.hand_size if opp_hand_size is None else opp_hand_size,
        opp_deck=prior.cards if prior else None,
        opp_deck_name=prior.name if prior else "",
        opponent=opponent,
        objective=objective,
        sets=sets,
    )
    waits = opp_hand is None and sys.stdout.isatty()  # (a person waits for a hidden hand's)
    seconds = budget_seconds(
        time_budget, default=DEFAULT_CHART_SECONDS if waits else None, hands=sample_hands
    )
    progress = _PassProgress(len(chart_keys(spec)), enabled=sys.stderr.isatty() and not as_json)
    try:
        chart = compute_chart(
            spec,
            progress,
            hands=sample_hands,
            budget=TimeBudget(seconds, started),
            seed=str(sample_seed),
            on_pass=progress.new_pass,
        )
    finally:
        progress.close()
    if out is not None:
        try:
            out.write_text(render_svg(chart, _title(spec)), encoding="utf-8")
        except OSError as error:
            raise UsageFailure(f"cannot write {out}: {error.strerror or error}") from None
    taken = time.monotonic() - started
    if as_json:
        emit_json({**chart_json(chart), "time_budget": seconds})
        return
    click.echo(render_chart(chart))
    for note in (_sample_note(chart, seconds, taken), overrun_note(taken, seconds)):
        if note:
            click.echo("\n".join(textwrap.wrap(note, 79)))
    if out is not None:
        click.echo(f"Chart written to {out}.")


class _PassProgress:
    """A progress bar of the cells solved, one per pass of a time-budgeted chart (each shown
    once its pass has lasted a second: :class:`~pazaak_cli.commands.common.LazyProgress`)."""

    def __init__(self, cells: int, *, enabled: bool) -> None:
        self.cells = cells
        self.enabled = enabled
        self.bar = LazyProgress(cells, enabled=enabled, label="cells")

    def __call__(self, done: int) -> None:
        self.bar(done)

    def new_pass(self, hands: int, possible: int) -> None:
        self.bar.close()
        label = f"cells, {hands:,} of {possible:,} hands" if hands < possible else "cells"
        self.bar = LazyProgress(self.cells, enabled=self.enabled, label=label)

    def close(self) -> None:
        self.bar.close()


def _sample_note(chart: Chart, seconds: float | None, taken: float) -> str | None:
    """What a sampled or stopped chart says under its legend: how many hands, whether in the
    budget (the time measured, ``taken``), and how to get it again."""
    sample = chart.sample
    if chart.interrupted:
        return (
            f"Stopped: the last complete pass, on {sample.hands_solved:,} of "
            f"{sample.hands_possible:,} possible hands."
        )
    if sample.exactness != "sampled":
        return None
    within = ""
    if seconds is not None and taken <= seconds * OVERRUN_SLACK:
        within = f" within the {seconds:g} s budget"
    speed = " (how many fit depends on the machine's speed)" if seconds is not None else ""
    return (
        f"Sampled: {sample.hands_solved:,} of {sample.hands_possible:,} possible hands{within}"
        f"{speed}; --hands {sample.hands_solved} --seed {sample.seed} gives this chart again, "
        "--time 0 the exact one."
    )


def _title(spec: ChartSpec) -> str:
    """The picture's title: both hands."""
    mine = " ".join(str(card) for card in spec.hand) or "no cards"
    if spec.opp_hand is not None:
        theirs = " ".join(str(card) for card in spec.opp_hand) or "no cards"
    else:
        theirs = f"{spec.opp_hand_size} hidden cards"
    return f"Pazaak chart: your hand {mine}, against {theirs}"


def _cell_text(cell: Cell | None, width: int) -> str:
    """One cell on a terminal: its label, in lower case for a close call, coloured."""
    if cell is None:
        return " " * width
    label = cell.label.lower() if cell.close else cell.label
    colour = TERMINAL_COLOURS.get(cell.label) or ("cyan" if cell.label.endswith("S") else "magenta")
    text = label.rjust(width)
    if cell.close:
        return style(text, fg=colour)
    return style(text, fg="white" if colour in ("blue", "red", "magenta") else "black", bg=colour)


def render_chart(chart: Chart) -> str:
    """The chart for a terminal: the model line, the two panels, the legend."""
    width = max(3, *(len(label) + 1 for label, _ in chart.legend))
    lines = [printable(f"{_title(chart.spec)}."), printable(f"Model: {chart.model}.")]
    for standing in (False, True):
        columns = chart.columns(standing)
        if not columns:
            continue
        heading = "The opponent stands" if standing else "The opponent still draws"
        lines += ["", f"{heading}: its total across, yours after your draw down."]
        lines.append("   " + "".join(str(total).rjust(width) for total in columns))
        for mine in chart.spec.my_totals:
            row = "".join(_cell_text(chart.cell(mine, t, standing), width) for t in columns)
            lines.append(str(mine).rjust(3) + row)
    lines.append("")
    lines += _legend_lines(chart, width)
    lines += textwrap.wrap(
        "Upper case: the best move leads the next by a point or more "
        f"(of {'match win' if chart.spec.objective == 'match' else 'win-loss'}); "
        f"lower case: by less (a close call, under {100 * CLOSE_CALL:g}); blank: no table "
        "fits those totals.",
        79,
    )
    return "\n".join(lines)


def _legend_lines(chart: Chart, width: int) -> list[str]:
    """The legend in columns, as many as 79 characters hold: each label with its move."""
    entries = [f"{label.rjust(width - 1)} {text}" for label, text in chart.legend]
    column = max(len(entry) for entry in entries) + 3
    per_line = max(1, 79 // column)
    return [
        "".join(entry.ljust(column) for entry in entries[start : start + per_line]).rstrip()
        for start in range(0, len(entries), per_line)
    ]


def _move_json(move: Move | None) -> dict[str, Any] | None:
    if move is None:
        return None
    return {
        "card": None if move.card is None else str(move.card),
        "value": move.value,
        "then": move.then,
        "note": move.note or None,
    }


def _cell_json(key: tuple[int, int, bool], cell: Cell | None) -> dict[str, Any]:
    mine, theirs, standing = key
    document: dict[str, Any] = {"my_total": mine, "opp_total": theirs, "opp_standing": standing}
    if cell is None:
        return {**document, "label": None}
    outcome = cell.best.outcome
    return {
        **document,
        "table": " ".join(map(str, cell.table)),
        "opp_table": " ".join(map(str, cell.opp_table)),
        "position": format_position(cell.question.state),
        "drawn": cell.question.drawn,
        "label": cell.label,
        "move": _move_json(cell.best.move),
        "match_win": cell.best.match_win,
        "p_win": outcome.p_win,
        "p_tie": outcome.p_tie,
        "p_loss": outcome.p_loss,
        "equity": outcome.equity,
        "next": _move_json(cell.second.move if cell.second else None),
        "margin": cell.margin,
        "hands_averaged": cell.advice.hands_averaged,
        "fixed_probabilities": cell.advice.fixed_probabilities,
    }


def chart_json(chart: Chart) -> dict[str, Any]:
    """The JSON document of ``pazaak chart --json``."""
    spec, sample = chart.spec, chart.sample
    return {
        "ruleset": spec.ruleset.spec,
        "objective": spec.objective,
        "opponent": spec.opponent,
        "model": chart.model,
        "hand": [str(card) for card in spec.hand],
        "opp_hand": None if spec.opp_hand is None else [str(card) for card in spec.opp_hand],
        "opp_hand_size": None if spec.opp_hand is not None else spec.opp_hand_size,
        "opp_deck": spec.opp_deck_name or None,
        "sets": list(spec.sets),
        "my_totals": list(spec.my_totals),
        "opp_totals": list(spec.opp_totals),
        "legend": [{"label": label, "move": text} for label, text in chart.legend],
        "exactness": sample.exactness,
        "hands_solved": sample.hands_solved,
        "hands_possible": sample.hands_possible,
        "seed": sample.seed,
        "draws": sample.draws,
        "passes": [
            {"hands": done.hands, "new_hands": done.new_hands, "seconds": done.seconds}
            for done in chart.passes
        ],
        "interrupted": chart.interrupted,
        "cells": [_cell_json(key, cell) for key, cell in chart.cells.items()],
    }
