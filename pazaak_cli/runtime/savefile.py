"""Saved matches on disk: a small versioned JSON document, written atomically.

A save file is never half-written: :func:`write_save` writes a temporary file in the same
directory, flushes it to disk and renames it over the old one (``os.replace``), so a crash or a
Ctrl-C at any moment leaves either the old match or the new one. :func:`read_save` tells a
corrupt file (not JSON, cut short, wrong fields) from a foreign one (valid JSON or text that is not
a pazaak save) and from a save made by a newer version; it never changes the file.

A save reached through a symbolic link is the link's target: it is written (the temporary file
next to it), held and set aside there, so the link stays a link and a session through the link
and one through the target exclude each other (:func:`real_path`).

A session holds its save with :func:`hold_save` (an exclusive ``flock`` on a hidden lock file
next to it), so that two sessions never write one file in turn and drop each other's moves. Every
path error (a name over 255 bytes, a directory that cannot be searched) is an
:class:`~pazaak_cli.engine.errors.InputError`, never an ``OSError``; JSON that Python will not read
(nested too deep, numbers of thousands of digits) is a :class:`SaveFileError` like any corrupt file.

What the document holds is :mod:`pazaak_cli.tools.session`'s business (and
:mod:`pazaak_cli.tools.follow`'s); this module checks only the envelope:
``{"format": "pazaak-match", "version": 1, ...}``, and tells the two commands' saves apart
(:func:`saved_by`), so that neither takes the other's for a corrupt one of its own.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shlex
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pazaak_cli.engine.errors import InputError, PazaakError

FORMAT = "pazaak-match"
"""The ``format`` field that marks a pazaak save file."""
VERSION = 1
"""The version of the document this module writes (and the newest it reads)."""
MAX_SAVE_BYTES = 4 * 1024 * 1024
"""A save file is tens of kilobytes; anything this large is refused before it is read."""
DATA_DIR_ENV = "PAZAAK_DATA_DIR"
"""Overrides the data directory (tests point it to a temporary directory)."""
DEFAULT_SAVE_NAME = "match.json"
PLAY, FOLLOW = "play", "follow"
"""The commands that save matches (:func:`saved_by`): a save of ``pazaak follow`` has the
``kind`` field ``"follow"``, one of ``pazaak play`` none."""


class SaveFileError(PazaakError):
    """A save file that cannot be used: corrupt, foreign, or from a newer version."""


class NewerSaveError(SaveFileError):
    """A save made by a newer pazaak: not corrupt, only not readable here (never set aside)."""


class SaveInUseError(PazaakError):
    """A save file that another running ``pazaak play`` holds: two sessions writing one file
    would each drop the other's moves."""


def data_dir() -> Path:
    """Where pazaak keeps its files: ``$PAZAAK_DATA_DIR``, else ``$XDG_DATA_HOME/pazaak``, else
    ``~/.local/share/pazaak`` (the XDG default)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "pazaak"


def default_save_path() -> Path:
    """The save file used when ``--save`` is not given."""
    return data_dir() / DEFAULT_SAVE_NAME


def chosen_save(text: str | None) -> Path | None:
    """The path given to ``--save`` (``None``: not given). An empty one is refused: as a
    ``Path`` it would be ``.``, and the error would name the current directory. So is one in a
    folder that does not exist, or a symbolic link into one (the default save's folder is made;
    a typed one is not)."""
    if text is None:
        return None
    if not text:
        raise InputError("the --save path is empty: give the save file's name")
    path = Path(text)
    # (the folder of the file written: through a symbolic link, the folder of its target)
    for folder in dict.fromkeys((path.parent, real_path(path).parent)):
        try:
            os.stat(folder)
        except FileNotFoundError:  # (as --out is refused: a mistyped folder is not made)
            raise InputError(f"--save {text}: no such directory {folder}") from None
        except OSError:
            pass  # (one that cannot be searched: the save's own use says so)
    return path


_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT})
"""The errors of a disk without room: a failure (exit 1), where a path that cannot be written
(no permission, a read-only place) is the user's to change (exit 2)."""


def write_save(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` (given the envelope fields here) to ``path`` atomically.

    The directory is created if needed; through a symbolic link the link's target is replaced
    (the link stays). A file replaced keeps its permissions; a new one is readable by its owner
    only. On any failure the old file is left as it was and the temporary file is removed.
    """
    body = {"format": FORMAT, "version": VERSION, **document}
    # One field a line: readable, diffable, and the long random states stay on one line each.
    fields = [
        f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False, separators=(',', ':'))}"
        for key, value in body.items()
    ]
    text = "{\n " + ",\n ".join(fields) + "\n}\n"
    real = real_path(path)  # (a link's target is replaced, never the link)
    directory = real.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the directory {directory}: {error.strerror}") from None
    if _is_dir(path):
        raise InputError(f"{path} is a directory, not a save file")
    try:
        handle, temp_name = tempfile.mkstemp(
            dir=directory, prefix=_temporary_prefix(real), suffix=TEMPORARY_SUFFIX
        )
    except OSError as error:
        message = f"cannot write a save file in {directory}: {error.strerror}"
        if error.errno in _NO_ROOM:  # (the disk, not the path given: a failure, exit 1)
            raise PazaakError(message) from None
        raise InputError(message) from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        # the file replaced keeps its permissions (a new one is its owner's only: mkstemp's)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, stat.S_IMODE(os.stat(real).st_mode))
        os.replace(temp, real)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(error, OSError):  # (a full disk: a failure, exit 1, not a usage error)
            raise PazaakError(
                f"cannot write the save file {path}: {error.strerror} (the file is left as it was)"
            ) from None
        raise


def read_save(path: Path) -> dict[str, Any]:
    """Read a save file and check its envelope; raise :class:`SaveFileError` (corrupt, foreign,
    newer) or :class:`InputError` (missing, a directory, unreadable). Never changes the file."""
    if not _exists(path):
        raise InputError(f"there is no saved match at {path}")
    if _is_dir(path):
        raise InputError(f"{path} is a directory, not a save file")
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            raise InputError(f"{path} is not a save file: it is not a regular file")
        size = status.st_size
        if size > MAX_SAVE_BYTES:
            raise SaveFileError(
                f"{path} is not a pazaak save file: it holds {size:,} bytes, "
                f"far more than a saved match (left untouched)"
            )
        with path.open("rb") as stream:
            raw = stream.read(MAX_SAVE_BYTES + 1)
        if len(raw) > MAX_SAVE_BYTES:
            raise SaveFileError(
                f"{path} is not a pazaak save file: it holds more than {MAX_SAVE_BYTES:,} "
                "bytes, far more than a saved match (left untouched)"
            )
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveFileError(
            f"{path} is not a pazaak save file: it is not UTF-8 text (left untouched)"
        ) from None
    if not text.strip():
        what = "empty" if not text else "blank"
        raise SaveFileError(f"{path} is not a pazaak save file: it is {what} (left untouched)")
    ours = text.lstrip().startswith("{") and '"pazaak-match"' in text
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        if ours:
            # (json's "Unterminated string starting at" goes on with the place, said here)
            why = error.msg.removesuffix(" starting at")
            raise SaveFileError(
                f"{path} is a corrupt pazaak save file: invalid JSON at line {error.lineno}, "
                f"column {error.colno} ({why}) (left untouched)"
            ) from None
        raise SaveFileError(
            f"{path} is not a pazaak save file: it is not JSON (left untouched)"
        ) from None
    except (ValueError, RecursionError, MemoryError) as error:
        # Valid JSON that Python will not read: nested too deep, an integer of thousands of
        # digits. No save holds either.
        why = "nested too deep" if isinstance(error, RecursionError) else "holds a number too long"
        whose = "a corrupt pazaak save file" if ours else "not a pazaak save file"
        raise SaveFileError(f"{path} is {whose}: its JSON {why} (left untouched)") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SaveFileError(
            f'{path} is not a pazaak save file: it has no "format": "{FORMAT}" field '
            "(left untouched)"
        )
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        shown = json.dumps(version, ensure_ascii=False)[:20]
        raise SaveFileError(
            f"{path} is a corrupt pazaak save file: its version is {shown}, not a whole "
            "number from 1 (left untouched)"
        )
    if version > VERSION:
        raise NewerSaveError(
            f"{path} was saved by a newer pazaak (save format {version}; this one reads up to "
            f"{VERSION}): upgrade pazaak to resume it (left untouched)"
        )
    return document


def probe_save(path: Path) -> dict[str, Any] | None:
    """The document at ``path`` if it is a readable pazaak save, ``None`` if there is no file;
    raise :class:`SaveFileError` for anything else (so that it is never overwritten)."""
    if not _exists(path):
        return None
    return read_save(path)


def unfinished(document: dict[str, Any] | None) -> bool:
    """Whether a save (``probe_save``'s document, ``None``: no file) holds a match not over, of
    ``pazaak play`` or ``pazaak follow``: such a save is never replaced silently."""
    return document is not None and document.get("finished") is not True


def saved_by(document: dict[str, Any]) -> str:
    """The command whose match a save holds, :data:`PLAY` or :data:`FOLLOW` (by its ``kind``
    field): each command must tell the other's save from a corrupt one of its own."""
    return FOLLOW if document.get("kind") == FOLLOW else PLAY


def whose_match(path: Path, document: dict[str, Any]) -> str:
    """What a save holds and how to continue it, for a message about the other command's save:
    ``a match followed with `pazaak follow` (continue it with `pazaak follow --resume F`)``."""
    command = saved_by(document)
    how = "followed" if command == FOLLOW else "played"
    return (
        f"a match {how} with `pazaak {command}` (continue it with "
        f"`pazaak {command} --resume {shlex.quote(str(path))}`)"
    )


def refuse_others_match(path: Path, document: dict[str, Any] | None, command: str) -> None:
    """Raise :class:`SaveFileError` if ``path`` holds an unfinished match of another command
    than ``command``: neither resumed nor replaced by this one, even with ``--new``."""
    if document is not None and saved_by(document) != command and unfinished(document):
        raise SaveFileError(
            f"{path} holds {whose_match(path, document)}; choose another --save file"
        )


def refuse_to_resume_others(path: Path, document: dict[str, Any], command: str) -> None:
    """Raise :class:`SaveFileError` if the save ``command`` is asked to resume is another
    command's (not a corrupt one of its own: saying so leads the user to ``--new``)."""
    if saved_by(document) != command:
        raise SaveFileError(
            f"{path} cannot be resumed by pazaak {command}: it holds {whose_match(path, document)}"
        )


def real_path(path: Path) -> Path:
    """The file a save path names, its symbolic links followed (the target of a dangling link
    too): written, held and set aside there, so that a link stays a link."""
    try:
        return path.resolve()
    except RuntimeError:  # a loop of links (Python 3.11; OSError ELOOP later)
        raise InputError(f"cannot use {path}: its symbolic links form a loop") from None
    except OSError as error:
        raise InputError(f"cannot use {path}: {error.strerror}") from None


def same_save(first: Path, second: Path) -> bool:
    """Whether two paths name one save file (through links, ``.`` and ``..`` included)."""
    return real_path(first) == real_path(second)


def _exists(path: Path) -> bool:
    """``Path.exists``, but a path that cannot be looked at (a name over 255 bytes, a directory
    that cannot be searched) is an :class:`InputError`, not an ``OSError``."""
    try:
        return path.exists()
    except OSError as error:
        raise InputError(f"cannot use {path}: {error.strerror}") from None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError as error:
        raise InputError(f"cannot use {path}: {error.strerror}") from None


def lock_path(path: Path) -> Path:
    """The lock file of the save at ``path``: a hidden file next to it (next to a link's target,
    so that a link and its target share one lock). The save itself cannot carry the lock: every
    write replaces it by a new file (a new inode)."""
    real = real_path(path)
    name = f".{real.name}.lock"
    if len(os.fsencode(name)) > 255:
        name = f".{hashlib.sha256(os.fsencode(real.name)).hexdigest()[:32]}.lock"
    return real.parent / name


UNNAMED_HOLDER = "pazaak session"
"""How a save's lock file names a holder that did not say which command it is."""


@contextlib.contextmanager
def hold_save(
    path: Path, *, create_directory: bool = True, holder: str = UNNAMED_HOLDER
) -> Iterator[None]:
    """Hold the save at ``path`` for a whole session: an exclusive ``flock`` on its lock file
    (:func:`lock_path`), which names the ``holder`` (the command, e.g. ``pazaak play``) for
    whoever finds it held. Raise :class:`SaveInUseError` at once if another process (or another
    session of this one) holds it. The kernel drops the lock when the process ends, however it
    ends (even ``kill -9``), so a stale lock cannot block anyone; a clean end also removes the
    lock file. Without ``create_directory``, a missing directory means there is no save."""
    if _exists(path) and not path.is_file():
        what = "a directory" if path.is_dir() else "not a regular file"
        raise InputError(f"{path} is {what}, not a save file")
    directory = real_path(path).parent
    if not _exists(directory):
        if not create_directory:
            raise InputError(f"there is no saved match at {path}")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"cannot create the directory {directory}: {error.strerror}") from None
    lock = lock_path(path)
    handle = _take_lock(path, lock)
    with contextlib.suppress(OSError):  # (only a message reads it)
        os.ftruncate(handle, 0)
        os.pwrite(handle, holder.encode()[:MAX_HOLDER_BYTES], 0)
    _remove_stale_temporaries(path)
    try:
        yield
    finally:
        # Unlink while still holding the lock: whoever opened the old file finds, once it has
        # the lock, that the name no longer leads to it, and starts again (see _take_lock).
        with contextlib.suppress(OSError):
            lock.unlink()
        os.close(handle)


def _take_lock(path: Path, lock: Path) -> int:
    """Open and ``flock`` the lock file; retry if it was removed between the open and the lock
    (a session that just ended removes it)."""
    for _ in range(100):
        try:
            handle = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise InputError(f"cannot use {path}: {error.strerror}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(handle)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise SaveInUseError(
                    f"the match saved in {path} is open in another {_holder(lock)}: finish or "
                    "quit that one first (two sessions on one save would lose each other's moves)"
                ) from None
            raise InputError(f"cannot lock {lock}: {error.strerror}") from None
        try:
            current = os.stat(lock)
        except FileNotFoundError:
            current = None
        mine = os.fstat(handle)
        if current is not None and (current.st_dev, current.st_ino) == (mine.st_dev, mine.st_ino):
            return handle
        os.close(handle)
    raise InputError(f"cannot lock {lock}: it keeps changing")


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files a write to ``path`` left when its process was killed before
    the rename (:func:`write_save`): with the save held, no other process is writing one. Each
    is a whole or partial copy of a save the file already holds or held; none is ever read."""
    real = real_path(path)
    prefix = _temporary_prefix(real)
    with contextlib.suppress(OSError):
        for entry in os.scandir(real.parent):
            name = entry.name
            if name.startswith(prefix) and name.endswith(TEMPORARY_SUFFIX) and entry.is_file():
                middle = name[len(prefix) : -len(TEMPORARY_SUFFIX)]
                made = len(middle) == TEMPORARY_NAME_LETTERS
                if made and all(letter.isalnum() or letter == "_" for letter in middle):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)


def _temporary_prefix(real: Path) -> str:
    """How the temporary files written beside the save ``real`` begin: short, since a name
    must fit in 255 bytes."""
    return f".{real.name[:64]}."


TEMPORARY_SUFFIX = ".tmp"
"""How a save's temporary files end."""

TEMPORARY_NAME_LETTERS = 8
"""The random part of a temporary file's name (:func:`tempfile.mkstemp`'s)."""

MAX_HOLDER_BYTES = 64
"""The most of a holder's name a lock file keeps."""


def _holder(lock: Path) -> str:
    """The command a held lock file names (:func:`hold_save`), :data:`UNNAMED_HOLDER` if it
    names none (a session of an earlier pazaak)."""
    try:
        with open(lock, "rb") as stream:
            named = stream.read(MAX_HOLDER_BYTES).decode("utf-8", "replace").strip()
    except OSError:
        named = ""
    return named if named.startswith("pazaak") and named.isprintable() else UNNAMED_HOLDER


def set_aside(path: Path) -> Path:
    """Rename an unreadable save to ``NAME.corrupt`` (``NAME.corrupt-2`` ... if taken), byte for
    byte as it was, so that a new match can use the name; return the new path. Through a link,
    the target is renamed (next to it): the link stays, and the new match is written through it."""
    path = real_path(path)
    for number in range(1, 1000):
        suffix = ".corrupt" if number == 1 else f".corrupt-{number}"
        aside = path.with_name(path.name[:200] + suffix)
        try:
            # A hard link never replaces an existing file; then the old name is removed.
            os.link(path, aside)
        except FileExistsError:
            continue
        except OSError as error:
            raise InputError(f"cannot set {path} aside: {error.strerror}") from None
        try:
            path.unlink()
        except OSError as error:
            raise InputError(f"cannot set {path} aside: {error.strerror}") from None
        return aside
    raise InputError(f"cannot set {path} aside: too many {path.name}.corrupt files")
