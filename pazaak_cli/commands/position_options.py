"""The options that describe a table position, shared by ``pazaak advise`` and ``pazaak chart``
(and the card-list types of ``pazaak follow``): one definition and one help text each."""

from __future__ import annotations

from typing import Any

import click

from pazaak_cli.commands.common import WholeNumber
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import MAIN_VALUES
from pazaak_cli.engine.numbers import counted, parse_in_range, parse_whole
from pazaak_cli.engine.position_builder import PositionError
from pazaak_cli.engine.rules import PRESETS, MainDeck, Ruleset, parse_ruleset
from pazaak_cli.solve.models import OPPONENT_MODELS, OPTIMAL


def check_cards(cards: tuple[Card, ...], rules: Ruleset, option: str) -> None:
    """Refuse (a usage error) a card the ruleset's pool does not hold, saying which preset has
    it, as ``validate`` does: ``D is not a kotor1 card: it is a KOTOR II card (--ruleset
    kotor2)``."""
    for card in cards:
        if rules.allows(card):
            continue
        found = [name for name in PRESETS if parse_ruleset(name).allows(card)]
        where = f": {', '.join(found)} has it (--ruleset {found[0]})" if found else ""
        raise click.BadParameter(f"{card} is not a {rules.name} card{where}", param_hint=option)


class CardListType(click.ParamType):  # type: ignore[type-arg]
    """A list of side cards separated by spaces or commas (``"+1 -2 ±3"``; ``""`` is none)."""

    name = "cards"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        try:
            return parse_cards(str(value))
        except PazaakError as error:
            self.fail(str(error), param, ctx)


class MainCardListType(click.ParamType):  # type: ignore[type-arg]
    """A list of main-deck values 1..10 (``--seen "5 10 2"``)."""

    name = "values"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        values = []
        for token in str(value).replace(",", " ").split():
            number = parse_in_range(token, min(MAIN_VALUES), max(MAIN_VALUES))
            if number is None:
                shown = token if len(token) <= 20 else token[:17] + "..."
                self.fail(f"{shown!r} is not a main-deck card: write 1 to 10", param, ctx)
            values.append(number)
        return tuple(values)


class SetsType(click.ParamType):  # type: ignore[type-arg]
    """Sets won so far, ``MINE-THEIRS`` (``1-2``)."""

    name = "MINE-THEIRS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        text = str(value)
        mine, sep, theirs = text.partition("-")
        counts = (parse_whole(mine, max_digits=3), parse_whole(theirs, max_digits=3))
        if not sep or counts[0] is None or counts[1] is None:
            shown = text if len(text) <= 20 else text[:17] + "..."
            self.fail(
                f"{shown!r} is not MINE-THEIRS (two small whole numbers), e.g. 1-2", param, ctx
            )
        return counts


CARDS = CardListType()
MAIN_CARDS = MainCardListType()


opp_hand_option = click.option(
    "--opp-hand",
    type=CARDS,
    default=None,
    metavar="CARDS",
    help="The opponent's hand, if you know it (an empty string: no cards).",
)
"""``--opp-hand``: the opponent's hand when the user knows it."""

opp_hand_size_option = click.option(
    "--opp-hand-size",
    type=WholeNumber(0, None),
    default=None,
    help="How many cards the opponent holds, values unknown (averaged over its deck): at most "
    "the ruleset's hand-size.",
)
"""``--opp-hand-size``: a hidden hand, averaged over its deck (its bound is the ruleset's,
known only once every option is read: :func:`check_opp_hand_size`)."""


def check_opp_hand_size(size: int | None, rules: Ruleset) -> None:
    """Refuse an ``--opp-hand-size`` over the ruleset's hand size, naming it: a domain failure
    (exit 1), as any hand larger than the ruleset deals. The option's own bound cannot follow
    the ruleset (a fixed 10 refused variants that deal more); this runs before the hidden hand
    is built, which a size of 40 digits would not fit in memory."""
    if size is not None and size > rules.hand_size:
        raise PositionError(
            f"--opp-hand-size {size:,} is more than the {counted(rules.hand_size, 'card')} "
            f"{rules.spec} deals to a hand (its hand-size)"
        )


OPPONENT_HELP = "How the opponent plays: " + "; ".join(
    f"{model.name}: {model.help}" for model in OPPONENT_MODELS.values()
)
"""Every opponent model of the registry, in one help text."""

opponent_option = click.option(
    "--opponent",
    type=click.Choice(list(OPPONENT_MODELS)),
    default=OPTIMAL.name,
    show_default=True,
    help=f"{OPPONENT_HELP}.",
)
"""``--opponent``: the model of the opponent's play, one of the registry's."""

sets_option = click.option(
    "--sets",
    type=SetsType(),
    default="0-0",
    show_default=True,
    help="Sets won so far, yours first.",
)
"""``--sets``: the match score."""

main_deck_option = click.option(
    "--main-deck",
    type=click.Choice([m.value for m in MainDeck]),
    default=None,
    help="Override the ruleset's main-deck model (infinite: uniform 1..10).",
)
"""``--main-deck``: the ruleset's main-deck model overridden."""
