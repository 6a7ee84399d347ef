"""Build the position ``pazaak advise`` asks about from what a player sees at the table.

The player types his table (the drawn card last), his hand, the opponent's table and what he
knows of the opponent's hand; this module turns that into a checked
:class:`~pazaak_cli.engine.game.MatchState` *before* the last draw plus the drawn value, so that the
automatic rules after the draw (a stand at 20, the ninth card) are the solver's to apply and an
impossible table is refused with the engine's own reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import NotationError, PazaakError
from pazaak_cli.engine.game import (
    COPIES_PER_VALUE,
    FULL_DECK,
    MatchState,
    Phase,
    Placed,
    Side,
    TableCard,
    table_total,
)
from pazaak_cli.engine.notation import check_position
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.rules import MainDeck, Ruleset


class PositionError(PazaakError):
    """The table described cannot occur under the rules."""


@dataclass(frozen=True)
class Question:
    """A position to advise on: ``state`` is the mover's position just before his last draw
    (phase BEFORE_DRAW), or after a hand card already played this turn (phase AFTER_DRAW with
    ``played``); ``drawn`` is the main-deck card he drew."""

    state: MatchState
    drawn: int


def question_of_draw(state: MatchState, drawn: int) -> Question:
    """The question of a position before its mover's draw (phase BEFORE_DRAW: the ``position``
    that ``--json`` writes beside ``drawn``) and the card then drawn."""
    if state.phase is not Phase.BEFORE_DRAW:
        raise PositionError(
            f"--drawn is for a position before the draw (phase d), not {state.phase.value!r}: "
            "this one already holds its draw"
        )
    finite = state.ruleset.main_deck is not MainDeck.INFINITE
    # (an empty deck is renewed by the draw: any card can come)
    if finite and sum(state.deck) > 0 and state.deck[drawn - 1] == 0:
        raise PositionError(
            f"no {drawn} is left in the main deck of the position: {drawn} cannot be drawn"
        )
    return Question(state, drawn)


def question_from_state(state: MatchState) -> Question:
    """The question for a position already in phase AFTER_DRAW (``--position``, ``hint``)."""
    if state.phase is not Phase.AFTER_DRAW:
        raise PositionError(
            f"the position must be a player's move after his draw (phase a or p), not "
            f"{state.phase.value!r}"
        )
    side = state.sides[state.turn]
    if state.played:
        return Question(state, side.table[-2].value)
    before = side._replace(
        table=side.table[:-1],
        total=table_total(side.table[:-1], state.ruleset.flip_targets),
    )
    deck = list(state.deck)
    drawn = side.table[-1].value
    if state.ruleset.main_deck is not MainDeck.INFINITE:
        deck[drawn - 1] += 1  # (a deck renewed by this draw reads as a full one: the same)
    sides = (before, state.sides[1]) if state.turn == 0 else (state.sides[0], before)
    return Question(state._replace(sides=sides, phase=Phase.BEFORE_DRAW, deck=tuple(deck)), drawn)


def build_question(
    ruleset: Ruleset,
    *,
    table: Sequence[TableCard],
    hand: Sequence[Card],
    opp_table: Sequence[TableCard],
    opp_stood: bool,
    opp_hand: Sequence[Card | None],
    sets: tuple[int, int] = (0, 0),
    seen: Sequence[int] = (),
) -> Question:
    """Check a table as typed and return the question; raise :class:`PositionError` saying
    what cannot be."""
    if max(sets) >= ruleset.sets_to_win or min(sets) < 0:
        raise PositionError(
            f"the sets won are {sets[0]}-{sets[1]}, but the match ends at "
            f"{counted(ruleset.sets_to_win, 'set')} won: each player has won "
            + ("none" if ruleset.sets_to_win == 1 else f"0 to {ruleset.sets_to_win - 1}")
        )
    if not table:
        raise PositionError("your table is empty: give it with the card you just drew last")
    for whose, cards in (("your", table), ("the opponent's", opp_table)):
        if len(cards) > ruleset.table_size:
            raise PositionError(
                f"{whose} table has {len(cards)} cards, more than the "
                f"{ruleset.table_size} cards a table holds"
            )
    if opp_stood and not opp_table:
        raise PositionError(
            "the opponent stands on an empty table, but a player cannot stand before his first "
            "draw: give its table with --opp-table"
        )
    played = table[-1].placed is not Placed.MAIN
    if played and (len(table) < 2 or table[-2].placed is not Placed.MAIN):
        raise PositionError(
            f"your table ends with {table[-1]}, a hand card: the card before it must be the "
            "main-deck card you just drew (one hand card per turn)"
        )
    drawn_at = len(table) - (2 if played else 1)
    drawn = table[drawn_at].value
    before_table = tuple(table[:drawn_at])
    deck = _deck(ruleset, before_table, opp_table, seen, drawn)
    flips = ruleset.flip_targets
    mine = Side(
        tuple(table) if played else before_table,
        table_total(tuple(table) if played else before_table, flips),
        tuple(hand),
        False,
    )
    theirs = Side(
        tuple(opp_table), table_total(tuple(opp_table), flips), tuple(opp_hand), opp_stood
    )
    opp_total = theirs.total
    if opp_total > ruleset.target:
        raise PositionError(
            f"the opponent's total is {opp_total}: over {ruleset.target}, it has busted and "
            "the set is over"
        )
    if opp_total == ruleset.target and not opp_stood:
        raise PositionError(
            f"the opponent's total is {ruleset.target}, so it stands automatically: add --opp-stood"
        )
    earlier = table_total(before_table, flips)
    if earlier >= ruleset.target:
        outcome = "would have stood automatically" if earlier == ruleset.target else "had busted"
        raise PositionError(
            f"your total before the card you just drew ({table[drawn_at]}) was {earlier}: "
            f"you {outcome}, so this turn cannot happen"
        )
    _check_draw_counts(table, opp_table, opp_stood)
    if played and ruleset.main_deck is not MainDeck.INFINITE:
        deck = tuple(d - (1 if i == drawn - 1 else 0) for i, d in enumerate(deck))
    phase = Phase.AFTER_DRAW if played else Phase.BEFORE_DRAW
    error: tuple[NotationError, int] | None = None
    for me in (0, 1):
        for opener in (me, 1 - me):
            for winners in _set_orders(sets, me):
                sides = (mine, theirs) if me == 0 else (theirs, mine)
                state = MatchState(
                    ruleset=ruleset,
                    sides=sides,
                    deck=deck,
                    phase=phase,
                    turn=me,
                    played=played,
                    opener=opener,
                    set_winners=winners,
                    forfeited=None,
                )
                try:
                    check_position(state)
                except NotationError as problem:
                    error = error or (problem, me)
                    continue
                return Question(state, drawn)
    assert error is not None
    raise PositionError(f"impossible position: {_who_is_who(str(error[0]), error[1])}")


def _check_draw_counts(
    table: Sequence[TableCard], opp_table: Sequence[TableCard], opp_stood: bool
) -> None:
    """The main-deck cards of the tables as typed (the one just drawn included) must fit the
    players' turns: while neither stands they draw in turn, so the asker has drawn as many as
    the opponent (who opened) or one more (having opened); once the opponent stands, the asker
    draws on alone. Said in the typed tables' terms: the engine's own check speaks of the
    position before the draw, one card fewer, and of player numbers."""
    mine = sum(1 for card in table if card.placed is Placed.MAIN)
    theirs = sum(1 for card in opp_table if card.placed is Placed.MAIN)
    counts = (
        f"your table shows {counted(mine, 'main-deck card')} (the one you just drew included), "
        f"the opponent's {theirs}"
    )
    if opp_stood and mine < theirs:
        raise PositionError(
            f"{counts}: the players draw in turn, and you draw on once the opponent stands, so "
            "you have drawn at least as many as it did"
        )
    if not opp_stood and mine - theirs not in (0, 1):
        raise PositionError(
            f"{counts}: while neither stands the players draw in turn, so you have drawn as many "
            "as the opponent (it opened the set) or one more (you did)"
        )


def _who_is_who(message: str, me: int) -> str:
    """The engine speaks of player 1 and 2, in the third person; here of you (in seat ``me``
    when the engine refused the position: a seat tried, not one the user gave) and the
    opponent."""
    mine, theirs = (1, 2) if me == 0 else (2, 1)
    for number, who, whose, verbs in (
        (mine, "you", "your", (("has", "have"), ("stands, so he", "stand, so you"))),
        (theirs, "the opponent", "its", (("stands, so he", "stands, so it"),)),
    ):
        message = message.replace(f"player {number}'s", "your" if who == "you" else f"{who}'s")
        for said, meant in verbs:
            message = message.replace(f"player {number} {said}", f"{who} {meant}")
        # ("filled his table", "to move after his draw": his own)
        his_own = rf"(player {number}\b(?:(?!player )[^.:;(])*?) his\b"
        message = re.sub(his_own, rf"\1 {whose}", message)
        message = message.replace(f"player {number}", who)
    return message


def _set_orders(sets: tuple[int, int], me: int) -> list[tuple[int | None, ...]]:
    mine, theirs = sets
    me_won, they_won = (me,) * mine, (1 - me,) * theirs
    orders: list[tuple[int | None, ...]] = [me_won + they_won, they_won + me_won]
    alternating: list[int | None] = []
    for i in range(max(mine, theirs)):
        if i < mine:
            alternating.append(me)
        if i < theirs:
            alternating.append(1 - me)
    orders.append(tuple(alternating))
    return list(dict.fromkeys(orders))


def _deck(
    ruleset: Ruleset,
    my_table: Sequence[TableCard],
    opp_table: Sequence[TableCard],
    seen: Sequence[int],
    drawn: int,
) -> tuple[int, ...]:
    """The main deck before the last draw: a full deck less the main-deck cards on both tables
    (but the drawn one) and the cards seen in earlier sets since the last shuffle."""
    if ruleset.main_deck is MainDeck.INFINITE:
        return FULL_DECK
    counts = list(FULL_DECK)
    gone = [c.value for c in [*my_table, *opp_table] if c.placed is Placed.MAIN]
    if ruleset.main_deck is MainDeck.PER_SET and seen:
        raise PositionError("with a deck per set no card of an earlier set is gone: drop --seen")
    for value in [*gone, *seen]:
        counts[value - 1] -= 1
        if counts[value - 1] < 0:
            raise PositionError(
                f"more than {COPIES_PER_VALUE} cards of value {value} are on the tables or "
                "seen: a deck has four of each (if the deck was renewed in this set, give the "
                "position with --position)"
            )
    if counts[drawn - 1] == 0:
        raise PositionError(f"you drew a {drawn}, but all four are already on the tables or seen")
    return tuple(counts)
