"""Player views and the canonical observation encoding, as compiled kernels.

A *view* holds everything one seat may see, as fixed-shape arrays: the
other players' cards, every player's hint knowledge, fireworks, discards, tokens, deck size
and the public move history. The viewer's own cards are structurally absent: ``cards`` holds
-1 in the viewer's row (unless a *seer* view is requested, which the ``seer`` observation type
of HLE needs). The observation vector is a pure function of the view
(:func:`encode_observation`), bit-identical to HLE's canonical encoder (docs/anchors.md §2.2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from hanabi_env.engine import (
    CFG_COLORS,
    CFG_HAND,
    CFG_MAX_INFO,
    CFG_MAX_LIFE,
    CFG_MAX_MOVES,
    CFG_N_CARDS,
    CFG_PLAYERS,
    CFG_RANKS,
    CFG_SIZE,
    DISCARD,
    H_ACTOR,
    H_CARD,
    H_COLOR,
    H_KIND,
    H_RANK,
    H_SCORED,
    H_SLOT,
    H_TARGET,
    H_TOKEN,
    H_TOUCHED,
    HIST_FIELDS,
    PLAY,
    REVEAL_COLOR,
    REVEAL_RANK,
    S_CUR,
    S_DECK_POS,
    S_DONE,
    S_FIREWORKS,
    S_INFO,
    S_LIFE,
    S_N_MOVES,
    VIEW_SCALARS,
    State,
    View,
    copies_of_rank,
    legal_moves,
    pub_offsets,
    score,
)
from hanabi_env.jit import njit

# --- view scalars (View.scal) ----------------------------------------------------------------
V_SEAT = 0
V_INFO = 1
V_LIFE = 2
V_DECK = 3  # cards left in the deck
V_CUR = 4
V_N_MOVES = 5
V_DONE = 6
V_SINCE = 7  # index in hist of the first move after the viewer's previous move (0 if none)
V_FIREWORKS = 8
V_SCORE = 9
V_SEER = 10
VSCAL_SIZE = VIEW_SCALARS

# --- observation types -----------------------------------------------------------------------
OBS_MINIMAL = 0
OBS_CARD_KNOWLEDGE = 1
OBS_SEER = 2
OBSERVATION_TYPES = {"minimal": OBS_MINIMAL, "card_knowledge": OBS_CARD_KNOWLEDGE, "seer": OBS_SEER}


ExpandedView = NamedTuple(  # type: ignore[misc]  # the fields of View (built), then packed
    "ExpandedView", [(name, np.ndarray) for name in View._fields] + [("packed", np.ndarray)]
)
ExpandedView.__doc__ = """The fields of a :class:`View` as views of a *packed view* ``packed``.

A packed view is one int32 array laid out by :func:`hanabi_env.engine.pub_offsets`: the
configuration, the view's scalars and cards (the *view area*), then the public arrays;
``State.packed`` is one. The compiled rule kernels take packed views (a call then passes one
array instead of the 13 of a :class:`View`) and expand them on entry (:func:`expand_view`);
here ``cfg``, ``scal`` and ``cards`` are int32.
"""


@intrinsic
def _sub_matrix(typingctx, buf, offset, rows, cols):
    """``buf[offset : offset + rows * cols].reshape(rows, cols)`` without checks or a meminfo.

    A C-contiguous alias of 1-D ``buf``; it must not outlive ``buf`` (it is only used inside
    :func:`expand_view`, whose result also holds ``buf``). Unlike ``reshape``, it cannot raise,
    so the compiler removes the arrays a kernel does not read.
    """
    if not (isinstance(buf, types.Array) and buf.ndim == 1):
        return None
    out_t = types.Array(buf.dtype, 2, "C")

    def codegen(context, builder, signature, args):
        src = context.make_array(buf)(context, builder, value=args[0])
        offset_v, rows_v, cols_v = args[1], args[2], args[3]
        out = context.make_array(out_t)(context, builder)
        intp = context.get_value_type(types.intp)
        item = src.itemsize
        rows_i = builder.sext(rows_v, intp) if rows_v.type != intp else rows_v
        cols_i = builder.sext(cols_v, intp) if cols_v.type != intp else cols_v
        off_i = builder.sext(offset_v, intp) if offset_v.type != intp else offset_v
        out.meminfo = cgutils.get_null_value(src.meminfo.type)
        out.parent = cgutils.get_null_value(src.parent.type)
        out.nitems = builder.mul(rows_i, cols_i)
        out.itemsize = item
        out.data = builder.gep(src.data, [off_i])
        out.shape = cgutils.pack_array(builder, [rows_i, cols_i])
        out.strides = cgutils.pack_array(builder, [builder.mul(cols_i, item), item])
        return out._getvalue()

    return out_t(buf, offset, rows, cols), codegen


@njit(inline="always")
def _sub_vector(buf, offset, n):
    """``buf[offset : offset + n]`` as a C-contiguous alias (see :func:`_sub_matrix`)."""
    return _sub_matrix(buf, offset, 1, n)[0]


@njit(inline="always", _nrt=False)
def expand_view(pv):
    """The :class:`ExpandedView` of the packed view ``pv`` (no copy: aliases of ``pv``).

    Inlined: a kernel that takes a packed view expands it on entry, and the compiler drops
    the arrays it does not read.
    """
    cfg = _sub_vector(pv, np.int64(0), np.int64(CFG_SIZE))
    n_players = cfg[CFG_PLAYERS]
    h = cfg[CFG_HAND]
    m = cfg[CFG_MAX_MOVES]
    o = pub_offsets(cfg)
    return ExpandedView(
        cfg,
        _sub_vector(pv, o[1], np.int64(VSCAL_SIZE)),
        _sub_vector(pv, o[3], cfg[CFG_COLORS]),
        _sub_vector(pv, o[4], cfg[CFG_COLORS] * cfg[CFG_RANKS]),
        _sub_matrix(pv, o[2], n_players, h),
        _sub_matrix(pv, o[5], n_players, h),
        _sub_vector(pv, o[6], n_players),
        _sub_matrix(pv, o[7], n_players, h),
        _sub_matrix(pv, o[8], n_players, h),
        _sub_matrix(pv, o[9], n_players, h),
        _sub_matrix(pv, o[10], n_players, h),
        _sub_matrix(pv, o[11], m, np.int64(HIST_FIELDS)),
        _sub_matrix(pv, o[12], m, h),
        pv,
    )


@njit
def pack_view(v):
    """The packed view (int32, see :class:`ExpandedView`) of the :class:`View` ``v`` (a copy)."""
    o = pub_offsets(v.cfg)
    pv = np.empty(o[13], dtype=np.int32)
    pv[o[0] : o[1]] = v.cfg
    pv[o[1] : o[2]] = v.scal
    pv[o[2] : o[3]] = v.cards.ravel()
    pv[o[3] : o[4]] = v.fireworks
    pv[o[4] : o[5]] = v.discards
    pv[o[5] : o[6]] = v.uids.ravel()
    pv[o[6] : o[7]] = v.hand_len
    pv[o[7] : o[8]] = v.col_plaus.ravel()
    pv[o[8] : o[9]] = v.rank_plaus.ravel()
    pv[o[9] : o[10]] = v.col_hint.ravel()
    pv[o[10] : o[11]] = v.rank_hint.ravel()
    pv[o[11] : o[12]] = v.hist.ravel()
    pv[o[12] : o[13]] = v.hist_uids.ravel()
    return pv


def new_view(s: State) -> View:
    """Allocate a view buffer shaped for the configuration of ``s``."""
    p, h = s.public.uids.shape
    return View(
        cfg=s.cfg.copy(),
        scal=np.zeros(VSCAL_SIZE, dtype=np.int64),
        fireworks=np.zeros_like(s.public.fireworks),
        discards=np.zeros_like(s.public.discards),
        cards=np.full((p, h), -1, dtype=np.int32),
        uids=np.full((p, h), -1, dtype=np.int32),
        hand_len=np.zeros_like(s.public.hand_len),
        col_plaus=np.zeros((p, h), dtype=np.int32),
        rank_plaus=np.zeros((p, h), dtype=np.int32),
        col_hint=np.full((p, h), -1, dtype=np.int32),
        rank_hint=np.full((p, h), -1, dtype=np.int32),
        hist=np.full_like(s.public.hist, -1),
        hist_uids=np.full_like(s.public.hist_uids, -1),
    )


@njit(inline="always")
def _fill_scalars_and_cards(s, seat, v, seer):
    """The per-seat part of a view: ``v.scal`` and ``v.cards`` (own row -1 unless ``seer``)."""
    n_players = s.cfg[CFG_PLAYERS]
    n_moves = s.scal[S_N_MOVES]
    v.scal[V_SEAT] = seat
    v.scal[V_INFO] = s.scal[S_INFO]
    v.scal[V_LIFE] = s.scal[S_LIFE]
    v.scal[V_DECK] = s.cfg[CFG_N_CARDS] - s.scal[S_DECK_POS]
    v.scal[V_CUR] = s.scal[S_CUR]
    v.scal[V_N_MOVES] = n_moves
    v.scal[V_DONE] = s.scal[S_DONE]
    v.scal[V_FIREWORKS] = s.scal[S_FIREWORKS]
    v.scal[V_SCORE] = score(s)
    v.scal[V_SEER] = 1 if seer else 0
    since = 0
    for m in range(n_moves - 1, -1, -1):
        if s.public.hist[m, H_ACTOR] == seat:
            since = m + 1
            break
    v.scal[V_SINCE] = since
    for p in range(n_players):
        for k in range(s.public.uids.shape[1]):
            uid = s.public.uids[p, k]
            if uid < 0 or (p == seat and not seer):
                v.cards[p, k] = -1
            else:
                v.cards[p, k] = s.deck[uid]


@njit(inline="always")
def _copy_rows(dst, src, n):
    """``dst[:n] = src[:n]`` for 2-D arrays, element by element (no temporary: no allocation)."""
    for i in range(n):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(inline="always")
def _copy_vector(dst, src):
    """``dst[:] = src`` for 1-D arrays, element by element (no temporary: no allocation)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(_nrt=False)
def fill_view(s, seat, v, seer):
    """Write into ``v`` what ``seat`` may see of state ``s`` (own cards only if ``seer``).

    ``v`` is a writable view buffer shaped for ``s`` (:func:`new_view`). Compiled without
    reference counting (``_nrt=False``): it allocates nothing, and copies element by element.

    Raises:
        ValueError: ``v`` is not shaped for ``s`` (nothing is written).
    """
    public = s.public
    if (
        v.uids.shape != public.uids.shape
        or v.cards.shape != public.uids.shape
        or v.hand_len.shape != public.hand_len.shape
        or v.fireworks.shape != public.fireworks.shape
        or v.discards.shape != public.discards.shape
        or v.hist.shape != public.hist.shape
        or v.hist_uids.shape != public.hist_uids.shape
        or v.cfg.shape != s.cfg.shape
        or v.scal.shape[0] != VSCAL_SIZE
    ):
        raise ValueError("fill_view: the view buffer is not shaped for this state (new_view)")
    n_moves = s.scal[S_N_MOVES]
    # rows >= prev_moves are already -1 (see the end)
    prev_moves = min(max(v.scal[V_N_MOVES], 0), v.hist.shape[0])
    _copy_vector(v.cfg, s.cfg)
    _fill_scalars_and_cards(s, seat, v, seer)
    _copy_vector(v.fireworks, public.fireworks)
    _copy_vector(v.discards, public.discards)
    _copy_vector(v.hand_len, public.hand_len)
    n_players = public.uids.shape[0]
    _copy_rows(v.uids, public.uids, n_players)
    _copy_rows(v.col_plaus, public.col_plaus, n_players)
    _copy_rows(v.rank_plaus, public.rank_plaus, n_players)
    _copy_rows(v.col_hint, public.col_hint, n_players)
    _copy_rows(v.rank_hint, public.rank_hint, n_players)
    _copy_rows(v.hist, public.hist, n_moves)
    _copy_rows(v.hist_uids, public.hist_uids, n_moves)
    # keep the invariant "rows >= n_moves are -1" by clearing only what the last fill wrote
    for m in range(n_moves, prev_moves):
        v.hist[m, :] = -1
        v.hist_uids[m, :] = -1


@njit(inline="always")
def live_view(s):
    """The packed view (see :class:`ExpandedView`) of state ``s``: ``s.packed``, no copy.

    Its public arrays *are* those of ``s`` (the engine keeps history rows ``>= n_moves`` at
    -1, like a view); its scalars and cards live in the view area of ``s.packed``. The view
    therefore follows ``s`` as it advances, but is only a valid view of one seat after
    :func:`refresh_live_view`. The hidden information stays structurally absent: the deck is
    not part of ``s.packed``, and the view's cards hold -1 in the viewer's row. For compiled
    loops that decide from views of a state they own (the rule-game evaluator); a reader must
    never write to it.
    """
    return s.packed


@njit(inline="always")
def refresh_live_view(s, seat):
    """Make the :func:`live_view` of ``s`` the view of ``seat`` (as :func:`fill_view`)."""
    _fill_scalars_and_cards(s, seat, s.public, False)


@njit(inline="always")
def view_card(v, p, k):
    """The card id in ``p``'s slot ``k`` of the view ``v`` (-1: empty, or the viewer's own card).

    The card reader of the legality kernel (:func:`hanabi_env.engine.legal_moves`) for views.
    """
    return v.cards[p, k]


@njit(_nrt=False)
def view_legal_mask(pv, out):
    """Fill ``out`` with the viewer's legal moves, from the packed view ``pv`` alone.

    The engine's legality kernel (:func:`hanabi_env.engine.legal_moves`) on the view: for the
    viewer (``V_SEAT``) as if it were to move; all zeros once the game is over. The viewer's
    own cards are never read. Callable from Python and from compiled code (it allocates
    nothing).

    Args:
        pv: an int32 packed view (:func:`pack_view`, :func:`live_view`).
        out: ``(n_actions,)`` integer array, overwritten with 0/1 in move-uid order.

    Returns:
        The number of legal moves.
    """
    v = expand_view(pv)
    return legal_moves(
        v, view_card, v.cfg, v.scal[V_SEAT], v.scal[V_INFO], v.scal[V_DONE], v.hand_len, out
    )


def observation_size(cfg: np.ndarray, obs_type: int) -> int:
    """Length of the canonical observation vector for a configuration (docs/anchors.md §2.2)."""
    p, c, r, h = (int(cfg[i]) for i in (CFG_PLAYERS, CFG_COLORS, CFG_RANKS, CFG_HAND))
    n_cards = int(cfg[CFG_N_CARDS])
    hands = (p - 1) * h * c * r + p
    board = (n_cards - p * h) + c * r + int(cfg[CFG_MAX_INFO]) + int(cfg[CFG_MAX_LIFE])
    discards = n_cards
    last = p + 4 + p + c + r + h + h + c * r + 2
    knowledge = 0 if obs_type == OBS_MINIMAL else p * h * (c * r + c + r)
    return hands + board + discards + last + knowledge


def _plausible_table(n: int) -> np.ndarray:
    """``(2**(2n), n*n)`` int8: row ``(cm << n) | rm`` holds bit ``c*n + r`` = cm_c and rm_r."""
    masks = np.arange(1 << n)
    bits = (masks[:, None] >> np.arange(n)[None, :]) & 1  # (2**n, n)
    table = bits[:, None, :, None] & bits[None, :, None, :]  # (cm, rm, c, r)
    return table.reshape(1 << (2 * n), n * n).astype(np.int8)


_PLAUSIBLE_5X5 = _plausible_table(5)
"""The card-knowledge bits of every (colour mask, rank mask) pair of the standard deck: a row
copy instead of 25 data-dependent branches per card (the encoder's costliest section)."""


# Above the complexity cap: HLE's canonical encoder, section by section in one kernel, so that
# the layout is written in one place (docs/anchors.md §2.2) and encodes without calls.
@njit(_nrt=False)
def encode_observation(v, obs_type, out):  # noqa: C901
    """Write HLE's canonical encoding of view ``v`` to ``out`` (zeroed here); return its length.

    ``obs_type``: ``OBS_MINIMAL`` (no card-knowledge section), ``OBS_CARD_KNOWLEDGE`` or
    ``OBS_SEER`` (every card's knowledge shows the true card, as if fully revealed; needs a
    seer view). Sections and their index ranges are documented in :mod:`hanabi_env.env`.
    """
    out[:] = 0
    n_players = v.cfg[CFG_PLAYERS]
    n_colors = v.cfg[CFG_COLORS]
    n_ranks = v.cfg[CFG_RANKS]
    h = v.cfg[CFG_HAND]
    n_cards = v.cfg[CFG_N_CARDS]
    bits = n_colors * n_ranks
    seat = v.scal[V_SEAT]
    off = 0
    # 1. hands of the other players, nearest next player first
    for rel in range(1, n_players):
        p = (seat + rel) % n_players
        for k in range(v.hand_len[p]):
            out[off + k * bits + v.cards[p, k]] = 1
        off += h * bits
    for rel in range(n_players):
        p = (seat + rel) % n_players
        if v.hand_len[p] < h:
            out[off + rel] = 1
    off += n_players
    # 2. board: deck thermometer, fireworks one-hot, info and life thermometers
    for i in range(v.scal[V_DECK]):
        out[off + i] = 1
    off += n_cards - n_players * h
    for c in range(n_colors):
        if v.fireworks[c] > 0:
            out[off + v.fireworks[c] - 1] = 1
        off += n_ranks
    for i in range(v.scal[V_INFO]):
        out[off + i] = 1
    off += v.cfg[CFG_MAX_INFO]
    for i in range(v.scal[V_LIFE]):
        out[off + i] = 1
    off += v.cfg[CFG_MAX_LIFE]
    # 3. discards: per card a thermometer as wide as its copy count, colour-major
    for c in range(n_colors):
        for r in range(n_ranks):
            for i in range(v.discards[c * n_ranks + r]):
                out[off + i] = 1
            off += copies_of_rank(n_ranks, r)
    # 4. last action (the most recent move; deals are not moves here)
    n_moves = v.scal[V_N_MOVES]
    if n_moves > 0:
        rec = v.hist[n_moves - 1]
        kind = rec[H_KIND]
        out[off + (rec[H_ACTOR] - seat) % n_players] = 1
        off += n_players
        out[off + kind] = 1
        off += 4
        if kind == REVEAL_COLOR or kind == REVEAL_RANK:
            out[off + (rec[H_TARGET] - seat) % n_players] = 1
        off += n_players
        if kind == REVEAL_COLOR:
            out[off + rec[H_COLOR]] = 1
        off += n_colors
        if kind == REVEAL_RANK:
            out[off + rec[H_RANK]] = 1
        off += n_ranks
        if kind == REVEAL_COLOR or kind == REVEAL_RANK:
            for k in range(h):
                if (rec[H_TOUCHED] >> k) & 1:
                    out[off + k] = 1
        off += h
        if kind == PLAY or kind == DISCARD:
            out[off + rec[H_SLOT]] = 1
        off += h
        if kind == PLAY or kind == DISCARD:
            out[off + rec[H_CARD]] = 1
        off += bits
        if kind == PLAY:
            if rec[H_SCORED]:
                out[off] = 1
            if rec[H_TOKEN]:
                out[off + 1] = 1
        off += 2
    else:
        off += n_players + 4 + n_players + n_colors + n_ranks + 2 * h + bits + 2
    if obs_type == OBS_MINIMAL:
        return off
    # 5. card knowledge, observer first
    per_card = bits + n_colors + n_ranks
    for rel in range(n_players):
        p = (seat + rel) % n_players
        for k in range(v.hand_len[p]):
            if obs_type == OBS_SEER:
                card = v.cards[p, k]
                out[off + card] = 1
                out[off + bits + card // n_ranks] = 1
                out[off + bits + n_colors + card % n_ranks] = 1
            else:
                cm = v.col_plaus[p, k]
                rm = v.rank_plaus[p, k]
                if n_colors == 5 and n_ranks == 5:  # the standard deck: one table row
                    row = _PLAUSIBLE_5X5[(cm << 5) | rm]
                    for j in range(25):
                        out[off + j] = row[j]
                else:
                    for c in range(n_colors):  # branch-free: the bits are hard to predict
                        on = (cm >> c) & 1
                        base = off + c * n_ranks
                        for r in range(n_ranks):
                            out[base + r] = on & (rm >> r)
                if v.col_hint[p, k] >= 0:
                    out[off + bits + v.col_hint[p, k]] = 1
                if v.rank_hint[p, k] >= 0:
                    out[off + bits + n_colors + v.rank_hint[p, k]] = 1
            off += per_card
        off += (h - v.hand_len[p]) * per_card
    return off


@njit(_nrt=False)
def observe_into(s, seat, v, obs_type, out):
    """Fill the view buffer ``v`` for ``seat`` and encode it into ``out``; return the length."""
    fill_view(s, seat, v, obs_type == OBS_SEER)
    return encode_observation(v, obs_type, out)


__all__ = [
    "OBSERVATION_TYPES",
    "ExpandedView",
    "View",
    "encode_observation",
    "expand_view",
    "fill_view",
    "live_view",
    "new_view",
    "observation_size",
    "observe_into",
    "pack_view",
    "refresh_live_view",
    "view_card",
    "view_legal_mask",
]
