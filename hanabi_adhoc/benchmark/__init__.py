"""An ad-hoc teamwork benchmark: any agent with partners it has never met, niche by niche.

docs/benchmark.md. One call (or ``hanabi-adhoc benchmark AGENT``) plays an agent with every
partner of named, versioned suites (:mod:`~hanabi_adhoc.benchmark.suites`) under one protocol
(:mod:`~hanabi_adhoc.benchmark.protocol`: duplicate deals, seats rotated, 2–5 players) into a flat
table of per-game results (:mod:`~hanabi_adhoc.benchmark.results`); every number of the report
(:mod:`~hanabi_adhoc.benchmark.aggregate`, :mod:`~hanabi_adhoc.benchmark.report`) is computed
from that table: normalised scores against the best known response, mean and IQM with stratified
bootstrap CIs, niche heatmaps, the agent's own behaviour, adaptation curves, per-seat and
per-game-size tables.

Example::

    from hanabi_adhoc.benchmark import run_benchmark

    bench = run_benchmark(["piers", "my_agents.py:MyPolicy"], suites=["pool"], out="runs/bench")
    print(bench.summary["agents"][0]["suites"]["pool@1"]["all"]["normalised_iqm"])
"""

from hanabi_adhoc.benchmark.results import Results
from hanabi_adhoc.benchmark.run import AgentRun, Benchmark, BenchmarkSettings, run_benchmark
from hanabi_adhoc.benchmark.suites import (
    DEFAULT_SUITES,
    SUITES,
    Group,
    Partner,
    Suite,
    load_suite,
    load_suites,
)

__all__ = [
    "DEFAULT_SUITES",
    "SUITES",
    "AgentRun",
    "Benchmark",
    "BenchmarkSettings",
    "Group",
    "Partner",
    "Results",
    "Suite",
    "load_suite",
    "load_suites",
    "run_benchmark",
]
