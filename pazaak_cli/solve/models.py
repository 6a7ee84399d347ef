"""What an answer is asked to maximise and whom it plays against, as values.

Every solver, command and document reads the opponent models from :data:`OPPONENT_MODELS`: the
optimal opponent (a minimax player who knows its hand) and the decision rules the exact reply
searches (``rule``). Adding a model is one entry here: a rule with
:func:`~pazaak_cli.policies.kotor_rule.kotor_rule`'s inputs, which the C loops decide when it is
one of :data:`pazaak_cli.solve.kotor_reply.NATIVE_RULES` (the set) and
:data:`pazaak_cli.solve.match_kotor.NATIVE_RULES` (the match), and Python decides otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pazaak_cli.engine.errors import NamedChoices, PazaakError
from pazaak_cli.policies.heuristic_rule import heuristic_rule
from pazaak_cli.policies.kotor_rule import DecisionRule, kotor_rule


class Objective(NamedChoices, StrEnum):
    """What the best move maximises (a string, so that JSON and old callers read it as one)."""

    SET = "set"
    """This set's win odds less its loss odds."""
    MATCH = "match"
    """The probability of winning the match, the hand cards kept for the later sets."""


def objective_named(name: str) -> Objective:
    """The objective called ``name``, or a :class:`PazaakError` naming the choices."""
    try:
        return Objective(name)
    except ValueError:
        raise PazaakError(f"unknown objective {name!r}; choose match or set") from None


@dataclass(frozen=True)
class OpponentModel:
    """How an answer assumes the opponent plays."""

    name: str
    """What ``--opponent`` and the JSON call it."""
    rule: DecisionRule | None
    """The opponent's decision rule (it decides alone: the answer is a best reply to it), or
    ``None`` for an opponent who knows its hand and minimises the advised player's value."""
    help: str
    """The ``--opponent`` help's phrase for it."""
    plays: str
    """How a model line says the opponent plays (after "opponent plays")."""
    short: str
    """The same in a few words, for a line a person reads at the table."""
    player: str | None
    """The roster's player (``pazaak play --opponent``) that decides as this model assumes, so
    that the hint against that seat assumes it."""
    reads_sets: bool = False
    """Whether the rule reads the sets the advised player has won (the model line then says
    how many it sees)."""


OPTIMAL = OpponentModel(
    name="optimal",
    rule=None,
    help="knows its hand and plays to beat you",
    plays="optimally",
    short="optimally",
    player=None,
)
KOTOR = OpponentModel(
    name="kotor",
    rule=kotor_rule,
    help="the KOTOR I computer's rule (docs/rules.md §7)",
    plays="the KOTOR I rule (docs/rules.md §7)",
    short="the KOTOR rule",
    player="kotor",
    reads_sets=True,
)
HEURISTIC = OpponentModel(
    name="heuristic",
    rule=heuristic_rule,
    help="the heuristic player's rule (docs/simulate.md)",
    plays="the heuristic player's rule (docs/simulate.md)",
    short="the heuristic rule",
    player="heuristic",
)

OPPONENT_MODELS: dict[str, OpponentModel] = {m.name: m for m in (OPTIMAL, KOTOR, HEURISTIC)}
"""Every opponent model, by name, in the order the help lists them."""


def opponent_model(name: str) -> OpponentModel:
    """The model called ``name``, or a :class:`PazaakError` naming the choices."""
    model = OPPONENT_MODELS.get(name)
    if model is None:
        raise PazaakError(
            f"unknown opponent model {name!r}; choose one of {', '.join(OPPONENT_MODELS)}"
        )
    return model


def model_of_player(player: str) -> OpponentModel:
    """The model the answers assume against a seat of the roster's ``player``: its rule where
    the registry has one, else an optimal opponent (the strongest assumption)."""
    for model in OPPONENT_MODELS.values():
        if model.player == player:
            return model
    return OPTIMAL


__all__ = [
    "HEURISTIC",
    "KOTOR",
    "OPPONENT_MODELS",
    "OPTIMAL",
    "Objective",
    "OpponentModel",
    "model_of_player",
    "objective_named",
    "opponent_model",
]
