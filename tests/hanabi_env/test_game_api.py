"""HanabiGame's fast paths agree with its checked ones: ``try_step`` (the AEC env's step),
``legal_mask(out=...)`` and ``observation(seat, "seer")`` (the env's ``state()``)."""

from __future__ import annotations

import numpy as np
import pytest

import hanabi_env
from hanabi_env.game import HanabiGame
from tests.hanabi_env.helpers import same, snapshot


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (3, 5), (5, 11)])
def test_try_step_plays_the_same_game_as_step(players, seed):
    checked, fast = HanabiGame(players=players), HanabiGame(players=players)
    checked.reset(seed)
    fast.reset(seed)
    mask = np.zeros(fast.n_actions, dtype=np.int8)
    rng = np.random.default_rng(seed)
    while not checked.is_terminal:
        action = int(rng.choice(checked.legal_actions()))
        reward = checked.step(action)
        assert fast.try_step(action, mask_out=mask) == (True, reward)
        assert same(snapshot(checked), snapshot(fast))
        np.testing.assert_array_equal(mask, checked.legal_mask())
    assert fast.is_terminal
    assert not mask.any()  # no legal move once the game is over


@pytest.mark.parametrize("action", [-1, 20, 2**63 - 1, 2**63, 10**20, -(10**20)])
def test_step_raises_value_error_for_any_out_of_range_int(action):
    """``step`` checks and applies in one call (``try_step``): even ints beyond int64 are a
    ``ValueError`` naming the action, never an ``OverflowError``, and the state is unchanged."""
    game = HanabiGame(players=2)
    game.reset(4)
    before = snapshot(game)
    with pytest.raises(ValueError, match=f"action {action} .*is illegal"):
        game.step(action)
    assert same(before, snapshot(game))


def test_try_step_refuses_illegal_moves_and_changes_nothing():
    game = HanabiGame(players=2)
    game.reset(4)
    illegal = np.flatnonzero(game.legal_mask() == 0)
    assert illegal.size > 0
    for action in [int(illegal[0]), -1, game.n_actions, 10**6]:
        before = snapshot(game)
        assert game.try_step(action) == (False, 0)
        assert same(before, snapshot(game))
    while not game.is_terminal:
        assert game.try_step(int(game.legal_actions()[0]))[0]
    before = snapshot(game)
    assert game.try_step(0) == (False, 0)  # the game is over
    assert same(before, snapshot(game))


def test_legal_mask_writes_into_out():
    game = HanabiGame(players=3)
    game.reset(2)
    out = np.full(game.n_actions, 7, dtype=np.int8)
    assert game.legal_mask(out=out) is out
    np.testing.assert_array_equal(out, game.legal_mask())


def test_seer_observation_is_the_seer_view_and_the_env_state():
    env = hanabi_env.raw_env(players=3)
    env.reset(seed=6)
    game = env.game
    for _ in range(4):
        seat = game.current_player
        seer = game.observation(seat, "seer")
        np.testing.assert_array_equal(seer, game.view(seat, seer=True).encode("seer"))
        # the env's state (v2): the seat's observation, then its own hand (docs/marl.md §4)
        np.testing.assert_array_equal(env.state()[: game.observation_size], game.observation(seat))
        default = game.observation(seat)
        assert not np.array_equal(seer, default)  # the seat's own cards are in it
        np.testing.assert_array_equal(game.observation(seat, "card_knowledge"), default)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
