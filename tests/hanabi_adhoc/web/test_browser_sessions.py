"""Sessions that flow, in headless Chromium against a real ``hanabi-adhoc serve`` (issue 45).

One browser (one cookie), two tabs: the menu offers the reference bots; a running game opens in
a second tab; "New session" starts another while it runs; after the last game "Play another
session" shows the setup, not "Thank you!"; a server restart keeps the running game where it
was; the replay page lists the session with a finished game only, and its hanab.live record
downloads under a name that says which session and game it is.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")
pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need Playwright: pip install '.[test]'"
)

from tests.hanabi_adhoc.web.test_browser import (  # the Chromium set-up of the page tests
    CHROMIUM,
    browser,  # noqa: F401 - the module-scoped fixture
    click_move,
    shot,
    wait_turn,
)
from tests.hanabi_adhoc.web.test_session_flow import serve

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium browser")

SESSION = "sessionStorage.getItem('hanabi-session')"


def _start(page, partner: str) -> str:
    page.wait_for_selector("#setup:not([hidden])")
    page.fill("#partners .partner", partner)
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    return page.evaluate(SESSION)


def test_sessions_flow_between_tabs_restarts_and_pages(browser, tmp_path):  # noqa: F811
    out = tmp_path / "records"
    rng = random.Random(4)
    with serve(out, "--games", "1") as (url, _):
        context = browser.new_context(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        first = context.new_page()
        first.on("pageerror", lambda e: errors.append(str(e)))
        first.goto(url)
        # the page fills the partner list from the server after it loads: wait for it
        first.wait_for_selector("#partners datalist option", state="attached")
        offered = first.eval_on_selector_all(
            "#partners datalist option", "os => os.map(o => o.value)"
        )
        for bot in ("SmartBot", "InfoBot", "HolmesBot", "ValueBot", "SimpleBot"):
            assert bot in offered
        game_sid = _start(first, "SmartBot")
        seen = wait_turn(first, 1, None)
        click_move(first, rng, 0, 2)
        seen = wait_turn(first, 1, seen)
        # another tab of the same browser opens the running game where it is
        second = context.new_page()
        second.on("pageerror", lambda e: errors.append(str(e)))
        second.goto(url)
        second.wait_for_selector(f"#game[data-turn='{seen}']")
        assert second.evaluate(SESSION) == game_sid
        # ... and can start a new session while it runs
        second.click("#new-session")
        other_sid = _start(second, "Piers")
        assert other_sid != game_sid
        other_turn = wait_turn(second, 1, None)
        # the first tab plays its game to the end; "Play another session" offers a new one
        while first.get_attribute("#game", "data-state") != "over":
            click_move(first, rng, 0, 2)
            seen = wait_turn(first, 1, seen)
        first.click("#next")
        first.wait_for_selector("#done:not([hidden])")
        first.click("#play-another")
        first.wait_for_selector("#setup:not([hidden])")
        assert not first.is_visible("#done")
        shot(first, tmp_path, "sessions-new-after-done")
    with serve(out, "--games", "1") as (url, printed):  # the server restarts
        assert "resumed 1 live session(s) of the last run" in printed, printed
        second.goto(url)
        second.wait_for_selector(f"#game[data-turn='{other_turn}'][data-state='your-turn']")
        assert second.evaluate(SESSION) == other_sid
        click_move(second, rng, 0, 2)
        wait_turn(second, 1, other_turn)
        # the saved games: the finished session only, its record named by session and game
        first.goto(url + "replay")
        first.wait_for_selector("#sessions li")
        listed = first.eval_on_selector_all(
            "#sessions [data-session]", "s => s.map(e => e.dataset.session)"
        )
        assert listed == [game_sid]
        first.click(f"[data-session='{game_sid}'] [data-game='1']")
        first.wait_for_selector("#viewer:not([hidden])")
        with first.expect_download() as download:
            first.click("#hanablive")
        assert download.value.suggested_filename == f"hanabi-{game_sid}-game01.hanablive.json"
        assert not errors, errors
        context.close()
