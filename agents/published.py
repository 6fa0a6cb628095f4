"""The data shipped with the package: the rule base and the published chromosomes.

Files live in ``agents/data/`` (provenance and licence in its README); populations are in
``qd/data/`` (:func:`qd.io.load_population`). Sources: docs/rules.md §10.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["DATA_DIR", "data_path", "published_chromosomes"]

DATA_DIR = Path(__file__).resolve().parent / "data"


def data_path(name: str) -> Path:
    """Path of a data file shipped in ``agents/data/``.

    Args:
        name: File name, e.g. ``"rulebase.json"`` or ``"published_chromosomes.json"``.

    Returns:
        The file's path.

    Raises:
        TypeError: ``name`` is not a str.
        FileNotFoundError: No such file; the message lists the files there are.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    path = DATA_DIR / name
    if not path.is_file():
        have = sorted(p.name for p in DATA_DIR.glob("*.json"))
        raise FileNotFoundError(f"no data file {name!r} in agents/data; available: {have}")
    return path


def published_chromosomes() -> list[dict]:
    """The chromosomes published in the authors' Java sources, with their claims.

    Returns:
        One dict per chromosome: ``name`` (str, e.g. ``"NYUGameLab_2p"``), ``players`` (int,
        the size it was tuned for), ``chromosome`` (list of 15 rule indices 0–104),
        ``claimed_mirror_score`` (float or None: the authors' informal mirror score at
        ``players``, lenient scoring), ``claimed_descriptors``, ``source`` and ``note``.
    """
    return json.loads(data_path("published_chromosomes.json").read_text())
