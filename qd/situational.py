"""The situational agent of [CIG18]: one rule list per group of game sizes.

:class:`SituationalAgent` switches between rule agents on the number of players;
:func:`evolve_situational` evolves one chromosome per group with the 2018 genetic algorithm
(:func:`qd.ga.run_ga`) and combines them; :func:`evaluate_situational` scores it with [CIG18]'s
mirror or mixed fitness, one game size at a time (docs/rules.md §8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from agents.evaluate import evaluate
from agents.policy import Policy, RuleAgent
from agents.reference import RULESETS, check_preset
from agents.rulebase import TEST_POOL
from hanabi_env.game import PlayerView
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_int,
    check_int_sequence,
    check_seed,
    check_str,
    check_workers,
    type_error,
)
from qd.evaluator import Backend, derive_seed
from qd.ga import GAConfig, GAResult, run_ga

__all__ = ["SituationalAgent", "checkpoint_name", "evaluate_situational", "evolve_situational"]


class SituationalAgent(Policy):
    """One rule list per group of game sizes, switching on the number of players ([CIG18]).

    Args:
        groups: Maps a player count or a tuple of player counts to a chromosome, e.g.
            ``{2: c2, (3, 4, 5): c345}``.
        seed: Seed of the sub-agents' generators.
        name: Display name.
        ruleset: ``"corrected"`` (default) or ``"reference"``: the sub-agents are
            ``RuleAgent(chromosome, ruleset=ruleset)`` (reference: HistogramAgents, which need
            fixed hand slots; docs/rules.md §12).

    Raises:
        TypeError: ``groups`` not a mapping, a key not an int or tuple of ints, a bad
            chromosome, ``seed``, ``name`` or ``ruleset``.
        ValueError: A player count outside [2, 5] or given twice (the message says
            "repeated"), or an unknown ``ruleset``.
    """

    def __init__(
        self,
        groups: Mapping[int | tuple[int, ...], Sequence[int]],
        seed: int = 0,
        name: str = "situational",
        ruleset: str = "corrected",
    ):
        """See the class docstring."""
        if not isinstance(groups, Mapping):
            raise type_error("groups", "a mapping of player counts to chromosomes", groups)
        seed = check_seed("seed", seed)
        self.name = check_str("name", name)
        self.ruleset = check_choice("ruleset", ruleset, RULESETS)
        self.groups: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._by_players: dict[int, RuleAgent] = {}
        for key, chromosome in groups.items():
            if isinstance(key, tuple):
                sizes = check_int_sequence("groups", key, unique=False, what="player counts")
            else:
                sizes = (check_int("groups", key),)
            agent = RuleAgent(
                chromosome, seed=seed, name=f"{name}{list(sizes)}", ruleset=self.ruleset
            )
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
        """``{"name", "ruleset", "groups": [{"players": [...], "chromosome": [...]}, ...]}``."""
        return {
            "name": self.name,
            "ruleset": self.ruleset,
            "groups": [{"players": list(k), "chromosome": list(v)} for k, v in self.groups.items()],
        }

    @classmethod
    def from_dict(cls, d: dict, seed: int = 0) -> SituationalAgent:
        """Inverse of :meth:`as_dict` (a dict without ``"ruleset"`` is a corrected agent)."""
        return cls(
            {tuple(g["players"]): g["chromosome"] for g in d["groups"]},
            seed,
            d["name"],
            d.get("ruleset", "corrected"),
        )


def evaluate_situational(
    agent: SituationalAgent,
    mode: str = "mirror",
    players: Sequence[int] = (2, 3, 4, 5),
    games: int = 100,
    seed: int = 0,
    workers: int | None = 1,
    scoring: str = "lenient",
    pool: Sequence[str | Policy] = TEST_POOL,
    preset: str | None = None,
) -> dict:
    """Evaluate a situational agent with the fast evaluator, one game size at a time.

    Each size runs ``agents.evaluate.evaluate`` with that size's rule agent, so the result is
    the mirror/mixed fitness of [CIG18] (the grand mean is the mean over sizes, as every size
    has the same number of games per partner). Partners named in ``pool`` are built in the
    agent's ruleset (``agent.ruleset``); ``preset="cig18"`` is [CIG18]'s mixed setting (the
    2018 pool, reference rules; see :func:`agents.evaluate.evaluate`).

    Returns:
        ``{"mean": float, "per_size": {players: mean}, "results": [EvaluationResult dicts]}``.

    Raises:
        TypeError, ValueError: A bad argument (checked before any game).
    """
    if not isinstance(agent, SituationalAgent):
        raise type_error("agent", "a SituationalAgent", agent)
    check_choice("mode", mode, ("mirror", "mixed"))
    players = check_int_sequence("players", players, 2, 5, what="player counts")
    for p in players:
        agent.for_players(p)
    check_int("games", games, 1)
    check_seed("seed", seed)
    check_workers("workers", workers)
    check_choice("scoring", scoring, ("lenient", "strict"))
    if preset is not None:
        check_preset(preset, mode, scoring, agent.ruleset)
    results = [
        evaluate(
            agent.for_players(p),
            mode,
            (p,),
            games,
            pool=pool,
            scoring=scoring,
            seed=seed,
            workers=workers,
            ruleset=agent.ruleset,
            preset=preset,
        )
        for p in players
    ]
    per_size = {p: r.mean for p, r in zip(players, results, strict=True)}
    return {
        "mean": float(np.mean(list(per_size.values()))),
        "per_size": per_size,
        "results": [r.to_dict() for r in results],
    }


def checkpoint_name(sizes) -> str:
    """The checkpoint file of the group of game ``sizes``: ``checkpoint-<sizes>p.json``."""
    return f"checkpoint-{'-'.join(str(int(s)) for s in sizes)}p.json"


def evolve_situational(
    config: GAConfig,
    groups: Sequence[Sequence[int]] = ((2,), (3, 4, 5)),
    backend: Backend | None = None,
    progress: bool = True,
    checkpoint_dir: str | Path | None = None,
    resume: bool = False,
) -> tuple[SituationalAgent, list[GAResult]]:
    """Evolve one chromosome per group of game sizes and combine them ([CIG18]).

    Group ``k`` runs :func:`run_ga` with ``players = groups[k]`` and seed
    ``derive_seed(config.seed, 13, k) % 2**31``; with ``checkpoint_dir``, its checkpoint is
    ``checkpoint-<sizes>p.json`` there (e.g. ``checkpoint-3-4-5p.json``), and ``resume``
    continues each group from its own.

    Returns:
        ``(agent, results)``.

    Raises:
        TypeError, ValueError: A bad argument (checked before any game).
    """
    if not isinstance(config, GAConfig):
        raise type_error("config", "a GAConfig", config)
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence) or not groups:
        raise type_error("groups", "a non-empty sequence of player-count groups", groups)
    flat = [s for g in groups for s in check_int_sequence("groups", g, 2, 5, unique=False)]
    check_int_sequence("groups", flat, 2, 5, what="player counts")  # each count once
    progress = check_bool("progress", progress)
    results = []
    for k, sizes in enumerate(groups):
        sub = config.replace(
            players=tuple(sizes),
            seed=derive_seed(config.seed, 13, k) % 2**31,
            name=f"{config.name}-{'-'.join(str(s) for s in sizes)}p",
        )
        ckpt = None
        if checkpoint_dir is not None:
            ckpt = Path(checkpoint_dir) / checkpoint_name(sizes)
        results.append(run_ga(sub, backend, progress, checkpoint=ckpt, resume=resume))
    agent = SituationalAgent(
        {tuple(sizes): r.best for sizes, r in zip(groups, results, strict=True)},
        name=f"{config.name}-situational",
        ruleset=config.ruleset,
    )
    return agent, results
