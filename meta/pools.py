"""Pools of partners and responses, loaded from SOURCE strings.

A SOURCE is ``5x5``/``20x20``/a population or archive JSON path/a MAP-Elites run folder (its
elites, ids ``"[i,j]"``; docs/rules.md §9.1; :func:`qd.io.load_archive_source`),
``baselines:NAME,NAME,...`` (baseline agents, docs/rules.md §4), ``rl:NAME,NAME,...`` /
``rl:all`` (the shipped networks that play 2-player games, the meta-agent's game;
:mod:`agents.rl`; docs/rl_partners.md), whose ids are
their names ``"rl:NAME"``, or ``policy:SPEC``: one policy of any agent spec of
:mod:`agents.registry`, e.g. your own ``policy:my_agents.py:MyPolicy`` or
``policy:my_package.agents:MyPolicy`` (a pool of one). :func:`named_source` tells the named
forms from populations.

**Ruleset** (docs/rules.md §12): a MAP-Elites run of this toolkit records the ruleset it was
made in (its archive's binning; :func:`recorded_ruleset`); baselines and the published
populations record none (the papers' Java code made the published ones: ``"reference"``
replays them as the papers ran them). :func:`resolve_ruleset` chooses the one ruleset every
pool of a command plays in.
"""

from __future__ import annotations

from pathlib import Path

from agents.policy import Policy, RuleAgent, make_baseline
from agents.reference import RULESETS
from agents.registry import make_policy
from hanabi_env.validate import check_choice
from qd.io import archive_source, load_archive_source

__all__ = ["archive_pool", "load_pool", "named_source", "recorded_ruleset", "resolve_ruleset"]

NAMED_SOURCES = ("baselines:", "policy:", "rl:")
"""The prefixes of SOURCEs that name agents (no population file, no recorded ruleset)."""


def named_source(source: str | Path) -> bool:
    """Whether ``source`` names agents (``baselines:``, ``policy:``, ``rl:``), not a population."""
    return str(source).startswith(NAMED_SOURCES)


def recorded_ruleset(source: str | Path) -> str | None:
    """The ruleset a pool SOURCE was made with, when it records one.

    A MAP-Elites run of this toolkit (a run folder or its ``archive.json``) records it in its
    archive's binning: ``"reference"`` binning for a ``ruleset="reference"`` run
    (:class:`qd.config.MapElitesConfig`), ``"floor"`` for a corrected one. Baselines, the
    published populations and other population files record none (None); the published ones
    were made by the papers' Java code, which ``"reference"`` replays.

    Raises:
        FileNotFoundError, ValueError: As :func:`qd.io.load_archive_source`.
    """
    if named_source(source):
        return None
    archive, run = archive_source(source)
    if getattr(archive, "binning", "floor") == "reference":
        return "reference"
    return "corrected" if run else None


def resolve_ruleset(
    requested: str | None, recorded: dict[str, str | None]
) -> tuple[str, str, list[str]]:
    """The ruleset of a meta command: ``(ruleset, why, notes)``.

    Args:
        requested: ``--ruleset`` (None: not given).
        recorded: Option name → :func:`recorded_ruleset` of its SOURCE.

    Returns:
        The ruleset, the reason in words, and notes (a pool played in a ruleset other than the
        one it records).

    Raises:
        ValueError: ``requested`` is not a ruleset, or it is None and the pools record
            different rulesets.
    """
    if requested is not None:
        check_choice("ruleset", requested, RULESETS)
        notes = [
            f"{opt} was made with ruleset {rec}; it plays as {requested} here"
            for opt, rec in recorded.items()
            if rec is not None and rec != requested
        ]
        return requested, "--ruleset", notes
    known = {opt: rec for opt, rec in recorded.items() if rec is not None}
    if len(set(known.values())) > 1:
        made = ", ".join(f"{opt} {rec}" for opt, rec in known.items())
        raise ValueError(
            f"the pools were made with different rulesets ({made}); choose the ruleset all of "
            "them play in with --ruleset corrected or --ruleset reference"
        )
    if known:
        opts = " and ".join(dict.fromkeys(known))
        ruleset = next(iter(known.values()))
        return ruleset, f"recorded by the MAP-Elites run of {opts}", []
    return (
        "corrected",
        "the default; --ruleset reference plays the agents as the papers' Java code did, "
        "the code that made the published populations",
        [],
    )


def load_pool(
    source: str, prefix: str = "", ruleset: str = "corrected"
) -> tuple[list[Policy], list[str]]:
    """Policies and ids of a pool SOURCE (see the module docstring).

    Args:
        source: ``baselines:NAME,...``, ``rl:NAME,...``/``rl:all``, ``policy:SPEC`` or a
            population (:func:`qd.io.load_archive_source`).
        prefix: Prepended to every id (e.g. ``"B"`` → ``"B[1,3]"``), to keep the partners of
            another run apart from H's elites of the same cells.
        ruleset: ``"corrected"`` (default) or ``"reference"``: the rule agents' semantics
            (docs/rules.md §12). Reference elites play as the papers' chromosome agents
            (HistogramAgent), reference baselines as the framework's ProductionRuleAgent
            (:func:`agents.make`). RL partners have no ruleset.

    Returns:
        ``(policies, ids)``; population ids are cell names ``"[i,j]"`` (docs/rules.md §9.1),
        RL partners' ids ``"rl:NAME"``, a ``policy:`` pool's id the policy's name.

    Raises:
        ValueError: An empty pool, an unknown baseline name, RL partner or spec, or an
            unknown ``ruleset``.
        TypeError: A ``policy:`` spec that names no policy.
        FileNotFoundError: No such population.
    """
    check_choice("ruleset", ruleset, RULESETS)
    if source.startswith("policy:"):
        spec = source.split(":", 1)[1].strip()
        if not spec:
            raise ValueError(f"source={source!r} names no agent; e.g. policy:my_agents.py:Mine")
        policy = make_policy(spec, 0, ruleset=ruleset)
        return [policy], [prefix + (getattr(policy, "name", "") or spec)]
    if source.startswith("baselines:"):
        names = [n for n in source.split(":", 1)[1].split(",") if n.strip()]
        if not names:
            raise ValueError(f"source={source!r} names no baseline agent")
        pols: list[Policy] = [make_baseline(n.strip(), ruleset=ruleset) for n in names]
        return pols, [prefix + p.name for p in pols]
    if source.startswith("rl:"):
        from agents.rl import load_partners

        listed = source.split(":", 1)[1]
        partners = load_partners(listed)
        if listed.strip() == "all":  # the meta-agent's game is 2-player: the networks that play it
            partners = [p for p in partners if int(p.config["game"]["players"]) == 2]
        return list(partners), [prefix + p.name for p in partners]
    archive = load_archive_source(source)
    if len(archive) == 0:
        raise ValueError(f"source={source!r} has no elites")
    elites, ids = archive_pool(archive, prefix, ruleset)
    return list(elites), ids


def archive_pool(
    archive, prefix: str = "", ruleset: str = "corrected"
) -> tuple[list[RuleAgent], list[str]]:
    """Rule agents and ids of an archive's elites, in cell order.

    Args:
        archive: A :class:`qd.archive.Archive`.
        prefix: Prepended to every cell id (e.g. ``"run0:"`` → ``"run0:[1,3]"``).
        ruleset: ``"corrected"`` or ``"reference"`` (docs/rules.md §12).

    Returns:
        ``(policies, ids)``; ids are ``prefix`` + the cell name ``"[i,j]"``.
    """
    cells = archive.occupied_cells()
    ids = [prefix + archive.cell_name(int(c)) for c in cells]
    pols = [
        RuleAgent([int(g) for g in archive.solution[c]], name=i, ruleset=ruleset)
        for c, i in zip(cells, ids, strict=True)
    ]
    return pols, ids
