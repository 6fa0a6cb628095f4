"""The board as players read it, played by keyboard at desktop and phone sizes, and replays.

Headless Chromium (Debian's ``chromium``) driven by Playwright against the app on a real
loopback server. What the page draws is checked against the engine (not against the app's
JSON): the hints on each card, what is still possible, the clued marks, the newest card, the
discard pile by suit, every hand at the end; moves are made with the keyboard only, focus is
checked after each, and no hand wraps. Screenshots are saved in a folder the test prints
(``HANABI_SCREENSHOTS=DIR`` keeps them there).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flask", reason="the browser app needs Flask: pip install '.[web]'")
pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need Playwright: pip install '.[test]'"
)

from playwright import sync_api

from hanabi_adhoc.web import Settings
from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env import engine as E
from hanabi_env.game import COLOR_NAMES, card_name
from tests.hanabi_adhoc.web.helpers import SESSIONS, live, make_app, read
from tests.hanabi_adhoc.web.test_browser import ARGS, CHROMIUM, Served, wait_turn

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium browser (Debian: apt-get install -y chromium; or set HANABI_CHROMIUM "
    "to its path): the browser tests are skipped",
)
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# What the page draws for each card of each hand (read off the DOM).
DOM_CARDS = """(root) => [...document.querySelectorAll(root + " [data-hand]")].map(h =>
  [...h.querySelectorAll("[data-slot]")].map(c => {
    const face = c.querySelector(".face");
    const colour = [...face.classList].find(k => k.startsWith("c-"));
    const pips = (sel) => [...c.querySelectorAll(sel)].map(p => p.dataset.pip);
    return {
      slot: Number(c.dataset.slot),
      number: c.querySelector(".slot-no").textContent,
      card: c.dataset.card,
      face: c.dataset.face,
      colour: colour ? colour.slice(2) : null,
      big: face.querySelector(".big").textContent,
      hint_colour: c.querySelector("[data-hint-color]")?.dataset.hintColor ?? null,
      hint_rank: Number(c.querySelector("[data-hint-rank]")?.dataset.hintRank) || null,
      colours: pips(".pip:not(.out)"), ranks: pips(".pip-rank:not(.out)").map(Number),
      clued: c.classList.contains("clued"), newest: c.classList.contains("newest"),
      touched: c.classList.contains("touched"),
    };
  }))"""

# The boxes of each hand's cards and of the hand itself (no wrap: one row inside the hand).
DOM_ROWS = """(root) => [...document.querySelectorAll(root + " [data-hand]")].map(h => ({
  hand: h.getBoundingClientRect().toJSON(),
  cards: [...h.querySelectorAll("[data-slot]")].map(c => c.getBoundingClientRect().toJSON()),
}))"""

ACTIVE = """() => {
  const a = document.activeElement;
  const style = getComputedStyle(a);
  return {inBoard: document.getElementById("board").contains(a), seat: a.dataset.seat ?? null,
          slot: a.dataset.slot ?? null, outline: style.outlineStyle,
          width: parseFloat(style.outlineWidth)};
}"""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("HANABI_SCREENSHOTS") or tmp_path_factory.mktemp("board-shots"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots of the board tests: {folder}")
    return folder


def only_session(app) -> str:
    """The id of the one session the test's browser started (read off the server)."""
    (sid,) = app.extensions[SESSIONS]
    return sid


def shot(page, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def expected_cards(game: HanabiGame, viewer: int | None, reveal: bool = False) -> list[list[dict]]:
    """What each card should show for ``viewer`` (None: every card), read off the engine."""
    view = game.view(0 if viewer is None else viewer, seer=viewer is None)
    ranks = game.config.ranks
    last = view.moves[-1] if view.moves else None
    out = []
    for p in range(game.config.players):
        n = int(view.hand_lengths[p])
        uids = view.card_uids[p, :n]
        hand = []
        for k in range(n):
            actual = card_name(int(E.card_of(game.state, p, k)), ranks)
            seen = viewer is None or p != viewer
            hc, hr = int(view.hinted_color[p, k]), int(view.hinted_rank[p, k])
            colours = [COLOR_NAMES[c] for c in np.flatnonzero(view.color_plausible[p, k])]
            rank_set = [int(r) + 1 for r in np.flatnonzero(view.rank_plausible[p, k])]
            known = len(colours) == 1 and len(rank_set) == 1
            shown = actual if seen or reveal else None
            # the face: the card when shown, else what its owner deduced or was told
            colour: str | None
            rank: int | None
            if shown:
                colour, rank = shown[0], int(shown[1:])
            elif known:
                colour, rank = colours[0], rank_set[0]
            else:
                colour = COLOR_NAMES[hc] if hc >= 0 else None
                rank = hr + 1 if hr >= 0 else None
            touched = (
                last is not None
                and last.kind in ("reveal_color", "reveal_rank")
                and last.target == p
                and k in last.touched_slots
            )
            hand.append(
                {
                    "slot": k,
                    "number": str(k),
                    "card": actual if seen else "",
                    "face": shown or "",
                    "colour": colour,
                    "big": str(rank) if rank else colour or "?",
                    "hint_colour": COLOR_NAMES[hc] if hc >= 0 and shown else None,
                    "hint_rank": hr + 1 if hr >= 0 and shown else None,
                    "colours": colours if len(colours) > 1 else [],
                    "ranks": rank_set if len(rank_set) > 1 else [],
                    "clued": hc >= 0 or hr >= 0,
                    "newest": bool(uids[k] == uids.max()),
                    "touched": touched,
                }
            )
        out.append(hand)
    return out


def drawn_cards(page, root: str) -> list[list[dict]]:
    cards = page.evaluate(DOM_CARDS, root)
    for hand in cards:
        for c in hand:
            if c["colour"] and c["big"] not in "12345":
                c["big"] = c["colour"]  # a colour known, no rank: the colour's shape
    return cards


def check_one_row(page, root: str) -> None:
    """Every hand's cards share one row, inside the hand's box and the window."""
    width = page.evaluate("document.documentElement.clientWidth")
    for row in page.evaluate(DOM_ROWS, root):
        tops = {round(c["top"]) for c in row["cards"]}
        assert len(tops) == 1, f"a hand wraps: card tops {sorted(tops)}"
        lefts = [c["left"] for c in row["cards"]]
        assert lefts == sorted(lefts)  # slot order, left to right
        assert row["cards"][-1]["right"] <= min(row["hand"]["right"], width) + 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def discard_piles(page, root: str) -> dict[str, list[str]]:
    return page.evaluate(
        """(root) => Object.fromEntries([...document.querySelectorAll(root + " [data-pile]")]
             .map(p => [p.dataset.pile,
                        [...p.querySelectorAll("[data-discard]")].map(d => d.dataset.discard)]))""",
        root,
    )


def expected_piles(game: HanabiGame) -> dict[str, list[str]]:
    counts = game.view(0).discard_counts
    ranks = game.config.ranks
    piles: dict[str, list[str]] = {}
    for c, n in enumerate(counts):
        for _ in range(int(n)):
            piles.setdefault(COLOR_NAMES[c // ranks], []).append(card_name(c, ranks))
    return piles


def active(page) -> dict:
    return page.evaluate(ACTIVE)


def key_move(page, rng: random.Random, you: int, players: int, info: int) -> str:
    """One move by keyboard only: arrows to a card, then a key; the move's kind."""
    kind = rng.choices(["play", "discard", "hint"], [1, 3, 4])[0]
    if (kind == "discard" and info == 8) or (kind == "hint" and info == 0):
        kind = "play"
    seat = you if kind != "hint" else rng.choice([p for p in range(players) if p != you])
    now = active(page)
    at = (int(now["seat"]), int(now["slot"])) if now["seat"] is not None else None
    if at is None:  # nothing focused on the board yet: the first arrow lands on your slot 0
        page.keyboard.press("ArrowRight")
        at = (you, 0)
    while at[0] != seat:
        page.keyboard.press("ArrowDown")
        at = ((at[0] + 1) % players, at[1])
    slot = rng.randrange(page.locator(f"#board [data-seat='{seat}'][data-slot]").count())
    for _ in range(abs(slot - at[1])):
        page.keyboard.press("ArrowRight" if slot > at[1] else "ArrowLeft")
    now = active(page)
    assert now["inBoard"]
    assert int(now["seat"]) == seat
    assert now["outline"] != "none"
    assert now["width"] >= 2
    if kind == "hint":
        page.keyboard.press(rng.choice(["c", "n"]))
    else:
        page.keyboard.press("a" if kind == "play" else "d")
    return kind


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_move_by_keyboard_cards_as_players_read_them(browser, tmp_path, shots, size):
    app = make_app(tmp_path / "out", defaults=Settings(partners=("IGGI",), games=1, seed=3))
    viewport = DESKTOP if size == "desktop" else PHONE
    with Served(app) as served:
        page = browser.new_page(viewport=viewport)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(served.url)
        page.wait_for_selector("#setup:not([hidden])")
        page.focus("#start")
        page.keyboard.press("Enter")  # the setup form by keyboard too
        page.wait_for_selector("#game:not([hidden])")
        sid = only_session(app)
        session = live(app, sid)
        rng, seen, kinds, n = random.Random(size), None, set(), 0
        while True:
            seen = wait_turn(page, 1, seen)
            game = session.game
            if page.get_attribute("#game", "data-state") == "over":
                break  # checked below, once every hand is shown
            assert drawn_cards(page, "#board") == expected_cards(game, session.seat)
            assert discard_piles(page, "#board") == expected_piles(game)
            check_one_row(page, "#board")
            if n == 4:
                shot(page, shots, f"board-{size}-turn")
            if n:  # after a move, focus stays on the card the keys were on
                now = active(page)
                assert now["inBoard"], now
                assert now["seat"] is not None, now
            info = game.view(session.seat).information_tokens
            kinds.add(key_move(page, rng, session.seat, 2, info))
            n += 1
        assert kinds == {"play", "discard", "hint"}
        assert n == sum(1 for m in game.view(0).moves if m.actor == session.seat)
        # the end: every hand shown, the person's as well, still as a face, not as sent data
        page.wait_for_selector("#board[data-revealed='true']")
        assert drawn_cards(page, "#board") == expected_cards(game, session.seat, reveal=True)
        assert discard_piles(page, "#board") == expected_piles(game)
        check_one_row(page, "#board")
        assert page.evaluate("document.activeElement.id") == "next"
        shot(page, shots, f"board-{size}-game-over")
        assert not errors, errors


def test_colour_blind_mode_is_remembered(browser, tmp_path, shots):
    app = make_app(tmp_path / "out", defaults=Settings(partners=("IGGI",), games=1))
    with Served(app) as served:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(served.url)
        page.wait_for_selector("#setup:not([hidden])")
        page.click("#start")
        page.wait_for_selector("#game[data-state='your-turn']")
        symbol = "#board [data-firework='R'] .sym"
        assert not page.is_visible(symbol)
        page.check("#colour-blind")
        assert page.is_visible(symbol)
        assert page.text_content(symbol) == "♥"
        page.reload()  # the same tab resumes its session, the mode kept
        page.wait_for_selector("#game[data-state='your-turn']")
        assert page.is_checked("#colour-blind")
        assert page.is_visible(symbol)
        shot(page, shots, "board-colour-blind")
        page.uncheck("#colour-blind")
        page.reload()
        page.wait_for_selector("#game[data-state='your-turn']")
        assert not page.is_checked("#colour-blind")
        assert not page.is_visible(symbol)


FINISH = """async ([sid, hint]) => {
  const post = async (path, body) => (await fetch(path, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})).json();
  let s = await (await fetch(`/api/sessions/${sid}`)).json();
  let hinted = false;
  while (!s.game_over) {
    if (s.your_turn) {
      const legal = s.menu.filter(m => m.legal);
      const first = hinted ? null : legal.find(m => m.kind === hint);
      const move = first || legal.find(m => m.kind === "play");
      hinted = true;
      s = await post(`/api/sessions/${sid}/move`, {action: move.id, turn: s.turn});
    } else {
      s = await post(`/api/sessions/${sid}/advance`, {turn: s.turn});
    }
  }
  return s.turn;
}"""


def replayed(log: dict, move: int) -> HanabiGame:
    """The saved game replayed on the engine to ``move`` (independently of the app)."""
    g = HanabiGame(HanabiConfig(**log["engine_config"]))
    g.reset_with_deck(log["deck"], int(log["start_player"]))
    for m in [m for m in log["moves"] if "action" in m][:move]:
        g.step(int(m["action"]))
    return g


def test_replay_steps_by_keys_from_each_seats_point_of_view(browser, tmp_path, shots):
    out = tmp_path / "out"
    app = make_app(out, defaults=Settings(partners=("IGGI",), games=1, seed=5))
    with Served(app) as served:
        page = browser.new_page(viewport=DESKTOP)
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
        # the first hint the person gave touched cards of seat 1: step to just after it
        hint = next(i for i, m in enumerate(log["moves"]) if m.get("kind") == "reveal_rank") + 1
        page.focus("#replay-board")
        for move in range(1, hint + 1):
            page.keyboard.press("ArrowRight")
            page.wait_for_selector(f"#position:text-is('move {move} of {total}')")
        game = replayed(log, hint)
        for pov in (None, 0, 1):
            page.select_option("#pov", "all" if pov is None else str(pov))
            page.wait_for_selector(f"#replay-board[data-pov='{'all' if pov is None else pov}']")
            assert drawn_cards(page, "#replay-board") == expected_cards(game, pov)
            assert any(c["touched"] for hand in drawn_cards(page, "#replay-board") for c in hand)
        shot(page, shots, "replay-seat-1")
        page.focus("#replay-board")  # the select had the focus: arrows would change the seat
        page.keyboard.press("End")
        page.wait_for_selector(f"#position:text-is('move {total} of {total}')")
        assert drawn_cards(page, "#replay-board") == expected_cards(replayed(log, total), 1)
        assert discard_piles(page, "#replay-board") == expected_piles(replayed(log, total))
        page.keyboard.press("[")  # a round back: one move per seat
        page.wait_for_selector(f"#position:text-is('move {total - 2} of {total}')")
        page.keyboard.press("Home")
        page.wait_for_selector(f"#position:text-is('move 0 of {total}')")
        assert page.text_content("#current-move") == "The deal."
