"""``pazaak advise``: exact win/tie/loss odds for every move at the table you see."""

from __future__ import annotations

import dataclasses
import sys

import click

from pazaak_cli.commands.common import (
    EXIT_CODES,
    WholeNumber,
    budget_seconds,
    emit_json,
    json_option,
    refuse_given,
    refuse_with_known_hand,
    ruleset_option,
    sample_options,
    time_option,
)
from pazaak_cli.commands.deck_option import deck_option
from pazaak_cli.commands.position_options import (
    CARDS,
    MAIN_CARDS,
    check_cards,
    check_opp_hand_size,
    main_deck_option,
    opp_hand_option,
    opp_hand_size_option,
    opponent_option,
    sets_option,
)
from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.decks import SideDeck, default_deck
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.game import Phase, Placed, TableCard
from pazaak_cli.engine.notation import gold_cards, parse_position, parse_table
from pazaak_cli.engine.numbers import counted
from pazaak_cli.engine.position_builder import (
    PositionError,
    Question,
    build_question,
    question_from_state,
    question_of_draw,
)
from pazaak_cli.engine.rules import DEFAULT_RULESET, FirstPlayer, MainDeck, Ruleset, parse_ruleset
from pazaak_cli.solve.answers import AnswerRequest, answer, chosen_match_words
from pazaak_cli.solve.budgeted import ADVISE_ASKS, DEFAULT_SECONDS, deck_word, prepare_line
from pazaak_cli.solve.models import objective_named, opponent_model
from pazaak_cli.solve.time_budget import TimeBudget, command_started
from pazaak_cli.terminal.advice_table import render_advice
from pazaak_cli.terminal.text import SolveProgress, wrap_lines
from pazaak_cli.tools.advice_report import advice_json


@click.command("advise", epilog=EXIT_CODES)
@ruleset_option(default=None)
@click.option(
    "--table",
    "table_text",
    default=None,
    metavar="CARDS",
    help='Your table in order, the card you just drew last: "7 4 +3 9".',
)
@click.option(
    "--hand", type=CARDS, default="", metavar="CARDS", help='Your hand cards: "+1 -2 ±3 D".'
)
@click.option(
    "--opp-table",
    "opp_table_text",
    default="",
    metavar="CARDS",
    help="The opponent's table in order.",
)
@click.option("--opp-stood", is_flag=True, help="The opponent stands.")
@opp_hand_option
@opp_hand_size_option
@deck_option(
    "--opp-deck",
    "opp_deck",
    help="The opponent's side deck, the prior of a hidden "
    "hand: a file or sample deck name (default: kotor1-starter / the preset's).",
)
@opponent_option
@click.option(
    "--objective",
    type=click.Choice(["match", "set"]),
    default=None,
    help="What the best move maximises: the probability of winning the match (hand cards are "
    "kept for the whole match) or this set's win odds less its loss odds. Default: the match "
    "where its answer (or a sample of it) fits the time budget, else the set, with a note; "
    "with no budget (--time 0, or not on a terminal) the match when it takes seconds, else the "
    "set, with a note.",
)
@sets_option
@click.option(
    "--seen",
    type=MAIN_CARDS,
    default="",
    metavar="VALUES",
    help="Main-deck cards gone in earlier sets since the last shuffle.",
)
@main_deck_option
@click.option(
    "--exact",
    is_flag=True,
    help="Always solve a finite deck without replacement, however long it takes (refused in "
    "one line where it cannot fit in memory).",
)
@click.option(
    "--position",
    default=None,
    metavar="NOTATION",
    help="A whole position in the project's notation instead of the flags above.",
)
@click.option(
    "--drawn",
    type=WholeNumber(1, 10),
    default=None,
    metavar="N",
    help="With a --position before the draw (phase d, as --json writes it beside 'drawn'): "
    "the card then drawn.",
)
@time_option("Default: 2 s when the answer goes to a terminal, else the exact answer.")
@sample_options
@json_option
def advise_command(
    ruleset: Ruleset | None,
    table_text: str | None,
    hand: tuple[Card, ...],
    opp_table_text: str,
    opp_stood: bool,
    opp_hand: tuple[Card, ...] | None,
    opp_hand_size: int | None,
    opp_deck: SideDeck | None,
    opponent: str,
    objective: str | None,
    sets: tuple[int, int],
    seen: tuple[int, ...],
    main_deck: str | None,
    exact: bool,
    position: str | None,
    drawn: int | None,
    time_budget: float | None,
    sample_seed: int,
    sample_hands: int | None,
    as_json: bool,
) -> None:
    """Exact odds of winning the match, and this set, for every legal move.

    You have just drawn (the drawn card is the last card of --table). For each move (end the
    turn, stand, or play a hand card with each value it can take, then end or stand) the solver
    gives the exact probability of winning the match if both sides then play to win it (hand
    cards are kept for the whole match; --sets gives the score), with this set's win, tie and
    loss odds along that line, and marks the best. --objective set values moves by this set
    alone; --opponent kotor answers against the KOTOR I computer's rule (in every set, for the
    match), choosing between the match and the set as for an optimal opponent.

    \b
    Examples:
      pazaak advise --table "8 5" --hand "+1 -2 ±3 +4" --opp-table "10 7" --opp-stood
      pazaak advise --ruleset kotor2 --table 6,9 --hand "D,T,±1/2" --opp-table "10" \\
          --opp-hand-size 4 --opp-deck kotor2-average
      pazaak advise --position "kotor1 3,2,5 10,7 +1,-2,±3,+4 - -S - 4334343443 a1 1"

    A hidden hand (--opp-hand-size) is averaged over every hand the opponent's deck can deal;
    left out at 0-0 for an opponent still playing, its size is what the first set leaves (4
    less the hand cards on its table); a standing one given neither is taken to hold none.
    On a terminal the answer comes within --time (2 s): exact if every possible hand is solved
    in time, else from a sample of them, each drawn as often as the deck deals it, each move
    with its 95 % interval (the model line and the JSON say "sampled"); --time 0 waits for the
    exact answer, --exact counts every card drawn too.
    """
    started = command_started()  # (the person waits from the launch)
    question, assumed = _question(
        ruleset,
        table_text,
        hand,
        opp_table_text,
        opp_stood,
        opp_hand,
        opp_hand_size,
        sets,
        seen,
        main_deck,
        position,
        drawn,
    )
    state = question.state
    other = state.sides[1 - state.turn]
    prior = None
    hidden_from: str | None = None  # (the deck a hidden hand is dealt from, named)
    asks = ADVISE_ASKS
    if other.hand_known:
        if position is not None:
            given_by = "the position's opponent hand"
        elif opp_hand is not None:
            given_by = "--opp-hand"
        elif opp_hand_size == 0:
            given_by = "--opp-hand-size 0: an empty hand is known"
        else:  # (a standing opponent given no hand holds none)
            given_by = "--opp-stood without --opp-hand-size: it is taken to hold no cards"
        refuse_with_known_hand(click.get_current_context(), given_by)
    else:  # (a standing opponent's hand still plays the later sets)
        deck = opp_deck or default_deck(state.ruleset, option="--opp-deck")
        prior = deck.cards
        hidden_from = deck_word(deck, "standard input")
        asks = asks._replace(
            prepare=prepare_line(state.ruleset, deck_word(deck), state.turn, opponent)
        )
    if sample_hands is not None:  # (--time with --hands is refused: more hands are the way)
        asks = asks._replace(
            more_time=f"--hands {2 * sample_hands} for more hands",
            exact="--time 0 instead of --hands",
        )
    seconds = budget_seconds(
        time_budget,
        default=DEFAULT_SECONDS if sys.stdout.isatty() else None,
        hands=sample_hands,
        exact=exact,
    )
    progress = SolveProgress(enabled=not as_json)
    request = AnswerRequest(
        question,
        model=opponent_model(opponent),
        objective=None if objective is None else objective_named(objective),
        opponent_deck=prior,
        budget=TimeBudget(seconds, started),
        seed=str(sample_seed),
        hands=sample_hands,
        exact=exact,
        asks=asks,
        progress=progress.update,
        positions=progress.positions,
        hand_progress=progress.budget,
    )
    try:
        found = answer(request)
    finally:
        progress.close()
    advice, note = found.advice, found.objective_note
    if (
        advice.objective == "match"
        and position is None
        and opp_stood
        and opp_hand is None
        and opp_hand_size is None
    ):
        note = (
            "The opponent's hand was not given: the match answer takes it to keep no hand cards "
            "for the later sets (--opp-hand or --opp-hand-size says what it holds)."
        )
    note = " ".join(said for said in (assumed, note) if said) or None
    if as_json:
        document = advice_json(advice, question)
        document["note"] = note
        document["time_budget"] = seconds
        # (what the text says under its table: how to ask the same again, an overrun)
        document["notes"] = list(found.notes)
        document["opp_deck"] = hidden_from
        emit_json(document)
        return
    chose = chosen_match_words(request, advice)
    if chose and asks.exact:  # (--time 0 alone would give the set's: say the match's too)
        asks = asks._replace(exact=f"{chose} {asks.exact}")
    lines = [
        _position_line(question, hidden_from),
        render_advice(advice, asks, note=note),
        *found.notes,
    ]
    click.echo(wrap_lines("\n".join(lines)))


def _question(
    ruleset: Ruleset | None,
    table_text: str | None,
    hand: tuple[Card, ...],
    opp_table_text: str,
    opp_stood: bool,
    opp_hand: tuple[Card, ...] | None,
    opp_hand_size: int | None,
    sets: tuple[int, int],
    seen: tuple[int, ...],
    main_deck: str | None,
    position: str | None,
    drawn: int | None,
) -> tuple[Question, str | None]:
    """The question the flags ask, and what was assumed where one was left out (the opponent's
    hand size in the first set), for the answer to say."""
    if position is not None:
        if table_text is not None:
            raise click.UsageError("give either --position or --table, not both")
        refuse_given(
            click.get_current_context(),
            (
                ("ruleset", "--ruleset"),
                ("hand", "--hand"),
                ("opp_table_text", "--opp-table"),
                ("opp_stood", "--opp-stood"),
                ("opp_hand", "--opp-hand"),
                ("opp_hand_size", "--opp-hand-size"),
                ("sets", "--sets"),
                ("seen", "--seen"),
            ),
            "--position: the notation gives the whole position (its ruleset, tables, hands, "
            "score and deck; only --main-deck may change its deck model)",
        )
        state = parse_position(position)
        if main_deck is not None:
            rules = dataclasses.replace(state.ruleset, main_deck=MainDeck(main_deck))
            deck = state.deck if rules.main_deck is not MainDeck.INFINITE else (4,) * 10
            state = state._replace(ruleset=rules, deck=deck)
        if drawn is not None:
            return question_of_draw(state, drawn), None
        if state.phase is Phase.BEFORE_DRAW:
            raise PositionError(
                "the position is before the draw (phase d): give the card then drawn with "
                "--drawn N (--json writes it beside the position, as 'drawn')"
            )
        return question_from_state(state), None
    if drawn is not None:
        raise click.UsageError("--drawn goes with a --position before the draw (phase d)")
    if table_text is None:
        raise click.UsageError(
            "give your table with --table (the card you drew last), "
            "or a whole position with --position"
        )
    if opp_hand is not None and opp_hand_size is not None:
        raise click.UsageError("give either --opp-hand or --opp-hand-size, not both")
    rules = ruleset or parse_ruleset(DEFAULT_RULESET)
    check_opp_hand_size(opp_hand_size, rules)
    if main_deck is not None:
        rules = dataclasses.replace(rules, main_deck=MainDeck(main_deck))
    if seen and rules.main_deck is not MainDeck.SHARED:
        raise click.UsageError(
            f"--seen counts the cards gone from a deck shared across sets; with the "
            f"{rules.main_deck.value} main deck of {rules.spec} none is gone: drop --seen"
        )
    table = _table(table_text, rules, "--table")
    opp_table = _table(opp_table_text, rules, "--opp-table")
    hidden: tuple[Card | None, ...]
    assumed = None
    if opp_hand is None and opp_hand_size is None and not opp_stood:
        if sets != (0, 0):
            raise click.UsageError(
                "the opponent still plays: give its hand with --opp-hand, or its size with "
                "--opp-hand-size (its deck with --opp-deck), or say --opp-stood (past the "
                "first set the cards it holds cannot be counted from its table)"
            )
        played = sum(1 for card in opp_table if card.placed is not Placed.MAIN)
        opp_hand_size = max(rules.hand_size - played, 0)
        assumed = (
            f"The opponent's hand size was not given: taken as {opp_hand_size}, the "
            f"{rules.hand_size} dealt less the {played} on its table, as in the first set "
            "(--opp-hand-size says otherwise)."
        )
    if opp_hand is not None:
        hidden = opp_hand
    else:
        hidden = (None,) * (opp_hand_size if opp_hand_size is not None else 0)
    check_cards(hand, rules, "'--hand'")
    if opp_hand is not None:
        check_cards(opp_hand, rules, "'--opp-hand'")
    question = build_question(
        rules,
        table=table,
        hand=hand,
        opp_table=opp_table,
        opp_stood=opp_stood,
        opp_hand=hidden,
        sets=sets,
        seen=seen,
    )
    return question, assumed


def _table(text: str, rules: Ruleset, option: str) -> tuple[TableCard, ...]:
    """A table option read, its cards of another ruleset refused as a bad value (exit 2), as
    ``--hand``'s are."""
    try:
        table = parse_table(text, rules.flip_targets, where=option)
    except PazaakError as error:
        raise click.BadParameter(
            str(error).removeprefix(f"{option}: "), param_hint=f"'{option}'"
        ) from None
    check_cards(gold_cards(table), rules, f"'{option}'")
    return table


def _position_line(question: Question, hidden_from: str | None = None) -> str:
    """The table as read back (``hidden_from``: the deck a hidden opponent hand is dealt from,
    named: a left-out --opp-deck takes the ruleset's sample deck, which the reader may not
    expect)."""
    state = question.state
    me = state.sides[state.turn]
    other = state.sides[1 - state.turn]
    table = " ".join(str(card) for card in me.table)
    if not state.played:
        table = f"{table} {question.drawn}".strip()
    opp = " ".join(str(card) for card in other.table) or "empty"
    stood = ", stands" if other.standing else ""
    seat = ""
    if state.turn == 1 and state.ruleset.first_player is FirstPlayer.PLAYER1:
        seat = (  # (the tables can only be read so: said, as it shapes the later sets)
            f" It opened: you are player 2 ({state.ruleset.spec}: player 1 opens every set)."
        )
    hidden = ""
    if hidden_from is not None and not other.hand_known:
        hidden = f", its {counted(len(other.hand), 'hidden card')} dealt from {hidden_from}"
    return f"Your table {table}; opponent's {opp}{stood}{hidden}.{seat}"
