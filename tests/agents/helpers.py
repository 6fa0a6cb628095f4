"""Shared set-up of the reference-bot tests: the C++ oracle tool and the recorded C++ games.

``tests/data/quux/<bot>.json`` (SimpleBot, ValueBot, HolmesBot, SmartBot) and
``tests/data/quux/infobot/games.json`` hold games the C++ bots played on this engine's deals
(docs/bots.md §3); :func:`recorded` reads one, :func:`deck` turns its decks into card ids and
:func:`oracle` loads ``tools/quux_oracle.py``, which replays and compares them.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from tests.helpers import ROOT

QUUX_DATA = Path(__file__).resolve().parents[1] / "data" / "quux"


def recorded_path(bot: str) -> Path:
    """The file of the recorded C++ games of ``bot`` (a :data:`agents.bots.BOTS` key)."""
    return QUUX_DATA / "infobot" / "games.json" if bot == "infobot" else QUUX_DATA / f"{bot}.json"


@cache
def oracle() -> ModuleType:
    """tools/quux_oracle.py as a module (a developer tool, not part of the package)."""
    spec = importlib.util.spec_from_file_location("quux_oracle", ROOT / "tools" / "quux_oracle.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["quux_oracle"] = module
    spec.loader.exec_module(module)
    return module


@cache
def recorded(bot: str) -> dict:
    """The recorded C++ games of ``bot``: provenance and ``["games"][str(players)]`` lists."""
    return json.loads(recorded_path(bot).read_text())


def deck(text: str) -> list[int]:
    """A recorded deck (``"1r 3y ..."``, the oracle's format) as engine card ids."""
    return [("roygb".index(c[1])) * 5 + int(c[0]) - 1 for c in text.split()]
