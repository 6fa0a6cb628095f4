"""Networks in fixed-slot games: every game loop shows them hands in age order (agents.hand_order).

The lockstep player, the per-game path (``BatchPolicy.act``), ``play_games`` and the benchmark
command: a network plays the same game with fixed slots as in HLE's order.
"""

from __future__ import annotations

import numpy as np
import pytest

from hanabi_env import HanabiGame
from hanabi_env.config import HanabiConfig


def _self_play(policy, order: str, games: int = 24):
    from agents.evaluate import game_seeds, play_games

    cfg = HanabiConfig(players=2, scoring="lenient", hand_order=order)
    _, deals, seeds = game_seeds(11, games, 2, False)
    return play_games([policy], np.zeros((games, 2), dtype=np.int64), deals, seeds, cfg)


def test_a_shipped_partner_plays_the_same_games_with_fixed_slots():
    """Self-play of a deterministic network: the fixed-slot game is the HLE game, card for card."""
    import agents

    partner = agents.make("rl:ppo-sp1")
    hle, fixed = _self_play(partner, "shift"), _self_play(partner, "fixed")
    np.testing.assert_array_equal(fixed.scores, hle.scores)
    assert hle.scores.mean() > 2  # real games, not a degenerate run
    # opting out shows the raw fixed slots: other games
    partner.observation_hand_order = "game"
    raw = _self_play(partner, "fixed")
    assert not np.array_equal(raw.scores, hle.scores)


def test_the_per_game_path_and_the_lockstep_player_agree_with_fixed_slots():
    """A network with a rule agent, fixed slots: play_out (each act) equals the lockstep player."""
    import agents
    from agents.evaluate import game_seeds, play_games
    from agents.policy import play_out

    partner, piers = agents.make("rl:ppo-pool"), agents.make("piers")
    cfg = HanabiConfig(players=2, scoring="lenient", hand_order="fixed")
    n = 6
    _, deals, seeds = game_seeds(5, n, 2, False)
    seat_agents = np.array([[g % 2, 1 - g % 2] for g in range(n)], dtype=np.int64)
    batch = play_games([partner, piers], seat_agents, deals, seeds, cfg, record_actions=True)
    for g in range(n):
        game = HanabiGame(cfg)
        game.reset(int(deals[g]))
        seats = [(partner, piers)[int(k)] for k in seat_agents[g]]
        for p, pol in enumerate(seats):
            pol.reset(int(seeds[g, p]))
        actions = np.full(batch.actions.shape[1], -1, dtype=np.int64)
        play_out(game, seats, actions)
        np.testing.assert_array_equal(actions, batch.actions[g])
        assert game.score == batch.scores[g]


def test_a_bad_observation_hand_order_is_refused_naming_it():
    from agents.batch import UniformBatchPolicy
    from agents.evaluate import game_seeds, play_games

    pol = UniformBatchPolicy()
    pol.observation_hand_order = "newest-first"
    cfg = HanabiConfig(players=2, hand_order="fixed")
    _, deals, seeds = game_seeds(0, 2, 2, False)
    with pytest.raises(ValueError, match=r"observation_hand_order='newest-first'.*'age', 'game'"):
        play_games([pol], np.zeros((2, 2), dtype=np.int64), deals, seeds, cfg)


def test_a_partner_trained_with_fixed_slots_sees_them_and_refuses_hle_order():
    import copy

    import agents
    from agents.rl.partners import RLPartner

    shipped = agents.make("rl:ppo-sp1")
    shipped.check_game(HanabiConfig(players=2, hand_order="fixed"))  # no longer refused
    config = copy.deepcopy(shipped.config)
    config["game"]["hand_order"] = "fixed"
    arrays = [a for w, b in shipped._layers for a in (w.T, b)]
    own = RLPartner(arrays, config)
    assert own.observation_hand_order == "game"
    own.check_game(HanabiConfig(players=2, hand_order="fixed"))
    with pytest.raises(ValueError, match="hand order shift"):
        own.check_game(HanabiConfig(players=2, hand_order="shift"))


def test_benchmark_plays_a_network_on_the_published_suite(tmp_path, capsys):
    """``hanabi-adhoc benchmark rl:ppo-pool --suite published --ruleset reference`` plays."""
    import json

    from hanabi_adhoc.benchmark.suites import load_suites
    from hanabi_adhoc.cli import main

    out = tmp_path / "bench"
    argv = ["benchmark", "rl:ppo-pool", "--suite", "published", "--ruleset", "reference"]
    assert main([*argv, "--deals", "1", "--out", str(out), "--quiet", "--workers", "1"]) == 0
    assert "refuses" not in capsys.readouterr().err
    doc = json.loads((out / "summary.json").read_text())
    (agent,) = doc["agents"]
    assert agent["players"]["2"] == "yes"
    cell = agent["suites"]["published@1"]["all"]
    assert 0.0 < cell["score_mean"]["value"] <= 25.0
    assert cell["units"] == sum(len(g.partners) for g in load_suites(["published"])[0].groups)
