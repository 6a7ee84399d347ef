"""Pazaak for reinforcement learning: a Gymnasium environment against a computer player
(``Pazaak-v0``, :class:`~pazaak_cli.rl.single.PazaakEnv`) and a two-agent PettingZoo AEC
environment (:class:`~pazaak_cli.rl.multi.PazaakAECEnv`). Needs the ``rl`` extra
(``pip install 'pazaak[rl]'``: gymnasium and pettingzoo); nothing else in the package imports
this one. docs/rl.md describes the actions, the observation and the rewards.
"""

from __future__ import annotations

import gymnasium

from pazaak_cli.rl.multi import PazaakAECEnv, aec_env
from pazaak_cli.rl.single import PazaakEnv

ENV_ID = "Pazaak-v0"
"""The Gymnasium id: ``gymnasium.make("Pazaak-v0", opponent="heuristic")``."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="pazaak_cli.rl.single:PazaakEnv")

__all__ = ["ENV_ID", "PazaakAECEnv", "PazaakEnv", "aec_env"]
