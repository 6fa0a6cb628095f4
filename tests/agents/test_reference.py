"""``ruleset="reference"``: argument checks, agent lists, game ends, evaluator plumbing, binning.

The move-for-move agreement with the Java reference is tested in
``tests/agents/test_reference_traces.py``; these are the fast unit tests of the API around it.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pytest

from agents.evaluate import evaluate, game_seeds, play_games
from agents.policy import Policy, ReferenceGameEnd, RuleAgent
from agents.reference import (
    CIG18_POOL,
    REFERENCE_BASELINES,
    RULE_DPU_1,
    reference_bin,
    to_java_card,
)
from agents.registry import make
from agents.rules import reference as RRef
from hanabi_env import HanabiConfig, HanabiGame
from qd.measures import bin_index
from tests.agents import reference_replay as RR

# a chromosome agent (HistogramAgent): NYUGameLab's 2-player chromosome
CHROMOSOME = [67, 103, 7, 35, 101, 52, 77, 53, 16, 28, 23, 27, 37, 43, 101]


# --------------------------------------------------------------------------------------------
# RuleAgent and make
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"ruleset": "java"}, "ruleset"),
        ({"ruleset": "Reference"}, "ruleset"),
        ({"wrapper": "histogram"}, "wrapper"),  # a wrapper with the corrected ruleset
        ({"ruleset": "corrected", "wrapper": "production"}, "wrapper"),
        ({"ruleset": "reference", "wrapper": "agent"}, "wrapper"),
        ({"ruleset": "reference", "wrapper": ""}, "wrapper"),
    ],
)
def test_rule_agent_rejects_bad_ruleset_and_wrapper(kwargs, parameter):
    with pytest.raises(ValueError, match=parameter):
        RuleAgent([8, 13], **kwargs)


def test_rule_agent_ruleset_defaults_and_modes():
    assert RuleAgent([8]).wrapper is None
    assert RuleAgent([8]).mode == RRef.MODE_FALLBACK
    ref = RuleAgent([8], ruleset="reference")
    assert ref.wrapper == "histogram", "a reference agent is a HistogramAgent by default"
    assert ref.mode == RRef.MODE_HISTOGRAM
    prod = RuleAgent([8], ruleset="reference", wrapper="production")
    assert prod.mode == RRef.MODE_PRODUCTION
    # the reference-only rule (DiscardProbablyUselessCard(1.0)) exists in that ruleset only
    assert RuleAgent([RULE_DPU_1], ruleset="reference").chromosome == (RULE_DPU_1,)
    with pytest.raises(ValueError, match="out of range"):
        RuleAgent([RULE_DPU_1])


@pytest.mark.parametrize("name", list(REFERENCE_BASELINES))
def test_make_reference_gives_the_registered_lists_as_production_agents(name):
    for spelling in (name, name.lower(), name.upper()):
        agent = make(spelling, ruleset="reference")
        assert agent.chromosome == tuple(REFERENCE_BASELINES[name]), spelling
        assert agent.ruleset == "reference"
        assert agent.wrapper == "production", "baselines ran as ProductionRuleAgents"
        assert agent.mode == RRef.MODE_PRODUCTION
        assert agent.name == name


@pytest.mark.parametrize("name", list(CIG18_POOL))
def test_make_cig18_gives_the_2018_pool(name):
    agent = make(name.lower(), preset="cig18")
    assert agent.chromosome == tuple(CIG18_POOL[name])
    assert agent.ruleset == "reference", "the preset implies the reference ruleset"
    assert agent.wrapper == "production"
    assert agent.name == name


def test_make_cig18_iggi_and_its_errors():
    iggi = make("iggi", preset="cig18")
    assert iggi.chromosome == tuple(CIG18_POOL["IGGI"])
    # the preset wins over an explicit ruleset: the 2018 agents are reference agents
    assert make("iggi", ruleset="corrected", preset="cig18").ruleset == "reference"
    # the 2018 pool differs from the registered list where docs/rules.md §12.3 says
    assert make("internal", preset="cig18").chromosome != REFERENCE_BASELINES["Internal"]
    with pytest.raises(ValueError, match="unknown agent"):
        make("cautious", preset="cig18")  # not in the 2018 pool
    with pytest.raises(ValueError, match="preset"):
        make("iggi", preset="cig19")
    with pytest.raises(ValueError, match="ruleset"):
        make("iggi", ruleset="java")


# --------------------------------------------------------------------------------------------
# fixed hand slots
# --------------------------------------------------------------------------------------------


def test_reference_agent_refuses_a_shifting_hand():
    agent = make("piers", ruleset="reference")
    game = HanabiGame(HanabiConfig(players=2, hand_size=5, hand_order="shift"))
    game.reset(3)
    with pytest.raises(ValueError, match="hand_order"):
        agent.act(game.view(game.current_player))
    # the same agent in a fixed-slot game decides
    fixed = HanabiGame(HanabiConfig(players=2, hand_size=5, hand_order="fixed"))
    fixed.reset(3)
    assert fixed.legal_mask()[agent.act(fixed.view(fixed.current_player))]


def test_play_games_refuses_reference_agents_with_a_shifting_hand():
    agents = [make("piers", ruleset="reference"), RuleAgent(CHROMOSOME, ruleset="reference")]
    _, deals, seeds = game_seeds(1, 4, 2, random_seat=False)
    seats = np.zeros((4, 2), dtype=np.int64)
    cfg = HanabiConfig(players=2, hand_size=5, hand_order="shift")
    for policies in (agents, [agents[1], make("piers")]):  # also mixed with a corrected agent
        with pytest.raises(ValueError, match="hand_order"):
            play_games(policies, seats, deals, seeds, cfg)


def test_evaluate_refuses_reference_agents_with_a_shifting_hand():
    with pytest.raises(ValueError, match="hand_order"):
        evaluate("piers", games=2, ruleset="reference", hand_order="shift", workers=1)
    with pytest.raises(ValueError, match="hand_order"):
        evaluate(RuleAgent(CHROMOSOME, ruleset="reference"), games=2, hand_order="shift", workers=1)
    with pytest.raises(ValueError, match="hand_order"):  # a reference partner is enough
        evaluate(
            "piers",
            mode="mixed",
            pool=[make("iggi", ruleset="reference")],
            games=2,
            hand_order="shift",
            workers=1,
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"mode": "mirror"}, "mixed"), ({"mode": "mixed", "scoring": "strict"}, "lenient")],
)
def test_evaluate_cig18_needs_mixed_lenient(kwargs, match):
    with pytest.raises(ValueError, match=match):
        evaluate("piers", preset="cig18", games=2, workers=1, **kwargs)


# --------------------------------------------------------------------------------------------
# a game ended by the reference (from the recorded Java games)
# --------------------------------------------------------------------------------------------

RR_COUNTERS = (  # the recorded counters, in the order of our first seven counter columns
    "possible_hints",
    "hints_given",
    "plays",
    "known_attrs_on_plays",
    "playability_sum",
    "discards",
    "discard_slot_sum",
)
END_OF = {"null-action": RRef.END_NULL, "legality-check-raised": RRef.END_REJECTED}


def _ended_game(label: str = "rule78") -> tuple[dict, dict]:
    """The first deterministic game of single-rule job ``label`` that the reference ended on a
    null move or a rejected tell (rules 78-82 tell a colour they do not have: the runner's
    legality check throws)."""
    for job, games in RR.load("single_rules"):
        if job["label"] != label:
            continue
        for game in games:
            if not game["random_fired"] and game["end"].split(":")[0] in END_OF:
                return job, game
    raise AssertionError(f"no game of {label} ended on a null or rejected move")


def test_reference_game_end_from_a_recorded_game():
    job, game = _ended_game()
    code = END_OF[game["end"].split(":")[0]]
    last = game["moves"][-1]
    # the recorded last move: not applied, given by the chromosome's first rule (rule 78)
    assert last[7] & (RR.F_NULL | RR.F_LEGALITY_RAISED), last
    assert job["chromosome"][last[4]] == 78, (job["chromosome"], last)

    played = RR.play_recorded_deal(job, game)
    assert played.moves == RR.recorded_moves(game)
    assert len(played.moves) == game["java_moves"], "the game ends at the recorded move count"
    assert played.ended_by == code
    assert played.score == game["score"]
    java = np.array([[m[k] for k in RR_COUNTERS] for m in game["metrics"]], dtype=float)
    np.testing.assert_allclose(played.counters[:, : len(RR_COUNTERS)], java, atol=1e-8)

    # the agent itself raises ReferenceGameEnd on that turn (histogram wrapper: the first rule
    # that fires gives the move even when the move is unusable)
    n, h = game["players"], game["hand_size"]
    g = HanabiGame(HanabiConfig(players=n, hand_size=h, scoring="lenient", hand_order="fixed"))
    g.reset_with_deck([to_java_card(c) for c in game["deck"]], 0)
    agents = [RuleAgent(job["chromosome"], seed=p, ruleset="reference") for p in range(n)]
    for _ in range(game["java_moves"]):
        g.step(agents[g.current_player].act(g.view(g.current_player)))
    with pytest.raises(ReferenceGameEnd) as end:
        agents[g.current_player].act(g.view(g.current_player))
    assert end.value.code == code
    assert g.n_moves == game["java_moves"]
    assert not g.is_terminal, "the engine does not end the game by itself"


# --------------------------------------------------------------------------------------------
# the compiled evaluator with reference agents
# --------------------------------------------------------------------------------------------


def _reference_pool() -> list[RuleAgent]:
    return [
        make("piers", ruleset="reference"),
        make("vandenbergh", preset="cig18"),  # the reference-only rule 111
        RuleAgent(CHROMOSOME, ruleset="reference", name="nyu"),
        # rule 78 first: games end on its colourless tells
        RuleAgent([78, 8, 13, 27, 19], ruleset="reference", name="r78"),
        make("legalrandom", ruleset="reference"),
    ]


def test_play_games_with_reference_agents_does_not_depend_on_workers():
    pool = _reference_pool()
    games, players = 40, 3
    _, deals, seeds = game_seeds(11, games, players, random_seat=False)
    seats = np.random.default_rng(11).integers(0, len(pool), (games, players))
    cfg = HanabiConfig(players=players, hand_size=5, hand_order="fixed")
    one = play_games(pool, seats, deals, seeds, cfg, workers=1, chunk_size=8, record_actions=True)
    two = play_games(pool, seats, deals, seeds, cfg, workers=2, chunk_size=8, record_actions=True)
    np.testing.assert_array_equal(one.scores, two.scores)
    np.testing.assert_array_equal(one.counters, two.counters)
    np.testing.assert_array_equal(one.actions, two.actions)
    assert one.moves == two.moves


class _Delegate(Policy):
    """A rule agent behind the generic Policy interface: play_games then steps the game in
    Python (``RuleAgent.act``, ``ReferenceGameEnd``) instead of the compiled kernel."""

    ends: ClassVar[
        list[int]
    ] = []  # the END codes raised (play_games plays in this process: workers=1)

    def __init__(self, inner: RuleAgent):
        self.inner = inner
        self.name = inner.name

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, view):
        try:
            return self.inner.act(view)
        except ReferenceGameEnd as end:
            _Delegate.ends.append(end.code)
            raise


@pytest.mark.parametrize("players", [2, 4])
def test_reference_and_corrected_agents_share_a_game(players):
    ref = [
        make("piers", ruleset="reference"),
        RuleAgent([78, 8, 13, 27, 19], ruleset="reference", name="r78"),
        # a repeated rule: the kernel drops repeats, the Python path does not
        RuleAgent([*CHROMOSOME, 67, 7], ruleset="reference", name="nyu+"),
    ]
    corrected = [make("piers"), make("iggi"), RuleAgent(CHROMOSOME, name="nyu")]
    pool = ref + corrected
    assert {p.mode for p in pool} == {
        RRef.MODE_PRODUCTION,
        RRef.MODE_HISTOGRAM,
        RRef.MODE_FALLBACK,
    }
    games = 30
    _, deals, seeds = game_seeds(5, games, players, random_seat=False)
    rng = np.random.default_rng(players)
    seats = rng.integers(0, len(pool), (games, players))
    seats[:, 0] = rng.integers(0, len(ref), games)  # at least one of each ruleset per game
    seats[:, 1] = rng.integers(len(ref), len(pool), games)
    cfg = HanabiConfig(players=players, hand_size=5 if players <= 3 else 4, hand_order="fixed")
    compiled = play_games(pool, seats, deals, seeds, cfg, workers=1, record_actions=True)
    _Delegate.ends.clear()
    stepped = play_games(
        [_Delegate(p) for p in pool], seats, deals, seeds, cfg, workers=1, record_actions=True
    )
    # the kernel (one agent mode per seat) and per-agent decisions play the same games
    np.testing.assert_array_equal(compiled.scores, stepped.scores)
    np.testing.assert_array_equal(compiled.actions, stepped.actions)
    np.testing.assert_allclose(compiled.counters, stepped.counters)
    # rule 78's colourless tells ended games, so the kernel's END handling was compared too
    assert RRef.END_REJECTED in _Delegate.ends, _Delegate.ends
    assert (compiled.scores >= 0).all()
    assert (compiled.scores <= 25).all()


# --------------------------------------------------------------------------------------------
# MAP-Elites binning
# --------------------------------------------------------------------------------------------


def test_reference_bin_documented_edges():
    assert reference_bin(0.6, 5) == 2, "0.6 / 0.2 = 2.9999999999999996 in double precision"
    assert math.floor(0.6 * 5) == 3
    for v in (0.15, 0.3, 0.35, 0.6, 0.7, 0.95):
        assert reference_bin(v, 20) == math.floor(v * 20) - 1, v
    # and only those: every other edge k / d falls in bin k
    for d, lower in ((5, {3}), (20, {3, 6, 7, 12, 14, 19})):
        got = {k for k in range(d) if reference_bin(k / d, d) != k}
        assert got == lower, (d, got)


def test_reference_bin_limits():
    for bins in (1, 5, 20):
        assert reference_bin(float("nan"), bins) == 0
        assert reference_bin(1.0, bins) == bins - 1, "1.0 goes to the last bin"
        assert reference_bin(0.0, bins) == 0
        assert reference_bin(1.5, bins) == bins - 1
        assert reference_bin(-0.25, bins) == 0


def test_reference_bin_is_the_archives_reference_binning():
    values = np.array([k / 20 for k in range(21)] + [float("nan"), 0.123, 0.999])
    for d in (5, 20):
        grid = bin_index(values[:, None], [d], [(0.0, 1.0)], binning="reference")[:, 0]
        assert grid.tolist() == [reference_bin(float(v), d) for v in values], d


# --------------------------------------------------------------------------------------------
# the cig18 preset
# --------------------------------------------------------------------------------------------


def test_evaluate_cig18_preset_runs_against_the_2018_pool():
    res = evaluate("piers", mode="mixed", preset="cig18", games=20, workers=1, seed=3)
    assert res.agent == "Piers"
    assert res.mode == "mixed"
    assert res.scoring == "lenient"
    assert [r["partner"] for r in res.rows[::4]] == list(CIG18_POOL), "the 7 partners, in order"
    assert len(res.rows) == len(CIG18_POOL) * 4
    assert {(r["partner"], r["players"]) for r in res.rows} == {
        (p, n) for p in CIG18_POOL for n in (2, 3, 4, 5)
    }
    assert all(r["games"] == 20 for r in res.rows)
    assert 0 <= res.mean <= 25
    assert np.isfinite(res.sem)
    # the preset is exactly: the 2018 agents (reference, production), fixed slots, random seat
    explicit = evaluate(
        make("piers", preset="cig18"),
        mode="mixed",
        pool=[make(n, preset="cig18") for n in CIG18_POOL],
        games=20,
        workers=1,
        seed=3,
        hand_order="fixed",
    )
    assert [r["mean"] for r in res.rows] == [r["mean"] for r in explicit.rows]
    assert res.metrics == explicit.metrics


def test_cli_play_with_reference_agents_ends_games_as_java_did(capsys):
    """``play --ruleset reference``: rule 78's colourless tell ends every game, as in Java."""
    from hanabi_adhoc.cli import main

    rc = main(
        ["play", "78,8,13,27,19", "78,8,13,27,19", "--ruleset", "reference", "--games", "3",
         "--scoring", "lenient"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0
    assert out.count("ended the game, as the Java reference did") == 3, out
    assert "3 game(s), mean score" in out
