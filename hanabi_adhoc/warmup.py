"""Compile every numba kernel once, up front, and say how long it took.

The first use of a compiled kernel in a fresh environment compiles it (minutes on 2 cores for
all of them); later uses load the machine code from the on-disk cache (:mod:`hanabi_env.jit`)
in seconds. :func:`warm_up` pays that cost explicitly, so that it is visible and paid once:
``hanabi-adhoc warmup`` runs it, and the test suite runs it in a session fixture
(``tests/conftest.py``) instead of charging it to whichever test happens to run first.

Each step plays a tiny workload through a public entry point, so every kernel signature the
toolkit uses is compiled (or loaded):

1. ``env``: a game through ``hanabi_env.env()`` with a rule agent in each seat (engine, views,
   observation encoding, the per-decision rule kernels);
2. ``rule games``: batches of rule-agent games in both rulesets, with and without early
   stopping (the rule-game kernel of :mod:`agents.rule_games`, through :mod:`agents.evaluate`
   and :mod:`qd.evaluator`);
3. ``meta``: a response table and every meta-agent variant on the compiled path (the [ToG20]
   switching kernel of :mod:`meta._kernels`);
4. ``batched``: the vector env (:mod:`hanabi_env.vector`, its observation dtypes) and the
   lockstep player of pools with a batch policy (:mod:`agents.lockstep`).

**A first run that says so.** :func:`ensure_compiled` is what the commands call before their
work: it runs only the steps they need that the cache has not recorded yet (a small
``warmup.json`` in the cache folder, which is keyed on the kernel sources,
:func:`hanabi_env.jit.cache_root`), and on the first run announces the compilation with an
estimate (:data:`ESTIMATE_S`, measured on the 2-core development machine) and one line per
step as it finishes. Later runs say nothing and lose nothing.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["ESTIMATE_S", "STEPS", "ensure_compiled", "warm_up"]


def _env_game() -> None:
    import hanabi_env
    from agents.registry import make

    env = hanabi_env.env(players=2, scoring="lenient")
    env.reset(seed=0)
    seats = {a: make("piers") for a in env.possible_agents}
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(seats[agent].act(env.unwrapped.view(agent)))
    env.close()


def _rule_games() -> None:
    from agents.evaluate import evaluate
    from qd.config import MapElitesConfig
    from qd.evaluator import SerialBackend, evaluate_solutions, replay_holds

    for ruleset in ("corrected", "reference"):
        evaluate("piers", games=2, players=[2, 3], seed=0, ruleset=ruleset, progress=False)
        sols = [[39, 0, 1], [5, 2, 39]]
        backend = SerialBackend()
        evaluate_solutions(sols, [1, 2], 2, (2,), "lenient", backend, ruleset)
        replay_holds([sols[0]], [3], [10], MapElitesConfig(games=2, ruleset=ruleset), backend)


def _meta() -> None:
    from agents.registry import make
    from meta import ALL_VARIANTS, build_table, evaluate_meta

    pool = [make("piers"), make("iggi")]
    ids = ["[0,1]", "[2,3]"]
    table = build_table(pool, pool, games=1, seed=0, response_ids=ids, hypothesis_ids=ids)
    evaluate_meta(table, pool, pool, ids, variants=ALL_VARIANTS, episodes=1, games=1)


def _batched() -> None:
    import numpy as np

    from agents.batch import UniformBatchPolicy
    from agents.evaluate import play
    from hanabi_env.vector import OBSERVATION_DTYPES, HanabiVectorEnv

    for dtype in OBSERVATION_DTYPES:
        venv = HanabiVectorEnv(2, observation_dtype=dtype, all_observations=dtype == "float64")
        _, infos = venv.reset(seed=0)
        venv.step(np.argmax(infos["action_mask"], axis=1))
        venv.close()
    play([UniformBatchPolicy(), "piers"], games=2, seed=0)


STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("env", _env_game),
    ("rule games", _rule_games),
    ("meta", _meta),
    ("batched", _batched),
)
"""The warm-up steps, in order: ``(name, function)``."""


ESTIMATE_S = {"env": 100.0, "rule games": 90.0, "meta": 15.0, "batched": 70.0}
"""Seconds each step takes to compile on a cold cache: the CPU seconds measured on the 2-core
development machine (2026-11-27, 281 CPU-s in all: env 105, rule games 92, meta 13, batched
71), which is the wall time on an idle machine.

Compilation runs on one core, so more cores do not shorten it; a busy machine lengthens it.
"""

MARKER = "warmup.json"
"""The file in the cache folder that records the steps already compiled (step → seconds)."""


def warm_up(say: Callable[[str], None] | None = None) -> dict[str, float]:
    """Compile (or load from the cache) every kernel; return the seconds each step took.

    Args:
        say: Called with one line per step as it finishes (e.g. ``print``); None = silent.

    Returns:
        Step name → wall-clock seconds (compiling on a cold cache, loading on a warm one).
    """
    return _run_steps([name for name, _ in STEPS], say)


def _run_steps(names: Iterable[str], say: Callable[[str], None] | None) -> dict[str, float]:
    funcs = dict(STEPS)
    names = list(names)
    seconds: dict[str, float] = {}
    for k, name in enumerate(names, 1):
        t0 = time.perf_counter()
        funcs[name]()
        seconds[name] = time.perf_counter() - t0
        _mark_done(name, seconds[name])
        if say is not None:
            say(f"[{k}/{len(names)}] {name}: {seconds[name]:.1f} s")
    return seconds


def _marker_path() -> Path | None:
    from hanabi_env.jit import cache_root

    root = cache_root()
    return None if root is None else root / MARKER


def compiled_steps() -> dict[str, float]:
    """The steps the kernel cache already holds (step → seconds it took), from its marker.

    Returns:
        An empty dict when nothing is recorded (a new version of the kernel sources, a new
        cache folder, or no cache at all).
    """
    path = _marker_path()
    try:
        doc = json.loads(path.read_text()) if path is not None else {}
    except (OSError, ValueError):
        return {}
    steps = doc.get("steps") if isinstance(doc, dict) else None
    return {str(k): float(v) for k, v in steps.items()} if isinstance(steps, dict) else {}


def _mark_done(name: str, seconds: float) -> None:
    """Record a finished step in the cache's marker (silently skipped when not writable)."""
    path = _marker_path()
    if path is None:
        return
    steps = {**compiled_steps(), name: round(seconds, 1)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{MARKER}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"steps": steps}, indent=1))
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: kernels compile in memory and hanabi_env.jit has said so once


def ensure_compiled(
    steps: Iterable[str] | None = None,
    say: Callable[[str], None] | None = None,
) -> float:
    """Compile the kernels of ``steps`` that the cache does not hold yet, and say so.

    The first run of a command (a fresh install, or new kernel sources) announces the
    compilation with an estimate and prints one line per step; when the cache already holds
    every step, nothing is printed and nothing is compiled.

    Args:
        steps: Names of :data:`STEPS` (default: all of them).
        say: Where the lines go (default: standard error, so that a command's output stays
            clean); pass ``lambda line: None`` for silence.

    Returns:
        Seconds spent compiling (0.0 when everything was cached).

    Raises:
        ValueError: An unknown step name.
    """
    known = [name for name, _ in STEPS]
    wanted = known if steps is None else list(steps)
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise ValueError(f"steps: {unknown[0]!r} is not a warm-up step; allowed: {known}")
    done = compiled_steps()
    todo = [n for n in known if n in wanted and n not in done]
    if not todo:
        return 0.0
    if say is None:

        def say(line: str) -> None:
            print(line, file=sys.stderr, flush=True)

    estimate = sum(ESTIMATE_S[n] for n in todo)
    say(
        f"compiling kernels (once for this version, about {_minutes(estimate)} on an idle "
        "machine, longer on a busy one; later runs load them in seconds)..."
    )
    t0 = time.perf_counter()
    _run_steps(todo, lambda line: say(f"  {line}"))
    return time.perf_counter() - t0


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds >= 150 else f"{seconds / 60:.1f} min"
