"""The vector env (hanabi_env.vector): the AEC env's games, bit for bit, in lockstep batches."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import hanabi_env
from hanabi_env import validate
from hanabi_env.metrics import metric_ratios
from hanabi_env.vector import MAX_ENVS, MEMORY_SHARE, HanabiVectorEnv, bytes_per_game

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


# --------------------------------------------------------------- issue 41 item 8: small holes
def _illegal_and_legal(mask_row: np.ndarray) -> tuple[int, int]:
    return int(np.flatnonzero(mask_row == 0)[0]), int(np.flatnonzero(mask_row)[0])


@pytest.mark.parametrize("method", ["reset", "step"])
def test_a_closed_env_refuses_to_step_or_reset(method):
    """After close(): Gymnasium's ClosedEnvironmentError naming the method; close() twice is ok."""
    from gymnasium.error import ClosedEnvironmentError

    venv = HanabiVectorEnv(3, threads=2)
    venv.reset(seed=0)
    venv.close()
    venv.close()  # harmless
    assert venv.closed
    call = {"reset": lambda: venv.reset(seed=1), "step": lambda: venv.step(np.zeros(3, int))}
    with pytest.raises(ClosedEnvironmentError, match=rf"{method}\(\).*close"):
        call[method]()
    assert venv._batch.scal.shape[0] == 0  # the games' arrays are freed
    assert venv._obs.size == 0


def test_close_before_reset_and_after_a_refused_constructor_is_harmless():
    HanabiVectorEnv(2).close()
    with pytest.raises(ValueError, match="num_envs"):
        HanabiVectorEnv(2**20)


def _user_loop_peak(n: int, kwargs: dict) -> int:
    """Peak traced bytes of a training loop: reset, then 40 steps, each keeping the last output."""
    import gc
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    try:
        venv = HanabiVectorEnv(n, **kwargs)
        out = venv.reset(seed=0)
        for _ in range(40):
            out = venv.step(np.argmax(out[-1]["action_mask"], axis=1))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation_dtype": "int8"},
        {"players": 4, "observation_type": "seer", "all_observations": True},
        {"players": 3, "all_observations": True, "autoreset_mode": "same_step"},
    ],
)
def test_bytes_per_game_bounds_what_a_game_really_takes(kwargs):
    """The estimate behind the num_envs limit is at least the measured bytes per game (and
    not far above): the peak of a real loop, per game added (tracemalloc)."""
    _user_loop_peak(8, kwargs)  # kernels loaded, caches warm
    small, large = 64, 320
    measured = (_user_loop_peak(large, kwargs) - _user_loop_peak(small, kwargs)) / (large - small)
    config = hanabi_env.HanabiConfig(
        **{k: v for k, v in kwargs.items() if k in ("players", "observation_type")}
    )
    estimate = bytes_per_game(
        config,
        kwargs.get("observation_dtype", "float64"),
        kwargs.get("all_observations", False),
        kwargs.get("autoreset_mode", "next_step"),
    )
    assert measured <= estimate <= 1.6 * measured, (measured, estimate)


def test_num_envs_is_bounded_by_memory_and_max_envs(monkeypatch):
    """2**20 games (~45 GiB) are refused before anything is allocated, naming num_envs, the
    estimate in GiB and the allowed maximum; on a small machine the memory share binds."""
    each = bytes_per_game(hanabi_env.HanabiConfig())
    with pytest.raises(ValueError, match=r"num_envs=1,048,576.*GiB.*allowed: <= 262,144") as e:
        HanabiVectorEnv(2**20)
    assert f"{2**20 * each / 2**30:,.1f} GiB" in str(e.value)
    assert MAX_ENVS == 2**18
    memory = 1 << 28
    monkeypatch.setattr(validate, "memory_limit", lambda: memory)  # a 256 MiB machine
    most = int(memory * MEMORY_SHARE) // each
    HanabiVectorEnv(most).close()
    with pytest.raises(ValueError, match=rf"allowed: <= {most:,} \(50% of this machine's"):
        HanabiVectorEnv(most + 1)
    big = bytes_per_game(hanabi_env.HanabiConfig(players=5), all_observations=True)
    with pytest.raises(ValueError, match="num_envs"):  # the options count
        HanabiVectorEnv(int(memory * MEMORY_SHARE) // big + 1, players=5, all_observations=True)


def _aec_infos_after_reset(seed: int, resets: int) -> tuple[dict, object]:
    e = hanabi_env.env()
    e.reset(seed=seed)
    for _ in range(resets):
        e.reset()
    return e.infos, e


@pytest.mark.parametrize("all_observations", [False, True])
def test_same_step_reset_gives_the_new_game_a_fresh_games_infos(all_observations):
    """After an illegal move ends game 0, the same step deals it anew: its infos are those of
    a fresh game (illegal_action False, as the AEC env after reset()), the old ones in final_info.
    """
    venv = HanabiVectorEnv(2, autoreset_mode="same_step", all_observations=all_observations)
    _, infos = venv.reset(seed=10)
    for _ in range(6):  # hints first (the last legal uid), so the ended game's metrics are set
        hints = np.array([np.flatnonzero(m)[-1] for m in infos["action_mask"]])
        _, _, term, _, infos = venv.step(hints)
        assert not term.any()
    illegal, _ = _illegal_and_legal(infos["action_mask"][0])
    _, legal = _illegal_and_legal(infos["action_mask"][1])
    obs, rewards, term, _, infos = venv.step(np.array([illegal, legal]))
    assert term.tolist() == [True, False]
    assert rewards[0] == -1.0
    assert infos["final_info"]["illegal_action"][0]
    assert infos["illegal_action"].tolist() == [False, False]
    aec_infos, e = _aec_infos_after_reset(seed=10, resets=1)  # game 0's second deal
    seat = infos["seat"][0]
    assert e.agent_selection == f"player_{seat}"
    assert np.array_equal(obs[0], e.observe(e.agent_selection)["observation"])
    assert np.array_equal(infos["action_mask"][0], e.observe(e.agent_selection)["action_mask"])
    assert infos["score"][0] == aec_infos[e.agent_selection]["score"] == 0
    for m in ("communicativeness", "ipp", "risk_aversion"):
        for p, agent in enumerate(e.possible_agents):
            assert infos[m][0, p] == aec_infos[agent][m]
            assert infos[f"{m}_defined"][0, p] == aec_infos[agent][f"{m}_defined"]
    fresh = HanabiVectorEnv(1, all_observations=all_observations)
    _, fresh_infos = fresh.reset(options={"deal_seeds": [int(venv._deals[0])]})
    for key, value in fresh_infos.items():  # every per-game info is a fresh deal's
        assert np.array_equal(infos[key][0], value[0]), key
    assert infos["final_info"]["communicativeness_defined"][0].any()  # the old game's


def test_reset_refuses_unknown_options_and_deal_seeds_first_then_draws_from_seed():
    venv = HanabiVectorEnv(2)
    with pytest.raises(ValueError, match="reset_maks"):
        venv.reset(seed=0, options={"reset_maks": np.array([True, True])})
    with pytest.raises(TypeError, match="options"):
        venv.reset(seed=0, options=[("reset_mask", None)])
    # deal_seeds at the first reset: the games after them are drawn from `seed` (they used
    # to have no generator: IndexError at the next autoreset)
    _, infos = venv.reset(seed=5, options={"deal_seeds": [1, 2]})
    illegal, _ = _illegal_and_legal(infos["action_mask"][0])
    _, legal = _illegal_and_legal(infos["action_mask"][1])
    venv.step(np.array([illegal, legal]))
    obs, rewards, term, _, _ = venv.step(np.array([0, legal]))  # game 0 dealt anew
    assert rewards[0] == 0
    assert not term[0]
    e = hanabi_env.env()
    e.reset(seed=5)
    assert np.array_equal(obs[0], e.observe(e.agent_selection)["observation"])


def test_actions_out_of_range_are_refused_like_the_aec_envs():
    """A move uid outside [0, n_actions) is a ValueError naming the game (as env()'s
    ActionOutOfRange); nothing is played. Games being dealt may carry any action."""
    venv = HanabiVectorEnv(2)
    _, infos = venv.reset(seed=0)
    _, legal = _illegal_and_legal(infos["action_mask"][1])
    before = venv._batch.scal.copy()
    for bad in (-1, 20, 2**40):
        with pytest.raises(ValueError, match=r"actions\[0\].*allowed: \[0, 19\]"):
            venv.step(np.array([bad, legal]))
    assert np.array_equal(venv._batch.scal, before)
    illegal, _ = _illegal_and_legal(infos["action_mask"][0])
    infos = venv.step(np.array([illegal, legal]))[-1]  # game 0 ends; next_step deals it
    _, legal = _illegal_and_legal(infos["action_mask"][1])
    _, rewards, term, _, _ = venv.step(np.array([-1, legal]))  # -1 ignored: game 0 is dealt
    assert rewards[0] == 0
    assert not term.any()
