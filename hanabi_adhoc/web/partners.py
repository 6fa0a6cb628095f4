"""The partners the browser app offers, the meta-agent's shared table, and their warm-up.

``serve`` prepares every partner it offers before it prints its address (docs/browser.md §1):
:func:`warm_up` plays, through a real :class:`~hanabi_adhoc.web.session.PlaySession` that
writes nothing, one whole game of each offered partner at the smallest game size it plays and
two rounds at each other size (the compiled kernels take the same argument types at every
size; a policy of the operator's own code plays two rounds only), so that every kernel a
session needs is compiled (first run) or loaded from the cache (later runs), and the
meta-agent's response table is built once. A person's first move then
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

import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

__all__ = ["BOT_NAMES", "meta_partner", "offered", "warm_up"]

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


def _own_code(spec: str) -> bool:
    """Whether ``spec`` names the operator's own code (``module:Name``, ``file.py:Name``, ...).

    Its warm-up is two rounds, not a game: it may be slow, or call out.
    """
    head = spec.strip().lower().partition(":")[0]
    return ":" in spec and head not in ("meta", "rl", "bad")


def _play_one(settings, options, moves: int | None = None) -> float:
    """A game of a scratch session with ``settings``; the seconds of its slowest partner move.

    The person plays its first legal move each turn; ``moves``: stop after that many moves
    (None: play the whole game). Nothing is written.
    """
    from hanabi_adhoc.web.session import PlaySession

    session = PlaySession("0" * 16, "warm-up", settings, options, save=False)
    slowest = 0.0
    state = session.state()
    while not state["game_over"] and (moves is None or state["turn"] < moves):
        t0 = time.perf_counter()
        if state["your_turn"]:
            legal = [m["id"] for m in state["menu"] if m["legal"]]
            state = session.move(legal[0], state["turn"])
        else:
            state = session.advance(state["turn"])
            slowest = max(slowest, time.perf_counter() - t0)
    return slowest


def warm_up(options, say: Callable[[str], None] | None = None) -> dict[str, float]:
    """Play every offered partner at every size it plays (module docstring); build the table.

    Args:
        options: The server's :class:`~hanabi_adhoc.web.session.AppOptions` (its output
            folder is not touched: the games are played in a scratch folder, then removed).
        say: Called with one progress line per partner (e.g. ``print``); None: silent.

    Returns:
        Partner spec → seconds its games took (compiling or loading kernels included).

    Raises:
        ValueError: An offered partner that cannot play one of its sizes (a server bug).
    """
    from hanabi_adhoc.web.session import Settings

    d = options.defaults
    menu = offered(options)
    seconds: dict[str, float] = {}
    scratch = Path(tempfile.mkdtemp(prefix="hanabi-adhoc-warmup-"))
    try:
        quiet = replace(options, out=scratch, study=None)
        for k, offer in enumerate(menu, 1):
            t0 = time.perf_counter()
            for n, players in enumerate(offer["players"]):
                if options.fixed:
                    partners = d.partners
                else:
                    partners = (offer["spec"],) * (players - 1)
                settings = Settings(partners, 0, 1, d.scoring, None if not options.fixed
                                    else d.hand_size, 0, d.ruleset)  # fmt: skip
                whole = n == 0 and not any(_own_code(s) for s in partners)
                _play_one(settings, quiet, None if whole else 2 * players)
            seconds[offer["spec"]] = time.perf_counter() - t0
            if say is not None:
                sizes = "-".join(str(p) for p in (offer["players"][0], offer["players"][-1]))
                sizes = str(offer["players"][0]) if len(offer["players"]) == 1 else sizes
                say(f"  [{k}/{len(menu)}] {offer['spec']} ({sizes} players): "
                    f"{seconds[offer['spec']]:.1f} s")  # fmt: skip
            if options.fixed:
                break  # the operator's partners play together: one game covers them all
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return seconds
