"""Saved matches on disk: a small versioned JSON document, written atomically.

A save file is never half-written: :func:`write_save` writes a temporary file in the same
directory, flushes it to disk and renames it over the old one (``os.replace``), so a crash or a
Ctrl-C at any moment leaves either the old match or the new one. :func:`read_save` tells a
corrupt file (not JSON, cut short, wrong fields) from a foreign one (valid JSON or text that is not
a pazaak save) and from a save made by a newer version; it never changes the file.

What the document holds is :mod:`pazaak_cli.session`'s business; this module checks only the
envelope: ``{"format": "pazaak-match", "version": 1, ...}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pazaak_cli.errors import InputError, PazaakError

FORMAT = "pazaak-match"
"""The ``format`` field that marks a pazaak save file."""
VERSION = 1
"""The version of the document this module writes (and the newest it reads)."""
MAX_SAVE_BYTES = 4 * 1024 * 1024
"""A save file is tens of kilobytes; anything this large is refused before it is read."""
DATA_DIR_ENV = "PAZAAK_DATA_DIR"
"""Overrides the data directory (tests point it to a temporary directory)."""
DEFAULT_SAVE_NAME = "match.json"


class SaveFileError(PazaakError):
    """A save file that cannot be used: corrupt, foreign, or from a newer version."""


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


def write_save(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` (given the envelope fields here) to ``path`` atomically.

    The directory is created if needed. On any failure the old file is left as it was and the
    temporary file is removed.
    """
    body = {"format": FORMAT, "version": VERSION, **document}
    # One field a line: readable, diffable, and the long random states stay on one line each.
    fields = [
        f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False, separators=(',', ':'))}"
        for key, value in body.items()
    ]
    text = "{\n " + ",\n ".join(fields) + "\n}\n"
    directory = path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the directory {directory}: {error.strerror}") from None
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a save file")
    try:
        handle, temp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise InputError(f"cannot write a save file in {directory}: {error.strerror}") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(error, OSError):
            raise InputError(f"cannot write the save file {path}: {error.strerror}") from None
        raise


def read_save(path: Path) -> dict[str, Any]:
    """Read a save file and check its envelope; raise :class:`SaveFileError` (corrupt, foreign,
    newer) or :class:`InputError` (missing, a directory, unreadable). Never changes the file."""
    if not path.exists():
        raise InputError(f"there is no saved match at {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a save file")
    try:
        size = path.stat().st_size
        if size > MAX_SAVE_BYTES:
            raise SaveFileError(
                f"{path} is not a pazaak save file: it holds {size:,} bytes, "
                f"far more than a saved match (left untouched)"
            )
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveFileError(
            f"{path} is not a pazaak save file: it is not UTF-8 text (left untouched)"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        if text.lstrip().startswith("{") and '"pazaak-match"' in text:
            raise SaveFileError(
                f"{path} is a corrupt pazaak save file: invalid JSON at line {error.lineno}, "
                f"column {error.colno} ({error.msg}) (left untouched)"
            ) from None
        raise SaveFileError(
            f"{path} is not a pazaak save file: it is not JSON (left untouched)"
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SaveFileError(
            f'{path} is not a pazaak save file: it has no "format": "{FORMAT}" field '
            "(left untouched)"
        )
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SaveFileError(
            f"{path} is a corrupt pazaak save file: its version is {version!r} (left untouched)"
        )
    if version > VERSION:
        raise SaveFileError(
            f"{path} was saved by a newer pazaak (save format {version}; this one reads up to "
            f"{VERSION}): upgrade pazaak to resume it (left untouched)"
        )
    return document


def probe_save(path: Path) -> dict[str, Any] | None:
    """The document at ``path`` if it is a readable pazaak save, ``None`` if there is no file;
    raise :class:`SaveFileError` for anything else (so that it is never overwritten)."""
    if not path.exists():
        return None
    return read_save(path)
