"""The runner family: one set of backends that every stage plays its games on.

A :class:`Backend` runs a list of independent tasks, each a module-level function applied to
one argument tuple, and returns the results **in task order** (:meth:`Backend.map`, or
:meth:`Backend.imap` as they come, for progress bars). On top of that, :meth:`Backend.play`
plays a batch of rule-agent games (the compiled rule-game kernel,
:func:`agents.rule_games.play_rule_table`). Every stage of the study runs on one of these:
MAP-Elites and the GA (:mod:`qd.evaluator`), match-up tables (:mod:`qd.analysis`), response
tables (:func:`meta.table.build_table`) and the compiled meta-agent evaluation
(:mod:`meta.compiled`), so a Dask cluster speeds up every stage, not only MAP-Elites; the
``evaluate`` command (:func:`agents.evaluate.play_games`) and the Python path of the
meta-agent evaluation (:func:`meta.evaluate.evaluate_meta`) run their chunks on local
backends of this family too. No other module starts a pool.

* :class:`SerialBackend` — every task in this process, in order.
* :class:`ThreadBackend` — a persistent pool of threads (the default for several local
  workers): the compiled kernels release the GIL, and threads need no pickling.
* :class:`ProcessBackend` — a persistent local process pool (forked after the kernels are
  compiled), for task functions that hold the GIL.
* :class:`DaskBackend` — Dask distributed: an existing cluster (``scheduler_address``) or a
  ``LocalCluster``; ``dask`` is imported only when this backend is created.

Games are dealt to tasks in stripes (task ``j`` of ``k`` plays games ``j, j + k, ...``, so that
tasks take about as long), each game's outcome depends only on its policies and seeds, results go
back to their game's place, and all reductions happen in the calling process in a fixed order:
**results are bit-identical whatever the backend or the number of workers** (docs/rules.md §6).
Task functions must be module-level (picklable) for processes and Dask.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor

import numpy as np

from agents.rule_games import play_rule_table, rule_table
from agents.rules import reference as RR
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.deprecation import moved_names
from hanabi_env.workers import dask_worker_plugin, process_pool

__all__ = [
    "Backend",
    "DaskBackend",
    "ProcessBackend",
    "SerialBackend",
    "ThreadBackend",
    "default_workers",
    "make_backend",
    "warm_up",
]


def default_workers() -> int:
    """All local cores (``os.sched_getaffinity`` where available)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


class _Star:
    """``fn(*args)`` as a one-argument callable (picklable when ``fn`` is module-level)."""

    def __init__(self, fn: Callable[..., object]):
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "task")  # Dask names its tasks after it

    def __call__(self, args: tuple) -> object:
        return self.fn(*args)


def _play_chunk(
    config, table, lens, modes, seat_agents, deals, agent_seeds, stop
) -> tuple[np.ndarray, np.ndarray, int]:
    """Worker task: play one chunk of games (module-level, hence picklable).

    The rule table is :func:`agents.rule_games.rule_table`'s, built once per call by
    :meth:`Backend.play`.
    """
    return play_rule_table(config, table, lens, modes, seat_agents, deals, agent_seeds, stop)


def warm_up() -> None:
    """Compile (or load from numba's cache) the rule-game kernel by playing one short game."""
    cfg = HanabiConfig(players=2, scoring="lenient")
    table, lens, modes = rule_table([np.array([39], dtype=np.int64)])
    _play_chunk(
        cfg,
        table,
        lens,
        modes,
        np.zeros((1, 2), np.int64),
        np.zeros(1, np.int64),
        np.zeros((1, 2), np.int64),
        None,
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
                (:func:`agents.rule_games.play_rule_table`): ``(n_games,)`` int64 group ids
                (a group's games consecutive, in play order), ``(n_groups,)`` int64 totals to
                reach, ``(n_games,)`` int64 most points still possible from each game on.
                A group's games stay in one task, so the games played do not depend on the
                split. Skipped games score -1.
            ruleset: ``"corrected"`` (default) or ``"reference"``: every rule list runs as a
                Hanabi-Map-Elites chromosome agent of the Java reference (HistogramAgent,
                docs/rules.md §12.2); ``config`` must then have fixed hand slots.
            modes: One agent mode per rule list (``agents.rules.reference.MODE_*``), overriding
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
        table, lens, agent_modes = rule_table([np.asarray(r, dtype=np.int64) for r in rules], modes)
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
            stops: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * k
        else:
            group, need, left = (np.ascontiguousarray(a, dtype=np.int64) for a in stop)
            starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
            k = min(len(starts), len(self._chunks(n)))
            spans = list(zip(starts.tolist(), np.r_[starts[1:], n].tolist(), strict=True))
            parts = [np.concatenate([np.arange(a, b) for a, b in spans[j::k]]) for j in range(k)]
            stops = [(group[i], need, left[i]) for i in parts]
        tasks = [
            (config, table, lens, agent_modes, seat_agents[i], deal_seeds[i], agent_seeds[i], st)
            for i, st in zip(parts, stops, strict=True)
        ]
        results = self.map(_play_chunk, tasks)
        scores = np.empty(n, dtype=np.int64)
        counters = np.empty((n, config.players, E.N_COUNTERS), dtype=np.float64)
        for i, r in zip(parts, results, strict=True):
            scores[i] = r[0]
            counters[i] = r[1]
        return scores, counters, int(sum(r[2] for r in results))

    def _chunks(self, n: int) -> list[slice]:
        return [slice(0, n)]

    def map(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> list:
        """``[fn(*t) for t in tasks]``, run on this backend's workers, results in task order.

        Args:
            fn: A module-level function (picklable, for processes and Dask).
            tasks: One argument tuple per call.

        Returns:
            The results, in the order of ``tasks``.

        Raises:
            RuntimeError: The backend is closed.
        """
        return list(self.imap(fn, tasks))

    @abstractmethod
    def imap(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> Iterator:
        """As :meth:`map`, but an iterator that yields each result, in task order, once it is in.

        Every task is submitted at once (a pool runs them as its workers free up); iterating
        waits for the next result in order, so a caller can advance a progress bar per task.

        Raises:
            RuntimeError: The backend is closed (raised at once, not on iteration).
        """

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release workers (idempotent)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SerialBackend(Backend):
    """All games of a call in one ``play_rule_table`` call in this process."""

    workers = 1

    def imap(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> Iterator:
        """See :meth:`Backend.imap` (in this process, each task when its result is asked for)."""
        return (fn(*t) for t in tasks)


class _PoolBackend(Backend):
    """A persistent local pool (threads or processes); see the subclasses.

    Args:
        workers: Threads or processes (None = all local cores).
        min_chunk: Smallest number of games per task.
        tasks_per_worker: Tasks per worker and call (load balancing).
        compile_first: Compile (or load) the rule-game kernel before the pool starts
            (:func:`warm_up`), so that the workers share it; False for pools that only run
            Python tasks.
        initializer: A module-level function each worker (thread or process) runs once when
            it starts, e.g. to limit a process's BLAS and torch threads; None for none.

    Raises:
        ValueError: ``workers < 1``.
    """

    def __init__(
        self,
        workers: int | None = None,
        min_chunk: int = 50,
        tasks_per_worker: int = 2,
        compile_first: bool = True,
        initializer: Callable[[], object] | None = None,
    ):
        """See the class docstring."""
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ValueError(f"workers={workers} is out of range; allowed: >= 1")
        self.min_chunk = int(min_chunk)
        self.tasks_per_worker = int(tasks_per_worker)
        self.initializer = initializer
        if compile_first:
            warm_up()  # compile (or load) once here, before any worker calls the kernel
        self._pool: Executor | None = self._start_pool()

    @abstractmethod
    def _start_pool(self) -> Executor:
        """The executor of this backend."""

    def _chunks(self, n: int) -> list[slice]:
        return _split(n, self.workers, self.min_chunk, self.tasks_per_worker)

    def imap(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> Iterator:
        """See :meth:`Backend.imap` (a single task runs in this process)."""
        if self._pool is None:
            raise RuntimeError("the backend is closed")
        if len(tasks) == 1:
            return iter([fn(*tasks[0])])
        return self._pool.map(_Star(fn), tasks)

    def close(self) -> None:
        """Shut the pool down (tasks not started yet are cancelled, e.g. after Ctrl-C)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


class ThreadBackend(_PoolBackend):
    """A persistent pool of threads in this process (the default for several local workers).

    The rule-game kernel releases the GIL, so threads play chunks in parallel with no process
    start-up, pickling or copies; only the small Python set-up of each chunk holds the GIL.

    Arguments as the base class, ``_PoolBackend``: ``workers`` threads (None = all local
    cores), ``min_chunk``, ``tasks_per_worker``, ``compile_first`` (default True: compile the
    kernel before the threads race to) and ``initializer`` (run in each thread; it shares this
    process's environment).
    """

    def _start_pool(self) -> Executor:
        return ThreadPoolExecutor(self.workers, initializer=self.initializer)


class ProcessBackend(_PoolBackend):
    """A persistent pool of local worker processes (forked after the kernels are compiled).

    For tasks that hold the GIL: policies played by the Python game loop, e.g. neural-network
    partners (:func:`agents.evaluate.play_games`, the Python path of
    :func:`meta.evaluate.evaluate_meta`). The workers die with this process.

    Arguments as the base class, ``_PoolBackend``: ``workers`` processes (None = all local
    cores), ``min_chunk``, ``tasks_per_worker``, ``compile_first`` (default True: compile the
    kernel before forking; False for pools of Python tasks) and ``initializer`` (run in each
    worker process after it starts).

    Raises:
        ValueError: ``workers < 1``.
    """

    def _start_pool(self) -> Executor:
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        # workers die with this process
        pool = process_pool(self.workers, mp_context=ctx, initializer=self.initializer)
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
        self._client: Client | None
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

    def map(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> list:
        """See :meth:`Backend.map` (one Dask task per tuple, gathered together)."""
        return self._client_of().gather(self._submit(fn, tasks))

    def imap(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> Iterator:
        """See :meth:`Backend.imap` (one Dask task per tuple)."""
        return (f.result() for f in self._submit(fn, tasks))

    def _client_of(self):
        if self._client is None:
            raise RuntimeError("the backend is closed")
        return self._client

    def _submit(self, fn: Callable[..., object], tasks: Sequence[tuple]) -> list:
        return self._client_of().map(_Star(fn), list(tasks), pure=False)

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


# moved to agents.evaluate in 0.1.0: importable from here until 0.3.0, with a warning
__getattr__ = moved_names(__name__, {"play_policies": "agents.evaluate:play_policies"}, "0.3.0")
