"""``pazaak engine``, driven as a client drives it: a real subprocess, JSON lines in and out.

Every example block of docs/protocol.md runs here too (in a fresh engine each), so the page
cannot drift from what the engine replies.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pazaak_cli.cli import main
from pazaak_cli.engine.notation import parse_position
from pazaak_cli.tools.engine_protocol import COMMANDS, ERROR_CODES, Engine

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
WILDCARD = "..."


class Client:
    """A ``pazaak engine`` process and the replies it writes."""

    def __init__(self, env: dict[str, str] | None = None, cwd: Path = ROOT) -> None:
        environment = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pazaak_cli", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=environment,
        )
        self.count = 0

    def send_line(self, line: str | bytes) -> None:
        assert self.process.stdin is not None
        data = line.encode("utf-8") if isinstance(line, str) else line
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def send(self, cmd: str, **fields: Any) -> int:
        self.count += 1
        self.send_line(json.dumps({"id": self.count, "cmd": cmd, **fields}))
        return self.count

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the engine wrote nothing more"
        reply = json.loads(line)
        assert isinstance(reply, dict)
        return reply

    def ask(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """Send a request and return its reply (checking that it carries the request's id)."""
        number = self.send(cmd, **fields)
        reply = self.read()
        assert reply["id"] == number
        return reply

    def ok(self, cmd: str, **fields: Any) -> dict[str, Any]:
        reply = self.ask(cmd, **fields)
        assert reply["ok"], reply
        result = reply["result"]
        assert isinstance(result, dict)
        return result

    def close(self) -> tuple[int, bytes, bytes]:
        """End the input; the exit code, and what was left on stdout and stderr."""
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, out, err


@pytest.fixture
def client() -> Iterator[Client]:
    engine = Client()
    yield engine
    if engine.process.poll() is None:
        engine.process.kill()
        engine.process.wait()


def _error(reply: dict[str, Any]) -> tuple[str, str]:
    assert reply["ok"] is False, reply
    assert set(reply) == {"id", "ok", "error"}
    return reply["error"]["code"], reply["error"]["message"]


def test_hello_names_the_protocol_the_version_and_the_players(client: Client) -> None:
    result = client.ok("hello")
    assert result["protocol"] == "1"
    assert result["commands"] == list(COMMANDS)
    assert {"kotor", "random", "heuristic", "expert"} <= {p["name"] for p in result["players"]}
    assert result["rulesets"] == ["kotor1", "kotor2"]
    assert client.close() == (0, b"", b"")


def test_a_game_moves_on_undoes_and_shows_each_seat_only_its_own_hand(client: Client) -> None:
    game = client.ok("new", decks=["kotor1-starter", "kotor1-average"], seed=11)["game"]
    seen = [client.ok("view", game=game, seat=seat) for seat in (1, 2)]
    for number, view in enumerate(seen):
        mine, theirs = view["sides"][number], view["sides"][1 - number]
        assert None not in mine["hand"] and len(mine["hand"]) == 4
        assert theirs["hand"] == [None] * 4
        assert "?,?,?,?" in view["position"]
    before = seen[0]["position"]
    legal = client.ok("legal", game=game)
    assert legal["to_act"] == 1 and {"move": "end"} in legal["moves"]
    first = client.ok("move", game=game, move="end")
    assert first["events"][0] == {"by": 1, "action": "end", "text": "end turn"}
    assert first["to_act"] == 2
    client.ok("move", game=game, move="stand")
    assert client.ok("undo", game=game, moves=2)["undone"] == 2
    assert client.ok("view", game=game, seat=1)["position"] == before
    # the same move after an undo deals the same card
    assert client.ok("move", game=game, move="end")["events"] == first["events"]
    assert client.close()[0] == 0


def test_two_games_at_once_keep_apart(client: Client) -> None:
    one = client.ok("new", seed=1, game="one")["game"]
    two = client.ok("new", seed=2, ruleset="kotor2/main-deck=infinite")["game"]
    assert (one, two) == ("one", "g1")
    positions = {g: client.ok("view", game=g, seat=1)["position"] for g in (one, two)}
    client.ok("move", game=one, move="end")
    assert client.ok("view", game=two, seat=1)["position"] == positions[two]
    assert client.ok("view", game=one, seat=1)["position"] != positions[one]
    assert positions[two].startswith("kotor2/main-deck=infinite ")
    assert _error(client.ask("new", game="one"))[0] == "game_exists"
    client.close()


def test_bad_lines_get_one_error_each_and_change_nothing(client: Client) -> None:
    game = client.ok("new", hands=[["+1", "+2", "±3", "+4"], ["-1", "-2", "-3", "-4"]])["game"]
    before = client.ok("view", game=game, seat=1)
    client.send_line("{not json")
    assert _error(client.read())[0] == "bad_json"
    client.send_line(b"\xff\xfe")
    assert _error(client.read())[0] == "bad_json"
    client.send_line('"hello"')
    assert _error(client.read())[0] == "bad_request"
    client.send_line('{"id": NaN, "cmd": "hello"}')
    assert _error(client.read())[0] == "bad_json"
    client.send_line('{"id": 1e999, "cmd": "hello"}')
    assert _error(client.read())[0] == "bad_request"
    client.send_line('{"id": [1], "cmd": "hello"}')
    assert _error(client.read()) == ("bad_request", "field 'id' is [1]: a string or a number")
    checks = [
        (("warp", {}), "unknown_command", "warp"),
        (("view", {"game": "nope", "seat": 1}), "unknown_game", "nope"),
        (("view", {"game": game, "seat": 3}), "bad_request", "'seat'"),
        (("move", {"game": game, "move": "play", "slot": 2, "card": "-2"}), "wrong_card", "+2"),
        (("move", {"game": game, "move": "play", "slot": 3, "value": 5}), "illegal_move", "+5"),
        (("move", {"game": game, "move": "play", "slot": 1, "card": "+7"}), "bad_card", "+7"),
        (("move", {"game": game, "move": "jump"}), "bad_request", "jump"),
        (("move", {"game": game, "move": "end", "seat": 2}), "not_your_turn", "seat 1"),
        (("play-opponent", {"game": game}), "bad_request", "person"),
        (("play-opponent", {"game": game, "player": "yoda"}), "unknown_player", "yoda"),
        (("undo", {"game": game}), "nothing_to_undo", "0 made"),
        (("new", {"ruleset": "kotor3"}), "bad_ruleset", "kotor3"),
        (("new", {"seed": -1}), "bad_request", "from 0"),
        (("new", {"decks": ["no-such-deck", "kotor1-starter"]}), "input", "no-such-deck"),
        (("advise", {"position": "kotor1 1 2 3"}), "bad_position", "10 fields"),
        (("advise", {"game": game, "time": -1}), "bad_request", "'time'"),
    ]
    for (cmd, fields), wanted, named in checks:
        found, message = _error(client.ask(cmd, **fields))
        assert (found, named in message) == (wanted, True), (cmd, fields, message)
    assert client.ok("view", game=game, seat=1) == before
    assert client.ok("legal", game=game)["to_act"] == 1
    code, out, err = client.close()
    assert (code, out, err) == (0, b"", b"")


def test_a_match_played_out_by_the_computer_players_keeps_to_the_legal_moves(
    client: Client,
) -> None:
    game = client.ok("new", seats=["random", "kotor"], seed=5)["game"]
    for _ in range(400):
        legal = client.ok("legal", game=game)
        if legal["to_act"] is None:
            break
        played = client.ok("play-opponent", game=game)
        assert played["move"] in legal["moves"] and played["move"] != {"move": "forfeit"}
    else:
        pytest.fail("the match did not end in 400 moves")
    assert played["phase"] == "match_over" and played["winner"] in (1, 2)
    assert max(played["sets_won"]) == 3
    assert _error(client.ask("move", game=game, move="end"))[0] == "illegal_move"
    # another player can stand in for a seat
    other = client.ok("new", seed=5)["game"]
    assert client.ok("play-opponent", game=other, player="stand17")["player"] == "stand17"
    client.close()


def test_save_and_load_resume_the_same_match(client: Client, tmp_path: Path) -> None:
    game = client.ok("new", seats=["human", "kotor"], seed=3)["game"]
    client.ok("move", game=game, move="end")
    path = tmp_path / "match.json"
    saved = client.ok("save", game=game, path=str(path))
    assert path.exists() and saved["path"] == str(path)
    loaded = client.ok("load", path=str(path))["game"]
    inline = client.ok("load", document=client.ok("save", game=game)["document"])["game"]
    views = [client.ok("view", game=g, seat=1)["position"] for g in (game, loaded, inline)]
    assert views[0] == views[1] == views[2]
    # the loaded games deal the same cards as the original
    moves = [client.ok("play-opponent", game=g)["events"] for g in (game, loaded, inline)]
    assert moves[0] == moves[1] == moves[2]
    path.write_text("{}", encoding="utf-8")
    assert _error(client.ask("load", path=str(path)))[0] == "bad_save"
    client.close()


def test_a_stop_after_an_answer_that_failed_has_nothing_to_stop() -> None:
    # (a failed answer once left the engine "busy": the stop then sent its interrupt to the
    # main thread waiting for the next line, and the engine died)
    # (gold hands both known: the match's tables of one score, 2.3 GB, are refused at once; a
    # hidden hand's least sample was refused so until the gold foresight took one hand at a time)
    client = Client()
    position = "kotor2 1 - ±6,D,F3/6,T ±1/2,D,F2/4,F3/6 -- - 3444444444 a1 1"
    reply = client.ask("advise", position=position, objective="match", time=60)
    assert not reply["ok"] and reply["error"]["code"] == "domain", reply
    assert "bound" in reply["error"]["message"]
    assert client.ok("stop") == {"stopped": False}
    assert client.ok("hello")["protocol"] == "1"
    code, _, err = client.close()
    assert code == 0, err


def test_stop_cuts_a_long_advise_short_with_the_answer_so_far() -> None:
    client = Client()  # (two solver processes where there are two cores: both stop)
    position = "kotor2 6,9 10 F2/4,F3/6,D,±1/2 ?,?,?,? -- - 4443434433 a1 1"
    asked = client.send(
        "advise", position=position, opp_deck="kotor2-average", time=120, objective="set"
    )
    time.sleep(3.0)  # (two hands at least are solved by then, even on a loaded machine)
    stop = client.send("stop")
    stopped_at = time.monotonic()
    first, second = client.read(), client.read()
    waited = time.monotonic() - stopped_at
    assert first == {"id": stop, "ok": True, "result": {"stopped": True}}
    assert second["id"] == asked and second["ok"], second
    answer = second["result"]
    assert answer["stopped"] is True and answer["exactness"] == "sampled"
    assert 2 <= answer["hands_solved"] < answer["hands_possible"]
    assert all(move["interval"] is not None for move in answer["moves"])
    # (the exact answer takes about 9 s alone; the stop shows in the sampled answer above; both
    # processes stop the hands under way: a hand here takes seconds, the stop a fraction of one)
    assert waited < 5, waited
    # the engine goes on, and a stop with nothing to stop says so
    assert client.ok("stop") == {"stopped": False}
    assert client.ok("hello")["protocol"] == "1"
    assert client.close()[0] == 0


def test_the_end_of_the_input_ends_the_engine_cleanly_and_quit_ends_it_at_once() -> None:
    client = Client()
    client.send("new", seed=1)
    client.send("move", game="g1", move="end")
    code, out, err = client.close()
    lines = out.decode("utf-8").splitlines()
    assert code == 0 and err == b"" and len(lines) == 2
    assert all(json.loads(line)["ok"] for line in lines)
    client = Client()
    client.send("quit")
    client.send("hello")
    code, out, _ = client.close()
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [1]


def test_an_advise_in_a_game_is_blind_to_the_other_hand() -> None:
    """In-process (no subprocess): the advice of a game equals the stateless advice on the
    seat's own view of it, whose other hand is hidden."""
    engine = Engine()
    new = engine.reply({"id": 1, "cmd": "new", "seed": 4, "seats": ["human", "stand17"]})
    game = new["result"]["game"]
    view = engine.reply({"id": 2, "cmd": "view", "game": game, "seat": 1})["result"]
    assert not parse_position(view["position"]).sides[1].hand_known
    common = {"time": 0, "objective": "set", "opponent": "optimal"}
    in_game = engine.reply({"id": 3, "cmd": "advise", "game": game, **common})["result"]
    stateless = {"id": 4, "cmd": "advise", "position": view["position"], **common}
    alone = engine.reply(stateless)["result"]
    assert in_game["hands_possible"] == alone["hands_possible"] > 1
    assert in_game["moves"] == alone["moves"]


# docs/protocol.md -------------------------------------------------------------------------


def protocol_blocks(text: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """Every ```protocol block: its line and its (``>`` request or ``<`` reply, text) lines."""
    blocks = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        if lines[index].strip() != "```protocol":
            index += 1
            continue
        start = index + 1
        items: list[tuple[str, str]] = []
        index += 1
        while not lines[index].startswith("```"):
            line = lines[index]
            if line.startswith(("> ", "< ")):
                items.append((line[0], line[2:]))
            else:
                assert items and items[-1][0] == "<", f"line {index + 1}: {line!r}"
                items[-1] = ("<", items[-1][1] + "\n" + line)
            index += 1
        blocks.append((start, items))
    return blocks


def matches(expected: Any, actual: Any) -> bool:
    """``expected`` with the doc's wildcards against a real reply."""
    if expected == WILDCARD:
        return True
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        open_ended = expected.get(WILDCARD) == WILDCARD
        keys = set(expected) - {WILDCARD}
        if not open_ended and keys != set(actual):
            return False
        return keys <= set(actual) and all(matches(expected[k], actual[k]) for k in keys)
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return False
        if expected and expected[-1] == WILDCARD:
            head = expected[:-1]
            return len(actual) >= len(head) and all(map(matches, head, actual))
        return len(expected) == len(actual) and all(map(matches, expected, actual))
    if isinstance(expected, float) and isinstance(actual, float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


BLOCKS = protocol_blocks(PROTOCOL_DOC.read_text(encoding="utf-8"))


def test_the_protocol_page_has_examples_of_every_command() -> None:
    sent = {
        json.loads(text)["cmd"]
        for _, items in BLOCKS
        for kind, text in items
        if kind == ">" and text.startswith("{")
    }
    assert sent - {"fly"} == set(COMMANDS)  # (fly: the unknown command of "Errors")
    assert len(BLOCKS) >= 8


def test_the_wildcards_match_what_they_say_and_nothing_else() -> None:
    assert matches({"a": 1, "...": "..."}, {"a": 1, "b": 2})
    assert not matches({"a": 1}, {"a": 1, "b": 2})
    assert not matches({"a": 1, "...": "..."}, {"b": 2})
    assert matches([1, "..."], [1, 2, 3]) and not matches([1, 2], [1, 2, 3])
    assert matches("...", None) and not matches(1, 1.0) and not matches(True, 1)


@pytest.mark.parametrize("start, items", BLOCKS, ids=[f"protocol.md:{s}" for s, _ in BLOCKS])
def test_every_example_of_the_protocol_page_runs_as_shown(
    start: int, items: list[tuple[str, str]], tmp_path: Path
) -> None:
    client = Client(cwd=tmp_path)  # (a save example writes match.json there)
    for kind, text in items:
        if kind == ">":
            client.send_line(text)
    code, out, err = client.close()
    replies = [json.loads(line) for line in out.decode("utf-8").splitlines()]
    expected = [json.loads(text) for kind, text in items if kind == "<"]
    assert (code, err) == (0, b"")
    assert len(replies) == len(expected), replies
    for wanted, got in zip(expected, replies, strict=True):
        assert matches(wanted, got), f"expected {wanted}\n     got {got}"


def test_a_reply_is_one_line_even_when_a_message_quotes_new_lines(client: Client) -> None:
    client.send_line(json.dumps({"id": "x\ny", "cmd": "no\nsuch"}))
    reply = client.read()
    assert reply["id"] == "x\ny" and '"no\\nsuch"' in reply["error"]["message"]
    assert client.ask("hello")["ok"]  # the next line read is the next reply
    client.close()


def test_the_example_client_plays_a_match_to_its_end() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples" / "engine_client.py"), "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("engine ") and lines[1].startswith("advice (")
    assert re.fullmatch(r"seat [12] wins \d-\d", lines[-1])


def test_an_undo_replays_a_random_guest_players_choices_too() -> None:
    engine = Engine()

    def ask(cmd: str, **fields: Any) -> dict[str, Any]:
        reply = engine.reply({"id": 0, "cmd": cmd, **fields})
        assert reply["ok"], reply
        result: dict[str, Any] = reply["result"]
        return result

    game = ask("new", seed=8, decks=["kotor1-strongest", "kotor1-strongest"])["game"]
    first = [ask("play-opponent", game=game, player="random") for _ in range(6)]
    ask("undo", game=game, moves=6)
    again = [ask("play-opponent", game=game, player="random") for _ in range(6)]
    assert again == first
    assert len({json.dumps(r["move"]) for r in first}) > 1  # (it did choose among moves)


def test_the_error_table_of_the_page_lists_exactly_the_codes_the_engine_gives() -> None:
    source = ROOT / "pazaak_cli" / "tools" / "engine_protocol.py"
    given = set(ERROR_CODES.values()) | {"domain"}
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            place = {"ProtocolError": 0, "error_reply": 1}.get(node.func.id)
            code = node.args[place] if place is not None else None
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                given.add(code.value)
    table = PROTOCOL_DOC.read_text(encoding="utf-8").split("## Errors", 1)[1].split("```", 1)[0]
    listed = set(
        re.findall(
            r"`([a-z_]+)`",
            "\n".join(line.split("|")[1] for line in table.splitlines() if line.startswith("| `")),
        )
    )
    assert listed == given


def test_the_same_advise_asked_again_goes_on_refining_the_answer() -> None:
    engine = Engine()
    question = {
        "cmd": "advise",
        "position": "kotor2 6,9 10 D,T,±1/2,+3 ?,?,?,? -- - 4443434433 a1 1",
        "opp_deck": "kotor2-hard",
        "objective": "set",
        "time": 0.5,
    }
    first = engine.reply({"id": 1, **question})["result"]
    again = engine.reply({"id": 2, **question})["result"]
    assert (first["continued"], again["continued"]) == (False, True)
    assert first["exactness"] == "sampled"
    assert again["hands_solved"] > first["hands_solved"]
    other = engine.reply({"id": 3, **question, "seed": 1})["result"]
    assert other["continued"] is False and other["seed"] == 1


def test_the_command_runs_in_process_too() -> None:
    """Click's test runner (a program calling the command in its own process): the input's
    end ends it with exit 0 and the process goes on."""
    result = CliRunner().invoke(
        main, ["engine"], input='{"id": 1, "cmd": "hello"}\nnot json\n{"id": 2, "cmd": "quit"}\n'
    )
    assert result.exit_code == 0, result.output
    replies = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["id"], r["ok"]) for r in replies] == [(1, True), (None, False), (2, True)]


def test_a_field_the_command_does_not_take_is_refused_naming_it() -> None:
    """A misspelt field was once ignored: ``opp-deck`` (the command line's spelling) gave the
    default deck's answer, ``seeds`` the seed 0, without a word."""
    engine = Engine()
    position = "kotor1 5 - +1,+2,+3,+4 ?,?,?,? -- - 4444344444 a1 1"
    reply = engine.reply(
        {"id": 1, "cmd": "advise", "position": position, "opp-deck": "kotor1-strong"}
    )
    assert reply["error"] == {
        "code": "bad_request",
        "message": "advise has no field \"opp-deck\" (did you mean 'opp_deck'?); it takes game, "
        "seat, position, time, objective, opponent, opp_deck, seed, hands beside 'id' and 'cmd'",
    }
    reply = engine.reply({"id": 2, "cmd": "quit", "now": True})
    assert reply["error"]["message"] == (
        "quit has no field \"now\"; it takes no field beside 'id' and 'cmd'"
    )
    assert not engine.quitting and engine.games == {}
    # (the id of a line naming a field twice is given back where it is named once)
    assert engine.reply_line('{"id": 3, "cmd": "new", "seed": 1, "seed": 2}')["id"] == 3
    reply = engine.reply({"id": 4, "cmd": "load", "document": {"seed": 1}})
    assert (
        reply["error"]["message"] == "field 'document' cannot be loaded: field 'ruleset' is missing"
    )
    reply = engine.reply({"id": 5, "cmd": "new", "game": ""})
    assert reply["error"]["message"] == "field 'game' is \"\", not an id of 1 to 64 characters"


def test_a_sampled_answer_comes_again_from_its_hands_and_seed() -> None:
    """The notes of a sampled answer say ``--hands N --seed S`` gives it again: the engine takes
    them as the fields ``hands`` and ``seed`` (it once had no ``hands``, and ignored it)."""
    question = {
        "cmd": "advise",
        "position": "kotor1 5 - +1,+2,+3,+4 ?,?,?,? -- - 4444344444 a1 1",
        "opp_deck": "kotor1-average",
        "objective": "set",
        "seed": 4,
    }
    first = Engine().reply({"id": 1, **question, "time": 0.05})["result"]
    assert first["exactness"] == "sampled"
    solved = first["hands_solved"]
    assert f"--hands {solved} --seed 4 gives this answer again" in first["notes"][0]
    again = Engine().reply({"id": 2, **question, "hands": solved})["result"]
    assert (again["exactness"], again["hands_solved"], again["seed"]) == ("sampled", solved, 4)
    assert again["moves"] == first["moves"] and again["time_budget"] is None
    engine = Engine()
    both = engine.reply({"id": 3, **question, "hands": solved, "time": 1})
    assert both["error"]["message"].startswith("advise takes 'time' or 'hands', not both")
    too_few = engine.reply({"id": 4, **question, "hands": 1})
    assert too_few["error"]["message"] == "field 'hands' is 1, not a whole number from 2 to 1000000"
