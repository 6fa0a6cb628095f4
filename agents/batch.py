"""The batch protocol: policies that decide for many games at once (one forward pass per step).

A :class:`BatchPolicy` is a :class:`~agents.policy.Policy` that also answers
:meth:`BatchPolicy.act_batch` for ``B`` games at once, from arrays:

* ``obs``: ``(B, obs_dim)`` in the policy's ``observation_dtype``, the canonical observation
  of the seat to move (``observation_type``; layout in :mod:`hanabi_env.env`);
* ``mask``: ``(B, n_actions)`` int8, 1 for each legal move uid;
* ``seats``: ``(B,)`` int64, the absolute seat that moves;
* ``draws``: ``(B,)`` float64 in [0, 1), one uniform number per decision, from that seat's
  seeded stream;

and returns ``(B,)`` integer move uids, each legal under its mask. Every consumer that plays
games (:func:`agents.evaluate.play_games` and so :func:`agents.evaluate`, match-up and response
tables, the GA's mixed fitness, the meta-agent evaluation, the benchmark) plays a pool holding
a batch policy in lockstep (:mod:`agents.lockstep`): rule agents act inside a kernel and the
batch policy once per step for every game waiting for it.

**Policies that read the whole view.** A batch policy whose decision needs more than the
current observation, for instance a belief kept over the move history ([BAD19]'s agent), sets
``needs_views = True``: the lockstep player then calls :meth:`BatchPolicy.start_games` with the
chunk's agent seeds before its first decision, and passes ``views`` (the
:class:`~hanabi_env.PlayerView` of each decision) and ``games`` (``(B,)`` int64, each decision's
game within the chunk, ``0 .. n-1``) to ``act_batch`` as keywords. Such a policy may keep
per-game state between the decisions of a chunk, keyed by ``games`` and ``seats``.

**Hand order.** In a game with the Java framework's fixed hand slots
(``HanabiConfig(hand_order="fixed")``) a batch policy is shown every hand in age order, as HLE
orders it and as a network trained in this env reads it, and the play or discard slot it picks is
mapped back to the game's slot (:mod:`agents.hand_order`; :func:`shows_age_order` decides): its
``obs`` and ``mask`` are reordered, and ``act_batch`` answers in that order. A policy opts out
with ``observation_hand_order = "game"``; one that reads views (``needs_views``) always sees the
game's slots. In HLE-order games nothing changes.

**Seeds.** ``draws`` make sampling policies deterministic without a generator of their own in
the batch: the uniform of a decision comes from the generator of its game and seat, seeded
with the seat's agent seed (as a rule agent's), one draw per decision. :meth:`BatchPolicy.act`
(one decision from a :class:`~hanabi_env.PlayerView`, for the per-game path and PettingZoo
loops) draws from the policy's own generator, seeded by :meth:`reset`, the same way; so a
batch policy plays the same games on both paths (tests check it).
:func:`masked_choice` turns scores into moves with these draws.

Source: the design of the batched paths (docs/architecture.md §3); the observation encoding is
HLE's canonical one (docs/anchors.md §2.2).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents import hand_order as HO
from agents.faults import agent_label, check_moves
from agents.policy import Policy
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import PlayerView
from hanabi_env.rng import new_rng, rng_next, rng_seed
from hanabi_env.validate import check_bool, check_choice, check_seed, check_str

__all__ = [
    "OBSERVATION_DTYPES",
    "POLICY_OBSERVATION_TYPES",
    "BatchPolicy",
    "TorchPolicy",
    "UniformBatchPolicy",
    "check_policy_observations",
    "draw_uniform",
    "masked_choice",
    "policy_observation_type",
    "shows_age_order",
]

OBSERVATION_DTYPES = ("float32", "float64", "int8")
"""Observation dtypes a batch policy may ask for."""

POLICY_OBSERVATION_TYPES = ("card_knowledge", "minimal")
"""Observation types a policy may take: what its seat may see.

``"seer"`` (every hand face up, the viewer's own included; :mod:`hanabi_env.env`) is not one:
it exists for analysis tools that ask for it by name (``HanabiGame.view(seat, seer=True)``,
``HanabiGame.observation(seat, "seer")``, the env's ``state()``, the renderer), never for a
policy that plays (docs/reliability.md §9)."""


def policy_observation_type(policy: object, cfg: np.ndarray) -> str:
    """The observation type ``policy`` takes in games of ``cfg``, if a policy may take it.

    The one place where a policy's declared observation type is honoured: the lockstep player
    (:mod:`agents.lockstep`), :meth:`BatchPolicy.act` (the per-game path, PettingZoo loops, the
    browser) and :func:`check_policy_observations` ask here.

    Args:
        policy: A :class:`BatchPolicy` (its :meth:`~BatchPolicy.observation_type_for`), or
            any policy with an ``observation_type`` attribute.
        cfg: The engine's config array of the game (:mod:`hanabi_env.engine`).

    Returns:
        ``"card_knowledge"`` or ``"minimal"``.

    Raises:
        ValueError: The policy asks for another observation type (``"seer"``, which shows the
            seat's own cards, or an unknown name); the message names the policy, the type and
            the allowed ones.
    """
    if isinstance(policy, BatchPolicy):
        name = policy.observation_type_for(cfg)
    else:
        name = getattr(policy, "observation_type", "card_knowledge")
    if isinstance(name, str) and name in POLICY_OBSERVATION_TYPES:
        return name
    hidden = " (it shows cards the seat may not see)" if name == "seer" else ""
    raise ValueError(
        f"policy {agent_label(policy)!r} asks for observation_type={name!r}{hidden}; allowed "
        f"for a policy: {', '.join(map(repr, POLICY_OBSERVATION_TYPES))} (hidden-card views "
        "are for analysis tools that ask for them by name)"
    )


def shows_age_order(policy: object, cfg: np.ndarray) -> bool:
    """Whether the game loops show ``policy`` every hand in age order (:mod:`agents.hand_order`).

    True in a game with fixed hand slots for a :class:`BatchPolicy` whose
    ``observation_hand_order`` is ``"age"`` (the default) and that does not read views
    (``needs_views``); False in HLE-order games (nothing to reorder), for rule agents and other
    policies (they decide from the :class:`~hanabi_env.PlayerView`), and for a batch policy
    that opts out with ``observation_hand_order = "game"``.

    Args:
        policy: Any policy.
        cfg: The engine's config array of the game (:mod:`hanabi_env.engine`).

    Raises:
        ValueError: ``observation_hand_order`` is neither ``"age"`` nor ``"game"`` (the message
            names the policy).
    """
    if int(cfg[E.CFG_HAND_ORDER]) != E.HAND_FIXED or not isinstance(policy, BatchPolicy):
        return False
    order = policy.observation_hand_order
    if not isinstance(order, str) or order not in HO.OBSERVATION_HAND_ORDERS:
        raise ValueError(
            f"policy {agent_label(policy)!r} has observation_hand_order={order!r}; allowed: "
            f"{', '.join(map(repr, HO.OBSERVATION_HAND_ORDERS))}"
        )
    return order == "age" and not policy.needs_views


def check_policy_observations(policies: Sequence[object], config: HanabiConfig) -> None:
    """Refuse, before any game, a policy that asks for an observation its seat may not see.

    Args:
        policies: The policies of a run.
        config: The game's configuration.

    Raises:
        ValueError: As :func:`policy_observation_type` and :func:`shows_age_order`.
    """
    cfg = None
    for pol in policies:
        if isinstance(pol, BatchPolicy) or hasattr(pol, "observation_type"):
            if cfg is None:
                cfg = E.new_state(config).cfg
            policy_observation_type(pol, cfg)
            shows_age_order(pol, cfg)


def draw_uniform(rng: np.ndarray) -> float:
    """One uniform number in [0, 1) from a :mod:`hanabi_env.rng` generator (one 32-bit draw).

    The draw of a batch decision (:class:`BatchPolicy`): ``next 32-bit value / 2**32``.
    """
    return float(rng_next(rng)) / 4294967296.0


def masked_choice(
    scores: np.ndarray, mask: np.ndarray, draws: np.ndarray, deterministic: bool
) -> np.ndarray:
    """Moves from per-move scores: the best legal one, or a draw from the masked softmax.

    Args:
        scores: ``(B, n_actions)`` float logits (any scale; illegal entries are ignored).
        mask: ``(B, n_actions)`` 0/1 (or bool) legal moves; every row needs one.
        draws: ``(B,)`` float64 uniforms in [0, 1) (used when sampling).
        deterministic: Argmax of the legal scores (ties: the lowest uid) if True, else the
            move whose cumulative masked probability (uid order) first exceeds the draw.

    Returns:
        ``(B,)`` int64 legal move uids.

    Raises:
        ValueError: A row without a legal move, or mismatched shapes.
    """
    scores = np.asarray(scores, dtype=np.float64)
    legal = np.asarray(mask) != 0
    if scores.shape != legal.shape or scores.ndim != 2 or len(draws) != len(scores):
        raise ValueError(
            f"scores {scores.shape}, mask {legal.shape} and draws ({len(draws)},) do not match"
        )
    if not legal.any(axis=1).all():
        raise ValueError("masked_choice: a row of mask has no legal move")
    masked = np.where(legal, scores, -np.inf)
    if deterministic:
        return masked.argmax(axis=1).astype(np.int64)
    probs = np.exp(masked - masked.max(axis=1, keepdims=True))
    cdf = np.cumsum(probs, axis=1)
    target = np.asarray(draws, dtype=np.float64) * cdf[:, -1]
    picks = (cdf <= target[:, None]).sum(axis=1)
    picks = np.minimum(picks, scores.shape[1] - 1)
    # a pick on an illegal move (zero probability: only through rounding at the top) falls back
    # to the last legal move at or before it
    bad = ~legal[np.arange(len(picks)), picks]
    for row in np.flatnonzero(bad):
        picks[row] = np.flatnonzero(legal[row, : picks[row] + 1])[-1]
    return picks.astype(np.int64)


class BatchPolicy(Policy):
    """A policy that decides for many games at once (see the module docstring).

    Subclasses implement :meth:`act_batch` and set ``observation_type`` (``"card_knowledge"``
    or ``"minimal"``, :data:`POLICY_OBSERVATION_TYPES`; a policy that asks for ``"seer"`` is
    refused with a ``ValueError`` naming it) and ``observation_dtype`` (``"float32"``,
    ``"float64"`` or ``"int8"``) to the observation they take. :meth:`act` (one decision from
    a view) and :meth:`reset` come for free. ``observation_hand_order`` is ``"age"`` (the
    default: in a fixed-slot game the policy sees every hand in age order and answers in it,
    module docstring) or ``"game"`` (the game's own slots). A batch policy must not keep state
    between the decisions of a game (the lockstep player interleaves games); one that does is a
    plain :class:`Policy`.
    """

    name: str = "batch-policy"
    observation_type: str = "card_knowledge"
    observation_dtype: str = "float32"
    observation_hand_order: str = "age"
    needs_views: bool = False

    @abstractmethod
    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """``(B,)`` legal move uids for ``B`` decisions (arrays of the module docstring)."""

    def start_games(self, agent_seeds: np.ndarray) -> None:
        """A lockstep chunk of games starts (``needs_views`` policies only; see the module).

        Args:
            agent_seeds: ``(n_games, players)`` int64, each seat's agent seed in each game of
                the chunk (what :meth:`reset` gets on the per-game path).
        """

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the policy's own draw stream (used by :meth:`act`) when ``seed`` is given.

        Raises:
            TypeError, ValueError: ``seed`` is not None or an int in ``[0, 2**62)``.
        """
        seed = check_seed("seed", seed, allow_none=True)
        if seed is not None:
            rng_seed(self._draw_rng(), seed)

    def _draw_rng(self) -> np.ndarray:
        rng = getattr(self, "_rng", None)
        if rng is None:
            rng = self._rng = new_rng(0)
        return rng

    def observation_type_for(self, cfg: np.ndarray) -> str:
        """The observation type this policy takes in games of configuration ``cfg``.

        ``observation_type`` by default; a policy that fits several game sizes (an SB3 model
        infers it from its input size) overrides it.
        """
        return self.observation_type

    def act(self, view: PlayerView) -> int:
        """One decision for ``view``'s seat (on turn): :meth:`act_batch` on a batch of one.

        In a fixed-slot game the policy sees the view in age order and its move is mapped back
        to the game's slot (:func:`shows_age_order`).

        Raises:
            ValueError: The policy asks for an observation type a policy may not take
                (:func:`policy_observation_type`) or has a bad ``observation_hand_order``, or
                the view has no legal move.
            AgentFault: ``act_batch`` returned anything but one legal move id
                (:func:`agents.faults.check_moves`).
        """
        cfg = view.raw.cfg
        name = policy_observation_type(self, cfg)
        obs_type = V.OBSERVATION_TYPES[name]
        obs = np.zeros((1, V.observation_size(cfg, obs_type)), dtype=self.observation_dtype)
        obs[0] = view.encode(name)
        mask = np.zeros((1, int(cfg[E.CFG_N_ACTIONS])), dtype=np.int8)
        V.view_legal_mask(V.pack_view(view.raw), mask[0])
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal move (seat {view.seat})")
        draws = np.array([draw_uniform(self._draw_rng())])
        seats = np.array([view.seat], dtype=np.int64)
        by_age = shows_age_order(self, cfg)
        if by_age:
            obs, mask, order = HO.show_by_age(obs, mask, cfg, seats, HO.hands_of_view(view))
        one = np.full(1, -1, dtype=np.int64)
        acts = check_moves(
            agent_label(self), self.act_batch(obs, mask, seats, draws), mask, one, one
        )
        if by_age:
            acts = HO.moves_to_game(acts, order, int(cfg[E.CFG_HAND]))
        return int(acts[0])


class TorchPolicy(BatchPolicy):
    """A ``torch.nn.Module`` mapping observations to move logits, as a batch policy.

    The module takes a float tensor ``(B, obs_dim)`` (the canonical observation of
    ``observation_type``) and returns logits ``(B, n_actions)``; illegal moves are masked out.
    One forward pass serves every game waiting for the policy. Torch runs on the CPU (or the
    module's device) with gradients off; ``torch`` is imported only when the policy acts.

    Args:
        module: The network (``torch.nn.Module``), in eval mode.
        observation_type: ``"card_knowledge"`` (default) or ``"minimal"``.
        deterministic: The best legal move (default) or a draw from the masked softmax.
        name: Display name.
        seed: Seed of the policy's own draw stream (:meth:`BatchPolicy.act`).
        observation_hand_order: ``"age"`` (default: a fixed-slot game is shown in age order,
            as a network trained in this env reads hands; :mod:`agents.hand_order`) or
            ``"game"`` (the game's own slots, for a network trained with fixed slots).

    Raises:
        TypeError: ``module`` is not callable, or a bad ``deterministic`` / ``name``.
        ValueError: A bad ``observation_type``, ``seed`` or ``observation_hand_order``.
    """

    observation_dtype = "float32"

    def __init__(
        self,
        module: Any,
        observation_type: str = "card_knowledge",
        deterministic: bool = True,
        name: str = "torch-policy",
        seed: int = 0,
        observation_hand_order: str = "age",
    ):
        """See the class docstring."""
        if not callable(module):
            raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
        check_choice("observation_type", observation_type, ("card_knowledge", "minimal"))
        self.observation_hand_order = check_choice(
            "observation_hand_order", observation_hand_order, HO.OBSERVATION_HAND_ORDERS
        )
        self.module = module
        self.observation_type = observation_type
        self.deterministic = check_bool("deterministic", deterministic)
        self.name = check_str("name", name)
        self.reset(check_seed("seed", seed))

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(B, n_actions)`` float64 logits of the module for ``obs`` ``(B, obs_dim)``."""
        import torch

        device = next(iter(self.module.parameters()), torch.zeros(0)).device
        with torch.no_grad():
            out = self.module(torch.as_tensor(obs, dtype=torch.float32, device=device))
        return out.double().cpu().numpy()

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """The masked argmax (or draw) of the module's logits, one forward pass."""
        return masked_choice(self.logits(obs), mask, draws, self.deterministic)

    def __repr__(self) -> str:
        """Name and mode."""
        mode = "deterministic" if self.deterministic else "sampled"
        return f"TorchPolicy({self.name!r}, {self.observation_type}, {mode})"


class UniformBatchPolicy(BatchPolicy):
    """A uniformly random legal move per decision, as a batch policy (no torch needed).

    The batched twin of the LegalRandom baseline's fallback: move ``floor(draw * n_legal)`` of
    the legal moves in uid order. For tests, warm-ups and as the simplest example of the
    protocol.

    Args:
        name: Display name.
        seed: Seed of the policy's own draw stream (:meth:`BatchPolicy.act`).
    """

    observation_type = "minimal"
    observation_dtype = "int8"

    def __init__(self, name: str = "uniform-batch", seed: int = 0):
        """See the class docstring."""
        self.name = check_str("name", name)
        self.reset(check_seed("seed", seed))

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """The ``floor(draw * n_legal)``-th legal move of each row."""
        legal = np.asarray(mask) != 0
        counts = legal.sum(axis=1)
        if not counts.all():
            raise ValueError("act_batch: a row of mask has no legal move")
        nth = np.minimum((np.asarray(draws) * counts).astype(np.int64), counts - 1)
        ranks = np.cumsum(legal, axis=1) - 1  # rank of each legal move in its row
        return np.argmax(legal & (ranks == nth[:, None]), axis=1).astype(np.int64)
