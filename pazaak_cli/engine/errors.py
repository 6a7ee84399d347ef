"""The error classes of the library.

Every error carries a message that is one complete sentence for a user and, where there is one,
the offending input (``token``). The command layer turns :class:`PazaakError` into a one-line
message and an exit code; nothing below it prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from typing import NoReturn, cast


class PazaakError(ValueError):
    """Base class: a domain failure the user can fix (exit code 1 at the command line)."""

    def __init__(self, message: str, *, token: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token

    def __str__(self) -> str:
        return self.message


class CardError(PazaakError):
    """A token that is not a card of the kind asked for."""


class RulesetError(PazaakError):
    """An unknown ruleset name or an invalid ruleset field."""


class IllegalActionError(PazaakError):
    """An action the rules do not allow in this state (never silently ignored)."""


class NotationError(PazaakError):
    """A position string that cannot be read or describes an impossible position."""


class DeckError(PazaakError):
    """A side-deck file or deck name that cannot be used."""


class HiddenInformationError(PazaakError):
    """A question that needs a card the asker cannot see (the opponent's hand)."""


class InputError(PazaakError):
    """Input that cannot be read at all: a missing file, a directory, a file too large to be a
    deck. A usage error (exit code 2 at the command line), not a domain failure."""


class NotationSyntaxError(NotationError, InputError):
    """A position string that cannot be read (a field missing or not in the notation's form):
    a usage error at the command line, where a position read but impossible is a domain
    failure (:class:`NotationError`)."""


class WagerError(PazaakError):
    """A wager that cannot be settled: not a whole number of credits, or the match not over."""


class NamedChoices:
    """A mixin for an enum a program may build from text (``Objective("set")``): a value that
    is none of its members raises a :class:`PazaakError` quoting it and naming the choices,
    where :class:`~enum.Enum` raises a bare ``ValueError`` ("'win' is not a valid Objective").
    Put it before the enum base: ``class Objective(NamedChoices, StrEnum)``."""

    @classmethod
    def _missing_(cls, value: object) -> NoReturn:
        members = cast("Iterable[Enum]", cls)
        choices = ", ".join(str(member.value) for member in members)
        label = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", cls.__name__).lower()
        shown = value if not isinstance(value, str) or len(value) <= 40 else value[:37] + "..."
        raise PazaakError(
            f"unknown {label} {shown!r}; choose one of {choices}",
            token=value if isinstance(value, str) else None,
        )
