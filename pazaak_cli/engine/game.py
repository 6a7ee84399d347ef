"""The rules engine: immutable match states and the actions between them.

The API follows OpenSpiel's game/state shape. A :class:`MatchState` is either a *chance node*
(who opens the next set; the next main-deck card), a *decision node* (the player to act after
his draw) or *terminal* (the match is over). ``legal_actions()`` lists what may happen,
``chance_outcomes()`` gives the exact probability of each chance action, ``child(action)``
returns the next state and never changes ``self``. Illegal actions raise
:class:`~pazaak_cli.engine.errors.IllegalActionError` with the reason.

Automatic events (a stand at 20, the ninth card, a bust at the end of a turn, judging a set)
happen inside ``child``: a state never waits for an action that has only one possible outcome.
``chance_weights()`` gives the chance actions with whole-number weights (no ``Fraction``) and
``sample_chance(rng)`` draws one; ``observed_by(player)`` is what one seat may see. Around the
state: :func:`new_match`, :func:`deal_hand`, :func:`set_outcome` (why the last set ended),
:func:`standing_winner` and :func:`settle_wager`.

The hot paths (``child``, ``legal_actions``, ``sample_chance``, ``observed_by``) allocate little
beyond the new state: actions and table cards are shared, decision lists are cached per hand;
``benchmarks/bench_engine.py`` measures them.

Players are numbered 0 and 1 (shown to people as player 1 and player 2).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from pazaak_cli.engine.cards import FLIP_TARGETS, Card, CardKind, FastEnum
from pazaak_cli.engine.errors import (
    CardError,
    DeckError,
    HiddenInformationError,
    IllegalActionError,
    WagerError,
)
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import (
    FirstPlayer,
    FlipTargets,
    MainDeck,
    NineCards,
    Ruleset,
    Tiebreaker,
)

MAIN_VALUES = tuple(range(1, 11))
"""The values of the main-deck cards."""
COPIES_PER_VALUE = 4
FULL_DECK = (COPIES_PER_VALUE,) * len(MAIN_VALUES)
"""The composition of a fresh main deck: four of each value 1..10."""
_EMPTY_DECK = (0,) * len(MAIN_VALUES)

CHANCE = -1
"""``current_player()`` at a chance node."""
TERMINAL = -2
"""``current_player()`` once the match is over."""


class Phase(FastEnum):
    """Where a match stands."""

    SET_OVER = "set over"
    """Between sets (and before the first): the next chance action says who opens the set."""
    BEFORE_DRAW = "before draw"
    """The player to move is about to draw a main-deck card (a chance action)."""
    AFTER_DRAW = "after draw"
    """The player to move has drawn and chooses: play a hand card, end the turn or stand."""
    MATCH_OVER = "match over"
    """Terminal."""


class Placed(FastEnum):
    """What kind of card lies on a table."""

    MAIN = "main"
    HAND = "hand"
    TIEBREAKER = "tiebreaker"
    FLIP_2_4 = "flip 2&4"
    FLIP_3_6 = "flip 3&6"
    DOUBLE = "double"


class TableCard(NamedTuple):
    """A card on a table, with the value it had when it was placed.

    Flips change a card's value later; :func:`current_values` replays them. A Double's placed
    value is the copy it took.
    """

    placed: Placed
    value: int

    def __str__(self) -> str:
        if self.placed is Placed.MAIN:
            return str(self.value)
        if self.placed is Placed.HAND:
            return f"{self.value:+d}"
        if self.placed is Placed.TIEBREAKER:
            return f"{self.value:+d}T"
        return {Placed.FLIP_2_4: "F2/4", Placed.FLIP_3_6: "F3/6", Placed.DOUBLE: "D"}[self.placed]


_PLACED_BY_KIND = {
    CardKind.PLUS: Placed.HAND,
    CardKind.MINUS: Placed.HAND,
    CardKind.PLUS_MINUS: Placed.HAND,
    CardKind.PLUS_MINUS_1_2: Placed.HAND,
    CardKind.TIEBREAKER: Placed.TIEBREAKER,
    CardKind.FLIP_2_4: Placed.FLIP_2_4,
    CardKind.FLIP_3_6: Placed.FLIP_3_6,
    CardKind.DOUBLE: Placed.DOUBLE,
}
_FLIP_BY_PLACED = {
    Placed.FLIP_2_4: FLIP_TARGETS[CardKind.FLIP_2_4],
    Placed.FLIP_3_6: FLIP_TARGETS[CardKind.FLIP_3_6],
}


def current_values(table: Sequence[TableCard], flip_targets: FlipTargets) -> list[int]:
    """The value of every card on ``table`` now, after the flips played on it (docs/rules.md §5)."""
    values: list[int] = []
    for card in table:
        magnitudes = _FLIP_BY_PLACED.get(card.placed)
        if magnitudes is not None:
            for i, value in enumerate(values):
                if abs(value) in magnitudes and (
                    value > 0 or flip_targets is FlipTargets.ALL_SIGNS
                ):
                    values[i] = -value
        values.append(card.value)
    return values


def table_total(table: Sequence[TableCard], flip_targets: FlipTargets) -> int:
    if any(card.placed in _FLIP_BY_PLACED for card in table):
        return sum(current_values(table, flip_targets))
    return sum(card.value for card in table)


class Side(NamedTuple):
    """One player's part of the position.

    ``hand`` holds the cards still in hand, in the order dealt; ``None`` stands for a card the
    viewer cannot see. ``total`` is the table's current total (kept with the table so that the
    hot paths do not replay it).
    """

    table: tuple[TableCard, ...]
    total: int
    hand: tuple[Card | None, ...]
    standing: bool

    @property
    def hand_known(self) -> bool:
        return None not in self.hand


# Actions ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance: the next main-deck card has this value."""

    value: int

    def __str__(self) -> str:
        return f"draw {self.value}"


@dataclass(frozen=True, slots=True)
class Open:
    """Chance (or a fixed rule): this player opens the next set."""

    player: int

    def __str__(self) -> str:
        return f"player {self.player + 1} opens"


@dataclass(frozen=True, slots=True)
class Play:
    """Play the hand card at ``index`` (which is ``card``) with the value it takes."""

    index: int
    card: Card
    value: int

    def __str__(self) -> str:
        if self.card.kind in (CardKind.FLIP_2_4, CardKind.FLIP_3_6, CardKind.DOUBLE):
            return f"play {self.card}"
        if len(self.card.values) == 1:
            return f"play {self.card}"
        return f"play {self.card} as {self.value:+d}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn: the player draws again on his next turn (a total over 20 busts now)."""

    def __str__(self) -> str:
        return "end turn"


@dataclass(frozen=True, slots=True)
class Stand:
    """Stand: the total is final for this set."""

    def __str__(self) -> str:
        return "stand"


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Give up the match."""

    def __str__(self) -> str:
        return "forfeit"


END_TURN = EndTurn()
STAND = Stand()
FORFEIT = Forfeit()

_tuple_new = tuple.__new__
"""Builds a NamedTuple without its generated ``__new__`` (a Python-level call): the hot paths
make a state or a side per action."""

_DRAWS = tuple(Draw(value) for value in MAIN_VALUES)
"""``_DRAWS[v - 1]`` is ``Draw(v)``: the hot paths reuse these instead of allocating."""
_OPENS = (Open(0), Open(1))
_MAIN_CARDS = (TableCard(Placed.MAIN, 0), *(TableCard(Placed.MAIN, value) for value in MAIN_VALUES))
"""``_MAIN_CARDS[v]`` is the table card of a drawn ``v`` (index 0 is never used)."""
_WITHOUT_PLAY = (END_TURN, STAND, FORFEIT)
_WITHOUT_PLAY_OVER = (END_TURN, FORFEIT)

Action = Draw | Open | Play | EndTurn | Stand | Forfeit


# The state ---------------------------------------------------------------------------------


class MatchState(NamedTuple):
    """A whole match at one moment. Immutable and hashable; build new ones with :func:`new_match`
    or from a position string (:mod:`pazaak_cli.engine.notation`)."""

    ruleset: Ruleset
    sides: tuple[Side, Side]
    deck: tuple[int, ...]
    """How many cards of each value 1..10 remain in the main deck (always full when infinite).
    A shared deck may be empty (all zeros) between draws: the next draw renews it."""
    phase: Phase
    turn: int
    """The player to draw or to act; in SET_OVER and MATCH_OVER, the last one who acted."""
    played: bool
    """Whether the player to act has played a hand card this turn (one per turn)."""
    opener: int
    """Who opened the current (or last) set."""
    set_winners: tuple[int | None, ...]
    """The winner of each finished set, ``None`` for a tie."""
    forfeited: int | None

    # -- what the OpenSpiel API asks -----------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.phase is Phase.MATCH_OVER

    def is_chance_node(self) -> bool:
        return self.phase is Phase.SET_OVER or self.phase is Phase.BEFORE_DRAW

    def current_player(self) -> int:
        """The player to act, :data:`CHANCE` or :data:`TERMINAL`."""
        if self.phase is Phase.AFTER_DRAW:
            return self.turn
        return TERMINAL if self.phase is Phase.MATCH_OVER else CHANCE

    def legal_actions(self) -> tuple[Action, ...]:
        """Every action allowed now; at a chance node, the chance actions with probability > 0;
        none once the match is over."""
        phase = self.phase
        if phase is Phase.AFTER_DRAW:
            return self._decisions()
        if phase is Phase.BEFORE_DRAW:
            return _draw_actions(self.deck)
        if phase is Phase.SET_OVER:
            return tuple(_OPENS[player] for player in self.possible_openers())
        return ()

    def chance_weights(self) -> tuple[tuple[Action, int], ...]:
        """The chance actions with whole-number weights proportional to their probabilities
        (the count of each value left in the deck): :meth:`chance_outcomes` without fractions,
        for hot loops."""
        if self.phase is Phase.BEFORE_DRAW:
            return tuple(
                (_DRAWS[index], count) for index, count in enumerate(self.draw_counts()) if count
            )
        if self.phase is Phase.SET_OVER:
            return tuple((_OPENS[player], 1) for player in self.possible_openers())
        raise IllegalActionError(f"no chance event happens in phase {self.phase.value!r}")

    def chance_outcomes(self) -> tuple[tuple[Action, Fraction], ...]:
        """The chance actions with their exact probabilities (they sum to 1)."""
        weights = self.chance_weights()
        total = sum(weight for _, weight in weights)
        return tuple((action, Fraction(weight, total)) for action, weight in weights)

    def sample_chance(self, rng: random.Random) -> Action:
        """Draw a chance action with the exact probabilities of :meth:`chance_outcomes`, using
        only ``rng`` (so a seed replays a match)."""
        if self.phase is Phase.BEFORE_DRAW:
            if self.ruleset.main_deck is MainDeck.INFINITE:
                return _DRAWS[rng.randrange(10)]
            counts = self.deck
            if counts == _EMPTY_DECK:
                counts = FULL_DECK
            pick = rng.randrange(sum(counts))
            for index, count in enumerate(counts):
                if pick < count:
                    return _DRAWS[index]
                pick -= count
        if self.phase is Phase.SET_OVER:
            openers = self.possible_openers()
            return _OPENS[openers[rng.randrange(len(openers))] if len(openers) > 1 else openers[0]]
        raise IllegalActionError(f"no chance event happens in phase {self.phase.value!r}")

    def draw_counts(self) -> tuple[int, ...]:
        """The counts the next draw is made from (a fresh deck if the shared one ran out)."""
        return FULL_DECK if self.deck == _EMPTY_DECK else self.deck

    def child(self, action: Action) -> MatchState:
        """The state after ``action``; raises :class:`IllegalActionError` if it is not allowed."""
        if isinstance(action, Draw):
            return self._draw(action.value)
        if isinstance(action, Open):
            return self._open(action.player)
        if self.phase is not Phase.AFTER_DRAW:
            raise IllegalActionError(
                f"{action} is not possible now: the match is in phase {self.phase.value!r}"
            )
        if isinstance(action, Play):
            return self._play(action)
        if isinstance(action, EndTurn):
            return self._turn_over(self.sides[self.turn], self.deck, nine_card_win=False)
        if isinstance(action, Stand):
            side = self.sides[self.turn]
            if side.total > self.ruleset.target:
                raise IllegalActionError(
                    f"cannot stand on {side.total}: it is over {self.ruleset.target}; "
                    "play a card to come back under it or end the turn (and bust)"
                )
            return self._turn_over(
                _tuple_new(Side, (side.table, side.total, side.hand, True)),
                self.deck,
                nine_card_win=False,
            )
        if isinstance(action, Forfeit):
            return _tuple_new(
                MatchState,
                (
                    self.ruleset,
                    self.sides,
                    self.deck,
                    Phase.MATCH_OVER,
                    self.turn,
                    False,
                    self.opener,
                    self.set_winners,
                    self.turn,
                ),
            )
        raise IllegalActionError(f"{action!r} is not an action")

    def returns(self) -> tuple[int, int]:
        """+1 for the winner and -1 for the loser of a finished match, (0, 0) before the end."""
        winner = self.match_winner()
        if winner is None:
            return (0, 0)
        return (1, -1) if winner == 0 else (-1, 1)

    # -- what people and policies ask ------------------------------------------------------

    def sets_won(self) -> tuple[int, int]:
        return (self.set_winners.count(0), self.set_winners.count(1))

    def ties(self) -> int:
        return self.set_winners.count(None)

    def match_winner(self) -> int | None:
        """The winner once the match is over, else ``None``."""
        if self.phase is not Phase.MATCH_OVER:
            return None
        if self.forfeited is not None:
            return 1 - self.forfeited
        won = self.sets_won()
        return 0 if won[0] >= self.ruleset.sets_to_win else 1

    def possible_openers(self) -> tuple[int, ...]:
        """Who may open the next set under the ruleset's first-player rule."""
        rule = self.ruleset.first_player
        if rule is FirstPlayer.RANDOM:
            return (0, 1)
        if not self.set_winners or rule is FirstPlayer.PLAYER1:
            return (0,)
        if rule is FirstPlayer.ALTERNATE:
            return (1 - self.opener,)
        last = self.set_winners[-1]
        return (self.opener,) if last is None else (1 - last,)

    def observed_by(self, player: int) -> MatchState:
        """What ``player`` sees: the same state with the other hand's cards hidden (``None``)."""
        if isinstance(player, bool) or player not in (0, 1):
            raise IllegalActionError(f"there is no seat {player!r}: the seats are 0 and 1")
        other = self.sides[1 - player]
        hidden = _tuple_new(
            Side, (other.table, other.total, (None,) * len(other.hand), other.standing)
        )
        return _tuple_new(
            MatchState,
            (
                self.ruleset,
                (self.sides[0], hidden) if player == 0 else (hidden, self.sides[1]),
                self.deck,
                self.phase,
                self.turn,
                self.played,
                self.opener,
                self.set_winners,
                self.forfeited,
            ),
        )

    def current_table_values(self, player: int) -> list[int]:
        return current_values(self.sides[player].table, self.ruleset.flip_targets)

    # -- transitions ----------------------------------------------------------------------

    def _decisions(self) -> tuple[Action, ...]:
        side = self.sides[self.turn]
        can_stand = side.total <= self.ruleset.target
        if self.played or not side.hand:
            return _WITHOUT_PLAY if can_stand else _WITHOUT_PLAY_OVER
        actions = _decision_actions(side.hand, self._double_value(side), can_stand)
        if actions is None:
            raise HiddenInformationError(
                f"player {self.turn + 1}'s hand is hidden, so the legal plays are unknown"
            )
        return actions

    def _double_value(self, side: Side) -> int:
        """What a Double would copy now: the current value of the last card on the table."""
        if not side.table:
            return 0
        last = side.table[-1]
        if last.placed is Placed.MAIN:
            return last.value
        return current_values(side.table, self.ruleset.flip_targets)[-1]

    def _draw(self, value: int) -> MatchState:
        if self.phase is not Phase.BEFORE_DRAW:
            raise IllegalActionError(f"cannot draw now: the match is in phase {self.phase.value!r}")
        if type(value) is not int:  # (a numpy integer is one; a float or a bool is refused)
            value = _whole(value, "a Draw's value")
        if value not in _VALID_DRAWS:
            raise IllegalActionError(f"{value!r} is not a main-deck card (1..10)")
        deck = self.deck
        if self.ruleset.main_deck is not MainDeck.INFINITE:
            if deck == _EMPTY_DECK:
                deck = FULL_DECK
            left = deck[value - 1]
            if not left:
                raise IllegalActionError(f"no {value} is left in the main deck")
            deck = deck[: value - 1] + (left - 1,) + deck[value:]
        turn = self.turn
        side = self.sides[turn]
        table = side.table + (_MAIN_CARDS[value],)
        total = side.total + value
        drawn = _tuple_new(Side, (table, total, side.hand, False))
        rules = self.ruleset
        if len(table) >= rules.table_size or total == rules.target:
            return self._landed(drawn, deck, played=False)
        # The usual draw: nothing automatic happens, the drawer decides (as _landed would).
        return _tuple_new(
            MatchState,
            (
                rules,
                (drawn, self.sides[1]) if turn == 0 else (self.sides[0], drawn),
                deck,
                Phase.AFTER_DRAW,
                turn,
                False,
                self.opener,
                self.set_winners,
                None,
            ),
        )

    def _play(self, action: Play) -> MatchState:
        if self.played:
            raise IllegalActionError("only one hand card may be played in a turn")
        side = self.sides[self.turn]
        index, card, value = action.index, action.card, action.value
        if type(index) is not int or type(value) is not int:
            # (a numpy integer is taken as the int it is; a float, a bool or a text is refused:
            # a state must hold plain whole numbers, to be written and compared)
            index = _whole(index, "a Play's index")
            value = _whole(value, "a Play's value")
        hand = side.hand
        if index < 0:
            raise IllegalActionError(
                f"there is no hand card at index {index}: a Play's index counts from 0 "
                f"(the hand holds {len(hand)})"
            )
        if index >= len(hand):
            raise IllegalActionError(
                f"there is no hand card number {index + 1}: the hand holds {len(hand)}"
            )
        held = hand[index]
        if held is None:
            raise HiddenInformationError(f"hand card number {index + 1} is hidden")
        if held != card:
            if not isinstance(card, Card):
                raise CardError(
                    f"a Play's card is a Card, not {card!r}: Card.parse({str(card)!r}) makes "
                    "one (or take the Play from legal_actions())",
                    token=str(card),
                )
            raise IllegalActionError(f"hand card number {index + 1} is {held}, not {card}")
        allowed = (self._double_value(side),) if card.kind is CardKind.DOUBLE else card.values
        if value not in allowed:
            choices = " or ".join(f"{v:+d}" for v in allowed)
            raise IllegalActionError(f"{card} can be played as {choices}, not {value:+d}")
        placed = TableCard(_PLACED_BY_KIND[card.kind], value)
        table = side.table + (placed,)
        if placed.placed is Placed.FLIP_2_4 or placed.placed is Placed.FLIP_3_6:
            total = table_total(table, self.ruleset.flip_targets)
        else:
            total = side.total + value
        played = _tuple_new(Side, (table, total, hand[:index] + hand[index + 1 :], False))
        return self._landed(played, self.deck, played=True)

    def _landed(self, side: Side, deck: tuple[int, ...], *, played: bool) -> MatchState:
        """The automatic rules after a card lands on the mover's table (``side`` is his new
        side): the ninth card, a stand at 20; otherwise he chooses what to do next."""
        rules = self.ruleset
        if len(side.table) >= rules.table_size:
            if side.total > rules.target:
                return self._turn_over(side, deck, nine_card_win=False)
            if rules.nine_cards is NineCards.WIN:
                return self._turn_over(side, deck, nine_card_win=True)
            return self._turn_over(
                _tuple_new(Side, (side.table, side.total, side.hand, True)),
                deck,
                nine_card_win=False,
            )
        if side.total == rules.target:
            return self._turn_over(
                _tuple_new(Side, (side.table, side.total, side.hand, True)),
                deck,
                nine_card_win=False,
            )
        return _tuple_new(
            MatchState,
            (
                rules,
                (side, self.sides[1]) if self.turn == 0 else (self.sides[0], side),
                deck,
                Phase.AFTER_DRAW,
                self.turn,
                played,
                self.opener,
                self.set_winners,
                None,
            ),
        )

    def _turn_over(self, side: Side, deck: tuple[int, ...], *, nine_card_win: bool) -> MatchState:
        """The mover's turn ends with ``side``: judge the set, or pass the turn on."""
        mover = self.turn
        them = self.sides[1 - mover]
        sides = (side, them) if mover == 0 else (them, side)
        if side.total > self.ruleset.target:
            return self._finish_set(sides, deck, 1 - mover)
        if nine_card_win:
            return self._finish_set(sides, deck, mover)
        if them.standing:
            if side.standing:
                return self._finish_set(sides, deck, standing_winner(sides, self.ruleset))
            nxt = mover
        else:
            nxt = 1 - mover
        return _tuple_new(
            MatchState,
            (
                self.ruleset,
                sides,
                deck,
                Phase.BEFORE_DRAW,
                nxt,
                False,
                self.opener,
                self.set_winners,
                None,
            ),
        )

    def _finish_set(
        self, sides: tuple[Side, Side], deck: tuple[int, ...], winner: int | None
    ) -> MatchState:
        winners = self.set_winners + (winner,)
        over = winner is not None and winners.count(winner) >= self.ruleset.sets_to_win
        return _tuple_new(
            MatchState,
            (
                self.ruleset,
                sides,
                deck,
                Phase.MATCH_OVER if over else Phase.SET_OVER,
                self.turn,
                False,
                self.opener,
                winners,
                None,
            ),
        )

    def _open(self, player: int) -> MatchState:
        if self.phase is not Phase.SET_OVER:
            raise IllegalActionError(
                f"a set can only be opened between sets, not in phase {self.phase.value!r}"
            )
        if type(player) is not int:
            player = _whole(player, "an Open's player")
        if player not in (0, 1):
            raise IllegalActionError(f"there is no seat {player}: the seats are 0 and 1")
        if player not in self.possible_openers():
            raise IllegalActionError(
                f"player {player + 1} cannot open this set under the "
                f"{self.ruleset.first_player.value!r} first-player rule"
            )
        deck = self.deck if self.ruleset.main_deck is MainDeck.SHARED else FULL_DECK
        first, second = self.sides
        return _tuple_new(
            MatchState,
            (
                self.ruleset,
                (
                    _tuple_new(Side, ((), 0, first.hand, False)),
                    _tuple_new(Side, ((), 0, second.hand, False)),
                ),
                deck,
                Phase.BEFORE_DRAW,
                player,
                False,
                player,
                self.set_winners,
                None,
            ),
        )


_VALID_DRAWS = frozenset(MAIN_VALUES)


def _whole(number: object, what: str) -> int:
    """``number`` as a plain ``int`` (a numpy integer is one); an :class:`IllegalActionError`
    naming ``what`` for anything else: a float (``1.0``), a bool, a text. A state holds plain
    whole numbers only: a float on a table could not be written in the notation, a numpy
    integer not as JSON."""
    if not isinstance(number, bool):
        try:
            return operator.index(number)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise IllegalActionError(f"{what} is a whole number, not {number!r}")


@lru_cache(maxsize=64)
def _draw_actions(deck: tuple[int, ...]) -> tuple[Action, ...]:
    """The draws a deck allows (every value once the shared deck has run out)."""
    counts = FULL_DECK if deck == _EMPTY_DECK else deck
    return tuple(_DRAWS[index] for index, count in enumerate(counts) if count)


@lru_cache(maxsize=16384)
def _decision_actions(
    hand: tuple[Card | None, ...], double_value: int, can_stand: bool
) -> tuple[Action, ...] | None:
    """The decisions of a player who has drawn and not yet played (``None``: hand hidden).

    Equal cards give one action (the first of them), so a policy sees each choice once."""
    actions: list[Action] = []
    seen: set[tuple[Card, int]] = set()
    for index, card in enumerate(hand):
        if card is None:
            return None
        values = (double_value,) if card.kind is CardKind.DOUBLE else card.values
        for value in values:
            if (card, value) not in seen:
                seen.add((card, value))
                actions.append(Play(index, card, value))
    actions.extend(_WITHOUT_PLAY if can_stand else _WITHOUT_PLAY_OVER)
    return tuple(actions)


def standing_winner(sides: tuple[Side, Side], ruleset: Ruleset) -> int | None:
    """The winner of a set in which both players stand: the higher total; on equal totals a
    Tiebreaker decides (docs/rules.md §5); ``None`` for a tie."""
    first, second = sides[0].total, sides[1].total
    if first != second:
        return 0 if first > second else 1
    breaks = (_has_tiebreaker(sides[0], ruleset), _has_tiebreaker(sides[1], ruleset))
    if breaks[0] != breaks[1]:
        return 0 if breaks[0] else 1
    return None


def _has_tiebreaker(side: Side, ruleset: Ruleset) -> bool:
    if not side.table:
        return False
    if ruleset.tiebreaker is Tiebreaker.LAST_CARD:
        return side.table[-1].placed is Placed.TIEBREAKER
    return any(card.placed is Placed.TIEBREAKER for card in side.table)


def new_match(ruleset: Ruleset, hands: tuple[Sequence[Card], Sequence[Card]]) -> MatchState:
    """A match before its first set, with the two hands already dealt (:func:`deal_hand`).

    Each hand holds from 0 to the ruleset's ``hand_size`` cards, a hidden one ``None``. A hand
    of fewer cards is a position to analyse, as one whose other cards were played in earlier
    sets; an empty hand plays on with draws only (its player may only end the turn, stand or
    forfeit), as docs/rules.md §2 has a player whose hand cards are all played. More cards than
    the ruleset deals raise :class:`IllegalActionError`, as does a card outside its pool."""
    if len(hands) != 2:
        raise IllegalActionError(f"a match needs two hands, not {counted(len(hands), 'hand')}")
    for player, hand in enumerate(hands):
        for card in hand:
            if card is not None and not isinstance(card, Card):
                raise CardError(
                    f"player {player + 1}'s hand holds {card!r}, not a card: parse_cards"
                    "('+1 -2') makes cards of text",
                    token=str(card),
                )
        if len(hand) > ruleset.hand_size:
            raise IllegalActionError(
                f"player {player + 1}'s hand holds {counted(len(hand), 'card')}; "
                f"the ruleset deals {ruleset.hand_size} (deal_hand(side_deck, ruleset, rng) deals "
                "a hand from a side deck)"
            )
        for card in hand:
            if card is not None and not ruleset.allows(card):
                raise IllegalActionError(
                    f"player {player + 1}'s hand card {card} is not in the {ruleset.name} card pool"
                )
    sides = (Side((), 0, tuple(hands[0]), False), Side((), 0, tuple(hands[1]), False))
    return MatchState(
        ruleset=ruleset,
        sides=sides,
        deck=FULL_DECK,
        phase=Phase.SET_OVER,
        turn=0,
        played=False,
        opener=0,
        set_winners=(),
        forfeited=None,
    )


def require_decision(view: MatchState) -> None:
    """Refuse a state a player cannot choose in: one that is not a decision (a chance node, the
    match over), or one whose seat to act has its own hand hidden (another seat's view). Every
    player of the roster checks it first: a state the loop around it did not mean to give gets
    this sentence, not a move that means nothing there."""
    if view.phase is not Phase.AFTER_DRAW:
        then = (
            "the match is over"
            if view.phase is Phase.MATCH_OVER
            else "apply chance actions (sample_chance) until current_player() is a seat"
        )
        raise IllegalActionError(
            "a player chooses at a decision (phase 'after draw', the seat to act having drawn), "
            f"not in phase {view.phase.value!r}: {then}"
        )
    if None in view.sides[view.turn].hand:
        raise HiddenInformationError(
            f"player {view.turn + 1} is to act, but its hand is hidden in this view: a player "
            "chooses from its own seat's view, state.observed_by(state.turn)"
        )


def deal_hand(side_deck: Sequence[Card], ruleset: Ruleset, rng: random.Random) -> tuple[Card, ...]:
    """Draw the match hand: ``hand_size`` distinct positions of the side deck, at random. The
    deck must be cards the ruleset allows (a deck's name or text is not one: ``sample_deck``,
    ``load_deck`` and ``parse_cards`` make one)."""
    if isinstance(side_deck, str):
        raise DeckError(
            f"deal_hand takes a side deck's cards, not the text {side_deck!r}: sample_deck(name)"
            ".cards or parse_cards(text) makes them",
            token=side_deck,
        )
    for card in side_deck:
        if not isinstance(card, Card):
            raise CardError(f"the side deck holds {card!r}, not a card", token=str(card))
    misfit = ruleset.deck_misfit(side_deck, sized=False)
    if misfit is not None:
        raise DeckError(f"the side deck {misfit}")
    if len(side_deck) < ruleset.hand_size:
        raise IllegalActionError(
            f"a side deck of {len(side_deck)} cards cannot deal a hand of {ruleset.hand_size}"
        )
    return tuple(side_deck[i] for i in rng.sample(range(len(side_deck)), ruleset.hand_size))


def settle_wager(state: MatchState, wager: int) -> tuple[int, int]:
    """The credits each player gains (positive) or loses (negative) once the match is over:
    the winner gains the wager and the loser loses it, not doubled (docs/rules.md §4); a player who
    forfeits loses it too. A wager of 0 (no wager) is allowed."""
    if isinstance(wager, bool) or not isinstance(wager, int) or wager < 0:
        raise WagerError(f"a wager is a whole number of credits, 0 or more, not {wager!r}")
    winner = state.match_winner()
    if winner is None:
        raise WagerError("the match is not over, so its wager cannot be settled yet")
    return (wager, -wager) if winner == 0 else (-wager, wager)


def set_outcome(state: MatchState) -> SetOutcome | None:
    """Why the last set ended, read off the tables (in SET_OVER and MATCH_OVER only)."""
    if state.phase not in (Phase.SET_OVER, Phase.MATCH_OVER):
        return None
    if state.forfeited is not None:
        return SetOutcome(1 - state.forfeited, "forfeit")
    if not state.set_winners:
        return None
    winner = state.set_winners[-1]
    rules = state.ruleset
    totals = (state.sides[0].total, state.sides[1].total)
    if winner is None:
        return SetOutcome(None, "tie")
    loser = 1 - winner
    if totals[loser] > rules.target:
        return SetOutcome(winner, "bust")
    if len(state.sides[winner].table) >= rules.table_size and rules.nine_cards is NineCards.WIN:
        return SetOutcome(winner, "nine cards")
    if totals[0] == totals[1]:
        return SetOutcome(winner, "tiebreaker")
    return SetOutcome(winner, "higher total")


class SetOutcome(NamedTuple):
    """The winner of a set (``None`` for a tie) and the reason: ``bust``, ``nine cards``,
    ``higher total``, ``tiebreaker``, ``tie`` or ``forfeit``."""

    winner: int | None
    reason: str
