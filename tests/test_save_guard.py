"""Saves that must not be lost or misread: a save reached through a symbolic link, a save of the
other command (``play`` and ``follow`` each refuse the other's, saying which command continues
it), a ``follow`` opponent deck of another ruleset, ``follow --json`` input that is not an event,
and the wording of an unreadable default save and an empty ``--save``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.runtime.savefile import (
    DATA_DIR_ENV,
    SaveInUseError,
    hold_save,
    lock_path,
    read_save,
    write_save,
)

HAND = "+1 -2 ±3 +4"
JSON_OBJECT = 'a JSON input line is an object {"line": "..."}'


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def pazaak(args: list[str], lines: list[str] | None = None) -> Result:
    """Run ``pazaak ARGS`` with ``lines`` piped in."""
    text = "".join(f"{line}\n" for line in lines or [])
    return CliRunner().invoke(main, args, input=text)


def play_save(path: Path) -> None:
    """An unfinished match of ``pazaak play`` in ``path``."""
    made = pazaak(["play", "--deck", "kotor1-starter", "--seed", "1", "--save", str(path)], ["q"])
    assert made.exit_code == 0, made.output


def follow_save(path: Path) -> None:
    """An unfinished match of ``pazaak follow`` in ``path`` (set 1 opened, nothing typed)."""
    made = pazaak(["follow", "--hand", HAND, "--save", str(path)])
    assert made.exit_code == 0, made.output


# 1. A save through a symbolic link -------------------------------------------------------------


def test_a_save_through_a_link_writes_the_target_and_the_link_stays(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "m.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)  # dangling until the first save
    started = pazaak(["play", "--deck", "kotor1-starter", "--seed", "1", "--save", str(link)])
    assert started.exit_code == 0, started.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    first = read_save(target)
    resumed = pazaak(["play", "--resume", str(link)], ["e", "q"])
    assert resumed.exit_code == 0, resumed.output
    assert link.is_symlink()
    assert len(read_save(target)["moves"]) > len(first["moves"])
    # Nothing left behind: no temporary file, no lock file, next to the link or the target.
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert [p.name for p in (tmp_path / "real").iterdir()] == ["m.json"]


def test_a_link_and_its_target_share_one_lock(tmp_path: Path) -> None:
    target = tmp_path / "real" / "m.json"
    write_save(target, {"finished": True})
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert lock_path(link) == lock_path(target)
    with hold_save(link), pytest.raises(SaveInUseError), hold_save(target):
        pass
    with hold_save(target), pytest.raises(SaveInUseError), hold_save(link):
        pass


def test_a_loop_of_links_is_refused_not_replaced(tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    result = pazaak(["play", "--deck", "kotor1-starter", "--save", str(loop)], ["q"])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: cannot use {loop}: its symbolic links form a loop\n"
    assert loop.is_symlink()


def test_a_corrupt_default_save_through_a_link_is_set_aside_next_to_its_target(
    tmp_path: Path,
) -> None:
    target = tmp_path / "real" / "m.json"
    target.parent.mkdir()
    target.write_bytes(b"garbage")
    link = tmp_path / "data" / "match.json"
    link.parent.mkdir()
    link.symlink_to(target)
    new = pazaak(["play", "--deck", "kotor1-starter", "--seed", "3", "--new"], ["q"])
    assert new.exit_code == 0, new.output
    assert (tmp_path / "real" / "m.json.corrupt").read_bytes() == b"garbage"
    assert link.is_symlink() and read_save(target)["seed"] == 3


# 2. play and follow each refuse the other's save -----------------------------------------------


MATCHES = {
    "play": (play_save, ["--deck", "kotor1-starter"], "played", ["q"]),
    "follow": (follow_save, ["--hand", HAND], "followed", None),
}
"""Each command: how to make its unfinished save, its start options, its verb, what to type."""


@pytest.mark.parametrize(("command", "other"), [("play", "follow"), ("follow", "play")])
def test_each_command_refuses_the_others_match_even_with_new_and_says_how_to_continue_it(
    tmp_path: Path, command: str, other: str
) -> None:
    make_own, start, _, typed = MATCHES[command]
    make_other, _, verb, other_typed = MATCHES[other]
    theirs = tmp_path / "theirs.json"
    make_other(theirs)
    before = theirs.read_bytes()
    holds = (
        f"{theirs} holds a match {verb} with `pazaak {other}` (continue it with "
        f"`pazaak {other} --resume {theirs}`)"
    )
    for extra in ([], ["--new"]):
        result = pazaak([command, *start, "--save", str(theirs), *extra], typed)
        assert result.exit_code == 1, result.output
        assert result.stderr == f"Error: {holds}; choose another --save file\n"
    resumed = pazaak([command, "--resume", str(theirs)], typed)
    assert resumed.exit_code == 1, resumed.output
    assert resumed.stderr == (
        f"Error: {theirs} cannot be resumed by pazaak {command}: it holds a match {verb} with "
        f"`pazaak {other}` (continue it with `pazaak {other} --resume {theirs}`)\n"
    )
    mine = tmp_path / "mine.json"
    make_own(mine)
    elsewhere = pazaak([command, "--resume", str(mine), "--save", str(theirs)], typed)
    assert elsewhere.exit_code == 1, elsewhere.output
    assert elsewhere.stderr == f"Error: {holds}; choose another --save file\n"
    assert theirs.read_bytes() == before
    assert pazaak([other, "--resume", str(theirs)], other_typed).exit_code == 0


# 3. follow checks the opponent's deck against the ruleset at the start ------------------------


def test_follow_refuses_an_opponent_deck_of_another_ruleset_at_the_start(tmp_path: Path) -> None:
    save = tmp_path / "f.json"
    result = pazaak(["follow", "--hand", HAND, "--opp-deck", "kotor2-hard", "--save", str(save)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: invalid kotor1 side deck: sample:kotor2-hard:")
    assert "'F2/4'" in result.stderr and "not in the kotor1 card pool" in result.stderr
    assert result.stderr.count("\n") == 1
    assert not save.exists()
    under_kotor2 = ["-r", "kotor2", "--first", "me", "--opp-deck", "kotor2-hard"]
    fits = pazaak(["follow", "--hand", HAND, *under_kotor2, "--save", str(save)])
    assert fits.exit_code == 0, fits.output


# 4. follow --json input that is not an event ---------------------------------------------------


def follow_json(lines: list[str]) -> list[dict[str, object]]:
    result = pazaak(["follow", "--json", "--hand", HAND], lines)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


def test_follow_json_a_line_field_that_is_not_a_string_is_named() -> None:
    objects = follow_json(['{"line": null}', '{"line": 5}', '{"line": ["e"]}'])
    refused = [obj["message"] for obj in objects if obj["type"] == "refused"]
    assert refused == [
        'the "line" field of a JSON input line must be a string, not null',
        'the "line" field of a JSON input line must be a string, not a number',
        'the "line" field of a JSON input line must be a string, not an array',
    ]


def test_follow_json_every_line_that_is_not_the_object_gets_one_message() -> None:
    lines = ["[]", "{}", '"5"', '["5"]', "{bad", '{"lines": "5"}']
    objects = follow_json(lines)
    refused = [(obj["input"], obj["message"]) for obj in objects if obj["type"] == "refused"]
    assert refused == [(line, JSON_OBJECT) for line in lines]
    assert objects[-1]["type"] == "stopped"


def test_follow_json_never_writes_a_lone_surrogate(tmp_path: Path) -> None:
    """Bytes that are not UTF-8, and a JSON ``\\ud800`` escape, in a real process (whose
    standard streams use ``surrogateescape``): the output is strict UTF-8 JSON."""
    env = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": ""}
    process = subprocess.run(
        [sys.executable, "-m", "pazaak_cli", "follow", "--json", "--hand", HAND],
        input=b'\xff\xfe\n{"line": "\\ud800"}\n',
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert process.returncode == 0, process.stderr.decode("utf-8", "replace")
    objects = [json.loads(line) for line in process.stdout.decode("utf-8").splitlines()]
    refused = [obj for obj in objects if obj["type"] == "refused"]
    assert [obj["input"] for obj in refused] == ["\ufffd\ufffd", "\ufffd"]
    assert refused[0]["message"].startswith("'\ufffd\ufffd' is not an event")
    text = json.dumps(objects, ensure_ascii=False)
    assert not any(0xD800 <= ord(char) <= 0xDFFF for char in text)


# 5. Wording -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"garbage", "is not a pazaak save file: it is not JSON"),
        (
            b'{"format": "pazaak-match", x',
            "is a corrupt pazaak save file: invalid JSON at line 1, column 28, Expecting "
            "property name enclosed in double quotes",
        ),
        (  # (a save cut short in a string: json's message ends "starting at")
            b'{"format": "pazaak-match", "x',
            "is a corrupt pazaak save file: invalid JSON at line 1, column 28, Unterminated string",
        ),
    ],
)
def test_a_corrupt_default_save_set_aside_is_said_in_one_plain_sentence(
    content: bytes, why: str
) -> None:
    save = Path(os.environ[DATA_DIR_ENV]) / "match.json"
    save.parent.mkdir(parents=True)
    save.write_bytes(content)
    new = pazaak(["play", "--deck", "kotor1-starter", "--seed", "3", "--new"], ["q"])
    assert new.exit_code == 0, new.output
    aside = save.with_name("match.json.corrupt")
    said = new.stdout.splitlines()[0]
    assert said == (
        f"The save file {save} cannot be read ({why}); it is kept, byte for byte, as {aside}, "
        f"and the new match is saved in {save}."
    )
    assert said.count("(") == 1
    assert aside.read_bytes() == content


@pytest.mark.parametrize(
    "command", [["play", "--deck", "kotor1-starter"], ["follow", "--hand", HAND]]
)
def test_an_empty_save_path_is_named_as_such(command: list[str]) -> None:
    result = pazaak([*command, "--save", ""], ["q"])
    assert result.exit_code == 2, result.output
    assert result.stderr == "Error: the --save path is empty: give the save file's name\n"
    assert not Path("data").exists()


def test_the_engine_neither_replaces_nor_loads_a_followed_match(tmp_path: Path) -> None:
    """As play refuses a follow save even with --new, the engine's save refuses it even with
    "overwrite": true, and its load says whose match it is (it had said "cannot be used")."""
    from pazaak_cli.tools.engine_protocol import Engine

    followed = tmp_path / "f.json"
    follow_save(followed)
    before = followed.read_bytes()
    engine = Engine()
    game = engine.reply({"id": 1, "cmd": "new", "seed": 1})["result"]["game"]
    for overwrite in (False, True):
        reply = engine.reply(
            {"id": 2, "cmd": "save", "game": game, "path": str(followed), "overwrite": overwrite}
        )
        assert not reply["ok"] and reply["error"]["code"] == "bad_save"
        assert "a match followed with `pazaak follow`" in reply["error"]["message"]
    assert followed.read_bytes() == before
    reply = engine.reply({"id": 3, "cmd": "load", "path": str(followed)})
    assert not reply["ok"] and reply["error"]["code"] == "bad_save"
    assert reply["error"]["message"].startswith(f"{followed} cannot be loaded by the engine")
    assert f"`pazaak follow --resume {followed}`" in reply["error"]["message"]


def test_a_save_written_again_keeps_its_permissions(tmp_path: Path) -> None:
    """The atomic write replaced a save with a new file of mode 0600 whatever the old one's."""
    from pazaak_cli.runtime.savefile import write_save

    path = tmp_path / "m.json"
    write_save(path, {"n": 1})
    assert (path.stat().st_mode & 0o777) == 0o600  # (a new save: its owner's only)
    path.chmod(0o644)
    write_save(path, {"n": 2})
    assert (path.stat().st_mode & 0o777) == 0o644


def test_new_refuses_a_save_of_a_newer_pazaak_rather_than_calling_it_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`play --new` set a newer pazaak's save aside as `match.json.corrupt`."""
    from pazaak_cli.runtime.savefile import DEFAULT_SAVE_NAME, data_dir

    save = data_dir() / DEFAULT_SAVE_NAME
    save.parent.mkdir(parents=True, exist_ok=True)
    save.write_text('{"format": "pazaak-match", "version": 99}\n', encoding="utf-8")
    result = pazaak(["play", "--deck", "kotor1-starter", "--new"], ["q"])
    assert result.exit_code == 1, result.output
    assert "was saved by a newer pazaak" in result.stderr
    assert not save.with_name(save.name + ".corrupt").exists()
    assert save.read_text(encoding="utf-8").startswith('{"format": "pazaak-match", "version": 99}')


def test_a_version_that_is_not_a_number_is_said_so(tmp_path: Path) -> None:
    """ "its version is '1'" read as a valid version."""
    save = tmp_path / "m.json"
    save.write_text('{"format": "pazaak-match", "version": "1"}\n', encoding="utf-8")
    result = pazaak(["play", "--resume", str(save)], ["q"])
    assert result.exit_code == 1
    assert 'its version is "1", not a whole number from 1' in result.stderr


# A save that reads as JSON but cannot be resumed --------------------------------------------------


def _tampered(path: Path, field: str, value: object) -> bytes:
    document = json.loads(path.read_text(encoding="utf-8"))
    document[field] = value
    path.write_text(json.dumps(document), encoding="utf-8")
    return path.read_bytes()


def test_a_play_save_that_cannot_be_resumed_is_as_protected_as_an_unreadable_one(
    tmp_path: Path,
) -> None:
    """A tester's save with a bad seed (valid JSON) was named as a match to continue, which
    --resume then refused, and --new replaced it, keeping no copy."""
    save = tmp_path / "m.json"
    play_save(save)
    content = _tampered(save, "seed", "abc")
    kept = pazaak(["play", "--deck", "kotor1-starter", "--save", str(save)], ["q"])
    assert kept.exit_code == 1
    assert kept.stderr == (
        f"Error: {save} is a corrupt pazaak save file: field 'seed' is 'abc', not a whole "
        "number (left untouched)\n"
    )
    new = pazaak(["play", "--deck", "kotor1-starter", "--save", str(save), "--new"], ["q"])
    assert new.exit_code == 1
    assert "choose another --save file" in new.stderr
    assert save.read_bytes() == content
    other = tmp_path / "other.json"
    play_save(other)
    resumed = pazaak(["play", "--resume", str(other), "--save", str(save)], ["q"])
    assert resumed.exit_code == 1 and save.read_bytes() == content


def test_a_default_play_save_that_cannot_be_resumed_is_set_aside_by_new() -> None:
    save = Path(os.environ[DATA_DIR_ENV]) / "match.json"
    save.parent.mkdir(parents=True)
    play_save(save)
    content = _tampered(save, "moves", ["draw 11"])
    new = pazaak(["play", "--deck", "kotor1-starter", "--seed", "3", "--new"], ["q"])
    assert new.exit_code == 0, new.output
    assert new.stdout.startswith(f"The save file {save} cannot be read (is a corrupt pazaak")
    assert save.with_name("match.json.corrupt").read_bytes() == content


def test_a_follow_save_that_cannot_be_resumed_is_never_replaced(tmp_path: Path) -> None:
    save = tmp_path / "f.json"
    follow_save(save)
    content = _tampered(save, "hand", ["+9"])
    new = pazaak(["follow", "--hand", HAND, "--save", str(save), "--new"])
    assert new.exit_code == 1
    assert new.stderr.startswith(f"Error: {save} is a corrupt pazaak follow save: ")
    assert new.stderr.endswith("(left untouched); choose another --save file\n")
    assert save.read_bytes() == content


# A default deck that does not fit the ruleset ----------------------------------------------------

SMALL = "kotor1/side-deck-size=5,hand-size=2"


@pytest.mark.parametrize(
    ("args", "deck", "option"),
    [
        (["play", "--deck", "small.deck", "--save", "m.json"], "kotor1-average", "--opp-deck"),
        (
            ["simulate", "--p1-deck", "small.deck", "-r", SMALL, "-n", "2"],
            "kotor1-starter",
            "--p2-deck",
        ),
        (
            [
                "advise",
                "-r",
                SMALL,
                "--table",
                "5",
                "--hand",
                "+1 +2",
                "--opp-table",
                "",
                "--opp-hand-size",
                "2",
            ],
            "kotor1-starter",
            "--opp-deck",
        ),
        (
            ["follow", "-r", SMALL, "--hand", "+1 +2", "--save", "f.json"],
            "kotor1-strongest",
            "--opp-deck",
        ),
    ],
)
def test_a_default_deck_that_does_not_fit_is_named_with_the_option_that_replaces_it(
    tmp_path: Path, args: list[str], deck: str, option: str
) -> None:
    """A tester's variant with 5-card side decks got "...; give a deck file that is", the
    sentence cut short, naming the player's default where the opponent's was refused."""
    (tmp_path / "small.deck").write_text(f"ruleset: {SMALL}\n+1 +2 +3 +4 +5\n", encoding="utf-8")
    result = pazaak(args, ["q"])
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"Error: the default deck {deck} does not fit ruleset {SMALL} (it holds 10 cards, a "
        f"side deck here 5): give a deck that does with {option}\n"
    )


@pytest.mark.parametrize(
    "command", [["play", "--deck", "kotor1-starter"], ["follow", "--hand", HAND]]
)
def test_a_save_in_a_folder_that_does_not_exist_is_refused_not_made(
    tmp_path: Path, command: list[str]
) -> None:
    """A mistyped --save folder was made silently, where chart's --out is refused."""
    missing = tmp_path / "no" / "such"
    result = pazaak([*command, "--save", str(missing / "m.json")], ["q"])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: --save {missing / 'm.json'}: no such directory {missing}\n"
    assert not (tmp_path / "no").exists()


def test_a_corrupt_save_quotes_its_values_as_the_file_spells_them(tmp_path: Path) -> None:
    """It said "field 'finished' is True", Python's spelling of the file's true."""
    save = tmp_path / "m.json"
    play_save(save)
    _tampered(save, "finished", True)
    resumed = pazaak(["play", "--resume", str(save)], ["q"])
    assert resumed.exit_code == 1
    assert "field 'finished' is true but the moves do not end the match" in resumed.stderr


def test_a_save_that_cannot_be_written_mid_match_is_a_failure_and_the_old_one_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk mid-match exited 2, the code of a usage error."""
    import errno

    save = tmp_path / "m.json"
    play_save(save)
    before = save.read_bytes()
    real_fsync = os.fsync

    def full(handle: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = pazaak(["play", "--resume", str(save)], ["e", "q"])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"Error: cannot write the save file {save}: No space left on device (the file is left "
        "as it was)\n"
    )
    assert save.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
