"""Many games in lockstep: a batch of game states in one set of arrays, and its compiled kernels.

A :class:`Batch` holds ``n`` games of one configuration: every array of a
:class:`~hanabi_env.engine.State` with a leading game axis (the configuration is shared). A
kernel takes game ``i`` as an ordinary ``State`` of views into the batch (:func:`game_at`), so
the batch runs the engine's own kernels (deal, legality, moves, observations), compiled over a
batch axis: not a second engine (docs/architecture.md §3).

Two faces use it: the Gymnasium vector env (:mod:`hanabi_env.vector`, one kernel call per step of
all games) and the lockstep player of mixed pools (:mod:`agents.lockstep`: rule agents act in a
kernel, neural policies on every game waiting for them at once).

Every kernel here is compiled without reference counting (``_nrt=False``, as the engine's
Python-facing kernels) and releases the GIL (``nogil``): callers may run disjoint game ranges
in threads. Kernels take the games to work on as an index array (``games``), so a caller can
step any subset.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.jit import njit


class Batch(NamedTuple):
    """``n`` games of one configuration (every array of a ``State`` with a game axis).

    Attributes:
        cfg: ``(CFG_SIZE,)`` int64, the shared configuration (``engine.CFG_*``).
        scal: ``(n, SCAL_SIZE)`` int64 scalars per game (``engine.S_*``).
        deck: ``(n, n_cards)`` int32 shuffled decks (a card's index is its uid).
        counters: ``(n, players, N_COUNTERS)`` float64 behaviour counters (docs/rules.md §5).
        rng: ``(n, 4)`` int64 deal generators (:mod:`hanabi_env.rng`).
        packed: ``(n, pub_offsets(cfg)[-1])`` int32, each game's packed public arrays
            (``State.packed``; its view area holds the live view of the last seat refreshed).
    """

    cfg: np.ndarray
    scal: np.ndarray
    deck: np.ndarray
    counters: np.ndarray
    rng: np.ndarray
    packed: np.ndarray

    @property
    def n_games(self) -> int:
        """Games in the batch."""
        return int(self.scal.shape[0])

    def scores(self) -> np.ndarray:
        """``(n,)`` int64: each game's score, :func:`hanabi_env.engine.score` for every game.

        The fireworks' total; under strict scoring 0 once the life tokens are gone.
        """
        fireworks = self.scal[:, E.S_FIREWORKS]
        if self.cfg[E.CFG_LENIENT]:
            return fireworks.astype(np.int64)
        return np.where(self.scal[:, E.S_LIFE] > 0, fireworks, 0).astype(np.int64)


def new_batch(config: HanabiConfig, n: int) -> Batch:
    """Allocate ``n`` un-dealt games of ``config`` (deal them with :func:`reset_games`).

    Raises:
        TypeError: ``config`` is not a :class:`HanabiConfig`.
        ValueError: ``n`` < 1.
    """
    if not isinstance(config, HanabiConfig):
        raise TypeError(f"config must be a HanabiConfig, got {type(config).__name__}")
    if n < 1:
        raise ValueError(f"n={n} is out of range; allowed: >= 1")
    one = E.new_state(config)
    return Batch(
        cfg=one.cfg.copy(),
        scal=np.zeros((n, E.SCAL_SIZE), dtype=np.int64),
        deck=np.zeros((n, one.deck.shape[0]), dtype=np.int32),
        counters=np.zeros((n, config.players, E.N_COUNTERS), dtype=np.float64),
        rng=np.zeros((n, 4), dtype=np.int64),
        packed=np.ascontiguousarray(np.broadcast_to(one.packed, (n, one.packed.shape[0]))),
    )


@njit(inline="always")
def game_at(b, i):
    """Game ``i`` of batch ``b`` as a :class:`~hanabi_env.engine.State` of views (no copy)."""
    pv = b.packed[i]
    return E.State(b.cfg, b.scal[i], b.deck[i], b.counters[i], b.rng[i], V.expand_view(pv), pv)


@njit(inline="always")
def _observe(s, seat, obs_type, obs_out):
    """Write ``seat``'s canonical observation of ``s`` to ``obs_out`` (via the live view)."""
    V._fill_scalars_and_cards(s, seat, s.public, obs_type == V.OBS_SEER)
    V.encode_observation(s.public, obs_type, obs_out)


@njit(_nrt=False, nogil=True)
def reset_games(b, games, deal_seeds, random_start):
    """Deal game ``games[j]`` with ``deal_seeds[j]`` (``engine.reset_state``) for every ``j``."""
    for j in range(games.shape[0]):
        E.reset_state(game_at(b, games[j]), deal_seeds[j], random_start)


@njit(_nrt=False, nogil=True)
def observe_games(b, games, seats, obs_type, obs_out, mask_out):
    """Observations and legal masks of ``seats[j]`` in game ``games[j]``.

    Args:
        b: The batch.
        games: ``(k,)`` int64 game indices.
        seats: ``(k,)`` int64 absolute seats.
        obs_type: ``view.OBS_*``.
        obs_out: ``(k, obs_dim)`` array of any numeric dtype (row ``j`` written).
        mask_out: ``(k, n_actions)`` int8: the seat's legal moves when it is on turn, else
            zeros (row ``j`` written).
    """
    for j in range(games.shape[0]):
        s = game_at(b, games[j])
        _observe(s, seats[j], obs_type, obs_out[j])
        if seats[j] == s.scal[E.S_CUR]:
            E.legal_mask(s, mask_out[j])
        else:
            mask_out[j, :] = 0


@njit(_nrt=False, nogil=True)
def observe_all_seats(b, obs_type, obs_out):
    """Every seat's observation of every game: ``obs_out`` ``(n, players, obs_dim)``.

    The view area of each game is left holding its seat to move's live view.
    """
    n_players = b.cfg[E.CFG_PLAYERS]
    for i in range(b.scal.shape[0]):
        s = game_at(b, i)
        for p in range(n_players):
            _observe(s, p, obs_type, obs_out[i, p])
        V.refresh_live_view(s, s.scal[E.S_CUR])


@njit(_nrt=False, nogil=True)
def apply_actions(b, games, actions, rewards_out):
    """Apply ``actions[j]`` for the seat to move in game ``games[j]``.

    Returns:
        ``-1`` when every action was legal (``rewards_out[j]`` gets the score change), else
        the first ``j`` whose action was illegal (nothing from ``j`` on is applied).
    """
    for j in range(games.shape[0]):
        s = game_at(b, games[j])
        if not E.is_legal(s, actions[j]):
            return j
        rewards_out[j] = E.apply_move(s, actions[j])
    return -1


# Above the complexity cap: one step of every game of the vector env is one kernel call (a call
# per part would cross into Python for each).
@njit(_nrt=False, nogil=True)
def vector_step(
    b,
    lo,
    hi,
    actions,
    reset_mask,
    deal_seeds,
    random_start,
    obs_type,
    obs_out,
    mask_out,
    rewards_out,
    done_out,
    illegal_out,
    seat_out,
    score_out,
):
    """One step of games ``lo..hi-1`` of the vector env (``HanabiVectorEnv.step``).

    Game ``i`` is dealt anew with ``deal_seeds[i]`` where ``reset_mask[i]`` (its action is
    ignored, reward 0), else its seat to move plays ``actions[i]``: an illegal action ends the
    game (``illegal_out[i]`` set, the state left as it was), a legal one pays the score change
    (``rewards_out[i]``, the reward every seat of the AEC env receives). Then each game's seat
    to move (the last mover once the game is over) is observed: ``obs_out[i]``, its legal mask
    ``mask_out[i]`` (zeros once the game is over), ``seat_out[i]``, ``score_out[i]``.
    ``done_out[i]`` is 1 when the game ended on this step.
    """
    for i in range(lo, hi):
        s = game_at(b, i)
        rewards_out[i] = 0.0
        illegal_out[i] = 0
        done_out[i] = 0
        if reset_mask[i]:
            E.reset_state(s, deal_seeds[i], random_start)
        elif E.is_legal(s, actions[i]):
            rewards_out[i] = E.apply_move(s, actions[i])
            done_out[i] = s.scal[E.S_DONE]
        else:
            illegal_out[i] = 1
            done_out[i] = 1
        seat = s.scal[E.S_CUR]
        seat_out[i] = seat
        score_out[i] = E.score(s)
        _observe(s, seat, obs_type, obs_out[i])
        if done_out[i]:
            mask_out[i, :] = 0
        else:
            E.legal_mask(s, mask_out[i])


@njit(_nrt=False, nogil=True)
def info_metric_arrays(counters, spec, values_out, defined_out):
    """The ``infos`` metrics of every seat of every game, in one pass (the vector env's infos).

    The compiled form of :func:`hanabi_env.metrics.info_metrics` for many seats: metric ``k``
    is ``counters[..., num] / (factor * counters[..., den])`` with the flag ``den != 0``, and
    ``0.0`` where the flag is off (the same float operations, so the same values).

    Args:
        counters: ``(n, players, N_COUNTERS)`` float64 behaviour counters.
        spec: ``(k, 3)`` float64 rows ``(num, den, factor)`` (``metrics.RATIOS`` entries).
        values_out: ``(k, n, players)`` float64, written.
        defined_out: ``(k, n, players)`` bool, written.
    """
    for k in range(spec.shape[0]):
        num, den, factor = int(spec[k, 0]), int(spec[k, 1]), spec[k, 2]
        for i in range(counters.shape[0]):
            for p in range(counters.shape[1]):
                d = counters[i, p, den]
                defined_out[k, i, p] = d != 0
                values_out[k, i, p] = counters[i, p, num] / (factor * d) if d != 0 else 0.0


@njit(_nrt=False, nogil=True)
def vector_observe(b, games, obs_type, obs_out, mask_out, seat_out, score_out):
    """The observations of :func:`vector_step` without a move, for games ``games`` only."""
    for j in range(games.shape[0]):
        i = games[j]
        s = game_at(b, i)
        seat = s.scal[E.S_CUR]
        seat_out[i] = seat
        score_out[i] = E.score(s)
        _observe(s, seat, obs_type, obs_out[i])
        E.legal_mask(s, mask_out[i])


__all__ = [
    "Batch",
    "apply_actions",
    "game_at",
    "info_metric_arrays",
    "new_batch",
    "observe_all_seats",
    "observe_games",
    "reset_games",
    "vector_observe",
    "vector_step",
]
