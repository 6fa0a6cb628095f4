"""Worker processes that die with the process that started them (no orphans).

A worker of a ``ProcessPoolExecutor`` blocks on its task queue; when the main process is killed
with ``SIGKILL`` nothing tells it, so it finishes the tasks it holds and then waits forever (with
``fork`` it holds the other end of its own queue). Every process pool of the project therefore
runs :func:`die_with_parent` first in each worker, through :func:`process_pool`
(``agents.evaluate.play_games``, ``qd.evaluator.ProcessBackend``, ``meta.evaluate``) or the Dask
worker plugin :func:`dask_worker_plugin` (the ``LocalCluster`` of ``--dask``):

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` asks the kernel to kill the worker when its
  parent dies;
* then the worker checks that its parent is still the expected process: a parent that died
  *before* the ``prctl`` call would otherwise leave it running (re-parented);
* under the ``forkserver`` start method the parent is the fork server, which outlives the main
  process as long as its workers hold their end of its "alive" pipe; a daemon thread of the
  worker then waits on the main process (``pidfd``) and kills the worker when it exits.

Elsewhere these steps are no-ops. Linux sends the signal when the *thread* that started the
worker exits, so a pool must be created by a thread that outlives it (here: the thread that
calls ``play_games``/``evaluate_meta``, or that constructs a ``ProcessBackend``). Dask's own
workers also exit when their nanny's pipe closes; the plugin is the same guarantee for a worker
stuck in code that holds the GIL.

Only the standard library is used, and ``threadpoolctl`` inside :func:`one_thread_worker` (this
module sits at the bottom of the package graph, so that ``agents``, ``qd`` and ``meta`` can all
import it).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

__all__ = ["dask_worker_plugin", "die_with_parent", "one_thread_worker", "process_pool"]

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _parent_of(pid: int) -> int | None:
    """The parent pid of ``pid`` from ``/proc`` (None if unreadable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return int(stat[stat.rindex(b")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _set_pdeathsig() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ctypes; False if unavailable."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - exotic libc
        return False


def die_with_parent(parent_pid: int | None = None) -> None:
    """Make this (worker) process die when its parent dies; exit now if it already has.

    Args:
        parent_pid: The process that started the pool (``os.getpid()`` there). None = the
            current parent (only the ``prctl`` part then).
    """
    if not sys.platform.startswith("linux"):
        return
    _set_pdeathsig()
    if parent_pid is None:
        return
    ppid = os.getppid()
    if ppid == parent_pid:
        return
    # not our parent: a fork server started by parent_pid, or we were re-parented because
    # parent_pid died before the prctl call above
    grand = _parent_of(ppid)
    if ppid == 1 or (grand is not None and grand != parent_pid):
        os._exit(1)
    # a fork server outlives parent_pid as long as its workers hold their end of its
    # "alive" pipe, so the kernel's signal would never come: watch parent_pid directly
    threading.Thread(
        target=_exit_when_dead, args=(parent_pid,), name="die-with-parent", daemon=True
    ).start()


def _exit_when_dead(pid: int) -> None:
    """Block until process ``pid`` exits (pidfd, else polling), then kill this process."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])
    else:  # pragma: no cover - kernels before 5.3
        while _parent_of(pid) is not None:
            time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)


def _init_worker(parent_pid: int, initializer: Callable | None, initargs: tuple) -> None:
    # Ctrl-C reaches every process of the terminal's group: the main process stops the run
    # (one error line) and its pool; a worker would only print a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)
    if initializer is not None:
        initializer(*initargs)


def one_thread_worker() -> None:  # pragma: no cover - runs in worker processes
    """Worker initialiser for pools of Python policies: one BLAS/OpenMP thread, one torch thread.

    Policies backed by neural networks (``agents.sb3.SB3Policy``) would otherwise start one
    thread per core in every worker. A forked worker inherits the BLAS and OpenMP libraries the
    parent has already loaded, with their thread pools, so their limit is set at run time
    (``threadpoolctl``); the environment variables cover libraries loaded later. torch is
    never imported here; it is set only if loaded.
    """
    from threadpoolctl import threadpool_limits

    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    threadpool_limits(limits=1)  # for the rest of the worker's life
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def process_pool(
    max_workers: int,
    mp_context=None,
    initializer: Callable | None = None,
    initargs: tuple = (),
) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` whose workers die with this process (see the module docstring).

    Args:
        max_workers: Worker processes.
        mp_context: A ``multiprocessing`` context (None = the default start method).
        initializer: Run in each worker after :func:`die_with_parent` (module-level callable).
        initargs: Its arguments.
    """
    return ProcessPoolExecutor(
        max_workers=max_workers,
        mp_context=mp_context,
        initializer=_init_worker,
        initargs=(os.getpid(), initializer, tuple(initargs)),
    )


def dask_worker_plugin(parent_pid: int):
    """A Dask ``WorkerPlugin`` running :func:`die_with_parent` in every worker (restarts too).

    Register it only on a ``LocalCluster`` this process started
    (``client.register_plugin(dask_worker_plugin(os.getpid()))``): its worker processes are
    children of this process (their nannies run in it). A worker of a remote cluster is not a
    child of ``parent_pid`` and would exit at once. ``distributed`` is imported here only.
    """
    from distributed.diagnostics.plugin import WorkerPlugin

    class DieWithParent(WorkerPlugin):
        name = "hanabi-adhoc-die-with-parent"

        def __init__(self, pid: int):
            self.parent_pid = int(pid)

        def setup(self, worker) -> None:
            die_with_parent(self.parent_pid)

    return DieWithParent(parent_pid)
