"""``pazaak prepare --opponent kotor``: every match state two side decks can meet against a rule.

The match answer against a rule (the KOTOR I rule, the heuristic) keeps its values in the disk
cache as the optimal opponent's do (one file per ruleset, rule and advised seat:
:mod:`pazaak_cli.solve.match_cache`). Preparing a deck pair solves all of them ahead: each of
my hands in turn against every hand of theirs, in each order of it the rule tells apart, the
match states shared between two processes where allowed
(``KotorMatchSolver.prepare_in_two``). Its values are functions of their keys
(``KotorMatchSolver._settle``), so what one process or two, in any order, solve is the same to
the last bit, and a preparation stopped and run again goes on where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.rules import Ruleset
from pazaak_cli.policies.kotor_rule import DecisionRule
from pazaak_cli.solve.deck_pair_prepare import PREPARE_SAVE_SECONDS, Prepared
from pazaak_cli.solve.hidden_hands import possible_hands
from pazaak_cli.solve.match_advice import shared_kotor_solver
from pazaak_cli.solve.match_cache import MAX_ENTRIES, save_entries
from pazaak_cli.solve.match_kotor import match_hand_orders


def prepare_deck_pair_against_rule(
    rules: Ruleset,
    my_deck: Sequence[Card],
    their_deck: Sequence[Card],
    rule: DecisionRule,
    *,
    seat: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Prepared:
    """Solve the value of every match state two side decks can meet, the opponent deciding by
    ``rule`` (me in ``seat``), into the shared solver against it and the disk cache: every
    later question of a match between them against that rule, from its first move, then leaves
    only its set in progress to solve. ``progress(done, total)`` after each of my hands. What
    is known already is not solved again; Ctrl-C saves what was solved first. A deck pair whose
    values the cache cannot hold (:data:`~pazaak_cli.solve.match_cache.MAX_ENTRIES`) is
    refused before any solving."""
    mine = [hand for hand, _ in possible_hands(my_deck, rules.hand_size)]
    theirs = [hand for hand, _ in possible_hands(their_deck, rules.hand_size)]
    solver = shared_kotor_solver(rules, seat, rule)
    groups = [[solver.opp.hand(order) for order in match_hand_orders(hand)] for hand in theirs]
    its_hands = [hand for group in groups for hand in group]
    states: set[tuple[int, int, int, int]] = set()
    for my_cards in mine:
        states.update(solver.states_below((0, 0), solver.me.hand(my_cards), its_hands))
    values = len(states) * solver.opener_count
    known = solver.entry_count
    if values > MAX_ENTRIES or known + values > MAX_ENTRIES:
        raise PazaakError(
            f"these decks meet in {values:,} match states against this rule, and the cache "
            f"keeps {MAX_ENTRIES:,} values in all ({known:,} held now): give PAZAAK_CACHE_DIR "
            "another directory, or delete the cache's files to start it afresh"
        )
    missing = values - sum(solver.holds(state) for state in states)
    saved_at = time.monotonic()
    try:
        for done, my_cards in enumerate(mine):
            my_hand = solver.me.hand(my_cards)
            if not solver.prepare_in_two((0, 0), my_hand, groups):
                solver.prepare((0, 0), my_hand, its_hands)
            if progress is not None:
                progress(done + 1, len(mine))
            if time.monotonic() - saved_at > PREPARE_SAVE_SECONDS:
                save_entries(solver)
                saved_at = time.monotonic()
    except BaseException:
        if solver.entry_count > known:
            save_entries(solver)  # (Ctrl-C: the next preparation starts from here)
        raise
    saved = save_entries(solver)
    return Prepared(len(mine), len(theirs), values, missing, saved)


__all__ = ["prepare_deck_pair_against_rule"]
