"""Whole games of InfoBot in every seat, in one compiled loop (docs/bots_infobot.md §5).

:func:`play_infobot_games` plays games of InfoBots, engine and bots together, with no Python
per move: the fast path for self-play scores, the differential against the C++ program
(``tools/quux_infobot_differential.py``) and the speed benchmark (``benchmarks/
bench_bots.py``). Each seat keeps its own knowledge, as the policy
(:class:`agents.bots.infobot.InfoBot`) does; the moves are those the policy makes.
"""

from __future__ import annotations

import numpy as np

from agents.bots import _games as G
from agents.bots import infobot_core as K
from agents.bots.infobot import check_infobot_game
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.jit import kernel, njit
from hanabi_env.validate import check_int

__all__ = ["infobot_config", "play_infobot_games"]


@kernel
def _position(s, fw, disc, sc, hands):
    """Read the public position and every hand of engine state ``s`` into InfoBot's arrays."""
    for c in range(K.NC):
        fw[c] = s.public.fireworks[c]
    dsize = 0
    for c in range(K.NC):
        for v in range(K.NV):
            disc[c, v] = s.public.discards[c * K.NV + v]
            dsize += disc[c, v]
    sc[K.SC_DECK] = s.cfg[E.CFG_N_CARDS] - s.scal[E.S_DECK_POS]
    sc[K.SC_DSIZE] = dsize
    sc[K.SC_HINTS] = s.scal[E.S_INFO]
    sc[K.SC_LIVES] = s.scal[E.S_LIFE]
    sc[K.SC_PLAYER] = s.scal[E.S_CUR]
    G.read_hands(s, hands)


@kernel
def _observe_shared(cur, kind, slot, card, target, val, touched, info, hl, pc, fw, disc, sc,
                    hands, ws):  # fmt: skip
    """Every seat's observation of the move, on the one shared copy, if they agree.

    In self-play every seat holds the same public tables as long as each hat hint (a hint, or
    the choice among several known useless cards to discard) encodes the true answers: then
    every seat decodes its own hand's true answers, and learns what the mover's seat learns,
    which is what is applied. Returns False, with nothing changed, when the move encodes
    another sum (seats would then learn different things: the caller goes on per seat).
    """
    if kind == E.PLAY or kind == E.DISCARD:
        if kind == E.DISCARD:
            useless = ws[0][7]
            nu = K.find_useless(info[cur], hl[cur], fw, disc, useless, ws)
            chosen = -1
            for j in range(nu if nu > 1 else 0):
                if useless[j] == slot:
                    chosen = j
                    break
            if chosen >= 0 and K.hint_sum(nu, cur, info, hl, fw, disc, hands, ws) != chosen:
                return False
        K.observe_discard_or_play(cur, cur, slot, card, kind == E.DISCARD, info, hl, pc, fw,
                                  disc, sc, hands, ws)  # fmt: skip
        return True
    is_colour = kind == E.REVEAL_COLOR
    total, value = K.hint_value(cur, target, is_colour, val, touched, info, hl, fw, disc, ws)
    if K.hint_sum(total, cur, info, hl, fw, disc, hands, ws) != value % total:
        return False
    K.apply_hint(total, value, cur, cur, target, is_colour, val, touched, info, hl, fw, disc,
                 hands, ws)  # fmt: skip
    return True


@kernel
def _unshare(infos, hls, pcs):
    """Give every seat its own copy of seat 0's knowledge (the shared one)."""
    n = hls.shape[0]
    for p in range(1, n):
        for q in range(n):
            hls[p, q] = hls[0, q]
            for i in range(infos.shape[2]):
                for k in range(K.NC):
                    for v in range(K.NV):
                        infos[p, q, i, k, v] = infos[0, q, i, k, v]
        for k in range(K.NC):
            for v in range(K.NV):
                pcs[p, k, v] = pcs[0, k, v]


@kernel
def _turn(s, infos, hls, pcs, fw, disc, sc, hands, out, mask, ws, shared):
    """The seat on turn decides, every seat observes: the move's uid (not yet applied).

    With ``shared``, seat 0's knowledge is every seat's (:func:`_observe_shared`); the second
    value returned says whether it still is after this move.
    """
    n = hls.shape[0]
    cur = s.scal[E.S_CUR]
    _position(s, fw, disc, sc, hands)
    mine = 0 if shared else cur
    K.decide(cur, infos[mine], hls[mine], fw, disc, sc, hands, out, ws)
    uid, touched = G.decision_uid(s, out[0], out[1], out[2], hands)
    if out[0] >= G.MOVE_COLOUR and touched == 0:
        # an empty hint (as the policy: the last legal move instead, docs/bots_infobot.md §4)
        E.legal_mask(s, mask)
        uid = mask.shape[0] - 1
        while mask[uid] == 0:
            uid -= 1
    kind, slot, target, colour, rank = E.decode_action(s.cfg, cur, uid)
    card = hands[cur, slot] if kind == E.PLAY or kind == E.DISCARD else -1
    val = colour if kind == E.REVEAL_COLOR else rank
    if shared:
        if _observe_shared(cur, kind, slot, card, target, val, touched, infos[0], hls[0],
                           pcs[0], fw, disc, sc, hands, ws):  # fmt: skip
            return uid, True
        _unshare(infos, hls, pcs)
    for p in range(n):
        if kind == E.PLAY or kind == E.DISCARD:
            K.observe_discard_or_play(p, cur, slot, card, kind == E.DISCARD, infos[p], hls[p],
                                      pcs[p], fw, disc, sc, hands, ws)  # fmt: skip
        else:
            K.observe_hint(p, cur, target, kind == E.REVEAL_COLOR, val, touched, infos[p],
                           hls[p], fw, disc, hands, ws)  # fmt: skip
    return uid, False


@njit(error_model="numpy")
def play_infobot_games_kernel(s, decks, out_scores, out_actions, per_seat=False):
    """Play one game per row of ``decks`` (card ids, first dealt first; seat 0 starts).

    Every game starts with one copy of the knowledge for all seats and gives each seat its
    own from the first move that could teach seats different things (:func:`_turn`).

    Args:
        s: An engine state (:func:`hanabi_env.engine.new_state`) of the games' configuration.
        decks: ``(n_games, n_cards)`` int32 decks.
        out_scores: ``(n_games,)`` int64, the scores (the state's scoring), written.
        out_actions: ``(n_games, max_moves)`` int16 move uids, -1 padded, written when it has
            ``n_games`` rows (a ``(0, 0)`` array records nothing).
        per_seat: Give every seat its own copy from the deal (the slower path, which the
            shared copy must match move for move; for tests).

    Returns:
        ``(moves, split)``: the number of moves played, and of games whose seats' copies
        were split during play (all of them with ``per_seat``).
    """
    n = s.cfg[E.CFG_PLAYERS]
    h = s.cfg[E.CFG_HAND]
    infos = np.empty((n, n, h, K.NC, K.NV), dtype=np.int64)
    hls = np.empty((n, n), dtype=np.int64)
    pcs = np.empty((n, K.NC, K.NV), dtype=np.int64)
    fw = np.zeros(K.NC, dtype=np.int64)
    disc = np.zeros((K.NC, K.NV), dtype=np.int64)
    sc = np.zeros(K.N_SC, dtype=np.int64)
    hands = np.full((n, h), -1, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    mask = np.zeros(s.cfg[E.CFG_N_ACTIONS], dtype=np.int8)
    ws = K.new_workspace()
    moves = 0
    split = 0
    for game in range(decks.shape[0]):
        G.start_game(s, decks, game, out_actions)
        info, hl, pc = K.new_knowledge(n, h)
        infos[0] = info
        hls[0] = hl
        pcs[0] = pc
        shared = not per_seat
        if per_seat:
            _unshare(infos, hls, pcs)
        while not s.scal[E.S_DONE]:
            uid, shared = _turn(s, infos, hls, pcs, fw, disc, sc, hands, out, mask, ws, shared)
            G.play_move(s, uid, game, out_actions)
            moves += 1
        split += 0 if shared else 1
        out_scores[game] = E.score(s)
    return moves, split


def infobot_config(players: int, scoring: str = "lenient") -> HanabiConfig:
    """The C++ reference's game for ``players`` (2–5): hands of 5 at 2–3, 4 at 4–5.

    Raises:
        TypeError, ValueError: ``players`` not an int in [2, 5]; an unknown ``scoring``.
    """
    players = check_int("players", players, 2, 5)
    return HanabiConfig.for_game(players, scoring=scoring)


def play_infobot_games(
    config: HanabiConfig, decks: np.ndarray, record: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Play InfoBots in every seat on each deck; seat 0 starts.

    Args:
        config: The game (:func:`infobot_config` for the C++ reference's); one InfoBot can
            play (:func:`agents.bots.infobot.check_infobot_game`).
        decks: ``(n_games, n_cards)`` integer card ids (``colour * 5 + rank``), first dealt
            first, each a permutation of the configuration's cards (not checked here).
        record: Also return the move uids.

    Returns:
        ``(scores, actions)``: ``(n_games,)`` int64 scores under the configuration's scoring
        and, when ``record``, ``(n_games, max_moves)`` int16 move uids (-1 padded), else None.

    Raises:
        TypeError: ``config`` not a HanabiConfig or ``decks`` not an integer array.
        ValueError: A game InfoBot cannot play, or ``decks`` of the wrong shape.
    """
    check_infobot_game(config)
    return G.play_games(play_infobot_games_kernel, config, decks, record)
