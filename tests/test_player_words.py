"""What a player reads (issue 46, items 4 to 10): hints that name only what can be typed there
and say what they maximise, follow's refusal when a side stood by itself, the match summary,
plain words, the rough edges a new user met, and play's board. Where the behaviour is a
terminal's (wrapping to its width), the command runs on a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from pazaak_cli.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], lines: list[str] | None = None) -> Any:
    text = None if lines is None else "".join(f"{line}\n" for line in lines)
    return CliRunner().invoke(main, args, input=text, env={"NO_COLOR": "1"}, prog_name="pazaak")


def on_terminal(args: list[str], columns: int) -> str:
    """``pazaak ARGS`` with its output on a pseudo-terminal ``columns`` wide: what it prints."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "pazaak_cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # (the terminal closes with the process)
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def hint_block(stdout: str, typed: str = "h") -> str:
    return stdout.split(f"> {typed}\n")[1].split("\n> ")[0]


PLAY = ["play", "--deck", "kotor1-starter", "--opponent", "kotor", "--seed", "3", "--new"]


def test_the_hint_names_only_what_play_takes_and_says_what_it_maximises(tmp_path: Path) -> None:
    """Items 4 and 5: the hint said "(exact solve too large; --exact)" though play has no
    --exact; its first line now says what the best move maximises."""
    result = run([*PLAY, "--save", str(tmp_path / "m.json"), "--time", "0.05"], ["h", "q"])
    assert result.exit_code == 0, result.output
    hint = hint_block(result.stdout)
    assert hint.splitlines()[0] in (
        "Best for this set only: a card you play now is gone for the rest of the match.",
        "Best for the whole match: the odds of winning it, the cards kept for later sets counted.",
    )
    assert not re.search(r"--(exact|time|objective|hands)\b", hint), hint
    words = " ".join(hint.split())  # (what play takes, whichever note the hands solved call for)
    assert "h again for more time" in words or "; h to refine it." in words, words


def test_follow_names_only_what_follow_takes(tmp_path: Path) -> None:
    args = ["follow", "--hand", "+1 -2 ±3 +4", "--opp-deck", "kotor1-average", "--new"]
    result = run([*args, "--save", str(tmp_path / "f.json"), "--time", "0.05"], ["5", "quit"])
    assert result.exit_code == 0, result.output
    advice = result.stdout.split("You draw 5: total 5.\n")[1].split("\n[set 1]")[0]
    assert advice.startswith(("Best for this set only", "Best for the whole match"))
    assert not re.search(r"--(exact|time|objective|hands)\b", advice), advice
    assert "hint again for more time" in " ".join(advice.split())


def test_follow_says_a_side_at_20_stood_by_itself_and_that_the_line_was_dropped(
    tmp_path: Path,
) -> None:
    """Item 6: "7 +3 s" for an opponent at 10 reaches 20, which stands by itself: the refusal
    says so (it said "you must draw first") and that nothing of the line was taken; without the
    "s", the automatic stand is printed."""
    args = ["follow", "--hand", "+1 -2 ±3 +4", "--opp-deck", "kotor1-average", "--new"]
    args += ["--save", str(tmp_path / "f.json"), "--time", "0.01", "--quiet-advice"]
    args += ["--opponent", "optimal"]
    lines = ["5", "e", "10", "e", "3", "e", "7 +3 s", "7 +3", "quit"]
    result = run(args, lines)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert (
        "Refused: the opponent reached 20 with '+3' and stood by itself (20 always stands): "
        "nothing more is typed for the opponent this set; the whole line was dropped, nothing "
        "of it is taken: type it again without that." in out
    )
    assert "must draw first" not in out
    assert "Opponent plays +3: total 20. The opponent stands automatically at 20." in out


def test_the_match_summary_gives_the_winners_score_first(tmp_path: Path) -> None:
    """Item 7: "kotor beat You 2-3" read backwards; standing at once every set, You lose."""
    result = run([*PLAY, "--save", str(tmp_path / "m.json")], ["s"] * 60)
    summary = next(line for line in result.stdout.splitlines() if line.startswith("Summary:"))
    assert re.match(r"Summary: kotor beat You 3-[0-2] in \d+ sets", summary), summary


def test_the_set_table_says_win_loss_not_equity_and_the_sample_no_deal_weights() -> None:
    """Item 8: the screen's words; the JSON keeps the precise "equity"."""
    args = ["advise", "--main-deck", "infinite", "--table", "8 5", "--hand", "+1 -2"]
    args += ["--opp-table", "10", "--opp-hand-size", "4", "--objective", "set", "--hands", "3"]
    shown = run(args).stdout
    assert "win-loss" in shown and "equity" not in shown
    assert "deal weights" not in shown and "as often as its deck deals it" in shown
    assert '"equity"' in run([*args, "--json"]).stdout


def test_rules_takes_the_ruleset_as_an_argument() -> None:
    """Item 9: `pazaak rules kotor2` was "unexpected extra argument"."""
    result = run(["rules", "kotor2"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Ruleset kotor2\n")
    assert run(["rules", "kotor2", "--ruleset", "kotor1"]).exit_code == 2


def test_an_empty_deck_name_says_it_names_no_deck() -> None:
    result = run(["validate", ""])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "Error: '' names no deck: give a deck file, a sample deck's name (`pazaak decks` "
        "lists them) or - for standard input"
    )


def test_a_gold_card_under_kotor1_names_the_ruleset_that_has_it() -> None:
    result = run(["advise", "--table", "8 5", "--hand", "D", "--opp-table", "10", "--opp-stood"])
    assert result.exit_code == 2
    assert "D is not a kotor1 card: kotor2 has it (--ruleset kotor2)" in result.stderr


def test_a_usage_error_is_one_line() -> None:
    """The README says errors are one line; Click printed a usage banner over four."""
    for args in (["advise", "--bogus"], ["--bogus"], ["nosuch"], ["rules", "a", "b"]):
        result = run(args)
        assert result.exit_code == 2, args
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("Error: ")


def test_the_chart_picture_scales_to_its_window(tmp_path: Path) -> None:
    """The SVG had a fixed width of 1,345 pixels: now its viewBox alone sizes it."""
    out = tmp_path / "c.svg"
    args = ["chart", "--ruleset", "kotor1/main-deck=infinite", "--hand", "+2"]
    args += ["--opp-hand", "-1", "--my-totals", "15-16", "--opp-totals", "15-16"]
    assert run([*args, "--out", str(out)]).exit_code == 0
    head = re.search(r"<svg [^>]*>", out.read_text(encoding="utf-8"))
    assert head is not None
    assert 'width="100%"' in head.group(0) and "viewBox=" in head.group(0)
    assert not re.search(r' (width|height)="\d+"', head.group(0))


def test_the_sample_decks_cite_the_rules_the_project_has() -> None:
    for deck in (ROOT / "sample_decks").glob("*.deck"):
        text = deck.read_text(encoding="utf-8")
        assert "RULES.md" not in text, deck.name
        for cited in re.findall(r"(docs/[a-z]+\.md)", text):
            assert (ROOT / cited).is_file(), (deck.name, cited)


def test_play_has_a_board_with_the_main_decks_cards_left(tmp_path: Path) -> None:
    """Item 10: follow's board ("main deck 35 left (1:4 ...)"), in play too."""
    result = run([*PLAY, "--save", str(tmp_path / "m.json")], ["b", "q"])
    board = hint_block(result.stdout, "b").splitlines()
    assert re.fullmatch(
        r"Set 1; sets: You 0, kotor 0; main deck \d+ left \((\d+:\d ){9}10:\d\)\.", board[0]
    ), board[0]
    assert board[1].startswith("  You:   ") and "; hand " in board[1]
    assert board[2].startswith("  kotor: ") and "4 hand cards face down; played none" in board[2]
    assert "board" in run([*PLAY, "--save", str(tmp_path / "n.json")], ["?", "q"]).stdout


def test_advise_wraps_its_prose_to_the_terminal_and_keeps_the_table() -> None:
    """Item 9: advise's model line ran past the terminal, words broken by the terminal's edge;
    on a 60-column terminal it is wrapped at spaces, the table's rows left whole."""
    args = ["advise", "--main-deck", "infinite", "--table", "8 5", "--hand", "+1 -2"]
    args += ["--opp-table", "10", "--opp-hand-size", "4", "--objective", "set", "--hands", "3"]
    shown = on_terminal(args, 60)
    lines = shown.splitlines()
    model = next(i for i, line in enumerate(lines) if line.startswith("Model: "))
    assert len(lines[model]) <= 60 and lines[model + 1].startswith("  ")
    prose = [line for line in lines if "  " not in line.strip() and not line.startswith("--")]
    assert all(len(line) <= 60 for line in prose), shown
    assert any(line.startswith("best  end turn") for line in lines)


def test_decks_fits_an_80_column_terminal() -> None:
    """Item 9: `pazaak decks` printed about 175 columns; on a terminal it fits its width."""
    shown = on_terminal(["decks"], 80)
    assert "kotor2-very-hard" in shown
    assert max(len(line) for line in shown.splitlines()) <= 80
