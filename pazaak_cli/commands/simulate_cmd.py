"""``pazaak simulate``: tournaments between computer opponents."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
from tabulate import tabulate

from pazaak_cli.commands.common import (
    EXIT_CODES,
    WholeNumber,
    cluster_option,
    emit_json,
    json_option,
    ruleset_option,
    say_stalled,
    seed_option,
)
from pazaak_cli.commands.deck_option import DeckSource, DeckType
from pazaak_cli.engine.decks import SideDeck, default_deck
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.players.roster import POLICY_HELP, POLICY_NAMES
from pazaak_cli.runtime.executors import make_executor
from pazaak_cli.terminal.text import (
    LazyProgress,
    printable,
    style,
    terminal_width,
    widest_line,
)
from pazaak_cli.tools.simulate import (
    CHUNK_MATCHES,
    MAX_WORKERS,
    Entrant,
    Pairing,
    PairingResult,
    simulate,
)

F = TypeVar("F", bound=Callable[..., Any])


@click.command("simulate", epilog=EXIT_CODES)
@ruleset_option()
@click.option(
    "--p1",
    "p1_policies",
    type=click.Choice(POLICY_NAMES),
    multiple=True,
    help="Player 1's policy (repeat for several) [default: kotor].",
)
@click.option(
    "--p2",
    "p2_policies",
    type=click.Choice(POLICY_NAMES),
    multiple=True,
    help="Player 2's policy (repeat for several) [default: kotor].",
)
@click.option(
    "--p1-deck",
    "p1_decks",
    type=DeckType(),
    multiple=True,
    help="Player 1's side deck: a deck file or a sample deck name (see `pazaak decks`); "
    "repeat for several [default: the ruleset's default deck, kotor1-starter].",
)
@click.option(
    "--p2-deck",
    "p2_decks",
    type=DeckType(),
    multiple=True,
    help="Player 2's side deck, as --p1-deck.",
)
@click.option(
    "--matches",
    "-n",
    type=WholeNumber(1, 100_000_000),
    default=1000,
    show_default=True,
    help="Matches per pairing (each played twice with --swap).",
)
@seed_option
@click.option(
    "--swap",
    is_flag=True,
    help="Also play every match with the seats exchanged (same seed: same hands and cards).",
)
@click.option(
    "--workers",
    "-w",
    type=WholeNumber(1, MAX_WORKERS),
    default=1,
    show_default=True,
    help="Local worker processes; the results are the same for any number.",
)
@cluster_option
@json_option
def simulate_command(
    ruleset: Ruleset,
    p1_policies: tuple[str, ...],
    p2_policies: tuple[str, ...],
    p1_decks: tuple[DeckSource, ...],
    p2_decks: tuple[DeckSource, ...],
    matches: int,
    seed: int | None,
    swap: bool,
    workers: int,
    cluster: str | None,
    as_json: bool,
) -> None:
    """Play many matches between computer opponents and show who wins how often.

    Every player 1 (each --p1 policy with each --p1-deck) meets every player 2 (each --p2
    policy with each --p2-deck): one pairing gives a table of both sides, several give a matrix
    of player 1's match-win rate. Win rates come with a 95% (Wilson) confidence interval.
    Match i of every pairing is played from the seed and i alone, so the same command gives
    the same numbers, with any --workers or on a --cluster (exit 2 if it cannot be reached).

    \b
    Policies:
    POLICY_LINES

    \b
    Examples:
      pazaak simulate --p1 heuristic --p2 kotor --matches 2000 --seed 1
      pazaak simulate --p1-deck kotor1-starter --p2-deck kotor1-strongest --swap --seed 7
      pazaak simulate --p1-deck kotor1-average --p1-deck kotor1-strong \\
          --p2-deck kotor1-average --p2-deck kotor1-strong --workers 2 --json
    """
    first_decks = _decks(p1_decks, ruleset, "--p1-deck")
    second_decks = _decks(p2_decks, ruleset, "--p2-deck")
    names = _deck_names([*first_decks, *second_decks])
    first = _entrants(p1_policies, first_decks, names[: len(first_decks)])
    second = _entrants(p2_policies, second_decks, names[len(first_decks) :])
    pairings = [Pairing(a, b) for a in first for b in second]
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    total = len(pairings) * matches * (2 if swap else 1)
    progress = LazyProgress(total, enabled=sys.stderr.isatty())
    batches = len(pairings) * -(-matches // CHUNK_MATCHES)
    executor = make_executor(min(workers, batches), cluster, stalled=say_stalled)
    try:
        results = simulate(
            ruleset,
            pairings,
            matches=matches,
            seed=seed,
            swap=swap,
            executor=executor,
            progress=progress,
        )
    finally:
        progress.close()
        executor.close()
    if as_json:
        data = [result.to_json() for result in results]
        emit_json(data[0] if len(data) == 1 else data)
    elif len(results) == 1:
        click.echo(_pairing_report(results[0]))
    else:
        click.echo(_matrix_report(results, first, second))


def _decks(sources: Sequence[DeckSource], ruleset: Ruleset, option: str) -> list[SideDeck]:
    """One side's decks, valid for ``ruleset`` (none given: the ruleset's default deck)."""
    return [source.load(ruleset) for source in sources] or [default_deck(ruleset, option=option)]


def _entrants(
    policies: Sequence[str], decks: Sequence[SideDeck], names: Sequence[str]
) -> list[Entrant]:
    return [
        Entrant(policy, name, deck.cards)
        for policy in (policies or ("kotor",))
        for deck, name in zip(decks, names, strict=True)
    ]


def _deck_names(decks: Sequence[SideDeck]) -> list[str]:
    """Each deck's name, or its source where two different decks share a name (on either
    side: ``a/my.deck`` against ``b/my.deck`` would read as one deck against itself)."""
    names = []
    for deck in decks:
        clash = any(o.name == deck.name and o.cards != deck.cards for o in decks)
        names.append(printable(deck.source if clash else deck.name))
    return names


def _percent(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def _interval(result: PairingResult, entrant: int) -> str:
    low, high = result.win_interval(entrant)
    return f"{100 * low:.1f}–{100 * high:.1f}%"


def _pairing_report(result: PairingResult) -> str:
    t = result.tally
    pairing = result.pairing
    swap = ", seats swapped for every match" if result.swap else ""
    lines = [
        style(f"{pairing.first.label} vs {pairing.second.label}", bold=True),
        f"{counted(t.matches, 'match', 'matches')}, ruleset {result.ruleset.spec}, "
        f"seed {result.seed}{swap}",
        "",
    ]
    rows = []
    for i, (side, entrant) in enumerate((("p1", pairing.first), ("p2", pairing.second))):
        rows.append(
            [
                side,
                entrant.policy,
                entrant.deck_name,
                f"{t.wins[i]:,}",
                _percent(result.win_rate(i)),
                _interval(result, i),
                f"{t.sets_won[i]:,}",
                f"{t.busts[i]:,}",
            ]
        )
    headers = ["side", "policy", "deck", "match wins", "win rate", "95% CI", "sets won", "busts"]
    lines.append(_table(rows, headers))
    matches = t.matches or 1
    tied = t.sets_tied / t.sets_played if t.sets_played else 0.0
    lines += [
        "",
        f"sets: {t.sets_played:,} played, {t.sets_tied:,} tied ({_percent(tied)}); "
        f"per match: {t.sets_played / matches:.2f} sets, {t.turns / matches:.2f} turns",
    ]
    forfeits = sum(t.forfeits)
    if forfeits:
        lines.append(f"forfeits: p1 {t.forfeits[0]:,}, p2 {t.forfeits[1]:,}")
    return "\n".join(lines)


def _table(rows: list[list[str]], headers: list[str]) -> str:
    """A table of the report; on a terminal narrower than it, its headers on two lines
    ("match" over "wins"), then its entrants' labels too ("kotor" over "(kotor1-average)")
    where that makes it fit (the table of one pairing was 92 columns at 80, and the
    terminal cut its lines anywhere)."""
    align = _align(headers)
    table = tabulate(rows, headers=headers, colalign=align, disable_numparse=True)
    width = terminal_width()
    if width is None or widest_line(table) <= width:
        return table
    headers = [header.replace(" ", "\n", 1).replace("/", "/\n", 1) for header in headers]
    table = tabulate(rows, headers=headers, colalign=align, disable_numparse=True)
    if widest_line(table) > width:
        rows = [[cell.replace(" (", "\n(", 1) for cell in row] for row in rows]
        labelled = tabulate(rows, headers=headers, colalign=align, disable_numparse=True)
        if widest_line(labelled) <= width:  # (else the terminal wraps it anyway: one line a row)
            table = labelled
    return table


def _align(headers: Sequence[str]) -> tuple[str, ...]:
    text = {"side", "policy", "deck", "p1", "p2", "p1 \\ p2"}
    return tuple("left" if h in text else "right" for h in headers)


def _short_labels(entrants: Sequence[Entrant]) -> list[str]:
    """What tells the entrants of one side apart: the deck, the policy, or both."""
    policies = {e.policy for e in entrants}
    decks = {e.deck_name for e in entrants}
    if len(policies) == 1 and len(decks) > 1:
        return [e.deck_name for e in entrants]
    if len(decks) == 1 and len(policies) > 1:
        return [e.policy for e in entrants]
    return [e.label for e in entrants]


def _matrix_report(
    results: Sequence[PairingResult], first: Sequence[Entrant], second: Sequence[Entrant]
) -> str:
    any_result = results[0]
    matches = any_result.tally.matches
    policies = {e.policy for e in (*first, *second)}
    who = f"{next(iter(policies))} vs itself, " if len(policies) == 1 else ""
    swap = ", seats swapped for every match" if any_result.swap else ""
    lines = [
        style("Player 1's match-win rate (95% CI)", bold=True),
        f"{who}ruleset {any_result.ruleset.spec}, "
        f"{counted(matches, 'match', 'matches')} per pairing, "
        f"seed {any_result.seed}{swap}",
        "",
    ]
    rows_labels, column_labels = _short_labels(first), _short_labels(second)
    by_pair = {(r.pairing.first, r.pairing.second): r for r in results}
    matrix = []
    for a, label in zip(first, rows_labels, strict=True):
        cells = []
        for b in second:
            result = by_pair[(a, b)]
            cells.append(f"{_percent(result.win_rate(0))} ({_interval(result, 0)})")
        matrix.append([label, *cells])
    headers = ["p1 \\ p2", *column_labels]
    lines.append(_table(matrix, headers))
    lines.append("")
    detail = []
    for result in results:
        t = result.tally
        n = t.matches or 1
        detail.append(
            [
                result.pairing.first.label,
                result.pairing.second.label,
                f"{t.wins[0]:,}",
                f"{t.wins[1]:,}",
                f"{t.sets_won[0]:,}",
                f"{t.sets_won[1]:,}",
                f"{t.sets_tied:,}",
                f"{t.sets_played / n:.2f}",
                f"{t.turns / n:.2f}",
                f"{t.busts[0]:,}",
                f"{t.busts[1]:,}",
            ]
        )
    headers = [
        "p1",
        "p2",
        "p1 wins",
        "p2 wins",
        "p1 sets",
        "p2 sets",
        "ties",
        "sets/match",
        "turns/match",
        "p1 busts",
        "p2 busts",
    ]
    lines.append(_table(detail, headers))
    return "\n".join(lines)


def _policy_lines() -> str:
    """The help's list of policies, one a line (:data:`POLICY_HELP`)."""
    width = max(map(len, POLICY_NAMES)) + 2
    return "\n".join(f"      {name:<{width}}{POLICY_HELP[name]}" for name in POLICY_NAMES)


simulate_command.help = (simulate_command.help or "").replace("    POLICY_LINES", _policy_lines())
