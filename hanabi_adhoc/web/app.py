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
| ``GET /api/records`` | the saved sessions |
| ``GET /api/records/<id>/<game>?move=i`` | a saved game replayed to move i, every card shown |
| ``GET /api/records/<id>/<game>/hanablive`` | the game's record in hanab.live's format |

A session belongs to the browser that started it: the server gives that browser a random
secret in an HttpOnly, SameSite=Strict cookie and refuses the session's requests without it.
Every request is checked against the session's engine state (:mod:`hanabi_adhoc.web.session`).
The page loads nothing from elsewhere (its Content-Security-Policy allows only this server).
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, request, send_from_directory

from hanabi_adhoc.web import board, store
from hanabi_adhoc.web.session import AppOptions, PlaySession, Refused, settings_from

__all__ = ["OWNER_COOKIE", "create_app"]

OWNER_COOKIE = "hanabi_adhoc_owner"
"""The cookie that ties sessions to the browser that started them."""

STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def _error(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"error": message}), status


def _body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise Refused(400, "send a JSON object (Content-Type: application/json)")
    return data


class _Sessions:
    """The live sessions of one app, by id."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_id: dict[str, PlaySession] = {}

    def get(self, sid: str) -> PlaySession:
        with self.lock:
            session = self.by_id.get(sid)
        if session is None:
            raise Refused(404, f"no session {sid!r} on this server; start a new one")
        session.check_owner(request.cookies.get(OWNER_COOKIE))
        return session

    def add(self, session: PlaySession) -> None:
        with self.lock:
            self.by_id[session.id] = session


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
    _add_checks(app, host in LOOPBACK)
    _add_pages(app, options)
    sessions = _Sessions()
    app.extensions["hanabi_adhoc.sessions"] = sessions.by_id  # live sessions by id (tests)
    _add_sessions(app, options, sessions)
    _add_records(app, Path(options.out))
    return app


def _add_checks(app: Flask, loopback: bool) -> None:
    """The Host check, the security headers and the JSON errors."""

    @app.before_request
    def _check_host():
        if loopback and urlsplit("//" + request.host).hostname not in LOOPBACK:
            return _error(400, f"unexpected Host {request.host!r}; open the address serve printed")
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
        return _error(exc.status, str(exc))

    @app.errorhandler(404)
    def _not_found(_exc):
        return _error(404, f"no such page: {request.path}")

    @app.errorhandler(405)
    def _bad_method(_exc):
        return _error(405, f"{request.method} is not allowed on {request.path}")


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
        from hanabi_adhoc.cli.main import META_VARIANTS

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
        try:
            settings = settings_from(_body(), options.defaults, options.fixed)
        except ValueError as exc:
            raise Refused(400, str(exc)) from None
        owner = request.cookies.get(OWNER_COOKIE) or secrets.token_urlsafe(24)
        try:
            session = PlaySession(secrets.token_hex(8), owner, settings, options)
        except ValueError as exc:
            raise Refused(400, str(exc)) from None
        sessions.add(session)
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


def _add_records(app: Flask, out: Path) -> None:
    """The saved sessions, their replays and their hanab.live records."""

    @app.get("/api/records")
    def api_records():
        return jsonify(store.list_sessions(out))

    @app.get("/api/records/<sid>/<int:game>")
    def api_replay(sid: str, game: int):
        move = request.args.get("move", "0")
        if not move.isdigit():
            raise Refused(400, f"move={move!r} must be a move number (0 = the deal)")
        return jsonify(replay(out, sid, game, int(move)))

    @app.get("/api/records/<sid>/<int:game>/hanablive")
    def api_hanablive(sid: str, game: int):
        if not store.SESSION_ID.fullmatch(sid):
            raise Refused(400, f"{sid!r} is not a session id")
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
        Refused: No such session or game (404), or a log that does not replay (422).
    """
    from hanabi_env import HanabiConfig, HanabiGame

    try:
        log = store.read_game(root, sid, game)
    except ValueError as exc:
        raise Refused(400, str(exc)) from None
    except FileNotFoundError as exc:
        raise Refused(404, str(exc)) from None
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
