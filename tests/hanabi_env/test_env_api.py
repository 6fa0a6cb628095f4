"""PettingZoo API conformance and the documented behaviour of ``hanabi_env`` (env.py docstring).

Covers: ``pettingzoo.test.api_test`` / ``seed_test`` over several configurations, spaces and
sizes, EzPickle, bad input, dead steps, the hanabi_v5 defects that must be fixed (docs/anchors.md
§1), rewards, behaviour metrics in ``infos`` on a scripted deck, rendering, the player view and
``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import os
import pickle
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import hanabi_env
from hanabi_env import engine as E
from tests.hanabi_env.helpers import play_aec, snapshot, state_arrays
from tests.helpers import run_python

REPO = Path(__file__).resolve().parents[2]

CONFIGS = [
    pytest.param({}, id="default"),
    pytest.param({"players": 3}, id="p3"),
    pytest.param({"players": 4, "hand_size": 4}, id="p4h4"),
    pytest.param({"players": 5, "hand_size": 4, "observation_type": "minimal"}, id="p5h4-minimal"),
    pytest.param(
        {
            "colors": 3,
            "ranks": 3,
            "players": 2,
            "hand_size": 3,
            "max_information_tokens": 3,
            "max_life_tokens": 1,
            "observation_type": "seer",
        },
        id="small-seer",
    ),
    pytest.param({"scoring": "lenient", "random_start_player": True}, id="lenient-randstart"),
]

CONSTRUCTORS = [
    pytest.param(hanabi_env.env, id="env"),
    pytest.param(hanabi_env.raw_env, id="raw_env"),
]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _card(s, p, k):
    return int(E.card_of(s, p, k))


def _deck_left(game) -> int:
    return int(game.config.n_cards - game.state.scal[E.S_DECK_POS])


def _own_slots(raw) -> tuple[int, list[bool]]:
    """The hand size and, per slot of the mover's own hand, whether the card is playable.

    Peeks at the mover's own cards through the engine state (test driver only).
    """
    game = raw.game
    s = game.state
    cur = game.current_player
    r = game.config.ranks
    cards = [_card(s, cur, k) for k in range(int(s.public.hand_len[cur]))]
    return game.config.hand_size, [int(s.public.fireworks[c // r]) == c % r for c in cards]


def safe_action(raw, mask) -> int:
    """A move that never bombs: play a truly playable card, else hint, else discard."""
    h, playable = _own_slots(raw)
    for k, ok in enumerate(playable):
        if ok:
            assert mask[h + k] == 1
            return h + k
    legal = np.flatnonzero(mask)
    hints = [a for a in legal if a >= 2 * h]
    if hints:
        return int(hints[0])
    discards = [a for a in legal if a < h]
    assert discards, "the safe driver needs a hint or a discard"
    return int(discards[0])


def bomb_action(raw, mask) -> int:
    """Play a card that is not playable if there is one, else play slot 0."""
    h, playable = _own_slots(raw)
    return h + next((k for k, ok in enumerate(playable) if not ok), 0)


def _layout(cfg: hanabi_env.HanabiConfig) -> dict:
    """Start index of each section of the canonical encoding (docs/anchors.md §2.2)."""
    p, c, r, h = cfg.players, cfg.colors, cfg.ranks, cfg.hand_size
    n = cfg.n_cards
    off = {}
    o = (p - 1) * h * c * r
    off["missing"] = o
    o += p
    off["deck"] = o
    o += n - p * h
    off["fireworks"] = o
    o += c * r
    off["info"] = o
    o += cfg.max_information_tokens
    off["life"] = o
    o += cfg.max_life_tokens
    off["discards"] = o
    o += n
    off["actor"] = o
    o += p
    off["kind"] = o
    o += 4
    off["target"] = o
    o += p
    off["color"] = o
    o += c
    off["rank"] = o
    o += r
    off["touched"] = o
    o += h
    off["slot"] = o
    o += h
    off["card"] = o
    o += c * r
    off["scored"] = o
    off["token"] = o + 1
    o += 2
    off["knowledge"] = o
    return off


def _full_deck(colors=5, ranks=5):
    out = []
    for c in range(colors):
        for r in range(ranks):
            out += [c * ranks + r] * E.copies_of_rank(ranks, r)
    return out


# ---------------------------------------------------------------------------------------------
# PettingZoo test utilities
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
@pytest.mark.parametrize("kwargs", CONFIGS)
def test_api_test(ctor, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Observation is not a NumPy array" is expected
        api_test(ctor(**kwargs), num_cycles=300)


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
@pytest.mark.parametrize("kwargs", CONFIGS)
def test_seed_test(ctor, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: ctor(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_seeded_reset_reproducible_across_resets(kwargs):
    """A seeded reset followed by unseeded resets replays the same deals."""

    def deals(e):
        e.reset(seed=123)
        out = [e.observe(e.agent_selection)["observation"].copy()]
        for _ in range(3):
            e.reset()
            out.append(e.observe(e.agent_selection)["observation"].copy())
        return out

    a = deals(hanabi_env.raw_env(**kwargs))
    b = deals(hanabi_env.raw_env(**kwargs))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------------------------------------
# spaces, sizes, metadata, agents, pickling
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "obs_size", "n_actions"),
    [
        ({}, 658, 20),
        ({"observation_type": "minimal"}, 308, 20),
        ({"observation_type": "seer"}, 658, 20),
        ({"players": 3, "hand_size": 5}, 956, 30),
        ({"players": 4, "hand_size": 4}, 1041, 38),
        ({"players": 5, "hand_size": 4}, 1280, 48),
    ],
)
def test_observation_and_action_sizes(kwargs, obs_size, n_actions):
    e = hanabi_env.raw_env(**kwargs)
    e.reset(seed=0)
    n_players = kwargs.get("players", 2)
    assert e.possible_agents == [f"player_{i}" for i in range(n_players)]
    assert e.agents == e.possible_agents
    for a in e.possible_agents:
        space = e.observation_space(a)
        assert isinstance(space, spaces.Dict)
        box = space["observation"]
        assert isinstance(box, spaces.Box)
        assert box.shape == (obs_size,)
        assert box.dtype == np.float64  # hanabi_v5's space: Box(-inf, inf, float64)
        assert np.all(box.low == -np.inf)
        assert np.all(box.high == np.inf)
        mbox = space["action_mask"]
        assert isinstance(mbox, spaces.Box)
        assert mbox.shape == (n_actions,)
        assert mbox.dtype == np.int8
        assert isinstance(e.action_space(a), spaces.Discrete)
        assert e.action_space(a).n == n_actions
        obs = e.observe(a)
        assert obs["observation"].shape == (obs_size,)
        assert obs["observation"].dtype == np.float64
        assert obs["action_mask"].shape == (n_actions,)
        assert obs["action_mask"].dtype == np.int8
        assert space.contains(obs)


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_action_mask_zero_off_turn(kwargs):
    e = hanabi_env.raw_env(**kwargs)
    e.reset(seed=5)
    for _ in range(12):
        if e.game.is_terminal:
            break
        cur = e.agent_selection
        for a in e.agents:
            m = e.observe(a)["action_mask"]
            assert "action_mask" not in e.infos[a]  # in the observation only (TorchRL)
            if a == cur:
                assert m.any()
                np.testing.assert_array_equal(m, e.game.legal_mask())
            else:
                assert not m.any(), f"{a} is off turn but has a non-zero mask"
        e.step(safe_action(e, e.observe(cur)["action_mask"]))


def test_metadata_keys():
    for ctor in (hanabi_env.raw_env, hanabi_env.env):
        md = ctor().metadata
        for key in ("name", "render_modes", "is_parallelizable", "render_fps"):
            assert key in md
        assert md["is_parallelizable"] is False
        assert set(md["render_modes"]) >= {"ansi", "human"}


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
def test_ezpickle_round_trip(ctor):
    e = ctor(players=3, scoring="lenient", observation_type="minimal", observation_dtype="int8")
    e.reset(seed=3)
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.unwrapped.config == e.unwrapped.config
    assert e2.unwrapped.observation_dtype == "int8"
    assert e2.observation_space("player_0") == e.observation_space("player_0")
    e2.reset(seed=3)
    e.reset(seed=3)
    np.testing.assert_array_equal(
        e2.observe(e2.agent_selection)["observation"], e.observe(e.agent_selection)["observation"]
    )
    _returns, steps = play_aec(e2, safe_action)
    assert steps > 0
    assert e2.unwrapped.game.is_terminal


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"colors": 1}, "colors"),
        ({"colors": 6}, "colors"),
        ({"ranks": 1}, "ranks"),
        ({"ranks": 6}, "ranks"),
        ({"players": 1}, "players"),
        ({"players": 6}, "players"),
        ({"hand_size": 1}, "hand_size"),
        ({"hand_size": 6}, "hand_size"),
        ({"colors": 2, "players": 3}, "players"),
        ({"colors": 3, "players": 4, "hand_size": 4}, "players"),
        ({"colors": 2, "ranks": 2, "players": 2, "hand_size": 5}, "hand_size"),
        ({"max_information_tokens": -1}, "max_information_tokens"),
        ({"max_life_tokens": 0}, "max_life_tokens"),
        ({"max_life_tokens": -2}, "max_life_tokens"),
        ({"observation_type": "full"}, "observation_type"),
        ({"observation_type": "Minimal"}, "observation_type"),
        ({"scoring": "harsh"}, "scoring"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"render_mode": "Human"}, "render_mode"),
        ({"observation_dtype": "float16"}, "observation_dtype"),
        ({"observation_dtype": "bool"}, "observation_dtype"),
    ],
)
@pytest.mark.parametrize("ctor", CONSTRUCTORS)
def test_bad_argument_value_raises_value_error(ctor, kwargs, name):
    with pytest.raises(ValueError, match=name):
        ctor(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"colors": 5.0}, "colors"),
        ({"colors": "5"}, "colors"),
        ({"ranks": None}, "ranks"),
        ({"players": 2.5}, "players"),
        ({"players": True}, "players"),
        ({"hand_size": "4"}, "hand_size"),
        ({"max_information_tokens": 8.0}, "max_information_tokens"),
        ({"max_life_tokens": "3"}, "max_life_tokens"),
        ({"observation_type": 1}, "observation_type"),
        ({"observation_type": None}, "observation_type"),
        ({"random_start_player": "yes"}, "random_start_player"),
        ({"random_start_player": None}, "random_start_player"),
        ({"scoring": 1}, "scoring"),
        ({"scoring": None}, "scoring"),
        ({"render_mode": 1}, "render_mode"),
        ({"observation_dtype": np.float32}, "observation_dtype"),
        ({"observation_dtype": None}, "observation_dtype"),
    ],
)
def test_bad_argument_type_raises_type_error(kwargs, name):
    """The docstring: "TypeError for a wrong type" (every argument)."""
    with pytest.raises(TypeError) as exc:
        hanabi_env.raw_env(**kwargs)
    assert name in str(exc.value)


def _assert_state_equal(snap, game):
    arrays = state_arrays(game.state)
    for a, (name, b) in zip(snap, arrays.items(), strict=True):
        np.testing.assert_array_equal(a, b, err_msg=f"state.{name} changed")


def test_illegal_action_raw_env_raises_and_keeps_state():
    e = hanabi_env.raw_env()
    e.reset(seed=0)
    agent = e.agent_selection
    legal = e.game.legal_actions().tolist()
    assert 0 not in legal  # discarding with max tokens is illegal
    obs_before = {a: e.observe(a)["observation"].copy() for a in e.agents}
    snap = snapshot(e.game)
    with pytest.raises(ValueError, match="illegal") as exc:
        e.step(0)
    msg = str(exc.value)
    assert "0" in msg
    assert "action 0" in msg
    assert str(legal) in msg
    _assert_state_equal(snap, e.game)
    assert e.agent_selection == agent
    for a in e.agents:
        np.testing.assert_array_equal(e.observe(a)["observation"], obs_before[a])
    # still playable afterwards
    e.step(legal[0])
    assert e.game.n_moves == 1


@pytest.mark.parametrize("action", [-1, 20, 21, 10**6, -(2**63), 2**63, 10**20, -(10**20)])
def test_out_of_range_action_raw_env(action):
    e = hanabi_env.raw_env()
    e.reset(seed=1)
    snap = snapshot(e.game)
    with pytest.raises(ValueError, match=f"action {action} ") as exc:
        e.step(action)
    assert "legal actions" in str(exc.value)
    _assert_state_equal(snap, e.game)


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
@pytest.mark.parametrize("action", [5.0, np.float64(5.0), "5", "play", True, [5]])
def test_non_integer_action_raises_type_error(ctor, action):
    e = ctor()
    e.reset(seed=2)
    snap = snapshot(e.unwrapped.game)
    with pytest.raises(TypeError):
        e.step(action)
    _assert_state_equal(snap, e.unwrapped.game)


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
def test_numpy_integer_action_accepted(ctor):
    e = ctor()
    e.reset(seed=2)
    e.step(np.int64(5))  # play slot 0 is always legal
    assert e.unwrapped.game.n_moves == 1


def test_illegal_action_env_terminates_with_minus_one():
    e = hanabi_env.env(players=3)
    e.reset(seed=4)
    mover = e.agent_selection
    assert e.observe(mover)["action_mask"][0] == 0  # discard illegal at max tokens
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(0)
    assert all(e.terminations[a] for a in e.agents)
    assert e.rewards[mover] == -1
    assert all(e.rewards[a] == 0 for a in e.agents if a != mover)
    got = {}
    for agent in e.agent_iter():
        _, rew, term, trunc, _ = e.last()
        assert term or trunc
        got[agent] = rew
        e.step(None)
    assert not e.agents
    assert got[mover] == -1
    assert all(v == 0 for a, v in got.items() if a != mover)


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
def test_dead_step_convention(ctor):
    e = ctor()
    e.reset(seed=7)
    while not e.unwrapped.game.is_terminal:
        e.step(bomb_action(e.unwrapped, e.observe(e.agent_selection)["action_mask"]))
    assert e.unwrapped.game.state.scal[E.S_LIFE] == 0
    assert all(e.terminations.values())
    assert len(e.agents) == 2
    # a non-None action on a dead agent raises
    with pytest.raises(ValueError, match="dead"):
        e.step(0)
    assert len(e.agents) == 2
    removed = []
    while e.agents:
        a = e.agent_selection
        e.step(None)
        removed.append(a)
        assert a not in e.agents
    assert sorted(removed) == ["player_0", "player_1"]


# ---------------------------------------------------------------------------------------------
# hanabi_v5 defects fixed
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "seed"),
    [
        ({}, 0),
        ({}, 1),
        ({}, 2),
        ({"players": 3}, 3),
        ({"players": 4, "hand_size": 4}, 4),
        ({"players": 5, "hand_size": 4}, 5),
        ({"scoring": "lenient"}, 6),
    ],
)
def test_full_length_game_not_truncated_and_ends_on_time(kwargs, seed):
    e = hanabi_env.env(**kwargs)
    e.reset(seed=seed)
    raw = e.unwrapped
    game = raw.game
    n_players = game.config.players
    moves = 0
    last_draw_move = None  # number of moves made when the deck became empty
    returns = Counter()
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        returns[agent] += rew
        assert not trunc, "a full-length game was truncated"
        assert term == game.is_terminal
        if term:
            e.step(None)
            continue
        assert not any(raw.terminations.values())
        before = _deck_left(game)
        e.step(safe_action(raw, obs["action_mask"]))
        moves += 1
        if before > 0 and _deck_left(game) == 0:
            last_draw_move = moves
        assert not any(raw.truncations.values())
        if game.is_terminal:
            assert all(raw.terminations.values())
    assert game.state.scal[E.S_LIFE] == game.config.max_life_tokens  # the driver never bombs
    assert game.fireworks_total < game.config.max_score  # ended by the deck, not a perfect game
    assert last_draw_move is not None
    assert moves - last_draw_move == n_players
    # hanabi_v5 counted the deals toward OpenSpiel's 118-move bound and truncated such games
    if n_players == 2:
        assert moves + game.config.n_cards > 118
    for a in raw.possible_agents:
        assert returns[a] == game.score


def test_random_start_player_honoured():
    e = hanabi_env.raw_env(random_start_player=True)
    starts = Counter()
    for seed in range(40):
        e.reset(seed=seed)
        cur = e.game.current_player
        assert e.agent_selection == f"player_{cur}"
        assert e.observe(e.agent_selection)["action_mask"].any()
        starts[cur] += 1
    assert starts[0] > 0, starts
    assert starts[1] > 0, starts
    # and the wrapped env agrees (first agent from agent_iter is the engine's current player)
    w = hanabi_env.env(random_start_player=True, players=3)
    seen = set()
    for seed in range(40):
        w.reset(seed=seed)
        first = next(iter(w.agent_iter()))
        assert first == f"player_{w.unwrapped.game.current_player}"
        seen.add(first)
    assert len(seen) == 3


def test_random_start_player_false_starts_with_player_0():
    e = hanabi_env.raw_env()
    for seed in range(10):
        e.reset(seed=seed)
        assert e.agent_selection == "player_0"


def test_terminal_observation_fresh_after_last_life():
    e = hanabi_env.env()
    e.reset(seed=11)
    raw = e.unwrapped
    cfg = raw.config
    off = _layout(cfg)
    prev = None
    while not raw.game.is_terminal:
        agent = e.agent_selection
        prev = {a: raw.observe(a)["observation"].copy() for a in raw.agents}
        e.step(bomb_action(raw, e.observe(agent)["action_mask"]))
    last_rec = raw.game.state.public.hist[raw.game.n_moves - 1]
    for a in raw.possible_agents:
        obs = e.observe(a)["observation"]
        np.testing.assert_array_equal(obs, raw.view(a).encode())
        # life tokens: all zeros now, one bit before the last move
        life = slice(off["life"], off["life"] + cfg.max_life_tokens)
        assert obs[life].sum() == 0
        assert prev[a][life].sum() == 1
        # last-move block shows the final (failed) play
        assert obs[off["kind"] + E.PLAY] == 1
        assert obs[off["card"] + int(last_rec[E.H_CARD])] == 1
        assert obs[off["scored"]] == 0
        assert not np.array_equal(obs, prev[a])
    # last() at the terminal step returns the fresh observation too
    obs, _, term, _, _ = e.last()
    assert term
    np.testing.assert_array_equal(obs["observation"], raw.view(e.agent_selection).encode())
    assert not obs["action_mask"].any()


def test_terminal_observation_fresh_after_deck_runs_out():
    e = hanabi_env.env()
    e.reset(seed=2)
    raw = e.unwrapped
    game = raw.game
    cfg = raw.config
    off = _layout(cfg)
    while not game.is_terminal:
        e.step(safe_action(raw, e.observe(e.agent_selection)["action_mask"]))
    rec = game.state.public.hist[game.n_moves - 1]
    for a in raw.possible_agents:
        seat = int(a.split("_")[1])
        obs = e.observe(a)["observation"]
        np.testing.assert_array_equal(obs, raw.view(a).encode())
        np.testing.assert_array_equal(obs, game.observation(seat))
        # the actor and move kind of the very last move
        actor = (int(rec[E.H_ACTOR]) - seat) % cfg.players
        assert obs[off["actor"] + actor] == 1
        assert obs[off["kind"] + int(rec[E.H_KIND])] == 1
        # fireworks bits equal the final fireworks
        for c in range(cfg.colors):
            height = int(game.state.public.fireworks[c])
            bits = obs[off["fireworks"] + c * cfg.ranks : off["fireworks"] + (c + 1) * cfg.ranks]
            if height == 0:
                assert bits.sum() == 0
            else:
                assert bits.sum() == 1
                assert bits[height - 1] == 1
        # deck thermometer empty
        assert obs[off["deck"] : off["fireworks"]].sum() == 0


# ---------------------------------------------------------------------------------------------
# rewards
# ---------------------------------------------------------------------------------------------


def _safe_then_bomb(n_safe):
    count = {"n": 0}

    def policy(raw, mask):
        count["n"] += 1
        if count["n"] <= n_safe:
            return safe_action(raw, mask)
        return bomb_action(raw, mask)

    return policy


@pytest.mark.parametrize("players", [2, 3])
def test_rewards_sum_to_score_strict_after_last_life(players):
    e = hanabi_env.env(players=players)
    e.reset(seed=21)
    raw = e.unwrapped
    returns, _ = play_aec(e, _safe_then_bomb(30))
    game = raw.game
    assert game.state.scal[E.S_LIFE] == 0
    assert game.fireworks_total > 0  # points were scored, then wiped out
    assert game.score == 0
    for a in raw.possible_agents:
        assert returns[a] == 0


@pytest.mark.parametrize("players", [2, 3])
def test_rewards_sum_to_score_lenient_after_last_life(players):
    e = hanabi_env.env(players=players, scoring="lenient")
    e.reset(seed=21)
    raw = e.unwrapped
    returns, _ = play_aec(e, _safe_then_bomb(30))
    game = raw.game
    assert game.state.scal[E.S_LIFE] == 0
    assert game.fireworks_total > 0
    assert game.score == game.fireworks_total
    for a in raw.possible_agents:
        assert returns[a] == game.fireworks_total


def test_strict_last_life_step_pays_minus_score():
    e = hanabi_env.raw_env()
    e.reset(seed=21)
    policy = _safe_then_bomb(30)
    while not e.game.is_terminal:
        before = e.game.score
        e.step(policy(e, e.observe(e.agent_selection)["action_mask"]))
    assert before > 0
    assert all(r == -before for r in e.rewards.values())


@pytest.mark.parametrize("scoring", ["strict", "lenient"])
@pytest.mark.parametrize("seed", [0, 1])
def test_rewards_sum_to_score_full_game(scoring, seed):
    e = hanabi_env.env(scoring=scoring, players=3)
    e.reset(seed=seed)
    returns, _ = play_aec(e, safe_action)
    score = e.unwrapped.game.score
    assert score > 0
    for a in e.unwrapped.possible_agents:
        assert returns[a] == score


def test_rewards_sum_to_score_per_step_raw_env():
    e = hanabi_env.raw_env(players=2)
    e.reset(seed=8)
    total = Counter()
    while not e.game.is_terminal:
        e.step(safe_action(e, e.observe(e.agent_selection)["action_mask"]))
        assert len(set(e.rewards.values())) == 1
        for a, r in e.rewards.items():
            total[a] += r
            assert total[a] == e.game.score
        assert all(e.infos[a]["score"] == e.game.score for a in e.agents)


# ---------------------------------------------------------------------------------------------
# infos: behaviour metrics on a scripted deck
# ---------------------------------------------------------------------------------------------

# card id = colour * 5 + rank (0-based); R Y G W B
R1, R2 = 0, 1
Y3, Y4 = 7, 8
G3, G4 = 12, 13
W2, W3, W4 = 16, 17, 18
B3, B4, B5 = 22, 23, 24

P0_HAND = [Y3, G4, W2, B3, Y4]
P1_HAND = [R1, R2, G3, W4, B5]


def _scripted_deck():
    head = P0_HAND + P1_HAND + [W3, B4]
    rest = Counter(_full_deck())
    rest.subtract(Counter(head))
    tail = sorted(rest.elements())
    deck = head + tail
    assert len(deck) == 50
    return deck


METRIC_KEYS = (
    "communicativeness",
    "communicativeness_defined",
    "ipp",
    "ipp_defined",
    "risk_aversion",
    "risk_aversion_defined",
    *E.COUNTER_NAMES,  # the engine's counters, under their own names
    "score",
)


def _metric(info, name):
    """The metric, or None where its flag says it is undefined (then the value is 0.0)."""
    value, defined = info[name], info[f"{name}_defined"]
    assert type(value) is float
    assert type(defined) is bool
    assert defined or value == 0.0
    return value if defined else None


def test_infos_metrics_scripted():
    """Metrics on a chosen deck, checked by hand (docs/rules.md §5).

    Uses ``raw_env``: the deck is set through ``env.unwrapped.game.reset_with_deck``, after which
    the env's cached action mask is stale until the first step (see
    ``test_observe_mask_fresh_after_game_reset_with_deck``); legality is checked on the game.
    """
    e = hanabi_env.raw_env()
    e.reset(seed=0)
    for a in e.agents:
        info = e.infos[a]
        assert sorted(info) == sorted(METRIC_KEYS)
        assert _metric(info, "communicativeness") is None
        assert _metric(info, "ipp") is None
        assert _metric(info, "risk_aversion") is None
        assert info["plays"] == 0
        assert info["hints_given"] == 0
    raw = e.unwrapped
    raw.game.reset_with_deck(_scripted_deck(), 0)
    s = raw.game.state
    assert [_card(s, 0, k) for k in range(5)] == P0_HAND
    assert [_card(s, 1, k) for k in range(5)] == P1_HAND
    assert e.agent_selection == "player_0"

    def step(action):
        assert raw.game.legal_mask()[action] == 1, raw.game.action_to_string(action)
        if raw.game.n_moves > 0:
            np.testing.assert_array_equal(
                e.observe(e.agent_selection)["action_mask"], raw.game.legal_mask()
            )
        e.step(action)

    # move 0: player_0 reveals rank 1 to player_1 (touches R1 only)
    step(15)
    i0, i1 = e.infos["player_0"], e.infos["player_1"]
    assert _metric(i0, "communicativeness") == 1.0
    assert _metric(i0, "ipp") is None
    assert _metric(i0, "risk_aversion") is None
    assert _metric(i1, "communicativeness") is None
    assert _metric(i1, "ipp") is None
    # move 1: player_1 reveals yellow to player_0
    step(11)
    assert _metric(e.infos["player_1"], "communicativeness") == 1.0
    # move 2: player_0 reveals red to player_1 (touches R1, R2)
    step(10)
    # move 3: player_1 plays slot 0 (R1, colour and rank known)
    step(5)
    i1 = e.infos["player_1"]
    assert raw.game.score == 1
    assert i1["plays"] == 1
    assert i1["sum_known_attrs"] == 2
    assert _metric(i1, "ipp") == 1.0
    assert _metric(i1, "risk_aversion") == 1.0  # only R1 is plausible, and it is playable
    assert _metric(i1, "communicativeness") == 0.5
    # move 4: player_0 discards slot 0 (Y3)
    step(0)
    i0 = e.infos["player_0"]
    assert i0["discards"] == 1
    assert i0["sum_discard_pos"] == 0.0
    assert _metric(i0, "communicativeness") == pytest.approx(2 / 3)
    assert i0["hint_opportunities"] == 3
    assert i0["hints_given"] == 2
    assert _metric(i0, "ipp") is None
    assert _metric(i0, "risk_aversion") is None
    # move 5: player_1 plays slot 0 (R2: colour known, rank only "not 1")
    step(5)
    i0, i1 = e.infos["player_0"], e.infos["player_1"]
    assert raw.game.score == 2
    assert i1["plays"] == 2
    assert i1["sum_known_attrs"] == 3
    assert _metric(i1, "ipp") == 0.75  # (2 + 1) / (2 * 2), exactly
    # P(playable) of R2 from player_1's view: red, rank in {2..5}: R2 x2, R3 x2, R4 x2, R5 x1
    assert i1["sum_p_playable"] == pytest.approx(1 + 2 / 7)
    assert _metric(i1, "risk_aversion") == pytest.approx((1 + 2 / 7) / 2)
    assert _metric(i1, "communicativeness") == pytest.approx(1 / 3)
    assert i1["hint_opportunities"] == 3
    assert i1["hints_given"] == 1
    assert i1["turns"] == 3
    assert i0["turns"] == 3
    assert i0["plays"] == 0
    for a in ("player_0", "player_1"):
        assert e.infos[a]["score"] == 2
        for key in ("communicativeness", "ipp", "risk_aversion"):
            v = _metric(e.infos[a], key)
            assert v is None or 0.0 <= v <= 1.0
    # the move records agree
    moves = raw.view("player_0").moves
    assert [m.kind for m in moves] == [
        "reveal_rank",
        "reveal_color",
        "reveal_color",
        "play",
        "discard",
        "play",
    ]
    assert moves[3].known_attributes == 2
    assert moves[5].known_attributes == 1
    assert moves[0].touched_slots == (0,)
    assert moves[2].touched_slots == (0, 1)


@pytest.mark.parametrize("ctor", CONSTRUCTORS)
def test_observe_mask_fresh_after_game_reset_with_deck(ctor):
    """Scripting a deal through ``env.unwrapped.game.reset_with_deck`` (HanabiGame's API for an
    explicit deck) must leave ``observe()`` / ``infos`` consistent with the new deal, and a legal
    move of the new deal must be accepted (``env()``'s TerminateIllegalWrapper reads the mask)."""
    e = ctor()
    e.reset(seed=0)
    raw = e.unwrapped
    raw.game.reset_with_deck(_scripted_deck(), 0)
    legal = raw.game.legal_mask()
    assert legal[15] == 1  # reveal rank 1 to player_1 (R1) is legal in the scripted deal
    np.testing.assert_array_equal(e.observe("player_0")["action_mask"], legal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(15)
    assert not any(e.terminations.values())
    assert raw.game.n_moves == 1


def test_infos_metrics_reset_each_game():
    e = hanabi_env.raw_env()
    e.reset(seed=3)
    for _ in range(6):
        e.step(safe_action(e, e.observe(e.agent_selection)["action_mask"]))
    assert e.infos["player_0"]["turns"] == 3
    e.reset(seed=4)
    for a in e.agents:
        assert e.infos[a]["turns"] == 0
        assert _metric(e.infos[a], "communicativeness") is None


# ---------------------------------------------------------------------------------------------
# render
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_render_ansi(players):
    e = hanabi_env.raw_env(players=players, hand_size=4, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str)
    assert "Fireworks" in text
    for a in e.possible_agents:
        assert a in text
    e.step(safe_action(e, e.observe(e.agent_selection)["action_mask"]))
    assert "Fireworks" in e.render()


def test_render_human(capsys):
    e = hanabi_env.env(render_mode="human")
    e.reset(seed=0)
    capsys.readouterr()
    assert e.render() is None
    out = capsys.readouterr().out
    assert "Fireworks" in out
    assert "player_0" in out
    assert "player_1" in out
    e.step(safe_action(e.unwrapped, e.observe(e.agent_selection)["action_mask"]))
    assert "Fireworks" in capsys.readouterr().out  # human mode prints on step


def test_render_none_returns_none():
    e = hanabi_env.raw_env()
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert e.render() is None


# ---------------------------------------------------------------------------------------------
# player view
# ---------------------------------------------------------------------------------------------


def _check_view(raw, agent):
    game = raw.game
    s = game.state
    seat = int(agent.split("_")[1])
    v = raw.view(agent)
    assert v.seat == seat
    assert np.all(v.hands[seat] == -1), "the view exposes the viewer's own cards"
    for p in range(game.config.players):
        if p == seat:
            continue
        for k in range(game.config.hand_size):
            expected = _card(s, p, k) if k < s.public.hand_len[p] else -1
            assert v.hands[p, k] == expected
    np.testing.assert_array_equal(v.hand_lengths, s.public.hand_len)
    if game.config.observation_type == "seer":
        enc = raw.view(agent, seer=True).encode()
    else:
        enc = v.encode()
    np.testing.assert_array_equal(enc, raw.observe(agent)["observation"])
    return v


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_view_hides_own_cards_and_encodes_observation(kwargs):
    e = hanabi_env.raw_env(**kwargs)
    e.reset(seed=9)
    for _ in range(40):
        for a in e.agents:
            _check_view(e, a)
        if e.game.is_terminal:
            break
        e.step(safe_action(e, e.observe(e.agent_selection)["action_mask"]))


def test_view_is_read_only():
    e = hanabi_env.raw_env(players=3)
    e.reset(seed=0)
    v = e.view("player_1")
    for arr in (
        v.hands,
        v.fireworks,
        v.discard_counts,
        v.hand_lengths,
        v.card_uids,
        v.hinted_color,
        v.hinted_rank,
    ):
        with pytest.raises(ValueError, match="read-only"):
            arr[(0,) * arr.ndim] = 1
    for arr in v.raw:
        assert not arr.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            arr[(0,) * arr.ndim] = 0
    # the view is a snapshot: stepping the game does not change it
    hands = v.hands.copy()
    n = len(v.moves)
    e.step(safe_action(e, e.observe(e.agent_selection)["action_mask"]))
    np.testing.assert_array_equal(v.hands, hands)
    assert len(v.moves) == n


def test_view_unknown_agent():
    e = hanabi_env.raw_env()
    e.reset(seed=0)
    with pytest.raises(ValueError, match="agent"):
        e.view("player_7")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_moves_since_last_turn(players):
    e = hanabi_env.raw_env(players=players, hand_size=4)
    e.reset(seed=13)
    game = e.game
    actors = []
    for _ in range(25):
        for a in e.possible_agents:
            seat = int(a.split("_")[1])
            v = e.view(a)
            assert [m.index for m in v.moves] == list(range(len(actors)))
            assert [m.actor for m in v.moves] == actors
            mine = [i for i, x in enumerate(actors) if x == seat]
            start = mine[-1] + 1 if mine else 0
            since = v.moves_since_last_turn
            assert [m.index for m in since] == list(range(start, len(actors)))
            assert all(m.actor != seat for m in since)
        if game.is_terminal:
            break
        actors.append(game.current_player)
        e.step(safe_action(e, e.observe(e.agent_selection)["action_mask"]))
    assert len(actors) >= 2 * players
    # the seat about to move sees exactly the other players' last round
    if not game.is_terminal:
        v = e.view(e.agent_selection)
        assert len(v.moves_since_last_turn) == players - 1


# ---------------------------------------------------------------------------------------------
# NUMBA_DISABLE_JIT
# ---------------------------------------------------------------------------------------------


def test_numba_disable_jit_plays_a_game():
    code = (
        "import numpy as np, hanabi_env\n"
        "e = hanabi_env.env(players=3)\n"
        "e.reset(seed=0)\n"
        "for a in e.agent_iter():\n"
        "    o, r, t, tr, i = e.last()\n"
        "    if t or tr:\n"
        "        e.step(None)\n"
        "        continue\n"
        "    e.step(int(np.flatnonzero(o['action_mask'])[-1]))\n"
        "g = e.unwrapped.game\n"
        "assert g.is_terminal\n"
        "print('score', g.score, 'moves', g.n_moves)\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = run_python(["-c", code], REPO, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("score ")


def test_reset_options_deck_and_start_player():
    env = hanabi_env.env(players=3)
    deck = _scripted_deck_for(3)
    env.reset(options={"deck": deck, "start_player": 2})
    base = env.unwrapped
    assert env.agent_selection == "player_2"
    assert base.game.state.deck.tolist() == list(deck)
    view = base.view("player_2")
    assert view.hands[0, 0] == deck[0]
    assert (view.hands[2] == -1).all()
    obs = env.observe("player_2")
    np.testing.assert_array_equal(obs["action_mask"], base.game.legal_mask())
    with pytest.raises(ValueError, match="permutation"):
        env.reset(options={"deck": deck[:-1]})
    with pytest.raises(ValueError, match="start_player"):
        env.reset(options={"start_player": 7})


def _scripted_deck_for(players):
    from hanabi_env import engine as E
    from hanabi_env.config import HanabiConfig

    s = E.new_state(HanabiConfig(players=players))
    E.fill_ordered_deck(s)
    return [int(c) for c in s.deck[::-1]]


# ---------------------------------------------------------------------------------------------
# PlayerView: legal moves and move uids from the view alone
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [*CONFIGS, pytest.param({"players": 3, "hand_order": "fixed"}, id="p3-fixed")],
)
def test_player_view_legal_moves_agree_with_the_engine(kwargs):
    game = hanabi_env.HanabiGame(**kwargs)
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(3):
        game.reset(seed)
        while True:
            cur = game.current_player
            for seat in range(game.config.players):
                view = game.view(seat)
                mask = view.legal_mask()
                assert mask.dtype == np.int8
                assert mask.shape == (game.n_actions,)
                legal = view.legal_actions()
                assert legal.dtype == np.int64
                if seat == cur and not game.is_terminal:
                    np.testing.assert_array_equal(mask, game.legal_mask())
                    np.testing.assert_array_equal(legal, game.legal_actions())
                    # the viewer's own cards are never read: a seer view decides the same
                    np.testing.assert_array_equal(game.view(seat, seer=True).legal_mask(), mask)
                    seen += 1
                else:  # like the env's action_mask: nothing is legal off turn or at the end
                    assert not mask.any()
                    assert legal.size == 0
            if game.is_terminal:
                break
            game.step(int(rng.choice(game.legal_actions())))
    assert seen > 5


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_player_view_action_uid_round_trips_every_move(kwargs):
    game = hanabi_env.HanabiGame(**kwargs)
    game.reset(1)
    for seat in range(game.config.players):
        view = game.view(seat)
        for a in range(game.n_actions):
            kind, slot, target, color, rank = E.decode_action(game.state.cfg, seat, a)
            name = hanabi_env.game.MOVE_KINDS[kind]
            uid = view.action_uid(name, slot=slot, target=target, color=color, rank=rank)
            assert uid == a
            assert isinstance(uid, int)
            if name == "reveal_color":
                letter = hanabi_env.game.COLOR_NAMES[color]
                assert view.action_uid(name, target=target, color=letter.lower()) == a
            if name in ("play", "discard"):  # unused arguments are ignored
                assert view.action_uid(name, slot=np.int64(slot), target=seat, rank=99) == a
    moves = game.view(game.current_player).legal_mask()
    assert moves.sum() == len(game.legal_actions())


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (("hint",), ValueError, "kind"),
        ((3,), TypeError, "kind"),
        (("play",), ValueError, "slot"),
        (("play", 5), ValueError, "slot"),
        (("discard", -1), ValueError, "slot"),
        (("play", 1.0), TypeError, "slot"),
        (("play", True), TypeError, "slot"),
        (("reveal_rank", None, None, None, 0), ValueError, "target"),
        (("reveal_rank", None, 0, None, 0), ValueError, "target"),
        (("reveal_rank", None, 3, None, 0), ValueError, "target"),
        (("reveal_rank", None, "1", None, 0), TypeError, "target"),
        (("reveal_rank", None, 1, None, 5), ValueError, "rank"),
        (("reveal_rank", None, 1), ValueError, "rank"),
        (("reveal_rank", None, 1, None, 2.0), TypeError, "rank"),
        (("reveal_color", None, 1, "Q"), ValueError, "color"),
        (("reveal_color", None, 1, "RY"), ValueError, "color"),
        (("reveal_color", None, 1, 5), ValueError, "color"),
        (("reveal_color", None, 1, 1.5), TypeError, "color"),
        (("reveal_color", None, 1), ValueError, "color"),
    ],
)
def test_player_view_action_uid_errors(args, error, match):
    game = hanabi_env.HanabiGame(players=3)
    game.reset(0)
    view = game.view(0)
    with pytest.raises(error, match=match):
        view.action_uid(*args)


def test_player_view_action_uid_knows_the_games_colours():
    game = hanabi_env.HanabiGame(players=2, colors=3, ranks=3, hand_size=3)
    game.reset(0)
    view = game.view(0)
    assert view.action_uid("reveal_color", target=1, color="G") == 2 * 3 + 2
    with pytest.raises(ValueError, match="color"):
        view.action_uid("reveal_color", target=1, color="W")  # W is colour 3: not in this game
    with pytest.raises(ValueError, match="rank"):
        view.action_uid("reveal_rank", target=1, rank=3)


def test_a_closed_env_refuses_steps_until_reset():
    e = hanabi_env.env()
    e.reset(seed=0)
    action = int(e.last()[0]["action_mask"].argmax())
    e.close()
    for call in (lambda: e.step(action), lambda: e.observe("player_0"), e.last):
        with pytest.raises(RuntimeError, match="closed: call reset"):
            call()
    e.reset(seed=0)  # a reset deals again, as after construction
    e.step(action)
    assert e.agent_selection == "player_1"
