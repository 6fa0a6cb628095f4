"""BAD agents as policies: loading without code or torch, legal play, and one code path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.bad.net import NumpyNet, param_shapes
from agents.bad.policy import (
    FORMAT,
    BADPolicy,
    export_files,
    from_spec,
    shipped_agents,
    shipped_path,
)
from agents.bad.public import Layout
from agents.bad.runner import evaluate
from agents.policy import play_out
from agents.registry import make
from hanabi_env import HanabiGame
from hanabi_env import engine as E
from hanabi_env.config import hle_preset
from hanabi_env.seeding import derive_seed
from tests.helpers import ROOT, run_python


def random_agent(preset: str, learner: str = "bad", seed: int = 0) -> BADPolicy:
    lay = Layout(hle_preset(preset))
    shapes = param_shapes(lay.pub_dim, lay.priv_dim, 24, 2, lay.n_actions)
    rng = np.random.default_rng(seed)
    weights = {k: rng.normal(0, 0.5, s).astype(np.float32) for k, s in shapes.items()}
    meta = {
        "format": FORMAT,
        "version": 1,
        "learner": learner,
        "preset": preset,
        "config": hle_preset(preset).as_dict(),
        "hidden": 24,
        "layers": 2,
    }
    return BADPolicy(weights, meta, name=f"random-{learner}")


@pytest.mark.parametrize("preset", ["Hanabi-Very-Small", "Hanabi-Small"])
@pytest.mark.parametrize(("learner", "sampled"), [("bad", False), ("baseline", False),
                                                  ("bad", True)])  # fmt: skip
def test_policy_plays_as_the_batched_evaluation(preset, learner, sampled):
    """The agent replaying its view's history makes the moves of the trainer's batched path."""
    agent = random_agent(preset, learner)
    agent.sampled = sampled
    scores = evaluate(agent.layout, NumpyNet(agent.net.p), learner == "bad", 10, seed=4,
                      batch=3, sampled=sampled)  # fmt: skip
    game = HanabiGame(agent.config)
    partner = random_agent(preset, learner)  # a second instance: each keeps its own belief
    partner.sampled = sampled
    for i in range(10):
        game.reset(seed=derive_seed(4, i))
        agent.reset(derive_seed(4, i, 1))  # the common seed of the sampled moves
        partner.reset(derive_seed(4, i, 1))
        play_out(game, [agent, partner])
        assert game.score == scores[i], i


def test_evaluation_does_not_depend_on_the_batch():
    agent = random_agent("Hanabi-Small")
    for sampled in (False, True):
        one = evaluate(agent.layout, agent.net, True, 7, seed=1, batch=1, sampled=sampled)
        many = evaluate(agent.layout, agent.net, True, 7, seed=1, batch=4, sampled=sampled)
        np.testing.assert_array_equal(one, many)


def test_policy_is_deterministic_and_resets():
    agent = random_agent("Hanabi-Small", seed=3)
    game = HanabiGame(agent.config)
    runs = []
    for _ in range(2):
        actions = np.full(int(game.state.cfg[E.CFG_MAX_MOVES]), -1)
        game.reset(seed=11)
        agent.reset(seed=5)
        play_out(game, [agent, agent], actions)  # one instance in both seats replays all moves
        runs.append(actions)
    np.testing.assert_array_equal(*runs)
    game.reset(seed=12)  # a new game without reset(): the agent notices and starts over
    play_out(game, [agent, agent])


def test_policy_refuses_another_configuration():
    agent = random_agent("Hanabi-Small")
    game = HanabiGame(players=2)
    game.reset(seed=0)
    with pytest.raises(ValueError, match="Hanabi-Small"):
        agent.act(game.view(0))
    with pytest.raises(TypeError, match="view"):
        agent.act("view")


def test_bad_agent_files_are_checked(tmp_path):
    agent = random_agent("Hanabi-Very-Small")
    with pytest.raises(ValueError, match="format"):
        BADPolicy(agent.net.p, {**agent.meta, "format": "sb3"})
    with pytest.raises(ValueError, match="do not fit"):
        BADPolicy({**agent.net.p, "w2": np.zeros((3, 3))}, agent.meta)
    np.savez(tmp_path / "agent.npz", **agent.net.p)
    (tmp_path / "agent.json").write_text(json.dumps(agent.meta))
    path = export_files(tmp_path, "tiny", tmp_path / "out")
    loaded = from_spec(str(path))
    assert loaded.name == f"bad:{path}"
    with pytest.raises(ValueError, match="name"):
        export_files(tmp_path, "../x", tmp_path / "out")
    with pytest.raises(ValueError, match="no shipped BAD agent"):
        from_spec("no-such-agent")
    with pytest.raises(ValueError, match="no such file"):
        from_spec("missing/agent.json")


def test_shipped_agents_load_without_torch_and_play_legal_moves():
    names = list(shipped_agents())
    assert names, "the package ships trained BAD agents in agents/data/bad"
    code = (
        "import sys, numpy as np\n"
        "from agents.bad.policy import from_spec, shipped_agents\n"
        "from agents.policy import play_out\n"
        "from hanabi_env import HanabiGame\n"
        "for name in shipped_agents():\n"
        "    agent = from_spec(name)\n"
        "    game = HanabiGame(agent.config)\n"
        "    for seed in range(3):\n"
        "        game.reset(seed=seed)\n"
        "        agent.reset()\n"
        "        play_out(game, [agent, agent])\n"  # HanabiGame.step refuses illegal moves
        "assert 'torch' not in sys.modules, 'loading or playing a BAD agent imported torch'\n"
        "print('ok')\n"
    )
    out = run_python(["-c", code], cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_shipped_agents_record_their_provenance():
    for name, meta in shipped_agents().items():
        prov = meta["provenance"]
        for key in ("command", "seed", "commit", "steps", "settings"):
            assert key in prov, (name, key)
        assert meta["scores"]["greedy_self_play"]["games"] > 0
        assert shipped_path(name).with_suffix(".npz").is_file()


def test_shipped_agent_plays_with_rule_agents():
    name = next(iter(shipped_agents()))
    agent = from_spec(name)
    game = HanabiGame(agent.config)
    for seed in range(4):
        game.reset(seed=seed)
        partner = make("piers", seed=seed)
        agent.reset()
        play_out(game, [agent, partner] if seed % 2 else [partner, agent])
        assert game.is_terminal


@pytest.mark.parametrize("preset", ["Hanabi-Very-Small", "Hanabi-Small"])
@pytest.mark.parametrize(("learner", "sampled"), [("bad", False), ("baseline", False),
                                                  ("bad", True)])  # fmt: skip
def test_pools_play_bad_agents_in_lockstep_with_the_per_game_paths_moves(preset, learner, sampled):
    """A BAD agent is a batch policy that reads views: play_games plays it in lockstep (one
    state per game and seat, history replayed in batched rounds) with the per-game path's
    moves, alone (self-play) and with a rule agent."""
    from agents.evaluate import _run_policy_games, game_seeds, play_games

    agent = random_agent(preset, learner, seed=2)
    agent.sampled = sampled
    calls = []
    real = agent.act_batch
    agent.act_batch = lambda *a, **k: calls.append(len(a[0])) or real(*a, **k)  # type: ignore[method-assign]
    cfg = agent.config
    n = 12
    seats, deals, agent_seeds = game_seeds(5, n, 2, random_seat=True)
    mixed = np.ones((n, 2), dtype=np.int64)
    mixed[np.arange(n), seats] = 0
    for pools, seat_agents in (
        ([agent], np.zeros((n, 2), np.int64)),
        ([agent, make("piers")], mixed),
    ):
        batch = play_games(pools, seat_agents, deals, agent_seeds, cfg, record_actions=True)
        scores, _, _, actions = _run_policy_games(cfg, pools, seat_agents, deals, agent_seeds)
        assert np.array_equal(batch.scores, scores)
        assert np.array_equal(batch.actions, actions)
    assert max(calls) > 1
    with pytest.raises(ValueError, match="views and games"):
        random_agent(preset).act_batch(None, None, np.zeros(1), np.zeros(1))
