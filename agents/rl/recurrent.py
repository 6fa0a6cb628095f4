"""The recurrent partner's network in numpy: layout of its arrays, one GRU step, hidden states.

A partner of ``architecture.kind`` ``"gru"`` (docs/cloning.md §5) reads one observation per
decision of its seat and keeps a hidden state per game and seat between them:

.. code-block:: text

    e    = act(W_k(... act(W_0 x + b_0) ...) + b_k)        encoder: layers[1:-2], may be empty
    r, z = sigmoid(Wi_r e + bi_r + Wh_r h + bh_r), sigmoid(Wi_z e + bi_z + Wh_z h + bh_z)
    n    = tanh(Wi_n e + bi_n + r * (Wh_n h + bh_n))
    h'   = (1 - z) * n + z * h                              the GRU, layers[-2] units
    logits = W_out h' + b_out                               one logit per HLE move uid

with ``h = 0`` at each game's start: torch's ``nn.GRU`` (gate order r, z, n in
``gru_wi`` ``(3H, in)``, ``gru_wh`` ``(3H, H)``, ``gru_bi``, ``gru_bh`` ``(3H,)``). Computed in
float64 as the MLP partners are (:mod:`agents.rl.partners`), so a decision does not depend on
the batch it is computed in.

This module holds the layout and the arithmetic only (it imports nothing of ``agents.rl``);
:class:`agents.rl.partners.RecurrentPartner` plays it.

Source: the GRU of Cho et al. 2014 as torch implements it
(https://pytorch.org/docs/stable/generated/torch.nn.GRU.html); the file format is the RL
partners' (docs/rl_partners.md §5) with the arrays named here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "GRU_ARRAYS",
    "HiddenStates",
    "array_names",
    "array_shapes",
    "gru_step",
]

GRU_ARRAYS = ("gru_wi", "gru_wh", "gru_bi", "gru_bh")
"""The GRU's arrays, between the encoder's ``w_i``/``b_i`` and the output layer's."""


def array_names(layers: Sequence[int]) -> list[str]:
    """The NPZ array names of a ``"gru"`` network, in order.

    Args:
        layers: ``[obs_size, *encoder_widths, gru_units, n_actions]`` (at least 3 entries).

    Returns:
        ``w0, b0, ...`` of the encoder, :data:`GRU_ARRAYS`, then ``wK, bK`` of the output layer
        (``K`` the number of encoder layers).
    """
    k = len(layers) - 3
    enc = [n for i in range(k) for n in (f"w{i}", f"b{i}")]
    return [*enc, *GRU_ARRAYS, f"w{k}", f"b{k}"]


def array_shapes(layers: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """Name → shape of every array of a ``"gru"`` network (order: :func:`array_names`)."""
    k = len(layers) - 3
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(k):
        shapes[f"w{i}"] = (layers[i + 1], layers[i])
        shapes[f"b{i}"] = (layers[i + 1],)
    units, inputs = layers[-2], layers[-3]
    shapes.update(
        gru_wi=(3 * units, inputs), gru_wh=(3 * units, units),
        gru_bi=(3 * units,), gru_bh=(3 * units,),
    )  # fmt: skip
    shapes[f"w{k}"] = (layers[-1], units)
    shapes[f"b{k}"] = (layers[-1],)
    return shapes


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow warning for large |x|


def gru_step(
    x: np.ndarray,
    h: np.ndarray,
    wi: np.ndarray,
    wh: np.ndarray,
    bi: np.ndarray,
    bh: np.ndarray,
) -> np.ndarray:
    """One GRU step for ``B`` rows (torch's ``nn.GRU`` equations, gate order r, z, n).

    Args:
        x: ``(B, in)`` float64 inputs.
        h: ``(B, H)`` float64 hidden states before the step.
        wi: ``(in, 3H)`` input weights (torch's ``weight_ih_l0`` transposed).
        wh: ``(H, 3H)`` hidden weights (``weight_hh_l0`` transposed).
        bi: ``(3H,)`` input bias.
        bh: ``(3H,)`` hidden bias.

    Returns:
        ``(B, H)`` float64, the hidden states after the step.
    """
    units = h.shape[1]
    gi = x @ wi + bi
    gh = h @ wh + bh
    r = _sigmoid(gi[:, :units] + gh[:, :units])
    z = _sigmoid(gi[:, units : 2 * units] + gh[:, units : 2 * units])
    n = np.tanh(gi[:, 2 * units :] + r * gh[:, 2 * units :])
    return (1.0 - z) * n + z * h


class HiddenStates:
    """Hidden states of the games a recurrent partner plays: one per game and seat.

    Two stores: a lockstep chunk's (:meth:`start_chunk`: ``(n_games * players, H)`` zeros,
    row ``game * players + seat``) and the one game played a decision at a time
    (:meth:`solo`: one row per seat, zeroed when a new game is seen).

    Args:
        units: ``H``, the GRU's size.
    """

    def __init__(self, units: int):
        """See the class docstring."""
        self.units = int(units)
        self.chunk = np.zeros((0, self.units))
        self.players = 0
        self.solo_h: dict[int, np.ndarray] = {}
        self.solo_moves = -1

    def start_chunk(self, n_games: int, players: int) -> None:
        """Zero states for ``n_games`` games of ``players`` seats (a lockstep chunk starts)."""
        self.chunk = np.zeros((int(n_games) * int(players), self.units))
        self.players = int(players)

    def rows(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(B,)`` int64 rows of the chunk store for decisions ``(games, seats)``.

        Raises:
            ValueError: No chunk started, or a game or seat outside it.
        """
        rows = np.asarray(games, dtype=np.int64) * self.players + np.asarray(seats, np.int64)
        inside = not len(rows) or (rows.min() >= 0 and rows.max() < len(self.chunk))
        if not self.players or not inside:
            raise ValueError("games and seats outside the chunk of games started (start_games)")
        return rows

    def solo(self, seat: int, n_moves: int) -> np.ndarray:
        """``(1, H)`` state of ``seat`` in the game played one decision at a time.

        A view with fewer moves played than the last one seen starts a new game (every seat's
        state is zeroed), as does a seat's first decision.
        """
        if n_moves <= self.solo_moves:
            self.solo_h = {}
        self.solo_moves = int(n_moves)
        return self.solo_h.get(int(seat), np.zeros((1, self.units)))

    def reset(self) -> None:
        """Forget every game (a new game starts: :meth:`Policy.reset`)."""
        self.chunk = np.zeros((0, self.units))
        self.players = 0
        self.solo_h = {}
        self.solo_moves = -1
