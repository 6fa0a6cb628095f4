"""Generalised advantage estimation, shared by the project's two actor-critic trainers.

GAE(γ, λ) of Schulman et al., "High-dimensional continuous control using generalized advantage
estimation" (ICLR 2016), as SB3 computes it: ``delta_t = r_t + γ V_{t+1} (1 - done_t) - V_t``,
``A_t = delta_t + γ λ (1 - done_t) A_{t+1}``, the value after the last step being the bootstrap.
Used by :mod:`agents.rl.finetune` (docs/finetuning.md §2) and :mod:`agents.bad.train`
(docs/bad.md).
"""

from __future__ import annotations

import numpy as np

__all__ = ["gae"]


def gae(
    reward: np.ndarray,
    done: np.ndarray,
    values: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    lam: float,
    accumulate: type = np.float64,
) -> np.ndarray:
    """The advantages of a rollout of ``T`` steps in ``B`` games played side by side.

    Args:
        reward: ``(T, B)`` rewards (points).
        done: ``(T, B)`` 1 where the game ended at that step, else 0.
        values: ``(T, B)`` the critic's values of the states.
        bootstrap: ``(B,)`` the critic's values after the last step.
        gamma: The discount γ.
        lam: GAE's λ.
        accumulate: The dtype of the running sum (the trainers keep theirs: ``np.float32``
            in fine-tuning, ``np.float64`` in BAD's training).

    Returns:
        ``(T, B)`` advantages, of ``values``' dtype.
    """
    adv = np.zeros_like(values)
    running: np.ndarray = np.zeros(values.shape[1], accumulate)
    for t in range(len(values) - 1, -1, -1):
        nxt = bootstrap if t == len(values) - 1 else values[t + 1]
        alive = 1.0 - done[t]
        delta = reward[t] + gamma * nxt * alive - values[t]
        running = delta + gamma * lam * alive * running
        adv[t] = running
    return adv
