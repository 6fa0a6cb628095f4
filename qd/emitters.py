"""Variation operators and the MAP-Elites emitter ([CoG19] Algorithm 1; docs/rules.md §7.1).

An emitter proposes candidate solutions (pyribs' ``ask``); it never evaluates. The schedule:

* **Phase 1** — the first ``n_random`` candidates are uniform random chromosomes, each of
  ``n_genes`` *distinct* rule indices drawn without replacement from ``[0, n_rules)``.
* **Phase 2** — each candidate copies the elite of a cell drawn uniformly among the
  **occupied** cells; with probability ``crossover_rate`` it undergoes uniform crossover with the
  elite of a second uniformly drawn occupied cell (each gene taken from the second parent with
  probability 0.5); then each gene is replaced, with probability ``mutation_rate``, by a
  uniformly random index in ``[0, n_rules)`` (duplicates allowed).

Every draw comes from the emitter's own ``numpy.random.Generator``; its state is a plain dict of
ints (:meth:`MapElitesEmitter.state_dict`) so checkpoints stay JSON. A batch of ``n`` candidates
always consumes the same draws, whatever happens elsewhere, so runs are reproducible from the seed.
"""

from __future__ import annotations

import numpy as np

from agents.rulebase import N_ALPHABET
from qd.archive import Archive

__all__ = [
    "MapElitesEmitter",
    "mutate",
    "random_solutions",
    "uniform_crossover",
]


def random_solutions(
    rng: np.random.Generator, n: int, n_genes: int = 15, n_rules: int = N_ALPHABET
) -> np.ndarray:
    """Uniform random chromosomes of distinct genes (phase 1 of [CoG19] Algorithm 1).

    Args:
        rng: Generator to draw from.
        n: Number of chromosomes.
        n_genes: Genes per chromosome (<= ``n_rules``).
        n_rules: Alphabet size (105, docs/rules.md §1).

    Returns:
        ``(n, n_genes)`` int64; each row is a uniform sample without replacement.

    Raises:
        ValueError: ``n_genes > n_rules`` or a negative size.
    """
    if n < 0 or n_genes < 1 or n_genes > n_rules:
        raise ValueError(
            f"n={n}, n_genes={n_genes}, n_rules={n_rules}: need 1 <= n_genes <= n_rules"
        )
    keys = rng.random((n, n_rules))
    return np.argsort(keys, axis=1, kind="stable")[:, :n_genes].astype(np.int64)


def uniform_crossover(
    rng: np.random.Generator, first: np.ndarray, second: np.ndarray, p_second: float = 0.5
) -> np.ndarray:
    """Uniform crossover: each gene from ``second`` with probability ``p_second``.

    Args:
        rng: Generator to draw from.
        first: ``(n, L)`` int64 first parents.
        second: ``(n, L)`` int64 second parents.
        p_second: Per-gene probability of taking the second parent's gene (0.5 in the papers).

    Returns:
        ``(n, L)`` int64 children.
    """
    take = rng.random(first.shape) < p_second
    return np.where(take, second, first).astype(np.int64)


def mutate(
    rng: np.random.Generator, solutions: np.ndarray, rate: float, n_rules: int = N_ALPHABET
) -> np.ndarray:
    """Per-gene mutation: each gene replaced by a uniform index in ``[0, n_rules)`` w.p. ``rate``.

    Args:
        rng: Generator to draw from.
        solutions: ``(n, L)`` int64.
        rate: Per-gene mutation probability (0.1 in the papers).
        n_rules: Alphabet size.

    Returns:
        ``(n, L)`` int64 mutated copies.
    """
    hit = rng.random(solutions.shape) < rate
    fresh = rng.integers(0, n_rules, solutions.shape, dtype=np.int64)
    return np.where(hit, fresh, solutions).astype(np.int64)


class MapElitesEmitter:
    """The papers' emitter: random candidates first, then crossover + mutation of elites.

    Args:
        seed: Seed of the emitter's generator (any int or sequence of ints for
            ``numpy.random.SeedSequence``).
        n_random: Candidates of phase 1 (10⁴ in the papers).
        crossover_rate: Probability of uniform crossover in phase 2 (0.5 [CoG19] text, 0.1 later
            code; docs/rules.md §7.2).
        mutation_rate: Per-gene mutation probability (0.1).
        n_genes: Genes per chromosome (15).
        n_rules: Alphabet size (105).

    Attributes:
        n_asked: Candidates proposed so far (decides the phase).
        last_parents: ``(n, 2)`` int64 cells of the parents of the last batch (``-1``: none —
            phase 1, or no crossover for the second column).

    Raises:
        ValueError: A rate outside [0, 1] or a negative ``n_random``.
    """

    def __init__(
        self,
        seed: int | list[int],
        n_random: int,
        crossover_rate: float = 0.5,
        mutation_rate: float = 0.1,
        n_genes: int = 15,
        n_rules: int = N_ALPHABET,
    ):
        """See the class docstring."""
        for name, rate in (("crossover_rate", crossover_rate), ("mutation_rate", mutation_rate)):
            if not 0.0 <= float(rate) <= 1.0:
                raise ValueError(f"{name}={rate} is out of range; allowed: [0, 1]")
        if int(n_random) < 0:
            raise ValueError(f"n_random={n_random} is out of range; allowed: >= 0")
        self.rng = np.random.default_rng(np.random.SeedSequence(seed))
        self.n_random = int(n_random)
        self.crossover_rate = float(crossover_rate)
        self.mutation_rate = float(mutation_rate)
        self.n_genes = int(n_genes)
        self.n_rules = int(n_rules)
        self.n_asked = 0
        self.last_parents = np.zeros((0, 2), dtype=np.int64)

    def ask(self, archive: Archive, n: int) -> np.ndarray:
        """Propose ``n`` candidates (phase 1 first, then variation of ``archive``'s elites).

        Args:
            archive: The archive at the time of asking (read only).
            n: Batch size.

        Returns:
            ``(n, n_genes)`` int64 solutions.

        Raises:
            ValueError: Phase 2 is reached while ``archive`` is empty.
        """
        n_phase1 = max(0, min(n, self.n_random - self.n_asked))
        parts = []
        parents = []
        if n_phase1:
            parts.append(random_solutions(self.rng, n_phase1, self.n_genes, self.n_rules))
            parents.append(np.full((n_phase1, 2), -1, dtype=np.int64))
        m = n - n_phase1
        if m:
            sol, par = self._vary(archive, m)
            parts.append(sol)
            parents.append(par)
        self.n_asked += n
        self.last_parents = np.concatenate(parents) if parents else np.zeros((0, 2), np.int64)
        if not parts:
            return np.zeros((0, self.n_genes), dtype=np.int64)
        return np.concatenate(parts)

    def _vary(self, archive: Archive, m: int) -> tuple[np.ndarray, np.ndarray]:
        occupied = archive.occupied_cells()
        if not len(occupied):
            raise ValueError("phase 2 needs at least one elite; use n_random >= 1")
        first = occupied[self.rng.integers(0, len(occupied), m)]
        cross = self.rng.random(m) < self.crossover_rate
        second = occupied[self.rng.integers(0, len(occupied), m)]
        children = uniform_crossover(
            self.rng, archive.solution[first], archive.solution[second], 0.5
        )
        children = np.where(cross[:, None], children, archive.solution[first])
        children = mutate(self.rng, children, self.mutation_rate, self.n_rules)
        parents = np.stack([first, np.where(cross, second, -1)], axis=1)
        return children, parents

    def state_dict(self) -> dict:
        """JSON-serialisable state: generator state and ``n_asked``."""
        return {"rng": self.rng.bit_generator.state, "n_asked": self.n_asked}

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict` output.

        Raises:
            ValueError: Malformed state.
        """
        try:
            self.rng.bit_generator.state = state["rng"]
            self.n_asked = int(state["n_asked"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed emitter state: {exc!r}") from exc
