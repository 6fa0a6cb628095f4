"""The single-agent Gymnasium env against a partner pool, and the AEC env as one Gymnasium env.

* :class:`HanabiPartnerEnv` — a single-agent Gymnasium environment: one learning seat, every
  other seat a partner drawn from a pool (rule agents, MAP-Elites elites, SB3 models, any
  :class:`~agents.policy.Policy`) at each reset. ``action_masks()`` feeds sb3-contrib's
  ``MaskablePPO``. Train with :func:`agents.sb3.training.train_maskable_ppo`.
* :class:`SB3ActionMaskWrapper` and :func:`mask_fn` — self-play / population training through
  the AEC env (:func:`hanabi_env.env`), following PettingZoo's SB3 action-masking tutorial
  (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``): one model plays every seat
  (:func:`agents.sb3.training.train_self_play`).
* :func:`as_policy` — a pool entry (policy, baseline name or rule list) as a policy;
  :func:`legal_mask` — the legal moves of a seat computed from its player view only.
* ``PARTNER_ENV_ID`` and ``register_envs`` (defined in :mod:`agents`, re-exported here) — the
  env's id in Gymnasium's registry; ``import agents`` registers it (see "Creating it by name").

Nothing here imports ``torch`` or ``stable_baselines3``.

## `HanabiPartnerEnv`

| Property     | Value                                                                         |
|--------------|-------------------------------------------------------------------------------|
| Import       | `from agents.sb3 import HanabiPartnerEnv`                                     |
| Make by name | `gymnasium.make("hanabi_adhoc/HanabiPartner-v0", partners=["IGGI"])`          |
| Actions      | `Discrete(2h + (p-1)(c+r))`, HLE move uids (the :mod:`hanabi_env.env` table)  |
| Observation  | the learner seat's canonical vector (658 for 2p), in `observation_dtype`       |
| Obs. space   | `Box(-inf, inf, (n,), float64)` as hanabi_v5 (default); float32/int8: `Box(0, 1)` |
| Action mask  | `env.action_masks()`: `(n_actions,)` int8 0/1, the learner's legal moves      |
| Reward       | score change from the learner's move to its next turn (partners' moves too)   |
| Episode end  | `terminated` at the game's real end or an illegal move; never truncated       |
| Partners     | per episode one pool entry (uniform or `weights`) in every other seat         |
| Seeds        | `reset(seed)` seeds the env; deal, seat, partner and partner seeds drawn from it |

The return of an episode is the final score (strict scoring: 0 once the lives run out, the
step that loses the last life paying minus the score so far). An illegal action ends the
episode with ``illegal_reward`` (PettingZoo's ``TerminateIllegalWrapper`` convention; a masked
policy never plays one). ``reset(options=...)`` accepts ``"deal_seed"``, ``"seat"`` and
``"partner"`` (index or name) to script an episode.

The observation space equals the AEC env's (:func:`hanabi_env.env`) and hanabi_v5's for the same
configuration and dtype, so a model trained on any of the three loads with another attached.

## Creating it by name

``import agents`` (or anything under it, such as ``agents.sb3``) registers the env in
Gymnasium's registry as **``hanabi_adhoc/HanabiPartner-v0``**, with a lazy
``"agents.sb3.env:HanabiPartnerEnv"`` entry point, the way ``import hanabi_env`` registers the
AEC env in PettingZoo's: the partners come from ``agents`` (baseline names, policies), so the
package that defines them is the one a user has imported, and Gymnasium documents registration on
import as the mechanism for third-party envs. Without any import,
``gymnasium.make("agents:hanabi_adhoc/HanabiPartner-v0", ...)`` (Gymnasium's ``module:id`` form)
imports the package first. ``gymnasium.make`` adds Gymnasium's passive env checker and order
wrapper; ``action_masks()`` is reached through them as ``env.unwrapped.action_masks()`` or
``env.get_wrapper_attr("action_masks")()`` (what SB3's vectorised envs call), and the mask is
also in ``info["action_mask"]``. With the default float64 space, Gymnasium's full
``check_env`` warns that the bounds are infinite: they are hanabi_v5's, kept so that models
cross-load; ``observation_dtype="float32"`` declares ``Box(0, 1)``.

Sources: [CIG18]'s mixed evaluation (partners copied in every other seat; docs/papers.md §2), the
PettingZoo SB3 tutorial above.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import pettingzoo.utils
from gymnasium import spaces

from agents import PARTNER_ENV_ID, register_envs  # noqa: F401 - re-exported (module doc)
from agents import rules as R
from agents.evaluate import hle_hand_size
from agents.faults import policy_move
from agents.policy import Policy, RuleAgent
from agents.registry import make
from hanabi_env import engine as E
from hanabi_env import spaces as hs
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame, PlayerView
from hanabi_env.seeding import SEED_LIMIT

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def as_policy(partner: Policy | str | Sequence[int], seed: int = 0) -> Policy:
    """A policy from a pool entry: a policy, a baseline name, or a chromosome (an elite).

    Args:
        partner: A :class:`~agents.policy.Policy` (returned as is), a baseline name
            (:func:`agents.make`), or a rule list such as a MAP-Elites elite's solution
            (:class:`~agents.policy.RuleAgent`).
        seed: Seed of a newly built rule agent.

    Raises:
        TypeError: ``partner`` is none of these.
        ValueError: Unknown name or rule.
    """
    if isinstance(partner, Policy):
        return partner
    if isinstance(partner, str):
        return make(partner, seed=seed)
    if isinstance(partner, (Sequence, np.ndarray)):
        return RuleAgent(list(partner), seed=seed)
    raise TypeError(
        f"partners must be Policy objects, baseline names or rule lists, got "
        f"{type(partner).__name__} {partner!r}"
    )


class _ViewMask:
    """Legal-move masks from player views, with reusable writable buffers."""

    def __init__(self) -> None:
        self._view: V.View | None = None
        self._mask: np.ndarray | None = None

    def __call__(self, view: PlayerView) -> np.ndarray:
        raw = view.raw
        buf, mask = self._view, self._mask
        if (
            buf is None
            or mask is None
            or any(a.shape != b.shape for a, b in zip(buf, raw, strict=True))
        ):
            buf = self._view = V.View(*(np.array(a, copy=True) for a in raw))
            mask = self._mask = np.zeros(int(raw.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
        else:
            for dst, src in zip(buf, raw, strict=True):
                np.copyto(dst, src)
        R.legal_mask_view(buf, mask)
        return mask.copy()


def legal_mask(view: PlayerView) -> np.ndarray:
    """The legal moves of ``view``'s seat, computed from the view only.

    Returns:
        ``(n_actions,)`` int8, 1 for each legal move uid (all zeros once the game is over).
        Equal to :meth:`hanabi_env.HanabiGame.legal_mask` when the seat is on turn.
    """
    return _ViewMask()(view)


# --------------------------------------------------------------------------------------------
# the single-agent Gymnasium environment
# --------------------------------------------------------------------------------------------


class HanabiPartnerEnv(gymnasium.Env):
    """One learning seat against partners drawn from a pool (see the module docstring).

    Args:
        partners: The pool: policies, baseline names (``"IGGI"``) or rule lists (elites).
            Each entry is deep-copied once per partner seat, so one entry may fill several
            seats with separate state.
        players: Number of players, 2..5.
        seat: The learner's seat (0-based), or None for a uniformly random seat per episode.
        weights: Sampling probabilities of the pool entries (default uniform); normalised.
        scoring: ``"strict"`` (default, as the AEC env) or ``"lenient"``.
        hand_size: Cards per hand (default 5 for 2–3 players, 4 for 4–5, as the papers).
        observation_type: ``"card_knowledge"`` (default) or ``"minimal"``.
        observation_dtype: ``"float64"`` (default: hanabi_v5's space, so models trained there
            load here), ``"float32"`` or ``"int8"`` (:mod:`hanabi_env.spaces`).
        illegal_reward: Reward of an illegal learner action, which ends the episode.
        render_mode: None or ``"ansi"`` (``render()`` returns the text board).
        **config: Other :class:`hanabi_env.HanabiConfig` fields (``colors``, ``ranks``,
            ``max_information_tokens``, ``max_life_tokens``, ``random_start_player``).

    Attributes:
        partner_names: Names of the pool entries, in order.
        weights: ``(n_partners,)`` float64 sampling probabilities.
        illegal_actions: Illegal learner actions so far (stays 0 under a masked policy).

    Example:
        MAP-Elites elites as partners: ``HanabiPartnerEnv(list(archive.data()["solution"]))``;
        an SB3 model: ``HanabiPartnerEnv(["IGGI", SB3Policy("model.zip")])``.

    Raises:
        ValueError: Empty pool, bad ``seat``, ``weights`` or ``render_mode``, or a bad
            configuration (named by :class:`~hanabi_env.HanabiConfig`).
        TypeError: A pool entry of the wrong type.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 2}  # noqa: RUF012 - Gymnasium convention

    def __init__(
        self,
        partners: Sequence[Policy | str | Sequence[int]],
        players: int = 2,
        seat: int | None = None,
        weights: Sequence[float] | None = None,
        scoring: str = "strict",
        hand_size: int | None = None,
        observation_type: str = "card_knowledge",
        observation_dtype: str = hs.DEFAULT_OBSERVATION_DTYPE,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **config: Any,
    ):
        """See the class docstring."""
        if isinstance(partners, (str, Policy)) or not len(partners):
            raise ValueError("partners must be a non-empty sequence of pool entries")
        if observation_type == "seer":
            raise ValueError(
                "observation_type='seer' is not allowed; allowed: 'minimal', 'card_knowledge'"
            )
        self.config = HanabiConfig(
            players=players,
            hand_size=hle_hand_size(players) if hand_size is None else hand_size,
            scoring=scoring,
            observation_type=observation_type,
            **config,
        )
        if seat is not None and (
            isinstance(seat, bool)
            or not isinstance(seat, numbers.Integral)
            or not 0 <= seat < players
        ):
            raise ValueError(f"seat={seat!r} is out of range; allowed: None or [0, {players - 1}]")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not allowed; allowed: None, 'ansi'")
        pool = [as_policy(p) for p in partners]
        if weights is None:
            probs = np.full(len(pool), 1.0 / len(pool))
        else:
            probs = np.asarray(weights, dtype=np.float64)
            if probs.shape != (len(pool),) or (probs < 0).any() or not probs.sum() > 0:
                raise ValueError(
                    f"weights must be {len(pool)} non-negative numbers with a positive sum, "
                    f"got {weights!r}"
                )
            probs = probs / probs.sum()
        self.partner_names = [p.name for p in pool]
        self.weights = probs
        self.seat = seat
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.game = HanabiGame(self.config)
        # one copy of every pool entry per seat (a partner may sit in several seats)
        self._copies = [[copy.deepcopy(p) for p in pool] for _ in range(players)]
        self.observation_dtype = hs.check_observation_dtype(observation_dtype)
        self._obs_dtype = hs.numpy_dtype(observation_dtype)
        self.observation_space = hs.observation_space(self.game.observation_size, observation_dtype)
        self.action_space = spaces.Discrete(self.game.n_actions)
        self._learner = 0
        self._partner = 0
        self._seats: list[Policy | None] = []
        self._zero_mask = np.zeros(self.game.n_actions, dtype=np.int8)
        self._done = True
        self._pending = 0
        self.illegal_actions = 0  # illegal learner actions over the env's life

    # ------------------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        """Deal a new game, seat the learner and draw its partner.

        Args:
            seed: Seeds the env's generator (``np_random``); every episode draws its deal seed,
                learner seat, partner and partner seeds from it, in that order.
            options: Optional ``"deal_seed"`` (int in [0, 2**62)), ``"seat"`` (int) and
                ``"partner"`` (pool index or name) override the draws.

        Returns:
            ``(observation, info)``: the learner's ``(n,)`` vector (``observation_dtype``) and
            a dict with ``partner`` (name), ``seat``, ``score``, ``illegal_action`` and
            ``action_mask`` (:meth:`action_masks`, as Gymnasium's Taxi puts it in ``info``).

        Raises:
            ValueError: A bad option.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        rng = self.np_random
        deal = int(rng.integers(0, SEED_LIMIT))
        players = self.config.players
        learner = int(rng.integers(0, players)) if self.seat is None else int(self.seat)
        partner = int(rng.choice(len(self.weights), p=self.weights))
        seeds = rng.integers(0, SEED_LIMIT, players)
        deal = int(options.get("deal_seed", deal))
        if "seat" in options:
            learner = int(options["seat"])
            if not 0 <= learner < players:
                raise ValueError(
                    f"options['seat']={learner} is out of range; allowed: [0, {players - 1}]"
                )
        if "partner" in options:
            partner = self._partner_index(options["partner"])
        self._learner, self._partner = learner, partner
        self.game.reset(deal)
        self._seats = [None if p == learner else self._copies[p][partner] for p in range(players)]
        for p, pol in enumerate(self._seats):
            if pol is not None:
                pol.reset(int(seeds[p]))
        self._done = False
        self._pending = self._play_partners()  # paid with the learner's first step
        self._done = self.game.is_terminal
        return self._obs(), self._info(False)

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's move, then the partners' moves until its next turn or the end.

        Args:
            action: A move uid (int).

        Returns:
            ``(observation, reward, terminated, truncated, info)``; ``reward`` is the score
            change (points) since the learner's previous decision (the first step also pays
            the partners' moves before it); ``truncated`` is False.

        Raises:
            RuntimeError: Stepping a finished episode (call ``reset``).
        """
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        a = int(action)
        if not (0 <= a < self.game.n_actions and E.is_legal(self.game.state, a)):
            self._done = True
            self.illegal_actions += 1
            return self._obs(), self.illegal_reward, True, False, self._info(True)
        reward = self._pending + self.game.step(a)
        self._pending = 0
        reward += self._play_partners()
        self._done = self.game.is_terminal
        return self._obs(), float(reward), self._done, False, self._info(False)

    def action_masks(self) -> np.ndarray:
        """``(n_actions,)`` int8 legal moves of the learner, 1 = legal (zeros when not on turn).

        0/1 ``int8`` as PettingZoo's ``action_mask`` (sb3-contrib reads it as booleans).
        """
        if self._done or self.game.current_player != self._learner:
            return self._zero_mask.copy()
        return self.game.legal_mask()

    def render(self) -> str | None:
        """The text board (``render_mode="ansi"``), every hand shown; None otherwise."""
        if self.render_mode != "ansi":
            return None
        return self.game.render()

    # -------------------------------------------------------------------------- internals
    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._learner

    @property
    def partner_name(self) -> str:
        """Name of the current episode's partner."""
        return self.partner_names[self._partner]

    def _partner_index(self, key) -> int:
        if isinstance(key, str):
            if key not in self.partner_names:
                raise ValueError(
                    f"options['partner']={key!r} is not in the pool; allowed: {self.partner_names}"
                )
            return self.partner_names.index(key)
        k = int(key)
        if not 0 <= k < len(self.partner_names):
            last = len(self.partner_names) - 1
            raise ValueError(f"options['partner']={k} is out of range; allowed: [0, {last}]")
        return k

    def _play_partners(self) -> int:
        reward = 0
        g = self.game
        while not g.is_terminal and g.current_player != self._learner:
            cur = g.current_player
            seat = self._seats[cur]
            assert seat is not None  # only the learner's seat is empty
            view = g.view(cur)
            reward += g.step(policy_move(seat, view, view.legal_mask(), move=view.n_moves))
        return reward

    def _obs(self) -> np.ndarray:
        return self.game.observation(self._learner).astype(self._obs_dtype, copy=False)

    def _info(self, illegal: bool) -> dict:
        return {
            "partner": self.partner_names[self._partner],
            "seat": self._learner,
            "score": self.game.score,
            "illegal_action": illegal,
            "action_mask": self.action_masks(),  # Gymnasium's convention (e.g. Taxi-v3)
        }


# --------------------------------------------------------------------------------------------
# the AEC env as one Gymnasium env (self-play)
# --------------------------------------------------------------------------------------------


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """The AEC env as one Gymnasium env for self-play, PettingZoo's SB3 tutorial pattern.

    From PettingZoo's ``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``: the
    single model sees the observation of whichever seat is on turn; ``step`` returns the
    next seat's observation and the mover's reward, termination and info. Since Hanabi is
    cooperative and every seat receives the score change, the rewards of one game sum to its
    final score. Also a ``gymnasium.Env`` so that Gymnasium 1.x wrappers (``ActionMasker``,
    ``Monitor``) accept it. Spaces are set at construction (every seat has the same ones).

    Args:
        env: A PettingZoo AEC env with dict observations ``{"observation", "action_mask"}``
            (e.g. :func:`hanabi_env.env`).
    """

    def __init__(self, env):
        """See the class docstring."""
        super().__init__(env)
        first = env.possible_agents[0]
        self.observation_space = env.observation_space(first)["observation"]
        self.action_space = env.action_space(first)

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Gymnasium-style reset: ``(observation of the seat on turn, {})``."""
        super().reset(seed=seed, options=options)
        return self.observe(self.agent_selection), {}

    def step(self, action):
        """Step the seat on turn; ``(next obs, mover's reward, terminated, truncated, info)``."""
        current = self.agent_selection
        super().step(int(action))
        return (
            self.observe(self.agent_selection),
            float(self._cumulative_rewards[current]),
            bool(self.terminations[current]),
            bool(self.truncations[current]),
            dict(self.infos[current]),
        )

    def observe(self, agent: str) -> np.ndarray:
        """The raw observation vector (the action mask removed)."""
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        """``(n_actions,)`` int8 legal moves of the seat on turn."""
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env) -> np.ndarray:
    """``ActionMasker`` callback: the wrapped env's :meth:`SB3ActionMaskWrapper.action_mask`."""
    return env.action_mask()
