"""The match-state values on disk (pazaak_cli.solve.match_cache): a later process finds them, and no
file it meets, however broken, changes an answer or fails a command."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from match_reference import TINY, decision

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import kotor_rule
from pazaak_cli.solve import match_cache
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.match_advice import (
    clear_shared_solvers,
    shared_match_solver,
    solve_match_question,
)
from pazaak_cli.solve.match_kotor import KotorMatchSolver
from pazaak_cli.solve.match_solver import MatchSolver

SPEC = parse_ruleset(f"kotor1/{TINY}").spec  # (the ruleset's own spelling, as the file has it)
OPTIONS = SolveOptions(objective="match")


def question() -> Question:
    return question_from_state(decision(SPEC, ("+1 -1", "-2 +1"), (), 0, (2,)))


def answer() -> list[float]:
    return [r.match_win or 0.0 for r in solve_match_question(question(), OPTIONS).results]


@pytest.fixture(autouse=True)
def fresh_process() -> None:
    """Each test starts as a new process would: no solver kept from another test."""
    clear_shared_solvers()


def the_file() -> Path:
    path = match_cache.cache_path(parse_ruleset(SPEC))
    assert path is not None
    return path


def test_a_later_process_finds_the_match_states_solved() -> None:
    first = answer()
    document = json.loads(the_file().read_text(encoding="utf-8"))
    assert document["format"] == "pazaak-match-cache" and document["ruleset"] == SPEC
    assert document["entries"]
    clear_shared_solvers()  # (a new process)
    solver = shared_match_solver(parse_ruleset(SPEC))
    assert solver.entry_count == len(document["entries"])
    assert answer() == pytest.approx(first, abs=1e-12)
    assert solver.fixed_point_solves == 0  # (nothing solved again)
    fresh = solve_match_question(question(), OPTIONS, solver=MatchSolver(parse_ruleset(SPEC)))
    assert [r.match_win for r in fresh.results] == pytest.approx(first, abs=1e-12)


def test_an_answer_stopped_by_ctrl_c_keeps_what_it_solved() -> None:
    """The later sets solved before a Ctrl-C are saved: the next question goes on from them."""

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt  # (told after the first hand's row: its later sets are solved)

    with pytest.raises(KeyboardInterrupt):
        solve_match_question(question(), SolveOptions(objective="match", progress=stop))
    assert json.loads(the_file().read_text(encoding="utf-8"))["entries"]
    clear_shared_solvers()  # (a new process)
    solver = shared_match_solver(parse_ruleset(SPEC))
    answer()
    assert solver.fixed_point_solves == 0  # (nothing solved again)


def document(solver: object = 1, ruleset: str | None = None, entries: object = ()) -> str:
    """A cache document, each field as given."""
    body = {"format": "pazaak-match-cache", "solver": solver, "ruleset": ruleset or SPEC}
    return json.dumps({**body, "entries": list(entries)})  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "broken",
    [
        "{not json",
        "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
        "[]",
        document(solver=999),
        document(ruleset="kotor2"),
        document(entries=[[0, 0, "+1", "-2", 0, 1.5]]),
        document(entries=[[5, 0, "+1", "-2", 0, 0.5]]),
        document(entries=[[0, 0, "+1 +1 +1", "-2", 0, 0.5]]),
        document(entries=[[0, 0, "Q", "-2", 0, 0.5]]),
        document(entries=[[0, 0, "+1", "-2", True, 0.5]]),
        document(entries=[[0, 0, "+1", "-2", 0, 0.5], [0, 0, ["+1"], "-2", 0, 0.5]]),
        "[" * 100_000,
    ],
)
def test_a_broken_or_foreign_file_is_ignored_and_rewritten(broken: str) -> None:
    expected = answer()
    clear_shared_solvers()
    the_file().write_text(broken, encoding="utf-8", errors="surrogateescape")
    assert answer() == pytest.approx(expected, abs=1e-12)
    assert json.loads(the_file().read_text(encoding="utf-8"))["entries"]  # (rewritten)


def test_a_failed_save_leaves_the_old_file_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    answer()
    before = the_file().read_bytes()
    clear_shared_solvers()

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    solver = MatchSolver(parse_ruleset(SPEC))
    solver.add_entry((1, 1), (parse_cards("+1"), parse_cards("-2")), 0, 0.25)
    assert match_cache.save_entries(solver) is False
    assert the_file().read_bytes() == before
    assert [p.name for p in the_file().parent.iterdir()] == [the_file().name]  # (no temporary)


def test_an_unusable_cache_directory_does_not_fail_the_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(blocker / "cache"))
    args = ["advise", "--ruleset", SPEC, "--table", "2", "--hand", "+1 -1", "--opp-hand", "-2 +1"]
    result = CliRunner().invoke(main, [*args, "--objective", "match"])
    assert result.exit_code == 0, result.output
    assert "match win %" in result.output


def test_the_cache_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAZAAK_CACHE_DIR", "off")
    assert match_cache.cache_path(parse_ruleset(SPEC)) is None
    answer()
    assert match_cache.save_entries(shared_match_solver(parse_ruleset(SPEC))) is False


def test_a_save_keeps_what_another_process_saved_since() -> None:
    """Two processes that each solved other match states: the second save holds both."""
    rules = parse_ruleset(SPEC)
    answer()  # (one process: the decision's match states, saved)
    first = json.loads(the_file().read_text(encoding="utf-8"))["entries"]
    other = MatchSolver(rules)  # (another process, started before that save, solving others)
    other.prepare((0, 0), ((), ()))
    other.prepare((1, 0), ((), ()))
    assert 0 < other.entry_count < len(first)
    assert match_cache.save_entries(other)
    merged = json.loads(the_file().read_text(encoding="utf-8"))["entries"]
    keys = {tuple(row[:5]) for row in merged}
    assert {tuple(row[:5]) for row in first} <= keys
    assert len(keys) == len(merged)


def test_a_solver_on_another_later_deck_neither_reads_nor_writes_the_file() -> None:
    """The file holds values of the full-deck model of the later sets: a solver of another
    model (the deck-model measurement's) must not take them, nor give it its own."""
    answer()
    before = the_file().read_bytes()
    rules = parse_ruleset(SPEC)
    other = MatchSolver(rules, later_deck=(4, 4, 4, 4, 4, 4, 4, 4, 4, 0))
    assert match_cache.load_entries(other) == 0 and other.entry_count == 0
    solve_match_question(question(), OPTIONS, solver=other)
    assert other.entry_count > 0
    assert match_cache.save_entries(other) is False
    assert the_file().read_bytes() == before
    assert match_cache.load_entries(MatchSolver(rules)) > 0  # (the full deck's model reads it)


@pytest.mark.parametrize("good", [True, False])
def test_a_read_takes_every_value_or_none_and_leaves_the_collector_on(good: bool) -> None:
    """The file is read with the garbage collector paused (its passes over the values being
    made took most of a prepared pair's read); it is on again after, whether the file was good
    or not, and a file with one bad row gives no value at all."""
    first = answer()
    rows = json.loads(the_file().read_text(encoding="utf-8"))["entries"]
    if not good:
        rows.append([0, 0, "+1", "-2", 0, "half"])
    the_file().write_text(document(solver=match_cache.SOLVER_VERSION, entries=rows), "utf-8")
    solver = MatchSolver(parse_ruleset(SPEC))
    assert match_cache.load_entries(solver) == (len(rows) if good else 0)
    assert solver.entry_count == (len(rows) if good else 0)
    assert gc.isenabled()
    if good:
        clear_shared_solvers()
        assert answer() == pytest.approx(first, abs=1e-12)


@pytest.mark.skipif(match_cache._fastmatch is None, reason="the C core is not built")
@pytest.mark.parametrize(
    "bad_row",
    [
        None,
        [0, 0, "+1", "-2", 0],
        [0, 0, "+1", "-2", 0, 0.5, 1],
        [0.0, 0, "+1", "-2", 0, 0.5],
        [0, True, "+1", "-2", 0, 0.5],
        [0, 9, "+1", "-2", 0, 0.5],
        [0, 0, "+1", "-2", 3, 0.5],
        [0, 0, "+1", "-2", -1, 0.5],
        [2**70, 0, "+1", "-2", 0, 0.5],
        [0, 0, "+1", "-2", 0, 1],
        [0, 0, "+1", "-2", 0, float("nan")],
        [0, 0, "+1", "-2", 0, 1.0000001],
        [0, 0, 7, "-2", 0, 0.5],
        [0, 0, "+1", ["-2"], 0, 0.5],
        [0, 0, "+1 +1 +1", "-2", 0, 0.5],
        [0, 0, "Q", "-2", 0, 0.5],
    ],
)
def test_the_rows_read_in_c_as_in_python(bad_row: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C core reads a cache file's rows as the Python loop does: the same keyed entries,
    the same hands interned, and an error for any row out of place (the file is then ignored)."""
    answer()
    document = json.loads(the_file().read_text(encoding="utf-8"))
    if bad_row is not None:
        document["entries"].insert(len(document["entries"]) // 2, bad_row)
    found = {}
    for pure in (False, True):
        if pure:
            monkeypatch.setenv("PAZAAK_PURE_PYTHON", "1")
        solver = MatchSolver(parse_ruleset(SPEC))
        try:
            interns = solver.cache_interns()
            found[pure] = (match_cache._checked(document, solver.ruleset, "", interns), 0)
        except (ValueError, TypeError):  # (what load_entries takes for a file not ours)
            found[pure] = ([], 1)
    assert found[False] == found[True]
    assert found[False][1] == (bad_row is not None)


def test_the_values_against_a_rule_have_a_file_of_their_own_per_rule_and_seat() -> None:
    """A solver against the KOTOR rule saves its values (its hands in its own order, the
    rule's in the rule's) and a fresh one reads them, to the last bit; the file is not the
    optimal opponent's, nor the other seat's or the heuristic's, which read nothing from it."""
    rules = parse_ruleset(SPEC)
    solver = KotorMatchSolver(rules, 0, rule=kotor_rule)
    solver.prepare_hand((0, 0), parse_cards("+1 -2"), parse_cards("+2 +1"), orders=True)
    assert match_cache.save_entries(solver)
    fresh = KotorMatchSolver(rules, 0, rule=kotor_rule)
    assert match_cache.load_entries(fresh) == solver.entry_count > 0
    assert sorted(fresh.known_entries()) == sorted(solver.known_entries())
    for other in (
        MatchSolver(rules),
        KotorMatchSolver(rules, 1, rule=kotor_rule),
        KotorMatchSolver(rules, 0, rule=heuristic_rule),
    ):
        assert match_cache.load_entries(other) == 0
    assert len({match_cache._solver_path(s) for s in (solver, MatchSolver(rules))}) == 2
