"""Tests of the meta package: offline table, Bayesian meta-agent, evaluation protocol."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from scipy.stats import norm

from agents.evaluate import game_seeds, play_games
from agents.registry import make
from hanabi_env import engine as E
from meta import (
    ALL_VARIANTS,
    TABLE_COLUMNS,
    TTESTS,
    VARIANT_ORDER,
    BayesianMetaAgent,
    ResponseTable,
    Window,
    bayes_update,
    build_table,
    evaluate_meta,
    variant_pairs,
)
from tests.helpers import Wrapped
from tests.meta.helpers import CFG, generalist_games, play_game


def pool():
    return [make("piers"), make("iggi"), make("legalrandom")]


@pytest.fixture(scope="module")
def table():
    return build_table(pool(), pool(), games=12, seed=3)


# ------------------------------------------------------------------------------------ table


def test_table_equals_direct_play(table):
    _, deals, seeds = game_seeds(3, 12, 2, random_seat=False)
    agents = pool()
    for i in range(3):
        for j in range(3):
            b = play_games(
                [agents[i], agents[j]], np.tile([0, 1], (12, 1)), deals, seeds, CFG, workers=1
            )
            assert table.scores[i, j] == pytest.approx(b.scores.mean())
            assert table.sem[i, j] == pytest.approx(b.scores.std(ddof=1) / math.sqrt(12))
            c = b.counters[:, 1].sum(axis=0)
            assert table.communicativeness[i, j] == pytest.approx(
                c[E.C_HINTS_GIVEN] / c[E.C_HINT_OPPORTUNITIES]
            )
            assert table.ipp[i, j] == pytest.approx(c[E.C_SUM_KNOWN_ATTRS] / (2 * c[E.C_PLAYS]))
    assert table.response_ids == ["Piers", "IGGI", "LegalRandom"]


def test_table_generic_path_matches_fast_path(table):
    r = [Wrapped(make("piers")), Wrapped(make("iggi"))]
    h = [make("piers"), make("legalrandom")]
    t = build_table(r, h, games=12, seed=3)
    np.testing.assert_array_equal(t.scores, table.scores[np.ix_([0, 1], [0, 2])])
    np.testing.assert_array_equal(t.ipp, table.ipp[np.ix_([0, 1], [0, 2])])


def test_table_csv_roundtrip_and_resume(tmp_path, table):
    path = tmp_path / "t.csv"
    table.to_csv(path)
    back = ResponseTable.from_csv(path)
    np.testing.assert_array_equal(back.scores, table.scores)
    np.testing.assert_array_equal(back.communicativeness, table.communicativeness)
    # keep only 4 of the 9 pairs, then resume: only the 5 missing pairs are played
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(TABLE_COLUMNS)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(TABLE_COLUMNS))
        w.writeheader()
        w.writerows(rows[:4])
    played = []
    t = build_table(pool(), pool(), games=12, seed=3, path=path, progress=played.append)
    assert sum(played) == 5 * 12
    np.testing.assert_array_equal(t.scores, table.scores)
    np.testing.assert_array_equal(ResponseTable.from_csv(path).sem, table.sem)
    with pytest.raises(ValueError, match="seed"):
        build_table(pool(), pool(), games=12, seed=4, path=path)


def test_table_bad_parameters():
    with pytest.raises(ValueError, match="games"):
        build_table(pool(), pool(), games=0)
    with pytest.raises(ValueError, match="ids"):
        build_table([make("piers"), make("piers")], pool(), games=1)
    with pytest.raises(ValueError, match="scoring"):
        build_table(pool(), pool(), games=1, scoring="x")


def test_generalist_and_oracle_argmax(manual_table):
    t = manual_table([[10, 2, 5], [6, 6, 6], [10, 1, 7]])
    # sums 17, 18, 18: tie between r1 and r2 goes to the first
    assert t.generalist() == 1
    assert t.oracle(0) == 0  # 10 vs 10: first
    assert t.oracle(1) == 1
    assert t.oracle(2) == 2
    assert t.best_response([1.0, 0, 0]) == 0


# ------------------------------------------------------------------------------- bayes update


def test_bayes_update_hand_computed():
    b = np.array([0.5, 0.3, 0.2])
    mc, mi = np.array([0.2, 0.5, 0.8]), np.array([0.4, 0.6, 0.9])
    post, ok = bayes_update(b, 0.45, 0.7, mc, mi, 0.1)
    w = b * norm.pdf(0.45, mc, 0.1) * norm.pdf(0.7, mi, 0.1)
    assert ok
    np.testing.assert_allclose(post, w / w.sum(), rtol=1e-12)


def test_bayes_update_guards():
    b = np.array([0.5, 0.3, 0.2])
    mc, mi = np.array([0.2, 0.5, 0.8]), np.array([0.4, 0.6, 0.9])
    # undefined statistic: its factor is left out
    post, ok = bayes_update(b, math.nan, 0.7, mc, mi)
    w = b * norm.pdf(0.7, mi, 0.1)
    assert ok
    np.testing.assert_allclose(post, w / w.sum(), rtol=1e-12)
    # both undefined: no update
    post, ok = bayes_update(b, math.nan, math.nan, mc, mi)
    assert not ok
    np.testing.assert_array_equal(post, b)
    # all weights zero: keep the belief
    post, ok = bayes_update(np.array([1.0, 0, 0]), 0.5, 0.5, np.array([np.nan, 0.5, 0.5]), mi)
    assert not ok
    np.testing.assert_array_equal(post, [1.0, 0, 0])
    # far from every mean: a direct product underflows, the log-space update does not
    far = np.array([0.0, 0.1, 0.2])
    assert np.all(b * norm.pdf(5.0, far, 0.1) ** 2 == 0)
    post, ok = bayes_update(b, 5.0, 5.0, far, far)
    assert ok
    np.testing.assert_allclose(post, [0, 0, 1], atol=1e-12)
    with pytest.raises(ValueError, match="sigma"):
        bayes_update(b, 0.5, 0.5, mc, mi, sigma=0)


# ------------------------------------------------------------------------------- meta-agent


def test_window_matches_partner_counters_and_resets(table):
    agent = BayesianMetaAgent(table, pool(), variant="adaptive")
    _, deals, seeds = game_seeds(5, 2, 2, random_seat=False)
    game = play_game(agent, make("iggi"), deals[0], seeds[0])
    rec = agent.record("p")
    assert rec.window.moves < game.n_moves - game.n_moves // 2 + 1  # only the partner's moves
    agent.end_game(game.view(0))
    c = game.state.counters[1]
    w = rec.window
    assert (w.hint_opportunities, w.hints, w.plays, w.known_attrs) == (
        c[E.C_HINT_OPPORTUNITIES],
        c[E.C_HINTS_GIVEN],
        c[E.C_PLAYS],
        c[E.C_SUM_KNOWN_ATTRS],
    )
    assert w.games == 1
    comm, ipp = w.communicativeness, w.ipp
    used = agent.response
    assert used == table.generalist()  # the first game of an episode
    # second game: update at the agent's first turn, with the window of game 1
    play_game(agent, make("iggi"), deals[1], seeds[1])
    upd = [h for h in rec.history if h["event"] == "update"]
    assert len(upd) == 1
    w_ = np.full(3, 1 / 3) * norm.pdf(comm, table.communicativeness[used], 0.1)
    w_ = w_ * norm.pdf(ipp, table.ipp[used], 0.1)
    np.testing.assert_allclose(upd[0]["posterior"], w_ / w_.sum(), rtol=1e-10)
    assert upd[0]["response_used"] == used
    assert upd[0]["response"] == table.best_response(w_ / w_.sum())
    assert rec.updates == 1
    # the window restarted at the update: it only holds game 2's partner moves
    assert rec.window.games == 0
    assert 0 < rec.window.moves <= w.moves + 40


def test_generalist_never_updates_and_oracle_is_fixed(table):
    _, deals, seeds = game_seeds(6, 3, 2, random_seat=False)
    gen = BayesianMetaAgent(table, pool(), variant="generalist")
    orc = BayesianMetaAgent(table, pool(), variant="oracle")
    for g in range(3):
        game = play_game(gen, make("piers"), deals[g], seeds[g])
        gen.end_game(game.view(0))
        assert gen.response == table.generalist()
        game = play_game(orc, make("legalrandom"), deals[g], seeds[g], true_type=2)
        orc.end_game(game.view(0))
        assert orc.response == table.oracle(2)
    np.testing.assert_array_equal(gen.belief("p"), np.full(3, 1 / 3))
    assert gen.record("p").updates == 0
    np.testing.assert_array_equal(orc.belief("p"), [0, 0, 1])
    assert orc.record("p").updates == 0
    with pytest.raises(ValueError, match="true_type"):
        orc.start_game("q")


def test_meta_agent_plays_like_its_response_and_is_legal(table):
    """A Generalist meta-agent plays exactly the generalist's games (same seeds)."""
    deals, seeds, _, direct = generalist_games(table, pool())
    agent = BayesianMetaAgent(table, pool(), variant="adaptive")
    for g in range(3):
        game = play_game(agent, make("iggi"), deals[g], seeds[g], end=True)
        if g == 0:
            assert game.score == direct.scores[0]
    gen = BayesianMetaAgent(table, pool(), variant="generalist")
    for g in range(3):
        game = play_game(gen, make("iggi"), deals[g], seeds[g])
        gen.end_game(game.view(0))
        assert game.score == direct.scores[g]


def test_agent_bad_parameters(table):
    for kwargs in ({"variant": "x"}, {"sigma": -1}, {"games_threshold": 0}):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            BayesianMetaAgent(table, pool(), **kwargs)
    with pytest.raises(ValueError, match="responses"):
        BayesianMetaAgent(table, pool()[:2])


def test_window_statistics():
    w = Window()
    assert math.isnan(w.communicativeness)
    assert math.isnan(w.ipp)
    w.hint_opportunities, w.hints, w.plays, w.known_attrs = 4, 1, 2, 3
    assert w.communicativeness == 0.25
    assert w.ipp == 0.75


# ------------------------------------------------------------------------------- evaluation


def test_evaluation_protocol(tmp_path, table):
    ev = evaluate_meta(table, pool(), pool(), episodes=2, games=3, seed=1)
    for v in ("adaptive", "generalist", "oracle", "random"):
        assert ev.scores[v].shape == (3, 2, 3)
        assert ev.beliefs[v].shape == (3, 3, 3)
    # first game of every episode: the generalist's response; generalist never changes
    assert np.all(ev.responses["adaptive"][:, :, 0] == table.generalist())
    assert np.all(ev.responses["generalist"] == table.generalist())
    for e in range(3):
        assert np.all(ev.responses["oracle"][e] == table.oracle(e))
    # generalist and adaptive play identical first games (common random numbers)
    np.testing.assert_array_equal(ev.scores["adaptive"][:, :, 0], ev.scores["generalist"][:, :, 0])
    tt = ev.ttests()
    # every pair of the four variants, [Bayes21]'s headline pairs first
    assert list(tt)[:2] == ["adaptive_vs_generalist", "oracle_vs_adaptive"]
    assert len(tt) == 6
    assert {frozenset(k.split("_vs_")) for k in tt} == {
        frozenset((a, b)) for a in ev.variants for b in ev.variants if a != b
    }
    for key, t in tt.items():
        a, b = key.split("_vs_")
        diff = ev.episode_scores(a).mean() - ev.episode_scores(b).mean()
        assert t["mean_diff"] == pytest.approx(diff)
    s = ev.summary()
    assert s["adaptive"]["n_episodes"] == 6
    ev.to_json(tmp_path / "e.json")
    ev.to_csv(tmp_path / "e.csv")
    doc = json.loads((tmp_path / "e.json").read_text())
    assert "ttests" in doc
    assert "summary" in doc
    with open(tmp_path / "e.csv") as fh:
        assert len(fh.readlines()) == 1 + 4 * 3 * 2 * 3
    # determinism, and independence of the number of workers
    ev2 = evaluate_meta(table, pool(), pool(), episodes=2, games=3, seed=1, workers=2)
    for v in ev.variants:
        np.testing.assert_array_equal(ev.scores[v], ev2.scores[v])
        np.testing.assert_array_equal(ev.responses[v], ev2.responses[v])


def test_evaluation_out_of_distribution_oracle(table):
    partners = [make("cautious")]
    with pytest.raises(ValueError, match="oracle_table"):
        evaluate_meta(table, pool(), partners, episodes=1, games=1)
    ort = build_table(pool(), partners, games=4, seed=3)
    ev = evaluate_meta(
        table, pool(), partners, variants=("oracle",), episodes=1, games=2, oracle_table=ort
    )
    assert np.all(ev.responses["oracle"] == ort.oracle(0))
    with pytest.raises(ValueError, match="episodes"):
        evaluate_meta(table, pool(), pool(), episodes=0)


def test_cli_meta_eval(tmp_path):
    from hanabi_adhoc.cli import main

    rc = main(
        [
            "meta-eval",
            "--responses",
            "baselines:piers,iggi",
            "--partners",
            "baselines:piers,cautious",
            "--train-games",
            "3",
            "--episodes",
            "1",
            "--games",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    assert rc == 0
    doc = json.loads((tmp_path / "evaluation.json").read_text())
    assert set(doc["summary"]) == {"adaptive", "generalist", "oracle", "random"}
    assert (tmp_path / "table.csv").exists()
    assert (tmp_path / "oracle_table.csv").exists()


def test_variant_pairs_orient_and_order_every_pair():
    pairs = variant_pairs(["random", "response-adaptive", "generalist", "adaptive", "oracle"])
    assert pairs[:4] == list(TTESTS)  # the headline pairs first, as [Bayes21] reports them
    assert len(pairs) == 10
    assert len({frozenset(p) for p in pairs}) == 10
    rank = {v: i for i, v in enumerate(VARIANT_ORDER)}
    assert all(rank[a] < rank[b] for a, b in pairs[4:])
    assert set(VARIANT_ORDER) == set(ALL_VARIANTS)
    assert variant_pairs(["generalist", "adaptive"]) == [("adaptive", "generalist")]
    assert variant_pairs(["oracle"]) == []
