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

The **situational agent** combines one chromosome per group of game sizes (2 players; 3–5
players) and switches on the number of players (:class:`SituationalAgent`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.evaluate import evaluate, game_seeds, hle_hand_size, play_games
from agents.policy import Policy, RuleAgent
from agents.rulebase import BASELINES, N_ALPHABET, TEST_POOL
from hanabi_env.config import HanabiConfig
from hanabi_env.game import PlayerView
from qd.evaluator import Backend, SerialBackend, derive_seed, evaluate_solutions

__all__ = [
    "GA_CONFIGS",
    "GAConfig",
    "GAResult",
    "SituationalAgent",
    "evaluate_situational",
    "evolve_situational",
    "next_generation",
    "ordered_crossover",
    "population_fitness",
    "run_ga",
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

    def __post_init__(self) -> None:
        """Validate (ValueError naming the parameter)."""
        object.__setattr__(self, "players", tuple(int(p) for p in self.players))
        object.__setattr__(self, "pool", tuple(self.pool))

        def check(name: str, ok: bool, allowed: str) -> None:
            if not ok:
                raise ValueError(
                    f"{name}={getattr(self, name)!r} is out of range; allowed: {allowed}"
                )

        check("population", self.population >= 2, ">= 2")
        check("generations", self.generations >= 1, ">= 1")
        check("n_rules", 2 <= self.n_rules <= N_ALPHABET, f"[2, {N_ALPHABET}]")
        check(
            "n_genes",
            self.n_genes is None or 2 <= self.n_genes <= self.n_rules,
            "None or [2, n_rules]",
        )
        check("elitism", 0 <= self.elitism <= self.population, "[0, population]")
        check("tournament", 1 <= self.tournament <= self.population, "[1, population]")
        check("crossover_rate", 0 <= self.crossover_rate <= 1, "[0, 1]")
        check("mutation_rate", 0 <= self.mutation_rate <= 1, "[0, 1]")
        check("mode", self.mode in ("mirror", "mixed"), "'mirror', 'mixed'")
        check(
            "players",
            bool(self.players) and all(2 <= p <= 5 for p in self.players),
            "sizes in [2, 5]",
        )
        check("games", self.games >= 1, ">= 1")
        check("final_top", 1 <= self.final_top <= self.population, "[1, population]")
        check("final_games", self.final_games >= 1, ">= 1")
        check("scoring", self.scoring in ("lenient", "strict"), "'lenient', 'strict'")
        check("seed", self.seed >= 0, ">= 0")
        check("pool", all(p in BASELINES for p in self.pool), f"names in {list(BASELINES)}")

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


_PAPER_GA = {
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
) -> np.ndarray:
    """Mirror or mixed fitness of a population on common random numbers ([CIG18]; docs/rules.md §6).

    Equal, individual by individual, to ``agents.evaluate.evaluate(RuleAgent(c), mode,
    players, games, pool, scoring, seed).mean``, with all games of the population played in one
    backend call per (partner, player count).

    Args:
        chromosomes: ``(n, L)`` rule lists.
        mode: ``"mirror"`` or ``"mixed"``.
        players: Player counts.
        games: Games per player count (and per partner in mixed mode).
        seed: Evaluation seed (shared by every individual).
        scoring: ``"lenient"`` or ``"strict"``.
        pool: Partners (mixed mode): baseline names, or fixed policies such as an
            ``agents.sb3.SB3Policy`` (non-rule partners play through
            ``agents.evaluate.play_games`` with ``backend.workers`` processes).
        backend: Evaluation backend.

    Returns:
        ``(n,)`` float64 fitness (points).

    Raises:
        ValueError: Bad ``mode``.
    """
    pop = np.asarray(chromosomes, dtype=np.int64)
    backend = backend or SerialBackend()
    if mode == "mirror":
        ev = evaluate_solutions(pop, [seed] * len(pop), games, players, scoring, backend)
        return ev.objective
    if mode != "mixed":
        raise ValueError(f"mode={mode!r} is not allowed; allowed: 'mirror', 'mixed'")
    n = len(pop)
    rules = [*pop, None]
    per_partner = np.zeros((len(pool), n))
    for k, partner in enumerate(pool):
        fixed = partner if isinstance(partner, Policy) else None
        if isinstance(fixed, RuleAgent):
            rules[n], fixed = fixed.rules, None
        elif fixed is None:
            rules[n] = np.asarray(BASELINES[partner], dtype=np.int64)
        per_size = np.zeros((len(players), n))
        for s, p in enumerate(players):
            cfg = HanabiConfig(players=p, hand_size=hle_hand_size(p), scoring=scoring)
            seats, deals, agent_seeds = game_seeds(seed, games, p, random_seat=True)
            seat_agents = np.full((n * games, p), n, dtype=np.int64)
            seat_agents[np.arange(n * games), np.tile(seats, n)] = np.repeat(np.arange(n), games)
            deals_n, seeds_n = np.tile(deals, n), np.tile(agent_seeds, (n, 1))
            if fixed is None:
                sc, _, _ = backend.play(cfg, rules, seat_agents, deals_n, seeds_n)
            else:  # a non-rule partner (e.g. an SB3 model): the generic evaluator
                policies = [*(RuleAgent(c) for c in pop), fixed]
                batch = play_games(
                    policies, seat_agents, deals_n, seeds_n, cfg, workers=backend.workers
                )
                sc = batch.scores
            per_size[s] = sc.reshape(n, games).mean(axis=1)
        per_partner[k] = per_size.mean(axis=0)
    return per_partner.mean(axis=0)


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


def run_ga(
    config: GAConfig,
    backend: Backend | None = None,
    progress: bool = True,
    initial: np.ndarray | None = None,
) -> GAResult:
    """Run the [CIG18] genetic algorithm.

    Args:
        config: Settings.
        backend: Evaluation backend (results do not depend on it).
        progress: Show a tqdm bar over generations.
        initial: Optional ``(population, L)`` starting population (default: random
            permutations from the seed).

    Returns:
        A :class:`GAResult`.
    """
    from tqdm.auto import tqdm

    c = config
    backend = backend or SerialBackend()
    rng = np.random.default_rng(np.random.SeedSequence([c.seed, 11]))
    pop = _initial_population(rng, c) if initial is None else np.asarray(initial, np.int64)
    history = []

    def fitness_of(population: np.ndarray, seed: int, games: int) -> np.ndarray:
        return population_fitness(
            population, c.mode, c.players, games, seed, c.scoring, c.pool, backend
        )

    fit = np.zeros(len(pop))
    bar = tqdm(range(c.generations), desc=f"GA {c.name}", unit="gen", disable=not progress)
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
    order = np.argsort(-fit, kind="stable")
    pop, fit = pop[order], fit[order]
    top = pop[: c.final_top]
    final_fit = fitness_of(top, derive_seed(c.seed, 12), c.final_games)
    final = [
        {
            "chromosome": [int(x) for x in top[i]],
            "fitness": float(fit[i]),
            "final_fitness": float(final_fit[i]),
        }
        for i in np.argsort(-final_fit, kind="stable")
    ]
    return GAResult(c, pop, fit, history, final, final[0]["chromosome"])


# --------------------------------------------------------------------------------------------
# the situational agent
# --------------------------------------------------------------------------------------------


class SituationalAgent(Policy):
    """One rule list per group of game sizes, switching on the number of players ([CIG18]).

    Args:
        groups: Maps a player count or a tuple of player counts to a chromosome, e.g.
            ``{2: c2, (3, 4, 5): c345}``.
        seed: Seed of the sub-agents' generators.
        name: Display name.

    Raises:
        ValueError: A player count outside [2, 5] or given twice.
    """

    def __init__(
        self,
        groups: Mapping[int | tuple[int, ...], Sequence[int]],
        seed: int = 0,
        name: str = "situational",
    ):
        """See the class docstring."""
        self.name = name
        self.groups: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._by_players: dict[int, RuleAgent] = {}
        for key, chromosome in groups.items():
            sizes = (key,) if isinstance(key, (int, np.integer)) else tuple(key)
            agent = RuleAgent(chromosome, seed=seed, name=f"{name}{list(sizes)}")
            self.groups[tuple(int(s) for s in sizes)] = agent.chromosome
            for s in sizes:
                if not 2 <= int(s) <= 5 or int(s) in self._by_players:
                    raise ValueError(f"groups: player count {s} is out of range or repeated")
                self._by_players[int(s)] = agent

    def for_players(self, players: int) -> RuleAgent:
        """The rule agent used at ``players`` players.

        Raises:
            ValueError: No chromosome for that player count.
        """
        if players not in self._by_players:
            raise ValueError(f"players={players} has no chromosome; groups: {list(self.groups)}")
        return self._by_players[players]

    def reset(self, seed: int | None = None) -> None:
        """Reset every sub-agent with ``seed``."""
        for agent in self._by_players.values():
            agent.reset(seed)

    def act(self, view: PlayerView) -> int:
        """The action of the sub-agent for ``view.n_players``."""
        return self.for_players(view.n_players).act(view)

    def as_dict(self) -> dict:
        """``{"name", "groups": [{"players": [...], "chromosome": [...]}, ...]}``."""
        return {
            "name": self.name,
            "groups": [{"players": list(k), "chromosome": list(v)} for k, v in self.groups.items()],
        }

    @classmethod
    def from_dict(cls, d: dict, seed: int = 0) -> SituationalAgent:
        """Inverse of :meth:`as_dict`."""
        return cls({tuple(g["players"]): g["chromosome"] for g in d["groups"]}, seed, d["name"])


def evaluate_situational(
    agent: SituationalAgent,
    mode: str = "mirror",
    players: Sequence[int] = (2, 3, 4, 5),
    games: int = 100,
    seed: int = 0,
    workers: int | None = 1,
    scoring: str = "lenient",
) -> dict:
    """Evaluate a situational agent with the fast evaluator, one game size at a time.

    Each size runs ``agents.evaluate.evaluate`` with that size's rule agent, so the result is
    the mirror/mixed fitness of [CIG18] (the grand mean is the mean over sizes, as every size
    has the same number of games per partner).

    Returns:
        ``{"mean": float, "per_size": {players: mean}, "results": [EvaluationResult dicts]}``.
    """
    results = [
        evaluate(
            agent.for_players(p), mode, (p,), games, scoring=scoring, seed=seed, workers=workers
        )
        for p in players
    ]
    per_size = {p: r.mean for p, r in zip(players, results, strict=True)}
    return {
        "mean": float(np.mean(list(per_size.values()))),
        "per_size": per_size,
        "results": [r.to_dict() for r in results],
    }


def evolve_situational(
    config: GAConfig,
    groups: Sequence[Sequence[int]] = ((2,), (3, 4, 5)),
    backend: Backend | None = None,
    progress: bool = True,
) -> tuple[SituationalAgent, list[GAResult]]:
    """Evolve one chromosome per group of game sizes and combine them ([CIG18]).

    Group ``k`` runs :func:`run_ga` with ``players = groups[k]`` and seed
    ``derive_seed(config.seed, 13, k) % 2**31``.

    Returns:
        ``(agent, results)``.
    """
    results = []
    for k, sizes in enumerate(groups):
        sub = config.replace(
            players=tuple(sizes),
            seed=derive_seed(config.seed, 13, k) % 2**31,
            name=f"{config.name}-{'-'.join(str(s) for s in sizes)}p",
        )
        results.append(run_ga(sub, backend, progress))
    agent = SituationalAgent(
        {tuple(sizes): r.best for sizes, r in zip(groups, results, strict=True)},
        name=f"{config.name}-situational",
    )
    return agent, results
