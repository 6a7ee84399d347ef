"""``pazaak play``: whole matches played by piping commands, and everything that can go wrong.

The matches are driven through Click's CliRunner with fixed seeds; where a test needs a given
situation (a total over 20, a card played in the middle of a turn) it finds it by playing the
same seed with the library, so that the test does not depend on hand-copied numbers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pazaak_cli.cli import main
from pazaak_cli.commands import play_cmd
from pazaak_cli.commands.play_cmd import RECAP, computer_player
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.errors import IllegalActionError
from pazaak_cli.engine.game import END_TURN, FORFEIT, STAND, Action, Draw, MatchState, Play
from pazaak_cli.engine.notation import format_position, parse_position
from pazaak_cli.engine.position_builder import Question
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.runtime.savefile import DATA_DIR_ENV, read_save
from pazaak_cli.solve import answers, match_advice
from pazaak_cli.terminal import hint, lines, match_text
from pazaak_cli.terminal.lines import CLEAR_SCREEN
from pazaak_cli.terminal.text import wrap_lines
from pazaak_cli.tools.session import (
    HUMAN,
    CommandError,
    Event,
    MatchSession,
    Meta,
    Move,
    Seat,
    load_session,
    parse_command,
)

HERE = Path(__file__).parent
GOLDEN = HERE / "play_transcript_seed22.txt"
GOLDEN_COMMANDS = HERE / "play_transcript_seed22.commands"
ANSI = re.compile(r"\x1b\[")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real data directory; no test waits between computer moves."""
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    monkeypatch.delenv("NO_COLOR", raising=False)


def play(
    args: list[str], lines: list[str] | str | None = None, *, color: bool = False, **env: str
) -> Result:
    """Run ``pazaak play ARGS`` with ``lines`` piped in (a list is joined with newlines)."""
    text = lines if isinstance(lines, str) or lines is None else "".join(f"{x}\n" for x in lines)
    return CliRunner().invoke(main, ["play", *args], input=text, color=color, env=env or None)


EVENT = re.compile(
    r"^(?:(?:You|kotor|random|Player \d) (?:draws?|plays?|ends?|stands?|forfeits?) "
    r"|--- Set |.* wins? set |Set \d+ is a tie)"
)


def events(output: str) -> list[str]:
    """The event lines of a transcript (draws, moves, set results): what happened, in order."""
    return [line for line in output.splitlines() if EVENT.match(line)]


def without_recap(output: str) -> str:
    """A resumed transcript without its recap of the set so far (up to the first board)."""
    head, marker, rest = output.partition(f"{RECAP}\n")
    if not marker:
        return output
    return head + rest[rest.index("\nSet ") + 1 :]


def recap(output: str) -> list[str]:
    """The event lines of a resumed transcript's recap."""
    _, marker, rest = output.partition(f"{RECAP}\n")
    return events(rest[: rest.index("\nSet ")]) if marker else []


def library_session(
    seed: int, deck: str = "kotor1-starter", opponent: str = "kotor", ruleset: str = "kotor1"
) -> MatchSession:
    """The match the CLI plays for these options, built with the library."""
    rules = parse_ruleset(ruleset)
    mine = load_deck(deck, rules)
    theirs = load_deck(f"{ruleset}-average", rules)
    seats = (
        Seat(HUMAN, "You", mine.name, mine.cards),
        Seat(opponent, opponent, theirs.name, theirs.cards),
    )
    return MatchSession.start(rules, seats, seed=seed, wager=0, player_factory=computer_player)


def drive(session: MatchSession, policy: Callable[[MatchState], Action]) -> None:
    """Move on to the next point where the person must type a command."""
    while not session.finished and session.human_to_act() is None:
        session.advance()


def find_prompt(
    seed: int,
    wanted: Callable[[MatchState], bool],
    deck: str = "kotor1-starter",
    limit: int = 60,
) -> tuple[list[str], MatchState]:
    """The 'e' commands that lead (with this seed, ending every turn) to a prompt where
    ``wanted(state)`` holds, and that state."""
    session = library_session(seed, deck)
    commands: list[str] = []
    for _ in range(limit):
        drive(session, lambda s: END_TURN)
        if session.finished:
            break
        if wanted(session.state):
            return commands, session.state
        session.apply(END_TURN)
        commands.append("e")
    raise AssertionError(f"seed {seed}: no such prompt")


# -- a whole match, exactly -------------------------------------------------------------------


def test_golden_transcript_of_a_short_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 22 against the KOTOR I opponent, with a bad command, an illegal move and `state`
    among the moves: the transcript is exactly the one in the golden file."""
    commands = GOLDEN_COMMANDS.read_text(encoding="utf-8").splitlines()
    monkeypatch.chdir(tmp_path)  # the transcript names the save file as given: match.json
    result = CliRunner().invoke(
        main,
        ["play", "--deck", "kotor1-starter", "--opponent", "kotor", "--seed", "22"]
        + ["--wager", "50", "--save", "match.json"],
        input="".join(f"{c}\n" for c in commands),
    )
    saved = read_save(tmp_path / "match.json")
    if os.environ.get("PAZAAK_UPDATE_GOLDEN"):
        GOLDEN.write_text(result.stdout, encoding="utf-8")
    assert result.exit_code == 0, result.output
    assert result.stdout == GOLDEN.read_text(encoding="utf-8")
    assert saved["finished"] is True
    assert saved["result"]["winner"] == 1
    assert saved["result"]["wager"] == [50, -50]


def test_same_seed_and_commands_replay_the_same_match() -> None:
    script = ["e", "p 1", "e", "s", "e", "e", "s"] * 12
    first = play(["--deck", "kotor1-starter", "--opponent", "random", "--seed", "5"], script)
    second = play(["--deck", "kotor1-starter", "--opponent", "random", "--seed", "5"], script)
    assert first.exit_code == 0
    assert first.stdout == second.stdout
    other = play(["--deck", "kotor1-starter", "--opponent", "random", "--seed", "6"], script)
    assert events(other.stdout) != events(first.stdout)


@pytest.mark.parametrize("opponent", ["kotor", "heuristic", "stand17", "random", "expert"])
def test_a_whole_match_ends_with_winner_sets_wager_and_summary(
    opponent: str, tmp_path: Path
) -> None:
    save = tmp_path / "m.json"
    result = play(
        ["--deck", "kotor1-strongest", "--opponent", opponent, "--seed", "3"]
        + ["--wager", "10", "--save", str(save)],
        ["s"] * 200,
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert re.search(r"=== Match over: (You win|\w+ wins), \d sets to \d", out)
    assert re.search(r"Wager settled: You [+-]10 credits, \w+ [+-]10 credits\.", out)
    assert re.search(r"^Summary: .* beat .* 3-\d|^Summary: .* beat .* \d-3", out, re.M)
    assert f"The finished match is saved in {save}." in out
    assert read_save(save)["finished"] is True


def test_kotor2_match_with_gold_cards_plays_to_the_end(tmp_path: Path) -> None:
    script = ["p 1 +", "s", "p 1", "e", "p 2 -", "s"] * 40
    result = play(
        ["--ruleset", "kotor2", "--deck", "kotor2-very-hard", "--opponent", "kotor"]
        + ["--seed", "8", "--save", str(tmp_path / "m.json")],
        script,
    )
    assert result.exit_code == 0, result.output
    assert "=== Match over" in result.stdout
    assert "Traceback" not in result.output


# -- commands -----------------------------------------------------------------------------------


def _first_board(seed: int = 22) -> MatchState:
    session = library_session(seed)
    drive(session, lambda s: END_TURN)
    return session.state


def test_every_bad_command_gets_one_clear_line_and_the_match_goes_on(tmp_path: Path) -> None:
    """At seed 22's first prompt the hand is +2 +2 +1 +3 and the total 6."""
    state = _first_board()
    assert [str(c) for c in state.sides[0].hand] == ["+2", "+2", "+1", "+3"]
    hand = "your hand is 1) +2  2) +2  3) +1  4) +3"
    allowed = "allowed now: play a card (p 1..4), end (e), stand (s)"
    cases = {
        "xyzzy": "'xyzzy' is not a command: e end, s stand, p N play, h hint, b board, state, "
        "? help, forfeit, q quit",
        "e now": f"'e' takes nothing after it; {allowed}",
        "help me": f"'help' takes nothing after it; {allowed}",
        "h set": "'h' takes nothing after it but match (h m: the odds of winning the match, "
        f"however long they take); {allowed}",
        "p": f"Play which card? write p N: {hand}",
        "p 9": f"There is no hand card 9: {hand}",
        "p 0": f"There is no hand card 0: {hand}",
        "p x": f"'x' is neither a hand card number nor a card: {hand}",
        "p 1 -": "+2 can only be played as +2: write p 1",
        "p 1 +3": "+2 can only be played as +2: write p 1",
        "p 1 + +": f"Too many words after play: write p N, p N + or p N - ({hand})",
        "p +5": f"You hold no +5: {hand}",
        "p -1": f"You hold no -1: {hand}",
        "p ±2 -": f"You hold no ±2: {hand}",
        "2": f"'2' is not a command: to play a card write p 2; {allowed}",
        "+3": f"'+3' is not a command: to play a card write p +3; {allowed}",
        "p1": f"'p1' is not a command: write p 1, with a space after p; {allowed}",
        "P2 -": f"'P2' is not a command: write p 2 -, with a space after p; {allowed}",
        "p+3": f"'p+3' is not a command: write p +3, with a space after p; {allowed}",
        "x" * 2000: "That line is over 1000 characters: type a command",
        "\x00": "'\\x00' is not a command: e end, s stand, p N play, h hint, b board, state, "
        "? help, forfeit, q quit",  # (a lone NUL: not taken for the mark of a line too long)
        "p 1 up": "'up' is not a sign or a value: write p 1",
        "p 1 2": "A value needs its sign (+2 or -2): write p 1",
    }
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)]
    result = play(args, [*cases, "", "q"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for command, message in cases.items():
        shown = command if len(command) < 1000 else command[:40] + "..."
        at = next(i for i, line in enumerate(lines) if line == f"> {shown}")
        assert lines[at + 1] == message, command
        assert lines[at + 2].startswith("> "), "the match goes on with the next prompt"
    # Nothing was played: the saved position is still the first prompt's.
    assert read_save(save)["position"] == format_position(state)


def test_illegal_moves_at_the_table_are_refused_with_the_reason(tmp_path: Path) -> None:
    """A second card in one turn, and a stand over 20 (the position is found by playing)."""
    commands, over = find_prompt(
        22,
        lambda s: s.sides[0].total > 20 and len(s.sides[0].hand) >= 2,
        deck="kotor1-strongest",
    )
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-strongest", "--seed", "22", "--save", str(save)]
    result = play(args, [*commands, "s", "p 1 -", "p 1 -", "s", "q"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    total = over.sides[0].total
    assert (
        f"> s\nYou cannot stand on {total}: it is over 20; allowed now: play a card "
        f"(p 1..{len(over.sides[0].hand)}), end (e)\n> p 1 -\n"
    ) in out
    assert "over 20: play a card to come back (p N), or the turn ends in a bust." in out
    assert ("> p 1 -\nYou have already played a hand card this turn; allowed now: end (e)") in out


def test_play_commands_are_case_insensitive_and_accept_card_names(tmp_path: Path) -> None:
    state = _first_board()
    result = play(
        ["--deck", "kotor1-starter", "--seed", "22", "--save", str(tmp_path / "m.json")],
        ["P +3", "E"],
    )
    assert "> P +3\nYou play +3: total 9." in result.stdout
    assert "> E\nYou end the turn on 9." in result.stdout
    assert state.sides[0].total == 6


def test_help_lists_every_command(tmp_path: Path) -> None:
    result = play(["--deck", "kotor1-starter", "--seed", "1"], ["help", "q"])
    for usage in ("end (e)", "stand (s)", "play N [+|-] (p)", "hint (h)", "state", "help (?)"):
        assert usage in result.stdout
    assert "forfeit" in result.stdout and "quit (q)" in result.stdout


def test_state_prints_the_players_view_in_the_notation(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    result = play(["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)], ["state"])
    view = load_session(save, computer_player).view(0)
    assert f"> state\n{format_position(view)}\n" in result.stdout
    assert ",?,?,?" in format_position(view), "the opponent's hand is hidden"


def test_empty_line_does_nothing(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    result = play(["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)], ["", "  "])
    assert result.stdout.count("Your move") == 1
    assert "> \n>   \n> \nEnd of input." in result.stdout


def test_forfeit_asks_first_and_settles_the_wager(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-starter", "--seed", "22", "--wager", "30", "--save", str(save)]
    result = play(args, ["forfeit", "no", "forfeit", "yes"])
    out = result.stdout
    assert result.exit_code == 0
    assert "Forfeit the match and 30 credits? Type yes to confirm: no\nNot forfeited" in out
    assert "You forfeit the match." in out
    assert "=== Match over: kotor wins, You forfeited with the sets at 0 - 0. ===" in out
    assert "Wager settled: You -30 credits, kotor +30 credits." in out
    assert "Summary: You forfeited to kotor at 0-0, 30 credits to kotor" in out  # (not "in 0 sets")
    document = read_save(save)
    assert document["finished"] is True
    assert document["result"]["forfeited"] == 1
    huge = play([*args[:4], "--wager", "1" + "0" * 22, "--new"], ["q"])  # (a wager is bounded)
    assert huge.exit_code == 2 and "give a whole number from 0 to 1,000,000,000" in huge.stderr


def test_hint_shows_the_solvers_table_for_the_players_view(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_advise(question: Question, options: Any) -> str:
        seen["view"], seen["options"] = question.state, options
        return "advice"

    monkeypatch.setattr(answers, "solve_question", fake_advise)
    monkeypatch.setattr(hint, "render_advice", lambda advice, asks, note=None: f"TABLE OF {advice}")
    result = play(["--deck", "kotor1-starter", "--seed", "22", "--time", "0"], ["hint", "q"])
    assert "> hint\nTABLE OF advice\n" in result.stdout
    assert seen["view"].sides[1].hand == (None, None, None, None)
    assert [str(c) for c in seen["options"].opponent_deck] == str(
        load_deck("kotor1-average")
    ).split()


def test_hint_with_the_real_solver_ranks_every_move_of_the_position(tmp_path: Path) -> None:
    """Against the KOTOR I computer the hint is the exact best reply to its rule (its model line
    says so); once it stands, the answer is quick."""
    commands, state = find_prompt(22, lambda s: s.sides[1].standing)
    save = tmp_path / "m.json"
    result = play(
        ["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)], [*commands, "h"]
    )
    hint = result.stdout.split("> h\n")[1].split("\n> ")[0].splitlines()
    assert hint[0].startswith("Best for ")
    model = next(i for i, line in enumerate(hint) if line.startswith("Model: "))
    assert hint[model].startswith("Model: kotor1: opponent plays the KOTOR I rule")
    assert f"stood on {state.sides[1].total}" in " ".join(hint[model : model + 4])
    rule = next(i for i, line in enumerate(hint) if line.startswith("----"))
    moves = [line for line in hint[rule + 1 :] if line.startswith(("best ", "      "))]
    assert moves[0].startswith("best ")
    assert any("end turn" in line for line in moves) and any("stand" in line for line in moves)
    assert all(re.search(r"(\d+\.\d\d +){3}[+-]\d+\.\d\d$", line) for line in moves)


def test_the_hints_model_line_is_wrapped_to_the_terminal_width() -> None:
    """The model line of a hidden hand is longer than a terminal: it is wrapped at spaces to
    COLUMNS, continued indented by two, and says all it said (the game asked at 50 columns; the
    same line wrapped again at 80 and 120, as the game would, without solving it again)."""
    commands, _ = find_prompt(22, lambda s: not s.sides[1].standing and bool(s.sides[1].table))
    args = ["--deck", "kotor1-starter", "--seed", "22", "--time", "0"]
    result = play(args, [*commands, "h"], COLUMNS="50")
    hint = result.stdout.split("> h\n")[1].split("\n> ")[0].splitlines()
    start = next(i for i, line in enumerate(hint) if line.startswith("Model: "))
    cut = next(i for i, line in enumerate(hint) if line.split()[:1] == ["move"])
    said = " ".join(line.strip() for line in hint[start:cut])
    assert said.startswith("Model: kotor1: opponent plays the KOTOR I rule")
    assert "hidden cards averaged over 61 possible hands" in said
    assert said.endswith("(counting each card as it goes is too large to solve).")
    assert "--exact" not in said  # (play has no such option)
    table = "\n".join(hint[cut:])
    for columns, shown in (
        (50, "\n".join(hint[start:])),
        (80, wrap_lines(f"{said}\n{table}", 80)),
        (120, wrap_lines(f"{said}\n{table}", 120)),
    ):
        lines = shown.splitlines()
        model = lines[: next(i for i, line in enumerate(lines) if line.split()[:1] == ["move"])]
        assert len(model) > 1 and all(line.startswith("  ") for line in model[1:]), columns
        assert max(len(line) for line in model) <= columns
        assert " ".join(line.strip() for line in model) == said
        assert "\n".join(lines[len(model) :]) == table


def test_hint_match_answers_for_the_match_and_later_hints_reuse_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hidden hand past the default's limit makes the plain hint answer for the set (the limit
    lowered to 64 pairs here: two cards against two hidden starter cards are 84); `h m` asks for
    the match however long it takes, and the hints after it find the match states solved and
    answer for the match by default."""
    monkeypatch.setattr(match_advice, "QUICK_MATCH_PAIRS", 64)
    rules = "kotor1/main-deck=infinite,sets-to-win=2,hand-size=2"
    args = ["--ruleset", rules, "--opponent", "stand17", "--deck", "kotor1-starter"]
    result = play([*args, "--seed", "22", "--time", "0"], ["h", "h m", "HINT MATCH", "h", "q"])
    assert result.exit_code == 0, result.output
    parts = re.split(r"\n> (?:h|h m|HINT MATCH)\n", result.stdout)[1:]
    hints = [part.split("\n> ")[0] for part in parts]
    columns = [next(line.split() for line in hint.splitlines() if "move" in line) for hint in hints]
    assert columns[0] == ["move", "win", "%", "tie", "%", "loss", "%", "win-loss"]
    match = ["move", "match", "win", "%", "set", "win", "%", "tie", "%", "loss", "%"]
    assert columns[1:] == [match, match, match]
    assert hints[1].split("\n", 1)[1] == hints[2].split("\n", 1)[1] == hints[3].split("\n", 1)[1]


def test_a_failing_solver_gives_one_line_and_the_match_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken_advise(question: Question, options: Any) -> str:
        raise TypeError("bad table")

    monkeypatch.setattr(answers, "solve_question", broken_advise)
    result = play(["--deck", "kotor1-starter", "--seed", "22", "--time", "0"], ["hint", "e", "q"])
    assert result.exit_code == 0
    assert (
        "> hint\nNo hint: the solver failed (TypeError: bad table); please report it.\n> e\n"
    ) in result.stdout


def test_ctrl_c_during_a_hint_cancels_only_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_hint(*args: Any, **kwargs: Any) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(play_cmd, "hint_text", slow_hint)
    result = play(["--deck", "kotor1-starter", "--seed", "22", "--time", "0"], ["hint", "e", "q"])
    assert result.exit_code == 0
    assert "> hint\nHint cancelled; the match goes on.\n> e\nYou end the turn on 6." in (
        result.stdout
    )


# -- nothing is lost: EOF, quit, Ctrl-C, resume ---------------------------------------------------


def test_eof_in_the_middle_of_a_turn_saves_and_resume_continues_it(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)]
    first = play(args, ["e", "p 1"])
    assert first.exit_code == 0
    assert first.stdout.endswith(
        f"> \nEnd of input. The match is saved in {save}; resume it with: "
        f"pazaak play --resume {save}\n"
    )
    position = read_save(save)["position"]
    assert parse_position(position).played, "saved after the card, before the end of the turn"
    resumed = play(["--resume", str(save)], ["e", "q"])
    assert resumed.exit_code == 0
    assert f"Resuming the match saved in {save} (set 1, You 0 - 0 kotor, kotor1, seed 22)." in (
        resumed.stdout
    )
    assert f"{RECAP}\nYou play +2: total 12.\nSet 1 (" in resumed.stdout
    assert "card played; e end, s stand." in resumed.stdout
    assert "> e\nYou end the turn on 12." in resumed.stdout


def test_quit_saves_and_says_how_to_resume_from_the_default_file() -> None:
    result = play(["--deck", "kotor1-starter", "--seed", "22"], ["q"])
    assert result.exit_code == 0
    default = Path(os.environ[DATA_DIR_ENV]) / "match.json"
    assert f"> q\nThe match is saved in {default}; resume it with: pazaak play --resume\n" in (
        result.stdout
    )
    again = play(["--resume"], ["q"])
    assert again.exit_code == 0
    assert f"Resuming the match saved in {default}" in again.stdout


SCRIPT = ["e", "p 1", "e", "s", "e", "p 2 -", "e", "e", "s", "p 1 +", "e", "s"] * 10


@pytest.mark.parametrize("opponent", ["kotor", "random"])
@pytest.mark.parametrize("where", [1, 2, 0.35, 0.6, -1])
def test_resume_after_interruption_continues_like_an_uninterrupted_match(
    tmp_path: Path, opponent: str, where: float
) -> None:
    """Stop after some commands (the first, in the middle of a turn, later sets, the last
    one), resume with the rest: the same cards come, the computer makes the same choices, the
    match ends the same way."""
    args = ["--deck", "kotor1-strongest", "--opponent", opponent, "--seed", "31"]
    whole = play([*args, "--save", str(tmp_path / "whole.json")], SCRIPT)
    answered = whole.stdout.count("\n> ")
    cut = int(where) if where >= 1 else int(answered * where) if where > 0 else answered - 1
    assert 0 < cut < answered
    split = tmp_path / "split.json"
    head = play([*args, "--save", str(split)], SCRIPT[:cut])
    tail = play(["--resume", str(split)], SCRIPT[cut:])
    assert whole.exit_code == head.exit_code == tail.exit_code == 0
    assert "End of input." in head.stdout
    full, resumed = read_save(tmp_path / "whole.json"), read_save(split)
    assert full["finished"] is True
    assert resumed["moves"] == full["moves"]
    assert resumed["rng"] == full["rng"]
    assert events(head.stdout) + events(without_recap(tail.stdout)) == events(whole.stdout)
    # The recap: what happened from the person's last move (or the set's opening) on.
    shown = recap(tail.stdout)
    assert shown == events(head.stdout)[-len(shown) :]
    assert shown[0].startswith(("You ", "--- Set "))
    assert not any(re.match(r"You (play|end|stand) ", line) for line in shown[1:])


def test_ctrl_c_saves_exits_130_and_the_match_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)]
    calls = {"n": 0}
    real_read = lines.LineReader.read

    def interrupted(self: Any, prompt: str) -> str | None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_read(self, prompt)

    monkeypatch.setattr(lines.LineReader, "read", interrupted)
    result = play(args, ["e", "e", "e", "e"])
    assert result.exit_code == 130
    assert f"Interrupted. The match is saved in {save}; resume it with:" in result.stdout
    monkeypatch.setattr(lines.LineReader, "read", real_read)
    whole = play([*args[:-1], str(tmp_path / "whole.json")], ["e", "e", "e", "q"])
    resumed = play(["--resume", str(save)], ["e", "q"])
    assert resumed.exit_code == 0
    assert read_save(save)["moves"] == read_save(tmp_path / "whole.json")["moves"]
    assert events(result.stdout) + events(without_recap(resumed.stdout)) == events(whole.stdout)


def test_resuming_a_finished_match_says_so(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    play(["--deck", "kotor1-starter", "--seed", "1", "--save", str(save)], ["s"] * 60)
    before = save.read_bytes()
    result = play(["--resume", str(save)])
    assert result.exit_code == 0
    assert result.stdout.startswith(
        f"The match saved in {save} is over; there is nothing to resume.\n=== Match over:"
    )
    assert save.read_bytes() == before


def test_unfinished_match_in_the_way_of_a_new_one(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)]
    play(args, ["e"])
    before = save.read_bytes()
    refused = play(args, ["q"])
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Error: an unfinished match is saved in {save}: continue it with `pazaak play "
        f"--resume {save}`, or start a new one with --new (it replaces it)\n"
    )
    assert save.read_bytes() == before
    replaced = play([*args, "--new"], ["q"])
    assert replaced.exit_code == 0
    assert read_save(save)["moves"] != json.loads(before)["moves"]


def test_on_a_terminal_an_unfinished_match_can_be_resumed_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save = tmp_path / "m.json"
    args = ["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)]
    play(args, ["e"])
    monkeypatch.setattr(play_cmd, "stdin_is_terminal", lambda: True)
    result = play(args, ["maybe", "", "r", "q"])
    assert f"An unfinished match is saved in {save} (set 1, You 0 - 0 kotor)." in result.stdout
    # (the options typed for a new match are named: a resume would not use them, and an empty
    # answer does not choose for the person)
    assert (
        "Resumed, it keeps its own settings: --deck and --seed would not be used; a new match "
        "(n) uses them and replaces it." in result.stdout
    )
    assert result.stdout.count("Type r to resume the saved match or n to start a new one.") == 2
    assert f"Resuming the match saved in {save}" in result.stdout
    plain = play(["--save", str(save)], ["", "q"])  # (nothing typed for a new one: [R/n])
    assert "Resume it (r) or replace it with a new match (n)? [R/n]" in plain.stdout
    assert f"Resuming the match saved in {save}" in plain.stdout
    replaced = play(["--deck", "kotor1-starter", "--seed", "5", "--save", str(save)], ["n", "q"])
    assert "Pazaak: You (kotor1-starter) against kotor" in replaced.stdout
    assert read_save(save)["seed"] == 5


# -- bad save files -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json at all", "is not a pazaak save file: it is not JSON (left untouched)"),
        (b'{"format": "pazaak-match", "version": 1, "mo', "is a corrupt pazaak save file"),
        (b'{"hello": 1}', "is not a pazaak save file: it has no"),
    ],
)
def test_corrupt_or_foreign_save_is_an_error_and_left_untouched(
    tmp_path: Path, content: bytes, message: str
) -> None:
    save = tmp_path / "m.json"
    save.write_bytes(content)
    resumed = play(["--resume", str(save)], ["e"])
    assert resumed.exit_code == 1
    assert resumed.stderr.startswith(f"Error: {save} ")
    assert message in resumed.stderr
    assert resumed.stderr.count("\n") == 1
    assert "Traceback" not in resumed.output
    new = play(["--deck", "kotor1-starter", "--save", str(save), "--new"], ["q"])
    assert new.exit_code == 1, "a new match never overwrites a file that is not a pazaak save"
    assert save.read_bytes() == content


def test_tampered_save_is_corrupt(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    play(["--deck", "kotor1-starter", "--seed", "22", "--save", str(save)], ["e", "e"])
    document = json.loads(save.read_text(encoding="utf-8"))
    document["moves"][3] = "draw 10"
    save.write_text(json.dumps(document), encoding="utf-8")
    before = save.read_bytes()
    result = play(["--resume", str(save)], ["e"])
    assert result.exit_code == 1
    assert "is a corrupt pazaak save file" in result.stderr
    assert save.read_bytes() == before


def test_resume_without_a_save_is_a_usage_error(tmp_path: Path) -> None:
    result = play(["--resume", str(tmp_path / "none.json")])
    assert result.exit_code == 2
    assert result.stderr == f"Error: there is no saved match at {tmp_path / 'none.json'}\n"


@pytest.mark.parametrize(
    "extra", [["--deck", "kotor1-starter"], ["--seed", "3"], ["--opponent", "expert"]]
)
def test_resume_refuses_options_that_would_change_the_match(
    tmp_path: Path, extra: list[str]
) -> None:
    result = play(["--resume", str(tmp_path / "m.json"), *extra])
    assert result.exit_code == 2
    assert f"{extra[0]} cannot be used with --resume" in result.stderr


# -- decks and seats ------------------------------------------------------------------------------


def test_missing_deck_on_a_pipe_uses_the_default_and_says_so() -> None:
    result = play(["--seed", "1"], ["q"])
    assert result.stdout.startswith(
        "No --deck given: you play the default deck kotor1-starter "
        "(+1 +1 +2 +2 +3 +3 +4 +4 +5 +5).\nPazaak: You (kotor1-starter) against kotor "
        "(kotor1-average)\n"
    )


def test_missing_deck_on_a_terminal_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_cmd, "stdin_is_terminal", lambda: True)
    result = play(["--seed", "1"], ["no-such-deck", "kotor1-strong", "q"])
    out = result.stdout
    assert "Choose your side deck: a sample deck name or a deck file. The samples:" in out
    assert re.search(r"^  kotor1-starter +\S", out, re.M)
    # (the descriptions in one column, past the longest name, kotor1-plusminus-middle)
    listed = [line for line in out.splitlines() if re.match(r"  kotor[12]-", line)]
    assert len({len(line) - len(line[2:].split(maxsplit=1)[1]) for line in listed}) == 1
    assert "no-such-deck" in out and "Type a sample name" in out
    assert "Pazaak: You (kotor1-strong) against kotor (kotor1-average)" in out


def test_end_of_input_at_the_deck_question_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_cmd, "stdin_is_terminal", lambda: True)
    result = play(["--seed", "1"], "")
    assert result.exit_code == 1
    assert result.stderr == "Error: no deck chosen: no match was started\n"
    assert not (Path(os.environ[DATA_DIR_ENV]) / "match.json").exists()


def test_deck_header_chooses_the_ruleset(tmp_path: Path) -> None:
    result = play(["--deck", "kotor2-very-hard", "--seed", "1"], ["q"])
    assert "Ruleset kotor2, first to 3 sets, seed 1." in result.stdout
    assert "kotor (kotor2-average)" in result.stdout


def test_deck_from_standard_input_is_refused_because_it_carries_the_commands() -> None:
    result = play(["--deck", "-"], ["+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"])
    assert result.exit_code == 2
    assert "--deck - cannot be used: standard input carries the commands" in result.stderr


def test_invalid_deck_is_a_domain_error(tmp_path: Path) -> None:
    deck = tmp_path / "bad.deck"
    deck.write_text("+1 +2 +3\n", encoding="utf-8")
    result = play(["--deck", str(deck)], ["q"])
    assert result.exit_code == 1
    assert str(deck) in result.stderr and "Traceback" not in result.output
    # (which option, as every command's deck options say: two decks are given here)
    assert result.stderr.startswith(f"Error: invalid side deck for --deck: {deck}:1:")
    result = play(["--deck", "kotor1-starter", "--opp-deck", "kotor2-hard"], ["q"])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: invalid kotor1 side deck for --opp-deck: sample:kotor2-hard"
    )


def test_an_unreadable_deck_is_a_usage_error_naming_its_option(tmp_path: Path) -> None:
    result = play(["--deck", "kotor1-starter", "--opp-deck", str(tmp_path)], ["q"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: Invalid value for '--opp-deck': {tmp_path}: is a directory, not a deck file\n"
    )


def test_hot_seat_shows_each_hand_only_on_its_owners_turn() -> None:
    result = play(
        ["--opponent", "human", "--deck", "kotor1-starter", "--opp-deck", "kotor1-strong"]
        + ["--seed", "4"],
        ["e", "e", "p 1", "e", "s", "s"] * 10,
    )
    out = result.stdout
    boards = out.split("Set ")
    shown = 0
    for board in boards:
        move = re.search(r"^(Player \d)'s move", board, re.M)
        if not move:
            continue
        mover = move.group(1)
        other = "Player 2" if mover == "Player 1" else "Player 1"
        assert re.search(rf"^  {mover}'s hand: (1\) |\(empty\))", board, re.M)
        assert re.search(rf"{other}'s hand: \d cards? face down", board)
        assert not re.search(rf"{other}'s hand: 1\)", board)
        shown += 1
    assert shown > 10
    assert "Player 2's move" in out and "Player 1's move" in out


def test_hot_seat_on_a_terminal_clears_the_screen_between_players(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(play_cmd, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(lines, "stdout_is_terminal", lambda: True)
    result = play(
        ["--opponent", "human", "--deck", "kotor1-starter", "--opp-deck", "kotor1-starter"]
        + ["--seed", "4"],
        ["e", "", "e", "", "q"],
        NO_COLOR="1",
    )
    out = result.stdout
    assert out.count(CLEAR_SCREEN) == 4
    assert "Player 2's turn (Player 1, look away). Player 2, press Enter to see your hand." in out
    after = out.split(CLEAR_SCREEN)[2]
    assert "Player 1 ends the turn on" in after, "what happened is shown again after the clear"
    assert "Player 1's hand: 1)" not in after


def test_resumed_hot_seat_on_a_terminal_hands_over_before_any_hand_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save = tmp_path / "m.json"
    args = ["--opponent", "human", "--deck", "kotor1-starter", "--opp-deck", "kotor1-starter"]
    play([*args, "--seed", "4", "--save", str(save)], ["e"])
    monkeypatch.setattr(play_cmd, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(lines, "stdout_is_terminal", lambda: True)
    result = play(["--resume", str(save)], ["", "q"])
    before_enter = result.stdout.split("press Enter to see your hand.")[0]
    assert "hand: 1)" not in before_enter
    assert "Player 2's hand: 1)" in result.stdout


# -- output -----------------------------------------------------------------------------------


def test_colour_only_when_asked_and_never_with_no_color() -> None:
    args = ["--deck", "kotor1-starter", "--seed", "22", "--new"]
    assert not ANSI.search(play(args, ["q"]).output)
    assert ANSI.search(play(args, ["q"], color=True).output)
    assert not ANSI.search(play(args, ["q"], color=True, NO_COLOR="1").output)


def test_computer_moves_are_paced_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []
    monkeypatch.setattr(time, "sleep", pauses.append)  # the module play_cmd sleeps with
    play(["--deck", "kotor1-starter", "--seed", "22", "--delay", "0.25"], ["e", "q"])
    assert pauses == [0.25, 0.25], "kotor's draw, then its end of turn"
    pauses.clear()
    play(["--deck", "kotor1-starter", "--seed", "22", "--new"], ["e", "q"])
    assert pauses == [], "no pause when the output is not a terminal"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    script=st.lists(
        st.sampled_from(
            ["e", "s", "p 1", "p 2 -", "p 3 +", "p ±1 -", "p 9", "E", "S", "", "junk", "state"]
        ),
        max_size=40,
    ),
)
def test_any_script_plays_cleanly_and_leaves_a_loadable_save(seed: int, script: list[str]) -> None:
    """Whatever is typed: exit 0, no traceback, and a save that loads to a consistent match."""
    save = Path(os.environ[DATA_DIR_ENV]) / f"fuzz-{seed}.json"
    save.parent.mkdir(parents=True, exist_ok=True)
    result = play(
        ["--deck", "kotor1-strongest", "--opponent", "random", "--seed", str(seed), "--new"]
        + ["--save", str(save)],
        script,
    )
    assert result.exit_code == 0, result.output
    session = load_session(save, computer_player)
    assert format_position(session.state) == read_save(save)["position"]


# -- the command parser, on positions written in the notation ----------------------------------


def position(
    tables: str, hands: str, flags: str = "a1 1", ruleset: str = "kotor2/hand-size=5"
) -> MatchState:
    """A kotor2 position (five cards dealt) with player 1 to move; the deck is what the tables
    leave."""
    text = f"{ruleset} {tables} {hands} -- - {_deck_for(tables)} {flags}"
    return parse_position(text)


def _deck_for(tables: str) -> str:
    counts = [4] * 10
    for token in tables.replace(" ", ",").split(","):
        if token.isdigit():
            counts[int(token) - 1] -= 1
    return "".join(str(c) for c in counts)


@pytest.mark.parametrize(
    ("line", "played"),
    [
        ("p 1 -", "±3 as -3"),
        ("p 1 +", "±3 as +3"),
        ("p ±3 -", "±3 as -3"),
        ("p +-3 +", "±3 as +3"),
        ("p ±3-", "±3 as -3"),
        ("p *3 -", "±3 as -3"),
        ("p -3", "±3 as -3"),
        ("p 2 +2", "±1/2 as +2"),
        ("p ±1/2 -1", "±1/2 as -1"),
        ("p vv -2", "±1/2 as -2"),
        ("p 3", "D as +5"),
        ("p d", "D as +5"),
        ("PLAY $$", "D as +5"),
        ("p 4", "F2/4 as +0"),
        ("p f2/4", "F2/4 as +0"),
        ("p 5 -", "T as -1"),
        ("p t +", "T as +1"),
    ],
)
def test_play_resolves_numbers_card_names_and_signs(line: str, played: str) -> None:
    state = position("7,5 4", "±3,±1/2,D,F2/4,T ?,?,?,?")
    command = parse_command(line, state.observed_by(0))
    assert isinstance(command, Move)
    action = command.action
    assert isinstance(action, Play)
    assert f"{action.card} as {action.value:+d}" == played


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("p 1", "±3 needs a sign: write p 1 + or p 1 -"),
        ("p 2", "±1/2 needs a value: write p 2 +1 or p 2 +2 or p 2 -1 or p 2 -2"),
        ("p 1 0", "±3 is not played as 0: write p 1 + or p 1 -"),
        (
            "p 4 0",
            "F2/4 takes no sign: it flips the signs of the 2s and 4s on your table: write p 4",
        ),
        ("p 2 +", "±1/2 can be played in more ways: write p 2 +1 or p 2 +2 or p 2 -1 or p 2 -2"),
        ("p 2 +3", "±1/2 cannot be played as +3: write p 2 +1 or p 2 +2 or p 2 -1 or p 2 -2"),
        ("p 5", "T needs a sign: write p 5 + or p 5 -"),
        (
            "p 4 +",
            "F2/4 takes no sign: it flips the signs of the 2s and 4s on your table: write p 4",
        ),
        ("p 3 -", "D takes no sign: it doubles your last card (= +5 here): write p 3"),
        ("p ±3- -", "'±3-' already says the sign; write p ±3 - or p N -"),
        ("p -1", "you hold no -1 but several cards can make -1: p 2 -1 (±1/2) or p 5 -1 (T)"),
        ("p ±6 +", "you hold no ±6: your hand is 1) ±3  2) ±1/2  3) D  4) F2/4  5) T"),
        ("p 6", "there is no hand card 6: your hand is 1) ±3  2) ±1/2  3) D  4) F2/4  5) T"),
    ],
)
def test_play_refuses_ambiguous_or_impossible_cards_with_the_right_spelling(
    line: str, message: str
) -> None:
    state = position("7,5 4", "±3,±1/2,D,F2/4,T ?,?,?,?", ruleset="kotor2/hand-size=5")
    with pytest.raises(CommandError) as caught:
        parse_command(line, state.observed_by(0))
    assert str(caught.value) == message


def test_stand_over_20_and_a_second_card_are_refused() -> None:
    over = position("10,9,5 4,3", "-3,+2 ?,?,?,?")
    with pytest.raises(CommandError, match=r"^you cannot stand on 24: it is over 20; allowed "):
        parse_command("s", over)
    played = position("10,5,+2 4", "-3 ?,?,?,?", flags="p1 1")
    with pytest.raises(CommandError, match="already played a hand card this turn"):
        parse_command("p 1", played)
    empty = position("10,5 4", "- ?,?,?,?")
    with pytest.raises(CommandError, match=r"^your hand is empty; allowed now: end \(e\), stand"):
        parse_command("p 1", empty)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", Meta.NOTHING),
        ("   ", Meta.NOTHING),
        ("HINT", Meta.HINT),
        ("h", Meta.HINT),
        ("State", Meta.STATE),
        ("?", Meta.HELP),
        ("Forfeit", Meta.FORFEIT),
        ("Q", Meta.QUIT),
        ("end", Move(END_TURN)),
        ("S", Move(STAND)),
    ],
)
def test_commands_have_short_and_long_case_insensitive_forms(line: str, expected: Any) -> None:
    state = position("7,5 4", "+1 ?,?,?,?")
    assert parse_command(line, state) == expected


def test_a_person_cannot_move_for_the_computer_or_for_chance() -> None:
    session = library_session(22)
    with pytest.raises(IllegalActionError):
        session.apply(END_TURN)  # the match has not started: chance opens the set
    drive(session, lambda s: END_TURN)
    with pytest.raises(IllegalActionError, match="chance's move"):
        session.apply(Draw(5))
    session.apply(FORFEIT)
    assert session.winner() == 1


def test_cards_played_in_earlier_sets_are_public_and_counted() -> None:
    """The solver's prior over the computer's hidden hand needs the cards it played in the
    sets before the current one: checked at every prompt of a whole match."""
    session = library_session(7, deck="kotor1-strongest")
    finished_sets: list[Card] = []
    this_set: list[Card] = []
    checked = 0
    while not session.finished:
        seat = session.human_to_act()
        if seat is None:
            event = session.advance()
        else:
            assert list(session.cards_played_in_earlier_sets(1)) == finished_sets
            checked += 1
            total = session.state.sides[seat].total
            event = session.apply(STAND if 16 <= total <= 20 else END_TURN)
        if isinstance(event.action, Play) and event.actor == 1:
            this_set.append(event.action.card)
        if event.after.phase is not event.before.phase and event.after.phase.value == "set over":
            finished_sets += this_set
            this_set = []
    assert checked > 5


# -- what the screen says about each kind of event ----------------------------------------------

SEATS = (
    Seat(HUMAN, "You", "mine", parse_cards("±1 ±2 ±3 ±4 ±5 ±6 +1 +2 +3 +4")),
    Seat("kotor", "kotor", "theirs", parse_cards("±1 ±2 ±3 ±4 ±5 ±6 +1 +2 +3 +4")),
)


def _state(rules: str, t1: str, t2: str, h1: str, h2: str, stands: str, turn: str) -> MatchState:
    return parse_position(
        f"{rules} {t1} {t2} {h1} {h2} {stands} - {_deck_for(t1 + ' ' + t2)} {turn} 1"
    )


def _card_play(state: MatchState, card: str, value: int) -> Play:
    return next(
        a
        for a in state.legal_actions()
        if isinstance(a, Play) and str(a.card) == card and a.value == value
    )


def _action(state: MatchState, move: str) -> Action:
    """``end``, ``stand``, ``forfeit`` or a card with its value (``T+1``, ``D+5``)."""
    named: dict[str, Action] = {"end": END_TURN, "stand": STAND, "forfeit": FORFEIT}
    if move in named:
        return named[move]
    return _card_play(state, move[:-2], int(move[-2:]))


@pytest.mark.parametrize(
    ("start", "move", "said"),
    [
        (
            ("kotor2", "7,5", "4", "D,F2/4,T,+1", "?,?,?,?", "--", "a1"),
            "D+5",
            "You play D (copies +5): total 17.",
        ),
        (
            ("kotor2", "7,4", "4", "D,F2/4,T,+1", "?,?,?,?", "--", "a1"),
            "F2/4+0",
            "You play F2/4 (flips the 2s and 4s): total 3.",
        ),
        (
            ("kotor2", "7,5", "4", "D,F2/4,T,+1", "?,?,?,?", "--", "a1"),
            "T-1",
            "You play T as -1: total 11.",
        ),
        (
            ("kotor1", "10,5", "4", "+5,+1", "?,?", "--", "a1"),
            "+5+5",
            "You play +5: total 20, stand automatically.",
        ),
        (
            ("kotor1", "10,9,5", "4,2", "-3,+1", "?,?", "--", "a1"),
            "end",
            "You end the turn on 24 and bust.",
        ),
        (("kotor1", "4,2", "10,5,2", "?,?", "-3,+1", "S-", "a2"), "stand", "kotor stands on 17."),
        (
            ("kotor1", "4,2", "10,5,2", "?,?", "-3,+1", "S-", "a2"),
            "forfeit",
            "kotor forfeits the match.",
        ),
    ],
)
def test_each_event_is_told_in_one_line(start: tuple[str, ...], move: str, said: str) -> None:
    before = _state(*start)
    action = _action(before, move)
    event = Event(before.turn, action, before, before.child(action))
    assert [click.unstyle(line) for line in match_text.describe_event(SEATS, event)] == [said]


@pytest.mark.parametrize(
    ("start", "moves", "result"),
    [
        (
            ("kotor1", "10,8", "10,5,9", "?,?", "-3,+1", "S-", "a2"),
            ["end"],
            "You win set 1: kotor busts with 24.",
        ),
        (
            ("kotor1", "10,8", "10,5,2", "?,?", "-3,+1", "S-", "a2"),
            ["stand"],
            "You win set 1, 18 to 17.",
        ),
        (
            ("kotor1", "10,8", "10,5,3", "?,?", "-3,+1", "S-", "a2"),
            ["stand"],
            "Set 1 is a tie at 18: nobody scores.",
        ),
        (
            ("kotor2", "10,8", "10,7", "?,?", "T,+1", "S-", "a2"),
            ["T+1", "stand"],
            "kotor wins set 1: the tiebreaker breaks the tie at 18.",
        ),
        (
            ("kotor2", "10,8", "1,1,1,1,2,2,2,3", "?,?", "+1", "S-", "a2"),
            ["+1+1"],
            "kotor wins set 1 with nine cards on the table.",
        ),
    ],
)
def test_the_end_of_a_set_shows_the_tables_and_the_reason(
    start: tuple[str, ...], moves: list[str], result: str
) -> None:
    state = _state(*start)
    for move in moves:
        state = state.child(_action(state, move))
    lines = [click.unstyle(line) for line in match_text.set_over_lines(SEATS, state)]
    assert len(lines) == 3, "both tables, then the result"
    assert lines[0].startswith("  You ") and lines[1].startswith("  kotor ")
    assert lines[2].startswith(result + "  Sets: ")


# -- save targets, locks and unusable paths (issue 12 items 1, 2, 7, 8, 9) ------------------------


def _unfinished(save: Path, seed: int) -> bytes:
    play(["--deck", "kotor1-starter", "--seed", str(seed), "--save", str(save)], ["e"])
    assert read_save(save)["finished"] is False
    return save.read_bytes()


def test_resume_never_writes_over_another_unfinished_match_or_a_foreign_file(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    _unfinished(first, 22)
    other = _unfinished(second, 5)
    refused = play(["--resume", str(first), "--save", str(second)], ["e"])
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Error: an unfinished match is saved in {second}: resuming {first} there would replace "
        f"it; choose another --save file, or continue that match with `pazaak play --resume "
        f"{second}`\n"
    )
    assert second.read_bytes() == other
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"my notes\n")
    foreign = play(["--resume", str(first), "--save", str(notes)], ["e"])
    assert foreign.exit_code == 1
    assert "is not a pazaak save file" in foreign.stderr
    assert notes.read_bytes() == b"my notes\n"


def test_resume_may_save_over_a_finished_match_a_new_file_or_itself(tmp_path: Path) -> None:
    first, done, fresh = tmp_path / "a.json", tmp_path / "done.json", tmp_path / "fresh.json"
    _unfinished(first, 22)
    play(["--deck", "kotor1-starter", "--seed", "1", "--save", str(done)], ["s"] * 60)
    assert read_save(done)["finished"] is True
    for target in (done, fresh, tmp_path / "." / "a.json"):
        result = play(["--resume", str(first), "--save", str(target)], ["q"])
        assert result.exit_code == 0, result.output
        assert read_save(target)["moves"] == read_save(first)["moves"]


def _pazaak(*args: str, data: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NO_COLOR": "1", DATA_DIR_ENV: str(data), "LC_ALL": "C.UTF-8"}
    return subprocess.Popen(
        [sys.executable, "-m", "pazaak_cli", "play", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_for_prompt(process: subprocess.Popen[str]) -> None:
    """Read the first process's output until its first "> " prompt: it holds the save then."""
    assert process.stdout is not None
    seen = ""
    while not seen.endswith("> "):
        char = process.stdout.read(1)
        assert char, f"the first session ended early: {seen}"
        seen += char


def test_a_second_session_on_the_same_save_is_refused_and_a_killed_one_frees_it(
    tmp_path: Path,
) -> None:
    """Two real processes: the second is refused at once (exit 1) while the first plays on; a
    session killed with SIGKILL leaves no lock behind."""
    save = tmp_path / "m.json"
    _unfinished(save, 22)
    first = _pazaak("--resume", str(save), data=tmp_path / "data")
    try:
        _wait_for_prompt(first)
        before = save.read_bytes()
        second = _pazaak("--resume", str(save), data=tmp_path / "data")
        out, err = second.communicate("e\ne\nq\n", timeout=60)
        assert second.returncode == 1, out + err
        assert err == (
            f"Error: the match saved in {save} is open in another pazaak play: finish or quit "
            "that one first (two sessions on one save would lose each other's moves)\n"
        )
        assert save.read_bytes() == before
        new = _pazaak("--deck", "kotor1-starter", "--save", str(save), "--new", data=tmp_path)
        assert new.communicate("q\n", timeout=60)[1].startswith("Error: the match saved in")
        assert new.returncode == 1
        first.kill()  # SIGKILL: no clean-up runs
        first.wait(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
        first.communicate(timeout=60)
    third = _pazaak("--resume", str(save), data=tmp_path / "data")
    out, err = third.communicate("e\nq\n", timeout=60)
    assert third.returncode == 0, out + err
    assert len(read_save(save)["moves"]) > len(json.loads(before)["moves"])


def test_a_clean_session_leaves_no_lock_file(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    _unfinished(save, 22)
    play(["--resume", str(save)], ["e", "q"])
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_NUMBER = b'{"format": "pazaak-match", "version": 1, "seed": ' + b"9" * 5000 + b"}"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (DEEP, "is not a pazaak save file: its JSON nested too deep (left untouched)"),
        (HUGE_NUMBER, "is a corrupt pazaak save file: its JSON holds a number too long"),
    ],
)
def test_an_unreadable_default_save_is_left_untouched_and_new_still_works(
    content: bytes, message: str
) -> None:
    save = Path(os.environ[DATA_DIR_ENV]) / "match.json"
    save.parent.mkdir(parents=True)
    save.write_bytes(content)
    for args in (["--resume"], ["--deck", "kotor1-starter"]):
        refused = play(args, ["q"])
        assert refused.exit_code == 1, refused.output
        assert refused.stderr.startswith(f"Error: {save} ")
        assert message in refused.stderr
        assert refused.stderr.count("\n") == 1
        assert save.read_bytes() == content
    new = play(["--deck", "kotor1-starter", "--seed", "3", "--new"], ["q"])
    assert new.exit_code == 0, new.output
    aside = save.with_name("match.json.corrupt")
    assert new.stdout.startswith(
        f"The save file {save} cannot be read ({message.split(' (left')[0]}"
    )
    assert f"it is kept, byte for byte, as {aside}, and the new match is saved in {save}." in (
        new.stdout
    )
    assert aside.read_bytes() == content
    assert read_save(save)["seed"] == 3


@pytest.mark.parametrize("option", ["--save", "--resume"])
def test_a_name_too_long_is_one_line_and_exit_2(tmp_path: Path, option: str) -> None:
    path = tmp_path / ("x" * 300)
    args = [option, str(path)] + (["--deck", "kotor1-starter"] if option == "--save" else [])
    result = play(args, ["q"])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: cannot use {path}: File name too long\n"


def test_a_long_name_that_fits_is_saved(tmp_path: Path) -> None:
    """250 bytes fit a name; the lock and temporary files must fit too."""
    path = tmp_path / ("y" * 250)
    result = play(["--deck", "kotor1-starter", "--save", str(path)], ["e", "q"])
    assert result.exit_code == 0, result.output
    assert read_save(path)["moves"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("option", ["--save", "--resume"])
def test_a_directory_that_cannot_be_searched_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    """Root ignores permissions, so the PermissionError that ``Path.exists`` raises under a
    directory without search permission is simulated."""
    locked = tmp_path / "locked"

    def refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
        if locked in (self, *self.parents) and self != locked:
            raise PermissionError(13, "Permission denied", str(self))
        return original(self, *args, **kwargs)

    locked.mkdir()  # (there: a folder that does not exist is refused before it is searched)
    original = Path.stat
    monkeypatch.setattr(Path, "stat", refuse)
    path = locked / "m.json"
    args = [option, str(path)] + (["--deck", "kotor1-starter"] if option == "--save" else [])
    result = play(args, ["q"])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: cannot use {path}: Permission denied\n"


@pytest.mark.parametrize(
    "delay", ["nan", "inf", "-inf", "1e300", "-1", "10.5", "\N{SUPERSCRIPT TWO}"]
)
def test_a_delay_that_is_not_a_short_finite_pause_is_refused_at_once(delay: str) -> None:
    result = play(["--delay", delay, "--deck", "kotor1-starter"], ["q"])
    assert result.exit_code == 2
    assert (
        f"Invalid value for '--delay': {delay!r} is not a number of seconds from 0 to 10"
        in result.stderr
    )
    assert not (Path(os.environ[DATA_DIR_ENV]) / "match.json").exists()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("p \N{SUPERSCRIPT TWO}", "'\N{SUPERSCRIPT TWO}' is neither a hand card number nor a card"),
        ("p 1 +\N{SUPERSCRIPT TWO}", "is not a sign or a value"),
        ("p \N{ARABIC-INDIC DIGIT ONE}", "is neither a hand card number nor a card"),
        ("p \N{FULLWIDTH DIGIT ONE}", "is neither a hand card number nor a card"),
        ("p " + "9" * 500, "here is no hand card 99999999999999999..."),
        ("\N{SUPERSCRIPT TWO}", "is not a command"),
    ],
)
def test_digits_of_other_scripts_are_refused_and_the_match_goes_on(line: str, said: str) -> None:
    result = play(["--deck", "kotor1-starter", "--seed", "22"], [line, "e", "q"])
    assert result.exit_code == 0, result.output
    assert said in result.stdout
    assert "Traceback" not in result.output
    assert "> e\n" in result.stdout


def test_a_save_whose_ruleset_has_other_digits_is_corrupt(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    _unfinished(save, 22)
    document = json.loads(save.read_text(encoding="utf-8"))
    document["ruleset"] = "kotor1/target=\N{SUPERSCRIPT TWO}\N{SUPERSCRIPT ZERO}"
    save.write_text(json.dumps(document), encoding="utf-8")
    before = save.read_bytes()
    result = play(["--resume", str(save)], ["e"])
    assert result.exit_code == 1
    assert "is a corrupt pazaak save file: field 'ruleset'" in result.stderr
    assert "target must be a whole number from 1 to 50" in result.stderr
    assert save.read_bytes() == before


@pytest.mark.parametrize("opponent", ["match-expert", "expert", "set-expert"])
@pytest.mark.parametrize("terminal", [True, False])
def test_a_status_line_shows_while_a_match_player_thinks_on_a_terminal(
    opponent: str, terminal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The match players solve match tables for new hands; the set player never waits long."""
    monkeypatch.setattr(play_cmd, "stderr_is_terminal", lambda: terminal)
    rules = "kotor1/main-deck=infinite,target=4,table-size=3,sets-to-win=2,hand-size=2"
    args = ["--ruleset", rules, "--deck", "kotor1-starter", "--opponent", opponent]
    result = play([*args, "--seed", "4"], ["e"] * 30)
    assert result.exit_code == 0, result.output
    assert any(line.startswith(f"{opponent} ") for line in events(result.stdout))
    line = f"{opponent} is thinking (the first moves with new hands take longer)..."
    if opponent == "set-expert":
        assert "thinking" not in result.stderr
    elif terminal:
        # Shown before each of its moves, then blanked out so the board is not disturbed.
        assert result.stderr.count(line) >= 1
        assert result.stderr.count(line) == result.stderr.count("\r" + " " * len(line) + "\r")
    else:
        assert "thinking" not in result.stderr


def test_the_hints_note_past_the_budget_names_the_preparation_of_this_match() -> None:
    """The hint's note where the match answer does not fit names the ``pazaak prepare``
    command for this match: both sample decks by name, and the opponent's rule."""
    session = library_session(1)
    assert hint.play_asks(session, 0).prepare == (
        "pazaak prepare --deck kotor1-starter --opp-deck kotor1-average --opponent kotor"
    )
    expert = library_session(1, opponent="expert", ruleset="kotor2")
    assert hint.play_asks(expert, 0).prepare == (
        "pazaak prepare -r kotor2 --deck kotor1-starter --opp-deck kotor2-average"
    )


def test_a_match_saved_before_its_first_set_opens_resumes_at_set_1(tmp_path: Path) -> None:
    """A save with no moves yet (written as the match starts; the process ended there, its
    output cut by `| head`) was resumed as "set 0"."""
    save = tmp_path / "m.json"
    library_session(4).save(save)
    assert read_save(save)["moves"] == []
    resumed = play(["--resume", str(save)], ["q"])
    assert resumed.stdout.startswith(
        f"Resuming the match saved in {save} (set 1, You 0 - 0 kotor, kotor1, seed 4)."
    )
