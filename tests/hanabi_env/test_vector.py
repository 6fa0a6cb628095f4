"""The vector env (hanabi_env.vector): the AEC env's games, bit for bit, in lockstep batches."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import hanabi_env
from hanabi_env.metrics import metric_ratios
from hanabi_env.vector import HanabiVectorEnv

CONFIGS = [
    {},
    {"players": 3, "observation_dtype": "int8"},
    {"players": 4, "hand_size": 4, "observation_type": "minimal", "random_start_player": True},
    {"players": 5, "observation_type": "seer", "scoring": "lenient", "hand_order": "fixed"},
]


def _random_actions(rng, mask):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_games_are_the_aec_envs_games_bit_for_bit(kwargs):
    """Observations, masks, rewards and ends equal hanabi_env.env() on seeds s + i."""
    n, seed = 4, 10
    venv = HanabiVectorEnv(n, **kwargs)
    obs, infos = venv.reset(seed=seed)
    aec_kwargs = {k: v for k, v in kwargs.items() if k != "observation_dtype"}
    envs = [hanabi_env.env(**aec_kwargs) for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rng = np.random.default_rng(0)
    ended = np.zeros(n, dtype=bool)
    games_done = 0
    for _ in range(250):
        for i, e in enumerate(envs):
            if not ended[i]:  # at a game's end the AEC env moves on to dead steps
                o = e.observe(e.agent_selection)
                assert np.array_equal(o["observation"], obs[i])
                assert np.array_equal(o["action_mask"], infos["action_mask"][i])
                assert infos["seat"][i] == int(e.agent_selection.split("_")[1])
        actions = _random_actions(rng, infos["action_mask"])
        obs, rewards, term, trunc, infos = venv.step(actions)
        assert not trunc.any()
        for i, e in enumerate(envs):
            if ended[i]:  # next_step autoreset: this step dealt the next game
                e.reset()
                assert rewards[i] == 0
                assert not term[i]
                continue
            mover = e.agent_selection
            e.step(int(actions[i]))
            assert rewards[i] == e.rewards[mover]
            assert term[i] == all(e.terminations.values())
            if term[i]:  # the final observation is the last mover's
                assert np.array_equal(e.observe(mover)["observation"], obs[i])
                assert infos["score"][i] == e.unwrapped.game.score
        games_done += int(term.sum())
        ended = term.copy()
    assert games_done >= 2


def test_spaces_dtypes_and_infos():
    venv = HanabiVectorEnv(3, players=3, observation_dtype="float32", all_observations=True)
    obs, infos = venv.reset(seed=1)
    assert obs.shape == (3, 956)
    assert obs.dtype == np.float32
    assert venv.single_observation_space.contains(obs[0])
    assert venv.observation_space.contains(obs)
    assert venv.single_action_space.n == venv.action_space.nvec[0]
    assert infos["action_mask"].dtype == np.int8
    assert infos["action_mask"].shape == (3, 30)
    assert infos["all_observations"].shape == (3, 3, 956)
    for key in ("action_mask", "seat", "score", "communicativeness", "ipp_defined"):
        assert infos[f"_{key}"].all()
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, _, _, _, infos = venv.step(_random_actions(rng, infos["action_mask"]))
    ratios = metric_ratios(venv._batch.counters)
    for m in ("communicativeness", "ipp", "risk_aversion"):
        defined = ~np.isnan(ratios[m])
        assert np.array_equal(infos[f"{m}_defined"], defined)
        assert np.array_equal(infos[m][defined], ratios[m][defined])
        assert np.isfinite(infos[m]).all()
    seat_obs = infos["all_observations"][np.arange(3), infos["seat"]]
    assert np.array_equal(seat_obs, obs)
    assert HanabiVectorEnv(1).single_observation_space == hanabi_env.vector.observation_space(
        658, "float64"
    )


def test_seeds_are_per_game_not_per_batch():
    """Game i of a batch of any size (and any thread count) is the game of seed s + i."""
    big = HanabiVectorEnv(6, threads=2)
    small = HanabiVectorEnv(2)
    o_big, _ = big.reset(seed=[None, None, None, None, 7, 8])
    o_small, _ = small.reset(seed=7)
    assert np.array_equal(o_big[4:], o_small)
    a, _ = HanabiVectorEnv(3).reset(seed=3)
    b, _ = HanabiVectorEnv(3, threads=2).reset(seed=3)
    assert np.array_equal(a, b)
    rng = np.random.default_rng(1)
    mask = HanabiVectorEnv(3).reset(seed=3)[1]["action_mask"]
    first = _random_actions(rng, mask)
    venvs = [HanabiVectorEnv(3), HanabiVectorEnv(3, threads=3, copy=False)]
    outs = []
    for v in venvs:
        v.reset(seed=3)
        outs.append(v.step(first)[0].copy())
    assert np.array_equal(*outs)


def test_same_step_autoreset_reports_the_final_observation():
    venv = HanabiVectorEnv(2, autoreset_mode="same_step")
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    _, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(400):
        before = venv._batch.scal.copy()
        obs, _, term, _, infos = venv.step(_random_actions(rng, infos["action_mask"]))
        if term.any():
            i = int(np.flatnonzero(term)[0])
            assert infos["_final_obs"][i]
            assert infos["final_obs"][i] is not None
            assert infos["final_info"]["_score"][i]
            assert not np.array_equal(infos["final_obs"][i], obs[i])  # a new deal
            assert venv._batch.scal[i, 5] == 0
            assert before[i, 5] > 0
            assert infos["action_mask"][i].any()
            return
    pytest.fail("no game ended in 400 steps")


def test_disabled_autoreset_needs_an_explicit_reset():
    venv = HanabiVectorEnv(2, autoreset_mode="disabled")
    _, infos = venv.reset(seed=0)
    # an illegal move ends its game at once (reward -1), the other game goes on
    mask = infos["action_mask"]
    illegal = int(np.flatnonzero(mask[0] == 0)[0])
    legal = int(np.flatnonzero(mask[1])[0])
    _, rewards, term, _, infos = venv.step(np.array([illegal, legal]))
    assert term.tolist() == [True, False]
    assert rewards[0] == -1.0
    assert infos["illegal_action"].tolist() == [True, False]
    assert not infos["action_mask"][0].any()
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.array([0, legal]))
    _obs, infos = venv.reset(options={"reset_mask": np.array([True, False])})
    assert infos["action_mask"][0].any()


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"num_envs": 0}, ValueError, "num_envs"),
        ({"num_envs": 2.0}, TypeError, "num_envs"),
        ({"num_envs": 2, "autoreset_mode": "sometimes"}, ValueError, "autoreset_mode"),
        ({"num_envs": 2, "observation_dtype": "float16"}, ValueError, "observation_dtype"),
        ({"num_envs": 2, "players": 6}, ValueError, "players"),
        ({"num_envs": 2, "threads": 0}, ValueError, "threads"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, words):
    with pytest.raises(error, match=words):
        HanabiVectorEnv(**kwargs)


def test_bad_calls_are_refused():
    venv = HanabiVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv.reset(seed=0)
    with pytest.raises(TypeError, match="actions"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="actions"):
        venv.step(np.zeros(2))
    with pytest.raises(TypeError, match="reset_mask"):
        venv.reset(options={"reset_mask": [True, False]})
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=-1)
