"""What the environments share: the fixed action space, the legal-move mask, the observation
of one seat, and the match between decisions.

Actions are whole numbers, the same at every step of a ruleset (docs/rl.md draws the table):

- ``0``: end the turn; ``1``: stand;
- ``2 + 4 * slot + choice``: play the card dealt into hand slot ``slot`` (0 to the hand size
  less one, numbered as dealt: a played card leaves its slot empty, the others keep theirs)
  with the ``choice``-th of its values (:attr:`~pazaak_cli.engine.cards.Card.values`: ``+n``
  and ``-n`` one, ``±n`` two (+n, -n), ``T`` two (+1, -1), ``±1/2`` four (+1, +2, -1, -2), a
  flip one, a Double one: the copy it makes).

The mask says which are legal now, from the engine's own ``legal_actions`` (a forfeit is never
offered). The observation is a vector of what the seat sees (its view, ``observed_by``): never
the other hand's cards nor the order of the main deck.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pazaak_cli.engine.cards import Card, CardKind, all_cards
from pazaak_cli.engine.errors import IllegalActionError
from pazaak_cli.engine.game import (
    END_TURN,
    STAND,
    Action,
    EndTurn,
    MatchState,
    Placed,
    Play,
    Stand,
    deal_hand,
    new_match,
)
from pazaak_cli.engine.rules import Ruleset

CHOICES = 4
"""Values a hand card may take at most (``±1/2``): the action slots of each hand slot."""
END, STAND_ACTION = 0, 1
FIRST_PLAY = 2
CARDS = all_cards()
"""Every side card, in the order the observation's one-hot encodes them (from 1; 0 empty)."""
_CARD_INDEX = {card: number for number, card in enumerate(CARDS, start=1)}
HEADER = 12
"""The observation's first fields (totals, stands, sets, the deck's counts...)."""
BOUND = 100.0
"""Every field of the observation lies in [-BOUND, BOUND]."""


def action_count(ruleset: Ruleset) -> int:
    return FIRST_PLAY + CHOICES * ruleset.hand_size


def observation_size(ruleset: Ruleset) -> int:
    """The header, the deck's ten counts, both tables' values and last-card flags, and a
    one-hot card for each hand slot."""
    return HEADER + 10 + 2 * (ruleset.table_size + 1) + ruleset.hand_size * (len(CARDS) + 1)


def card_choices(card: Card, state: MatchState) -> tuple[int, ...]:
    """The values a card takes when played now (a Double's: the copy it would make)."""
    if card.kind is CardKind.DOUBLE:
        for action in state.legal_actions():
            if isinstance(action, Play) and action.card == card:
                return (action.value,)
    return card.values


@dataclass
class Table:
    """A match between decisions: the engine state, the cards dealt into each hand slot (a
    played card's slot emptied) and the chance stream."""

    state: MatchState
    slots: tuple[list[Card | None], list[Card | None]]
    rng: random.Random
    set_results: list[int | None] = field(default_factory=list)

    @classmethod
    def deal(
        cls, ruleset: Ruleset, decks: tuple[tuple[Card, ...], tuple[Card, ...]], rng: random.Random
    ) -> Table:
        """A new match: both hands dealt from ``rng`` (seat 1's first), as ``pazaak simulate``
        deals them."""
        hands = (deal_hand(decks[0], ruleset, rng), deal_hand(decks[1], ruleset, rng))
        return cls(new_match(ruleset, hands), (list(hands[0]), list(hands[1])), rng)

    def commit(self, action: Action) -> None:
        """One action of the player to act (its slot emptied if it is a play)."""
        state = self.state
        if isinstance(action, Play):
            slots = self.slots[state.turn]
            filled = [number for number, card in enumerate(slots) if card is not None]
            self.state = state.child(action)
            slots[filled[action.index]] = None
        else:
            self.state = state.child(action)
        self._count_sets(state)

    def run_chance(self, until: Callable[[MatchState], bool]) -> None:
        """Chance events (and the moves ``until`` does not stop at) up to the next decision
        ``until`` accepts, or the end of the match."""
        while not self.state.is_terminal():
            state = self.state
            if state.is_chance_node():
                self.state = state.child(state.sample_chance(self.rng))
                self._count_sets(state)
            elif until(state):
                return
            else:
                raise IllegalActionError("a decision nobody takes")

    def _count_sets(self, before: MatchState) -> None:
        if len(self.state.set_winners) > len(before.set_winners):
            self.set_results.append(self.state.set_winners[-1])

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """The legal actions of ``seat`` now (none when it is not to act)."""
        state = self.state
        mask = np.zeros(action_count(state.ruleset), dtype=np.int8)
        if state.is_terminal() or state.is_chance_node() or state.turn != seat:
            return mask
        legal = state.legal_actions()
        mask[END] = 1
        mask[STAND_ACTION] = 1 if STAND in legal else 0
        plays = {(a.card, a.value) for a in legal if isinstance(a, Play)}
        if plays:
            for slot, card in enumerate(self.slots[seat]):
                if card is None:
                    continue
                for choice, value in enumerate(card_choices(card, state)):
                    if (card, value) in plays:
                        mask[FIRST_PLAY + CHOICES * slot + choice] = 1
        return mask

    def action(self, seat: int, number: int) -> Action:
        """The engine action that action ``number`` is for ``seat`` now; raises
        :class:`IllegalActionError` if it is not legal."""
        state = self.state
        if not 0 <= number < action_count(state.ruleset) or not self.mask(seat)[number]:
            raise IllegalActionError(f"action {number} is not legal now")
        if number == END:
            return END_TURN
        if number == STAND_ACTION:
            return STAND
        slot, choice = divmod(number - FIRST_PLAY, CHOICES)
        slots = self.slots[seat]
        card = slots[slot]
        assert card is not None
        index = sum(1 for held in slots[:slot] if held is not None)
        return Play(index, card, card_choices(card, state)[choice])

    def number(self, seat: int, action: Action) -> int:
        """The action number of an engine action of ``seat`` (a player's choice, as a label)."""
        if isinstance(action, EndTurn):
            return END
        if isinstance(action, Stand):
            return STAND_ACTION
        if not isinstance(action, Play):
            raise IllegalActionError(f"{action} has no action number")
        filled = [number for number, card in enumerate(self.slots[seat]) if card is not None]
        slot = filled[action.index]
        return (
            FIRST_PLAY + CHOICES * slot + card_choices(action.card, self.state).index(action.value)
        )

    def observe(self, seat: int) -> npt.NDArray[np.float32]:
        """What ``seat`` sees, as a vector (:func:`observation_size` long)."""
        view = self.state.observed_by(seat)
        rules = view.ruleset
        me, them = view.sides[seat], view.sides[1 - seat]
        won = view.sets_won()
        header = [
            me.total,
            them.total,
            float(me.standing),
            float(them.standing),
            float(view.played and view.turn == seat),
            won[seat],
            won[1 - seat],
            min(view.ties(), 9),
            len(them.hand),
            float(view.opener == seat),
            float(view.turn == seat),
            rules.target,
        ]
        values: list[float] = []
        for number in (seat, 1 - seat):
            side = view.sides[number]
            current = view.current_table_values(number)
            values += [float(v) for v in current] + [0.0] * (rules.table_size - len(current))
            values.append(float(bool(side.table) and side.table[-1].placed is Placed.TIEBREAKER))
        hand = np.zeros((rules.hand_size, len(CARDS) + 1), dtype=np.float32)
        for slot, card in enumerate(self.slots[seat]):
            hand[slot, 0 if card is None else _CARD_INDEX[card]] = 1.0
        head = np.array(header + list(view.draw_counts()) + values, dtype=np.float32)
        vector: npt.NDArray[np.float32] = np.clip(
            np.concatenate([head, hand.ravel()]), -BOUND, BOUND
        )
        return vector


__all__ = [
    "CARDS",
    "CHOICES",
    "END",
    "FIRST_PLAY",
    "STAND_ACTION",
    "Table",
    "action_count",
    "card_choices",
    "observation_size",
]
