"""The browser app's server (hanabi_adhoc.web) through Flask's test client: sessions, refusals,
records, the meta-agent and the study hooks. The real browser is in test_browser.py."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")

from hanabi_adhoc.web import Settings
from hanabi_adhoc.web.app import OWNER_COOKIE
from hanabi_env import HanabiConfig, HanabiGame
from tests.hanabi_adhoc.web.helpers import (
    expected_board,
    files,
    live,
    make_app,
    play_session,
    play_turn,
    read,
)
from tests.hanabi_env.hanablive import replay as hanablive_replay


def start(client, **settings) -> dict:
    response = client.post("/api/sessions", json=settings)
    assert response.status_code == 201, response.json
    return response.json


def test_a_session_plays_whole_games_and_saves_what_happened(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    state = start(client, partners=["Piers"], games=2, seed=3)
    sid = state["session"]
    final = play_session(client, state, random.Random(0))
    assert final["phase"] == "done"
    folder = tmp_path / sid
    session = read(folder / "session.json")
    config = {"players": 2, "hand_size": 5, "scoring": "strict", "ruleset": "corrected",
              "hand_order": "shift", "games": 2, "seed": 3}  # fmt: skip
    assert session["config"] == {
        "settings": "2 players, hand size 5 (the rulebook's), strict scoring, corrected ruleset",
        **config,
    }
    assert [r["game"] for r in session["results"]] == [1, 2]
    for k in (1, 2):
        log = read(folder / f"game_{k:02d}.json")
        # the per-move log replays on the engine to the saved result
        game = HanabiGame(HanabiConfig(**log["engine_config"]))
        game.reset_with_deck(log["deck"], log["start_player"])
        for i, m in enumerate(log["moves"]):
            assert m["move"] == i
            assert m["player"] == ("person" if m["seat"] == 0 else "agent")
            assert m["seconds"] >= 0
            game.step(m["action"])
        assert game.is_terminal
        assert game.score == log["result"]["score"] == session["results"][k - 1]["score"]
        # the hanab.live record replays there and ends where hanab.live ends
        record = read(folder / f"game_{k:02d}.hanablive.json")
        assert record["players"] == ["You", "Piers"]
        server = hanablive_replay(record)
        assert server.ended_after == len(record["actions"])
        assert record["hanabi_adhoc"]["engine_moves"] == len(log["moves"])
    # the replay page's data: the saved game at move 3, every card shown
    r = client.get(f"/api/records/{sid}/1?move=3").json
    assert r["move"] == 3
    assert len(r["board"]["moves"]) == 3
    assert all(c["card"] for hand in r["board"]["hands"] for c in hand)
    assert client.get("/api/records").json[0]["session"] == sid
    download = client.get(f"/api/records/{sid}/1/hanablive")
    assert download.status_code == 200
    assert download.json["deck"] == read(folder / "game_01.hanablive.json")["deck"]


def test_the_browser_deals_the_games_of_play_with_the_same_seed(tmp_path):
    import hanabi_env
    from agents.evaluate import game_seeds

    client = make_app(tmp_path).test_client()
    state = play_session(
        client, start(client, partners=["Piers"], games=2, seed=7), random.Random(3)
    )
    _, deals, _ = game_seeds(7, 2, 2, False)  # what `hanabi-adhoc play ... --seed 7` deals
    env = hanabi_env.env(players=2, hand_size=5)
    for k in (1, 2):
        env.reset(options={"deal_seed": int(deals[k - 1])})
        log = read(tmp_path / state["session"] / f"game_{k:02d}.json")
        assert log["deck"] == env.unwrapped.game.state.deck.tolist()


def test_the_board_sent_is_the_engines_as_the_person_sees_it(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    state = start(client, partners=["IGGI", "Outer"], seat=1)
    rng = random.Random(1)
    for _ in range(30):
        session = live(app, state["session"])
        want = expected_board(session)
        board = state["board"]
        assert [board["fireworks"][c] for c in "RYGWB"] == want["fireworks"]
        got = [[f"{c['card']['color']}{c['card']['rank']}" if c["card"] else "" for c in h]
               for h in board["hands"]]  # fmt: skip
        assert got == want["hands"]
        assert (board["score"], board["deck"], board["info"], board["lives"]) == (
            want["score"], want["deck"], want["info"], want["lives"])  # fmt: skip
        if state["game_over"]:
            break
        state = play_turn(client, state, rng)


@pytest.mark.parametrize("players", [4, 5])
def test_four_and_five_players_get_the_rulebooks_four_cards(tmp_path, players):
    client = make_app(tmp_path).test_client()
    state = start(client, partners=["Piers"] * (players - 1), games=1)
    assert state["config"]["hand_size"] == 4
    assert all(len(h) == 4 for h in state["board"]["hands"])
    play_session(client, state, random.Random(2))
    record = read(tmp_path / state["session"] / "game_01.hanablive.json")
    assert "oneExtraCard" not in record["options"]
    assert record["hanabi_adhoc"]["hand_size"] == 4
    assert hanablive_replay(record).hand_size == 4
    chosen = start(client, partners=["Piers"] * (players - 1), hand_size=5)
    assert chosen["config"]["hand_size"] == 5


def _snapshot(client, app, tmp_path, sid):
    session = live(app, sid)
    return (client.get(f"/api/sessions/{sid}").json, files(tmp_path),
            session.game.state.packed.copy())  # fmt: skip


def _refused(client, path, body, status, text):
    response = client.post(path, json=body)
    assert response.status_code == status, response.json
    assert text in response.json["error"], response.json["error"]


def test_forged_and_replayed_requests_are_refused_and_change_nothing(tmp_path):
    app = make_app(tmp_path)
    alice, bob = app.test_client(), app.test_client()
    a = start(alice, partners=["Piers"], seat=1, seed=1)  # Piers moves first
    b = start(bob, partners=["Piers"], seed=2)
    # seeded: Piers' hand lacks a rank, so a rank hint touches nothing (an unseeded deal
    # can hold all five ranks)
    pa, pb = (f"/api/sessions/{s['session']}" for s in (a, b))
    before = _snapshot(alice, app, tmp_path, a["session"])
    _refused(alice, pa + "/move", {"action": 5, "turn": 0}, 409, "not your turn: Piers")
    _refused(alice, pb + "/move", {"action": 5, "turn": 0}, 403, "belongs to another browser")
    _refused(alice, pb + "/advance", {"turn": 0}, 403, "another browser")
    no_cookie = app.test_client()
    _refused(no_cookie, pa + "/advance", {"turn": 0}, 403, "another browser")
    _refused(alice, "/api/sessions/0123456789abcdef/advance", {"turn": 0}, 404, "no session")
    _refused(alice, pa + "/advance", {"turn": 7}, 409, "stale request")
    _refused(alice, pa + "/next", {"game": 1}, 409, "not over")
    response = alice.post(pa + "/advance", data="turn=0")
    assert response.status_code == 400
    assert "JSON" in response.json["error"]
    assert _snapshot(alice, app, tmp_path, a["session"])[1:2] == before[1:2]
    assert np.array_equal(_snapshot(alice, app, tmp_path, a["session"])[2], before[2])
    state = alice.post(pa + "/advance", json={"turn": 0}).json  # Piers' move
    assert state["your_turn"]
    before = _snapshot(alice, app, tmp_path, a["session"])
    _refused(alice, pa + "/advance", {"turn": 1}, 409, "it is your turn")
    _refused(alice, pa + "/move", {"action": 999, "turn": 1}, 400, "move id 999 does not exist")
    _refused(alice, pa + "/move", {"action": "0", "turn": 1}, 400, "must be a move id")
    hint = next(m for m in state["menu"] if m["kind"] == "reveal_rank" and not m["legal"])
    _refused(alice, pa + "/move", {"action": hint["id"], "turn": 1}, 400, "would touch nothing")
    # a discard at 8 information tokens, refused with the terminal's reason
    discard0 = next(m["id"] for m in b["menu"] if m["kind"] == "discard" and m["slot"] == 0)
    _refused(bob, pb + "/move", {"action": discard0, "turn": 0}, 400, "tokens are full (8/8)")
    after = _snapshot(alice, app, tmp_path, a["session"])
    assert after[0] == before[0]
    assert after[1] == before[1]
    assert np.array_equal(after[2], before[2])
    play = next(m["id"] for m in state["menu"] if m["kind"] == "play" and m["slot"] == 0)
    assert alice.post(pa + "/move", json={"action": play, "turn": 1}).status_code == 200
    before = _snapshot(alice, app, tmp_path, a["session"])
    _refused(alice, pa + "/move", {"action": play, "turn": 1}, 409, "stale request")  # replayed
    assert _snapshot(alice, app, tmp_path, a["session"])[1] == before[1]
    # bob's session never moved
    assert bob.get(pb).json == b


def test_two_sessions_at_once_do_not_mix(tmp_path):
    app = make_app(tmp_path)
    clients = [app.test_client(), app.test_client()]
    states = [
        start(c, partners=["Piers"], seed=s, games=1) for c, s in zip(clients, (5, 6), strict=True)
    ]
    errors: list[BaseException] = []

    def run(i):
        try:
            rng, state = random.Random(i), states[i]
            while not state["game_over"]:
                state = play_turn(clients[i], state, rng)
            states[i] = state
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    logs = [read(tmp_path / s["session"] / "game_01.json") for s in states]
    assert logs[0]["deck"] != logs[1]["deck"]
    for state, log in zip(states, logs, strict=True):
        game = HanabiGame(HanabiConfig(**log["engine_config"]))
        game.reset_with_deck(log["deck"], log["start_player"])
        for m in log["moves"]:
            game.step(m["action"])
        assert game.score == state["results"][0]["score"]
        assert len(log["moves"]) == state["turn"]


def test_the_meta_agent_shows_and_logs_its_belief_after_each_game(tmp_path):
    client = make_app(tmp_path).test_client()
    state = start(client, partners=["meta"], games=2)
    final = play_session(client, state, random.Random(4))
    session = read(tmp_path / state["session"] / "session.json")
    for result in final["results"]:
        meta = result["meta"]
        assert meta["variant"] == "adaptive"
        assert abs(sum(meta["belief"]) - 1) < 1e-9
        assert len(meta["grid"]) == 5
        assert sum(b for row in meta["grid"] for b in row if b is not None) == pytest.approx(1)
        assert meta["estimate"] in meta["hypotheses"]
        assert meta["next_response"] in meta["hypotheses"]
    assert session["results"][0]["meta"]["updates"] >= 0
    # the person's measured play is the one of the session's counters
    person = session["results"][-1]["session_metrics"][0]
    assert final["results"][-1]["meta"]["person"]["ipp"] == person["ipp"]


def test_hiding_the_belief_keeps_it_in_the_log(tmp_path):
    client = make_app(tmp_path, show_belief=False).test_client()
    state = play_session(client, start(client, partners=["meta"], games=1), random.Random(5))
    assert all("meta" not in r for r in state["results"])
    assert read(tmp_path / state["session"] / "session.json")["results"][0]["meta"]["belief"]


def test_a_policy_of_ones_own_is_a_partner(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text(
        "from agents import Policy\n"
        "class FirstLegal(Policy):\n"
        "    name = 'FirstLegal'\n"
        "    def act(self, view):\n"
        "        return int(view.legal_actions()[0])\n"
    )
    client = make_app(tmp_path / "out", trust_model=True).test_client()  # code: trusted only
    state = start(client, partners=[f"{mine}:FirstLegal", "Piers"], seat=2, games=1)
    assert state["names"] == ["FirstLegal", "Piers", "You"]
    final = play_session(client, state, random.Random(7))
    assert final["results"][0]["moves"] > 0


@pytest.mark.parametrize(
    ("body", "reason"), [("return 5.7", "not an int"), ("raise KeyError(3)", "raised KeyError")]
)
def test_a_partner_that_fails_gets_a_json_error_naming_it(tmp_path, body, reason):
    mine = tmp_path / "broken.py"
    mine.write_text(
        "from agents import Policy\n"
        "class Broken(Policy):\n"
        "    name = 'Broken'\n"
        f"    def act(self, view):\n        {body}\n"
    )
    client = make_app(tmp_path / "out", trust_model=True).test_client()
    state = start(client, partners=[f"{mine}:Broken"], seat=1, games=1)  # Broken moves first
    response = client.post(f"/api/sessions/{state['session']}/advance", json={"turn": 0})
    assert response.status_code == 500
    error = response.json["error"]
    for part in ("Broken", reason, "move 0"):
        assert part in error, error


def test_a_meta_agent_needs_two_players(tmp_path):
    client = make_app(tmp_path).test_client()
    response = client.post("/api/sessions", json={"partners": ["meta", "Piers"]})
    assert response.status_code == 400
    assert "2-player games only" in response.json["error"]


@pytest.mark.parametrize(
    ("settings", "text"),
    [
        ({"partners": []}, "1 to 4"),
        ({"partners": ["Piers"] * 5}, "1 to 4"),
        ({"partners": ["nobody"]}, "nobody"),
        ({"partners": ["human"]}, "is you"),
        ({"partners": ["Piers"], "seat": 2}, "seat"),
        ({"partners": ["Piers"], "games": 0}, "games"),
        ({"partners": ["Piers"], "hand_size": 7}, "hand_size"),
        ({"partners": ["Piers"], "scoring": "soft"}, "scoring"),
        ({"partners": ["sb3:model.zip"]}, "trust"),
        ({"partners": ["Piers", "this:X"]}, "partners[1]='this:X' is not allowed"),
        ({"partners": ["meta:oracle"]}, "--trust-model"),
    ],
)
def test_bad_settings_are_refused_with_their_name(tmp_path, settings, text):
    response = make_app(tmp_path).test_client().post("/api/sessions", json=settings)
    assert response.status_code == 400
    assert text in response.json["error"]
    assert not list(tmp_path.iterdir())  # no session folder


def test_a_study_server_fixes_the_partners(tmp_path):
    client = make_app(
        tmp_path, fixed=True, defaults=Settings(partners=("IGGI",), games=1)
    ).test_client()
    state = start(client, partners=["Piers", "Piers"], games=9, seat=1)
    assert state["names"] == ["IGGI", "You"]
    assert state["games"] == 1


def test_study_hooks_ask_consent_and_questions_and_store_the_answers(tmp_path):
    from hanabi_adhoc.web.study import DEFAULT_STUDY, load_study

    client = make_app(tmp_path, study=load_study(None)).test_client()
    state = start(client, partners=["Piers"], games=1)
    path = f"/api/sessions/{state['session']}"
    assert state["phase"] == "consent"
    assert state["study"]["consent"] == DEFAULT_STUDY["consent"]
    _refused(client, path + "/advance", {"turn": 0}, 409, "not playing")
    _refused(client, path + "/answer", {"stage": "consent", "answers": {}}, 400, "agreeing")
    _refused(client, path + "/answer", {"stage": "pre", "answers": {}}, 409, "at 'consent'")
    state = client.post(
        path + "/answer", json={"stage": "consent", "answers": {"agree": True}}
    ).json
    assert state["phase"] == "pre"
    _refused(client, path + "/answer", {"stage": "pre", "answers": {"experience": "never"}}, 400,
             "please answer")  # fmt: skip
    bad = {"experience": "daily", "style": 3}
    _refused(client, path + "/answer", {"stage": "pre", "answers": bad}, 400, "not one of")
    pre = {"experience": "never", "style": 3}
    state = client.post(path + "/answer", json={"stage": "pre", "answers": pre}).json
    assert state["phase"] == "play"
    state = play_session(client, state, random.Random(6))
    assert state["phase"] == "post"
    post = {"partner_understood": 5, "partner_adapted": 2}
    state = client.post(path + "/answer", json={"stage": "post", "answers": post}).json
    assert state["phase"] == "done"
    saved = read(tmp_path / state["session"] / "session.json")["study"]
    assert saved["consent"]["agreed"] is True
    assert saved["pre"]["answers"] == pre
    assert saved["post"]["answers"] == post


def test_study_files_are_checked(tmp_path):
    from hanabi_adhoc.web.study import check_study, load_study

    path = tmp_path / "study.json"
    path.write_text('{"consent": "ok?", "pre": [{"id": "a", "text": "?", "kind": "scale", '
                    '"min": 3, "max": 1}]}')  # fmt: skip
    with pytest.raises(ValueError, match=r"study.json.*'min' < 'max'"):
        load_study(path)
    with pytest.raises(ValueError, match="consent"):
        check_study({"pre": []})
    with pytest.raises(ValueError, match="distinct"):
        check_study({"consent": "x", "post": [{"id": "a", "text": "t", "kind": "text"}] * 2})


def test_requests_must_name_this_computer_and_pages_load_nothing_else(tmp_path):
    client = make_app(tmp_path).test_client()
    response = client.get("/api/options", headers={"Host": "evil.example:8000"})
    assert response.status_code == 400
    page = client.get("/")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert b"http" not in page.data  # no address outside this server
    for name in ("board.js", "play.js", "replay.js", "style.css"):
        assert b"http" not in client.get(f"/static/{name}").data


def test_replay_requests_are_checked(tmp_path):
    client = make_app(tmp_path).test_client()
    assert client.get("/api/records/not-an-id/1").status_code == 400
    assert client.get("/api/records/0123456789abcdef/1").status_code == 404
    assert client.get("/api/records/0123456789abcdef/1?move=x").status_code == 400
    assert client.get("/api/records/0123456789abcdef/1/hanablive").status_code == 404
    assert client.get("/replay").status_code == 200


def test_the_owner_cookie_is_private_to_the_page(tmp_path):
    client = make_app(tmp_path).test_client()
    response = client.post("/api/sessions", json={"partners": ["Piers"]})
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(OWNER_COOKIE + "=")
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
