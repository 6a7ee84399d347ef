"""``pazaak engine``: the engine protocol on standard input and output (docs/protocol.md)."""

from __future__ import annotations

import io
import os
import sys

import click

from pazaak_cli.commands.common import EXIT_CODES
from pazaak_cli.tools.engine_protocol import PROTOCOL_VERSION, reader_waiting, serve


@click.command("engine", epilog=EXIT_CODES)
def engine_command() -> None:
    """Play and analyse Pazaak from a program: JSON lines in, JSON lines out.

    One request a line on standard input ({"id": 1, "cmd": "hello"}), one reply a line on
    standard output, carrying the request's id. The commands: hello, new, view, legal, move,
    undo, advise, play-opponent, save, load, close, stop, quit. A bad line gets an error reply
    and the engine goes on; nothing but replies is written to standard output. The end of the
    input ends the engine (exit 0). docs/protocol.md describes every message.
    """
    # Replies are UTF-8 whatever the locale ("±3"), one line each, flushed as written.
    output = io.TextIOWrapper(
        sys.stdout.buffer, encoding="utf-8", newline="\n", line_buffering=True
    )
    try:
        code = serve(sys.stdin.buffer, output)
    finally:
        output.flush()
        output.detach()  # (standard output stays open for whoever else writes to it)
    if reader_waiting():
        # after quit, the reader thread still waits on standard input: a normal exit would
        # wait for the stream's lock at shutdown and abort
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


__all__ = ["PROTOCOL_VERSION", "engine_command"]
