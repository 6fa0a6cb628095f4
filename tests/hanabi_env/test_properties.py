"""Property-based tests (Hypothesis) of the engine and env invariants, step by step.

Configurations are drawn within the documented bounds; games are played by drawing indices
into the legal-action list (optionally skipping bombs so that long games and deck exhaustion are
covered). At every step: cards are conserved, tokens stay in range, the score follows the
scoring variant, the action mask equals the legality predicate for every action id, hint
knowledge never excludes a true card, the player view never exposes the viewer's own cards and
observations are 0/1 vectors of the documented length that encode the view.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import hanabi_env
from hanabi_env import engine as E
from hanabi_env import metric_ratios
from hanabi_env import view as V
from tests.hanabi_env.helpers import play_aec, random_policy, snapshot

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def configs(draw):
    colors = draw(st.integers(2, 5))
    ranks = draw(st.integers(2, 5))
    players = draw(st.integers(2, colors))
    n_cards = E.n_cards_of(colors, ranks)
    hand_size = draw(st.integers(2, min(5, n_cards // players)))
    return {
        "colors": colors,
        "ranks": ranks,
        "players": players,
        "hand_size": hand_size,
        "max_information_tokens": draw(st.integers(0, 10)),
        "max_life_tokens": draw(st.integers(1, 4)),
        "observation_type": draw(st.sampled_from(["minimal", "card_knowledge", "seer"])),
        "random_start_player": draw(st.booleans()),
        "scoring": draw(st.sampled_from(["strict", "lenient"])),
        "observation_dtype": draw(st.sampled_from(["float64", "float32", "int8"])),
    }


def _playable(game, seat, slot) -> bool:
    s = game.state
    c = int(E.card_of(s, seat, slot))
    r = game.config.ranks
    return int(s.public.fireworks[c // r]) == c % r


def check_invariants(e, total_reward: float) -> None:
    game = e.game
    s = game.state
    _check_cards(game)
    _check_tokens_and_score(game, total_reward)
    _check_mask(e, game)
    _check_knowledge(game)
    _check_infos(e, game, s)
    _check_views(e, game)


def _check_cards(game) -> None:
    """Cards are conserved; hands, fireworks and discards in range."""
    cfg, s = game.config, game.state
    p, h = cfg.players, cfg.hand_size
    deck_left = cfg.n_cards - int(s.scal[E.S_DECK_POS])
    assert deck_left >= 0
    in_hands = int(s.public.hand_len.sum())
    assert (
        deck_left + in_hands + int(s.public.discards.sum()) + int(s.public.fireworks.sum())
        == cfg.n_cards
    )
    assert int(s.public.fireworks.sum()) == game.fireworks_total
    for q in range(p):
        n = int(s.public.hand_len[q])
        assert 0 <= n <= h
        assert np.all(s.public.uids[q, :n] >= 0)
        assert np.all(s.public.uids[q, n:] == -1)
    for c in range(cfg.colors):
        assert 0 <= int(s.public.fireworks[c]) <= cfg.ranks
    for card in range(cfg.colors * cfg.ranks):
        assert int(s.public.discards[card]) <= E.copies_of_rank(cfg.ranks, card % cfg.ranks)


def _check_tokens_and_score(game, total_reward: float) -> None:
    cfg, s = game.config, game.state
    info, life = int(s.scal[E.S_INFO]), int(s.scal[E.S_LIFE])
    assert 0 <= info <= cfg.max_information_tokens
    assert 0 <= life <= cfg.max_life_tokens

    # score
    if cfg.scoring == "lenient" or life > 0:
        assert game.score == game.fireworks_total
    else:
        assert game.score == 0
        assert game.is_terminal
    assert total_reward == game.score
    if life == 0:
        assert game.is_terminal


def _check_mask(e, game) -> None:
    """mask == legality for every action id."""
    cfg, s = game.config, game.state
    h = cfg.hand_size
    mask = game.legal_mask()
    cur_agent = e.agent_selection
    if not game.is_terminal:
        np.testing.assert_array_equal(e.observe(cur_agent)["action_mask"], mask)
        assert mask.any()
        assert mask[h : h + int(s.public.hand_len[game.current_player])].all()  # plays always legal
    else:
        assert not mask.any()
    for a in range(game.n_actions):
        assert bool(mask[a]) == bool(E.is_legal(s, a)), a
    assert not E.is_legal(s, -1)
    assert not E.is_legal(s, game.n_actions)


def _check_knowledge(game) -> None:
    """Knowledge never excludes the true card."""
    cfg, s = game.config, game.state
    for q in range(cfg.players):
        for k in range(int(s.public.hand_len[q])):
            c = int(E.card_of(s, q, k))
            col, rank = c // cfg.ranks, c % cfg.ranks
            assert (int(s.public.col_plaus[q, k]) >> col) & 1
            assert (int(s.public.rank_plaus[q, k]) >> rank) & 1
            assert int(s.public.col_hint[q, k]) in (-1, col)
            assert int(s.public.rank_hint[q, k]) in (-1, rank)


def _check_infos(e, game, s) -> None:
    """Infos: fresh counters and metrics for every seat, finite, with their defined flags."""
    for agent in e.agents:
        seat = int(agent.split("_")[1])
        info = e.infos[agent]
        for k, name in enumerate(E.COUNTER_NAMES):
            assert info[name] == s.counters[seat, k], (agent, name)
        ratios = metric_ratios(s.counters[seat])  # NaN where undefined
        for key in ("communicativeness", "ipp", "risk_aversion"):
            defined = bool(np.isfinite(ratios[key]))
            assert info[f"{key}_defined"] is defined, (agent, key)
            assert info[key] == (float(ratios[key]) if defined else 0.0), (agent, key)
            assert 0.0 <= info[key] <= 1.0
        assert info["score"] == game.score
        assert "action_mask" not in info


def _check_views(e, game) -> None:
    """Views and observations."""
    cfg, s = game.config, game.state
    p, h = cfg.players, cfg.hand_size
    cur_agent = e.agent_selection
    size = game.observation_size
    for agent in e.possible_agents:
        seat = int(agent.split("_")[1])
        v = e.view(agent)
        assert np.all(v.hands[seat] == -1)
        n_moves = game.n_moves
        mine = [m for m in range(n_moves) if int(s.public.hist[m, E.H_ACTOR]) == seat]
        assert int(v.raw.scal[V.V_SINCE]) == (mine[-1] + 1 if mine else 0)
        assert int(v.raw.scal[V.V_N_MOVES]) == n_moves
        for q in range(p):
            if q == seat:
                continue
            for k in range(h):
                expected = int(E.card_of(s, q, k)) if k < s.public.hand_len[q] else -1
                assert int(v.hands[q, k]) == expected
        obs = e.observe(agent)
        vec = obs["observation"]
        assert vec.dtype == np.dtype(e.observation_dtype)
        assert vec.shape == (size,)
        assert e.observation_space(agent)["observation"].shape == (size,)
        assert e.observation_space(agent).contains(obs)
        assert np.all((vec == 0) | (vec == 1))
        if agent != cur_agent or game.is_terminal:
            assert not obs["action_mask"].any()
        if cfg.observation_type == "seer":
            enc = e.view(agent, seer=True).encode()
        else:
            enc = v.encode()
        np.testing.assert_array_equal(enc, vec)


@SETTINGS
@given(cfg=configs(), seed=st.integers(0, 2**31 - 1), data=st.data())
def test_invariants_every_step(cfg, seed, data):
    e = hanabi_env.raw_env(**cfg)
    e.reset(seed=seed)
    game = e.game
    h = cfg["hand_size"]
    avoid_bombs = data.draw(st.booleans(), label="avoid_bombs")
    assert e.agent_selection == f"player_{game.current_player}"
    total = 0.0
    moves = 0
    last_draw = 0 if game.state.scal[E.S_DECK_POS] >= game.config.n_cards else None
    check_invariants(e, total)
    while not game.is_terminal:
        legal = np.flatnonzero(game.legal_mask()).tolist()
        cands = legal
        if avoid_bombs:
            cur = game.current_player
            safe = [a for a in legal if not (h <= a < 2 * h) or _playable(game, cur, a - h)]
            cands = safe or legal
        action = cands[data.draw(st.integers(0, len(cands) - 1), label="move")]
        deck_before = game.config.n_cards - int(game.state.scal[E.S_DECK_POS])
        e.step(action)
        moves += 1
        if deck_before > 0 and game.state.scal[E.S_DECK_POS] >= game.config.n_cards:
            last_draw = moves
        rewards = set(e.rewards.values())
        assert len(rewards) == 1
        total += rewards.pop()
        assert not any(e.truncations.values())
        assert all(e.terminations.values()) == game.is_terminal
        assert any(e.terminations.values()) == game.is_terminal
        if not game.is_terminal:
            assert e.agent_selection == f"player_{game.current_player}"
        check_invariants(e, total)
        assert moves <= int(game.state.cfg[E.CFG_MAX_MOVES])
    # why did it end?
    s = game.state
    if int(s.scal[E.S_LIFE]) <= 0:
        event("ended: lives")
    elif game.fireworks_total >= game.config.max_score:
        event("ended: perfect score")
    else:
        event("ended: deck")
        assert last_draw is not None
        assert moves - last_draw == cfg["players"]
    event(f"moves >= 40: {moves >= 40}")


@settings(max_examples=150, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 2**31 - 1))
def test_same_seed_same_game(cfg, seed):
    a = hanabi_env.raw_env(**cfg)
    b = hanabi_env.raw_env(**cfg)
    a.reset(seed=seed)
    b.reset(seed=seed)
    np.testing.assert_array_equal(a.game.state.deck, b.game.state.deck)
    assert a.agent_selection == b.agent_selection
    # the deck is a permutation of the configured cards
    deck = np.sort(a.game.state.deck)
    expected = []
    for c in range(cfg["colors"]):
        for r in range(cfg["ranks"]):
            expected += [c * cfg["ranks"] + r] * E.copies_of_rank(cfg["ranks"], r)
    np.testing.assert_array_equal(deck, np.array(expected))
    for agent in a.possible_agents:
        np.testing.assert_array_equal(
            a.observe(agent)["observation"], b.observe(agent)["observation"]
        )


@settings(max_examples=100, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 2**31 - 1), data=st.data())
def test_illegal_actions_rejected_without_state_change(cfg, seed, data):
    e = hanabi_env.raw_env(**cfg)
    e.reset(seed=seed)
    game = e.game
    for _ in range(data.draw(st.integers(0, 15), label="prefix")):
        if game.is_terminal:
            return
        legal = game.legal_actions().tolist()
        e.step(legal[data.draw(st.integers(0, len(legal) - 1))])
    if game.is_terminal:
        return
    mask = game.legal_mask()
    illegal = [a for a in range(-2, game.n_actions + 2) if a < 0 or a >= len(mask) or not mask[a]]
    action = data.draw(st.sampled_from(illegal), label="illegal")
    snap = snapshot(game)
    obs = {a: e.observe(a)["observation"].copy() for a in e.agents}
    with pytest.raises(ValueError, match=f"action {action} ") as exc:
        e.step(action)
    assert str(game.legal_actions().tolist()) in str(exc.value)
    for x, y in zip(snap, snapshot(game), strict=True):
        np.testing.assert_array_equal(x, y)
    for a in e.agents:
        np.testing.assert_array_equal(e.observe(a)["observation"], obs[a])


@settings(max_examples=60, deadline=None)
@given(cfg=configs(), seed=st.integers(0, 2**31 - 1), move_seed=st.integers(0, 2**31 - 1))
def test_wrapped_env_returns_equal_final_score(cfg, seed, move_seed):
    """Through ``env()`` and ``agent_iter``: every agent's return is the final score."""
    e = hanabi_env.env(**cfg)
    e.reset(seed=seed)
    rng = np.random.default_rng(move_seed)

    def finite_infos(obs, info):
        assert "action_mask" not in info  # in the observation only
        assert all(np.isfinite(v) for v in info.values())

    returns, _ = play_aec(e, random_policy(rng), on_step=finite_infos)
    assert set(returns) == set(e.possible_agents)
    score = e.unwrapped.game.score
    assert all(r == score for r in returns.values()), (returns, score)


@settings(max_examples=60, deadline=None)
@given(
    cfg=configs(),
    first_seed=st.integers(0, 2**31 - 1),
    seed=st.integers(0, 2**31 - 1),
    move_seed=st.integers(0, 2**31 - 1),
)
def test_reset_after_a_game_equals_fresh_env(cfg, first_seed, seed, move_seed):
    """A reused env (one game played, then reset) behaves exactly like a fresh one."""
    used = hanabi_env.raw_env(**cfg)
    used.reset(seed=first_seed)
    rng = np.random.default_rng(move_seed + 1)
    while not used.game.is_terminal:
        used.step(int(rng.choice(used.game.legal_actions())))
    used.reset(seed=seed)
    fresh = hanabi_env.raw_env(**cfg)
    fresh.reset(seed=seed)
    rng = np.random.default_rng(move_seed)
    while True:
        assert used.agent_selection == fresh.agent_selection
        assert used.agents == fresh.agents
        for agent in fresh.possible_agents:
            a, b = used.observe(agent), fresh.observe(agent)
            np.testing.assert_array_equal(a["observation"], b["observation"])
            np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
            va, vb = used.view(agent), fresh.view(agent)
            assert va.moves == vb.moves
            assert va.moves_since_last_turn == vb.moves_since_last_turn
        for agent in fresh.agents:
            ia, ib = used.infos[agent], fresh.infos[agent]
            assert ia.keys() == ib.keys()
            for key in ib:
                if key == "action_mask":
                    np.testing.assert_array_equal(ia[key], ib[key])
                else:
                    assert ia[key] == ib[key], key
        assert used.rewards == fresh.rewards
        if fresh.game.is_terminal:
            assert used.game.is_terminal
            break
        action = int(rng.choice(fresh.game.legal_actions()))
        used.step(action)
        fresh.step(action)
