"""Following a match played elsewhere (in KOTOR I or II), one typed event at a time.

``pazaak follow`` mirrors a real game: the user types what he sees (the cards drawn, the hand
cards played, the ends of turns and the stands, for both sides) and this module keeps the whole
match: a :class:`Followed` value holds the engine's :class:`~pazaak_cli.engine.game.MatchState` with
his hand known and the opponent's hidden (``None`` cards, as many as it still holds), every step
since the start, and the hand cards the opponent has played, set by set. Every rule is the
engine's: an event becomes an engine action (:meth:`MatchState.child`), found among
:meth:`MatchState.legal_actions` where the hand is known; the opponent's hidden card is shown to
the engine for the one play that reveals it.

All functions are pure: :func:`apply` returns a new :class:`Followed` or raises
:class:`FollowError` (one sentence; nothing changes). :func:`undo` steps back one typed event,
:func:`request_for` is the answer service's question about the user's decision, with the main
deck's composition counted since the last shuffle and the opponent's earlier plays known.
Nothing here prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.errors import CardError, PazaakError
from pazaak_cli.engine.game import (
    COPIES_PER_VALUE,
    END_TURN,
    MAIN_VALUES,
    STAND,
    Action,
    Draw,
    MatchState,
    Open,
    Phase,
    Placed,
    Play,
    new_match,
)
from pazaak_cli.engine.move_notation import format_action, parse_action
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.engine.rules import FirstPlayer, MainDeck, Ruleset
from pazaak_cli.runtime.savefile import FOLLOW, SaveFileError
from pazaak_cli.solve.answer_types import SolveOptions
from pazaak_cli.solve.answers import AnswerRequest
from pazaak_cli.solve.budgeted import (
    DEFAULT_SEED,
    FOLLOW_ASKS,
    Asks,
    Progress,
    prepare_line,
    sample_word,
)
from pazaak_cli.solve.models import OPPONENT_MODELS, OPTIMAL, Objective, opponent_model
from pazaak_cli.solve.time_budget import TimeBudget
from pazaak_cli.tools.session import DocumentReader, shown

ME = 0
"""The user is player 1 (in KOTOR I he opens every set)."""
OPPONENT = 1
DEFAULT_OPP_DECKS = {"kotor1": "kotor1-strongest", "kotor2": "kotor2-hard"}
"""The opponent's side deck when none is given (docs/follow.md says why these)."""
DOCUMENT_KIND = FOLLOW
"""The ``kind`` field of a followed match's save document (``pazaak play`` saves have none)."""
OPENER_WORDS = {"me": ME, "m": ME, "opponent": OPPONENT, "opp": OPPONENT, "o": OPPONENT}
"""The answers to "who opens this set?"."""
_VALUE_CARDS = (CardKind.PLUS_MINUS, CardKind.PLUS_MINUS_1_2, CardKind.TIEBREAKER)
"""Cards that need a sign or a value after them (``±3 -``, ``T +``, ``VV -2``)."""


class FollowError(PazaakError):
    """An event that cannot happen now, or input that is not an event: one sentence saying
    why; the followed match does not change."""


@dataclass(frozen=True)
class FollowSetup:
    """What is fixed for the whole match."""

    ruleset: Ruleset
    hand: tuple[Card, ...]
    """The user's hand as dealt."""
    opp_deck: tuple[Card, ...]
    """The opponent's side deck: the prior of its hidden hand and the check of its plays."""
    opp_deck_name: str
    opponent: str = "kotor"
    """How the advice assumes the opponent plays: ``kotor`` or ``optimal``."""


@dataclass(frozen=True)
class Step:
    """One engine action of the match, and whether the tool took it by itself (an opener the
    rules fix, or the one given on the command line) rather than the user typing it."""

    action: Action
    automatic: bool = False


@dataclass(frozen=True)
class Followed:
    """The followed match at one moment (immutable)."""

    setup: FollowSetup
    state: MatchState
    """The engine's state: the user's hand known, the opponent's cards ``None``."""
    steps: tuple[Step, ...]
    opp_played: tuple[tuple[int, Card], ...]
    """The opponent's hand cards played so far: (set number from 0, card), in order."""

    @property
    def set_number(self) -> int:
        """The current set, from 1 (between sets: the one just finished)."""
        in_play = self.state.phase in (Phase.BEFORE_DRAW, Phase.AFTER_DRAW)
        return len(self.state.set_winners) + (1 if in_play else 0)

    def opponent_earlier_cards(self) -> tuple[Card, ...]:
        """The hand cards the opponent played in the sets before the current one (public,
        and gone from its hand): the solver's ``opponent_played``."""
        current = len(self.state.set_winners)
        return tuple(card for number, card in self.opp_played if number < current)

    def opponent_cards_left(self) -> Counter[Card]:
        """The opponent's side deck less every hand card it has played this match."""
        left = Counter(self.setup.opp_deck)
        left.subtract(card for _, card in self.opp_played)
        return left

    def typed_steps(self) -> int:
        return sum(1 for step in self.steps if not step.automatic)

    @property
    def asks_opener(self) -> bool:
        """Whether the next set waits for the user to say who opens it (a random opener)."""
        return self.state.phase is Phase.SET_OVER and len(self.state.possible_openers()) > 1

    @property
    def my_decision(self) -> bool:
        """Whether the user has drawn and must choose (the moment for advice)."""
        return self.state.phase is Phase.AFTER_DRAW and self.state.turn == ME


# Typed events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TypedDraw:
    value: int
    token: str


@dataclass(frozen=True)
class TypedCard:
    card: Card
    value: int | None
    """The value asked for (``None``: the card's only one, or a Double's copy)."""
    token: str
    exact: bool
    """The card was named exactly (``±3 -``); else a plain ``+3``/``-3`` may stand for a ±."""


@dataclass(frozen=True)
class TypedEnd:
    token: str


@dataclass(frozen=True)
class TypedStand:
    token: str


@dataclass(frozen=True)
class TypedOpener:
    player: int
    token: str


Typed = TypedDraw | TypedCard | TypedEnd | TypedStand | TypedOpener

EVENT_SYNTAX = (
    "a draw (1..10), a hand card (+3, -2, ±3 -, F2/4, D, T +), e (end the turn), s (stand)"
)


def parse_events(line: str) -> tuple[Typed, ...]:
    """Read the events of one input line (``7 +3 s``); raise :class:`FollowError` quoting the
    token that is not one."""
    tokens = line.replace(",", " ").split()
    events: list[Typed] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        lower = token.lower()
        if lower in ("e", "end"):
            events.append(TypedEnd(token))
            continue
        if lower in ("s", "stand"):
            events.append(TypedStand(token))
            continue
        if lower in OPENER_WORDS:
            events.append(TypedOpener(OPENER_WORDS[lower], token))
            continue
        if token.isascii() and token.isdigit():
            drawn = int(token)
            if drawn not in MAIN_VALUES:
                raise FollowError(
                    f"{token!r} is not a main-deck card: they are 1 to 10", token=token
                )
            events.append(TypedDraw(drawn, token))
            continue
        try:
            card = Card.parse(token)
        except CardError as error:
            if token[0] in "+-±*−" and token[1:].isdigit():
                raise FollowError(str(error), token=token) from None
            raise FollowError(
                f"{_shown(token)} is not an event; type {EVENT_SYNTAX}", token=token
            ) from None
        value: int | None = None
        exact = True
        if card.kind in _VALUE_CARDS:
            spec = tokens[index] if index < len(tokens) else ""
            value = _value_after(card, spec, token)
            index += 1
        elif card.kind in (CardKind.PLUS, CardKind.MINUS):
            value = card.values[0]
            exact = False
        events.append(TypedCard(card, value, token, exact))
    return tuple(events)


def _value_after(card: Card, spec: str, token: str) -> int:
    """The value written after a ± card: ``+`` or ``-`` (``±1/2`` needs ``+1``, ``-2`` ...)."""
    text = spec.replace("−", "-")
    magnitude = 1 if card.kind is CardKind.TIEBREAKER else card.magnitude
    value: int | None = None
    if text in ("+", "-") and card.kind is not CardKind.PLUS_MINUS_1_2:
        value = magnitude if text == "+" else -magnitude
    elif len(text) >= 2 and text[0] in "+-" and text[1:].isascii() and text[1:].isdigit():
        value = int(text)
    if value is None or value not in card.values:
        choices = " or ".join(f"{token} {v:+d}" for v in card.values)
        if card.kind is not CardKind.PLUS_MINUS_1_2:
            choices = f"{token} + or {token} -"
        after = f", not {_shown(spec)}" if spec else ""
        raise FollowError(f"{token} needs its value after it: {choices}{after}", token=token)
    return value


def _shown(token: str) -> str:
    return repr(token if len(token) <= 20 else token[:17] + "...")


# Starting, applying, undoing ------------------------------------------------------------------


def start(setup: FollowSetup, first: int | None = None) -> Followed:
    """A new followed match: the user's hand dealt, the opponent's hidden; the first set opened
    when the rules (or ``first``, for a random opener) say who opens it."""
    rules = setup.ruleset
    if len(setup.hand) != rules.hand_size:
        raise FollowError(
            f"your hand holds {counted(len(setup.hand), 'card')}; "
            f"{rules.spec} deals {rules.hand_size}"
        )
    for card in setup.hand:
        if not rules.allows(card):
            raise FollowError(f"your hand card {card} is not in the {rules.name} card pool")
    if len(setup.opp_deck) < rules.hand_size:
        raise FollowError(
            f"the opponent's side deck holds {counted(len(setup.opp_deck), 'card')}, fewer "
            f"than the {rules.hand_size} it is dealt"
        )
    misfit = rules.deck_misfit(setup.opp_deck, sized=False)
    if misfit is not None:
        raise FollowError(f"the opponent's side deck {misfit}")
    if setup.opponent not in OPPONENT_MODELS:
        raise FollowError(
            f"unknown opponent model {setup.opponent!r}; choose one of {', '.join(OPPONENT_MODELS)}"
        )
    state = new_match(rules, (setup.hand, (None,) * rules.hand_size))  # type: ignore[arg-type]
    followed = Followed(setup, state, (), ())
    if first is not None:
        if rules.first_player is not FirstPlayer.RANDOM:
            raise FollowError(
                f"under {rules.spec} {_who(state.possible_openers()[0])} open the first set: "
                "who opens is chosen only where the opener is random (kotor2)"
            )
        followed = _step(followed, Step(Open(first), automatic=True))
    return _settle(followed)


def apply(followed: Followed, event: Typed) -> Followed:
    """The match after one typed event; :class:`FollowError` if it cannot happen now."""
    state = followed.state
    if state.phase is Phase.MATCH_OVER:
        raise FollowError(f"the match is over ({describe_result(followed)}): nothing more happens")
    if isinstance(event, TypedOpener):
        return _settle(_step(followed, Step(_opener(followed, event))))
    if state.phase is Phase.SET_OVER:
        raise _not_started(followed)
    who = _who(state.turn)
    if isinstance(event, TypedDraw):
        if state.phase is Phase.AFTER_DRAW:
            drawn = state.sides[state.turn].table[-1 - int(state.played)]
            then = "e (end the turn) or s (stand)"
            if not state.played:  # (one hand card a turn: after it, only the end of the turn)
                then = f"a hand card, {then}"
            raise FollowError(
                f"{who} {_has(state.turn)} already drawn ({drawn}) this turn: type {then}"
            )
        return _settle(_step(followed, Step(_draw(followed, event))))
    if state.phase is Phase.BEFORE_DRAW:
        raise FollowError(
            f"{who} must draw first: type the main-deck card {who} drew (1..10), "
            f"not {event.token!r}"
        )
    action: Action
    if isinstance(event, TypedEnd):
        action = END_TURN
    elif isinstance(event, TypedStand):
        action = STAND
    else:
        action = _play(followed, event)
    return _settle(_step(followed, Step(action)))


def apply_line(followed: Followed, line: str) -> tuple[Followed, tuple[Followed, ...]]:
    """Every event of one line, in order: the match after the last and after each; all or
    nothing (a :class:`FollowError` for any of them leaves the match as it was)."""
    try:
        events = parse_events(line)
    except FollowError as error:
        if not followed.asks_opener:
            raise
        if not str(error).endswith(EVENT_SYNTAX):  # (a card written wrong: none is due yet)
            raise _not_started(followed) from None
        # (the question asked is who opens: the answer it takes, not the events of a set)
        raise FollowError(
            f"{_shown(error.token or line.strip())} does not say who opens set "
            f"{followed.set_number + 1}: type me or opponent",
            token=error.token,
        ) from None
    if not events:
        raise FollowError("the line holds no event")
    states: list[Followed] = []
    current = followed
    for number, event in enumerate(events):
        try:
            current = apply(current, event)
        except FollowError as error:
            if len(events) == 1:
                raise
            before = states[-2] if len(states) > 1 else followed
            cause = automatic_end(before, current, events[number - 1]) if number else None
            reason = cause or str(error)
            raise FollowError(
                f"{reason}; the whole line was dropped, nothing of it is taken: type it again "
                "without that"
            ) from None
        states.append(current)
    return current, tuple(states)


def _not_started(followed: Followed) -> FollowError:
    """An event typed while the question is who opens the next set."""
    return FollowError(
        f"set {followed.set_number + 1} has not started: say who opens it first (me or opponent)"
    )


def automatic_end(before: Followed, after: Followed, event: Typed) -> str | None:
    """Why the turn passed by itself after ``event`` (no ``e`` or ``s`` typed), in words: a side
    at the target, or with a full table, stands by itself, so what the line typed next for it
    cannot follow; ``None`` if the turn did not pass by itself."""
    if isinstance(event, (TypedEnd, TypedStand, TypedOpener)):
        return None
    mover = before.state.turn
    side = after.state.sides[mover]
    if not side.standing or before.state.sides[mover].standing:
        return None
    rules = after.state.ruleset
    who = _who(mover)
    if side.total == rules.target:
        why = f"{rules.target} always stands"
    elif len(side.table) >= rules.table_size:
        why = "a full table always stands"
    else:
        return None
    return (
        f"{who} reached {side.total} with {event.token!r} and stood by itself ({why}): nothing "
        f"more is typed for {who} this set"
    )


def undo(followed: Followed) -> Followed:
    """The match before the last typed event (and what the tool did by itself after it)."""
    typed = [i for i, step in enumerate(followed.steps) if not step.automatic]
    if not typed:
        raise FollowError("nothing to undo: this is the start of the match")
    return replay(followed.setup, followed.steps[: typed[-1]])


def replay(setup: FollowSetup, steps: Sequence[Step]) -> Followed:
    """The match after ``steps`` from the deal (undo; a resumed save)."""
    rules = setup.ruleset
    state = new_match(rules, (setup.hand, (None,) * rules.hand_size))  # type: ignore[arg-type]
    followed = Followed(setup, state, (), ())
    for step in steps:
        followed = _step(followed, step)
    return followed


def transitions(before: Followed, after: Followed) -> tuple[tuple[Step, Followed, Followed], ...]:
    """The steps ``after`` took beyond ``before`` (which it extends), each with the match just
    before and just after it: what a screen reports."""
    current = before
    found = []
    for step in after.steps[len(before.steps) :]:
        following = _step(current, step)
        found.append((step, current, following))
        current = following
    return tuple(found)


def _step(followed: Followed, step: Step) -> Followed:
    """Carry out one engine action (the opponent's play shows its card to the engine)."""
    state = followed.state
    action = step.action
    played = followed.opp_played
    try:
        if isinstance(action, Play) and state.turn == OPPONENT:
            hidden = state.sides[OPPONENT].hand
            if not hidden:
                raise FollowError(_no_cards_left(followed))
            shown = state.sides[OPPONENT]._replace(hand=(action.card,) + hidden[1:])
            after = state._replace(sides=(state.sides[ME], shown)).child(action)
            played = played + ((len(state.set_winners), action.card),)
        else:
            after = state.child(action)
    except FollowError:
        raise
    except PazaakError as error:
        raise FollowError(str(error)) from None
    return Followed(followed.setup, after, followed.steps + (step,), played)


def _settle(followed: Followed) -> Followed:
    """Open the next set by itself when the rules say who opens it."""
    state = followed.state
    if state.phase is Phase.SET_OVER:
        openers = state.possible_openers()
        if len(openers) == 1:
            return _step(followed, Step(Open(openers[0]), automatic=True))
    return followed


def _opener(followed: Followed, event: TypedOpener) -> Open:
    state = followed.state
    if not followed.asks_opener:
        raise FollowError(
            f"{event.token!r} answers who opens a set, and nobody is asked that now"
            + ("" if state.phase is Phase.SET_OVER else f" (set {followed.set_number} is on)")
        )
    return Open(event.player)


def _draw(followed: Followed, event: TypedDraw) -> Draw:
    state = followed.state
    rules = state.ruleset
    if rules.main_deck is not MainDeck.INFINITE and state.draw_counts()[event.value - 1] == 0:
        renewal = "in this set" if rules.main_deck is MainDeck.PER_SET else "since the last shuffle"
        raise FollowError(
            f"no {event.value} is left in the main deck: all {COPIES_PER_VALUE} have been drawn "
            f"{renewal} (check the card, or undo a wrong one)",
            token=event.token,
        )
    return Draw(event.value)


def _play(followed: Followed, event: TypedCard) -> Play:
    """The engine's play for a typed hand card: one of the user's legal plays, or the
    opponent's card checked against what its side deck still holds."""
    state = followed.state
    if state.played:
        placed = state.sides[state.turn].table[-1]
        # (a Tiebreaker is +1T on a table: in a sentence, what was typed)
        shown = f"T as {placed.value:+d}" if placed.placed is Placed.TIEBREAKER else placed
        raise FollowError(
            f"only one hand card may be played in a turn: {_who(state.turn)} played "
            f"{shown} already; type e (end the turn) or s (stand)",
            token=event.token,
        )
    if state.turn == ME:
        hand = state.sides[ME].hand
        card = _held(event, Counter(card for card in hand if card is not None))
        if card is None:
            shown = " ".join(str(c) for c in hand) or "no cards"
            raise FollowError(
                f"you have no {event.card} in hand (your hand: {shown})", token=event.token
            )
        plays = [a for a in state.legal_actions() if isinstance(a, Play) and a.card == card]
    else:
        if not state.sides[OPPONENT].hand:
            raise FollowError(_no_cards_left(followed), token=event.token)
        left = followed.opponent_cards_left()
        card = _held(event, left)
        if card is None:
            name = followed.setup.opp_deck_name
            raise FollowError(
                f"the opponent's side deck ({name}) holds no {event.card} it has not played "
                "already: if its deck is another, start again with --opp-deck",
                token=event.token,
            )
        probe = state._replace(
            sides=(state.sides[ME], state.sides[OPPONENT]._replace(hand=(card,)))
        )
        plays = [a for a in probe.legal_actions() if isinstance(a, Play)]
    for play in plays:
        if event.value is None or play.value == event.value:
            return play
    raise FollowError(f"{card} cannot be played as {event.value:+d}", token=event.token)


def _held(event: TypedCard, cards: Counter[Card]) -> Card | None:
    """The card behind a typed one among ``cards``: itself, else (for a plain ``+3``/``-3``)
    a ±3 played with that sign, else a ±1/2."""
    candidates = [event.card]
    if not event.exact:
        magnitude = event.card.magnitude
        candidates.append(Card(CardKind.PLUS_MINUS, magnitude))
        if magnitude <= 2:
            candidates.append(Card(CardKind.PLUS_MINUS_1_2))
    for candidate in candidates:
        if cards[candidate] > 0:
            return candidate
    return None


def _no_cards_left(followed: Followed) -> str:
    dealt = followed.setup.ruleset.hand_size
    return f"the opponent has played all {dealt} of its hand cards: it has none left to play"


def _who(player: int) -> str:
    return "you" if player == ME else "the opponent"


def _has(player: int) -> str:
    return "have" if player == ME else "has"


def describe_result(followed: Followed) -> str:
    """``you won 3-1`` / ``the opponent won 3-2``, with the ties."""
    state = followed.state
    mine, theirs = state.sets_won()
    ties = state.ties()
    tail = f", {ties} tie{'s' if ties != 1 else ''}" if ties else ""
    winner = state.match_winner()
    if winner is None:
        return f"sets {mine}-{theirs}{tail}"
    return f"{'you' if winner == ME else 'the opponent'} won {mine}-{theirs}{tail}"


# Advice --------------------------------------------------------------------------------------


def question_for(followed: Followed) -> Question:
    """The user's decision as the solver's question: the state before his draw, with the main
    deck as counted since the last shuffle."""
    if not followed.my_decision:
        raise FollowError(
            "there is no decision of yours to advise on now: it comes after your draw"
        )
    return question_from_state(followed.state)


def request_for(
    followed: Followed,
    seconds: float | None,
    objective: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    hand_progress: Progress | None = None,
) -> AnswerRequest:
    """The answer service's request at the user's decision: the opponent model, its side deck
    as the prior of its hidden hand, the cards it played in earlier sets (those of this set are
    on its table), the budget; ``objective`` ``"match"`` (``hint match``) asks for the match
    however long it takes, else the service chooses
    (:func:`~pazaak_cli.solve.answers.choose_objective`)."""
    asked = objective == Objective.MATCH
    return AnswerRequest(
        question_for(followed),
        model=opponent_model(followed.setup.opponent),
        objective=Objective.MATCH if asked else None,
        opponent_deck=followed.setup.opp_deck,
        opponent_played=followed.opponent_earlier_cards(),
        budget=TimeBudget(seconds),
        stand_in=asked,
        asks=follow_asks(followed.setup),
        progress=progress,
        hand_progress=hand_progress,
    )


def follow_asks(setup: FollowSetup) -> Asks:
    """What the user can type at the prompt, as the notes name it, and the ``pazaak prepare``
    command for the opponent's deck (the user's own deck is not known here)."""
    their = sample_word(setup.opp_deck_name, setup.opp_deck, "THEIR-DECK")
    return FOLLOW_ASKS._replace(prepare=prepare_line(setup.ruleset, their, ME, setup.opponent))


def advise_words(followed: Followed) -> list[str]:
    """The ``pazaak advise`` command that asks the question of the user's decision as the
    advice here asks it: the position's notation, the opponent's side deck where its hand is
    hidden (its sample name, else THEIR-DECK: a session keeps a deck's cards, not its file) and
    how it is assumed to play (the position alone took advise's defaults: another deck, an
    optimal opponent, another answer)."""
    setup = followed.setup
    words = ["pazaak", "advise", "--position", format_position(followed.state)]
    if not followed.state.sides[1 - ME].hand_known:
        words += ["--opp-deck", sample_word(setup.opp_deck_name, setup.opp_deck, "THEIR-DECK")]
    if setup.opponent != OPTIMAL.name:
        words += ["--opponent", setup.opponent]
    return words


def ahead_of(followed: Followed) -> tuple[MatchState, int, SolveOptions, str]:
    """What to work ahead on while the user types (:class:`~pazaak_cli.solve.pondering.Ponderer`'s
    ``start``): the match, his seat, and the options and seed of the advice at his next
    decision, as :func:`request_for` will ask it."""
    options = SolveOptions(
        opponent_deck=followed.setup.opp_deck,
        opponent_played=followed.opponent_earlier_cards(),
        opponent=followed.setup.opponent,
    )
    return followed.state, ME, options, DEFAULT_SEED


# Saving ----------------------------------------------------------------------------------------


def to_document(followed: Followed) -> dict[str, Any]:
    """The save document (the envelope is :mod:`pazaak_cli.runtime.savefile`'s): the setup and every
    step, replayed on load and checked against the saved position."""
    setup = followed.setup
    return {
        "kind": DOCUMENT_KIND,
        "finished": followed.state.is_terminal(),
        "ruleset": setup.ruleset.spec,
        "hand": [str(card) for card in setup.hand],
        "opp_deck": {"name": setup.opp_deck_name, "cards": [str(c) for c in setup.opp_deck]},
        "opponent": setup.opponent,
        "steps": [
            ("auto " if step.automatic else "") + format_action(step.action)
            for step in followed.steps
        ],
        "position": format_position(followed.state),
    }


def from_document(document: dict[str, Any]) -> Followed:
    """Rebuild a followed match from :func:`to_document`'s data; :class:`FollowError` naming
    the field at fault."""
    if document.get("kind") != DOCUMENT_KIND:
        raise FollowError(
            "it holds a match of `pazaak play`, not a followed one: resume it with pazaak play"
        )
    reader = DocumentReader(document)
    try:
        ruleset = reader.ruleset()
        hand = reader.cards(reader.get("hand"), "field 'hand'")
        deck = reader.get("opp_deck")
        if not isinstance(deck, dict) or not isinstance(deck.get("name"), str):
            raise SaveFileError("field 'opp_deck' needs a 'name' and 'cards'")
        opp_deck = reader.cards(deck.get("cards"), "field 'opp_deck'")
        reader.deck_fits(opp_deck, ruleset, "field 'opp_deck'")
        opponent = reader.get("opponent")
        if not isinstance(opponent, str):
            raise SaveFileError(f"field 'opponent' is {shown(opponent)}, not a model's name")
        setup = FollowSetup(ruleset, hand, opp_deck, deck["name"], opponent)
        raw = reader.get("steps")
        if not isinstance(raw, list) or not all(isinstance(text, str) for text in raw):
            raise SaveFileError("field 'steps' must be a list of moves")
        steps = []
        for number, text in enumerate(raw, start=1):
            automatic = text.startswith("auto ")
            try:
                steps.append(Step(parse_action(text.removeprefix("auto ")), automatic))
            except PazaakError as error:
                raise SaveFileError(f"step {number}: {error}") from None
    except SaveFileError as error:
        raise FollowError(error.message) from None
    start(setup)  # checks the setup
    try:
        followed = replay(setup, steps)
    except FollowError as error:
        raise FollowError(f"its steps cannot be replayed: {error}") from None
    if document.get("position") != format_position(followed.state):
        raise FollowError("its steps do not lead to its saved position")
    for card, left in followed.opponent_cards_left().items():
        if left < 0:
            raise FollowError(
                f"the opponent plays {card} more often than field 'opp_deck' holds it"
            )
    try:
        reader.check_finished(followed.state, "steps")
    except SaveFileError as error:
        raise FollowError(error.message) from None
    return followed
