"""Hand order for networks: a fixed-slot hand shown in age order, and the moves mapped back.

A network trained in this env (HLE's hand order, docs/rules.md §0.1) reads slot ``i`` of a hand
as the ``i``-th oldest card. In a game with the Java framework's fixed hand slots
(``HanabiConfig(hand_order="fixed")``: the ``reference`` ruleset's games, so the benchmark's
``published`` suite and the published runs of ``dev`` and ``test``) a drawn card takes the
vacated slot and slot order is no longer age order, so the same network would read its inputs
wrongly. This module shows such a network the game as HLE would: every slot-indexed part of its
observation is reordered so that slot ``i`` is the ``i``-th oldest card of that hand, and the
play or discard slot it chooses is mapped back to the game's slot.

What is reordered (the layout of :mod:`hanabi_env.env`; every observation type: ``minimal``,
``card_knowledge`` and ``seer``):

* *other hands*: each other player's cards, by age;
* *card knowledge*: each player's hint knowledge (and the ``seer`` cards), by age; knowledge
  travels with its card in both orders;
* *last move: touched*: the slots a reveal touched, by the target's age order (the target's
  hand has not changed since the reveal, the most recent move);
* *last move: slot*: the slot played or discarded, as the card's age rank in the actor's hand
  before the move (the number of cards still in that hand that are older than it: a card
  drawn afterwards is newer than every other);
* the legal mask's discard and play entries, by the mover's age order.

The rest (board, discards, tokens, the last move's actor, kind, target, colour, rank and card)
does not name slots. A move chosen on the reordered observation is mapped back by
:func:`moves_to_game`: discarding or playing age slot ``i`` is discarding or playing the game
slot that holds the ``i``-th oldest card; hints are unchanged.

A card's age is its uid (its deck position; a larger uid is a newer card), which the engine
keeps for every card in hand (``View.uids``) and for every card played or discarded
(``H_UID`` of the move record). Hands have no holes in either order, so empty slots stay
last. The result is exact: a game played with fixed slots and the same game played in HLE's
order (same deal, same cards played, discarded and hinted) give identical reordered
observations move by move (``tests/agents/test_hand_order.py`` checks it with Hypothesis), so
a deterministic network plays the same game in both orders.

**Who is shown age order.** The game loops apply it to every batch policy
(:class:`agents.batch.BatchPolicy`: shipped RL partners ``rl:NAME``, SB3 models ``sb3:PATH``,
:class:`~agents.batch.TorchPolicy`, a user's own batch policy) in a fixed-slot game, as
:func:`agents.batch.shows_age_order` decides: its attribute ``observation_hand_order`` is
``"age"`` by default; ``"game"`` opts out (a network trained with fixed slots; a partner whose
config records ``hand_order="fixed"`` opts out by itself). A batch policy that reads views
(``needs_views``) sees the game's slots like rule agents, which decide from the
:class:`~hanabi_env.PlayerView`. In HLE-order games nothing changes. For a loop of your own:
:func:`observe_by_age` and :func:`move_to_game`.

Everything here is plain numpy over a batch of decisions (no compiled kernel).

Source: docs/rules.md §0.1 (the two hand orders) and §12; the observation layout of
:mod:`hanabi_env.env` (HLE's canonical encoding, docs/anchors.md §2.2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.game import PlayerView

__all__ = [
    "OBSERVATION_HAND_ORDERS",
    "Hands",
    "age_order",
    "hands_of_batch",
    "hands_of_view",
    "move_to_game",
    "moves_to_game",
    "observe_by_age",
    "show_by_age",
]

OBSERVATION_HAND_ORDERS = ("age", "game")
"""Values of a batch policy's ``observation_hand_order``: ``"age"`` (slot ``i`` is the
``i``-th oldest card, HLE's order, in every game; the default) or ``"game"`` (the game's own
slots)."""


class Hands(NamedTuple):
    """What the reordering needs of ``B`` games (absolute seats).

    Attributes:
        uids: ``(B, players, hand_size)`` integer card uids (deck positions) in slot order, -1
            for empty slots.
        hand_len: ``(B, players)`` integer cards held.
        last: ``(B, HIST_FIELDS)`` integer record of each game's most recent move
            (``hanabi_env.engine.H_*``), a row of -1 before the first move.
    """

    uids: np.ndarray
    hand_len: np.ndarray
    last: np.ndarray


def age_order(uids: np.ndarray) -> np.ndarray:
    """The slot of each hand's ``i``-th oldest card: ``order[..., i]``.

    Args:
        uids: ``(..., hand_size)`` integer card uids in slot order, -1 for empty slots (which
            are the last ones of a hand in both hand orders).

    Returns:
        ``(..., hand_size)`` int64: ``order[..., i]`` is the slot holding the ``i``-th oldest
        card; empty slots map to themselves.
    """
    uids = np.asarray(uids, dtype=np.int64)
    h = uids.shape[-1]
    big = np.int64(1) << 40
    key = np.where(uids >= 0, uids, big + np.arange(h))
    return np.argsort(key, axis=-1, kind="stable").astype(np.int64)


def hands_of_view(view: PlayerView) -> Hands:
    """The :class:`Hands` of one view (``B = 1``)."""
    raw = view.raw
    n_moves = int(raw.scal[V.V_N_MOVES])
    last = raw.hist[n_moves - 1] if n_moves > 0 else np.full(E.HIST_FIELDS, -1)
    return Hands(raw.uids[None].astype(np.int64), raw.hand_len[None].astype(np.int64),
                 np.asarray(last, dtype=np.int64)[None])  # fmt: skip


def hands_of_batch(b, games: np.ndarray) -> Hands:
    """The :class:`Hands` of games ``games`` of a :class:`hanabi_env.batch.Batch`.

    Args:
        b: The batch.
        games: ``(B,)`` int64 game indices.
    """
    cfg = b.cfg
    o = E.pub_offsets(cfg)
    p, h = int(cfg[E.CFG_PLAYERS]), int(cfg[E.CFG_HAND])
    games = np.asarray(games, dtype=np.int64)
    uids = b.packed[games, o[5] : o[6]].reshape(len(games), p, h).astype(np.int64)
    hand_len = b.packed[games, o[6] : o[7]].astype(np.int64)
    n_moves = b.scal[games, E.S_N_MOVES].astype(np.int64)
    cols = o[11] + np.maximum(n_moves - 1, 0)[:, None] * E.HIST_FIELDS + np.arange(E.HIST_FIELDS)
    last = b.packed[games[:, None], cols].astype(np.int64)  # only the last record is read
    last[n_moves == 0] = -1
    return Hands(uids, hand_len, last)


def _sections(cfg: np.ndarray) -> dict[str, int]:
    """Offsets of the slot-indexed sections of the canonical observation (hanabi_env.env)."""
    p, c, r, h = (int(cfg[i]) for i in (E.CFG_PLAYERS, E.CFG_COLORS, E.CFG_RANKS, E.CFG_HAND))
    n_cards = int(cfg[E.CFG_N_CARDS])
    bits = c * r
    last = (p - 1) * h * bits + p + (n_cards - p * h) + bits
    last += int(cfg[E.CFG_MAX_INFO]) + int(cfg[E.CFG_MAX_LIFE]) + n_cards
    touched = last + p + 4 + p + c + r
    return {
        "bits": bits,
        "touched": touched,
        "slot": touched + h,
        "knowledge": touched + 2 * h + bits + 2,
        "per_card": bits + c + r,
    }


def _gather_blocks(idx, base, order, size):
    """Make block ``i`` (of ``size`` entries from ``base``) read block ``order[:, i]``."""
    b, h = order.shape
    cols = base + (order[:, :, None] * size + np.arange(size)).reshape(b, h * size)
    idx[:, base : base + h * size] = cols


def show_by_age(
    obs: np.ndarray, mask: np.ndarray, cfg: np.ndarray, seats: np.ndarray, hands: Hands
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations and legal masks of ``B`` decisions, every hand in age order (module).

    Args:
        obs: ``(B, obs_dim)`` canonical observations in the game's slot order, any dtype (the
            length tells the observation type: ``minimal`` or with the card-knowledge section).
        mask: ``(B, n_actions)`` legal masks in the game's slot order.
        cfg: The engine's config array of the game (``hanabi_env.engine``).
        seats: ``(B,)`` integer absolute seats of the observers (the movers).
        hands: The games' :class:`Hands`.

    Returns:
        ``(obs, mask, order)``: new arrays of the same shapes and dtypes in age order, and
        ``order`` ``(B, hand_size)`` int64, the mover's :func:`age_order` (for
        :func:`moves_to_game`).

    Raises:
        ValueError: ``obs`` has the length of no observation type of ``cfg``, or the arrays'
            game counts differ.
    """
    obs = np.asarray(obs)
    n = obs.shape[0]
    seats = np.asarray(seats, dtype=np.int64)
    if not (len(mask) == len(seats) == len(hands.uids) == n):
        raise ValueError(f"obs ({n}), mask, seats and hands must cover the same decisions")
    p, h = int(cfg[E.CFG_PLAYERS]), int(cfg[E.CFG_HAND])
    minimal = V.observation_size(cfg, V.OBS_MINIMAL)
    full = V.observation_size(cfg, V.OBS_CARD_KNOWLEDGE)
    if obs.ndim != 2 or obs.shape[1] not in (minimal, full):
        raise ValueError(
            f"obs has shape {obs.shape}; allowed: (B, {minimal}) or (B, {full}) for this game"
        )
    s = _sections(cfg)
    rows = np.arange(n)
    orders = age_order(hands.uids)  # (B, P, H)
    idx = np.broadcast_to(np.arange(obs.shape[1]), obs.shape).copy()
    for rel in range(1, p):
        _gather_blocks(idx, (rel - 1) * h * s["bits"], orders[rows, (seats + rel) % p], s["bits"])
    if obs.shape[1] == full:
        for rel in range(p):
            base = s["knowledge"] + rel * h * s["per_card"]
            _gather_blocks(idx, base, orders[rows, (seats + rel) % p], s["per_card"])
    last = hands.last
    kind = last[:, E.H_KIND]
    reveal = (kind == E.REVEAL_COLOR) | (kind == E.REVEAL_RANK)
    target = np.where(reveal, last[:, E.H_TARGET], 0)
    _gather_blocks(idx, s["touched"], orders[rows, target], 1)
    out = np.take_along_axis(obs, idx, axis=1)
    moved = (kind == E.PLAY) | (kind == E.DISCARD)
    if moved.any():
        actor = np.where(moved, last[:, E.H_ACTOR], 0)
        held = hands.uids[rows, actor]
        rank = ((held >= 0) & (held < last[:, E.H_UID][:, None])).sum(axis=1)
        out[moved, s["slot"] : s["slot"] + h] = 0
        out[rows[moved], s["slot"] + rank[moved]] = 1
    mover = orders[rows, seats]
    mask = np.asarray(mask)
    mask_out = mask.copy()
    mask_out[:, :h] = np.take_along_axis(mask[:, :h], mover, axis=1)
    mask_out[:, h : 2 * h] = np.take_along_axis(mask[:, h : 2 * h], mover, axis=1)
    return out, mask_out, mover


def moves_to_game(moves: np.ndarray, order: np.ndarray, hand_size: int) -> np.ndarray:
    """Moves chosen on age-ordered observations, as the game's move uids.

    Args:
        moves: ``(B,)`` integer move uids (HLE order, docs/anchors.md §2.3) in age order.
        order: ``(B, hand_size)`` the movers' :func:`age_order` (from :func:`show_by_age`).
        hand_size: Cards per hand ``h``: uids ``[0, h)`` discard, ``[h, 2h)`` play a slot.

    Returns:
        ``(B,)`` int64: discard/play of age slot ``i`` becomes discard/play of slot
        ``order[:, i]``; hints are unchanged.
    """
    moves = np.asarray(moves, dtype=np.int64)
    h = int(hand_size)
    slot = np.where(moves < h, moves, moves - h)
    slotted = moves < 2 * h
    game_slot = np.take_along_axis(order, np.where(slotted, slot, 0)[:, None], axis=1)[:, 0]
    return np.where(slotted, np.where(moves < h, game_slot, h + game_slot), moves)


def observe_by_age(view: PlayerView, observation_type: str = "card_knowledge") -> np.ndarray:
    """The canonical observation of ``view`` with every hand in age order (int8).

    In an HLE-order game this is ``view.encode(observation_type)`` itself. For a loop of your
    own that feeds a network from views (the game loops of the package do it for batch
    policies already); map its move back with :func:`move_to_game`.

    Args:
        view: The seat's view.
        observation_type: ``"minimal"``, ``"card_knowledge"`` or ``"seer"`` (a seer view).

    Returns:
        ``(obs_dim,)`` int8.

    Raises:
        ValueError: As :meth:`hanabi_env.PlayerView.encode`.
    """
    obs = view.encode(observation_type)
    cfg = view.raw.cfg
    if int(cfg[E.CFG_HAND_ORDER]) != E.HAND_FIXED:
        return obs
    mask = np.zeros((1, int(cfg[E.CFG_N_ACTIONS])), dtype=np.int8)
    seats = np.array([view.seat], dtype=np.int64)
    # a seer observation has the card-knowledge length; its cards reorder as the knowledge
    return show_by_age(obs[None], mask, cfg, seats, hands_of_view(view))[0][0]


def move_to_game(view: PlayerView, move: int) -> int:
    """A move chosen on :func:`observe_by_age`'s observation of ``view``, as the game's move uid.

    Raises:
        ValueError: ``move`` is outside ``[0, n_actions)``.
    """
    cfg = view.raw.cfg
    n_actions = int(cfg[E.CFG_N_ACTIONS])
    if not 0 <= int(move) < n_actions:
        raise ValueError(f"move={move} is out of range; allowed: [0, {n_actions - 1}]")
    if int(cfg[E.CFG_HAND_ORDER]) != E.HAND_FIXED:
        return int(move)
    order = age_order(view.raw.uids[view.seat][None])
    return int(moves_to_game(np.array([move]), order, int(cfg[E.CFG_HAND]))[0])
