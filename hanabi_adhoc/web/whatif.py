"""What if: moves not made, from any position of a finished game (hanab.live's hypotheticals).

A saved game is replayed on the engine with its own deck to move ``N``; the hypothetical moves
are then applied one by one, each checked legal for the seat on turn, and the board after each
is sent as the replays send it (:func:`hanabi_adhoc.web.board.board_json`). Nothing is kept on
the server: the page sends the whole list of moves each time. How the page uses it:
docs/browser.md §2 ("Replays").
"""

from __future__ import annotations

from pathlib import Path

from hanabi_adhoc.web import board, store
from hanabi_adhoc.web.session import Refused
from hanabi_env.game import HanabiGame

__all__ = ["real_game", "what_if"]

_KINDS = ("play", "discard", "reveal_color", "reveal_rank")


def real_game(
    root: Path, sid: str, game: int, move: int
) -> tuple[HanabiGame, dict, list[dict], list[str]]:
    """Saved game ``game`` of session ``sid`` replayed on the engine to move ``move`` (clamped).

    Returns:
        The engine game at that move, the saved per-move log, its moves (those with a move id,
        in order) and the seats' names.

    Raises:
        Refused: No such session or game (404), a game not over (409), or a log that does not
            replay (422).
    """
    from hanabi_env import HanabiConfig

    try:
        log = store.read_game(root, sid, game)
    except ValueError as exc:
        raise Refused(400, str(exc)) from None
    except FileNotFoundError as exc:
        raise Refused(404, str(exc)) from None
    if log.get("result") is None:
        raise Refused(409, f"game {game} of session {sid} is not over: it is shown once it is")
    moves = [m for m in log.get("moves", []) if "action" in m]
    try:
        g = HanabiGame(HanabiConfig(**log["engine_config"]))
        g.reset_with_deck(log["deck"], int(log["start_player"]))
        for m in moves[: min(move, len(moves))]:
            g.step(int(m["action"]))
        names = [str(s["name"]) for s in log["seats"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise Refused(422, f"game {game} of session {sid} does not replay: {exc}") from None
    return g, log, moves, names


def _from_menu(g: HanabiGame, item: dict) -> int | None:
    """The move id of a move in the page's format, or None if none matches.

    The page's format: ``kind`` with ``slot``, or ``target`` and ``color``/``rank``, as
    :func:`board.move_menu` lists them.
    """
    keys = ("kind", "slot", "target", "color", "rank")
    want = {k: item.get(k) for k in keys}
    for entry in board.move_menu(g, g.current_player):
        if all(entry[k] == want[k] for k in keys):
            return int(entry["id"])
    return None


def _move_id(g: HanabiGame, item: object, where: str) -> int:
    """The legal move id ``item`` names for the seat on turn, or :class:`Refused` 400 naming it.

    ``item``: a move id (int), a terminal command (``"p0"``, ``"c1 R"``), or a dict: ``{"id":
    n}`` or the page's ``{"kind", "slot", "target", "color", "rank"}``.
    """
    from agents.human import interpret_move

    seat = g.current_player
    if isinstance(item, dict):
        item = item.get("id", _from_menu(g, item) if item.get("kind") in _KINDS else None)
        if item is None:
            raise Refused(400, f"{where} names no move of seat {seat}; send a move id, a "
                          "command such as 'p0' or 'c1 R', or {kind, slot, target, color, "
                          "rank}")  # fmt: skip
    if isinstance(item, str):
        uid, why = interpret_move(g.view(seat), item)
        if uid is None:
            raise Refused(400, f"{where} ({item!r}, seat {seat}) is not legal: {why}")
        return uid
    if type(item) is not int or not 0 <= item < g.n_actions:
        raise Refused(400, f"{where} must be a move id 0-{g.n_actions - 1}, a command such as "
                      f"'p0' or 'c1 R', or a move of the page's menu; got {item!r}")  # fmt: skip
    if not g.legal_mask()[item]:
        _, why = interpret_move(g.view(seat), board.move_command(g, seat, item))
        text = g.action_to_string(item, seat=seat)
        raise Refused(400, f"{where} (move id {item}: {text}, seat {seat}) is not legal: {why}")
    return item


def _seat(value: object, players: int) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < players:
        raise Refused(400, f"seat must be null (every card) or a seat 0-{players - 1}, "
                      f"got {value!r}")  # fmt: skip
    return value


def what_if(root: Path, sid: str, game: int, body: dict) -> dict:
    """The boards after hypothetical moves from move ``body["move"]`` of a finished game.

    Args:
        root: The server's output folder.
        sid: The session id.
        game: The game number (1-based).
        body: ``move`` (int, 0 = the deal, up to the moves played), ``actions`` (list, each a
            move id, a terminal command or a move of the page's menu, made in turn by the seat
            to move) and ``seat`` (the point of view: null for every card, else a seat whose
            own cards are hidden).

    Returns:
        ``session``, ``game``, ``move``, ``total`` (moves of the real game), ``seat``,
        ``actions`` (the move ids), ``moves`` (each hypothetical move: ``action``, ``seat``,
        ``name``, ``text``), ``boards`` (``len(actions) + 1`` boards: the real position, then
        after each move), ``menu`` (:func:`board.move_menu` of the seat to move at the end,
        empty once the game is over) and ``config``.

    Raises:
        Refused: A malformed body or an illegal move (400, naming ``actions[i]``), and the
            refusals of :func:`real_game`.
    """
    move, actions = body.get("move"), body.get("actions", [])
    if type(move) is not int or move < 0:
        raise Refused(400, f"move must be a move number of the real game (0 = the deal), "
                      f"got {move!r}")  # fmt: skip
    if not isinstance(actions, list):
        raise Refused(400, f"actions must be a list of moves, got {type(actions).__name__}")
    g, log, moves, names = real_game(root, sid, game, move)
    if move > len(moves):
        raise Refused(400, f"move must be 0-{len(moves)}: game {game} has {len(moves)} moves")
    seat = _seat(body.get("seat"), g.config.players)
    boards, made = [board.board_json(g, names, seat)], []
    for i, item in enumerate(actions):
        where = f"actions[{i}]"
        if g.is_terminal:
            raise Refused(400, f"{where}: the game is over after {move + i} moves; no move is left")
        actor = g.current_player
        uid = _move_id(g, item, where)
        g.step(uid)
        m = g.view(actor).moves[-1]
        text = board.move_text(m, names, g.config.ranks)
        made.append({"action": uid, "seat": actor, "name": names[actor], "text": text})
        boards.append(board.board_json(g, names, seat))
    return {
        "session": sid,
        "game": game,
        "move": move,
        "total": len(moves),
        "seat": seat,
        "actions": [m["action"] for m in made],
        "moves": made,
        "boards": boards,
        "menu": [] if g.is_terminal else board.move_menu(g, g.current_player),
        "config": log.get("config", {}),
    }
