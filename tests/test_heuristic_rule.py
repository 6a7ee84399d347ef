"""``heuristic_rule`` chooses what the ``heuristic`` player chooses, and the match solver's best
reply to it is the best reply the independent reference finds against that player."""

from __future__ import annotations

import random

import pytest
from match_reference import TINY, MatchReference, decision
from reference_solver import each_move

from pazaak_cli.cards import parse_cards
from pazaak_cli.decks import load_deck
from pazaak_cli.game import END_TURN, STAND, Action, MatchState, deal_hand, new_match
from pazaak_cli.heuristic_rule import heuristic_rule
from pazaak_cli.kotor_rule import KOTOR_END_TURN, KOTOR_STAND, card_tries, kotor_rule
from pazaak_cli.match_kotor import ME, KotorMatchSolver
from pazaak_cli.match_native import make_match_solver
from pazaak_cli.players import HeuristicPlayer, RandomPlayer
from pazaak_cli.position_builder import question_from_state
from pazaak_cli.rules import parse_ruleset


def rule_action(view: MatchState) -> Action:
    """The heuristic rule's choice in ``view``, as an engine action."""
    seat = view.turn
    me, them = view.sides[seat], view.sides[1 - seat]
    hand = tuple(card for card in me.hand if card is not None)
    tries = card_tries(hand)
    plain = [(me.total + t.value, t.flexible) for t in tries]
    sets = view.sets_won()[1 - seat]
    choice = heuristic_rule(
        me.total, them.total, them.standing, sets, plain, view.played, view.ruleset
    )
    if choice == KOTOR_END_TURN:
        return END_TURN
    if choice == KOTOR_STAND:
        return STAND
    play = tries[choice].play
    assert play is not None, "no gold cards in these decks"
    return play


@pytest.mark.parametrize(
    ("ruleset", "deck"),
    [("kotor1", "kotor1-starter"), ("kotor1", "kotor1-strongest"), ("kotor1", "kotor1-strong")],
)
def test_the_rule_chooses_as_the_heuristic_player_at_every_decision(
    ruleset: str, deck: str
) -> None:
    rules = parse_ruleset(ruleset)
    cards = load_deck(deck, rules).cards
    player, other = HeuristicPlayer(), RandomPlayer(random.Random(3))
    decisions = 0
    for seed in range(150):
        rng = random.Random(seed)
        state = new_match(rules, (deal_hand(cards, rules, rng), deal_hand(cards, rules, rng)))
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            view = state.observed_by(state.turn)
            if state.turn == seed % 2:
                action = player.choose(view)
                assert rule_action(view) == action, view
                decisions += 1
            else:
                action = other.choose(view)
            state = state.child(action)
    assert decisions > 1000


def test_the_rule_never_reads_the_sets_and_differs_from_kotor() -> None:
    rules = parse_ruleset("kotor1")
    tries = ((20, False), (21, True))
    for sets in range(3):
        assert heuristic_rule(17, 15, False, sets, tries, False, rules) == 0
    # Standing on 17 against a standing 16: kotor stands (step 1), and so does the heuristic;
    # at 15 with nothing to play behind a standing 16, it draws, as kotor does too; at 18 with
    # the other player drawing on 10, the heuristic stands and kotor (no card for 18..20) also.
    assert heuristic_rule(17, 16, True, 0, (), False, rules) == KOTOR_STAND
    assert heuristic_rule(15, 16, True, 0, (), False, rules) == KOTOR_END_TURN
    # A card that passes a standing player: the heuristic plays +2 from 16 to 18 against 17,
    # where kotor (step 2 wants 18..20 with a hand that backs it) decides otherwise.
    passing = ((18, False),)
    assert heuristic_rule(16, 17, True, 0, passing, False, rules) == 0
    assert kotor_rule(16, 17, True, 0, passing, False, rules) in (0, KOTOR_END_TURN)
    # Of two cards reaching 20, the fixed one; of two fixed ones, the first; over 20, the card
    # leaving the highest total.
    assert heuristic_rule(17, 10, False, 0, ((20, True), (20, False)), False, rules) == 1
    assert heuristic_rule(17, 10, False, 0, ((20, False), (20, False)), False, rules) == 0
    assert heuristic_rule(23, 10, False, 0, ((20, True), (19, False)), False, rules) == 0


def test_the_match_solver_replies_to_the_rule_it_is_given() -> None:
    """Against either rule the best reply wins at least what optimal play guarantees against
    any opponent (the match's value with both hands known), and the two rules' values differ."""
    rules = parse_ruleset(f"kotor1/{TINY}")
    hands = (parse_cards("+1 -1"), parse_cards("+2 -2"))
    guaranteed = make_match_solver(rules).set_start_value((0, 0), hands, 0)
    against = {}
    for name, rule in (("kotor", kotor_rule), ("heuristic", heuristic_rule)):
        solver = KotorMatchSolver(rules, 0, rule=rule)
        against[name] = solver.set_start_value((0, 0), hands, ME)
        assert guaranteed - 1e-12 <= against[name] < 1.0
    assert against["heuristic"] != pytest.approx(against["kotor"], abs=1e-6)


HEURISTIC_CASES = {
    "first set, one card each": (f"kotor1/{TINY}", ("+1", "-2"), (), 0, (2,), ()),
    "one set each, the decider": (f"kotor1/{TINY}", ("+1", "-2"), (0, 1), 0, (2,), ()),
    "player 2 advised, 1-0": (f"kotor1/{TINY}", ("-1", "+1"), (0,), 0, (2, 1), ()),
    "two cards against a ± card, 0-1": (f"kotor1/{TINY}", ("+1 -1", "±2"), (1,), 0, (3,), ()),
}


@pytest.mark.parametrize("name", sorted(HEURISTIC_CASES))
def test_the_best_reply_to_the_heuristic_agrees_with_the_reference(name: str) -> None:
    """The match solver given the heuristic rule against the independent reference whose rule
    seat asks the ``heuristic`` player itself (1e-9 on every move)."""
    spec, hands, winners, opener, draws, actions = HEURISTIC_CASES[name]
    state = decision(spec, hands, winners, opener, draws, actions)
    me = state.turn
    solver = KotorMatchSolver(state.ruleset, me, rule=heuristic_rule)
    other = tuple(c for c in state.sides[1 - me].hand if c is not None)
    fast = {
        (None if r.move.card is None else str(r.move.card), r.move.value, r.move.then): r.match_win
        for r in solver.solve_moves(question_from_state(state), other, current_deck=None)
    }
    reference = MatchReference(me, kotor=1 - me, rule_player=HeuristicPlayer())
    exact = {key: reference.value(after) for key, after in each_move(state)}
    assert fast.keys() == exact.keys()
    for move, value in exact.items():
        assert fast[move] == pytest.approx(value, abs=1e-9), move
