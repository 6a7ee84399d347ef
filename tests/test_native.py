"""The optional C inner loop is built by the README's install command, and the solver uses it."""

from __future__ import annotations

import os

import pytest

from pazaak_cli.engine.game import FULL_DECK
from pazaak_cli.engine.rules import KOTOR1
from pazaak_cli.solve.solver import SetSolver


@pytest.mark.skipif(
    bool(os.environ.get("PAZAAK_PURE_PYTHON")), reason="the pure-Python solver was asked for"
)
def test_the_c_inner_loop_is_built_and_used_for_fixed_draws() -> None:
    # fails if `pip install -e` did not build it (mypy cannot see into a C module: the ignore)
    from pazaak_cli.solve import _fastsolve  # type: ignore[attr-defined]  # noqa: F401

    assert SetSolver(KOTOR1, fixed_draws=FULL_DECK).native
    assert not SetSolver(KOTOR1, fixed_draws=FULL_DECK, native=False).native
    assert not SetSolver(KOTOR1).native  # the exact finite deck is searched in Python
