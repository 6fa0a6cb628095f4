"""BAD's decisions on a batch of games, and the games themselves on the engine (NumPy).

One decision of the public agent ([BAD19] §3, Figure 1b), for every game of a batch at once:

1. the public belief (:func:`agents.bad.belief.beliefs`) and the public features seen from
   the seat to move (:meth:`agents.bad.public.PublicState.features`);
2. BAD: the partial policy — the action for every hand the acting player may be looking at
   (:func:`agents.bad.belief.partial_policy`); the baseline evaluates the real hand only;
3. the acting player's move, the entry of its real observation (the partner's hand);
4. BAD: the counterfactual belief update on the move (:func:`agents.bad.belief.bayes_update`),
   then the move record advances the public state (:meth:`agents.bad.public.PublicState.apply`).

:func:`decide` and :func:`observe` are steps 1–2 and 4; the trainer's rollouts and evaluation
(:class:`Games`) and the playing agent (:class:`agents.bad.policy.BADPolicy`, which replays the
history of its view) run these same functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.bad.belief import ALPHA, ITERATIONS, PartialPolicy, bayes_update, beliefs
from agents.bad.belief import partial_policy as _partial_policy
from agents.bad.net import NumpyNet
from agents.bad.public import Layout, PublicState
from hanabi_env import engine as E
from hanabi_env.seeding import derive_seed

__all__ = [
    "Decision",
    "Games",
    "decide",
    "decision_noise",
    "evaluate",
    "observe",
    "public_features",
]


@dataclass
class Decision:
    """The public agent's decision in every game of a batch.

    Attributes:
        pub: ``(B, pub_dim)`` float32 public features seen by the actor.
        partial: BAD's :class:`~agents.bad.belief.PartialPolicy` (None for the baseline).
        legal: ``(B, A)`` bool legal moves for the real partner hand (None if not given).
        action: ``(B,)`` int64 the actor's move for the real partner hand (None if not given).
    """

    pub: np.ndarray
    partial: PartialPolicy | None
    legal: np.ndarray | None
    action: np.ndarray | None


def decide(
    ps: PublicState,
    actor: np.ndarray,
    net: NumpyNet,
    bayesian: bool,
    partner_combo: np.ndarray | None = None,
    noise: np.ndarray | None = None,
    iterations: int = ITERATIONS,
    alpha: float = ALPHA,
) -> Decision:
    """Steps 1–3 of the module docstring.

    Args:
        ps: The public states of the batch.
        actor: ``(B,)`` seat to move in each game.
        net: The policy network.
        bayesian: BAD (V2 belief, partial policies) or the baseline (V1 belief, real hand only).
        partner_combo: ``(B,)`` the real partner hands (:meth:`Layout.combo_index`), when known
            (the acting player's own decision); None to compute BAD's partial policy only
            (replaying another player's move).
        noise: ``(B, K, A)`` Gumbel noise (sampled decisions) or None (greedy).
        iterations: Self-consistency iterations of the beliefs.
        alpha: Weight of V1 in V2.

    Returns:
        The :class:`Decision`.
    """
    lay = ps.layout
    pub, weighting = public_features(ps, actor, bayesian, iterations, alpha)
    partial = None
    if bayesian:
        partial = _partial_policy(ps, actor, pub, weighting, net.logits, noise)
    if partner_combo is None:
        return Decision(pub, partial, None, None)
    legal = ps.legal_public(actor)
    legal[:, 2 * lay.hand_size :] &= lay.combo_hints[partner_combo]
    if partial is not None:
        return Decision(pub, partial, legal, partial.action_for(partner_combo))
    games = np.arange(ps.n_games)
    logits = net.logits(pub, ps.private_features(games, partner_combo), games)
    if noise is not None:
        logits = logits + noise[games, partner_combo]
    action = np.argmax(np.where(legal, logits, -np.inf), axis=1)
    return Decision(pub, None, legal, action)


def public_features(
    ps: PublicState,
    actor: np.ndarray,
    bayesian: bool,
    iterations: int = ITERATIONS,
    alpha: float = ALPHA,
) -> tuple[np.ndarray, np.ndarray]:
    """Step 1: the public features seen by ``actor`` and the belief that weights the hands.

    Returns:
        ``(pub (B, pub_dim) float32, weighting (B, 2, h, T))``: the features hold V2 (BAD)
        or V1 (the baseline); see :func:`agents.bad.belief.beliefs`.
    """
    shown, weighting = beliefs(ps, bayesian, iterations, alpha)
    return ps.features(actor, shown), weighting


def observe(ps: PublicState, actor: np.ndarray, decision: Decision, taken: np.ndarray) -> None:
    """Step 4's belief part: BAD's counterfactual update on the moves ``taken`` (``(B,)``).

    The baseline's belief has no likelihoods, so nothing changes for it. The caller then
    applies each move record with :meth:`PublicState.apply`.
    """
    if decision.partial is not None:
        bayes_update(ps, actor, decision.partial, taken)


class Games:
    """A batch of games on the engine with their public states.

    Args:
        layout: The configuration's :class:`Layout`.
        n_games: Games played side by side, ``B``.

    Attributes:
        states: The engine states (``hanabi_env.engine.State``), one per game.
        public: Their :class:`PublicState`.
    """

    def __init__(self, layout: Layout, n_games: int):
        """See the class docstring."""
        self.layout = layout
        self.states = [E.new_state(layout.config) for _ in range(n_games)]
        self.public = PublicState(layout, n_games)
        self._mask = np.zeros(layout.n_actions, dtype=np.int8)

    def deal(self, game: int, seed: int) -> None:
        """Start game ``game`` with the deal of ``seed`` (the engine's shuffle)."""
        E.reset_state(self.states[game], int(seed), self.layout.config.random_start_player)
        self.public.reset(np.array([game]))

    def actors(self) -> np.ndarray:
        """``(B,)`` seat to move in each game."""
        return np.array([int(s.scal[E.S_CUR]) for s in self.states], dtype=np.int64)

    def partner_combos(self, actor: np.ndarray) -> np.ndarray:
        """``(B,)`` the real hand of each actor's partner as a combo index."""
        lay = self.layout
        out = np.empty(len(self.states), dtype=np.int64)
        for b, s in enumerate(self.states):
            p = 1 - int(actor[b])
            hand = [E.card_of(s, p, k) for k in range(int(s.public.hand_len[p]))]
            out[b] = lay.combo_index(np.array(hand, dtype=np.int64))
        return out

    def play(self, actor: np.ndarray, decision: Decision, action: np.ndarray) -> tuple:
        """Apply ``action[b]`` in every game and advance the public states.

        Returns:
            ``(reward, done, score)``: ``(B,)`` float64 score change (the game's scoring
            variant), bool game over, int64 score at the end of the move.
        """
        observe(self.public, actor, decision, action)
        b = len(self.states)
        reward, done, score = np.zeros(b), np.zeros(b, dtype=bool), np.zeros(b, dtype=np.int64)
        for g, s in enumerate(self.states):
            ok, r = E.step_checked(s, int(action[g]), self._mask)
            if not ok:
                raise RuntimeError(f"game {g}: move {int(action[g])} is illegal (a BAD bug)")
            self.public.apply(g, s.public.hist[int(s.scal[E.S_N_MOVES]) - 1])
            reward[g], done[g], score[g] = r, bool(s.scal[E.S_DONE]), E.score(s)
        return reward, done, score


def decision_noise(common_seed: int, move: int, layout: Layout) -> np.ndarray:
    """``(K, A)`` float64 Gumbel noise of move ``move`` of a game: its common-knowledge draws.

    [BAD19] samples every partial policy from a seed all players share (§3.3); here the draws
    of move ``m`` of a game with common seed ``s`` come from ``numpy.random.default_rng([s, m])``,
    so every player who knows ``s`` samples the same partial policy.
    """
    rng = np.random.default_rng([int(common_seed), int(move)])
    return rng.gumbel(size=(len(layout.combos), layout.n_actions))


def evaluate(
    layout: Layout,
    net: NumpyNet,
    bayesian: bool,
    games: int,
    seed: int,
    batch: int = 64,
    sampled: bool = False,
    iterations: int = ITERATIONS,
    alpha: float = ALPHA,
) -> np.ndarray:
    """Scores of ``games`` self-play games of the policy, greedy or sampled.

    Game ``i`` is dealt with ``derive_seed(seed, i)``; sampled moves use the common seed
    ``derive_seed(seed, i, 1)`` (:func:`decision_noise`). A game's score does not depend on
    ``batch``.

    Args:
        layout: The configuration.
        net: The network.
        bayesian: BAD (True) or the baseline.
        games: Number of games.
        seed: Seed of the deals (and of the sampled moves).
        batch: Games played side by side.
        sampled: Sample each move from the policy (as in training) instead of the most
            probable move ([BAD19]'s test setting).
        iterations: Self-consistency iterations of the beliefs.
        alpha: Weight of V1 in V2.

    Returns:
        ``(games,)`` int64 final scores.
    """
    n = min(batch, games)
    table = Games(layout, n)
    scores = np.full(games, -1, dtype=np.int64)
    slot_game = np.arange(n)
    for b in range(n):
        table.deal(b, derive_seed(seed, b))
    next_game = n
    active = np.ones(n, dtype=bool)
    while active.any():
        actor = table.actors()
        noise = None
        if sampled:
            moves = [int(s.scal[E.S_N_MOVES]) for s in table.states]
            noise = np.stack(
                [decision_noise(derive_seed(seed, int(slot_game[b]), 1), moves[b], layout)
                 for b in range(n)]
            )  # fmt: skip
        d = decide(table.public, actor, net, bayesian, table.partner_combos(actor), noise,
                   iterations, alpha)  # fmt: skip
        assert d.action is not None
        assert d.legal is not None
        action = np.where(active, d.action, np.argmax(d.legal, axis=1))
        _, done, score = table.play(actor, d, action)
        for g in np.flatnonzero(done & active).tolist():
            scores[slot_game[g]] = score[g]
            if next_game < games:
                slot_game[g] = next_game
                table.deal(g, derive_seed(seed, next_game))
                next_game += 1
            else:
                active[g] = False
        for g in np.flatnonzero(done & ~active).tolist():
            table.deal(g, derive_seed(seed, 0))  # an idle slot keeps playing a dummy game
    return scores
