"""A strategy chart as a player reads it: the grid of best moves in letters (coloured on a
terminal), its legend, the note on a sampled chart; and the same as JSON for programs.
"""

from __future__ import annotations

import textwrap
from typing import Any

from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import counted, seconds_text, seed_number
from pazaak_cli.engine.rules import MainDeck
from pazaak_cli.solve.answer_types import Move
from pazaak_cli.solve.budgeted import MIN_HANDS, OVERRUN_SLACK, taken_text
from pazaak_cli.terminal.text import LazyProgress, printable, style, wrap_lines
from pazaak_cli.tools.chart import CLOSE_CALL, Cell, Chart, ChartSpec

TERMINAL_COLOURS = {"S": "green", "E": "blue", "X": "red"}
"""A cell's background on a terminal by its best move: stand, end turn, bust; a card played then
stand is cyan, then end turn magenta."""


class PassProgress:
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


def sample_note(chart: Chart, seconds: float | None, taken: float) -> str | None:
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
        within = f" within the {seconds_text(seconds)} s budget"
    speed = " (how many fit depends on the machine's speed)" if seconds is not None else ""
    return (
        f"Sampled: {sample.hands_solved:,} of {sample.hands_possible:,} possible hands{within}"
        f"{speed}; --hands {sample.hands_solved} --seed {sample.seed} gives this chart again, "
        "--time 0 the exact one."
    )


def chart_overrun_note(chart: Chart, taken: float, seconds: float | None) -> str | None:
    """What a chart says when it took longer than its budget (measured, ``taken`` seconds), and
    the reason that held: a chart about one possible hand (a known hand) is solved whole, the
    least sample's grid (two hands) past the budget if need be, and a later pass only when
    foreseen to fit (so it ran longer than foreseen). ``None`` within it."""
    if seconds is None or taken <= seconds * OVERRUN_SLACK:
        return None
    sample = chart.sample
    cells = sum(cell is not None for cell in chart.cells.values())
    if sample.hands_possible == 1:
        finite = chart.spec.ruleset.main_deck is not MainDeck.INFINITE
        why = (
            f"a chart about {'a known hand' if chart.spec.opp_hand is not None else 'one hand'} "
            f"is always solved whole, and its {cells:,} cells take that long here"
        )
        if finite:
            why += (
                ", each on its own finite deck (--main-deck infinite lets the cells share the work)"
            )
    elif sample.hands_solved <= MIN_HANDS:
        why = f"the whole grid on the fewest hands a chart rests on ({MIN_HANDS}) takes that long"
    else:
        why = "its last pass took longer than foreseen"
    budget = seconds_text(seconds)
    return f"This took {taken_text(taken, seconds)} s, over the {budget} s budget: {why}."


def chart_title(spec: ChartSpec) -> str:
    """The picture's title: both hands."""
    mine = " ".join(str(card) for card in spec.hand)
    mine = f"your hand {mine}" if mine else "you hold no hand cards"
    if spec.opp_hand is not None:
        theirs = " ".join(str(card) for card in spec.opp_hand) or "an opponent holding none"
    else:
        theirs = counted(spec.opp_hand_size, "hidden card")
    return f"Pazaak chart: {mine}, against {theirs}"


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


def render_chart(chart: Chart, columns_wide: int | None = None) -> str:
    """The chart for a terminal: the model line, the two panels, the legend. ``columns_wide``:
    the terminal's width (``None``: not a terminal, each panel whole on its lines): a panel
    wider is cut into blocks of columns that fit, and the model line wrapped (a standing
    opponent's 20 columns are 83 characters: on an 80-column terminal every row broke in two)."""
    width = max(3, *(len(label) + 1 for label, _ in chart.legend))
    head = [printable(f"{chart_title(chart.spec)}."), printable(f"Model: {chart.model}.")]
    lines = head if columns_wide is None else [wrap_lines("\n".join(head), columns_wide)]
    for standing in (False, True):
        columns = chart.columns(standing)
        if not columns:
            continue
        heading = "The opponent stands" if standing else "The opponent still draws"
        lines += ["", f"{heading}: its total across, yours after your draw down."]
        fit = len(columns) if columns_wide is None else max(1, (columns_wide - 3) // width)
        blocks = -(-len(columns) // fit)
        per_block = -(-len(columns) // blocks)  # (as even as they can be: 10 and 10, not 19 and 1)
        for start in range(0, len(columns), per_block):
            block = columns[start : start + per_block]
            if start:
                lines.append("")
            lines.append("   " + "".join(str(total).rjust(width) for total in block))
            for mine in chart.spec.my_totals:
                row = "".join(_cell_text(chart.cell(mine, t, standing), width) for t in block)
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
        "seed": seed_number(sample.seed),
        "draws": sample.draws,
        "passes": [
            {"hands": done.hands, "new_hands": done.new_hands, "seconds": done.seconds}
            for done in chart.passes
        ],
        "interrupted": chart.interrupted,
        "cells": [_cell_json(key, cell) for key, cell in chart.cells.items()],
    }
