"""The position notation: one line of text that holds a whole match position, like chess's FEN.

Ten fields separated by single spaces::

    kotor1 7,+3,5 10 +1,-2,±3 ?,?,? -- 1=2 2322312121 a1 1

1. ruleset: a preset name with optional overrides (``kotor2/main-deck=infinite``);
2. player 1's table and 3. player 2's table, in the order the cards were placed: main-deck cards
   ``1``..``10``, hand cards as the signed value they were played with (``+3``, ``-2``),
   tiebreakers ``+1T``/``-1T``, ``F2/4``, ``F3/6``, ``D``; ``-`` for an empty table;
4. player 1's hand and 5. player 2's hand: cards still in hand, ``?`` for a hidden one, ``-`` if
   empty;
6. stand flags: ``S`` or ``-`` for each player (``S-``: player 1 stands);
7. finished sets: one character each, ``1`` or ``2`` for the winner and ``=`` for a tie
   (``-`` before the first set ends);
8. the main deck: how many of each value 1..10 remain, ten digits (``4444444444`` is full; a
   shared deck reads ``0000000000`` once it has run out, until the next draw renews it; an
   infinite deck always reads ``4444444444``);
9. the phase and the player: ``d`` (about to draw), ``a`` (has drawn, may play a hand card),
   ``p`` (has drawn and played), ``o`` (set over), ``x`` (match over) or ``f`` (forfeited),
   followed by the player's number;
10. who opened the current set (``1`` or ``2``).

:func:`format_position` and :func:`parse_position` round-trip exactly; :func:`parse_position`
also rejects positions that the rules cannot produce (:func:`check_position`): impossible cards or
card orders on a table, more hand cards than were dealt, totals the rules would already have
acted on, more cards of a value than the deck holds, the wrong player to move for the cards
drawn, an opener the first-player rule forbids, or a last set whose result the tables contradict.
"""

from __future__ import annotations

from pazaak_cli.engine.cards import MAX_MAGNITUDE, Card, CardKind
from pazaak_cli.engine.errors import CardError, NotationError, NotationSyntaxError, PazaakError
from pazaak_cli.engine.game import (
    COPIES_PER_VALUE,
    FULL_DECK,
    MatchState,
    Phase,
    Placed,
    Side,
    TableCard,
    current_values,
    standing_winner,
    table_total,
)
from pazaak_cli.engine.numbers import counted, parse_in_range, parse_signed, parse_whole
from pazaak_cli.engine.rules import (
    FirstPlayer,
    FlipTargets,
    MainDeck,
    NineCards,
    Ruleset,
    parse_ruleset,
)

FIELDS = 10
_PHASE_LETTER = {
    Phase.BEFORE_DRAW: "d",
    Phase.AFTER_DRAW: "a",
    Phase.SET_OVER: "o",
    Phase.MATCH_OVER: "x",
}


def format_position(state: MatchState) -> str:
    """Write ``state`` as one line."""
    tables = [_format_list([str(card) for card in side.table]) for side in state.sides]
    hands = [
        _format_list(["?" if card is None else str(card) for card in side.hand])
        for side in state.sides
    ]
    stands = "".join("S" if side.standing else "-" for side in state.sides)
    sets = "".join("=" if w is None else str(w + 1) for w in state.set_winners) or "-"
    deck = "".join(str(count) for count in state.deck)
    if state.forfeited is not None:
        letter = "f"
    elif state.phase is Phase.AFTER_DRAW and state.played:
        letter = "p"
    else:
        letter = _PHASE_LETTER[state.phase]
    fields = [state.ruleset.spec, *tables, *hands, stands, sets, deck]
    return " ".join([*fields, f"{letter}{state.turn + 1}", str(state.opener + 1)])


def _format_list(tokens: list[str]) -> str:
    return ",".join(tokens) if tokens else "-"


def parse_position(text: str) -> MatchState:
    """Read a position; raise :class:`NotationSyntaxError` where it cannot be read, or
    :class:`NotationError` where it is impossible, naming the field and token at fault."""
    fields = text.split()
    if len(fields) != FIELDS:
        shown = " ".join(fields)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise NotationSyntaxError(
            f"a position has {FIELDS} fields separated by spaces, this one has {len(fields)}: "
            f"{shown!r} (docs/notation.md; e.g. 'kotor1 - - +1,-2,±3,+4 ?,?,?,? -- - 4444444444 "
            "d1 1' before the first draw)",
            token=text,
        )
    try:
        ruleset = parse_ruleset(fields[0])
    except PazaakError as error:
        raise NotationSyntaxError(f"field 1 (ruleset): {error}", token=fields[0]) from None
    tables = tuple(
        parse_table(
            fields[1 + i], ruleset.flip_targets, where=f"field {2 + i} (player {i + 1}'s table)"
        )
        for i in range(2)
    )
    hands = tuple(_parse_hand(fields[3 + i], i) for i in range(2))
    standing = _parse_stands(fields[5])
    winners = _parse_sets(fields[6])
    deck = _parse_deck(fields[7])
    phase, turn, played, forfeited = _parse_turn(fields[8])
    if fields[9] not in ("1", "2"):
        raise NotationSyntaxError(
            f"field 10 (opener): {fields[9]!r} is not 1 or 2", token=fields[9]
        )
    sides = tuple(
        Side(tables[i], table_total(tables[i], ruleset.flip_targets), hands[i], standing[i])
        for i in range(2)
    )
    state = MatchState(
        ruleset=ruleset,
        sides=(sides[0], sides[1]),
        deck=deck,
        phase=phase,
        turn=turn,
        played=played,
        opener=int(fields[9]) - 1,
        set_winners=winners,
        forfeited=forfeited,
    )
    check_position(state)
    return state


def parse_table(
    text: str, flip_targets: FlipTargets, *, where: str = "table"
) -> tuple[TableCard, ...]:
    """Read a table (cards in the order placed) written as in the notation; ``-`` or an empty
    string is an empty table. Cards may be separated by commas or spaces."""
    if text.strip() in ("", "-"):
        return ()
    table: list[TableCard] = []
    for token in text.replace(",", " ").split():
        table.append(_parse_table_card(token, table, flip_targets, where))
    return tuple(table)


def _parse_table_card(
    token: str, before: list[TableCard], flip_targets: FlipTargets, where: str
) -> TableCard:
    raw = token.strip().replace("−", "-").upper()
    main = parse_in_range(raw, 1, 10)
    if main is not None:
        return TableCard(Placed.MAIN, main)
    if raw in ("F2/4", "F1"):
        return TableCard(Placed.FLIP_2_4, 0)
    if raw in ("F3/6", "F2"):
        return TableCard(Placed.FLIP_3_6, 0)
    if raw in ("D", "$$"):
        if not before:
            raise NotationError(
                f"{where}: 'D' cannot be the first card: it copies the card before it",
                token=token,
            )
        return TableCard(Placed.DOUBLE, current_values(before, flip_targets)[-1])
    if raw in ("+1T", "-1T"):
        return TableCard(Placed.TIEBREAKER, 1 if raw[0] == "+" else -1)
    signed = parse_signed(raw, max_digits=2)
    if signed is not None and 1 <= abs(signed) <= MAX_MAGNITUDE:
        return TableCard(Placed.HAND, signed)
    total = parse_whole(raw)
    if total is not None and total > 10:  # (a total typed for the cards that made it)
        raise NotationSyntaxError(
            f"{where}: {token!r} is not a table card: main-deck cards are 1 to 10, and a table "
            "is given card by card in the order placed, not as its total",
            token=token,
        )
    raise NotationSyntaxError(
        f"{where}: {token!r} is not a table card; write main-deck cards as 1..10, played hand "
        "cards as their signed value (+3, -2), tiebreakers as +1T/-1T, and F2/4, F3/6, D",
        token=token,
    )


def _parse_hand(text: str, player: int) -> tuple[Card | None, ...]:
    if text == "-":
        return ()
    cards: list[Card | None] = []
    for token in text.split(","):
        if token == "?":
            cards.append(None)
            continue
        try:
            cards.append(Card.parse(token))
        except CardError as error:
            raise NotationSyntaxError(
                f"field {4 + player} (player {player + 1}'s hand): {error}", token=token
            ) from None
    return tuple(cards)


def _parse_stands(text: str) -> tuple[bool, bool]:
    if len(text) != 2 or any(ch not in "S-" for ch in text):
        raise NotationSyntaxError(
            f"field 6 (stand flags): {text!r} must be two characters, S or -", token=text
        )
    return (text[0] == "S", text[1] == "S")


def _parse_sets(text: str) -> tuple[int | None, ...]:
    if text == "-":
        return ()
    if any(ch not in "12=" for ch in text):
        raise NotationSyntaxError(
            f"field 7 (finished sets): {text!r} must be '-' or a string of 1, 2 and =", token=text
        )
    return tuple(None if ch == "=" else int(ch) - 1 for ch in text)


def _parse_deck(text: str) -> tuple[int, ...]:
    counts = [parse_in_range(ch, 0, COPIES_PER_VALUE) for ch in text[:11]]
    if len(counts) != 10 or None in counts:
        raise NotationSyntaxError(
            f"field 8 (main deck): {text!r} must be ten digits 0..4, the count of each value "
            "1..10 left in the deck",
            token=text,
        )
    return tuple(count for count in counts if count is not None)


def _parse_turn(text: str) -> tuple[Phase, int, bool, int | None]:
    letters = {
        "d": Phase.BEFORE_DRAW,
        "a": Phase.AFTER_DRAW,
        "p": Phase.AFTER_DRAW,
        "o": Phase.SET_OVER,
        "x": Phase.MATCH_OVER,
        "f": Phase.MATCH_OVER,
    }
    if len(text) != 2 or text[0] not in letters or text[1] not in "12":
        raise NotationSyntaxError(
            f"field 9 (phase): {text!r} must be one of d, a, p, o, x, f followed by 1 or 2",
            token=text,
        )
    player = int(text[1]) - 1
    return letters[text[0]], player, text[0] == "p", player if text[0] == "f" else None


def check_position(state: MatchState) -> None:
    """Raise :class:`NotationError` if the rules cannot produce ``state``; say why."""
    rules = state.ruleset
    _check_fields(state)
    _check_sets(state)
    _check_opener(state)
    for player, side in enumerate(state.sides):
        _check_table(rules, side, f"player {player + 1}")
        _check_side(state, rules, side, f"player {player + 1}", player)
    _check_deck(state)
    if state.phase is Phase.BEFORE_DRAW and state.sides[state.turn].standing:
        raise NotationError(f"player {state.turn + 1} stands, so he cannot be about to draw")
    if _in_play(state) and all(side.standing for side in state.sides):
        raise NotationError("both players stand, so the set is already over")
    if _acting(state) is not None:
        _check_acting(state, rules)
    _check_draw_order(state)
    if _set_ended(state):
        _check_last_set(state, rules)


def _in_play(state: MatchState) -> bool:
    """Whether a set is being played (a forfeit stops the match in the middle of a set)."""
    return state.phase in (Phase.BEFORE_DRAW, Phase.AFTER_DRAW) or state.forfeited is not None


def _acting(state: MatchState) -> int | None:
    """The player who has drawn and is (or was, when he forfeited) choosing what to do."""
    if state.phase is Phase.AFTER_DRAW or state.forfeited is not None:
        return state.turn
    return None


def _set_ended(state: MatchState) -> bool:
    """Whether the tables show a set that has just been decided."""
    return (
        state.phase in (Phase.SET_OVER, Phase.MATCH_OVER)
        and state.forfeited is None
        and bool(state.set_winners)
    )


def _check_fields(state: MatchState) -> None:
    if state.turn not in (0, 1) or state.opener not in (0, 1):
        raise NotationError("the player to move and the opener are player 1 or player 2")
    if state.played and state.phase is not Phase.AFTER_DRAW:
        raise NotationError("a hand card can only have been played after a draw (phase a or p)")
    if state.forfeited is not None and (
        state.phase is not Phase.MATCH_OVER or state.forfeited != state.turn
    ):
        raise NotationError("a forfeit ends the match, and it is the forfeiting player's move")
    if state.phase is Phase.SET_OVER and not state.set_winners:
        if state.turn != 0 or state.opener != 0:
            raise NotationError("before the first set the position is 'o1' with opener 1")
        if any(side.table or side.standing for side in state.sides):
            raise NotationError("no set has been played, so the tables must be empty")
        if state.deck != FULL_DECK:
            raise NotationError("no set has been played, so the main deck must be full")


def _check_sets(state: MatchState) -> None:
    rules = state.ruleset
    won = state.sets_won()
    needed = rules.sets_to_win
    finished = state.phase is Phase.MATCH_OVER and state.forfeited is None
    for player, count in enumerate(won):
        if count > needed or (count == needed and not finished):
            raise NotationError(
                f"player {player + 1} has won {count} sets: the match ends at {needed}"
            )
        last = state.set_winners[-1] if state.set_winners else None
        if count == needed and last != player:
            raise NotationError(f"the match ended when player {player + 1} won set {needed}")
    if finished and max(won) < needed:
        raise NotationError(f"the match is over but nobody has won {needed} sets")


def _check_opener(state: MatchState) -> None:
    rule = state.ruleset.first_player
    current = len(state.set_winners) if _in_play(state) else len(state.set_winners) - 1
    if current < 0 or rule is FirstPlayer.RANDOM:
        return
    expected = 0
    if rule is FirstPlayer.ALTERNATE:
        expected = current % 2
    elif rule is FirstPlayer.LOSER:
        for winner in state.set_winners[:current]:
            expected = expected if winner is None else 1 - winner
    if state.opener != expected:
        raise NotationError(
            f"player {state.opener + 1} cannot have opened set {current + 1}: under the "
            f"{rule.value!r} first-player rule player {expected + 1} opens it"
        )


_GOLD_CARD = {
    Placed.TIEBREAKER: Card(CardKind.TIEBREAKER),
    Placed.FLIP_2_4: Card(CardKind.FLIP_2_4),
    Placed.FLIP_3_6: Card(CardKind.FLIP_3_6),
    Placed.DOUBLE: Card(CardKind.DOUBLE),
}


def gold_cards(table: tuple[TableCard, ...]) -> tuple[Card, ...]:
    """The KOTOR II hand cards a table shows played (a ruleset without them cannot hold it)."""
    return tuple(_GOLD_CARD[card.placed] for card in table if card.placed in _GOLD_CARD)


def _check_table(rules: Ruleset, side: Side, name: str) -> None:
    """The cards of one table: what each can be worth, and the order they can land in."""
    table = side.table
    if len(table) > rules.table_size:
        raise NotationError(
            f"{name}'s table holds {counted(len(table), 'card')}; a table holds {rules.table_size}"
        )
    if table and table[0].placed is not Placed.MAIN:
        raise NotationError(f"{name}'s table must start with a main-deck card (every turn draws)")
    for position, card in enumerate(table):
        gold = _GOLD_CARD.get(card.placed)
        if gold is not None and not rules.allows(gold):
            raise NotationError(f"{name}'s table holds {card}, which {rules.name} does not have")
        if position and card.placed is not Placed.MAIN:
            before = table[position - 1]
            if before.placed is not Placed.MAIN:
                raise NotationError(
                    f"{name}'s table has {card} right after {before}: a hand card is played "
                    "after a draw, one per turn"
                )
        if not _value_fits(table, position, rules.flip_targets):
            raise NotationError(f"{name}'s table card {position + 1} ({card}) cannot be worth that")
    total = table_total(table, rules.flip_targets)
    if side.total != total:
        raise NotationError(f"{name}'s total is {side.total}, but his table adds up to {total}")


def _value_fits(table: tuple[TableCard, ...], position: int, flip_targets: FlipTargets) -> bool:
    card = table[position]
    if card.placed is Placed.MAIN:
        return 1 <= card.value <= 10
    if card.placed is Placed.HAND:
        return 1 <= abs(card.value) <= MAX_MAGNITUDE
    if card.placed is Placed.TIEBREAKER:
        return card.value in (1, -1)
    if card.placed is Placed.DOUBLE:
        return card.value == current_values(table[:position], flip_targets)[-1]
    return card.value == 0


def _check_side(state: MatchState, rules: Ruleset, side: Side, name: str, player: int) -> None:
    played = sum(1 for card in side.table if card.placed is not Placed.MAIN)
    if len(side.hand) + played > rules.hand_size:
        raise NotationError(
            f"{name} has {len(side.hand)} cards in hand and played {played} this set: "
            f"more than the {rules.hand_size} dealt"
        )
    for card in side.hand:
        if card is not None and not rules.allows(card):
            raise NotationError(f"{name}'s hand card {card} is not in the {rules.name} card pool")
    over = side.total > rules.target
    if side.standing and not side.table:
        raise NotationError(
            f"{name} stands on an empty table, but a player cannot stand before his first draw"
        )
    if side.standing and over:
        raise NotationError(f"{name} stands on {side.total}, over {rules.target}")
    if not _in_play(state) or _acting(state) == player:
        return
    if over:
        raise NotationError(
            f"{name}'s total is {side.total}: over {rules.target}, the set would be over"
        )
    if side.total == rules.target and not side.standing:
        raise NotationError(
            f"{name}'s total is {rules.target}, so he stands automatically: mark him S"
        )
    if len(side.table) >= rules.table_size:
        if rules.nine_cards is NineCards.WIN:
            raise NotationError(f"{name} has a full table, so he has already won the set")
        if not side.standing:
            raise NotationError(f"{name} has a full table, so he stands automatically: mark him S")


def _check_acting(state: MatchState, rules: Ruleset) -> None:
    """The player who has drawn (phase a or p, or who forfeited after his draw)."""
    side = state.sides[state.turn]
    name = f"player {state.turn + 1}"
    if side.standing:
        raise NotationError(f"{name} stands, so it cannot be his move")
    if not side.table:
        raise NotationError(f"{name} is to move after his draw, but his table is empty")
    if state.phase is Phase.AFTER_DRAW:
        if state.played and side.table[-1].placed is Placed.MAIN:
            raise NotationError(f"{name} has played a hand card, so his last card must be one")
        if not state.played and side.table[-1].placed is not Placed.MAIN:
            raise NotationError(f"{name} has just drawn, so his last card must be a main-deck card")
    if side.total == rules.target:
        raise NotationError(f"{name}'s total is {rules.target}: he would stand automatically")
    if len(side.table) >= rules.table_size:
        raise NotationError(f"{name}'s table is full: his turn would be over")


def _check_draw_order(state: MatchState) -> None:
    """The players draw in turn, the opener first, and a standing player draws no more: the
    numbers of main-deck cards on the tables must fit whose turn it is."""
    if not (_in_play(state) or _set_ended(state)):
        return
    opener = state.opener
    mains = [sum(1 for card in side.table if card.placed is Placed.MAIN) for side in state.sides]
    first, second = mains[opener], mains[1 - opener]
    mover = state.turn
    if state.phase is Phase.BEFORE_DRAW:
        if state.sides[opener].standing:
            fits = second >= first - 1
        elif state.sides[1 - opener].standing:
            fits = first >= second
        else:
            fits = first - second == (0 if mover == opener else 1)
    else:
        # The mover has just drawn (or ended the set with his last turn); his own stand flag
        # may have been set by that turn, the other's was already as shown.
        if not state.sides[1 - mover].standing:
            fits = first - second == (1 if mover == opener else 0)
        elif mover == opener:
            fits = first >= second + 1
        else:
            fits = second >= first
    if not fits:
        if _set_ended(state):
            when = f"the set ending on player {mover + 1}'s turn"
        elif state.phase is Phase.BEFORE_DRAW:
            when = f"player {mover + 1} to draw"
        else:
            when = f"player {mover + 1} to move after his draw"
        raise NotationError(
            f"the main-deck cards on the tables ({first} for player {opener + 1}, who opened the "
            f"set, {second} for player {2 - opener}) do not fit {when}: the players draw in "
            "turn, the opener first, and a standing player draws no more"
        )


def _check_last_set(state: MatchState, rules: Ruleset) -> None:
    """The tables of a set just decided must show why it ended, and who won it."""
    mover = state.turn
    me, them = state.sides[mover], state.sides[1 - mover]
    other_name = f"player {2 - mover}"
    if them.total > rules.target:
        raise NotationError(
            f"{other_name}'s total {them.total} is over {rules.target}, but the set ended on "
            f"player {mover + 1}'s turn"
        )
    if len(them.table) >= rules.table_size and (
        rules.nine_cards is NineCards.WIN or not them.standing
    ):
        raise NotationError(f"{other_name}'s full table would have ended his own turn")
    if me.total > rules.target:
        winner: int | None = 1 - mover
        why = f"player {mover + 1} went over {rules.target}"
    elif rules.nine_cards is NineCards.WIN and len(me.table) >= rules.table_size:
        winner = mover
        why = f"player {mover + 1} filled his table"
    elif me.standing and them.standing:
        winner = standing_winner(state.sides, rules)
        why = "both stand"
    else:
        raise NotationError(
            f"the set is over, but player {mover + 1} neither went over {rules.target}, "
            "nor filled his table, and the players do not both stand"
        )
    if state.set_winners[-1] != winner:
        shown = "a tie" if winner is None else f"won by player {winner + 1}"
        raise NotationError(f"the last set must be {shown} ({why}), as the tables show")


def _check_deck(state: MatchState) -> None:
    rules = state.ruleset
    if rules.main_deck is MainDeck.INFINITE:
        if state.deck != FULL_DECK:
            raise NotationError("the deck is infinite, so its field must be 4444444444")
        return
    on_tables = [0] * 10
    for side in state.sides:
        for card in side.table:
            if card.placed is Placed.MAIN:
                on_tables[card.value - 1] += 1
    if rules.main_deck is MainDeck.PER_SET:
        if any(state.deck[v] + on_tables[v] != COPIES_PER_VALUE for v in range(10)):
            raise NotationError(
                "with a deck per set, the deck must be a full deck less the cards on the tables"
            )
        return
    untouched = all(state.deck[v] + on_tables[v] <= COPIES_PER_VALUE for v in range(10))
    # (renewed mid-set: a deck that runs out reads 0000000000 until the next draw, so a renewed
    # deck has given at least that card, and a full one cannot stand beside drawn cards)
    renewed = state.deck != FULL_DECK and all(
        COPIES_PER_VALUE - state.deck[v] <= on_tables[v] for v in range(10)
    )
    if state.deck == FULL_DECK and not untouched:
        drawn = sum(on_tables)
        raise NotationError(
            f"the deck is full while the tables hold {drawn} card{'s' if drawn != 1 else ''} "
            "drawn from it (a deck that runs out reads 0000000000 until the next draw, which "
            "then takes a card from the renewed deck)"
        )
    if not (untouched or renewed):
        value = next(v for v in range(10) if state.deck[v] + on_tables[v] > COPIES_PER_VALUE)
        held = on_tables[value]
        raise NotationError(
            f"the tables hold {held} card{'s' if held != 1 else ''} of value {value + 1} and "
            f"the deck {state.deck[value]} more: there are only {COPIES_PER_VALUE} of each value"
        )
