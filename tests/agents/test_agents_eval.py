"""Policies, the compiled evaluator, mirror/mixed evaluation, beliefs and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hanabi_env
from agents import beliefs
from agents.evaluate import evaluate, game_seeds, play, play_games
from agents.policy import RuleAgent, rule_ids
from agents.registry import make
from agents.rulebase import BASELINES, N_RULE_IDS, TEST_POOL
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from tests.helpers import Wrapped

CHROMOSOME = [67, 103, 7, 35, 101, 52, 77, 53, 16, 28, 23, 27, 37, 43, 101]  # NYUGameLab 2p


def _aec_actions(policies, players, deal_seed, agent_seeds, hand_size, hand_order="shift"):
    """Play one game through env() with the given policies; return its move list."""
    env = hanabi_env.env(
        players=players, hand_size=hand_size, scoring="lenient", hand_order=hand_order
    )
    env.reset(options={"deal_seed": int(deal_seed)})
    for i, pol in enumerate(policies):
        pol.reset(int(agent_seeds[i]))
    moves = []
    for agent in env.agent_iter():
        action = policies[int(agent.split("_")[1])](env, agent)
        if action is not None:
            moves.append(action)
        env.step(action)
    return moves, env.unwrapped.game.score


@pytest.mark.parametrize(
    ("players", "hand_order"),
    [(2, "shift"), (3, "shift"), (4, "shift"), (5, "shift"), (3, "fixed"), (4, "fixed")],
)
def test_aec_and_compiled_evaluator_are_move_for_move_identical(players, hand_order):
    hand = 5 if players <= 3 else 4
    names = ["piers", "internal", "legalrandom", "vandenbergh", "flawed", "outer", "iggi"]
    # "dups" repeats rules, randomised ones included (the evaluator drops the repeats)
    dups = RuleAgent([8, 22, 46, 8, 13, 22, 34, 27, 34, 38], name="dups")
    pool = [make(n) for n in names] + [RuleAgent(CHROMOSOME, name="nyu"), dups]
    games = 6
    _, deals, agent_seeds = game_seeds(7, games, players, random_seat=False)
    rng = np.random.default_rng(players)
    seat_agents = rng.integers(0, len(pool), (games, players))
    cfg = HanabiConfig(players=players, hand_size=hand, scoring="lenient", hand_order=hand_order)
    batch = play_games(pool, seat_agents, deals, agent_seeds, cfg, workers=1, record_actions=True)
    for g in range(games):
        seated = [RuleAgent(pool[a].rules, name=pool[a].name) for a in seat_agents[g]]
        moves, score = _aec_actions(seated, players, deals[g], agent_seeds[g], hand, hand_order)
        recorded = batch.actions[g][batch.actions[g] >= 0].tolist()
        assert moves == recorded
        assert score == batch.scores[g]


def test_generic_policy_path_matches_compiled_path():
    cfg = HanabiConfig(players=3, scoring="strict")
    _, deals, seeds = game_seeds(3, 8, 3, random_seat=False)
    seats = np.tile([0, 1, 0], (8, 1))
    fast = play_games([make("piers"), make("iggi")], seats, deals, seeds, cfg, record_actions=True)
    slow = play_games(
        [Wrapped(make("piers")), Wrapped(make("iggi"))],
        seats,
        deals,
        seeds,
        cfg,
        record_actions=True,
    )
    np.testing.assert_array_equal(fast.scores, slow.scores)
    np.testing.assert_array_equal(fast.actions, slow.actions)
    np.testing.assert_allclose(fast.counters, slow.counters)


def test_results_do_not_depend_on_worker_count():
    kwargs = {"mode": "mixed", "players": (2, 4), "games": 30, "pool": ("piers", "iggi")}
    one = evaluate("outer", workers=1, seed=11, **kwargs)
    two = evaluate("outer", workers=2, seed=11, **kwargs)
    assert one.rows == two.rows
    assert one.mean == two.mean


def test_common_random_numbers_same_deals_for_every_individual():
    s1, d1, a1 = game_seeds(5, 50, 3, random_seat=True)
    s2, d2, a2 = game_seeds(5, 50, 3, random_seat=True)
    np.testing.assert_array_equal(d1, d2)
    np.testing.assert_array_equal(s1, s2)
    np.testing.assert_array_equal(a1, a2)
    assert set(np.unique(s1)) == {0, 1, 2}
    _, d3, _ = game_seeds(6, 50, 3, random_seat=True)
    assert not np.array_equal(d1, d3)


def test_mirror_result_structure_and_metrics():
    r = evaluate("piers", mode="mirror", players=(2, 3), games=40, workers=1)
    assert [row["players"] for row in r.rows] == [2, 3]
    assert all(row["partner"] == "self" for row in r.rows)
    sizes = r.per_size()
    assert set(sizes) == {2, 3}
    assert r.mean == pytest.approx(np.mean([sizes[2][0], sizes[3][0]]))
    assert 0 < r.metrics["communicativeness"] < 1
    assert 0 < r.metrics["ipp"] <= 1
    assert 10 < r.mean < 22  # Piers mirror is ~17 (docs/rules.md §11)
    json.dumps(r.to_dict())


def test_mixed_uses_the_pool_and_random_seats():
    r = evaluate("iggi", mode="mixed", players=(2,), games=20, pool=TEST_POOL, workers=1)
    assert [row["partner"] for row in r.rows] == list(TEST_POOL)
    assert r.mean == pytest.approx(np.mean([row["mean"] for row in r.rows]))


def test_legal_random_is_weak_and_piers_strong_in_mirror():
    lr = evaluate("legalrandom", players=(2,), games=60, workers=1)
    piers = evaluate("piers", players=(2,), games=60, workers=1)
    assert lr.mean < 4 < 14 < piers.mean


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mode": "duel"}, "mode"),
        ({"players": (1, 2)}, "players"),
        ({"players": ()}, "players"),
        ({"games": 0}, "games"),
        ({"scoring": "soft"}, "scoring"),
    ],
)
def test_evaluate_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        evaluate("piers", **kwargs)


def test_make_and_rule_ids():
    for name in BASELINES:
        assert make(name).chromosome == BASELINES[name]
    assert make("Van den Bergh").name == "VanDenBergh"
    assert make("legal_random").chromosome == (39,)
    with pytest.raises(ValueError, match="unknown agent"):
        make("hal9000")
    assert rule_ids(["PlaySafeCard", 39, "TellUnambiguous3(1-10)", "X1"]).tolist() == [
        8,
        39,
        77,
        105,
    ]
    with pytest.raises(ValueError, match="out of range"):
        rule_ids([N_RULE_IDS])
    with pytest.raises(ValueError, match="unknown rule"):
        rule_ids(["PlayEverything"])
    with pytest.raises(TypeError):
        rule_ids([1.5])
    with pytest.raises(ValueError, match="at least one"):
        RuleAgent([])


def test_policy_plugs_into_a_plain_pettingzoo_loop_in_one_line():
    env = hanabi_env.env(players=3, scoring="lenient")
    env.reset(seed=2)
    policies = {a: make("piers", seed=i) for i, a in enumerate(env.possible_agents)}
    dead_steps = 0
    for agent in env.agent_iter():
        action = policies[agent](env, agent)
        dead_steps += action is None
        env.step(action)
    assert dead_steps == 3
    assert not env.agents


def _mid_game_view(seed=3, moves=12, players=2):
    game = hanabi_env.HanabiGame(players=players)
    game.reset(seed)
    piers = make("piers")
    for _ in range(moves):
        game.step(piers.act(game.view(game.current_player)))
    return game


def test_own_probabilities_match_the_definition_and_never_exclude_the_true_card():
    game = _mid_game_view()
    seat = game.current_player
    view = game.view(seat)
    cand = beliefs.candidate_counts(view)
    for k in range(int(view.hand_lengths[seat])):
        true_card = E.card_of(game.state, seat, k)
        assert cand[k, true_card] > 0
    probs = beliefs.own_probabilities(view)
    props = beliefs.card_properties(view)
    k = 0
    expected = cand[k][props["playable"]].sum() / cand[k].sum()
    assert probs["playable"][k] == pytest.approx(expected)
    assert np.all((probs["useless"] >= 0) & (probs["useless"] <= 1))


def test_partner_perspective_counts_the_tellers_hand_as_unseen():
    game = _mid_game_view(players=3)
    view = game.view(0)
    own = beliefs.unseen_counts(view)
    for_1 = beliefs.unseen_counts(view, also_hand_of=1)
    cards_1 = view.hands[1][view.hands[1] >= 0]
    assert for_1.sum() == own.sum() + len(cards_1)
    p = beliefs.partner_probabilities(view, 1)
    assert p["playable"].shape == (view.hand_size,)
    with pytest.raises(ValueError, match="target"):
        beliefs.partner_probabilities(view, 0)


def test_v0_and_v1_beliefs():
    game = _mid_game_view(moves=20)
    seat = game.current_player
    view = game.view(seat)
    v0 = beliefs.v0_belief(view)
    v1 = beliefs.v1_belief(view, iterations=5)
    n = int(view.hand_lengths[seat])
    np.testing.assert_allclose(v0[:n].sum(axis=1), 1.0)
    np.testing.assert_allclose(v1[:n].sum(axis=1), 1.0)
    assert np.all(v0[n:] == 0)
    for k in range(n):
        assert v0[k, E.card_of(game.state, seat, k)] > 0
    np.testing.assert_allclose(beliefs.v1_belief(view, iterations=0), v0)
    # V1 is self-consistent: expected copies held across slots never exceed the unseen counts
    # by more than V0 does
    counts = beliefs.unseen_counts(view)
    assert np.maximum(v1.sum(0) - counts, 0).sum() <= np.maximum(v0.sum(0) - counts, 0).sum() + 1e-9
    with pytest.raises(ValueError, match="iterations"):
        beliefs.v1_belief(view, iterations=-1)


def test_cli_evaluate_table_and_json(tmp_path, capsys):
    from hanabi_adhoc.cli import main

    out = tmp_path / "r.json"
    code = main(
        [
            "evaluate",
            "piers",
            "--games",
            "10",
            "--players",
            "2",
            "--quiet",
            "--workers",
            "1",
            "--json",
            str(out),
            "--csv",
            str(tmp_path / "r.csv"),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "overall" in text
    assert "piers".lower() in text.lower()
    data = json.loads(out.read_text())
    assert data["mode"] == "mirror"
    assert (tmp_path / "r.csv").read_text().startswith("partner,players")
    assert main(["evaluate", "nobody", "--games", "1", "--quiet"]) == 2


def test_play_helper_scores_and_seat_metrics():
    batch = play(["piers", make("iggi")], games=12, seed=4, scoring="lenient")
    assert batch.scores.shape == (12,)
    m = batch.seat_metrics()
    assert m["communicativeness"].shape == (12, 2)
    assert np.all((m["communicativeness"] >= 0) & (m["communicativeness"] <= 1))
    again = play(["piers", "iggi"], games=12, seed=4, scoring="lenient")
    np.testing.assert_array_equal(batch.scores, again.scores)
    with pytest.raises(ValueError, match="policies"):
        play(["piers"])


def test_strict_era_emulation_ends_the_game_when_no_rule_fires():
    # PlayFinesse (0) never fires with 2 players (docs/rules.md §3.1)
    never = RuleAgent([0], name="finesse-only")
    cfg = HanabiConfig(players=2, scoring="lenient")
    _, deals, seeds = game_seeds(0, 10, 2, random_seat=False)
    seats = np.zeros((10, 2), dtype=np.int64)
    ended = play_games([never], seats, deals, seeds, cfg, no_rule="end_game")
    assert ended.moves == 0
    assert np.all(ended.scores == 0)
    fallback = play_games([never], seats, deals, seeds, cfg)
    assert fallback.moves > 0
    # agents whose rules always fire are unaffected
    piers_a = play_games([make("piers")], seats, deals, seeds, cfg, no_rule="end_game")
    piers_b = play_games([make("piers")], seats, deals, seeds, cfg)
    np.testing.assert_array_equal(piers_a.scores, piers_b.scores)
    with pytest.raises(ValueError, match="no_rule"):
        play_games([never], seats, deals, seeds, cfg, no_rule="crash")


def test_strict_era_games_end_when_a_java_rule_raises():
    # X5 raises where Piers' IF(I<4) TellDispensable read an empty slot in the early Java code
    # (a gap in another hand once the deck is empty): the strict-era game ends right there
    from agents.rulebase import RULE_X5

    piers = BASELINES["Piers"]
    java = RuleAgent([RULE_X5 if r == 48 else r for r in piers], name="piers-java")
    cfg = HanabiConfig(players=2, scoring="lenient")
    n = 150
    _, deals, seeds = game_seeds(5, n, 2, random_seat=False)
    seats = np.zeros((n, 2), dtype=np.int64)
    kw = {"no_rule": "end_game", "record_actions": True}
    ours = play_games([RuleAgent(piers)], seats, deals, seeds, cfg, **kw)
    ended = play_games([java], seats, deals, seeds, cfg, **kw)
    n_ours = (ours.actions >= 0).sum(axis=1)
    n_ended = (ended.actions >= 0).sum(axis=1)
    assert np.all(n_ended <= n_ours)
    assert np.any(n_ended < n_ours)  # some games reach a gap on a TellDispensable turn
    for g in range(n):  # same moves up to the raise, and a raise only in the final round
        np.testing.assert_array_equal(ended.actions[g, : n_ended[g]], ours.actions[g, : n_ended[g]])
        assert n_ended[g] == n_ours[g] or n_ours[g] - n_ended[g] < cfg.players
    assert np.all(ended.scores <= ours.scores)
    # after 2020-11-16 the reference took a random legal move instead: the game goes on
    fallback = play_games([java], seats, deals, seeds, cfg, record_actions=True)
    n_fallback = (fallback.actions >= 0).sum(axis=1)
    raised = n_ended < n_ours
    assert np.all(n_fallback[raised] > n_ended[raised])


def test_metric_ratios_agree_with_the_per_step_scalar_metrics():
    from hanabi_env.metrics import info_metrics, metric_ratios

    batch = play(["piers", "legalrandom"], games=8, seed=9)
    vec = metric_ratios(batch.counters)
    batched = info_metrics(batch.counters)  # the vectorised infos of every game and seat
    for g in range(8):
        for seat in range(2):
            scalar = info_metrics(batch.counters[g, seat])
            for key in ("communicativeness", "ipp", "risk_aversion"):
                defined = scalar[f"{key}_defined"]
                expected = scalar[key] if defined else np.nan
                np.testing.assert_allclose(vec[key][g, seat], expected)
                assert batched[key][g, seat] == scalar[key]
                assert batched[f"{key}_defined"][g, seat] == defined
            for key, value in scalar.items():
                assert batched[key][g, seat] == value, key
    empty = metric_ratios(np.zeros(E.N_COUNTERS))
    assert all(np.isnan(float(v)) for v in empty.values())
