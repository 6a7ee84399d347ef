"""The engine protocol: Pazaak for programs, one JSON object a line in and one a line out.

A GUI, a bot or a program in another language runs ``pazaak engine`` and talks to it as to a
UCI or GTP engine (docs/protocol.md is the reference). :class:`Engine` holds the games, by id,
and answers one request at a time (:meth:`Engine.reply`): a dict in, a dict out, every reply
carrying the request's ``id``. Nothing a request does wrong (a line that is not JSON, an unknown
command, an illegal move, a wrong card) escapes as an exception: it becomes one error reply with
a code and a sentence naming what was wrong, and no game changes.

:func:`serve` wires an engine to a stream of lines: it reads them on a thread, so that a
``stop`` line can interrupt the ``advise`` being computed (a SIGINT to the main thread, which
the solvers already treat as Ctrl-C: the answer so far comes back, marked ``stopped``), and it
writes nothing but protocol lines.

A game is a :class:`~pazaak_cli.tools.session.MatchSession` (the one ``pazaak play`` plays): its
chance events come from its seeded stream, its save document is ``play``'s, and a computer
player of the roster moves a seat only when asked (``play-opponent``). The rules are the
engine's (:mod:`pazaak_cli.engine.game`); the answers are :func:`~pazaak_cli.solve.budgeted.answer`
and :class:`~pazaak_cli.solve.budgeted.Refinement`, as ``pazaak advise`` asks them.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import queue
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any

from pazaak_cli import __version__
from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.decks import STDIN_SPEC, default_deck, load_deck
from pazaak_cli.engine.errors import (
    CardError,
    DeckError,
    HiddenInformationError,
    IllegalActionError,
    InputError,
    NotationError,
    PazaakError,
    RulesetError,
)
from pazaak_cli.engine.game import (
    END_TURN,
    FORFEIT,
    STAND,
    Action,
    EndTurn,
    Forfeit,
    MatchState,
    Open,
    Phase,
    Play,
    Stand,
    new_match,
    set_outcome,
)
from pazaak_cli.engine.move_notation import format_action
from pazaak_cli.engine.notation import format_position, parse_position
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import PositionError, question_from_state
from pazaak_cli.engine.rules import DEFAULT_RULESET, PRESETS, Ruleset, parse_ruleset
from pazaak_cli.players.roster import POLICY_HELP, POLICY_NAMES, Player, make_player
from pazaak_cli.runtime.savefile import (
    FOLLOW,
    SaveFileError,
    SaveInUseError,
    hold_save,
    probe_save,
    read_save,
    real_path,
    saved_by,
    unfinished,
    whose_match,
    write_save,
)
from pazaak_cli.solve.answer_types import Advice
from pazaak_cli.solve.answers import Answer, AnswerRequest, answer, choose_objective
from pazaak_cli.solve.budgeted import DEFAULT_SECONDS, MIN_HANDS, Refinement
from pazaak_cli.solve.models import (
    OPPONENT_MODELS,
    OPTIMAL,
    Objective,
    model_of_player,
    opponent_model,
)
from pazaak_cli.solve.time_budget import TimeBudget
from pazaak_cli.tools.advice_report import advice_json
from pazaak_cli.tools.session import HUMAN, MatchSession, Seat

PROTOCOL_VERSION = "1"
"""The protocol's version: a new command or field keeps it; a change that breaks a client
(a field renamed or removed, a meaning changed) raises it."""
MAX_LINE_BYTES = 1024 * 1024
"""A request is a few hundred bytes; a longer line is refused (and skipped) unread."""
MAX_BUDGET = 3600.0
"""The longest time budget an ``advise`` may ask (an hour); ``0`` asks for the exact answer."""
READER_THREAD = "pazaak-engine-reader"
MAX_HANDS = 1_000_000
"""The most hands an ``advise`` may name in ``hands`` (more than any deck can deal)."""
MAX_GAMES = 1000
"""Games one engine holds at once (``close`` frees one)."""
COMMANDS = (
    "hello",
    "new",
    "view",
    "legal",
    "move",
    "undo",
    "advise",
    "play-opponent",
    "save",
    "load",
    "close",
    "stop",
    "quit",
)
"""Every command, in the order docs/protocol.md describes them."""
FIELDS: dict[str, tuple[str, ...]] = {
    "hello": (),
    "new": ("ruleset", "decks", "hands", "seats", "opener", "seed", "game"),
    "view": ("game", "seat"),
    "legal": ("game",),
    "move": ("game", "seat", "move", "slot", "card", "value"),
    "undo": ("game", "moves"),
    "advise": (
        "game",
        "seat",
        "position",
        "time",
        "objective",
        "opponent",
        "opp_deck",
        "seed",
        "hands",
    ),
    "play-opponent": ("game", "player"),
    "save": ("game", "path", "overwrite"),
    "load": ("path", "document", "game"),
    "close": ("game",),
    "stop": (),
    "quit": (),
}
"""The fields each command takes beside ``id`` and ``cmd``: any other is refused
(``bad_request``), so that a misspelt field (``opp-deck``, ``seeds``) is not silently ignored."""
PLAYER_ALIASES = {"match-lite": "expert"}
"""Other names ``seats`` and ``play-opponent`` accept for a player of ``hello``'s list."""


class ProtocolError(PazaakError):
    """A request the engine cannot carry out: ``code`` says which kind of wrong (the codes are
    listed in docs/protocol.md), the message says what exactly."""

    def __init__(self, code: str, message: str, *, token: str | None = None) -> None:
        super().__init__(message, token=token)
        self.code = code


ERROR_CODES: dict[type[PazaakError], str] = {
    CardError: "bad_card",
    RulesetError: "bad_ruleset",
    DeckError: "bad_deck",
    NotationError: "bad_position",
    PositionError: "bad_position",
    HiddenInformationError: "hidden_information",
    IllegalActionError: "illegal_move",
    SaveFileError: "bad_save",
    SaveInUseError: "bad_save",
    InputError: "input",
}
"""The code of each library error (the first class that matches, in this order; any other
:class:`PazaakError` is ``domain``)."""


def error_code(error: PazaakError) -> str:
    if isinstance(error, ProtocolError):
        return error.code
    for kind, code in ERROR_CODES.items():
        if isinstance(error, kind):
            return code
    return "domain"


# The games ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """A game before one move, for ``undo``: its state, its moves and every random stream (so
    that the same move after an undo deals the same cards)."""

    state: MatchState
    actions: int
    streams: tuple[Any, ...]
    """The chance stream's state and the computer seats'."""
    guests: dict[tuple[int, str], Any]
    """Each guest player's stream (a guest met later is dropped by an undo to here, and made
    afresh when asked again: the same stream from its seed)."""


@dataclass
class Game:
    """One game the engine holds: the session, its undo stack and the guest players
    (``play-opponent`` with a player other than the seat's own), each with its stream."""

    id: str
    session: MatchSession
    history: list[Snapshot] = field(default_factory=list)
    guests: dict[tuple[int, str], tuple[Player, random.Random]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    """The save files this game was saved to or loaded from: each real path (links followed),
    and the fingerprint of the document there then (:func:`_fingerprint`). Of the unfinished
    matches, only these may be replaced unasked: any other is someone else's."""

    def streams(self) -> list[random.Random]:
        session = self.session
        return [session.chance_rng, *(r for r in session.seat_rngs if r is not None)]

    def snapshot(self) -> Snapshot:
        return Snapshot(
            self.session.state,
            len(self.session.actions),
            tuple(rng.getstate() for rng in self.streams()),
            {key: rng.getstate() for key, (_, rng) in self.guests.items()},
        )

    def restore(self, snapshot: Snapshot) -> None:
        session = self.session
        session.state = snapshot.state
        del session.actions[snapshot.actions :]
        for rng, saved in zip(self.streams(), snapshot.streams, strict=True):
            rng.setstate(saved)
        for key in list(self.guests):
            if key in snapshot.guests:
                self.guests[key][1].setstate(snapshot.guests[key])
            else:
                del self.guests[key]


def _player_factory(
    kind: str, ruleset: Ruleset, rng: random.Random, own: tuple[Card, ...], other: tuple[Card, ...]
) -> Player:
    return make_player(kind, ruleset=ruleset, rng=rng, own_deck=own, opponent_deck=other)


def _commit(session: MatchSession, action: Action) -> dict[str, Any]:
    """Carry out ``action`` (any seat's, or chance's) and say what happened."""
    before = session.state
    by = None if before.is_chance_node() else before.turn + 1
    session.state = before.child(action)
    session.actions.append(action)
    return {"by": by, "action": format_action(action), "text": str(action)}


def _run_chance(session: MatchSession) -> list[dict[str, Any]]:
    """The chance events up to the next decision (or the end): the openers and the draws,
    from the game's seeded stream."""
    events = []
    while session.state.is_chance_node():
        events.append(_commit(session, session.state.sample_chance(session.chance_rng)))
    return events


# Reading requests ---------------------------------------------------------------------------


class Request:
    """A request's fields, each read with its type checked: a missing or mistyped field is a
    ``bad_request`` naming it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.command = str(data.get("cmd"))

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def text(self, name: str, default: str | None = None) -> str:
        value = self.data.get(name, default)
        if not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        return value

    def number(self, name: str, default: float) -> float:
        value = self.data.get(name, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise self._wrong(name, "a number", value)
        return float(value)

    def whole(self, name: str, default: int | None = None, *, low: int, high: int) -> int:
        value = self.data.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self._wrong(name, f"a whole number from {low} to {high}", value)
        return value

    def flag(self, name: str) -> bool:
        """A yes-or-no field (absent or ``null``: no)."""
        value = self.data.get(name)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self._wrong(name, "true or false", value)
        return value

    def path(self, name: str = "path") -> Path:
        """A file's path: a NUL cannot be in one (the system would refuse it with a
        ``ValueError``, not an ``OSError``)."""
        text = self.text(name)
        if not text or "\x00" in text:
            raise ProtocolError(
                "bad_request",
                f"field {name!r} is {_shown(text)}: a path is not empty and holds no NUL character",
            )
        return Path(text)

    def seat(self, name: str = "seat", default: int | None = None) -> int:
        """A seat as the protocol numbers them (1 or 2), returned as the engine's (0 or 1)."""
        return self.whole(name, default, low=1, high=2) - 1

    def pair(self, name: str) -> list[Any] | None:
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) != 2:
            raise self._wrong(name, "a list of two (one for each seat)", value)
        return value

    def choice(self, name: str, choices: tuple[str, ...], default: str | None) -> str | None:
        value = self.data.get(name, default)
        if value is None:
            return None
        if value not in choices:
            raise ProtocolError(
                "bad_request",
                f"field {name!r} is {_shown(value)}; choose one of {', '.join(choices)}",
            )
        assert isinstance(value, str)
        return value

    def _wrong(self, name: str, what: str, value: Any) -> ProtocolError:
        if name not in self.data:
            return ProtocolError("bad_request", f"{self.command} needs the field {name!r} ({what})")
        return ProtocolError("bad_request", f"field {name!r} is {_shown(value)}, not {what}")


def _shown(value: Any) -> str:
    """A value from a request as a message quotes it: its JSON, at most 40 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _cards(raw: Any, where: str) -> tuple[Card, ...]:
    """A list of cards given as strings (``["+1", "±3"]``) or one string (``"+1 ±3"``)."""
    if isinstance(raw, str):
        raw = raw.replace(",", " ").split()
    if not isinstance(raw, list) or not all(isinstance(token, str) for token in raw):
        raise ProtocolError("bad_request", f"{where} is {_shown(raw)}, not a list of cards")
    try:
        return tuple(Card.parse(token) for token in raw)
    except CardError as error:
        raise CardError(f"{where}: {error}", token=error.token) from None


# The engine ---------------------------------------------------------------------------------


Handler = Callable[["Engine", Request], dict[str, Any]]


class Engine:
    """The games, by id, and the answer to every request (:meth:`reply`)."""

    def __init__(self) -> None:
        self.games: dict[str, Game] = {}
        self._numbered = 0
        self.quitting = False
        self.refinement: tuple[tuple[Any, ...], Refinement] | None = None
        """The last answer, by its question and options: the same ``advise`` asked again goes
        on refining it (as the hint of ``pazaak play`` does)."""
        self.advising: Callable[[Callable[[], Advice]], tuple[Advice, bool]] = _uninterrupted
        """Runs an answer and says whether a ``stop`` cut it short (:func:`serve` makes it
        interruptible)."""

    # -- one line, one request -------------------------------------------------------------

    def reply_line(self, line: str) -> dict[str, Any]:
        """The reply to one line of text (a JSON object)."""
        try:
            data = json.loads(line, parse_constant=_no_constant, object_pairs_hook=_no_repeats)
        except RecursionError:
            return error_reply(None, "bad_request", "the line's JSON is nested too deep to read")
        except _RepeatedKey as repeated:
            return error_reply(
                _id_of(line), "bad_request", f"the line names the field {repeated.key!r} twice"
            )
        except ValueError as error:
            if not isinstance(error, json.JSONDecodeError | _NotJson) and "digits" in str(error):
                # valid JSON, but Python reads no integer longer than this (a defence against
                # quadratic time); no request needs one
                return error_reply(
                    None,
                    "bad_request",
                    f"a number in the line is too long: over {sys.get_int_max_str_digits():,} "
                    "digits",
                )
            shown = _text(line.strip())
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            return error_reply(None, "bad_json", f"the line is not JSON: {shown!r}")
        return self.reply(data)

    def reply(self, data: Any) -> dict[str, Any]:
        """The reply to one request; never raises for anything the request holds."""
        fault = _not_unicode(data)
        if not isinstance(data, dict):
            return error_reply(
                None,
                "bad_request",
                f"a request is a JSON object, not {_shown(data)}" if fault is None else fault,
            )
        request_id = data.get("id")
        usable = _usable_id(request_id)
        if fault is not None:
            return error_reply(request_id if usable else None, "bad_request", fault)
        if not usable:
            return error_reply(
                None, "bad_request", f"field 'id' is {_shown(request_id)}: a string or a number"
            )
        command = data.get("cmd")
        handler = HANDLERS.get(command) if isinstance(command, str) else None
        if handler is None:
            if "cmd" not in data:
                message = "the request has no 'cmd' field"
            else:
                message = (
                    f"unknown command {_shown(command)}; the commands are {', '.join(COMMANDS)}"
                )
            return error_reply(request_id, "unknown_command", message)
        unknown = _unknown_field(str(command), data)
        if unknown is not None:
            return error_reply(request_id, "bad_request", unknown)
        try:
            result = handler(self, Request(data))
        except PazaakError as error:
            return error_reply(request_id, error_code(error), str(error))
        except KeyboardInterrupt:
            raise
        except Exception as error:  # a bug must not end the engine nor lose its games
            return error_reply(
                request_id,
                "internal",
                f"the engine failed ({type(error).__name__}: {error}); please report it",
            )
        return {"id": request_id, "ok": True, "result": result}

    # -- the games --------------------------------------------------------------------------

    def game(self, request: Request) -> Game:
        name = request.text("game")
        found = self.games.get(name)
        if found is None:
            held = ", ".join(sorted(self.games)[:10]) or "none"
            raise ProtocolError(
                "unknown_game", f"there is no game {_shown(name)} (games held: {held})"
            )
        return found

    def new_id(self, request: Request) -> str:
        if request.has("game"):
            name = request.text("game")
            if not name or len(name) > 64:
                raise ProtocolError(
                    "bad_request",
                    f"field 'game' is {_shown(name)}, not an id of 1 to 64 characters",
                )
            if name in self.games:
                raise ProtocolError("game_exists", f"there is already a game {_shown(name)}")
        else:
            self._numbered += 1
            name = f"g{self._numbered}"
            while name in self.games:
                self._numbered += 1
                name = f"g{self._numbered}"
        if len(self.games) >= MAX_GAMES:
            raise ProtocolError(
                "too_many_games", f"the engine holds {MAX_GAMES} games: close one first"
            )
        return name


def _unknown_field(command: str, data: dict[str, Any]) -> str | None:
    """The message refusing the first field of ``data`` that ``command`` does not take, else
    ``None``."""
    taken = FIELDS[command]
    for name in data:
        if name in ("id", "cmd") or name in taken:
            continue
        near = difflib.get_close_matches(name, taken, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        takes = f"takes {', '.join(taken)}" if taken else "takes no field"
        return f"{command} has no field {_shown(name)}{hint}; it {takes} beside 'id' and 'cmd'"
    return None


def _id_of(line: str) -> Any:
    """The ``id`` of a line refused for naming a field twice, where it names ``id`` once (its
    reply then carries it), else ``None``."""
    ids: list[Any] = []

    def pairs(found: list[tuple[str, Any]]) -> dict[str, Any]:
        ids[:] = [value for key, value in found if key == "id"]
        return dict(found)

    try:
        data = json.loads(line, parse_constant=_no_constant, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or len(ids) != 1 or not _usable_id(ids[0]):
        return None
    return ids[0]


class _NotJson(ValueError):
    """A constant Python's JSON reader takes but JSON has not (see :func:`_no_constant`)."""


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refused where it names a key twice (JSON leaves that to the
    reader; Python's keeps the last, so ``{"cmd": "hello", "cmd": "quit"}`` quit)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _RepeatedKey(key)
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    """``NaN`` and ``Infinity`` are not JSON (Python's reader takes them; no reply may)."""
    raise _NotJson(f"{name} is not JSON")


def _usable_id(request_id: Any) -> bool:
    """Whether a request's ``id`` can be given back: absent, a string or a finite number."""
    return (
        (request_id is None or isinstance(request_id, str | int | float))
        and not isinstance(request_id, bool)
        and not (isinstance(request_id, float) and not math.isfinite(request_id))
        and _is_unicode(request_id)
    )


def _is_unicode(value: Any) -> bool:
    """Whether every string in ``value`` (parsed JSON, keys too) is Unicode text. JSON may
    escape a lone surrogate (``"\\ud800"``), half of a UTF-16 pair: Python reads it into a
    string that cannot be written as UTF-8, and a strict JSON reader rejects it."""
    waiting = [value]
    while waiting:  # (a loop, not a recursion: the JSON may be nested deep)
        item = waiting.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            waiting += item.keys()
            waiting += item.values()
        elif isinstance(item, list):
            waiting += item
    return True


def _not_unicode(data: Any) -> str | None:
    """What of a request is not Unicode text (the message of its ``bad_request``), else
    ``None``: checked once, before any field is read or quoted."""
    if _is_unicode(data):
        return None
    where = "the request"
    if isinstance(data, dict):
        for key, value in data.items():
            if not _is_unicode(key):
                where = "a field's name"
                break
            if not _is_unicode(value):
                where = f"field {key!r}"
                break
    return (
        f"{where} holds text that is not valid Unicode: a lone surrogate (an escape from "
        "\\ud800 to \\udfff that is not half of a pair)"
    )


def _text(line: str) -> str:
    """A line as a message may quote it: any lone surrogate replaced."""
    return line.encode("utf-8", "replace").decode("utf-8")


def error_reply(request_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


def _uninterrupted(work: Callable[[], Advice]) -> tuple[Advice, bool]:
    return work(), False


# The commands -------------------------------------------------------------------------------


def _hello(engine: Engine, request: Request) -> dict[str, Any]:
    return {
        "engine": "pazaak",
        "version": __version__,
        "protocol": PROTOCOL_VERSION,
        "commands": list(COMMANDS),
        "rulesets": list(PRESETS),
        "ruleset_syntax": "PRESET[/key=value,...], e.g. kotor2/main-deck=infinite",
        "players": [
            {"name": name, "about": POLICY_HELP[name]}
            for name in POLICY_NAMES
            if name not in PLAYER_ALIASES
        ],
        "player_aliases": dict(PLAYER_ALIASES),
        "opponent_models": list(OPPONENT_MODELS),
        "objectives": [str(objective) for objective in Objective],
    }


def _new(engine: Engine, request: Request) -> dict[str, Any]:
    ruleset = parse_ruleset(request.text("ruleset", DEFAULT_RULESET))
    seed = request.whole("seed", 0, low=0, high=2**63 - 1)
    kinds = request.pair("seats") or [HUMAN, HUMAN]
    decks = request.pair("decks")
    hands = request.pair("hands")
    dealt = None if hands is None else _hands(hands, ruleset)
    chosen: list[tuple[str, tuple[Card, ...]]] = []
    for number in range(2):
        where = f"seat {number + 1}"
        if decks is not None:
            chosen.append(_deck(decks[number], ruleset, f"{where}'s deck"))
        elif dealt is not None:
            chosen.append(("hand", dealt[number]))
        else:
            deck = default_deck(ruleset)
            chosen.append((deck.name, deck.cards))
    seats: list[Seat] = []
    for number, kind in enumerate(kinds):
        if kind != HUMAN and kind not in POLICY_NAMES:
            raise ProtocolError(
                "unknown_player",
                f"seat {number + 1} is {_shown(kind)}: human or a player "
                f"({', '.join(POLICY_NAMES)})",
            )
        name = f"Player {number + 1}" if kind == HUMAN else str(kind)
        seats.append(Seat(str(kind), name, chosen[number][0], chosen[number][1]))
    pair = (seats[0], seats[1])
    session = MatchSession.start(ruleset, pair, seed=seed, wager=0, player_factory=_player_factory)
    if dealt is not None:
        for number, hand in enumerate(dealt):
            _check_hand(hand, seats[number].deck, ruleset, number)
        session.hands = (dealt[0], dealt[1])
        session.state = new_match(ruleset, session.hands)
    events = []
    if request.has("opener"):
        opener = request.seat("opener")
        events.append(_commit(session, Open(opener)))
    game = Game(engine.new_id(request), session)
    events += _run_chance(session)
    engine.games[game.id] = game
    return {"game": game.id, "seed": seed, "events": events, **_summary(session)}


def _deck(raw: Any, ruleset: Ruleset, where: str) -> tuple[str, tuple[Card, ...]]:
    """A side deck: a sample deck's name or a file's path (a string), or its cards (a list)."""
    if isinstance(raw, list):
        cards = _cards(raw, where)
        misfit = ruleset.deck_misfit(cards)
        if misfit is not None:
            raise DeckError(f"{where} {misfit}")
        return "cards", cards
    if not isinstance(raw, str) or raw == STDIN_SPEC:
        raise ProtocolError(
            "bad_request", f"{where} is {_shown(raw)}: a deck name, a file or a list of cards"
        )
    try:
        deck = load_deck(raw, ruleset)
    except (InputError, DeckError) as error:  # (which deck: the seat's, the prior's)
        raise type(error)(f"{where}: {error.message}", token=error.token) from None
    return deck.name, deck.cards


def _hands(raw: list[Any], ruleset: Ruleset) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The two hands of ``new``'s ``hands``, each of the ruleset's size (checked before any
    deck deals from them: without ``decks``, each hand is its seat's deck)."""
    dealt = (_cards(raw[0], "seat 1's hand"), _cards(raw[1], "seat 2's hand"))
    for number, hand in enumerate(dealt):
        if len(hand) != ruleset.hand_size:
            raise ProtocolError(
                "bad_request",
                f"field 'hands': seat {number + 1}'s hand holds {counted(len(hand), 'card')}; "
                f"a {ruleset.spec} hand holds {ruleset.hand_size}",
            )
    return dealt


def _check_hand(
    hand: tuple[Card, ...], deck: tuple[Card, ...], ruleset: Ruleset, seat: int
) -> None:
    left = list(deck)
    for card in hand:
        if not ruleset.allows(card):
            raise CardError(f"seat {seat + 1}'s hand card {card} is not in the {ruleset.name} pool")
        if card not in left:
            raise CardError(f"seat {seat + 1}'s hand holds {card}, which its deck does not")
        left.remove(card)


def _summary(session: MatchSession) -> dict[str, Any]:
    """Where a game stands, as every reply that changes it says."""
    state = session.state
    winner = state.match_winner()
    last = set_outcome(state)
    return {
        "phase": _PHASES[state.phase],
        "to_act": state.turn + 1 if state.phase is Phase.AFTER_DRAW else None,
        "set": session.set_number(),
        "sets_won": list(state.sets_won()),
        "ties": state.ties(),
        "last_set": None
        if last is None
        else {"winner": None if last.winner is None else last.winner + 1, "reason": last.reason},
        "winner": None if winner is None else winner + 1,
    }


_PHASES = {
    Phase.SET_OVER: "set_over",
    Phase.BEFORE_DRAW: "before_draw",
    Phase.AFTER_DRAW: "decision",
    Phase.MATCH_OVER: "match_over",
}


def _view(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    seat = request.seat()
    session = game.session
    view = session.view(seat)
    sides = []
    for number, side in enumerate(view.sides):
        sides.append(
            {
                "seat": number + 1,
                "name": session.seats[number].name,
                "table": [str(card) for card in side.table],
                "total": side.total,
                "standing": side.standing,
                "hand": [None if card is None else str(card) for card in side.hand],
                "hand_size": len(side.hand),
            }
        )
    return {
        "game": game.id,
        "seat": seat + 1,
        "ruleset": session.ruleset.spec,
        "sides": sides,
        "played": view.played,
        "deck": list(view.draw_counts()),
        "position": format_position(view),
        **_summary(session),
    }


def _legal(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    state = game.session.state
    if state.phase is not Phase.AFTER_DRAW:
        return {"game": game.id, "to_act": None, "moves": []}
    return {
        "game": game.id,
        "to_act": state.turn + 1,
        "moves": [move_json(action) for action in state.legal_actions()],
    }


def move_json(action: Action) -> dict[str, Any]:
    """A player's action as the protocol writes it (``legal`` lists these, ``move`` reads
    them back)."""
    if isinstance(action, Play):
        return {
            "move": "play",
            "slot": action.index + 1,
            "card": str(action.card),
            "value": action.value,
        }
    if isinstance(action, EndTurn):
        return {"move": "end"}
    if isinstance(action, Stand):
        return {"move": "stand"}
    if isinstance(action, Forfeit):
        return {"move": "forfeit"}
    raise IllegalActionError(f"{action} is chance's, not a player's")


def read_move(request: Request, state: MatchState) -> Action:
    """The action a ``move`` request names, checked against the hand of the seat to act."""
    kind = request.choice("move", ("play", "end", "stand", "forfeit"), None)
    if kind is None:
        raise ProtocolError(
            "bad_request", "move needs the field 'move': play, end, stand or forfeit"
        )
    if kind != "play":
        given = [name for name in ("slot", "card", "value") if request.has(name)]
        if given:  # (never silently ignored: the client may think it played a card)
            fields = " and ".join(repr(name) for name in given)
            article = "an" if kind == "end" else "a"
            raise ProtocolError(
                "bad_request",
                f"{article} {kind!r} move takes no {fields}: only 'play' names a hand card; send "
                f'{{"move": "{kind}"}} alone, or {{"move": "play", "slot": N}} to play one',
            )
        return END_TURN if kind == "end" else STAND if kind == "stand" else FORFEIT
    if state.phase is not Phase.AFTER_DRAW:
        raise IllegalActionError("nobody is to move now")
    hand = state.sides[state.turn].hand
    if not hand:
        raise IllegalActionError(f"seat {state.turn + 1}'s hand is empty: nothing to play")
    slot = request.whole("slot", low=1, high=len(hand)) - 1
    held = hand[slot]
    assert held is not None
    if request.has("card"):
        try:
            named = Card.parse(request.text("card"))
        except CardError as error:
            raise CardError(f"field 'card': {error}", token=error.token) from None
        if named != held:
            raise ProtocolError(
                "wrong_card", f"hand slot {slot + 1} holds {held}, not {named}", token=str(named)
            )
    values = held.values
    if held.kind is CardKind.DOUBLE:
        legal = [a for a in state.legal_actions() if isinstance(a, Play) and a.card == held]
        values = tuple(a.value for a in legal) or values
    if request.has("value"):
        value = request.whole("value", low=-99, high=99)
    elif len(values) == 1:
        value = values[0]
    else:
        choices = " or ".join(f"{v:+d}" for v in values)
        raise ProtocolError("bad_request", f"{held} in slot {slot + 1} needs a 'value': {choices}")
    return Play(slot, held, value)


def _decision(session: MatchSession) -> MatchState:
    """The game's state, at a seat's decision (else the reason there is none)."""
    state = session.state
    if state.phase is not Phase.AFTER_DRAW:
        raise IllegalActionError(
            "the match is over: no move is possible"
            if state.is_terminal()
            else "nobody is to move now"
        )
    return state


def _move(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    session = game.session
    state = _decision(session)
    if request.has("seat") and request.seat() != state.turn:
        raise ProtocolError(
            "not_your_turn", f"it is seat {state.turn + 1}'s move, not seat {request.seat() + 1}'s"
        )
    action = read_move(request, state)
    return _play(game, action)


def _play(game: Game, action: Action, before: Snapshot | None = None) -> dict[str, Any]:
    """Carry out one player's action and the chance events after it (all or nothing);
    ``before``: the game as the undo will bring it back (default: as it is now)."""
    session = game.session
    before = before or game.snapshot()
    try:
        events = [_commit(session, action)]
        events += _run_chance(session)
    except BaseException:
        game.restore(before)
        raise
    game.history.append(before)
    return {"game": game.id, "events": events, **_summary(session)}


def _undo(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    count = request.whole("moves", 1, low=1, high=10_000)
    if count > len(game.history):
        raise ProtocolError(
            "nothing_to_undo",
            f"cannot undo {count} move{'s' if count > 1 else ''}: "
            f"{len(game.history)} made since the deal",
        )
    for _ in range(count):
        game.restore(game.history.pop())
    return {"game": game.id, "undone": count, **_summary(game.session)}


def _play_opponent(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    session = game.session
    state = _decision(session)
    seat = state.turn
    own = session.seats[seat].kind
    name = request.text("player") if request.has("player") else own
    if name == HUMAN:
        raise ProtocolError(
            "bad_request",
            f"seat {seat + 1} is played by a person: name a player with 'player' "
            f"({', '.join(POLICY_NAMES)})",
        )
    if name not in POLICY_NAMES:
        raise ProtocolError(
            "unknown_player",
            f"unknown player {_shown(name)}; choose one of {', '.join(POLICY_NAMES)}",
        )
    before = game.snapshot()  # (before the player draws from its stream, or is made)
    player = session.players[seat] if name == own else None
    if player is None:
        guest = game.guests.get((seat, name))
        if guest is None:
            rng = random.Random(f"pazaak-engine-{session.seed}-seat{seat + 1}-{name}")
            made = _player_factory(
                name, session.ruleset, rng, session.seats[seat].deck, session.seats[1 - seat].deck
            )
            guest = game.guests[(seat, name)] = (made, rng)
        player = guest[0]
    try:
        action = player.choose(session.view(seat))
    except BaseException:
        game.restore(before)  # (its stream as it was: a failed request changes nothing)
        raise
    reply = _play(game, action, before)
    return {"player": name, "move": move_json(action), **reply}


def _advise(engine: Engine, request: Request) -> dict[str, Any]:
    seconds = request.number("time", DEFAULT_SECONDS)
    if not 0 <= seconds <= MAX_BUDGET:
        raise ProtocolError(
            "bad_request", f"field 'time' is {seconds:g}: 0 (exact) to {MAX_BUDGET:g} seconds"
        )
    opponent = request.choice("opponent", tuple(OPPONENT_MODELS), None)
    objective = request.choice("objective", tuple(Objective), None)
    seed = str(request.whole("seed", 0, low=0, high=2**63 - 1))
    # (a replay of a sampled answer: exactly the first this many hands of the seed's draws)
    hands = request.whole("hands", low=MIN_HANDS, high=MAX_HANDS) if request.has("hands") else None
    if hands is not None:
        if request.has("time"):
            raise ProtocolError(
                "bad_request",
                "advise takes 'time' or 'hands', not both: 'hands' solves exactly that many "
                "hands, however long they take",
            )
        seconds = 0.0
    model = None if opponent is None else opponent_model(opponent)
    prior: tuple[Card, ...] | None = None
    hidden_from: str | None = None  # (the deck a hidden hand is dealt from: its name)
    played: tuple[Card, ...] = ()
    if request.has("position"):
        if request.has("game"):
            raise ProtocolError("bad_request", "advise takes a 'game' or a 'position', not both")
        state = parse_position(request.text("position"))
        if state.phase is Phase.AFTER_DRAW and request.has("seat"):
            seat = request.seat()
            if seat != state.turn:  # (never silently ignored: advice for the other seat)
                raise ProtocolError(
                    "not_your_turn",
                    f"field 'seat' is {seat + 1}, but in the position seat {state.turn + 1} is "
                    "to move: the advice is always for the seat to move (leave 'seat' out)",
                )
        other = state.sides[1 - state.turn] if state.phase is Phase.AFTER_DRAW else None
        if other is not None and other.hand_known and request.has("opp_deck"):
            shown = ",".join(str(card) for card in other.hand) or "-"
            raise ProtocolError(
                "bad_request",
                f"field 'opp_deck' is the deck a hidden hand is dealt from, but the position "
                f"shows seat {2 - state.turn}'s hand ({shown}): nothing is dealt; leave "
                "'opp_deck' out, or write the hand as ?,?,... to average over the deck's hands",
            )
        if other is not None and not other.hand_known:
            if request.has("opp_deck"):
                hidden_from, prior = _deck(
                    request.data["opp_deck"], state.ruleset, "field 'opp_deck'"
                )
            else:
                deck = default_deck(state.ruleset)
                hidden_from, prior = deck.name, deck.cards
        game_id = None
    else:
        if not request.has("game"):
            raise ProtocolError(
                "bad_request",
                "advise needs the field 'game' (a game's id, from new) or 'position' (a "
                "position's notation)",
            )
        if request.has("opp_deck"):
            raise ProtocolError(
                "bad_request",
                "field 'opp_deck' is for a 'position': in a game the opponent's hand is dealt "
                "from its seat's deck",
            )
        game = engine.game(request)
        session = game.session
        state = session.state
        if state.phase is not Phase.AFTER_DRAW:
            raise IllegalActionError("there is no decision to advise on: nobody is to move now")
        seat = request.seat(default=state.turn + 1)
        if seat != state.turn:
            raise ProtocolError(
                "not_your_turn",
                f"seat {seat + 1} has no decision now: seat {state.turn + 1} is to move",
            )
        state = session.view(seat)
        model = model or model_of_player(session.seats[1 - seat].kind)
        prior = tuple(session.seats[1 - seat].deck)
        hidden_from = session.seats[1 - seat].deck_name
        played = tuple(session.cards_played_in_earlier_sets(1 - seat))
        game_id = game.id
    asked = AnswerRequest(
        question_from_state(state),
        model=model or OPTIMAL,
        objective=None if objective is None else Objective(objective),
        opponent_deck=prior,
        opponent_played=played,
        budget=TimeBudget(seconds or None),
        seed=seed,
        hands=hands,
    )
    # (a replay never goes on from an answer of more hands: it starts afresh)
    key = (game_id, format_position(state), asked.key(), hands)
    kept = engine.refinement
    continued = kept is not None and kept[0] == key
    if kept is not None and continued:
        refinement = kept[1]
    else:
        engine.refinement = None  # (one answer's solver at a time: its memo is large)
        # (a refinement even without a budget: the next call with a budget goes on from it)
        chosen, _ = choose_objective(asked)
        refinement = Refinement(asked.question, asked.options(chosen), seed=seed)
    answered: list[Answer] = []

    def work() -> Advice:
        answered.append(answer(asked, refinement))
        return answered[0].advice

    advice, stopped = engine.advising(work)
    if answered and answered[0].refinement is not None:
        refinement = answered[0].refinement  # (the set's, where the match's was too large)
    engine.refinement = (key, refinement)
    return {
        "game": game_id,
        "stopped": stopped or refinement.interrupted,
        "continued": continued,
        "time_budget": asked.budget.seconds,
        "seconds": round(asked.budget.spent(), 3),
        **advice_json(advice, asked.question),
        # (as advise --json: why this objective, what the text says under its table: how to
        # ask the same again, an overrun; the deck a hidden hand is dealt from)
        "note": answered[0].objective_note if answered else None,
        "notes": list(answered[0].notes) if answered else [],
        "opp_deck": hidden_from if prior is not None else None,
    }


def _save(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    overwrite = request.flag("overwrite")
    document = game.session.to_document()
    reply: dict[str, Any] = {"game": game.id, "position": document["position"]}
    if not request.has("path"):
        reply["document"] = document
        return reply
    path = request.path()
    key = str(real_path(path))
    try:
        # Held while it is checked and written, as pazaak play holds its save: a session
        # playing this file, or another engine saving it now, makes the save fail at once.
        with hold_save(path, holder="pazaak engine"):
            _check_replaceable(path, game.files.get(key), overwrite=overwrite)
            write_save(path, document)
            try:
                game.files[key] = _fingerprint(read_save(path))
            except PazaakError:  # (written, but not to be replaced unasked)
                game.files.pop(key, None)
    except SaveInUseError:
        raise SaveFileError(
            f"cannot save to {path}: another pazaak process holds it (a pazaak play or follow "
            "playing that match, or another engine saving there) (left untouched)"
        ) from None
    reply["path"] = str(path)
    return reply


def _check_replaceable(path: Path, own: str | None, *, overwrite: bool) -> None:
    """Refuse to write over anything but nothing, a finished match, or this game's own earlier
    save (``own``: its fingerprint as this game last wrote or read it); ``overwrite`` allows
    an unfinished match too, never a file that is not a pazaak save."""
    try:
        existing = probe_save(path)
    except SaveFileError as error:  # ("PATH is not a pazaak save file: ...", and the like)
        message = str(error)
        reason = message.removeprefix(f"{path} ")
        why = f"it {reason}" if reason != message else message
        raise SaveFileError(f"cannot save to {path}: {why}") from None
    if existing is None or not unfinished(existing):
        return
    if saved_by(existing) == FOLLOW:  # (as pazaak play refuses it, even with --new)
        raise SaveFileError(
            f"cannot save to {path}: it holds {whose_match(path, existing)}; choose another "
            "path (left untouched)"
        )
    if overwrite:
        return
    if own is None:
        raise SaveFileError(
            f"cannot save to {path}: it holds an unfinished match that this game was neither "
            'saved to nor loaded from; choose another path, or add "overwrite": true to '
            "replace it (left untouched)"
        )
    if own != _fingerprint(existing):
        raise SaveFileError(
            f"cannot save to {path}: the unfinished match there changed since this game saved "
            'or loaded it (another program wrote it); add "overwrite": true to replace it '
            "(left untouched)"
        )


def _fingerprint(document: dict[str, Any]) -> str:
    """A save document's digest: the same match document, however its file is laid out."""
    text = json.dumps(document, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _load(engine: Engine, request: Request) -> dict[str, Any]:
    path = None
    if request.has("path"):
        if request.has("document"):
            raise ProtocolError("bad_request", "load takes a 'path' or a 'document', not both")
        path = request.path()
        document = read_save(path)
        if not _is_unicode(document):
            raise SaveFileError(
                f"{path} holds text that is not valid Unicode (a lone surrogate escaped in its "
                "JSON): no pazaak writes one (left untouched)"
            )
    elif request.has("document"):
        document = request.data["document"]
        if not isinstance(document, dict):
            raise ProtocolError(
                "bad_request", f"field 'document' is {_shown(document)}, not what save gave"
            )
    else:
        raise ProtocolError("bad_request", "load needs a 'path' or a 'document' (what save gave)")
    if saved_by(document) == FOLLOW:
        where = "the document" if path is None else str(path)
        raise SaveFileError(
            f"{where} cannot be loaded by the engine: it holds "
            f"{whose_match(path or Path('FILE'), document)}"
        )
    try:
        session = MatchSession.from_document(document, _player_factory)
    except SaveFileError as error:
        if path is None:  # (say where: the request's document, not a file)
            raise SaveFileError(f"field 'document' cannot be loaded: {error}") from None
        raise
    except (PazaakError, ValueError, TypeError, LookupError, RecursionError) as error:
        raise SaveFileError(f"the saved match cannot be used: {error}") from None
    game = Game(engine.new_id(request), session)
    if path is not None:  # (this game may save its next moves back there)
        game.files[str(real_path(path))] = _fingerprint(document)
    events = _run_chance(session)
    engine.games[game.id] = game
    return {"game": game.id, "events": events, **_summary(session)}


def _close(engine: Engine, request: Request) -> dict[str, Any]:
    game = engine.game(request)
    del engine.games[game.id]
    return {"game": game.id, "closed": True}


def _stop(engine: Engine, request: Request) -> dict[str, Any]:
    """A ``stop`` read in turn: :func:`serve` answers a stop as soon as it reads it; one met
    here had no answer to stop (it came after the answer, or the engine is not served)."""
    return {"stopped": False}


def _quit(engine: Engine, request: Request) -> dict[str, Any]:
    engine.quitting = True
    return {"bye": True}


HANDLERS: dict[str, Handler] = {
    "hello": _hello,
    "new": _new,
    "view": _view,
    "legal": _legal,
    "move": _move,
    "undo": _undo,
    "advise": _advise,
    "play-opponent": _play_opponent,
    "save": _save,
    "load": _load,
    "close": _close,
    "stop": _stop,
    "quit": _quit,
}


# Serving a stream of lines ------------------------------------------------------------------


def encode(reply: dict[str, Any]) -> str:
    """One reply as one line (UTF-8 JSON, no new line inside). A reply that would carry a lone
    surrogate (a bug: requests and loaded saves are checked) is replaced by an ``internal``
    error: writing it would fail, and a strict reader would reject the line."""
    text = json.dumps(reply, ensure_ascii=False, separators=(",", ":"))
    if _is_unicode(text):
        return text
    request_id = reply.get("id")
    return encode(
        error_reply(
            request_id if _usable_id(request_id) else None,
            "internal",
            "the reply held text that is not valid Unicode (a lone surrogate); please report it",
        )
    )


class _Served:
    """The state :func:`serve` shares between its reader thread and the main thread: the
    lines waiting, whether an answer is being computed, and whether a stop was sent to it."""

    def __init__(self, output: IO[str]) -> None:
        self.output = output
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
        self.busy = False
        self.sent = False
        self.main = threading.main_thread().ident

    def write(self, reply: dict[str, Any]) -> None:
        with self.write_lock:
            self.output.write(encode(reply) + "\n")
            self.output.flush()

    def stop(self, request_id: Any) -> None:
        """Answer a stop at once, and interrupt the answer being computed, if any."""
        with self.lock:
            running = self.busy and not self.sent
            if running:
                self.sent = True
                assert self.main is not None
                signal.pthread_kill(self.main, signal.SIGINT)
        self.write({"id": request_id, "ok": True, "result": {"stopped": running}})

    def on_sigint(self, signum: int, frame: FrameType | None) -> None:
        """A stop's SIGINT that arrives after its answer is done is dropped; any other
        (a Ctrl-C) interrupts as usual."""
        with self.lock:
            ours = self.sent
            if ours and not self.busy:
                self.sent = False
                return
        raise KeyboardInterrupt

    def interruptibly(self, work: Callable[[], Advice]) -> tuple[Advice, bool]:
        with self.lock:
            self.busy, self.sent = True, False
        stopped = False
        try:
            advice = work()
        except KeyboardInterrupt:
            with self.lock:
                ours = self.sent
                self.sent = False  # (its SIGINT is this one)
            if not ours:
                raise
            raise ProtocolError(
                "stopped", "stopped before the answer had its least sample (two hands)"
            ) from None
        finally:  # (an answer that fails, too: a stop after it has nothing to stop)
            with self.lock:
                stopped = self.sent
                self.busy = False
        return advice, stopped


def _read_lines(stream: IO[bytes]) -> Iterator[bytes | None]:
    """The stream's lines (``None`` for one too long, which is skipped to its end)."""
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield raw


def _is_stop(line: str) -> Any:
    """The id of a ``stop`` request (``...`` if the line is something else)."""
    if '"stop"' not in line:
        return ...
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return ...
    if isinstance(data, dict) and data.get("cmd") == "stop" and len(data) <= 2:
        request_id = data.get("id")
        if _usable_id(request_id) and _is_unicode(data):
            return request_id
    return ...


def serve(input_stream: IO[bytes], output: IO[str], engine: Engine | None = None) -> int:
    """Answer every line of ``input_stream`` on ``output`` until ``quit`` or the end of the
    input; return the exit code (0). Must run in the main thread (a stop interrupts it)."""
    engine = engine or Engine()
    served = _Served(output)
    previous = signal.signal(signal.SIGINT, served.on_sigint)
    engine.advising = served.interruptibly

    def reader() -> None:
        try:
            for raw in _read_lines(input_stream):
                if raw is None:
                    served.lines.put("\x00too long")
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    served.lines.put("\x00not utf-8")
                    continue
                if not line.strip():
                    continue
                stop_id = _is_stop(line)
                if stop_id is not ...:
                    served.stop(stop_id)
                    continue
                served.lines.put(line)
        finally:
            served.lines.put(None)

    thread = threading.Thread(target=reader, name=READER_THREAD, daemon=True)
    thread.start()
    try:
        while not engine.quitting:
            line = served.lines.get()
            if line is None:
                break
            if line == "\x00too long":
                reply = error_reply(
                    None, "bad_request", f"the line is longer than {MAX_LINE_BYTES:,} bytes"
                )
            elif line == "\x00not utf-8":
                reply = error_reply(None, "bad_json", "the line is not UTF-8 text")
            else:
                reply = engine.reply_line(line)
            served.write(reply)
    finally:
        signal.signal(signal.SIGINT, previous)
    thread.join(timeout=0.2)  # (at the end of the input it ends at once; after quit it may wait)
    return 0


def reader_waiting() -> bool:
    """Whether a :func:`serve` reader thread still waits on its input (after ``quit``): the
    interpreter's normal exit would then wait for the input stream's lock, and abort."""
    return any(t.name == READER_THREAD and t.is_alive() for t in threading.enumerate())


__all__ = [
    "COMMANDS",
    "ERROR_CODES",
    "PROTOCOL_VERSION",
    "Engine",
    "Game",
    "ProtocolError",
    "error_code",
    "move_json",
    "read_move",
    "reader_waiting",
    "serve",
]
