"""The C loop of the match reply to a rule (``_fastkotormatch``) against its Python reference.

Two checks: the rule's choice made in C (its turn-end code after each draw, over a match: the
sides keep their hands) is the Python rule's, on random sides and totals, for the KOTOR I rule
and the heuristic; and the whole search in C gives, on seeded random small positions (known
hands, kotor1 and kotor2 rules, every first-player rule, scores, the opponent playing or
standing, the set in progress on its exact deck or with fixed odds), every move's value and set
odds of the Python recursion (``native=False``) to 1e-12, searching no more positions (C reads
again, from one value tried for a match state to the next, the positions whose choices stand,
where Python solves them again: the same bits, checked on whole hands below). The
Python recursion is itself checked against the engine-state reference in ``test_match_kotor.py``
(whose solvers now run in C).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.game import FULL_DECK, MatchState, Phase, new_match
from pazaak_cli.engine.position_builder import question_from_state
from pazaak_cli.engine.rules import MainDeck, parse_ruleset
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import DecisionRule, kotor_rule
from pazaak_cli.solve import match_kotor
from pazaak_cli.solve.answer_types import SolverTooLarge
from pazaak_cli.solve.match_kotor import KotorMatchSolver, _flat_turn
from pazaak_cli.solve.match_pipeline import StateSplit
from pazaak_cli.solve.match_solver import MatchMove
from pazaak_cli.solve.rule_opponent import BUST, PLAYING, STANDING, Playing, RuleSeat
from pazaak_cli.solve.solver import deck_after_draw

pytestmark = pytest.mark.skipif(
    match_kotor._fastkotormatch is None, reason="the C extension is not built"
)

RULES: dict[str, DecisionRule] = {"kotor": kotor_rule, "heuristic": heuristic_rule}
SPECS = ["kotor1", "kotor2", "kotor2/tiebreaker=any-played,nine-cards=win"]
"""The rulesets the rule's choice is checked under."""
SMALL = "target=6,table-size=3,sets-to-win=2,hand-size=2"
"""Small matches the Python recursion solves in milliseconds: first to 2 sets, a target of 6 on
3 cards, two hand cards at most."""


# -- the rule's choice ---------------------------------------------------------------------------


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("spec", SPECS)
def test_the_rules_choice_in_c_is_the_python_rules(rule: str, spec: str) -> None:
    """On random sides of the rule's seat (hands of up to four cards of the ruleset's pool, a
    few cards placed), facing random totals, standing or not, at every score: the codes the C
    rule reaches after each draw are those of ``RuleSeat.replies`` (the Python rule), and asked
    again the same, kept by the direct index or, for a total past it (below -32), the hash."""
    rules = parse_ruleset(spec)
    pool = sorted(rules.card_pool, key=str)
    rng = random.Random(f"{rule} {spec}")
    solver = KotorMatchSolver(rules, 0, rule=RULES[rule])
    assert solver.native
    seat = solver.opp
    checked = 0
    while checked < 600:
        cards = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        hand = seat.hand(cards)
        side: Playing = (0, 0, hand, 0, 0, False)
        for _ in range(rng.randint(0, 3)):
            side = seat.add(side, rng.randint(1, 10), hand)
        if side[0] >= rules.target:
            continue
        opp = seat.side(side)
        theirs = rng.randint(0, rules.target) if rng.random() < 0.9 else rng.randint(-40, -33)
        stands = rng.random() < 0.5
        sets = rng.randrange(rules.sets_to_win)
        solver._sync()
        in_c = solver._core.replies(opp, theirs, stands, sets)
        solver._sync()  # (the C rule asked Python for turns: their sides are told now)
        assert tuple(in_c)[1:] == seat.replies(opp, theirs, stands, sets)[1:], (cards, side)
        assert solver._core.replies(opp, theirs, stands, sets) == in_c
        checked += 1


@pytest.mark.parametrize(
    "spec", [*SPECS, "kotor2/flip-targets=positive-only", "kotor2/nine-cards=win"]
)
def test_the_rules_turns_built_in_c_are_the_python_seats(spec: str) -> None:
    """On random sides of the rule's seat (hands of up to four cards of the ruleset's pool,
    draws and hand cards placed, up to a table one card short of full), after each draw: the
    turn the C loop builds is the Python seat's (``RuleSeat.turn``, flattened), and the sides it
    numbered on the way are the ones Python numbers, in the same order (a seat beside it, given
    the same hands and sides, numbers its own turns' sides)."""
    rules = parse_ruleset(spec)
    pool = sorted(rules.card_pool, key=str)
    rng = random.Random(f"turns {spec}")
    solver = KotorMatchSolver(rules, 0)
    assert solver.native
    seat, python = solver.opp, RuleSeat(rules, kotor_rule, over_match=True)
    built = 0
    while built < 2000:
        cards = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        hand = seat.hand(cards)
        assert python.hand(cards) == hand
        side: Playing = (0, 0, hand, 0, 0, False)
        for _ in range(rng.randint(0, rules.table_size - 1)):
            drawn = rng.randint(1, 10)
            side = seat.add(side, drawn, side[2])
            if seat.plays[side[2]] and rng.random() < 0.3:
                side = seat.play(side, drawn, rng.choice(seat.plays[side[2]]))
        if side[0] >= rules.target or (side[1] and side[1] >= rules.table_size):
            continue
        opp = seat.side(side)
        assert python.side(side) == opp
        solver._sync()
        for drawn in range(1, 11):
            assert solver._core.turn(opp, drawn) == tuple(_flat_turn(python.turn(opp, drawn))), (
                cards,
                side,
                drawn,
            )
            built += 1
        solver._pull_their_sides()
        assert seat.sides == python.sides
    assert len(seat.sides) > 1000  # (the turns numbered sides of every kind)
    assert {seat.kind[code] for code in range(len(seat.sides))} >= {PLAYING, STANDING, BUST}


# -- the whole search ----------------------------------------------------------------------------


def _random_state(rng: random.Random, spec: str) -> MatchState:
    """A decision of the advised player somewhere in a set: random hands of up to two cards of
    the ruleset's pool, a random score, random moves of both players on the way (the opponent's
    included: any position may be asked about)."""
    rules = parse_ruleset(spec)
    pool = sorted(rules.card_pool, key=str)
    while True:
        me = rng.randrange(2)
        hands = [tuple(rng.choice(pool) for _ in range(rng.randint(0, 2))) for _ in "ab"]
        winners = rng.choice([(), (me,), (1 - me,), (me, 1 - me), (None,), (None, me)])
        state = new_match(rules, (hands[0], hands[1]))._replace(set_winners=winners)
        state = state.child(state.sample_chance(rng))
        stop = rng.randint(0, rules.target - 1)
        while state.phase in (Phase.BEFORE_DRAW, Phase.AFTER_DRAW):
            if state.is_chance_node():
                state = state.child(state.sample_chance(rng))
                continue
            if state.turn == me and state.sides[me].total >= stop:
                return state
            actions = [a for a in state.legal_actions() if str(a) != "forfeit"]
            state = state.child(rng.choice(actions))


def _moves(
    solver: KotorMatchSolver, state: MatchState, exact: bool, other: Sequence[Card]
) -> list[MatchMove]:
    question = question_from_state(state)
    deck: tuple[int, ...] | None = None
    if state.ruleset.main_deck is not MainDeck.INFINITE:
        after = deck_after_draw(state, question.drawn)
        deck = after if any(after) else FULL_DECK
    return solver.solve_moves(question, other, current_deck=deck, exact=exact)


@pytest.mark.parametrize(
    ("spec", "rule", "exact", "seed"),
    [
        (f"kotor1/main-deck=infinite,{SMALL}", "kotor", False, 1),
        (f"kotor2/main-deck=infinite,{SMALL}", "kotor", False, 2),
        (f"kotor2/main-deck=infinite,{SMALL}", "heuristic", False, 3),
        (f"kotor1/{SMALL}", "kotor", True, 4),
        (f"kotor1/{SMALL}", "kotor", False, 5),
        (f"kotor2/{SMALL}", "heuristic", True, 6),
        (f"kotor1/main-deck=infinite,{SMALL},first-player=alternate", "kotor", False, 7),
        (f"kotor1/main-deck=infinite,{SMALL},first-player=loser", "heuristic", False, 8),
        (
            f"kotor2/main-deck=infinite,{SMALL},first-player=player1,nine-cards=win",
            "kotor",
            False,
            9,
        ),
        (f"kotor2/{SMALL},tiebreaker=any-played,flip-targets=positive-only", "kotor", True, 10),
    ],
)
def test_the_search_in_c_gives_the_values_of_the_python_search(
    spec: str, rule: str, exact: bool, seed: int
) -> None:
    """Every move's match value and set odds, and the positions solved, equal; one solver of
    each kind answers all the positions of a seed in turn (what a ``play`` match asks of it)."""
    rng = random.Random(seed)
    rules = parse_ruleset(spec)
    solvers = {
        (seat, native): KotorMatchSolver(rules, seat, rule=RULES[rule], native=native)
        for seat in (0, 1)
        for native in (True, False)
    }
    for _ in range(8):
        state = _random_state(rng, spec)
        other = tuple(card for card in state.sides[1 - state.turn].hand if card is not None)
        native, reference = solvers[(state.turn, True)], solvers[(state.turn, False)]
        assert native.native and not reference.native
        c, python = (_moves(solver, state, exact, other) for solver in (native, reference))
        assert [r.move for r in c] == [r.move for r in python], str(state)
        for got, expected in zip(c, python, strict=True):
            assert got.match_win == pytest.approx(expected.match_win, abs=1e-12), got.move
            assert got.set_win == pytest.approx(expected.set_win, abs=1e-12), got.move
            assert got.set_tie == pytest.approx(expected.set_tie, abs=1e-12), got.move
        assert native.states <= reference.states  # (C reads again what a new try leaves standing)
        assert native.fixed_point_solves == reference.fixed_point_solves
    for (_, in_c), solver in solvers.items():  # (every slope in the main table was +0.0)
        assert not in_c or solver._core.sloped_held == 0


def test_hidden_hand_orders_and_set_starts_agree() -> None:
    """The hidden hand's average over the orders that change the rule's choices (gold cards),
    and the value of a set start at every score, as in Python."""
    rules = parse_ruleset(f"kotor2/main-deck=infinite,{SMALL}")
    state = _random_state(random.Random(11), f"kotor2/main-deck=infinite,{SMALL}")
    question = question_from_state(state)
    seat = state.turn
    other = parse_cards("D +1")
    got = [
        KotorMatchSolver(rules, seat, native=native).solve_moves(
            question, other, current_deck=None, orders=True
        )
        for native in (True, False)
    ]
    assert [r.match_win for r in got[0]] == pytest.approx([r.match_win for r in got[1]], abs=1e-12)
    hands = (tuple(parse_cards("T +1")), tuple(parse_cards("F2/4 -1")))
    for scores in ((0, 0), (1, 0), (0, 1), (1, 1)):
        for opener in (match_kotor.ME, match_kotor.OPP):
            values = [
                KotorMatchSolver(rules, 0, native=native).set_start_value(scores, hands, opener)
                for native in (True, False)
            ]
            assert values[0] == pytest.approx(values[1], abs=1e-12)


def test_a_budget_stops_the_c_search_and_leaves_the_solver_exact() -> None:
    """A budget that stops a fixed point half way (the C loop raises the solver's error) leaves
    the solver as a fresh one; a bounded memo emptied between match states answers the same."""
    rules = parse_ruleset(f"kotor1/main-deck=infinite,{SMALL}")
    state = _random_state(random.Random(12), f"kotor1/main-deck=infinite,{SMALL}")
    question = question_from_state(state)
    other = tuple(card for card in state.sides[1 - state.turn].hand if card is not None)
    seat = state.turn
    fresh = KotorMatchSolver(rules, seat).solve_moves(question, other, current_deck=None)
    solver = KotorMatchSolver(rules, seat)
    for budget in (5, 40, 200):
        with pytest.raises(SolverTooLarge):
            solver.solve_moves(question, other, current_deck=None, budget=budget)
    again = solver.solve_moves(question, other, current_deck=None)
    assert [r.match_win for r in again] == pytest.approx([r.match_win for r in fresh], abs=1e-12)
    bounded = KotorMatchSolver(rules, seat, max_states=50)
    answer = bounded.solve_moves(question, other, current_deck=None)
    assert [r.match_win for r in answer] == pytest.approx([r.match_win for r in fresh], abs=1e-12)


def test_native_false_and_an_unknown_rule_keep_python() -> None:
    rules = parse_ruleset("kotor1")
    assert KotorMatchSolver(rules, 0).native
    assert not KotorMatchSolver(rules, 0, native=False).native

    def other_rule(*args: object) -> int:
        return int(kotor_rule(*args))  # type: ignore[arg-type]

    assert not KotorMatchSolver(rules, 0, rule=other_rule).native


def test_sides_numbered_again_between_searches_give_the_same_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past :data:`match_kotor.NATIVE_SIDES` sides the solver forgets its sides and starts a
    new C loop between two match states (a solver shared by a whole session): the values do
    not change."""
    spec = f"kotor2/main-deck=infinite,{SMALL}"
    rules = parse_ruleset(spec)
    rng = random.Random(13)
    states = [_random_state(rng, spec) for _ in range(4)]
    monkeypatch.setattr(match_kotor, "NATIVE_SIDES", 20)
    started: list[int] = []
    start = KotorMatchSolver._start_core

    def counted(solver: KotorMatchSolver, rule_id: int) -> None:
        started.append(rule_id)
        start(solver, rule_id)

    monkeypatch.setattr(KotorMatchSolver, "_start_core", counted)
    renumbered = {seat: KotorMatchSolver(rules, seat) for seat in (0, 1)}
    for state in states:
        other = tuple(card for card in state.sides[1 - state.turn].hand if card is not None)
        got = _moves(renumbered[state.turn], state, False, other)
        expected = _moves(KotorMatchSolver(rules, state.turn, native=False), state, False, other)
        assert [r.match_win for r in got] == pytest.approx(
            [r.match_win for r in expected], abs=1e-12
        )
        assert [r.set_win for r in got] == pytest.approx([r.set_win for r in expected], abs=1e-12)
    assert len(started) > 2  # (numbered again: more C loops than the two solvers')


def _in_a_small_table(monkeypatch: pytest.MonkeyPatch, exact: bool) -> tuple[Any, Any]:
    """A small match state's moves (on its exact deck or with fixed odds) solved by a C loop
    whose main table holds 1,024 slots at most (on an exact deck too: ``exact``), checked
    against Python's; the C solver and its moves."""
    spec = f"kotor1/{SMALL}"
    rules = parse_ruleset(spec)
    state = _random_state(random.Random(14), spec)
    other = tuple(card for card in state.sides[1 - state.turn].hand if card is not None)
    reference = _moves(KotorMatchSolver(rules, state.turn, native=False), state, exact, other)
    monkeypatch.setattr(match_kotor, "NATIVE_MEMO_ENTRIES", 1)
    if exact:
        monkeypatch.setattr(match_kotor, "NATIVE_EXACT_MEMO_ENTRIES", 1)
    solver = KotorMatchSolver(rules, state.turn)
    assert solver._core.main_bound == 1024 and not solver._core.main_evicts
    got = _moves(solver, state, exact, other)
    assert solver._core.replaced > 0
    assert [r.move for r in got] == [r.move for r in reference]
    assert [r.match_win for r in got] == pytest.approx([r.match_win for r in reference], abs=1e-12)
    assert [r.set_win for r in got] == pytest.approx([r.set_win for r in reference], abs=1e-12)
    return solver, (state, other)


def test_a_main_table_that_forgets_at_once_gives_the_same_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The main table is a cache: at its least bound (1,024 slots) it forgets again and again,
    and the values are still Python's; a set drawn without replacement lets it grow to
    :data:`match_kotor.NATIVE_EXACT_MEMO_ENTRIES` from then on."""
    solver, (state, other) = _in_a_small_table(monkeypatch, exact=False)
    _moves(solver, state, True, other)
    assert solver._core.main_bound == match_kotor.NATIVE_EXACT_MEMO_ENTRIES


def test_on_an_exact_deck_the_main_table_at_its_bound_gives_a_new_position_its_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On an exact deck the main table at its bound does not forget every entry: each new
    position takes the slot of its home (a search may need four times what the table holds).
    At 1,024 slots it does so again and again (never more than half full), and the values are
    still Python's; with fixed odds it still forgets at once (above)."""
    solver, _ = _in_a_small_table(monkeypatch, exact=True)
    core = solver._core
    assert core.main_evicts and core.main_bound == 1024 and core.held <= 512


def test_the_values_do_not_depend_on_the_order_or_on_what_the_tables_forgot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A converged match state's card-free positions are dropped, not moved along their slopes
    (``KotorMatchSolver._settle``), so every value is a pure function of its key: the possible
    hands of an opponent solved forward in one solver, backward in another, each in a fresh one,
    in Python, or in a main table that forgets at once give the same bits, and so may two
    processes sharing an exact average."""
    spec = f"kotor1/main-deck=infinite,{SMALL}"
    rules = parse_ruleset(spec)
    state = new_match(rules, (tuple(parse_cards("+1 -2")), ()))
    state = state._replace(set_winners=(0, None))
    draws = random.Random(15)
    while state.is_chance_node():  # (who opens, the first draw)
        state = state.child(state.sample_chance(draws))
    pool = sorted(rules.card_pool, key=str)
    rng = random.Random(16)
    hands = [tuple(rng.sample(pool, 2)) for _ in range(8)]

    def values(solver: KotorMatchSolver, order: Sequence[int]) -> dict[int, list[float]]:
        return {i: [r.match_win for r in _moves(solver, state, False, hands[i])] for i in order}

    seat = state.turn
    forward = values(KotorMatchSolver(rules, seat), range(8))
    backward = values(KotorMatchSolver(rules, seat), range(7, -1, -1))
    alone = {i: values(KotorMatchSolver(rules, seat), [i])[i] for i in range(8)}
    python = values(KotorMatchSolver(rules, seat, native=False), range(7, -1, -1))
    monkeypatch.setattr(match_kotor, "NATIVE_MEMO_ENTRIES", 1)
    forgetting = KotorMatchSolver(rules, seat)
    forgot = values(forgetting, range(8))
    assert forgetting._core.replaced > 0
    assert forward == backward == alone == python == forgot


def test_two_processes_give_the_exact_average_of_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact match answer about a hidden hand against the rule, its later sets and then its
    possible hands shared by two processes (every other score, then a run of hands each), is
    the one process's, byte for byte."""
    from click.testing import CliRunner

    from pazaak_cli.cli import main
    from pazaak_cli.solve import match_advice

    args = ["advise", "--ruleset", f"kotor1/main-deck=infinite,{SMALL}", "--table", "2"]
    args += ["--hand", "+1 -2", "--opp-table", "", "--opp-hand-size", "2", "--sets", "0-1"]
    args += ["--opponent", "kotor", "--objective", "match", "--time", "0", "--json"]
    outputs = []
    monkeypatch.setattr(match_kotor, "SPLIT_MIN_STATES", 1)  # (the later sets split too)
    for processes in (1, 2):
        match_advice.clear_shared_solvers()
        monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", str(processes))
        monkeypatch.setattr(match_advice, "hand_processes", lambda hands, n=processes: n)
        result = CliRunner().invoke(main, args, prog_name="pazaak")
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert json.loads(outputs[0])["hands_averaged"] >= 4
    assert outputs[0] == outputs[1]


def test_a_sample_s_later_sets_in_two_processes_give_the_one_process_answer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The sampled match answer against the rule (a hand count, as a time budget asks for
    hands) solves each batch's later sets in two processes first: the same bytes as one
    process, and the split really taken."""
    from click.testing import CliRunner

    from pazaak_cli.cli import main
    from pazaak_cli.solve import match_advice

    args = ["advise", "--ruleset", f"kotor1/main-deck=infinite,{SMALL}", "--table", "2"]
    args += ["--hand", "+1 -2", "--opp-table", "", "--opp-hand-size", "2", "--sets", "0-1"]
    args += ["--opponent", "kotor", "--objective", "match", "--hands", "3", "--json"]
    monkeypatch.setattr(match_kotor, "SPLIT_MIN_STATES", 1)
    split: list[bool] = []
    prepare_in_two = KotorMatchSolver.prepare_in_two

    def recorded(self: KotorMatchSolver, *args: Any, **kwargs: Any) -> bool:
        split.append(prepare_in_two(self, *args, **kwargs))
        return split[-1]

    monkeypatch.setattr(KotorMatchSolver, "prepare_in_two", recorded)
    outputs = []
    for processes in (1, 2):
        match_advice.clear_shared_solvers()
        split.clear()
        monkeypatch.setenv("PAZAAK_SOLVER_PROCESSES", str(processes))
        monkeypatch.setenv("PAZAAK_CACHE_DIR", str(tmp_path / f"cache-{processes}"))  # (cold)
        result = CliRunner().invoke(main, args, prog_name="pazaak")
        assert result.exit_code == 0, result.output
        assert any(split) == (processes == 2)
        outputs.append(result.output)
    assert json.loads(outputs[0])["hands_solved"] == 3
    assert outputs[0] == outputs[1]


def _later_sets(spec: str) -> tuple[KotorMatchSolver, int, list[list[int]]]:
    """A solver, my hand and eight possible hands of the opponent (one order each)."""
    rules = parse_ruleset(spec)
    solver = KotorMatchSolver(rules, 0)
    pool = sorted(rules.card_pool, key=str)
    rng = random.Random(17)
    hands = [[solver.opp.hand(rng.sample(pool, 2))] for _ in range(8)]
    return solver, solver.me.hand(parse_cards("+1 -2")), hands


@pytest.mark.parametrize("first", ["alternate", "loser", "random"])
def test_the_later_sets_solved_in_two_processes_are_those_of_one(
    monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """``prepare_in_two`` (every other score to a forked copy, the values through a shared
    table) gives every match state the bits one process's hand-by-hand ``prepare`` gives, the
    copy having solved some of them; and when the copy dies at once, this process solves its
    states: the same bits again."""
    spec = f"kotor1/main-deck=infinite,{SMALL},first-player={first}"
    one, my_hand, groups = _later_sets(spec)
    for group in groups:
        one.prepare((0, 0), my_hand, group)
    monkeypatch.setattr(match_kotor, "SPLIT_MIN_STATES", 1)
    solved_here = []
    solve_entry = KotorMatchSolver._solve_entry

    def counted(self: KotorMatchSolver, match: tuple[int, int, int, int], spec: int) -> float:
        solved_here.append(match)  # (in this process only: the copy counts in its own memory)
        return solve_entry(self, match, spec)

    monkeypatch.setattr(KotorMatchSolver, "_solve_entry", counted)
    two, _, _ = _later_sets(spec)
    assert two.prepare_in_two((0, 0), my_hand, groups)
    states = {match for match, _ in one._entries}
    assert 0 < len(set(solved_here)) < len(states)
    assert two._entries == one._entries
    monkeypatch.setattr(KotorMatchSolver, "_split_child", lambda self, split: os._exit(1))
    lost, _, _ = _later_sets(spec)
    assert lost.prepare_in_two((0, 0), my_hand, groups)
    assert lost._entries == one._entries


def test_a_state_split_waits_only_for_the_other_seats_earlier_states() -> None:
    """The states of a split go a score at a time to each seat in turn; a seat waits for the
    other's value only for a state before the one it is solving (never one the other could be
    waiting on it for), and a spec the solve did not set reads as none."""
    states = [(1, 1, 0, 0), (1, 1, 0, 1), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 0)]
    split = StateSplit(states)
    try:
        assert split.owner == [0, 0, 1, 0, 1]
        assert split.mine() == [(1, 1, 0, 0), (1, 1, 0, 1), (0, 1, 0, 0)]
        split.start((0, 1, 0, 0))
        assert split.elsewhere((1, 0, 0, 0))
        assert not split.elsewhere((0, 0, 0, 0))  # (after the state solved here)
        assert not split.elsewhere((1, 1, 0, 1))  # (this seat's)
        assert not split.elsewhere((2, 2, 0, 0))  # (not in the split)
        split.publish((1, 0, 0, 0), {0: 0.25, 1: 0.5})
        assert (split.value((1, 0, 0, 0), 0), split.value((1, 0, 0, 0), 2)) == (0.25, None)
        assert split.values() == {((1, 0, 0, 0), 0): 0.25, ((1, 0, 0, 0), 1): 0.5}
        split.lost = True
        assert not split.elsewhere((1, 0, 0, 0))
    finally:
        split.close()


@pytest.mark.parametrize("first_player", ["player1", "loser", "random", "alternate"])
def test_positions_read_again_from_one_try_to_the_next_give_the_same_bits(
    first_player: str,
) -> None:
    """A match state's fixed point tried at several values: the C loop keeps the positions of
    one try whose choices stand at the next (their lines in the value tried do not read it), so
    it searches fewer positions than Python, which solves them all again; every state's value
    is the same to the last bit, and so are the tries. Under the alternating openers a card-free
    tie reads the other opener's line of the same try, so nothing is kept."""
    spec = f"kotor1/main-deck=infinite,{SMALL},first-player={first_player}"
    rules = parse_ruleset(spec)
    solved = {}
    for native in (True, False):
        solver = KotorMatchSolver(rules, native=native)
        solver.prepare_hand((0, 0), parse_cards("+1 -2"), parse_cards("+2 -3"))
        solved[native] = (dict(solver._entries), solver.fixed_point_solves, solver.states)
    (c_values, c_tries, c_states), (values, tries, states) = solved[True], solved[False]
    assert c_values == values
    assert c_tries == tries
    if first_player == "alternate":  # (one fixed point gives both openers' values)
        assert c_states == states
    else:
        assert tries > len(values)  # (some states tried more than one value)
        assert c_states < states


def test_a_forked_copys_own_main_table_holds_the_same_positions() -> None:
    """``own_tables`` (what both processes of ``prepare_in_two`` do once forked: the main table
    in memory of their own, in huge pages for the long search) keeps every position, whichever
    memory it moves to: the same question asked again searches none and gives the same bits."""
    rules = parse_ruleset("kotor1")
    solver = KotorMatchSolver(rules)
    mine, theirs = parse_cards("+1 -2 +3"), parse_cards("+2 -3 +4")
    solver.prepare_hand((2, 2), mine, theirs)
    core = solver._core
    assert core.main_slots * 16 >= 1 << 22  # (large enough to be mapped in huge pages)
    key = (2, 2, solver.me.hand(mine), solver.opp.hand(theirs))
    first = [solver._root(key, opener) for opener in (match_kotor.ME, match_kotor.OPP)]
    held, searched = core.held, solver.states
    for huge in (True, False, True):
        core.own_tables(huge)
        assert core.held == held and core.huge_pages == huge
        again = [solver._root(key, opener) for opener in (match_kotor.ME, match_kotor.OPP)]
        assert again == first and solver.states == searched
