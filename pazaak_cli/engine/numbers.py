"""Whole numbers read from people and files: the one place where text becomes an ``int``.

``str.isdigit()`` is true for ``²`` (a key on French keyboards) and for the digits of other
scripts, which ``int()`` then refuses or reads as numbers nobody typed; ``int()`` also refuses more
than 4,300 digits, and a number of millions of digits costs seconds to read. Every number the
package reads goes through :func:`parse_whole` or :func:`parse_signed`: ASCII digits only, a bounded
length, and ``None`` for anything else, so that the caller says in its own words what was wrong.
The numbers written for people are here too: a count with its noun (:func:`counted`), seconds
in plain decimals (:func:`seconds_text`).
"""

from __future__ import annotations

from decimal import Decimal

MAX_DIGITS = 18
"""More digits than any count, size or seed this package reads (and far fewer than ``int()``'s
limit of 4,300)."""
MINUS_SIGNS = ("-", "\N{MINUS SIGN}")
"""A hyphen, or the typographic minus sign that some keyboards and word processors produce."""


def is_ascii_digits(text: str) -> bool:
    """Whether ``text`` is one or more of the ASCII digits 0-9 (and nothing else)."""
    return text.isascii() and text.isdigit()


def parse_whole(text: str, *, max_digits: int = MAX_DIGITS) -> int | None:
    """``text`` as a whole number (0 or more) if it is 1 to ``max_digits`` ASCII digits, else
    ``None``. No sign, no spaces, no underscores."""
    if not 0 < len(text) <= max_digits or not is_ascii_digits(text):
        return None
    return int(text)


def parse_signed(text: str, *, max_digits: int = MAX_DIGITS) -> int | None:
    """``+N`` or ``-N`` (``−N`` too) with 1 to ``max_digits`` ASCII digits, else ``None``. The
    sign is required: it is how a played hand card is told from a main-deck card."""
    if not text:
        return None
    if text[0] == "+":
        sign = 1
    elif text[0] in MINUS_SIGNS:
        sign = -1
    else:
        return None
    magnitude = parse_whole(text[1:], max_digits=max_digits)
    return None if magnitude is None else sign * magnitude


def parse_in_range(text: str, low: int, high: int) -> int | None:
    """``text`` as a whole number from ``low`` to ``high``, else ``None``."""
    number = parse_whole(text, max_digits=len(str(high)))
    if number is None or not low <= number <= high:
        return None
    return number


def counted(number: int, one: str, many: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``1,000 matches``: a count with its noun agreeing (``many``:
    the plural where it is not ``one`` + s)."""
    return f"{number:,} {one if number == 1 else (many or one + 's')}"


def seconds_text(seconds: float) -> str:
    """A number of seconds as a person reads it: in plain decimals, with the fewest digits that
    are that number, as it was typed (``2``, ``0.5``, ``0.000000001``; ``:g`` wrote ``--time
    1e-9`` as "the 1e-09 s budget"); one that would take more than 20 characters so, the longest
    ``--time`` takes (``1e-300``), keeps ``:g``'s short form."""
    shown = format(Decimal(repr(seconds)).normalize(), "f")
    return shown if len(shown) <= 20 else f"{seconds:g}"


def seed_number(seed: str | None) -> int | str | None:
    """A sampled answer's seed as its JSON shows it: the whole number given (``--seed 7``: 7,
    as ``simulate`` and ``deckbuild`` show theirs), else the text it is."""
    if seed is not None and seed.isascii() and seed.isdigit():
        return int(seed)
    return seed
