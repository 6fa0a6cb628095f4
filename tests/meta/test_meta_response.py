"""Tests of the [ToG20] response-table meta-agent, the niche-estimate error and the meta figures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import hanabi_env
from agents.evaluate import game_seeds, play_games
from agents.registry import make
from hanabi_env import engine as E
from meta import (
    MetaEvaluation,
    build_table,
    derive_seed,
    evaluate_meta,
    self_play_measures,
    table_niche_mae,
)
from meta.response import ResponseMetaAgent, niche_of, niche_responses, parse_cell_id
from tests.meta.helpers import CFG, generalist_games, play_game

IDS = ["[0,0]", "[2,3]", "[4,4]"]


def pool():
    return [make("piers"), make("iggi"), make("legalrandom")]


@pytest.fixture(scope="module")
def table():
    return build_table(pool(), pool(), games=12, seed=3, response_ids=IDS, hypothesis_ids=IDS)


# ------------------------------------------------------------------------- niche helpers


def test_parse_cell_id():
    assert parse_cell_id("[1,3]") == (1, 3)
    assert parse_cell_id("runB[0, 4]") == (0, 4)
    assert parse_cell_id("[12,7]") == (12, 7)
    for bad in ("Piers", "[1,3]x", "[a,b]", ""):
        with pytest.raises(ValueError, match="cell_id"):
            parse_cell_id(bad)


def test_niche_of_bins_like_map_elites():
    assert niche_of(0.0, 0.0) == (0, 0)
    assert niche_of(0.2, 0.19999) == (1, 0)  # bin(v) = floor(v * 5)
    assert niche_of(1.0, 0.99) == (4, 4)  # v = 1 goes to the last bin
    assert niche_of(0.5, 0.05, (20, 20)) == (10, 1)
    assert niche_of(math.nan, 0.5) is None
    assert niche_of(0.5, math.nan) is None


def test_niche_responses_argmax_shared_cells_and_empty_niches(manual_table):
    # r0 is best for h0, r1 for h1, r2 for h2; generalist (row sums 13, 14, 12) = r1
    t = manual_table([[9, 2, 2], [1, 9, 4], [0, 3, 9]])
    nt = niche_responses(t, [(0, 0), (1, 1), (4, 4)], (5, 5))
    assert nt.shape == (5, 5)
    assert (nt[0, 0], nt[1, 1], nt[4, 4]) == (0, 1, 2)
    assert nt[0, 4] == t.generalist() == 1  # empty niche -> the generalist (reference fallback)
    near = niche_responses(t, [(0, 0), (1, 1), (4, 4)], (5, 5), empty_niche="nearest")
    assert near[0, 1] == 0  # (0,0) and (1,1) both at distance 1: first in row-major order
    assert near[3, 4] == 2  # nearest is (4,4)
    assert near[2, 2] == 1  # nearest is (1,1)
    # two hypotheses in one niche: argmax of their mean score (r0 5.5, r1 5.0, r2 1.5)
    shared = niche_responses(t, [(2, 2), (2, 2), (4, 4)], (5, 5))
    assert shared[2, 2] == 0
    with pytest.raises(ValueError, match="outside the grid"):
        niche_responses(t, [(0, 0), (1, 1), (5, 0)], (5, 5))
    with pytest.raises(ValueError, match="hypothesis_cells"):
        niche_responses(t, [(0, 0)], (5, 5))
    with pytest.raises(ValueError, match="empty_niche"):
        niche_responses(t, [(0, 0), (1, 1), (4, 4)], empty_niche="x")


# ------------------------------------------------------------------------- the agent


def test_response_generalist_plays_the_generalists_games(table):
    deals, seeds, r, direct = generalist_games(table, pool())
    agent = ResponseMetaAgent(table, pool(), variant="generalist")
    for g in range(3):
        game = play_game(agent, make("iggi"), deals[g], seeds[g], end=True)
        assert game.score == direct.scores[g]
        assert agent.response == r
    assert not [h for h in agent.record("p").history if h["event"] == "switch"]


def test_response_adaptive_estimates_from_cumulative_partner_counters(table):
    agent = ResponseMetaAgent(table, pool(), variant="adaptive", threshold=0)
    assert agent.hypothesis_cells == [(0, 0), (2, 3), (4, 4)]
    _, deals, seeds = game_seeds(5, 3, 2, random_seat=False)
    total = np.zeros(E.N_COUNTERS)
    for g in range(3):
        game = play_game(agent, make("iggi"), deals[g], seeds[g], end=True)
        total += game.state.counters[1]
        rec = agent.record("p")
        w = rec.observed
        assert (w.hint_opportunities, w.hints, w.plays, w.known_attrs) == tuple(
            total[[E.C_HINT_OPPORTUNITIES, E.C_HINTS_GIVEN, E.C_PLAYS, E.C_SUM_KNOWN_ATTRS]]
        )
        assert rec.niche == niche_of(w.communicativeness, w.ipp)
        by = rec.by_response.values()
        assert sum(x.moves for x in by) == w.moves
        assert sum(x.hints for x in by) == w.hints
    hist = agent.record("p").history
    # nothing observed before the first move: the generalist opens the episode
    assert hist[0]["event"] == "game"
    assert hist[0]["response"] == table.generalist()
    # each later game starts with the specialised response of the niche estimated so far
    starts = [h for h in hist if h["event"] == "game"][1:]
    ends = [h for h in hist if h["event"] == "end"][:-1]
    assert len(starts) == len(ends) == 2
    for st, en in zip(starts, ends, strict=True):
        assert st["niche"] == en["niche"]
        want = table.generalist() if en["niche"] is None else agent.niche_table[en["niche"]]
        assert st["response"] == want
    for sw in (h for h in hist if h["event"] == "switch"):
        assert sw["response"] == agent.niche_table[sw["niche"]]
        assert sw["response_from"] != sw["response"]
    agent.start_episode("p")
    with pytest.raises(KeyError):
        agent.record("p")


def test_response_threshold_delays_the_switch(table):
    _, deals, seeds = game_seeds(9, 2, 2, random_seat=False)
    never = ResponseMetaAgent(table, pool(), threshold=None)
    late = ResponseMetaAgent(table, pool(), threshold=10**6)
    gen = ResponseMetaAgent(table, pool(), variant="generalist")
    for g in range(2):
        a = play_game(never, make("legalrandom"), deals[g], seeds[g], end=True)
        b = play_game(late, make("legalrandom"), deals[g], seeds[g], end=True)
        c = play_game(gen, make("legalrandom"), deals[g], seeds[g], end=True)
        assert a.score == b.score == c.score
    assert late.response == table.generalist()
    assert late.record("p").niche is not None  # estimated, but below the threshold


def test_response_oracle_plays_the_niche_response(table):
    _, deals, seeds = game_seeds(6, 2, 2, random_seat=False)
    orc = ResponseMetaAgent(table, pool(), variant="oracle")
    for g in range(2):
        play_game(orc, make("legalrandom"), deals[g], seeds[g], true_niche=(4, 4), end=True)
        assert orc.response == table.oracle(2)
    with pytest.raises(ValueError, match="true_niche"):
        orc.start_game("q")
    with pytest.raises(ValueError, match="true_niche"):
        orc.start_game("q", true_niche=(5, 0))


def test_response_agent_bad_parameters(table):
    with pytest.raises(ValueError, match="variant"):
        ResponseMetaAgent(table, pool(), variant="random")
    with pytest.raises(ValueError, match="threshold"):
        ResponseMetaAgent(table, pool(), threshold=-1)
    with pytest.raises(ValueError, match="responses"):
        ResponseMetaAgent(table, pool()[:2])
    t = build_table(pool()[:1], pool()[:1], games=1)  # ids are names, not cells
    with pytest.raises(ValueError, match="cell_id"):
        ResponseMetaAgent(t, pool()[:1])
    with pytest.raises(RuntimeError, match="start_game"):
        ResponseMetaAgent(table, pool()).reset(0)


def test_response_agent_in_the_aec_env(table):
    agent = ResponseMetaAgent(table, pool(), threshold=0)
    mate = make("iggi")
    env = hanabi_env.env(players=2, scoring="lenient")
    for g in range(2):
        env.reset(options={"deal_seed": 11 + g})
        agent.start_game("p")
        agent.reset(g)
        mate.reset(100 + g)
        for name in env.agent_iter():
            pol = agent if name.endswith("0") else mate
            env.step(pol(env, name))
        agent.end_game(env.unwrapped.view("player_0"))
    rec = agent.record("p")
    assert rec.games == 2
    assert rec.observed.moves > 10


# ------------------------------------------------------------------------- evaluation


@pytest.fixture(scope="module")
def evaluation(table):
    sp = self_play_measures(pool(), games=10, seed=1)
    ev = evaluate_meta(
        table,
        pool(),
        pool(),
        IDS,
        variants=(
            "generalist",
            "oracle",
            "response-adaptive",
            "response-generalist",
            "response-oracle",
        ),
        episodes=2,
        games=3,
        seed=1,
        self_play=sp,
    )
    return ev, sp


def test_evaluation_with_response_variants(evaluation, table):
    ev, _ = evaluation
    for v in ev.variants:
        assert ev.scores[v].shape == (3, 2, 3)
        assert ev.partner_counters[v].shape == (3, 3, 4)
    # same protocol and seeds: the [ToG20] Generalist/Oracle equal the [Bayes21] ones here
    np.testing.assert_array_equal(ev.scores["response-generalist"], ev.scores["generalist"])
    np.testing.assert_array_equal(ev.scores["response-oracle"], ev.scores["oracle"])
    assert np.all(np.isnan(ev.beliefs["response-adaptive"]))
    nich = ev.niches["response-adaptive"]
    assert nich.shape == (3, 2, 3, 2)
    assert nich.min() >= -1
    assert nich.max() <= 4
    assert "generalist" not in ev.niches
    tt = ev.ttests()
    assert "response-adaptive_vs_generalist" in tt


def test_partner_counters_equal_the_games_played(evaluation, table):
    """The Generalist's observed partner counters = the partner's seat counters of its games."""
    ev, _ = evaluation
    r = table.generalist()
    for e in range(3):
        total = np.zeros(E.N_COUNTERS)
        for j in range(2):
            _, deals, seeds = game_seeds(derive_seed(1, 1, j), 3, 2, random_seat=False)
            b = play_games([pool()[r], pool()[e]], np.tile([0, 1], (3, 1)), deals, seeds, CFG)
            total += b.counters[:, 1].sum(axis=0)
        got = ev.partner_counters["generalist"][e]
        assert got[[i for i in range(3) if i != r]].sum() == 0
        np.testing.assert_array_equal(
            got[r],
            total[[E.C_HINT_OPPORTUNITIES, E.C_HINTS_GIVEN, E.C_PLAYS, E.C_SUM_KNOWN_ATTRS]],
        )


def test_self_play_measures_are_mirror_ratios():
    sp = self_play_measures([make("piers"), make("iggi")], games=6, seed=2)
    _, deals, seeds = game_seeds(2, 6, 2, random_seat=False)
    b = play_games([make("iggi")], np.zeros((6, 2), dtype=np.int64), deals, seeds, CFG)
    c = b.counters.sum(axis=(0, 1))
    assert sp.shape == (2, 2)
    assert sp[1, 0] == pytest.approx(c[E.C_HINTS_GIVEN] / c[E.C_HINT_OPPORTUNITIES])
    assert sp[1, 1] == pytest.approx(c[E.C_SUM_KNOWN_ATTRS] / (2 * c[E.C_PLAYS]))
    with pytest.raises(ValueError, match="games"):
        self_play_measures([make("piers")], games=0)


def test_niche_mae_hand_computed():
    ev = MetaEvaluation(["generalist"], ["e0", "e1"], ["h0"], ["r0", "r1"], 1, 1, 0)
    ev.scores["generalist"] = np.zeros((2, 1, 1), dtype=np.int64)
    cnt = np.zeros((2, 2, 4), dtype=np.int64)
    cnt[0, 0] = (10, 5, 4, 4)  # comm 0.5, ipp 0.5
    cnt[0, 1] = (10, 1, 2, 4)  # comm 0.1, ipp 1.0
    cnt[1, 1] = (4, 4, 0, 0)  # comm 1.0, ipp undefined
    ev.partner_counters["generalist"] = cnt
    sp = np.array([[0.3, 0.6], [0.9, 0.2]])
    m = ev.niche_mae(sp)["generalist"]
    assert m["n_pairs"] == 3
    assert m["comm"] == pytest.approx((0.2 + 0.2 + 0.1) / 3)
    assert m["ipp"] == pytest.approx((0.1 + 0.4) / 2)  # the undefined IPP is left out
    pooled = ev.observed_measures("generalist", by_response=False)
    np.testing.assert_allclose(pooled[0], [6 / 20, 8 / 12])
    assert m["comm_pooled"] == pytest.approx((0.0 + 0.1) / 2)
    # niches: (2,2) vs (1,3); (0,4) vs (1,3); (4,nan) -> None vs (4,1): no hit
    assert m["niche_accuracy"] == 0.0
    assert ev.niche_mae() == {}  # no reference stored
    with pytest.raises(ValueError, match="self_play"):
        ev.niche_mae(np.zeros((3, 2)))


def test_table_niche_mae_hand_computed(manual_table):
    t = manual_table(
        np.zeros((2, 2)), comm=[[0.5, 0.1], [0.3, 0.9]], ipp=[[0.5, 0.5], [0.7, 0.2]],
        ids=["r0", "h1"],
    )  # fmt: skip
    sp = np.array([[0.4, 0.5], [0.8, 0.3]])
    m = table_niche_mae(t, sp, exclude_self=False)
    assert m["n_pairs"] == 4
    assert m["comm"] == pytest.approx((0.1 + 0.7 + 0.1 + 0.1) / 4)
    assert m["ipp"] == pytest.approx((0.0 + 0.2 + 0.2 + 0.1) / 4)
    # niches: (2,2)=(2,2) hit; (0,2)≠(4,1); (1,3)≠(2,2); (4,1)=(4,1) hit
    assert m["niche_accuracy"] == pytest.approx(0.5)
    m2 = table_niche_mae(t, sp)  # the pair (r0, r0) is self-play: left out
    assert m2["n_pairs"] == 3


def test_evaluation_json_csv_and_worker_independence(tmp_path, evaluation, table):
    ev, sp = evaluation
    ev.to_json(tmp_path / "e.json")
    doc = json.loads((tmp_path / "e.json").read_text())
    assert set(doc["niche_mae"]) == set(ev.variants)
    assert doc["counter_names"] == ["hint_opportunities", "hints", "plays", "known_attrs"]
    ev.observed_to_csv(tmp_path / "o.csv")
    rows = (tmp_path / "o.csv").read_text().splitlines()
    n_used = sum(int((ev.partner_counters[v].sum(axis=2) > 0).sum()) for v in ev.variants)
    assert len(rows) == 1 + n_used
    ev.to_csv(tmp_path / "g.csv")
    back = MetaEvaluation.load(tmp_path / "e.json", tmp_path / "g.csv")
    for v in ev.variants:
        np.testing.assert_array_equal(back.scores[v], ev.scores[v])
        np.testing.assert_array_equal(back.responses[v], ev.responses[v])
        np.testing.assert_array_equal(back.partner_counters[v], ev.partner_counters[v])
        np.testing.assert_array_equal(back.beliefs[v], ev.beliefs[v])
    np.testing.assert_array_equal(back.niches["response-adaptive"], ev.niches["response-adaptive"])
    assert back.niche_mae() == ev.niche_mae()
    ev2 = evaluate_meta(
        table, pool(), pool(), IDS, variants=("response-adaptive",), episodes=2, games=3, seed=1,
        workers=2, self_play=sp,
    )  # fmt: skip
    np.testing.assert_array_equal(ev2.scores["response-adaptive"], ev.scores["response-adaptive"])
    np.testing.assert_array_equal(
        ev2.partner_counters["response-adaptive"], ev.partner_counters["response-adaptive"]
    )
    with pytest.raises(ValueError, match="partner_cells"):
        evaluate_meta(table, pool(), pool(), ["a", "b", "c"], variants=("response-oracle",))
    with pytest.raises(ValueError, match="variants"):
        evaluate_meta(table, pool(), pool(), IDS, variants=("response-x",))
    with pytest.raises(ValueError, match="self_play"):
        evaluate_meta(table, pool(), pool(), IDS, variants=("generalist",), self_play=sp[:2])


# ------------------------------------------------------------------------- figures and CLI


def test_figures(tmp_path, table):
    from meta.plot import (
        plot_belief_evolution,
        plot_belief_grid,
        plot_niche_estimates,
        plot_variant_scores,
    )

    sp = self_play_measures(pool(), games=4)
    ev = evaluate_meta(
        table, pool(), pool(), IDS, variants=("adaptive", "response-adaptive"), episodes=1,
        games=3, seed=2, self_play=sp,
    )  # fmt: skip
    png = b"\x89PNG"
    for path in (
        plot_belief_evolution(ev, tmp_path / "b.png", partner="[2,3]"),
        plot_belief_grid(ev, tmp_path / "g.png", partner=1),
        plot_variant_scores({"A": ev, "B": ev}, tmp_path / "s.png"),
        plot_niche_estimates(ev, tmp_path / "n.png", variant="response-adaptive"),
    ):
        assert path.read_bytes()[:4] == png
    with pytest.raises(ValueError, match="variant"):
        plot_belief_evolution(ev, tmp_path / "x.png", variant="response-adaptive")
    with pytest.raises(ValueError, match="partner"):
        plot_belief_evolution(ev, tmp_path / "x.png", partner="nobody")


def test_cli_meta_eval_response_variants_and_figures(tmp_path):
    from hanabi_adhoc.cli import main

    rc = main(
        [
            "meta-eval",
            "--responses", "5x5",
            "--partners", "5x5",
            "--train-games", "1",
            "--episodes", "1",
            "--games", "1",
            "--self-play-games", "2",
            "--variants", "adaptive,generalist,response-adaptive",
            "--figures", str(tmp_path / "fig"),
            "--out", str(tmp_path),
        ]
    )  # fmt: skip
    assert rc == 0
    doc = json.loads((tmp_path / "evaluation.json").read_text())
    assert set(doc["summary"]) == {"adaptive", "generalist", "response-adaptive"}
    assert set(doc["niche_mae"]) == {"adaptive", "generalist", "response-adaptive"}
    assert len(doc["partner_ids"]) == 22
    for name in ("variant_scores", "belief", "belief_grid", "niche"):
        assert (tmp_path / "fig" / f"{name}.png").exists()
    assert (tmp_path / "observed.csv").exists()
