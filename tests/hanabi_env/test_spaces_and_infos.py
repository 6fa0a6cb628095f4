"""The spaces of ``hanabi_env.spaces``, the observation dtypes, ``state()`` and the infos contract.

The float64 default must equal PettingZoo hanabi_v5's space (spelled out here, and compared with
hanabi_v5 itself in test_env_dropin.py); the three dtypes must carry the same 0/1 values; the
global state must pass PettingZoo's ``state_test``; every info value must be a finite number
(docs/marl.md §3).
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import hanabi_env
from hanabi_env import engine as E
from hanabi_env import spaces as hs
from hanabi_env.metrics import INFO_KEYS, INFO_METRICS, info_metrics

RNG = np.random.default_rng(0)


def random_action(_env, mask) -> int:
    """A uniformly random legal move (the generator is the module's, seeded)."""
    return int(RNG.choice(np.flatnonzero(mask)))


def test_observation_dtypes_and_their_spaces():
    assert hs.OBSERVATION_DTYPES == ("float64", "float32", "int8")
    assert hs.DEFAULT_OBSERVATION_DTYPE == "float64"
    v5_space = spaces.Box(-np.inf, np.inf, shape=(658,), dtype=np.float64)  # hanabi_v5's
    assert hs.observation_space(658, "float64") == v5_space
    for name in ("float32", "int8"):
        box = hs.observation_space(658, name)
        assert box.dtype == np.dtype(name)
        assert box.shape == (658,)
        assert np.all(box.low == 0)
        assert np.all(box.high == 1)
        assert box != v5_space
    assert hs.state_space(783, "float64") == spaces.Box(0, 1, (783,), np.float64)
    assert hs.action_mask_space(20) == spaces.Box(0, 1, (20,), np.int8)
    assert hs.numpy_dtype("float32") == np.float32


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: hs.observation_space(658, "float16"), ValueError, "observation_dtype"),
        (lambda: hs.observation_space(658, np.float64), TypeError, "observation_dtype"),
        (lambda: hs.observation_space(0, "int8"), ValueError, "size"),
        (lambda: hs.observation_space(658.0, "int8"), TypeError, "size"),
        (lambda: hs.state_space(10, "uint8"), ValueError, "observation_dtype"),
        (lambda: hs.action_mask_space(0), ValueError, "n_actions"),
        (lambda: hs.check_observation_dtype("f8"), ValueError, "float64, float32, int8"),
    ],
)
def test_space_builders_reject_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("kwargs", [{}, {"players": 3, "observation_type": "minimal"}])
def test_every_dtype_gives_the_same_values(kwargs):
    envs = {d: hanabi_env.env(observation_dtype=d, **kwargs) for d in hs.OBSERVATION_DTYPES}
    for e in envs.values():
        e.reset(seed=11)
    ref = envs["int8"]
    for _ in range(40):
        if ref.unwrapped.game.is_terminal:
            break
        for agent in ref.possible_agents:
            want = ref.observe(agent)
            for d, e in envs.items():
                got = e.observe(agent)
                assert got["observation"].dtype == np.dtype(d)
                assert e.observation_space(agent).contains(got)
                np.testing.assert_array_equal(got["observation"], want["observation"])
                np.testing.assert_array_equal(got["action_mask"], want["action_mask"])
                assert got["action_mask"].dtype == np.int8
        action = random_action(ref, ref.observe(ref.agent_selection)["action_mask"])
        for e in envs.values():
            e.step(action)


@pytest.mark.parametrize("dtype", hs.OBSERVATION_DTYPES)
@pytest.mark.parametrize(
    "kwargs", [{}, {"players": 4, "hand_size": 4, "observation_type": "seer"}, {"colors": 3}]
)
def test_pettingzoo_state_test_passes(dtype, kwargs):
    # state_test needs a parallel env too: the turn-based conversion is PettingZoo's own
    env = hanabi_env.env(observation_dtype=dtype, **kwargs)
    par = turn_based_aec_to_parallel(hanabi_env.env(observation_dtype=dtype, **kwargs))
    state_test(env, par, num_cycles=50)
    assert env.state_space.dtype == np.dtype(dtype)


def test_state_is_the_observation_of_the_seat_to_move_plus_its_own_hand():
    e = hanabi_env.raw_env(players=3)
    e.reset(seed=4)
    c, r, h = 5, 5, 5
    n = e.game.observation_size
    assert e.state_space.shape == (n + h * c * r,)
    assert hanabi_env.raw_env().state_space.shape == (783,)  # the documented 2-player size
    for _ in range(60):
        seat = e.game.current_player
        state = e.state()
        assert state.dtype == np.float64
        np.testing.assert_array_equal(state[:n], e.observe(f"player_{seat}")["observation"])
        hand = state[n:].reshape(h, c * r)
        s = e.game.state
        for k in range(h):
            if k < s.public.hand_len[seat]:
                assert np.flatnonzero(hand[k]).tolist() == [int(E.card_of(s, seat, k))]
            else:
                assert not hand[k].any()
        if e.game.is_terminal:
            break
        e.step(random_action(e, e.observe(e.agent_selection)["action_mask"]))


def test_state_before_reset_raises():
    e = hanabi_env.env()
    assert e.state_space.shape == (783,)  # known before reset
    with pytest.raises(RuntimeError, match="reset"):
        e.state()


# ---------------------------------------------------------------------------------------------
# the infos contract
# ---------------------------------------------------------------------------------------------


def test_info_metrics_one_seat():
    counters = np.zeros(E.N_COUNTERS)
    d = info_metrics(counters)
    assert tuple(d) == INFO_KEYS
    for m in INFO_METRICS:
        assert d[m] == 0.0
        assert d[f"{m}_defined"] is False
    counters[E.C_HINT_OPPORTUNITIES] = 4
    counters[E.C_HINTS_GIVEN] = 1
    counters[E.C_PLAYS] = 2
    counters[E.C_SUM_KNOWN_ATTRS] = 3
    counters[E.C_SUM_P_PLAYABLE] = 1.5
    d = info_metrics(counters)
    assert d["communicativeness"] == 0.25
    assert d["ipp"] == 0.75
    assert d["risk_aversion"] == 0.75
    assert all(d[f"{m}_defined"] is True for m in INFO_METRICS)
    assert type(d["plays"]) is int
    assert type(d["sum_p_playable"]) is float


def test_info_metrics_vectorised_matches_one_seat():
    rng = np.random.default_rng(0)
    counters = rng.integers(0, 3, size=(4, 3, E.N_COUNTERS)).astype(np.float64)
    batch = info_metrics(counters)
    assert tuple(batch) == INFO_KEYS
    for key, value in batch.items():
        assert value.shape == (4, 3), key
        assert np.all(np.isfinite(value)), key
    assert batch["plays"].dtype == np.int64
    assert batch["ipp"].dtype == np.float64
    assert batch["ipp_defined"].dtype == np.bool_
    assert (~batch["ipp_defined"]).any()  # the undefined case occurs
    for i in range(4):
        for j in range(3):
            one = info_metrics(counters[i, j])
            for key, value in one.items():
                assert batch[key][i, j] == value, key


@pytest.mark.parametrize("shape", [(), (7,), (2, 5)])
def test_info_metrics_rejects_other_shapes(shape):
    with pytest.raises(ValueError, match="counters"):
        info_metrics(np.zeros(shape))


def test_env_infos_follow_the_contract_every_step():
    e = hanabi_env.env(players=3)
    e.reset(seed=2)
    seen_undefined = seen_defined = False
    for agent in e.agent_iter():
        *_, term, trunc, info = e.last()
        assert set(info) == {*INFO_KEYS, "score"}
        for key, value in info.items():
            assert value is not None, key
            assert np.isfinite(value), key
        for m in INFO_METRICS:
            assert type(info[f"{m}_defined"]) is bool
            seen_defined |= info[f"{m}_defined"]
            seen_undefined |= not info[f"{m}_defined"]
        e.step(None if term or trunc else random_action(e, e.observe(agent)["action_mask"]))
    assert seen_defined
    assert seen_undefined
