"""Save files: atomic writes, the data directory, and every way a file can be unusable.

A save file that cannot be used (corrupt, foreign, newer) must give one clear error and be left
byte for byte as it was; a write that fails half-way must leave the old file intact.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.errors import InputError, NotationError, PazaakError
from pazaak_cli.engine.game import END_TURN, STAND, Action, MatchState
from pazaak_cli.engine.move_notation import format_action, parse_action
from pazaak_cli.engine.rules import KOTOR1, KOTOR2
from pazaak_cli.runtime.savefile import (
    DATA_DIR_ENV,
    FORMAT,
    MAX_SAVE_BYTES,
    VERSION,
    SaveFileError,
    SaveInUseError,
    data_dir,
    default_save_path,
    hold_save,
    lock_path,
    probe_save,
    read_save,
    set_aside,
    write_save,
)
from pazaak_cli.tools.session import HUMAN, MatchSession, Seat, load_session

STARTER = parse_cards("+1 +1 +2 +2 +3 +3 +4 +4 +5 +5")
GOLD = parse_cards("±1/2 F2/4 F3/6 D T ±3 ±4 -2 +5 ±6")


class RandomDouble:
    """A computer seat for these tests: a random legal move from its own stream (so that the
    save must carry that stream too)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: MatchState) -> Action:
        actions = [a for a in view.legal_actions() if str(a) != "forfeit"]
        return actions[self.rng.randrange(len(actions))]


def double_factory(
    kind: str, ruleset: object, rng: random.Random, own: object, other: object
) -> RandomDouble:
    return RandomDouble(rng)


def new_session(seed: int = 1, ruleset: Any = KOTOR1, deck: Any = STARTER) -> MatchSession:
    seats = (Seat(HUMAN, "You", "starter", deck), Seat("random", "random", "starter", deck))
    return MatchSession.start(ruleset, seats, seed=seed, wager=5, player_factory=double_factory)


def play_some(session: MatchSession, moves: int) -> None:
    """Move the match on: the person stands at 15 or more, else ends the turn."""
    for _ in range(moves):
        if session.finished:
            return
        seat = session.human_to_act()
        if seat is None:
            session.advance()
            continue
        total = session.state.sides[seat].total
        session.apply(STAND if 15 <= total <= 20 else END_TURN)


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))


# -- where saves go ----------------------------------------------------------------------------


def test_data_dir_env_var_overrides_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "mine"))
    assert data_dir() == tmp_path / "mine"
    assert default_save_path() == tmp_path / "mine" / "match.json"


def test_data_dir_follows_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "pazaak"


def test_data_dir_defaults_to_local_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert data_dir() == tmp_path / ".local" / "share" / "pazaak"


# -- writing -----------------------------------------------------------------------------------


def test_write_creates_the_directory_and_adds_the_envelope(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "match.json"
    write_save(path, {"x": 1})
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document == {"format": FORMAT, "version": VERSION, "x": 1}
    assert read_save(path)["x"] == 1


def test_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    for value in range(3):
        write_save(path, {"x": value})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json"]


def _refused_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: object, name: str, number: int
) -> PazaakError:
    """``write_save`` over an old save while ``module.name`` raises OSError ``number``: the
    error it raises, once it is checked that the old save is left byte for byte and no
    temporary file behind."""
    path = tmp_path / "match.json"
    write_save(path, {"x": "old"})
    before = path.read_bytes()

    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr(module, name, refused)
    with pytest.raises(PazaakError, match=os.strerror(number)) as raised:
        write_save(path, {"x": "new"})
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json"]
    return raised.value


def test_failed_rename_keeps_the_old_save_and_removes_the_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = _refused_write(tmp_path, monkeypatch, os, "replace", errno.ENOSPC)
    assert not isinstance(error, InputError)  # (a failure, exit 1: not a usage error)


def test_no_room_for_the_temporary_file_is_a_failure_and_no_permission_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk when the temporary file is made exited 2, the code of a usage error."""
    for number, usage in ((errno.ENOSPC, False), (errno.EDQUOT, False), (errno.EACCES, True)):
        error = _refused_write(tmp_path, monkeypatch, tempfile, "mkstemp", number)
        assert isinstance(error, InputError) is usage, number


def test_interrupt_during_write_keeps_the_old_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "match.json"
    write_save(path, {"x": "old"})
    before = path.read_bytes()

    def interrupted_fsync(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted_fsync)
    with pytest.raises(KeyboardInterrupt):
        write_save(path, {"x": "new"})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json"]


def test_writing_onto_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "match.json").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        write_save(tmp_path / "match.json", {})


# -- reading: every unusable file gets one clear error and stays untouched ----------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a pazaak save file: it is empty"),
        (b" \n\n", "not a pazaak save file: it is blank"),
        (b"hello, world\n", "not a pazaak save file: it is not JSON"),
        (b"\xff\xfe\x00garbage", "not a pazaak save file: it is not UTF-8"),
        (b'{"name": "my notes"}', 'not a pazaak save file: it has no "format"'),
        (b"[1, 2, 3]", 'not a pazaak save file: it has no "format"'),
        (b'{"format": "pazaak-match", "version": 1, "seed"', "corrupt pazaak save file: invalid"),
        (b'{"format": "pazaak-match", "version": "one"}', "corrupt pazaak save file: its version"),
        (b'{"format": "pazaak-match", "version": 99}', "saved by a newer pazaak"),
    ],
)
def test_unusable_file_is_reported_and_left_untouched(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "match.json"
    path.write_bytes(content)
    with pytest.raises(SaveFileError) as caught:
        read_save(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)
    assert "left untouched" in str(caught.value) or "upgrade" in str(caught.value)
    assert path.read_bytes() == content


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as stream:
        stream.truncate(MAX_SAVE_BYTES + 1)
    with pytest.raises(SaveFileError, match="far more than a saved match"):
        read_save(path)


def test_missing_save_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="there is no saved match at"):
        read_save(tmp_path / "nothing.json")
    assert probe_save(tmp_path / "nothing.json") is None


def test_directory_is_not_a_save(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_save(tmp_path)


# -- the match document ------------------------------------------------------------------------


def test_moves_round_trip_through_text() -> None:
    session = new_session(seed=3, ruleset=KOTOR2, deck=GOLD)
    play_some(session, 300)
    for action in session.actions:
        assert parse_action(format_action(action)) == action


@pytest.mark.parametrize(
    "text", ["", "draw", "draw x", "play 1 +7 +7", "open 3", "jump", "end now"]
)
def test_unknown_move_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError, match="is not a move"):
        parse_action(text)


def test_saved_match_resumes_with_the_same_future(tmp_path: Path) -> None:
    """The same cards to come and the same computer choices, after a save and a load."""
    path = tmp_path / "match.json"
    straight = new_session(seed=11)
    play_some(straight, 25)
    straight.save(path)
    resumed = load_session(path, double_factory)
    assert resumed.state == straight.state
    play_some(straight, 400)
    play_some(resumed, 400)
    assert straight.finished
    assert resumed.actions == straight.actions
    assert resumed.state == straight.state


def test_finished_match_is_marked_finished(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    session = new_session(seed=4)
    play_some(session, 1000)
    assert session.finished
    session.save(path)
    document = read_save(path)
    assert document["finished"] is True
    winner = session.winner()
    assert winner is not None
    assert document["result"]["winner"] == winner + 1
    assert load_session(path, double_factory).finished


def _valid_document(seed: int = 2, moves: int = 30) -> dict[str, Any]:
    session = new_session(seed=seed)
    play_some(session, moves)
    return {"format": FORMAT, "version": VERSION, **session.to_document()}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.pop("moves"), "field 'moves' is missing"),
        (lambda d: d["moves"].append("draw 11"), "is impossible"),
        (lambda d: d["moves"].__setitem__(0, "fly"), "move 1: 'fly' is not a move"),
        (lambda d: d.__setitem__("position", "kotor1 - - - - -- - 4444444444 o1 1"), "position"),
        (lambda d: d.__setitem__("ruleset", "kotor9"), "field 'ruleset'"),
        (lambda d: d.__setitem__("seed", "abc"), "field 'seed'"),
        (lambda d: d.__setitem__("wager", -3), "field 'wager'"),
        (lambda d: d["seats"].pop(), "two seats"),
        (lambda d: d["seats"][1].__setitem__("kind", "robot"), "neither human nor a player"),
        (lambda d: d["hands"][0].__setitem__(0, "-6"), "which its deck does not"),
        (lambda d: d["rng"]["chance"].__setitem__(1, [1, 2, 3]), "random-number stream"),
        (lambda d: d["rng"]["seats"].__setitem__(1, None), "random stream does not match"),
        (lambda d: d.__setitem__("finished", True), "field 'finished'"),
        (lambda d: d["seats"][0]["deck"]["cards"].pop(), "seat 1's deck holds 9 cards; a kotor1"),
        (lambda d: d["seats"][1]["deck"]["cards"].append("+1"), "seat 2's deck holds 11 cards"),
        (lambda d: d["hands"].__setitem__(0, [d["hands"][0][0]] * 4), "4 times, its deck"),
        (lambda d: d.__setitem__("seed", d["seed"] + 1), "which deals other hands than 'hands'"),
        (lambda d: d.__setitem__("seed", -5), "field 'seed' is -5, less than 0"),
    ],
)
def test_damaged_document_is_reported_as_corrupt_and_left_untouched(
    tmp_path: Path, damage: Any, message: str
) -> None:
    document = _valid_document()
    damage(document)
    path = tmp_path / "match.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(SaveFileError) as caught:
        load_session(path, double_factory)
    assert "is a corrupt pazaak save file" in str(caught.value)
    assert message in str(caught.value)
    assert path.read_bytes() == before


_VALID = _valid_document(seed=9, moves=40)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (dict keys and list indices)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            found += _paths(item, (*prefix, index))
    return found


_PLACES = [p for p in _paths(_VALID) if p[0] not in ("format", "version", "result")]
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.text(max_size=12),
    st.lists(st.integers(0, 10), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(_PLACES), junk=_JUNK)
def test_any_damage_is_harmless_or_a_clean_save_error(place: tuple[Any, ...], junk: Any) -> None:
    """Replace any one value of a valid save with junk: the loader either gets a consistent
    match or raises SaveFileError; never another exception."""
    document = copy.deepcopy(_VALID)
    holder = document
    for key in place[:-1]:
        holder = holder[key]
    holder[place[-1]] = junk
    try:
        session = MatchSession.from_document(document, double_factory)
    except SaveFileError:
        return
    # Accepted: it must be a real match that replays to its own saved position.
    assert session.state.sets_won() == tuple(session.state.sets_won())
    assert session.to_document()["position"] == document["position"]


# -- what Python cannot read, paths that cannot be used, and the session lock (issue 12) --------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "not a pazaak save file: its JSON nested too deep"),
        (b'{"format": "pazaak-match", "version": 1, "seed": ' + b"7" * 4301 + b"}",
         "corrupt pazaak save file: its JSON holds a number too long"),
        (b'{"a": [' * 5000 + b"1" + b"]}" * 5000, "not a pazaak save file: its JSON nested too"),
    ],
    ids=["deep array", "a seed of 4301 digits", "deep objects"],
)  # fmt: skip
def test_json_that_python_cannot_read_is_unusable_and_untouched(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "match.json"
    path.write_bytes(content)
    with pytest.raises(SaveFileError) as caught:
        read_save(path)
    assert message in str(caught.value)
    assert "left untouched" in str(caught.value)
    assert path.read_bytes() == content


def test_a_device_or_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is not a save file: it is not a regular file"):
        read_save(fifo)
    with pytest.raises(InputError, match="is not a save file: it is not a regular file"):
        read_save(Path("/dev/zero"))


def test_a_name_too_long_is_an_input_error_not_an_os_error(tmp_path: Path) -> None:
    path = tmp_path / ("n" * 300)
    with pytest.raises(InputError, match="File name too long"):
        read_save(path)
    with pytest.raises(InputError, match="File name too long"):
        probe_save(path)
    with pytest.raises(InputError, match="too long"):
        write_save(path, {})
    with pytest.raises(InputError, match="File name too long"), hold_save(path):
        pass


def test_a_name_of_255_bytes_can_be_held_and_written(tmp_path: Path) -> None:
    path = tmp_path / ("é" * 127)  # 254 bytes in UTF-8
    with hold_save(path):
        assert len(os.fsencode(lock_path(path).name)) <= 255
        write_save(path, {"x": 1})
    assert read_save(path)["x"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_holding_a_save_removes_the_temporaries_a_killed_write_left(tmp_path: Path) -> None:
    """A write killed between its temporary file and the rename leaves the temporary; the next
    session to hold that save removes it (and nothing else)."""
    path = tmp_path / "k.json"
    write_save(path, {"kind": "test"})
    left = tmp_path / ".k.json._1aileto.tmp"
    left.write_text('{"partial', encoding="utf-8")
    others = [tmp_path / ".k.json.notours.tmp", tmp_path / ".other.json.abcd1234.tmp"]
    for other in others:
        other.write_text("x", encoding="utf-8")
    with hold_save(path):
        pass
    assert not left.exists()
    assert all(other.exists() for other in others)
    assert read_save(path)["kind"] == "test"


def test_a_save_is_held_by_one_session_at_a_time(tmp_path: Path) -> None:
    """Two sessions in one process (each opens the lock file itself, as two processes do); the
    second is told which command holds the save."""
    path = tmp_path / "match.json"
    with hold_save(path, holder="pazaak follow"):
        busy = pytest.raises(SaveInUseError, match="is open in another pazaak follow:")
        with busy, hold_save(path, holder="pazaak play"):
            pass
        with pytest.raises(SaveInUseError), hold_save(tmp_path / "." / "match.json"):
            pass
        with hold_save(tmp_path / "other.json"):
            pass
    with hold_save(path):
        pass
    assert list(tmp_path.iterdir()) == []


def test_holding_a_save_in_a_missing_directory(tmp_path: Path) -> None:
    with (
        pytest.raises(InputError, match="there is no saved match"),
        hold_save(tmp_path / "no" / "match.json", create_directory=False),
    ):
        pass
    assert not (tmp_path / "no").exists()
    with hold_save(tmp_path / "new" / "match.json"):
        assert (tmp_path / "new").is_dir()


def test_set_aside_keeps_every_byte_and_never_replaces(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    for number, content in enumerate((b"first", b"second", b"third"), start=1):
        path.write_bytes(content)
        aside = set_aside(path)
        assert aside.name == (
            "match.json.corrupt" if number == 1 else f"match.json.corrupt-{number}"
        )
        assert aside.read_bytes() == content
        assert not path.exists()
