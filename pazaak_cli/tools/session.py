"""A match being played: who sits where, the random streams, the moves so far, and save/load.

:class:`MatchSession` wraps the rules engine (:mod:`pazaak_cli.engine.game`) for ``pazaak play``. It
moves the match on one event at a time (:meth:`MatchSession.advance` for chance events and the
computer's moves, :meth:`MatchSession.apply` for a person's move) and returns an :class:`Event`
for each, so that the screen can show every event as it happens. It never prints.

All chance (the hands dealt, the opener of each set, every main-deck draw) comes from one
``random.Random`` seeded with the match seed, and each computer seat has its own stream derived
from the same seed. The save document stores the state of every stream, so a resumed match deals
exactly the cards an uninterrupted one would have dealt. It also stores every move since the deal
and the position: loading replays the moves and checks that they lead to that position, which
catches a damaged or hand-edited file.

:func:`parse_command` reads the line a person types (``e``, ``s``, ``p 2 -``, ``p ±4 -``, ``hint``
...) into a :class:`Command`; a command that cannot be carried out raises :class:`CommandError`
with one sentence that says why and what is allowed.
"""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import (
    CardError,
    IllegalActionError,
    NotationError,
    PazaakError,
    WagerError,
)
from pazaak_cli.engine.game import (
    END_TURN,
    STAND,
    Action,
    Draw,
    MatchState,
    Open,
    Phase,
    Play,
    deal_hand,
    new_match,
    settle_wager,
)
from pazaak_cli.engine.move_notation import format_action, parse_action
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import (
    counted,
    is_ascii_digits,
    parse_in_range,
    parse_signed,
    parse_whole,
)
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.players.roster import POLICY_NAMES, Player
from pazaak_cli.runtime.savefile import (
    PLAY,
    SaveFileError,
    probe_save,
    read_save,
    refuse_to_resume_others,
    write_save,
)

HUMAN = "human"
"""The seat kind of a person at the keyboard; any other kind names a computer player."""

PlayerFactory = Callable[[str, Ruleset, random.Random, tuple[Card, ...], tuple[Card, ...]], Player]
"""Builds a computer player: (kind, ruleset, rng, own side deck, opponent's side deck)."""


class CommandError(PazaakError):
    """A typed command that cannot be carried out now; the match goes on."""


@dataclass(frozen=True)
class Seat:
    """One side of the table: a person or a computer player, with a side deck."""

    kind: str
    """``human`` or the name of a computer player (``kotor``, ``expert`` ...)."""
    name: str
    """How the screen calls this side (``You``, ``kotor``, ``Player 1``)."""
    deck_name: str
    deck: tuple[Card, ...]

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


@dataclass(frozen=True)
class Event:
    """One thing that happened: ``action`` took the match from ``before`` to ``after``.

    ``actor`` is the seat that chose the action, ``None`` for chance (the opener of a set, a
    draw: the draw's player is ``before.turn``).
    """

    actor: int | None
    action: Action
    before: MatchState
    after: MatchState


@dataclass
class MatchSession:
    """A match in progress (or finished), with everything needed to save and resume it."""

    ruleset: Ruleset
    seats: tuple[Seat, Seat]
    seed: int
    wager: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    """The hands dealt at the start of the match (the moves are replayed from them)."""
    state: MatchState
    chance_rng: random.Random
    seat_rngs: tuple[random.Random | None, random.Random | None]
    players: tuple[Player | None, Player | None]
    actions: list[Action] = field(default_factory=list)

    # -- starting ------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        ruleset: Ruleset,
        seats: tuple[Seat, Seat],
        *,
        seed: int,
        wager: int,
        player_factory: PlayerFactory | None,
    ) -> MatchSession:
        """A new match: deal both hands from the seeded chance stream and seat the players."""
        if isinstance(wager, bool) or not isinstance(wager, int) or wager < 0:
            raise WagerError(f"a wager is a whole number of credits, 0 or more, not {wager!r}")
        chance = random.Random(seed)
        hands = (
            deal_hand(seats[0].deck, ruleset, chance),
            deal_hand(seats[1].deck, ruleset, chance),
        )
        rngs = tuple(
            None if seat.is_human else random.Random(f"pazaak-seat{number + 1}-{seed}")
            for number, seat in enumerate(seats)
        )
        seat_rngs = (rngs[0], rngs[1])
        players = _make_players(ruleset, seats, seat_rngs, player_factory)
        return cls(
            ruleset=ruleset,
            seats=seats,
            seed=seed,
            wager=wager,
            hands=hands,
            state=new_match(ruleset, hands),
            chance_rng=chance,
            seat_rngs=seat_rngs,
            players=players,
        )

    # -- where the match stands ----------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    def human_to_act(self) -> int | None:
        """The seat of the person who must type a move now, else ``None`` (a chance event or a
        computer move comes next, or the match is over)."""
        state = self.state
        if state.phase is Phase.AFTER_DRAW and self.seats[state.turn].is_human:
            return state.turn
        return None

    def view(self, seat: int) -> MatchState:
        """What ``seat`` sees: its own hand, the other hand face down."""
        return self.state.observed_by(seat)

    def set_number(self) -> int:
        """The number of the set being played (or just over, or about to be: 1 before the
        first set opens), from 1."""
        state = self.state
        finished = len(state.set_winners)
        over = state.phase in (Phase.SET_OVER, Phase.MATCH_OVER) and finished > 0
        return finished if over else finished + 1

    def winner(self) -> int | None:
        return self.state.match_winner()

    def wager_settled(self) -> tuple[int, int]:
        """What each seat gains (+) or loses (-) once the match is over; (0, 0) before."""
        if self.winner() is None:
            return (0, 0)
        return settle_wager(self.state, self.wager)

    def cards_played(self, seat: int) -> tuple[tuple[int, Card], ...]:
        """Every hand card ``seat`` played in this match, with the set (from 0) it was played
        in: public, as the board shows them."""
        state = new_match(self.ruleset, self.hands)
        played: list[tuple[int, Card]] = []
        for action in self.actions:
            if isinstance(action, Play) and state.turn == seat:
                played.append((len(state.set_winners), action.card))
            state = state.child(action)
        return tuple(played)

    def cards_played_in_earlier_sets(self, seat: int) -> tuple[Card, ...]:
        """The hand cards ``seat`` played in the sets before the current one: public, and gone
        from the hand it still holds (the solver's prior over a hidden hand needs them)."""
        state = new_match(self.ruleset, self.hands)
        earlier: list[Card] = []
        this_set: list[Card] = []
        for action in self.actions:
            if isinstance(action, Open):
                earlier += this_set
                this_set = []
            elif isinstance(action, Play) and state.turn == seat:
                this_set.append(action.card)
            state = state.child(action)
        if state.phase in (Phase.SET_OVER, Phase.MATCH_OVER):
            earlier += this_set
        return tuple(earlier)

    def history(self) -> list[Event]:
        """Every event of the match so far, replayed from the deal (for a recap on resume)."""
        state = new_match(self.ruleset, self.hands)
        events = []
        for action in self.actions:
            actor = None if state.is_chance_node() else state.turn
            after = state.child(action)
            events.append(Event(actor, action, state, after))
            state = after
        return events

    # -- moving on -----------------------------------------------------------------------------

    def advance(self) -> Event:
        """Carry out the next chance event or computer move (not a person's move)."""
        state = self.state
        if state.is_terminal():
            raise IllegalActionError("the match is over")
        if state.is_chance_node():
            return self._commit(None, state.sample_chance(self.chance_rng))
        seat = state.turn
        player = self.players[seat]
        if player is None:
            raise IllegalActionError(f"it is {self.seats[seat].name}'s move: type it")
        action = player.choose(state.observed_by(seat))
        return self._commit(seat, action)

    def apply(self, action: Action) -> Event:
        """Carry out a person's move (``IllegalActionError`` if it is not allowed now)."""
        seat = self.human_to_act()
        if seat is None:
            raise IllegalActionError("it is not a person's move now")
        if isinstance(action, (Draw, Open)):
            raise IllegalActionError(f"{action} is chance's move, not a player's")
        return self._commit(seat, action)

    def _commit(self, actor: int | None, action: Action) -> Event:
        before = self.state
        after = before.child(action)
        self.state = after
        self.actions.append(action)
        return Event(actor, action, before, after)

    # -- saving --------------------------------------------------------------------------------

    def to_document(self) -> dict[str, Any]:
        """Everything needed to resume the match, as JSON-ready data."""
        state = self.state
        result: dict[str, Any] | None = None
        winner = state.match_winner()
        if winner is not None:
            result = {
                "winner": winner + 1,
                "sets": list(state.sets_won()),
                "ties": state.ties(),
                "forfeited": None if state.forfeited is None else state.forfeited + 1,
                "wager": list(self.wager_settled()),
            }
        return {
            "finished": state.is_terminal(),
            "result": result,
            "ruleset": self.ruleset.spec,
            "seed": self.seed,
            "wager": self.wager,
            "seats": [
                {
                    "kind": seat.kind,
                    "name": seat.name,
                    "deck": {"name": seat.deck_name, "cards": [str(c) for c in seat.deck]},
                }
                for seat in self.seats
            ],
            "hands": [[str(card) for card in hand] for hand in self.hands],
            "moves": [format_action(action) for action in self.actions],
            "position": format_position(state),
            "rng": {
                "chance": _rng_to_json(self.chance_rng),
                "seats": [None if rng is None else _rng_to_json(rng) for rng in self.seat_rngs],
            },
        }

    def save(self, path: Path | str) -> None:
        """Write the match to ``path`` atomically. A file there that is not a pazaak save (a
        deck, a text) is never replaced: :class:`SaveFileError`, the file as it was."""
        path = Path(path)
        probe_save(path)
        write_save(path, self.to_document())

    @classmethod
    def from_document(
        cls, document: dict[str, Any], player_factory: PlayerFactory | None
    ) -> MatchSession:
        """Rebuild a session from :meth:`to_document`'s data; raise :class:`SaveFileError` naming
        the field at fault if anything is missing, malformed or inconsistent."""
        reader = DocumentReader(document)
        ruleset = reader.ruleset()
        seats = reader.seats(ruleset)
        seed = reader.integer("seed", minimum=0)
        wager = reader.integer("wager", minimum=0)
        hands = reader.hands(seats, ruleset)
        chance = random.Random(seed)  # (the seed deals the hands: MatchSession.start)
        if hands != tuple(deal_hand(seat.deck, ruleset, chance) for seat in seats):
            raise SaveFileError(f"field 'seed' is {seed}, which deals other hands than 'hands'")
        actions = reader.moves()
        chance = random.Random()
        reader.restore_rng(chance, reader.rng_field("chance"))
        seat_states = reader.seat_rng_states(seats)
        seat_rngs = tuple(None if s.is_human else random.Random() for s in seats)
        rngs = (seat_rngs[0], seat_rngs[1])
        players = _make_players(ruleset, seats, rngs, player_factory)
        # Restore the computer streams after the players are built, in case building one
        # draws from its stream: the saved state is the one the match was at.
        for rng, saved in zip(rngs, seat_states, strict=True):
            if rng is not None:
                reader.restore_rng(rng, saved)
        state = reader.replay(ruleset, hands, actions)
        reader.check_finished(state, "moves")
        return cls(
            ruleset=ruleset,
            seats=seats,
            seed=seed,
            wager=wager,
            hands=hands,
            state=state,
            chance_rng=chance,
            seat_rngs=rngs,
            players=players,
            actions=list(actions),
        )


def load_session(path: Path, player_factory: PlayerFactory | None) -> MatchSession:
    """Read a saved match; the file is only read, never changed, whatever is wrong with it. A
    match of ``pazaak follow`` is refused as such, not as a corrupt save (it is not one)."""
    document = read_save(path)
    refuse_to_resume_others(path, document, PLAY)
    try:
        return MatchSession.from_document(document, player_factory)
    except SaveFileError as error:
        raise SaveFileError(
            f"{path} is a corrupt pazaak save file: {error} (left untouched)"
        ) from None
    except (PazaakError, ValueError, TypeError, LookupError, RecursionError) as error:
        # A document that the field checks let through but the rules engine cannot use: the
        # file is damaged all the same, and it must not end the command with a traceback.
        raise SaveFileError(
            f"{path} is a corrupt pazaak save file: {_short(str(error))} (left untouched)"
        ) from None


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def shown(value: Any) -> str:
    """A value from a save file as a message shows it: its repr (true, false and null as the
    file spells them), at most 40 characters."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int of too many digits, a list nested too deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


def _make_players(
    ruleset: Ruleset,
    seats: tuple[Seat, Seat],
    rngs: tuple[random.Random | None, random.Random | None],
    factory: PlayerFactory | None,
) -> tuple[Player | None, Player | None]:
    players: list[Player | None] = []
    for number, seat in enumerate(seats):
        rng = rngs[number]
        if seat.is_human or rng is None:
            players.append(None)
            continue
        if factory is None:
            raise IllegalActionError(f"no computer player is available for {seat.kind!r}")
        players.append(factory(seat.kind, ruleset, rng, seat.deck, seats[1 - number].deck))
    return (players[0], players[1])


# Moves as text (in the save file) -----------------------------------------------------------


# Typed commands -------------------------------------------------------------------------------


class Meta(enum.Enum):
    """Commands that are not moves."""

    NOTHING = "nothing"
    HELP = "help"
    HINT = "hint"
    MATCH_HINT = "hint match"
    """The hint for the match whatever it costs (the plain hint may answer for the set)."""
    STATE = "state"
    BOARD = "board"
    """The score, the main deck's cards left, both tables and hands, the cards seen."""
    FORFEIT = "forfeit"
    """Asks to forfeit; the screen confirms before the move is made."""
    QUIT = "quit"


@dataclass(frozen=True)
class Move:
    """A typed command that is a move."""

    action: Action


Command = Move | Meta

COMMANDS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("end", "e"), "end", "end the turn (you draw again next turn)"),
    (("stand", "s"), "stand", "stand: your total is final for this set"),
    (
        ("play", "p"),
        "play N [+|-]",
        "play hand card N (p 2, p 2 -, p 3 +2); or name it: p +3, p ±4 -, p D, p F2/4",
    ),
    (("hint", "h"), "hint", "the solver's odds for every move you have"),
    (
        ("hint match", "h m"),
        "hint match",
        "the odds of winning the match, however long they take (Ctrl-C cancels)",
    ),
    (
        ("board", "b"),
        "board",
        "the score, the main deck's cards left by value, both tables, the cards played",
    ),
    (("state",), "state", "the position in the project's one-line notation"),
    (("help", "?"), "help", "this list"),
    (("forfeit",), "forfeit", "give up the match (asks first)"),
    (("quit", "q"), "quit", "save the match and leave (resume it with --resume)"),
)
"""(words, usage, description) of every command, in the order ``help`` lists them."""

_META_WORDS = {
    "hint": Meta.HINT,
    "h": Meta.HINT,
    "state": Meta.STATE,
    "board": Meta.BOARD,
    "b": Meta.BOARD,
    "help": Meta.HELP,
    "?": Meta.HELP,
    "forfeit": Meta.FORFEIT,
    "quit": Meta.QUIT,
    "q": Meta.QUIT,
}
_SIGN_WORDS = {"+": 1, "-": -1, "−": -1}


def parse_command(line: str, state: MatchState) -> Command:
    """Read one typed line for the player to act in ``state`` (case does not matter).

    Raises :class:`CommandError` for an unknown command or a move that is not allowed now; the
    message says why and what is allowed.
    """
    words = line.split()
    if not words:
        return Meta.NOTHING
    verb, args = words[0].lower(), words[1:]
    if verb in ("play", "p"):
        return Move(resolve_play(args, state))
    if verb in ("hint", "h") and args:
        if len(args) == 1 and args[0].lower() in ("match", "m"):
            return Meta.MATCH_HINT
        raise CommandError(
            f"{words[0]!r} takes nothing after it but match (h m: the odds of winning the "
            f"match, however long they take); {allowed_moves(state)}"
        )
    if verb in ("end", "e", "stand", "s") or verb in _META_WORDS:
        if args:
            raise CommandError(f"{words[0]!r} takes nothing after it; {allowed_moves(state)}")
        if verb in _META_WORDS:
            return _META_WORDS[verb]
        if verb in ("end", "e"):
            return Move(END_TURN)
        total = state.sides[state.turn].total
        if total > state.ruleset.target:
            raise CommandError(
                f"you cannot stand on {total}: it is over {state.ruleset.target}; "
                f"{allowed_moves(state)}"
            )
        return Move(STAND)
    if is_ascii_digits(verb) or _looks_like_card(words[0]):
        raise CommandError(
            f"{words[0]!r} is not a command: to play a card write p {line.strip()}; "
            f"{allowed_moves(state)}"
        )
    glued = words[0][1:]  # (p1, p+3: the space after p forgotten)
    if verb[0] == "p" and glued and (is_ascii_digits(glued) or _looks_like_card(glued)):
        rest = " ".join([glued, *args])
        raise CommandError(
            f"{words[0]!r} is not a command: write p {rest}, with a space after p; "
            f"{allowed_moves(state)}"
        )
    shown = words[0] if len(words[0]) <= 20 else words[0][:17] + "..."
    raise CommandError(
        f"{shown!r} is not a command: e end, s stand, p N play, h hint, b board, state, ? help, "
        "forfeit, q quit"
    )


def _looks_like_card(token: str) -> bool:
    try:
        Card.parse(token)
    except CardError:
        return False
    return True


def allowed_moves(state: MatchState) -> str:
    """What the player to act may do now, as a phrase for error messages."""
    side = state.sides[state.turn]
    moves = []
    if not state.played and side.hand:
        count = len(side.hand)
        moves.append("play a card (p 1)" if count == 1 else f"play a card (p 1..{count})")
    moves.append("end (e)")
    if side.total <= state.ruleset.target:
        moves.append("stand (s)")
    return "allowed now: " + ", ".join(moves)


def resolve_play(args: Sequence[str], state: MatchState) -> Play:
    """The :class:`Play` that ``p ARGS`` asks for: ``N [SIGN|VALUE]`` or ``CARD [SIGN|VALUE]``."""
    side = state.sides[state.turn]
    if state.played:
        raise CommandError(f"you have already played a hand card this turn; {allowed_moves(state)}")
    if not side.hand:
        raise CommandError(f"your hand is empty; {allowed_moves(state)}")
    if not args:
        raise CommandError(f"play which card? write p N: {_hand_choices(state)}")
    if len(args) > 2:
        raise CommandError(
            f"too many words after play: write p N, p N + or p N - ({_hand_choices(state)})"
        )
    selector = args[0]
    spec = args[1] if len(args) == 2 else None
    if is_ascii_digits(selector):
        number = parse_in_range(selector, 1, len(side.hand))
        if number is None:
            shown = selector if len(selector) <= 20 else selector[:17] + "..."
            raise CommandError(f"there is no hand card {shown}: {_hand_choices(state)}")
        return _pick_value(state, number - 1, spec)
    card, glued = _parse_selector(selector, state)
    if glued is not None:
        if spec is not None:
            raise CommandError(
                f"{selector!r} already says the sign; write p {card} {glued} or p N {glued}"
            )
        spec = glued
    indices = [i for i, held in enumerate(side.hand) if held == card]
    if indices:
        return _pick_value(state, indices[0], spec)
    if card.kind in (CardKind.PLUS, CardKind.MINUS) and spec is None:
        return _play_by_value(state, card)
    raise CommandError(f"you hold no {card}: {_hand_choices(state)}")


def _parse_selector(selector: str, state: MatchState) -> tuple[Card, str | None]:
    """A card named in a play command, and a sign glued to its end (``±4-``) if any."""
    try:
        return Card.parse(selector), None
    except CardError:
        pass
    if len(selector) > 1 and selector[-1] in _SIGN_WORDS:
        try:
            card = Card.parse(selector[:-1])
        except CardError:
            pass
        else:
            if len(set(card.values)) > 1:
                return card, selector[-1]
    shown = selector if len(selector) <= 20 else selector[:17] + "..."
    raise CommandError(
        f"{shown!r} is neither a hand card number nor a card: {_hand_choices(state)}"
    )


def _plays_of(state: MatchState, index: int) -> list[Play]:
    """Every way to play hand card ``index``. The engine lists each distinct (card, value) once,
    at the first card of a kind, so a second copy takes the first one's plays."""
    card = state.sides[state.turn].hand[index]
    return [
        Play(index, action.card, action.value)
        for action in state.legal_actions()
        if isinstance(action, Play) and action.card == card
    ]


def _pick_value(state: MatchState, index: int, spec: str | None) -> Play:
    plays = _plays_of(state, index)
    card = plays[0].card
    number = index + 1
    if spec is None:
        if len(plays) == 1:
            return plays[0]
        # (±1/2 is played as one of four values: a sign alone does not say which)
        needs = "a sign" if len({abs(p.value) for p in plays}) == 1 else "a value"
        raise CommandError(f"{card} needs {needs}: {_value_choices(plays, number)}")
    wanted = _parse_value_spec(spec)
    if wanted is None:
        how = f"write p {number}" if len(plays) == 1 else _value_choices(plays, number)
        whole = parse_whole(spec.strip(), max_digits=2)
        if whole:  # (p 1 2: the sign left out)
            raise CommandError(
                f"a value needs its sign (+{spec.strip()} or -{spec.strip()}): {how}"
            )
        if whole == 0:  # (p 3 0: no card is played as 0 with a sign)
            if len(plays) == 1:
                raise CommandError(f"{_one_way(plays[0])}: write p {number}")
            raise CommandError(f"{card} is not played as 0: {how}")
        raise CommandError(f"{spec!r} is not a sign or a value: {how}")
    kind, amount = wanted
    if kind == "sign":
        matching = [p for p in plays if (p.value > 0) == (amount > 0) and p.value != 0]
    else:
        matching = [p for p in plays if p.value == amount]
    if len(matching) == 1:
        return matching[0]
    if not matching:
        if len(plays) == 1:
            raise CommandError(f"{_one_way(plays[0])}: write p {number}")
        raise CommandError(f"{card} cannot be played as {spec}: {_value_choices(plays, number)}")
    raise CommandError(f"{card} can be played in more ways: {_value_choices(plays, number)}")


def _parse_value_spec(spec: str) -> tuple[str, int] | None:
    text = spec.strip().replace("−", "-")
    if text in _SIGN_WORDS:
        return ("sign", _SIGN_WORDS[text])
    value = parse_signed(text, max_digits=2)
    if value is not None:
        return ("value", value)
    return None


def _play_by_value(state: MatchState, card: Card) -> Play:
    """``p -4`` without a -4 card in hand: the ± card (or ±1/2, T) that can be played as -4."""
    wanted = card.values[0]
    plays = [
        a
        for a in state.legal_actions()
        if isinstance(a, Play) and a.value == wanted and a.card.kind is not CardKind.DOUBLE
    ]
    kinds = {play.card for play in plays}
    if len(kinds) == 1:
        return plays[0]
    if not plays:
        raise CommandError(f"you hold no {card}: {_hand_choices(state)}")
    options = " or ".join(f"p {p.index + 1} {p.value:+d} ({p.card})" for p in plays)
    raise CommandError(f"you hold no {card} but several cards can make {wanted:+d}: {options}")


def _one_way(play: Play) -> str:
    """What a card played only one way does, as the refusal of a sign for it says (a flip card
    has no value of its own: "played as 0" would say it wrongly)."""
    card = play.card
    if card.kind is CardKind.FLIP_2_4:
        return f"{card} takes no sign: it flips the signs of the 2s and 4s on your table"
    if card.kind is CardKind.FLIP_3_6:
        return f"{card} takes no sign: it flips the signs of the 3s and 6s on your table"
    if card.kind is CardKind.DOUBLE:
        return f"{card} takes no sign: it doubles your last card (= {_shown_value(play)} here)"
    return f"{card} can only be played as {_shown_value(play)}"


def _shown_value(play: Play) -> str:
    return f"{play.value:+d}" if play.value else "0"


def _value_choices(plays: Sequence[Play], number: int) -> str:
    choices = [
        f"p {number} {'+' if p.value > 0 else '-'}"
        if sum(1 for q in plays if (q.value > 0) == (p.value > 0)) == 1
        else f"p {number} {p.value:+d}"
        for p in plays
    ]
    return "write " + " or ".join(choices)


def _hand_choices(state: MatchState) -> str:
    hand = state.sides[state.turn].hand
    cards = "  ".join(f"{i}) {card}" for i, card in enumerate(hand, start=1))
    return f"your hand is {cards}"


# Reading a save document ----------------------------------------------------------------------


class DocumentReader:
    """Checks each field of a save document and says which one is wrong."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def get(self, name: str) -> Any:
        if name not in self.document:
            raise SaveFileError(f"field {name!r} is missing")
        return self.document[name]

    def integer(self, name: str, *, minimum: int | None = None) -> int:
        value = self.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise SaveFileError(f"field {name!r} is {shown(value)}, not a whole number")
        if minimum is not None and value < minimum:
            raise SaveFileError(f"field {name!r} is {value}, less than {minimum}")
        return value

    def ruleset(self) -> Ruleset:
        spec = self.get("ruleset")
        if not isinstance(spec, str):
            raise SaveFileError(f"field 'ruleset' is {shown(spec)}, not a ruleset")
        try:
            return parse_ruleset(spec)
        except PazaakError as error:
            raise SaveFileError(f"field 'ruleset': {error}") from None

    def seats(self, ruleset: Ruleset) -> tuple[Seat, Seat]:
        raw = self.get("seats")
        if not isinstance(raw, list) or len(raw) != 2:
            raise SaveFileError("field 'seats' must list two seats")
        seats = []
        for number, item in enumerate(raw, start=1):
            where = f"seat {number}"
            if not isinstance(item, dict):
                raise SaveFileError(f"{where} is not an object")
            kind, name, deck = item.get("kind"), item.get("name"), item.get("deck")
            if not isinstance(kind, str) or not isinstance(name, str) or not name:
                raise SaveFileError(f"{where} needs a 'kind' and a 'name'")
            if kind != HUMAN and kind not in POLICY_NAMES:
                raise SaveFileError(f"{where}'s kind {shown(kind)} is neither human nor a player")
            if not isinstance(deck, dict) or not isinstance(deck.get("name"), str):
                raise SaveFileError(f"{where}'s deck needs a 'name' and 'cards'")
            cards = self.cards(deck.get("cards"), f"{where}'s deck")
            self.deck_fits(cards, ruleset, f"{where}'s deck")
            seats.append(Seat(kind, name, deck["name"], cards))
        return (seats[0], seats[1])

    def check_finished(self, state: MatchState, what: str) -> None:
        """Refuse a field ``finished`` that says otherwise than the ``what`` (the moves, the
        steps) replayed to ``state``."""
        finished = self.document.get("finished")
        if finished is not state.is_terminal():
            raise SaveFileError(
                f"field 'finished' is {shown(finished)} but the {what} "
                f"{'end' if state.is_terminal() else 'do not end'} the match"
            )

    @staticmethod
    def deck_fits(cards: Sequence[Card], ruleset: Ruleset, where: str) -> None:
        """Refuse a side deck the ruleset would not let a player bring (its size, its pool)."""
        misfit = ruleset.deck_misfit(cards)
        if misfit is not None:
            raise SaveFileError(f"{where} {misfit}")

    def cards(self, raw: Any, where: str) -> tuple[Card, ...]:
        if not isinstance(raw, list) or not all(isinstance(token, str) for token in raw):
            raise SaveFileError(f"{where} must be a list of cards")
        try:
            return tuple(Card.parse(token) for token in raw)
        except CardError as error:
            raise SaveFileError(f"{where}: {error}") from None

    def hands(
        self, seats: tuple[Seat, Seat], ruleset: Ruleset
    ) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        raw = self.get("hands")
        if not isinstance(raw, list) or len(raw) != 2:
            raise SaveFileError("field 'hands' must list two hands")
        hands = []
        for number, (item, seat) in enumerate(zip(raw, seats, strict=True), start=1):
            hand = self.cards(item, f"hand {number}")
            if len(hand) != ruleset.hand_size:
                raise SaveFileError(
                    f"hand {number} holds {counted(len(hand), 'card')}, not {ruleset.hand_size}"
                )
            remaining = list(seat.deck)
            for card in hand:
                if card not in remaining:
                    held = hand.count(card)
                    raise SaveFileError(
                        f"hand {number} holds {card}, which its deck does not"
                        if card not in seat.deck
                        else f"hand {number} holds {card} {counted(held, 'time')}, "
                        f"its deck {counted(seat.deck.count(card), 'time')}"
                    )
                remaining.remove(card)
            hands.append(hand)
        return (hands[0], hands[1])

    def moves(self) -> list[Action]:
        raw = self.get("moves")
        if not isinstance(raw, list):
            raise SaveFileError("field 'moves' must be a list")
        actions = []
        for number, text in enumerate(raw, start=1):
            try:
                actions.append(parse_action(text))
            except NotationError as error:
                raise SaveFileError(f"move {number}: {error}") from None
        return actions

    def rng_field(self, name: str) -> Any:
        rng = self.get("rng")
        if not isinstance(rng, dict) or name not in rng:
            raise SaveFileError(f"field 'rng' has no {name!r} stream")
        return rng[name]

    def seat_rng_states(self, seats: tuple[Seat, Seat]) -> list[Any]:
        raw = self.rng_field("seats")
        if not isinstance(raw, list) or len(raw) != 2:
            raise SaveFileError("field 'rng' must hold two seat streams")
        for number, (saved, seat) in enumerate(zip(raw, seats, strict=True), start=1):
            if (saved is None) != seat.is_human:
                raise SaveFileError(
                    f"seat {number}'s random stream does not match its kind {seat.kind!r}"
                )
        return raw

    @staticmethod
    def restore_rng(rng: random.Random, saved: Any) -> None:
        try:
            version, internal, gauss = saved
            if not isinstance(internal, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in internal
            ):
                raise TypeError
            rng.setstate((version, tuple(internal), gauss))
        except (TypeError, ValueError, OverflowError):
            raise SaveFileError("a random-number stream is damaged") from None

    def replay(
        self,
        ruleset: Ruleset,
        hands: tuple[tuple[Card, ...], tuple[Card, ...]],
        actions: list[Action],
    ) -> MatchState:
        state = new_match(ruleset, hands)
        for number, action in enumerate(actions, start=1):
            try:
                state = state.child(action)
            except PazaakError as error:
                raise SaveFileError(
                    f"move {number} ({format_action(action)}) is impossible: {error}"
                ) from None
        position = self.get("position")
        if position != format_position(state):
            raise SaveFileError("the moves do not lead to the saved position")
        return state


def _rng_to_json(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]
