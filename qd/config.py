"""Named MAP-Elites configurations ([CoG19], [ToG20], [Bayes21]; docs/rules.md §7.2).

| name | grid | measures | candidates | random | games | re-eval games | crossover |
|---|---|---|---|---|---|---|---|
| ``quick`` (default) | 5×5 | communicativeness × IPP | 4,000 | 400 | 25 | 200 | 0.5 |
| ``paper`` ([Bayes21]) | 5×5 | communicativeness × IPP | 10⁶ | 10⁴ | 100 | 1,000 | 0.5 |
| ``paper-20x20`` ([ToG20]) | 20×20 | communicativeness × IPP | 10⁶ | 10⁴ | 100 | 1,000 | 0.5 |
| ``paper-cog19`` ([CoG19]) | 20×20 | comm. × risk aversion | 10⁶ | 10⁴ | 100 | 1,000 | 0.5 |

All use 2-player mirror self-play with lenient scoring, 15 genes, per-gene mutation 0.1, and the
papers' crossover probability 0.5 (docs/papers.md §3; the later reference code used 0.1,
docs/rules.md §7.2 — override with ``crossover_rate``). ``batch_size`` candidates are generated
from the same archive state and evaluated together (:mod:`qd.scheduler`); it is part of the
algorithm's definition (results depend on it, never on the number of workers).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

from hanabi_env.config import check_field

__all__ = ["CONFIGS", "RESULT_FIELDS", "MapElitesConfig", "get_config"]


@dataclass(frozen=True)
class MapElitesConfig:
    """Everything that defines a MAP-Elites run (docs/rules.md §7.1).

    Attributes:
        name: Label of the configuration.
        candidates: Total candidates evaluated (phase 1 included), >= 1.
        random_candidates: Phase-1 uniform random candidates, in [1, candidates].
        games: Self-play games per candidate evaluation and player count.
        reeval_games: Games per elite in the final re-evaluation (0 = none).
        dims: Cells per measure dimension.
        measures: Measure names (:data:`qd.measures.MEASURES`), one per dimension.
        players: Player counts of an evaluation (objective averaged over them).
        crossover_rate: Probability of uniform crossover in phase 2.
        mutation_rate: Per-gene mutation probability.
        n_genes: Genes per chromosome.
        scoring: ``"lenient"`` (the papers) or ``"strict"``.
        batch_size: Candidates generated from one archive state and evaluated together.
        seed: Master seed.
        checkpoint_every: Candidates between checkpoints (does not change results).
    """

    name: str = "quick"
    candidates: int = 4000
    random_candidates: int = 400
    games: int = 25
    reeval_games: int = 200
    dims: tuple[int, ...] = (5, 5)
    measures: tuple[str, ...] = ("communicativeness", "ipp")
    players: tuple[int, ...] = (2,)
    crossover_rate: float = 0.5
    mutation_rate: float = 0.1
    n_genes: int = 15
    scoring: str = "lenient"
    batch_size: int = 100
    seed: int = 0
    checkpoint_every: int = field(default=1000)

    def __post_init__(self) -> None:
        """Normalise tuples and validate (ValueError naming the parameter)."""
        object.__setattr__(self, "dims", tuple(int(d) for d in self.dims))
        object.__setattr__(self, "measures", tuple(str(m) for m in self.measures))
        object.__setattr__(self, "players", tuple(int(p) for p in self.players))

        check = functools.partial(check_field, self)

        check("candidates", self.candidates >= 1, ">= 1")
        check(
            "random_candidates", 1 <= self.random_candidates <= self.candidates, "[1, candidates]"
        )
        check("games", self.games >= 1, ">= 1")
        check("reeval_games", self.reeval_games >= 0, ">= 0")
        check("dims", len(self.dims) >= 1 and all(d >= 1 for d in self.dims), "positive ints")
        check("measures", len(self.measures) == len(self.dims), "one name per dimension")
        check(
            "players",
            bool(self.players) and all(2 <= p <= 5 for p in self.players),
            "sizes in [2, 5]",
        )
        check("crossover_rate", 0.0 <= self.crossover_rate <= 1.0, "[0, 1]")
        check("mutation_rate", 0.0 <= self.mutation_rate <= 1.0, "[0, 1]")
        check("n_genes", 1 <= self.n_genes <= 105, "[1, 105]")
        check("scoring", self.scoring in ("lenient", "strict"), "'lenient', 'strict'")
        check("batch_size", self.batch_size >= 1, ">= 1")
        check("checkpoint_every", self.checkpoint_every >= 1, ">= 1")
        check("seed", self.seed >= 0, ">= 0")

    def as_dict(self) -> dict:
        """JSON-serialisable dict (tuples become lists)."""
        return {
            k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_dict(cls, d: dict) -> MapElitesConfig:
        """Inverse of :meth:`as_dict` (unknown keys rejected).

        Raises:
            ValueError: Unknown keys or invalid values.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown MapElitesConfig fields: {sorted(unknown)}")
        return cls(**d)

    def replace(self, **changes) -> MapElitesConfig:
        """A copy with ``changes`` (validated); ``None`` values are ignored."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


RESULT_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(MapElitesConfig)
    if f.name not in ("name", "checkpoint_every")
)
"""Fields whose values change a run's results (a checkpoint must match them to resume)."""

_PAPER = {
    "candidates": 1_000_000,
    "random_candidates": 10_000,
    "games": 100,
    "reeval_games": 1000,
    "crossover_rate": 0.5,
    "batch_size": 100,
    "checkpoint_every": 10_000,
}

CONFIGS: dict[str, MapElitesConfig] = {
    "quick": MapElitesConfig(),
    "paper": MapElitesConfig(name="paper", dims=(5, 5), **_PAPER),
    "paper-20x20": MapElitesConfig(name="paper-20x20", dims=(20, 20), **_PAPER),
    "paper-cog19": MapElitesConfig(
        name="paper-cog19",
        dims=(20, 20),
        measures=("communicativeness", "risk_aversion"),
        **_PAPER,
    ),
}
"""The named configurations of the module docstring."""


def get_config(name: str = "quick", **overrides) -> MapElitesConfig:
    """A named configuration with overrides (``None`` values ignored).

    Raises:
        ValueError: Unknown ``name`` or invalid overrides.
    """
    if name not in CONFIGS:
        raise ValueError(f"name={name!r} is not allowed; allowed: {', '.join(CONFIGS)}")
    return CONFIGS[name].replace(**overrides)
