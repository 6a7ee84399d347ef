"""``pazaak prepare``: solve the match values of two side decks ahead, into the disk cache."""

from __future__ import annotations

import sys
import time

import click

from pazaak_cli.commands.common import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    emit_json,
    emit_json_error,
    fail,
    json_option,
    ruleset_option,
    say_stalled,
)
from pazaak_cli.commands.deck_option import deck_option
from pazaak_cli.commands.position_options import opponent_option
from pazaak_cli.engine.decks import SideDeck
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.runtime.executors import DaskCluster
from pazaak_cli.solve.deck_pair_prepare import prepare_deck_pair
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_cache import cache_path, unwritable
from pazaak_cli.solve.match_kotor import rule_cache_kind
from pazaak_cli.solve.models import OPPONENT_MODELS
from pazaak_cli.solve.rule_deck_prepare import prepare_deck_pair_against_rule
from pazaak_cli.terminal.text import LazyProgress, elapsed_text


@click.command("prepare", epilog=EXIT_CODES)
@ruleset_option()
@deck_option("--deck", required=True, help="Your side deck: a deck file or a sample deck name.")
@deck_option(
    "--opp-deck",
    "opp_deck",
    required=True,
    help="The opponent's side deck: a deck file or a sample deck name (kotor1-average, ...).",
)
@click.option(
    "--player",
    type=click.Choice(["1", "2"]),
    default="1",
    show_default=True,
    help="Your seat: 1 (pazaak play and follow seat you there; in kotor1 player 1 opens every "
    "set) or 2.",
)
@opponent_option
@click.option(
    "--cluster",
    metavar="ADDRESS",
    default=None,
    help="Solve on a Dask distributed cluster: the scheduler's address, e.g. "
    "tcp://127.0.0.1:8786 (needs pip install 'pazaak[cluster]'). The same values, bit for "
    "bit, as solved here; it does 1.3 to 3 times the work, so it pays from about six cores.",
)
@json_option
def prepare_command(
    ruleset: Ruleset,
    deck: SideDeck,
    opp_deck: SideDeck,
    player: str,
    opponent: str,
    cluster: str | None,
    as_json: bool,
) -> None:
    """Solve ahead the match values of two side decks, for the match answer.

    Every hand your deck can deal against every hand the opponent's can, at every score: the
    values a set starts from, kept in the disk cache. Afterwards every question of a match
    between these decks, from its first move, leaves only its set in progress to solve, so
    pazaak advise, the hint of pazaak play and pazaak follow answer for the match by default
    (seconds instead of minutes). It takes a while (about 5 minutes on two cores for
    kotor1-starter against kotor1-average); Ctrl-C stops it, keeping what is solved: run it
    again to go on. The values assume the opponent --opponent names: prepare against kotor
    for the answers of --opponent kotor (pazaak follow's default, the game's own rule).

    \b
    Examples:
      pazaak prepare --deck kotor1-starter --opp-deck kotor1-average
      pazaak prepare --deck kotor1-starter --opp-deck kotor1-average --opponent kotor
      pazaak prepare -r kotor1 --deck my.deck --opp-deck kotor1-strongest --json
      pazaak prepare --deck kotor1-starter --opp-deck kotor1-average --cluster tcp://HOST:8786
    """
    theirs = opp_deck
    rule = OPPONENT_MODELS[opponent].rule
    if rule is not None and cluster:
        raise click.UsageError(
            f"--cluster prepares against the optimal opponent only; --opponent {opponent} is "
            "prepared here (drop --cluster)"
        )
    kind = "" if rule is None else rule_cache_kind(rule, int(player) - 1) or ""
    path = cache_path(ruleset, kind)
    if path is None:
        raise fail(
            "the disk cache is off (PAZAAK_CACHE_DIR=off): nothing solved would be kept; "
            "set PAZAAK_CACHE_DIR to a directory or unset it"
        )
    problem = unwritable(path)
    if problem is not None:
        raise fail(f"{problem}: nothing solved would be kept; set PAZAAK_CACHE_DIR to another")
    hands = len(possible_hands(deck.cards, ruleset.hand_size))
    label = "match states" if rule is None else "your hands"
    bar = LazyProgress(hands, enabled=not as_json and sys.stderr.isatty(), label=label)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar(done - bar.done)

    started = time.monotonic()
    executor = DaskCluster(cluster, stalled=say_stalled) if cluster else None
    try:
        if rule is None:
            prepared = prepare_deck_pair(
                ruleset,
                deck.cards,
                theirs.cards,
                seat=int(player) - 1,
                progress=progress,
                executor=executor,
            )
        else:
            prepared = prepare_deck_pair_against_rule(
                ruleset, deck.cards, theirs.cards, rule, seat=int(player) - 1, progress=progress
            )
    except KeyboardInterrupt:
        bar.close()
        stopped = (
            "Stopped: the match values of every round of scores finished are saved in the "
            "cache; the same command goes on from there."
        )
        if as_json:
            emit_json_error(stopped, EXIT_INTERRUPTED)
        else:
            click.echo(f"\n{stopped}", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    finally:
        bar.close()
        if executor is not None:
            executor.close()
    seconds = time.monotonic() - started
    if not prepared.saved:
        raise fail(
            f"the {prepared.states:,} match values were solved but could not be written to the "
            f"cache ({cache_path(ruleset, kind)}): check that its directory is writable"
        )
    if as_json:
        emit_json(
            {
                "ruleset": ruleset.spec,
                "deck": deck.name,
                "opp_deck": theirs.name,
                "player": int(player),
                "opponent": opponent,
                "my_hands": prepared.my_hands,
                "their_hands": prepared.their_hands,
                "states": prepared.states,
                "solved": prepared.solved,
                "seconds": round(seconds, 1),
                "cache": str(cache_path(ruleset, kind)),
            }
        )
        return
    known = prepared.states - prepared.solved
    click.echo(
        f"{deck.name} against {theirs.name} ({ruleset.spec}, you as player {player}"
        + ("" if rule is None else f", the opponent playing by {OPPONENT_MODELS[opponent].short}")
        + "): "
        f"{counted(prepared.my_hands, 'hand')} against {prepared.their_hands:,}, "
        f"{prepared.states:,} match "
        f"values, {prepared.solved:,} solved now"
        + (f" ({known:,} known before)" if known > 0 else "")
        + f", in {elapsed_text(seconds)}."
    )
    against = "" if rule is None else f" against --opponent {opponent}"
    click.echo(
        f"Questions{against} of matches between these decks now answer for the match by "
        "default (pazaak advise, the hint of pazaak play, pazaak follow)."
    )
