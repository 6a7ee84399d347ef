"""A chart (:mod:`pazaak_cli.tools.chart`) drawn as an SVG picture: plain text, no library.

Two panels side by side (the opponent still drawing, the opponent standing), your total after
the draw down, the opponent's total across. A cell's colour is its best move's; its shade, how
far that move leads the next (pale: a close call; full: the choice matters a lot; forced moves
full). Every cell carries a tooltip (``<title>``) with the tables, the odds and the margin.
Above the panels the title and the model line; below, the legend and the shade's scale. Every
text is XML-escaped, and a character XML cannot hold (a control character in a deck name) is
written as its Python escape.
"""

from __future__ import annotations

import math
import re
import textwrap
from xml.sax.saxutils import escape, quoteattr

from pazaak_cli.tools.chart import Cell, Chart

CELL_HEIGHT = 22
CHAR_WIDTH = 7.0
"""The width of one character of the 11-pixel monospace font, rounded up."""
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
PAD = 16
ROW_HEAD = 34
"""The width of the row labels (your totals) left of each panel."""
GAP = 36
"""Between the two panels."""
FULL_MARGIN = 0.20
"""A margin of this much (20 points) or more is shaded in full; below, by its square root."""
LIGHTEST = 0.25
"""The shade of a margin of 0: a quarter of the colour, on white."""
FIXED_COLOURS = {"S": "#2e7d32", "E": "#1565c0", "X": "#616161"}
"""Stand green, end turn blue, a bust grey."""
CARD_COLOURS = (
    "#e65100",
    "#6a1b9a",
    "#00838f",
    "#ad1457",
    "#827717",
    "#4e342e",
    "#c62828",
    "#283593",
    "#00695c",
    "#f9a825",
)
"""The card plays, in the legend's order (then again from the first)."""
EMPTY = "#eeeeee"
"""A cell no table fits."""
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    """``text`` as XML character data: escaped, and every character XML 1.0 cannot hold written
    as its Python escape (``\\x1b``)."""
    return escape(_NOT_XML.sub(lambda found: repr(found.group())[1:-1], text))


def _attr(text: str) -> str:
    """``text`` as a quoted XML attribute value."""
    return quoteattr(_NOT_XML.sub(lambda found: repr(found.group())[1:-1], text))


def colours(chart: Chart) -> dict[str, str]:
    """Each label of the legend's colour."""
    found: dict[str, str] = {}
    cards = 0
    for label, _ in chart.legend:
        if label in FIXED_COLOURS:
            found[label] = FIXED_COLOURS[label]
        else:
            found[label] = CARD_COLOURS[cards % len(CARD_COLOURS)]
            cards += 1
    return found


def strength(margin: float | None) -> float:
    """How much of its colour a cell shows, from :data:`LIGHTEST` (no margin) to 1."""
    if margin is None:
        return 1.0
    return LIGHTEST + (1 - LIGHTEST) * math.sqrt(min(1.0, margin / FULL_MARGIN))


def _mix(colour: str, share: float) -> str:
    """``colour`` at ``share`` over white."""
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 + (c - 255) * share) for c in channels]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _ink(fill: str) -> str:
    """Black or white text, whichever reads on ``fill``."""
    red, green, blue = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "#111111" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.55 else "#ffffff"


def _percent(value: float) -> str:
    return f"{100 * value:.2f} %"


def cell_tooltip(cell: Cell, objective: str) -> str:
    """One cell in words: the tables, the best move and its odds, the next move and the
    margin."""
    table = " ".join(map(str, cell.table))
    theirs = " ".join(map(str, cell.opp_table))
    state = "stands" if cell.opp_standing else "draws"
    outcome = cell.best.outcome
    value = (
        f"match win {_percent(cell.best.match_win)}, "
        if objective == "match" and cell.best.match_win is not None
        else f"win-loss {100 * outcome.equity:+.2f}, "
    )
    text = (
        f"You {cell.my_total} ({table}), opponent {cell.opp_total} ({theirs}), it {state}. "
        f"Best: {cell.best.move} ({value}set win {_percent(outcome.p_win)}, "
        f"tie {_percent(outcome.p_tie)}, loss {_percent(outcome.p_loss)})."
    )
    margin = cell.margin
    if cell.second is None or margin is None:
        return text + " Forced."
    return text + f" Next: {cell.second.move}, {100 * margin:.2f} points behind."


def render_svg(chart: Chart, title: str) -> str:
    """The chart as an SVG document (UTF-8 text)."""
    spec = chart.spec
    palette = colours(chart)
    widest = max([len(label) for label, _ in chart.legend] + [2])
    cell_width = max(28, math.ceil(CHAR_WIDTH * widest) + 10)
    panels = [(False, chart.columns(False)), (True, chart.columns(True))]
    panel_widths = [ROW_HEAD + cell_width * len(columns) for _, columns in panels]
    width = max(PAD * 2 + sum(panel_widths) + GAP, 760)
    wrap = max(60, int((width - 2 * PAD) / CHAR_WIDTH))
    model_lines = textwrap.wrap(f"Model: {chart.model}.", wrap)
    parts: list[str] = []
    y = PAD + 16
    parts.append(
        f'<text x="{PAD}" y="{y}" font-size="16" font-weight="bold">{_clean(title)}</text>'
    )
    for line in model_lines:
        y += 16
        parts.append(f'<text x="{PAD}" y="{y}" font-size="11">{_clean(line)}</text>')
    top = y + 30
    x = PAD
    for (standing, columns), panel_width in zip(panels, panel_widths, strict=True):
        parts.extend(_panel(chart, standing, columns, x, top, cell_width, palette))
        x += panel_width + GAP
    y = top + 28 + CELL_HEIGHT * len(spec.my_totals) + 28
    legend, y = _legend(chart, palette, y, width)
    parts.extend(legend)
    height = y + PAD
    head = (
        # (no size in pixels: the viewBox alone lets a window narrower than the chart scale it
        # down, never up past its own size)
        f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" '
        f'style="max-width: {width}px; height: auto" viewBox="0 0 {width} {height}" '
        f'font-family={_attr(FONT)} fill="#111111">'
    )
    background = f'<rect width="{width}" height="{height}" fill="#ffffff"/>'
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            head,
            f"<title>{_clean(title)}</title>",
            background,
            *parts,
            "</svg>",
            "",
        ]
    )


def _panel(
    chart: Chart,
    standing: bool,
    columns: tuple[int, ...],
    left: int,
    top: int,
    cell_width: int,
    palette: dict[str, str],
) -> list[str]:
    """One panel: its heading, the opponent's totals across, yours down, the cells."""
    name = "The opponent stands" if standing else "The opponent still draws"
    parts = [
        f'<text x="{left}" y="{top}" font-size="13" font-weight="bold">{name}: its total '
        "across, yours after your draw down</text>"
    ]
    grid_left = left + ROW_HEAD
    grid_top = top + 28
    for index, total in enumerate(columns):
        x = grid_left + index * cell_width + cell_width / 2
        parts.append(
            f'<text x="{x:g}" y="{grid_top - 6}" font-size="11" text-anchor="middle">{total}</text>'
        )
    for row, mine in enumerate(chart.spec.my_totals):
        y = grid_top + row * CELL_HEIGHT
        parts.append(
            f'<text x="{grid_left - 6}" y="{y + 15}" font-size="11" text-anchor="end">{mine}</text>'
        )
        for index, theirs in enumerate(columns):
            x = grid_left + index * cell_width
            cell = chart.cell(mine, theirs, standing)
            box = f'x="{x}" y="{y}" width="{cell_width}" height="{CELL_HEIGHT}"'
            if cell is None:
                parts.append(f'<rect {box} fill="{EMPTY}" stroke="#ffffff"/>')
                continue
            fill = _mix(palette[cell.label], strength(cell.margin))
            tip = cell_tooltip(cell, chart.spec.objective)
            parts.append(
                f'<g><title>{_clean(tip)}</title><rect {box} fill="{fill}" stroke="#ffffff"/>'
                f'<text x="{x + cell_width / 2:g}" y="{y + 15}" font-size="11" '
                f'text-anchor="middle" fill="{_ink(fill)}">{_clean(cell.label)}</text></g>'
            )
    return parts


def _legend(chart: Chart, palette: dict[str, str], top: int, width: int) -> tuple[list[str], int]:
    """The moves' colours with what they mean, then the shade's scale; and the y below it."""
    parts = []
    entries = [(label, f"{label}  {text}") for label, text in chart.legend]
    column = max(len(text) for _, text in entries) * CHAR_WIDTH + 40
    per_row = max(1, int((width - 2 * PAD) // column))
    y = top
    for index, (label, text) in enumerate(entries):
        x = PAD + (index % per_row) * column
        y = top + (index // per_row) * 22
        parts.append(
            f'<rect x="{x:g}" y="{y}" width="16" height="16" fill="{palette[label]}"/>'
            f'<text x="{x + 24:g}" y="{y + 12}" font-size="12">{_clean(text)}</text>'
        )
    y += 34
    unit = "match win" if chart.spec.objective == "match" else "win-loss (set win less set loss)"
    parts.append(
        f'<text x="{PAD}" y="{y + 12}" font-size="12">Shade: how far the best move leads the '
        f"next, in points of {unit} (a forced move in full; a close call, under 1, pale)</text>"
    )
    y += 22
    x = PAD
    for margin in (0.0, 0.01, 0.05, 0.10, FULL_MARGIN):
        fill = _mix("#555555", strength(margin))
        parts.append(
            f'<rect x="{x}" y="{y}" width="52" height="18" fill="{fill}"/>'
            f'<text x="{x + 26}" y="{y + 13}" font-size="11" text-anchor="middle" '
            f'fill="{_ink(fill)}">{100 * margin:g}{"+" if margin == FULL_MARGIN else ""}</text>'
        )
        x += 56
    return parts, y + 18
