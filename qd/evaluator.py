"""Evaluation of solutions: the plain evaluator function, on the runner family's backends.

:func:`evaluate_solutions` is the MAP-Elites evaluator ([CoG19] Algorithm 1; docs/rules.md §6,
§7.1): each solution (a rule list) plays ``games`` mirror self-play games at each player count,
every seat a copy of itself with its own generator; the **objective** is the mean score (points),
averaged over player counts, and the **counter sums** (summed over games, seats and player
counts, docs/rules.md §5) give the measures (:mod:`qd.measures`).

Seeds (docs/rules.md §6): solution ``i`` plays the games of ``agents.evaluate.game_seeds(seeds[i],
games, players)``. Evaluating an incumbent with a candidate's seed therefore replays the
candidate's exact deals and per-seat agent seeds (common random numbers). Seeds come from
:func:`derive_seed`, a pure function of integers (e.g. the run seed and the candidate number).

The backends (:class:`SerialBackend`, :class:`ThreadBackend`, :class:`ProcessBackend`,
:class:`DaskBackend`, :func:`make_backend`) are the project's one runner family,
:mod:`agents.backend`, re-exported here: they play the games of a whole batch (every solution and
player count of one call) and are interchangeable, **results bit-identical whatever the backend or
the number of workers**. A persistent pool is used instead of ``play_games(workers=n)``, which
starts a new pool per call (≈ 50 ms), because the paired replacement makes several small calls
per batch.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.backend import (
    Backend,
    DaskBackend,
    ProcessBackend,
    SerialBackend,
    ThreadBackend,
    make_backend,
    warm_up,
)
from agents.evaluate import check_games, game_seeds
from agents.reference import RULESETS
from agents.rulebase import N_RULE_IDS
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.seeding import derive_seed
from hanabi_env.validate import check_choice, type_error
from qd.config import MapElitesConfig

__all__ = [
    "Backend",
    "DaskBackend",
    "Evaluation",
    "ProcessBackend",
    "Replay",
    "SerialBackend",
    "ThreadBackend",
    "check_solutions",
    "derive_seed",
    "evaluate_solutions",
    "make_backend",
    "replay_holds",
    "warm_up",
]

# --------------------------------------------------------------------------------------------
# the evaluator
# --------------------------------------------------------------------------------------------


@dataclass
class Evaluation:
    """Results of :func:`evaluate_solutions` for ``n`` solutions.

    Attributes:
        objective: ``(n,)`` float64 mean score (points), averaged over player counts.
        counters: ``(n, N_COUNTERS)`` float64 counter sums over games, seats and player counts.
        scores: ``(n, n_player_counts, games)`` int64 per-game scores.
        games: Games played in total.
        moves: Moves played in total.
    """

    objective: np.ndarray
    counters: np.ndarray
    scores: np.ndarray
    games: int
    moves: int


def check_solutions(name: str, value: object) -> np.ndarray:
    """``value`` as ``(n, L)`` int64 rule lists whose every gene a ``RuleAgent`` accepts.

    Genes are rule ids in ``[0, agents.rulebase.N_RULE_IDS)`` (the alphabet's 0-104, and the
    ids of the extra rules), as :func:`agents.policy.rule_ids` checks them.

    Raises:
        TypeError: Not a 2-D array of integers (floats, ragged lists, strings).
        ValueError: A gene out of range (the message names the first one and its row).
    """
    try:
        raw = np.asarray(value)
    except (ValueError, TypeError):
        raw = np.asarray([], dtype=np.float64)
    if raw.ndim != 2 or raw.dtype.kind not in "iu":
        raise TypeError(
            f"{name} must be n rule lists of equal length (ints), got an array of shape "
            f"{raw.shape} and dtype {raw.dtype}"
        )
    sol = raw.astype(np.int64)
    bad = np.argwhere((sol < 0) | (sol >= N_RULE_IDS))
    if len(bad):
        i, j = (int(x) for x in bad[0])
        raise ValueError(
            f"{name}[{i}][{j}]={int(sol[i, j])} is out of range; allowed: rule ids in "
            f"[0, {N_RULE_IDS}) (agents.rulebase)"
        )
    return sol


def _check_games_players(games: int, players: Sequence[int]) -> tuple[int, ...]:
    """Validate ``games`` (>= 1) and ``players`` (sizes in [2, 5]); the sizes as a tuple."""
    if int(games) < 1:
        raise ValueError(f"games={games} is out of range; allowed: >= 1")
    players = tuple(int(p) for p in players)
    if not players or any(not 2 <= p <= 5 for p in players):
        raise ValueError(f"players={players} is out of range; allowed: sizes in [2, 5]")
    return players


@functools.lru_cache(maxsize=4096)
def _seed_rows(seed: int, games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    """``game_seeds(seed, games, players)`` without seats, read-only and cached.

    A MAP-Elites batch derives the tables of its candidates' seeds once to evaluate them and
    again to replay their incumbents; the cache holds the last few batches' tables.
    """
    _, deals, agent_seeds = game_seeds(seed, games, players, random_seat=False)
    deals.flags.writeable = False
    agent_seeds.flags.writeable = False
    return deals, agent_seeds


def _seed_table(seeds: np.ndarray, games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Deal and per-seat seeds of every solution's mirror games at one player count.

    Returns:
        ``(n, games)`` int64 deal seeds and ``(n, games, players)`` int64 agent seeds: row ``i``
        is ``game_seeds(seeds[i], games, players)`` (docs/rules.md §6).
    """
    deals = np.empty((len(seeds), games), dtype=np.int64)
    agent_seeds = np.empty((len(seeds), games, players), dtype=np.int64)
    for i, seed in enumerate(seeds.tolist()):
        deals[i], agent_seeds[i] = _seed_rows(seed, games, players)
    return deals, agent_seeds


def evaluate_solutions(
    solutions: Sequence[Sequence[int]] | np.ndarray,
    seeds: Sequence[int] | np.ndarray,
    games: int,
    players: Sequence[int] = (2,),
    scoring: str = "lenient",
    backend: Backend | None = None,
    ruleset: str = "corrected",
) -> Evaluation:
    """Mirror self-play evaluation of solutions ([CoG19] Algorithm 1; docs/rules.md §6, §7.1).

    Args:
        solutions: ``(n, L)`` rule indices (one chromosome per row).
        seeds: ``(n,)`` evaluation seeds; solution ``i`` plays
            ``game_seeds(seeds[i], games, p)`` at each player count ``p``.
        games: Games per player count, >= 1.
        players: Player counts (2 in the papers); hand size 5 for 2–3 players, 4 for 4–5.
        scoring: ``"lenient"`` (the papers) or ``"strict"``.
        backend: Where the games run (default: :class:`SerialBackend`).
        ruleset: ``"corrected"`` (default) or ``"reference"``: the solutions play as the Java
            reference's chromosome agents (docs/rules.md §12), with fixed hand slots.

    Returns:
        An :class:`Evaluation`.

    Raises:
        ValueError: Bad ``games``, ``players``, or mismatched ``solutions``/``seeds``.
    """
    sol = check_solutions("solutions", solutions)
    seeds = np.asarray(seeds, dtype=np.int64).reshape(-1)
    if sol.ndim != 2 or len(sol) != len(seeds):
        raise ValueError(
            f"solutions must be (n, L) with n = len(seeds); got {sol.shape} and {seeds.shape}"
        )
    players = _check_games_players(games, players)
    check_games("games", int(games), times=len(sol) * len(players))
    backend = backend or SerialBackend()
    n, g = len(sol), int(games)
    rules = list(sol)
    scores = np.zeros((n, len(players), g), dtype=np.int64)
    counters = np.zeros((n, E.N_COUNTERS), dtype=np.float64)
    moves = 0
    for k, p in enumerate(players):
        if n == 0:
            break
        cfg = _config(p, scoring, ruleset)
        deals, agent_seeds = _seed_table(seeds, g, p)
        seat_agents = np.repeat(np.arange(n, dtype=np.int64), g)[:, None].repeat(p, axis=1)
        sc, cn, mv = backend.play(
            cfg, rules, seat_agents, deals.reshape(-1), agent_seeds.reshape(-1, p), None, ruleset
        )
        scores[:, k] = sc.reshape(n, g)
        counters += cn.reshape(n, g * p, E.N_COUNTERS).sum(axis=1)
        moves += mv
    objective = scores.mean(axis=2).mean(axis=1) if n else np.zeros(0)
    return Evaluation(objective, counters, scores, n * g * len(players), moves)


@dataclass
class Replay:
    """Results of :func:`replay_holds` for ``n`` incumbent replays.

    Attributes:
        holds: ``(n,)`` bool — the incumbent's total score on the replayed games is at least the
            target (so a candidate with that total is *not* strictly better).
        totals: ``(n,)`` int64 the incumbent's total score (points) over the games it played;
            the full total when the replay was not stopped early.
        played: ``(n,)`` int64 games each replay played (out of ``games * len(players)``).
        games: Games played in total.
        moves: Moves played in total.
    """

    holds: np.ndarray
    totals: np.ndarray
    played: np.ndarray
    games: int
    moves: int


def _config(players: int, scoring: str, ruleset: str) -> HanabiConfig:
    """The game configuration of a mirror evaluation (fixed hand slots for the reference)."""
    check_choice("ruleset", ruleset, RULESETS)
    return HanabiConfig.for_game(players, scoring=scoring, ruleset=ruleset)


def replay_holds(
    incumbents: Sequence[Sequence[int]] | np.ndarray,
    seeds: Sequence[int] | np.ndarray,
    targets: Sequence[int] | np.ndarray,
    config: MapElitesConfig,
    backend: Backend | None = None,
    max_score: int = 25,
) -> Replay:
    """Paired replacement test: does each incumbent score at least its target on given games?

    The incumbent of request ``r`` replays the games of ``seeds[r]`` exactly as
    :func:`evaluate_solutions` plays them (same deals and per-seat seeds), and the answer is
    whether its **total** score over those ``games * len(players)`` games is ``>= targets[r]``
    (the candidate's total; docs/rules.md §7.1: the candidate replaces the incumbent only if it is
    strictly better on the same games). Only the answer is needed, so each replay plays its
    games in order (player counts in the given order, then game index) and stops, inside the
    compiled kernel, as soon as its answer is certain: its partial total already reaches the
    target (scores are never negative), or even ``max_score`` points in every remaining game
    could not reach it. The answer is the one the full replay gives, and the games a replay
    plays depend only on the replay, not on the backend or the number of workers.

    Args:
        incumbents: ``(n, L)`` rule indices.
        seeds: ``(n,)`` evaluation seeds (the candidates' seeds).
        targets: ``(n,)`` int totals to reach (points summed over all the candidate's games).
        config: The run's configuration; the replayed games are those :func:`evaluate_solutions`
            plays with its ``games`` (per player count), ``players``, ``scoring`` and
            ``ruleset`` (``"reference"``: the solutions play as the Java reference's chromosome
            agents, docs/rules.md §12).
        backend: Where the games run (default: :class:`SerialBackend`).
        max_score: Highest score of one game (points), for the early "cannot reach" answer.

    Returns:
        A :class:`Replay`.

    Raises:
        TypeError: ``config`` is not a :class:`qd.config.MapElitesConfig`.
        ValueError: Mismatched lengths.
    """
    if not isinstance(config, MapElitesConfig):
        raise type_error("config", "a qd.config.MapElitesConfig", config)
    sol = np.asarray(incumbents, dtype=np.int64)
    seeds = np.asarray(seeds, dtype=np.int64).reshape(-1)
    targets = np.asarray(targets, dtype=np.int64).reshape(-1)
    if sol.ndim != 2 or not len(sol) == len(seeds) == len(targets):
        raise ValueError(
            "incumbents must be (n, L) with n = len(seeds) = len(targets); got "
            f"{sol.shape}, {seeds.shape} and {targets.shape}"
        )
    players, scoring, ruleset = config.players, config.scoring, config.ruleset
    backend = backend or SerialBackend()
    n, g = len(sol), config.games
    totals = np.zeros(n, dtype=np.int64)
    played = np.zeros(n, dtype=np.int64)
    moves = 0
    for k, p in enumerate(players):
        later = g * (len(players) - k - 1)  # games at the next player counts
        open_ = np.flatnonzero((totals < targets) & (totals + max_score * (g + later) >= targets))
        if open_.size == 0:
            break
        m = len(open_)
        deals, agent_seeds = _seed_table(seeds[open_], g, p)
        cfg = _config(p, scoring, ruleset)
        # the kernel sees game i of open request j as game j * g + i of group j
        group = np.repeat(np.arange(m, dtype=np.int64), g)
        left = np.tile(max_score * (np.arange(g, 0, -1, dtype=np.int64) + later), m)
        sc, _, mv = backend.play(
            cfg,
            [sol[i] for i in open_],
            group[:, None].repeat(p, axis=1),
            deals.reshape(-1),
            agent_seeds.reshape(-1, p),
            stop=(group, targets[open_] - totals[open_], left),
            ruleset=ruleset,
        )
        sc = sc.reshape(m, g)
        totals[open_] += np.where(sc >= 0, sc, 0).sum(axis=1)
        played[open_] += (sc >= 0).sum(axis=1)
        moves += mv
    return Replay(totals >= targets, totals, played, int(played.sum()), moves)
