"""``Pazaak-v0``: one seat of a match against a computer player of the roster, as a Gymnasium
environment (docs/rl.md).

An episode is one whole match under the real rules of a ruleset (a preset or a variant). The
agent acts at its decisions only (after its draw); the chance events and the opponent's moves
happen inside :meth:`PazaakEnv.step`. The reward is +1 when the agent wins the match and -1
when it loses it, given at the end; ``set_reward`` adds that much for each set won (and takes
it for each set lost) as the sets end. ``reset(seed=S)`` deals the same hands and the same
cards again for the same actions; ``reset(options={"match_seed": "S:I"})`` deals match I of
``pazaak simulate --seed S`` (the same hands, the same cards).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from pazaak_cli.engine.cards import Card, parse_cards
from pazaak_cli.engine.decks import default_deck, load_deck
from pazaak_cli.engine.errors import (
    CardError,
    DeckError,
    IllegalActionError,
    InputError,
    PazaakError,
)
from pazaak_cli.engine.game import Action, MatchState
from pazaak_cli.engine.notation import format_position
from pazaak_cli.engine.rules import Ruleset, parse_ruleset
from pazaak_cli.players.roster import POLICY_NAMES, RANDOMISED_POLICIES, Player, make_player
from pazaak_cli.rl.encoding import BOUND, Table, action_count, observation_size

Observation = npt.NDArray[np.float32]


def checked_action(action: object, count: int) -> int:
    """``action`` as a number of the ``Discrete(count)`` space; a :class:`PazaakError` naming
    it when it is none (an illegal move is one in the space the mask does not allow). A
    0-dimensional array of integers (what a policy's ``predict`` gives for one observation) is
    its number, as ``Discrete.contains`` takes it."""
    if (
        isinstance(action, np.ndarray)
        and action.shape == ()
        and np.issubdtype(action.dtype, np.integer)
    ):
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        raise PazaakError(f"action {action!r} is not a whole number of the space 0..{count - 1}")
    if not 0 <= int(action) < count:
        raise PazaakError(f"action {int(action)} is outside the action space 0..{count - 1}")
    return int(action)


def match_seed_of(options: dict[str, Any] | None) -> str | None:
    """The ``match_seed`` of ``reset``'s options (``"S:I"``: match I of ``pazaak simulate
    --seed S``), checked; ``None`` if not given. (Other keys are let be, as the libraries'
    checkers expect of an environment: PettingZoo's passes its own.)"""
    seed = (options or {}).get("match_seed")
    if seed is None:
        return None
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9]+:[0-9]+", seed):
        raise PazaakError(
            f'match_seed {seed!r} is not "S:I" (match I of `pazaak simulate --seed S`, '
            'both whole numbers, e.g. "1:0")'
        )
    return seed


def checked_reward(set_reward: object) -> float:
    """``set_reward`` as a float; a :class:`PazaakError` unless it is a finite number."""
    if (
        isinstance(set_reward, bool)
        or not isinstance(set_reward, int | float | np.integer | np.floating)
        or not np.isfinite(set_reward)
    ):
        raise PazaakError(f"set_reward is a finite number (0 for none), not {set_reward!r}")
    return float(set_reward)


def side_deck(deck: str | Sequence[Card | str] | None, ruleset: Ruleset) -> tuple[Card, ...]:
    """A side deck given by name, path or cards (each a :class:`Card` or its text, ``"+1"``;
    ``None``: the ruleset's default deck), refused with a :class:`DeckError` unless the
    ruleset lets a player bring it (its size, its card pool), as a deck file would be."""
    if deck is None:
        return default_deck(ruleset).cards
    if isinstance(deck, str):
        try:
            return load_deck(deck, ruleset).cards
        except InputError as missing:
            try:  # (cards written out in one string: say how to give them)
                parse_cards(deck)
            except PazaakError:
                raise missing from None
            raise DeckError(
                f"{deck!r} is neither a sample deck nor a file: a deck's cards are given as a "
                "sequence, each card or its text (parse_cards(text), or ('+1', '-2', ...))",
                token=deck,
            ) from None
    if not isinstance(deck, Sequence):
        raise DeckError(f"a side deck is a name, a path or a sequence of cards, not {deck!r}")
    cards = tuple(item if isinstance(item, Card) else _card(item) for item in deck)
    misfit = ruleset.deck_misfit(cards)
    if misfit is not None:
        raise DeckError(f"the side deck {misfit}")
    return cards


def _card(item: object) -> Card:
    if not isinstance(item, str):
        raise DeckError(f"a side deck holds cards or their text, not {item!r}")
    try:
        return Card.parse(item)
    except CardError as error:
        raise DeckError(f"the side deck: {error}", token=item) from None


class PazaakEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of a match against ``opponent`` (a name of the roster: ``kotor`` by default).

    ``deck`` and ``opponent_deck`` are the two side decks (sample names, paths or cards; the
    ruleset's default deck if not given). ``seat`` is the agent's (1 opens every set under
    ``kotor1``). An illegal action ends the turn instead, with ``info["illegal_action"]``, or
    raises with ``strict=True``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        ruleset: str | Ruleset = "kotor1",
        opponent: str = "kotor",
        deck: str | Sequence[Card | str] | None = None,
        opponent_deck: str | Sequence[Card | str] | None = None,
        seat: int = 1,
        set_reward: float = 0.0,
        strict: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self.ruleset = parse_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        if opponent not in POLICY_NAMES:
            raise PazaakError(
                f"unknown opponent {opponent!r}; choose one of {', '.join(POLICY_NAMES)}"
            )
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or seat not in (1, 2):
            # (2.0 passed this and failed at reset, as a float index)
            raise PazaakError(f"the agent's seat is 1 or 2, not {seat!r}")
        seat = int(seat)
        if render_mode not in (None, "ansi"):
            raise PazaakError(f"render mode {render_mode!r}: only 'ansi' is offered")
        self.seat = seat - 1
        self.opponent_name = opponent
        self.set_reward = checked_reward(set_reward)
        self.strict = strict
        self.render_mode = render_mode
        mine = side_deck(deck, self.ruleset)
        theirs = side_deck(opponent_deck, self.ruleset)
        self.decks = (mine, theirs) if self.seat == 0 else (theirs, mine)
        self.action_space = spaces.Discrete(action_count(self.ruleset))
        size = observation_size(self.ruleset)
        self.observation_space = spaces.Box(-BOUND, BOUND, (size,), dtype=np.float32)
        self._rng: random.Random | None = None
        self._fixed: Player | None = None
        self._opponent: Player | None = None
        self._table: Table | None = None

    # -- the Gymnasium API ----------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        match_seed = match_seed_of(options)
        if match_seed is not None:
            # the stream ``pazaak simulate --seed S`` plays match I from: "S:I"
            self._rng = random.Random(match_seed)
        elif seed is not None or self._rng is None:
            self._rng = random.Random(
                seed if seed is not None else int(self.np_random.integers(2**62))
            )
        self._table = Table.deal(self.ruleset, self.decks, self._rng)
        self._opponent = self._player(self._rng)
        self._advance()
        if self._table.state.is_terminal():
            raise PazaakError(f"under {self.ruleset.spec} the match ended before a decision")
        return self._observe(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        table = self._live()
        number = checked_action(action, action_count(self.ruleset))
        if table.state.is_terminal():
            raise PazaakError("the match is over: call reset() for a new one")
        sets_before = len(table.set_results)
        illegal = False
        try:
            chosen = table.action(self.seat, number)
        except IllegalActionError:
            if self.strict:
                raise
            chosen, illegal = table.action(self.seat, 0), True
        table.commit(chosen)
        self._advance()
        reward = self._set_rewards(table.set_results[sets_before:])
        terminated = table.state.is_terminal()
        if terminated:
            reward += 1.0 if table.state.match_winner() == self.seat else -1.0
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        return self._observe(), reward, terminated, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as the maskable algorithms (sb3-contrib) ask."""
        return self._live().mask(self.seat).astype(bool)

    def action_of(self, action: Action) -> int:
        """The action number of an engine action of the agent's seat now (to let a player of
        the roster act through the environment: ``env.action_of(player.choose(env.view))``)."""
        return self._live().number(self.seat, action)

    @property
    def view(self) -> MatchState:
        """What the agent's seat sees now (the engine's ``observed_by``)."""
        return self._live().state.observed_by(self.seat)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._table is None:
            return None
        state = self._table.state
        view = state.observed_by(self.seat)
        return f"{format_position(view)}  (sets {state.sets_won()[0]}-{state.sets_won()[1]})"

    # -- inside ---------------------------------------------------------------------------

    @property
    def state(self) -> MatchState:
        """The whole match, both hands included (for tests and tools, not for the agent)."""
        return self._live().state

    def _live(self) -> Table:
        if self._table is None:
            raise PazaakError("no match yet: call reset() first")
        return self._table

    def _player(self, rng: random.Random) -> Player:
        """The opponent: one for every match if deterministic, else one drawing from the
        match's chance stream (as ``pazaak simulate`` gives it the match's)."""
        own, other = self.decks[1 - self.seat], self.decks[self.seat]
        if self.opponent_name in RANDOMISED_POLICIES:
            return make_player(
                self.opponent_name, ruleset=self.ruleset, rng=rng, own_deck=own, opponent_deck=other
            )
        if self._fixed is None:
            self._fixed = make_player(
                self.opponent_name,
                ruleset=self.ruleset,
                rng=random.Random(0),
                own_deck=own,
                opponent_deck=other,
            )
        return self._fixed

    def _advance(self) -> None:
        """Chance and the opponent's moves until the agent decides, or the match ends."""
        table = self._live()
        opponent = self._opponent
        assert opponent is not None
        other = 1 - self.seat
        while True:
            table.run_chance(lambda state: True)
            state = table.state
            if state.is_terminal() or state.turn == self.seat:
                return
            table.commit(opponent.choose(state.observed_by(other)))

    def _set_rewards(self, results: list[int | None]) -> float:
        if not self.set_reward:
            return 0.0
        return sum(
            self.set_reward if winner == self.seat else -self.set_reward
            for winner in results
            if winner is not None
        )

    def _observe(self) -> Observation:
        return self._live().observe(self.seat)

    def _info(self) -> dict[str, Any]:
        table = self._live()
        return {
            "action_mask": table.mask(self.seat).astype(bool),
            "position": format_position(table.state.observed_by(self.seat)),
            "sets_won": table.state.sets_won(),
        }


__all__ = ["PazaakEnv", "checked_action", "checked_reward", "side_deck"]
