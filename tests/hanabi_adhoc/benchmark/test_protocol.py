"""The benchmark protocol: duplicate deals, rotated seats, episodes, workers, the meta path."""

from __future__ import annotations

import numpy as np
import pytest

from agents import Policy, make
from agents.evaluate import game_seeds
from hanabi_adhoc.benchmark import meta_fast, protocol
from hanabi_adhoc.benchmark.protocol import agent_players, deal_schedule, plan, play_unit
from hanabi_adhoc.benchmark.results import COLUMNS, INDEX_COLUMNS
from hanabi_adhoc.benchmark.suites import load_suite
from hanabi_env.seeding import derive_seed
from tests.hanabi_adhoc.benchmark.helpers import tiny_suite


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return load_suite(tiny_suite(tmp_path_factory.mktemp("suite") / "tiny.json"))


def _same(a, b, counters_exact=True):
    for col in COLUMNS:
        if col in INDEX_COLUMNS or counters_exact:
            assert np.array_equal(a[col], b[col]), col
        else:
            np.testing.assert_allclose(a[col], b[col], rtol=0, atol=1e-9, err_msg=col)


def test_episode_deals_are_the_meta_protocols(suite):
    g = suite.groups[1]
    s = deal_schedule(g, 2)
    for j in range(g.episodes):
        _, deals, seeds = game_seeds(derive_seed(g.seed, 1, j), g.games, 2, False)
        rows = s["episode"] == j
        assert np.array_equal(s["deal"][rows], deals)
        assert np.array_equal(s["seeds"][rows], seeds)
        assert list(s["game"][rows]) == list(range(g.games))


def test_every_partner_and_seat_gets_the_same_deals_and_an_agent_its_own_copy(suite):
    # the agent is the partner itself (same rules, same seat seeds): rotating the seat on a
    # deal gives the same game, so every seat's score equals the self-play score of that deal
    g = suite.groups[0]
    unit = next(u for u in plan([g], [3]) if u.partners)
    piers = make("Piers")
    res = play_unit(piers, unit, partners=[make("Piers"), make("IGGI")])
    selfp = play_unit(piers, next(u for u in plan([g], [3]) if not u.partners))
    d = g.deals
    mine = res["partner"] == 0
    assert mine.sum() == 3 * d
    for seat in range(3):
        rows = mine & (res["seat"] == seat)
        assert np.array_equal(res["score"][rows], selfp["score"])
    assert sorted(set(res["seat"].tolist())) == [0, 1, 2]
    assert np.array_equal(np.bincount(res["partner"]), [3 * d, 3 * d])


@pytest.mark.parametrize("kind", ["rule agent (threads)", "episodic (processes)"])
def test_results_do_not_depend_on_workers(suite, kind):
    units = plan(suite.groups, [2, 3], chunk=2)
    agent = make("Outer", seed=4) if kind.startswith("rule") else GameHooks()
    one = [play_unit(agent, u, workers=1) for u in units]
    two = [play_unit(agent, u, workers=2) for u in units]
    for a, b in zip(one, two, strict=True):
        _same(a, b)


class GameHooks(Policy):
    """An episodic policy without start_episode: records its hook calls; first legal move."""

    name = "hooks"

    def __init__(self):
        self.calls = []

    def start_game(self, partner_id):
        self.calls.append(("game", partner_id))

    def end_game(self, view):
        self.calls.append(("end", int(view.score)))

    def act(self, view):
        return int(view.legal_actions()[0])


class Remembering(GameHooks):
    """Forgets a partner on start_episode (as the meta-agents do)."""

    name = "remembering"

    def start_episode(self, partner_id):
        self.calls.append(("episode", partner_id))


def test_episodic_agents_play_their_episodes_in_order(suite, monkeypatch):
    seen = []
    real = protocol._episodes_task

    def spy(agent, mate, cfg, seat, sched, pid):
        out = real(agent, mate, cfg, seat, sched, pid)
        seen.append((seat, pid))
        return out

    monkeypatch.setattr(protocol, "_episodes_task", spy)
    g = suite.groups[1]
    unit = next(u for u in plan([g], [2]) if u.partners)
    agent = Remembering()
    res = play_unit(agent, unit, workers=1)
    assert agent.calls == []  # the agent played as copies, the original untouched
    assert seen == [(s, f"{g.name}/{p.id}") for p in g.partners for s in (0, 1)]
    assert len(res) == len(g.partners) * 2 * g.deals


@pytest.mark.parametrize("cls", [GameHooks, Remembering])
def test_an_episodic_agent_sees_its_episodes_in_order(suite, cls, monkeypatch):
    g = suite.groups[1]
    sched = deal_schedule(g, 2)
    agent = cls()
    copies = []
    real = protocol.copy.deepcopy

    def record(x):
        y = real(x)
        if isinstance(y, GameHooks):
            copies.append(y)
        return y

    monkeypatch.setattr(protocol.copy, "deepcopy", record)
    protocol._episodes_task(
        agent, make("Piers"), protocol.game_config(g, 2, [agent]), 1, sched, "e"
    )
    games = [("game", "e"), ("end", None)] * g.games
    if cls is Remembering:  # one copy, told when an episode starts
        assert len(copies) == 1
        calls = [(k, None if k == "end" else v) for k, v in copies[0].calls]
        assert calls == ([("episode", "e"), *games]) * g.episodes
    else:  # a fresh copy per episode
        assert len(copies) == g.episodes
        for c in copies:
            assert [(k, None if k == "end" else v) for k, v in c.calls] == games


def test_meta_agent_seat_zero_compiled_equals_the_python_path(suite, monkeypatch):
    from hanabi_adhoc.specs import make_agent

    agent = make_agent("meta", 0, train_games=3, progress=False)
    assert agent_players(agent) == {
        2: None,
        3: agent_players(agent)[3],
        4: agent_players(agent)[4],
        5: agent_players(agent)[5],
    }
    assert [p for p, why in agent_players(agent).items() if why is None] == [2]
    units = [u for u in plan(suite.groups, [2]) if u.partners]
    calls = []
    real = meta_fast._seat0
    monkeypatch.setattr(meta_fast, "_seat0", lambda *a: calls.append(1) or real(*a))
    fast = [play_unit(agent, u) for u in units]
    assert len(calls) == len(units)
    monkeypatch.setattr(meta_fast, "fast_seat0", lambda *a: False)
    slow = [play_unit(agent, u) for u in units]
    for a, b in zip(fast, slow, strict=True):
        _same(a, b, counters_exact=False)  # the kernel and Python sum P(playable) apart


def test_sizes_an_agent_cannot_play_are_found_before_any_game():
    class TwoOnly(Policy):
        def act(self, view):
            if view.n_players != 2:
                raise ValueError("trained for 2 players")
            return int(view.legal_actions()[0])

    ok = agent_players(TwoOnly())
    assert ok[2] is None
    assert ok[3] == "trained for 2 players"
    declared = make("Piers")
    declared.supported_players = (3, 4)
    assert [p for p, w in agent_players(declared).items() if w is None] == [3, 4]


def test_a_schedule_cut_inside_an_episode_takes_the_python_path(suite, monkeypatch):
    """``deals`` shorter than an episode: the seat seeds are not the meta protocol's (they
    depend on the episode's length), so the compiled seat-0 path must not be taken, and the
    unit plays the Python path's games (it raised 'the replayed meta-agent games differ')."""
    from hanabi_adhoc.specs import make_agent

    agent = make_agent("meta", 0, train_games=3, progress=False)
    unit = next(u for u in plan(suite.groups, [2]) if u.partners)
    cut = unit.group.games - 1
    calls = []
    real = meta_fast._seat0
    monkeypatch.setattr(meta_fast, "_seat0", lambda *a: calls.append(1) or real(*a))
    fast = play_unit(agent, unit, deals=cut)
    assert not calls
    monkeypatch.setattr(meta_fast, "fast_seat0", lambda *a: False)
    _same(fast, play_unit(agent, unit, deals=cut))
