"""What the bots' compiled self-play loops share: moves, hands, records, decks (docs/bots.md §4).

SmartBot's loop (:mod:`agents.bots.smart_games`) and InfoBot's (:mod:`agents.bots.infobot_games`)
are one game loop: deal (:func:`start_game`), read the hands (:func:`read_hands`), let the bot on
turn decide and every seat observe, turn the decision into a move uid (:func:`decision_uid`), play
it and record it (:func:`play_move`), score. Each bot module keeps only its own turn; the Python
side (:func:`play_games`: the checks, the arrays, the call) is this module's.

The loop itself is not one kernel that takes a bot's kernels as arguments: numba does not cache a
kernel whose arguments are kernels (nor a closure over them), so such a loop would be compiled
again in every process.

A bot's decision is ``(kind, slot or target, colour or 0-based rank)`` with kind
:data:`MOVE_PLAY`, :data:`MOVE_DISCARD`, :data:`MOVE_COLOUR` or :data:`MOVE_RANK`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hanabi_env import engine as E
from hanabi_env.config import HanabiConfig
from hanabi_env.jit import kernel, njit
from hanabi_env.validate import type_error

MOVE_PLAY, MOVE_DISCARD, MOVE_COLOUR, MOVE_RANK = 0, 1, 2, 3


@kernel
def read_hands(s, hands):
    """Write every hand of engine state ``s`` into ``hands``: ``(n, h)`` card ids, -1 past one."""
    for p in range(hands.shape[0]):
        for i in range(hands.shape[1]):
            hands[p, i] = E.card_of(s, p, i) if i < s.public.hand_len[p] else -1


@kernel
def decision_uid(s, kind, a, x, hands):
    """The uid of the decision ``(kind, a, x)`` of the seat on turn, and a hint's touched slots.

    Args:
        s: The engine state.
        kind: ``MOVE_*``.
        a: The slot (play, discard) or the target seat (hints).
        x: A hint's colour (0–4) or 0-based rank; unused otherwise.
        hands: ``(n, h)`` every hand's card ids (:func:`read_hands`).

    Returns:
        ``(uid, touched)``: ``touched`` has bit ``i`` set when the hint names the card in slot
        ``i`` (0 for plays and discards, and for a hint naming no card, whose uid is then not a
        legal move: the caller decides).
    """
    cur = s.scal[E.S_CUR]
    if kind == MOVE_PLAY:
        return E.encode_action(s.cfg, cur, E.PLAY, a, -1, -1), 0
    if kind == MOVE_DISCARD:
        return E.encode_action(s.cfg, cur, E.DISCARD, a, -1, -1), 0
    touched = 0
    for i in range(s.public.hand_len[a]):
        card = hands[a, i]
        if (card // 5 if kind == MOVE_COLOUR else card % 5) == x:
            touched |= 1 << i
    code = E.REVEAL_COLOR if kind == MOVE_COLOUR else E.REVEAL_RANK
    return E.encode_action(s.cfg, cur, code, -1, a, x), touched


@kernel
def start_game(s, decks, game, out_actions):
    """Deal ``decks[game]`` into ``s`` (seat 0 starts) and clear the game's record row, if any."""
    E.reset_with_deck(s, decks[game], 0)
    if out_actions.shape[0] == decks.shape[0]:
        for j in range(out_actions.shape[1]):
            out_actions[game, j] = -1


@kernel
def play_move(s, uid, game, out_actions):
    """Record ``uid`` as the next move of ``game`` (when recording) and play it."""
    if out_actions.shape[0] > game:
        out_actions[game, s.scal[E.S_N_MOVES]] = uid
    E.apply_move(s, uid)


def check_decks(config: HanabiConfig, decks: np.ndarray) -> np.ndarray:
    """``decks`` as a contiguous ``(n_games, n_cards)`` int32 array.

    Raises:
        TypeError: ``decks`` is not an integer array.
        ValueError: ``decks`` does not have one row of the configuration's cards per game.
    """
    arr = np.asarray(decks)
    if arr.dtype.kind not in "iu":
        raise type_error("decks", "an integer array of card ids", decks)
    if arr.ndim != 2 or arr.shape[1] != config.n_cards:
        raise ValueError(
            f"decks must have shape (n_games, {config.n_cards}), got {tuple(arr.shape)}"
        )
    return np.ascontiguousarray(arr, dtype=np.int32)


def play_games(
    loop: Callable[..., object], config: HanabiConfig, decks: np.ndarray, record: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """Run a bot's compiled loop ``loop(s, decks, out_scores, out_actions)`` on ``decks``.

    The configuration is the caller's to check (each bot refuses the games it cannot play).

    Returns:
        ``(scores, actions)``: ``(n_games,)`` int64 scores under the configuration's scoring
        and, when ``record``, ``(n_games, max_moves)`` int16 move uids (-1 padded), else None.

    Raises:
        TypeError, ValueError: ``decks`` (:func:`check_decks`).
    """
    arr = check_decks(config, decks)
    s = E.new_state(config)
    scores = np.zeros(arr.shape[0], dtype=np.int64)
    n_rec = arr.shape[0] if record else 0
    width = int(s.cfg[E.CFG_MAX_MOVES]) if record else 0
    actions = np.zeros((n_rec, width), dtype=np.int16)
    loop(s, arr, scores, actions)
    return scores, (actions if record else None)


@njit(error_model="numpy")
def _decks_kernel(s, seeds, out):
    for g in range(seeds.shape[0]):
        E.reset_state(s, seeds[g], False)
        for i in range(out.shape[1]):
            out[g, i] = s.deck[i]


def decks_of_seeds(config: HanabiConfig, seeds: np.ndarray) -> np.ndarray:
    """The decks ``HanabiGame(config).reset(seed)`` deals, one row per seed (seat 0 starts).

    Args:
        config: The game.
        seeds: ``(n_games,)`` deal seeds in ``[0, 2**62)`` (checked by the caller).

    Returns:
        ``(n_games, n_cards)`` int32 card ids, first dealt first.
    """
    s = E.new_state(config)
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    out = np.zeros((seeds.shape[0], config.n_cards), dtype=np.int32)
    _decks_kernel(s, seeds, out)
    return out


@njit(error_model="numpy")
def _replay_kernel(s, decks, actions, out_scores, out_counters):
    moves = 0
    for g in range(decks.shape[0]):
        E.reset_with_deck(s, decks[g], 0)
        j = 0
        while not s.scal[E.S_DONE] and j < actions.shape[1] and actions[g, j] >= 0:
            E.apply_move(s, actions[g, j])
            j += 1
        moves += j
        out_scores[g] = E.score(s)
        for p in range(out_counters.shape[1]):
            for c in range(out_counters.shape[2]):
                out_counters[g, p, c] = s.counters[p, c]
    return moves


def replay_counters(
    config: HanabiConfig, decks: np.ndarray, actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """Replay recorded games in the engine: their scores, behaviour counters and move count.

    Args:
        config: The game.
        decks: ``(n_games, n_cards)`` the games' decks (seat 0 starts).
        actions: ``(n_games, max_moves)`` move uids, -1 padded (legal moves, not checked).

    Returns:
        ``(scores, counters, moves)``: ``(n_games,)`` int64 scores, ``(n_games, players,
        N_COUNTERS)`` float64 counters (docs/rules.md §5) and the total number of moves.
    """
    s = E.new_state(config)
    scores = np.zeros(decks.shape[0], dtype=np.int64)
    counters = np.zeros((decks.shape[0], config.players, E.N_COUNTERS), dtype=np.float64)
    acts = np.ascontiguousarray(actions, dtype=np.int16)
    moves = _replay_kernel(s, check_decks(config, decks), acts, scores, counters)
    return scores, counters, int(moves)
