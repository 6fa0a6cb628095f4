"""What the tests of the browser app share: an app on a scratch folder, and games played on it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")

from hanabi_adhoc.web import AppOptions, Settings, create_app
from hanabi_env.game import card_name

SESSIONS = "hanabi_adhoc.sessions"


def make_app(tmp_path: Path, **kwargs):
    """An app saving under ``tmp_path`` (no partner delay, a small meta-agent table)."""
    defaults = kwargs.pop("defaults", Settings())
    options = AppOptions(out=tmp_path, defaults=defaults, train_games=1, agent_delay_ms=0)
    for key, value in kwargs.items():
        setattr(options, key, value)
    return create_app(options)


def live(app, sid: str):
    """The server's session ``sid`` (its engine state)."""
    return app.extensions[SESSIONS][sid]


def legal_moves(state: dict) -> list[int]:
    return [m["id"] for m in state["menu"] if m["legal"]]


def play_turn(client, state: dict, rng: random.Random) -> dict:
    """One request of the page: the person's random legal move, or one partner move."""
    sid = state["session"]
    if state["your_turn"]:
        body = {"action": rng.choice(legal_moves(state)), "turn": state["turn"]}
        response = client.post(f"/api/sessions/{sid}/move", json=body)
    else:
        response = client.post(f"/api/sessions/{sid}/advance", json={"turn": state["turn"]})
    assert response.status_code == 200, response.json
    return response.json


def play_session(client, state: dict, rng: random.Random) -> dict:
    """Play every game of a session through the API; the last state."""
    while state["phase"] == "play":
        if state["game_over"]:
            r = client.post(f"/api/sessions/{state['session']}/next", json={"game": state["game"]})
            assert r.status_code == 200, r.json
            state = r.json
        else:
            state = play_turn(client, state, rng)
    return state


def expected_board(session) -> dict:
    """The board the person should see, read off the engine (not off the app's JSON)."""
    game = session.game
    public = game.state.public
    ranks = game.config.ranks
    hands = []
    for p in range(game.config.players):
        n = int(public.hand_len[p])
        if p == session.seat:
            hands.append([""] * n)  # the person's own cards are never sent
        else:
            cards = game.view(session.seat).hands[p]
            hands.append([card_name(int(cards[k]), ranks) for k in range(n)])
    return {
        "fireworks": [int(h) for h in public.fireworks],
        "hands": hands,
        "score": game.score,
        "deck": game.view(session.seat).deck_size,
        "info": game.view(session.seat).information_tokens,
        "lives": game.view(session.seat).life_tokens,
    }


def files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its text (to check that nothing changed)."""
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.json"))}


def read(path: Path) -> dict:
    return json.loads(Path(path).read_text())
