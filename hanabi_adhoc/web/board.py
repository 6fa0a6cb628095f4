"""The board as the page draws it: one seat's view of a game (or all cards, for replays) as JSON.

The page holds no game rules: everything it shows comes from here, read off the engine
(:class:`hanabi_env.PlayerView`): the hands with what their owners know, the fireworks, the
discard pile, the tokens, the deck and the moves so far, and, for the seat on turn, every move
id of its action space (:func:`move_menu`) so that a click names a move. Colours are the
engine's letters R, Y, G, W, B; slot 0 is the oldest card (with the ``shift`` hand order; with
``fixed`` slots a drawn card takes the slot of the card it replaces), the numbering of the move
log and of the terminal's commands. How the page draws it: docs/browser.md §2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hanabi_env import engine as E
from hanabi_env.game import COLOR_NAMES, HanabiGame, Move, PlayerView, card_name

__all__ = ["board_json", "move_command", "move_menu", "move_text"]


def _card(card: int, n_ranks: int) -> dict | None:
    if card < 0:
        return None
    return {"color": COLOR_NAMES[card // n_ranks], "rank": card % n_ranks + 1}


def _hand(view: PlayerView, p: int, cards: np.ndarray | None, touched: set[int]) -> list[dict]:
    """Seat ``p``'s cards: identity (None where hidden) and what ``p`` knows of each.

    ``touched`` holds the slots of ``p``'s hand that the last move touched, when it was a hint.
    """
    out = []
    n = int(view.hand_lengths[p])
    uids = [int(u) for u in view.card_uids[p, :n]]
    for k in range(n):
        card = -1 if cards is None else int(cards[k])
        colors = [COLOR_NAMES[c] for c in np.flatnonzero(view.color_plausible[p, k])]
        ranks = [int(r) + 1 for r in np.flatnonzero(view.rank_plausible[p, k])]
        hinted_c, hinted_r = int(view.hinted_color[p, k]), int(view.hinted_rank[p, k])
        known = None  # the owner can name the card: one colour and one rank still plausible
        if len(colors) == 1 and len(ranks) == 1:
            known = {"color": colors[0], "rank": ranks[0]}
        out.append(
            {
                "slot": k,
                "card": _card(card, view.n_ranks),
                "colors": colors,  # still plausible from the hints (HLE card knowledge)
                "ranks": ranks,
                "hinted_color": COLOR_NAMES[hinted_c] if hinted_c >= 0 else None,
                "hinted_rank": hinted_r + 1 if hinted_r >= 0 else None,
                "known": known,
                "newest": uids[k] == max(uids),  # the card drawn last (largest deck position)
                "touched": k in touched,  # touched by the last move, a hint
            }
        )
    return out


def move_text(m: Move, names: Sequence[str], n_ranks: int) -> str:
    """One move in words, e.g. ``"Piers played R1 from slot 0"``."""
    who = names[m.actor]
    if m.kind in ("play", "discard"):
        card = card_name(m.card, n_ranks)
        if m.kind == "play":
            return f"{who} played {card} from slot {m.slot}" + ("" if m.scored else " (misplay)")
        return f"{who} discarded {card} from slot {m.slot}"
    what = COLOR_NAMES[m.color] if m.kind == "reveal_color" else f"rank {m.rank + 1}"
    slots = ", ".join(map(str, m.touched_slots))
    return f"{who} hinted {what} to {names[m.target]} (slots {slots})"


def board_json(game: HanabiGame, names: Sequence[str], seat: int | None = None) -> dict:
    """The board of ``game`` as seat ``seat`` sees it (``None``: every card shown, a replay).

    Args:
        game: A dealt game.
        names: One display name per seat.
        seat: The viewer; its own cards are hidden (``card`` is None), as the engine hides them.

    Returns:
        A dict of JSON values: ``score``, ``info``/``max_info``, ``lives``/``max_lives``,
        ``deck``, ``fireworks`` (colour letter -> height), ``discards`` (``[card, count]``
        pairs, by colour then rank), ``hands`` (one list per seat, slot 0 first), ``current``,
        ``terminal``, ``moves`` (every move so far in words, oldest first), ``movers`` (the seat
        of each), ``names``, ``colors``, ``ranks``, ``hand_order`` (``"shift"`` or ``"fixed"``)
        and ``viewer`` (``seat``). Each card of a hand is a dict: ``slot``; ``card``
        (``{"color", "rank"}``, None where hidden from the viewer); what its owner knows from
        the hints: ``colors`` and ``ranks`` still plausible, ``hinted_color`` and
        ``hinted_rank`` (what a hint said directly, else None), ``known`` (the card, when one
        colour and one rank remain, else None); ``newest`` (the card its owner drew last) and
        ``touched`` (the last move was a hint that touched it).
    """
    view = game.view(0 if seat is None else seat, seer=seat is None)
    cfg = game.config
    moves = view.moves
    touched: dict[int, set[int]] = {}  # seat -> slots the last move touched, if a hint
    if moves and moves[-1].kind in ("reveal_color", "reveal_rank"):
        touched[moves[-1].target] = set(moves[-1].touched_slots)
    hands = []
    for p in range(cfg.players):
        cards: np.ndarray | None = None  # hidden: the viewer's own
        if seat is None:
            cards = np.array([E.card_of(game.state, p, k) for k in range(cfg.hand_size)])
        elif p != seat:
            cards = view.hands[p]
        hands.append(_hand(view, p, cards, touched.get(p, set())))
    return {
        "score": view.score,
        "info": view.information_tokens,
        "max_info": view.max_information_tokens,
        "lives": view.life_tokens,
        "max_lives": cfg.max_life_tokens,
        "deck": view.deck_size,
        "fireworks": {COLOR_NAMES[c]: int(h) for c, h in enumerate(view.fireworks)},
        "discards": [
            [card_name(c, cfg.ranks), int(n)] for c, n in enumerate(view.discard_counts) if n > 0
        ],
        "hands": hands,
        "current": view.current_player,
        "terminal": view.is_terminal,
        "moves": [move_text(m, names, cfg.ranks) for m in moves],
        "movers": [m.actor for m in moves],
        "names": list(names),
        "colors": list(COLOR_NAMES[: cfg.colors]),
        "ranks": cfg.ranks,
        "hand_order": cfg.hand_order,
        "viewer": seat,
    }


def move_command(game: HanabiGame, seat: int, action: int) -> str:
    """The terminal command of move id ``action`` of ``seat``: ``p2``, ``d0``, ``c1 R``, ``r1 3``.

    The reason a move is refused is then the terminal's (:func:`agents.human.interpret_move`).
    """
    kind, slot, target, color, rank = E.decode_action(game.state.cfg, seat, action)
    letter = COLOR_NAMES[color] if kind == E.REVEAL_COLOR else ""
    return _COMMANDS[kind].format(slot=slot, target=target, color=letter, rank=rank + 1)


_COMMANDS = {E.PLAY: "p{slot}", E.DISCARD: "d{slot}", E.REVEAL_COLOR: "c{target} {color}",
             E.REVEAL_RANK: "r{target} {rank}"}  # fmt: skip


def move_menu(game: HanabiGame, seat: int) -> list[dict]:
    """Every move id of ``seat``'s action space, legal or not, for the page to click.

    Returns:
        ``{"id", "kind", "slot", "target", "color", "rank", "legal", "text"}`` per id, ascending
        (``slot`` for plays and discards, ``target`` and ``color`` letter or ``rank`` (1-based)
        for hints; the others None). An illegal id is sent like a legal one, and the server
        answers with the reason it is refused.
    """
    legal = game.legal_mask() if game.current_player == seat else np.zeros(game.n_actions)
    out = []
    kinds = ("play", "discard", "reveal_color", "reveal_rank")
    for a in range(game.n_actions):
        kind, slot, target, color, rank = E.decode_action(game.state.cfg, seat, a)
        out.append(
            {
                "id": a,
                "kind": kinds[kind],
                "slot": slot if kind in (E.PLAY, E.DISCARD) else None,
                "target": target if kind in (E.REVEAL_COLOR, E.REVEAL_RANK) else None,
                "color": COLOR_NAMES[color] if kind == E.REVEAL_COLOR else None,
                "rank": rank + 1 if kind == E.REVEAL_RANK else None,
                "legal": bool(legal[a]),
                "text": game.action_to_string(a, seat=seat),
            }
        )
    return out
