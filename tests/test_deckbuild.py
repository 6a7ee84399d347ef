"""``pazaak deckbuild`` and its search: a known answer, the pool rules, the same answer for any
number of workers, and clean refusals. Budgets are small so that each test takes seconds."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.rules import KOTOR1, KOTOR2, parse_ruleset
from pazaak_cli.runtime.executors import InProcess, LocalProcesses
from pazaak_cli.tools.deckbuild import (
    Opponent,
    Pool,
    build_deck,
    default_field,
    neighbours,
    pool_from_cards,
    whole_pool,
)

SMALL = parse_ruleset("kotor1/side-deck-size=4,hand-size=4,sets-to-win=1")
"""Four-card decks, all in the hand, one set a match: every card counts in every match, and a
match is quick, so a known answer shows within a small budget."""


def deck(text: str) -> tuple[Any, ...]:
    return tuple(sorted(parse_cards(text)))


SMALL_FIELD = (
    Opponent("pluses-and-minuses", deck("+3 -3 +4 -4")),
    Opponent("two-way", deck("±2 ±3 +4 +5")),
)


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")


# The search ----------------------------------------------------------------------------------


def test_the_search_climbs_from_junk_to_the_dominant_deck() -> None:
    """±1..±4 (each card either sign) against one-way ±1/±2 junk: the two-way deck is clearly
    best. The search starts from the worst deck of the pool and must climb four swaps."""
    pool = pool_from_cards(parse_cards("±1 ±2 ±3 ±4 +1 +1 -1 -1 +2 -2"), "test")
    result = build_deck(
        SMALL,
        pool,
        SMALL_FIELD,
        player="kotor",
        budget=12_000,
        seed=1,
        start_decks=[deck("+1 +1 -1 -1")],
    )
    assert result.best[0].deck == deck("±1 ±2 ±3 ±4")
    assert result.candidates_tried > 4
    assert result.matches_played <= 12_000
    scores = {score.deck: score for score in result.best}
    assert scores[deck("±1 ±2 ±3 ±4")].win_rate > 0.7


def test_a_pool_of_exactly_one_deck_is_that_deck_unsearched() -> None:
    cards = parse_cards("+1 +2 +3 +4 +5 -1 -2 -3 ±4 ±5")
    result = build_deck(
        KOTOR1,
        pool_from_cards(cards, "ten"),
        default_field(KOTOR1),
        player="stand17",
        budget=60,
        seed=3,
    )
    assert result.candidates_tried == 1
    assert result.best[0].deck == tuple(sorted(cards))
    assert result.matches_played == 60 == result.best[0].matches
    assert "not searched" in result.stopped


def test_neighbours_swap_one_card_within_the_pool() -> None:
    pool = pool_from_cards(parse_cards("+1 +1 +2 ±3"), "p")
    found = neighbours(deck("+1 +2"), pool)
    assert sorted(found) == sorted([deck("+1 +1"), deck("+1 ±3"), deck("+2 ±3")])


def test_the_whole_pool_holds_four_of_each_card() -> None:
    assert whole_pool(KOTOR1).size == 18 * 4
    assert whole_pool(KOTOR2).size == 23 * 4


def test_the_same_answer_for_one_and_two_workers() -> None:
    pool = pool_from_cards(parse_cards("±1 ±2 ±3 ±4 +1 +1 -1 -1 +2 -2"), "test")
    runs = []
    for executor in (InProcess(), LocalProcesses(2)):
        try:
            result = build_deck(
                SMALL, pool, SMALL_FIELD, player="kotor", budget=2000, seed=5, executor=executor
            )
        finally:
            executor.close()
        runs.append(
            (
                [(s.deck, s.tallies) for s in result.best],
                result.candidates_tried,
                result.matches_played,
                result.stopped,
            )
        )
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("pool", "budget", "message"),
    [
        (pool_from_cards(parse_cards("+1 +2 +3"), "p"), 100, "fewer than the 10"),
        (pool_from_cards(parse_cards("+1 " * 9 + "T"), "p"), 100, "does not allow"),
        (whole_pool(KOTOR1), 5, "too small"),
    ],
)
def test_the_library_refuses_impossible_searches(pool: Pool, budget: int, message: str) -> None:
    with pytest.raises(PazaakError, match=message):
        build_deck(KOTOR1, pool, default_field(KOTOR1), player="kotor", budget=budget, seed=1)


# The command ---------------------------------------------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["deckbuild", *args])


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_ten_card_pool_file_gives_that_deck_in_json(tmp_path: Path) -> None:
    pool = write(tmp_path / "ten.deck", "# my cards\n+5 +5 +4 +4 -5\n-5 ±1 ±1 ±2 ±2\n")
    result = run("--pool", pool, "-n", "60", "--seed", "2", "--workers", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["candidates_tried"] == 1
    best = data["best"][0]
    assert sorted(best["cards"]) == sorted(
        ["+5", "+5", "+4", "+4", "-5", "-5"] + ["±1", "±1"] * 1 + ["±2", "±2"]
    )
    assert [o["deck"] for o in data["field"]] == [
        "kotor1-average",
        "kotor1-strong",
        "kotor1-strongest",
    ]
    assert {o["policy"] for o in data["field"]} == {"kotor"}
    assert data["player"] == "heuristic"
    assert sum(o["matches"] for o in best["against"]) == best["matches"] == 60
    low, high = best["win_ci95"]
    assert low <= best["win_rate"] <= high
    assert result.stderr == ""  # no progress bar when not on a terminal


def test_the_table_the_field_and_the_out_file(tmp_path: Path) -> None:
    pool = write(tmp_path / "pool.deck", "+1 +2 +3 +4 +5 +6 -1 -2 -3 -4 ±1 ±2\n")
    out = tmp_path / "best.deck"
    result = run(
        "--pool",
        pool,
        "--against",
        "kotor1-strong:stand17",
        "--against",
        "kotor1-average",
        "--player",
        "kotor",
        "-n",
        "400",
        "--seed",
        "4",
        "--workers",
        "1",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "Best kotor1 side decks for kotor" in text
    assert "against kotor1-strong (stand17), kotor1-average (kotor)" in text
    for header in ("win rate", "95% CI", "matches", "candidate decks tried", "stopped:"):
        assert header in text
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)
    check = CliRunner().invoke(main, ["validate", str(out)])
    assert check.exit_code == 0, check.output
    again = run("--pool", pool, "-n", "400", "--workers", "1", "--out", str(out))
    assert again.exit_code == 2
    assert "exists; use --force" in again.output
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".deckbuild-")]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("pool_text", "args", "code", "message"),
    [
        ("+1 +2 +3\n", [], 1, "holds 3 cards, fewer than the 10"),
        ("+1 +2 +3 +4 +5 +6 -1 -2 -3 +9\n", [], 1, "pool.deck:1:28: '+9'"),
        ("+1 +2 +3 +4 +5 +6 -1 -2 -3\nT\n", [], 1, "pool.deck:2:1: 'T' (tiebreaker) is a KOTOR II"),
        (None, ["-n", "0"], 2, "--matches 0: too small a budget"),
        (
            None,
            ["--pool", "no/such.deck"],
            2,
            "Invalid value for '--pool': no/such.deck: no such file",
        ),
        (
            None,
            ["--against", "kotor2-very-hard"],
            1,
            "invalid kotor1 side deck for --against: sample:kotor2-very-hard:",
        ),
        (
            None,
            ["--against", "no/such.deck"],
            2,
            "Invalid value for '--against': no/such.deck: no such file",
        ),
        (None, ["-n", "1e5"], 2, "'1e5' is not a whole number in the digits 0-9"),
        (None, ["-n", "-1"], 2, "-1 is out of range: give a whole number from 0 to"),
        (None, ["--workers", "0"], 2, "0 is out of range: give a whole number from 1 to 64"),
        (None, ["--force"], 2, "--force lets --out replace a file: give --out FILE, or drop"),
        (None, ["--cluster", "nonsense"], 2, "not a scheduler address"),
    ],
)
def test_bad_input_is_one_line_and_an_exit_code(
    tmp_path: Path, pool_text: str | None, args: list[str], code: int, message: str
) -> None:
    extra = ["--pool", write(tmp_path / "pool.deck", pool_text)] if pool_text else []
    result = run(*extra, *args)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_an_unreachable_cluster_is_a_usage_error() -> None:
    address = f"tcp://127.0.0.1:{_closed_port()}"
    result = run("-n", "100", "--cluster", address)
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"Error: --cluster {address}: cannot reach a Dask scheduler there (connection refused)"
    )


def test_without_dask_the_cluster_option_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    result = run("-n", "100", "--cluster", "tcp://127.0.0.1:8786")
    assert result.exit_code == 2
    assert "pip install 'pazaak[cluster]'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_help_documents_the_defaults_and_exit_codes() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for text in ("--pool", "4 copies", "--against", "kotor1-strongest", "--cluster", "130"):
        assert text in result.output
