"""What if… on the replays (issue 45 item 5): moves not made, from any position of a finished game.

The endpoint is tested against a real ``hanabi-adhoc serve`` process with plain HTTP clients
holding their cookie (``test_security.Client``): the owner gets it once the game is over, a
stranger never; every move is checked legal (a refusal names it); the boards equal the saved
game replayed on the engine here, independently of the app, then the same moves applied. The
page is tested in headless Chromium (``test_board_page``'s helpers): enter what-if, make two
moves (a click and a key), undo one, go back to the game; a screenshot is saved and checked.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")

from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env import engine as E
from hanabi_env.game import COLOR_NAMES, card_name
from tests.hanabi_adhoc.web.helpers import files, read
from tests.hanabi_adhoc.web.test_security import Client, raw_post, serve


def replayed(log: dict, move: int) -> HanabiGame:
    """The saved game replayed on the engine to ``move`` (independently of the app)."""
    g = HanabiGame(HanabiConfig(**log["engine_config"]))
    g.reset_with_deck(log["deck"], int(log["start_player"]))
    for m in [m for m in log["moves"] if "action" in m][:move]:
        g.step(int(m["action"]))
    return g


def check_board(sent: dict, g: HanabiGame, seat: int | None) -> None:
    """A board the server sent is the engine's ``g`` as ``seat`` sees it (None: every card)."""
    ranks = g.config.ranks
    assert sent["score"] == g.score
    assert sent["current"] == g.current_player
    assert sent["terminal"] == g.is_terminal
    view = g.view(0)
    assert sent["info"] == view.information_tokens
    assert sent["lives"] == view.life_tokens
    assert sent["deck"] == view.deck_size
    assert sent["fireworks"] == {COLOR_NAMES[c]: int(h) for c, h in enumerate(view.fireworks)}
    assert len(sent["moves"]) == g.n_moves
    assert sent["viewer"] == seat
    for p, hand in enumerate(sent["hands"]):
        assert len(hand) == int(view.hand_lengths[p])
        for k, card in enumerate(hand):
            if p == seat:
                assert card["card"] is None  # the viewer's own cards stay hidden
            else:
                face = card["card"]["color"] + str(card["card"]["rank"])
                assert face == card_name(int(E.card_of(g.state, p, k)), ranks)
            hinted = int(view.hinted_rank[p, k])
            assert card["hinted_rank"] == (hinted + 1 if hinted >= 0 else None)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A ``serve``, its owner with a finished 3-player game, and a stranger."""
    cwd = tmp_path_factory.mktemp("cwd")
    out = cwd / "records"
    with serve(cwd, out, "--games", "1") as url:
        owner, stranger = Client(url), Client(url)
        state = owner.start(partners=["Piers", "IGGI"], seed=11)
        sid = state["session"]
        path = f"api/records/{sid}/1/whatif"
        status, answer = owner.call("POST", path, {"move": 0, "actions": []})
        assert status == 409, answer  # not over yet
        assert "not over" in answer["error"]
        owner.play_game(state, random.Random(1))
        stranger.start(partners=["Piers"])  # a browser with its own cookie and session
        yield owner, stranger, sid, read(out / sid / "game_01.json"), out


def whatif(client: Client, sid: str, body: object) -> tuple[int, dict]:
    return client.call("POST", f"api/records/{sid}/1/whatif", body)


def test_the_boards_are_the_engines_after_the_moves_not_made(played):
    owner, _, sid, log, out = played
    before = files(out)
    total = len([m for m in log["moves"] if "action" in m])
    rng = random.Random(3)
    for move in (0, rng.randrange(1, total), total - 1):
        for seat in (None, 0, 2):
            g = replayed(log, move)
            actions = []
            for _ in range(6):
                if g.is_terminal:
                    break
                actions.append(int(rng.choice(g.legal_actions())))
                g.step(actions[-1])
            status, answer = whatif(owner, sid, {"move": move, "actions": actions, "seat": seat})
            assert status == 200, answer
            assert answer["move"] == move
            assert answer["total"] == total
            assert answer["actions"] == actions
            assert len(answer["boards"]) == len(actions) + 1
            check = replayed(log, move)
            check_board(answer["boards"][0], check, seat)  # the real position
            for i, (uid, sent) in enumerate(zip(actions, answer["boards"][1:], strict=True)):
                actor = check.current_player
                check.step(uid)
                check_board(sent, check, seat)
                assert answer["moves"][i]["seat"] == actor
                assert answer["moves"][i]["action"] == uid
                assert sent["moves"][-1] == answer["moves"][i]["text"]
            legal = [m["id"] for m in answer["menu"] if m["legal"]]
            expected = [] if check.is_terminal else [int(a) for a in check.legal_actions()]
            assert legal == expected
    assert files(out) == before  # stateless: nothing written


def test_moves_by_id_command_or_the_pages_format_are_the_same(played):
    owner, _, sid, log, _ = played
    g = replayed(log, 2)
    mover, target = g.current_player, (g.current_player + 1) % 3
    hint = next(m for m in range(g.n_actions)
                if g.legal_mask()[m] and E.decode_action(g.state.cfg, mover, m)[0] == E.REVEAL_RANK
                and E.decode_action(g.state.cfg, mover, m)[2] == target)  # fmt: skip
    rank = E.decode_action(g.state.cfg, mover, hint)[4] + 1
    page = {"kind": "reveal_rank", "slot": None, "target": target, "color": None, "rank": rank}
    answers = []
    for item in (hint, {"id": hint}, f"r{target} {rank}", page):
        status, answer = whatif(owner, sid, {"move": 2, "actions": [item]})
        assert status == 200, (item, answer)
        answers.append(answer)
    assert all(a == answers[0] for a in answers)
    assert answers[0]["actions"] == [hint]


def test_illegal_moves_and_bad_bodies_are_refused_naming_them(played):
    owner, _, sid, log, out = played
    before = files(out)
    total = len([m for m in log["moves"] if "action" in m])
    g = replayed(log, 0)  # the deal: 8 hint tokens, so no discard
    discard = next(
        m for m in range(g.n_actions) if E.decode_action(g.state.cfg, 0, m)[0] == E.DISCARD
    )
    legal = int(g.legal_actions()[0])
    refused = [
        ({"move": 0, "actions": [discard]}, "actions[0]", "information tokens are full"),
        ({"move": 0, "actions": [legal, 999]}, "actions[1]", "must be a move id"),
        ({"move": 0, "actions": [legal, "c1 Z"]}, "actions[1]", "not legal"),
        ({"move": 0, "actions": [{"kind": "play", "slot": 9}]}, "actions[0]", "names no move"),
        ({"move": 0, "actions": [True]}, "actions[0]", "must be a move id"),
        ({"move": total, "actions": [legal]}, "actions[0]", "game is over"),
        ({"move": total + 1, "actions": []}, "move must be 0-", ""),
        ({"move": "3", "actions": []}, "move must be a move number", ""),
        ({"move": 0, "actions": "p0"}, "actions must be a list", ""),
        ({"move": 0, "actions": [], "seat": 3}, "seat must be null", ""),
    ]
    for body, names, why in refused:
        status, answer = whatif(owner, sid, body)
        assert status == 400, (body, answer)
        assert names in answer["error"], answer
        assert why in answer["error"], answer
    status, answer = owner.call("POST", f"api/records/{sid}/1/whatif", [1, 2])
    assert status == 400
    assert "JSON object" in answer["error"]
    status, answer = raw_post(owner.url, f"api/records/{sid}/1/whatif",
                              {"Content-Type": "application/json", "Cookie": owner.cookie or "",
                               "Content-Length": str(1 << 20)}, b"{}")  # fmt: skip
    assert status == 413, answer
    assert files(out) == before


def test_only_the_owner_gets_it_and_only_for_a_finished_game(played):
    owner, stranger, sid, _, _ = played
    body = {"move": 1, "actions": []}
    status, answer = whatif(stranger, sid, body)
    assert status == 403, answer
    assert "belongs to another browser" in answer["error"]
    status, answer = Client(owner.url).call("POST", f"api/records/{sid}/1/whatif", body)
    assert status == 403, answer  # no cookie at all
    status, answer = owner.call("POST", f"api/records/{sid}/2/whatif", body)
    assert status == 404, answer
    status, answer = owner.call("POST", "api/records/0123456789abcdef/1/whatif", body)
    assert status == 404, answer
    status, answer = owner.call("GET", f"api/records/{sid}/1/whatif")
    assert status == 405, answer
    status, answer = whatif(owner, sid, body)
    assert status == 200, answer
    assert json.dumps(answer)  # plain JSON


# ---------------------------------------------------------------------------- the page
try:
    from tests.hanabi_adhoc.web.test_board_page import (
        DESKTOP,
        FINISH,
        drawn_cards,
        expected_cards,
        only_session,
    )
    from tests.hanabi_adhoc.web.test_browser import ARGS, CHROMIUM, Served
except pytest.skip.Exception:  # no Playwright: the page test is skipped below
    CHROMIUM = None


@pytest.mark.skipif(CHROMIUM is None, reason="no Playwright or Chromium: the page test is skipped")
def test_what_if_on_the_replay_page(tmp_path: Path, tmp_path_factory) -> None:
    from playwright import sync_api

    from hanabi_adhoc.web import Settings
    from tests.hanabi_adhoc.web.helpers import make_app

    folder = Path(os.environ.get("HANABI_SCREENSHOTS") or tmp_path_factory.mktemp("whatif-shots"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots of the what-if test: {folder}")
    out = tmp_path / "out"
    app = make_app(out, defaults=Settings(partners=("IGGI",), games=1, seed=5))
    with Served(app) as served, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": DESKTOP["width"], "height": DESKTOP["height"]})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(served.url)
        page.wait_for_selector("#setup:not([hidden])")
        page.click("#start")
        page.wait_for_selector("#game:not([hidden])")
        sid = only_session(app)
        total = page.evaluate(FINISH, [sid, "reveal_rank"])
        log = read(out / sid / "game_01.json")
        page.goto(served.url + "replay")
        page.click(f"[data-session='{sid}'] [data-game='1']")
        page.wait_for_selector("#viewer:not([hidden])")
        page.focus("#replay-board")
        n = 3
        for move in range(1, n + 1):
            page.keyboard.press("ArrowRight")
            page.wait_for_selector(f"#position:text-is('move {move} of {total}')")
        assert page.is_hidden("#whatif-banner")
        page.click("#whatif-start")
        page.wait_for_selector("#whatif-banner:not([hidden])")
        assert page.get_attribute("#viewer", "data-whatif") == "on"
        assert page.is_disabled("#next-move")  # stepping is for the real game only
        g = replayed(log, n)
        assert drawn_cards(page, "#replay-board") == expected_cards(g, None)
        # move 1, by mouse: the seat to move plays its slot 0
        mover = g.current_player
        page.click(f"#replay-board [data-seat='{mover}'][data-slot='0']")
        page.click("#whatif-actions [data-kind='play']")
        page.wait_for_selector("#log tr[data-hypo='1']")
        g.step(next(a for a in g.legal_actions() if E.decode_action(g.state.cfg, mover, a)[:2]
                    == (E.PLAY, 0)))  # fmt: skip
        assert drawn_cards(page, "#replay-board") == expected_cards(g, None)
        after_one = drawn_cards(page, "#replay-board")
        # move 2, by keys: to the next mover's partner's hand, then N (its rank) or a discard
        mover = g.current_player
        partner = (mover + 1) % 2
        page.focus(f"#replay-board [data-seat='{partner}'][data-slot='1']")
        page.keyboard.press("ArrowLeft")
        if g.view(0).information_tokens:
            page.keyboard.press("n")
            rank = E.card_of(g.state, partner, 0) % g.config.ranks
            uid = next(a for a in g.legal_actions()
                       if E.decode_action(g.state.cfg, mover, a)[0] == E.REVEAL_RANK
                       and E.decode_action(g.state.cfg, mover, a)[4] == rank)  # fmt: skip
        else:
            page.keyboard.press("ArrowDown")
            page.keyboard.press("d")
            uid = next(a for a in g.legal_actions()
                       if E.decode_action(g.state.cfg, mover, a)[:2] == (E.DISCARD, 0))  # fmt: skip
        page.wait_for_selector("#log tr[data-hypo='2']")
        text = g.action_to_string(uid)
        g.step(uid)
        assert drawn_cards(page, "#replay-board") == expected_cards(g, None)
        assert page.locator("#log tr.hypo").count() == 2
        assert page.locator("#replay-board .log li.hypo").count() == 2
        assert "2 moves not made" in (page.text_content("#whatif-banner") or "")
        # a seat's point of view in the what-if: its own cards hidden
        page.select_option("#pov", "1")
        page.wait_for_selector("#replay-board[data-pov='1']")
        assert drawn_cards(page, "#replay-board") == expected_cards(g, 1)
        page.select_option("#pov", "all")
        page.wait_for_selector("#replay-board[data-pov='all']")
        path = folder / "whatif-two-moves.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 10_000
        # undo one (Backspace), then back to the game (the button)
        page.focus("#replay-board")
        page.keyboard.press("Backspace")
        page.wait_for_selector("#log tr[data-hypo='1']")
        assert page.locator("#log tr.hypo").count() == 1
        assert drawn_cards(page, "#replay-board") == after_one
        page.click("#whatif-end")
        page.wait_for_selector("#whatif-banner[hidden]", state="attached")
        page.wait_for_selector(f"#position:text-is('move {n} of {total}')")
        assert page.locator("#log tr.hypo").count() == 0
        assert drawn_cards(page, "#replay-board") == expected_cards(replayed(log, n), None)
        assert page.is_enabled("#next-move")
        page.keyboard.press("ArrowRight")  # the replay's keys again
        page.wait_for_selector(f"#position:text-is('move {n + 1} of {total}')")
        assert text  # the second move was a real move of the engine
        assert not errors, errors
        browser.close()
