"""The public Python API: the names a program imports to play, analyse and simulate Pazaak.

Everything here is typed and kept stable across minor versions (docs/api.md describes each name
and shows them at work); every other module of the package is internal and may change. The
names are the library's own, gathered in one place:

- the engine's values: cards, rulesets, a match state and its actions, the errors;
- the position notation and side decks;
- a match with its seats and save files (:class:`MatchSession`), and the engine protocol
  in-process (:class:`Engine`);
- the computer players (:func:`make_player`);
- the answers: :func:`answer` to an :class:`AnswerRequest` within a :class:`TimeBudget`,
  against one of :data:`OPPONENT_MODELS`; :func:`solve_question` exact;
- tournaments (:func:`simulate`).

The Gymnasium and PettingZoo environments are in :mod:`pazaak_cli.rl` (the ``rl`` extra), so
that this module never needs them.
"""

from __future__ import annotations

from pazaak_cli import __version__
from pazaak_cli.engine.cards import Card, CardKind, parse_cards
from pazaak_cli.engine.decks import SideDeck, default_deck, load_deck, sample_deck, sample_names
from pazaak_cli.engine.errors import (
    CardError,
    DeckError,
    HiddenInformationError,
    IllegalActionError,
    InputError,
    NotationError,
    NotationSyntaxError,
    PazaakError,
    RulesetError,
)
from pazaak_cli.engine.game import (
    CHANCE,
    END_TURN,
    FORFEIT,
    STAND,
    TERMINAL,
    Action,
    Draw,
    EndTurn,
    Forfeit,
    MatchState,
    Open,
    Phase,
    Play,
    SetOutcome,
    Side,
    Stand,
    TableCard,
    deal_hand,
    new_match,
    set_outcome,
)
from pazaak_cli.engine.notation import format_position, parse_position
from pazaak_cli.engine.position_builder import (
    PositionError,
    Question,
    build_question,
    question_from_state,
)
from pazaak_cli.engine.rules import KOTOR1, KOTOR2, PRESETS, Ruleset, parse_ruleset
from pazaak_cli.players.roster import POLICY_NAMES, Player, make_player
from pazaak_cli.runtime.savefile import SaveFileError
from pazaak_cli.solve.advice import advise, solve_question
from pazaak_cli.solve.answer_types import Advice, Move, MoveResult, Outcome, SolveOptions
from pazaak_cli.solve.answers import Answer, AnswerRequest, answer
from pazaak_cli.solve.budgeted import Refinement
from pazaak_cli.solve.models import OPPONENT_MODELS, Objective, OpponentModel, opponent_model
from pazaak_cli.solve.time_budget import TimeBudget
from pazaak_cli.tools.advice_report import advice_json
from pazaak_cli.tools.engine_protocol import PROTOCOL_VERSION, Engine, serve
from pazaak_cli.tools.session import MatchSession, Seat
from pazaak_cli.tools.simulate import Entrant, Pairing, PairingResult, simulate, wilson_interval

__all__ = [
    "CHANCE",
    "END_TURN",
    "FORFEIT",
    "KOTOR1",
    "KOTOR2",
    "OPPONENT_MODELS",
    "POLICY_NAMES",
    "PRESETS",
    "PROTOCOL_VERSION",
    "STAND",
    "TERMINAL",
    "Action",
    "Advice",
    "Answer",
    "AnswerRequest",
    "Card",
    "CardError",
    "CardKind",
    "DeckError",
    "Draw",
    "EndTurn",
    "Engine",
    "Entrant",
    "Forfeit",
    "HiddenInformationError",
    "IllegalActionError",
    "InputError",
    "MatchSession",
    "MatchState",
    "Move",
    "MoveResult",
    "NotationError",
    "NotationSyntaxError",
    "Objective",
    "Open",
    "OpponentModel",
    "Outcome",
    "Pairing",
    "PairingResult",
    "PazaakError",
    "Phase",
    "Play",
    "Player",
    "PositionError",
    "Question",
    "Refinement",
    "Ruleset",
    "RulesetError",
    "SaveFileError",
    "Seat",
    "SetOutcome",
    "Side",
    "SideDeck",
    "SolveOptions",
    "Stand",
    "TableCard",
    "TimeBudget",
    "__version__",
    "advice_json",
    "advise",
    "answer",
    "build_question",
    "deal_hand",
    "default_deck",
    "format_position",
    "load_deck",
    "make_player",
    "new_match",
    "opponent_model",
    "parse_cards",
    "parse_position",
    "parse_ruleset",
    "question_from_state",
    "sample_deck",
    "sample_names",
    "serve",
    "set_outcome",
    "simulate",
    "solve_question",
    "wilson_interval",
]
