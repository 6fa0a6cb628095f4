"""[BAD19]'s two-step matrix game (its Section 4.1, Figure 2): the payoffs and their exact values.

Two players each draw one of two cards uniformly at random and see only their own. Player 1
acts first (one of three actions); player 2 sees player 1's action, then acts. The team's reward
is ``PAYOFF[card1, card2, u1, u2]``. The payoffs reward a *convention*: player 2 can only score
10 every time if player 1's action tells it player 1's card, while action 1 of player 1 is a
*safe* action that scores 8 whatever happens. This module holds the game in NumPy; the learners
(BAD with and without counterfactual gradients, and the plain policy gradient) are in
:mod:`agents.bad.matrix_train` (torch). docs/bad.md §1 describes the reproduction of Figure 3.
"""

from __future__ import annotations

import itertools

import numpy as np

from hanabi_env.validate import check_int_sequence

__all__ = [
    "N_ACTIONS",
    "N_CARDS",
    "PAYOFF",
    "best_response_value",
    "optimal_value",
    "safe_value",
]

PAYOFF = np.array(
    [
        [[[10, 0, 0], [4, 8, 4], [10, 0, 0]], [[0, 0, 10], [4, 8, 4], [0, 0, 10]]],
        [[[0, 0, 10], [4, 8, 4], [0, 0, 0]], [[10, 0, 0], [4, 8, 4], [10, 0, 0]]],
    ],
    dtype=np.float64,
)
"""``(card1, card2, u1, u2)`` float64 payoff tensor of [BAD19] Figure 2 (shape ``(2, 2, 3, 3)``)."""
PAYOFF.flags.writeable = False

N_CARDS = PAYOFF.shape[0]
"""Cards each player may hold (2)."""
N_ACTIONS = PAYOFF.shape[-1]
"""Actions of each player (3)."""


def best_response_value(player1: tuple[int, ...] | list[int]) -> float:
    """Expected reward of a deterministic player-1 policy with player 2's best response.

    Player 2 sees its card and player 1's action; for each of those pairs it picks the action
    with the highest expected payoff given what player 1's action says about player 1's card.

    Args:
        player1: ``player1[c]`` is player 1's action when it holds card ``c`` (``N_CARDS`` ints
            in ``[0, N_ACTIONS)``).

    Returns:
        The expected reward (points), cards uniform.

    Raises:
        TypeError: ``player1`` is not a sequence of ints.
        ValueError: Wrong length or an action out of range.
    """
    actions = check_int_sequence(
        "player1", player1, 0, N_ACTIONS - 1, min_len=N_CARDS, max_len=N_CARDS, unique=False
    )
    total = 0.0
    for u1 in set(actions):
        holders = [c for c in range(N_CARDS) if actions[c] == u1]
        for c2 in range(N_CARDS):
            total += PAYOFF[holders, c2, u1, :].sum(axis=0).max()
    return total / N_CARDS**2


def optimal_value() -> float:
    """The best expected reward of any pair of policies: 10 (player 1 signals its card)."""
    policies = itertools.product(range(N_ACTIONS), repeat=N_CARDS)
    return max(best_response_value(p) for p in policies)


def safe_value() -> float:
    """Expected reward when player 1 always takes the safe action 1: 8 (no signal needed)."""
    return best_response_value([1] * N_CARDS)
