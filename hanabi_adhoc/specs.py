"""Agent specs of the command line and the benchmark: :func:`agents.make`'s, plus ``meta``.

Every form of :mod:`agents.registry` (a baseline name, a chromosome ``3,17,4``, ``sb3:PATH``,
``package.module:Name``, ``path/to/file.py:Name``, registered prefixes such as ``rl:NAME``)
and ``meta`` / ``meta:VARIANT``: the Bayesian meta-agent of [Bayes21] (:mod:`meta.bayes`) over
the published 5×5 population (run 1), its response table played here first
(``train_games`` games per pair; 2-player games). ``play``, ``evaluate``, ``meta-eval`` and
``benchmark`` resolve their agents here.
"""

from __future__ import annotations

from agents.policy import Policy
from agents.registry import SPEC_FORMS, make_policy

__all__ = ["META_VARIANTS", "make_agent", "meta_agent"]

META_VARIANTS = ("adaptive", "generalist", "random")
"""Meta-agent variants a spec may name (``meta:VARIANT``; the Oracle needs the true partner)."""


def meta_variant(spec: str) -> str | None:
    """The variant of a ``meta``/``meta:VARIANT`` spec (lower case), None for other specs."""
    key = spec.strip().lower()
    if key == "meta":
        return "adaptive"
    if key.startswith("meta:"):
        return key.partition(":")[2].strip()
    return None


def meta_agent(
    variant: str = "adaptive",
    seed: int = 0,
    train_games: int = 20,
    ruleset: str = "corrected",
    progress: bool = True,
    workers: int | None = 1,
):
    """The Bayesian meta-agent over the published 5×5 population (R = H = its 22 elites).

    Args:
        variant: ``adaptive``, ``generalist`` or ``random`` ([Bayes21]).
        seed: Seed of the response table's games and of the agent.
        train_games: Games per (response, hypothesis) pair of the table.
        ruleset: Rules of the population's agents (docs/rules.md §12).
        progress: Show a progress bar while the table is played.
        workers: Threads for the table's games (results do not depend on it).

    Returns:
        A :class:`meta.bayes.BayesianMetaAgent` named ``meta-<variant>``.

    Raises:
        ValueError: An unknown variant.
    """
    if variant not in META_VARIANTS:
        raise ValueError(
            f"meta variant {variant!r} is not allowed here; allowed: meta, "
            + ", ".join(f"meta:{v}" for v in META_VARIANTS)
        )
    from meta.bayes import BayesianMetaAgent
    from meta.pools import load_pool
    from meta.table import build_table

    pool, ids = load_pool("5x5", ruleset=ruleset)
    n = len(pool) * len(pool) * train_games
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="meta-agent response table (published 5x5)", unit="game")
    try:
        table = build_table(
            pool,
            pool,
            train_games,
            seed,
            ids,
            ids,
            workers=workers or 1,
            progress=None if bar is None else bar.update,
        )
    finally:
        if bar is not None:
            bar.close()
    return BayesianMetaAgent(table, pool, variant=variant, seed=seed, name=f"meta-{variant}")


def make_agent(
    spec: str,
    seed: int = 0,
    *,
    ruleset: str = "corrected",
    preset: str | None = None,
    trust_model: bool = False,
    train_games: int = 20,
    progress: bool = True,
    workers: int | None = 1,
) -> Policy:
    """The policy of an agent spec (see the module docstring for the forms).

    Args:
        spec: The spec.
        seed: Seed of the policy.
        ruleset: Rule agents' ruleset (and the meta-agent's pool's).
        preset: ``"cig18"`` for [CIG18]'s 2018 agent lists (baselines only).
        trust_model: Allow specs whose loading runs code from a file (``sb3:PATH``).
        train_games: The meta-agent's games per response-table pair.
        progress: Show the meta-agent's table progress bar.
        workers: Threads for the meta-agent's table.

    Returns:
        The policy.

    Raises:
        TypeError, ValueError: As :func:`agents.registry.make_policy` (an unknown name, module,
            file, a refused model, ...), or an unknown meta variant; ``human`` is refused.
    """
    variant = meta_variant(spec) if isinstance(spec, str) else None
    if variant is not None:
        return meta_agent(variant, seed, train_games, ruleset, progress, workers)
    if isinstance(spec, str) and spec.strip().lower() == "human":
        raise ValueError(f"'human' is a seat of play only; allowed here: meta, {SPEC_FORMS}")
    return make_policy(spec, seed, ruleset=ruleset, preset=preset, trust_model=trust_model)
