"""The partners the browser app offers and the meta-agent's shared table.

``serve`` prepares every partner it offers before it prints its address (docs/browser.md §1):
:func:`hanabi_adhoc.web.prepare.warm_up` plays each of them once, so that a person's first move
waits for no compilation.

The menu (:func:`offered`): the rule-agent baselines (2–5 players), the reference bots
(SimpleBot, ValueBot, HolmesBot, SmartBot, InfoBot: 2–5 players with the rulebook's hand size
and new cards at the end of the hand, so not with the reference ruleset; docs/bots.md §2) and
the meta-agent variants (2 players). With ``serve --partner`` only the operator's partners are
offered, at their game size.

The meta-agent's response table (the published 5×5 population, ``train_games`` games per pair)
is built once per ruleset (:func:`meta_partner`) and shared by every session: the table and the
pool are only read; each session's agent keeps its own belief, responses and seed.
"""

from __future__ import annotations

import threading

__all__ = ["BOT_NAMES", "meta_partner", "offered"]

BOT_NAMES = ("SmartBot", "InfoBot", "HolmesBot", "ValueBot", "SimpleBot")
"""The reference bots of the menu (``agents.make`` names, docs/bots.md), strongest first."""

_TABLES: dict[tuple[str, int, int], tuple] = {}
_TABLES_LOCK = threading.Lock()


def offered(options) -> list[dict]:
    """The partners the page offers, each with the game sizes it plays.

    Args:
        options: The server's :class:`~hanabi_adhoc.web.session.AppOptions`.

    Returns:
        One dict per partner, in menu order: ``spec``, ``kind`` (``baseline``, ``bot``,
        ``meta``, or ``partner`` for the operator's), ``players`` (the player counts it plays,
        the person included) and ``note`` (the game it plays, in words); with
        ``options.fixed``, the operator's partners (a session plays them together, at
        ``len(partners) + 1`` players).
    """
    from agents.rulebase import BASELINES
    from hanabi_adhoc.specs import META_VARIANTS

    d = options.defaults
    if options.fixed:
        return [_entry(s, "partner", [d.players], "") for s in d.partners]
    sizes = [2, 3, 4, 5]
    menu = [_entry(name, "baseline", sizes, "rule agent") for name in BASELINES]
    if d.ruleset == "corrected":  # the bots play new cards at the end of the hand only
        note = "reference bot, 2-5 players, the rulebook's hand size"
        menu += [_entry(name, "bot", sizes, note) for name in BOT_NAMES]
    menu += [_entry(f"meta:{v}", "meta", [2], "meta-agent, 2 players") for v in META_VARIANTS]
    return menu


def _entry(spec: str, kind: str, players: list[int], note: str) -> dict:
    return {"spec": spec, "kind": kind, "players": players, "note": note}


def meta_partner(variant: str, seed: int, options, ruleset: str):
    """A Bayesian meta-agent over the published 5×5 population, on the server's shared table.

    The table (``options.train_games`` games per pair, seed ``options.meta_table_seed``) is
    built on the first call for ``ruleset`` and reused by every later one; building it takes
    seconds, which ``serve`` spends before it prints its address.

    Args:
        variant: ``adaptive``, ``generalist`` or ``random`` (:data:`hanabi_adhoc.specs
            .META_VARIANTS`).
        seed: The agent's own seed (its random responses).
        options: The server's :class:`~hanabi_adhoc.web.session.AppOptions`.
        ruleset: The population's ruleset, ``"corrected"`` or ``"reference"``.

    Returns:
        A :class:`meta.bayes.BayesianMetaAgent` named ``meta-<variant>``.

    Raises:
        ValueError: An unknown variant or ruleset.
    """
    from hanabi_adhoc.specs import META_VARIANTS
    from meta.bayes import BayesianMetaAgent

    if variant not in META_VARIANTS:
        raise ValueError(
            f"meta variant {variant!r} is not allowed here; allowed: meta, "
            + ", ".join(f"meta:{v}" for v in META_VARIANTS)
        )
    key = (ruleset, int(options.train_games), int(options.meta_table_seed))
    with _TABLES_LOCK:  # one build per key, even when two sessions start at once
        if key not in _TABLES:
            from meta.pools import load_pool
            from meta.table import build_table

            pool, ids = load_pool("5x5", ruleset=ruleset)
            table = build_table(pool, pool, key[1], key[2], ids, ids)
            _TABLES[key] = (table, pool)
        table, pool = _TABLES[key]
    return BayesianMetaAgent(table, pool, variant=variant, seed=seed, name=f"meta-{variant}")
