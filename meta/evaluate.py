"""The papers' evaluation protocol for meta-agents ([Bayes21], PAPERS.md §4.2; RULES.md §9.1).

For every partner e of the evaluation pool E and every variant: ``episodes`` episodes of
``games`` 2-player games, the meta-agent in seat 0 and e in seat 1. The belief is reset between
episodes; within an episode the partner id stays the same. Episode j uses the deals and seat
seeds ``agents.evaluate.game_seeds(derive_seed(seed, 1, j), games, 2)`` for every partner and
every variant (common random numbers: "every partner sees the same 10 deals"). Games are played
through :class:`hanabi_env.HanabiGame` (the meta-agent is a Python policy).

Results: per-game scores, responses and (first episode) beliefs; per-variant mean ± s.e.m. of
the episode scores (the mean score over an episode's games), per partner and over the pool;
Welch's t-tests (``scipy.stats.ttest_ind(equal_var=False)``) between Adaptive and Generalist
and between Oracle and Adaptive on the episode scores, as in [Bayes21] Table IV.
"""

from __future__ import annotations

import copy
import csv
import json
import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.evaluate import SEED_LIMIT, game_seeds
from agents.policy import Policy
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame
from meta.bayes import VARIANTS, BayesianMetaAgent
from meta.table import ResponseTable, policy_ids

__all__ = ["TTESTS", "MetaEvaluation", "derive_seed", "evaluate_meta"]

TTESTS = (("adaptive", "generalist"), ("oracle", "adaptive"))
"""Pairs of variants compared by Welch's t-test ([Bayes21])."""


def derive_seed(*keys: int) -> int:
    """A seed in ``[0, 2**62)`` derived from integers (``numpy.random.SeedSequence``)."""
    words = np.random.SeedSequence([int(k) for k in keys]).generate_state(2, np.uint32)
    return int((int(words[0]) << 32 | int(words[1])) % SEED_LIMIT)


def _sem(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=np.float64).ravel()
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


def _clean(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return _clean(x.tolist())
    if isinstance(x, np.generic):
        return _clean(x.item())
    return x


@dataclass
class MetaEvaluation:
    """Result of :func:`evaluate_meta`.

    Attributes:
        variants: Variants evaluated.
        partner_ids: Ids of the evaluation pool E.
        hypothesis_ids: Ids of H (belief columns).
        response_ids: Ids of R (response indices).
        episodes: Episodes per partner (k).
        games: Games per episode (g).
        seed: Master seed.
        scores: variant → ``(nE, k, g)`` int64 game scores.
        responses: variant → ``(nE, k, g)`` int64 response index in use at the end of each game.
        beliefs: variant → ``(nE, g, nH)`` belief at the end of each game of episode 0.
    """

    variants: list[str]
    partner_ids: list[str]
    hypothesis_ids: list[str]
    response_ids: list[str]
    episodes: int
    games: int
    seed: int
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    responses: dict[str, np.ndarray] = field(default_factory=dict)
    beliefs: dict[str, np.ndarray] = field(default_factory=dict)

    def episode_scores(self, variant: str) -> np.ndarray:
        """``(nE, k)`` mean score of each episode."""
        return self.scores[variant].mean(axis=2)

    def summary(self) -> dict[str, dict]:
        """Per-variant mean ± s.e.m. of the episode scores ([Bayes21] Table IV rows).

        Returns:
            variant → ``mean``, ``sem`` (over all episodes of all partners), ``n_episodes``
            and ``per_partner`` {id: (mean, sem)}.
        """
        out = {}
        for v in self.variants:
            ep = self.episode_scores(v)
            out[v] = {
                "mean": float(ep.mean()),
                "sem": _sem(ep),
                "n_episodes": int(ep.size),
                "per_partner": {
                    pid: (float(ep[e].mean()), _sem(ep[e]))
                    for e, pid in enumerate(self.partner_ids)
                },
            }
        return out

    def ttests(self) -> dict[str, dict]:
        """Welch's t-tests on the episode scores for :data:`TTESTS` pairs present.

        Returns:
            ``{"adaptive_vs_generalist": {"t", "p", "mean_diff"}, ...}`` (NaN when undefined).
        """
        from scipy import stats

        out = {}
        for a, b in TTESTS:
            if a in self.scores and b in self.scores:
                xa, xb = self.episode_scores(a).ravel(), self.episode_scores(b).ravel()
                with np.errstate(invalid="ignore", divide="ignore"):
                    res = stats.ttest_ind(xa, xb, equal_var=False)
                out[f"{a}_vs_{b}"] = {
                    "t": float(res.statistic),
                    "p": float(res.pvalue),
                    "mean_diff": float(xa.mean() - xb.mean()),
                }
        return out

    def to_dict(self) -> dict:
        """JSON-serialisable summary, t-tests, and first-episode beliefs (NaN → None)."""
        return _clean(
            {
                "variants": self.variants,
                "partner_ids": self.partner_ids,
                "hypothesis_ids": self.hypothesis_ids,
                "response_ids": self.response_ids,
                "episodes": self.episodes,
                "games": self.games,
                "seed": self.seed,
                "summary": self.summary(),
                "ttests": self.ttests(),
                "beliefs_episode0": dict(self.beliefs),
            }
        )

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1))

    def to_csv(self, path: str | Path) -> None:
        """Write one row per game: ``variant, partner_id, episode, game, score, response_id``."""
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["variant", "partner_id", "episode", "game", "score", "response_id"])
            for v in self.variants:
                sc, rs = self.scores[v], self.responses[v]
                for e, pid in enumerate(self.partner_ids):
                    for j in range(self.episodes):
                        for g in range(self.games):
                            w.writerow(
                                [v, pid, j, g, int(sc[e, j, g]), self.response_ids[rs[e, j, g]]]
                            )


def _play_partner(args: tuple) -> dict:
    """All variants and episodes against one partner (a process-pool task)."""
    (e, pid, partner, table, responses, variants, oracle_kw, episodes, games, seed, cfg, kw) = args
    game = HanabiGame(cfg)
    nh = table.shape[1]
    out = {"scores": {}, "responses": {}, "beliefs": {}}
    ep_seeds = [
        game_seeds(derive_seed(seed, 1, j), games, 2, random_seat=False) for j in range(episodes)
    ]
    for vi, variant in enumerate(variants):
        agent = BayesianMetaAgent(
            table, responses, variant=variant, seed=derive_seed(seed, 2, vi, e), **kw
        )
        mate = copy.deepcopy(partner)
        scores = np.zeros((episodes, games), dtype=np.int64)
        used = np.zeros((episodes, games), dtype=np.int64)
        beliefs = np.zeros((games, nh))
        okw = oracle_kw if variant == "oracle" else {}
        for j in range(episodes):
            _, deals, agent_seeds = ep_seeds[j]
            agent.start_episode(pid)
            for g in range(games):
                agent.start_game(pid, **okw)
                game.reset(int(deals[g]))
                agent.reset(int(agent_seeds[g, 0]))
                mate.reset(int(agent_seeds[g, 1]))
                seats = (agent, mate)
                while not game.is_terminal:
                    cur = game.current_player
                    game.step(int(seats[cur].act(game.view(cur))))
                agent.end_game(game.view(0))
                scores[j, g] = game.score
                used[j, g] = agent.response
                if j == 0:
                    beliefs[g] = agent.belief(pid)
        out["scores"][variant] = scores
        out["responses"][variant] = used
        out["beliefs"][variant] = beliefs
    return out


def evaluate_meta(
    table: ResponseTable,
    responses: Sequence[Policy],
    partners: Sequence[Policy],
    partner_ids: Sequence[str] | None = None,
    variants: Sequence[str] = VARIANTS,
    episodes: int = 10,
    games: int = 10,
    seed: int = 0,
    oracle_table: ResponseTable | None = None,
    scoring: str = "lenient",
    sigma: float = 0.1,
    games_threshold: int | None = 1,
    turns_threshold: int | None = None,
    workers: int = 1,
    progress: bool = False,
) -> MetaEvaluation:
    """Evaluate meta-agent variants against a pool E ([Bayes21] protocol, PAPERS.md §4.2).

    Args:
        table: The offline table I(R, H).
        responses: The response policies R (the table's rows, in order).
        partners: The evaluation pool E (seat 1).
        partner_ids: Ids of E (default: the policies' names; must be unique). A partner whose id
            is a hypothesis id of ``table`` is that hypothesis for the Oracle.
        variants: Variants to evaluate (subset of :data:`~meta.bayes.VARIANTS`).
        episodes: Episodes per partner and variant, k >= 1 (200 in [Bayes21]).
        games: Games per episode, g >= 1 (10 in [Bayes21]).
        seed: Master seed.
        oracle_table: I(R, E) for the Oracle when some partners are not in H (out of
            distribution): the Oracle then plays argmax_r score(r, e).
        scoring: ``"lenient"`` or ``"strict"``.
        sigma: Likelihood standard deviation σ.
        games_threshold: Update schedule in games (see :class:`~meta.bayes.BayesianMetaAgent`).
        turns_threshold: Update schedule in the agent's turns.
        workers: Processes (partners are split among them); results do not depend on it.
        progress: Show a tqdm bar over partners.

    Returns:
        A :class:`MetaEvaluation`.

    Raises:
        ValueError: Bad ``variants``, ``episodes``, ``games``, ``scoring``, or an Oracle
            partner that is neither in H nor in ``oracle_table``.
    """
    variants = list(variants)
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        raise ValueError(f"variants={variants} is not allowed; allowed: subsets of {VARIANTS}")
    if int(episodes) < 1:
        raise ValueError(f"episodes={episodes} is out of range; allowed: >= 1")
    if int(games) < 1:
        raise ValueError(f"games={games} is out of range; allowed: >= 1")
    if scoring not in ("lenient", "strict"):
        raise ValueError(f"scoring={scoring!r} is not allowed; allowed: 'lenient', 'strict'")
    if len(responses) != table.shape[0]:
        raise ValueError(
            f"responses has {len(responses)} policies for a table of {table.shape[0]} rows"
        )
    pids = policy_ids(partners, partner_ids)
    h_pos = {h: j for j, h in enumerate(table.hypothesis_ids)}
    oracle_kw: list[dict] = []
    for pid in pids:
        if pid in h_pos:
            oracle_kw.append({"true_type": h_pos[pid]})
        elif oracle_table is not None and pid in oracle_table.hypothesis_ids:
            if oracle_table.response_ids != table.response_ids:
                raise ValueError("oracle_table must have the same responses as table")
            col = oracle_table.hypothesis_ids.index(pid)
            oracle_kw.append({"true_scores": oracle_table.scores[:, col]})
        elif "oracle" in variants:
            raise ValueError(
                f"partner {pid!r} is not in H; pass oracle_table (I(R, E)) for the oracle"
            )
        else:
            oracle_kw.append({})
    cfg = HanabiConfig(players=2, hand_size=5, scoring=scoring)
    kw = {"sigma": sigma, "games_threshold": games_threshold, "turns_threshold": turns_threshold}
    tasks = [
        (
            e,
            pid,
            partners[e],
            table,
            list(responses),
            variants,
            oracle_kw[e],
            int(episodes),
            int(games),
            int(seed),
            cfg,
            kw,
        )
        for e, pid in enumerate(pids)
    ]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc="meta evaluation", unit="partner")
    pool = ProcessPoolExecutor(max_workers=int(workers)) if int(workers) > 1 else None
    try:
        results_iter = pool.map(_play_partner, tasks) if pool else map(_play_partner, tasks)
        results = []
        for r in results_iter:
            results.append(r)
            if bar is not None:
                bar.update(1)
    finally:
        if pool is not None:
            pool.shutdown()
        if bar is not None:
            bar.close()
    res = MetaEvaluation(
        variants,
        pids,
        list(table.hypothesis_ids),
        list(table.response_ids),
        int(episodes),
        int(games),
        int(seed),
    )
    for v in variants:
        res.scores[v] = np.stack([r["scores"][v] for r in results])
        res.responses[v] = np.stack([r["responses"][v] for r in results])
        res.beliefs[v] = np.stack([r["beliefs"][v] for r in results])
    return res
