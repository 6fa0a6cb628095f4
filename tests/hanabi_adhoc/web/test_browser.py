"""The browser app in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright. A person plays whole games by clicking while the board is checked against the
engine; two browsers play at once; forged and replayed requests are refused and change nothing.

Skipped, with the reason, where Playwright or Chromium is not installed (``.ci/run`` installs
Chromium with apt-get; the ``test`` extra has Playwright, which never downloads a browser here).
"""

from __future__ import annotations

import os
import random
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")
pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need Playwright: pip install '.[test]'"
)

from playwright import sync_api

from hanabi_adhoc.web import Settings
from tests.hanabi_adhoc.web.helpers import expected_board, live, make_app

CHROMIUM = os.environ.get("HANABI_CHROMIUM") or shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium browser (Debian: apt-get install -y chromium; or set HANABI_CHROMIUM "
    "to its path): the browser tests are skipped",
)
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SHOTS = os.environ.get("HANABI_SCREENSHOTS")  # a folder that keeps the screenshots (docs)

DOM_BOARD = """() => {
  const num = (sel, key) => Number(document.querySelector(sel).dataset[key]);
  return {
    fireworks: [...document.querySelectorAll("#board [data-firework]")].map(e => +e.dataset.height),
    hands: [...document.querySelectorAll("#board [data-hand]")].map(
      h => [...h.querySelectorAll("[data-slot]")].map(c => c.dataset.card)),
    score: num("#status [data-score]", "score"),
    deck: num("#status [data-deck]", "deck"),
    info: num("#status [data-tokens=hints]", "value"),
    lives: num("#status [data-tokens=lives]", "value"),
  };
}"""

FETCH = """async ([path, body]) => {
  const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify(body)});
  return [r.status, (await r.json()).error || ""];
}"""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Served:
    """The app on a free loopback port, served by a thread for the test's duration."""

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


def shot(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000  # a drawn page, not an empty one
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(SHOTS) / path.name)
    return path


def start(page, url: str, seed: int | None = None, seat: int | None = None) -> str:
    page.goto(url)
    page.wait_for_selector("#setup:not([hidden])")
    if seed is not None:
        page.fill("#seed", str(seed))
    if seat is not None:
        page.select_option("#seat", str(seat))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    return page.evaluate("sessionStorage.getItem('hanabi-session')")


def check_board(page, session) -> None:
    """The board the page shows is the engine's, as the person may see it."""
    assert page.evaluate(DOM_BOARD) == expected_board(session)


def wait_turn(page, game: int, seen: str | None) -> str:
    """Wait until it is the person's turn at a new move of ``game``, or ``game`` is over."""
    page.wait_for_selector(
        f"#game[data-state='over'][data-turn^='{game}:'], "
        f"#game[data-state='your-turn'][data-turn^='{game}:']:not([data-turn='{seen}'])"
    )
    return page.get_attribute("#game", "data-turn")


def click_move(page, rng: random.Random, you: int, players: int) -> None:
    """Click a card, then a legal move for it (mostly plays, so that games end fast)."""
    kind = rng.choices(["play", "discard", "hint"], [5, 2, 3])[0]
    if kind == "hint":
        seat = rng.choice([p for p in range(players) if p != you])
        page.click(f"#board [data-seat='{seat}'][data-slot='0']")
        hints = page.locator("#actions [data-kind^='reveal'][data-legal='true']")
        if hints.count():
            hints.nth(rng.randrange(hints.count())).click()
            return
        kind = "play"  # no hint token left
    slots = page.locator(f"#board [data-seat='{you}'][data-slot]").count()
    page.click(f"#board [data-seat='{you}'][data-slot='{rng.randrange(slots)}']")
    button = page.locator(f"#actions [data-kind='{kind}']")
    if button.get_attribute("data-legal") == "false":
        button = page.locator("#actions [data-kind='play']")  # discarding at 8 tokens
    button.click()


def play_game(page, app, game: int, rng: random.Random, players: int = 2, you: int = 0) -> None:
    """Play game ``game`` of the page's session to its end by clicking, checking every board."""
    sid = page.evaluate("sessionStorage.getItem('hanabi-session')")
    seen = None
    while True:
        seen = wait_turn(page, game, seen)
        check_board(page, live(app, sid))
        if page.get_attribute("#game", "data-state") == "over":
            return
        click_move(page, rng, you, players)


def test_a_person_plays_whole_games_by_clicking(browser, tmp_path):
    app = make_app(tmp_path / "out", defaults=Settings(partners=("meta",), games=2))
    with Served(app) as served:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        sid = start(page, served.url, seed=11)
        shot(page, tmp_path, "browser-first-turn")
        rng = random.Random(0)
        for game in (1, 2):
            play_game(page, app, game, rng)
            session = live(app, sid)
            result = session.results[game - 1]
            assert page.text_content("#gameover-title") == (
                f"Game {game} of 2: score {result['score']}"
            )
            # the meta-agent's belief, as the server computed it, on the page
            meta = result["meta"]
            best = max(meta["belief"])
            cell = page.locator(f"#meta-body [data-cell='{meta['estimate']}']")
            assert cell.text_content() == f"{round(100 * best)}%"
            assert page.is_visible("#meta-body .heatmap")
            if game == 1:
                shot(page, tmp_path, "browser-game-over")
                page.uncheck("#show-belief")  # the toggle hides it
                assert not page.is_visible("#meta-body")
                page.check("#show-belief")
            page.click("#next")
        page.wait_for_selector("#done:not([hidden])")
        assert page.text_content("#done-text").endswith(
            ", ".join(str(r["score"]) for r in live(app, sid).results) + "."
        )
        # the replay page shows the saved game, move by move, every card face up
        page.goto(served.url + "replay")
        page.click(f"[data-session='{sid}'] [data-game='1']")
        page.wait_for_selector("#viewer:not([hidden])")
        page.click("#next-move")
        page.wait_for_selector("#position:has-text('move 1 of')")
        first = page.text_content("#current-move")
        assert first.startswith("Move 1: ")
        faces = page.eval_on_selector_all("#board [data-slot]", "cs => cs.map(c => c.dataset.card)")
        assert all(faces)
        shot(page, tmp_path, "browser-replay")
        assert not errors, errors


def test_two_browsers_play_at_once_and_cannot_touch_each_other(browser, tmp_path):
    app = make_app(tmp_path / "out", defaults=Settings(partners=("IGGI",), games=1))
    with Served(app) as served:
        pages = [browser.new_context().new_page() for _ in range(2)]
        sids = [
            start(page, served.url, seed=seed) for page, seed in zip(pages, (1, 2), strict=True)
        ]
        assert sids[0] != sids[1]
        rng, seen = random.Random(1), [None, None]
        for _ in range(4):  # alternate: a move in one browser, then in the other
            for i, page in enumerate(pages):
                seen[i] = wait_turn(page, 1, seen[i])
                check_board(page, live(app, sids[i]))
                if page.get_attribute("#game", "data-state") == "your-turn":
                    click_move(page, rng, 0, 2)
        for i, page in enumerate(pages):  # both wait for their person now: nothing moves
            wait_turn(page, 1, seen[i])
        decks = [live(app, s).game.state.deck for s in sids]
        assert not np.array_equal(decks[0], decks[1])
        # browser 0 sends moves for browser 1's session: refused, nothing changes
        other = live(app, sids[1])
        packed = other.game.state.packed.copy()
        turn = other.game.n_moves
        for path in ("move", "advance"):
            status, error = pages[0].evaluate(
                FETCH, [f"/api/sessions/{sids[1]}/{path}", {"action": 0, "turn": turn}]
            )
            assert status == 403
            assert "belongs to another browser" in error
        assert np.array_equal(other.game.state.packed, packed)


def test_the_page_shows_refusals_and_forged_requests_change_nothing(browser, tmp_path):
    # partners wait a minute before each move: the test plays the partner's turn itself
    app = make_app(tmp_path / "out", agent_delay_ms=60_000)
    with Served(app) as served:
        page = browser.new_page()
        sid = start(page, served.url, seat=0)
        session = live(app, sid)
        packed = session.game.state.packed.copy()
        move = f"/api/sessions/{sid}/move"
        # a discard at 8 information tokens: refused on the page with the terminal's reason
        page.click("#board [data-seat='0'][data-slot='0']")
        page.click("#actions [data-kind='discard']")
        page.wait_for_selector("#message:not([hidden])")
        assert "information tokens are full (8/8)" in page.text_content("#message")
        assert page.get_attribute("#game", "data-turn") == "1:0"
        # a move id outside the action space
        assert page.evaluate(FETCH, [move, {"action": 999, "turn": 0}])[0] == 400
        assert np.array_equal(session.game.state.packed, packed)
        # a legal move by clicking, then the same request sent again (a replay)
        page.click("#board [data-seat='0'][data-slot='1']")
        play = int(page.get_attribute("#actions [data-kind='play']", "data-move-id"))
        page.click("#actions [data-kind='play']")
        page.wait_for_selector("#game[data-state='partner']")
        packed = session.game.state.packed.copy()
        status, error = page.evaluate(FETCH, [move, {"action": play, "turn": 0}])
        assert (status, "stale request" in error) == (409, True)
        # a move while the partner is to move
        status, error = page.evaluate(FETCH, [move, {"action": 0, "turn": 1}])
        assert (status, "not your turn" in error) == (409, True)
        assert np.array_equal(session.game.state.packed, packed)
        assert session.game.n_moves == 1
