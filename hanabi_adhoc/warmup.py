"""Compile every numba kernel once, up front, and say how long it took.

The first use of a compiled kernel in a fresh environment compiles it (minutes on 2 cores for
all of them); later uses load the machine code from the on-disk cache (:mod:`hanabi_env._jit`)
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
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["warm_up"]


def _env_game() -> None:
    import hanabi_env
    from agents.policy import make

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
    from agents.policy import make
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


def warm_up(say: Callable[[str], None] | None = None) -> dict[str, float]:
    """Compile (or load from the cache) every kernel; return the seconds each step took.

    Args:
        say: Called with one line per step as it finishes (e.g. ``print``); None = silent.

    Returns:
        Step name → wall-clock seconds (compiling on a cold cache, loading on a warm one).
    """
    seconds: dict[str, float] = {}
    for name, step in STEPS:
        t0 = time.perf_counter()
        step()
        seconds[name] = time.perf_counter() - t0
        if say is not None:
            say(f"{name}: {seconds[name]:.1f} s")
    return seconds
