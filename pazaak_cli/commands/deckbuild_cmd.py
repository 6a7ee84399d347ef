"""``pazaak deckbuild``: the strongest side deck from the cards a player owns.

Exit codes: 0 a deck found; 1 a domain failure (a pool with fewer cards than a deck, a card
the ruleset does not allow, an --against deck that is not valid, a cluster without workers);
2 a usage error (an option out of range, an unknown --against policy, an unreadable file, - read
twice, --out on a directory or on an existing file without --force, an unreachable --cluster,
Dask not installed); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Sequence

import click
from tabulate import tabulate

from pazaak_cli.commands.common import (
    UsageFailure,
    WholeNumber,
    check_out_file,
    cluster_option,
    emit_json,
    json_option,
    ruleset_option,
    say_stalled,
    seed_option,
    write_out_file,
)
from pazaak_cli.commands.deck_option import load_deck_option
from pazaak_cli.engine.decks import SAMPLE_PREFIX, STDIN_SPEC
from pazaak_cli.engine.errors import InputError
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.players.roster import POLICY_NAMES
from pazaak_cli.runtime.executors import available_cores, make_executor
from pazaak_cli.terminal.text import LazyProgress, elapsed_text, printable, style
from pazaak_cli.tools.deckbuild import (
    DEFAULT_FIELD_POLICY,
    POOL_COPIES,
    Opponent,
    Pool,
    Score,
    SearchResult,
    build_deck,
    default_field,
    minimum_budget,
    read_pool,
    whole_pool,
)
from pazaak_cli.tools.simulate import MAX_WORKERS

DEFAULT_BUDGET = 200_000


@click.command("deckbuild")
@ruleset_option()
@click.option(
    "--pool",
    "pool_file",
    metavar="FILE",
    default=None,
    help="The cards you own: a deck-like file listing them, copies repeated, any number "
    f"[default: the ruleset's whole card pool, {POOL_COPIES} copies of each card].",
)
@click.option(
    "--against",
    "against",
    metavar="DECK[:POLICY]",
    multiple=True,
    help="An opponent of the field: a deck file or sample deck, played by POLICY "
    f"[default policy: {DEFAULT_FIELD_POLICY}]; repeat for several [default: the game's own "
    "opponent decks of the ruleset, played by kotor].",
)
@click.option(
    "--player",
    type=click.Choice(POLICY_NAMES),
    default="heuristic",
    show_default=True,
    help="The policy that plays the candidate decks.",
)
@click.option(
    "--matches",
    "-n",
    type=WholeNumber(0, 10**10),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Budget: the most matches the search plays, all candidates together.",
)
@seed_option
@click.option(
    "--workers",
    "-w",
    type=WholeNumber(1, MAX_WORKERS),
    default=None,
    help="Local worker processes [default: every core this process may use]; the answer is "
    "the same for any number.",
)
@cluster_option
@click.option(
    "--out",
    "out_file",
    metavar="FILE",
    default=None,
    help="Also write the best deck to FILE as a deck file (refused if FILE exists).",
)
@click.option("--force", is_flag=True, help="Let --out replace an existing file.")
@json_option
def deckbuild_command(
    ruleset: Ruleset,
    pool_file: str | None,
    against: tuple[str, ...],
    player: str,
    matches: int,
    seed: int | None,
    workers: int | None,
    cluster: str | None,
    out_file: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Find the side deck, from the cards you own, that wins most matches against a field.

    A raced local search: candidate decks play a few matches against every opponent, the
    better half twice as many, and so on; the winner's neighbours (one card swapped) race it in
    turn, until the best deck's 95% interval is clear of its strongest neighbour's or three
    quarters of the --matches budget are spent; the last quarter measures the finalists as
    long as the leader. The same --seed gives the same answer with any --workers or on a
    --cluster. A pool of exactly one deck's worth of cards is that deck (measured, not searched).

    \b
    Default field:
      kotor1  kotor1-average, kotor1-strong, kotor1-strongest, played by kotor
      kotor2  kotor2-very-easy, -easy, -average, -hard, -very-hard, played by kotor

    \b
    Exit codes: 0 found; 1 a bad pool or deck (too few cards, a card the ruleset does not
    allow); 2 a usage error (unreadable file, unknown POLICY, --out exists or is a directory,
    unreachable --cluster); 130 Ctrl-C.

    \b
    Examples:
      pazaak deckbuild --matches 20000 --seed 1
      pazaak deckbuild --pool my-cards.deck --against kotor1-strong:expert --out best.deck
      pazaak deckbuild --ruleset kotor2 --cluster tcp://127.0.0.1:8786 --seed 7 --json
    """
    if out_file is not None:
        check_out_file(out_file, force)
    elif force:  # (never silently ignored: a script with it believes a file is written)
        raise click.UsageError(
            "--force lets --out replace a file: give --out FILE, or drop --force"
        )
    opponents = [_against_spec(spec) for spec in against]
    _check_stdin_once(pool_file, [deck_spec for deck_spec, _ in opponents])
    try:
        pool = read_pool(pool_file, ruleset) if pool_file is not None else whole_pool(ruleset)
    except InputError as error:  # (which file: the pool's, as simulate names its deck options)
        raise click.BadParameter(error.message, param_hint="'--pool'") from None
    field = _field(opponents, ruleset)
    least = minimum_budget(len(field))
    if matches < least:
        raise UsageFailure(
            f"--matches {matches}: too small a budget for a field of {len(field)}; give at "
            f"least {least} (one deal from both seats per opponent)"
        )
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    progress = LazyProgress(matches, enabled=sys.stderr.isatty() and not as_json)
    executor = make_executor(workers or available_cores(), cluster, stalled=say_stalled)
    try:
        result = build_deck(
            ruleset,
            pool,
            field,
            player=player,
            budget=matches,
            seed=seed,
            executor=executor,
            progress=progress,
        )
    finally:
        progress.close()
        executor.close()
    if out_file is not None:
        _write_deck(out_file, result)
    if as_json:
        emit_json(result_json(result, executor_description=executor.description))
    else:
        click.echo(_report(result, executor.description))


def _against_spec(spec: str) -> tuple[str, str]:
    """(deck, policy) of ``DECK[:POLICY]``. A file that exists, or ``sample:NAME``, is a deck
    whatever its colons; otherwise a last part that is no policy is a typo to name, not part of
    a deck's name (which would be reported as a missing file)."""
    head, sep, tail = spec.rpartition(":")
    if not sep:
        return spec, DEFAULT_FIELD_POLICY
    if tail in POLICY_NAMES:
        return head, tail
    if os.path.lexists(spec) or head == SAMPLE_PREFIX.rstrip(":"):
        return spec, DEFAULT_FIELD_POLICY
    raise UsageFailure(
        f"--against {spec}: no policy {tail!r} to play {head or 'the deck'}; the policies are "
        f"{', '.join(POLICY_NAMES)}"
    )


def _check_stdin_once(pool_file: str | None, deck_specs: Sequence[str]) -> None:
    """Standard input can be read once: a second deck read from it would be empty."""
    options = (["--pool"] if pool_file == STDIN_SPEC else []) + [
        "--against" for deck_spec in deck_specs if deck_spec == STDIN_SPEC
    ]
    if len(options) > 1:
        where = " and ".join(sorted(set(options)))
        raise UsageFailure(
            f"{STDIN_SPEC} (standard input) is given {len(options)} times to {where}; it can "
            "be read only once"
        )


def _field(opponents: Sequence[tuple[str, str]], ruleset: Ruleset) -> tuple[Opponent, ...]:
    if not opponents:
        return default_field(ruleset)
    field = []
    for deck_spec, policy in opponents:
        deck = load_deck_option(deck_spec, ruleset, "--against")
        field.append(Opponent(deck.name, tuple(sorted(deck.cards)), policy))
    return tuple(field)


def _spelling(cards: Sequence[object]) -> str:
    return " ".join(str(card) for card in cards)


def _percent(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def _interval(low: float, high: float) -> str:
    return f"{100 * low:.1f}–{100 * high:.1f}%"


def _report(result: SearchResult, where: str) -> str:
    field = ", ".join(printable(opponent.label) for opponent in result.field)
    lines = [
        style(f"Best {result.ruleset.spec} side decks for {result.player}", bold=True),
        f"against {field}",
        f"pool: {_pool_text(result.pool)}; seed {result.seed}",
        "",
    ]
    rows = []
    for rank, score in enumerate(result.best, start=1):
        low, high = score.interval
        row = [
            str(rank),
            _spelling(score.deck),
            _percent(score.win_rate),
            _interval(low, high),
            f"{score.matches:,}",
        ]
        rows.append(row)
    headers = ["#", "deck", "win rate", "95% CI", "matches"]
    lines.append(
        tabulate(
            rows,
            headers=headers,
            colalign=("right", "left", "right", "right", "right"),
            disable_numparse=True,
        )
    )
    best = result.best[0]
    lines += ["", style("The best deck against each opponent", bold=True)]
    detail = []
    for index, opponent in enumerate(result.field):
        played, wins, rate, (low, high) = best.against(index)
        detail.append(
            [
                printable(opponent.label),
                f"{wins:,}/{played:,}",
                _percent(rate),
                _interval(low, high),
            ]
        )
    lines.append(
        tabulate(
            detail,
            headers=["opponent", "wins", "win rate", "95% CI"],
            colalign=("left", "right", "right", "right"),
            disable_numparse=True,
        )
    )
    lines += [
        "",
        f"search: {counted(result.candidates_tried, 'candidate deck')} tried "
        f"({counted(result.climbs, 'neighbourhood race')}), "
        f"{counted(result.matches_played, 'match', 'matches')} played "
        f"(budget {result.budget:,}), "
        f"{elapsed_text(result.seconds)} on {where}",
        f"stopped: {result.stopped}",
    ]
    return "\n".join(lines)


def _pool_text(pool: Pool) -> str:
    cards, kinds = counted(pool.size, "card"), counted(len(pool.copies), "kind")
    return f"{printable(pool.source)}, {cards} of {kinds}"


def _score_json(score: Score, field: Sequence[Opponent]) -> dict[str, object]:
    low, high = score.interval
    against = []
    for index, opponent in enumerate(field):
        played, wins, rate, (o_low, o_high) = score.against(index)
        against.append(
            {
                "deck": opponent.deck_name,
                "policy": opponent.policy,
                "matches": played,
                "wins": wins,
                "win_rate": round(rate, 6),
                "win_ci95": [round(o_low, 6), round(o_high, 6)],
            }
        )
    return {
        "cards": [str(card) for card in score.deck],
        "matches": score.matches,
        "wins": score.wins,
        "win_rate": round(score.win_rate, 6),
        "win_ci95": [round(low, 6), round(high, 6)],
        "against": against,
    }


def result_json(result: SearchResult, *, executor_description: str) -> dict[str, object]:
    """The result as plain JSON data (rates rounded to 6 places)."""
    return {
        "ruleset": result.ruleset.spec,
        "seed": result.seed,
        "player": result.player,
        "field": [
            {"deck": o.deck_name, "policy": o.policy, "cards": [str(c) for c in o.deck]}
            for o in result.field
        ],
        "pool": {
            "source": result.pool.source,
            "cards": [str(card) for card in result.pool.cards],
        },
        "budget": result.budget,
        "best": [_score_json(score, result.field) for score in result.best],
        "candidates_tried": result.candidates_tried,
        "climbs": result.climbs,
        "matches_played": result.matches_played,
        "seconds": round(result.seconds, 3),
        "ran_on": executor_description,
        "stopped": result.stopped,
    }


def _write_deck(path: str, result: SearchResult) -> None:
    """Write the best deck as a deck file, atomically (a temporary file renamed over)."""
    best = result.best[0]
    low, high = best.interval
    name = os.path.splitext(os.path.basename(path))[0] or "deckbuild"
    text = (
        f"# Found by pazaak deckbuild (seed {result.seed}, player {result.player}): "
        f"{_percent(best.win_rate)} ({_interval(low, high)}) of {best.matches:,} matches\n"
        f"# against {', '.join(printable(o.label) for o in result.field)}.\n"
        f"name: {name}\n"
        f"ruleset: {result.ruleset.spec}\n"
        f"description: pazaak deckbuild's best deck against "
        f"{counted(len(result.field), 'opponent')}\n\n"
        f"{_spelling(best.deck)}\n"
    )
    write_out_file(path, text)
