"""agents.backend: the runner family every stage plays on (ordered results, pools, hooks)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from agents import backend as B
from agents.evaluate import game_seeds, play_games
from agents.registry import make
from hanabi_env.config import HanabiConfig
from hanabi_env.workers import one_thread_worker
from tests.helpers import Wrapped


def _slow_square(x: int, delay: float) -> tuple[int, int]:
    """A task whose later calls finish first (module-level: picklable for processes)."""
    time.sleep(delay)
    return x * x, os.getpid()


def _read_env(name: str) -> str | None:
    return os.environ.get(name)


def _mark_worker() -> None:  # runs in each worker process
    os.environ["HANABI_TEST_WORKER"] = "initialised"


TASKS = [(i, 0.02 * (5 - i)) for i in range(6)]  # the first task is the slowest


@pytest.mark.parametrize("kind", ["serial", "thread", "process"])
def test_imap_and_map_keep_task_order(kind):
    make_backend = {
        "serial": B.SerialBackend,
        "thread": lambda: B.ThreadBackend(2),
        "process": lambda: B.ProcessBackend(2, compile_first=False),
    }[kind]
    with make_backend() as backend:
        it = backend.imap(_slow_square, TASKS)
        assert not isinstance(it, list)  # an iterator: a caller can count tasks as they come
        got = list(it)
        assert [r[0] for r in got] == [i * i for i, _ in TASKS]
        assert [r[0] for r in backend.map(_slow_square, TASKS)] == [i * i for i, _ in TASKS]
        pids = {r[1] for r in got}
    assert (pids == {os.getpid()}) == (kind != "process")


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_closed_pool_refuses_at_once(kind):
    backend = B.ThreadBackend(1) if kind == "thread" else B.ProcessBackend(1, compile_first=False)
    backend.close()
    backend.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        backend.imap(_slow_square, TASKS)  # not deferred to the first next()
    with pytest.raises(RuntimeError, match="closed"):
        backend.map(_slow_square, TASKS)


def test_process_backend_initializer_runs_in_every_worker():
    assert os.environ.get("HANABI_TEST_WORKER") is None
    with B.ProcessBackend(2, compile_first=False, initializer=_mark_worker) as backend:
        seen = backend.map(_read_env, [("HANABI_TEST_WORKER",)] * 8)
    assert seen == ["initialised"] * 8
    assert os.environ.get("HANABI_TEST_WORKER") is None  # not in this process


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_policy_pools_start_workers_on_one_thread():
    # the initializer of the pools of Python policies (play_games, meta evaluation): forked
    # workers inherit the parent's loaded BLAS, so the limit must be set in the worker
    with B.ProcessBackend(2, compile_first=False, initializer=one_thread_worker) as backend:
        seen = backend.map(_read_env, [("OMP_NUM_THREADS",), ("OPENBLAS_NUM_THREADS",)] * 3)
        blas = backend.map(_blas_threads, [()] * 4)
    assert seen == ["1"] * 6
    assert all(threads == [1] * len(threads) for threads in blas)
    assert any(blas), "numpy's BLAS should be loaded in the workers"


def test_compile_first_is_what_warms_the_kernel(monkeypatch):
    calls = []
    monkeypatch.setattr(B, "warm_up", lambda: calls.append(1))
    B.ThreadBackend(1).close()
    B.ProcessBackend(1, compile_first=False).close()
    assert calls == [1]


def test_bad_worker_count_is_refused():
    with pytest.raises(ValueError, match="workers=0"):
        B.ProcessBackend(0, compile_first=False)


@pytest.mark.parametrize("python_loop", [False, True], ids=["rule-kernel", "python-loop"])
def test_play_games_same_games_on_any_worker_count(python_loop):
    """play_games runs its chunks on this family: threads (kernel) or processes (Python)."""
    cfg = HanabiConfig(players=2, scoring="lenient")
    policies = [Wrapped(make("piers")) if python_loop else make("piers"), make("iggi")]
    n = 12
    _, deals, agent_seeds = game_seeds(3, n, 2, random_seat=False)
    seats = np.tile([0, 1], (n, 1))
    runs = []
    for workers in (1, 2):
        done = []
        batch = play_games(
            policies, seats, deals, agent_seeds, cfg, workers=workers, chunk_size=5,
            progress=done.append,
        )  # fmt: skip
        assert done == [5, 5, 2]  # one call per chunk, in order
        runs.append(batch)
    np.testing.assert_array_equal(runs[0].scores, runs[1].scores)
    np.testing.assert_array_equal(runs[0].counters, runs[1].counters)
    assert runs[0].moves == runs[1].moves > 0
    assert runs[0].scores.max() > 0
