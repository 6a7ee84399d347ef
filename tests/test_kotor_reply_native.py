"""The C loop of the set reply to a rule (``_fastreply``) against its Python reference.

Two checks: the rule's decision made in C agrees with the Python rule on random inputs, for
the KOTOR I rule and the heuristic; and the whole search in C gives, on random positions with
hands of up to four cards (gold cards with kotor2), known or hidden, the very numbers of the
Python recursion (``native=False``), to the last bit. The Python recursion is itself checked
against the exact-fraction reference in ``test_kotor_reply.py`` (whose fixed-draw positions now
run through the C loop too).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.game import MatchState, Phase, new_match
from pazaak_cli.engine.position_builder import Question, question_from_state
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.players.roster import KotorPlayer
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import DecisionRule, kotor_rule
from pazaak_cli.solve import kotor_reply
from pazaak_cli.solve.advice import solve_question
from pazaak_cli.solve.answer_types import Advice, SolveOptions

_fastreply = kotor_reply._fastreply
pytestmark = pytest.mark.skipif(_fastreply is None, reason="the C extension is not built")

RULES = {"kotor": kotor_rule, "heuristic": heuristic_rule}
PRIORS = {
    "kotor1": parse_cards("+1 -2 ±3 +4 -1 +2 ±1 -3 +5 ±2"),
    "kotor2": parse_cards("±1/2 D T F2/4 +1 -2 ±3 +4 -5 ±2"),
}
"""The side decks a hidden hand is dealt from."""


def _core(rule: DecisionRule, spec: str, their_sets: int) -> Any:
    rules = parse_ruleset(spec)
    shape = (rules.target, rules.sets_to_win, rules.table_size, False, True, False)
    return _fastreply.Core(
        [0.1] * 10, lambda *_: 0, kotor_reply.NATIVE_RULES[rule], shape, their_sets
    )


_TRIES = st.lists(st.tuples(st.integers(-12, 32), st.booleans()), max_size=10)


@settings(max_examples=1000, deadline=None)
@given(
    rule=st.sampled_from(sorted(RULES)),
    spec=st.sampled_from(["kotor1", "kotor2", "kotor1/target=25", "kotor2/sets-to-win=2"]),
    mine=st.integers(-10, 32),
    theirs=st.integers(-10, 32),
    they_stand=st.booleans(),
    their_sets=st.integers(0, 2),
    tries=_TRIES,
    played=st.booleans(),
)
def test_the_rule_decided_in_c_is_the_python_rule(
    rule: str,
    spec: str,
    mine: int,
    theirs: int,
    they_stand: bool,
    their_sets: int,
    tries: list[tuple[int, bool]],
    played: bool,
) -> None:
    rules = parse_ruleset(spec)
    python = RULES[rule](mine, theirs, they_stand, their_sets, tries, played, rules)
    core = _core(RULES[rule], spec, their_sets)
    assert core.decide(mine, theirs, they_stand, tries, played) == python


def _random_state(
    rng: random.Random, spec: str, hand_size: int, *, late: bool = False
) -> MatchState:
    """A decision of a random player somewhere in a set (``late``: on a total of 8 or more),
    the opponent playing the KOTOR rule, with hands of up to ``hand_size`` cards of the
    ruleset's pool."""
    rules = parse_ruleset(spec)
    pool = sorted(rules.card_pool, key=str)
    kotor = KotorPlayer()
    while True:
        me = rng.randrange(2)
        hands = [tuple(rng.choice(pool) for _ in range(rng.randint(0, hand_size))) for _ in "ab"]
        winners = rng.choice([(), (me,), (me, me), (1 - me,), (1 - me, me, me)])
        state = new_match(rules, (hands[0], hands[1]))._replace(set_winners=winners)
        state = state.child(state.sample_chance(rng))
        stop = rng.randint(8 if late else 0, 16)
        while state.phase in (Phase.BEFORE_DRAW, Phase.AFTER_DRAW):
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            if state.turn != me:
                state = state.child(kotor.choose(state.observed_by(state.turn)))
                continue
            if state.sides[me].total >= stop:
                return state
            actions = [a for a in state.legal_actions() if str(a) != "forfeit"]
            state = state.child(rng.choice(actions))


def _moves(advice: Advice) -> list[tuple[str, float, float]]:
    return [(str(r.move), r.outcome.p_win, r.outcome.p_loss) for r in advice.results]


@pytest.mark.parametrize(
    ("spec", "rule", "hidden", "seed", "exact"),
    [
        ("kotor1/main-deck=infinite", "kotor", False, 1, False),
        ("kotor2/main-deck=infinite", "kotor", False, 2, False),
        ("kotor2/main-deck=infinite", "heuristic", False, 3, False),
        ("kotor1", "kotor", True, 4, False),
        ("kotor2", "kotor", True, 5, False),
        ("kotor2/main-deck=infinite", "heuristic", True, 6, False),
        (
            "kotor2/main-deck=infinite,flip-targets=positive-only,nine-cards=win",
            "kotor",
            False,
            7,
            False,
        ),
        ("kotor2/main-deck=infinite,tiebreaker=any-played,table-size=5", "kotor", False, 8, False),
        ("kotor2/main-deck=infinite,target=30", "heuristic", False, 9, False),
        ("kotor1", "kotor", False, 10, True),
        ("kotor2", "heuristic", False, 11, True),
        ("kotor2/nine-cards=win,table-size=6", "kotor", True, 12, True),
    ],
)
def test_the_search_in_c_gives_the_numbers_of_the_python_search(
    monkeypatch: pytest.MonkeyPatch, spec: str, rule: str, hidden: bool, seed: int, exact: bool
) -> None:
    """``exact``: on the exact deck, drawn without replacement, whatever the search's size (the
    others take it only after a small search with fixed odds)."""
    monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", "1")  # (the positions counted: one search)
    rng = random.Random(seed)
    solver = kotor_reply.KotorReplySolver
    checked = native = 0
    while checked < (4 if hidden else 10):
        state = _random_state(rng, spec, 2 if hidden or exact else 4, late=exact)
        question = question_from_state(state)
        options = SolveOptions(opponent=rule, opponent_deck=PRIORS[spec.split("/")[0]], exact=exact)
        if hidden:
            other = state.turn ^ 1
            count = len(state.sides[other].hand)
            if count == 0 or state.sides[other].standing:
                continue
            hidden_hand: tuple[Card | None, ...] = (None,) * count
            sides = list(state.sides)
            sides[other] = sides[other]._replace(hand=hidden_hand)
            question = Question(question.state._replace(sides=(sides[0], sides[1])), question.drawn)
        answers = []
        made: list[kotor_reply.KotorReplySolver] = []
        for use_c in (True, False):

            def make(*args: Any, use_c: bool = use_c, made: list[Any] = made, **kwargs: Any) -> Any:
                assert kwargs["rule"] is RULES[rule]  # (the registry's rule for the name)
                made.append(solver(*args, native=use_c, **kwargs))
                return made[-1]

            monkeypatch.setattr(kotor_reply, "KotorReplySolver", make)
            answers.append(solve_question(question, options))
            if exact and answers[0].states > 30_000:
                break  # (a search too long for the Python one here)
        if len(answers) < 2:
            continue
        c, python = answers
        assert _moves(c) == _moves(python), str(state)
        assert c.states == python.states
        assert c.fixed_probabilities == python.fixed_probabilities
        native += any(s.native and (s.fixed is None) == exact for s in made)
        checked += 1
    assert native  # (some searches ran in C: on the exact deck where asked)
