"""Differential tests of ``ruleset="reference"`` against the recorded Java reference games.

The data (``tests/data/reference_traces/``, format: ``tools/reference_trace/README.md``) holds
10,600 games of the Java reference in four categories. A game whose moves all came from
deterministic rules (``random_fired`` false) must be reproduced exactly: our reference agents,
dealt the recorded deck, play the same moves, reach the same score, end the game the same way and
count the same per-seat behaviour counters. A game with a randomised Java move (unseeded
``java.util.Random`` in the reference) cannot be replayed; those deals are played by our agents
and compared with the recorded ones statistically. The counts covered (7,903 deterministic
games: 694 baselines, 4,040 single rules, 981 published, 2,188 random chromosomes; and the
2,697 others) are asserted against the recording's own summary (``record_summary.json``).

Kernels are compiled once per machine (about 4-5 minutes the first time); warm, the file runs
in about 1.5 minutes on two cores, most of it in the whole-game replays.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from scipy import stats

from agents.rules import reference as RRef
from hanabi_env import engine as E
from tests.agents import reference_replay as RR

# the recorded per-seat counters (ReportAgent's) and our counter columns
METRIC_COLUMNS = {
    "possible_hints": E.C_HINT_OPPORTUNITIES,
    "hints_given": E.C_HINTS_GIVEN,
    "plays": E.C_PLAYS,
    "known_attrs_on_plays": E.C_SUM_KNOWN_ATTRS,
    "playability_sum": E.C_SUM_P_PLAYABLE,
    "discards": E.C_DISCARDS,
    "discard_slot_sum": E.C_SUM_DISCARD_POS,
}
COLUMNS = list(METRIC_COLUMNS.values())
# sums of fractions (playability probabilities, discard slot / (hand - 1)), recorded to 9 decimals
FRACTIONAL = ("playability_sum", "discard_slot_sum")

# how a recorded game ended -> PlayedGame.ended_by (the END code our agents raised, or 0)
END_CODES = {
    "deck": 0,
    "lives": 0,
    "perfect": 0,
    "null-action": RRef.END_NULL,  # a HistogramAgent rule fired without a move
    "legality-check-raised": RRef.END_REJECTED,  # rules 78-82's colourless tell
    "exception": RRef.END_RAISED,  # a ProductionRuleAgent raised (no rule fired)
}

SHOW = 5  # mismatches listed in a failure message


@functools.cache
def _load(category: str) -> list[tuple[dict, list[dict]]]:
    return list(RR.load(category))


def _summary() -> dict:
    with open(RR.TRACE_DIR / "record_summary.json", encoding="utf-8") as f:
        return json.load(f)["categories"]


def _recorded_counters(game: dict) -> np.ndarray:
    """``(players, 7)`` recorded counters in the order of :data:`METRIC_COLUMNS`."""
    return np.array([[seat[k] for k in METRIC_COLUMNS] for seat in game["metrics"]], float)


def _fail(what: str, bad: list[str], total: int) -> str:
    return f"{len(bad)} of {total} {what}; first {min(SHOW, len(bad))}:\n" + "\n".join(bad[:SHOW])


# --------------------------------------------------------------------------------------------
# deterministic games: exact reproduction
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("category", RR.CATEGORIES)
def test_deterministic_games_are_reproduced_exactly(category):
    """Every game without a randomised Java move: same moves, score, ending, counters."""
    expected = _summary()[category]["games_without_random_moves"]
    bad: list[str] = []
    checked = 0
    for job, games in _load(category):
        for game in games:
            if game["random_fired"]:
                continue
            checked += 1
            where = f"{job['label']} P{game['players']} game {game['game']}"
            r = RR.play_recorded_deal(job, game)
            rec = RR.recorded_moves(game)
            if r.moves != rec:
                t = next(
                    (i for i, (a, b) in enumerate(zip(r.moves, rec, strict=False)) if a != b),
                    min(len(r.moves), len(rec)),
                )
                bad.append(
                    f"{where}: moves differ at move {t} (ours {r.moves[t : t + 1]}, java "
                    f"{rec[t : t + 1]}; {len(r.moves)} vs {len(rec)} moves)"
                )
                continue
            if r.score != game["score"]:
                bad.append(f"{where}: score ours {r.score}, java {game['score']}")
            end = game["end"].split(":")[0]
            if END_CODES.get(end, "unmapped") != r.ended_by:
                bad.append(f"{where}: java ended with {game['end']!r}, ours ended_by {r.ended_by}")
            ours, java = r.counters[:, COLUMNS], _recorded_counters(game)
            # counts exactly; the two sums of fractions to the recording's 9 decimals
            diff = [
                k
                for i, k in enumerate(METRIC_COLUMNS)
                if not (
                    np.allclose(ours[:, i], java[:, i], rtol=0.0, atol=1e-8)
                    if k in FRACTIONAL
                    else np.array_equal(ours[:, i], java[:, i])
                )
            ]
            if diff:
                bad.append(
                    f"{where}: counters {diff} differ: ours {ours.tolist()}, java {java.tolist()}"
                )
    # the data holds as many deterministic games as its recording summary says, all checked
    assert checked > 0, f"no deterministic game in {category}"
    assert checked == expected, (
        f"{category}: {checked} deterministic games in the data, the recording summary says "
        f"{expected}"
    )
    assert not bad, _fail(f"deterministic {category} games differ from Java", bad, checked)


# --------------------------------------------------------------------------------------------
# the rule that fired, decision by decision
# --------------------------------------------------------------------------------------------


def test_firing_rule_agrees_in_every_single_rules_decision():
    """The position of the rule that fired agrees with Java's in every decision.

    The whole-game test does not imply this: two rules of a list can give the same move (e.g.
    PlaySafeCard and a PlayProbablySafeCard both playing a known-playable card), and a rule that
    raises (skipped by HistogramAgent) looks like one that does not fire, so an identical move
    sequence can hide a rule whose firing condition differs from Java's. Here each decision is
    taken on the recorded state, and the firing rule's position (and its move, unless the move
    came from a randomised source) is compared. All ``single_rules`` games are replayed (the
    randomised ones too, compared on the firing rule at their random moves: the replay applies
    the recorded moves, so the states stay Java's).
    """
    apply = RR.reference_apply_rule()
    assert apply is not RR.R.apply_rule, "the reference rule evaluator is not available"
    bad: list[str] = []
    games_n = det_n = decisions = 0
    expected_det = _summary()["single_rules"]["games_without_random_moves"]
    for job, games in _load("single_rules"):
        rules = RR.job_rules(job)
        assert rules is not None, job["label"]
        for game in games:
            r = RR.replay_game(job, game, rules, apply)
            games_n += 1
            det_n += not game["random_fired"]
            decisions += r.compared
            assert r.compared == r.decisions, (job["label"], game["game"])
            if not r.exact:
                bad.append(f"{job['label']} P{game['players']} game {game['game']}: {r.first}")
    assert games_n == _summary()["single_rules"]["games"], games_n
    assert det_n == expected_det > 0, (det_n, expected_det)
    assert decisions > 0
    assert not bad, _fail(f"single_rules games ({decisions} decisions) diverge", bad, games_n)


# --------------------------------------------------------------------------------------------
# games with a randomised Java move: the same distribution
# --------------------------------------------------------------------------------------------

# Each deal is played REPS times by our agents, with agent seeds of their own per deal and
# repetition (play_recorded_deal seeds seat p with seed + p, p < 8). Java's random moves came
# from independent unseeded generators: a seed shared by all deals would correlate our games
# across deals (common random numbers) and make the bootstrap below, which treats the deals as
# independent, understate the noise of our side.
REPS = 2
P_MIN = 0.001
Z_MAX = 4.0  # |difference| of a ratio metric in bootstrap standard errors
BOOTSTRAP = 2000


def _ratios(c: np.ndarray) -> dict[str, np.ndarray]:
    """Ratio-of-sums metrics over the game axis of ``c`` (``(..., games, 4)``: possible hints,
    hints given, plays, known attributes)."""
    s = c.sum(axis=-2)
    return {
        "communicativeness": s[..., 1] / s[..., 0],
        "ipp": s[..., 3] / (2 * s[..., 2]),
    }


@pytest.mark.parametrize("category", RR.CATEGORIES)
def test_randomised_games_match_in_distribution(category):
    """Deals on which Java drew a random move: our mean score and metrics within noise.

    Which deals reach a randomised move is decided by the deal alone (up to the first random
    move both implementations play the same deterministic moves, checked above), so the
    recorded and our games of the same deals are paired samples of the same distribution.
    Score: a paired t-test on the per-deal difference (our mean over the repetitions minus
    Java's score), p > 0.001. Communicativeness and IPP (ratios of sums over the seats and
    games): the difference within 4 standard errors of a paired bootstrap over the deals
    (two-sided p about 6e-5 per check under normality, so the 8 checks of the four categories
    keep a family-wise false-alarm rate below 0.001 as the score tests do).
    """
    java_scores, our_scores, java_c, our_c = [], [], [], []
    for job, games in _load(category):
        for game in games:
            if not game["random_fired"]:
                continue
            i = len(java_scores)
            played = [
                RR.play_recorded_deal(job, game, seed=8 * (REPS * i + r)) for r in range(REPS)
            ]
            java_scores.append(game["score"])
            java_c.append(_recorded_counters(game)[:, :4].sum(axis=0))
            our_scores.append(np.mean([r.score for r in played]))
            our_c.append(np.mean([r.counters[:, COLUMNS[:4]].sum(axis=0) for r in played], 0))
    summary = _summary()[category]
    expected = summary["games"] - summary["games_without_random_moves"]
    n = len(java_scores)
    assert n == expected > 1, f"{category}: {n} randomised deals, the summary says {expected}"
    d = np.asarray(our_scores) - np.asarray(java_scores, float)
    p = stats.ttest_1samp(d, 0.0).pvalue
    assert p > P_MIN, (
        f"{category}: {n} randomised deals, mean score ours {np.mean(our_scores):.3f}, java "
        f"{np.mean(java_scores):.3f} (paired difference {d.mean():+.3f}, p = {p:.2g})"
    )
    java_c, our_c = np.asarray(java_c), np.asarray(our_c)
    ours, java = _ratios(our_c), _ratios(java_c)
    idx = np.random.default_rng(20240917).integers(0, n, (BOOTSTRAP, n))
    boot_ours, boot_java = _ratios(our_c[idx]), _ratios(java_c[idx])
    for k in ours:
        diff = ours[k] - java[k]
        se = np.nanstd(boot_ours[k] - boot_java[k], ddof=1)
        assert np.isfinite(diff), (category, k, ours[k], java[k])
        assert se > 0, (category, k, se)
        assert abs(diff) <= Z_MAX * se, (
            f"{category}: {k} ours {ours[k]:.4f}, java {java[k]:.4f}: difference {diff:+.4f} "
            f"is {abs(diff) / se:.1f} bootstrap standard errors ({se:.4f}) over {n} deals"
        )
