"""SB3 training helpers and models across envs (issue 31): the steps trained, ``learn_kwargs``,
resuming, ``SubprocVecEnv``, the Gymnasium id, PPO/A2C/DQN policies, and saved models moving
between PettingZoo's hanabi_v5 and this project's envs in both directions.

Everything here needs the rl extra (torch, stable-baselines3, sb3-contrib) and is skipped with
that reason without it; the hanabi_v5 tests also need the test extra's shimmy[openspiel].
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import agents
import hanabi_env
from agents.registry import make
from hanabi_env import HanabiGame

ROOT = Path(__file__).resolve().parents[2]
HAVE_RL = all(importlib.util.find_spec(m) for m in ("torch", "stable_baselines3", "sb3_contrib"))
pytestmark = [
    pytest.mark.rl,
    pytest.mark.skipif(
        not HAVE_RL,
        reason='needs the rl extra (torch, stable-baselines3, sb3-contrib): pip install ".[rl]"',
    ),
]
SMALL = {"n_epochs": 1, "policy_kwargs": {"net_arch": [16]}}


def _v5(**kwargs):
    pytest.importorskip("pyspiel", reason="hanabi_v5 needs open_spiel (the test extra)")
    pytest.importorskip("shimmy", reason="hanabi_v5 needs shimmy[openspiel] (the test extra)")
    from pettingzoo.classic import hanabi_v5

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return hanabi_v5.env(**kwargs)


def _masked(aec_env):
    """PettingZoo's SB3 action-masking tutorial pattern around an AEC env."""
    from sb3_contrib.common.wrappers import ActionMasker

    from agents.sb3 import SB3ActionMaskWrapper, mask_fn

    return ActionMasker(SB3ActionMaskWrapper(aec_env), mask_fn)


def _weights(model) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in model.policy.parameters()])


# ------------------------------------------------------------------------ steps and arguments


@pytest.mark.parametrize(("total", "n_envs", "expected"), [(256, 1, 256), (100, 3, 102), (1, 1, 2)])
def test_short_runs_train_the_steps_asked_for(total, n_envs, expected):
    from agents.sb3 import train_maskable_ppo

    model = train_maskable_ppo(["IGGI"], total, n_envs=n_envs, **SMALL)
    # rounded up to whole rollouts of n_envs steps, never MaskablePPO's default 2,048 per env
    assert model.num_timesteps == expected
    assert model.n_steps * n_envs == expected
    assert model.batch_size <= model.n_steps * n_envs


@pytest.mark.parametrize("verbose", [0, 1])
def test_training_leaves_no_sb3_folder_in_the_temp_dir(tmp_path, monkeypatch, verbose):
    import tempfile

    from agents.sb3 import train_maskable_ppo

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # SB3's default log folder goes here
    train_maskable_ppo(["IGGI"], 64, verbose=verbose, **SMALL)
    assert not list(tmp_path.glob("SB3-*")), "SB3's default logger made a folder"


@pytest.mark.filterwarnings("ignore:rich is experimental")  # SB3's progress bar (tqdm.rich)
def test_learn_kwargs_reach_learn_and_resume_continues(tmp_path):
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.sb3 import train_maskable_ppo, train_self_play

    class Count(BaseCallback):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def _on_step(self) -> bool:
            self.calls += 1
            return True

    cb = Count()
    path = tmp_path / "m.zip"
    first = train_maskable_ppo(
        ["IGGI"], 64, path=path, learn_kwargs={"callback": cb, "progress_bar": True}, **SMALL
    )
    assert cb.calls == 64
    resumed = train_maskable_ppo(["Piers"], 64, resume_from=path, path=tmp_path / "m2.zip")
    assert resumed.num_timesteps == 128  # the saved count goes on
    assert not np.array_equal(_weights(first), _weights(resumed))
    again = train_maskable_ppo(
        ["IGGI"], 64, resume_from=path, learn_kwargs={"reset_num_timesteps": True}
    )
    assert again.num_timesteps == 64
    with pytest.raises(ValueError, match="total_timesteps"):
        train_maskable_ppo(["IGGI"], 64, learn_kwargs={"total_timesteps": 3})
    with pytest.raises(TypeError, match="learn_kwargs"):
        train_self_play(64, learn_kwargs=[("callback", cb)])
    with pytest.raises(FileNotFoundError, match="resume_from"):
        train_self_play(64, resume_from=tmp_path / "missing.zip")


def test_vec_env_cls_subproc_and_bad_names():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from agents.sb3 import train_maskable_ppo, train_self_play

    model = train_maskable_ppo(
        ["IGGI", "Piers"],
        32,
        n_envs=2,
        vec_env_cls="subproc",
        vec_env_kwargs={"start_method": "fork"},
        **SMALL,
    )
    assert isinstance(model.get_env(), SubprocVecEnv)
    assert model.num_timesteps == 32
    sp = train_self_play(32, n_envs=2, vec_env_cls=SubprocVecEnv, **SMALL)
    assert isinstance(sp.get_env(), SubprocVecEnv)  # the AEC tutorial pattern, one per process
    assert sp.num_timesteps == 32
    with pytest.raises(ValueError, match="vec_env_cls"):
        train_maskable_ppo(["IGGI"], 32, vec_env_cls="threads")
    with pytest.raises(TypeError, match="vec_env_cls"):
        train_self_play(32, vec_env_cls=dict)


def test_self_play_on_the_compiled_vector_env_and_back(tmp_path):
    from agents.sb3 import learn_maskable_ppo, self_play_env, train_maskable_ppo, train_self_play
    from agents.sb3.vec_env import HanabiSB3VecEnv

    path = tmp_path / "vector.zip"
    model = train_self_play(64, n_envs=4, path=path, **SMALL)  # the default: "vector"
    assert isinstance(model.get_env(), HanabiSB3VecEnv)
    assert model.num_timesteps == 64
    back = learn_maskable_ppo(self_play_env(), 32, resume_from=path)  # the same spaces
    assert back.num_timesteps == 96
    with pytest.raises(ValueError, match="vec_env_cls"):
        train_maskable_ppo(["IGGI"], 32, vec_env_cls="vector")


def test_partner_env_by_gymnasium_id_trains_with_masks():
    from sb3_contrib import MaskablePPO

    assert agents.PARTNER_ENV_ID == "hanabi_adhoc/HanabiPartner-v0"
    env = gymnasium.make(agents.PARTNER_ENV_ID, partners=["IGGI"], observation_dtype="float32")
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(env.get_wrapper_attr("action_masks")(), info["action_mask"])
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu", **SMALL)
    model.learn(32)
    assert env.unwrapped.illegal_actions == 0  # the masks reached the model through the wrappers


def test_partner_env_id_resolves_without_importing_agents_first():
    code = (
        "import sys, gymnasium\n"
        "e = gymnasium.make('agents:hanabi_adhoc/HanabiPartner-v0', partners=['IGGI'])\n"
        "print(type(e.unwrapped).__name__, 'torch' in sys.modules)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["HanabiPartnerEnv", "False"]


# ------------------------------------------------------------------------ other algorithms


@pytest.mark.parametrize("algo", ["PPO", "A2C", "DQN"])
def test_unmasked_algorithms_load_and_act_legally(tmp_path, algo):
    import stable_baselines3

    from agents.sb3 import HanabiPartnerEnv, SB3Policy, detect_algorithm

    cls = getattr(stable_baselines3, algo)
    kw = {"learning_starts": 0, "buffer_size": 500} if algo == "DQN" else {"n_steps": 16}
    kw = {**kw, "batch_size": 16} if algo == "PPO" else kw
    env = HanabiPartnerEnv(["IGGI"])  # no mask in training: illegal moves end episodes
    model = cls("MlpPolicy", env, device="cpu", policy_kwargs={"net_arch": [16]}, **kw)
    model.learn(32)
    path = tmp_path / f"{algo}.zip"
    model.save(path)
    assert detect_algorithm(path) == algo
    for deterministic in (True, False):
        pol = SB3Policy(path, deterministic=deterministic, seed=1)
        e = hanabi_env.env()
        e.reset(seed=3)
        for agent in e.agent_iter():  # an illegal move would raise
            e.step(pol(e, agent) if agent == "player_0" else make("Piers")(e, agent))
        g = HanabiGame()
        g.reset(1)
        probs = pol.action_probabilities(g.view(0))
        assert probs[g.legal_mask() == 0].sum() == 0
        assert probs.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="algo"):
        SB3Policy(path, algo="SAC")


def test_detect_algorithm_refuses_a_file_that_is_not_a_model(tmp_path):
    from agents.sb3 import detect_algorithm

    bad = tmp_path / "x.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a saved SB3 model"):
        detect_algorithm(bad)


# ------------------------------------------------------------------------ hanabi_v5 <-> hanabi_env


def test_model_trained_on_hanabi_v5_continues_on_hanabi_env(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.sb3 import SB3Policy, learn_maskable_ppo, self_play_env, train_maskable_ppo

    v5 = _masked(_v5())
    v5.reset(seed=0)
    model = MaskablePPO("MlpPolicy", v5, n_steps=32, batch_size=32, seed=0, device="cpu", **SMALL)
    model.learn(32)
    path = tmp_path / "from_v5.zip"
    model.save(path)
    before = _weights(model)
    # self-play on hanabi_env (the same pattern) and the partner env both accept it
    ours = learn_maskable_ppo(self_play_env(), 32, resume_from=path)
    assert ours.num_timesteps == 64
    assert not np.array_equal(_weights(ours), before)
    partner = train_maskable_ppo(["IGGI"], 32, resume_from=path)
    assert partner.num_timesteps == 64
    assert SB3Policy(path).act(_view()) in np.flatnonzero(_mask())


def test_model_trained_on_hanabi_env_continues_on_hanabi_v5(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.sb3 import train_maskable_ppo, train_self_play

    for name, train in (
        ("self_play", lambda p: train_self_play(32, path=p, **SMALL)),  # the vector env
        ("self_play_aec", lambda p: train_self_play(32, path=p, vec_env_cls="dummy", **SMALL)),
        ("partner", lambda p: train_maskable_ppo(["IGGI"], 32, path=p, **SMALL)),
    ):
        path = tmp_path / f"{name}.zip"
        before = _weights(train(path))
        v5 = _masked(_v5())
        v5.reset(seed=1)
        model = MaskablePPO.load(path, env=v5, device="cpu")  # checks the spaces match
        model.learn(32, reset_num_timesteps=False)
        assert model.num_timesteps == 64, name
        assert not np.array_equal(_weights(model), before), name


def test_int8_models_do_not_load_on_the_float64_default(tmp_path):
    """The other direction of the contract: spaces that differ are refused, not misread."""
    from sb3_contrib import MaskablePPO

    from agents.sb3 import HanabiPartnerEnv, train_maskable_ppo

    path = tmp_path / "int8.zip"
    train_maskable_ppo(["IGGI"], 32, path=path, env_kwargs={"observation_dtype": "int8"}, **SMALL)
    with pytest.raises(ValueError, match=r"[Oo]bservation spaces do not match"):
        MaskablePPO.load(path, env=HanabiPartnerEnv(["IGGI"]), device="cpu")
    model = MaskablePPO.load(path, env=HanabiPartnerEnv(["IGGI"], observation_dtype="int8"))
    assert model.observation_space.dtype == np.int8


def _view():
    g = HanabiGame()
    g.reset(2)
    return g.view(0)


def _mask():
    g = HanabiGame()
    g.reset(2)
    return g.legal_mask()
