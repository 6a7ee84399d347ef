"""The answer within a time budget (pazaak_cli.solve.budgeted, pazaak_cli.solve.sampling).

Checked: the draws and the estimate on their own; a sample grown to every possible hand is the
exact answer (against the slow path, to 1e-12, for the four solvers); the same seed and number
of hands replay the same answer; the 95 % interval covers the exact value at about its rate on
many real positions and seeds, and a move called best with confidence is the exact best; the
commands' --time, --seed and --hands, and refinement in follow and play.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from questions import INFINITE
from questions import hidden_question as question

from pazaak_cli.cli import main
from pazaak_cli.commands.prepare_cmd import prepare_command
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import load_deck, sample_deck
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.runtime.executors import SOLVER_PROCESSES_VARIABLE, fork_available
from pazaak_cli.solve import budgeted, match_advice, time_budget
from pazaak_cli.solve.advice import solve_question
from pazaak_cli.solve.answer_types import Advice, SolveOptions
from pazaak_cli.solve.answers import AnswerRequest, answer, budgeted_objective
from pazaak_cli.solve.budgeted import MIN_HANDS, Refinement, deck_word, prepare_line
from pazaak_cli.solve.hand_rows import (
    HandRows,
    HandsSolved,
    MoveRow,
    rows_in_order,
    solve_dealt,
)
from pazaak_cli.solve.match_advice import MatchHands, clear_shared_solvers
from pazaak_cli.solve.match_native import NativeMatchSolver
from pazaak_cli.solve.models import KOTOR, Objective
from pazaak_cli.solve.sampling import HandDraws, estimate, student_t_cdf, student_t_quantile
from pazaak_cli.solve.solver import hand_processes
from pazaak_cli.solve.time_budget import TimeBudget


def options(deck: str, objective: str = "set", opponent: str = "optimal") -> SolveOptions:
    return SolveOptions(
        opponent_deck=sample_deck(deck).cards, objective=objective, opponent=opponent
    )


def replay(
    asked: Question, deck: str, seed: str = "0", *, hands: int | None = None
) -> AnswerRequest:
    """The service's request for the set answer to ``asked`` (``hands``: exactly that many)."""
    return AnswerRequest(
        asked,
        objective=None if hands is None else Objective.SET,
        opponent_deck=sample_deck(deck).cards,
        seed=seed,
        hands=hands,
    )


def values(advice: Advice) -> dict[str, tuple[float, ...]]:
    """Every move's numbers by its name."""
    return {
        str(r.move): (r.match_win or 0.0, r.outcome.p_win, r.outcome.p_tie, r.outcome.p_loss)
        for r in advice.results
    }


# The draws and the estimate --------------------------------------------------------------------


def test_the_draws_come_from_the_seed_and_by_weight() -> None:
    weights = [1, 4, 16, 1, 2]
    first, again, other = HandDraws(weights, "7"), HandDraws(weights, "7"), HandDraws(weights, "8")
    assert first.distinct(5) == again.distinct(5)
    assert first.draws == again.draws
    assert first.draws != other.draws
    assert sorted(first.distinct(5)) == [0, 1, 2, 3, 4]
    # by weight: the hand dealt 16 ways is drawn about 16/24 of the time
    many = HandDraws(weights, "1")
    many.distinct(5)
    share = many.draws.count(2) / len(many.draws)
    assert abs(share - 16 / 24) < 0.05


def test_the_usable_draws_stop_at_the_first_hand_not_solved() -> None:
    draws = HandDraws([1, 1, 1, 1], "3")
    order = draws.distinct(4)
    usable = draws.usable_draws(2)
    assert set(usable) == set(order[:2])
    assert draws.draws[len(usable)] == order[2]  # (the draw that brought the third hand)
    assert draws.usable_draws(4) == draws.draws


def test_student_t_matches_the_published_table() -> None:
    for df, quantile in [(1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042)]:
        assert student_t_quantile(0.975, df) == pytest.approx(quantile, abs=5e-4)
    assert student_t_cdf(0.0, 4) == pytest.approx(0.5)
    assert student_t_cdf(-2.015, 5) == pytest.approx(0.05, abs=1e-4)


def test_the_estimate_is_the_mean_over_the_draws() -> None:
    rows = {
        0: ((0.5, 0.6, 0.3, 0.1), (0.1, 0.4, 0.3, 0.3)),
        1: ((0.3, 0.5, 0.3, 0.2), (0.2, 0.4, 0.4, 0.2)),
    }
    found = estimate(rows, [0, 1, 0])
    first, second = found.moves
    assert first.place == 0 and second.place == 1
    assert first.means == pytest.approx((1.3 / 3, 1.7 / 3, 0.9 / 3, 0.4 / 3))
    assert found.draws == 3 and found.hands == 2
    assert found.gap == pytest.approx((0.4 + 0.1 + 0.4) / 3 - 0.0)
    assert first.margin > 0 and found.gap_margin > 0
    assert 0.5 < found.confidence < 1.0


# A sample grown to every hand is the exact answer --------------------------------------------


@pytest.mark.parametrize(
    ("objective", "opponent", "hand", "hidden"),
    [
        ("set", "optimal", "+2 -3 ±1", 3),
        ("set", "kotor", "+2 -3", 2),
        ("match", "optimal", "+2", 1),
        ("match", "kotor", "+2", 1),
    ],
)
def test_every_hand_solved_is_the_exact_answer(
    objective: str, opponent: str, hand: str, hidden: int
) -> None:
    rules = f"{INFINITE},sets-to-win=2"  # (at 1-1 the match is this set and the next)
    asked = question("10 3", hand, "9 4", hidden, rules=rules, sets=(1, 0))
    exact = solve_question(asked, options("kotor1-average", objective, opponent))
    refined = Refinement(asked, options("kotor1-average", objective, opponent))
    first = refined.refine(TimeBudget(), hands=MIN_HANDS)
    assert first.exactness == "sampled" and first.hands_solved == MIN_HANDS
    done = refined.refine(TimeBudget())
    assert done.exactness == "exact" and refined.exact
    assert done.hands_solved == done.hands_averaged == exact.hands_averaged > MIN_HANDS
    assert [str(r.move) for r in done.results] == [str(r.move) for r in exact.results]
    for name, numbers in values(done).items():
        assert numbers == pytest.approx(values(exact)[name], abs=1e-12)
    assert done.model == exact.model


def test_the_same_seed_and_hands_replay_the_same_answer() -> None:
    asked = question("8 5", "+1 -2 ±3", "10", 4)
    one, two, other = (
        answer(replay(asked, "kotor1-starter", seed, hands=4)).advice for seed in ("11", "11", "12")
    )
    assert values(one) == values(two) and one.model == two.model  # (the positions solved
    # in this process vary with how the hands were shared out between two: not the answer)
    assert [r.margin for r in one.results] == [r.margin for r in two.results]
    assert one.exactness == "sampled" and one.hands_solved == 4 and one.seed == "11"
    assert "sampled: 4 of its 45 possible hands solved" in one.model
    assert values(one) != values(other)


def test_a_tiny_budget_still_gives_the_least_sample_and_asking_again_refines() -> None:
    asked = question("8 5", "+1 -2 ±3", "10", 4)
    refinement = Refinement(asked, options("kotor1-starter"))
    first = refinement.refine(TimeBudget(0.0))
    assert first.hands_solved == MIN_HANDS
    second = refinement.refine(TimeBudget(0.0))
    assert second.hands_solved is not None and second.hands_solved > MIN_HANDS


def test_ctrl_c_keeps_the_answer_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    real = HandRows.solve
    calls = []

    def interrupted_later(self: HandRows, indices: Any, *args: Any, **kwargs: Any) -> HandsSolved:
        calls.append(indices)
        if len(calls) == 1:
            return real(self, indices[:MIN_HANDS], None)
        return HandsSolved({}, True)

    monkeypatch.setattr(HandRows, "solve", interrupted_later)
    refinement = Refinement(question("8 5", "+1 -2", "10", 4), options("kotor1-starter"))
    advice = refinement.refine(TimeBudget(60.0))
    assert refinement.interrupted
    assert advice.exactness == "sampled" and advice.hands_solved == MIN_HANDS
    note = budgeted.refinement_note(refinement, False, "type hint")
    assert note is not None and note.startswith("Stopped: the answer so far")


# The interval's coverage, measured on real positions -------------------------------------------


def _populations() -> list[tuple[list[int], dict[int, Any]]]:
    """Every hand's exact rows of a few dozen small positions (hidden hands of two and three
    cards of four kotor1 decks, infinite deck): the populations the samples are drawn from."""
    found = []
    for deck in ("kotor1-average", "kotor1-starter", "kotor1-strongest", "kotor1-plusminus-small"):
        for table, opp in (("10 4", "10 5"), ("8 7", "7 6"), ("6 6 2", "10 8")):
            for hand, hidden in (("+2 -3", 2), ("±1 +4", 3)):
                refinement = Refinement(question(table, hand, opp, hidden), options(deck))
                refinement.refine(TimeBudget())
                weights = [ways for _, ways in refinement.hands]
                found.append((weights, refinement.rows))
    return found


def test_the_interval_covers_the_exact_value_at_about_its_rate() -> None:
    """On these positions, 40 seeds and 3, 6 and 12 hands, the 95 % interval held the exact
    value 93 to 94 % of the time when this test was written (docs/advise.md); below 90 % would
    be a fault. A move called best with confidence is the exact best."""
    covered = total = confident = wrong = 0
    for weights, rows in _populations():
        whole = sum(weights)
        exact = [
            sum(w * rows[i][move][0] for i, w in enumerate(weights)) / whole
            for move in range(len(rows[0]))
        ]
        for hands in (3, 6, 12):
            if hands >= len(weights):
                continue
            for seed in range(40):
                draws = HandDraws(weights, str(seed))
                draws.distinct(hands)
                found = estimate(rows, draws.usable_draws(hands))
                for move in found.moves:
                    total += 1
                    covered += abs(exact[move.place] - move.means[0]) <= move.margin + 1e-12
                if found.gap - found.gap_margin > 0:
                    confident += 1
                    best = found.moves[0].place
                    wrong += exact[best] < max(exact) - 1e-12
    assert total > 10_000
    assert covered / total >= 0.90, covered / total
    assert confident > 100
    assert wrong / confident <= 0.05, (wrong, confident)


# Choosing the objective ------------------------------------------------------------------------


def test_the_match_answer_when_a_sample_fits_the_budget_else_the_set_with_why() -> None:
    asked = question("10 3", "+2", "9 4", 1)
    assert budgeted_objective(replay(asked, "kotor1-average"), 30.0) == ("match", None)
    large = question("6", "+1 -2 ±3 +4", "", 4, rules="kotor2")
    objective, note = budgeted_objective(replay(large, "kotor2-average"), 2.0)
    assert objective == "set"
    assert note is not None and "beyond the 2 s budget" in note


def test_past_the_budget_the_note_names_the_preparation_that_leaves_only_the_set() -> None:
    """Where the match answer does not fit, the note names the command that solves its later
    sets ahead (against a rule too, `prepare --opponent kotor`, where its match answer is in
    reach at all: this kotor2 one is not); not where flip cards or Doubles are about, whose
    later sets take far longer than minutes (kotor2-average holds Doubles)."""
    plain = question("6", "+1 -2 ±3 +4", "", 4, rules="kotor1")
    hint = "pazaak prepare --deck YOUR-DECK --opp-deck kotor1-average"
    asks = budgeted.ADVISE_ASKS._replace(prepare=hint)
    objective, note = budgeted_objective(
        dataclasses.replace(replay(plain, "kotor1-average"), asks=asks), 2.0
    )
    assert objective == "set" and note is not None
    assert note.endswith(
        f"`{hint}` solves the later sets of your deck against this one ahead, "
        "once (minutes); the match answer then has only this set left to solve."
    )
    large = question("6", "+1 -2 ±3 +4", "", 4, rules="kotor2")
    hint = "pazaak prepare -r kotor2 --deck YOUR-DECK --opp-deck kotor2-average"
    asked = dataclasses.replace(replay(large, "kotor2-average"), asks=asks._replace(prepare=hint))
    objective, note = budgeted_objective(asked, 2.0)
    assert objective == "set" and note is not None and "prepare" not in note
    _, unasked = budgeted_objective(replay(large, "kotor2-average"), 2.0)
    assert unasked is not None and "prepare" not in unasked
    _, rule = budgeted_objective(dataclasses.replace(asked, model=KOTOR), 2.0)
    assert "too large" in (rule or "") and "prepare" not in (rule or "")  # (out of reach)


def test_the_preparation_named_is_a_command_that_prepare_reads(tmp_path: Path) -> None:
    kotor1, kotor2 = parse_ruleset("kotor1"), parse_ruleset("kotor2")
    assert (
        prepare_line(kotor1, deck_word(sample_deck("kotor1-average")), 0, "optimal")
        == "pazaak prepare --deck YOUR-DECK --opp-deck kotor1-average"
    )
    mine = tmp_path / "my deck.txt"
    mine.write_text("±1 ±2 +3 +4 +5 +6 ±5 -6 ±4 D\n", encoding="utf-8")
    hint = prepare_line(kotor2, deck_word(load_deck(str(mine), kotor2)), 1, "kotor")
    assert hint == (
        f"pazaak prepare -r kotor2 --deck YOUR-DECK --opp-deck '{mine}' --player 2 --opponent kotor"
    )
    assert prepare_line(kotor1, "kotor1-average", 0, "kotor", "kotor1-starter") == (
        "pazaak prepare --deck kotor1-starter --opp-deck kotor1-average --opponent kotor"
    )
    words = shlex.split(hint.replace("YOUR-DECK", "kotor2-average"))
    assert words[:2] == ["pazaak", "prepare"]
    with prepare_command.make_context("prepare", words[2:]) as context:  # (read, not run)
        params = context.params
    assert params["ruleset"] == kotor2 and params["player"] == "2"
    assert params["opponent"] == "kotor"
    assert params["opp_deck"].load(kotor2).cards == load_deck(str(mine), kotor2).cards


# The commands ---------------------------------------------------------------------------------


def advise(*args: str) -> Any:
    return CliRunner().invoke(main, ["advise", *args], env={"NO_COLOR": "1"})


HIDDEN = ["--table", "8 5", "--hand", "+1 -2 ±3", "--opp-table", "10", "--opp-hand-size", "4"]
HIDDEN += ["--opp-deck", "kotor1-starter", "--objective", "set", "--main-deck", "infinite"]


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "1e9", "abc", "", "٣"])
def test_a_bad_budget_is_one_line_and_exit_2(bad: str) -> None:
    result = advise(*HIDDEN, "--time", bad)
    assert result.exit_code == 2
    assert "is not a number of seconds from 0 to 86400" in result.output
    assert "Traceback" not in result.output


def test_exact_and_hands_take_no_budget() -> None:
    result = advise(*HIDDEN, "--exact", "--time", "2")
    assert result.exit_code == 2
    assert "--exact answers however long it takes: drop --time" in result.output
    assert advise(*HIDDEN, "--hands", "1").exit_code == 2  # (a spread needs two)
    both = advise(*HIDDEN, "--hands", "4", "--time", "0")
    assert both.exit_code == 2 and "give either --hands" in both.output


def test_a_sampled_answer_in_json_and_its_replay() -> None:
    runs = [advise(*HIDDEN, "--hands", "5", "--seed", "3", "--json") for _ in range(2)]
    assert all(run.exit_code == 0 for run in runs), runs[0].output
    assert runs[0].output == runs[1].output
    document = json.loads(runs[0].output)
    assert document["exactness"] == "sampled"
    assert (document["hands_solved"], document["hands_possible"]) == (5, 45)
    assert document["seed"] == 3 and document["draws"] >= 5  # (a number, as simulate shows its)
    assert 0.0 <= document["confidence"] <= 1.0
    for move in document["moves"]:
        low, high = move["interval"]
        assert low <= move["equity"] <= high


def test_time_zero_and_a_script_get_the_exact_answer() -> None:
    piped = json.loads(advise(*HIDDEN, "--json").output)
    zero = json.loads(advise(*HIDDEN, "--time", "0", "--json").output)
    assert piped == zero
    assert piped["exactness"] == "exact" and piped["hands_solved"] == 45
    assert all(move["interval"] is None for move in piped["moves"])


def test_the_sampled_table_shows_the_interval_and_the_verdict() -> None:
    result = advise(*HIDDEN, "--hands", "6")
    assert result.exit_code == 0, result.output
    assert "sampled: 6 of its 45 possible hands solved" in " ".join(result.output.split())
    header = next(line for line in result.output.splitlines() if "win-loss" in line)
    assert header.split()[-1] == "±"
    last = result.output.strip().splitlines()[-1]
    assert "confidence" in last or last.startswith("Too close to call")


def test_an_answer_from_hands_asked_for_says_more_hands_not_more_time() -> None:
    """It said "--time for more time" to a command with --hands, which refuses --time."""
    result = advise(*HIDDEN, "--hands", "2")
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.endswith(
        "too few hands to say how sure (--hands 4 for more hands, --time 0 instead of --hands "
        "for all)."
    )
    assert advise(*HIDDEN, "--hands", "4").exit_code == 0  # (what it names runs)


def test_follow_refines_the_advice_each_time_hint_is_asked(tmp_path: Path) -> None:
    (tmp_path / "pm.deck").write_text(
        "name: pm2-plus3\nruleset: kotor1\n±2 ±2 ±2 ±2 ±2 +3 +3 +3 +3 +3\n", encoding="utf-8"
    )
    args = ["follow", "--hand", "+1 -2 ±3 +4", "--opp-deck", str(tmp_path / "pm.deck")]
    args += ["--opponent", "optimal", "--time", "0.001", "--save", str(tmp_path / "f.json")]
    result = CliRunner().invoke(
        main, args, input="8\nhint\nhint\nhint\nhint\nquit\n", env={"NO_COLOR": "1"}
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith(("Sampled", "Exact"))]
    assert said == [
        "Sampled from 2 of 5 possible hands; type hint to refine it.",
        "Sampled from 3 of 5 possible hands; type hint to refine it.",
        "Sampled from 4 of 5 possible hands; type hint to refine it.",
        "Exact now: every possible hand is solved.",
    ]


def test_play_refines_the_hint_when_asked_again(tmp_path: Path) -> None:
    args = ["play", "--deck", "kotor1-starter", "--opponent", "heuristic", "--seed", "22"]
    args += ["--time", "0.001", "--save", str(tmp_path / "m.json")]
    result = CliRunner().invoke(main, args, input="h\nh\nq\n", env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith("Sampled from")]
    assert said[0].startswith("Sampled from 2 of ")
    assert said[1].startswith("Sampled from 3 of ")
    assert math.isfinite(float(said[1].split()[4]))  # (how many possible hands)


def test_a_round_run_to_its_deadline_first_makes_room_in_the_memo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before a set answer's round that runs to its deadline, the memo is sized for the
    positions the round is foreseen to add (ROOM_SHARE of the rate the round before measured,
    times the time left), not doubled on the way (a doubling no deadline can cut had ended the
    2 s answer about `kotor2-average` at 2.5 to 2.7 s); the least sample, with no rate yet,
    asks none. Against an optimal opponent the room is the set solver's memo."""
    asked = question("6", "+1 -2 +3", "", 3, rules="kotor1")
    refined = Refinement(asked, options("kotor1-average"))
    rows = refined._hand_solver()
    assert rows._reserve == rows.solver.reserve  # type: ignore[attr-defined]
    rows.processes = 2
    monkeypatch.setattr(budgeted, "_exact_fits", lambda *asked: False)  # (a probe, then rounds)
    asked_room: list[tuple[int, int]] = []
    solve = rows.solve

    def solve_here(indices: Any, until: Any, solved: Any = None, **how: Any) -> HandsSolved:
        return solve(indices, until, solved, processes=1)  # (no fork in the tests)

    monkeypatch.setattr(rows, "solve", solve_here)
    monkeypatch.setattr(
        rows, "make_room", lambda positions: asked_room.append((positions, rows.states))
    )
    refined.refine(TimeBudget(30.0))
    assert asked_room, "the probe after the least sample runs to its deadline"
    assert all(positions > held for positions, held in asked_room)


@pytest.mark.skipif(not fork_available(), reason="no fork on this system")
def test_the_progress_counts_the_hands_every_process_solves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hands solved so far, told to a progress line, count the forked copy's too, as it
    solves them (a terminal showed 3 of 113 hands where the answer rested on 76): every count
    told, up to all of them."""
    monkeypatch.setenv(SOLVER_PROCESSES_VARIABLE, "2")
    asked = question("6", "+1 -2 +3", "", 4, rules="kotor1")
    refined = Refinement(asked, options("kotor1-average"))
    told: list[int] = []
    advice = refined.refine(TimeBudget(60.0), progress=lambda solved, _, __: told.append(solved))
    assert refined._hand_solver().processes == 2
    assert advice.hands_solved == advice.hands_averaged == 61
    assert told == sorted(told) and told[-1] == 61
    assert len(set(told)) > 30  # (not only this process's hands: the copy's as they came)


def test_the_progress_of_hands_asked_for_counts_out_of_them() -> None:
    """With --hands 2 the line showed "1/45 hidden hands, about 4 min left" for an answer that
    was done at the second hand: the hands counted are out of those asked for."""
    refined = Refinement(question("8 5", "+1 -2", "10", 4), options("kotor1-starter"))
    told: list[tuple[int, int]] = []
    advice = refined.refine(hands=3, progress=lambda done, total, _: told.append((done, total)))
    assert advice.hands_solved == 3 and advice.hands_averaged == 45
    assert told and {total for _, total in told} == {3} and told[-1][0] == 3


@pytest.mark.parametrize("opponent", ["optimal", "kotor"])
def test_a_budget_of_a_few_seconds_searches_in_small_pages_a_longer_one_in_huge_pages(
    opponent: str,
) -> None:
    """A refinement tells the set answer's memo, at each call, whether its search is short (a
    budget of at most SHORT_SEARCH_SECONDS: its tables in small pages made at once) or long (a
    longer budget, or none: in huge pages); the same sample either way."""
    asked = question("6", "+1 -2 +3", "", 3, rules="kotor1")
    refined = Refinement(asked, options("kotor1-average", opponent=opponent))
    rows = refined._hand_solver()
    told: list[bool] = []
    rows._short = told.append
    first = refined.refine(TimeBudget(budgeted.SHORT_SEARCH_SECONDS), hands=3)
    refined.refine(TimeBudget(budgeted.SHORT_SEARCH_SECONDS + 1.0), hands=4)
    refined.refine(None, hands=5)
    assert told == [True, False, False]
    again = Refinement(asked, options("kotor1-average", opponent=opponent))
    assert again.refine(None, hands=3).results == first.results
    solver = again._hand_solver().solver
    if solver._core is not None:  # type: ignore[attr-defined]
        solver.short_searches(True)  # type: ignore[attr-defined]
        assert solver._core.small_pages  # type: ignore[attr-defined]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the launch time is Linux's")
def test_a_commands_budget_counts_from_its_process_launch() -> None:
    """The person waits from the launch: in a process the program marked as launched for the
    command, its clock starts at the launch (Python's start and the imports counted: 0.22 s of
    a `--time 3` answer were not); a command called in-process (here, by the tests) starts its
    clock at the call."""
    probe = "import time; from pazaak_cli.solve import time_budget as t; t.mark_launched(); "
    probe += "print(time.monotonic() - t.command_started())"
    fresh = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert fresh.returncode == 0, fresh.stderr
    assert 0.0 < float(fresh.stdout) <= time_budget.LAUNCH_SECONDS_AT_MOST
    assert time.monotonic() - time_budget.command_started() < 0.05


def test_a_hand_foreseen_to_end_past_the_deadline_is_not_begun() -> None:
    """A search cannot be cut short: with less time left than the last hand took, the next is
    not begun (the 2 s answer about kotor2-hard ended past 2.5 s on one begun anyway)."""

    def slow_row(index: int) -> MoveRow:
        time.sleep(0.3)
        return ((float(index), 0.0, 0.0, 0.0),)

    started = time.monotonic()
    done = rows_in_order(range(5), started + 0.45, slow_row)
    assert list(done.rows) == [0]  # (the second would have ended at 0.6 s)
    assert time.monotonic() - started < 0.45
    assert list(rows_in_order(range(5), time.monotonic() + 0.75, slow_row).rows) == [0, 1]


def test_a_batch_that_made_its_later_sets_past_the_deadline_keeps_all_its_rows() -> None:
    """A match answer's batch makes its hands' later sets first (no deadline cuts that); a
    deadline that passed meanwhile is put off by a quarter of what they took, so that rows
    that cost a small part of it are kept (a `--time 15` answer had kept 2 of the 9 hands its
    27 s had paid for), and rows that cost more (they make their own later sets) are still cut.
    A deadline still ahead when the batch has made them cuts the rows as before."""

    class About:
        model = "test"
        fixed_probabilities = True

        @property
        def moves(self) -> list[Any]:
            return []

    class Counted:
        states = 0

    def row(index: int) -> MoveRow:
        time.sleep(0.02)
        return ((float(index), 0.0, 0.0, 0.0),)

    def batch_taking(seconds: float) -> Any:
        def batch(
            indices: Sequence[int], solve: Callable[[Sequence[int]], HandsSolved]
        ) -> HandsSolved:
            time.sleep(seconds)  # (the later sets)
            return solve(indices)

        return batch

    late = HandRows(Counted(), row, About(), batch=batch_taking(1.6))
    assert list(late.solve(range(6), time.monotonic() + 0.1).rows) == list(range(6))
    dear = HandRows(Counted(), row, About(), batch=batch_taking(0.3))  # (0.075 s for rows)
    kept = list(dear.solve(range(6), time.monotonic() + 0.1).rows)
    assert kept == list(range(len(kept))) and 1 <= len(kept) < 6
    on_time = HandRows(Counted(), row, About(), batch=batch_taking(0.0))
    kept = list(on_time.solve(range(6), time.monotonic() + 0.05).rows)
    assert kept == list(range(len(kept))) and 1 <= len(kept) < 6
    alone = HandRows(Counted(), row, About())  # (no batch: a deadline passed cuts as before)
    assert list(alone.solve(range(6), time.monotonic() - 1.0).rows) == [0]


def test_past_the_least_sample_no_match_hand_is_begun_that_is_not_foreseen_to_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The match answer's batches are chosen by the foresight: once the least sample is in, a
    hand foreseen not to fit the time left is not begun (the 2 s answer about 3 hidden cards
    against the rule began a third and ended at 2.4 to 2.6 s); before it, the least sample is
    solved whatever the foresight says."""
    monkeypatch.setattr(budgeted, "match_seconds", lambda *asked: 60.0)
    asked = question("10 3", "+2", "9 4", 1, rules=f"{INFINITE},sets-to-win=2", sets=(1, 0))
    refined = Refinement(asked, options("kotor1-average", "match", "kotor"))
    done = refined.refine(TimeBudget(2.0))
    assert done.hands_solved == MIN_HANDS < done.hands_averaged
    assert refined.seconds is not None and refined.seconds < 2.0


@dataclasses.dataclass(frozen=True)
class _Ending(TimeBudget):
    """A budget that is late once ``ended`` holds anything."""

    ended: list[Any] = dataclasses.field(default_factory=list)

    def late(self) -> bool:
        return bool(self.ended)


def test_an_exact_try_cut_by_its_deadline_keeps_the_draws_it_solved_as_a_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the rest of a set answer's hands are foreseen to fit, they are solved in runs as
    the exact average solves them, each run in the draws' order: cut by the deadline, the
    hands solved are the first draws, a sample (`--time 5` about 4 hidden cards of
    `kotor2-average` had kept 3 of the 152 hands its sorted runs solved)."""
    asked = question("6", "+1 -2 +3", "", 3, rules="kotor1")
    refined = Refinement(asked, options("kotor1-average"))
    solver = refined._hand_solver()
    solver.processes = 2  # (the exact try is the path of two processes)
    monkeypatch.setattr(budgeted, "_exact_fits", lambda *asked: True)
    solve = solver.solve
    tried: list[list[int]] = []

    def cut(indices: Any, until: Any, solved: Any = None, **how: Any) -> HandsSolved:
        if not how.get("contiguous"):  # (the least sample, in this process)
            return solve(indices, None, solved, processes=1)
        tried.append(list(indices))
        return solve(list(indices)[:10], None, solved, processes=1)  # (then the deadline)

    monkeypatch.setattr(solver, "solve", cut)
    done = refined.refine(_Ending(60.0, ended=tried))  # (late once the try is begun)
    order = refined.draws.distinct(refined.possible)
    assert tried == [[hand for hand in order if hand not in order[:MIN_HANDS]]]
    assert done.exactness == "sampled"
    assert done.hands_solved == MIN_HANDS + 10 == refined.solved_prefix()


def test_the_match_foresight_against_a_rule_counts_only_the_pairs_not_solved_yet() -> None:
    """Against a rule a hand's later sets solved for one answer serve the next: the foresight
    of more hands counts only their sub-hand pairs the hands solved before did not bring."""
    from pazaak_cli.solve.match_advice import match_pairs, match_seconds

    asked = question("6", "+1 -2 +3", "", 3, rules="kotor1")
    rule = options("kotor1-average", "match", "kotor")
    first, second = (tuple(parse_cards("+1 -2 +3")), 1), (tuple(parse_cards("+1 -2 +4")), 1)
    mine = tuple(parse_cards("+1 -2 +3"))
    alone = match_seconds(asked, rule, [second])
    after = match_seconds(asked, rule, [second], [first])
    new = match_pairs(mine, [first, second], ordered=True) - match_pairs(
        mine, [first], ordered=True
    )
    assert 0 < after < alone
    assert after / alone == pytest.approx(new / match_pairs(mine, [second], ordered=True))


def test_the_match_foresight_counts_the_known_pairs_a_batch_searches_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against an optimal opponent a batch of hands some of whose match states are known
    searches the positions of those pairs again (their tables were freed): its foresight counts
    them at KNOWN_PAIR_SECONDS beside its new pairs; a batch all new, or all known, has none
    (the sample of `--time 30` had overrun its budget by 7 s without them, and by 2.9 s with
    them counted at the rate of the pairs the blocks make again)."""
    from pazaak_cli.solve.match_advice import (
        KNOWN_PAIR_SECONDS,
        MATCH_PAIR_SECONDS,
        REBUILT_PAIR_SECONDS,
    )

    assert KNOWN_PAIR_SECONDS > REBUILT_PAIR_SECONDS  # (they search whole sets, not just rows)

    asked = question("6", "+1 -2 +3", "", 3, rules="kotor1")
    optimal = options("kotor1-average", "match", "optimal")
    hands = [(tuple(parse_cards("+1 -2 +4")), 1), (tuple(parse_cards("+1 +3 -2")), 1)]
    pairs = match_advice.match_pairs(tuple(parse_cards("+1 -2 +3")), hands)
    seen = {}
    for left in (pairs, pairs // 4, 0):
        monkeypatch.setattr(match_advice, "_pairs_left", lambda *args, left=left: left)
        seen[left] = match_advice.match_seconds(asked, optimal, hands)
    in_progress = seen[0]  # (nothing left: only the sets in progress)
    assert seen[pairs] == pytest.approx(in_progress + pairs * MATCH_PAIR_SECONDS)
    assert seen[pairs // 4] == pytest.approx(
        in_progress + pairs // 4 * MATCH_PAIR_SECONDS + (pairs - pairs // 4) * KNOWN_PAIR_SECONDS
    )


def test_the_match_foresight_counts_the_rows_the_blocks_make_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a score's blocks free rows early and make them again, the pairs made again count
    at REBUILT_PAIR_SECONDS beside the new ones (`kotor1-strong`'s 113 hands: 1.6 times the
    score's tables, 71 s where the new pairs alone foresaw 57 s)."""
    from pazaak_cli.solve.match_advice import MATCH_PAIR_SECONDS, REBUILT_PAIR_SECONDS

    asked = question("6", "+1 -2 +3", "", 3, rules="kotor1")
    optimal = options("kotor1-average", "match", "optimal")
    hands = [(tuple(parse_cards("+1 -2 +4")), 1), (tuple(parse_cards("+1 +3 -2")), 1)]
    pairs = match_advice.match_pairs(tuple(parse_cards("+1 -2 +3")), hands)
    seen = {}
    for left in (pairs, 0):
        monkeypatch.setattr(match_advice, "_pairs_left", lambda *args, left=left: left)
        seen[left] = match_advice.match_seconds(asked, optimal, hands)
    assert seen[pairs] == pytest.approx(seen[0] + pairs * MATCH_PAIR_SECONDS)  # (all fit)
    monkeypatch.setattr(NativeMatchSolver, "blocks_rework", lambda *args: 1.5)
    monkeypatch.setattr(match_advice, "_pairs_left", lambda *args: pairs)
    reworked = match_advice.match_seconds(asked, optimal, hands)
    assert reworked == pytest.approx(
        seen[0] + pairs * MATCH_PAIR_SECONDS + pairs * 0.5 * REBUILT_PAIR_SECONDS
    )


def test_a_match_answer_whose_rest_is_foreseen_to_fit_is_solved_as_the_exact_average(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the match answer's remaining hands are all foreseen to fit the time left, they are
    solved in runs of neighbouring hands, as the exact average solves them (dealt one at a time
    in the draws' order they shared less: a prepared deck pair's first move got 18 of 61
    hands within 2 s, now all of them); the answer is the exact one."""

    monkeypatch.setattr(budgeted, "match_seconds", lambda *asked: 0.0)
    clear_shared_solvers()
    calls: list[tuple[list[int], bool]] = []
    original = HandRows.solve

    def spy(self: HandRows, indices: Any, *args: Any, **kwargs: Any) -> HandsSolved:
        calls.append((list(indices), kwargs.get("contiguous", False)))
        return original(self, indices, *args, **kwargs)

    monkeypatch.setattr(HandRows, "solve", spy)
    asked = question("10 3", "+2", "9 4", 2, rules=f"{INFINITE},sets-to-win=2", sets=(1, 0))
    asking = options("kotor1-average", "match")
    refined = Refinement(asked, asking)
    done = refined.refine(TimeBudget(60.0))
    assert done.hands_solved == done.hands_averaged == refined.possible > MIN_HANDS
    assert len(calls) == 1 and calls[0][1]  # (every hand at once, in runs)
    assert sorted(calls[0][0]) == list(range(refined.possible))
    exact = solve_question(asked, asking)
    assert [r.match_win for r in done.results] == [r.match_win for r in exact.results]


def test_a_match_answers_later_sets_are_prepared_in_the_hands_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sample asks for its hands in the order they were drawn; their later sets are prepared
    in the hands' own order, whose runs of neighbours share the most sub-hands (in the draws'
    order the generous budget's exact answer did 1.45 times the work: 85 s against 61 s)."""
    clear_shared_solvers()
    asked = question("10 3", "+2", "9 4", 2, rules=f"{INFINITE},sets-to-win=2", sets=(1, 0))
    hands = MatchHands(asked, options("kotor1-average", "match"))
    prepared: list[list[Any]] = []
    monkeypatch.setattr(
        match_advice, "prepare_runs", lambda *args, **kwargs: prepared.append(list(args[4]))
    )
    every = list(range(len(hands.other_hands)))
    hands.prepare(every[::-1])
    assert prepared == [[hands.other_hands[index][0] for index in every]]


def test_a_match_answers_rows_go_to_two_processes_only_once_their_later_sets_are_known() -> None:
    """A row only reads values once every later set of its hand is known: then two processes
    may share the rows (the same bits in either); before, one (a row solves what it lacks)."""
    clear_shared_solvers()
    asked = question("10 3", "+2", "9 4", 2, rules=f"{INFINITE},sets-to-win=2", sets=(1, 0))
    hands = MatchHands(asked, options("kotor1-average", "match"))
    every = range(len(hands.other_hands))
    assert hands.processes_for(every) == 1
    hands.prepare(every)
    assert hands.processes_for(every) == hand_processes(hands.other_hands)


def test_runs_of_neighbouring_hands_keep_the_order_they_are_given_in() -> None:
    """Each process's run is a block of neighbouring hands (they share the most), taken in the
    order given: a sample's draws, so that a run cut short by the deadline has solved its first
    draws (a machine slower than foreseen then gives a sample, not a scattering of hands)."""

    def solve(share: Any) -> HandsSolved:  # (each row says where its run began, and its place)
        run = list(share)
        return HandsSolved(
            {index: ((float(run[0]), float(at), 0.0, 0.0),) for at, index in enumerate(run)}, False
        )

    drawn = [7, 2, 9, 0, 5, 3, 8, 1, 6, 4]
    for processes, runs in [(1, [drawn]), (3, [[2, 0, 3, 1], [7, 5, 6, 4], [9, 8]])]:
        done = solve_dealt(drawn, solve, solve, processes, contiguous=True)
        assert sorted(done.rows) == list(range(10))
        for run in runs:
            assert [done.rows[index][0][:2] for index in run] == [
                (float(run[0]), float(at)) for at in range(len(run))
            ]


@pytest.mark.parametrize("budget", [["--time", "5"], []])
def test_a_chosen_match_answer_too_large_for_its_memory_gives_the_sets(
    monkeypatch: pytest.MonkeyPatch, budget: list[str]
) -> None:
    """Where the service chose the match (foreseen to fit the budget, or quick) and its tables
    then pass their bound, the set's answer is given with the reason, not the refusal (a larger
    budget had turned an answer into an error); asked for by name, the match still refuses."""
    import pazaak_cli.solve.match_native as match_native

    monkeypatch.setattr(match_native, "DENSE_LIMIT_BYTES", 1)
    clear_shared_solvers()
    position = ["--main-deck", "infinite", "--table", "10 9", "--hand", "+1"]
    position += ["--opp-table", "10 8", "--opp-hand", "-1"]
    env = {"NO_COLOR": "1", "PAZAAK_CACHE_DIR": "off", "COLUMNS": "120"}
    result = CliRunner().invoke(main, ["advise", *position, *budget], env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].startswith("Best for this set only")
    assert lines[2].startswith("The match answer for these hands needs about")
    assert lines[2].endswith(
        "more than its bound of 0.0 GB (the set answer needs far less): "
        "the best move for this set only instead."
    )
    assert "play +1, automatic stand at 20    78.00" in result.output
    asked = CliRunner().invoke(
        main, ["advise", *position, *budget, "--objective", "match"], env=env
    )
    assert asked.exit_code == 1 and "more than its bound" in asked.output
    clear_shared_solvers()


def test_a_sampled_match_answer_the_budget_chose_says_how_to_ask_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The budget chose the match; `--hands N --seed S` alone, asked without a budget, gets the
    set's answer (a new user replayed it and got other numbers): the note names --objective
    match, as the verdict's "--time 0 for all" does; the JSON carries the notes, and no
    confidence from fewer hands than the verdict states one from."""

    def least_sample_fits(question: Any, options: Any, hands: Any, *solved: Any) -> float:
        return 0.0 if len(hands) <= MIN_HANDS else math.inf  # (a batch of the least sample)

    monkeypatch.setattr(budgeted, "match_seconds", least_sample_fits)
    monkeypatch.setattr("pazaak_cli.solve.answers.match_seconds", lambda *asked: 0.0)
    clear_shared_solvers()
    args = ["advise", "--ruleset", f"{INFINITE},sets-to-win=2", "--sets", "1-0", "--table", "10 3"]
    args += ["--hand", "+2", "--opp-table", "9 4", "--opp-hand-size", "2"]
    args += ["--opp-deck", "kotor1-average", "--time", "0.01"]
    env = {"NO_COLOR": "1", "PAZAAK_CACHE_DIR": "off", "COLUMNS": "200"}
    shown = CliRunner().invoke(main, args, env=env)
    assert shown.exit_code == 0, shown.output
    assert "Best for the whole match" in shown.output
    again = "--hands 2 --seed 0 --objective match gives this answer again"
    assert again in shown.output
    assert "(--time for more time, --objective match --time 0 for all)" in shown.output
    data = json.loads(CliRunner().invoke(main, [*args, "--json"], env=env).stdout)
    assert data["hands_solved"] == 2 and data["confidence"] is None
    assert any(again in note for note in data["notes"])
    replay = [*args[:-2], "--hands", "2", "--seed", "0", "--objective", "match", "--json"]
    replayed = json.loads(CliRunner().invoke(main, replay, env=env).stdout)
    assert replayed["moves"] == data["moves"]
    clear_shared_solvers()


def test_the_gold_foresight_counts_each_flip_or_double_a_pair_holds() -> None:
    """A pair of sub-hands costs GOLD_CARD_FACTOR times more for each flip card or Double its
    two sub-hands hold; the kotor2 hand measured at 377 to 782 s in one process (foreseen at
    31 s by a flat weight, and a `--time 5` answer ran for 15 minutes) is foreseen at minutes."""
    from pazaak_cli.solve.match_advice import GOLD_CARD_FACTOR, gold_pairs

    factor = GOLD_CARD_FACTOR
    mine = parse_cards("F2/4")
    theirs = [(tuple(parse_cards("F3/6 +1")), 1), (tuple(parse_cards("+1 +2")), 1)]
    # (mine: {}, {F2/4}; theirs: {}, {F3/6}, {+1}, {F3/6 +1}, {+2}, {+1 +2})
    assert gold_pairs(mine, theirs) == pytest.approx((1 + factor) * (4 + 2 * factor))
    asked = question("1", "±6 D F3/6 T", "", 4, rules="kotor2")
    hand = [(tuple(parse_cards("F2/4 F2/4 T ±1/2")), 1)]
    foreseen = match_advice.match_seconds(asked, options("kotor2-hard", "match"), hand)
    assert 150.0 < foreseen < 800.0
    # the set's answer within 60 s, and no `pazaak prepare` offered "for minutes"
    request = AnswerRequest(asked, opponent_deck=sample_deck("kotor2-hard").cards)
    objective, why = budgeted_objective(request, 60.0)
    assert objective == Objective.SET and why is not None
    assert why.startswith("The match answer would take about") and "prepare" not in why


def test_a_chosen_match_answer_past_its_budget_gives_the_sets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the service chose the match within a budget and its least sample runs past the
    deadline by more than the overrun allowed (its foresight wrong), the match is given up for
    the set's answer, with why: a player who asked for seconds is not kept waiting minutes; the
    batch given up teaches the foresight's pace what it ran past its foresight."""
    from pazaak_cli.solve import answers

    monkeypatch.setattr(answers, "match_seconds", lambda *asked: 0.0)  # (foreseen to fit)
    monkeypatch.setattr(budgeted, "match_seconds", lambda *asked: 0.01)
    taught: list[tuple[float, float]] = []

    def teach(question: Any, options: Any, hands: Any, foreseen: float, took: float) -> None:
        taught.append((foreseen, took))

    monkeypatch.setattr(budgeted, "teach_match_pace", teach)
    monkeypatch.setattr(answers, "OVERRUN_SHARE", 0.0)
    monkeypatch.setattr(answers, "OVERRUN_SECONDS", 0.05)
    clear_shared_solvers()
    args = ["advise", "--ruleset", INFINITE, "--table", "6", "--hand", "+1 +2 +3 +4"]
    args += ["--opp-hand-size", "4", "--opp-deck", "kotor1-average", "--time", "0.01"]
    env = {"NO_COLOR": "1", "PAZAAK_CACHE_DIR": "off", "COLUMNS": "200"}
    began = time.monotonic()
    shown = CliRunner().invoke(main, args, env=env)
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[1].startswith("Best for this set only")
    assert lines[2].startswith(
        "The match answer was foreseen to fit the 0.01 s budget but had no sample after"
    )
    assert time.monotonic() - began < 4.0  # (the match's least sample alone: 7.3 s here)
    # the batch given up teaches the pace that it took at least as long as it ran
    assert len(taught) == 1 and taught[0][0] == 0.01 and taught[0][1] > 0.05
    clear_shared_solvers()


def test_a_tiny_budget_is_written_as_typed_in_the_overrun_note() -> None:
    """`--time 1e-9` was said as "over the 1e-09 s budget"."""
    args = ["advise", "--table", "5", "--hand", "+1 +2", "--opp-hand-size", "4"]
    env = {"NO_COLOR": "1", "PAZAAK_CACHE_DIR": "off", "COLUMNS": "200"}
    shown = CliRunner().invoke(main, [*args, "--time", "1e-9"], env=env)
    assert shown.exit_code == 0, shown.output
    assert "over the 0.000000001 s budget" in shown.output
