"""``hanabi-adhoc warmup``: compile every numba kernel now (:mod:`hanabi_adhoc.warmup`)."""

from __future__ import annotations

import argparse

__all__ = ["add_subcommand"]


def add_subcommand(sub) -> None:
    """Register ``warmup`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import add_command

    add_command(
        sub,
        "warmup",
        _warmup,
        None,
        (),
        help="compile every numba kernel now (minutes on a fresh install, seconds after)",
        description="Compiles (or loads from the cache) every compiled kernel by playing tiny "
        "workloads through the public API, and prints the seconds each step took "
        "(hanabi_adhoc.warmup). Run it once after installing, or in a container image build.",
    )


def _warmup(args: argparse.Namespace) -> int:
    import time

    from hanabi_adhoc.warmup import ESTIMATE_S, STEPS, compiled_steps, warm_up
    from hanabi_env.jit import cache_root

    print(f"numba cache: {cache_root() or 'none (compiled in memory)'}")
    todo = [name for name, _ in STEPS if name not in compiled_steps()]
    if todo:
        estimate = sum(ESTIMATE_S[name] for name in todo)
        print(f"compiling {len(todo)} of {len(STEPS)} steps (about {estimate / 60:.0f} min on an "
              "idle machine; once for this version)", flush=True)  # fmt: skip
    t0 = time.perf_counter()
    warm_up(say=lambda line: print(f"  {line}", flush=True))
    print(f"all kernels ready in {time.perf_counter() - t0:.1f} s")
    return 0
