"""BAD's public belief over the hands and its Bayesian update over partial policies (NumPy).

The formulas are [BAD19]'s (docs/papers.md §5, docs/bad.md §2); every function works on a
batch of games held in an :class:`agents.bad.public.PublicState`:

* **V0** — ``B(f[i]) ∝ C(f) · HM(f[i])``: the copies of card type ``f`` nobody has seen
  (deck and both hands) times the slot's hint mask ([BAD19] Equation 11).
* **V1** — the self-consistent belief: from V0, iterate
  ``B^{k+1}(f[i]) ∝ max(C(f) − Σ_{j≠i} B^k(f[j]), 0) · HM(f[i])`` over every slot of both
  hands (Equation 12); a slot whose candidates are all believed held elsewhere keeps its row
  (as :func:`agents.beliefs.v1_belief`).
* **BB / V2** — the Bayesian belief: the same iteration with the likelihood factors ``L`` as an
  extra factor (Equations 13–14), mixed with V1: ``V2 = (1 − α) BB + α V1`` (α = 0.01).
* **The counterfactual update** (Equations 1–2 and 6–8): when a player acts, the public agent
  has sampled a *deterministic partial policy* — an action for every hand the acting player
  might be looking at (its partner's). :func:`partial_policy` enumerates those hands
  (*combos*), weights each by the current belief, and evaluates the policy network on each;
  :func:`bayes_update` then multiplies every partner slot's ``L(f)`` by
  ``E[1(f[i] = f) 1(π(hand) = u)] / E[1(f[i] = f)]`` under those weights. [BAD19] estimates
  these expectations from a few thousand sampled hands; on the small configurations here the
  hands are few enough to enumerate, so the expectations are exact.

A combo's weight is the product of its slots' beliefs, corrected for drawing without
replacement (``Π_f [C(f)]_{n_f} / C(f)^{n_f}``, 0 when the combo holds more copies than are
unseen). At the deal this is exactly the chance of that hand, so the first update is the exact
Bayesian posterior (a test checks it against an enumeration of every deal). The weights also
mix in 10⁻⁶ of V0, so that no card the hints and counts allow ever gets weight 0: the real hand
always stays possible, as the paper's V1 mix-in intends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents.bad.public import PublicState

__all__ = [
    "ALPHA",
    "ITERATIONS",
    "SUPPORT_FLOOR",
    "PartialPolicy",
    "bayes_update",
    "belief_v0",
    "beliefs",
    "combo_weights",
    "partial_policy",
    "self_consistent",
]

ALPHA = 0.01
"""Weight of V1 in V2 ([BAD19] §4.4)."""
ITERATIONS = 3
"""Self-consistency iterations of V1 and BB (the paper stops after a fixed number)."""
SUPPORT_FLOOR = 1e-6
"""Share of V0 mixed into the belief that weights the partner's possible hands."""

Logits = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``logits(pub (B, pub_dim), priv (N, priv_dim), game (N,)) -> (N, A)`` the policy network."""


def _normalise(w: np.ndarray) -> np.ndarray:
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total > 0)


def self_consistent(
    counts: np.ndarray, hm: np.ndarray, factor: np.ndarray | None, iterations: int
) -> np.ndarray:
    """The iterated belief of [BAD19] Equations 12 (``factor`` None) and 14 (``factor`` = L).

    Args:
        counts: ``(B, T)`` unseen copies C(f).
        hm: ``(B, 2, h, T)`` bool hint masks (all False for an empty slot).
        factor: ``(B, 2, h, T)`` likelihood factors L, or None.
        iterations: Updates after the start ``∝ C · HM · L`` (0: V0, or BB⁰).

    Returns:
        ``(B, 2, h, T)`` float64; rows of occupied slots sum to 1, empty slots are zero.
    """
    base = hm * (1.0 if factor is None else factor)
    c = counts[:, None, None, :].astype(np.float64)
    belief = _normalise(c * base)
    for _ in range(iterations):
        others = belief.sum(axis=(1, 2), keepdims=True) - belief
        update = _normalise(np.maximum(c - others, 0.0) * base)
        stuck = (update.sum(axis=-1) == 0) & (belief.sum(axis=-1) > 0)
        update[stuck] = belief[stuck]
        belief = update
    return belief


def belief_v0(ps: PublicState) -> np.ndarray:
    """``(B, 2, h, T)`` the V0 belief of every slot of both hands (Equation 11)."""
    return self_consistent(ps.unseen_counts(), ps.hint_masks(), None, 0)


def beliefs(
    ps: PublicState, bayesian: bool, iterations: int = ITERATIONS, alpha: float = ALPHA
) -> tuple[np.ndarray, np.ndarray]:
    """The public belief the network sees, and the one that weights the partner's hands.

    Args:
        ps: The public states.
        bayesian: V2 (BAD) when True, V1 (the baseline's belief, no ``L``) when False.
        iterations: Self-consistency iterations.
        alpha: Weight of V1 in V2.

    Returns:
        ``(shown, weighting)``, both ``(B, 2, h, T)`` float64: ``shown`` is V2 (or V1);
        ``weighting`` is ``shown`` with :data:`SUPPORT_FLOOR` of V0 mixed in.
    """
    counts, hm = ps.unseen_counts(), ps.hint_masks()
    v1 = self_consistent(counts, hm, None, iterations)
    shown = v1
    if bayesian:
        bb = self_consistent(counts, hm, ps.likelihood, iterations)
        shown = (1.0 - alpha) * bb + alpha * v1
    v0 = self_consistent(counts, hm, None, 0)
    return shown, _normalise(shown + SUPPORT_FLOOR * v0)


def combo_weights(ps: PublicState, seat: np.ndarray, belief: np.ndarray) -> np.ndarray:
    """``(B, K)`` weight of every possible hand of seat ``seat[b]`` in each game.

    The product of the slots' beliefs, corrected for drawing without replacement and zero
    for a combo that does not fit the hand's length or holds more copies than are unseen.

    Args:
        ps: The public states.
        seat: ``(B,)`` whose hand.
        belief: ``(B, 2, h, T)`` the weighting belief (:func:`beliefs`).
    """
    lay = ps.layout
    g = np.arange(ps.n_games)
    per_slot = np.concatenate([belief[g, seat], np.ones((ps.n_games, lay.hand_size, 1))], axis=2)
    w = np.ones((ps.n_games, len(lay.combos)))
    for i in range(lay.hand_size):
        w *= per_slot[:, i, lay.combos[:, i]]
    counts = ps.unseen_counts().astype(np.float64)
    for n in range(2, lay.hand_size + 1):  # the falling factorial's n-th factor: (C-n+1)/C
        holds = lay.combo_counts >= n  # (K, T)
        factor = np.where(holds[None], np.maximum(counts[:, None, :] - n + 1, 0), 1.0)
        scale = np.where(holds[None], np.maximum(counts[:, None, :], 1), 1.0)
        w *= np.prod(factor / scale, axis=2)
    return w * lay.combo_fits[ps.hand_len[g, seat]]


@dataclass
class PartialPolicy:
    """The sampled deterministic partial policy of each game's actor, on the hands it may see.

    Row ``n`` says: in game ``game[n]``, were the partner's hand combo ``combo[n]`` (an index
    into :attr:`agents.bad.public.Layout.combos`), the actor would take ``action[n]``; the
    combo's weight under the public belief is ``weight[n]``. Rows are sorted by game; every
    combo of positive weight is present.

    Attributes:
        game, combo, action: ``(N,)`` int64.
        weight: ``(N,)`` float64.
        logits: ``(N, A)`` float32 masked logits (illegal moves ``-1e9``).
    """

    game: np.ndarray
    combo: np.ndarray
    weight: np.ndarray
    action: np.ndarray
    logits: np.ndarray

    def action_for(self, combo: np.ndarray) -> np.ndarray:
        """``(B,)`` the action of each game's actor for the partner hand ``combo[b]``.

        Raises:
            ValueError: A game has no row for its combo (the combo had weight 0).
        """
        return self.action[self.rows_of(combo)]

    def rows_of(self, combo: np.ndarray) -> np.ndarray:
        """``(B,)`` index of the row ``(b, combo[b])`` of each game ``b``."""
        starts = np.searchsorted(self.game, np.arange(len(combo)))
        ends = np.searchsorted(self.game, np.arange(len(combo)), side="right")
        out = np.empty(len(combo), dtype=np.int64)
        for b, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
            hit = np.flatnonzero(self.combo[lo:hi] == combo[b])
            if hit.size == 0:
                raise ValueError(f"game {b}: its partner hand has weight 0 in the public belief")
            out[b] = lo + hit[0]
        return out


def partial_policy(
    ps: PublicState,
    actor: np.ndarray,
    pub: np.ndarray,
    weighting: np.ndarray,
    logits: Logits,
    noise: np.ndarray | None = None,
) -> PartialPolicy:
    """Evaluate each actor's policy on every hand its partner may hold (Equation 4's factors).

    Args:
        ps: The public states.
        actor: ``(B,)`` seat to move.
        pub: ``(B, pub_dim)`` public features seen by the actor.
        weighting: ``(B, 2, h, T)`` the weighting belief (:func:`beliefs`).
        logits: The policy network (:data:`Logits`).
        noise: ``(B, K, A)`` Gumbel noise, the common-knowledge random draws that sample each
            factor of the partial policy; None for the greedy (argmax) policy.

    Returns:
        The :class:`PartialPolicy`.
    """
    lay = ps.layout
    w = combo_weights(ps, 1 - actor, weighting)
    game, combo = np.nonzero(w > 0)
    out = logits(pub, ps.private_features(game, combo), game).astype(np.float32)
    legal = ps.legal_public(actor)[game]
    legal[:, 2 * lay.hand_size :] &= lay.combo_hints[combo]
    out = np.where(legal, out, np.float32(-1e9))
    scores = out if noise is None else out + noise[game, combo]
    action = np.argmax(np.where(legal, scores, -np.inf), axis=1)
    return PartialPolicy(game, combo, w[game, combo], action, out)


def bayes_update(ps: PublicState, actor: np.ndarray, pp: PartialPolicy, taken: np.ndarray) -> None:
    """Multiply the partner slots' likelihoods by ``P(u | f[i])`` ([BAD19] Equation 8).

    For every game ``b``, slot ``i`` of the partner and card type ``f``:
    ``L(f[i]) ← L(f[i]) · Σ_hands w·1(hand[i]=f)·1(π(hand)=u) / Σ_hands w·1(hand[i]=f)``.
    A game whose taken action no weighted hand explains (a partner that is not this policy)
    keeps its likelihoods.

    Args:
        ps: The public states (``ps.likelihood`` is updated in place).
        actor: ``(B,)`` seat that acted.
        pp: The actors' :class:`PartialPolicy` at the time of the move.
        taken: ``(B,)`` the moves taken.
    """
    lay = ps.layout
    b = ps.n_games
    cards = lay.combo_onehot[pp.combo].astype(np.float64)  # (N, h*T)
    match = pp.weight * (pp.action == taken[pp.game])
    starts = np.searchsorted(pp.game, np.arange(b))
    has_rows = np.bincount(pp.game, minlength=b) > 0
    num = np.zeros((b, cards.shape[1]))
    den = np.zeros((b, cards.shape[1]))
    num[has_rows] = np.add.reduceat(cards * match[:, None], starts[has_rows], axis=0)
    den[has_rows] = np.add.reduceat(cards * pp.weight[:, None], starts[has_rows], axis=0)
    explained = np.bincount(pp.game, weights=match, minlength=b) > 0
    ratio = np.divide(num, den, out=np.ones_like(num), where=den > 0)
    ratio = ratio.reshape(b, lay.hand_size, lay.n_types)
    g = np.flatnonzero(explained)
    ps.likelihood[g, 1 - actor[g]] *= ratio[g]
