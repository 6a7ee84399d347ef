"""``pazaak prepare``: the match values of a deck pair solved ahead, into the disk cache."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import time
from typing import Any

import pytest
from click.testing import CliRunner
from match_reference import TINY

from pazaak_cli.cli import main
from pazaak_cli.commands import prepare_cmd
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.policies.kotor_rule import kotor_rule
from pazaak_cli.runtime import executors
from pazaak_cli.solve import deck_pair_prepare, match_advice
from pazaak_cli.solve.deck_pair_prepare import prepare_deck_pair
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import clear_shared_solvers

RULES = f"kotor1/{TINY}"
DECKS = ["--deck", "kotor1-starter", "--opp-deck", "kotor1-average"]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), prog_name="pazaak")
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_prepare_solves_every_hand_against_every_hand_once() -> None:
    code, output = run("prepare", "-r", RULES, *DECKS, "--json")
    assert code == 0, output
    first = json.loads(output)
    # 15 and 19 two-card hands; 4 scores of every pair of their sub-hands
    assert (first["my_hands"], first["their_hands"]) == (15, 19)
    assert first["states"] == first["solved"] > 0 and first["player"] == 1
    clear_shared_solvers()  # (another process: what is known comes from the disk)
    code, output = run("prepare", "-r", RULES, *DECKS, "--json")
    assert json.loads(output)["solved"] == 0
    code, output = run("prepare", "-r", RULES, *DECKS)
    assert code == 0
    assert output.startswith(
        f"kotor1-starter against kotor1-average ({parse_ruleset(RULES).spec}, you as player 1): "
        f"15 hands against 19, {first['states']:,} match values, 0 solved now "
        f"({first['states']:,} known before), in "
    )


def test_one_hand_a_side_is_counted_in_the_singular(tmp_path: Any) -> None:
    """Decks of exactly one hand's cards (a side deck the size of the hand)."""
    (tmp_path / "mine.deck").write_text("+1 -2\n", encoding="utf-8")
    (tmp_path / "theirs.deck").write_text("±1 +2\n", encoding="utf-8")
    rules = f"kotor1/{TINY},side-deck-size=2"
    decks = ["--deck", str(tmp_path / "mine.deck"), "--opp-deck", str(tmp_path / "theirs.deck")]
    code, output = run("prepare", "-r", rules, *decks)
    assert code == 0, output
    assert "): 1 hand against 1, " in output


def test_after_prepare_the_default_answers_for_the_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """A question past the default's limit answers for the set; once the deck pair is prepared,
    for the match (only its set in progress is left), with the same values as asked for."""
    monkeypatch.setattr(match_advice, "QUICK_MATCH_PAIRS", 2)
    question = ["advise", "-r", RULES, "--table", "2", "--hand", "+1 +2", "--opp-table", ""]
    question += ["--opp-hand-size", "2", "--opp-deck", "kotor1-average", "--json"]
    code, output = run(*question)
    assert code == 0, output
    assert json.loads(output)["objective"] == "set"
    assert run("prepare", "-r", RULES, *DECKS)[0] == 0
    code, output = run(*question)
    answer = json.loads(output)
    assert answer["objective"] == "match" and answer["note"] is None
    clear_shared_solvers()
    code, output = run(*question, "--objective", "match")
    assert json.loads(output)["moves"] == answer["moves"]


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_a_prepared_pair_answers_in_two_processes_with_the_same_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once every later set is known (prepared), the exact match answer's rows (each hand's
    set in progress) are shared with a forked copy: the JSON of one process, byte for byte."""
    assert run("prepare", "-r", RULES, *DECKS)[0] == 0
    question = ["advise", "-r", RULES, "--table", "2", "--hand", "+1 +2", "--opp-table", ""]
    question += ["--opp-hand-size", "2", "--opp-deck", "kotor1-average", "--objective", "match"]
    question += ["--time", "0", "--json"]
    shared: list[int] = []
    every_hand = match_advice._every_hand

    def counted(*args: Any, processes: int = 1, **kwargs: Any) -> Any:
        shared.append(processes)
        return every_hand(*args, processes=processes, **kwargs)

    monkeypatch.setattr(match_advice, "_every_hand", counted)
    answers = []
    for processes in ("1", "2"):
        monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", processes)
        clear_shared_solvers()  # (each from the disk cache)
        code, output = run(*question)
        assert code == 0, output
        answers.append(output)
    assert shared == [1, 2]
    assert answers[0] == answers[1]
    assert json.loads(answers[1])["exactness"] == "exact"


def test_a_stopped_preparation_keeps_what_it_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = parse_ruleset(RULES)
    mine, theirs = load_deck("kotor1-starter").cards, load_deck("kotor1-average").cards

    def stop_after_the_third(done: int, total: int) -> None:
        if done >= 3:  # (in two processes the count goes by two)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        prepare_deck_pair(rules, mine, theirs, progress=stop_after_the_third)
    clear_shared_solvers()
    prepared = prepare_deck_pair(rules, mine, theirs)
    assert 0 < prepared.solved < prepared.states
    clear_shared_solvers()
    assert prepare_deck_pair(rules, mine, theirs).solved == 0


def _cache_file_bytes(directory: Any) -> bytes:
    (only,) = list(directory.glob("match-*.json"))
    return bytes(only.read_bytes())


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_stopped_preparation_asked_again_gives_the_same_bits(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, processes: str
) -> None:
    """A preparation stopped anywhere and asked again writes the file of one never stopped, byte
    for byte: its values read back start the rest's fixed points where they would have started
    (``rebuild_starts``), and the rounds a pair of sub-hands left unfinished are solved afresh
    (``drop_unfinished_rounds``). They had differed in their last bits (found by a user)."""
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", processes)
    rules = parse_ruleset(RULES)
    mine, theirs = load_deck("kotor1-starter").cards, load_deck("kotor1-average").cards
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / "whole"))
    clear_shared_solvers()
    prepare_deck_pair(rules, mine, theirs)
    whole = _cache_file_bytes(tmp_path / "whole")
    for stop in (2, 5):

        def stopping(done: int, total: int, stop: int = stop) -> None:
            if done >= stop:
                raise KeyboardInterrupt

        monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / f"stopped-{stop}"))
        clear_shared_solvers()
        with pytest.raises(KeyboardInterrupt):
            prepare_deck_pair(rules, mine, theirs, progress=stopping)
        clear_shared_solvers()
        assert prepare_deck_pair(rules, mine, theirs).solved > 0
        assert _cache_file_bytes(tmp_path / f"stopped-{stop}") == whole, stop
    clear_shared_solvers()


@pytest.mark.skipif(not executors.fork_available(), reason="no fork on this system")
def test_a_stopped_preparation_keeps_the_forked_copys_work_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In two processes the Ctrl-C reaches the copy solving the second half of my hands: its
    values come back and are saved with these (they were lost with the copy)."""
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "2")
    rules = parse_ruleset(RULES)
    mine, theirs = load_deck("kotor1-starter").cards, load_deck("kotor1-average").cards
    my_hands = [hand for hand, _ in possible_hands(mine, rules.hand_size)]
    their_hands = [hand for hand, _ in possible_hands(theirs, rules.hand_size)]
    copys_first = my_hands[-(-len(my_hands) // 2)]  # (the copy's first hand: its alone)
    split = deck_pair_prepare._prepare_split
    started: list[bool] = []

    def recorded_split(solver: Any, *args: Any) -> None:
        started.append(True)
        split(solver, *args)

    def stop_after_the_third(done: int, total: int) -> None:
        if done >= 6:  # (the count goes by two: the third of this process's hands)
            time.sleep(0.5)  # (the copy is well into its share)
            raise KeyboardInterrupt

    monkeypatch.setattr(deck_pair_prepare, "_prepare_split", recorded_split)
    with pytest.raises(KeyboardInterrupt):
        prepare_deck_pair(rules, mine, theirs, progress=stop_after_the_third)
    assert started
    clear_shared_solvers()  # (what is known now comes from the disk)
    solver = match_advice.shared_match_solver(rules)
    missing, states = solver.unsolved((0, 0), ([copys_first], their_hands))
    assert states > 0 and missing == 0
    assert solver.unsolved((0, 0), (my_hands, their_hands))[0] > 0  # (stopped before the end)


def test_prepare_refuses_what_the_cache_cannot_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deck_pair_prepare, "MAX_ENTRIES", 100)
    code, output = run("prepare", "-r", RULES, *DECKS)
    assert code == 1
    assert output.startswith("Error: these decks meet in ")
    assert output.endswith(
        "match states, more than the cache keeps (100): the match answer solves them question "
        "by question instead\n"
    )
    monkeypatch.setattr(deck_pair_prepare, "MAX_ENTRIES", 200)  # (the pair alone: 168 values)
    small = ["--deck", "kotor1-starter", "--opp-deck", "kotor1-average"]
    one_card = f"kotor1/{TINY.replace('hand-size=2', 'hand-size=1')}"
    assert run("prepare", "-r", one_card, *small)[0] == 0
    other = f"kotor1/{TINY.replace('hand-size=2', 'hand-size=1').replace('size=3', 'size=4')}"
    code, output = run("prepare", "-r", other, *small)
    assert code == 0, output  # (another ruleset: another file)
    code, output = run(
        "advise",
        "-r",
        one_card,
        "--table",
        "2",
        "--hand",
        "+5",
        "--opp-table",
        "",
        "--opp-hand",
        "-6",
        "--objective",
        "match",
    )
    assert code == 0, output
    code, output = run("prepare", "-r", one_card, "--deck", "kotor1-strongest", *small[2:])
    assert code == 1
    assert output.startswith("Error: the cache already holds ")
    assert "more than it keeps (200): give PAZAAK_CACHE_DIR another directory" in output
    monkeypatch.setenv("PAZAAK_CACHE_DIR", "off")
    code, output = run("prepare", "-r", RULES, *DECKS)
    assert (code, output) == (
        1,
        "Error: the disk cache is off (PAZAAK_CACHE_DIR=off): nothing solved would be kept; "
        "set PAZAAK_CACHE_DIR to a directory or unset it\n",
    )


def test_prepare_needs_both_decks() -> None:
    code, output = run("prepare", "-r", RULES, "--deck", "kotor1-starter")
    assert code == 2 and "Missing option '--opp-deck'" in output


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("nonsense", "not a scheduler address"),
        ("tcp://127.0.0.1:1", "cannot reach a Dask scheduler there"),
    ],
)
def test_prepare_on_a_cluster_it_cannot_reach_is_a_usage_error(address: str, said: str) -> None:
    """One sentence naming the address, exit 2, nothing solved (the run on a real cluster:
    tests/test_cluster.py)."""
    pytest.importorskip("distributed")
    code, output = run("prepare", "-r", RULES, *DECKS, "--cluster", address)
    assert code == 2, output
    assert output.count("\n") == 1 and said in output and address in output


@pytest.mark.parametrize("scheme", ["http", "tls", "ucx"])
def test_a_cluster_address_of_another_scheme_is_refused_at_once(scheme: str) -> None:
    """(Dask's client had said so, then waited 20 s and printed a traceback as it was freed.)"""
    pytest.importorskip("distributed")
    started = time.monotonic()
    code, output = run("prepare", "-r", RULES, *DECKS, "--cluster", f"{scheme}://127.0.0.1:1")
    assert code == 2, output
    assert f"only tcp:// addresses are supported, not {scheme}://" in output
    assert output.count("\n") == 1 and time.monotonic() - started < 5


def test_a_cluster_address_where_something_else_listens_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A port where a server accepts and says nothing (a web server waits for a request): Dask's
    client had waited on it for ever."""
    pytest.importorskip("distributed")
    monkeypatch.setattr(executors, "SCHEDULER_PROBE_SECONDS", 0.5)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
        code, output = run("prepare", "-r", RULES, *DECKS, "--cluster", address)
    assert code == 2, output
    assert "something listens there, but it does not answer as a Dask scheduler" in output
    assert output.count("\n") == 1


def test_ctrl_c_says_what_is_kept_and_how_to_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stopped preparation had said only "Interrupted."."""
    from pazaak_cli.commands import prepare_cmd

    def stopped(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(prepare_cmd, "prepare_deck_pair", stopped)
    result = CliRunner().invoke(main, ["prepare", "-r", RULES, *DECKS], prog_name="pazaak")
    assert result.exit_code == 130
    assert (
        "Stopped: the match values of every round of scores finished are saved in the cache; "
        "the same command goes on from there." in result.output
    )


def test_prepare_against_the_rule_then_the_default_answers_for_the_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`prepare --opponent kotor` keeps the values against the KOTOR rule in a file of their
    own: a question against the rule past the default's limit answers for the set, and once
    the pair is prepared for the match, with the bits of the match answer asked for in a fresh
    process; a second preparation solves nothing, and the optimal opponent's values are not
    among what it kept."""
    limits = match_advice.kotor_match_limits(kotor_rule)
    small = dataclasses.replace(limits, quick_pairs=2)
    monkeypatch.setattr(match_advice, "kotor_match_limits", lambda rule: small)
    question = ["advise", "-r", RULES, "--table", "2", "--hand", "+1 +2", "--opp-table", ""]
    question += ["--opp-hand-size", "2", "--opp-deck", "kotor1-average", "--opponent", "kotor"]
    question += ["--json"]
    code, output = run(*question)
    assert code == 0, output
    assert json.loads(output)["objective"] == "set"
    code, output = run("prepare", "-r", RULES, *DECKS, "--opponent", "kotor", "--json")
    assert code == 0, output
    first = json.loads(output)
    assert first["opponent"] == "kotor" and first["states"] == first["solved"] > 0
    clear_shared_solvers()  # (another process: what is known comes from the disk)
    code, output = run(*question)
    answer = json.loads(output)
    assert answer["objective"] == "match" and answer["exactness"] == "exact"
    code, output = run("prepare", "-r", RULES, *DECKS, "--opponent", "kotor", "--json")
    assert json.loads(output)["solved"] == 0
    cache = os.environ["PAZAAK_CACHE_DIR"]
    monkeypatch.setenv("PAZAAK_CACHE_DIR", "off")
    clear_shared_solvers()
    code, output = run(*question, "--objective", "match", "--time", "0")
    assert json.loads(output)["moves"] == answer["moves"]
    monkeypatch.setenv("PAZAAK_CACHE_DIR", cache)
    code, output = run("prepare", "-r", RULES, *DECKS, "--json")
    assert json.loads(output)["solved"] > 0  # (the optimal opponent's: not prepared yet)


def test_prepare_against_a_rule_is_local() -> None:
    code, output = run("prepare", *DECKS, "--opponent", "kotor", "--cluster", "tcp://x:1")
    assert code == 2 and "--cluster prepares against the optimal opponent only" in output


def test_prepare_checks_the_cache_can_be_written_before_it_solves(tmp_path: Any) -> None:
    """A cache path that is a file fails at once (it failed after all the solving, saying to
    check that a directory was writable)."""
    blocked = tmp_path / "cachefile"
    blocked.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["prepare", "-r", RULES, *DECKS], env={"PAZAAK_CACHE_DIR": str(blocked)}
    )
    assert result.exit_code == 1
    assert f"the cache directory {blocked} is a file, not a directory" in result.output


def test_a_stopped_prepare_under_json_says_so_in_json(monkeypatch: pytest.MonkeyPatch) -> None:
    def stopped(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(prepare_cmd, "prepare_deck_pair", stopped)
    result = CliRunner().invoke(main, ["prepare", "-r", RULES, *DECKS, "--json"])
    assert result.exit_code == 130 and result.stderr == ""
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "interrupted" and error["message"].startswith("Stopped: the match")
