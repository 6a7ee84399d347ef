"""The exact deck's memory bound: in the pure-Python match solver and the replies to the KOTOR
rule, a set in progress drawn without replacement may add only as many positions as fit
:data:`~pazaak_cli.solve.match_solver.EXACT_MEMORY_BYTES` beside what the process holds, whatever
budget it was given (``--exact``: none), and is refused past it with the reason; without
``--exact`` that refusal still falls back to fixed draw probabilities.

Each bound is checked from both sides: a room a tenth short of what the question needs is
refused, the room it needs (and one position more) is answered, with the numbers of the solve
without a bound. The C match core and the C loop of the set reply need no such bound: their
positions drawn exactly are a cache of a fixed size, answered in any room."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from click.testing import CliRunner, Result

from pazaak_cli.cli import main
from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.notation import parse_table
from pazaak_cli.engine.position_builder import Question, build_question
from pazaak_cli.engine.rules import parse_ruleset
from pazaak_cli.solve import kotor_reply, match_advice, match_native, match_solver
from pazaak_cli.solve.answer_types import SolverTooLarge
from pazaak_cli.solve.match_advice import clear_shared_solvers
from pazaak_cli.solve.match_kotor import KotorMatchSolver
from pazaak_cli.solve.match_native import native_available
from pazaak_cli.solve.match_solver import MatchMove, MatchSolver
from pazaak_cli.solve.solver import deck_after_draw

RULES = parse_ruleset("kotor1")

SMALL = ["--table", "8 5", "--hand", "", "--opp-table", "10 7", "--opp-hand", "", "--sets", "2-2"]
"""Both still drawing, no hand cards, at 2-2: a small exact solve (1,726 positions for the match
solver), and no later score to solve."""


def small_question() -> Question:
    """The question of :data:`SMALL`."""
    return build_question(
        RULES,
        table=parse_table("8 5", RULES.flip_targets),
        hand=(),
        opp_table=parse_table("10 7", RULES.flip_targets),
        opp_stood=False,
        opp_hand=(),
        sets=(2, 2),
    )


AnySolver = MatchSolver | KotorMatchSolver

CASES: dict[str, tuple[Callable[[int], AnySolver], Callable[[], int]]] = {
    "pure": (lambda seat: MatchSolver(RULES), lambda: match_solver.EXACT_POSITION_BYTES),
    "kotor": (
        lambda seat: KotorMatchSolver(RULES, seat),
        lambda: KotorMatchSolver(RULES, 0).exact_position_bytes,  # (C or Python's figure)
    ),
}
"""Each match solver (made for the seat it advises), and the bytes a position its cap counts."""


def solve_exact(
    solver: AnySolver, question: Question, other: tuple[Card, ...] = ()
) -> list[MatchMove]:
    """The exact solve of ``question``, the opponent holding ``other``."""
    deck = deck_after_draw(question.state, question.drawn)
    return solver.solve_moves(question, other, current_deck=deck, exact=True)


def needed_positions(solver: AnySolver, question: Question, other: tuple[Card, ...] = ()) -> int:
    """The positions the exact solve of ``question`` adds, as its budget counts them (the
    match solver's from after its later sets are prepared, the KOTOR one's with them)."""
    if isinstance(solver, MatchSolver):
        hands = ((), other) if question.state.turn == 0 else (other, ())
        solver.prepare(question.state.sets_won(), hands)
    before = solver.states
    solve_exact(solver, question, other)
    return solver.states - before


@pytest.mark.parametrize("name", list(CASES))
def test_the_exact_deck_is_refused_short_of_the_room_it_needs_and_answered_within_it(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, position_bytes = CASES[name]
    question = small_question()
    seat = question.state.turn
    needed = needed_positions(make(seat), question)
    assert needed > 1000
    unbounded = solve_exact(make(seat), question)
    monkeypatch.setattr(match_solver, "resident_bytes", lambda: 0)  # (the room is exact)
    # (the match solver checks its budget before each position before a draw: the last few
    # of a search, after a draw, may pass a room one short; the KOTOR one counts the position
    # it is about to hold: it needs one more)
    for room in (needed * 9 // 10, needed + 1):
        monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", room * position_bytes())
        solver = make(seat)
        if room < needed:
            with pytest.raises(SolverTooLarge) as refused:
                solve_exact(solver, question)
            message = str(refused.value)
            assert f"exact 36-card deck needs more than {room:,} positions" in message
            assert message.endswith(
                "drop --exact for the answer that draws it with the fixed odds of the cards left"
            )
        else:
            assert solve_exact(solver, question) == unbounded


def test_the_kotor_match_solver_s_room_bounds_the_positions_it_holds_not_those_it_solved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The KOTOR solver empties a full memo between the match states it prepares: the room
    they make is the memory's again, so a room short of every position solved (at 1-2: 13,581)
    fits when the memo is emptied before each state (at most 7,169 held), and not otherwise."""
    question = build_question(
        RULES,
        table=parse_table("8 5", RULES.flip_targets),
        hand=(),
        opp_table=parse_table("10 7", RULES.flip_targets),
        opp_stood=False,
        opp_hand=(),
        sets=(1, 2),
    )
    seat = question.state.turn
    solved = needed_positions(KotorMatchSolver(RULES, seat), question)
    unbounded = solve_exact(KotorMatchSolver(RULES, seat), question)
    room = solved * 6 // 10
    monkeypatch.setattr(match_solver, "resident_bytes", lambda: 0)
    per = KotorMatchSolver(RULES, seat).exact_position_bytes
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", room * per)
    assert solve_exact(KotorMatchSolver(RULES, seat, max_states=1), question) == unbounded
    with pytest.raises(SolverTooLarge):
        solve_exact(KotorMatchSolver(RULES, seat), question)


def test_the_c_core_answers_the_exact_deck_in_any_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C match core keeps its positions drawn exactly in a cache of a fixed size: no room
    is too small for it (it forgets and solves again), so it is never refused, and answers with
    the numbers of the solve with room to spare; after another hand's search too."""
    if not native_available():
        pytest.skip("the C match core is not built")
    question = small_question()
    unbounded = solve_exact(match_native.NativeMatchSolver(RULES), question)
    monkeypatch.setattr(match_native, "EXACT_ENTRIES_LEAST", 1024)
    monkeypatch.setattr(match_solver, "resident_bytes", lambda: 0)
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 0)  # (the least bound: 1,024)
    solver = match_native.NativeMatchSolver(RULES)
    solve_exact(solver, question, parse_cards("+1 -2 ±3"))  # (another hand of the opponent)
    assert solve_exact(solver, question) == unbounded
    assert solver._fast.exact_states <= 1024 < solver._fast.exact_replaced


def test_the_c_core_s_cache_is_bounded_by_the_memory_left_and_by_its_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each search on an exact deck sizes the C core's cache: the most slots in a process alone,
    half in each of two processes, and no more than what the memory bound leaves (the cache's
    own slots counted as left, and half as much again for its last doubling), at least the
    least."""
    if not native_available():
        pytest.skip("the C match core is not built")
    solver = match_native.NativeMatchSolver(RULES)
    monkeypatch.setattr(match_solver, "resident_bytes", lambda: 0)
    most = match_native.EXACT_ENTRIES_MOST
    assert most * match_native.EXACT_ENTRY_BYTES <= match_solver.EXACT_MEMORY_BYTES
    solver.size_exact_cache()
    assert solver._fast.exact_entries == most
    solver.exact_share = 2
    solver.size_exact_cache()
    assert solver._fast.exact_entries == most // 2
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 400_000 * 32)  # (1.5 x 2^18 fits)
    solver.size_exact_cache()
    assert solver._fast.exact_entries == 1 << 18
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 380_000 * 32)  # (it does not)
    solver.size_exact_cache()
    assert solver._fast.exact_entries == 1 << 17
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 0)
    solver.size_exact_cache()
    assert solver._fast.exact_entries == match_native.EXACT_ENTRIES_LEAST
    question = small_question()
    assert solve_exact(solver, question) == solve_exact(
        match_native.NativeMatchSolver(RULES), question
    )


def test_a_budget_below_the_room_still_fails_as_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The room only lowers a budget: a smaller one given fails as it did (the caller then
    falls back to fixed draws), not with the refusal of the exact deck."""
    question = small_question()
    with pytest.raises(SolverTooLarge) as failed:
        deck = deck_after_draw(question.state, question.drawn)
        MatchSolver(RULES).solve_moves(question, (), current_deck=deck, exact=True, budget=10)
    assert str(failed.value) == "the exact solve exceeds its state budget"


def advise(*args: str) -> Result:
    """``pazaak advise`` in this process, the shared solvers emptied first (what an earlier
    question solved is not solved again, and would not meet the bound)."""
    clear_shared_solvers()
    result = CliRunner().invoke(main, ["advise", *args], prog_name="pazaak")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def test_exact_against_an_optimal_opponent_is_answered_whatever_the_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The C core's positions drawn exactly are a cache of a fixed size: the same answer with
    no room left for the exact deck at all."""
    if not native_available():
        pytest.skip("the C match core is not built")
    args = [*SMALL, "--objective", "match", "--exact"]
    answered = advise(*args)
    assert answered.exit_code == 0, answered.output
    assert "this set on the exact 36-card deck" in answered.stdout
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 0)  # (no room at all)
    assert advise(*args).stdout == answered.stdout


@pytest.mark.parametrize("opponent", ["optimal", "kotor"])
def test_exact_is_refused_in_one_line_when_the_exact_deck_does_not_fit(
    opponent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pure-Python match solver (where the C core is not built) and the reply to the KOTOR
    rule count the room an exact deck needs, and refuse it past their bound."""
    if opponent == "optimal":
        monkeypatch.setattr(match_advice, "make_match_solver", MatchSolver)
    args = [*SMALL, "--objective", "match", "--opponent", opponent]
    answered = advise(*args, "--exact")
    assert answered.exit_code == 0, answered.output
    assert "this set on the exact 36-card deck" in answered.stdout
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 0)  # (no room at all)
    refused = advise(*args, "--exact")
    assert refused.exit_code == 1, refused.output
    assert refused.stdout == ""
    lines = refused.stderr.splitlines()
    assert len(lines) == 1, refused.stderr
    assert lines[0].startswith(
        "Error: this set drawn without replacement from its exact 36-card deck needs more than 0 "
        "positions in memory"
    )
    assert lines[0].endswith(
        "drop --exact for the answer that draws it with the fixed odds of the cards left"
    )


@pytest.mark.parametrize("opponent", ["optimal", "kotor"])
def test_without_exact_a_standing_opponent_falls_back_to_fixed_draws(
    opponent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exact deck is the default once the opponent stands (within a budget): with no room
    for it the answer still comes, drawn with the fixed odds of the cards left (the solvers that
    count the room: see above)."""
    if opponent == "optimal":
        monkeypatch.setattr(match_advice, "make_match_solver", MatchSolver)
    args = [
        *("--table", "8 5", "--hand", "", "--opp-table", "10 7", "--opp-stood"),
        *("--opp-hand", "", "--sets", "2-2", "--objective", "match", "--opponent", opponent),
    ]
    assert "this set on the exact 36-card deck" in advise(*args).stdout
    monkeypatch.setattr(match_solver, "EXACT_MEMORY_BYTES", 0)
    fallen = advise(*args)
    assert fallen.exit_code == 0, fallen.output
    assert "this set with the draw odds of the 36 cards left" in fallen.stdout


SET_ARGS = ["--table", "3 4", "--hand", "", "--opp-table", "6", "--opp-hand", ""]
"""A set against the KOTOR rule whose exact solve holds 32,846 positions (checked every 16,384)."""


def test_the_set_against_the_kotor_rule_under_exact_is_refused_not_drawn_with_fixed_odds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Python search of the set reply refuses a search past its bound (the C loop's
    positions are a cache: below)."""
    monkeypatch.setattr(kotor_reply, "NATIVE_RULES", {})  # (the Python search)
    args = [*SET_ARGS, "--objective", "set", "--opponent", "kotor", "--exact"]
    monkeypatch.setattr(kotor_reply, "SEARCH_LIMIT", 40_000)
    answered = advise(*args)
    assert answered.exit_code == 0, answered.output
    assert "exact 37-card deck, drawn without replacement" in answered.stdout
    monkeypatch.setattr(kotor_reply, "SEARCH_LIMIT", 16_000)
    refused = advise(*args)
    assert refused.exit_code == 1, refused.output
    assert refused.stderr.splitlines() == [
        "Error: this set drawn without replacement from its exact 37-card deck needs more than "
        "16,000 positions in memory against the KOTOR rule (over 0.0 GB): drop --exact for the "
        "answer that draws it with the fixed odds of the cards left"
    ]


def test_the_c_set_reply_answers_the_exact_deck_in_any_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The C loop of the set reply to the KOTOR rule keeps its positions drawn exactly in a
    cache: with the Python search's bound far below the question's positions and room for only
    1,024 positions it answers, with the numbers it gives with room to spare."""
    if not kotor_reply.NATIVE_RULES:
        pytest.skip("the C loop of the set reply is not built")
    args = [*SET_ARGS, "--objective", "set", "--opponent", "kotor", "--exact", "--json"]
    roomy = advise(*args)
    assert roomy.exit_code == 0, roomy.output
    made: list[kotor_reply.KotorReplySolver] = []
    solver = kotor_reply.KotorReplySolver

    def small(*given: object, **options: object) -> kotor_reply.KotorReplySolver:
        made.append(solver(*given, **options))  # type: ignore[arg-type]
        return made[-1]

    monkeypatch.setattr(kotor_reply, "KotorReplySolver", small)
    monkeypatch.setattr(kotor_reply, "NATIVE_EXACT_ENTRIES", 1024)
    monkeypatch.setattr(kotor_reply, "SEARCH_LIMIT", 1_000)
    cramped = advise(*args)
    assert cramped.exit_code == 0, cramped.output
    assert cramped.stdout == roomy.stdout
    assert [s.fixed for s in made] == [None] and made[0].native
    assert made[0]._core.exact_states <= 1024 < made[0]._core.replaced
