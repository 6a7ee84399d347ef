"""Side-deck files: the one reader every command uses, the validator, and the sample decks.

A deck file is UTF-8 text (a byte-order mark and CRLF line ends are accepted). Cards are
separated by spaces, commas or new lines, in any notation of docs/rules.md §1; ``#`` starts a
comment; whole lines ``name: ...``, ``ruleset: ...`` and ``description: ...`` are headers::

    # my first deck
    name: balanced
    ruleset: kotor1
    +1 +2 +3, -1 -2 -3
    ±1 ±2 ±3 ±4

:func:`read_deck` collects **every** problem of a file at once, each located as
``FILE:LINE:COLUMN`` (both counted from 1, columns in characters), so that a user fixes a deck in
one pass. :func:`load_deck` is what commands call: a path or a sample-deck name in, a valid
:class:`SideDeck` out, or an :class:`~pazaak_cli.engine.errors.InputError` (the file cannot be read:
exit 2) or a :class:`~pazaak_cli.engine.errors.DeckError` (the deck is invalid: exit 1).
"""

from __future__ import annotations

import bisect
import difflib
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from importlib import resources
from importlib.abc import Traversable
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from pazaak_cli.engine.cards import CARD_SYNTAX, FIXED_TOKENS, MAX_MAGNITUDE, Card, CardKind
from pazaak_cli.engine.errors import CardError, DeckError, InputError, PazaakError
from pazaak_cli.engine.numbers import counted, parse_in_range
from pazaak_cli.engine.rules import DEFAULT_RULESET, KOTOR2_POOL, PRESETS, Ruleset, parse_ruleset

NUMBERED_SYNTAX = "+1..+6, -1..-6, ±1..±6 (or +-n, *n)"
"""The numbered side cards, the whole KOTOR I pool, as an error message says them."""

MAX_DECK_BYTES = 1024 * 1024
"""A deck file larger than this (1 MiB) is refused before it is read: a 10-card deck with
generous comments is a few hundred bytes, so anything this big is the wrong file."""

MAX_PROBLEMS = 100
"""At most this many problems are listed per file; the rest are counted in one last line."""
_KEPT_PROBLEMS = MAX_PROBLEMS + 1
"""Problems :func:`parse_deck` writes out before it only counts them (the first one not shown
gives the place of the count's line)."""

SAMPLE_PREFIX = "sample:"
"""``sample:NAME`` always means the sample deck NAME, even if a file of that name exists."""

STDIN_SPEC = "-"
STDIN_SOURCE = "<stdin>"

HEADER_KEYS = ("name", "ruleset", "description")
"""The header lines a deck file may hold (each at most once)."""

_SHOWN_TOKEN = 40
"""Longer tokens are shortened in messages."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"
"""Zero-width characters a deck copied from a web page or a chat may carry between its cards:
separators, as spaces are (a card is never written with one)."""
_TOKEN = re.compile(rf"[^\s,{_INVISIBLE}]+")


def _spaced(text: str) -> str:
    """``text`` with every separator that is not white space (commas, :data:`_INVISIBLE`) a
    space: the same columns, so that ``split`` finds the tokens :data:`_TOKEN` does."""
    for separator in ",", *_INVISIBLE:
        if separator in text:
            text = text.replace(separator, " ")
    return text


_HEADER = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)", re.DOTALL)
_SIGNED_NUMBER = re.compile(r"(?:±|\+-|\*|\+|-|−)([0-9]+)")
_BOM = "\ufeff"

# Whole-text patterns (line ends made "\n" first, comments removed where it says "body"): a
# 1 MiB file is read with a few passes of C code, not a Python step per token or per line.
_COMMENT = re.compile(r"#[^\n]*")
_UNDECODABLE = re.compile(r"[\udc80-\udcff]+")
_HEADER_LINE = re.compile(r"^[^\S\n]*[A-Za-z][A-Za-z0-9_-]*[^\S\n]*:[^\n]*", re.MULTILINE)
"""A whole header line of a body: what :data:`_HEADER` matches in one line's content."""


def _any_case(word: str) -> str:
    # str.lower() maps only ASCII letters onto the ASCII letters of the header keys
    return "".join(f"[{char.upper()}{char}]" for char in word)


_HEADER_VALUE = {
    key: re.compile(rf"^[^\S\n]*({_any_case(key)})[^\S\n]*:([^\n]*)", re.MULTILINE)
    for key in HEADER_KEYS
}
"""The lines of one known header key (any case), with the raw value."""
_HEADER_FILLED = {
    key: re.compile(rf"^[^\S\n]*({_any_case(key)})[^\S\n]*:([^\n]*\S[^\n]*)", re.MULTILINE)
    for key in HEADER_KEYS
}
"""The lines of one known header key with a value that is not empty."""
_KEY_LINE = re.compile(
    r"^[^\S\n]*(?:" + "|".join(_any_case(key) for key in HEADER_KEYS) + r")(?!\S)[^\n]*",
    re.MULTILINE,
)
"""A line (not a header; its commas made spaces) whose first token is a header key: a header
without its colon. (One character class before the key: a line of 1 MiB of blanks is one
step, not a backtracking per blank.)"""
_CARD_LIKE = re.compile(
    r"^(?:(?:±|\+[-−]|\*|\+|[-−])[0-9]{1,2}|(?i:"
    + "|".join(re.escape(key).replace("\\-", "[-−]") for key in sorted(FIXED_TOKENS))
    + r"))$",
    re.MULTILINE,
)
"""Every token :meth:`Card.parse` can accept (a sign and a number, or a fixed spelling in any
case) and a few more: the tokens it does not match are not cards, without asking (a test keeps
this true)."""
_UNDECODABLE_TOKEN = re.compile(r"^[^\n]*[\udc80-\udcff][^\n]*$", re.MULTILINE)
_SEPARATOR = re.compile(rf"[\s,{_INVISIBLE}]")
_BLOCK_LINES = 64
"""Lines looked at together when looking for the ones with a problem."""
_BLOCK_CHARS = 8192
"""About this many characters are looked at together when looking for given tokens."""

_ProblemSink = Callable[[int, int, str, str], None]
"""How :func:`parse_deck` lets its helpers report a problem: (line, column, token, message)."""


@dataclass(frozen=True)
class SideDeck:
    """A valid side deck: the cards in file order and where they came from."""

    name: str
    """The ``name:`` header, else the sample name or the file's stem."""
    cards: tuple[Card, ...]
    ruleset: str | None
    """The ``ruleset:`` header as a ruleset spec (``kotor2``), if the file has one."""
    description: str
    """One line (the ``description:`` header), ``''`` if none; ``pazaak decks`` shows it."""
    source: str
    """The path as given, ``<stdin>``, or ``sample:NAME``."""

    def __str__(self) -> str:
        return " ".join(str(card) for card in self.cards)

    def fits(self, ruleset: Ruleset) -> bool:
        """Whether this deck is valid under ``ruleset`` too (its size and card pool)."""
        return ruleset.deck_misfit(self.cards) is None


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a deck file, at a place the user can go to."""

    path: str
    line: int
    column: int
    token: str
    """The offending text (shortened when very long), ``''`` when the problem is a missing thing."""
    message: str
    """One sentence naming the token and what would be right."""
    unlisted: int = 0
    """For the last line of a long list: how many problems it stands for, not listed."""

    @property
    def count(self) -> int:
        """How many problems this line stands for (itself, or those it does not list)."""
        return self.unlisted or 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True)
class DeckEntry:
    """One card token of a file, where it stands."""

    token: str
    line: int
    column: int
    card: Card | None
    """``None`` when the token is not a card (a problem says why)."""


_Read = tuple[Card | None, str, str]
"""What :func:`_read_token` makes of a token: (card or ``None``, its problem or ``''``, the token
as shown)."""


@dataclass(frozen=True)
class ParsedDeck:
    """A deck file read token by token, before it is checked against a ruleset.

    The card tokens are kept as counts and as the text they stand in, not one object each: a
    1 MiB file holds some 400,000 tokens, and only the few that are shown need a place."""

    source: str
    headers: dict[str, tuple[str, int, int]]
    """header key -> (value, line, column of the value)."""
    problems: tuple[Problem, ...]
    """What is wrong whatever the ruleset: encoding, tokens that are not cards, bad headers;
    the first :data:`_KEPT_PROBLEMS` of them, in file order."""
    end: tuple[int, int]
    """(line, column) just after the last card token, or (1, 1) if there is none."""
    empty: bool
    """The file holds nothing but white space."""
    more_problems: int = 0
    """How many more such problems the file has, past :attr:`problems` (counted, not built:
    only the first :data:`MAX_PROBLEMS` of all are ever shown)."""
    card_count: int = 0
    """How many card tokens the file lists (tokens that are not cards count too)."""
    last_token: str = ""
    """The last card token as written, ``''`` if there is none."""
    cards_text: str = field(default="", repr=False)
    """The text with comments, header lines and line ends other than ``\\n`` taken out: its
    lines are the file's, and its tokens exactly the card tokens, at their columns."""
    token_counts: dict[str, int] = field(default_factory=dict, repr=False)
    """Each distinct card token -> how many times it is written."""
    cards: dict[str, Card] = field(default_factory=dict, repr=False)
    """Each distinct token that is a card -> the card."""

    @cached_property
    def entries(self) -> tuple[DeckEntry, ...]:
        """Every card token where it stands, in file order (built on first use)."""
        reads: dict[str, _Read] = {}
        entries: list[DeckEntry] = []
        for number, line in enumerate(self.cards_text.split("\n"), start=1):
            for match in _TOKEN.finditer(line):
                token = match.group()
                read = reads.get(token)
                if read is None:
                    read = reads[token] = _read_token(token)
                entries.append(DeckEntry(read[2], number, match.start() + 1, read[0]))
        return tuple(entries)

    def entry_at(self, index: int) -> DeckEntry:
        """The card token number ``index`` (from 0, negative from the end) without building
        the others."""
        if index < 0:
            index += self.card_count
        if not 0 <= index < self.card_count:
            raise IndexError(index)
        match = next(islice(_TOKEN.finditer(self.cards_text), index, None))
        return self._entry(match.start(), match.group(), 0, 1, 0)[0]

    def find_entries(self, tokens: set[str], limit: int | None = None) -> Iterator[DeckEntry]:
        """The entries whose token is one of ``tokens``, in file order, the first ``limit``;
        stretches of text that hold none of them are skipped without a Python step per
        token."""
        line, line_start, counted = 1, 0, 0
        for found, match in enumerate(_tokens_among(self.cards_text, tokens)):
            if limit is not None and found >= limit:
                return
            entry, line, line_start = self._entry(
                match.start(), match.group(), counted, line, line_start
            )
            counted = match.start()
            yield entry

    def _entry(
        self, start: int, token: str, counted: int, line: int, line_start: int
    ) -> tuple[DeckEntry, int, int]:
        # the line and column of ``start``, counting the line ends after ``counted`` (where
        # ``line`` begins at ``line_start``)
        text = self.cards_text
        breaks = text.count("\n", counted, start)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", counted, start) + 1
        shown = _shorten(_printable(token))
        entry = DeckEntry(shown, line, start - line_start + 1, self.cards.get(token))
        return entry, line, line_start

    @property
    def header_ruleset(self) -> Ruleset | None:
        """The ruleset the ``ruleset:`` header names, ``None`` if absent or unknown."""
        header = self.headers.get("ruleset")
        if header is None:
            return None
        try:
            return parse_ruleset(header[0])
        except PazaakError:
            return None


# --- reading ----------------------------------------------------------------------------------


def decode_deck(data: bytes) -> str:
    """Bytes to text: strip a UTF-8 byte-order mark; invalid UTF-8 bytes survive as surrogate
    escapes so that :func:`parse_deck` can point at each of them."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="surrogateescape")


def parse_deck(data: str | bytes, source: str) -> ParsedDeck:
    """Read a deck file's text (or bytes) into located tokens and headers, with every problem
    that does not depend on the ruleset. Never raises for any input.

    Linear and mostly C: the whole text is counted in a few regex and split passes
    (:func:`_scan`); only lines that hold a problem, until :data:`_KEPT_PROBLEMS` are written,
    are read one by one (:func:`_line_problems`), and the card tokens are counted, not
    stored one by one."""
    text = decode_deck(data) if isinstance(data, bytes) else data.removeprefix(_BOM)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")  # columns do not change
    scan = _Scan(text)
    problems: list[Problem] = []
    if scan.total_problems:
        lines = text.split("\n")
        state = _LineState(source, scan, problems)
        start = 0
        while start < len(lines) and len(problems) < _KEPT_PROBLEMS:
            block = lines[start : start + _BLOCK_LINES]
            if not scan.plain("\n".join(block)):
                for number, line in enumerate(block, start=start + 1):
                    if len(problems) >= _KEPT_PROBLEMS:
                        break
                    _line_problems(number, line, state)
            start += len(block)
    return ParsedDeck(
        source=source,
        headers=scan.headers,
        problems=tuple(problems),
        more_problems=scan.total_problems - len(problems),
        end=scan.end,
        empty=not text.strip(),
        card_count=scan.card_count,
        last_token=scan.last_token,
        cards_text=scan.cards_text,
        token_counts=scan.counts,
        cards=scan.cards,
    )


class _Scan:
    """One pass over a whole deck text (line ends already ``\\n``): every count
    :func:`parse_deck` needs, the headers, and the card tokens by distinct token."""

    def __init__(self, text: str) -> None:
        self.undecodable = _UNDECODABLE.search(text) is not None
        body = _COMMENT.sub("", text) if "#" in text else text
        self.headers: dict[str, tuple[str, int, int]] = {}
        problems = 0
        cards_text = body
        if ":" in body:
            cards_text, header_lines = _HEADER_LINE.subn("", body)
            known, header_problems = self._read_headers(body)
            problems += header_lines - known + header_problems  # an unknown key: one each
        cards_text = _spaced(cards_text)
        lowered = cards_text.lower()  # every header key a token can spell is in it
        if any(key in lowered for key in HEADER_KEYS):
            cards_text, key_lines = _KEY_LINE.subn("", cards_text)
            problems += key_lines
        if self.undecodable:
            problems += len(_UNDECODABLE.findall(text))
        tokens = cards_text.split()
        self.cards_text = cards_text
        self.card_count = len(tokens)
        self.last_token = tokens[-1] if tokens else ""
        self.counts: dict[str, int] = Counter(tokens)
        del tokens
        distinct = "\n".join(self.counts)
        self.cards: dict[str, Card] = {}
        self.bad: set[str] = set(self.counts)  # the tokens that get a problem
        for token in _CARD_LIKE.findall(distinct):
            card = _read_token(token)[0]
            if card is not None:
                self.cards[token] = card
                self.bad.discard(token)
        if self.undecodable:
            self.bad.difference_update(_UNDECODABLE_TOKEN.findall(distinct))
        problems += sum(map(self.counts.__getitem__, self.bad))
        self.total_problems = problems
        self.end = (1, 1)
        if self.card_count:
            stop = len(cards_text.rstrip())
            line_start = cards_text.rfind("\n", 0, stop) + 1
            self.end = (cards_text.count("\n", 0, stop) + 1, stop - line_start + 1)

    def _read_headers(self, body: str) -> tuple[int, int]:
        """Record the known headers; return how many header lines have a known key and how
        many problems those lines have."""
        known = problems = 0
        found: list[tuple[int, str, tuple[str, int, int]]] = []
        lowered = body.lower()
        for key, pattern in _HEADER_VALUE.items():
            if key not in lowered:
                continue
            lines = len(pattern.findall(body))
            known += lines
            match = _HEADER_FILLED[key].search(body)
            if match is None:
                problems += lines  # each one empty
                continue
            # the empty ones before the first value, then each later one is a second header
            problems += lines - 1
            raw = match.group(2)
            value = raw.strip()
            line = body.count("\n", 0, match.start()) + 1
            column = match.start(2) - match.start() + 1 + len(raw) - len(raw.lstrip())
            if key == "ruleset":
                try:
                    parse_ruleset(value)
                except PazaakError:
                    problems += 1
            found.append((line, key, (value, line, column)))
        for _, key, header in sorted(found):
            self.headers[key] = header
        return known, problems

    def plain(self, text: str) -> bool:
        """Whether ``text`` (whole lines) surely holds no problem and no header line."""
        if self.undecodable and _UNDECODABLE.search(text) is not None:
            return False
        body = _COMMENT.sub("", text) if "#" in text else text
        if ":" in body:
            return False
        body = _spaced(body)
        return _KEY_LINE.search(body) is None and self.bad.isdisjoint(body.split())


class _LineState:
    """What :func:`_line_problems` carries from line to line."""

    def __init__(self, source: str, scan: _Scan, problems: list[Problem]) -> None:
        self.source = source
        self.scan = scan
        self.problems = problems
        self.headers: dict[str, tuple[str, int, int]] = {}
        self.reads: dict[str, _Read] = {}  # each distinct token is read once


def _line_problems(number: int, line: str, state: _LineState) -> None:
    """Write the problems of one line (at most :data:`_KEPT_PROBLEMS`), in the order the
    reader has always listed them: its undecodable bytes, then its header or its tokens."""
    problems, source = state.problems, state.source
    kept_in_line = 0

    def problem(line: int, column: int, token: str, message: str) -> None:
        nonlocal kept_in_line
        if kept_in_line < _KEPT_PROBLEMS:
            kept_in_line += 1
            problems.append(Problem(source, line, column, _shorten(token), message))

    if state.scan.undecodable:
        runs = [
            (match.start() + 1, match.group())
            for match in islice(_UNDECODABLE.finditer(line), _KEPT_PROBLEMS)
        ]
        if runs:
            places = _token_places(line, runs[-1][0])
            for column, run in runs:
                problem(number, column, _printable(run), _encoding_message(run, places, column))
    if kept_in_line >= _KEPT_PROBLEMS:
        return
    content = line.split("#", 1)[0]
    header = _HEADER.match(content)
    if header is not None:
        _read_header(header, number, state.headers, problem)
        return
    tokens = _TOKEN.finditer(content)
    first = next(tokens, None)
    if first is None:
        return
    if first.group().lower() in HEADER_KEYS:
        problem(
            number,
            first.start() + 1,
            first.group(),
            f"{_show(first.group())} is not a card; a header is written "
            f"'{first.group().lower()}: VALUE' (with a colon)",
        )
        return
    for match in _tokens_among(content, state.scan.bad, first.start()):
        token = match.group()
        read = state.reads.get(token)
        if read is None:
            read = state.reads[token] = _read_token(token)
        problem(number, match.start() + 1, token, read[1])
        if kept_in_line >= _KEPT_PROBLEMS:
            return


def _tokens_among(text: str, tokens: set[str], start: int = 0) -> Iterator[re.Match[str]]:
    """The tokens of ``text`` (from ``start``, a token's start or a separator) that are in
    ``tokens``, in order: stretches of some :data:`_BLOCK_CHARS` characters that hold none are
    skipped with one split, not a Python step per token."""
    while start < len(text) and tokens:
        separator = _SEPARATOR.search(text, min(start + _BLOCK_CHARS, len(text)))
        stop = separator.start() if separator is not None else len(text)
        if not tokens.isdisjoint(_spaced(text[start:stop]).split()):
            for match in _TOKEN.finditer(text, start, stop):
                if match.group() in tokens:
                    yield match
        start = stop


def validate_deck(parsed: ParsedDeck, ruleset: Ruleset | None = None) -> list[Problem]:
    """Every problem of a parsed deck for ``ruleset`` (default: its header's ruleset, else the
    project default), sorted by place, at most :data:`MAX_PROBLEMS` plus one counting the rest."""
    rules = _effective_ruleset(parsed, ruleset)
    # only the first _KEPT_PROBLEMS cards out of the pool can be shown: the others are counted
    problems, outside = _pool_problems(parsed, rules, _KEPT_PROBLEMS, given=ruleset is not None)
    total = len(problems) + outside - min(outside, _KEPT_PROBLEMS)
    source = parsed.source
    size, count = rules.side_deck_size, parsed.card_count
    if count > size:
        extra = parsed.entry_at(size)
        problems.append(
            Problem(
                source,
                extra.line,
                extra.column,
                extra.token,
                f"{_show(extra.token)} is card {size + 1}, but a {rules.spec} side deck holds "
                f"exactly {counted(size, 'card')}; this file lists {count}: remove {count - size}",
            )
        )
    elif count == 0:
        what = "the file is empty" if parsed.empty else "the file lists no cards"
        problems.append(
            Problem(
                source,
                *parsed.end,
                "",
                f"{what}; a {rules.spec} side deck holds exactly {counted(size, 'card')}"
                + (f", for example {_EXAMPLE[: size * 3 - 1]}" if size <= 10 else ""),
            )
        )
    elif count < size:
        problems.append(
            Problem(
                source,
                *parsed.end,
                _shorten(_printable(parsed.last_token)),
                f"the deck ends after {counted(count, 'card')}; a {rules.spec} "
                f"side deck holds exactly {size}: add {size - count}",
            )
        )
    total += 1 if count != size else 0
    problems.sort(key=lambda p: (p.line, p.column))
    if total > MAX_PROBLEMS:
        rest = problems[MAX_PROBLEMS]
        hidden = total - MAX_PROBLEMS + parsed.more_problems
        problems = problems[:MAX_PROBLEMS] + [
            Problem(
                source,
                rest.line,
                rest.column,
                rest.token,
                f"{hidden} more problems from here on are not listed (is this a deck file?)",
                unlisted=hidden,
            )
        ]
    return problems


def pool_problems(parsed: ParsedDeck, ruleset: Ruleset) -> list[Problem]:
    """The problems of a file read as a card *pool* (any number of cards, as ``pazaak
    deckbuild --pool`` reads it): tokens that are not cards, and cards ``ruleset`` does not
    allow, each located; sorted by place."""
    problems, _ = _pool_problems(parsed, ruleset, None, given=True)
    problems.sort(key=lambda p: (p.line, p.column))
    return problems


def _pool_problems(
    parsed: ParsedDeck, rules: Ruleset, limit: int | None, *, given: bool
) -> tuple[list[Problem], int]:
    """The parse problems, then the first ``limit`` cards ``rules`` does not allow as
    problems, in file order; and how many such cards there are in all (``given``: ``rules``
    is the command's, not the file's: see :func:`_pool_message`)."""
    problems = list(parsed.problems)
    if not any(card.is_gold for card in rules.card_pool):  # (list only the cards it can hold)
        said = f"valid {rules.spec} cards are {NUMBERED_SYNTAX} (KOTOR II adds gold cards)"
        problems = [
            replace(
                problem, message=problem.message.replace(f"valid cards are {CARD_SYNTAX}", said)
            )
            for problem in problems
        ]
    outside = {token for token, card in parsed.cards.items() if not rules.allows(card)}
    for entry in parsed.find_entries(outside, limit):
        problems.append(
            Problem(
                parsed.source,
                entry.line,
                entry.column,
                entry.token,
                _pool_message(entry, rules, parsed.headers.get("ruleset", ("",))[0], given),
            )
        )
    return problems, sum(parsed.token_counts[token] for token in outside)


@dataclass(frozen=True)
class DeckReport:
    """The verdict on one deck file: the deck if it is valid, else every problem."""

    deck: SideDeck | None
    problems: list[Problem]
    ruleset: Ruleset
    """The ruleset it was checked against (the override, else its header's, else the default)."""


def check_deck(
    data: str | bytes, source: str, ruleset: Ruleset | None = None, *, name: str | None = None
) -> DeckReport:
    """Parse and validate a deck file's content against ``ruleset`` (default: its header, else
    the project default). ``name`` is the fallback when the file has no ``name:`` header. Never
    raises for any input."""
    parsed = parse_deck(data, source)
    rules = _effective_ruleset(parsed, ruleset)
    problems = validate_deck(parsed, ruleset)  # (the ruleset given, if any: see _pool_message)
    if problems:
        return DeckReport(None, problems, rules)
    header_ruleset = parsed.header_ruleset
    deck = SideDeck(
        name=parsed.headers["name"][0] if "name" in parsed.headers else (name or _stem(source)),
        cards=tuple(entry.card for entry in parsed.entries if entry.card is not None),
        ruleset=header_ruleset.spec if header_ruleset is not None else None,
        description=parsed.headers.get("description", ("", 0, 0))[0],
        source=source,
    )
    return DeckReport(deck, [], rules)


def read_deck(
    data: str | bytes, source: str, ruleset: Ruleset | None = None, *, name: str | None = None
) -> tuple[SideDeck | None, list[Problem]]:
    """:func:`check_deck` as a pair: ``(deck, [])`` if valid, ``(None, problems)`` with **all**
    of them otherwise. Never raises for any input."""
    report = check_deck(data, source, ruleset, name=name)
    return report.deck, report.problems


# --- files and names --------------------------------------------------------------------------


def read_source(spec: str) -> tuple[str, bytes, str | None]:
    """Resolve ``spec`` (a path, ``-`` for standard input, a sample-deck name or ``sample:NAME``)
    to ``(source, bytes, sample name or None)``. Raise :class:`InputError` if it cannot be read:
    missing, a directory, larger than :data:`MAX_DECK_BYTES`, unreadable, or binary."""
    if spec == STDIN_SPEC:
        return STDIN_SOURCE, _read_limited(sys.stdin.buffer, STDIN_SOURCE), None
    if not spec.strip():
        raise InputError(
            f"{spec!r} names no deck: give a deck file, a sample deck's name (`pazaak decks` "
            "lists them) or - for standard input",
            token=spec,
        )
    if spec.startswith(SAMPLE_PREFIX):
        name = spec[len(SAMPLE_PREFIX) :]
        return SAMPLE_PREFIX + name, _sample_bytes(name), name
    if not os.path.lexists(spec) and _is_sample_name(spec):
        return SAMPLE_PREFIX + spec, _sample_bytes(spec), spec
    return spec, read_deck_file(spec), None


def read_deck_file(path: str) -> bytes:
    """The bytes of a deck file, after checking that it is a readable, plausibly small, text
    file. Raise :class:`InputError` with one sentence otherwise."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise _missing(path) from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({_os_reason(error)})", token=path) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a directory, not a deck file", token=path)
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_DECK_BYTES:
        raise _too_large(path, f"{info.st_size:,} bytes")
    try:
        with open(path, "rb") as handle:
            data = _read_limited(handle, path)
    except OSError as error:
        raise InputError(f"{path}: cannot read it ({_os_reason(error)})", token=path) from None
    return data


def load_deck(spec: str, ruleset: Ruleset | None = None) -> SideDeck:
    """The valid deck named by ``spec``: a path, ``-`` (standard input), a sample-deck name or
    ``sample:NAME``. Validated against ``ruleset``, else the file's header, else the default.

    Raise :class:`InputError` (exit 2) when it cannot be read and :class:`DeckError` (exit 1),
    listing the first problems located as ``FILE:LINE:COLUMN``, when it is not a valid deck.
    """
    source, data, sample = read_source(spec)
    deck, problems = read_deck(data, source, ruleset, name=sample)
    if deck is None:
        raise DeckError(describe_problems(problems), token=spec)
    return deck


def describe_problems(problems: list[Problem]) -> str:
    """The first problem as one message, with a count of the others: an error is one
    sentence, and `pazaak validate` lists them all."""
    text = str(problems[0])
    if len(problems) > 1:
        text += (
            f" (and {counted(len(problems) - 1, 'more problem')}: `pazaak validate` lists them all)"
        )
    return text


def require_cards(deck: object, label: str) -> None:
    """Refuse ``deck`` where a program must give a side deck's cards (``None`` passes: no deck
    given): its name or text with a :class:`DeckError`, anything else than cards in it with a
    :class:`CardError`, each saying how to make cards (a name was once read letter by letter,
    "holds k")."""
    if deck is None:
        return
    if isinstance(deck, str) or not isinstance(deck, Iterable):
        raise DeckError(
            f"{label} is a side deck's cards, not {deck!r}: sample_deck(name).cards or "
            "parse_cards(text) makes them",
            token=str(deck),
        )
    for card in deck:
        if not isinstance(card, Card):
            raise CardError(
                f"{label} holds {card!r}, not a card: parse_cards('+1 -2') makes cards of text",
                token=str(card),
            )


def sample_decks() -> tuple[SideDeck, ...]:
    """Every sample deck, sorted by name; each is valid for its header's ruleset."""
    return tuple(load_deck(SAMPLE_PREFIX + name) for name in sample_names())


def sample_deck(name: str) -> SideDeck:
    """One sample deck by name; :class:`InputError` listing the names if there is none."""
    return load_deck(SAMPLE_PREFIX + name)


def sample_names() -> tuple[str, ...]:
    """The names of the sample decks (file stems), sorted."""
    return tuple(sorted(_sample_files()))


DEFAULT_DECKS = {"kotor1": "kotor1-starter", "kotor2": "kotor1-starter"}
"""The deck a player gets when none is given: the games' own default (pazaakdecks.2da row 0,
the starter deck of a new game), for both presets."""


def default_deck(
    ruleset: Ruleset, *, option: str | None = None, name: str | None = None
) -> SideDeck:
    """The documented default deck for ``ruleset`` (see :data:`DEFAULT_DECKS`; ``name``: another
    sample deck that is a default where it is used), checked against it; :class:`DeckError` if
    the ruleset's variant cannot use it (another side-deck size), saying why and naming the
    ``option`` that gives a deck instead."""
    name = name or DEFAULT_DECKS.get(ruleset.name, DEFAULT_DECKS[DEFAULT_RULESET])
    try:
        return load_deck(SAMPLE_PREFIX + name, ruleset)
    except DeckError as error:
        cards = load_deck(SAMPLE_PREFIX + name).cards
        size = ruleset.side_deck_size
        outside = sorted({str(card) for card in cards if not ruleset.allows(card)})
        if len(cards) != size:
            reason = f"it holds {counted(len(cards), 'card')}, a side deck here {size}"
        elif outside:
            reason = f"{', '.join(outside)} not in this ruleset's card pool"
        else:
            reason = str(error)
        where = f" with {option}" if option else ""
        raise DeckError(
            f"the default deck {name} does not fit ruleset {ruleset.spec} ({reason}): give a "
            f"deck that does{where}",
            token=name,
        ) from None


def card_counts(cards: tuple[Card, ...]) -> list[tuple[CardKind, list[Card]]]:
    """The cards grouped by kind, kinds in the order of :class:`CardKind`, cards sorted: the
    summary table of ``pazaak validate`` and ``pazaak decks``."""
    groups: list[tuple[CardKind, list[Card]]] = []
    for kind in CardKind:
        of_kind = sorted(card for card in cards if card.kind is kind)
        if of_kind:
            groups.append((kind, of_kind))
    return groups


# --- helpers ----------------------------------------------------------------------------------


def _effective_ruleset(parsed: ParsedDeck, ruleset: Ruleset | None) -> Ruleset:
    if ruleset is not None:
        return ruleset
    return parsed.header_ruleset or PRESETS[DEFAULT_RULESET]


def _read_header(
    header: re.Match[str],
    line: int,
    headers: dict[str, tuple[str, int, int]],
    problem: _ProblemSink,
) -> None:
    key_text, raw_value = header.group(1), header.group(2)
    key = key_text.lower()
    key_column = header.start(1) + 1
    value = raw_value.strip()
    value_column = header.start(2) + 1 + (len(raw_value) - len(raw_value.lstrip()))
    if key not in HEADER_KEYS:
        known = ", ".join(f"'{k}:'" for k in HEADER_KEYS)
        close = difflib.get_close_matches(key, HEADER_KEYS, n=1)  # ('rulset:' was only unknown)
        meant = f" (did you mean '{close[0]}:'?)" if close else ""
        problem(
            line,
            key_column,
            key_text + ":",
            f"unknown header '{key_text}:'{meant}; the headers are {known} (cards need no header)",
        )
        return
    if key in headers:
        problem(
            line,
            key_column,
            key_text + ":",
            f"a second '{key}:' header; the first is on line {headers[key][1]}",
        )
        return
    if not value:
        example = {"name": "my-deck", "ruleset": "kotor1", "description": "what it is for"}[key]
        problem(
            line,
            key_column,
            key_text + ":",
            f"the '{key}:' header is empty; write for example '{key}: {example}'",
        )
        return
    if key == "ruleset":
        try:
            parse_ruleset(value)
        except PazaakError as error:
            problem(line, value_column, value, f"{error} (in the 'ruleset:' header)")
    headers[key] = (value, line, value_column)


def _read_token(token: str) -> tuple[Card | None, str, str]:
    """(card or ``None``, the problem with it or ``''``, the token as shown) for one token."""
    shown = _shorten(_printable(token))
    if _has_undecodable(token):
        return None, "", shown  # its bytes are reported as such
    try:
        return _parse_token(token), "", shown
    except CardError as error:
        return None, str(error), shown


@cache
def _parse_token(token: str) -> Card:
    """:meth:`Card.parse` with a clearer message for over-long numbers (``+999999999999``)."""
    number = _SIGNED_NUMBER.fullmatch(token)
    if number is not None and len(number.group(1)) > 2:
        raise CardError(
            f"{_show(token)} is not a side card: the number must be 1 to {MAX_MAGNITUDE}",
            token=token,
        )
    if len(token) > 12:
        raise CardError(f"{_show(token)} is not a card; valid cards are {CARD_SYNTAX}", token=token)
    if parse_in_range(token, MAX_MAGNITUDE + 1, 10) is not None:
        raise CardError(
            f"{_show(token)} is a main-deck card, not a side card: side cards are numbered "
            f"1 to {MAX_MAGNITUDE} (+n, -n or ±n)",
            token=token,
        )
    return Card.parse(token)


def _pool_message(entry: DeckEntry, rules: Ruleset, header: str = "", given: bool = False) -> str:
    """A card ``rules`` does not allow, and the fix: for a KOTOR II gold card, where the deck
    already says it is one (``header``, its ``ruleset:`` value) or the command gave ``rules``
    (``given``: a header would not change them), the ruleset to give the command; else the
    header that makes it a KOTOR II deck (``pazaak validate`` reads it)."""
    card = entry.card
    assert card is not None
    if card in KOTOR2_POOL and card.is_gold:
        fix = "for KOTOR II write the header 'ruleset: kotor2'"
        if header and header != rules.spec:
            fix = f"this deck's header says ruleset {_show(header)}: give --ruleset {header}"
        elif given:
            fix = "for KOTOR II give the command --ruleset kotor2"
        return (
            f"{_show(entry.token)} ({card.kind.value}) is a KOTOR II gold card, not in the "
            f"{rules.spec} card pool (+1..+6, -1..-6, ±1..±6); {fix}"
        )
    allowed = " ".join(str(c) for c in sorted(rules.card_pool))
    return f"{_show(entry.token)} is not in the {rules.spec} card pool; allowed: {allowed}"


def _undecodable_runs(line: str) -> Iterator[tuple[int, str]]:
    """(column, text) of each run of bytes that were not UTF-8 (surrogate escapes)."""
    for match in re.finditer(r"[\udc80-\udcff]+", line):
        yield match.start() + 1, match.group()


def _has_undecodable(token: str) -> bool:
    return _UNDECODABLE.search(token) is not None


_TokenPlaces = tuple[int, list[int], list[str]]
"""Where a line's comment starts (-1: none), and the end columns and text of its tokens."""


def _token_places(line: str, last_column: int) -> _TokenPlaces:
    """The :data:`_TokenPlaces` of ``line`` up to ``last_column`` (the last run to be
    reported), computed once per line: looking each undecodable run up in them keeps a long line
    of bad bytes linear, not quadratic, to report."""
    comment = line.find("#")
    ends: list[int] = []
    texts: list[str] = []
    for match in _TOKEN.finditer(line if comment < 0 else line[:comment]):
        if match.start() >= last_column:
            break  # no run to report is in it or after it
        ends.append(match.end())
        texts.append(match.group())
    return comment, ends, texts


def _encoding_message(run: str, places: _TokenPlaces, column: int) -> str:
    raw = bytes(ord(char) - 0xDC00 for char in run)
    shown = " ".join(f"0x{byte:02X}" for byte in raw[:8]) + (" ..." if len(raw) > 8 else "")
    comment, ends, texts = places
    where = " in a comment" if 0 <= comment < column else ""
    index = bisect.bisect_left(ends, column)  # the first token ending at or after the run
    if index < len(ends) and ends[index] - len(texts[index]) < column:
        where = f" in {_show(_printable(texts[index]))}"
    hint = ""
    if raw[:1] == b"\xb1":
        hint = " (0xB1 is '±' in Latin-1: write ± in UTF-8, or the ASCII +-)"
    verb = "are" if len(raw) > 1 else "is"
    return (
        f"byte{'s' if len(raw) > 1 else ''} {shown}{where} {verb} not UTF-8; "
        f"save the file as UTF-8{hint}"
    )


_EXAMPLE = "+1 +1 +2 +2 +3 +3 +4 +4 +5 +5"
"""A side deck of 10 cards valid in every preset, shortened for smaller decks in examples."""


def _printable(text: str) -> str:
    """Text with each undecodable byte (a surrogate escape) written as ``\\xNN``."""
    if not _has_undecodable(text):
        return text
    return "".join(
        f"\\x{ord(char) - 0xDC00:02x}" if "\udc80" <= char <= "\udcff" else char for char in text
    )


def _shorten(token: str) -> str:
    return token if len(token) <= _SHOWN_TOKEN else token[: _SHOWN_TOKEN - 3] + "..."


def _show(token: str) -> str:
    """A token quoted for a message; escaped (repr) when it holds unprintable characters."""
    short = _shorten(token)
    return f"'{short}'" if short.isprintable() and "'" not in short else repr(short)


def _stem(source: str) -> str:
    if source.startswith(SAMPLE_PREFIX):
        return source[len(SAMPLE_PREFIX) :]
    if source == STDIN_SOURCE:
        return "stdin"
    return Path(source).stem or source


def _read_limited(handle: BinaryIO, source: str) -> bytes:
    """Read at most :data:`MAX_DECK_BYTES` (+1 to notice more); refuse larger input and binary
    data (NUL bytes)."""
    data = handle.read(MAX_DECK_BYTES + 1)
    if len(data) > MAX_DECK_BYTES:
        raise _too_large(source, "more than 1 MiB")
    if b"\x00" in data:
        raise BinaryInputError(
            f"{source}: is a binary file (it holds NUL bytes), not a deck file: a deck file is "
            f"UTF-8 text",
            token=source,
        )
    return data


class BinaryInputError(InputError):
    """Input that was read but holds NUL bytes: a binary file, not a deck file. Refused like
    unreadable input where a deck is an option's value; ``pazaak validate``, which judges
    files, counts it as an invalid deck (exit 1)."""


def _too_large(source: str, size: str) -> InputError:
    return InputError(
        f"{source}: is {size}, too large for a deck file (a deck is a few hundred bytes; "
        f"the limit is 1 MiB), so it was refused",
        token=source,
    )


def _missing(path: str) -> InputError:
    return InputError(
        f"{path}: no such file, and no sample deck of that name (`pazaak decks` lists them)",
        token=path,
    )


def _os_reason(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


# --- the sample decks -------------------------------------------------------------------------

_SAMPLE_SUFFIX = ".deck"


@cache
def _sample_files() -> dict[str, Traversable]:
    """name -> file of every sample deck: the installed package data
    (``pazaak_cli.sample_decks``), else the repository's ``sample_decks/`` beside the package
    (tests run from the source tree)."""
    found: dict[str, Traversable] = {}
    try:
        root = resources.files("pazaak_cli.sample_decks")
        for entry in root.iterdir():
            if entry.name.endswith(_SAMPLE_SUFFIX) and entry.is_file():
                found[entry.name[: -len(_SAMPLE_SUFFIX)]] = entry
    except (ModuleNotFoundError, TypeError, OSError):
        found = {}
    if not found:
        repo = Path(__file__).resolve().parents[2] / "sample_decks"
        if repo.is_dir():
            for path in repo.glob("*" + _SAMPLE_SUFFIX):
                found[path.stem] = path
    return found


def _is_sample_name(name: str) -> bool:
    return name in _sample_files()


def _sample_bytes(name: str) -> bytes:
    path = _sample_files().get(name)
    if path is None:
        raise InputError(
            f"no sample deck {name!r} (`pazaak decks` lists them)",
            token=name,
        )
    return path.read_bytes()
