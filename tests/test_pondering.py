"""Working ahead while the player types (pazaak_cli.solve.pondering, and follow's use of it):
the later sets solved ahead make the budgeted answer the match's, give the same answer as
solving them when asked, and a ponder stops within a fraction of a second, the solvers sound."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pazaak_cli.commands import follow_cmd, play_cmd
from pazaak_cli.commands.play_cmd import computer_player
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.runtime import executors
from pazaak_cli.solve.answers import answer, budgeted_objective
from pazaak_cli.solve.match_advice import clear_shared_solvers
from pazaak_cli.solve.models import Objective
from pazaak_cli.solve.pondering import Ponderer, ponder
from pazaak_cli.terminal.follow_screen import Screen
from pazaak_cli.terminal.lines import LineReader
from pazaak_cli.tools.follow import Followed, FollowSetup, ahead_of, apply_line, request_for, start
from pazaak_cli.tools.session import HUMAN, MatchSession, Seat

ONES = "+1 +1 +1 +1 +1 -1 -1 -1 -1 -1"
"""An opponent's deck of 5 possible hands: small later sets (a second or two to solve)."""


def followed(opponent: str, hand: str = "+1 +1 +1 +1") -> Followed:
    """A kotor1 match followed from its start, the opponent's hand hidden (drawn from ONES)."""
    setup = FollowSetup(
        parse_ruleset("kotor1"),
        tuple(parse_cards(hand)),
        tuple(parse_cards(ONES)),
        "ones",
        opponent,
    )
    return start(setup)


@pytest.fixture(autouse=True)
def fresh_solvers() -> Any:
    """Each test starts with no shared solver (what one solved is not the next one's)."""
    clear_shared_solvers()
    yield
    clear_shared_solvers()


def test_a_solve_forks_only_from_the_main_thread() -> None:
    """A fork copies only the thread that calls it: work in a background thread stays in its
    process."""
    seen: list[tuple[bool, int]] = []
    thread = threading.Thread(
        target=lambda: seen.append((executors.fork_available(), executors.solver_processes()))
    )
    thread.start()
    thread.join()
    assert seen == [(False, 1)]


@pytest.mark.parametrize("opponent", ["kotor", "optimal"])
def test_pondering_makes_the_budgeted_answer_the_matchs_and_the_same(opponent: str) -> None:
    """Cold, the match answer's least sample does not fit a small budget (the set's is given);
    once its later sets are solved ahead it does, and the exact match answer is the one solved
    without pondering (bit for bit against the rule, whose values do not depend on the order they
    are solved in; to 1e-12 against an optimal opponent, whose fixed points start from what is
    known)."""
    match = followed(opponent)
    asked = apply_line(match, "5")[0]
    budget = 0.05
    assert budgeted_objective(request_for(asked, budget), budget)[0] is Objective.SET
    assert ponder(*ahead_of(match), lambda: False) == 5
    assert budgeted_objective(request_for(asked, budget), budget) == (Objective.MATCH, None)
    pondered = answer(request_for(asked, None, Objective.MATCH)).advice
    clear_shared_solvers()
    cold = answer(request_for(asked, None, Objective.MATCH)).advice
    assert [str(r.move) for r in pondered.results] == [str(r.move) for r in cold.results]
    got = [r.match_win for r in pondered.results]
    want = [r.match_win for r in cold.results]
    if opponent == "kotor":
        assert got == want
    else:
        assert got == pytest.approx(want, abs=1e-12)


def test_a_ponder_stops_within_a_fraction_of_a_second_and_leaves_the_solvers_sound() -> None:
    """Stopped in the middle of a solve (a Stopped raised in the solver's progress callback),
    the ponder ends at once; what it left in the shared solver gives the same answer as a solver
    that never pondered."""
    match = followed("kotor", "+1 -2 +3 +4")
    ponderer = Ponderer()
    ponderer.start(*ahead_of(match))
    time.sleep(0.5)
    began = time.monotonic()
    ponderer.stop()
    assert time.monotonic() - began < 0.5
    assert ponderer.error is None and ponderer.known < 5
    asked = apply_line(match, "5")[0]
    request = request_for(asked, None, Objective.MATCH)
    pondered = answer(request).advice
    clear_shared_solvers()
    assert [r.match_win for r in answer(request).advice.results] == [
        r.match_win for r in pondered.results
    ]


def test_follow_works_ahead_while_the_user_types(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the first decision of a match the advice within a budget the cold match answer would
    overrun is the match's when the user took the time the ponder needed to type his draw; a
    loop that does not ponder gives the set's."""

    class Typing(follow_cmd.Loop):
        """A user who types each line once the work ahead is done."""

        lines: ClassVar[list[str]] = []

        def read(self) -> str | None:
            if self.ponderer is not None:
                assert self.ponderer.wait(120)
            return self.lines.pop(0)

    objectives = []
    for ahead in (True, False):
        clear_shared_solvers()
        monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / f"cache-{ahead}"))  # (cold)
        screen = Screen(as_json=True, quiet=False)
        Typing.lines = ["5", "quit"]
        Typing(followed("kotor"), tmp_path / "follow.json", screen, 0.05, ponder=ahead).run()
        printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        advice = [obj for obj in printed if obj["type"] == "advice"]
        objectives.append(advice[0]["objective"])
    assert objectives == ["match", "set"]


def test_play_works_ahead_on_the_hint_while_the_person_types(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint ``h`` typed at the first move of a match, once the work ahead is done, is the
    match's within a budget the cold match answer would overrun (without it, this set's)."""

    class Typing(LineReader):
        """A person who types each command once the work ahead is done."""

        def __init__(self, screen: Any, lines: list[str]) -> None:
            super().__init__(False)
            self.screen, self.lines = screen, lines

        def read(self, prompt: str) -> str | None:
            if self.screen.ponderer is not None:
                assert self.screen.ponderer.wait(120)
            return self.lines.pop(0) if self.lines else None

    rules = parse_ruleset("kotor1")
    seats = (
        Seat(HUMAN, "You", "mine", tuple(parse_cards("+1 +1 +1 +1 +2 +2 +2 +2 +3 +3"))),
        Seat("kotor", "kotor", "ones", tuple(parse_cards(ONES))),
    )
    firsts = []
    for ahead in (True, False):
        clear_shared_solvers()
        monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / f"cache-{ahead}"))  # (cold)
        session = MatchSession.start(rules, seats, seed=1, wager=0, player_factory=computer_player)
        screen = play_cmd.Screen(session, tmp_path / "match.json", LineReader(False), 0.0)
        screen.reader = Typing(screen, ["h", "q"])
        screen.hint_seconds = 0.05
        screen.ponderer = Ponderer() if ahead else None
        assert screen.run() == 0
        shown = capsys.readouterr().out
        firsts.append(next(line for line in shown.splitlines() if line.startswith("Best for")))
    assert firsts[0].startswith("Best for the whole match")
    assert firsts[1].startswith("Best for this set only")
