"""The Flask app of ``hanabi-adhoc serve``: the page, its JSON API, the replays.

Routes (every API answer is JSON; a refusal is ``{"error": "..."}`` with a 4xx status and
changes nothing):

| route | what |
|---|---|
| ``GET /`` | the page: choose partners, play, see the results (``static/index.html``) |
| ``GET /replay`` | the saved games, replayed move by move (the same page, ``replay.js``) |
| ``GET /api/options`` | the defaults, the agents to choose from, study and belief settings |
| ``POST /api/sessions`` | start a session (settings as JSON); sets the browser's owner cookie |
| ``GET /api/sessions/<id>`` | the session's state: the board as the person sees it, results |
| ``POST /api/sessions/<id>/move`` | ``{"action": move id, "turn": moves played}``: a move |
| ``POST /api/sessions/<id>/advance`` | ``{"turn": moves played}``: one move of a partner |
| ``POST /api/sessions/<id>/next`` | ``{"game": n}``: after game n, the next game (or the end) |
| ``POST /api/sessions/<id>/answer`` | ``{"stage": "consent"/"pre"/"post", "answers": {...}}`` |
| ``GET /api/records`` | the saved sessions of this browser (every one if published) |
| ``GET /api/records/<id>/<game>?move=i`` | a finished game replayed to move i, every card shown |
| ``GET /api/records/<id>/<game>/hanablive`` | a finished game's record in hanab.live's format |

A session belongs to the browser that started it: the server gives that browser a random
secret in an HttpOnly, SameSite=Strict cookie and refuses the session's requests without it.
Every request is checked against the session's engine state (:mod:`hanabi_adhoc.web.session`).
The page loads nothing from elsewhere (its Content-Security-Policy allows only this server).

What is served to whom (docs/browser.md §6): a live game only to its owner, and never the
owner's own cards; the records (the list, replays, hanab.live files) of a game only once it is
over, and only to the browser that played it, or to every browser with
``AppOptions.publish_records``. Partner specs from a request that run code or read files are
refused unless ``AppOptions.trust_model``. Bodies over ``AppOptions.max_body`` bytes get 413,
malformed or too deeply nested JSON 400, a client address over its live sessions
(``max_sessions``) or its sessions per minute (``session_rate``) 429; every error is JSON.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import secrets
import threading
import time
from collections import deque
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from hanabi_adhoc.web import board, store
from hanabi_adhoc.web.session import (
    DROP_SECONDS,
    AppOptions,
    PlaySession,
    Refused,
    settings_from,
)

__all__ = ["MAX_JSON_DEPTH", "OWNER_COOKIE", "RATE_WINDOW_SECONDS", "create_app"]

OWNER_COOKIE = "hanabi_adhoc_owner"
"""The cookie that ties sessions to the browser that started them."""

STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


MAX_JSON_DEPTH = 16
"""Deepest nesting of arrays and objects a request body may have (the API needs 3)."""

RATE_WINDOW_SECONDS = 60.0
"""The window of ``AppOptions.session_rate`` (sessions per client per minute)."""

_log = logging.getLogger(__name__)


def _error(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"error": message}), status


def _depth(value: object) -> int:
    """How deeply arrays and objects nest in a parsed JSON value (a scalar: 0), iteratively."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _body() -> dict:
    """The request's JSON object; malformed, too deep or not an object: :class:`Refused` 400."""
    if not request.is_json:
        raise Refused(400, "send a JSON object (Content-Type: application/json)")
    text = request.get_data(cache=True)  # over max_body: 413 (RequestEntityTooLarge)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply for the parser
        raise Refused(400, "the body is not valid JSON (send a JSON object)") from None
    if not isinstance(data, dict):
        raise Refused(400, "send a JSON object (Content-Type: application/json)")
    if _depth(data) > MAX_JSON_DEPTH:
        raise Refused(400, f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels")
    return data


def _client() -> str:
    """The client a limit counts: an IPv4 address, or an IPv6 /64 network (one host's block).

    Behind a proxy, every client is the proxy.
    """
    address = request.remote_addr or "?"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class _Sessions:
    """The live sessions of one app, by id, and each client address's sessions and starts."""

    def __init__(self, options: AppOptions) -> None:
        self.options = options
        self.lock = threading.Lock()
        self.by_id: dict[str, PlaySession] = {}
        self.client_of: dict[str, str] = {}
        self.starts: dict[str, deque[float]] = {}

    def get(self, sid: str) -> PlaySession:
        with self.lock:
            session = self.by_id.get(sid)
        if session is None:
            raise Refused(404, f"no session {sid!r} on this server; start a new one")
        session.check_owner(request.cookies.get(OWNER_COOKIE))
        session.touched = time.monotonic()
        return session

    def admit(self, client: str) -> None:
        """Count a session start of ``client``, or refuse it (429) at one of its limits."""
        opts, now = self.options, time.monotonic()
        with self.lock:
            self._drop_idle(now)
            starts = self.starts.setdefault(client, deque())
            while starts and now - starts[0] >= RATE_WINDOW_SECONDS:
                starts.popleft()
            if len(starts) >= opts.session_rate:
                wait = int(RATE_WINDOW_SECONDS - (now - starts[0])) + 1
                raise Refused(429, f"too many new sessions: at most {opts.session_rate} a "
                              f"minute from one address; try again in {wait} s", wait)  # fmt: skip
            live = sum(
                1
                for sid, s in self.by_id.items()
                if self.client_of[sid] == client and s.is_live(now)
            )
            if live >= opts.max_sessions:
                raise Refused(429, f"too many sessions at once: at most {opts.max_sessions} "
                              "unfinished sessions from one address; finish one first")  # fmt: skip
            starts.append(now)

    def _drop_idle(self, now: float) -> None:
        """Forget sessions without a request for :data:`DROP_SECONDS`, and spent start counts."""
        for sid in [k for k, s in self.by_id.items() if now - s.touched >= DROP_SECONDS]:
            del self.by_id[sid], self.client_of[sid]
        for client in [
            c for c, t in self.starts.items() if not t or now - t[-1] >= RATE_WINDOW_SECONDS
        ]:
            del self.starts[client]

    def add(self, session: PlaySession, client: str) -> None:
        with self.lock:
            self.by_id[session.id] = session
            self.client_of[session.id] = client


def create_app(options: AppOptions, host: str = "127.0.0.1") -> Flask:
    """The app for ``options``; ``host`` is the address it is served on.

    On a loopback ``host`` (the default) requests must name a loopback host (``Host`` header),
    so that a web page elsewhere cannot reach the server through its own domain name.

    Args:
        options: The server's options (output folder, defaults, study, ...).
        host: The address the server binds.

    Returns:
        The Flask app.
    """
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.config["MAX_CONTENT_LENGTH"] = options.max_body
    _add_checks(app, host in LOOPBACK, options.max_body)
    _add_pages(app, options)
    sessions = _Sessions(options)
    app.extensions["hanabi_adhoc.sessions"] = sessions.by_id  # live sessions by id (tests)
    _add_sessions(app, options, sessions)
    _add_records(app, options)
    return app


def _add_checks(app: Flask, loopback: bool, max_body: int) -> None:
    """The Host check, the body cap, the security headers and the JSON errors."""

    @app.before_request
    def _check_host():
        if loopback and urlsplit("//" + request.host).hostname not in LOOPBACK:
            return _error(400, f"unexpected Host {request.host!r}; open the address serve printed")
        if (request.content_length or 0) > max_body:  # refused before a byte of it is read
            return _error(413, f"the request body is over {max_body} bytes")
        return None

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(Refused)
    def _refused(exc: Refused):
        response, status = _error(exc.status, str(exc))
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response, status

    @app.errorhandler(404)
    def _not_found(_exc):
        return _error(404, f"no such page: {request.path}")

    @app.errorhandler(405)
    def _bad_method(_exc):
        return _error(405, f"{request.method} is not allowed on {request.path}")

    @app.errorhandler(413)
    def _too_large(_exc):
        return _error(413, f"the request body is over {max_body} bytes")

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        return _error(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        _log.error("unexpected error on %s %s", request.method, request.path, exc_info=exc)
        return _error(500, f"the server failed on this request ({type(exc).__name__})")


def _add_pages(app: Flask, options: AppOptions) -> None:
    """The two pages and the options the play page starts from."""

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/replay")
    def replay_page():
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/options")
    def api_options():
        from agents.rulebase import BASELINES
        from hanabi_adhoc.specs import META_VARIANTS

        d = options.defaults
        return jsonify(
            {
                "defaults": {
                    "partners": list(d.partners),
                    "seat": d.seat,
                    "games": d.games,
                    "scoring": d.scoring,
                    "hand_size": d.hand_size,
                    "seed": d.seed,
                    "ruleset": d.ruleset,
                },
                "fixed": options.fixed,
                "study": options.study is not None,
                "show_belief": options.show_belief,
                "agents": list(BASELINES) + [f"meta:{v}" for v in META_VARIANTS],
                "agent_delay_ms": options.agent_delay_ms,
            }
        )


def _add_sessions(app: Flask, options: AppOptions, sessions: _Sessions) -> None:
    """Starting a session and every request of one."""

    @app.post("/api/sessions")
    def api_start():
        data = _body()
        try:  # partner specs checked from their text: nothing is built or imported yet
            settings = settings_from(data, options.defaults, options.fixed, options.trust_model)
        except (ValueError, TypeError) as exc:
            raise Refused(400, str(exc)) from None
        client = _client()
        sessions.admit(client)
        owner = request.cookies.get(OWNER_COOKIE) or secrets.token_urlsafe(24)
        try:
            session = PlaySession(secrets.token_hex(8), owner, settings, options)
        except ValueError as exc:
            raise Refused(400, str(exc)) from None
        sessions.add(session, client)
        response = jsonify(session.state())
        response.set_cookie(OWNER_COOKIE, owner, httponly=True, samesite="Strict")
        return response, 201

    @app.get("/api/sessions/<sid>")
    def api_state(sid: str):
        return jsonify(sessions.get(sid).state())

    @app.post("/api/sessions/<sid>/move")
    def api_move(sid: str):
        session = sessions.get(sid)
        data = _body()
        return jsonify(session.move(data.get("action"), data.get("turn")))

    @app.post("/api/sessions/<sid>/advance")
    def api_advance(sid: str):
        session = sessions.get(sid)
        return jsonify(session.advance(_body().get("turn")))

    @app.post("/api/sessions/<sid>/next")
    def api_next(sid: str):
        session = sessions.get(sid)
        return jsonify(session.next_game(_body().get("game")))

    @app.post("/api/sessions/<sid>/answer")
    def api_answer(sid: str):
        session = sessions.get(sid)
        data = _body()
        return jsonify(session.answer(data.get("stage"), data.get("answers")))


def _add_records(app: Flask, options: AppOptions) -> None:
    """The saved sessions, their replays and their hanab.live records (owner or published)."""
    out = Path(options.out)

    def finished(sid: str, game: int) -> None:
        """Refuse a game this browser may not see (yet): 400, 404, 403 or 409."""
        try:
            data = store.read_session(out, sid)
        except ValueError as exc:
            raise Refused(400, str(exc)) from None
        if data is None:
            raise Refused(404, f"no saved session {sid}")
        if not (options.publish_records or store.owned_by(data, request.cookies.get(OWNER_COOKIE))):
            raise Refused(403, f"session {sid} belongs to another browser; its records are "
                          "not published on this server")  # fmt: skip
        results, config = data.get("results"), data.get("config")
        games = config.get("games", 0) if isinstance(config, dict) else 0
        if not 1 <= game <= (games if isinstance(games, int) else 0):
            raise Refused(404, f"session {sid} has no game {game}")
        if game > (len(results) if isinstance(results, list) else 0):
            raise Refused(409, f"game {game} of session {sid} is not over: a game's record "
                          "is shown once it is over")  # fmt: skip

    @app.get("/api/records")
    def api_records():
        owner = request.cookies.get(OWNER_COOKIE)
        return jsonify(store.list_sessions(out, owner, everyone=options.publish_records))

    @app.get("/api/records/<sid>/<int:game>")
    def api_replay(sid: str, game: int):
        move = request.args.get("move", "0")
        if not move.isdigit():
            raise Refused(400, f"move={move!r} must be a move number (0 = the deal)")
        finished(sid, game)
        return jsonify(replay(out, sid, game, int(move)))

    @app.get("/api/records/<sid>/<int:game>/hanablive")
    def api_hanablive(sid: str, game: int):
        finished(sid, game)
        path = store.game_path(out, sid, game, record=True)
        if not path.is_file():
            raise Refused(404, f"session {sid} has no finished game {game}")
        return send_from_directory(path.parent, path.name, as_attachment=True)


def replay(root: Path, sid: str, game: int, move: int) -> dict:
    """Saved game ``game`` of session ``sid`` replayed on the engine up to move ``move``.

    Returns:
        ``session``, ``game``, ``move`` (clamped to the moves played), ``total``, ``log`` (the
        per-move log), ``board`` (every card shown, :func:`board.board_json`), ``config`` and
        ``result``.

    Raises:
        Refused: No such session or game (404), a game not over (409), or a log that does not
            replay (422).
    """
    from hanabi_env import HanabiConfig, HanabiGame

    try:
        log = store.read_game(root, sid, game)
    except ValueError as exc:
        raise Refused(400, str(exc)) from None
    except FileNotFoundError as exc:
        raise Refused(404, str(exc)) from None
    if log.get("result") is None:
        raise Refused(409, f"game {game} of session {sid} is not over: it is shown once it is")
    moves = [m for m in log.get("moves", []) if "action" in m]
    n = min(move, len(moves))
    try:
        g = HanabiGame(HanabiConfig(**log["engine_config"]))
        g.reset_with_deck(log["deck"], int(log["start_player"]))
        for m in moves[:n]:
            g.step(int(m["action"]))
        names = [s["name"] for s in log["seats"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise Refused(422, f"game {game} of session {sid} does not replay: {exc}") from None
    return {
        "session": sid,
        "game": game,
        "move": n,
        "total": len(moves),
        "log": moves,
        "board": board.board_json(g, names, None),
        "config": log.get("config", {}),
        "result": log.get("result"),
    }
