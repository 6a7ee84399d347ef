"""The table of moves a player reads: ``pazaak advise``, the hint of ``pazaak play`` and ``pazaak
follow`` show an answer the same way (what the best move maximises, the model line in plain
words, every move with its odds and, when sampled, its interval, the verdict on the first move).
"""

from __future__ import annotations

from tabulate import tabulate

from pazaak_cli.solve.answer_types import Advice
from pazaak_cli.solve.budgeted import ADVISE_ASKS, Asks, SampledAdvice, confidence_note
from pazaak_cli.solve.solver import FIXED_DECK_SAID
from pazaak_cli.terminal.text import style, terminal_width, widest_line

OBJECTIVE_LINES = {
    "set": "Best for this set only: a card you play now is gone for the rest of the match.",
    "match": "Best for the whole match: the odds of winning it, the cards kept for later "
    "sets counted.",
}
"""The first line of every table of moves: what the best move maximises, in plain words."""


ANY_VALUE = "(any)"
"""The ± of a value whose interval spans every value it can take: no information."""


def model_text(model: str, exact_option: str | None) -> str:
    """A model line as the player reads it: the deck drawn with fixed odds naming
    ``exact_option`` (what asks for the exact deck there) where the command takes one."""
    if not exact_option:
        return model
    return model.replace(FIXED_DECK_SAID, f"{FIXED_DECK_SAID[:-1]}; {exact_option} tries it)")


MOVE_BREAKS = ((", ", 1), (" (", 0))
"""Where a move's text folds onto a second line: before what ends its turn (``play +1,`` over
``automatic stand at 20``), else before its note in brackets (``end turn`` over ``(ninth card
over the target)``): each with how many of its characters stay on the first line."""


def fold_move(move: str, room: int) -> str:
    """``move`` as it is if it fits ``room`` columns, else on two lines, folded at the first of
    :data:`MOVE_BREAKS` it holds, the second line indented by two: no word of it is lost."""
    if len(move) <= room:
        return move
    for mark, kept in MOVE_BREAKS:
        at = move.find(mark)
        if at > 0:
            return f"{move[: at + kept]}\n  {move[at + kept :].lstrip()}"
    return move


def render_advice(
    advice: Advice,
    asks: Asks = ADVISE_ASKS,
    note: str | None = None,
    width: int | None = None,
) -> str:
    """The human table of moves, best first (``pazaak play``'s hint and ``pazaak follow``
    show the same, with ``asks`` naming what the user can type there): what the best move
    maximises first, for match advice the match-win column first, then the set's odds along
    the same line; ``note`` (why this objective) right under the first line. In a sampled
    answer, a value the same in every hand solved has no ±, and a
    ± whose interval spans every value the column can take says :data:`ANY_VALUE`. A table
    wider than ``width`` (default: the terminal's; not a terminal: any width) puts its headers
    on two lines (a sampled match table with ± moves was 85 columns, and wrapped at 80), and if
    still too wide, each move too long for what is left on two lines where that makes it fit
    (:func:`fold_move`: a move with a note, ``play +1, automatic stand at 20``, made a table
    81 columns)."""
    match = advice.objective == "match"
    sampled = advice.exactness == "sampled"
    same = advice.same if isinstance(advice, SampledAdvice) else ()
    rows = []
    blank = spans = False
    for place, result in enumerate(advice.results):
        o = result.outcome
        mark = style("best", bold=True, fg="green") if result.best else ""
        row = [mark, str(result.move)]
        value = (result.match_win or 0.0) if match else o.equity
        low = 0.0 if match else -1.0
        margin = result.margin or 0.0
        if place < len(same) and same[place]:
            shown, blank = "", True
        elif value - margin <= low and value + margin >= 1.0:
            shown, spans = ANY_VALUE, True
        else:
            shown = f"{100 * margin:.2f}"
        if match:
            row.append(f"{100 * value:.2f}")
            if sampled:
                row.append(shown)
        row += [f"{100 * o.p_win:.2f}", f"{100 * o.p_tie:.2f}", f"{100 * o.p_loss:.2f}"]
        if not match:
            row.append(f"{100 * o.equity:+.2f}")
            if sampled:
                row.append(shown)
        rows.append(row)
    if match:
        headers = ["", "move", "match win %", *(["±"] if sampled else []), "set win %"]
        headers += ["tie %", "loss %"]
    else:
        headers = ["", "move", "win %", "tie %", "loss %", "win-loss", *(["±"] if sampled else [])]
    align = ("left", "left", *("right",) * (len(headers) - 2))
    table = tabulate(rows, headers=headers, disable_numparse=True, colalign=align)
    width = terminal_width() if width is None else width
    if width is not None and widest_line(table) > width:
        headers = [header.replace(" win %", "\nwin %") for header in headers]
        table = tabulate(rows, headers=headers, disable_numparse=True, colalign=align)
    if width is not None and widest_line(table) > width:
        room = width - (widest_line(table) - max(len(row[1]) for row in rows))
        folded_rows = [[row[0], fold_move(row[1], room), *row[2:]] for row in rows]
        folded = tabulate(folded_rows, headers=headers, disable_numparse=True, colalign=align)
        if widest_line(folded) <= width:  # (else the terminal wraps it anyway: one line a move)
            table = folded
    lines = [
        OBJECTIVE_LINES.get(advice.objective, ""),
        note or "",
        f"Model: {model_text(advice.model, asks.exact_deck)}.",
        table,
    ]
    if blank:
        solved = advice.hands_solved
        lines.append(f"No ±: the same value in every one of the {solved} hands solved.")
    if spans:
        lines.append(
            f"{ANY_VALUE}: too few hands for an interval; it could be any value the column takes."
        )
    verdict = confidence_note(advice, asks)
    if verdict:
        lines.append(verdict)
    return "\n".join(line for line in lines if line)
