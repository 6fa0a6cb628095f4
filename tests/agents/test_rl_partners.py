"""Shipped RL partners (agents.rl): load without torch, act legally in batches, play the
recorded games of the model they were exported from; the rl: spec and its errors; export.

The export tests need the rl extra (torch, sb3-contrib) and are skipped only without it.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.batch import BatchPolicy
from agents.evaluate import _run_policy_games, game_seeds, play_games
from agents.rl import (
    RLPartner,
    load_partner,
    load_partners,
    partner_config,
    partner_names,
    partner_specs,
)
from agents.rl.partners import self_play_record
from hanabi_env.config import HanabiConfig
from hanabi_env.vector import HanabiVectorEnv
from tests.helpers import run_python

ROOT = Path(__file__).resolve().parents[2]
NAMES = partner_names()
EVERY = partner_names(clones=True)
HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))
NEEDS_RL = 'needs the rl extra (torch, stable-baselines3, sb3-contrib): pip install ".[rl]"'
TWO = HanabiConfig(players=2, scoring="lenient")


def _observations(n_envs=64, steps=40, seed=0):
    """Observations and masks of 2-player games played by uniformly random legal moves."""
    env = HanabiVectorEnv(
        n_envs, players=2, observation_dtype="float32", autoreset_mode="same_step"
    )
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    all_obs, all_mask = [], []
    for _ in range(steps):
        mask = info["action_mask"]
        all_obs.append(obs)
        all_mask.append(mask)
        actions = [rng.choice(np.flatnonzero(m)) for m in mask]
        obs, _, _, _, info = env.step(np.array(actions))
    return np.concatenate(all_obs), np.concatenate(all_mask)


def test_at_least_four_partners_are_shipped_with_their_provenance():
    assert len(NAMES) >= 4
    assert partner_specs() == [f"rl:{n}" for n in NAMES]
    total = 0
    for name in NAMES:
        cfg = partner_config(name)
        assert cfg["name"] == name
        assert (cfg["game"]["players"], cfg["game"]["scoring"]) == (2, "lenient")
        training = cfg["training"]
        for key in ("command", "seed", "commit", "steps", "wall_s", "settings"):
            assert training[key], (name, key)
        assert name in training["command"]
        assert cfg["self_play"]["games"] >= 1000
        total += (agents.rl.PARTNER_DIR / cfg["weights"]["file"]).stat().st_size
    assert total < 5_000_000  # a few MB at most for all of them


def test_every_shipped_network_has_its_provenance_and_all_fit_in_10_mb():
    """Issue 44 item 3: the shipped networks, clones included, ≤ 10 MB in all."""
    total = 0
    for name in EVERY:
        cfg = partner_config(name)
        assert cfg["name"] == name
        assert cfg["game"]["scoring"] == "lenient"
        assert 2 <= cfg["game"]["players"] <= 5
        for key in ("command", "seed", "commit", "steps", "wall_s"):
            assert training_value(cfg, key), (name, key)
        assert name in cfg["training"]["command"]
        assert cfg["self_play"]["games"] >= 1000
        total += (agents.rl.PARTNER_DIR / cfg["weights"]["file"]).stat().st_size
        total += (agents.rl.PARTNER_DIR / f"{name}.json").stat().st_size
    assert total <= 10_000_000


def training_value(cfg: dict, key: str):
    """``cfg["training"][key]``; a seed of 0 counts as given."""
    value = cfg["training"].get(key)
    return value is not None and (value != "" or key == "seed")


def test_partners_load_and_play_without_torch():
    """A fresh interpreter where torch cannot be imported loads every partner and plays."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import agents\n"
        "from agents.rl import partner_specs\n"
        "res = agents.play([agents.make(s) for s in (partner_specs() * 2)[:2]], games=3, seed=1)\n"
        "print(len(res.scores), 'torch' in sys.modules and sys.modules['torch'] is not None)\n"
    )
    out = run_python(["-c", code], cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "False"]


@pytest.mark.parametrize("name", EVERY)
def test_partner_plays_the_recorded_games_of_its_trained_model(name):
    """The numpy network on the shipped weights chooses the trained model's moves (its record)."""
    cfg = partner_config(name)
    check = cfg["check"]
    game = HanabiConfig(players=cfg["game"]["players"], scoring="lenient")
    record = self_play_record(load_partner(name), check["games"], check["seed"], game)
    assert record == check
    assert cfg["export_check"]["same_moves"] == cfg["export_check"]["observations"]


def test_moves_are_legal_and_do_not_depend_on_the_batch():
    obs, mask = _observations()
    for partner in load_partners("all"):
        if (
            partner.config["game"]["players"] != 2
            or partner.config["architecture"]["kind"] != "mlp"
        ):
            continue  # these observations are 2-player ones, one per decision
        assert isinstance(partner, BatchPolicy)
        draws = np.zeros(len(obs))
        seats = np.zeros(len(obs), dtype=np.int64)
        moves = partner.act_batch(obs, mask, seats, draws)
        assert mask[np.arange(len(obs)), moves].all()
        one_by_one = [
            partner.act_batch(obs[i : i + 1], mask[i : i + 1], seats[:1], draws[:1])[0]
            for i in range(0, len(obs), 37)
        ]
        assert np.array_equal(moves[::37], one_by_one)
        assert len(set(moves.tolist())) > 3  # a trained partner plays several kinds of move


def test_sampling_partner_is_seeded_and_lockstep_equals_the_per_game_path():
    sampled = load_partner(NAMES[0], deterministic=False)
    pools = [sampled, load_partner(NAMES[-1]), agents.make("piers")]
    _, deals, agent_seeds = game_seeds(3, 8, 2, random_seat=False)
    seat_agents = np.array([[0, 1], [1, 0], [0, 2], [2, 1]] * 2)
    batch = play_games(pools, seat_agents, deals, agent_seeds, TWO, record_actions=True)
    scores, _, _, actions = _run_policy_games(TWO, pools, seat_agents, deals, agent_seeds)
    assert np.array_equal(batch.scores, scores)
    assert np.array_equal(batch.actions, actions)
    again = play_games(pools, seat_agents, deals, agent_seeds, TWO, record_actions=True)
    assert np.array_equal(again.actions, batch.actions)


def test_rl_specs_and_their_errors(tmp_path):
    partner = agents.make(f"rl:{NAMES[0]}", seed=3)
    assert isinstance(partner, RLPartner)
    assert partner.name == f"rl:{NAMES[0]}"
    shipped = ", ".join(partner_names(clones=True))  # the clones are listed in the error too
    with pytest.raises(ValueError, match="no such RL partner; shipped: " + shipped):
        agents.make("rl:no-such-partner")
    with pytest.raises(ValueError, match="no such RL partner"):
        agents.make("rl:")
    with pytest.raises(ValueError, match="no partner config"):
        agents.make(f"rl:{tmp_path}/missing.json")
    with pytest.raises(ValueError, match="no such RL partner"):
        load_partners("all," + NAMES[0] + ",nope")
    with pytest.raises(ValueError, match="trained for 2-player games"):
        agents.evaluate(partner, players=(3,), games=2)
    with pytest.raises(ValueError, match="hand size 4"):
        agents.play([partner, partner], games=1, hand_size=4)


def _copy(name: str, dest: Path) -> Path:
    cfg = partner_config(name)
    shutil.copy(agents.rl.PARTNER_DIR / f"{name}.json", dest / f"{name}.json")
    shutil.copy(agents.rl.PARTNER_DIR / cfg["weights"]["file"], dest / cfg["weights"]["file"])
    return dest / f"{name}.json"


def test_bad_partner_files_are_refused_by_name(tmp_path):
    path = _copy(NAMES[0], tmp_path)
    assert load_partner(str(path)).config == partner_config(NAMES[0])
    npz = tmp_path / partner_config(NAMES[0])["weights"]["file"]
    arrays = dict(np.load(npz))
    arrays["b0"] = arrays["b0"] + 1
    np.savez(npz, **arrays)
    with pytest.raises(ValueError, match="does not hold the weights its config records"):
        load_partner(str(path))
    np.savez(npz, w0=np.array([object()], dtype=object))  # a pickled array is never loaded
    with pytest.raises(ValueError, match=r"lacks the arrays|not an NPZ"):
        load_partner(str(path))
    cfg = json.loads(path.read_text())
    path.write_text(json.dumps({**cfg, "format_version": 99}))
    with pytest.raises(ValueError, match="format_version 99"):
        load_partner(str(path))
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON partner config"):
        load_partner(str(path))


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_export_plays_the_sb3_models_masked_argmax(tmp_path, dtype):
    from sb3_contrib import MaskablePPO

    from agents.rl import export_partner, move_agreement
    from agents.sb3 import SB3Policy
    from agents.sb3.vec_env import HanabiSB3VecEnv

    env = HanabiSB3VecEnv(16, observation_dtype="float32", scoring="lenient")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=128, n_epochs=1, seed=0,
        policy_kwargs={"net_arch": [32, 32]}, device="cpu",
    )  # fmt: skip
    model.learn(256)  # a little training: logits that are no longer near-uniform
    path = tmp_path / "mine.json"
    model.save(str(tmp_path / "mine.zip"))
    partner = export_partner(model, path, name="mine", weight_dtype=dtype)
    assert agents.make(f"rl:{path}").config["weights"]["dtype"] == dtype
    obs, mask = _observations(n_envs=32, steps=30, seed=5)
    agree = move_agreement(model, partner, obs, mask)
    if dtype == "float32":
        assert agree["same_moves"] == agree["observations"]
    else:  # float16 rounding may flip a near-tie of an untrained net, rarely
        assert agree["same_moves"] >= 0.99 * agree["observations"]
    assert agree["max_logit_error"] < (1e-4 if dtype == "float32" else 0.1)
    if dtype == "float32":
        sb3 = SB3Policy(tmp_path / "mine.zip")
        assert self_play_record(partner, 4) == self_play_record(sb3, 4)
    with pytest.raises(ValueError, match="path="):
        export_partner(model, tmp_path / "mine.npz", name="mine")


@pytest.mark.rl
@pytest.mark.skipif(not HAVE_RL, reason=NEEDS_RL)
def test_pool_vec_env_plays_the_learner_against_rule_agents_in_kernels():
    from sb3_contrib import MaskablePPO

    from agents.rl.pool_env import HanabiPoolVecEnv

    def run(seed):
        env = HanabiPoolVecEnv(16, ["piers", "iggi"], seed=seed, scoring="lenient")
        obs = env.reset()
        assert obs.shape == (16, 658)
        rng = np.random.default_rng(0)
        returns, ends = np.zeros(16), []
        for _ in range(150):
            masks = env.action_masks()
            assert masks.any(axis=1).all()  # the learner is always on turn
            obs, rewards, dones, infos = env.step([rng.choice(np.flatnonzero(m)) for m in masks])
            returns += rewards
            for i in np.flatnonzero(dones):
                # the learner's return: the final score less what partners scored before its
                # first move (at most one move in 2-player games)
                assert 0 <= infos[i]["score"] - returns[i] <= 1
                assert infos[i]["partner"] in ("Piers", "IGGI")
                assert infos[i]["terminal_observation"].shape == (658,)
                ends.append((infos[i]["score"], infos[i]["partner"], infos[i]["seat"]))
                returns[i] = 0
        return ends

    ends = run(1)
    assert ends == run(1)
    assert ends != run(2)
    assert {e[1] for e in ends} == {"Piers", "IGGI"}
    assert {e[2] for e in ends} == {0, 1}
    env = HanabiPoolVecEnv(8, ["piers"], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")  # fmt: skip
    model.learn(256)
    assert model.num_timesteps == 256
    with pytest.raises(TypeError, match="rule agents"):
        HanabiPoolVecEnv(2, [load_partner(NAMES[0])])
    with pytest.raises(ValueError, match="at least one"):
        HanabiPoolVecEnv(2, [])
