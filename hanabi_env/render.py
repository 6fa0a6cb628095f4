"""Picture of a Hanabi board: the ``rgb_array`` render mode of :class:`hanabi_env.raw_env`.

:func:`render_rgb_array` draws what a spectator of the game sees — every hand face up, with what
its holder knows about each card from hints — as an ``(H, W, 3)`` ``uint8`` array:

* a header with the score (and the fireworks' total when strict scoring zeroed it), the number
  of moves and the seat to move (or "game over");
* the fireworks (one card per colour showing its height, an outline while empty), the
  information and life tokens (filled discs for those left, rings for those spent) and the deck
  (a card back showing the number of cards left, an outline once it is empty);
* one row per player in seat order, the seat to move marked with a triangle; under
  each card its holder's knowledge: the colours still plausible (swatches; implausible ones as
  small dim squares) and the ranks still plausible (bright digits; implausible ones dim). An
  attribute revealed explicitly by a hint is framed in white;
* the discard pile, one row per colour, rank-sorted;
* the last move.

Drawing uses Pillow only (no window, no global state), so it works headless and in worker
processes; Pillow is imported when the first picture is drawn, not by ``import hanabi_env``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from hanabi_env.game import COLOR_NAMES, card_name

if TYPE_CHECKING:
    from hanabi_env.game import HanabiGame

__all__ = ["render_rgb_array"]

# R, Y, G, W, B (HLE's colour order)
CARD_RGB = ((214, 48, 49), (241, 196, 15), (39, 174, 96), (236, 240, 241), (41, 128, 185))
BACKGROUND = (24, 38, 52)
PANEL = (34, 52, 70)
TEXT = (232, 236, 240)
DIM = (92, 106, 120)
HIGHLIGHT = (255, 255, 255)
INFO_RGB = (84, 160, 255)
LIFE_RGB = (235, 77, 75)
DECK_RGB = (70, 84, 110)

# geometry at scale 1 (pixels)
MARGIN = 14
CARD_W, CARD_H = 44, 62
GAP = 8
SMALL_W, SMALL_H = 22, 30
LABEL_W = 104
KNOW_H = 30  # knowledge strip under a hand card
SWATCH = 8


@lru_cache(maxsize=16)
def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: the fixed-size bitmap font
        return ImageFont.load_default()


def _ink_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black or white text, whichever reads better on ``rgb``."""
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return (20, 20, 20) if luminance > 150 else (250, 250, 250)


class _Canvas:
    """Pillow drawing in scale-1 coordinates."""

    def __init__(self, width: int, height: int, scale: float):
        from PIL import Image, ImageDraw

        self.k = scale
        self.image = Image.new("RGB", (self._s(width), self._s(height)), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)

    def _s(self, v: float) -> int:
        return round(v * self.k)

    def _box(self, x, y, w, h) -> list[int]:
        return [self._s(x), self._s(y), self._s(x + w) - 1, self._s(y + h) - 1]

    def rect(self, x, y, w, h, fill=None, outline=None, width=1, radius=0) -> None:
        box = self._box(x, y, w, h)
        lw = max(1, self._s(width))
        if radius:
            self.draw.rounded_rectangle(
                box, radius=self._s(radius), fill=fill, outline=outline, width=lw
            )
        else:
            self.draw.rectangle(box, fill=fill, outline=outline, width=lw)

    def disc(self, cx, cy, r, fill=None, outline=None, width=1) -> None:
        box = [self._s(cx - r), self._s(cy - r), self._s(cx + r), self._s(cy + r)]
        self.draw.ellipse(box, fill=fill, outline=outline, width=max(1, self._s(width)))

    def triangle(self, x, y, size, fill) -> None:
        pts = [(x, y), (x + size, y + size / 2), (x, y + size)]
        self.draw.polygon([(self._s(a), self._s(b)) for a, b in pts], fill=fill)

    def text(self, x, y, s: str, size: int, fill=TEXT, anchor: str = "la") -> None:
        self.draw.text(
            (self._s(x), self._s(y)), s, font=_font(self._s(size)), fill=fill, anchor=anchor
        )


def _card(cv: _Canvas, x, y, card: int, n_ranks: int, w=CARD_W, h=CARD_H, size=26) -> None:
    """A face-up card: its colour, its rank in the middle and in a corner."""
    rgb = CARD_RGB[card // n_ranks]
    ink = _ink_on(rgb)
    rank = str(card % n_ranks + 1)
    cv.rect(x, y, w, h, fill=rgb, outline=(15, 15, 15), radius=max(2, w // 8))
    cv.text(x + w / 2, y + h / 2, rank, size, fill=ink, anchor="mm")
    if w >= CARD_W:
        cv.text(x + 4, y + 3, COLOR_NAMES[card // n_ranks] + rank, 11, fill=ink)


def _knowledge(cv: _Canvas, x, y, view, p: int, k: int, n_colors: int, n_ranks: int) -> None:
    """What player ``p`` knows about its card in slot ``k``: plausible colours and ranks."""
    col_ok = view.color_plausible[p, k]
    rank_ok = view.rank_plausible[p, k]
    hinted_c = int(view.hinted_color[p, k])
    hinted_r = int(view.hinted_rank[p, k])
    step_c = CARD_W / n_colors
    for c in range(n_colors):
        sx = x + c * step_c + (step_c - SWATCH) / 2
        if col_ok[c]:
            cv.rect(sx, y + 2, SWATCH, SWATCH, fill=CARD_RGB[c])
        else:
            cv.rect(sx + 2, y + 4, SWATCH - 4, SWATCH - 4, fill=DIM)
        if c == hinted_c:
            cv.rect(sx - 2, y, SWATCH + 4, SWATCH + 4, outline=HIGHLIGHT, width=1)
    step_r = CARD_W / n_ranks
    for r in range(n_ranks):
        cx = x + (r + 0.5) * step_r
        cv.text(cx, y + 20, str(r + 1), 11, fill=TEXT if rank_ok[r] else DIM, anchor="mm")
        if r == hinted_r:
            cv.rect(cx - 5, y + 13, 10, 14, outline=HIGHLIGHT, width=1)


def _tokens(cv: _Canvas, x, y, label: str, left: int, most: int, rgb) -> None:
    cv.text(x, y + 8, label, 13, anchor="lm")
    for i in range(most):
        cx = x + 50 + i * 18
        if i < left:
            cv.disc(cx, y + 8, 7, fill=rgb)
        else:
            cv.disc(cx, y + 8, 7, outline=DIM, width=2)


def _last_move(view, n_ranks: int) -> str:
    moves = view.moves
    if not moves:
        return "Last move: -"
    m = moves[-1]
    if m.kind in ("play", "discard"):
        desc = f"{m.kind}s {card_name(m.card, n_ranks)} from slot {m.slot}"
        if m.kind == "play":
            desc += " (scored)" if m.scored else " (misplay: a life lost)"
    elif m.kind == "reveal_color":
        desc = f"reveals {COLOR_NAMES[m.color]} to player_{m.target}"
    else:
        desc = f"reveals rank {m.rank + 1} to player_{m.target}"
    return f"Last move: player_{m.actor} {desc}"


def render_rgb_array(game: HanabiGame, scale: float = 1.0) -> np.ndarray:
    """Draw the board of a dealt ``game`` as an ``(H, W, 3)`` ``uint8`` RGB array.

    Args:
        game: A :class:`hanabi_env.HanabiGame` after ``reset``.
        scale: Size factor (1.0: 44×62-pixel cards, about 560×570 pixels for 2 players).

    Returns:
        A new array; the picture shows every hand face up (a spectator's view) with each
        holder's hint knowledge under its cards (see the module docstring for the layout).
    """
    cfg = game.config
    view = game.view(game.current_player, seer=True)  # seer: every hand face up
    width, height = _board_size(cfg)
    cv = _Canvas(width, height, scale)
    y = _draw_header(cv, game, view, width)
    y = _draw_table(cv, view, cfg, width, y)
    y = _draw_hands(cv, view, cfg, width, y)
    y = _draw_discards(cv, view, cfg, y)
    cv.text(MARGIN, y + 10, _last_move(view, cfg.ranks), 13, anchor="lm")
    return np.asarray(cv.image, dtype=np.uint8).copy()


def _board_size(cfg) -> tuple[int, int]:
    """``(width, height)`` of the picture of a game of ``cfg``, in pixels at scale 1."""
    n_colors, n_ranks, players, hand = cfg.colors, cfg.ranks, cfg.players, cfg.hand_size
    board_w = (
        n_colors * (CARD_W + GAP)
        + 24
        + 50
        + 18 * max(cfg.max_information_tokens, cfg.max_life_tokens, 1)
        + GAP
        + CARD_W
    )
    hands_w = LABEL_W + hand * (CARD_W + GAP)
    per_color = sum(3 if r == 0 else 1 if r == n_ranks - 1 else 2 for r in range(n_ranks))
    discard_w = 30 + per_color * (SMALL_W + 4)
    width = 2 * MARGIN + max(board_w, hands_w, discard_w, 380)
    row_h = CARD_H + KNOW_H + GAP
    discard_h = 22 + n_colors * (SMALL_H + 4)
    height = MARGIN + 28 + 18 + CARD_H + 14 + players * row_h + discard_h + 30 + MARGIN
    return width, height


def _draw_header(cv: _Canvas, game: HanabiGame, view, width: int) -> int:
    """The title line (score, move, whose turn); returns the next row's ``y``."""
    cfg = game.config
    # header
    y = MARGIN
    status = "game over" if view.is_terminal else f"player_{view.current_player} to move"
    title = f"Hanabi   score {view.score}/{cfg.max_score}"
    if view.score != game.fireworks_total:  # strict scoring after the last life was lost
        title += f" (fireworks {game.fireworks_total})"
    cv.text(MARGIN, y, title, 18)
    cv.text(width - MARGIN, y + 2, f"move {len(view.moves)}   {status}", 14, anchor="ra")
    y += 28
    return y


def _draw_table(cv: _Canvas, view, cfg, width: int, y: int) -> int:
    """Fireworks, tokens and the deck from row ``y``; returns the next row's ``y``."""
    n_colors, n_ranks = cfg.colors, cfg.ranks
    # fireworks
    cv.text(MARGIN, y, "Fireworks", 13)
    y += 18
    x = MARGIN
    for c in range(n_colors):
        height_c = int(view.fireworks[c])
        if height_c > 0:
            _card(cv, x, y, c * n_ranks + height_c - 1, n_ranks)
        else:
            cv.rect(x, y, CARD_W, CARD_H, outline=CARD_RGB[c], width=2, radius=5)
            cv.text(x + CARD_W / 2, y + CARD_H / 2, "-", 22, fill=CARD_RGB[c], anchor="mm")
        x += CARD_W + GAP
    # tokens
    x += 16
    _tokens(cv, x, y + 4, "Hints", view.information_tokens, cfg.max_information_tokens, INFO_RGB)
    _tokens(cv, x, y + 26, "Lives", view.life_tokens, cfg.max_life_tokens, LIFE_RGB)
    # deck
    dx = width - MARGIN - CARD_W
    cv.text(dx, y - 18, "Deck", 13)
    cv.rect(
        dx,
        y,
        CARD_W,
        CARD_H,
        fill=DECK_RGB if view.deck_size else None,
        outline=TEXT,
        width=1,
        radius=5,
    )
    cv.text(dx + CARD_W / 2, y + CARD_H / 2, str(view.deck_size), 20, anchor="mm")
    y += CARD_H + 14
    return y


def _draw_hands(cv: _Canvas, view, cfg, width: int, y: int) -> int:
    """Every hand face up with its holder's knowledge; returns the next row's ``y``."""
    n_colors, n_ranks, players, hand = cfg.colors, cfg.ranks, cfg.players, cfg.hand_size
    row_h = CARD_H + KNOW_H + GAP
    # hands
    for p in range(players):
        cv.rect(MARGIN - 6, y - 4, width - 2 * MARGIN + 12, row_h - 4, fill=PANEL, radius=6)
        if p == view.current_player and not view.is_terminal:
            cv.triangle(MARGIN, y + 6, 12, fill=HIGHLIGHT)
        cv.text(MARGIN + 18, y + 12, f"player_{p}", 14, anchor="lm")
        x = MARGIN + LABEL_W
        n_cards = int(view.hand_lengths[p])
        for k in range(hand):
            if k < n_cards:
                _card(cv, x, y, int(view.hands[p, k]), n_ranks)
                _knowledge(cv, x, y + CARD_H + 2, view, p, k, n_colors, n_ranks)
            else:
                cv.rect(x, y, CARD_W, CARD_H, outline=DIM, width=1, radius=5)
            x += CARD_W + GAP
        y += row_h
    return y


def _draw_discards(cv: _Canvas, view, cfg, y: int) -> int:
    """The discard pile by colour; returns the ``y`` below it."""
    n_colors, n_ranks = cfg.colors, cfg.ranks
    # discards
    y += 2
    cv.text(MARGIN, y, "Discards", 13)
    y += 20
    counts = view.discard_counts
    for c in range(n_colors):
        cv.text(MARGIN + 6, y + SMALL_H / 2, COLOR_NAMES[c], 13, fill=CARD_RGB[c], anchor="mm")
        x = MARGIN + 20
        for r in range(n_ranks):
            for _ in range(int(counts[c * n_ranks + r])):
                _card(cv, x, y, c * n_ranks + r, n_ranks, SMALL_W, SMALL_H, size=15)
                x += SMALL_W + 4
        y += SMALL_H + 4
    return y
