"""Two agents at one table: a PettingZoo AEC environment (docs/rl.md).

The agents are ``player_1`` and ``player_2``; the one to act is ``agent_selection`` (the seat
that has drawn). Each observes a dict: ``observation``, what its seat sees (the vector of
:mod:`pazaak_cli.rl.encoding`), and ``action_mask``, its legal actions (all zero while the
other seat is to act). The match ends with +1 for the winner and -1 for the loser, and
``set_reward`` per set as for :class:`~pazaak_cli.rl.single.PazaakEnv`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pazaak_cli.engine.cards import Card
from pazaak_cli.engine.errors import PazaakError
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.rl.encoding import BOUND, Table, action_count, observation_size
from pazaak_cli.rl.single import checked_action, checked_reward, match_seed_of, side_deck

AGENTS = ("player_1", "player_2")

Observation = dict[str, npt.NDArray[Any]]


class PazaakAECEnv(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """A whole match between two agents, ``decks`` their side decks (default: the ruleset's)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's)
        "render_modes": ["ansi"],
        "name": "pazaak_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        ruleset: str | Ruleset = "kotor1",
        decks: tuple[str | Sequence[Card | str] | None, str | Sequence[Card | str] | None] = (
            None,
            None,
        ),
        set_reward: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.ruleset = parse_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        if render_mode not in (None, "ansi"):
            raise PazaakError(f"render mode {render_mode!r}: only 'ansi' is offered")
        self.render_mode = render_mode
        if isinstance(decks, str) or not isinstance(decks, tuple | list) or len(decks) != 2:
            raise PazaakError(
                f"decks is a pair (player_1's, player_2's: a name, a path, cards or None), "
                f"not {decks!r}"
            )
        self.decks = (side_deck(decks[0], self.ruleset), side_deck(decks[1], self.ruleset))
        self.set_reward = checked_reward(set_reward)
        self.possible_agents = list(AGENTS)
        count = action_count(self.ruleset)
        size = observation_size(self.ruleset)
        self._action_space = spaces.Discrete(count)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-BOUND, BOUND, (size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (count,), dtype=np.int8),
            }
        )
        self._rng: random.Random | None = None
        self._table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        match_seed = match_seed_of(options)
        if match_seed is not None:  # (as PazaakEnv: match I of ``pazaak simulate --seed S``)
            self._rng = random.Random(match_seed)
        elif seed is not None or self._rng is None:
            self._rng = random.Random(seed if seed is not None else random.randrange(2**62))
        self._table = Table.deal(self.ruleset, self.decks, self._rng)
        self._table.run_chance(lambda state: True)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[self._table.state.turn]

    def observe(self, agent: str) -> Observation:
        table = self._live()
        seat = _seat(agent)
        return {"observation": table.observe(seat), "action_mask": table.mask(seat)}

    def step(self, action: int | None) -> None:
        self._live()
        if not self.agents:
            raise PazaakError("the match is over: call reset() for a new one")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise PazaakError(f"{agent} is to act: None is only for an agent whose match is over")
        table = self._live()
        seat = AGENTS.index(agent)
        number = checked_action(action, action_count(self.ruleset))
        sets_before = len(table.set_results)
        table.commit(table.action(seat, number))
        table.run_chance(lambda state: True)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {name: 0.0 for name in self.agents}
        for winner in table.set_results[sets_before:]:
            if winner is not None and self.set_reward:
                self.rewards[AGENTS[winner]] += self.set_reward
                self.rewards[AGENTS[1 - winner]] -= self.set_reward
        state = table.state
        if state.is_terminal():
            winner = state.match_winner()
            assert winner is not None
            self.rewards[AGENTS[winner]] += 1.0
            self.rewards[AGENTS[1 - winner]] -= 1.0
            self.terminations = {name: True for name in self.agents}
        else:
            self.agent_selection = AGENTS[state.turn]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._table is None:
            return None
        state = self._table.state  # (what the agent to act sees: the other hand hidden)
        view = state.observed_by(AGENTS.index(self.agent_selection))
        return f"{format_position(view)}  (sets {state.sets_won()[0]}-{state.sets_won()[1]})"

    def close(self) -> None:
        """Nothing to release."""

    @property
    def table(self) -> Table:
        """The match (both hands: for tests and tools, not for the agents)."""
        return self._live()

    def _live(self) -> Table:
        if self._table is None:
            raise PazaakError("no match yet: call reset() first")
        return self._table


def _seat(agent: str) -> int:
    """The seat (0 or 1) of ``agent``; a :class:`PazaakError` naming the agents if none."""
    if agent not in AGENTS:
        raise PazaakError(f"there is no agent {agent!r}: the agents are {', '.join(AGENTS)}")
    return AGENTS.index(agent)


def aec_env(**kwargs: Any) -> AECEnv[str, Observation, int]:
    """:class:`PazaakAECEnv` in PettingZoo's usual wrappers (order of calls enforced)."""
    return wrappers.OrderEnforcingWrapper(PazaakAECEnv(**kwargs))


__all__ = ["AGENTS", "PazaakAECEnv", "aec_env"]
