"""The opponent-model registry is the one place a model is named: every other module reads a
model's rule and words from it, never branches on its name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.players.roster import POLICY_NAMES
from pazaak_cli.solve.models import (
    OPPONENT_MODELS,
    OPTIMAL,
    Objective,
    model_of_player,
    objective_named,
    opponent_model,
)

PACKAGE = Path(__file__).resolve().parent.parent / "pazaak_cli"
REGISTRY = PACKAGE / "solve" / "models.py"
ROSTER = PACKAGE / "players" / "roster.py"
"""The roster makes players by their names (a player is not a model: it is what plays)."""
NAME_TEST = re.compile(
    r"""(==|!=)\s*["'](?:%s)["']|["'](?:%s)["']\s*(==|!=)|in\s*\(\s*["'](?:%s)["']"""
    % (("|".join(OPPONENT_MODELS),) * 3)
)


def test_no_module_branches_on_an_opponent_models_name() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (REGISTRY, ROSTER):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            if NAME_TEST.search(code):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_scan_finds_the_branches_it_looks_for() -> None:
    for line in ('if options.opponent == "kotor":', "if 'optimal' != name:", 'in ("kotor", x)'):
        assert NAME_TEST.search(line), line
    assert not NAME_TEST.search("model = opponent_model(name)")


def test_every_model_with_a_player_names_a_player_of_the_roster() -> None:
    for model in OPPONENT_MODELS.values():
        assert model.player is None or model.player in POLICY_NAMES, model.name
        assert (model.rule is None) == (model.player is None), model.name
        if model.player is not None:
            assert model_of_player(model.player) is model
    assert model_of_player("stand17") is OPTIMAL  # (no rule of its own: the strongest assumption)


def test_unknown_names_are_refused_with_the_choices() -> None:
    with pytest.raises(PazaakError, match="choose one of optimal, kotor, heuristic"):
        opponent_model("kotro")
    with pytest.raises(PazaakError, match="choose match or set"):
        objective_named("sets")
    assert objective_named("match") is Objective.MATCH
    assert isinstance(Objective.SET, str)  # (JSON and the options read it as the string)
    assert json.dumps(Objective.SET) == '"set"'
