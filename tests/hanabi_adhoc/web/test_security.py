"""The browser app is safe to expose (issue 41): attacks on a real server with plain HTTP clients.

``hanabi-adhoc serve`` runs as a real process (or, where a test needs the engine state, the app
runs in werkzeug's server on a thread); the clients are ``urllib.request`` and ``http.client``,
each holding its own cookie like a browser. Each attack gets its status and a JSON error; the
owner still gets the records of a game once it is over (docs/browser.md §6).
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")

from hanabi_adhoc.web import Settings
from hanabi_adhoc.web.app import MAX_JSON_DEPTH
from hanabi_env import HanabiGame
from tests.hanabi_adhoc.web.helpers import live, make_app
from tests.helpers import ROOT

# a module that leaves a mark when imported: a request must never get it imported
EVIL = "from pathlib import Path\nPath({mark!r}).write_text('ran')\nfrom agents.rulebase import *\n"


class Client:
    """One browser: plain HTTP requests that keep the cookie the server sets."""

    def __init__(self, url: str):
        self.url = url
        self.cookie: str | None = None
        self.headers: dict[str, str] = {}  # of the last answer

    def call(self, method: str, path: str, body: object = None) -> tuple[int, dict]:
        """``method path`` with ``body`` as JSON; the status and the JSON answer (checked)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {} if data is None else {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=120) as r:
                status, text, answer_headers = r.status, r.read(), r.headers
        except urllib.error.HTTPError as err:
            status, text, answer_headers = err.code, err.read(), err.headers
        assert answer_headers.get_content_type() == "application/json", (status, text[:300])
        self.headers = dict(answer_headers.items())
        if answer_headers.get("Set-Cookie"):
            self.cookie = answer_headers["Set-Cookie"].split(";")[0]
        answer = json.loads(text)
        if status >= 400:
            assert isinstance(answer["error"], str), answer
            assert answer["error"], answer
        return status, answer

    def start(self, **settings) -> dict:
        status, state = self.call("POST", "api/sessions", settings)
        assert status == 201, state
        return state

    def play_game(self, state: dict, rng: random.Random, check=None) -> dict:
        """Random legal moves and partner moves until the game is over; the last state."""
        sid = state["session"]
        while not state["game_over"]:
            if check is not None:
                check(state)
            if state["your_turn"]:
                move = rng.choice([m["id"] for m in state["menu"] if m["legal"]])
                body = {"action": move, "turn": state["turn"]}
                status, state = self.call("POST", f"api/sessions/{sid}/move", body)
            else:
                body = {"turn": state["turn"]}
                status, state = self.call("POST", f"api/sessions/{sid}/advance", body)
            assert status == 200, state
        return state


def raw_post(url: str, path: str, headers: dict, body: bytes) -> tuple[int, dict]:
    """A POST whose headers may lie (``Content-Length``), through ``http.client``."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        conn.putrequest("POST", "/" + path)
        for key, value in headers.items():
            conn.putheader(key, value)
        conn.endheaders()
        with suppress(OSError):  # the server may answer and close before reading it all
            conn.send(body)
        response = conn.getresponse()
        assert response.getheader("Content-Type") == "application/json"
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@contextmanager
def serve(cwd: Path, out: Path, *options: str):
    """``hanabi-adhoc serve`` as a real process on a free loopback port; yields its address."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "hanabi_adhoc", "serve", "--port", "0", "--out", str(out)]
    proc = subprocess.Popen([*cmd, *options], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        lines: queue.Queue[str] = queue.Queue()
        stdout = proc.stdout
        assert stdout is not None

        def pump() -> None:
            for x in stdout:
                lines.put(x)

        threading.Thread(target=pump, daemon=True).start()
        line = lines.get(timeout=180)  # a cold start imports numpy, numba, flask
        assert line.startswith("Hanabi in the browser: open http://127.0.0.1:"), line
        yield line.split("open ")[1].split()[0]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One ``serve`` with the default protection (no --trust-model, records not published)."""
    cwd = tmp_path_factory.mktemp("cwd")
    for name in ("evil_file", "evil_module"):
        (cwd / f"{name}.py").write_text(EVIL.format(mark=str(cwd / f"{name}.ran")))
    out = cwd / "records"
    with serve(cwd, out, "--games", "1") as url:
        yield url, cwd, out


def hidden_own_cards(state: dict) -> None:
    """The person's own cards are absent from a live state (only what the hints told)."""
    assert state["board"]["hands"][state["you"]]
    for card in state["board"]["hands"][state["you"]]:
        assert card["card"] is None
    for hand in (
        state["board"]["hands"][: state["you"]] + state["board"]["hands"][1 + state["you"] :]
    ):
        assert all(card["card"] for card in hand)  # the partners' cards are shown


def test_records_are_shown_to_their_owner_once_the_game_is_over(server):
    url, _, out = server
    alice, mallory = Client(url), Client(url)
    state = alice.start(partners=["Piers"], seed=4)
    sid = state["session"]
    replay = f"api/records/{sid}/1?move=0"
    # a game being played: every card of it to no one, not even to its owner
    assert mallory.call("GET", replay)[0] == 403
    assert mallory.call("GET", f"api/records/{sid}/1/hanablive")[0] == 403
    assert alice.call("GET", replay)[0] == 409
    assert alice.call("GET", f"api/records/{sid}/1/hanablive")[0] == 409
    assert sid not in [s["session"] for s in mallory.call("GET", "api/records")[1]]
    assert mallory.call("GET", f"api/sessions/{sid}")[0] == 403
    state = alice.play_game(state, random.Random(2), check=hidden_own_cards)
    hidden_own_cards(state)  # the game is over and the state still hides them
    # over: its owner replays it, every card shown; anyone else still gets nothing
    status, shown = alice.call("GET", replay)
    assert status == 200
    assert all(card["card"] for hand in shown["board"]["hands"] for card in hand)
    saved = json.loads((out / sid / "game_01.hanablive.json").read_text())
    status, record = alice.call("GET", f"api/records/{sid}/1/hanablive")
    assert status == 200
    assert record["deck"] == saved["deck"]
    assert [s["session"] for s in alice.call("GET", "api/records")[1]] == [sid]
    assert mallory.call("GET", "api/records") == (200, [])
    assert mallory.call("GET", replay)[0] == 403
    assert mallory.call("GET", f"api/records/{sid}/1/hanablive")[0] == 403
    assert alice.call("GET", f"api/records/{sid}/2?move=0")[0] == 404  # a 1-game session


def test_partner_specs_that_run_code_or_read_files_are_refused(server):
    url, cwd, out = server
    before = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    client = Client(url)
    for spec in (
        f"{cwd / 'evil_file.py'}:X",
        "evil_module:X",
        "this:X",
        "sb3:model.zip",
        "rl:./model.json",
        f"bad:{cwd / 'model.json'}",
    ):
        status, answer = client.call("POST", "api/sessions", {"partners": ["Piers", spec]})
        assert status == 400, (spec, answer)
        assert "partners[1]" in answer["error"]
        assert "--trust-model" in answer["error"]
    assert not (cwd / "evil_file.ran").exists()
    assert not (cwd / "evil_module.ran").exists()
    assert (sorted(p.name for p in out.iterdir()) if out.is_dir() else []) == before
    assert client.cookie is None  # refused before a session (or its cookie) existed


def test_big_bodies_bad_json_and_wrong_routes_get_json_errors(server):
    url, _, out = server
    before = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    json_type = {"Content-Type": "application/json"}
    status, answer = raw_post(url, "api/sessions", {**json_type, "Content-Length": "200000000"},
                              b'{"partners": ["Piers"], "x": "' + b"a" * 65536)  # fmt: skip
    assert status == 413, answer
    deep = b"[" * 30_000 + b"]" * 30_000  # under the size cap, over the JSON parser's depth
    body = {**json_type, "Content-Length": str(len(deep))}
    assert raw_post(url, "api/sessions", body, deep)[0] == 400
    nested = b'{"partners": ' + b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1) + b"}"
    size = {"Content-Length": str(len(nested))}
    status, answer = raw_post(url, "api/sessions", {**json_type, **size}, nested)
    assert status == 400
    assert "deeper" in answer["error"]
    bad = b'{"partners": ["Piers"'
    assert (
        raw_post(url, "api/sessions", {**json_type, "Content-Length": str(len(bad))}, bad)[0] == 400
    )
    client = Client(url)
    assert client.call("GET", "api/nothing")[0] == 404
    assert client.call("DELETE", "api/sessions")[0] == 405
    assert client.call("GET", "api/records/0123456789abcdef/1")[0] == 404
    assert (sorted(p.name for p in out.iterdir()) if out.is_dir() else []) == before


def test_trusted_and_published_server_and_the_rate_limit(tmp_path):
    """--trust-model lets the page name code; --publish-records shows every finished game;
    --session-rate caps the sessions one address starts a minute."""
    (tmp_path / "mine.py").write_text(
        EVIL.format(mark=str(tmp_path / "mine.ran")) + "from agents import Policy\n"
        "class FirstLegal(Policy):\n"
        "    name = 'FirstLegal'\n"
        "    def act(self, view):\n"
        "        return int(view.legal_actions()[0])\n"
    )
    options = ("--trust-model", "--publish-records", "--session-rate", "3", "--games", "1")
    with serve(tmp_path, tmp_path / "records", *options) as url:
        alice, bob = Client(url), Client(url)
        state = alice.start(partners=[f"{tmp_path / 'mine.py'}:FirstLegal"], seed=1)
        assert (tmp_path / "mine.ran").exists()  # trusted: the operator allowed it
        sid = state["session"]
        assert bob.call("GET", f"api/records/{sid}/1")[0] == 409  # published, but not over
        alice.play_game(state, random.Random(0))
        assert bob.call("GET", f"api/records/{sid}/1?move=2")[0] == 200
        assert [s["session"] for s in bob.call("GET", "api/records")[1]] == [sid]
        alice.start(partners=["Piers"])
        bob.start(partners=["Piers"])  # the same address: 3 sessions this minute
        carol = Client(url)
        status, answer = carol.call("POST", "api/sessions", {"partners": ["Piers"]})
        assert status == 429, answer
        assert "a minute" in answer["error"]
        assert 1 <= int(carol.headers["Retry-After"]) <= 60
        assert len(list((tmp_path / "records").iterdir())) == 3


class Served:
    """An app on a free loopback port, served by werkzeug on a thread (engine state at hand)."""

    def __init__(self, app):
        from werkzeug.serving import make_server

        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.thread.join()
        self.server.server_close()


def test_the_live_state_does_not_depend_on_the_persons_own_cards(tmp_path):
    """Deal the person's cards in another order: every byte the page gets stays the same."""
    with Served(make_app(tmp_path, defaults=Settings(games=1))) as served:
        client = Client(served.url)
        state = client.start(partners=["IGGI", "Piers"], seat=1, seed=5)
        session = live(served.app, state["session"])
        game = session.game
        hand = [int(game.state.deck[5 + k]) for k in range(5)]  # seat 1 is dealt second
        assert len(set(hand)) > 1
        first = client.call("GET", f"api/sessions/{state['session']}")
        deck = [int(c) for c in game.state.deck]
        k = next(k for k in range(1, 5) if hand[k] != hand[0])
        deck[5], deck[5 + k] = deck[5 + k], deck[5]
        other = HanabiGame(game.config)
        other.reset_with_deck(deck, int(game.current_player))
        assert other.view(0).hands[1].tolist() != game.view(0).hands[1].tolist()
        session.game = other
        assert client.call("GET", f"api/sessions/{state['session']}") == first
        hidden_own_cards(first[1])


def test_a_client_has_at_most_its_live_sessions_and_finishing_one_frees_it(tmp_path):
    app = make_app(tmp_path, defaults=Settings(games=1), max_sessions=2, session_rate=100)
    with Served(app) as served:
        client = Client(served.url)
        first = client.start(partners=["Piers"])
        client.start(partners=["Piers"])
        status, answer = client.call("POST", "api/sessions", {"partners": ["Piers"]})
        assert status == 429
        assert "at most 2 unfinished" in answer["error"]
        assert len(list(tmp_path.iterdir())) == 2  # the refused one wrote nothing
        state = client.play_game(first, random.Random(1))
        status, state = client.call("POST", f"api/sessions/{state['session']}/next", {"game": 1})
        assert state["phase"] == "done"
        client.start(partners=["Piers"])


def test_the_owner_finds_its_records_after_the_server_restarts(tmp_path):
    with Served(make_app(tmp_path, defaults=Settings(games=1))) as served:
        alice = Client(served.url)
        state = alice.play_game(alice.start(partners=["Piers"]), random.Random(3))
    secret = alice.cookie.split("=", 1)[1]
    assert secret not in (tmp_path / state["session"] / "session.json").read_text()
    with Served(make_app(tmp_path)) as served:
        alice.url = served.url
        path = f"api/records/{state['session']}/1?move=1"
        assert alice.call("GET", path)[0] == 200
        assert Client(served.url).call("GET", path)[0] == 403


def test_an_ipv6_host_is_counted_by_its_64_block(tmp_path):
    """A host given a /64 cannot dodge the limits by changing its address within it."""
    client = make_app(tmp_path, session_rate=2).test_client()

    def start_from(address: str) -> int:
        response = client.post("/api/sessions", json={"partners": ["Piers"]},
                               environ_base={"REMOTE_ADDR": address})  # fmt: skip
        return response.status_code

    assert [start_from(a) for a in ("2001:db8::1", "2001:db8::2:3", "2001:db8::ffff")] == [
        201,
        201,
        429,
    ]
    assert start_from("2001:db8:0:1::1") == 201  # another /64: another client
    assert start_from("::ffff:10.0.0.1") == 201  # an IPv4 client, IPv6-mapped
    assert start_from("10.0.0.1") == 201
    assert start_from("10.0.0.1") == 429


def test_sessions_left_alone_for_hours_leave_the_servers_memory(tmp_path):
    from hanabi_adhoc.web.session import DROP_SECONDS

    app = make_app(tmp_path, defaults=Settings(games=1))
    with Served(app) as served:
        client = Client(served.url)
        old = client.start(partners=["Piers"])["session"]
        kept = client.start(partners=["Piers"])["session"]
        live(app, old).touched -= DROP_SECONDS
        client.start(partners=["Piers"])  # a start looks for sessions to drop
        status, answer = client.call("GET", f"api/sessions/{old}")
        assert status == 404
        assert "start a new one" in answer["error"]
        assert client.call("GET", f"api/sessions/{kept}")[0] == 200
        assert (tmp_path / old / "session.json").is_file()  # its files stay
