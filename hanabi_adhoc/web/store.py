"""The session folders of the browser app: what is written where, and reading it back.

Every session writes one folder under the server's output folder (``--out``), named by its id::

    OUT/<session id>/session.json           settings, seats, study answers, per-game results
    OUT/<session id>/game_01.json           this project's per-move log of game 1
    OUT/<session id>/game_01.hanablive.json game 1 in hanab.live's format (hanabi_env.records)

Each file is rewritten whole after every change through :func:`write_json` (atomic: a reader or
a killed server never sees half a file), so a session stopped at any point leaves valid files.
Nothing is sent anywhere: the files stay on this machine (docs/browser.md §5).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

__all__ = [
    "GAME_FILE",
    "RECORD_FILE",
    "SESSION_FILE",
    "game_path",
    "list_sessions",
    "owned_by",
    "owner_digest",
    "read_game",
    "read_session",
    "write_json",
]

SESSION_FILE = "session.json"
GAME_FILE = "game_{:02d}.json"
RECORD_FILE = "game_{:02d}.hanablive.json"
SESSION_ID = re.compile(r"[0-9a-f]{16}")
"""Session ids: 16 hex digits (:func:`secrets.token_hex` of 8 bytes)."""


def write_json(path: str | Path, obj: object) -> None:
    """Write ``obj`` as strict JSON to ``path``, atomically: every file of a session goes here.

    NaN becomes ``null`` (:func:`hanabi_env.jsonable.json_ready`).

    Raises:
        OSError: The folder cannot be written.
    """
    from qd.io import atomic_write_json

    atomic_write_json(path, obj)


def game_path(root: Path, session: str, game: int, record: bool = False) -> Path:
    """The per-move log (or, with ``record``, the hanab.live record) of game ``game`` (1-based)."""
    return Path(root) / session / (RECORD_FILE if record else GAME_FILE).format(game)


def _read(path: Path) -> dict | None:
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def owner_digest(secret: str) -> str:
    """The SHA-256 (hex) of a browser's owner secret: what ``session.json`` keeps of it.

    The secret itself (the browser's cookie) is never written, so the files do not let anyone
    act as the owner; the digest lets the owner's browser find its records again after the
    server restarts (docs/browser.md §6).
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def read_session(root: str | Path, session: str) -> dict | None:
    """The ``session.json`` of ``session`` under ``root``; None if there is none (or unreadable).

    Raises:
        ValueError: ``session`` is not a session id.
    """
    if not isinstance(session, str) or not SESSION_ID.fullmatch(session):
        raise ValueError(f"session={session!r} is not a session id (16 hex digits)")
    return _read(Path(root) / session / SESSION_FILE)


def owned_by(data: dict, owner: str | None) -> bool:
    """Whether the browser holding ``owner`` started the session whose ``session.json`` is ``data``.

    Args:
        data: A session's ``session.json`` (:func:`read_session`).
        owner: The browser's owner secret (its cookie), or None (no cookie: owns nothing).

    Returns:
        True when ``data``'s ``owner_sha256`` is :func:`owner_digest` of ``owner`` (compared in
        constant time); a session saved without one is owned by no browser (docs/browser.md §6).
    """
    import hmac

    digest = data.get("owner_sha256")
    if not owner or not isinstance(digest, str):
        return False
    return hmac.compare_digest(digest, owner_digest(owner))


def list_sessions(root: str | Path, owner: str | None = None, everyone: bool = False) -> list[dict]:
    """Summaries of the saved sessions with a finished game that a browser may see.

    Sessions without a finished game are left out (nothing to replay yet). The order: the
    sessions whose last game ended most recently first.

    Args:
        root: The server's output folder.
        owner: The browser's owner secret (its cookie), or None: it sees the sessions it
            started (:func:`owned_by`).
        everyone: Every session is shown (``serve --publish-records``).

    Returns:
        One dict per readable ``session.json`` shown: ``session``, ``created``, ``seats``
        (names), ``games`` (finished), ``scores``, ``finished`` (UTC time its last game
        ended), ``done`` (every game of it played) and ``config`` (players, hand size,
        scoring, ruleset).
    """
    root = Path(root)
    out = []
    for folder in root.iterdir() if root.is_dir() else ():
        data = _read(folder / SESSION_FILE) if SESSION_ID.fullmatch(folder.name) else None
        if data is None or not (everyone or owned_by(data, owner)):
            continue
        results = data.get("results", [])
        if not isinstance(results, list) or not results:
            continue
        config = data.get("config", {})
        total = config.get("games") if isinstance(config, dict) else None
        out.append(
            {
                "session": folder.name,
                "created": data.get("created", ""),
                "seats": [s.get("name") for s in data.get("seats", [])],
                "games": len(results),
                "scores": [r.get("score") for r in results],
                "finished": str(results[-1].get("time", "")),
                "done": data.get("phase") == "done" or len(results) == total,
                "config": config,
            }
        )
    return sorted(out, key=lambda s: (s["finished"], s["created"]), reverse=True)


def read_game(root: str | Path, session: str, game: int) -> dict:
    """The per-move log of game ``game`` (1-based) of ``session`` under ``root``.

    Raises:
        ValueError: ``session`` is not a session id.
        FileNotFoundError: No such game.
    """
    if not isinstance(session, str) or not SESSION_ID.fullmatch(session):
        raise ValueError(f"session={session!r} is not a session id (16 hex digits)")
    data = _read(game_path(Path(root), session, int(game)))
    if data is None:
        raise FileNotFoundError(f"session {session} has no game {game}")
    return data
