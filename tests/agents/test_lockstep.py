"""Batch policies and the lockstep player: the per-game path's games, many at a time."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.batch import BatchPolicy, UniformBatchPolicy, masked_choice
from agents.evaluate import _run_policy_games, game_seeds, play_games
from agents.lockstep import play_lockstep
from hanabi_env.config import HanabiConfig, rulebook_hand_size


class LinearPolicy(BatchPolicy):
    """A fixed random linear scorer of the canonical observation (no torch needed)."""

    observation_dtype = "float64"

    def __init__(self, obs_dim: int, n_actions: int, deterministic: bool, seed: int = 0):
        self.w = np.random.default_rng(seed).normal(size=(obs_dim, n_actions))
        self.deterministic = deterministic
        self.name = f"linear-{'argmax' if deterministic else 'sampled'}"
        self.calls: list[int] = []
        self.reset(seed)

    def act_batch(self, obs, mask, seats, draws):
        self.calls.append(len(obs))
        return masked_choice(obs @ self.w, mask, draws, self.deterministic)


def _mixed(players: int, n: int, seed: int):
    seats, deals, agent_seeds = game_seeds(seed, n, players, random_seat=True)
    seat_agents = np.ones((n, players), dtype=np.int64)
    seat_agents[np.arange(n), seats] = 0
    return seat_agents, deals, agent_seeds


def _dims(players: int) -> tuple[HanabiConfig, int, int]:
    cfg = HanabiConfig(players=players, hand_size=rulebook_hand_size(players), scoring="lenient")
    from hanabi_env import view as V
    from hanabi_env.engine import new_state

    s = new_state(cfg)
    return cfg, V.observation_size(s.cfg, V.OBS_CARD_KNOWLEDGE), int(s.cfg[9])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("deterministic", [True, False])
def test_lockstep_equals_the_per_game_path(players, deterministic):
    cfg, obs_dim, n_actions = _dims(players)
    pol = LinearPolicy(obs_dim, n_actions, deterministic, seed=players)
    pools = [pol, agents.make("iggi")]
    seat_agents, deals, agent_seeds = _mixed(players, 24, seed=5)
    batch = play_games(pools, seat_agents, deals, agent_seeds, cfg, record_actions=True)
    scores, counters, moves, actions = _run_policy_games(
        cfg, pools, seat_agents, deals, agent_seeds
    )
    assert np.array_equal(batch.scores, scores)
    assert np.array_equal(batch.counters, counters)
    assert np.array_equal(batch.actions, actions)
    assert batch.moves == moves
    assert max(pol.calls) > 1  # decisions of several games in one call
    # the chunk size (games per lockstep batch) changes nothing
    small = play_lockstep(pools, seat_agents, deals, agent_seeds, cfg, chunk=5)
    assert np.array_equal(small[0], scores)


def test_a_batch_policy_in_every_seat_and_with_several_rule_agents():
    cfg, obs_dim, n_actions = _dims(3)
    pol = LinearPolicy(obs_dim, n_actions, False, seed=1)
    pools = [pol, agents.make("piers"), UniformBatchPolicy(), agents.make("3,17,4")]
    n = 30
    _, deals, agent_seeds = game_seeds(2, n, 3, random_seat=False)
    seat_agents = np.random.default_rng(0).integers(0, 4, (n, 3))
    batch = play_games(pools, seat_agents, deals, agent_seeds, cfg)
    scores, counters, *_ = _run_policy_games(cfg, pools, seat_agents, deals, agent_seeds)
    assert np.array_equal(batch.scores, scores)
    assert np.array_equal(batch.counters, counters)


def test_evaluate_and_the_reference_ruleset_take_the_lockstep_path():
    res = agents.evaluate(UniformBatchPolicy(), mode="mixed", players=(2, 4), games=6, workers=1)
    assert len(res.rows) == 14
    assert np.isfinite(res.mean)
    cfg = HanabiConfig(players=2, scoring="lenient", hand_order="fixed")
    ref = agents.make("piers", ruleset="reference")
    pools = [UniformBatchPolicy(), ref]
    seat_agents, deals, agent_seeds = _mixed(2, 12, seed=3)
    batch = play_games(pools, seat_agents, deals, agent_seeds, cfg)
    scores, counters, *_ = _run_policy_games(cfg, pools, seat_agents, deals, agent_seeds)
    assert np.array_equal(batch.scores, scores)
    assert np.array_equal(batch.counters, counters)


def test_an_illegal_batch_move_is_refused_naming_the_policy():
    class Bad(UniformBatchPolicy):
        def act_batch(self, obs, mask, seats, draws):
            return np.argmin(mask, axis=1)  # an illegal move where one exists

    with pytest.raises(agents.AgentFault, match=r"'bad-policy' \(game \d+, move \d+\) returned"):
        agents.play([Bad(name="bad-policy"), "piers"], games=3)

    class Wrong(UniformBatchPolicy):
        def act_batch(self, obs, mask, seats, draws):
            return np.zeros(len(obs) + 1, dtype=np.int64)

    with pytest.raises(agents.AgentFault, match=r"allowed: \(\d+,\) integer move ids"):
        agents.play([Wrong(), "piers"], games=2)


def test_masked_choice():
    scores = np.array([[0.0, 5.0, 1.0], [0.0, 0.0, 0.0]])
    mask = np.array([[1, 0, 1], [1, 1, 1]], dtype=np.int8)
    assert masked_choice(scores, mask, np.array([0.5, 0.5]), True).tolist() == [2, 0]
    # sampling: the cumulative masked probabilities (uid order) against the draw
    assert masked_choice(scores, mask, np.array([0.0, 0.0]), False).tolist() == [0, 0]
    assert masked_choice(scores, mask, np.array([0.999, 0.999]), False).tolist() == [2, 2]
    assert masked_choice(scores, mask, np.array([0.3, 0.5]), False).tolist() == [2, 1]
    with pytest.raises(ValueError, match="no legal move"):
        masked_choice(scores, np.zeros((2, 3)), np.zeros(2), True)
    with pytest.raises(ValueError, match="do not match"):
        masked_choice(scores, mask[:1], np.zeros(2), True)


def test_uniform_batch_policy_is_uniform_over_legal_moves():
    mask = np.array([[0, 1, 1, 0, 1]] * 3000, dtype=np.int8)
    draws = np.random.default_rng(0).random(3000)
    picks = UniformBatchPolicy().act_batch(None, mask, np.zeros(3000), draws)
    counts = np.bincount(picks, minlength=5)
    assert counts[[0, 3]].sum() == 0
    assert counts[[1, 2, 4]].min() > 900


def test_every_consumer_takes_the_lockstep_path_with_the_same_results():
    """Response tables and the GA's mixed fitness with a batch partner (deterministic and
    sampled) equal the same computation on the per-game path (the partner wrapped as a plain
    Policy, which forces it)."""
    from meta.table import build_table
    from qd.ga import population_fitness
    from tests.helpers import Wrapped

    _, obs_dim, n_actions = _dims(2)
    for deterministic in (True, False):
        neural = LinearPolicy(obs_dim, n_actions, deterministic, seed=3)
        slow = Wrapped(neural)
        rows = [agents.make("piers"), neural]
        fast_t = build_table(
            rows, rows, games=6, seed=2, response_ids=["a", "b"], hypothesis_ids=["a", "b"]
        )
        slow_rows = [agents.make("piers"), slow]
        slow_t = build_table(
            slow_rows,
            slow_rows,
            games=6,
            seed=2,
            response_ids=["a", "b"],
            hypothesis_ids=["a", "b"],
        )
        assert np.array_equal(fast_t.scores, slow_t.scores)
        assert np.array_equal(fast_t.sums, slow_t.sums)
        chromosomes = [[0, 5, 39], [8, 46, 13]]
        kw = {"mode": "mixed", "players": (2,), "games": 5, "seed": 1}
        fast = population_fitness(chromosomes, pool=[neural], **kw)
        assert np.array_equal(fast, population_fitness(chromosomes, pool=[slow], **kw))
