"""``pazaak chart``: every cell is ``pazaak advise``'s answer on the cell's position; the tables
follow the documented rule; the SVG is well-formed (and drawn by a real browser when one is
installed); bad input fails as in ``advise``. Small cases: an infinite deck, small hands."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.commands.common import budget_seconds
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import sample_deck
from pazaak_cli.engine.numbers import seconds_text
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.solve.budgeted import MIN_HANDS
from pazaak_cli.solve.hidden_hands import weighted_opponent_hands
from pazaak_cli.solve.match_advice import match_other_hands
from pazaak_cli.solve.solver import SetSolver
from pazaak_cli.tools.chart import (
    DEFAULT_CHART_SECONDS,
    ChartRun,
    ChartSpec,
    cell_tables,
    chart_options,
    default_my_totals,
    default_opp_totals,
    splits,
)

ROOT = Path(__file__).resolve().parent.parent
INFINITE = ("--main-deck", "infinite")
SMALL = (*INFINITE, "--my-totals", "17-22", "--opp-totals", "16-20")
"""Rows on both sides of 20 (a rescue by the -3), columns with the opponent drawing and
standing."""
HIDDEN = (
    *INFINITE,
    "--hand",
    "+1 -2",
    "--opp-hand-size",
    "2",
    "--opp-deck",
    "kotor1-average",
    "--objective",
    "set",
)
"""A hidden hand of 19 possible hands: 2 cards of kotor1-average."""
HIDDEN_TOTALS = ("--my-totals", "18-21", "--opp-totals", "17-19")
CHROMIUM = "/usr/bin/chromium"
DOC_PICTURE = ROOT / "docs" / "chart-example.svg"
DOC_COMMAND = (
    "--ruleset",
    "kotor1/main-deck=infinite",
    "--hand",
    "+2 -3 ±4",
    "--opp-hand",
    "-1 +3",
)
"""The example of docs/chart.md, whose picture is docs/chart-example.svg."""


def run(*args: str, color: bool = False, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(main, list(args), color=color, env=env, prog_name="pazaak")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def chart_json(*args: str) -> dict[str, Any]:
    result = run("chart", *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def advise_json(*args: str) -> dict[str, Any]:
    result = run("advise", *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _same_move(chart_move: dict[str, Any], advise_move: dict[str, Any]) -> bool:
    return all(chart_move[key] == advise_move[key] for key in ("card", "value", "then", "note"))


def _value(move: dict[str, Any], objective: str) -> float:
    return float(move["match_win"] if objective == "match" else move["equity"])


def check_cells_against_advise(
    chart: dict[str, Any],
    options: tuple[str, ...],
    every: int = 1,
    *,
    sampled: int | None = None,
    tolerance: float = 1e-12,
) -> int:
    """Ask ``pazaak advise`` every ``every``-th solved cell's position, with the same options,
    and compare the move, its numbers and the margin; the count of cells compared. ``sampled``:
    the hands a cell averaging the hidden hand is sampled from (else every cell is exact)."""
    solved = [cell for cell in chart["cells"] if cell["label"] is not None]
    compared = 0
    for cell in solved[::every]:
        args = [*options, "--table", cell["table"], "--opp-table", cell["opp_table"]]
        if cell["opp_standing"]:
            args.append("--opp-stood")
        answer = advise_json(*args)
        if sampled is None or answer["hands_possible"] == 1:
            assert answer["exactness"] == "exact"  # (not on a terminal: the exact answer)
        else:
            assert answer["exactness"] == "sampled" and answer["hands_solved"] == sampled
            assert answer["hands_possible"] == chart["hands_possible"]
        assert answer["position"] == cell["position"] and answer["drawn"] == cell["drawn"]
        objective = answer["objective"]
        assert objective == chart["objective"]
        best = [move for move in answer["moves"] if move["best"]]
        found = [move for move in best if _same_move(cell["move"], move)]
        assert len(found) == 1, (cell, answer["moves"])
        move = found[0]
        for key in ("p_win", "p_tie", "p_loss", "equity"):
            assert cell[key] == pytest.approx(move[key], abs=tolerance), (key, cell)
        if objective == "match":
            assert cell["match_win"] == pytest.approx(move["match_win"], abs=tolerance)
        rest = [m for m in answer["moves"] if not m["best"]] or [m for m in best if m is not move]
        if not rest:
            assert cell["margin"] is None and cell["next"] is None
        else:
            assert _same_move(cell["next"], rest[0])
            margin = _value(move, objective) - _value(rest[0], objective)
            assert cell["margin"] == pytest.approx(max(0.0, margin), abs=tolerance)
        compared += 1
    return compared


# ------------------------------------------------------------------------------------------------
# Every cell is advise's answer.


def test_every_cell_of_a_set_chart_equals_advise_on_its_position() -> None:
    options = (*INFINITE, "--hand", "+2 -3", "--opp-hand", "-1 +4", "--objective", "set")
    chart = chart_json(*SMALL, *options[2:])
    assert chart["objective"] == "set" and "best move for this set" in chart["model"]
    labels = {cell["label"] for cell in chart["cells"]}
    assert {"S", "E", "-3S"} <= labels  # stands, draws and a rescue over 20
    assert len(chart["cells"]) == 6 * (4 + 5)
    assert check_cells_against_advise(chart, options) == len(chart["cells"])


def test_a_hidden_hand_chart_shares_one_solver_and_still_equals_advise() -> None:
    """The hidden hand is averaged by the shared set solver (its memo carried from cell to
    cell); advise solves each position afresh."""
    chart = chart_json(*HIDDEN, *HIDDEN_TOTALS)
    assert "2 hidden cards of kotor1-average averaged over" in chart["model"]
    assert chart["cells"][0]["hands_averaged"] > 1
    assert check_cells_against_advise(chart, HIDDEN, every=3) >= 7


def test_a_match_chart_equals_advise_on_the_match() -> None:
    options = (*INFINITE, "--hand", "+1", "--opp-hand", "-1", "--sets", "2-1")
    chart = chart_json(
        *options, "--objective", "match", "--my-totals", "18-19", "--opp-totals", "18-19"
    )
    assert chart["objective"] == "match" and "best move for the match" in chart["model"]
    assert all(cell["match_win"] is not None for cell in chart["cells"])
    compared = check_cells_against_advise(chart, (*options, "--objective", "match"), every=2)
    assert compared >= 3


def test_a_chart_against_the_kotor_rule_equals_advise() -> None:
    options = (*INFINITE, "--hand", "+2 -3", "--opp-hand", "+1", "--opponent", "kotor")
    chart = chart_json(*options, "--my-totals", "17-21", "--opp-totals", "17-19")
    assert "KOTOR I rule" in chart["model"]
    assert check_cells_against_advise(chart, (*options, "--objective", "set"), every=2) >= 8


# ------------------------------------------------------------------------------------------------
# A hidden hand sampled: every cell the mean over the same draws, as advise --hands --seed.


def _hidden_spec(objective: str = "set") -> ChartSpec:
    return ChartSpec(
        parse_ruleset("kotor1/main-deck=infinite"),
        parse_cards("+1 -2"),
        (18, 19, 20, 21),
        (17, 18, 19),
        opp_hand_size=2,
        opp_deck=sample_deck("kotor1-average").cards,
        objective=objective,
    )


def test_a_sampled_chart_is_advises_sampled_answer_on_its_cells() -> None:
    sample = ("--hands", "4", "--seed", "7")
    chart = chart_json(*HIDDEN, *HIDDEN_TOTALS, *sample)
    assert (chart["exactness"], chart["hands_solved"], chart["hands_possible"]) == (
        "sampled",
        4,
        19,
    )
    assert chart["seed"] == 7 and chart["draws"] >= 4
    assert (
        "2 hidden cards of kotor1-average, sampled: 4 of 19 possible hands (seed 7)"
        in (chart["model"])
    )
    drawing = [cell for cell in chart["cells"] if not cell["opp_standing"]]
    assert {cell["hands_averaged"] for cell in drawing} == {4}
    compared = check_cells_against_advise(
        chart, (*HIDDEN, *sample), every=2, sampled=4, tolerance=1e-9
    )
    assert compared >= 10


@pytest.mark.parametrize(
    ("model", "totals"),
    [
        (("--opponent", "kotor", "--objective", "set"), ("17-21", "17-19")),
        (("--objective", "match", "--sets", "2-2"), ("18-19", "18-19")),
    ],
    ids=["kotor-rule", "match"],
)
def test_a_sampled_chart_against_the_kotor_rule_or_for_the_match_is_advises_too(
    model: tuple[str, ...], totals: tuple[str, str]
) -> None:
    """No shared set solver here: each cell averages the sample through its own solver (the
    match's keeps its states for the process), and the match averages it standing too."""
    options = (*HIDDEN[:-2], *model, "--hands", "3", "--seed", "4")
    chart = chart_json(*options, "--my-totals", totals[0], "--opp-totals", totals[1])
    assert "sampled: 3 of 19 possible hands (seed 4)" in chart["model"]
    compared = check_cells_against_advise(chart, options, every=2, sampled=3, tolerance=1e-9)
    assert compared >= 4


def test_the_same_seed_and_hands_give_the_same_chart_and_another_seed_another() -> None:
    first = chart_json(*HIDDEN, *HIDDEN_TOTALS, "--hands", "3", "--seed", "11")
    assert chart_json(*HIDDEN, *HIDDEN_TOTALS, "--hands", "3", "--seed", "11") == first
    other = chart_json(*HIDDEN, *HIDDEN_TOTALS, "--hands", "3", "--seed", "12")
    assert [cell["equity"] for cell in other["cells"]] != [
        cell["equity"] for cell in first["cells"]
    ]


def test_time_0_and_hands_past_every_hand_give_the_exact_chart() -> None:
    exact = chart_json(*HIDDEN, *HIDDEN_TOTALS)  # (not a terminal: the exact chart)
    assert (exact["exactness"], exact["hands_solved"], exact["hands_possible"]) == (
        "exact",
        19,
        19,
    )
    assert "averaged over 19 hands" in exact["model"] and exact["seed"] is None
    for args in (("--time", "0"), ("--hands", "19"), ("--hands", "1000")):
        other = chart_json(*HIDDEN, *HIDDEN_TOTALS, *args)
        assert other == {**exact, "time_budget": None}, args
    known = chart_json(*INFINITE, "--hand", "+1", "--opp-hand", "-1", *HIDDEN_TOTALS)
    assert (known["exactness"], known["hands_solved"], known["hands_possible"]) == ("exact", 1, 1)
    # a known hand has nothing to sample: --hands there is refused, not ignored
    refused = run("chart", *INFINITE, "--hand", "+1", "--opp-hand", "-1", "--hands", "4")
    assert refused.exit_code == 2
    assert "--hands cannot be used with a known opponent hand (--opp-hand)" in refused.output


@pytest.mark.parametrize("opponent", ["optimal", "kotor"])
def test_a_budgeted_chart_doubles_its_sample_until_every_hand_is_in(opponent: str) -> None:
    """With the shared set solver (its memo kept from pass to pass) and against the KOTOR rule
    (every pass solved afresh, foreseen from all its hands)."""
    options = (*HIDDEN, "--opponent", opponent, *HIDDEN_TOTALS)
    exact = chart_json(*options)
    budgeted = chart_json(*options, "--time", "60")
    assert budgeted["time_budget"] == 60
    passes = [(done["hands"], done["new_hands"]) for done in budgeted["passes"]]
    assert passes == [(2, 2), (4, 2), (8, 4), (16, 8), (19, 3)]
    assert budgeted["exactness"] == "exact" and budgeted["model"] == exact["model"]
    assert budgeted["cells"] == exact["cells"]  # (number for number: the memo's values)


def test_a_budget_past_at_once_shows_the_least_sample() -> None:
    least = chart_json(*HIDDEN, *HIDDEN_TOTALS, "--time", "0.001")
    assert [done["hands"] for done in least["passes"]] == [MIN_HANDS]
    assert least["exactness"] == "sampled" and least["hands_solved"] == MIN_HANDS
    replay = chart_json(*HIDDEN, *HIDDEN_TOTALS, "--hands", str(MIN_HANDS), "--seed", "0")
    assert least["cells"] == replay["cells"] and least["model"] == replay["model"]
    shown = " ".join(run("chart", *HIDDEN, *HIDDEN_TOTALS, "--time", "0.001").stdout.split())
    assert (
        "Sampled: 2 of 19 possible hands (how many fit depends on the machine's speed); "
        "--hands 2 --seed 0 gives this chart again, --time 0 the exact one."
    ) in shown
    assert "over the 0.001 s budget" in shown  # (two hands take longer: said, not hidden)


def test_a_small_budget_is_written_in_plain_decimals() -> None:
    """--time 1e-9 was said as "the 1e-09 s budget"."""
    shown = " ".join(run("chart", *HIDDEN, *HIDDEN_TOTALS, "--time", "1e-9").stdout.split())
    assert "over the 0.000000001 s budget" in shown and "e-09" not in shown
    assert [seconds_text(s) for s in (2.0, 0.5, 86400.0, 1e-9, 1.5e-9)] == [
        "2", "0.5", "86400", "0.000000001", "0.0000000015"
    ]  # fmt: skip
    assert seconds_text(1e-300) == "1e-300"  # (not 300 zeros)


def test_a_pass_costs_its_new_hands_the_earlier_ones_are_memoised() -> None:
    """The shared set solver computes a position once: a pass on 8 hands after one on 4
    computes what 8 hands afresh compute less what 4 did; a pass again, nothing."""
    chart_run = ChartRun(_hidden_spec())
    assert chart_run.memoised and isinstance(chart_run.options.solver, SetSolver)
    solver = chart_run.options.solver
    chart_run.solve(4)
    four = solver.solved
    chart_run.solve(4)
    assert solver.solved == four
    chart_run.solve(8)
    fresh = ChartRun(_hidden_spec())
    fresh.solve(8)
    assert isinstance(fresh.options.solver, SetSolver)
    assert solver.solved == fresh.options.solver.solved
    assert solver.solved - four < fresh.options.solver.solved


@pytest.mark.parametrize("objective", ["set", "match"])
def test_every_cell_averages_the_same_possible_hands(objective: str) -> None:
    """The tables hold main-deck cards only: every cell whose answer averages the hidden hand
    (the set's with the opponent drawing; the match's always) has the same possible hands."""
    chart_run = ChartRun(_hidden_spec(objective))
    assert len(chart_run.possible) == 19
    for found in chart_run.questions.values():
        assert found is not None
        state = found[1].state
        other = state.sides[1 - state.turn]
        if objective == "match":
            hands = match_other_hands(other, chart_run.options, state.ruleset)
        else:
            hands = weighted_opponent_hands(other, chart_run.options, state.ruleset)
        if objective == "set" and other.standing:
            assert hands == [((), 1)]
        else:
            assert hands == chart_run.possible


def test_ctrl_c_during_a_pass_shows_the_last_complete_one(monkeypatch: pytest.MonkeyPatch) -> None:
    solve = ChartRun.solve
    calls: list[int | None] = []

    def stopped_at_the_second(
        self: ChartRun, hands: int | None = None, progress: Any = None
    ) -> Any:
        calls.append(hands)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return solve(self, hands, progress)

    monkeypatch.setattr(ChartRun, "solve", stopped_at_the_second)
    result = run("chart", *HIDDEN, *HIDDEN_TOTALS, "--time", "60")
    assert result.exit_code == 0, result.output
    assert "sampled: 2 of 19 possible hands (seed 0)" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Stopped: the last complete pass, on 2 of 19 possible hands."
    )
    calls.clear()
    document = chart_json(*HIDDEN, *HIDDEN_TOTALS, "--time", "60")
    assert document["interrupted"] and document["hands_solved"] == 2


def test_ctrl_c_during_the_first_pass_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(ChartRun, "solve", interrupted)
    result = run("chart", *HIDDEN, *HIDDEN_TOTALS, "--time", "60")
    assert result.exit_code == 130 and result.stderr == "\nInterrupted.\n"


def test_one_mapping_turns_the_time_options_into_a_budget() -> None:
    assert budget_seconds(None, default=DEFAULT_CHART_SECONDS) == DEFAULT_CHART_SECONDS
    assert budget_seconds(None, default=None) is None
    assert budget_seconds(0.0, default=DEFAULT_CHART_SECONDS) is None
    assert budget_seconds(2.5, default=None) == 2.5
    assert budget_seconds(None, default=DEFAULT_CHART_SECONDS, hands=8) is None
    assert budget_seconds(None, default=2.0, exact=True) is None
    with pytest.raises(click.UsageError, match=r"--hands .* or --time, not both"):
        budget_seconds(0.0, default=None, hands=8)
    with pytest.raises(click.UsageError, match=r"--hands .* or --exact, not both"):
        budget_seconds(None, default=None, hands=8, exact=True)
    with pytest.raises(click.UsageError, match="--exact answers however long it takes"):
        budget_seconds(3.0, default=None, exact=True)


# ------------------------------------------------------------------------------------------------
# The tables of a cell.


def test_splits_are_most_even_first_and_largest_first() -> None:
    assert splits(17, 2)[0] == (9, 8)
    assert splits(12, 3)[0] == (4, 4, 4)
    assert splits(13, 3)[:2] == ((5, 4, 4), (5, 5, 3))
    assert splits(21, 2) == ()
    assert all(sum(cards) == 23 and len(cards) == 3 for cards in splits(23, 3))


@pytest.mark.parametrize("ruleset", ["kotor1", "kotor1/target=30,table-size=5"])
def test_every_cells_tables_follow_the_documented_rule(ruleset: str) -> None:
    """You opened the set: a drawing opponent has one main card fewer, a standing one at most
    as many fewer; the fewest cards that allows; no value more than four times; your total
    before the draw below the target; the sums are the totals."""
    rules = parse_ruleset(ruleset)
    target = rules.target
    built = 0
    for mine in range(1, target + 11):
        for theirs in range(1, target + 1):
            for standing in (False, True):
                tables = cell_tables(rules, mine, theirs, standing)
                if tables is None:
                    continue
                built += 1
                table, opp = tables
                assert sum(table) == mine and sum(opp) == theirs
                assert list(table) == sorted(table, reverse=True)
                assert mine - table[-1] < target
                assert max((Counter(table) + Counter(opp)).values()) <= 4
                if standing:
                    assert len(opp) <= len(table) - 1
                else:
                    assert len(opp) == len(table) - 1 and theirs < target
                assert len(table) <= rules.table_size
    assert built > target * target
    assert cell_tables(parse_ruleset("kotor1"), 15, 7, False) == ((8, 7), (7,))
    assert cell_tables(parse_ruleset("kotor1"), 15, 17, True) == ((5, 5, 5), (9, 8))
    assert cell_tables(parse_ruleset("kotor1"), 20, 20, True) == ((7, 7, 6), (10, 10))
    assert cell_tables(parse_ruleset("kotor1"), 12, 20, False) is None  # 20 stands at once


def test_the_default_rows_add_the_totals_a_minus_card_can_rescue() -> None:
    rules = parse_ruleset("kotor1")
    assert default_my_totals(rules, parse_cards("+2 -3 ±4")) == (
        *range(11, 20),
        *range(21, 25),
    )
    assert default_my_totals(rules, parse_cards("+1 +2")) == tuple(range(11, 20))
    assert default_opp_totals(rules) == tuple(range(1, 21))


def test_only_an_infinite_set_chart_against_an_optimal_opponent_shares_a_set_solver() -> None:
    rules = parse_ruleset("kotor1/main-deck=infinite")
    spec = ChartSpec(rules, parse_cards("+1"), (18,), (18,), opp_hand=())
    assert chart_options(spec).solver is not None
    for other in (
        ChartSpec(parse_ruleset("kotor1"), parse_cards("+1"), (18,), (18,), opp_hand=()),
        ChartSpec(rules, parse_cards("+1"), (18,), (18,), opp_hand=(), objective="match"),
        ChartSpec(rules, parse_cards("+1"), (18,), (18,), opp_hand=(), opponent="kotor"),
    ):
        assert chart_options(other).solver is None


# ------------------------------------------------------------------------------------------------
# What it shows.


def test_the_terminal_grid_is_letters_without_colour_and_coloured_with_it() -> None:
    args = ("chart", *SMALL, "--hand", "+2 -3", "--opp-hand", "-1")
    plain = run(*args, env={"NO_COLOR": "1"})
    assert plain.exit_code == 0 and "\x1b[" not in plain.stdout and plain.stderr == ""
    lines = plain.stdout.splitlines()
    assert lines[0] == "Pazaak chart: your hand +2 -3, against -1."
    assert lines[1].startswith("Model: kotor1/main-deck=infinite: best move for this set")
    drawing = "The opponent still draws: its total across, yours after your draw down."
    standing = "The opponent stands: its total across, yours after your draw down."
    assert drawing in lines and standing in lines
    header = lines[lines.index(standing) + 1]
    assert header.split() == ["16", "17", "18", "19", "20"]
    rows_21 = [line for line in lines if line.startswith(" 21")]
    assert len(rows_21) == 2 and "-3" in rows_21[1]
    assert any(line.strip().startswith("S stand") for line in lines)
    coloured = run(*args, color=True)
    assert "\x1b[" in coloured.stdout
    assert json.loads(run(*args, "--json", color=True).stdout)["objective"] == "set"


def test_on_an_80_column_terminal_no_line_of_the_chart_is_wider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A standing opponent's 20 columns are 83 characters: on the usual terminal every row broke
    in two. There the panel comes in blocks of columns that fit (each with its header), and the
    model line is wrapped; a pipe still gets each panel whole (the docs' examples)."""
    monkeypatch.setattr("pazaak_cli.commands.chart_cmd.terminal_width", lambda: 80)
    result = run("chart", *DOC_COMMAND, env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    standing = lines.index("The opponent stands: its total across, yours after your draw down.")
    headers = [line.split() for line in lines[standing:] if line.startswith("     ")]
    assert headers == [[str(t) for t in range(1, 11)], [str(t) for t in range(11, 21)]]
    assert lines[standing + 2].split() == ["11", *["S"] * 10]  # (your 11 against 1 to 10)
    assert lines[1].startswith("Model: ") and lines[2].startswith("  ")  # (wrapped, indented)
    monkeypatch.undo()
    piped = run("chart", *DOC_COMMAND, env={"NO_COLOR": "1"}).stdout.splitlines()
    assert max(len(line) for line in piped if line.startswith(" 11")) == 83  # (each whole)


def test_the_svg_is_well_formed_and_escapes_every_name(tmp_path: Path) -> None:
    deck = tmp_path / "evil.deck"
    deck.write_text('name: evil <&> "q" \x1b[2J\n+1 +1 +2 +2 +3 +3 +4 +4 +5 +5\n', encoding="utf-8")
    out = tmp_path / "chart.svg"
    result = run(
        "chart",
        *INFINITE,
        "--hand",
        "-2",
        "--opp-hand-size",
        "1",
        "--opp-deck",
        str(deck),
        "--my-totals",
        "18-22",
        "--opp-totals",
        "18-20",
        "--out",
        str(out),
        env={"NO_COLOR": "1"},
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == f"Chart written to {out}."
    assert "\\x1b[2J" in result.stdout and "\x1b" not in result.stdout
    text = out.read_text(encoding="utf-8")
    root = ElementTree.fromstring(text.encode("utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    everything = "".join(root.itertext())
    assert 'evil <&> "q" \\x1b[2J' in everything
    tips = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert any(tip.startswith("You 22 (8 7 7), opponent 18 (9 9), it stands.") for tip in tips)
    assert len(tips) == 1 + 5 * (2 + 3)  # the title; your 18..22 by its 18..19 and 18..20
    legend_texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t and t.startswith("-2S") for t in legend_texts)


def test_the_docs_picture_is_what_the_docs_example_draws(tmp_path: Path) -> None:
    """docs/chart-example.svg is the docs example's chart: after a change to the drawing,
    regenerate it with ``pazaak chart <DOC_COMMAND> --out docs/chart-example.svg --force``."""
    out = tmp_path / "example.svg"
    assert run("chart", *DOC_COMMAND, "--out", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8") == DOC_PICTURE.read_text(encoding="utf-8")


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="no chromium on this machine")
def test_a_real_browser_draws_the_svg(tmp_path: Path) -> None:
    out = tmp_path / "chart.svg"
    assert run("chart", *SMALL, "--hand", "+2 -3", "--out", str(out)).exit_code == 0
    picture = tmp_path / "chart.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--window-size=900,500",
                f"--screenshot={picture}",
                str(out),
            ],
            capture_output=True,
            timeout=120,
            check=False,
        )
    data = picture.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5_000


# ------------------------------------------------------------------------------------------------
# Bad input, as in advise.


def _error(result: Result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


KNOWN = ("chart", *INFINITE, "--my-totals", "18-19", "--opp-totals", "18-19")


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (("--hand", "+1", "--opp-hand", "-1", "--out", "chart.png"), 2, "PNG is not written"),
        (("--hand", "+1", "--opp-hand", "-1", "--out", "chart.pdf"), 2, "name a .svg file"),
        (("--hand", "Q", "--opp-hand", "-1"), 2, "'Q' is not a card"),
        (("--hand", "F2/4", "--opp-hand", "-1"), 2, "F2/4 is not a kotor1 card"),
        (("--hand", "+1", "--opp-hand", "+1", "--opp-hand-size", "2"), 2, "not both"),
        (("--hand", "+1", "--opp-hand", "-1", "--sets", "x"), 2, "is not MINE-THEIRS"),
        (("--hand", "+1", "--opp-hand", "-1", "--my-totals", "19-11"), 2, "range of totals"),
        (("--hand", "+1", "--opp-hand", "-1", "--out", "/nonexistent/c.svg"), 2, "no such dir"),
        (("--hand", "+1", "--opp-hand", "-1", "--sets", "3-0"), 1, "the match ends at 3 sets"),
        (("--hand", "+1 +2 +3 +4 +5", "--opp-hand", "-1"), 1, "more than the 4 dealt"),
        (("--hand", "+1", "--opp-hand", "+1 +2 +3 +4 +5"), 1, "more than the 4 dealt"),
        (("--hand", "+1", "--opp-hand-size", "11"), 1, "--opp-hand-size 11 is more than the 4"),
        (("--hand", "+1", "--opp-hand", "-1", "--my-totals", "1"), 1, "no position fits"),
        (("--hand", "+1", "--opp-hand-size", "2", "--time", "-1"), 2, "not a number of seconds"),
        (("--hand", "+1", "--opp-hand-size", "2", "--time", "nan"), 2, "not a number of seconds"),
        (("--hand", "+1", "--opp-hand-size", "2", "--hands", "1"), 2, "'--hands': 1 is out of"),
        (("--hand", "+1", "--opp-hand-size", "2", "--hands", "x"), 2, "not a whole number"),
        (("--hand", "+1", "--opp-hand-size", "2", "--seed", "-1"), 2, "'--seed': -1 is out of"),
        (("--hand", "+1", "--opp-hand-size", "2", "--hands", "4", "--time", "2"), 2, "not both"),
        (("--hand", "+1", "--opp-hand-size", "2", "--hands", "4", "--time", "0"), 2, "not both"),
    ],
)
def test_bad_input_is_one_line_and_the_exit_code_advise_gives(
    args: tuple[str, ...], code: int, says: str
) -> None:
    result = run(*KNOWN, *args)
    assert result.exit_code == code, result.output
    assert says in _error(result)


def test_an_empty_hidden_hand_is_a_known_empty_hand_as_advise_takes_it() -> None:
    """--opp-hand-size 0 took --opp-deck and --hands, which changed nothing ("its 0 hidden cards
    of kotor1-strong averaged over 1 hand"), where advise refuses them (docs/advise.md)."""
    args = ("chart", *INFINITE, "--hand", "+1", "--my-totals", "18-19", "--opp-totals", "18-19")
    refused = run(*args, "--opp-hand-size", "0", "--opp-deck", "kotor1-strong")
    assert refused.exit_code == 2
    assert (
        "--opp-deck cannot be used with a known opponent hand (--opp-hand-size 0: an empty hand "
        "is known)" in refused.stderr
    )
    assert run(*args, "--opp-hand-size", "0", "--hands", "3").exit_code == 2
    empty = run(*args, "--opp-hand-size", "0")
    assert empty.exit_code == 0
    assert empty.stdout == run(*args, "--opp-hand", "").stdout
    assert empty.stdout.startswith("Pazaak chart: your hand +1, against an opponent holding none.")


def test_chart_is_listed_in_the_group_help() -> None:
    assert "  chart      the best move at every total for one hand, as a grid" in (
        run("--help").stdout
    )


def test_ctrl_c_stops_a_chart_with_exit_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr("pazaak_cli.commands.chart_cmd.compute_chart", interrupted)
    result = run(*KNOWN, "--hand", "+1", "--opp-hand", "-1")
    assert result.exit_code == 130 and result.stderr == "\nInterrupted.\n"


def test_out_does_not_replace_a_file_without_force(tmp_path: Path) -> None:
    """An existing file is the user's until --force says otherwise (as deckbuild --out): the
    chart refuses before drawing, the file untouched; with --force it is replaced whole."""
    out = tmp_path / "mine.svg"
    out.write_text("precious", encoding="utf-8")
    args = ["chart", "--hand", "+1", "--opp-hand", "-1", "--my-totals", "18-19"]
    args += ["--opp-totals", "18-19", "--out", str(out)]
    refused = run(*args)
    assert refused.exit_code == 2 and "the file exists; use --force" in refused.output
    assert out.read_text(encoding="utf-8") == "precious"
    assert run(*args, "--force").exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("<?xml")


def test_out_inside_a_file_says_it_is_a_file_not_a_missing_directory(tmp_path: Path) -> None:
    inside = tmp_path / "mine.svg" / "chart.svg"
    (tmp_path / "mine.svg").write_text("precious", encoding="utf-8")
    args = ["chart", "--hand", "+1", "--opp-hand", "-1", "--out", str(inside)]
    refused = run(*args)
    assert refused.exit_code == 2
    assert refused.stderr == f"Error: --out {inside}: {inside.parent} is a file, not a directory\n"
