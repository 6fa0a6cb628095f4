"""Whole games of InfoBot in every seat, in one compiled loop (docs/bots_infobot.md §5).

:func:`play_infobot_games` plays games of InfoBots, engine and bots together, with no Python
per move: the fast path for self-play scores, the differential against the C++ program
(``tools/quux_infobot_differential.py``) and the speed benchmark (``benchmarks/
bench_infobot.py``). Each seat keeps its own knowledge, as the policy
(:class:`agents.bots.infobot.InfoBot`) does; the moves are those the policy makes.
"""

from __future__ import annotations

import numpy as np

from agents.bots import infobot_core as K
from agents.bots.infobot import check_infobot_game
from hanabi_env import _engine as E
from hanabi_env._jit import njit
from hanabi_env.config import HanabiConfig
from hanabi_env.validate import check_int, type_error

__all__ = ["infobot_config", "play_infobot_games"]


@njit(error_model="numpy")
def _position(s, fw, disc, sc, hands):
    """Read the public position and every hand of engine state ``s`` into InfoBot's arrays."""
    n = s.cfg[E.CFG_PLAYERS]
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
    for p in range(n):
        for i in range(hands.shape[1]):
            hands[p, i] = E.card_of(s, p, i) if i < s.public.hand_len[p] else -1


@njit(error_model="numpy")
def _uid(s, out, hands, mask):
    """The move uid of InfoBot's choice ``out``; its touched slots (for hints) second."""
    cur = s.scal[E.S_CUR]
    kind = out[0]
    if kind == K.M_PLAY or kind == K.M_DISCARD:
        code = E.PLAY if kind == K.M_PLAY else E.DISCARD
        return E.encode_action(s.cfg, cur, code, out[1], -1, -1), 0
    touched = 0
    target = out[1]
    for i in range(s.public.hand_len[target]):
        card = hands[target, i]
        attr = card // K.NV if kind == K.M_COLOR else card % K.NV
        if attr == out[2]:
            touched |= 1 << i
    code = E.REVEAL_COLOR if kind == K.M_COLOR else E.REVEAL_RANK
    uid = E.encode_action(s.cfg, cur, code, -1, target, out[2])
    if touched == 0:  # an empty hint (as the policy: the last legal move instead)
        E.legal_mask(s, mask)
        uid = mask.shape[0] - 1
        while mask[uid] == 0:
            uid -= 1
    return uid, touched


@njit(error_model="numpy")
def play_infobot_games_kernel(s, decks, out_scores, out_actions):
    """Play one game per row of ``decks`` (card ids, first dealt first; seat 0 starts).

    Args:
        s: An engine state (:func:`hanabi_env._engine.new_state`) of the games' configuration.
        decks: ``(n_games, n_cards)`` int32 decks.
        out_scores: ``(n_games,)`` int64, the scores (the state's scoring), written.
        out_actions: ``(n_games, max_moves)`` int16 move uids, -1 padded, written when it has
            ``n_games`` rows (a ``(0, 0)`` array records nothing).

    Returns:
        The number of moves played.
    """
    n = s.cfg[E.CFG_PLAYERS]
    h = s.cfg[E.CFG_HAND]
    record = out_actions.shape[0] == decks.shape[0]
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
    for g in range(decks.shape[0]):
        E.reset_with_deck(s, decks[g], 0)
        info, hl, pc = K.new_knowledge(n, h)
        for p in range(n):
            infos[p] = info
            hls[p] = hl
            pcs[p] = pc
        if record:
            out_actions[g, :] = -1
        while not s.scal[E.S_DONE]:
            cur = s.scal[E.S_CUR]
            _position(s, fw, disc, sc, hands)
            K.decide(cur, infos[cur], hls[cur], fw, disc, sc, hands, out, ws)
            uid, touched = _uid(s, out, hands, mask)
            kind, slot, target, colour, rank = E.decode_action(s.cfg, cur, uid)
            for p in range(n):
                if kind == E.PLAY or kind == E.DISCARD:
                    card = hands[cur, slot]
                    K.observe_discard_or_play(p, cur, slot, card, kind == E.DISCARD, infos[p],
                                              hls[p], pcs[p], fw, disc, sc, hands, ws)  # fmt: skip
                else:
                    is_colour = kind == E.REVEAL_COLOR
                    val = colour if is_colour else rank
                    K.observe_hint(p, cur, target, is_colour, val, touched, infos[p], hls[p],
                                   fw, disc, hands, ws)  # fmt: skip
            if record:
                out_actions[g, s.scal[E.S_N_MOVES]] = uid
            E.apply_move(s, uid)
            moves += 1
        out_scores[g] = E.score(s)
    return moves


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
    arr = np.asarray(decks)
    if arr.dtype.kind not in "iu":
        raise type_error("decks", "an integer array of card ids", decks)
    if arr.ndim != 2 or arr.shape[1] != config.n_cards:
        raise ValueError(
            f"decks must have shape (n_games, {config.n_cards}), got {tuple(arr.shape)}"
        )
    s = E.new_state(config)
    scores = np.zeros(arr.shape[0], dtype=np.int64)
    n_rec = arr.shape[0] if record else 0
    actions = np.zeros((n_rec, int(s.cfg[E.CFG_MAX_MOVES]) if record else 0), dtype=np.int16)
    play_infobot_games_kernel(s, np.ascontiguousarray(arr, dtype=np.int32), scores, actions)
    return scores, (actions if record else None)
