"""The browser app's warm-up: every offered partner played once before ``serve`` prints its address.

docs/browser.md §1. :func:`warm_up` plays, through a real
:class:`~hanabi_adhoc.web.session.PlaySession` that writes nothing, one whole game of each partner
:func:`hanabi_adhoc.web.partners.offered` lists at the smallest game size it plays and two rounds
at each other size, so that every kernel a session needs is compiled (first run) or loaded from
the cache (later runs), and the meta-agent's shared response table is built once.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from hanabi_adhoc.web.partners import offered
from hanabi_adhoc.web.session import PlaySession, Settings

__all__ = ["warm_up"]


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
