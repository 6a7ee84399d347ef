"""``pazaak follow``: a followed match kept as the engine keeps it, every refusal, undo, the
advice's inputs (card counting), saving and resuming (kill -9 included), and the JSON protocol.

The whole match of the golden transcript was played by the engine (seed 5 of a heuristic player
against the KOTOR rule, kotor1, the opponent's hand +3 ±2 +3 +3 dealt from the deck below): six
sets, a tie, the shared main deck renewed in the last set, hand cards played on both sides.
Regenerate the transcript with ``PAZAAK_REGENERATE=1 pytest tests/test_follow.py``.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.decks import load_deck
from pazaak_cli.engine.game import (
    END_TURN,
    STAND,
    Action,
    Draw,
    MatchState,
    Open,
    Phase,
    Play,
    new_match,
)
from pazaak_cli.engine.notation import format_position, parse_position
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.runtime.savefile import hold_save, read_save, write_save
from pazaak_cli.solve import answers, match_advice
from pazaak_cli.solve.answer_types import Advice, Move, MoveResult, Outcome
from pazaak_cli.solve.answers import answer
from pazaak_cli.solve.models import Objective
from pazaak_cli.terminal.lines import MAX_JSON_LINE_BYTES
from pazaak_cli.tools.follow import (
    Followed,
    FollowError,
    FollowSetup,
    apply_line,
    follow_asks,
    from_document,
    parse_events,
    question_for,
    request_for,
    start,
    to_document,
    undo,
)

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "follow_transcript.txt"
KOTOR1 = parse_ruleset("kotor1")
MY_HAND = parse_cards("+1 -2 ±3 +4")
OPP_DECK_TEXT = "name: pm2-plus3\nruleset: kotor1\n±2 ±2 ±2 ±2 ±2 +3 +3 +3 +3 +3\n"
OPP_DECK = parse_cards("±2 ±2 ±2 ±2 ±2 +3 +3 +3 +3 +3")
OPP_HAND = parse_cards("+3 ±2 +3 +3")
"""The opponent's real hand in the match below (hidden from the followed match)."""
MATCH = [
    *["9", "e", "1 e", "8", "±3 +", "5 e", "2 e", "4 e", "3 e", "8 e"],
    *["10", "e", "9 e", "3", "e", "5 e", "7", "2 e", "7 e"],
    *["4", "e", "1 e", "4", "e", "7 e", "5", "e", "3 e", "8", "-2 s", "4 e", "2 +3"],
    *["5", "e", "8 e", "9", "e", "6 e", "2", "+4", "3 +3"],
    *["1", "e", "1 e", "7", "e", "10 e", "6", "e", "6 +3", "9", "e"],
    *["10", "e", "10 e", "6", "e", "9 s", "4"],
]
"""The typed lines, set by set: the user's draw alone on a line (he then sees the advice)."""
EXTRAS = {
    3: ["help"],
    10: ["board", "11", "+1"],
    17: ["undo", "7"],
    23: ["hint"],
    24: ["hint", "position"],
}
"""Lines the golden transcript adds before line N of the match: commands and refusals."""


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"NO_COLOR": "1", "COLUMNS": "100", "LC_ALL": "C.UTF-8"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PAZAAK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "opponent.deck").write_text(OPP_DECK_TEXT, encoding="utf-8")


CANNED = Advice(
    results=(MoveResult(Move(None, None, "stand"), Outcome(0.5, 0.125, 0.375), True),),
    model="canned advice",
    hands_averaged=1,
    fixed_probabilities=False,
    states=0,
)


@pytest.fixture
def canned_advice(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The advice entry point replaced by a canned answer, for tests about everything else
    (the solves of an early position take seconds); the calls are recorded."""
    calls: list[Any] = []

    def canned(question: Any, options: Any) -> Advice:
        calls.append((question, options))
        return CANNED

    monkeypatch.setattr(answers, "solve_question", canned)
    return calls


def setup(opponent: str = "optimal", ruleset: str = "kotor1") -> FollowSetup:
    return FollowSetup(parse_ruleset(ruleset), MY_HAND, OPP_DECK, "pm2-plus3", opponent)


def follow_lines(lines: list[str], followed: Followed | None = None) -> Followed:
    followed = followed or start(setup())
    for line in lines:
        followed, _ = apply_line(followed, line)
    return followed


def invoke(args: list[str], lines: list[str]) -> Result:
    return CliRunner().invoke(
        main, ["follow", *args], input="".join(f"{line}\n" for line in lines), prog_name="pazaak"
    )


BASE_ARGS = ["--hand", "+1 -2 ±3 +4", "--opp-deck", "opponent.deck", "--opponent", "optimal"]
BASE_ARGS += ["--time", "0"]  # (the exact advice, as these transcripts pin it: see test_budget.py)


# The engine's own match, for comparison -------------------------------------------------------


def engine_actions(state: MatchState, line: str) -> list[Action]:
    """The engine actions of one typed line, found in the engine's full-information state."""
    actions: list[Action] = []
    tokens = line.split()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token.isdigit():
            action: Action = Draw(int(token))
        elif token == "e":
            action = END_TURN
        elif token == "s":
            action = STAND
        else:
            card = Card.parse(token)
            value = card.values[0]
            if len(card.values) > 1:
                value = card.magnitude * (1 if tokens[index] == "+" else -1)
                index += 1
            action = next(
                a
                for a in state.legal_actions()
                if isinstance(a, Play) and a.card == card and a.value == value
            )
        actions.append(action)
        state = state.child(action)
        if state.phase is Phase.SET_OVER:
            actions.append(Open(0))
            state = state.child(Open(0))
    return actions


def engine_match() -> list[tuple[MatchState, list[Card]]]:
    """The engine's state after each line of :data:`MATCH` (the opponent's hand known), and the
    hand cards the opponent played in the sets before the current one."""
    state = new_match(KOTOR1, (MY_HAND, OPP_HAND)).child(Open(0))
    earlier: list[Card] = []
    this_set: list[Card] = []
    found = []
    for line in MATCH:
        for action in engine_actions(state, line):
            if isinstance(action, Open):
                earlier, this_set = earlier + this_set, []
            elif isinstance(action, Play) and state.turn == 1:
                this_set.append(action.card)
            state = state.child(action)
        found.append((state, list(earlier)))
    return found


def test_the_followed_match_is_the_engines_match_as_the_user_sees_it() -> None:
    followed = start(setup())
    sets_seen = set()
    renewed = False
    for line, (engine, earlier) in zip(MATCH, engine_match(), strict=True):
        renewed = renewed or (
            followed.state.phase is Phase.BEFORE_DRAW and not any(followed.state.deck)
        )
        followed, _ = apply_line(followed, line)
        assert followed.state == engine.observed_by(0), line
        assert list(followed.opponent_earlier_cards()) == earlier
        sets_seen.add(len(engine.set_winners))
    final = followed.state
    assert final.is_terminal() and final.set_winners == (0, 0, 1, None, 1, 0)
    assert renewed, "the main deck ran out and was renewed during the match"
    assert tuple(card for _, card in followed.opp_played) == parse_cards("+3 +3 +3")


def test_the_solver_gets_the_counted_deck_and_the_opponents_earlier_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At every decision of the user, the one advice call receives the engine's position (the
    main deck counted since the last shuffle) and the opponent's cards of earlier sets."""
    calls: list[tuple[Any, Any]] = []

    def fake_solve(question: Any, options: Any) -> Advice:
        calls.append((question, options))
        return CANNED

    monkeypatch.setattr(answers, "solve_question", fake_solve)
    followed = start(setup())
    checked = 0
    for line, (engine, earlier) in zip(MATCH, engine_match(), strict=True):
        followed, _ = apply_line(followed, line)
        if not followed.my_decision:
            continue
        question, advice = advice_for(followed)
        assert advice is CANNED
        sent_question, options = calls[-1]
        assert sent_question == question == question_from_state(engine.observed_by(0))
        assert list(options.opponent_played) == earlier
        assert tuple(options.opponent_deck) == OPP_DECK
        assert options.opponent == "optimal"
        checked += 1
    assert checked == len(calls) >= 15
    # Late in the match the deck is far from full: the counting matters.
    assert sum(calls[-3][0].state.deck) < 20 or sum(calls[-1][0].state.deck) < 40


def test_the_deck_passed_on_is_the_full_deck_less_every_card_drawn_since_the_shuffle() -> None:
    followed = start(setup())
    drawn: list[int] = []
    for line in MATCH:
        if len(drawn) >= 38:
            break  # before the deck runs out
        before = followed
        followed, _ = apply_line(followed, line)
        for step in followed.steps[len(before.steps) :]:
            if isinstance(step.action, Draw):
                drawn.append(step.action.value)
        if followed.my_decision:
            question = question_for(followed)
            expected = Counter({v: 4 for v in range(1, 11)})
            expected.subtract(drawn[:-1])  # the question is asked before the last draw
            assert list(question.state.deck) == [expected[v] for v in range(1, 11)]
    assert len(drawn) >= 38


# Refusals -------------------------------------------------------------------------------------


def refused(followed: Followed, line: str) -> str:
    with pytest.raises(FollowError) as caught:
        apply_line(followed, line)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_card_the_deck_can_no_longer_hold_is_refused() -> None:
    followed = follow_lines(["7", "e", "7 e", "7", "e", "7 e"])
    message = refused(followed, "7")
    assert message == (
        "no 7 is left in the main deck: all 4 have been drawn since the last shuffle "
        "(check the card, or undo a wrong one)"
    )


def test_a_hand_card_i_do_not_have_or_have_played_is_refused() -> None:
    followed = follow_lines(["5"])
    assert refused(followed, "+6") == "you have no +6 in hand (your hand: +1 -2 ±3 +4)"
    assert refused(followed, "D") == "you have no D in hand (your hand: +1 -2 ±3 +4)"
    followed = follow_lines(["+1", "e", "5 e", "5"], followed)
    assert refused(followed, "+1") == "you have no +1 in hand (your hand: -2 ±3 +4)"


def test_a_second_hand_card_in_one_turn_is_refused() -> None:
    followed = follow_lines(["5", "+1"])
    assert refused(followed, "+4") == (
        "only one hand card may be played in a turn: you played +1 already; "
        "type e (end the turn) or s (stand)"
    )
    kotor2 = FollowSetup(parse_ruleset("kotor2"), parse_cards("D T ±1/2 +3"), OPP_DECK, "x")
    followed = follow_lines(["me", "5", "T -"], start(kotor2))
    assert refused(followed, "+3").startswith(
        "only one hand card may be played in a turn: you played T as -1 already;"
    )


def test_an_opponent_playing_more_cards_than_it_was_dealt_is_refused() -> None:
    set_one = ["10", "e", "1 +3 e", "10", "2 +3 e", "9 s"]
    followed = follow_lines(set_one)
    assert followed.state.set_winners == (0,) and len(followed.state.sides[1].hand) == 2
    followed = follow_lines(["10", "e", "3 +3 e", "10", "4 -2 e", "5"], followed)
    assert followed.state.sides[1].hand == () and followed.state.sides[1].total == 13
    assert refused(followed, "+3") == (
        "the opponent has played all 4 of its hand cards: it has none left to play"
    )


def test_an_opponent_card_its_side_deck_cannot_hold_is_refused() -> None:
    followed = follow_lines(["5", "e", "4"])
    assert refused(followed, "+5") == (
        "the opponent's side deck (pm2-plus3) holds no +5 it has not played already: if its "
        "deck is another, start again with --opp-deck"
    )
    assert refused(followed, "±3 +").startswith("the opponent's side deck (pm2-plus3) holds no ±3")


def test_a_plain_minus_card_of_the_opponent_is_read_as_its_plus_minus_card() -> None:
    followed = follow_lines(["5", "e", "4 -2 e"])
    assert followed.opp_played == ((0, Card.parse("±2")),)
    assert str(followed.state.sides[1].table[-1]) == "-2"


def test_moves_out_of_turn_are_refused() -> None:
    followed = start(setup())
    assert refused(followed, "e") == (
        "you must draw first: type the main-deck card you drew (1..10), not 'e'"
    )
    assert refused(followed, "+1").startswith("you must draw first")
    followed = follow_lines(["5"], followed)
    assert refused(followed, "6") == (
        "you have already drawn (5) this turn: type a hand card, e (end the turn) or s (stand)"
    )
    followed = follow_lines(["e", "4"], followed)
    assert refused(followed, "3").startswith("the opponent has already drawn (4) this turn")
    played = follow_lines(["+1"], follow_lines(["5"]))  # (one hand card a turn: no other)
    assert refused(played, "6") == (
        "you have already drawn (5) this turn: type e (end the turn) or s (stand)"
    )
    assert refused(followed, "me") == (
        "'me' answers who opens a set, and nobody is asked that now (set 1 is on)"
    )


def test_bad_tokens_and_missing_signs_are_refused() -> None:
    followed = follow_lines(["5"])
    assert refused(followed, "±3") == "±3 needs its value after it: ±3 + or ±3 -"
    assert refused(followed, "±3 x") == "±3 needs its value after it: ±3 + or ±3 -, not 'x'"
    assert refused(followed, "11") == "'11' is not a main-deck card: they are 1 to 10"
    assert refused(followed, "+9") == "'+9' is not a side card: the number must be 1 to 6"
    assert refused(followed, "xyz").startswith("'xyz' is not an event; type a draw (1..10)")
    assert refused(followed, "") == "the line holds no event"


def test_standing_over_20_is_refused_with_the_engines_reason() -> None:
    followed = follow_lines(["10", "e", "5 e", "8", "e", "5 e", "9"])
    assert refused(followed, "s").startswith("cannot stand on 27: it is over 20")


def test_a_refused_line_changes_nothing_even_after_good_events() -> None:
    followed = follow_lines(["5", "e"])
    before = followed
    refused(followed, "4 e 6 +9")
    assert followed == before
    with pytest.raises(FollowError):
        apply_line(followed, "4 e 6 e 7 7")  # the last 7 is a second draw in the turn
    assert follow_lines(["4 e 6 e"], followed).state.sides[0].total == 11


def test_the_match_over_refuses_every_event() -> None:
    followed = follow_lines(MATCH)
    assert refused(followed, "5") == "the match is over (you won 3-2, 1 tie): nothing more happens"


# Undo -------------------------------------------------------------------------------------------


def test_undo_back_to_the_start_gives_the_start_state() -> None:
    first = start(setup())
    followed = follow_lines(MATCH[:30], first)
    typed = followed.typed_steps()
    for _ in range(typed):
        followed = undo(followed)
    assert followed == first
    with pytest.raises(FollowError, match="nothing to undo: this is the start of the match"):
        undo(followed)


def test_undo_after_a_set_ends_goes_back_into_that_set() -> None:
    followed = follow_lines(MATCH[:10])
    assert followed.state.set_winners == (0,) and followed.state.phase is Phase.BEFORE_DRAW
    back = undo(followed)
    # One event back: the opponent's end of turn (the bust), not its draw of 8.
    assert back.state.set_winners == () and back.state.sides[1].total == 23
    assert back.state.phase is Phase.AFTER_DRAW and back.state.turn == 1
    assert back == follow_lines(MATCH[:9] + ["8"])


# Kotor2: a random opener ------------------------------------------------------------------------


def test_kotor2_asks_who_opens_each_set_and_takes_first_from_the_command_line() -> None:
    rules = "kotor2"
    followed = start(setup(ruleset=rules))
    assert followed.asks_opener and followed.state.phase is Phase.SET_OVER
    not_started = "set 1 has not started: say who opens it first (me or opponent)"
    assert refused(followed, "5") == not_started
    # (a card without its sign: not told how to write it, which it then refuses as well)
    assert refused(followed, "T") == refused(followed, "±1/2") == not_started
    assert refused(followed, "11") == not_started
    # (a word that is no event is told what the question takes, not the events of a set)
    assert refused(followed, "maybe") == "'maybe' does not say who opens set 1: type me or opponent"
    followed = follow_lines(["opponent", "10 e", "10", "s", "9 s"], followed)
    assert followed.state.set_winners == (1,) and followed.asks_opener
    assert refused(followed, "whoever") == (
        "'whoever' does not say who opens set 2: type me or opponent"
    )
    followed = follow_lines(["me"], followed)
    assert followed.state.opener == 0 and followed.state.turn == 0
    given = start(setup(ruleset=rules), first=1)
    assert given.state.opener == 1 and given.typed_steps() == 0
    with pytest.raises(FollowError, match="who opens is chosen only where the opener is random"):
        start(setup(), first=1)


# Advice --------------------------------------------------------------------------------------


def advice_for(followed: Followed) -> tuple[Question, Advice]:
    """The advice at the user's decision with no budget, as ``pazaak follow --time 0`` asks."""
    request = request_for(followed, None)
    return request.question, answer(request).advice


def test_advice_for_a_decision_is_one_call_and_is_the_advise_table(tmp_path: Path) -> None:
    followed = follow_lines(["8", "e", "5 e", "9"])
    question, advice = advice_for(followed)
    assert question == question_from_state(followed.state)
    assert advice.results[0].best
    moves = {str(result.move) for result in advice.results}
    assert "stand" in moves and "play +1, stand" in moves
    with pytest.raises(FollowError, match="no decision of yours"):
        advice_for(follow_lines(["8", "e"]))


def test_the_request_names_the_model_deck_and_earlier_cards() -> None:
    followed = follow_lines(MATCH[:33], start(setup(opponent="kotor")))
    assert followed.my_decision and followed.set_number == 4
    options = request_for(followed, None).options(Objective.SET)
    assert options.opponent == "kotor"
    assert tuple(options.opponent_deck or ()) == OPP_DECK
    assert tuple(options.opponent_played) == parse_cards("+3")


# Saving --------------------------------------------------------------------------------------


def test_the_save_document_replays_to_the_same_match(tmp_path: Path) -> None:
    followed = follow_lines(MATCH[:25])
    path = tmp_path / "f.json"
    write_save(path, to_document(followed))
    assert from_document(read_save(path)) == followed
    document = read_save(path)
    document["position"] = format_position(start(setup()).state)
    with pytest.raises(FollowError, match="do not lead to its saved position"):
        from_document(document)
    document["steps"] = ["draw 7", "draw 7"]
    with pytest.raises(FollowError, match="its steps cannot be replayed"):
        from_document(document)


# The command ------------------------------------------------------------------------------------


def golden_lines() -> list[str]:
    lines: list[str] = []
    for number, line in enumerate(MATCH):
        lines += EXTRAS.get(number, [])
        lines.append(line)
    return lines


@pytest.fixture
def set_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default's limit as it was when these transcripts were made (64 pairs): four cards
    against a hidden hand of this two-kind deck (240 pairs) then answer for the set by default,
    which these tests are about (the limit itself is tested in test_match_solver.py)."""
    monkeypatch.setattr(match_advice, "QUICK_MATCH_PAIRS", 64)


def test_golden_transcript_of_a_whole_match(set_by_default: None) -> None:
    result = invoke([*BASE_ARGS, "--save", "follow.json"], golden_lines())
    assert result.exit_code == 0, result.output
    if os.environ.get("PAZAAK_REGENERATE"):
        GOLDEN.write_text(result.output, encoding="utf-8")
    assert result.output == GOLDEN.read_text(encoding="utf-8")
    output = result.output
    assert "Set 4 is a tie, 20 to 20" in output
    assert "(the main deck had run out: a fresh one is shuffled)" in output
    assert "Opponent plays +3" in output and "You play ±3 as +3" in output
    assert output.count("Model: ") >= 15
    assert output.rstrip().endswith("Match over: you won 3-2, 1 tie. (Saved in follow.json.)")
    saved = read_save(Path("follow.json"))
    assert saved["finished"] is True and saved["kind"] == "follow"


def test_every_refusal_is_one_line_and_leaves_the_save_as_it_was(canned_advice: list[Any]) -> None:
    result = invoke([*BASE_ARGS, "--save", "f.json"], ["5", "e", "4", "+5", "me"])
    assert result.exit_code == 0
    refusals = [line for line in result.output.splitlines() if "Refused:" in line]
    assert refusals == [
        "Refused: the opponent's side deck (pm2-plus3) holds no +5 it has not played already: "
        "if its deck is another, start again with --opp-deck.",
        "Refused: 'me' answers who opens a set, and nobody is asked that now (set 1 is on).",
    ]
    assert read_save(Path("f.json"))["position"] == "kotor1 5 4 +1,-2,±3,+4 ?,?,?,? -- - " + (
        "4443344444 a2 1"
    )


def test_quiet_advice_shows_only_the_best_move(canned_advice: list[Any]) -> None:
    """(The advice canned: the real advice at the same decision is tested above, in
    ``test_advice_for_a_decision_is_one_call_and_is_the_advise_table``.)"""
    result = invoke([*BASE_ARGS, "--quiet-advice"], ["8", "e", "5 e", "9"])
    assert result.exit_code == 0
    best = [line for line in result.output.splitlines() if line.startswith("Best: ")]
    assert len(best) == 2 and "Model:" not in result.output
    assert best[-1].startswith("Best: ") and " (win " in best[-1] and "Model:" not in result.output


def test_undo_position_board_and_help_at_the_command_line(canned_advice: list[Any]) -> None:
    result = invoke(BASE_ARGS, ["7", "undo", "undo", "position", "board", "help", "quit"])
    output = result.output
    assert result.exit_code == 0
    assert "Undone: you draw 7: total 7." in output and "You draw next." in output
    assert "Refused: nothing to undo: this is the start of the match." in output
    position = "kotor1 - - +1,-2,±3,+4 ?,?,?,? -- - 4444444444 d1 1"
    assert position in output
    assert parse_position(position).phase is Phase.BEFORE_DRAW
    assert "main deck 40 left" in output and "Commands: undo" in output
    assert "continue with `pazaak follow --resume " in output


def test_the_board_before_the_first_set_is_opened_says_so(canned_advice: list[Any]) -> None:
    args = ["-r", "kotor2", "--hand", "D T ±1/2 +3", "--time", "0"]
    result = invoke(args, ["me", "undo", "board", "quit"])
    assert result.exit_code == 0, result.output
    assert "Before set 1; sets: you 0, opponent 0; main deck 40 left" in result.output
    assert "Set 0" not in result.output


def test_hint_match_asks_for_the_match_answer_at_a_decision(
    canned_advice: list[Any], monkeypatch: pytest.MonkeyPatch, set_by_default: None
) -> None:
    asked: list[Any] = []

    def canned_match(question: Any, options: Any) -> Advice:
        asked.append(options)
        return CANNED

    monkeypatch.setattr(answers, "solve_match_asked", canned_match)
    lines = ["hint match", "8", "e", "5 e", "9", "hint", "hint match", "HINT MATCH"]
    result = invoke(BASE_ARGS, lines)
    assert result.exit_code == 0, result.output
    assert "Refused: the advice comes at your decisions, after your draw." in result.output
    # the decisions after 8 and 9 by default (the set: four cards against a hidden hand), the
    # plain hint from memory, then the match answer each time it is asked for
    assert [options.objective for _, options in canned_advice] == ["set", "set"]
    assert [options.opponent for options in asked] == ["optimal", "optimal"]


def test_position_is_pasteable_into_advise(canned_advice: list[Any]) -> None:
    result = invoke(BASE_ARGS, ["8", "e", "5 e", "9", "position"])
    position = next(line for line in result.output.splitlines() if line.startswith("kotor1 "))
    advised = CliRunner().invoke(
        main,
        ["advise", "--position", position, "--opp-deck", "opponent.deck", "--objective", "set"],
    )
    assert advised.exit_code == 0, advised.output
    assert "stand" in advised.output


def test_position_gives_the_advise_command_of_the_same_question(canned_advice: list[Any]) -> None:
    """At the user's decision, with the position: the advise command that asks the question as
    follow does (its opponent deck, and its model where not optimal; a deck read from a file
    named by a placeholder), where the notation alone took advise's own defaults."""
    args = ["--hand", "+1 -2 ±3 +4", "--opp-deck", "kotor1-average", "--time", "0"]
    result = invoke(args, ["8", "e", "5 e", "9", "position", "e", "position"])
    lines = result.output.splitlines()
    position = next(line for line in lines if line.startswith("kotor1 "))
    said = [line for line in lines if line.startswith("The same question for advise: ")]
    assert len(said) == 1  # (the second position is not the user's decision)
    words = shlex.split(said[0].split(": ", 1)[1])
    assert words == [
        "pazaak", "advise", "--position", position, "--opp-deck", "kotor1-average",
        "--opponent", "kotor",
    ]  # fmt: skip
    filed = invoke([*BASE_ARGS, "--new"], ["8", "e", "5 e", "9", "position"]).output.splitlines()
    assert any(line.endswith(" --opp-deck THEIR-DECK") for line in filed)  # (optimal: no model)
    as_json = invoke([*args, "--json", "--new"], ["8", "e", "5 e", "9", "position"])
    emitted = [json.loads(line) for line in as_json.output.splitlines()]
    assert next(obj for obj in emitted if obj["type"] == "position")["advise"] == words


def test_an_unfinished_save_is_not_replaced_without_new(canned_advice: list[Any]) -> None:
    assert invoke([*BASE_ARGS, "--save", "f.json"], ["5"]).exit_code == 0
    again = invoke([*BASE_ARGS, "--save", "f.json"], [])
    assert again.exit_code == 1
    assert "an unfinished match is saved in f.json: continue it with `pazaak follow --resume " in (
        again.output
    )
    assert invoke([*BASE_ARGS, "--save", "f.json", "--new"], []).exit_code == 0
    assert read_save(Path("f.json"))["steps"] == ["auto open 1"]


def test_resume_continues_and_refuses_new_settings_or_a_play_save(canned_advice: list[Any]) -> None:
    assert invoke([*BASE_ARGS, "--save", "f.json"], ["5", "e", "4 e"]).exit_code == 0
    resumed = invoke(["--resume", "f.json"], ["3", "position"])
    assert resumed.exit_code == 0
    assert "Resumed the match saved in f.json." in resumed.output
    assert "kotor1 5,3 4 +1,-2,±3,+4 ?,?,?,? -- - 4433344444 a1 1" in resumed.output
    clash = invoke(["--resume", "f.json", "--hand", "+1 +2 +3 +4"], [])
    assert clash.exit_code == 2 and "--hand cannot be used with --resume" in clash.output
    write_save(Path("p.json"), {"finished": False, "seats": []})
    play_save = invoke(["--resume", "p.json"], [])
    assert play_save.exit_code == 1
    assert "p.json cannot be resumed by pazaak follow" in play_save.output


def _damaged_save(damage: Callable[[dict[str, Any]], Any]) -> Path:
    """A followed match's save (the opponent played a +3), damaged by ``damage``."""
    assert invoke([*BASE_ARGS, "--save", "f.json"], ["5", "e", "4 +3 e"]).exit_code == 0
    document = json.loads(Path("f.json").read_text(encoding="utf-8"))
    damage(document)
    Path("f.json").write_text(json.dumps(document), encoding="utf-8")
    return Path("f.json")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d["opp_deck"].__setitem__("cards", ["+1"] * 10), "plays +3 more often than"),
        (
            lambda d: d["opp_deck"]["cards"].__setitem__(0, "D"),
            "holds D, not in the kotor1 card pool",
        ),
        (lambda d: d["opp_deck"]["cards"].append("+1"), "holds 11 cards; a kotor1 side deck"),
        (lambda d: d.__setitem__("opp_deck", None), "field 'opp_deck' needs a 'name'"),
        (lambda d: d.__setitem__("steps", None), "field 'steps' must be a list"),
        (lambda d: d.pop("ruleset"), "field 'ruleset' is missing"),
        (lambda d: d.__setitem__("ruleset", None), "field 'ruleset' is null, not a ruleset"),
        (lambda d: d.__setitem__("finished", True), "field 'finished' is true but the steps"),
        (lambda d: d.pop("finished"), "field 'finished' is null but the steps"),
        (lambda d: d["steps"].__setitem__(1, "fly"), "step 2: 'fly' is not a move"),
    ],
)
def test_a_damaged_save_is_refused_naming_the_field(
    canned_advice: list[Any], damage: Callable[[dict[str, Any]], Any], message: str
) -> None:
    """What `pazaak play` checks of its saves, `follow --resume` checks of its own: one line,
    exit 1, the file as it was."""
    path = _damaged_save(damage)
    before = path.read_bytes()
    result = invoke(["--resume", "f.json"], ["3"])
    assert result.exit_code == 1, result.output
    assert "f.json cannot be resumed by pazaak follow: " in result.output
    assert message in result.output
    assert "Traceback" not in result.output and "NoneType" not in result.output
    assert path.read_bytes() == before


def test_new_sets_a_damaged_default_save_aside(canned_advice: list[Any]) -> None:
    """As `pazaak play --new` does: a damaged default save cannot block every new match."""
    default = Path("data") / "follow.json"
    default.parent.mkdir()
    default.write_bytes(b"garbage")
    refused = invoke(BASE_ARGS, ["quit"])
    assert refused.exit_code == 1 and "is not a pazaak save file" in refused.output
    started = invoke([*BASE_ARGS, "--new"], ["quit"])
    assert started.exit_code == 0, started.output
    assert "(is not a pazaak save file: it is not JSON); it is kept, byte for" in started.output
    assert f"{default}.corrupt, and the new match is saved in" in started.output
    assert Path(f"{default}.corrupt").read_bytes() == b"garbage"
    assert json.loads(default.read_text(encoding="utf-8"))["kind"] == "follow"
    named = Path("named.json")
    named.write_bytes(b"garbage")
    kept = invoke([*BASE_ARGS, "--new", "--save", "named.json"], ["quit"])
    assert kept.exit_code == 1 and named.read_bytes() == b"garbage"


def test_a_save_link_into_a_missing_folder_is_refused(canned_advice: list[Any]) -> None:
    """A folder that does not exist is not made, through a symbolic link either."""
    Path("link.json").symlink_to(Path("nowhere") / "deeper" / "f.json")
    result = invoke([*BASE_ARGS, "--save", "link.json"], ["quit"])
    assert result.exit_code == 2
    assert "--save link.json: no such directory" in result.output
    assert not Path("nowhere").exists()


def test_usage_errors_exit_2_without_touching_a_file() -> None:
    missing = invoke(["--opp-deck", "opponent.deck"], [])
    assert missing.exit_code == 2 and "give your hand with --hand" in missing.output
    short = invoke(["--hand", "+1 +2"], [])
    assert short.exit_code == 2 and "your hand holds 2 cards; kotor1 deals 4" in short.output
    first = invoke(["--hand", "+1 -2 ±3 +4", "--first", "me"], [])
    assert first.exit_code == 2 and "only where the opener is random" in first.output
    assert not Path("data").exists()


def test_json_protocol_one_object_per_line(canned_advice: list[Any]) -> None:
    lines = ['{"line": "opponent"}', "10 e", '{"line": "8"}', "+9", "hint", "{bad"]
    result = invoke(
        [
            "--json",
            "-r",
            "kotor2",
            "--hand",
            "+1 -2 ±3 D",
            "--opp-deck",
            "kotor2-very-easy",
            "--opponent",
            "optimal",
            "--time",
            "0",
        ],
        lines,
    )
    assert result.exit_code == 0, result.output
    objects = [json.loads(line) for line in result.output.splitlines()]
    kinds = [obj["type"] for obj in objects]
    assert kinds == [
        "start",
        "question",
        "event",
        "event",
        "event",
        "event",
        "note",
        "advice",
        "refused",
        "advice",
        "refused",
        "stopped",
    ]
    assert objects[2]["action"] == "open 2" and objects[2]["opener"] == "opponent"
    assert objects[5]["player"] == "me" and objects[5]["value"] == 8
    state = objects[5]["state"]
    assert state["to_move"] == "me" and state["opponent"]["total"] == 10
    assert state["opponent"]["hand_size"] == 4 and state["deck"][9] == 3
    assert objects[6]["message"].startswith("The match answer solves every pair of hands")
    assert objects[7]["moves"][0]["best"] is True and objects[7]["model"] == "canned advice"
    assert objects[8]["message"] == "'+9' is not a side card: the number must be 1 to 6"
    assert objects[10]["message"] == 'a JSON input line is an object {"line": "..."}'
    assert "\x1b" not in result.output


# kill -9 between two events ---------------------------------------------------------------------


def _read_until_prompt(process: subprocess.Popen[bytes], timeout: float = 60.0) -> str:
    """Read the command's output until it waits for the next line (a prompt ends with '> ')."""
    assert process.stdout is not None
    buffer = b""
    deadline = time.monotonic() + timeout
    while not buffer.endswith(b"> "):
        remaining = deadline - time.monotonic()
        assert remaining > 0, buffer.decode()
        ready, _, _ = select.select([process.stdout], [], [], remaining)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            assert chunk, buffer.decode()
            buffer += chunk
    return buffer.decode("utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="kill -9 is POSIX")
def test_kill_9_between_two_events_then_resume_loses_nothing(tmp_path: Path) -> None:
    save = tmp_path / "k.json"
    command = [sys.executable, "-m", "pazaak_cli", "follow", *BASE_ARGS, "--quiet-advice"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    process = subprocess.Popen(
        [*command, "--save", str(save)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin is not None
    _read_until_prompt(process)
    typed = MATCH[:12]
    for line in typed:
        process.stdin.write(f"{line}\n".encode())
        process.stdin.flush()
        _read_until_prompt(process)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    expected = follow_lines(typed)
    assert from_document(read_save(save)) == expected
    resumed = subprocess.run(
        [sys.executable, "-m", "pazaak_cli", "follow", "--resume", str(save), "--quiet-advice"],
        input="position\n".join(["", ""]).encode() + b"quit\n",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert format_position(expected.state) in resumed.stdout.decode("utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_parse_events_reads_the_game_spellings() -> None:
    events = parse_events("7 *3 - VV +2 $$ TT + F1 F2 e s")
    shown = [
        (type(e).__name__, str(getattr(e, "card", "")), getattr(e, "value", None)) for e in events
    ]
    assert shown == [
        ("TypedDraw", "", 7),
        ("TypedCard", "±3", -3),
        ("TypedCard", "±1/2", 2),
        ("TypedCard", "D", None),
        ("TypedCard", "T", 1),
        ("TypedCard", "F2/4", None),
        ("TypedCard", "F3/6", None),
        ("TypedEnd", "", None),
        ("TypedStand", "", None),
    ]
    assert [type(e).__name__ for e in parse_events("+-3 - me opponent")] == [
        "TypedCard",
        "TypedOpener",
        "TypedOpener",
    ]


def test_a_double_and_a_flip_follow_the_engines_values() -> None:
    rules = parse_ruleset("kotor2")
    mine = parse_cards("D F2/4 T ±1/2")
    followed = start(
        FollowSetup(
            rules,
            mine,
            parse_cards("D D F2/4 F2/4 F3/6 F3/6 T T ±1/2 ±1/2"),
            "very-hard",
            "optimal",
        ),
        first=0,
    )
    followed = follow_lines(["4", "e", "6 e", "2", "D"], followed)
    assert [str(c) for c in followed.state.sides[0].table] == ["4", "2", "D"]
    assert followed.state.sides[0].total == 8
    followed = follow_lines(["e", "4 F3/6 e", "2", "F2/4"], followed)
    # F3/6 turns the opponent's 6 over; F2/4 turns over all my 4 and 2s, the Double's too.
    assert followed.state.sides[1].total == -6 + 4
    assert followed.state.sides[0].total == -4 - 2 - 2 - 2
    assert followed.opp_played == ((0, Card.parse("F3/6")),)


def test_a_save_open_in_another_session_is_refused(canned_advice: list[Any]) -> None:
    with hold_save(Path("f.json")):
        busy = invoke([*BASE_ARGS, "--save", "f.json"], ["5"])
    assert busy.exit_code == 1
    assert "the match saved in f.json is open in another pazaak session" in busy.output
    assert not Path("f.json").exists()


def test_resume_never_replaces_another_unfinished_match(canned_advice: list[Any]) -> None:
    assert invoke([*BASE_ARGS, "--save", "a.json"], ["5"]).exit_code == 0
    assert invoke([*BASE_ARGS, "--save", "b.json"], ["7", "e"]).exit_code == 0
    before = Path("b.json").read_bytes()
    clash = invoke(["--resume", "a.json", "--save", "b.json"], [])
    assert clash.exit_code == 1
    assert "an unfinished match is saved in b.json: resuming a.json there would replace it" in (
        clash.output
    )
    assert Path("b.json").read_bytes() == before
    moved = invoke(["--resume", "a.json", "--save", "c.json"], ["e"])
    assert moved.exit_code == 0
    assert read_save(Path("c.json"))["steps"] == ["auto open 1", "draw 5", "end"]


def test_a_deck_name_or_a_typed_token_never_sends_a_control_code(
    canned_advice: list[Any],
) -> None:
    Path("evil.deck").write_text(
        OPP_DECK_TEXT.replace("name: pm2-plus3", "name: evil\x1b[2Jdeck"), encoding="utf-8"
    )
    result = invoke(
        ["--hand", "+1 -2 ±3 +4", "--opp-deck", "evil.deck"], ["5", "e", "4 +5", "\x1b[31m"]
    )
    assert result.exit_code == 0
    assert "\x1b" not in result.output
    assert "holds no +5" in result.output and "evil\\x1b[2Jdeck" in result.output


def test_resuming_a_finished_match_shows_the_result_and_stops(canned_advice: list[Any]) -> None:
    assert invoke([*BASE_ARGS, "--save", "f.json"], MATCH).exit_code == 0
    resumed = invoke(["--resume", "f.json"], ["5"])
    assert resumed.exit_code == 0
    assert resumed.output.splitlines()[-1] == ("Match over: you won 3-2, 1 tie. (Saved in f.json.)")
    assert "> " not in resumed.output


def test_resuming_a_finished_match_says_its_result_once(canned_advice: list[Any]) -> None:
    """The board shown on resuming ended with the result, which the session then said again
    with its save: twice."""
    assert invoke([*BASE_ARGS, "--save", "f.json"], MATCH).exit_code == 0
    resumed = invoke(["--resume", "f.json"], [])
    assert resumed.exit_code == 0
    assert resumed.output.count("Match over") == 1, resumed.output
    assert "  Opponent: 10 9 = 19, stands;" in resumed.output  # (the board itself is shown)


def test_a_command_word_with_more_on_its_line_is_named_as_no_command() -> None:
    """`hint match x` had been read as events: "'hint' is not an event"."""
    result = invoke(BASE_ARGS, ["hint match x", "undo   now", "board"])
    assert result.exit_code == 0, result.output
    refusals = [line for line in result.output.splitlines() if "Refused:" in line]
    commands = "undo, board, position, hint, hint match, help, quit come alone on a line."
    assert refusals == [
        f"Refused: 'hint match x' is not a command: {commands}",
        f"Refused: 'undo   now' is not a command: {commands}",
    ]


def test_a_json_input_line_over_its_cap_is_refused_without_being_held() -> None:
    """Typed lines are capped at MAX_LINE_BYTES; a --json line is too (at eight times that,
    room for JSON escapes): refused with an empty input (the line is read in pieces and
    dropped), and the session goes on."""
    long_line = '{"line": "' + "x" * (MAX_JSON_LINE_BYTES + 10) + '"}'
    result = invoke(["--json", *BASE_ARGS], [long_line, '{"line": "board"}', "quit"])
    assert result.exit_code == 0, result.output
    objects = [json.loads(line) for line in result.output.splitlines()]
    assert [obj["type"] for obj in objects] == ["start", "refused", "board", "stopped"]
    assert objects[1] == {
        "type": "refused",
        "input": "",
        "message": f"that line is over {MAX_JSON_LINE_BYTES:,} bytes",
    }


def test_the_note_past_the_budget_names_the_preparation_for_the_opponents_deck() -> None:
    """Where the match answer does not fit the budget, the note names ``pazaak prepare`` for
    the opponent's deck (the user's own is not known here): by name where it is a sample
    deck's cards, else a word for the user to replace."""
    average = load_deck("kotor1-average", KOTOR1)
    named = FollowSetup(KOTOR1, MY_HAND, average.cards, "kotor1-average", "kotor")
    assert follow_asks(named).prepare == (
        "pazaak prepare --deck YOUR-DECK --opp-deck kotor1-average --opponent kotor"
    )
    assert follow_asks(setup()).prepare == (
        "pazaak prepare --deck YOUR-DECK --opp-deck THEIR-DECK"
    )  # (a deck read from a file: the session kept its cards, not its path)
    other = FollowSetup(KOTOR1, MY_HAND, OPP_DECK, "kotor1-average", "optimal")
    assert "THEIR-DECK" in (follow_asks(other).prepare or "")  # (a name, not those cards)
    drawn, _ = apply_line(start(named), "5")
    assert request_for(drawn, 2.0).asks == follow_asks(named)


def test_a_lone_nul_is_a_wrong_event_and_a_long_line_is_named_as_long() -> None:
    """A line holding one NUL was refused as "over 1000 characters": the mark of a line too
    long was that very text."""
    result = invoke(["--hand", "+1 -2 ±3 +4"], ["\x00", "x" * 2000])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if line.startswith("Refused")]
    assert said[0].startswith("Refused: '\\x00' is not an event; type a draw (1..10)")
    assert said[1] == "Refused: that line is over 1000 characters."


def test_new_with_resume_says_why_they_clash() -> None:
    """(The reason given had been what a resumed match keeps, which --new is not.)"""
    result = invoke(["--resume", "f.json", "--new"], [])
    assert result.exit_code == 2
    assert "--new cannot be used with --resume: --new starts a new match, --resume goes on" in (
        result.output
    )
