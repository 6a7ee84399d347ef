"""Side-deck cards and their notation.

A :class:`Card` is an immutable value with one canonical spelling (``str(card)``) that
:meth:`Card.parse` reads back exactly. The parser also accepts the ASCII spellings (``+-3``,
``+-1/2``, ``1T``) and the tokens of the game files (``*3``, ``VV``, ``F1``, ``F2``, ``$$``, ``TT``)
that modders and wiki pages use (docs/rules.md §1).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from pazaak_cli.engine.errors import CardError, NamedChoices
from pazaak_cli.engine.numbers import parse_in_range, parse_whole

MAX_MAGNITUDE = 6
"""The largest number printed on a +, - or ± side card."""


class FastEnum(NamedChoices, enum.Enum):
    """An enum hashed by identity (members are singletons): ``Enum``'s own ``__hash__`` hashes
    the member's name in Python code, which is most of the cost of hashing a game state. A
    value none of its members has (``Phase("x")``) is a :class:`PazaakError` naming them."""

    __hash__ = object.__hash__


class CardKind(FastEnum):
    """What a side card does when it is played (docs/rules.md §1). Kinds sort in declaration order
    (so cards sort as a deck list is usually written: +, -, ±, then the gold cards)."""

    PLUS = "plus"
    MINUS = "minus"
    PLUS_MINUS = "plus/minus"
    PLUS_MINUS_1_2 = "plus/minus 1/2"
    FLIP_2_4 = "flip 2&4"
    FLIP_3_6 = "flip 3&6"
    DOUBLE = "double"
    TIEBREAKER = "tiebreaker"

    @property
    def is_gold(self) -> bool:
        """The five KOTOR II cards that KOTOR I does not have."""
        return self not in (CardKind.PLUS, CardKind.MINUS, CardKind.PLUS_MINUS)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, CardKind):
            return NotImplemented
        return _KIND_ORDER[self] < _KIND_ORDER[other]

    def __le__(self, other: object) -> bool:
        if not isinstance(other, CardKind):
            return NotImplemented
        return _KIND_ORDER[self] <= _KIND_ORDER[other]

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, CardKind):
            return NotImplemented
        return _KIND_ORDER[self] > _KIND_ORDER[other]

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, CardKind):
            return NotImplemented
        return _KIND_ORDER[self] >= _KIND_ORDER[other]


_KIND_ORDER = {kind: position for position, kind in enumerate(CardKind)}


FLIP_TARGETS: dict[CardKind, tuple[int, int]] = {
    CardKind.FLIP_2_4: (2, 4),
    CardKind.FLIP_3_6: (3, 6),
}
"""The magnitudes each flip card turns over."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One side-deck (hand) card.

    ``magnitude`` is the printed number for +n, -n and ±n cards and 0 for every other kind.
    """

    kind: CardKind
    magnitude: int = 0

    def __post_init__(self) -> None:
        if type(self.magnitude) is not int:  # (1.0 would be written '+1.0', True '+True')
            if isinstance(self.magnitude, bool) or not hasattr(self.magnitude, "__index__"):
                raise CardError(f"a card's number is a whole number, not {self.magnitude!r}")
            object.__setattr__(self, "magnitude", self.magnitude.__index__())
        if not isinstance(self.kind, CardKind):
            raise CardError(
                f"a card's kind is a CardKind, not {self.kind!r}: Card.parse('+3') reads a card"
            )
        numbered = self.kind in (CardKind.PLUS, CardKind.MINUS, CardKind.PLUS_MINUS)
        if numbered and not 1 <= self.magnitude <= MAX_MAGNITUDE:
            raise CardError(f"a {self.kind.value} card needs a number from 1 to {MAX_MAGNITUDE}")
        if not numbered and self.magnitude != 0:
            raise CardError(f"a {self.kind.value} card has no number")

    @staticmethod
    def parse(token: str) -> Card:
        """Read one card in any accepted spelling; raise :class:`CardError` quoting the token."""
        return _parse_card(token)

    @property
    def values(self) -> tuple[int, ...]:
        """The values the card can take when played, in the order they are offered.

        Flip cards are placed as 0. A Double's value is a copy of the previous table card, so it
        is reported here as 0 and fixed by the game when placed.
        """
        return _VALUES[self.kind](self.magnitude)

    @property
    def is_gold(self) -> bool:
        return self.kind.is_gold

    def __str__(self) -> str:
        return _FORMAT[self.kind](self.magnitude)

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_VALUES: dict[CardKind, Callable[[int], tuple[int, ...]]] = {
    CardKind.PLUS: lambda n: (n,),
    CardKind.MINUS: lambda n: (-n,),
    CardKind.PLUS_MINUS: lambda n: (n, -n),
    CardKind.PLUS_MINUS_1_2: lambda n: (1, 2, -1, -2),
    CardKind.FLIP_2_4: lambda n: (0,),
    CardKind.FLIP_3_6: lambda n: (0,),
    CardKind.DOUBLE: lambda n: (0,),
    CardKind.TIEBREAKER: lambda n: (1, -1),
}

_FORMAT: dict[CardKind, Callable[[int], str]] = {
    CardKind.PLUS: lambda n: f"+{n}",
    CardKind.MINUS: lambda n: f"-{n}",
    CardKind.PLUS_MINUS: lambda n: f"±{n}",
    CardKind.PLUS_MINUS_1_2: lambda n: "±1/2",
    CardKind.FLIP_2_4: lambda n: "F2/4",
    CardKind.FLIP_3_6: lambda n: "F3/6",
    CardKind.DOUBLE: lambda n: "D",
    CardKind.TIEBREAKER: lambda n: "T",
}

FIXED_TOKENS: dict[str, Card] = {
    "±1/2": Card(CardKind.PLUS_MINUS_1_2),
    "+-1/2": Card(CardKind.PLUS_MINUS_1_2),
    "VV": Card(CardKind.PLUS_MINUS_1_2),
    "F2/4": Card(CardKind.FLIP_2_4),
    "F1": Card(CardKind.FLIP_2_4),
    "F3/6": Card(CardKind.FLIP_3_6),
    "F2": Card(CardKind.FLIP_3_6),
    "D": Card(CardKind.DOUBLE),
    "$$": Card(CardKind.DOUBLE),
    "T": Card(CardKind.TIEBREAKER),
    "TT": Card(CardKind.TIEBREAKER),
    "±1T": Card(CardKind.TIEBREAKER),
    "+-1T": Card(CardKind.TIEBREAKER),
    "1T": Card(CardKind.TIEBREAKER),
}
"""The card tokens that are not a sign and a number (upper case): the gold cards and the game
files' spellings of them. The deck reader builds its quick card-like pattern from these."""

_SIGNS = (
    ("±", CardKind.PLUS_MINUS),
    ("+-", CardKind.PLUS_MINUS),
    ("*", CardKind.PLUS_MINUS),
    ("+", CardKind.PLUS),
    ("-", CardKind.MINUS),
)

CARD_SYNTAX = (
    "+1..+6, -1..-6, ±1..±6 (or +-n, *n), ±1/2 (+-1/2, VV), F2/4 (F1), F3/6 (F2), D ($$), "
    "T (TT, ±1T)"
)
"""What a valid side-card token looks like, for error messages."""


@lru_cache(maxsize=1024)
def _parse_card(token: str) -> Card:
    text = token.strip()
    fixed = FIXED_TOKENS.get(text.upper().replace("−", "-"))
    if fixed is not None:
        return fixed
    normalised = text.replace("−", "-")
    for prefix, kind in _SIGNS:
        if normalised.startswith(prefix):
            digits = normalised[len(prefix) :]
            number = parse_whole(digits, max_digits=2)
            if number is not None:
                if 1 <= number <= MAX_MAGNITUDE:
                    return Card(kind, number)
                raise CardError(
                    f"{token!r} is not a side card: the number must be 1 to {MAX_MAGNITUDE}",
                    token=token,
                )
            break
    main = parse_in_range(text, 1, 10)
    if main is not None:
        raise CardError(
            f"{token!r} is a main-deck card, not a side card: write +{text}, -{text} or ±{text}"
            if main <= MAX_MAGNITUDE
            else f"{token!r} is a main-deck card, not a side card",
            token=token,
        )
    shown = token if len(token) <= 40 else token[:37] + "..."
    raise CardError(f"{shown!r} is not a card; valid cards are {CARD_SYNTAX}", token=token)


def all_cards() -> tuple[Card, ...]:
    """Every distinct side card of both games, KOTOR I's 18 kinds first."""
    numbered = tuple(
        Card(kind, n)
        for kind in (CardKind.PLUS, CardKind.MINUS, CardKind.PLUS_MINUS)
        for n in range(1, MAX_MAGNITUDE + 1)
    )
    gold = tuple(
        Card(kind)
        for kind in (
            CardKind.PLUS_MINUS_1_2,
            CardKind.FLIP_2_4,
            CardKind.FLIP_3_6,
            CardKind.DOUBLE,
            CardKind.TIEBREAKER,
        )
    )
    return numbered + gold


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read a list of side cards separated by spaces or commas (an empty string is no cards)."""
    return tuple(Card.parse(token) for token in split_tokens(text))


def split_tokens(text: str) -> list[str]:
    """Split a card list on commas and white space."""
    return text.replace(",", " ").split()
