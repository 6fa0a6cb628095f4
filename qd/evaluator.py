"""Evaluation of solutions: the plain evaluator function and its parallel backends.

:func:`evaluate_solutions` is the MAP-Elites evaluator ([CoG19] Algorithm 1; docs/rules.md §6,
§7.1): each solution (a rule list) plays ``games`` mirror self-play games at each player count,
every seat a copy of itself with its own generator; the **objective** is the mean score (points),
averaged over player counts, and the **counter sums** (summed over games, seats and player
counts, docs/rules.md §5) give the measures (:mod:`qd.measures`).

Seeds (docs/rules.md §6): solution ``i`` plays the games of ``agents.evaluate.game_seeds(seeds[i],
games, players)``. Evaluating an incumbent with a candidate's seed therefore replays the
candidate's exact deals and per-seat agent seeds (common random numbers). Seeds come from
:func:`derive_seed`, a pure function of integers (e.g. the run seed and the candidate number).

Backends run the games of a whole batch (every solution and player count of one call) and are
interchangeable: each game's outcome depends only on its policy and seeds, games are dealt to
tasks in stripes (task ``j`` of ``k`` plays games ``j, j + k, ...``, so that tasks take about as
long), results go back to their game's place, and all reductions happen in this process in a
fixed order, so **results are bit-identical whatever the backend or the number of workers**.

* :class:`SerialBackend` — one ``agents.evaluate.play_rule_table`` call in this process.
* :class:`ThreadBackend` — a persistent pool of threads (all cores by default; the default for
  several local workers): the rule-game kernel releases the GIL, and threads need no pickling.
* :class:`ProcessBackend` — a persistent local process pool. A persistent pool is used instead
  of ``play_games(workers=n)``, which starts a new pool per call (≈ 50 ms), because the paired
  replacement makes several small calls per batch.
* :class:`DaskBackend` — Dask distributed: an existing cluster (``scheduler_address``) or a
  ``LocalCluster``; ``dask`` is imported only when this backend is created.
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from agents import _rules_ref as RR
from agents.evaluate import (
    default_workers,
    game_seeds,
    hle_hand_size,
    play_rule_table,
    rule_table,
)
from agents.reference import RULESETS
from hanabi_env import _engine as E
from hanabi_env._workers import dask_worker_plugin, process_pool
from hanabi_env.config import HanabiConfig
from hanabi_env.validate import check_choice

__all__ = [
    "Backend",
    "DaskBackend",
    "Evaluation",
    "ProcessBackend",
    "Replay",
    "SerialBackend",
    "derive_seed",
    "evaluate_solutions",
    "make_backend",
    "replay_holds",
    "warm_up",
]

SEED_LIMIT = 2**62


def derive_seed(*keys: int) -> int:
    """A seed in ``[0, 2**62)`` derived from integers (``numpy.random.SeedSequence``).

    Example: the evaluation seed of candidate ``k`` of a run is ``derive_seed(seed, 1, k)``.
    """
    words = np.random.SeedSequence([int(k) for k in keys]).generate_state(2, np.uint32)
    return int((int(words[0]) << 32 | int(words[1])) % SEED_LIMIT)


# --------------------------------------------------------------------------------------------
# backends
# --------------------------------------------------------------------------------------------


def _play_chunk(args: tuple) -> tuple[np.ndarray, np.ndarray, int]:
    """Worker task: play one chunk of games (module-level, hence picklable).

    ``args = (config, table, lens, modes, seat_agents, deals, agent_seeds, stop)``: the rule table
    of :func:`agents.evaluate.rule_table`, built once per call by :meth:`Backend.play`.
    """
    return play_rule_table(*args)


def warm_up() -> None:
    """Compile (or load from numba's cache) the rule-game kernel by playing one short game."""
    cfg = HanabiConfig(players=2, scoring="lenient")
    table, lens, modes = rule_table([np.array([39], dtype=np.int64)])
    _play_chunk(
        (
            cfg,
            table,
            lens,
            modes,
            np.zeros((1, 2), np.int64),
            np.zeros(1, np.int64),
            np.zeros((1, 2), np.int64),
            None,
        )
    )


def _split(n: int, workers: int, min_chunk: int, tasks_per_worker: int) -> list[slice]:
    k = max(1, min(-(-n // max(1, min_chunk)), workers * tasks_per_worker))
    edges = np.linspace(0, n, k + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in itertools.pairwise(edges.tolist()) if b > a]


class Backend(ABC):
    """Plays batches of rule-agent games; see the module docstring.

    Attributes:
        workers: Parallel workers (1 for the serial backend).
    """

    workers: int = 1

    def play(
        self,
        config: HanabiConfig,
        rules: Sequence[np.ndarray],
        seat_agents: np.ndarray,
        deal_seeds: np.ndarray,
        agent_seeds: np.ndarray,
        stop: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
        ruleset: str = "corrected",
        modes: Sequence[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Play games of rule agents.

        Args:
            config: Game configuration (``players`` seats, scoring variant).
            rules: Rule lists (int64 arrays of compiled rule ids), indexed by ``seat_agents``.
            seat_agents: ``(n_games, players)`` int64 rule list per seat.
            deal_seeds: ``(n_games,)`` int64 deal seeds.
            agent_seeds: ``(n_games, players)`` int64 per-seat agent seeds.
            stop: ``(group, need, left)`` to stop groups of games early
                (:func:`agents.evaluate.play_rule_table`): ``(n_games,)`` int64 group ids
                (a group's games consecutive, in play order), ``(n_groups,)`` int64 totals to
                reach, ``(n_games,)`` int64 most points still possible from each game on.
                A group's games stay in one task, so the games played do not depend on the
                split. Skipped games score -1.
            ruleset: ``"corrected"`` (default) or ``"reference"``: every rule list runs as a
                Hanabi-Map-Elites chromosome agent of the Java reference (HistogramAgent,
                docs/rules.md §12.2); ``config`` must then have fixed hand slots.
            modes: One agent mode per rule list (``agents._rules_ref.MODE_*``), overriding
                ``ruleset``: for games that mix wrappers, e.g. reference chromosome agents with
                reference baselines (``MODE_PRODUCTION``).

        Returns:
            ``(scores, counters, moves)``: ``(n_games,)`` int64 scores (points),
            ``(n_games, players, N_COUNTERS)`` float64 behaviour counters, total moves.
        """
        n = len(deal_seeds)
        if n == 0:
            return (
                np.zeros(0, np.int64),
                np.zeros((0, config.players, E.N_COUNTERS)),
                0,
            )
        if modes is None:
            mode = RR.MODE_HISTOGRAM if ruleset == "reference" else RR.MODE_FALLBACK
            modes = [mode] * len(rules)
        elif len(modes) != len(rules):
            raise ValueError(f"modes has {len(modes)} entries, rules {len(rules)}")
        table, lens, modes = rule_table([np.asarray(r, dtype=np.int64) for r in rules], modes)
        seat_agents = np.ascontiguousarray(seat_agents, dtype=np.int64)
        deal_seeds = np.ascontiguousarray(deal_seeds, dtype=np.int64)
        agent_seeds = np.ascontiguousarray(agent_seeds, dtype=np.int64)
        # Task j plays games j, j + k, j + 2k, ... of the k tasks (with ``stop``: groups j,
        # j + k, ...): every task gets a share of every solution, so tasks take about as long
        # (solutions differ a lot in game length, and a call waits for its slowest task).
        # Games are independent (own deal and agent seeds), so the results do not depend on
        # the split.
        if stop is None:
            k = len(self._chunks(n))
            parts = [np.arange(j, n, k) for j in range(k)]
            stops = [None] * k
        else:
            group, need, left = (np.ascontiguousarray(a, dtype=np.int64) for a in stop)
            starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
            k = min(len(starts), len(self._chunks(n)))
            spans = list(zip(starts.tolist(), np.r_[starts[1:], n].tolist(), strict=True))
            parts = [np.concatenate([np.arange(a, b) for a, b in spans[j::k]]) for j in range(k)]
            stops = [(group[i], need, left[i]) for i in parts]
        tasks = [
            (config, table, lens, modes, seat_agents[i], deal_seeds[i], agent_seeds[i], st)
            for i, st in zip(parts, stops, strict=True)
        ]
        results = self._map(tasks)
        scores = np.empty(n, dtype=np.int64)
        counters = np.empty((n, config.players, E.N_COUNTERS), dtype=np.float64)
        for i, r in zip(parts, results, strict=True):
            scores[i] = r[0]
            counters[i] = r[1]
        return scores, counters, int(sum(r[2] for r in results))

    def _chunks(self, n: int) -> list[slice]:
        return [slice(0, n)]

    @abstractmethod
    def _map(self, tasks: list[tuple]) -> list[tuple]:
        """Run :func:`_play_chunk` on each task, results in task order."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release workers (idempotent)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SerialBackend(Backend):
    """All games of a call in one ``play_rule_table`` call in this process."""

    workers = 1

    def _map(self, tasks: list[tuple]) -> list[tuple]:
        return [_play_chunk(t) for t in tasks]


class _PoolBackend(Backend):
    """A persistent local pool (threads or processes); see the subclasses.

    Args:
        workers: Threads or processes (None = all local cores).
        min_chunk: Smallest number of games per task.
        tasks_per_worker: Tasks per worker and call (load balancing).

    Raises:
        ValueError: ``workers < 1``.
    """

    def __init__(self, workers: int | None = None, min_chunk: int = 50, tasks_per_worker: int = 2):
        """See the class docstring."""
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ValueError(f"workers={workers} is out of range; allowed: >= 1")
        self.min_chunk = int(min_chunk)
        self.tasks_per_worker = int(tasks_per_worker)
        warm_up()  # compile (or load) once here, before any worker calls the kernel
        self._pool: Executor | None = self._start_pool()

    @abstractmethod
    def _start_pool(self) -> Executor:
        """The executor of this backend."""

    def _chunks(self, n: int) -> list[slice]:
        return _split(n, self.workers, self.min_chunk, self.tasks_per_worker)

    def _map(self, tasks: list[tuple]) -> list[tuple]:
        if self._pool is None:
            raise RuntimeError("the backend is closed")
        if len(tasks) == 1:
            return [_play_chunk(tasks[0])]
        return list(self._pool.map(_play_chunk, tasks))

    def close(self) -> None:
        """Shut the pool down."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


class ThreadBackend(_PoolBackend):
    """A persistent pool of threads in this process (the default for several local workers).

    The rule-game kernel releases the GIL, so threads play chunks in parallel with no process
    start-up, pickling or copies; only the small Python set-up of each chunk holds the GIL.
    Arguments as :class:`ProcessBackend`.
    """

    def _start_pool(self) -> Executor:
        return ThreadPoolExecutor(self.workers)


class ProcessBackend(_PoolBackend):
    """A persistent pool of local worker processes (forked after the kernels are compiled).

    Args:
        workers: Processes (None = all local cores).
        min_chunk: Smallest number of games per task.
        tasks_per_worker: Tasks per worker and call (load balancing).

    Raises:
        ValueError: ``workers < 1``.
    """

    def _start_pool(self) -> Executor:
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        pool = process_pool(self.workers, mp_context=ctx)  # workers die with this process
        pool.submit(int).result()  # fork every worker now, before any other thread starts
        return pool


class DaskBackend(Backend):
    """Dask distributed: an existing cluster, or a ``LocalCluster`` of single-thread workers.

    Args:
        scheduler_address: Address of a running scheduler (e.g. ``"tcp://10.0.0.1:8786"``);
            None starts a ``LocalCluster``.
        workers: Worker processes of the ``LocalCluster`` (None = all local cores); ignored
            with ``scheduler_address``.
        min_chunk: Smallest number of games per task.
        tasks_per_worker: Tasks per worker and call.

    Raises:
        ImportError: ``dask[distributed]`` is not installed.
    """

    def __init__(
        self,
        scheduler_address: str | None = None,
        workers: int | None = None,
        min_chunk: int = 200,
        tasks_per_worker: int = 2,
    ):
        """See the class docstring."""
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                'the Dask backend needs dask[distributed]: pip install "dask[distributed]"'
            ) from exc
        self._cluster = None
        if scheduler_address:
            self._client = Client(scheduler_address)
        else:
            n = default_workers() if workers is None else int(workers)
            self._cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
            )
            self._client = Client(self._cluster)
            # its worker processes are children of this one: they die with it (Dask's own
            # parent-alive pipe does too; this also covers a worker stuck holding the GIL)
            self._client.register_plugin(dask_worker_plugin(os.getpid()))
        info = self._client.scheduler_info()
        self.workers = max(1, len(info.get("workers", {})))
        self.min_chunk = int(min_chunk)
        self.tasks_per_worker = int(tasks_per_worker)

    def _chunks(self, n: int) -> list[slice]:
        return _split(n, self.workers, self.min_chunk, self.tasks_per_worker)

    def _map(self, tasks: list[tuple]) -> list[tuple]:
        futures = self._client.map(_play_chunk, tasks, pure=False)
        return self._client.gather(futures)

    def close(self) -> None:
        """Close the client (and the ``LocalCluster`` if this backend started it)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def make_backend(
    workers: int | None = None, scheduler_address: str | None = None, dask: bool = False
) -> Backend:
    """The backend for a run: Dask if asked (or given an address), else local threads.

    Args:
        workers: Local threads or LocalCluster workers (None = all local cores; 1 = serial).
        scheduler_address: Dask scheduler to connect to (implies Dask).
        dask: Use a Dask ``LocalCluster`` when no address is given.

    Returns:
        A :class:`Backend` (close it when done, or use it as a context manager).
    """
    if scheduler_address or dask:
        return DaskBackend(scheduler_address, workers)
    n = default_workers() if workers is None else int(workers)
    if n < 1:
        raise ValueError(f"workers={workers} is out of range; allowed: >= 1")
    return SerialBackend() if n == 1 else ThreadBackend(n)


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
    sol = np.asarray(solutions, dtype=np.int64)
    seeds = np.asarray(seeds, dtype=np.int64).reshape(-1)
    if sol.ndim != 2 or len(sol) != len(seeds):
        raise ValueError(
            f"solutions must be (n, L) with n = len(seeds); got {sol.shape} and {seeds.shape}"
        )
    players = _check_games_players(games, players)
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
    return HanabiConfig(
        players=players,
        hand_size=hle_hand_size(players),
        scoring=scoring,
        hand_order="fixed" if ruleset == "reference" else "shift",
    )


def replay_holds(
    incumbents: Sequence[Sequence[int]] | np.ndarray,
    seeds: Sequence[int] | np.ndarray,
    targets: Sequence[int] | np.ndarray,
    games: int,
    players: Sequence[int] = (2,),
    scoring: str = "lenient",
    backend: Backend | None = None,
    ruleset: str = "corrected",
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
        games: Games per player count, >= 1.
        players: Player counts.
        scoring: ``"lenient"`` or ``"strict"``.
        backend: Where the games run (default: :class:`SerialBackend`).
        ruleset: ``"corrected"`` (default) or ``"reference"``: the solutions play as the Java
            reference's chromosome agents (docs/rules.md §12), with fixed hand slots.
        max_score: Highest score of one game (points), for the early "cannot reach" answer.

    Returns:
        A :class:`Replay`.

    Raises:
        ValueError: Bad ``games`` or ``players``, or mismatched lengths.
    """
    sol = np.asarray(incumbents, dtype=np.int64)
    seeds = np.asarray(seeds, dtype=np.int64).reshape(-1)
    targets = np.asarray(targets, dtype=np.int64).reshape(-1)
    if sol.ndim != 2 or not len(sol) == len(seeds) == len(targets):
        raise ValueError(
            "incumbents must be (n, L) with n = len(seeds) = len(targets); got "
            f"{sol.shape}, {seeds.shape} and {targets.shape}"
        )
    players = _check_games_players(games, players)
    backend = backend or SerialBackend()
    n, g = len(sol), int(games)
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
