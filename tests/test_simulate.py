"""Tournaments: the simulator library and ``pazaak simulate``.

What matters most: a seed replays the same numbers byte for byte, with any number of worker
processes; players see only their view; the counts add up.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MatchState, Phase, deal_hand, new_match, set_outcome
from pazaak_cli.engine.rules import KOTOR1, KOTOR2
from pazaak_cli.players.roster import POLICY_HELP, POLICY_NAMES, Player, make_player
from pazaak_cli.runtime.executors import LocalProcesses
from pazaak_cli.terminal import text
from pazaak_cli.tools import simulate as simulate_module
from pazaak_cli.tools.simulate import (
    Entrant,
    Pairing,
    Tally,
    match_rng,
    play_matches,
    simulate,
    wilson_interval,
)


def entrant(policy: str, deck: str, ruleset: Any = KOTOR1) -> Entrant:
    side = load_deck(deck, ruleset)
    return Entrant(policy, side.name, side.cards)


STARTER = entrant("kotor", "kotor1-starter")
STRONGEST = entrant("kotor", "kotor1-strongest")


def tallies(results: list[simulate_module.PairingResult]) -> list[Tally]:
    return [result.tally for result in results]


# Statistics --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wins", "matches", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 3, 0.0615, 0.7923),
    ],
)
def test_wilson_interval_matches_the_textbook_values(
    wins: int, matches: int, low: float, high: float
) -> None:
    got = wilson_interval(wins, matches)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_interval_of_no_matches_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("wins", [-1, 4])
def test_wilson_interval_of_impossible_counts_is_one_sentence(wins: int) -> None:
    with pytest.raises(PazaakError, match=f"^{wins} successes in 3 trials: 0 to 3 can be$"):
        wilson_interval(wins, 3)  # (4 of 3 was "math domain error")


# Reproducibility ---------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_tallies_and_another_seed_others() -> None:
    pairs = [Pairing(STARTER, STRONGEST)]
    first = simulate(KOTOR1, pairs, matches=120, seed=5)
    again = simulate(KOTOR1, pairs, matches=120, seed=5)
    other = simulate(KOTOR1, pairs, matches=120, seed=6)
    assert tallies(first) == tallies(again)
    assert tallies(first) != tallies(other)


def test_two_workers_give_exactly_what_one_gives() -> None:
    # 600 matches are 3 chunks of work per pairing, spread over the processes in any order.
    pairs = [
        Pairing(STARTER, STRONGEST),
        Pairing(entrant("random", "kotor1-average"), entrant("heuristic", "kotor1-strong")),
    ]
    one = simulate(KOTOR1, pairs, matches=600, seed=11, workers=1)
    two = simulate(KOTOR1, pairs, matches=600, seed=11, workers=2)
    assert tallies(one) == tallies(two)


def test_a_pairing_in_a_matrix_plays_exactly_as_it_does_alone() -> None:
    alone = simulate(KOTOR1, [Pairing(STRONGEST, STARTER)], matches=100, seed=3)
    matrix = simulate(
        KOTOR1,
        [Pairing(a, b) for a in (STARTER, STRONGEST) for b in (STARTER, STRONGEST)],
        matches=100,
        seed=3,
    )
    assert matrix[2].pairing == Pairing(STRONGEST, STARTER)
    assert matrix[2].tally == alone[0].tally


def test_match_i_is_played_from_the_seed_and_i_alone() -> None:
    """The documented contract: Random(f"{seed}:{i}") deals player 1's entrant's hand, then
    player 2's, then draws every card. A plain replay of that gives the same tally."""
    seed, pairing = 9, Pairing(STARTER, STRONGEST)
    expected = Tally()
    for index in range(40):
        rng = random.Random(f"{seed}:{index}")
        hands = (deal_hand(STARTER.deck, KOTOR1, rng), deal_hand(STRONGEST.deck, KOTOR1, rng))
        players = [
            make_player("kotor", ruleset=KOTOR1, rng=rng, own_deck=(), opponent_deck=None)
            for _ in (0, 1)
        ]
        state = new_match(KOTOR1, hands)
        while not state.is_terminal():
            if state.phase is Phase.AFTER_DRAW:
                state = state.child(players[state.turn].choose(state.observed_by(state.turn)))
            else:
                expected.turns += state.phase is Phase.BEFORE_DRAW
                state = state.child(state.sample_chance(rng))
            if state.phase in (Phase.SET_OVER, Phase.MATCH_OVER):  # a set just ended
                outcome = set_outcome(state)
                assert outcome is not None
                if outcome.reason == "bust":
                    assert outcome.winner is not None
                    expected.busts[1 - outcome.winner] += 1
        winner = state.match_winner()
        assert winner is not None
        expected.matches += 1
        expected.wins[winner] += 1
        expected.sets_won[0] += state.set_winners.count(0)
        expected.sets_won[1] += state.set_winners.count(1)
        expected.sets_tied += state.set_winners.count(None)
    assert play_matches(KOTOR1, pairing, seed, 0, 40, swap=False) == expected
    assert match_rng(seed, 7).random() == random.Random(f"{seed}:7").random()


# Swap --------------------------------------------------------------------------------------


def test_swap_plays_each_match_twice_with_the_same_hands_in_the_other_seats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[tuple[int, int], tuple[Any, Any]]] = []
    real = simulate_module.play_match

    def spy(
        state: MatchState,
        players: Any,
        rng: random.Random,
        tally: Tally,
        seats: tuple[int, int],
    ) -> MatchState:
        seen.append((seats, (state.sides[0].hand, state.sides[1].hand)))
        return real(state, players, rng, tally, seats)

    monkeypatch.setattr(simulate_module, "play_match", spy)
    tally = play_matches(KOTOR1, Pairing(STARTER, STRONGEST), 4, 0, 10, swap=True)
    assert tally.matches == 20
    for (seats, hands), (swapped_seats, swapped_hands) in zip(seen[::2], seen[1::2], strict=True):
        assert (seats, swapped_seats) == ((0, 1), (1, 0))
        assert swapped_hands == (hands[1], hands[0])


# What the counts mean ----------------------------------------------------------------------


def test_the_counts_add_up() -> None:
    pairs = [Pairing(entrant("stand17", "kotor1-starter"), entrant("kotor", "kotor1-strong"))]
    result = simulate(KOTOR1, pairs, matches=300, seed=2)[0]
    t = result.tally
    assert t.matches == 300 == sum(t.wins)
    assert sum(t.forfeits) == 0
    for i in (0, 1):
        assert t.sets_won[i] >= 3 * t.wins[i]  # a winner has 3 sets
        assert t.busts[i] <= t.sets_won[1 - i]  # a bust is a set lost
        assert t.busts[i] > 0
    assert t.sets_played == sum(t.sets_won) + t.sets_tied
    assert t.turns >= 2 * t.sets_played  # both players draw in every set
    assert result.win_rate(0) + result.win_rate(1) == pytest.approx(1.0)
    low, high = result.win_interval(1)
    assert low < result.win_rate(1) < high


def test_players_only_ever_see_their_own_view(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = []

    class Spy:
        def __init__(self, inner: Player) -> None:
            self.inner = inner

        def choose(self, view: MatchState) -> Any:
            assert view.phase is Phase.AFTER_DRAW
            assert all(card is None for card in view.sides[1 - view.turn].hand)
            assert None not in view.sides[view.turn].hand
            checked.append(view.turn)
            return self.inner.choose(view)

    def spying_make_player(name: str, **kwargs: Any) -> Player:
        return Spy(make_player(name, **kwargs))

    monkeypatch.setattr(simulate_module, "make_player", spying_make_player)
    simulate(KOTOR1, [Pairing(STARTER, STRONGEST)], matches=20, seed=1)
    assert set(checked) == {0, 1}


def test_gold_cards_play_under_kotor2() -> None:
    hard = entrant("kotor", "kotor2-very-hard", KOTOR2)
    result = simulate(
        KOTOR2, [Pairing(hard, entrant("heuristic", "kotor2-hard", KOTOR2))], matches=100, seed=1
    )
    assert result[0].tally.matches == 100


# Refusals ----------------------------------------------------------------------------------


class _Counts(TypedDict):
    matches: int


class _Settings(_Counts, total=False):
    """The keyword arguments of ``simulate`` that the refusals below pass."""

    workers: int


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"matches": 0}, "at least 1"),
        ({"matches": 5, "workers": 0}, "between 1 and"),
    ],
)
def test_simulate_refuses_impossible_settings(kwargs: _Settings, message: str) -> None:
    with pytest.raises(PazaakError, match=message):
        simulate(KOTOR1, [Pairing(STARTER, STARTER)], seed=1, **kwargs)


def test_simulate_refuses_an_unknown_policy() -> None:
    with pytest.raises(PazaakError, match="unknown policy 'genius'"):
        simulate(KOTOR1, [Pairing(STARTER, entrant("genius", "kotor1-starter"))], matches=1, seed=1)


# The command -------------------------------------------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["simulate", *args])


def json_of(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_has_the_documented_fields() -> None:
    data = json_of(
        run("--p1", "heuristic", "--p2-deck", "kotor1-strong", "-n", "50", "--seed", "4", "--json")
    )
    for key in (
        "matches",
        "p1_wins",
        "p2_wins",
        "sets_played",
        "sets_tied",
        "turns",
        "ruleset",
        "decks",
        "policies",
        "seed",
    ):
        assert key in data
    assert data["matches"] == 50 == data["p1_wins"] + data["p2_wins"]
    assert data["policies"] == {"p1": "heuristic", "p2": "kotor"}
    assert data["decks"]["p1"]["name"] == "kotor1-starter"
    assert data["decks"]["p2"]["name"] == "kotor1-strong"
    assert len(data["decks"]["p2"]["cards"]) == 10
    assert data["ruleset"] == "kotor1" and data["seed"] == 4 and data["swap"] is False
    low, high = data["p1_win_ci95"]
    assert low <= data["p1_win_rate"] <= high


def test_the_same_command_twice_prints_byte_identical_json() -> None:
    args = (
        "--p1",
        "random",
        "--p1-deck",
        "kotor1-average",
        "-n",
        "80",
        "--seed",
        "12",
        "--swap",
        "--json",
    )
    first, second = run(*args), run(*args)
    assert first.exit_code == 0
    assert first.stdout_bytes == second.stdout_bytes


def test_workers_1_and_2_print_the_same_numbers() -> None:
    args = [
        "--p1-deck",
        "kotor1-starter",
        "--p2-deck",
        "kotor1-strongest",
        "-n",
        "520",
        "--seed",
        "8",
        "--json",
    ]
    assert json_of(run(*args, "--workers", "1")) == json_of(run(*args, "--workers", "2"))


def test_several_decks_make_a_round_robin_list_in_json() -> None:
    decks = ("kotor1-starter", "kotor1-strongest")
    args = [arg for deck in decks for arg in ("--p1-deck", deck)]
    args += [arg for deck in decks for arg in ("--p2-deck", deck)]
    data = json_of(run(*args, "-n", "30", "--seed", "1", "--json"))
    assert isinstance(data, list) and len(data) == 4
    pairs = [(item["decks"]["p1"]["name"], item["decks"]["p2"]["name"]) for item in data]
    assert pairs == [(a, b) for a in decks for b in decks]


def test_several_policies_make_a_matrix_too() -> None:
    data = json_of(
        run(
            "--p1",
            "kotor",
            "--p1",
            "stand17",
            "--p2",
            "heuristic",
            "-n",
            "20",
            "--seed",
            "1",
            "--json",
        )
    )
    assert [(d["policies"]["p1"], d["policies"]["p2"]) for d in data] == [
        ("kotor", "heuristic"),
        ("stand17", "heuristic"),
    ]


def test_swap_doubles_the_matches() -> None:
    data = json_of(run("-n", "25", "--seed", "2", "--swap", "--json"))
    assert data["matches"] == 50 and data["swap"] is True


def test_the_human_table_shows_wins_with_intervals_sets_turns_and_busts() -> None:
    args = ("--p2-deck", "kotor1-strongest", "-n", "60", "--seed", "5")
    result = run(*args)
    data = json_of(run(*args, "--json"))
    assert result.exit_code == 0
    out = result.stdout
    assert "kotor (kotor1-starter) vs kotor (kotor1-strongest)" in out
    assert "60 matches, ruleset kotor1, seed 5" in out
    for header in ("match wins", "win rate", "95% CI", "sets won", "busts"):
        assert header in out
    low, high = data["p2_win_ci95"]
    assert f"{100 * low:.1f}–{100 * high:.1f}%" in out
    assert f"{data['sets_tied']:,} tied" in out
    assert f"{data['turns'] / 60:.2f} turns" in out
    assert result.stderr == ""  # no progress bar off a terminal


def test_the_matrix_table_shows_player_1_win_rates() -> None:
    result = run(
        "--p1-deck",
        "kotor1-starter",
        "--p1-deck",
        "kotor1-average",
        "--p2-deck",
        "kotor1-strong",
        "-n",
        "20",
        "--seed",
        "1",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Player 1's match-win rate (95% CI)"
    assert "kotor vs itself, ruleset kotor1, 20 matches per pairing, seed 1" in lines[1]
    assert any(line.startswith("kotor1-starter ") and "%" in line for line in lines)
    assert any(line.startswith("kotor1-average ") and "%" in line for line in lines)


def test_two_decks_of_one_name_on_either_side_are_told_apart(tmp_path: Any) -> None:
    """``a/my.deck`` against ``b/my.deck``: not "my vs my", which reads as a mirror match."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine = tmp_path / "a" / "my.deck"
    theirs = tmp_path / "b" / "my.deck"
    mine.write_text("±1 ±1 ±2 ±2 ±3 ±3 ±4 ±4 ±5 ±5\n", encoding="utf-8")
    theirs.write_text("+1 +1 +2 +2 +3 +3 +4 +4 +5 +5\n", encoding="utf-8")
    result = run("--p1-deck", str(mine), "--p2-deck", str(theirs), "-n", "5", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"kotor ({mine}) vs kotor ({theirs})"


def test_without_a_seed_the_json_names_the_seed_it_used() -> None:
    data = json_of(run("-n", "5", "--json"))
    again = json_of(run("-n", "5", "--seed", str(data["seed"]), "--json"))
    assert again == data


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--p1", "genius"], 2, "'genius' is not one of"),
        (["--matches", "0"], 2, "0 is out of range: give a whole number from 1 to 100,000,000"),
        (["--workers", "0"], 2, "0 is out of range: give a whole number from 1 to"),
        (["--p1-deck", "no/such/file.deck"], 2, "no/such/file.deck"),
        (["--p1-deck", "kotor2-very-hard"], 1, "not in the kotor1 card pool"),
    ],
)
def test_bad_input_is_one_clear_line_without_a_traceback(
    args: list[str], code: int, message: str
) -> None:
    result = run(*args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output


def test_help_shows_the_policies_and_examples() -> None:
    """Every policy, with its line (the help's list is made from the one table)."""
    result = run("--help")
    assert result.exit_code == 0
    for name in POLICY_NAMES:
        assert re.search(
            rf"^ +{re.escape(name)} +{re.escape(POLICY_HELP[name])}$", result.output, re.M
        )
    for word in ("Examples:", "--workers"):
        assert word in result.output


# The progress bar --------------------------------------------------------------------------


def test_the_progress_bar_waits_a_second_and_needs_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = text.LazyProgress(100, enabled=True)
    quiet(10)  # well under a second
    assert quiet.bar is None
    off = text.LazyProgress(100, enabled=False)
    monkeypatch.setattr(text, "PROGRESS_AFTER_SECONDS", 0.0)
    off(10)
    assert off.bar is None
    shown = text.LazyProgress(100, enabled=True)
    shown(10)
    assert shown.bar is not None
    shown(90)
    shown.close()
    assert shown.bar is None
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "matches" in captured.err


# Bounded work and workers that end with their parent (issue 12, items 13 and 14) -------------


def _square(value: int) -> int:
    return value * value


def _die_once(item: tuple[int, str]) -> int:
    """Kill this worker process the first time item 3 is played (a marker file says so)."""
    value, marker = item
    if value == 3 and not os.path.exists(marker):
        with open(marker, "w") as handle:
            handle.write("died")
        os._exit(9)
    return value * value


def test_local_workers_keep_at_most_a_window_of_items_in_flight() -> None:
    executor = LocalProcesses(2)
    taken: list[int] = []

    def items() -> Iterator[int]:
        for value in range(200):
            taken.append(value)
            yield value

    seen = []
    try:
        for index, result in executor.map_unordered(_square, items()):
            seen.append(index)
            assert result == index * index
            # Read lazily: never more than the window beyond what came back (+1 refill).
            assert len(taken) - len(seen) <= executor.window
    finally:
        executor.close()
    assert sorted(seen) == list(range(200))
    assert executor.window == 4


def test_a_huge_run_starts_at_once_with_flat_memory() -> None:
    """10^8 matches are 400,000 batches: the old code queued them all before the first result
    (about 40 MB/s for seconds). Batches are now made as workers free up."""

    class Enough(Exception):
        pass

    calls = []

    def progress(done: int) -> None:
        calls.append(done)
        if len(calls) == 4:
            raise Enough

    tracemalloc.start()
    began = time.monotonic()
    try:
        with pytest.raises(Enough):
            simulate(
                KOTOR1,
                [Pairing(STARTER, STRONGEST)],
                matches=100_000_000,
                seed=1,
                workers=2,
                progress=progress,
            )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - began < 30
    assert peak < 5_000_000
    # the pool was killed, not left running (a killed process may take a moment to be reaped)
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_mid_batch_loses_nothing(tmp_path: Any) -> None:
    marker = str(tmp_path / "died")
    executor = LocalProcesses(2)
    try:
        results = dict(executor.map_unordered(_die_once, [(v, marker) for v in range(12)]))
    finally:
        executor.close()
    assert os.path.exists(marker)  # a worker did die
    assert results == {v: v * v for v in range(12)}  # every item exactly once


def _children(pid: int) -> set[int]:
    """The ids of the live processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGKILL])
def test_workers_end_with_their_parent(signal_number: int) -> None:
    """A signal to `pazaak simulate` alone (not its process group) ends its workers too."""
    environment = {**os.environ, "NO_COLOR": "1", "LC_ALL": "C.UTF-8"}
    parent = subprocess.Popen(
        [sys.executable, "-m", "pazaak_cli", "simulate", "-n", "100000000", "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(parent.pid)
        assert len(workers) >= 2, "the workers never started"
        parent.send_signal(signal_number)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()


def test_the_same_numbers_for_any_batch_size(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [Pairing(STARTER, STRONGEST)]
    default = simulate(KOTOR1, pairs, matches=130, seed=4)
    monkeypatch.setattr(simulate_module, "CHUNK_MATCHES", 7)
    small = simulate(KOTOR1, pairs, matches=130, seed=4, workers=2)
    assert tallies(default) == tallies(small)
