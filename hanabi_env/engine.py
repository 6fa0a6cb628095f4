"""The Hanabi engine: game state as fixed-shape arrays and compiled kernels that advance it.

No agent, Gymnasium or PettingZoo code lives here. The rules are those of
DeepMind's Hanabi Learning Environment (HLE) as listed in docs/anchors.md §2.1:

* cards are ``colour * n_ranks + rank`` (0-based; -1 for "no card"); copies per rank are 3 for
  the lowest rank, 1 for the highest and 2 otherwise;
* the initial deal gives player 0 its full hand, then player 1, and so on; a drawn card is
  appended at the end of the hand and later slots shift left when a card leaves (slot 0 is the
  oldest card). The optional *fixed-slot* hand order (``CFG_HAND_ORDER = HAND_FIXED``, the
  papers' Java framework, docs/rules.md §12) deals the new card into the vacated slot instead, so
  slot order is no longer age order; once the deck is empty, later slots shift left as usual
  (Java left the slot empty; the relative order of the remaining cards is the same). A card's
  age is always its uid (deck position): a larger uid is a newer card;
* discarding is illegal with all information tokens; a hint needs a token, targets another
  player and must touch at least one card; playing is always legal;
* completing a firework returns a token if below the maximum;
* the game ends when the life tokens reach 0, when every firework is complete, or when the deck
  is empty and every player (including the one who drew the last card) has moved once more;
* score = sum of the fireworks; with ``strict`` scoring it is 0 once the lives run out
  (HLE/PettingZoo), with ``lenient`` scoring the fireworks total is kept (the papers' Java
  framework, docs/papers.md §1).

Moves are HLE move uids (docs/anchors.md §2.3): ``[0, h)`` discard slot, ``[h, 2h)`` play slot, then
colour reveals ordered by target offset then colour, then rank reveals ordered by target offset
then rank.

A :class:`State` is a namedtuple of NumPy arrays (its public ones gathered in a :class:`View`)
so that numba kernels can take it as one argument and the evaluator can run whole games
without returning to Python. The kernels that take a state and that Python calls to play
(:func:`step_checked`, :func:`apply_move`, :func:`legal_mask`, :func:`reset_state`, the
observation kernels of :mod:`hanabi_env.view`, ...) are compiled without numba's reference
counting (``_nrt=False``, as the rule kernels are, see :data:`hanabi_env.jit.kernel`): they
allocate nothing, and with it every read of one of the state's arrays updated reference
counts, which cost more than the moves themselves (the compiled random-game loop ran 5.5×
slower; ``benchmarks/bench_env.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from hanabi_env.jit import njit
from hanabi_env.rng import rng_below, rng_seed

if TYPE_CHECKING:  # hanabi_env.config builds on this module
    from hanabi_env.config import HanabiConfig

# --- configuration vector (State.cfg) -------------------------------------------------------
CFG_PLAYERS = 0
CFG_COLORS = 1
CFG_RANKS = 2
CFG_HAND = 3
CFG_MAX_INFO = 4
CFG_MAX_LIFE = 5
CFG_LENIENT = 6
CFG_N_CARDS = 7
CFG_MAX_MOVES = 8
CFG_N_ACTIONS = 9
CFG_HAND_ORDER = 10  # HAND_SHIFT (HLE) or HAND_FIXED (the Java framework)
CFG_SIZE = 11

HAND_SHIFT = 0
HAND_FIXED = 1

# --- scalar vector (State.scal) -------------------------------------------------------------
S_INFO = 0
S_LIFE = 1
S_DECK_POS = 2  # index in ``deck`` of the next card to draw
S_CUR = 3  # seat to move
S_TURNS_LEFT = 4  # HLE's turns_to_play: decremented on each move made with an empty deck
S_N_MOVES = 5
S_DONE = 6
S_START = 7
S_FIREWORKS = 8  # sum of the fireworks (the lenient score)
SCAL_SIZE = 9

# --- move kinds (HLE's order in the last-action encoding) ----------------------------------
PLAY = 0
DISCARD = 1
REVEAL_COLOR = 2
REVEAL_RANK = 3

# --- history record fields (State.public.hist columns) --------------------------------------
H_ACTOR = 0
H_KIND = 1
H_TARGET = 2  # absolute seat of a reveal's target, -1 otherwise
H_COLOR = 3  # colour revealed, or the colour of the card played/discarded
H_RANK = 4  # rank revealed, or the rank of the card played/discarded
H_SLOT = 5  # slot played/discarded, -1 for reveals
H_CARD = 6  # card played/discarded, -1 for reveals
H_UID = 7  # stable identity (deck position) of the card played/discarded
H_SCORED = 8  # play added to a firework
H_TOKEN = 9  # the move returned an information token
H_TOUCHED = 10  # bitmask of the target's slots a reveal touched
H_INFO_BEFORE = 11
H_LIFE_BEFORE = 12
H_DECK_BEFORE = 13
H_KNOWN_ATTRS = 14  # for plays/discards: colour known + rank known by its owner (0..2)
H_ACTION = 15  # the move uid
HIST_FIELDS = 16

# --- per-seat behaviour counters (State.counters columns), docs/rules.md §5 ----------------------
C_HINT_OPPORTUNITIES = 0
C_HINTS_GIVEN = 1
C_PLAYS = 2
C_SUM_KNOWN_ATTRS = 3
C_SUM_P_PLAYABLE = 4
C_DISCARDS = 5
C_SUM_DISCARD_POS = 6
C_TURNS = 7
N_COUNTERS = 8
COUNTER_NAMES = (
    "hint_opportunities",
    "hints_given",
    "plays",
    "sum_known_attrs",
    "sum_p_playable",
    "discards",
    "sum_discard_pos",
    "turns",
)


VIEW_SCALARS = 11
"""Length of a view's scalar vector (``View.scal``, fields ``V_*`` of ``hanabi_env.view``)."""


class View(NamedTuple):
    """What one seat may see, as fixed-shape arrays (absolute seat indices).

    The engine declares it because a :class:`State` keeps its public arrays as one
    (``State.public``, whose ``cfg``, ``scal`` and ``cards`` are int32 and hold a seat's view
    only after :func:`hanabi_env.view.refresh_live_view`); :mod:`hanabi_env.view` fills
    (:func:`~hanabi_env.view.new_view` buffers) and encodes views.

    Attributes:
        cfg: ``(CFG_SIZE,)`` int64, the game configuration.
        scal: ``(VIEW_SCALARS,)`` int64, viewer seat, tokens, deck size, ... (``V_*`` of
            :mod:`hanabi_env.view`).
        fireworks: ``(n_colors,)`` int32 firework heights (0 = empty).
        discards: ``(n_colors * n_ranks,)`` int32 discard-pile counts per card.
        cards: ``(n_players, hand_size)`` int32 card ids; -1 for empty slots and for every slot
            of the viewer (unless it is a seer view).
        uids: ``(n_players, hand_size)`` int32 stable card identities (deck positions) in slot
            order, -1 for empty slots.
        hand_len: ``(n_players,)`` int32.
        col_plaus, rank_plaus: ``(n_players, hand_size)`` int32 bitmasks of plausible colours and
            ranks from hints (every player's knowledge is public).
        col_hint, rank_hint: ``(n_players, hand_size)`` int32 explicitly revealed colour / rank,
            -1 for none.
        hist: ``(max_moves, HIST_FIELDS)`` int32 public move records (see ``H_*``); rows
            ``>= n_moves`` are -1.
        hist_uids: ``(max_moves, hand_size)`` int32 uids of the cards each reveal touched.
    """

    cfg: np.ndarray
    scal: np.ndarray
    fireworks: np.ndarray
    discards: np.ndarray
    cards: np.ndarray
    uids: np.ndarray
    hand_len: np.ndarray
    col_plaus: np.ndarray
    rank_plaus: np.ndarray
    col_hint: np.ndarray
    rank_hint: np.ndarray
    hist: np.ndarray
    hist_uids: np.ndarray


class State(NamedTuple):
    """The full game state (every card, including hidden ones) as fixed-shape arrays.

    Attributes:
        cfg: ``(CFG_SIZE,)`` int64, the configuration (see ``CFG_*``).
        scal: ``(SCAL_SIZE,)`` int64, tokens, deck position, current seat, ... (see ``S_*``).
        deck: ``(n_cards,)`` int32, the shuffled deck; a card's index here is its stable uid.
        counters: ``(n_players, N_COUNTERS)`` float64 behaviour counters (docs/rules.md §5).
        rng: ``(4,)`` int64, the deal generator (see :mod:`hanabi_env.rng`).
        public: a :class:`View` of every public array of the game, each a view of ``packed``:
            ``fireworks``, ``discards``, the hands as card ``uids`` (-1 for empty slots),
            ``hand_len``, the hint knowledge ``col_plaus`` to ``rank_hint``, and ``hist`` /
            ``hist_uids`` (one record per move, see ``H_*``; rows ``>= n_moves`` are -1, as
            in a view). Its ``cfg``, ``scal`` and ``cards`` (int32, the *view area*) hold the
            *live view* of one seat once :func:`hanabi_env.view.refresh_live_view` has
            written them; the engine never does (zeros after :func:`new_state`, stale after
            later moves).
        packed: ``(pub_offsets(cfg)[-1],)`` int32, the buffer of ``public`` in the order of
            :func:`pub_offsets`: a *packed view*, so that the compiled rules can take a whole
            view of this state as one array. The hidden ``deck`` is not in it.
    """

    cfg: np.ndarray
    scal: np.ndarray
    deck: np.ndarray
    counters: np.ndarray
    rng: np.ndarray
    public: View
    packed: np.ndarray

    def __deepcopy__(self, memo: dict) -> State:
        """:func:`copy_state`: the copy's ``public`` views the copy's ``packed``."""
        return copy_state(self)

    def __reduce__(self) -> tuple:
        """Pickle the arrays without ``public``; unpickling rebuilds it over ``packed``."""
        return (state_over, (self.cfg, self.scal, self.deck, self.counters, self.rng, self.packed))


@njit(inline="always")
def pub_offsets(cfg):
    """Where each part of a packed view (``State.packed``) starts, then its total size (14 ints).

    In order: the view area (cfg copy at 0, view scalars, view cards), then the public arrays
    in :class:`View` order (``fireworks``, ``discards``, ``uids``, ``hand_len`` ... ``hist_uids``).
    """
    n_colors = cfg[CFG_COLORS]
    n_players = cfg[CFG_PLAYERS]
    ph = n_players * cfg[CFG_HAND]
    o_cfg = 0
    o_scal = o_cfg + CFG_SIZE
    o_cards = o_scal + VIEW_SCALARS
    o_fireworks = o_cards + ph
    o_discards = o_fireworks + n_colors
    o_hands = o_discards + n_colors * cfg[CFG_RANKS]
    o_hand_len = o_hands + ph
    o_col_plaus = o_hand_len + n_players
    o_rank_plaus = o_col_plaus + ph
    o_col_hint = o_rank_plaus + ph
    o_rank_hint = o_col_hint + ph
    o_hist = o_rank_hint + ph
    o_hist_uids = o_hist + cfg[CFG_MAX_MOVES] * HIST_FIELDS
    total = o_hist_uids + cfg[CFG_MAX_MOVES] * cfg[CFG_HAND]
    return (
        o_cfg,
        o_scal,
        o_cards,
        o_fireworks,
        o_discards,
        o_hands,
        o_hand_len,
        o_col_plaus,
        o_rank_plaus,
        o_col_hint,
        o_rank_hint,
        o_hist,
        o_hist_uids,
        total,
    )


def public_views(cfg: np.ndarray, packed: np.ndarray) -> View:
    """The :class:`View` whose arrays are views of the packed view ``packed`` (int32).

    ``packed`` has the size :func:`pub_offsets` gives for ``cfg``. The compiled twin, for
    packed views inside kernels, is :func:`hanabi_env.view.expand_view`.
    """
    p, h, m = int(cfg[CFG_PLAYERS]), int(cfg[CFG_HAND]), int(cfg[CFG_MAX_MOVES])
    o = pub_offsets(cfg)
    in_order = ("cfg", "scal", "cards", "fireworks", "discards", "uids", *View._fields[6:])
    parts = {name: packed[o[i] : o[i + 1]] for i, name in enumerate(in_order)}
    for name in ("cards", "uids", "col_plaus", "rank_plaus", "col_hint", "rank_hint"):
        parts[name] = parts[name].reshape(p, h)
    parts["hist"] = parts["hist"].reshape(m, HIST_FIELDS)
    parts["hist_uids"] = parts["hist_uids"].reshape(m, h)
    return View(**parts)


def n_cards_of(colors: int, ranks: int) -> int:
    """Number of cards in the deck: per colour 3 of the lowest rank, 1 of the highest, 2 else."""
    return colors * (3 + 2 * (ranks - 2) + 1)


def n_actions_of(players: int, colors: int, ranks: int, hand_size: int) -> int:
    """Size of the action space, ``2h + (p - 1)(c + r)`` (docs/anchors.md §2.3)."""
    return 2 * hand_size + (players - 1) * (colors + ranks)


def max_moves_of(players: int, colors: int, ranks: int, max_information_tokens: int) -> int:
    """An upper bound on the moves of one game (plays/discards <= cards; hints <= tokens)."""
    n = n_cards_of(colors, ranks)
    return 2 * n + max_information_tokens + players + 1


def new_state(config: HanabiConfig) -> State:
    """Allocate an (un-dealt) state for ``config``; call :func:`reset_state` before use.

    The engine reads the game's sizes and tokens, ``config.lenient`` (the scoring variant)
    and ``config.fixed_slots`` (the Java framework's hand order, see the module docstring);
    the observation type and start player belong to the caller. ``HanabiConfig`` has
    validated every field.
    """
    players, colors, ranks = config.players, config.colors, config.ranks
    hand_size, max_information_tokens = config.hand_size, config.max_information_tokens
    n_cards = n_cards_of(colors, ranks)
    max_moves = max_moves_of(players, colors, ranks, max_information_tokens)
    cfg = np.array(
        [
            players,
            colors,
            ranks,
            hand_size,
            max_information_tokens,
            config.max_life_tokens,
            int(config.lenient),
            n_cards,
            max_moves,
            n_actions_of(players, colors, ranks, hand_size),
            HAND_FIXED if config.fixed_slots else HAND_SHIFT,
        ],
        dtype=np.int64,
    )
    s = state_over(
        cfg=cfg,
        scal=np.zeros(SCAL_SIZE, dtype=np.int64),
        deck=np.zeros(n_cards, dtype=np.int32),
        counters=np.zeros((players, N_COUNTERS), dtype=np.float64),
        rng=np.zeros(4, dtype=np.int64),
        packed=np.zeros(int(pub_offsets(cfg)[-1]), dtype=np.int32),
    )
    public = s.public
    public.cfg[:] = cfg
    for empty in (public.uids, public.col_hint, public.rank_hint, public.hist, public.hist_uids):
        empty[...] = -1
    return s


def copy_state(s: State) -> State:
    """Deep copy of a state (every array copied; ``public`` views the new ``packed``).

    ``copy.deepcopy`` and pickling of a :class:`State` give the same kind of copy.
    """
    own = (s.cfg, s.scal, s.deck, s.counters, s.rng, s.packed)
    return state_over(*(a.copy() for a in own))


def state_over(
    cfg: np.ndarray,
    scal: np.ndarray,
    deck: np.ndarray,
    counters: np.ndarray,
    rng: np.ndarray,
    packed: np.ndarray,
) -> State:
    """The :class:`State` of these arrays, its ``public`` built as views of ``packed``."""
    return State(cfg, scal, deck, counters, rng, public_views(cfg, packed), packed)


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


@njit(inline="always")
def copies_of_rank(n_ranks, rank):
    """Copies of each card of ``rank`` (0-based) in a deck with ``n_ranks`` ranks."""
    if rank == 0:
        return 3
    if rank == n_ranks - 1:
        return 1
    return 2


@njit(inline="always")
def fill_ordered_deck(s):
    """Write the unshuffled deck (colour-major, rank ascending, copies together) to ``s.deck``."""
    n_colors = s.cfg[CFG_COLORS]
    n_ranks = s.cfg[CFG_RANKS]
    k = 0
    for c in range(n_colors):
        for r in range(n_ranks):
            for _ in range(copies_of_rank(n_ranks, r)):
                s.deck[k] = c * n_ranks + r
                k += 1


@njit(inline="always", _nrt=False)
def card_of(s, p, slot):
    """Card id (``colour * n_ranks + rank``) in ``slot`` of player ``p``, -1 if empty."""
    uid = s.public.uids[p, slot]
    if uid < 0:
        return -1
    return s.deck[uid]


@njit(inline="always")
def popcount(x):
    """Number of set bits of a small non-negative int."""
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n


@njit(inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of ``x`` (> 0)."""
    i = 0
    while not (x >> i) & 1:
        i += 1
    return i


@njit(inline="always")
def fireworks_total(s):
    """Sum of the fireworks (the lenient score)."""
    return s.scal[S_FIREWORKS]


@njit(inline="always", _nrt=False)
def score(s):
    """Game score under the state's scoring variant (strict: 0 once the lives are gone)."""
    if s.cfg[CFG_LENIENT] == 0 and s.scal[S_LIFE] <= 0:
        return 0
    return s.scal[S_FIREWORKS]


# --------------------------------------------------------------------------------------------
# Reset and dealing
# --------------------------------------------------------------------------------------------


@njit(inline="always")
def _draw(s, p):
    """Give player ``p`` the next card of the deck (if any), appended at the end of the hand."""
    if s.scal[S_DECK_POS] >= s.cfg[CFG_N_CARDS]:
        return
    k = s.public.hand_len[p]
    _draw_into(s, p, k)
    s.public.hand_len[p] = k + 1


@njit(inline="always")
def _draw_into(s, p, k):
    """Deal the next card of the deck into ``p``'s slot ``k`` with no knowledge yet.

    Used for the vacated slot under the fixed-slot order, and by :func:`_draw`.
    """
    s.public.uids[p, k] = s.scal[S_DECK_POS]
    s.public.col_plaus[p, k] = (1 << s.cfg[CFG_COLORS]) - 1
    s.public.rank_plaus[p, k] = (1 << s.cfg[CFG_RANKS]) - 1
    s.public.col_hint[p, k] = -1
    s.public.rank_hint[p, k] = -1
    s.scal[S_DECK_POS] += 1


@njit(_nrt=False)
def reset_with_deck(s, deck, start_player):
    """Start a new game with ``deck`` (card ids in draw order) and ``start_player`` to move."""
    for i in range(s.deck.shape[0]):
        s.deck[i] = deck[i]
    _deal_new_game(s, start_player)


@njit(inline="always")
def _deal_new_game(s, start_player):
    """Reset everything but ``s.deck`` and deal from it."""
    n_players = s.cfg[CFG_PLAYERS]
    # keep "history rows >= S_N_MOVES are -1" (as in a view) by clearing the rows of the last game
    used = min(s.scal[S_N_MOVES], s.public.hist.shape[0])
    if used > 0:
        s.public.hist[:used, :] = -1
        s.public.hist_uids[:used, :] = -1
    s.scal[:] = 0
    s.scal[S_INFO] = s.cfg[CFG_MAX_INFO]
    s.scal[S_LIFE] = s.cfg[CFG_MAX_LIFE]
    s.scal[S_CUR] = start_player
    s.scal[S_START] = start_player
    s.scal[S_TURNS_LEFT] = n_players
    s.public.fireworks[:] = 0
    s.public.discards[:] = 0
    s.public.uids[:, :] = -1
    s.public.hand_len[:] = 0
    s.public.col_plaus[:, :] = 0
    s.public.rank_plaus[:, :] = 0
    s.public.col_hint[:, :] = -1
    s.public.rank_hint[:, :] = -1
    s.counters[:, :] = 0.0
    for p in range(n_players):
        for _ in range(s.cfg[CFG_HAND]):
            _draw(s, p)


@njit(_nrt=False)
def reset_state(s, seed, random_start_player):
    """Start a new game: shuffle the deck with ``seed`` (Fisher-Yates) and deal.

    The start player is 0, or uniform from the same generator (after the shuffle) when
    ``random_start_player`` is true. The same seed always gives the same deal.
    """
    rng_seed(s.rng, seed)
    fill_ordered_deck(s)
    deck = s.deck
    for i in range(deck.shape[0] - 1, 0, -1):
        j = rng_below(s.rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp
    start = 0
    if random_start_player:
        start = rng_below(s.rng, s.cfg[CFG_PLAYERS])
    _deal_new_game(s, start)


# --------------------------------------------------------------------------------------------
# Legal moves
# --------------------------------------------------------------------------------------------


# One legality kernel for the state (the seat to move) and for a player's view (the viewer):
# the rules of docs/anchors.md §2.3, written once over a card reader ``card_at(x, p, k)``
# (:func:`card_of` for a state, ``hanabi_env.view.view_card`` for a view). Only the cards of the
# other hands are read, so a view, which lacks the viewer's own cards, decides exactly as the
# state does.


@njit(inline="always")
def hand_masks(x, card_at, n_ranks, hand_len, p):
    """Bitmasks of the colours and of the ranks of the cards in ``p``'s hand.

    Args:
        x: a :class:`State` or a view, read through ``card_at``.
        card_at: ``card_at(x, p, k)``, the card id in ``p``'s slot ``k`` (read for the
            ``hand_len[p]`` held cards only: ``p`` must not be a view's own seat).
        n_ranks: ranks per colour.
        hand_len: ``(n_players,)`` cards held per player.
        p: the seat.

    Returns:
        ``(colours, ranks)``: int bitmasks (bit ``c`` / ``r`` set when a card has it).
    """
    cm = 0
    rm = 0
    for k in range(hand_len[p]):  # held cards only: a view knows every other player's
        card = card_at(x, p, k)
        cm |= 1 << (card // n_ranks)
        rm |= 1 << (card % n_ranks)
    return cm, rm


@njit(inline="always")
def legal_moves(x, card_at, cfg, seat, info, done, hand_len, out):
    """Fill ``out`` with the legal moves of ``seat`` (the legality kernel).

    Every play; every discard while ``info`` is below the maximum; while ``info > 0``, every
    reveal to another seat that touches at least one of its cards. Nothing once ``done``.

    Args:
        x: a :class:`State` or a view, read through ``card_at``.
        card_at: ``card_at(x, p, k)``, the card id in ``p``'s slot ``k`` (see :func:`hand_masks`).
        cfg: the configuration vector (``CFG_*``).
        seat: the seat that moves (absolute).
        info: information tokens available.
        done: nonzero once the game is over.
        hand_len: ``(n_players,)`` cards held per player.
        out: ``(n_actions,)`` int array, overwritten with 0/1 in move-uid order.

    Returns:
        The number of legal moves.
    """
    for a in range(out.shape[0]):
        out[a] = 0
    if done:
        return 0
    n_players = cfg[CFG_PLAYERS]
    n_colors = cfg[CFG_COLORS]
    n_ranks = cfg[CFG_RANKS]
    h = cfg[CFG_HAND]
    n = 0
    for k in range(hand_len[seat]):
        if info < cfg[CFG_MAX_INFO]:
            out[k] = 1
            n += 1
        out[h + k] = 1
        n += 1
    if info <= 0:
        return n
    rank_base = 2 * h + (n_players - 1) * n_colors
    for off in range(1, n_players):
        cm, rm = hand_masks(x, card_at, n_ranks, hand_len, (seat + off) % n_players)
        n += _mark_bits(out, 2 * h + (off - 1) * n_colors, cm, n_colors)
        n += _mark_bits(out, rank_base + (off - 1) * n_ranks, rm, n_ranks)
    return n


@njit(inline="always")
def _mark_bits(out, base, bits, width):
    """Set ``out[base + i]`` to 1 for every set bit ``i < width`` of ``bits``; return how many."""
    n = 0
    for i in range(width):
        if (bits >> i) & 1:
            out[base + i] = 1
            n += 1
    return n


@njit(inline="always")
def legal_move(x, card_at, cfg, seat, info, done, hand_len, action):
    """Whether move uid ``action`` (an int) is legal for ``seat``: one entry of :func:`legal_moves`.

    Arguments as :func:`legal_moves`; an ``action`` outside ``[0, n_actions)`` is illegal.
    """
    if done or action < 0 or action >= cfg[CFG_N_ACTIONS]:
        return False
    kind, slot, target, color, rank = decode_action(cfg, seat, action)
    if kind == PLAY:
        return slot < hand_len[seat]
    if kind == DISCARD:
        return slot < hand_len[seat] and info < cfg[CFG_MAX_INFO]
    if info <= 0:
        return False
    cm, rm = hand_masks(x, card_at, cfg[CFG_RANKS], hand_len, target)
    if kind == REVEAL_COLOR:
        return (cm >> color) & 1 == 1
    return (rm >> rank) & 1 == 1


@njit(inline="always", _nrt=False)
def legal_mask(s, out):
    """Fill ``out`` (int8, ``(n_actions,)``) with 1 for every legal move of the seat to move.

    All zeros once the game is over. Returns the number of legal moves (:func:`legal_moves`).
    """
    return legal_moves(
        s, card_of, s.cfg, s.scal[S_CUR], s.scal[S_INFO], s.scal[S_DONE], s.public.hand_len, out
    )


@njit(inline="always", _nrt=False)
def is_legal(s, action):
    """Whether ``action`` (an int) is legal for the seat to move (:func:`legal_move`)."""
    return legal_move(
        s, card_of, s.cfg, s.scal[S_CUR], s.scal[S_INFO], s.scal[S_DONE], s.public.hand_len, action
    )


@njit(inline="always")
def nth_legal(mask, x):
    """The ``x``-th (0-based) move set in ``mask``, in ascending uid order; -1 if fewer are set.

    With ``x`` drawn uniformly below the number of legal moves, one uniformly random legal
    move (the draw of :func:`random_legal_action` and of the rules' fallback).
    """
    for a in range(mask.shape[0]):
        if mask[a]:
            if x == 0:
                return a
            x -= 1
    return -1


@njit(inline="always")
def decode_action(cfg, cur, action):
    """Decode a move uid for the seat ``cur`` into ``(kind, slot, target, colour, rank)``.

    ``slot`` is -1 for reveals; ``target`` (absolute seat), ``colour`` and ``rank`` are -1
    where they do not apply.
    """
    n_players = cfg[CFG_PLAYERS]
    n_colors = cfg[CFG_COLORS]
    n_ranks = cfg[CFG_RANKS]
    h = cfg[CFG_HAND]
    if action < h:
        return DISCARD, action, -1, -1, -1
    if action < 2 * h:
        return PLAY, action - h, -1, -1, -1
    a = action - 2 * h
    if a < (n_players - 1) * n_colors:
        return REVEAL_COLOR, -1, (cur + 1 + a // n_colors) % n_players, a % n_colors, -1
    a -= (n_players - 1) * n_colors
    return REVEAL_RANK, -1, (cur + 1 + a // n_ranks) % n_players, -1, a % n_ranks


@njit(inline="always")
def encode_action(cfg, cur, kind, slot, target, value):
    """Move uid of a move of seat ``cur``; ``value`` is the colour or rank of a reveal."""
    n_players = cfg[CFG_PLAYERS]
    n_colors = cfg[CFG_COLORS]
    n_ranks = cfg[CFG_RANKS]
    h = cfg[CFG_HAND]
    if kind == DISCARD:
        return slot
    if kind == PLAY:
        return h + slot
    off = (target - cur) % n_players
    if kind == REVEAL_COLOR:
        return 2 * h + (off - 1) * n_colors + value
    return 2 * h + (n_players - 1) * n_colors + (off - 1) * n_ranks + value


# --------------------------------------------------------------------------------------------
# Own-perspective probability (for the risk-aversion counter, docs/rules.md §2.4 / §5)
# --------------------------------------------------------------------------------------------


@njit(inline="always")
def p_playable_own(s, p, slot):
    """P(card in ``slot`` of ``p`` is playable) from ``p``'s perspective, hints only.

    Candidates = cards ``p`` cannot see (deck + own hand), filtered by ``p``'s plausibility
    masks for the slot; a ratio of counts (docs/rules.md §2.4). Returns 0.0 if no candidate.
    """
    n_colors = s.cfg[CFG_COLORS]
    n_ranks = s.cfg[CFG_RANKS]
    n_players = s.cfg[CFG_PLAYERS]
    cm = s.public.col_plaus[p, slot]
    rm = s.public.rank_plaus[p, slot]
    total = 0
    good = 0
    # the cards of the deck allowed by the masks, minus discards and fireworks ...
    for c in range(n_colors):
        if not (cm >> c) & 1:
            continue
        height = s.public.fireworks[c]
        for r in range(n_ranks):
            if not (rm >> r) & 1:
                continue
            cnt = copies_of_rank(n_ranks, r) - s.public.discards[c * n_ranks + r]
            if height > r:
                cnt -= 1
            total += cnt
            if height == r:
                good += cnt
    # ... minus the allowed cards in the other players' hands (p sees them)
    for q in range(n_players):
        if q == p:
            continue
        for k in range(s.public.hand_len[q]):
            card = s.deck[s.public.uids[q, k]]
            c = card // n_ranks
            r = card - c * n_ranks
            if (cm >> c) & 1 and (rm >> r) & 1:
                total -= 1
                if s.public.fireworks[c] == r:
                    good -= 1
    if total == 0:
        return 0.0
    return good / total


# --------------------------------------------------------------------------------------------
# Applying a move
# --------------------------------------------------------------------------------------------


@njit(inline="always")
def _remove_from_hand(s, p, slot):
    n = s.public.hand_len[p]
    for k in range(slot, n - 1):
        s.public.uids[p, k] = s.public.uids[p, k + 1]
        s.public.col_plaus[p, k] = s.public.col_plaus[p, k + 1]
        s.public.rank_plaus[p, k] = s.public.rank_plaus[p, k + 1]
        s.public.col_hint[p, k] = s.public.col_hint[p, k + 1]
        s.public.rank_hint[p, k] = s.public.rank_hint[p, k + 1]
    s.public.uids[p, n - 1] = -1
    s.public.col_plaus[p, n - 1] = 0
    s.public.rank_plaus[p, n - 1] = 0
    s.public.col_hint[p, n - 1] = -1
    s.public.rank_hint[p, n - 1] = -1
    s.public.hand_len[p] = n - 1


@njit(inline="always")
def known_attrs(s, p, slot):
    """Attributes (colour, rank: 0, 1 or 2) ``p`` knows about its ``slot`` from hints alone.

    An attribute is known when a single value remains plausible (negative hints count).
    """
    colour_known = popcount(s.public.col_plaus[p, slot]) == 1
    rank_known = popcount(s.public.rank_plaus[p, slot]) == 1
    return int(colour_known) + int(rank_known)


# Above the complexity cap: a move's whole effect is one kernel, inlined into every compiled game
# loop, where a call per part would cost on every move.
@njit(inline="always", _nrt=False)
def apply_move(s, action):  # noqa: C901
    """Apply the legal move ``action`` for the seat to move; return the score change.

    The caller guarantees legality (:func:`is_legal`). Updates the behaviour counters of the
    mover at decision time (docs/rules.md §5), appends a history record, draws a replacement card,
    advances the turn and sets ``S_DONE`` at the end of the game. The returned reward uses the
    state's scoring variant (strict: losing the last life returns minus the score so far).
    """
    cfg = s.cfg
    n_players = cfg[CFG_PLAYERS]
    n_colors = cfg[CFG_COLORS]
    n_ranks = cfg[CFG_RANKS]
    cur = s.scal[S_CUR]
    before = score(s)
    kind, slot, target, color, rank = decode_action(cfg, cur, action)

    m = s.scal[S_N_MOVES]
    rec = s.public.hist[m]
    rec[:] = -1
    s.public.hist_uids[m, :] = -1
    rec[H_ACTOR] = cur
    rec[H_KIND] = kind
    rec[H_ACTION] = action
    rec[H_INFO_BEFORE] = s.scal[S_INFO]
    rec[H_LIFE_BEFORE] = s.scal[S_LIFE]
    rec[H_DECK_BEFORE] = cfg[CFG_N_CARDS] - s.scal[S_DECK_POS]
    rec[H_SCORED] = 0
    rec[H_TOKEN] = 0
    rec[H_TOUCHED] = 0

    cnt = s.counters[cur]
    cnt[C_TURNS] += 1.0
    if s.scal[S_INFO] > 0:
        cnt[C_HINT_OPPORTUNITIES] += 1.0

    # HLE: a move made while the deck is already empty counts down the last round.
    if s.scal[S_DECK_POS] >= cfg[CFG_N_CARDS]:
        s.scal[S_TURNS_LEFT] -= 1

    if kind == PLAY or kind == DISCARD:
        uid = s.public.uids[cur, slot]
        card = s.deck[uid]
        c = card // n_ranks
        r = card % n_ranks
        rec[H_SLOT] = slot
        rec[H_CARD] = card
        rec[H_UID] = uid
        rec[H_COLOR] = c
        rec[H_RANK] = r
        rec[H_KNOWN_ATTRS] = known_attrs(s, cur, slot)
        if kind == PLAY:
            cnt[C_PLAYS] += 1.0
            cnt[C_SUM_KNOWN_ATTRS] += rec[H_KNOWN_ATTRS]
            cnt[C_SUM_P_PLAYABLE] += p_playable_own(s, cur, slot)
            if s.public.fireworks[c] == r:
                s.public.fireworks[c] = r + 1
                s.scal[S_FIREWORKS] += 1
                rec[H_SCORED] = 1
                if r == n_ranks - 1 and s.scal[S_INFO] < cfg[CFG_MAX_INFO]:
                    s.scal[S_INFO] += 1
                    rec[H_TOKEN] = 1
            else:
                s.public.discards[card] += 1
                s.scal[S_LIFE] -= 1
        else:
            cnt[C_DISCARDS] += 1.0
            if cfg[CFG_HAND] > 1:
                cnt[C_SUM_DISCARD_POS] += slot / (cfg[CFG_HAND] - 1)
            s.public.discards[card] += 1
            s.scal[S_INFO] += 1
            rec[H_TOKEN] = 1
        # HLE deals no replacement once the game is over (last life lost, or maximum score).
        refill = s.scal[S_LIFE] > 0 and s.scal[S_FIREWORKS] < n_colors * n_ranks
        if refill and cfg[CFG_HAND_ORDER] == HAND_FIXED and s.scal[S_DECK_POS] < cfg[CFG_N_CARDS]:
            _draw_into(s, cur, slot)
        else:
            _remove_from_hand(s, cur, slot)
            if refill:
                _draw(s, cur)
    else:
        cnt[C_HINTS_GIVEN] += 1.0
        s.scal[S_INFO] -= 1
        rec[H_TARGET] = target
        touched = 0
        j = 0
        for k in range(s.public.hand_len[target]):
            card = s.deck[s.public.uids[target, k]]
            if kind == REVEAL_COLOR:
                hit = card // n_ranks == color
                if hit:
                    s.public.col_plaus[target, k] = 1 << color
                    s.public.col_hint[target, k] = color
                else:
                    s.public.col_plaus[target, k] &= ~(1 << color)
            else:
                hit = card % n_ranks == rank
                if hit:
                    s.public.rank_plaus[target, k] = 1 << rank
                    s.public.rank_hint[target, k] = rank
                else:
                    s.public.rank_plaus[target, k] &= ~(1 << rank)
            if hit:
                touched |= 1 << k
                s.public.hist_uids[m, j] = s.public.uids[target, k]
                j += 1
        rec[H_TOUCHED] = touched
        rec[H_COLOR] = color
        rec[H_RANK] = rank

    s.scal[S_N_MOVES] = m + 1
    if (
        s.scal[S_LIFE] <= 0
        or s.scal[S_FIREWORKS] >= n_colors * n_ranks
        or s.scal[S_TURNS_LEFT] <= 0
    ):
        s.scal[S_DONE] = 1
    else:
        s.scal[S_CUR] = (cur + 1) % n_players
    return score(s) - before


@njit(inline="always")
def random_legal_action(s, rng, mask):
    """A uniformly random legal move of the seat to move, drawn with one ``rng`` draw."""
    return nth_legal(mask, rng_below(rng, legal_mask(s, mask)))


def play_random_games(s: State, n_games: int, seed: int, out_scores: np.ndarray) -> int:
    """Play ``n_games`` games of uniformly random legal moves, entirely compiled.

    Game ``g`` is dealt with seed ``seed + g`` and its moves are drawn from a generator seeded
    with ``seed + g + 0x5EED``. Writes each final score to ``out_scores`` (int64,
    ``(>= n_games,)``) and returns the total number of moves (for throughput measurements).
    """
    mask = np.zeros(int(s.cfg[CFG_N_ACTIONS]), dtype=np.int8)
    rng = np.zeros(4, dtype=np.int64)
    return int(_play_random_games(s, n_games, seed, out_scores, mask, rng))


@njit(_nrt=False)
def _play_random_games(s, n_games, seed, out_scores, mask, rng):
    """The loop of :func:`play_random_games`, on caller-owned ``mask`` and ``rng`` buffers."""
    steps = 0
    for g in range(n_games):
        reset_state(s, seed + g, False)
        rng_seed(rng, seed + g + 0x5EED)
        while not s.scal[S_DONE]:
            apply_move(s, random_legal_action(s, rng, mask))
            steps += 1
        out_scores[g] = score(s)
    return steps


@njit(_nrt=False)
def step_checked(s, action, mask_out):
    """One AEC step in a single kernel call: check, apply, refresh the legal mask.

    Returns ``(ok, reward)``: ``ok`` is False (and nothing changes) if ``action`` is illegal or
    out of range. ``mask_out`` (int8, ``(n_actions,)``) receives the legal moves of the seat to
    move after the step (zeros at the end of the game).
    """
    if not is_legal(s, action):
        return False, 0
    reward = apply_move(s, action)
    legal_mask(s, mask_out)
    return True, reward
