"""The reference bots as this project's agents: SimpleBot, ValueBot, HolmesBot, SmartBot, InfoBot.

docs/bots.md. Arthur O'Dwyer's hand-written Hanabi bots (github Quuxplusone/Hanabi), whose
strategies this package implements in its own code and checks move for move against the C++
programs on the same deals (``tools/quux_oracle.py``, ``tests/agents/test_bots.py``). Each is a
deterministic :class:`agents.policy.Policy`; ``agents.make("smartbot")`` builds one (names are
case-insensitive, with or without "bot": ``"SmartBot"``, ``"smart"``).
"""

from __future__ import annotations

import importlib
import importlib.util

from agents.policy import Policy
from hanabi_env.validate import check_str

__all__ = ["BOTS", "COMPILED_SELF_PLAY", "bot_key", "make_bot"]

BOTS = {
    "simplebot": "agents.bots.simple:SimpleBot",
    "valuebot": "agents.bots.value:ValueBot",
    "holmesbot": "agents.bots.holmes:HolmesBot",
    "smartbot": "agents.bots.smart:SmartBot",
    "infobot": "agents.bots.infobot:InfoBot",
}
"""Bot name -> ``"module:Class"`` (imported on first use)."""

COMPILED_SELF_PLAY = {
    "simplebot": "agents.bots.rule_bots_games:play_simplebot_games",
    "valuebot": "agents.bots.rule_bots_games:play_valuebot_games",
    "holmesbot": "agents.bots.rule_bots_games:play_holmesbot_games",
    "smartbot": "agents.bots.smart_games:play_smartbot_games",
    "infobot": "agents.bots.infobot_games:play_infobot_games",
}
"""Bot name -> ``"module:function"`` of its compiled self-play loop (docs/bots.md §4).

``function(config, decks, record=False) -> (scores, actions)``: the bot in every seat of one
game per row of ``decks`` (``(n_games, n_cards)`` card ids, first dealt first, seat 0 starts),
engine and bots in compiled code; ``(n_games,)`` int64 scores and, when ``record``, the
``(n_games, max_moves)`` int16 move uids (-1 padded), else None. The moves are the bot
policy's on the same deck. :func:`agents.evaluate.play_games` plays games whose every seat
holds the same such bot with it (:mod:`agents.bots.self_play`)."""


def bot_key(name: str) -> str | None:
    """The :data:`BOTS` key ``name`` means, or None.

    Case, spaces, ``_``, ``-`` and a "bot" suffix are ignored: ``"SmartBot"``, ``"smart"``,
    ``"smart_bot"`` all mean ``"smartbot"``.
    """
    key = "".join(ch for ch in name.lower() if ch.isalnum())
    if not key:
        return None
    if not key.endswith("bot"):
        key += "bot"
    return key if key in BOTS else None


def make_bot(name: str, seed: int = 0) -> Policy:
    """The bot ``name`` names (:func:`bot_key`).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: An unknown bot (the message lists them), or a bot whose module is not
            installed in this version.
    """
    check_str("name", name)
    key = bot_key(name)
    if key is None:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}")
    module, _, cls = BOTS[key].partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        raise ValueError(
            f"bot {name!r} is not available in this version ({module} is not installed); "
            f"available: {', '.join(k for k in BOTS if _available(k))}"
        ) from None
    return getattr(mod, cls)(seed=seed)


def _available(key: str) -> bool:
    return importlib.util.find_spec(BOTS[key].partition(":")[0]) is not None
