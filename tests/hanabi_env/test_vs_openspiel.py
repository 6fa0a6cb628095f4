"""Differential test against OpenSpiel's ``hanabi`` (HLE compiled in), docs/anchors.md §2.4.

For every configuration, 200 games are played in lockstep on our engine and on OpenSpiel with
forced identical deals (OpenSpiel's chance nodes are given our deck order). At every step we
compare the legal action set, the observation vector of every player for all three observation
types, the reward, termination and, at the end, the final score. Half the games use uniformly
random legal moves (short games ending in lost lives), half a careful driver that rarely
misplays (full-length games ending when the deck runs out, or at the maximum score).
"""

from __future__ import annotations

import numpy as np
import pytest

from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HLE_PRESETS, HanabiConfig

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is a test dependency (.[test])")

CONFIGS = [
    {
        "players": 2,
        "colors": 5,
        "ranks": 5,
        "hand_size": 5,
        "max_information_tokens": 8,
        "max_life_tokens": 3,
    },
    {
        "players": 3,
        "colors": 5,
        "ranks": 5,
        "hand_size": 5,
        "max_information_tokens": 8,
        "max_life_tokens": 3,
    },
    {
        "players": 4,
        "colors": 5,
        "ranks": 5,
        "hand_size": 4,
        "max_information_tokens": 8,
        "max_life_tokens": 3,
    },
    {
        "players": 5,
        "colors": 5,
        "ranks": 5,
        "hand_size": 4,
        "max_information_tokens": 8,
        "max_life_tokens": 3,
    },
    {
        "players": 2,
        "colors": 3,
        "ranks": 2,
        "hand_size": 3,
        "max_information_tokens": 3,
        "max_life_tokens": 1,
    },
    {
        "players": 3,
        "colors": 4,
        "ranks": 3,
        "hand_size": 2,
        "max_information_tokens": 2,
        "max_life_tokens": 2,
    },
    {
        "players": 2,
        "colors": 2,
        "ranks": 5,
        "hand_size": 2,
        "max_information_tokens": 3,
        "max_life_tokens": 1,
    },
    {
        "players": 5,
        "colors": 5,
        "ranks": 4,
        "hand_size": 3,
        "max_information_tokens": 5,
        "max_life_tokens": 2,
    },
    {
        "players": 2,
        "colors": 5,
        "ranks": 5,
        "hand_size": 5,
        "max_information_tokens": 0,
        "max_life_tokens": 3,
    },
    # HLE's small presets (hanabi_env.config.HLE_PRESETS) and HLE's bounds beyond hanabi_v5's:
    # one colour, more players than colours
    {**HLE_PRESETS["Hanabi-Very-Small"], "players": 2, "bounds": "hle"},
    {**HLE_PRESETS["Hanabi-Small"], "players": 2, "bounds": "hle"},
    {**HLE_PRESETS["Hanabi-Very-Small"], "players": 3, "bounds": "hle"},
    {**HLE_PRESETS["Hanabi-Small"], "players": 3, "bounds": "hle"},
]
GAMES_PER_CONFIG = 200


def _careful_action(s, legal, rng):
    """Mostly play a truly playable card, else hint/discard; rarely a random move."""
    cur = int(s.scal[E.S_CUR])
    h = int(s.cfg[E.CFG_HAND])
    n_ranks = int(s.cfg[E.CFG_RANKS])
    plays = [
        h + k
        for k in range(int(s.public.hand_len[cur]))
        if s.public.fireworks[E.card_of(s, cur, k) // n_ranks] == E.card_of(s, cur, k) % n_ranks
    ]
    others = [a for a in legal if not h <= a < 2 * h]
    if plays and rng.random() < 0.8:
        return int(rng.choice(plays))
    if others and rng.random() < 0.97:
        return int(rng.choice(others))
    return int(rng.choice(legal))


def _deal(states, s, dealt):
    """Resolve OpenSpiel's chance nodes with our deck order; return the cards dealt so far."""
    first = next(iter(states.values()))
    while first.is_chance_node():
        for st in states.values():
            st.apply_action(int(s.deck[dealt]))
        dealt += 1
    return dealt


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_lockstep_with_openspiel(cfg):
    # the ints only: a str's hash changes from run to run (PYTHONHASHSEED)
    rng = np.random.default_rng(hash(tuple(v for v in cfg.values() if isinstance(v, int))) % 2**32)
    hle_cfg = {k: v for k, v in cfg.items() if k not in ("bounds", "observation_type")}
    games = {
        name: pyspiel.load_game("hanabi", {**hle_cfg, "observation_type": name})
        for name in V.OBSERVATION_TYPES
    }
    s = E.new_state(HanabiConfig(**cfg))
    view = V.new_view(s)
    bufs = {
        name: np.zeros(V.observation_size(s.cfg, ot), dtype=np.int8)
        for name, ot in V.OBSERVATION_TYPES.items()
    }
    for name, g in games.items():
        assert bufs[name].shape[0] == g.observation_tensor_shape()[0]
        assert int(s.cfg[E.CFG_N_ACTIONS]) == g.num_distinct_actions()
    mask = np.zeros(int(s.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
    ends = {"lives": 0, "deck": 0, "max": 0}
    for game_index in range(GAMES_PER_CONFIG):
        E.reset_state(s, int(rng.integers(2**40)), False)
        states = {name: g.new_initial_state() for name, g in games.items()}
        dealt = _deal(states, s, 0)
        ref = states["card_knowledge"]
        careful = game_index % 2 == 1
        while True:
            assert bool(s.scal[E.S_DONE]) == ref.is_terminal()
            for name, ot in V.OBSERVATION_TYPES.items():
                for p in range(cfg["players"]):
                    V.observe_into(s, p, view, ot, bufs[name])
                    expected = np.asarray(states[name].observation_tensor(p), dtype=np.int8)
                    np.testing.assert_array_equal(
                        bufs[name], expected, err_msg=f"{name} obs of player {p}, game {game_index}"
                    )
            if ref.is_terminal():
                break
            assert ref.current_player() == s.scal[E.S_CUR]
            E.legal_mask(s, mask)
            legal = sorted(ref.legal_actions())
            assert np.flatnonzero(mask).tolist() == legal
            a = _careful_action(s, legal, rng) if careful else int(rng.choice(legal))
            reward = E.apply_move(s, a)
            for st in states.values():
                st.apply_action(a)
            dealt = _deal(states, s, dealt)
            assert reward == ref.rewards()[0]
        assert E.score(s) == ref.returns()[0]
        if s.scal[E.S_LIFE] <= 0:
            ends["lives"] += 1
        elif s.scal[E.S_FIREWORKS] == cfg["colors"] * cfg["ranks"]:
            ends["max"] += 1
        else:
            ends["deck"] += 1
    # both kinds of ending must have been exercised (without information tokens nobody can
    # discard, so every game ends by lost lives)
    assert ends["lives"] > 0
    if cfg["max_information_tokens"] > 0:
        assert ends["deck"] + ends["max"] > 0


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8"])
@pytest.mark.parametrize("cfg", [CONFIGS[0], CONFIGS[2]], ids=["p2", "p4"])
def test_env_observations_equal_openspiel_in_every_dtype(cfg, dtype):
    """The AEC env's observations (any ``observation_dtype``) hold OpenSpiel's values exactly."""
    import hanabi_env

    rng = np.random.default_rng(7)
    game = pyspiel.load_game("hanabi", {**cfg, "observation_type": "card_knowledge"})
    e = hanabi_env.raw_env(observation_dtype=dtype, **cfg)
    for seed in range(3):
        e.reset(seed=seed)
        s = e.game.state
        ref = game.new_initial_state()
        dealt = _deal({"ck": ref}, s, 0)
        while True:
            for p, agent in enumerate(e.possible_agents):
                got = e.observe(agent)["observation"]
                assert got.dtype == np.dtype(dtype)
                expected = np.asarray(ref.observation_tensor(p), dtype=np.float64)
                np.testing.assert_array_equal(got.astype(np.float64), expected)
            if ref.is_terminal():
                break
            a = int(rng.choice(sorted(ref.legal_actions())))
            e.step(a)
            ref.apply_action(a)
            dealt = _deal({"ck": ref}, s, dealt)
        assert e.game.is_terminal
