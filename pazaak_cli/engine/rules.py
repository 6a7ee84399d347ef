"""Rulesets: every rule on which the games, the rule texts or players differ is a field here.

A :class:`Ruleset` is a frozen value. The presets ``kotor1`` and ``kotor2`` follow docs/rules.md
§6; a variant is written as a preset name followed by overrides, for example
``kotor2/main-deck=infinite,nine-cards=stand`` (:func:`parse_ruleset`), and
:attr:`Ruleset.spec` writes it back the same way.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass

from pazaak_cli.engine.cards import Card, CardKind, FastEnum, all_cards
from pazaak_cli.engine.errors import RulesetError
from pazaak_cli.engine.numbers import counted, parse_in_range


class MainDeck(FastEnum):
    """How the 40-card main deck (four of each value 1..10) is drawn from."""

    SHARED = "shared"
    """One deck shared by both players, kept across sets, a fresh full deck when it runs out."""
    PER_SET = "per-set"
    """A fresh full deck is shuffled at the start of every set."""
    INFINITE = "infinite"
    """Every draw is uniform over 1..10 (as in many fan games)."""


class NineCards(FastEnum):
    """What happens when the ninth card lands on a table with a total of 20 or less."""

    STAND = "stand"
    """The player stands automatically; totals are compared as usual (KOTOR I)."""
    WIN = "win"
    """The player wins the set at once (KOTOR II, reported)."""


class FirstPlayer(FastEnum):
    """Who opens each set."""

    PLAYER1 = "player1"
    """Player 1 opens every set (KOTOR I: the human always starts)."""
    RANDOM = "random"
    """A fair coin decides each set (KOTOR II, reported)."""
    ALTERNATE = "alternate"
    """Player 1 opens the first set; the openers alternate, ties included."""
    LOSER = "loser"
    """Player 1 opens the first set; then the loser of the last set opens (after a tie, the same
    player opens again)."""


class Tiebreaker(FastEnum):
    """When a Tiebreaker card decides a set whose totals are equal."""

    LAST_CARD = "last-card"
    """Only if it is the last card of its owner's table (docs/rules.md §5)."""
    ANY_PLAYED = "any-played"
    """If its owner played one at any time in the set."""


class FlipTargets(FastEnum):
    """Which cards a Flip 2&4 / 3&6 turns over."""

    ALL_SIGNS = "all-signs"
    """Every card worth 2, 4, -2, -4 (or 3, 6, -3, -6) on the owner's table."""
    POSITIVE_ONLY = "positive-only"
    """Only the positive ones (some players read the card this way)."""


NUMBER_RANGES: dict[str, tuple[int, int]] = {
    "side_deck_size": (1, 200),
    "hand_size": (1, 200),
    "table_size": (2, 20),
    "target": (1, 50),
    "sets_to_win": (1, 9),
}
"""The allowed range of every number field (the hand size is also at most the side-deck size).
The games use 10, 4, 9, 20 and 3; the bounds keep a variant playable and solvable instead of
running out of memory or recursion (a hand of 999 cards, a target of 1000, a million sets)."""

KOTOR1_POOL = frozenset(card for card in all_cards() if not card.is_gold)
_PRESET_NAMES = ("kotor1", "kotor2")
KOTOR2_POOL = frozenset(all_cards())


@dataclass(frozen=True)
class Ruleset:
    """The complete rules of a match. Two equal rulesets always play the same game."""

    name: str
    """The preset this ruleset starts from (``kotor1`` or ``kotor2``)."""
    card_pool: frozenset[Card]
    """The side cards a deck may contain (KOTOR I: 18 kinds; KOTOR II adds the 5 gold cards)."""
    main_deck: MainDeck = MainDeck.SHARED
    """How the main deck is drawn from (shared and kept across sets in both games)."""
    nine_cards: NineCards = NineCards.STAND
    """What a full table of nine cards does."""
    first_player: FirstPlayer = FirstPlayer.PLAYER1
    """Who opens each set."""
    tiebreaker: Tiebreaker = Tiebreaker.LAST_CARD
    """When a Tiebreaker breaks a tie."""
    flip_targets: FlipTargets = FlipTargets.ALL_SIGNS
    """Which signs a flip card turns over."""
    side_deck_size: int = 10
    """Exactly how many cards a side deck holds."""
    hand_size: int = 4
    """How many cards are dealt from the side deck at the start of the match (kept all match)."""
    table_size: int = 9
    """How many cards a table holds; the card that fills it triggers :attr:`nine_cards`."""
    target: int = 20
    """The total to reach; a total over it at the end of a turn loses the set."""
    sets_to_win: int = 3
    """Sets a player must win to win the match (ties do not count)."""

    def __post_init__(self) -> None:
        if self.name not in _PRESET_NAMES:
            raise RulesetError(
                f"a ruleset starts from a preset ({', '.join(_PRESET_NAMES)}), not {self.name!r}"
            )
        for field, (low, high) in NUMBER_RANGES.items():
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise RulesetError(f"{_field_key(field)} must be from {low} to {high}")
        if not 1 <= self.hand_size <= self.side_deck_size:
            raise RulesetError(
                f"the hand size must be from 1 to the side-deck size ({self.side_deck_size}), "
                f"and it is {self.hand_size} (a hand is dealt from the side deck): set "
                f"side-deck-size to at least {self.hand_size} or hand-size to at most "
                f"{self.side_deck_size}"
            )

    def __repr__(self) -> str:
        """The ruleset as :func:`parse_ruleset` reads it back (``parse_ruleset('kotor2/main-deck=
        infinite')``), where the 23 card kinds of its pool would fill a screen; the fields for a
        pool no preset has."""
        if self.card_pool in (KOTOR1_POOL, KOTOR2_POOL):
            return f"parse_ruleset({self.spec!r})"
        fields = ", ".join(
            f"{field.name}={getattr(self, field.name)!r}" for field in dataclasses.fields(self)
        )
        return f"Ruleset({fields})"

    @property
    def spec(self) -> str:
        """The shortest string that :func:`parse_ruleset` reads back as this ruleset."""
        base = PRESETS[self.name]
        overrides = []
        for field in _OVERRIDABLE:
            mine, theirs = getattr(self, field), getattr(base, field)
            if mine != theirs:
                overrides.append(f"{_field_key(field)}={_format_value(field, mine)}")
        return self.name + ("/" + ",".join(overrides) if overrides else "")

    def allows(self, card: Card) -> bool:
        """Whether a side deck under these rules may hold ``card``."""
        return card in self.card_pool

    def deck_misfit(self, cards: Sequence[Card], *, sized: bool = True) -> str | None:
        """Why a player may not bring ``cards`` as a side deck under these rules, as the end of
        a sentence that names the deck ("holds D, not in the kotor1 card pool"), or ``None``
        (``sized``: its size is checked too). The one check of a deck given as cards (a save,
        the engine protocol, the API and the environments; a deck file has its own, located)."""
        outside = next((card for card in cards if not self.allows(card)), None)
        if outside is not None:
            return f"holds {outside}, not in the {self.name} card pool"
        if sized and len(cards) != self.side_deck_size:
            count = counted(len(cards), "card")
            return f"holds {count}; a {self.name} side deck holds {self.side_deck_size}"
        return None

    @property
    def has_gold_cards(self) -> bool:
        return any(card.kind.is_gold for card in self.card_pool)

    def fields(self) -> list[tuple[str, str, str]]:
        """(key, value, description) for every field, for ``pazaak rules``."""
        rows = []
        for field in dataclasses.fields(self):
            if field.name == "name":
                continue
            value = getattr(self, field.name)
            rows.append(
                (_field_key(field.name), _format_value(field.name, value), _FIELD_DOCS[field.name])
            )
        return rows


def _field_key(field: str) -> str:
    return field.replace("_", "-")


def _format_value(field: str, value: object) -> str:
    if field == "card_pool":
        assert isinstance(value, frozenset)
        if value == KOTOR1_POOL:
            return "kotor1"
        if value == KOTOR2_POOL:
            return "kotor2"
        return " ".join(str(card) for card in sorted(value))
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


_FIELD_DOCS = {
    "card_pool": "side cards a deck may hold (kotor1: 18 kinds, kotor2: 23)",
    "main_deck": "shared (kept across sets), per-set, or infinite (uniform 1..10)",
    "nine_cards": "a ninth card on a table: stand, or win the set",
    "first_player": "who opens a set: player1, random, alternate or loser",
    "tiebreaker": "which Tiebreaker wins a tie: last-card (its table's last) or any-played",
    "flip_targets": "flips turn over all-signs (2, 4, -2, -4) or positive-only",
    "side_deck_size": "cards in a side deck, exactly (1 to 200)",
    "hand_size": "cards dealt to the hand for the whole match (1 to the side-deck size)",
    "table_size": "cards a table holds (2 to 20)",
    "target": "the total to reach without going over (1 to 50)",
    "sets_to_win": "sets needed to win the match (1 to 9)",
}

_OVERRIDABLE = [f.name for f in dataclasses.fields(Ruleset) if f.name != "name"]

KOTOR1 = Ruleset(name="kotor1", card_pool=KOTOR1_POOL)
KOTOR2 = Ruleset(
    name="kotor2",
    card_pool=KOTOR2_POOL,
    nine_cards=NineCards.WIN,
    first_player=FirstPlayer.RANDOM,
)
PRESETS: dict[str, Ruleset] = {"kotor1": KOTOR1, "kotor2": KOTOR2}
DEFAULT_RULESET = "kotor1"


def parse_ruleset(spec: str) -> Ruleset:
    """Read ``PRESET[/key=value,...]``; raise :class:`RulesetError` naming the bad part."""
    name, _, rest = spec.strip().partition("/")
    base = PRESETS.get(name.lower())
    if base is None:
        raise RulesetError(
            f"unknown ruleset {_short(name)!r}; choose one of {', '.join(PRESETS)}", token=name
        )
    changes: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        if "/" in item:  # (kotor1/target=21/hand-size=3: the settings' separator mistaken)
            raise RulesetError(
                f"{_short(item)!r}: settings are separated by commas, not '/': write "
                f"{_short(name)}/{_short(rest.replace('/', ','))}",
                token=item,
            )
        key, sep, raw = item.partition("=")
        field = key.strip().lower().replace("-", "_")
        if not sep or field not in _OVERRIDABLE:
            keys = ", ".join(_field_key(f) for f in _OVERRIDABLE)
            raise RulesetError(
                f"{_short(item)!r} is not a ruleset setting; write key=value with a key among "
                f"{keys}",
                token=item,
            )
        if field in changes:
            raise RulesetError(
                f"{_short(item)!r}: {_field_key(field)} is set twice in {_short(spec)!r}; "
                "give each setting once",
                token=item,
            )
        changes[field] = _parse_value(field, raw.strip(), item)
    try:
        return dataclasses.replace(base, **changes)  # type: ignore[arg-type]
    except RulesetError as error:
        raise RulesetError(f"{_short(spec)!r}: {error}", token=spec) from None


def _parse_value(field: str, raw: str, item: str) -> object:
    default = getattr(KOTOR1, field)
    if field == "card_pool":
        pools = {"kotor1": KOTOR1_POOL, "kotor2": KOTOR2_POOL}
        if raw.lower() in pools:
            return pools[raw.lower()]
        raise RulesetError(f"{_short(item)!r}: the card pool is kotor1 or kotor2", token=item)
    if isinstance(default, enum.Enum):
        enum_type = type(default)
        for member in enum_type:
            if member.value == raw.lower():
                return member
        choices = ", ".join(str(m.value) for m in enum_type)
        raise RulesetError(f"{_short(item)!r}: {_field_key(field)} is one of {choices}", token=item)
    low, high = NUMBER_RANGES[field]
    number = parse_in_range(raw, low, high)
    if number is None:
        raise RulesetError(
            f"{_short(item)!r}: {_field_key(field)} must be a whole number from {low} to {high}",
            token=item,
        )
    return number


def card_kinds_in(pool: frozenset[Card]) -> set[CardKind]:
    return {card.kind for card in pool}


def _short(text: str) -> str:
    """A token as an error message shows it: at most 40 characters."""
    return text if len(text) <= 40 else text[:37] + "..."
