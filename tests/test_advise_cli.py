"""``pazaak advise``: the table for people, the JSON for scripts, and one clear line (never a
traceback) for every position that cannot be."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.game import Phase
from pazaak_cli.engine.notation import parse_position
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.solve.hidden_hands import possible_hands

ESCAPE = "\x1b["
STOOD = ["--table", "8 5", "--hand", "+1 -2 ±3 +4", "--opp-table", "10 7", "--opp-stood"]
"""The README example: 13 against a standing 17, four hand cards."""


def advise(*args: str, color: bool = False, env: dict[str, str] | None = None) -> Result:
    """``pazaak advise`` on the SET objective unless the test names one: these tests hold the
    set answer's numbers (the match answer has its own, tests/test_match_advice.py)."""
    if "--objective" not in args:
        args = ("--objective", "set", *args)
    result = CliRunner().invoke(main, ["advise", *args], color=color, env=env, prog_name="pazaak")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def advise_json(*args: str) -> dict[str, Any]:
    result = advise(*args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def error_line(result: Result) -> str:
    """The one error line of a failed command (Click's usage banner aside)."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


# ------------------------------------------------------------------------------------------------
# The human table.


def test_the_table_states_the_position_and_model_then_lists_every_move_best_first() -> None:
    result = advise(*STOOD)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "Your table 8 5; opponent's 10 7, stands. It opened: you are player 2 (kotor1: player 1 "
        "opens every set)."
    )
    assert lines[1] == (
        "Best for this set only: a card you play now is gone for the rest of the match."
    )
    assert lines[2] == (
        "Model: kotor1: opponent stood on 17; exact 36-card deck, drawn without replacement."
    )
    assert lines[3].split() == ["move", "win", "%", "tie", "%", "loss", "%", "win-loss"]
    rows = lines[5:]
    assert len(rows) == 12  # end, stand, and 5 plays (±3 both ways) each with end or stand
    assert rows[0].split()[:3] == ["best", "end", "turn"]
    assert rows[1].startswith("best  play -2, end turn")
    assert rows[0].split()[-4:] == ["100.00", "0.00", "0.00", "+100.00"]
    assert not any(row.startswith("best") for row in rows[2:])
    equities = [float(row.split()[-1]) for row in rows]
    assert equities == sorted(equities, reverse=True)
    assert any("play ±3 as -3, end turn" in row for row in rows)
    assert any(row.split()[-4:] == ["0.00", "100.00", "0.00", "+0.00"] for row in rows)  # 17-17


def test_a_forced_draw_to_20_has_one_move_that_says_why() -> None:
    result = advise("--table", "10 10", "--hand", "+1", "--opp-table", "10", "--opp-stood")
    assert result.exit_code == 0
    rows = result.stdout.splitlines()[5:]
    assert len(rows) == 1
    assert rows[0].split()[:5] == ["best", "stand", "(automatic", "stand", "at"]


def test_a_ninth_card_wins_under_kotor2() -> None:
    data = advise_json(
        "-r", "kotor2", "--table", "1 1 2 2 1 3 2 1 3", "--opp-table", "10", "--opp-stood"
    )
    assert [(m["then"], m["note"], m["p_win"]) for m in data["moves"]] == [
        ("stand", "ninth card: wins the set", 1.0)
    ]


def test_a_table_filled_under_a_smaller_size_is_not_called_the_ninth_card() -> None:
    result = advise(
        "-r",
        "kotor1/table-size=2",
        "--table",
        "5 5",
        "--hand",
        "+1",
        "--opp-table",
        "6",
        "--opp-hand",
        "-1",
    )
    assert result.exit_code == 0, result.output
    assert "stand (table full at 2 cards: automatic stand)" in result.output
    assert "ninth" not in result.output


def test_a_bust_without_a_rescue_is_the_only_move() -> None:
    data = advise_json("--table", "9 8 7", "--hand", "+1", "--opp-table", "10 9", "--opp-stood")
    assert {(m["card"], m["then"]) for m in data["moves"]} == {(None, "bust"), ("+1", "bust")}
    assert all(m["p_loss"] == 1.0 for m in data["moves"])


# ------------------------------------------------------------------------------------------------
# JSON.

MOVE_KEYS = {"card", "value", "then", "p_win", "p_tie", "p_loss", "equity", "best"}


def test_json_has_the_documented_shape() -> None:
    data = advise_json(*STOOD)
    assert {"ruleset", "model", "moves"} <= set(data)
    assert data["ruleset"] == "kotor1"
    assert data["model"].startswith("kotor1: opponent stood on 17")
    assert data["hands_averaged"] == 1 and data["fixed_probabilities"] is False
    moves = data["moves"]
    assert len(moves) == 12
    for move in moves:
        assert set(move) >= MOVE_KEYS
        assert move["then"] in ("end", "stand", "bust")
        assert (move["card"] is None) is (move["value"] is None)
        assert isinstance(move["best"], bool)
        assert abs(move["p_win"] + move["p_tie"] + move["p_loss"] - 1) < 1e-12
        assert abs(move["equity"] - (move["p_win"] - move["p_loss"])) < 1e-12
    assert [m["best"] for m in moves[:3]] == [True, True, False]
    assert (moves[0]["card"], moves[0]["then"]) == (None, "end")
    assert {(m["card"], m["value"]) for m in moves} == {
        (None, None),
        ("+1", 1),
        ("-2", -2),
        ("±3", 3),
        ("±3", -3),
        ("+4", 4),
    }


def test_json_gives_a_gold_cards_value_as_played() -> None:
    data = advise_json(
        "-r", "kotor2", "--table", "9 5", "--hand", "D F2/4 T", "--opp-table", "10 7", "--opp-stood"
    )
    values = {(m["card"], m["value"]) for m in data["moves"]}
    assert {("D", 5), ("F2/4", None), ("T", 1), ("T", -1), (None, None)} == values


def test_json_is_never_coloured() -> None:
    result = advise(*STOOD, "--json", color=True)
    assert result.exit_code == 0 and ESCAPE not in result.stdout
    json.loads(result.stdout)


def test_the_best_mark_is_coloured_on_a_terminal_but_not_with_no_color() -> None:
    coloured = advise(*STOOD, color=True)
    assert coloured.exit_code == 0 and ESCAPE in coloured.stdout
    plain = advise(*STOOD, color=True, env={"NO_COLOR": "1"})
    assert plain.exit_code == 0 and ESCAPE not in plain.stdout
    assert plain.stdout == advise(*STOOD).stdout


# ------------------------------------------------------------------------------------------------
# Models and ways of giving the position.


def test_a_position_in_notation_gives_the_same_answer_as_the_flags() -> None:
    by_flags = advise_json(
        "--table", "3 2 5", "--hand", "+1 -2 ±3 +4", "--opp-table", "10 7", "--opp-stood"
    )
    by_notation = advise_json("--position", "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1")
    assert by_flags["moves"] == by_notation["moves"]
    assert by_flags["model"] == by_notation["model"]


@pytest.mark.parametrize(
    ("given", "flag"),
    [
        (["--ruleset", "kotor2"], "--ruleset"),
        (["--sets", "1-1"], "--sets"),
        (["--hand", "+1"], "--hand"),
        (["--opp-hand-size", "3"], "--opp-hand-size"),
        (["--opp-stood"], "--opp-stood"),
        (["--seen", "1 1"], "--seen"),
    ],
)
def test_an_option_the_position_already_gives_is_refused_not_ignored(
    given: list[str], flag: str
) -> None:
    """A tester's `--position ... --ruleset kotor2` was answered for the notation's kotor1."""
    result = advise("--position", "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1", *given)
    assert result.exit_code == 2
    assert f"{flag} cannot be used with --position: the notation gives the whole" in result.output


@pytest.mark.parametrize(
    ("given", "flag"),
    [
        (["--opp-deck", "kotor1-average"], "--opp-deck"),
        (["--hands", "3"], "--hands"),
        (["--seed", "4"], "--seed"),
    ],
)
def test_the_options_of_a_hidden_hand_are_refused_where_it_is_known(
    given: list[str], flag: str
) -> None:
    """They changed nothing there, silently: a script setting --hands believed it sampled."""
    known = ["--table", "10 9", "--hand", "+1", "--opp-table", "10 8", "--opp-hand", "-1"]
    result = advise(*known, *given)
    assert result.exit_code == 2
    assert f"{flag} cannot be used with a known opponent hand (--opp-hand)" in result.output
    notation = advise("--position", "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1", *given)
    assert notation.exit_code == 2
    assert "known opponent hand (the position's opponent hand)" in notation.output
    assert advise(*known).exit_code == 0
    stood = advise("--table", "8 5", "--hand", "+1", "--opp-table", "10 7", "--opp-stood", *given)
    assert stood.exit_code == 2  # (no --opp-hand given: the message says what made it known)
    assert "(--opp-stood without --opp-hand-size: it is taken to hold no cards)" in stood.output
    empty = advise("--table", "10 9", "--hand", "+1", "--opp-table", "10 8", "--opp-hand-size", "0")
    assert empty.exit_code == 0  # (it named --opp-stood, which was not given)
    assert (
        "(--opp-hand-size 0: an empty hand is known)"
        in advise(
            "--table", "10 9", "--hand", "+1", "--opp-table", "10 8", "--opp-hand-size", "0", *given
        ).output
    )


def test_json_position_reads_back_as_the_question_before_the_draw() -> None:
    data = advise_json(*STOOD)
    state = parse_position(data["position"])
    me = state.sides[state.turn]
    assert state.phase is Phase.BEFORE_DRAW and data["drawn"] == 5
    assert [str(card) for card in me.table] == ["8"]
    assert state.sides[1 - state.turn].standing and state.sides[1 - state.turn].total == 17
    # and it asks the same question again, given with the card drawn (alone it is refused,
    # saying so: a new user pasted it back and was told the phase was wrong)
    again = advise_json("--position", data["position"], "--drawn", str(data["drawn"]))
    assert again["moves"] == data["moves"] and again["position"] == data["position"]
    alone = advise("--position", data["position"])
    assert alone.exit_code == 1
    assert "before the draw (phase d): give the card then drawn with --drawn N" in alone.output
    assert advise(*STOOD, "--drawn", "5").exit_code == 2  # (--drawn goes with a position)
    four_fives = "kotor1 5,5 5,5 +1,+1,+1,+1 +2,+2,+2,+2 -- - 4444044444 d1 1"
    refused = advise("--position", four_fives, "--drawn", "5")
    assert refused.exit_code == 1
    assert (
        error_line(refused)
        == "Error: no 5 is left in the main deck of the position: 5 cannot be drawn"
    )
    assert advise("--position", four_fives, "--drawn", "4").exit_code == 0


def test_a_hidden_hand_is_averaged_over_its_decks_possible_hands() -> None:
    deck = "kotor1-strong"
    data = advise_json(
        "--table", "10 6", "--hand", "-2", "--opp-table", "9 8 -2",
        "--opp-hand-size", "2", "--opp-deck", deck,
    )  # fmt: skip
    cards = list(load_deck(deck, parse_ruleset("kotor1")).cards)
    expected = len(possible_hands(cards, 2, parse_cards("-2")))
    assert data["hands_averaged"] == expected
    assert f"averaged over {expected} possible hands" in data["model"]


def test_a_hidden_hand_defaults_to_the_rulesets_sample_deck() -> None:
    data = advise_json("--table", "10 6", "--opp-table", "9 8", "--opp-hand-size", "1")
    starter = load_deck("kotor1-starter", parse_ruleset("kotor1")).cards
    assert data["hands_averaged"] == len(possible_hands(list(starter), 1)) == 5
    # and it says which deck it took (a new user could not tell the default was assumed)
    assert data["opp_deck"] == "kotor1-starter"
    shown = advise("--table", "10 6", "--opp-table", "9 8", "--opp-hand-size", "1").output
    assert shown.startswith(
        "Your table 10 6; opponent's 9 8, its 1 hidden card dealt from kotor1-starter."
    )
    assert advise_json(*STOOD)["opp_deck"] is None  # (a known hand: none)


def test_a_played_card_the_opponents_deck_cannot_make_names_that_decks_cards() -> None:
    """No --opp-deck: the starter deck is taken, and the refusal said only "its side deck"."""
    refused = advise("--table", "8 5", "--hand", "+1", "--opp-table", "10 +6")
    assert refused.exit_code == 1
    assert error_line(refused) == (
        "Error: the opponent's table shows +6, which no card left in its side deck "
        "(+1 +1 +2 +2 +3 +3 +4 +4 +5 +5) could have made"
    )


def test_both_hands_known_on_a_finite_deck_may_use_fixed_probabilities_and_says_so() -> None:
    args = ["--table", "6 3", "--hand", "+1 -2", "--opp-table", "4", "--opp-hand", "+2 -3"]
    data = advise_json(*args)
    assert data["fixed_probabilities"] is True
    assert "cards drawn at the odds of the deck as it is now" in data["model"]
    assert "(counting each card as it goes is too large to solve)" in data["model"]
    shown = advise(*args).output  # (the table adds what asks for the exact deck)
    assert "is too large to solve; --exact tries it)" in shown


def test_main_deck_infinite_overrides_the_ruleset() -> None:
    data = advise_json(*STOOD, "--main-deck", "infinite")
    assert data["ruleset"] == "kotor1/main-deck=infinite"
    assert data["model"].endswith("infinite deck (uniform 1..10)")


def test_seen_cards_leave_the_deck() -> None:
    data = advise_json(*STOOD, "--seen", "1 2 3 4")
    assert "exact 32-card deck" in data["model"]


def test_help_has_examples_and_the_first_one_runs() -> None:
    result = advise("--help")
    assert result.exit_code == 0 and "Examples:" in result.stdout
    assert 'pazaak advise --table "8 5" --hand "+1 -2 ±3 +4"' in result.stdout


def test_a_played_card_on_an_infinite_deck_is_advised() -> None:
    result = advise(
        "-r", "kotor2/main-deck=infinite", "--table", "9 5 +3", "--opp-table", "10 8", "--opp-stood"
    )
    assert result.exit_code == 0, result.output


def test_a_played_card_on_the_shared_deck_leaves_end_or_stand() -> None:
    data = advise_json("--table", "9 5 +3", "--hand", "-1", "--opp-table", "10 8", "--opp-stood")
    assert {(m["card"], m["then"]) for m in data["moves"]} == {(None, "end"), (None, "stand")}


# ------------------------------------------------------------------------------------------------
# Errors: one line, exit 2 for what was typed wrong, exit 1 for positions that cannot be.


@pytest.mark.parametrize(
    ("args", "option", "token"),
    [
        (["--table", "7 x", "--opp-stood"], "--table", "'x'"),
        (["--table", "7 11", "--opp-stood"], "--table", "'11'"),
        (["--table", "7", "--opp-table", "10 +9", "--opp-stood"], "--opp-table", "'+9'"),
        (["--table", "7", "--hand", "+1 q", "--opp-stood"], "--hand", "'q'"),
        (["--table", "7", "--opp-hand", "+7"], "--opp-hand", "'+7'"),
        (["--table", "7", "--opp-stood", "--seen", "3 11"], "--seen", "'11'"),
        (["--table", "7", "--opp-stood", "--sets", "2"], "--sets", "'2'"),
        (["--table", "7", "--hand", "F2/4", "--opp-stood"], "--hand", "F2/4"),
        (["--table", "7", "--opp-stood", "--ruleset", "kotor9"], "--ruleset", "'kotor9'"),
    ],
)
def test_a_bad_token_is_a_usage_error_naming_it_and_its_option(
    args: list[str], option: str, token: str
) -> None:
    result = advise(*args)
    assert result.exit_code == 2
    line = error_line(result)
    assert option in line and token in line


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--hand", "+1", "--opp-stood"], "give your table with --table"),
        (
            ["--table", "7", "--opp-hand", "+1", "--opp-hand-size", "2"],
            "either --opp-hand or --opp-hand-size",
        ),
        (["--table", "7", "--opp-table", "10", "--sets", "1-0"], "--opp-hand-size"),
        (
            ["--table", "7", "--position", "kotor1 7 - - - -- - 4444443444 a1 1"],
            "either --position or --table",
        ),
    ],
)
def test_missing_or_conflicting_options_are_usage_errors(args: list[str], words: str) -> None:
    result = advise(*args)
    assert result.exit_code == 2
    assert words in error_line(result)


IMPOSSIBLE = {
    "a table over 9 cards": (
        ["-r", "kotor1/main-deck=infinite", "--table", "1 1 1 1 1 1 1 1 1 1", "--opp-stood",
         "--opp-table", "10"],
        ("full table", "9 cards"),
    ),
    "a total over 20 for a player still drawing": (
        ["--table", "7", "--opp-table", "10 10 5", "--opp-hand", ""],
        "over 20",
    ),
    "an opponent on 20 who does not stand": (
        ["--table", "7", "--opp-table", "10 10", "--opp-hand", ""],
        "total is 20",
    ),
    "more hand cards than dealt": (
        ["--table", "5", "--hand", "+1 +2 +3 +4 +5", "--opp-table", "10", "--opp-stood"],
        "you have 5 cards in hand and played 0 this set: more than the 4 dealt",
    ),
    "a card played beside a full hand, where you opened": (
        ["--table", "7 +3 5", "--hand", "+1 +3 -1 +2", "--opp-table", "10 7", "--opp-stood"],
        "you have 4 cards in hand and played 1 this set: more than the 4 dealt",
    ),
    "main-deck cards out of turn": (
        ["--table", "5 5", "--hand", "+1", "--opp-table", "", "--opp-hand", "+1"],
        "your table shows 2 main-deck cards (the one you just drew included), the opponent's 0: "
        "while neither stands the players draw in turn",
    ),
    "fewer main-deck cards than a standing opponent": (
        ["--table", "5", "--hand", "+1", "--opp-table", "3 4", "--opp-stood"],
        "your table shows 1 main-deck card (the one you just drew included), the opponent's 2: "
        "the players draw in turn, and you draw on once the opponent stands",
    ),
    "more opponent cards than dealt": (
        ["--table", "5 2", "--opp-table", "10 +1 8", "--opp-hand-size", "4"],
        "the opponent has 4 cards in hand and played 1 this set: more than the 4 dealt",
    ),
    "a hidden hand larger than the ruleset deals": (
        ["--table", "5 2", "--opp-table", "10 8", "--opp-hand-size", "5"],
        "--opp-hand-size 5 is more than the 4 cards kotor1 deals to a hand (its hand-size)",
    ),
    "five 7s on the tables": (
        ["--table", "7 7 7", "--opp-table", "7 7", "--opp-stood"],
        "all four are already on the tables",
    ),
    "more than four of a value seen": (
        ["--table", "5", "--opp-table", "10", "--opp-stood", "--seen", "6 6 6 6 6"],
        "more than 4 cards of value 6",
    ),
    "a hand card not after a draw": (
        ["--table", "5 +3 +2", "--opp-table", "10", "--opp-stood"],
        "one hand card per turn",
    ),
    "tables that do not fit the turn order": (
        ["--table", "5 +1", "--opp-table", "10 5", "--opp-hand", ""],
        "draw in turn",
    ),
    "a match already won": (
        ["--table", "5", "--opp-table", "10", "--opp-stood", "--sets", "3-0"],
        "the match ends at 3",
    ),
    "an opponent standing before its first draw": (
        ["--table", "10 5", "--hand", "+1", "--opp-stood"],
        "cannot stand before his first draw",
    ),
    "an opponent standing on an empty table, in notation": (
        ["--position", "kotor1 10,5 - +1 - -S - 4444344443 a1 1"],
        "cannot stand before his first draw",
    ),
    "a KOTOR II opponent deck as the prior of a kotor1 game": (
        ["--table", "10 8", "--hand", "-3", "--opp-table", "6", "--opp-hand-size", "3",
         "--opp-deck", "kotor2-average"],
        "holds D, which is not in the kotor1 card pool",
    ),
    "an opponent card its deck cannot have played": (
        ["--table", "9 8", "--opp-table", "10 -6 4", "--opp-hand-size", "2",
         "--opp-deck", "kotor1-starter"],
        "-6",
    ),
}  # fmt: skip


def test_an_unreadable_position_is_a_usage_error() -> None:
    """A position string that cannot be read is a bad option value (exit 2), where one read but
    impossible is a domain failure (exit 1, below)."""
    result = advise("--position", "nonsense")
    assert result.exit_code == 2, result.output
    assert "10 fields" in error_line(result)


@pytest.mark.parametrize("name", list(IMPOSSIBLE))
def test_an_impossible_position_is_one_line_and_exit_1(name: str) -> None:
    args, words = IMPOSSIBLE[name]
    result = advise(*args)
    assert result.exit_code == 1, result.output
    line = error_line(result)
    assert any(word in line for word in ((words,) if isinstance(words, str) else words)), line
    assert "Usage:" not in result.stderr


def test_impossible_tables_are_explained_in_the_users_words() -> None:
    for args, _ in IMPOSSIBLE.values():
        line = error_line(advise(*args))
        assert "you has" not in line and "mark him" not in line and " he " not in line, line
        if "--position" not in args:  # (a seat the user gave none of: you and the opponent)
            assert not re.search(r"player \d", line), line


def test_the_hidden_hand_size_is_bounded_by_the_rulesets_hand_size(tmp_path: Path) -> None:
    """--opp-hand-size was bounded by 10, a preset's side deck, also under a variant that deals
    more (a usage error naming 10); the bound is the ruleset's hand-size, and named."""
    spec = "kotor1/side-deck-size=12,hand-size=12"
    deck = tmp_path / "twelve.deck"
    deck.write_text(f"ruleset: {spec}\n+1 +1 +2 +2 +3 +3 +4 +4 +5 +5 +6 +6\n", encoding="utf-8")
    position = ["--ruleset", spec, "--main-deck", "infinite", "--table", "8 5", "--hand", "+1"]
    position += ["--opp-table", "10 7", "--opp-stood", "--opp-deck", str(deck), "--time", "0"]
    eleven = advise(*position, "--opp-hand-size", "11")
    assert eleven.exit_code == 0, eleven.output
    assert "its 11 hidden cards dealt from" in eleven.stdout
    thirteen = advise(*position, "--opp-hand-size", "13")
    assert thirteen.exit_code == 1, thirteen.output
    assert error_line(thirteen) == (
        f"Error: --opp-hand-size 13 is more than the 12 cards {spec} deals to a hand "
        "(its hand-size)"
    )


STANDING_18 = ("--main-deck", "infinite", "--table", "10 9", "--hand", "+1", "--opp-table", "10 8")
MATCH_OBJECTIVE = ("--objective", "match")


def test_an_opponent_hand_size_left_out_is_the_first_sets_and_said_so() -> None:
    """A new player's first try: no --opp-hand-size. At 0-0 the opponent holds the 4 dealt
    less the hand cards on its table, and the answer says it took that; past the first set it
    cannot be counted, and is asked for (exit 2)."""
    args = ["--table", "6 5", "--hand", "+1 -2", "--opp-deck", "kotor1-average"]
    data = advise_json(*args, "--opp-table", "7 -3", "--objective", "set", "--hands", "2")
    assert data["position"].split()[4] == "?,?,?"
    assert data["note"].startswith(
        "The opponent's hand size was not given: taken as 3, the 4 dealt less the 1 on its table"
    )
    given = advise_json(*args, "--opp-table", "7 -3", "--objective", "set", "--hands", "2",
                        "--opp-hand-size", "3")  # fmt: skip
    assert given["moves"] == data["moves"] and given["note"] is None
    later = advise(*args, "--opp-table", "7 -3", "--sets", "1-0")
    assert later.exit_code == 2
    assert "past the first set the cards it holds cannot be counted" in later.output


def test_a_standing_opponent_without_a_hand_is_said_to_keep_no_cards() -> None:
    """The match answer needs what a standing opponent keeps for the later sets: when it is
    not given, the answer says that it took none."""
    result = advise(*STANDING_18, "--opp-stood", *MATCH_OBJECTIVE)
    assert result.exit_code == 0, result.output
    assert "The opponent's hand was not given" in result.output
    data = advise_json(*STANDING_18, "--opp-stood", *MATCH_OBJECTIVE)
    assert data["objective"] == "match" and "no hand cards" in data["note"]
    assert (
        advise_json(*STANDING_18, "--opp-stood", "--opp-hand", "-1", *MATCH_OBJECTIVE)["note"]
        is None
    )
    assert advise_json(*STANDING_18, "--opp-stood", "--objective", "set")["note"] is None


def test_a_standing_opponents_hidden_hand_is_averaged_over_its_deck() -> None:
    """--opp-hand-size with --opp-stood: the hand kept for the later sets is averaged over the
    deck's possible hands (the ruleset's sample deck by default), and matters: a card kept makes
    the stand worth less than none kept."""
    data = advise_json(*STANDING_18, "--opp-stood", "--opp-hand-size", "1", *MATCH_OBJECTIVE)
    assert "averaged over 5 possible hands" in data["model"]
    deck = ("--opp-deck", "kotor1-starter")
    kept = advise_json(*STANDING_18, "--opp-stood", "--opp-hand-size", "1", *deck, *MATCH_OBJECTIVE)
    assert kept["moves"][0]["match_win"] == data["moves"][0]["match_win"]
    none = advise_json(*STANDING_18, "--opp-stood", *MATCH_OBJECTIVE)
    assert data["moves"][0]["match_win"] < none["moves"][0]["match_win"]


def test_a_standing_opponent_whose_hand_is_not_given_is_not_said_to_be_known() -> None:
    """The match model takes it to hold no cards; its line had said "both hands known" right
    under the note that the hand was not given."""
    result = advise(*STOOD[:-1], "--opp-stood", "--objective", "match", "--time", "0")
    text = " ".join(result.output.split())
    assert "The opponent's hand was not given" in text
    assert "your hand known, the opponent's empty, both play for the match" in text
    assert "both hands known" not in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--table", "5 D", "--hand", "+1"], "'--table': D is not a kotor1 card: kotor2 has it"),
        (["--table", "5", "--opp-table", "10 F2/4"], "'--opp-table': F2/4 is not a kotor1 card"),
        (["--table", "9 6", "--opp-table", "10", "--opp-hand", "T"], "'--opp-hand': T is not a"),
        (["--main-deck", "per-set", "--seen", "5", "--table", "5"], "drop --seen"),
        (["--main-deck", "infinite", "--seen", "5", "--table", "5"], "drop --seen"),
    ],
)
def test_options_the_ruleset_cannot_take_are_usage_errors(args: list[str], words: str) -> None:
    """A KOTOR II card on a kotor1 table is a bad value of that option, as it is in --hand
    (it was an 'impossible position', exit 1); --seen with a deck that loses no card between
    sets is refused (with the infinite deck it was silently ignored)."""
    defaults = {"--opp-table": ["--opp-table", "10"], "--hand": ["--hand", "+1"]}
    extra = [word for option, words_ in defaults.items() if option not in args for word in words_]
    result = advise(*args, *extra, "--opp-stood")
    assert result.exit_code == 2, result.output
    assert words in error_line(result)


def test_tables_where_the_opponent_opened_a_kotor1_set_say_that_you_are_player_2() -> None:
    """Under kotor1 player 1 opens every set: the tables were read with the seats swapped, and
    the later sets opened by the opponent, without a word."""
    known = ("--hand", "+1", "--opp-hand", "+1", "--objective", "set", "--main-deck", "infinite")
    result = advise("--table", "5", "--opp-table", "3", *known)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == (
        "Your table 5; opponent's 3. It opened: you are player 2 (kotor1/main-deck=infinite: "
        "player 1 opens every set)."
    )
    opened = advise("--table", "5 4", "--opp-table", "3", *known)
    assert opened.output.splitlines()[0] == "Your table 5 4; opponent's 3."
    kotor2 = advise("-r", "kotor2", "--table", "5", "--opp-table", "3", *known)
    assert kotor2.output.splitlines()[0] == "Your table 5; opponent's 3."
