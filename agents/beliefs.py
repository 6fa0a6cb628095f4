"""Card-counting beliefs on a player view, for analysis and for users' own policies.

* :func:`unseen_counts` / :func:`candidate_counts` / :func:`own_probabilities`: the
  own-perspective candidates and probabilities of docs/rules.md §2.4 (cards the seat cannot see,
  filtered by its hint knowledge; slots treated independently).
* :func:`partner_probabilities`: the partner-perspective approximation of docs/rules.md §2.5
  (the teller's own hand counts as unseen by the target, as in the reference).
* :func:`v0_belief` and :func:`v1_belief`: the V0 and V1 beliefs of [BAD19] (docs/papers.md §5).

Every function takes a :class:`hanabi_env.PlayerView` and uses only what that seat may see.
Cards are indexed ``colour * n_ranks + rank`` (HLE's order). These are plain NumPy functions
(the compiled rule kernels in :mod:`agents.rules` compute the same quantities in numba; a
test checks they agree).
"""

from __future__ import annotations

import numpy as np

from hanabi_env.game import PlayerView

__all__ = [
    "candidate_counts",
    "card_properties",
    "own_probabilities",
    "partner_probabilities",
    "unseen_counts",
    "v0_belief",
    "v1_belief",
]


def _copies(n_colors: int, n_ranks: int) -> np.ndarray:
    per_rank = np.full(n_ranks, 2, dtype=np.int64)
    per_rank[0] = 3
    per_rank[-1] = 1
    return np.tile(per_rank, n_colors)


def unseen_counts(view: PlayerView, also_hand_of: int | None = None) -> np.ndarray:
    """Copies of each card the viewer cannot see (docs/rules.md §2.4: U_me = deck + own hand).

    Full deck minus the discard pile, the fireworks and the other players' hands. With
    ``also_hand_of=t`` the cards of player ``t`` are counted as unseen too (U_{me→t}, §2.5).

    Returns:
        ``(n_colors * n_ranks,)`` int64 counts.
    """
    c, r = view.n_colors, view.n_ranks
    counts = _copies(c, r) - view.discard_counts.astype(np.int64)
    for colour in range(c):
        counts[colour * r : colour * r + int(view.fireworks[colour])] -= 1
    for p in range(view.n_players):
        if p in (view.seat, also_hand_of):
            continue
        cards = view.hands[p][view.hands[p] >= 0]
        np.subtract.at(counts, cards, 1)
    return counts


def _plausible_flat(view: PlayerView, player: int) -> np.ndarray:
    """``(hand_size, n_colors * n_ranks)`` bool hint masks HM of ``player``'s slots."""
    pl = view.plausible[player].reshape(view.hand_size, -1).copy()
    pl[int(view.hand_lengths[player]) :] = False
    return pl


def candidate_counts(view: PlayerView, player: int | None = None) -> np.ndarray:
    """Candidate counts per slot: ``cand(s)`` of docs/rules.md §2.4 (§2.5 for another player).

    Args:
        view: The viewer's view.
        player: Whose slots; default the viewer (own perspective). For another player ``t`` the
            partner-perspective pool U_{me→t} is used with ``t``'s knowledge.

    Returns:
        ``(hand_size, n_colors * n_ranks)`` int64; rows of empty slots are zero.
    """
    player = view.seat if player is None else player
    pool = unseen_counts(view, None if player == view.seat else player)
    return _plausible_flat(view, player) * pool[None, :]


def card_properties(view: PlayerView) -> dict[str, np.ndarray]:
    """Public class of every card id (docs/rules.md §2.3): playable, useless, necessary.

    Returns:
        Dict of ``(n_colors * n_ranks,)`` bool arrays.
    """
    c, r = view.n_colors, view.n_ranks
    colour = np.repeat(np.arange(c), r)
    rank = np.tile(np.arange(r), c)
    height = view.fireworks.astype(np.int64)[colour]
    copies = _copies(c, r)
    discarded = view.discard_counts.astype(np.int64)
    all_gone = (discarded >= copies).reshape(c, r)
    max_reach = np.full(c, r)
    for col in range(c):
        for rk in range(int(view.fireworks[col]), r):
            if all_gone[col, rk]:
                max_reach[col] = rk
                break
    playable = rank == height
    min_h = int(view.fireworks.min())
    useless = (height >= r) | (rank < height) | (rank < min_h) | (rank >= max_reach[colour])
    necessary = ~useless & ((rank == r - 1) | (discarded == copies - 1))
    return {"playable": playable, "useless": useless, "necessary": necessary}


def own_probabilities(view: PlayerView) -> dict[str, np.ndarray]:
    """P_me(playable / useless / necessary | slot) for the viewer's slots (docs/rules.md §2.4).

    Returns:
        Dict of ``(hand_size,)`` float64 arrays; NaN for empty slots.
    """
    return _probabilities(view, candidate_counts(view))


def partner_probabilities(view: PlayerView, target: int) -> dict[str, np.ndarray]:
    """P_{me→t}(playable / useless / necessary | slot) for ``target``'s slots (docs/rules.md §2.5).

    Raises:
        ValueError: ``target`` is the viewer or out of range.
    """
    if target == view.seat or not 0 <= target < view.n_players:
        raise ValueError(f"target={target} must be another player's seat")
    return _probabilities(view, candidate_counts(view, target))


def _probabilities(view: PlayerView, cand: np.ndarray) -> dict[str, np.ndarray]:
    total = cand.sum(axis=1).astype(float)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, mask in card_properties(view).items():
            out[name] = np.where(total > 0, (cand * mask[None, :]).sum(axis=1) / total, np.nan)
    return out


def v0_belief(view: PlayerView) -> np.ndarray:
    """[BAD19]'s V0 belief over the viewer's own cards (docs/papers.md §5).

    ``P(card = f | slot i) ∝ C(f) · HM(f, i)``, with C the copies not visible to the viewer and
    HM the slot's hint mask.

    Returns:
        ``(hand_size, n_colors * n_ranks)`` float64; each occupied slot's row sums to 1, empty
        slots are zero.
    """
    return _normalise(candidate_counts(view).astype(float))


def v1_belief(view: PlayerView, iterations: int = 10) -> np.ndarray:
    """[BAD19]'s self-consistent V1 belief over the viewer's own cards (docs/papers.md §5).

    Iterates ``B^{k+1}(f, i) ∝ max(C(f) − Σ_{j≠i} B^k(f, j), 0) · HM(f, i)`` from the V0
    belief: each slot's counts are reduced by what the other slots are believed to hold.

    Args:
        view: The viewer's view.
        iterations: Number of updates (>= 0; 0 gives V0).

    Returns:
        ``(hand_size, n_colors * n_ranks)`` float64, rows of occupied slots summing to 1.

    Raises:
        ValueError: ``iterations`` < 0.
    """
    if iterations < 0:
        raise ValueError(f"iterations={iterations} is out of range; allowed: >= 0")
    counts = unseen_counts(view).astype(float)
    hm = _plausible_flat(view, view.seat)
    belief = _normalise(counts[None, :] * hm)
    for _ in range(iterations):
        others = belief.sum(axis=0, keepdims=True) - belief
        update = _normalise(np.maximum(counts[None, :] - others, 0.0) * hm)
        # a slot whose every candidate is believed taken by the other slots keeps its row
        stuck = update.sum(axis=1) == 0
        update[stuck] = belief[stuck]
        belief = update
    return belief


def _normalise(weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=1, keepdims=True)
    return np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
