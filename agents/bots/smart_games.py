"""Whole games of SmartBot in every seat, in one compiled loop (docs/bots.md §4).

:func:`play_smartbot_games` plays games of SmartBots, engine and bots together, with no Python
per move: the fast path for self-play scores and the speed benchmark
(``benchmarks/bench_bots.py``). Each seat keeps its own knowledge of every hand, as the policy
(:class:`agents.bots.smart.SmartBot`) does; the kernels (:mod:`agents.bots.smart_core`) take the
same steps in the same order, so the moves are the policy's (``tests/agents/test_smart_core.py``
compares them move for move).
"""

from __future__ import annotations

import numpy as np

from agents.bots import _games as G
from agents.bots import smart_core as K
from agents.bots._table import check_config_game
from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.jit import kernel, njit
from hanabi_env.validate import type_error

__all__ = ["play_smartbot_games"]


@kernel
def _position(s, g, hands, hl):
    """Read the public position and every hand of engine state ``s``."""
    for c in range(5):
        g[c] = s.public.fireworks[c]
    g[K.G_HINTS] = s.scal[E.S_INFO]
    g[K.G_LIVES] = s.scal[E.S_LIFE]
    g[K.G_DECK] = s.cfg[E.CFG_N_CARDS] - s.scal[E.S_DECK_POS]
    for p in range(hands.shape[0]):
        hl[p] = s.public.hand_len[p]
    G.read_hands(s, hands)


@kernel
def _observe(p, ki, kf, m, g, hands, hl, cur, out, touched, ti, tf):
    """Seat ``p`` reads seat ``cur``'s move ``out`` (before it is applied)."""
    kind = out[0]
    if kind == K.M_PLAY:
        K.before_play(ki, kf, m, g, hl, cur, out[1], hands[cur, out[1]])
    elif kind == K.M_DISCARD:
        K.before_discard(p, ki, kf, m, g, hands, hl, cur, out[1], hands[cur, out[1]])
    elif kind == K.M_COLOUR:
        K.colour_hint(ki, kf, m, g, hl, cur, out[1], out[2], touched)
    else:
        K.value_hint(ki, kf, m, g, hl, cur, out[1], out[2], touched, ti, tf)


@kernel
def _turn(s, ki, kf, si, sf, g, m, played, loc, eye, hands, hl, out):
    """The seat on turn decides, every seat observes; the move's uid (not yet applied)."""
    n = ki.shape[0]
    last = si.shape[0] - 1
    cur = s.scal[E.S_CUR]
    _position(s, g, hands, hl)
    K.compute_masks(g, played, m)
    eyex = K.before_move(cur, ki[cur], kf[cur], m, played, hands, hl, loc, eye)
    K.decide(cur, ki[cur], kf[cur], m, g, played, hands, hl, eyex, si, sf, out)
    x = out[2] - 1 if out[0] == K.M_VALUE else out[2]  # SmartBot names values 1-5
    uid, touched = G.decision_uid(s, out[0], out[1], x, hands)
    for p in range(n):
        if p != cur:
            K.before_move(p, ki[p], kf[p], m, played, hands, hl, loc, eye)
        _observe(p, ki[p], kf[p], m, g, hands, hl, cur, out, touched, si[last], sf[last])
    if out[0] == K.M_PLAY or out[0] == K.M_DISCARD:
        card = hands[cur, out[1]]
        played[card // 5, card % 5 + 1] += 1
    return uid


@njit(error_model="numpy")
def play_smartbot_games_kernel(s, decks, out_scores, out_actions):
    """Play one game per row of ``decks`` (card ids, first dealt first; seat 0 starts).

    Args:
        s: An engine state (:func:`hanabi_env.engine.new_state`) of the games' configuration.
        decks: ``(n_games, n_cards)`` int32 decks.
        out_scores: ``(n_games,)`` int64, the scores (the state's scoring), written.
        out_actions: ``(n_games, max_moves)`` int16 move uids, -1 padded, written when it has
            ``n_games`` rows (a ``(0, 0)`` array records nothing).

    Returns:
        The number of moves played.
    """
    n = s.cfg[E.CFG_PLAYERS]
    h = s.cfg[E.CFG_HAND]
    ki = np.empty((n, n, h, 7), dtype=np.int64)
    kf = np.empty((n, n, h, 3), dtype=np.float64)
    si = np.empty((h + 1, 7), dtype=np.int64)
    sf = np.empty((h + 1, 3), dtype=np.float64)
    g = np.zeros(8, dtype=np.int64)
    m = np.zeros(3, dtype=np.int64)
    played = np.zeros((5, 6), dtype=np.int64)
    loc = np.zeros((5, 6), dtype=np.int64)
    eye = np.zeros((5, 6), dtype=np.int64)
    hands = np.full((n, h), -1, dtype=np.int64)
    hl = np.zeros(n, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    moves = 0
    for game in range(decks.shape[0]):
        G.start_game(s, decks, game, out_actions)
        for a in range(n):
            for b in range(n):
                for i in range(h):
                    K.blank(ki[a, b, i], kf[a, b, i])
        played[:] = 0
        while not s.scal[E.S_DONE]:
            uid = _turn(s, ki, kf, si, sf, g, m, played, loc, eye, hands, hl, out)
            G.play_move(s, uid, game, out_actions)
            moves += 1
        out_scores[game] = E.score(s)
    return moves


def play_smartbot_games(
    config: HanabiConfig, decks: np.ndarray, record: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Play SmartBots in every seat on each deck; seat 0 starts.

    Args:
        config: The game: the reference bots' (docs/bots.md §2), any scoring.
        decks: ``(n_games, n_cards)`` integer card ids (``colour * 5 + rank``), first dealt
            first, each a permutation of the configuration's cards (not checked here).
        record: Also return the move uids.

    Returns:
        ``(scores, actions)``: ``(n_games,)`` int64 scores under the configuration's scoring
        and, when ``record``, ``(n_games, max_moves)`` int16 move uids (-1 padded), else None.

    Raises:
        TypeError: ``config`` not a HanabiConfig or ``decks`` not an integer array.
        ValueError: A game other than the reference bots', or ``decks`` of the wrong shape.
    """
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig", config)
    check_config_game(config, "SmartBot")
    return G.play_games(play_smartbot_games_kernel, config, decks, record)
