"""Quality diversity over rule-based Hanabi agents: MAP-Elites and the 2018 genetic algorithm.

Four places, pyribs' way: the **archive** (:mod:`qd.archive`), the
**emitter** (:mod:`qd.emitters`), the **scheduler** / loop with the papers' paired replacement
and checkpoints (:mod:`qd.scheduler`), and the plain **evaluator** with its parallel backends
(:mod:`qd.evaluator`). Around them: measures and binning (:mod:`qd.measures`), named
configurations (:mod:`qd.config`), end-to-end runs and output files (:mod:`qd.run`), files and
the published populations (:mod:`qd.io`), population analysis (:mod:`qd.analysis`), heatmaps
(:mod:`qd.plot`), and the [CIG18] genetic algorithm and its situational agent (:mod:`qd.ga`,
:mod:`qd.situational`).

Example (a tiny run)::

    from qd import MapElites, get_config
    loop = MapElites(get_config("quick", candidates=200, random_candidates=50, games=5))
    archive = loop.run(progress=False)
    print(archive.stats())

Sources: [CoG19] Algorithm 1, [ToG20], [Bayes21], [CIG18] (docs/papers.md §2–3); docs/rules.md
§5–8, §10.
"""

from qd.analysis import (
    MatchupTable,
    action_agreement,
    archive_matchups,
    cross_run_metrics,
    matchup_table,
    reevaluate,
)
from qd.archive import Archive, ArchiveStats
from qd.config import CONFIGS, MapElitesConfig, get_config
from qd.emitters import MapElitesEmitter, mutate, random_solutions, uniform_crossover
from qd.evaluator import (
    Backend,
    DaskBackend,
    Evaluation,
    ProcessBackend,
    SerialBackend,
    ThreadBackend,
    derive_seed,
    evaluate_solutions,
    make_backend,
)
from qd.ga import (
    GA_CONFIGS,
    GAConfig,
    GAResult,
    ordered_crossover,
    population_fitness,
    run_ga,
    swap_mutation,
    tournament,
)
from qd.io import load_archive, load_population, save_archive
from qd.measures import MEASURES, Measure, bin_index, get_measure, measures_from_counters
from qd.run import run_map_elites
from qd.scheduler import CheckpointError, MapElites, RunCounters
from qd.situational import SituationalAgent, evaluate_situational, evolve_situational

__all__ = [
    "CONFIGS",
    "GA_CONFIGS",
    "MEASURES",
    "Archive",
    "ArchiveStats",
    "Backend",
    "CheckpointError",
    "DaskBackend",
    "Evaluation",
    "GAConfig",
    "GAResult",
    "MapElites",
    "MapElitesConfig",
    "MapElitesEmitter",
    "MatchupTable",
    "Measure",
    "ProcessBackend",
    "RunCounters",
    "SerialBackend",
    "SituationalAgent",
    "ThreadBackend",
    "action_agreement",
    "archive_matchups",
    "bin_index",
    "cross_run_metrics",
    "derive_seed",
    "evaluate_situational",
    "evaluate_solutions",
    "evolve_situational",
    "get_config",
    "get_measure",
    "load_archive",
    "load_population",
    "make_backend",
    "matchup_table",
    "measures_from_counters",
    "mutate",
    "ordered_crossover",
    "population_fitness",
    "random_solutions",
    "reevaluate",
    "run_ga",
    "run_map_elites",
    "save_archive",
    "swap_mutation",
    "tournament",
    "uniform_crossover",
]
