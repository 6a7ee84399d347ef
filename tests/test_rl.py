"""The Gymnasium and PettingZoo environments (pazaak_cli.rl, the ``rl`` extra): the libraries'
own checkers, seeded random episodes checked against the engine at every step, replays, and
the same matches as ``pazaak simulate``."""

from __future__ import annotations

import contextlib
import io
import random
import re
from pathlib import Path
from typing import Any

import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from pazaak_cli.engine.cards import Card  # noqa: E402
from pazaak_cli.engine.decks import sample_deck  # noqa: E402
from pazaak_cli.engine.game import Action, Forfeit, MatchState, Phase, Play, table_total  # noqa: E402
from pazaak_cli.engine.notation import format_position, parse_position  # noqa: E402
from pazaak_cli.engine.rules import parse_ruleset  # noqa: E402
from pazaak_cli.players.roster import make_player  # noqa: E402
from pazaak_cli.rl import ENV_ID, PazaakAECEnv, PazaakEnv, aec_env  # noqa: E402
from pazaak_cli.rl.encoding import Table, action_count  # noqa: E402
from pazaak_cli.tools.simulate import Entrant, Pairing, play_matches  # noqa: E402

VARIANTS = [
    ("kotor1", "kotor1-strong", "kotor"),
    ("kotor1/sets-to-win=2,hand-size=3", "kotor1-strongest", "kotor"),
    ("kotor2", "kotor2-very-hard", "heuristic"),
    ("kotor2/main-deck=infinite,tiebreaker=any-played", "kotor2-hard", "random"),
    ("kotor1/first-player=alternate,nine-cards=win,main-deck=per-set", "kotor1-average", "kotor"),
    ("kotor2/first-player=loser,flip-targets=positive-only", "kotor2-average", "stand17"),
]


def test_the_environment_is_registered_and_passes_gymnasiums_checker() -> None:
    env = gymnasium.make(ENV_ID, opponent="heuristic")
    assert isinstance(env.unwrapped, PazaakEnv)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(PazaakEnv(ruleset="kotor2", deck="kotor2-very-hard"), skip_render_check=True)


@pytest.mark.parametrize("ruleset", ["kotor1", "kotor2/main-deck=infinite"])
def test_the_two_player_environment_passes_pettingzoos_api_test(ruleset: str) -> None:
    api_test(aec_env(ruleset=ruleset), num_cycles=300)


def choice_of(action: Action) -> tuple[str, Card | None, int]:
    """An action as what it does (a play of equal cards from another slot does the same)."""
    if isinstance(action, Play):
        return ("play", action.card, action.value)
    return (str(action), None, 0)


def check_invariants(state: MatchState, table: Table, seat: int) -> None:
    """What must hold at every decision an agent is asked to take."""
    rules = state.ruleset
    assert state.phase is Phase.AFTER_DRAW and state.turn == seat
    assert parse_position(format_position(state)) == state  # a position the rules can reach
    for side in state.sides:
        assert side.total == table_total(side.table, rules.flip_targets)
        assert len(side.table) <= rules.table_size and len(side.hand) <= rules.hand_size
    assert max(state.sets_won()) < rules.sets_to_win
    mask = table.mask(seat)
    masked = {choice_of(table.action(seat, int(n))) for n in np.flatnonzero(mask)}
    legal = {choice_of(a) for a in state.legal_actions() if not isinstance(a, Forfeit)}
    assert masked == legal
    for action in state.legal_actions():  # each engine action has its number
        if not isinstance(action, Forfeit):
            assert mask[table.number(seat, action)] == 1
    assert mask.shape == (action_count(rules),) and mask[0] == 1
    for number in np.flatnonzero(mask):  # every legal number is the engine action it names
        action = table.action(seat, int(number))
        assert table.number(seat, action) == number
        state.child(action)
    # the observation holds nothing of the other hand: another hand gives the same one
    other = 1 - seat
    hidden = state.sides[other]
    if hidden.hand:
        swapped = hidden._replace(hand=tuple(reversed(hidden.hand[1:])) + (hidden.hand[0],))
        sides = (state.sides[0], swapped) if other == 1 else (swapped, state.sides[1])
        twin = Table(state._replace(sides=sides), table.slots, random.Random(0))
        assert np.array_equal(twin.observe(seat), table.observe(seat))


@pytest.mark.parametrize("ruleset, deck, opponent", VARIANTS)
def test_seeded_random_episodes_keep_every_rule(ruleset: str, deck: str, opponent: str) -> None:
    seat_one, seat_two = (
        PazaakEnv(
            ruleset=ruleset,
            opponent=opponent,
            deck=deck,
            opponent_deck=deck,
            set_reward=0.1,
            seat=seat,
        )
        for seat in (1, 2)
    )
    picker = np.random.default_rng(1)
    for episode in range(40):
        env = [seat_one, seat_two][episode % 2]
        obs, info = env.reset(seed=episode)
        total = 0.0
        done = False
        steps = 0
        while not done:
            assert env.observation_space.contains(obs)
            table = env._live()
            check_invariants(env.state, table, env.seat)
            assert np.array_equal(info["action_mask"], env.action_masks())
            action = int(picker.choice(np.flatnonzero(env.action_masks())))
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated and "illegal_action" not in info
            total += float(reward)
            steps += 1
        state = env.state
        won, lost = state.sets_won()[env.seat], state.sets_won()[1 - env.seat]
        outcome = 1.0 if state.match_winner() == env.seat else -1.0
        assert total == pytest.approx(outcome + 0.1 * (won - lost))
        assert max(state.sets_won()) == state.ruleset.sets_to_win and steps > 0


def episode(env: PazaakEnv, seed: int, picker_seed: int) -> list[Any]:
    picker = np.random.default_rng(picker_seed)
    obs, _ = env.reset(seed=seed)
    trace: list[Any] = [obs.tobytes()]
    done = False
    while not done:
        action = int(picker.choice(np.flatnonzero(env.action_masks())))
        obs, reward, done, _, _ = env.step(action)
        trace += [action, obs.tobytes(), reward]
    return trace


def test_the_same_seed_gives_the_same_episode_and_another_seed_another() -> None:
    env = PazaakEnv(ruleset="kotor2", opponent="random", deck="kotor2-hard")
    first = episode(env, 5, 0)
    assert episode(env, 9, 0) != first
    assert episode(PazaakEnv(ruleset="kotor2", opponent="random", deck="kotor2-hard"), 5, 0) == (
        first
    )
    assert episode(env, 5, 0) == first


def test_an_illegal_action_ends_the_turn_or_raises_when_strict() -> None:
    env = PazaakEnv()
    env.reset(seed=3)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] is True
    strict = PazaakEnv(strict=True)
    strict.reset(seed=3)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)


def test_what_is_no_action_seed_or_deck_pair_is_refused_in_one_sentence() -> None:
    env = PazaakEnv()
    env.reset(seed=3)
    for wrong, said in (
        (99, "99 is outside the action space 0..17"),
        (-1, "outside"),
        (1.5, "not a whole number"),
        (True, "not a whole number"),
    ):
        with pytest.raises(ValueError, match=said):
            env.step(wrong)  # type: ignore[arg-type]
    for options, said in (
        ({"match_seed": "garbage"}, 'is not "S:I"'),
        ({"match_seed": 12}, 'is not "S:I"'),
        ({"match_seed": "1:-5"}, 'is not "S:I"'),
    ):
        with pytest.raises(ValueError, match=said):
            env.reset(options=options)
    done = False
    while not done:  # (to the match's end, then a step is refused with what to do)
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(ValueError, match=r"the match is over: call reset\(\)"):
        env.step(0)
    for decks in (("kotor1-starter",), "kotor1-starter", None):
        with pytest.raises(ValueError, match="decks is a pair"):
            PazaakAECEnv(decks=decks)  # type: ignore[arg-type]
    two = PazaakAECEnv(render_mode="ansi")
    two.reset(seed=1)
    with pytest.raises(ValueError, match="outside the action space"):
        two.step(18)
    two.reset(options={"match_seed": "11:0"})
    shown = two.render()
    assert shown is not None and "?,?,?,?" in shown  # (the agent to act's view: one hand hidden)


def test_the_environment_plays_the_matches_pazaak_simulate_plays() -> None:
    """A roster player acting through the environment, match I dealt from simulate's stream
    "S:I", wins exactly the matches it wins in ``pazaak simulate`` (the same game)."""
    rules = parse_ruleset("kotor1")
    deck = sample_deck("kotor1-strong").cards
    env = PazaakEnv(ruleset=rules, opponent="kotor", deck=deck, opponent_deck=deck)
    me = make_player(
        "heuristic", ruleset=rules, rng=random.Random(0), own_deck=deck, opponent_deck=deck
    )
    wins = 0
    for index in range(40):
        env.reset(options={"match_seed": f"11:{index}"})
        done = False
        reward: Any = 0.0
        while not done:
            _, reward, done, _, _ = env.step(env.action_of(me.choose(env.view)))
        wins += reward > 0
    pairing = Pairing(Entrant("heuristic", "s", deck), Entrant("kotor", "s", deck))
    tally = play_matches(rules, pairing, 11, 0, 40, swap=False)
    assert wins == tally.wins[0] and 0 < wins < 40


def test_two_agents_see_only_their_own_hands_and_end_with_opposite_rewards() -> None:
    env = PazaakAECEnv(ruleset="kotor2", decks=("kotor2-very-hard", "kotor2-hard"))
    picker = np.random.default_rng(2)
    for seed in range(6):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            totals[agent] += float(reward)
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            other = env.possible_agents[1 - seat]
            assert not env.observe(other)["action_mask"].any()
            check_invariants(env.table.state, env.table, seat)
            env.step(int(picker.choice(np.flatnonzero(observation["action_mask"]))))
        assert sorted(totals.values()) == [-1.0, 1.0]


def test_the_example_of_the_rl_page_runs() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert code is not None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.group(1), "docs/rl.md", "exec"), {})
    assert re.fullmatch(r"(won|lost) \(\d, \d\)", printed.getvalue().strip())


def test_a_policys_zero_dimensional_array_is_an_action_as_gymnasium_takes_it() -> None:
    """``model.predict(observation)`` gives one action as an array of shape (): the space
    contains it, and the environments once refused it as "not a whole number"."""
    env = PazaakEnv()
    env.reset(seed=3)
    stand = np.array(1)
    assert env.action_space.contains(stand)
    _, _, _, _, info = env.step(stand)  # type: ignore[arg-type]
    assert "illegal_action" not in info
    with pytest.raises(ValueError, match="not a whole number"):
        env.step(np.array(1.0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a whole number"):
        env.step(np.array([1]))  # type: ignore[arg-type]
    two = PazaakAECEnv()
    two.reset(seed=1)
    two.step(np.array(0))  # type: ignore[arg-type]


def test_the_two_agent_environment_refuses_in_one_sentence_what_cannot_be() -> None:
    """A step before reset() was an AttributeError, after the match's end a KeyError, an
    unknown agent a ValueError of tuple.index; a NaN set_reward gave NaN rewards."""
    two = PazaakAECEnv()
    with pytest.raises(ValueError, match=r"no match yet: call reset\(\) first"):
        two.step(0)
    two.reset(seed=1)
    with pytest.raises(ValueError, match="there is no agent 'player_3': the agents are"):
        two.observe("player_3")
    while two.agents:
        agent = two.agent_selection
        if two.terminations[agent]:
            two.step(None)
        else:
            two.step(int(np.flatnonzero(two.observe(agent)["action_mask"])[0]))
    with pytest.raises(ValueError, match=r"the match is over: call reset\(\) for a new one"):
        two.step(0)
    for reward in (float("nan"), float("inf"), "0.5", True):
        with pytest.raises(ValueError, match="set_reward is a finite number"):
            PazaakAECEnv(set_reward=reward)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="set_reward is a finite number"):
            PazaakEnv(set_reward=reward)  # type: ignore[arg-type]
    assert PazaakEnv(set_reward=np.float32(0.25)).set_reward == 0.25  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"no match yet: call reset\(\) first"):
        PazaakEnv().action_masks()
    # a deck's cards written in one string: how to give them, not "no such file"
    with pytest.raises(ValueError, match=r"a deck's cards are given as a sequence"):
        PazaakEnv(deck="+1 +2 +3 +4 +5 +6 -1 -2 -3 -4")
    with pytest.raises(ValueError, match="no such file, and no sample deck"):
        PazaakEnv(deck="no-such-deck")
    assert PazaakEnv(deck=("+1", "+2", "+3", "+4", "+5", "+6", "-1", "-2", "-3", "-4")).decks
