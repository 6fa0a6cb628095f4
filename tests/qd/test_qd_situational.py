"""qd.situational: the [CIG18] situational agent, one rule list per group of game sizes."""

from __future__ import annotations

import pytest

from agents.policy import RuleAgent
from hanabi_env import HanabiGame
from qd.situational import SituationalAgent, evaluate_situational, evolve_situational
from tests.qd.helpers import tiny_ga


def test_situational_agent_switches_on_player_count():
    c2 = [8, 13, 27]
    c345 = [2, 8, 38, 34]
    agent = SituationalAgent({2: c2, (3, 4, 5): c345})
    assert agent.for_players(2).chromosome == tuple(c2)
    assert agent.for_players(4).chromosome == tuple(c345)
    with pytest.raises(ValueError, match="repeated"):
        SituationalAgent({2: c2, (2, 3): c345})
    # act() delegates to the right rule list
    for players in (2, 3):
        game = HanabiGame(players=players, scoring="lenient")
        game.reset(5)
        agent.reset(1)
        ref = RuleAgent(c2 if players == 2 else c345, seed=1)
        assert agent.act(game.view(0)) == ref.act(game.view(0))
    back = SituationalAgent.from_dict(agent.as_dict())
    assert back.groups == agent.groups
    res = evaluate_situational(agent, "mirror", (2, 3), games=2, seed=0)
    assert set(res["per_size"]) == {2, 3}


def test_evolve_situational_tiny():
    cfg = tiny_ga(n_rules=20)
    agent, results = evolve_situational(cfg, ((2,), (3,)), progress=False)
    assert len(results) == 2
    assert agent.for_players(3).chromosome == tuple(results[1].best)
