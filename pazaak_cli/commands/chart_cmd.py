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
    budget_seconds,
    check_out_file,
    emit_json,
    json_option,
    refuse_with_known_hand,
    ruleset_option,
    sample_options,
    time_option,
    write_out_file,
)
from pazaak_cli.commands.deck_option import deck_option
from pazaak_cli.commands.position_options import (
    CARDS,
    check_cards,
    check_opp_hand_size,
    main_deck_option,
    opp_hand_option,
    opp_hand_size_option,
    opponent_option,
    sets_option,
)
from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import SideDeck, default_deck
from pazaak_cli.engine.numbers import parse_whole
from pazaak_cli.engine.rules import DEFAULT_RULESET, MainDeck, Ruleset, parse_ruleset
from pazaak_cli.solve.time_budget import TimeBudget, command_started
from pazaak_cli.terminal.chart_text import (
    PassProgress,
    chart_json,
    chart_overrun_note,
    chart_title,
    render_chart,
    sample_note,
)
from pazaak_cli.terminal.text import terminal_width
from pazaak_cli.tools.chart import (
    DEFAULT_CHART_SECONDS,
    ChartSpec,
    chart_keys,
    compute_chart,
    default_my_totals,
    default_opp_totals,
)
from pazaak_cli.tools.chart_svg import render_svg

MAX_TOTAL = 60
"""The largest total a range may name (the largest target, 50, and a draw of 10 beyond)."""


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
@click.option("--force", is_flag=True, help="Let --out replace an existing file.")
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
    force: bool,
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
    started = command_started()  # (the budget counts from the launch, as advise's does)
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
    if out is not None:
        check_out_file(str(out), force)
    if opp_hand is not None and opp_hand_size is not None:
        raise click.UsageError("give either --opp-hand or --opp-hand-size, not both")
    rules = ruleset or parse_ruleset(DEFAULT_RULESET)
    check_opp_hand_size(opp_hand_size, rules)
    if main_deck is not None:
        rules = dataclasses.replace(rules, main_deck=MainDeck(main_deck))
    for option, cards in (("--hand", hand), ("--opp-hand", opp_hand or ())):
        check_cards(cards, rules, f"'{option}'")
    prior = None
    given_by = "--opp-hand"
    if opp_hand is None and opp_hand_size == 0:  # (as advise takes it: no card left to average)
        opp_hand, given_by = (), "--opp-hand-size 0: an empty hand is known"
    if opp_hand is None:
        prior = opp_deck or default_deck(rules, option="--opp-deck")
    else:
        refuse_with_known_hand(click.get_current_context(), given_by)
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
    progress = PassProgress(len(chart_keys(spec)), enabled=sys.stderr.isatty() and not as_json)
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
        write_out_file(str(out), render_svg(chart, chart_title(spec)))
    taken = time.monotonic() - started
    if as_json:
        emit_json({**chart_json(chart), "time_budget": seconds})
        return
    click.echo(render_chart(chart, terminal_width()))
    for note in (sample_note(chart, seconds, taken), chart_overrun_note(chart, taken, seconds)):
        if note:
            click.echo("\n".join(textwrap.wrap(note, 79)))
    if out is not None:
        click.echo(f"Chart written to {out}.")
