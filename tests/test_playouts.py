"""Random playouts: thousands of complete matches, every action checked by an independent tracker.

The tracker below re-implements the rules of docs/rules.md §2-§5 in plain lists (it calls none
of the engine's helpers): it replays flips itself, keeps its own main deck, remembers each dealt
hand by position, and predicts after every action how the set must go on (automatic stand at 20,
the ninth card, a bust at the end of the turn, both stood, ties and Tiebreakers, who opens the next
set). The engine's state is compared with it after EVERY action.

Random legal actions; a forfeit is allowed only rarely so that almost every match is played to 3
set wins. Each side deck holds one card of every kind in the preset's pool plus random cards.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

import pytest

from pazaak_cli.engine.cards import Card, CardKind
from pazaak_cli.engine.game import (
    END_TURN,
    FORFEIT,
    STAND,
    Action,
    Draw,
    EndTurn,
    Forfeit,
    MatchState,
    Open,
    Phase,
    Placed,
    Play,
    Stand,
    deal_hand,
    new_match,
)
from pazaak_cli.engine.rules import (
    FirstPlayer,
    FlipTargets,
    MainDeck,
    NineCards,
    Ruleset,
    Tiebreaker,
    parse_ruleset,
)

MATCHES_PER_PRESET = 10_000
CHUNKS = 4
"""Each preset's matches are split into chunks, so that ``-n auto`` spreads them over cores."""
FORFEIT_CHANCE = 1 / 3000
"""Per decision: about one match in a hundred ends by a forfeit."""
REPLAY_EVERY = 25
"""Every 25th match is played a second time from its seed and must repeat card for card."""

# What each side card puts on the table (the engine's labels, so tables compare directly).
_PLACED = {
    CardKind.PLUS: Placed.HAND,
    CardKind.MINUS: Placed.HAND,
    CardKind.PLUS_MINUS: Placed.HAND,
    CardKind.PLUS_MINUS_1_2: Placed.HAND,
    CardKind.TIEBREAKER: Placed.TIEBREAKER,
    CardKind.FLIP_2_4: Placed.FLIP_2_4,
    CardKind.FLIP_3_6: Placed.FLIP_3_6,
    CardKind.DOUBLE: Placed.DOUBLE,
}
_FLIPPED = {Placed.FLIP_2_4: (2, 4), Placed.FLIP_3_6: (3, 6)}
_PHASE = {
    "between sets": Phase.SET_OVER,
    "draw": Phase.BEFORE_DRAW,
    "decide": Phase.AFTER_DRAW,
    "match over": Phase.MATCH_OVER,
}
FULL = (4,) * 10
FOURS = [4] * 10


@dataclass
class Seat:
    dealt: tuple[Card, ...]
    left: list[int]
    """Positions (in the dealt hand) of the cards still in hand, in order."""
    hand: tuple[Card, ...] = ()
    """The cards at those positions."""
    used: set[int] = field(default_factory=set)
    table: tuple[tuple[Placed, int], ...] = ()
    total: int = 0
    standing: bool = False


class Tracker:
    """An independent model of one match, fed the same actions as the engine."""

    def __init__(self, rules: Ruleset, hands: tuple[tuple[Card, ...], tuple[Card, ...]]) -> None:
        self.rules = rules
        self.seats = [Seat(hand, list(range(len(hand))), hand) for hand in hands]
        self.deck = [4] * 10
        self.deck_now: tuple[int, ...] = FULL
        self.checked_deck: tuple[int, ...] = ()
        self.drawn = [0] * 10
        """Main-deck cards drawn since the deck was last renewed, by value."""
        self.winners: tuple[int | None, ...] = ()
        self.won = (0, 0)
        self.opener = 0
        self.turn = 0
        self.phase = "between sets"
        self.played = False
        self.forfeited: int | None = None
        self.renewals = 0
        self.reasons: Counter[str] = Counter()

    # -- the rules, independently ----------------------------------------------------------

    def values(self, player: int) -> list[int]:
        values: list[int] = []
        positive_only = self.rules.flip_targets is FlipTargets.POSITIVE_ONLY
        for kind, value in self.seats[player].table:
            if kind in _FLIPPED:
                targets = _FLIPPED[kind]
                for i, old in enumerate(values):
                    if abs(old) in targets and (old > 0 or not positive_only):
                        values[i] = -old
            values.append(value)
        return values

    def place(self, player: int, card: tuple[Placed, int]) -> None:
        seat = self.seats[player]
        seat.table += (card,)
        seat.total = sum(self.values(player))

    def openers(self) -> tuple[int, ...]:
        rule = self.rules.first_player
        if rule is FirstPlayer.RANDOM:
            return (0, 1)
        if not self.winners or rule is FirstPlayer.PLAYER1:
            return (0,)
        if rule is FirstPlayer.ALTERNATE:
            return (1 - self.opener,)
        last = self.winners[-1]
        return (self.opener,) if last is None else (1 - last,)

    def apply(self, action: Action) -> None:
        if isinstance(action, Open):
            assert self.phase == "between sets"
            assert action.player in self.openers()
            for seat in self.seats:
                seat.table, seat.total, seat.standing = (), 0, False
            if self.rules.main_deck is not MainDeck.SHARED:
                self.deck, self.drawn, self.deck_now = [4] * 10, [0] * 10, FULL
            self.opener = self.turn = action.player
            self.phase = "draw"
            return
        mover = self.seats[self.turn]
        if isinstance(action, Draw):
            assert self.phase == "draw" and not mover.standing
            if self.rules.main_deck is not MainDeck.INFINITE:
                if sum(self.deck) == 0:
                    self.deck, self.drawn = [4] * 10, [0] * 10
                    self.renewals += 1
                assert self.deck[action.value - 1] > 0, "drew a card the deck does not hold"
                self.deck[action.value - 1] -= 1
                self.drawn[action.value - 1] += 1
                self.deck_now = tuple(self.deck)
            self.place(self.turn, (Placed.MAIN, action.value))
            self.played = False
            self.landed()
        elif isinstance(action, Play):
            assert self.phase == "decide" and not self.played, "one hand card per turn"
            position = mover.left.pop(action.index)
            assert position not in mover.used, "a hand card was used twice"
            mover.used.add(position)
            mover.hand = tuple(mover.dealt[left] for left in mover.left)
            card = mover.dealt[position]
            assert card == action.card
            kind = _PLACED[card.kind]
            if kind is Placed.DOUBLE:
                assert action.value == self.values(self.turn)[-1], "a Double copies the card before"
                self.reasons["double"] += 1
            elif kind in _FLIPPED:
                assert action.value == 0
                self.reasons["flip"] += 1
            self.place(self.turn, (kind, action.value))
            self.played = True
            self.landed()
        elif isinstance(action, EndTurn):
            assert self.phase == "decide"
            self.turn_over(nine_card_win=False)
        elif isinstance(action, Stand):
            assert self.phase == "decide" and mover.total <= self.rules.target
            mover.standing = True
            self.turn_over(nine_card_win=False)
        elif isinstance(action, Forfeit):
            assert self.phase == "decide"
            self.forfeited = self.turn
            self.phase = "match over"
            self.reasons["forfeit"] += 1
        else:  # pragma: no cover - the engine offers nothing else
            raise AssertionError(action)

    def landed(self) -> None:
        """A card landed on the mover's table: the automatic rules (docs/rules.md §3.3, §3.5)."""
        seat = self.seats[self.turn]
        total = seat.total
        if len(seat.table) == self.rules.table_size:
            self.reasons["nine cards"] += 1
            if total > self.rules.target:
                self.turn_over(nine_card_win=False)
            elif self.rules.nine_cards is NineCards.WIN:
                self.turn_over(nine_card_win=True)
            else:
                seat.standing = True
                self.turn_over(nine_card_win=False)
        elif total == self.rules.target:
            seat.standing = True
            self.reasons["stand at 20"] += 1
            self.turn_over(nine_card_win=False)
        else:
            self.phase = "decide"

    def turn_over(self, *, nine_card_win: bool) -> None:
        me, them = self.turn, 1 - self.turn
        if self.seats[me].total > self.rules.target:
            self.set_won(them, "bust")
        elif nine_card_win:
            self.set_won(me, "nine-card win")
        elif self.seats[me].standing and self.seats[them].standing:
            totals = (self.seats[0].total, self.seats[1].total)
            if totals[0] != totals[1]:
                self.set_won(0 if totals[0] > totals[1] else 1, "higher total")
            else:
                marks = [self.tiebreaker(player) for player in (0, 1)]
                if marks[0] != marks[1]:
                    self.set_won(0 if marks[0] else 1, "tiebreaker")
                else:
                    self.set_won(None, "tie")
        else:
            self.turn = me if self.seats[them].standing else them
            self.phase = "draw"

    def tiebreaker(self, player: int) -> bool:
        table = self.seats[player].table
        if self.rules.tiebreaker is Tiebreaker.LAST_CARD:
            return bool(table) and table[-1][0] is Placed.TIEBREAKER
        return any(kind is Placed.TIEBREAKER for kind, _ in table)

    def set_won(self, winner: int | None, reason: str) -> None:
        self.winners += (winner,)
        self.won = (self.winners.count(0), self.winners.count(1))
        self.reasons[reason] += 1
        won = winner is not None and self.winners.count(winner) == self.rules.sets_to_win
        self.phase = "match over" if won else "between sets"

    # -- the comparison --------------------------------------------------------------------

    def check(self, state: MatchState) -> None:
        rules = self.rules
        assert state.phase is _PHASE[self.phase]
        assert state.set_winners == self.winners
        assert state.forfeited == self.forfeited
        if self.phase == "draw" or self.phase == "decide":
            assert state.turn == self.turn
            assert state.opener == self.opener
            assert state.played == (self.phase == "decide" and self.played)
        for side, seat in zip(state.sides, self.seats, strict=True):
            assert len(side.table) <= rules.table_size
            assert side.table == seat.table
            assert side.total == seat.total, "the total is the sum of the current values"
            assert side.hand == seat.hand, "the hand is the dealt hand less the cards played"
            assert side.standing == seat.standing
        deck = state.deck
        assert deck == self.deck_now
        if deck is not self.checked_deck and rules.main_deck is not MainDeck.INFINITE:
            # The engine keeps the same tuple while the deck does not change.
            assert [left + gone for left, gone in zip(deck, self.drawn, strict=True)] == FOURS, (
                "deck + cards drawn since the last renewal = 4 of each value"
            )
            self.checked_deck = deck
        won = self.won
        assert state.sets_won() == won
        if self.phase == "match over" and self.forfeited is None:
            assert max(won) == rules.sets_to_win and min(won) < rules.sets_to_win
            assert state.match_winner() == won.index(rules.sets_to_win)
        elif self.forfeited is not None:
            assert state.match_winner() == 1 - self.forfeited
            assert max(won) < rules.sets_to_win
        else:
            assert max(won) < rules.sets_to_win


@cache
def _pool(rules: Ruleset) -> tuple[list[Card], list[list[Card]]]:
    pool = sorted(rules.card_pool)
    by_kind: dict[CardKind, list[Card]] = {}
    for card in pool:
        by_kind.setdefault(card.kind, []).append(card)
    return pool, list(by_kind.values())


def side_deck(rules: Ruleset, rng: random.Random) -> list[Card]:
    """Ten cards: one of every kind in the pool (random number), then random cards."""
    pool, by_kind = _pool(rules)
    cards = [rng.choice(cards) for cards in by_kind]
    cards += [rng.choice(pool) for _ in range(rules.side_deck_size - len(cards))]
    rng.shuffle(cards)
    return cards


def random_decision(state: MatchState, rng: random.Random) -> Action:
    """A random legal action. A hand card a third of the time (half the time over 20, to
    rescue), a stand from a random threshold of 10..20 (so that sets run long enough to empty
    the shared deck), and a forfeit very rarely."""
    legal = state.legal_actions()
    if rng.random() < FORFEIT_CHANCE:
        return FORFEIT
    plays = [action for action in legal if isinstance(action, Play)]
    total = state.sides[state.turn].total
    if plays and rng.random() < (0.5 if total > state.ruleset.target else 0.3):
        return plays[rng.randrange(len(plays))]
    if STAND in legal and total >= rng.randrange(10, 21):
        return STAND
    return END_TURN


def play_match(rules: Ruleset, seed: int, tracker_counts: Counter[str] | None) -> list[Action]:
    """Play one random match from ``seed``, checking every action; return the actions."""
    rng = random.Random(seed)
    deck = side_deck(rules, rng), side_deck(rules, rng)
    hands = (deal_hand(deck[0], rules, rng), deal_hand(deck[1], rules, rng))
    state = new_match(rules, hands)
    tracker = Tracker(rules, hands) if tracker_counts is not None else None
    actions: list[Action] = []
    while not state.is_terminal():
        chance = state.is_chance_node()
        action = state.sample_chance(rng) if chance else random_decision(state, rng)
        state = state.child(action)
        actions.append(action)
        if tracker is not None:
            tracker.apply(action)
            tracker.check(state)
    if tracker is not None and tracker_counts is not None:
        tracker_counts.update(tracker.reasons)
        tracker_counts["renewals"] += tracker.renewals
        tracker_counts["matches"] += 1
    return actions


def run_matches(spec: str, first_seed: int, count: int) -> Counter[str]:
    rules = parse_ruleset(spec)
    counts: Counter[str] = Counter()
    for seed in range(first_seed, first_seed + count):
        actions = play_match(rules, seed, counts)
        if seed % REPLAY_EVERY == 0:
            assert play_match(rules, seed, None) == actions, "the same seed replays the match"
    return counts


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_kotor1_matches_keep_every_invariant_after_every_action(chunk: int) -> None:
    size = MATCHES_PER_PRESET // CHUNKS
    counts = run_matches("kotor1", chunk * size, size)
    assert counts["matches"] == size
    for reason in ("bust", "higher total", "tie", "stand at 20", "nine cards", "renewals"):
        assert counts[reason] > 0, f"the playouts never reached {reason!r}"
    assert counts["forfeit"] < size // 20, "forfeits must stay rare"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_kotor2_matches_keep_every_invariant_after_every_action(chunk: int) -> None:
    size = MATCHES_PER_PRESET // CHUNKS
    counts = run_matches("kotor2", chunk * size, size)
    assert counts["matches"] == size
    for reason in (
        "bust",
        "higher total",
        "tie",
        "tiebreaker",
        "stand at 20",
        "nine-card win",
        "flip",
        "double",
        "renewals",
    ):
        assert counts[reason] > 0, f"the playouts never reached {reason!r}"
    assert counts["forfeit"] < size // 20, "forfeits must stay rare"


@pytest.mark.parametrize(
    "spec",
    [
        "kotor1/main-deck=per-set",
        "kotor1/main-deck=infinite,first-player=alternate",
        "kotor2/first-player=loser,tiebreaker=any-played",
        "kotor2/flip-targets=positive-only,nine-cards=stand,first-player=player1",
    ],
)
def test_random_matches_of_variants_keep_every_invariant(spec: str) -> None:
    counts = run_matches(spec, 0, 600)
    assert counts["matches"] == 600
    assert counts["bust"] and counts["higher total"] and counts["tie"]
