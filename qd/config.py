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
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hanabi_env.config import SCORING_VARIANTS, check_field
from hanabi_env.validate import (
    check_choice,
    check_float,
    check_int,
    check_int_sequence,
    check_seed,
    check_str,
    type_error,
)
from qd.measures import MEASURES

__all__ = ["CONFIGS", "RESULT_FIELDS", "MapElitesConfig", "get_config"]


@dataclass(frozen=True)
class MapElitesConfig:
    """Everything that defines a MAP-Elites run (docs/rules.md §7.1).

    Attributes:
        name: Label of the configuration (a non-empty str).
        candidates: Total candidates evaluated (phase 1 included), >= 1.
        random_candidates: Phase-1 uniform random candidates, in [1, candidates].
        games: Self-play games per candidate evaluation and player count, >= 1.
        reeval_games: Games per elite in the final re-evaluation (0 = none).
        dims: Cells per measure dimension, each in [1, 1000], at most 10**6 cells in all.
        measures: Measure names (:data:`qd.measures.MEASURES`), one per dimension.
        players: Player counts of an evaluation (objective averaged over them), each in
            [2, 5] and given once.
        crossover_rate: Probability of uniform crossover in phase 2, in [0, 1].
        mutation_rate: Per-gene mutation probability, in [0, 1].
        n_genes: Genes per chromosome, in [1, 105].
        scoring: ``"lenient"`` (the papers) or ``"strict"``.
        batch_size: Candidates generated from one archive state and evaluated together, >= 1.
        seed: Master seed, in ``[0, 2**62)``.
        checkpoint_every: Candidates between checkpoints (does not change results), >= 1.
        ruleset: ``"corrected"`` (default) or ``"reference"``: candidates play as the Java
            reference's chromosome agents and measures are binned as the reference binned them
            (docs/rules.md §12.2).

    Raises:
        TypeError: A field of the wrong type (a float count, a bool, a str for a sequence...).
        ValueError: A field out of range (the message names it and the allowed values).
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
    ruleset: str = "corrected"

    def __post_init__(self) -> None:
        """Validate every field (see the class docstring); store plain Python values."""
        check_str("name", self.name)
        candidates = check_int("candidates", self.candidates, 1)
        values = {
            "candidates": candidates,
            "random_candidates": check_int(
                "random_candidates", self.random_candidates, 1, candidates, allowed=_UP_TO
            ),
            "games": check_int("games", self.games, 1),
            "reeval_games": check_int("reeval_games", self.reeval_games, 0),
            "dims": check_int_sequence(
                "dims", self.dims, 1, 1000, unique=False, what="cell counts"
            ),
            "measures": tuple(
                check_choice("measures", m, MEASURES) for m in _str_tuple("measures", self.measures)
            ),
            "players": check_int_sequence("players", self.players, 2, 5, what="player counts"),
            "crossover_rate": check_float("crossover_rate", self.crossover_rate, 0.0, 1.0),
            "mutation_rate": check_float("mutation_rate", self.mutation_rate, 0.0, 1.0),
            "n_genes": check_int("n_genes", self.n_genes, 1, 105),
            "scoring": check_choice("scoring", self.scoring, SCORING_VARIANTS),
            "batch_size": check_int("batch_size", self.batch_size, 1),
            "seed": check_seed("seed", self.seed),
            "checkpoint_every": check_int("checkpoint_every", self.checkpoint_every, 1),
            "ruleset": check_choice("ruleset", self.ruleset, ("corrected", "reference")),
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)
        check_field(self, "dims", math.prod(self.dims) <= 10**6, "at most 10**6 cells in all")
        check_field(
            self, "measures", len(self.measures) == len(self.dims), "one name per dimension"
        )

    def as_dict(self) -> dict:
        """JSON-serialisable dict (tuples become lists)."""
        return {
            k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_dict(cls, d: dict) -> MapElitesConfig:
        """Inverse of :meth:`as_dict` (unknown keys rejected).

        Raises:
            TypeError: ``d`` is not a mapping, or a value of the wrong type.
            ValueError: Unknown keys or invalid values.
        """
        if not isinstance(d, Mapping):
            raise type_error("d", "a dict", d)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown MapElitesConfig fields: {sorted(unknown)}")
        return cls(**d)

    def replace(self, **changes) -> MapElitesConfig:
        """A copy with ``changes`` (validated); ``None`` values are ignored."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


_UP_TO = "[1, candidates]"


def _str_tuple(name: str, value: object) -> tuple[str, ...]:
    """A sequence of non-empty strings as a tuple (a single str is not a sequence here)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise type_error(name, "a sequence of names", value)
    return tuple(check_str(name, v) for v in value)


RESULT_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(MapElitesConfig)
    if f.name not in ("name", "checkpoint_every")
)
"""Fields whose values change a run's results (a checkpoint must match them to resume)."""

_PAPER: dict[str, Any] = {
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
        TypeError: ``name`` not a str, an unknown override keyword, or a value of the wrong
            type.
        ValueError: Unknown ``name`` or invalid overrides.
    """
    check_choice("name", name, CONFIGS)
    return CONFIGS[name].replace(**overrides)
