"""Neural policies on the batched paths: TorchPolicy, SB3Policy's act_batch, the SB3 vector env.

Marked ``rl`` (torch, Stable-Baselines3, sb3-contrib) and skipped only when they are missing.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import agents
from agents.evaluate import _run_policy_games, game_seeds, play_games
from hanabi_env.config import HanabiConfig

HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))
NEEDS_RL = 'needs the rl extra (torch, stable-baselines3, sb3-contrib): pip install ".[rl]"'
pytestmark = [pytest.mark.rl, pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)]


def _seating(players: int, n: int, seed: int):
    seats, deals, agent_seeds = game_seeds(seed, n, players, random_seat=True)
    seat_agents = np.ones((n, players), dtype=np.int64)
    seat_agents[np.arange(n), seats] = 0
    return seat_agents, deals, agent_seeds


def _same_games(pools, cfg, n=20, seed=1):
    seat_agents, deals, agent_seeds = _seating(cfg.players, n, seed)
    batch = play_games(pools, seat_agents, deals, agent_seeds, cfg, record_actions=True)
    scores, counters, _, actions = _run_policy_games(cfg, pools, seat_agents, deals, agent_seeds)
    assert np.array_equal(batch.scores, scores)
    assert np.array_equal(batch.counters, counters)
    assert np.array_equal(batch.actions, actions)
    return batch


@pytest.fixture(scope="module")
def ppo_path(tmp_path_factory):
    from sb3_contrib import MaskablePPO

    from agents.sb3 import HanabiPartnerEnv

    model = MaskablePPO(
        "MlpPolicy", HanabiPartnerEnv(["IGGI"]), seed=0, policy_kwargs={"net_arch": [16]}
    )
    path = tmp_path_factory.mktemp("ppo") / "ppo.zip"
    model.save(str(path))
    return path


@pytest.mark.parametrize("deterministic", [True, False])
def test_torch_policy_plays_the_per_game_paths_games(deterministic):
    import torch

    from agents.batch import TorchPolicy

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(956, 32), torch.nn.Tanh(), torch.nn.Linear(32, 30))
    pol = TorchPolicy(net, deterministic=deterministic, name="net")
    cfg = HanabiConfig(players=3, scoring="lenient")
    _same_games([pol, agents.make("piers")], cfg)


@pytest.mark.parametrize("deterministic", [True, False])
def test_sb3_policy_acts_in_batches_with_the_per_game_paths_games(ppo_path, deterministic):
    from agents.sb3 import SB3Policy

    pol = SB3Policy(ppo_path, deterministic=deterministic)
    cfg = HanabiConfig(players=2, scoring="lenient")
    calls = []
    real = pol.act_batch
    pol.act_batch = lambda *a: calls.append(len(a[0])) or real(*a)  # type: ignore[method-assign]
    _same_games([pol, agents.make("iggi")], cfg)
    assert max(calls) > 1  # many games in one forward pass


def test_sb3_policy_act_matches_predict(ppo_path):
    """The deterministic move is model.predict's (the masked argmax)."""
    from agents.sb3 import SB3Policy, legal_mask
    from hanabi_env import HanabiGame

    pol = SB3Policy(ppo_path)
    game = HanabiGame(HanabiConfig(players=2))
    game.reset(4)
    for _ in range(30):
        if game.is_terminal:
            break
        view = game.view(game.current_player)
        mask = legal_mask(view).astype(bool)
        expected, _ = pol.model.predict(view.encode(), action_masks=mask, deterministic=True)
        assert pol.act(view) == int(expected)
        probs = pol.action_probabilities(view)
        assert probs[~mask].sum() == 0
        assert probs.sum() == pytest.approx(1.0)
        game.step(pol.act(view))


def test_maskable_ppo_trains_self_play_on_the_vector_env():
    from sb3_contrib import MaskablePPO

    from agents.sb3.vec_env import HanabiSB3VecEnv

    env = HanabiSB3VecEnv(8, observation_dtype="float32")
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (8, 658)
    masks = env.env_method("action_masks")
    assert len(masks) == 8
    assert all(m.dtype == bool and m.any() for m in masks)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [16]},
    )  # fmt: skip
    model.learn(total_timesteps=8 * 32 * 2)
    assert model.num_timesteps == 512
    # an episode's end: SB3's terminal observation and the final score in the info
    env.reset()
    for _ in range(300):
        actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        obs, _rewards, dones, infos = env.step(actions)
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert infos[i]["terminal_observation"].shape == (658,)
            assert "score" in infos[i]
            return
    pytest.fail("no game ended")


def test_mixed_pool_of_a_ppo_partner_and_rule_agents_in_evaluate(ppo_path):
    from agents.sb3 import SB3Policy

    res = agents.evaluate(
        "iggi", mode="mixed", pool=[SB3Policy(ppo_path), "piers"], players=(2,), games=30
    )
    assert [r["partner"] for r in res.rows] == ["sb3:ppo", "Piers"]
