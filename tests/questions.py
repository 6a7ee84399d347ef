"""Questions the tests ask: a position at the table against a hand held face down."""

from __future__ import annotations

from pazaak_cli.engine.cards import parse_cards
from pazaak_cli.engine.notation import parse_table
from pazaak_cli.engine.position_builder import Question, build_question
from pazaak_cli.engine.rules import parse_ruleset

INFINITE = "kotor1/main-deck=infinite"


def hidden_question(
    table: str,
    hand: str,
    opp_table: str,
    hidden: int,
    *,
    rules: str = INFINITE,
    sets: tuple[int, int] = (0, 0),
) -> Question:
    """At ``table`` holding ``hand``, against ``opp_table`` and ``hidden`` cards face down."""
    ruleset = parse_ruleset(rules)
    return build_question(
        ruleset,
        table=parse_table(table, ruleset.flip_targets),
        hand=parse_cards(hand),
        opp_table=parse_table(opp_table, ruleset.flip_targets),
        opp_stood=False,
        opp_hand=(None,) * hidden,
        sets=sets,
        seen=(),
    )
