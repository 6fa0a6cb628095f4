"""The 2018 genetic algorithm over rule permutations and the situational agent ([CIG18]).

docs/rules.md §8 and docs/papers.md §2: a chromosome is a **permutation** of the first ``n_rules``
rule indices (50 = the CIG-2018 "standard" base, 72 with the new rules; docs/rules.md §1),
optionally truncated to its first ``n_genes`` genes. Each generation the whole population (elites
included) is evaluated on the same games (common random numbers), sorted best first; the top
``elitism`` are copied; every other rank undergoes, with probability ``crossover_rate``,
**ordered crossover** with a **tournament**-selected partner, then **swap mutation**.

Fitness ([CIG18], docs/rules.md §6): **mirror** — mean self-play score at each player count,
averaged over player counts; **mixed** — for each test-pool agent and player count, the individual
sits in a uniformly random seat and the other seats are copies of the pool agent; mean over the
pool of the mean over player counts. Generation ``g`` plays the games of ``derive_seed(seed, 10,
g)`` with exactly the seeding of :func:`agents.evaluate.evaluate`, so an individual's fitness equals
``evaluate(RuleAgent(chromosome), mode, players, games, seed=derive_seed(seed, 10, g)).mean``.

**Rulesets** (docs/rules.md §12). ``GAConfig(ruleset="reference")`` evolves chromosomes that play
as the papers' Java code ran them: each individual is a Hanabi-Map-Elites ``HistogramAgent``
(``RuleAgent(chromosome, ruleset="reference")``), games have the framework's fixed hand slots,
and mixed-mode partners are the reference baselines (``agents.make(name, ruleset="reference")``,
ProductionRuleAgents). ``preset="cig18"`` makes the mixed fitness [CIG18]'s own: the 2018 pool as
the framework instantiated it (:data:`agents.reference.CIG18_POOL`, ``agents.make(name,
preset="cig18")``), reference rules, random seat, lenient scoring; an individual's fitness is then
``evaluate(RuleAgent(c, ruleset="reference"), "mixed", players, games, preset="cig18",
seed=...).mean``.

The **situational agent** of [CIG18], which combines one chromosome per group of game sizes,
is in :mod:`qd.situational`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluate import check_games, game_seeds, play_games
from agents.policy import Policy, RuleAgent
from agents.reference import CIG18_POOL, PRESETS, RULESETS, check_preset, hand_order_for
from agents.registry import make
from agents.rulebase import BASELINES, N_ALPHABET, TEST_POOL
from agents.rules import reference as RR
from hanabi_env.config import HanabiConfig
from hanabi_env.deprecation import moved_to
from hanabi_env.outputs import file_lock, settings_diff
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_int_sequence,
    check_optional_int,
    check_seed,
    check_str,
    type_error,
)
from qd.evaluator import (
    Backend,
    SerialBackend,
    check_solutions,
    derive_seed,
    evaluate_solutions,
)
from qd.io import (
    CHECKPOINT_FIX,
    CheckpointError,
    read_checksummed_json,
    write_checksummed_json,
)

__all__ = [
    "GA_CHECKPOINT_FORMAT",
    "GA_CONFIGS",
    "GAConfig",
    "GAResult",
    "next_generation",
    "ordered_crossover",
    "population_fitness",
    "read_ga_checkpoint",
    "run_ga",
    "save_ga_checkpoint",
    "swap_mutation",
    "tournament",
]


# --------------------------------------------------------------------------------------------
# operators (docs/rules.md §8)
# --------------------------------------------------------------------------------------------


def ordered_crossover(
    rng: np.random.Generator, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """Ordered crossover of two permutations (docs/rules.md §8).

    Draw two positions uniformly in ``[0, L)``; ``start`` = the smaller, ``end`` = the larger.
    The child keeps ``first[start:end]`` in place and fills the remaining positions, left to
    right, with ``second``'s genes read cyclically from position ``end``, skipping genes
    already present.

    Args:
        rng: Generator (two draws).
        first: ``(L,)`` int64 parent 1 (distinct genes).
        second: ``(L,)`` int64 parent 2 (distinct genes).

    Returns:
        ``(L,)`` int64 child with distinct genes.
    """
    n = len(first)
    a, b = (int(x) for x in rng.integers(0, n, 2))
    start, end = min(a, b), max(a, b)
    child = np.full(n, -1, dtype=np.int64)
    child[start:end] = first[start:end]
    present = set(child[start:end].tolist())
    fill = [int(g) for g in np.roll(second, -end) if int(g) not in present]
    free = [i for i in range(n) if not start <= i < end]
    child[free] = fill[: len(free)]
    return child


def swap_mutation(rng: np.random.Generator, chromosome: np.ndarray, rate: float) -> np.ndarray:
    """Swap mutation: each position, in order, w.p. ``rate`` swaps with a uniform position.

    Args:
        rng: Generator (one uniform per position, plus one integer per swap).
        chromosome: ``(L,)`` int64.
        rate: Per-gene probability (0.1 in [CIG18]).

    Returns:
        ``(L,)`` int64 mutated copy (a permutation of the input).
    """
    x = np.array(chromosome, dtype=np.int64)
    n = len(x)
    for i in np.flatnonzero(rng.random(n) < rate):
        j = int(rng.integers(0, n))
        x[i], x[j] = x[j], x[i]
    return x


def tournament(rng: np.random.Generator, fitness: np.ndarray, size: int) -> int:
    """Tournament selection: shuffle the population, keep the best of the first ``size``.

    Ties go to the earlier in the shuffled order.

    Returns:
        The winner's index into ``fitness``.
    """
    order = rng.permutation(len(fitness))[: max(1, int(size))]
    return int(order[int(np.argmax(fitness[order]))])


# --------------------------------------------------------------------------------------------
# configuration and fitness
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GAConfig:
    """Settings of a [CIG18] run (docs/rules.md §8).

    Attributes:
        name: Label.
        population: Individuals per generation.
        generations: Generations.
        n_rules: Rule indices permuted (50 old base, 72 with the new rules; <= 105).
        n_genes: Genes kept per chromosome (None = ``n_rules``, a full permutation).
        elitism: Individuals copied unchanged each generation.
        tournament: Tournament size.
        crossover_rate: Probability of ordered crossover per non-elite rank.
        mutation_rate: Per-gene swap probability.
        mode: ``"mirror"`` or ``"mixed"``.
        players: Player counts.
        games: Games per player count (and pool partner in mixed mode) per generation.
        final_top: Best individuals of the last generation re-evaluated.
        final_games: Games per player count (and partner) of that re-evaluation.
        scoring: ``"lenient"`` or ``"strict"``.
        seed: Master seed.
        pool: Test-pool agent names (mixed mode).
        ruleset: ``"corrected"`` (default) or ``"reference"``: individuals play as the Java
            reference's chromosome agents (HistogramAgent) and named partners as its
            baselines, with fixed hand slots (docs/rules.md §12).
        preset: ``None`` (default) or ``"cig18"``: the mixed fitness of [CIG18], against the
            2018 pool as the framework instantiated it (:data:`agents.reference.CIG18_POOL`);
            needs ``ruleset="reference"``, ``mode="mixed"`` and lenient scoring, and the pool
            names must be in that pool (docs/rules.md §12.3).
    """

    name: str = "quick"
    population: int = 20
    generations: int = 5
    n_rules: int = 50
    n_genes: int | None = None
    elitism: int = 4
    tournament: int = 3
    crossover_rate: float = 0.9
    mutation_rate: float = 0.1
    mode: str = "mirror"
    players: tuple[int, ...] = (2, 3, 4, 5)
    games: int = 5
    final_top: int = 3
    final_games: int = 50
    scoring: str = "lenient"
    seed: int = 0
    pool: tuple[str, ...] = field(default=TEST_POOL)
    ruleset: str = "corrected"
    preset: str | None = None

    def __post_init__(self) -> None:
        """Validate (TypeError/ValueError naming the parameter); store plain Python values."""
        ruleset = check_choice("ruleset", self.ruleset, RULESETS)
        if self.preset is not None:
            check_choice("preset", self.preset, PRESETS)
        check_str("name", self.name)
        population = check_int("population", self.population, 2, 100_000)
        n_rules = check_int("n_rules", self.n_rules, 2, N_ALPHABET)
        up_to_population = "[{lo}, population]"
        if isinstance(self.pool, (str, bytes)) or not isinstance(self.pool, Sequence):
            raise type_error("pool", "a sequence of baseline names", self.pool)
        if not self.pool:
            raise ValueError(
                f"pool={tuple(self.pool)!r} is not allowed; allowed: at least one baseline name"
            )
        for p in self.pool:
            check_choice("pool", p, CIG18_POOL if self.preset == "cig18" else BASELINES)
        values: dict[str, Any] = {
            "population": population,
            "generations": check_int("generations", self.generations, 1),
            "n_rules": n_rules,
            "n_genes": check_optional_int("n_genes", self.n_genes, 2, n_rules),
            "elitism": check_int(
                "elitism", self.elitism, 0, population, allowed=up_to_population.format(lo=0)
            ),
            "tournament": check_int(
                "tournament", self.tournament, 1, population, allowed=up_to_population.format(lo=1)
            ),
            "crossover_rate": check_float("crossover_rate", self.crossover_rate, 0.0, 1.0),
            "mutation_rate": check_float("mutation_rate", self.mutation_rate, 0.0, 1.0),
            "mode": check_choice("mode", self.mode, ("mirror", "mixed")),
            "players": check_int_sequence("players", self.players, 2, 5, what="player counts"),
            "games": check_int("games", self.games, 1),
            "final_top": check_int(
                "final_top", self.final_top, 1, population, allowed=up_to_population.format(lo=1)
            ),
            "final_games": check_int("final_games", self.final_games, 1),
            "scoring": check_choice("scoring", self.scoring, ("lenient", "strict")),
            "seed": check_seed("seed", self.seed),
            "pool": tuple(self.pool),
            "ruleset": ruleset,
            "preset": self.preset,
        }
        if self.preset is not None:
            check_preset(self.preset, values["mode"], values["scoring"], ruleset)
        for key, value in values.items():
            object.__setattr__(self, key, value)

    @property
    def length(self) -> int:
        """Chromosome length (``n_genes`` or ``n_rules``)."""
        return self.n_rules if self.n_genes is None else self.n_genes

    def as_dict(self) -> dict:
        """JSON-serialisable dict."""
        return {
            k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()
        }

    def replace(self, **changes) -> GAConfig:
        """A copy with ``changes`` (``None`` values ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


_PAPER_GA: dict[str, Any] = {
    "population": 200,
    "generations": 500,
    "elitism": 20,
    "tournament": 5,
    "crossover_rate": 0.9,
    "mutation_rate": 0.1,
    "final_top": 10,
    "final_games": 1000,
}

GA_CONFIGS: dict[str, GAConfig] = {
    "quick": GAConfig(),
    "paper-mirror-old": GAConfig(
        name="paper-mirror-old", n_rules=50, mode="mirror", games=50, **_PAPER_GA
    ),
    "paper-mirror-new": GAConfig(
        name="paper-mirror-new", n_rules=72, mode="mirror", games=50, **_PAPER_GA
    ),
    "paper-mixed-old": GAConfig(
        name="paper-mixed-old", n_rules=50, mode="mixed", games=20, **_PAPER_GA
    ),
    "paper-mixed-new": GAConfig(
        name="paper-mixed-new", n_rules=72, mode="mixed", games=20, **_PAPER_GA
    ),
}
"""Named GA settings: ``quick`` (a smoke run) and [CIG18]'s four runs (docs/rules.md §8)."""


def population_fitness(
    chromosomes: Sequence[Sequence[int]] | np.ndarray,
    mode: str = "mirror",
    players: Sequence[int] = (2, 3, 4, 5),
    games: int = 20,
    seed: int = 0,
    scoring: str = "lenient",
    pool: Sequence[str | Policy] = TEST_POOL,
    backend: Backend | None = None,
    ruleset: str = "corrected",
    preset: str | None = None,
) -> np.ndarray:
    """Mirror or mixed fitness of a population on common random numbers ([CIG18]; docs/rules.md §6).

    Equal, individual by individual, to ``agents.evaluate.evaluate(RuleAgent(c, ruleset=ruleset),
    mode, players, games, pool, scoring, seed, ruleset=ruleset, preset=preset).mean``, with all
    games of the population played in one backend call per (partner, player count).

    Args:
        chromosomes: ``(n, L)`` rule lists.
        mode: ``"mirror"`` or ``"mixed"``.
        players: Player counts.
        games: Games per player count (and per partner in mixed mode).
        seed: Evaluation seed (shared by every individual).
        scoring: ``"lenient"`` or ``"strict"``.
        pool: Partners (mixed mode): baseline names, or fixed policies such as an
            ``agents.sb3.SB3Policy`` (non-rule partners play through
            ``agents.evaluate.play_games`` with ``backend.workers`` processes). Names are built
            with ``agents.make(name, ruleset=ruleset, preset=preset)``; a ``RuleAgent`` keeps
            its own ruleset.
        backend: Evaluation backend.
        ruleset: ``"corrected"`` (default) or ``"reference"``: the individuals play as the Java
            reference's chromosome agents (HistogramAgent), with fixed hand slots
            (docs/rules.md §12).
        preset: ``None`` or ``"cig18"``: [CIG18]'s mixed fitness (the 2018 pool as the
            framework built it; implies ``ruleset="reference"``, needs ``mode="mixed"`` and
            lenient scoring; the default pool becomes :data:`agents.reference.CIG18_POOL`).

    Returns:
        ``(n,)`` float64 fitness (points).

    Raises:
        TypeError: An argument of the wrong type (e.g. float chromosomes or ``games``).
        ValueError: Bad ``mode``, ``players``, ``games``, ``seed``, ``scoring``, ``pool``,
            ``ruleset`` or ``preset``.
    """
    check_choice("mode", mode, ("mirror", "mixed"))
    players = check_int_sequence("players", players, 2, 5, what="player counts")
    games = check_int("games", games, 1)
    seed = check_seed("seed", seed)
    check_choice("scoring", scoring, ("lenient", "strict"))
    check_choice("ruleset", ruleset, RULESETS)
    if preset is not None:
        check_preset(preset, mode, scoring)  # no ruleset check: the preset sets it, here
        ruleset = "reference"
        if pool is TEST_POOL:
            pool = tuple(CIG18_POOL)
    if backend is not None and not isinstance(backend, Backend):
        raise type_error("backend", "a qd.evaluator.Backend or None", backend)
    pop = check_solutions("chromosomes", chromosomes)
    check_games("games", games, times=len(pop))
    partners = _mixed_partners(pool, ruleset, preset) if mode == "mixed" else []
    backend = backend or SerialBackend()
    if mode == "mirror":
        ev = evaluate_solutions(
            pop, [seed] * len(pop), games, players, scoring, backend, ruleset=ruleset
        )
        return ev.objective
    # as agents.evaluate: fixed hand slots for every game once any reference agent plays
    order = hand_order_for(partners, ruleset=ruleset)
    per_partner = np.zeros((len(partners), len(pop)))
    for k, partner in enumerate(partners):
        per_size = np.zeros((len(players), len(pop)))
        for s, p in enumerate(players):
            cfg = HanabiConfig.for_game(p, scoring=scoring, hand_order=order)
            per_size[s] = _mixed_scores(pop, partner, cfg, games, seed, backend, ruleset)
        per_partner[k] = per_size.mean(axis=0)
    return per_partner.mean(axis=0)


def _mixed_partners(pool: Sequence[str | Policy], ruleset: str, preset: str | None) -> list[Policy]:
    """The mixed-mode partners of :func:`population_fitness`, ``pool`` checked and built.

    Raises:
        TypeError: ``pool`` is not a sequence of names or policies.
        ValueError: ``pool`` is empty or names a partner that is not a baseline (of
            :data:`agents.reference.CIG18_POOL` with ``preset="cig18"``).
    """
    if isinstance(pool, (str, bytes)) or not isinstance(pool, Sequence):
        raise type_error("pool", "a sequence of names or policies", pool)
    if not pool:
        raise ValueError("pool=[] is not allowed; allowed: at least one partner")
    for partner in pool:
        if not isinstance(partner, Policy):
            check_choice("pool", partner, CIG18_POOL if preset == "cig18" else BASELINES)
    return [p if isinstance(p, Policy) else make(p, ruleset=ruleset, preset=preset) for p in pool]


def _mixed_scores(
    pop: np.ndarray,
    partner: Policy,
    cfg: HanabiConfig,
    games: int,
    seed: int,
    backend: Backend,
    ruleset: str,
) -> np.ndarray:
    """``(n,)`` mean score of each individual with ``partner`` in every other seat of ``cfg``.

    Every individual plays the same ``games`` deals, seats and agent seeds
    (:func:`agents.evaluate.game_seeds` of ``seed``): common random numbers.
    """
    n, p = len(pop), cfg.players
    seats, deals, agent_seeds = game_seeds(seed, games, p, random_seat=True)
    seat_agents = np.full((n * games, p), n, dtype=np.int64)
    seat_agents[np.arange(n * games), np.tile(seats, n)] = np.repeat(np.arange(n), games)
    deals_n, seeds_n = np.tile(deals, n), np.tile(agent_seeds, (n, 1))
    if isinstance(partner, RuleAgent):
        mode_of = RR.MODE_HISTOGRAM if ruleset == "reference" else RR.MODE_FALLBACK
        rules = [*pop, partner.rules]
        modes = [mode_of] * n + [partner.mode]
        sc = _play_modes(backend, cfg, rules, modes, seat_agents, deals_n, seeds_n)
    else:  # a non-rule partner (e.g. an SB3 model): the generic evaluator
        policies = [*(RuleAgent(c, ruleset=ruleset) for c in pop), partner]
        batch = play_games(policies, seat_agents, deals_n, seeds_n, cfg, workers=backend.workers)
        sc = batch.scores
    return sc.reshape(n, games).mean(axis=1)


def _play_modes(
    backend: Backend,
    cfg: HanabiConfig,
    rules: list[np.ndarray],
    modes: list[int],
    seat_agents: np.ndarray,
    deals: np.ndarray,
    agent_seeds: np.ndarray,
) -> np.ndarray:
    """Scores of rule-agent games whose agents may run in different modes (wrappers).

    A reference individual (HistogramAgent) with a reference baseline (ProductionRuleAgent)
    needs two modes in one game (:meth:`qd.evaluator.Backend.play` ``modes=``).
    """
    return backend.play(cfg, rules, seat_agents, deals, agent_seeds, modes=modes)[0]


# --------------------------------------------------------------------------------------------
# the algorithm
# --------------------------------------------------------------------------------------------


@dataclass
class GAResult:
    """Outcome of :func:`run_ga`.

    Attributes:
        config: The configuration.
        population: ``(population, L)`` int64 last generation, best first.
        fitness: ``(population,)`` float64 its fitness (points).
        history: One dict per generation: ``generation``, ``best``, ``mean``, ``best_chromosome``.
        final: The re-evaluated top individuals, best first: dicts ``chromosome``, ``fitness``
            (last generation), ``final_fitness`` (re-evaluation).
        best: Chromosome with the best ``final_fitness``.
    """

    config: GAConfig
    population: np.ndarray
    fitness: np.ndarray
    history: list[dict]
    final: list[dict]
    best: list[int]

    def as_dict(self) -> dict:
        """JSON-serialisable dict."""
        return {
            "config": self.config.as_dict(),
            "history": self.history,
            "final": self.final,
            "best": self.best,
            "population": self.population.tolist(),
            "fitness": self.fitness.tolist(),
        }


def _initial_population(rng: np.random.Generator, c: GAConfig) -> np.ndarray:
    return np.stack([rng.permutation(c.n_rules)[: c.length] for _ in range(c.population)]).astype(
        np.int64
    )


def next_generation(
    rng: np.random.Generator, population: np.ndarray, fitness: np.ndarray, config: GAConfig
) -> np.ndarray:
    """Breed the next generation from an evaluated one (docs/rules.md §8).

    Args:
        rng: The run's generator.
        population: ``(n, L)`` int64.
        fitness: ``(n,)`` float64.
        config: Operator settings.

    Returns:
        ``(n, L)`` int64 next generation (elites first).
    """
    order = np.argsort(-fitness, kind="stable")
    pop, fit = population[order], fitness[order]
    out = pop.copy()
    for rank in range(config.elitism, len(pop)):
        child = pop[rank]
        if rng.random() < config.crossover_rate:
            partner = pop[tournament(rng, fit, config.tournament)]
            child = ordered_crossover(rng, child, partner)
        out[rank] = swap_mutation(rng, child, config.mutation_rate)
    return out


GA_CHECKPOINT_FORMAT = "hanabi-adhoc/ga-checkpoint"
"""``format`` of :func:`run_ga` checkpoints (schema in :func:`save_ga_checkpoint`)."""


def save_ga_checkpoint(
    path: str | Path,
    config: GAConfig,
    generation: int,
    population: np.ndarray,
    fitness: np.ndarray,
    history: list[dict],
    rng: np.random.Generator,
) -> None:
    """Write a GA checkpoint atomically (JSON, never pickle), after generation ``generation - 1``.

    Schema: ``{"format": "hanabi-adhoc/ga-checkpoint", "version": 1, "sha256": <hex digest of
    the canonical JSON of "payload">, "payload": {"config": {...GAConfig...}, "generation":
    generations evaluated, "population": the next generation to evaluate (the last one, unsorted,
    once all are evaluated), "fitness": the last evaluated generation's fitness, "history":
    [...], "rng": the run generator's PCG64 state (plain ints)}}``. The config keeps the
    ``ruleset`` and ``preset``; a checkpoint without them (written before they existed) is read
    as ``ruleset="corrected"``, no preset.
    """
    payload = {
        "config": config.as_dict(),
        "generation": int(generation),
        "population": np.asarray(population, dtype=np.int64).tolist(),
        "fitness": [float(f) for f in fitness],
        "history": history,
        "rng": rng.bit_generator.state,
    }
    write_checksummed_json(path, GA_CHECKPOINT_FORMAT, payload)


def read_ga_checkpoint(path: str | Path, config: GAConfig) -> dict:
    """Read, verify and decode a checkpoint of :func:`save_ga_checkpoint` for ``config``.

    Returns:
        ``{"generation": int, "population": (n, L) int64, "fitness": (n,) float64,
        "history": list, "rng": dict}``.

    Raises:
        CheckpointError: Missing, not valid JSON, not a GA checkpoint, checksum mismatch,
            inconsistent, or written by a run with other settings than ``config`` (its
            ``name`` may differ; another ruleset or preset is named on its own); one line
            naming the file and what to do.
    """
    path = Path(path)
    fix = CHECKPOINT_FIX
    payload = read_checksummed_json(path, GA_CHECKPOINT_FORMAT)
    saved, want = payload.get("config"), config.as_dict()
    if not isinstance(saved, dict):
        raise CheckpointError(f"checkpoint {path} is corrupt (no config); {fix}")
    # checkpoints written before the rulesets existed are corrected runs without a preset
    saved = {"ruleset": "corrected", "preset": None, **saved}
    keys = [k for k in ("ruleset", "preset") if saved[k] != want[k]]
    if keys:  # the rules themselves differ: say so first, with the options that continue it
        was = ", ".join(f"{k}={saved[k]!r}" for k in keys)
        options = " ".join(
            f"--{k} {saved[k]}" if saved[k] is not None else f"no --{k}" for k in keys
        )
        raise CheckpointError(
            f"checkpoint {path} belongs to a run with {was}, not "
            + ", ".join(f"{k}={want[k]!r}" for k in keys)
            + f"; resume it with {was} ({options}) or use another folder"
        )
    keys = [k for k, v in want.items() if k != "name" and saved.get(k) != v]
    if keys:
        old, new = {k: saved.get(k) for k in keys}, {k: want[k] for k in keys}
        raise CheckpointError(
            f"checkpoint {path} belongs to a different run ({settings_diff(old, new)}); "
            "use the same settings or another folder"
        )
    try:
        generation = payload["generation"]
        if type(generation) is not int or not 1 <= generation <= config.generations:
            raise ValueError(f"generation {generation!r} not in [1, {config.generations}]")
        pop = np.asarray(payload["population"])
        if pop.shape != (config.population, config.length) or pop.dtype.kind != "i":
            raise ValueError(f"population of shape {pop.shape} and dtype {pop.dtype}")
        pop = pop.astype(np.int64)
        if pop.min() < 0 or pop.max() >= config.n_rules:
            raise ValueError("a gene outside [0, n_rules)")
        if any(len(set(row.tolist())) != config.length for row in pop):
            raise ValueError("a chromosome with a repeated gene")
        fit = np.asarray(payload["fitness"], dtype=np.float64)
        if fit.shape != (config.population,) or not np.isfinite(fit).all():
            raise ValueError(f"fitness of shape {fit.shape}")
        history = payload["history"]
        if not isinstance(history, list) or len(history) != generation:
            raise ValueError("history length differs from the generation")
        rng = payload["rng"]
        np.random.default_rng(0).bit_generator.state = rng  # validates the state
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt ({exc}); {fix}") from exc
    return {
        "generation": generation,
        "population": pop,
        "fitness": fit,
        "history": history,
        "rng": rng,
    }


def _resume_state(ckpt: Path | None, config: GAConfig, resume: bool) -> dict | None:
    """The checkpoint to continue from, or None for a new run (see :func:`run_ga`)."""
    if ckpt is None:
        if resume:
            raise ValueError("resume=True needs a checkpoint path")
        return None
    if ckpt.exists():
        if not resume:
            raise CheckpointError(
                f"{ckpt} exists: pass resume=True (--resume) to continue it, or use another folder"
            )
        return read_ga_checkpoint(ckpt, config)
    if resume:
        print(f"no checkpoint {ckpt.name} in {ckpt.parent} yet: starting a new run", flush=True)
    return None


def run_ga(
    config: GAConfig,
    backend: Backend | None = None,
    progress: bool = True,
    initial: np.ndarray | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
) -> GAResult:
    """Run (or resume) the [CIG18] genetic algorithm.

    Args:
        config: Settings.
        backend: Evaluation backend (results do not depend on it).
        progress: Show a tqdm bar over generations.
        initial: Optional ``(population, L)`` starting population (default: random
            permutations from the seed).
        checkpoint: Checkpoint file (JSON, :func:`save_ga_checkpoint`), written atomically
            after every generation (None = none). A run resumed from it ends with exactly the
            result of an uninterrupted run. Locked while the run writes it
            (:func:`hanabi_env.outputs.file_lock`): a second run on it is refused.
        resume: Continue from ``checkpoint`` (it must match ``config``; ``initial`` is then
            unused); with no checkpoint there yet, start a new run and say so (one line).

    Returns:
        A :class:`GAResult`.

    Raises:
        TypeError: ``config`` not a :class:`GAConfig`, or another argument of the wrong type.
        ValueError: ``initial`` not of shape ``(population, L)``.
    """
    if not isinstance(config, GAConfig):
        raise type_error("config", "a GAConfig", config)
    if backend is not None and not isinstance(backend, Backend):
        raise type_error("backend", "a qd.evaluator.Backend or None", backend)
    progress = check_bool("progress", progress)
    if initial is not None:
        init = np.asarray(initial)
        if init.dtype.kind not in "iu":
            raise TypeError(f"initial must be an integer array, got dtype {init.dtype}")
        if init.shape != (config.population, config.length):
            raise ValueError(
                f"initial has shape {init.shape}; allowed: ({config.population}, {config.length})"
            )

    ckpt = None if checkpoint is None else Path(checkpoint)
    lock = contextlib.nullcontext() if ckpt is None else file_lock(ckpt)
    with lock:  # one run per checkpoint file
        return _run_ga(config, backend or SerialBackend(), progress, initial, ckpt, bool(resume))


def _run_ga(config, backend, progress, initial, ckpt, resume) -> GAResult:
    """:func:`run_ga` with its arguments checked (and its checkpoint locked)."""
    from tqdm.auto import tqdm

    c = config
    rng = np.random.default_rng(np.random.SeedSequence([c.seed, 11]))
    saved = _resume_state(ckpt, c, resume)
    if saved is None:
        pop = _initial_population(rng, c) if initial is None else np.asarray(initial, np.int64)
        history: list[dict] = []
        start, fit = 0, np.zeros(len(pop))
    else:
        pop, fit, history, start = (
            saved[k] for k in ("population", "fitness", "history", "generation")
        )
        rng.bit_generator.state = saved["rng"]

    def fitness_of(population: np.ndarray, seed: int, games: int) -> np.ndarray:
        return population_fitness(
            population,
            c.mode,
            c.players,
            games,
            seed,
            c.scoring,
            c.pool,
            backend,
            ruleset=c.ruleset,
            preset=c.preset,
        )

    bar = tqdm(
        range(start, c.generations),
        desc=f"GA {c.name}",
        unit="gen",
        initial=start,
        total=c.generations,
        disable=not progress,
    )
    for g in bar:
        fit = fitness_of(pop, derive_seed(c.seed, 10, g), c.games)
        best = int(np.argmax(fit))
        history.append(
            {
                "generation": g,
                "best": float(fit[best]),
                "mean": float(fit.mean()),
                "best_chromosome": [int(x) for x in pop[best]],
            }
        )
        bar.set_postfix(best=f"{fit[best]:.2f}", mean=f"{fit.mean():.2f}", refresh=False)
        if g < c.generations - 1:
            pop = next_generation(rng, pop, fit, c)
        if ckpt is not None:
            save_ga_checkpoint(ckpt, c, g + 1, pop, fit, history, rng)
    order = np.argsort(-fit, kind="stable")
    pop, fit = pop[order], fit[order]
    top = pop[: c.final_top]
    final_fit = fitness_of(top, derive_seed(c.seed, 12), c.final_games)
    final: list[dict[str, Any]] = [
        {
            "chromosome": [int(x) for x in top[i]],
            "fitness": float(fit[i]),
            "final_fitness": float(final_fit[i]),
        }
        for i in np.argsort(-final_fit, kind="stable")
    ]
    return GAResult(c, pop, fit, history, final, final[0]["chromosome"])


# moved to qd.situational in 0.1.0: importable from here until 0.3.0, with a warning
__getattr__ = moved_to(
    __name__,
    "qd.situational",
    ("SituationalAgent", "evaluate_situational", "evolve_situational"),
    "0.3.0",
)
