"""Stable-Baselines3 partners (issue 6): the single-agent env, SB3Policy in every pool and seat.

Tests that need torch / sb3-contrib are marked ``rl`` and skipped only when those packages are
not installed (CI installs the ``rl`` extra, so they run there). Nothing at module level imports
torch: the env tests and the argument checks run on a core install (``pip install ".[test]"``).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import hanabi_env
from agents.evaluate import evaluate, game_seeds, play_games
from agents.policy import RuleAgent
from agents.registry import make
from agents.sb3 import HanabiPartnerEnv, as_policy, legal_mask
from hanabi_env import HanabiConfig, HanabiGame
from tests.helpers import Wrapped

ROOT = Path(__file__).resolve().parents[2]
HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))
NEEDS_RL = 'needs the rl extra (torch, stable-baselines3, sb3-contrib): pip install ".[rl]"'


def random_episode(env, rng, seed=None, options=None):
    obs, info = env.reset(seed=seed, options=options)
    total, steps, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == np.int8  # 0/1 as PettingZoo's action_mask
        assert set(np.unique(mask)) <= {0, 1}
        assert mask.any()
        np.testing.assert_array_equal(info["action_mask"], mask)
        assert np.array_equal(obs, env.game.observation(info["seat"]))
        obs, r, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated
        total += r
        steps += 1
    assert not info["action_mask"].any()  # the episode is over
    return total, steps, {k: v for k, v in info.items() if k != "action_mask"}


# ------------------------------------------------------------------ the env (no torch needed)


def test_core_imports_without_torch():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import hanabi_env, agents, qd, meta\n"
        "assert 'agents.sb3' not in sys.modules\n"
        "import agents.sb3\n"
        "env = agents.sb3.HanabiPartnerEnv(['IGGI'])\n"
        "assert not {'torch', 'stable_baselines3', 'sb3_contrib'} & set(sys.modules)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("players", [2, 3])
def test_gymnasium_check_env(players, dtype):
    env = HanabiPartnerEnv(["IGGI", "Piers"], players=players, observation_dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env, skip_render_check=True)


def test_gymnasium_check_env_float64_warns_only_about_hanabi_v5s_infinite_bounds():
    env = HanabiPartnerEnv(["IGGI"])
    assert env.observation_space == hanabi_env.env().observation_space("player_0")["observation"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym_check_env(env, skip_render_check=True)
    messages = {str(w.message) for w in caught}
    assert messages
    assert all("infinity" in m for m in messages), messages


@pytest.mark.parametrize("scoring", ["strict", "lenient"])
def test_episode_return_is_the_final_score(scoring):
    env = HanabiPartnerEnv(["IGGI", "LegalRandom", [39]], players=3, scoring=scoring)
    rng = np.random.default_rng(0)
    for ep in range(6):
        total, _, info = random_episode(env, rng, seed=ep)
        assert env.game.is_terminal
        assert total == info["score"] == env.game.score
        assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_partners_act_and_learner_is_on_turn():
    env = HanabiPartnerEnv(["Piers"], players=4, seat=2)
    rng = np.random.default_rng(1)
    env.reset(seed=5)
    while not env.game.is_terminal:
        assert env.game.current_player == 2
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    actors = {m.actor for m in env.game.view(0).moves}
    assert actors == {0, 1, 2, 3}


def test_seeding_and_options():
    env = HanabiPartnerEnv(["IGGI", "Piers", "Outer"], seat=None)
    a = random_episode(env, np.random.default_rng(3), seed=7)
    b = random_episode(env, np.random.default_rng(3), seed=7)
    assert a == b
    draws = {env.reset(seed=s)[1]["partner"] for s in range(30)}
    assert draws == {"IGGI", "Piers", "Outer"}
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == {0, 1}
    _, info = env.reset(seed=1, options={"partner": "Outer", "seat": 1, "deal_seed": 42})
    assert (info["partner"], info["seat"]) == ("Outer", 1)
    g = HanabiGame(players=2)
    g.reset(42)
    assert np.array_equal(env.game.view(0).hands[1], g.view(0).hands[1])
    weighted = HanabiPartnerEnv(["IGGI", "Piers"], weights=[0, 1])
    assert {weighted.reset(seed=s)[1]["partner"] for s in range(10)} == {"Piers"}


def test_illegal_action_ends_the_episode():
    env = HanabiPartnerEnv(["IGGI"], seat=0, illegal_reward=-2.0)
    env.reset(seed=0)  # 8 hint tokens: discarding is illegal
    _, r, done, _, info = env.step(0)
    assert (r, done, info["illegal_action"], env.illegal_actions) == (-2.0, True, True, 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="partners"):
        HanabiPartnerEnv([])
    with pytest.raises(ValueError, match="seat"):
        HanabiPartnerEnv(["IGGI"], seat=2)
    with pytest.raises(ValueError, match="weights"):
        HanabiPartnerEnv(["IGGI", "Piers"], weights=[1])
    with pytest.raises(ValueError, match="players"):
        HanabiPartnerEnv(["IGGI"], players=6)
    with pytest.raises(ValueError, match="observation_type"):
        HanabiPartnerEnv(["IGGI"], observation_type="seer")
    with pytest.raises(ValueError, match="unknown agent"):
        HanabiPartnerEnv(["nobody"])
    with pytest.raises(TypeError, match="partners"):
        as_policy(3.5)
    env = HanabiPartnerEnv(["IGGI"])
    with pytest.raises(ValueError, match="partner"):
        env.reset(options={"partner": "Piers"})
    with pytest.raises(ValueError, match="seat"):
        env.reset(options={"seat": 5})


def test_legal_mask_from_the_view_matches_the_engine():
    g = HanabiGame(players=3, hand_size=5)
    g.reset(11)
    agent = make("IGGI")
    while not g.is_terminal:
        cur = g.current_player
        assert np.array_equal(legal_mask(g.view(cur)), g.legal_mask())
        g.step(agent.act(g.view(cur)))
    assert not legal_mask(g.view(0)).any()


def test_policy_games_do_not_depend_on_workers():
    cfg = HanabiConfig(players=3, hand_size=5, scoring="lenient")
    n = 12
    _, deals, seeds = game_seeds(4, n, 3, random_seat=False)
    seat_agents = np.tile([0, 1, 1], (n, 1))
    policies = [Wrapped(make("IGGI")), make("Piers")]
    kw = {"chunk_size": 4, "record_actions": True}
    one = play_games(policies, seat_agents, deals, seeds, cfg, workers=1, **kw)
    two = play_games(policies, seat_agents, deals, seeds, cfg, workers=2, **kw)
    assert np.array_equal(one.scores, two.scores)
    assert np.array_equal(one.counters, two.counters)
    assert np.array_equal(one.actions, two.actions)
    rule = play_games([make("IGGI"), make("Piers")], seat_agents, deals, seeds, cfg, **kw)
    assert np.array_equal(one.actions, rule.actions)  # the Python path replays the kernel


def test_fixed_policy_partners_in_mixed_fitness():
    from qd.ga import population_fitness

    pop = np.array([[0, 5, 39], [7, 8, 39], [39, 1, 2]])
    kw = {"mode": "mixed", "players": (2, 3), "games": 4, "seed": 2}
    by_name = population_fitness(pop, pool=["IGGI"], **kw)
    by_rule_agent = population_fitness(pop, pool=[make("IGGI")], **kw)
    by_python_policy = population_fitness(pop, pool=[Wrapped(make("IGGI"))], **kw)
    assert np.array_equal(by_name, by_rule_agent)
    assert np.array_equal(by_name, by_python_policy)


@pytest.mark.parametrize(
    ("bad", "error"),
    [(0, ValueError), (-2, ValueError), (True, TypeError), (1.0, TypeError), ("2", TypeError)],
)
def test_torch_threads_is_checked_before_torch_is_needed(tmp_path, bad, error):
    from agents.sb3 import SB3Policy, train_maskable_ppo, train_self_play

    match = "torch_threads"
    with pytest.raises(error, match=match):
        train_maskable_ppo(["IGGI"], 64, torch_threads=bad)
    with pytest.raises(error, match=match):
        train_self_play(64, torch_threads=bad)
    with pytest.raises(error, match=match):
        SB3Policy(tmp_path / "missing.zip", torch_threads=bad)


# ------------------------------------------------------------------- SB3 (the rl extra)


class ThreadProbe(Wrapped):
    """A partner recording torch's thread count whenever it acts (inside the training loop)."""

    def __init__(self):
        super().__init__(make("IGGI"))
        self.name = "probe"
        self.seen = set()

    def act(self, view):
        import torch

        self.seen.add(torch.get_num_threads())
        return super().act(view)


@pytest.fixture
def torch_threads_3():
    """torch on 3 threads (not the default 1) during the test, restored afterwards."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(3)
    yield torch
    torch.set_num_threads(before)


def threads_at_calls(monkeypatch, cls, name: str, torch) -> list[int]:
    """torch's thread count at every call of the method ``cls.name`` (the call goes through)."""
    seen: list[int] = []
    real = getattr(cls, name)

    def spy(self, *args, **kwargs):
        seen.append(torch.get_num_threads())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, spy)
    return seen


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_training_uses_one_torch_thread_by_default(torch_threads_3, monkeypatch):
    from sb3_contrib import MaskablePPO

    from agents.sb3 import train_maskable_ppo, train_self_play

    torch = torch_threads_3
    kw = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}}
    for threads, expected in ((1, 1), (2, 2), (None, 3)):
        probe = ThreadProbe()  # deep-copied into the env: read the env's copy
        model = train_maskable_ppo([probe], 64, torch_threads=threads, **kw)
        [copies] = model.get_env().get_attr("_copies", indices=[0])
        assert {t for seat in copies for t in seat[0].seen} == {expected}, threads
        assert torch.get_num_threads() == 3  # restored after training
    seen = threads_at_calls(monkeypatch, MaskablePPO, "learn", torch)
    train_self_play(64, **kw)
    train_self_play(64, torch_threads=None, **kw)
    assert seen == [1, 3]
    assert torch.get_num_threads() == 3


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_policy_acts_on_one_torch_thread_by_default(model_path, torch_threads_3, monkeypatch):
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.sb3 import SB3Policy

    torch = torch_threads_3
    seen = threads_at_calls(monkeypatch, MaskableActorCriticPolicy, "get_distribution", torch)
    g = HanabiGame(players=2)
    g.reset(4)
    view = g.view(0)
    for kwargs, expected in (({}, 1), ({"torch_threads": 2}, 2), ({"torch_threads": None}, 3)):
        for deterministic in (True, False):
            pol = SB3Policy(model_path, deterministic=deterministic, **kwargs)
            pol.act(view)
            pol.action_probabilities(view)
            assert seen == [expected, expected], (kwargs, deterministic)
            assert torch.get_num_threads() == 3  # restored after each move
            seen.clear()
            assert pickle.loads(pickle.dumps(pol)).torch_threads == pol.torch_threads


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    if not HAVE_RL:
        pytest.skip(NEEDS_RL)
    from agents.sb3 import train_maskable_ppo

    path = tmp_path_factory.mktemp("sb3") / "ppo.zip"
    model = train_maskable_ppo(
        ["IGGI", "Piers", "LegalRandom"],
        3000,
        seed=0,
        n_envs=2,
        path=path,
        n_steps=256,
        batch_size=128,
        n_epochs=2,
        policy_kwargs={"net_arch": [32, 32]},
    )
    assert model.num_timesteps >= 3000
    assert sum(model.get_env().get_attr("illegal_actions")) == 0  # masked: legal moves only
    return path


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_check_env():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(HanabiPartnerEnv(["IGGI", "Piers"], players=2))


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_trained_model_plays_only_legal_moves(model_path):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, device="cpu")
    env = HanabiPartnerEnv(["IGGI", "Outer"], players=2)
    for ep in range(3):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=False)
            obs, _, done, _, info = env.step(int(action))
            assert not info["illegal_action"]
    assert env.illegal_actions == 0


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_policy_pickles_without_the_model(model_path):
    from agents.sb3 import SB3Policy, load_model

    pol = SB3Policy(model_path, deterministic=False, seed=3)
    assert load_model(model_path) is load_model(model_path)  # once per process
    g = HanabiGame(players=2)
    g.reset(9)
    view = g.view(0)
    first = pol.act(view)
    blob = pickle.dumps(pol)
    assert len(blob) < 2000
    assert pol._model is not None
    clone = pickle.loads(blob)
    twin = copy.deepcopy(pol)
    assert clone._model is None
    assert clone.path == pol.path
    for p in (pol, clone, twin):
        p.reset(3)
    assert pol.act(view) == clone.act(view) == twin.act(view) == first
    probs = pol.action_probabilities(view)
    assert probs.shape == (20,)
    assert probs[legal_mask(view) == 0].sum() == 0
    assert probs.sum() == pytest.approx(1.0)
    det = SB3Policy(model_path)
    assert det.act(view) == int(np.argmax(probs))
    with pytest.raises(FileNotFoundError):
        SB3Policy(model_path.parent / "missing.zip")
    with pytest.raises(ValueError, match="observation_type"):
        SB3Policy(model_path, observation_type="seer")
    g3 = HanabiGame(players=3)
    g3.reset(0)
    view3 = g3.view(0)
    with pytest.raises(ValueError, match="configuration"):
        det.act(view3)


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_policy_in_the_aec_loop(model_path):
    from agents.sb3 import SB3Policy

    policies = {"player_0": SB3Policy(model_path), "player_1": make("Piers")}
    env = hanabi_env.env(players=2)
    env.reset(seed=0)
    for agent in env.agent_iter():
        env.step(policies[agent](env, agent))  # illegal moves would raise
    assert env.unwrapped.game.is_terminal


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_games_do_not_depend_on_workers(model_path):
    from agents.sb3 import SB3Policy

    cfg = HanabiConfig(players=2, hand_size=5, scoring="lenient")
    n = 8
    _, deals, seeds = game_seeds(2, n, 2, random_seat=False)
    policies = [SB3Policy(model_path, deterministic=False), make("IGGI")]
    seat_agents = np.tile([0, 1], (n, 1))
    kw = {"chunk_size": 2, "record_actions": True}
    one = play_games(policies, seat_agents, deals, seeds, cfg, workers=1, **kw)
    two = play_games(policies, seat_agents, deals, seeds, cfg, workers=2, **kw)
    assert np.array_equal(one.actions, two.actions)
    assert np.array_equal(one.scores, two.scores)


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_in_a_table_and_a_meta_evaluation(model_path):
    from agents.sb3 import SB3Policy
    from meta import build_table, evaluate_meta

    ppo = SB3Policy(model_path, name="ppo")
    responses = [ppo, make("Piers")]
    hypotheses = [ppo, make("IGGI"), make("LegalRandom")]
    table = build_table(responses, hypotheses, games=4, seed=1)
    assert table.response_ids == ["ppo", "Piers"]
    assert np.isfinite(table.scores).all()
    _, deals, seeds = game_seeds(1, 4, 2, random_seat=False)
    cfg = HanabiConfig(players=2, hand_size=5, scoring="lenient")
    direct = play_games([ppo, make("IGGI")], np.tile([0, 1], (4, 1)), deals, seeds, cfg)
    assert table.scores[0, 1] == pytest.approx(direct.scores.mean())
    res = evaluate_meta(
        table,
        responses,
        [ppo, make("IGGI")],
        variants=("adaptive", "generalist", "oracle"),
        episodes=1,
        games=2,
        seed=0,
        workers=2,
    )
    assert res.scores["adaptive"].shape == (2, 1, 2)
    assert set(res.summary()) == {"adaptive", "generalist", "oracle"}


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_sb3_partner_in_mixed_fitness_and_the_env(model_path):
    from agents.sb3 import SB3Policy
    from qd.ga import population_fitness

    ppo = SB3Policy(model_path, name="ppo")
    pop = np.array([[0, 5, 39], [7, 8, 39]])
    fit = population_fitness(pop, "mixed", players=(2,), games=3, seed=4, pool=["IGGI", ppo])
    for i, c in enumerate(pop):
        ref = evaluate(RuleAgent(c), "mixed", (2,), 3, pool=["IGGI", ppo], seed=4, workers=1)
        assert fit[i] == pytest.approx(ref.mean)
    env = HanabiPartnerEnv([ppo, "IGGI", [0, 5, 39]], players=2)
    total, _, info = random_episode(env, np.random.default_rng(0), seed=1, options={"partner": 0})
    assert info["partner"] == "ppo"
    assert total == info["score"]


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_self_play_through_the_aec_env(tmp_path):
    from agents.sb3 import SB3ActionMaskWrapper, SB3Policy, train_self_play

    wrapped = SB3ActionMaskWrapper(hanabi_env.env(players=2))
    obs, info = wrapped.reset(seed=0)
    assert obs.shape == wrapped.observation_space.shape
    assert info == {}
    total = 0.0
    done = False
    while not done:
        mask = wrapped.action_mask()
        obs, r, done, _, _ = wrapped.step(int(np.flatnonzero(mask)[0]))
        total += r
    assert total == wrapped.unwrapped.game.score
    path = tmp_path / "self_play.zip"
    train_self_play(512, seed=0, path=path, n_steps=256, batch_size=128, n_epochs=1)
    seats = np.zeros((2, 2), np.int64)
    batch = play_games([SB3Policy(path)], seats, np.arange(2), seats, HanabiConfig(players=2))
    assert batch.scores.shape == (2,)


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_example_script_runs(tmp_path):
    out = tmp_path / "partner.zip"
    cmd = [
        sys.executable,
        str(ROOT / "examples" / "train_sb3_partner.py"),
        *("--steps", "256", "--games", "2", "--episodes", "1", "--meta-games", "2"),
        *("--out", str(out)),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OMP_NUM_THREADS", None)  # the example limits torch's threads itself
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert out.exists()
    assert "vs the test pool" in res.stdout
    assert "meta-agent" in res.stdout
