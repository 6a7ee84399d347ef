"""``pazaak engine`` against what a careless or hostile client sends: a save over a file that
is not the game's to replace, text that is not Unicode, numbers too long, malformed hands.

Each request is answered with an error naming what was wrong, nothing is lost on disk, and the
engine goes on with the next line. Most tests drive the protocol in process (:class:`Engine`,
:func:`serve`); one runs the real command, whose output stream is strict UTF-8.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pazaak_cli.players.roster import POLICY_NAMES
from pazaak_cli.runtime.savefile import hold_save, lock_path, read_save
from pazaak_cli.tools.engine_protocol import Engine, encode, serve

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
HANDS = [["+1", "+2", "+3", "+4"], ["-1", "-2", "-3", "-4"]]


def ok(engine: Engine, cmd: str, **fields: Any) -> dict[str, Any]:
    reply = engine.reply({"id": 0, "cmd": cmd, **fields})
    assert reply["ok"], reply
    result: dict[str, Any] = reply["result"]
    return result


def error(reply: dict[str, Any]) -> tuple[str, str]:
    assert reply["ok"] is False, reply
    code, message = reply["error"]["code"], reply["error"]["message"]
    assert isinstance(code, str) and isinstance(message, str)
    return code, message


def fails(engine: Engine, cmd: str, **fields: Any) -> tuple[str, str]:
    return error(engine.reply({"id": 0, "cmd": cmd, **fields}))


def strict_json(text: str) -> Any:
    """``text`` read as a strict parser reads it: valid UTF-8, no lone surrogate escaped."""
    text.encode("utf-8")  # (raises on a lone surrogate written as it is)
    data = json.loads(text)
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # (and on one written as an escape)
    return data


# 1. save never destroys what is not its own ---------------------------------------------------


def test_save_refuses_a_file_that_is_not_a_pazaak_save(tmp_path: Path) -> None:
    engine = Engine()
    game = ok(engine, "new", seed=9)["game"]
    path = tmp_path / "x.txt"
    path.write_bytes(b"hello\n")
    code, message = fails(engine, "save", game=game, path=str(path))
    assert code == "bad_save" and str(path) in message and "not a pazaak save" in message
    assert path.read_bytes() == b"hello\n"
    assert fails(engine, "save", game=game, path=str(path), overwrite=True)[0] == "bad_save"
    assert path.read_bytes() == b"hello\n"
    assert not lock_path(path).exists()


def test_save_refuses_an_unfinished_match_it_did_not_save_there(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    other = Engine()  # (another program's save: pazaak play, follow or another engine)
    ok(other, "save", game=ok(other, "new", seed=1)["game"], path=str(path))
    before = path.read_bytes()
    engine = Engine()
    game = ok(engine, "new", seed=2)["game"]
    code, message = fails(engine, "save", game=game, path=str(path))
    assert code == "bad_save" and str(path) in message and "unfinished match" in message
    assert path.read_bytes() == before
    # a second game of the same engine is not that game either
    ok(engine, "save", game=game, path=str(tmp_path / "mine.json"))
    second = ok(engine, "new", seed=3)["game"]
    assert fails(engine, "save", game=second, path=str(tmp_path / "mine.json"))[0] == "bad_save"
    # asked for, it is replaced
    assert fails(engine, "save", game=game, path=str(path), overwrite="yes")[0] == "bad_request"
    ok(engine, "save", game=game, path=str(path), overwrite=True)
    assert read_save(path)["seed"] == 2


def test_save_replaces_its_own_earlier_save_a_loaded_one_and_a_finished_match(
    tmp_path: Path,
) -> None:
    engine = Engine()
    game = ok(engine, "new", seed=4)["game"]
    path = tmp_path / "match.json"
    ok(engine, "save", game=game, path=str(path))
    ok(engine, "move", game=game, move="end")
    ok(engine, "save", game=game, path=str(tmp_path / "." / "match.json"))  # (the same file)
    assert len(read_save(path)["moves"]) == len(ok(engine, "save", game=game)["document"]["moves"])
    # a game loaded from a file may save its next moves back there
    later = Engine()
    loaded = ok(later, "load", path=str(path))["game"]
    ok(later, "move", game=loaded, move="end")
    ok(later, "save", game=loaded, path=str(path))
    # a finished match may be replaced by anyone
    done = ok(later, "new", seed=5)["game"]
    ok(later, "move", game=done, move="forfeit")
    finished = tmp_path / "finished.json"
    ok(later, "save", game=done, path=str(finished))
    assert read_save(finished)["finished"] is True
    fresh = Engine()
    ok(fresh, "save", game=ok(fresh, "new", seed=6)["game"], path=str(finished))
    assert read_save(finished)["seed"] == 6


def test_save_refuses_its_own_earlier_save_once_another_program_changed_it(
    tmp_path: Path,
) -> None:
    engine = Engine()
    game = ok(engine, "new", seed=7)["game"]
    path = tmp_path / "match.json"
    ok(engine, "save", game=game, path=str(path))
    other = Engine()
    moved = ok(other, "load", path=str(path))["game"]
    ok(other, "move", game=moved, move="end")
    ok(other, "save", game=moved, path=str(path))  # (the moves another client made on)
    before = path.read_bytes()
    code, message = fails(engine, "save", game=game, path=str(path))
    assert code == "bad_save" and "changed" in message
    assert path.read_bytes() == before


def test_save_refuses_a_save_another_process_holds(tmp_path: Path) -> None:
    engine = Engine()
    game = ok(engine, "new", seed=8)["game"]
    path = tmp_path / "held.json"
    with hold_save(path):  # (as a running pazaak play holds its save)
        code, message = fails(engine, "save", game=game, path=str(path), overwrite=True)
        assert code == "bad_save" and str(path) in message and "holds it" in message
        assert not path.exists()
    ok(engine, "save", game=game, path=str(path))
    assert not lock_path(path).exists()


def test_a_path_that_holds_a_nul_character_is_a_bad_request(tmp_path: Path) -> None:
    engine = Engine()
    game = ok(engine, "new", seed=1)["game"]
    for cmd, fields in (("save", {"game": game}), ("load", {})):
        code, message = fails(engine, cmd, path=f"{tmp_path}/a\x00b.json", **fields)
        assert code == "bad_request" and "NUL" in message


# 2. text that is not Unicode ------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, named",
    [
        ('{"id": "\\ud800", "cmd": "hello"}', "'id'"),
        ('{"id": 5, "cmd": "hel\\udfffo"}', "'cmd'"),
        ('{"id": 5, "cmd": "view", "game": "\\ud800", "seat": 1}', "'game'"),
        ('{"id": 5, "cmd": "new", "decks": [["+1", "\\udc80"], "x"]}', "'decks'"),
        ('{"id": 5, "cmd": "hello", "\\ud800": 1}', "name"),
        ('{"id": 5, "cmd": "stop", "\\ud800": 1}', "name"),
        ('{"id": ["\\ud800"], "cmd": "hello"}', "'id'"),
        ('["\\ud800"]', "request"),
    ],
)
def test_a_lone_surrogate_anywhere_is_a_bad_request(line: str, named: str) -> None:
    reply = Engine().reply_line(line)
    code, message = error(reply)
    assert code == "bad_request" and "lone surrogate" in message and named in message
    assert reply["id"] == (5 if '"id": 5' in line else None)
    strict_json(encode(reply))


def test_the_served_engine_answers_a_lone_surrogate_and_goes_on() -> None:
    lines = [
        '{"id": "\\ud800", "cmd": "hello"}',
        '{"id": "\\ud800", "cmd": "stop"}',
        '{"id": 1, "cmd": "new", "hands": [["+1", "+2", "+3", "+4"], ["\\ud800"]]}',
        '{"id": "after", "cmd": "hello"}',
    ]
    output = io.StringIO()
    assert serve(io.BytesIO("\n".join(lines).encode("utf-8") + b"\n"), output) == 0
    replies = [strict_json(text) for text in output.getvalue().splitlines()]
    assert [(r["id"], r["ok"]) for r in replies] == [
        (None, False),
        (None, False),
        (1, False),
        ("after", True),
    ]
    assert {r["error"]["code"] for r in replies[:3]} == {"bad_request"}


def test_the_engine_command_never_writes_a_lone_surrogate() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pazaak_cli", "engine"],
        input=b'{"id": "\\ud800", "cmd": "hello"}\n{"id":"after","cmd":"hello"}\n',
        capture_output=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    replies = [strict_json(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [(r["id"], r["ok"]) for r in replies] == [(None, False), ("after", True)]


def test_a_save_file_holding_a_lone_surrogate_is_not_loaded(tmp_path: Path) -> None:
    engine = Engine()
    game = ok(engine, "new", hands=HANDS, seed=1)["game"]
    path = tmp_path / "match.json"
    ok(engine, "save", game=game, path=str(path))
    text = path.read_text(encoding="utf-8").replace('"Player 1"', '"Player \\ud800"')
    path.write_text(text, encoding="utf-8")
    reply = engine.reply({"id": 1, "cmd": "load", "path": str(path)})
    code, message = error(reply)
    assert code == "bad_save" and "lone surrogate" in message
    strict_json(encode(reply))
    assert list(engine.games) == [game]


def test_a_reply_that_would_hold_a_lone_surrogate_becomes_an_internal_error() -> None:
    text = encode({"id": 3, "ok": True, "result": {"name": "\ud800"}})
    reply = strict_json(text)
    assert reply["id"] == 3 and reply["error"]["code"] == "internal"


# 3. smaller ones ------------------------------------------------------------------------------


def test_a_number_too_long_to_read_is_named_as_such() -> None:
    engine = Engine()
    code, message = error(engine.reply_line('{"id": 1, "cmd": "hello", "x": ' + "7" * 5000 + "}"))
    assert code == "bad_request" and "number" in message and "digits" in message
    assert "not JSON" not in message
    code, message = error(engine.reply_line("[" * 100_000 + "]" * 100_000))
    assert code == "bad_request" and "nested too deep" in message
    assert error(engine.reply_line('{"id": NaN}'))[0] == "bad_json"


@pytest.mark.parametrize(
    "hands, count",
    [([[], []], 0), ([["+1", "+2", "+3", "+4", "+5"], ["-1", "-2", "-3", "-4"]], 5)],
)
def test_a_hand_of_the_wrong_size_is_a_bad_request_about_the_hand(
    hands: list[list[str]], count: int
) -> None:
    code, message = fails(Engine(), "new", hands=hands)
    assert code == "bad_request"
    assert f"seat 1's hand holds {count} cards" in message and "deck" not in message


def test_load_takes_a_path_or_a_document_not_both(tmp_path: Path) -> None:
    engine = Engine()
    game = ok(engine, "new", seed=1)["game"]
    path = tmp_path / "match.json"
    ok(engine, "save", game=game, path=str(path))
    document = ok(engine, "save", game=game)["document"]
    code, message = fails(engine, "load", path=str(path), document=document)
    assert code == "bad_request" and "not both" in message
    assert fails(engine, "load", document=[1])[0] == "bad_request"
    assert list(engine.games) == [game]


def test_hello_names_every_player_that_seats_and_play_opponent_accept() -> None:
    engine = Engine()
    hello = ok(engine, "hello")
    named = [player["name"] for player in hello["players"]]
    aliases = hello["player_aliases"]
    assert aliases == {"match-lite": "expert"} and set(aliases.values()) <= set(named)
    assert sorted(named + list(aliases)) == sorted(POLICY_NAMES)
    game = ok(engine, "new", seats=["human", "match-lite"], hands=HANDS)["game"]
    ok(engine, "move", game=game, move="end")
    assert ok(engine, "play-opponent", game=game)["player"] == "match-lite"


def test_the_time_range_is_stated_by_the_error_and_the_page() -> None:
    engine = Engine()
    game = ok(engine, "new", seed=1)["game"]
    code, message = fails(engine, "advise", game=game, time=4000)
    assert code == "bad_request" and "0 (exact) to 3600 seconds" in message
    advise = PROTOCOL_DOC.read_text(encoding="utf-8").split("## advise", 1)[1].split("##", 1)[0]
    assert "3600" in advise


# What a new client got wrong, answered (a walkthrough's findings) -----------------------------


def test_a_field_named_twice_is_refused_not_read_as_the_last() -> None:
    """``{"cmd": "hello", "cmd": "quit"}`` had quit the engine."""
    engine = Engine()
    reply = engine.reply_line('{"id": 34, "cmd": "hello", "cmd": "quit"}')
    assert error(reply) == ("bad_request", "the line names the field 'cmd' twice")
    assert ok(engine, "hello")["protocol"]


def test_advise_names_both_ways_to_ask_and_refuses_a_prior_a_game_has() -> None:
    engine = Engine()
    code, message = fails(engine, "advise")
    assert code == "bad_request"
    assert "'game' (a game's id, from new) or 'position'" in message
    game = ok(engine, "new", seed=3)["game"]
    code, message = fails(engine, "advise", game=game, opp_deck="kotor1-strong")
    assert (code, message.split(":")[0]) == ("bad_request", "field 'opp_deck' is for a 'position'")


def test_a_missing_deck_names_its_seat() -> None:
    code, message = fails(Engine(), "new", decks=["nosuch", "kotor1-average"])
    assert code == "input" and message.startswith("seat 1's deck: nosuch: no such file")


def test_a_game_advice_says_what_advise_json_says_under_its_table() -> None:
    """The reply holds advise --json's ``note``, ``notes`` and ``opp_deck`` (an overrun was
    explained nowhere in it)."""
    engine = Engine()
    game = ok(engine, "new", seed=3)["game"]
    advice = ok(engine, "advise", game=game, time=0)
    assert {"note", "notes", "opp_deck"} <= advice.keys()
    assert advice["opp_deck"] == "kotor1-starter" and isinstance(advice["notes"], list)
