"""Reinforcement-learning partners: Stable-Baselines3 policies in every pool and seat.

Three pieces, all optional (``pip install ".[rl]"`` installs Stable-Baselines3 and sb3-contrib;
``torch`` and ``stable_baselines3`` are imported only inside the functions that need them, so
this module and :class:`HanabiPartnerEnv` import without them):

* :class:`HanabiPartnerEnv` — a single-agent Gymnasium environment: one learning seat, every
  other seat a partner drawn from a pool (rule agents, MAP-Elites elites, SB3 models, any
  :class:`~agents.policy.Policy`) at each reset. ``action_masks()`` feeds sb3-contrib's
  ``MaskablePPO``. Train with :func:`train_maskable_ppo`.
* :class:`SB3Policy` — a saved ``MaskablePPO`` model as a :class:`~agents.policy.Policy`: acts
  from the player view with the legal mask, deterministic or sampled from its own generator.
  It pickles without the model (the path only) and loads it once per process, so it works in
  the AEC loop, :func:`agents.evaluate.play_games`/``evaluate`` (worker processes), the GA's
  mixed fitness (:func:`qd.ga.population_fitness`), :func:`meta.table.build_table` and
  :func:`meta.evaluate.evaluate_meta`.
* :class:`SB3ActionMaskWrapper` and :func:`train_self_play` — self-play / population training
  through the AEC env (:func:`hanabi_env.env`), following PettingZoo's SB3 action-masking
  tutorial (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``): one model plays
  every seat.

## `HanabiPartnerEnv`

| Property     | Value                                                                         |
|--------------|-------------------------------------------------------------------------------|
| Import       | `from agents.sb3 import HanabiPartnerEnv`                                     |
| Actions      | `Discrete(2h + (p-1)(c+r))`, HLE move uids (the :mod:`hanabi_env.env` table)  |
| Observation  | `Box(0, 1, (n,), int8)`: the learner seat's canonical vector (658 for 2p)     |
| Action mask  | `env.action_masks()`: `(n_actions,)` bool, the learner's legal moves          |
| Reward       | score change from the learner's move to its next turn (partners' moves too)   |
| Episode end  | `terminated` at the game's real end or an illegal move; never truncated       |
| Partners     | per episode one pool entry (uniform or `weights`) in every other seat         |
| Seeds        | `reset(seed)` seeds the env; deal, seat, partner and partner seeds drawn from it |

The return of an episode is the final score (strict scoring: 0 once the lives run out, the
step that loses the last life paying minus the score so far). An illegal action ends the
episode with ``illegal_reward`` (PettingZoo's ``TerminateIllegalWrapper`` convention; a masked
policy never plays one). ``reset(options=...)`` accepts ``"deal_seed"``, ``"seat"`` and
``"partner"`` (index or name) to script an episode.

## Torch threads

Training and acting run torch on **one thread per process** by default (``torch_threads=1`` in
:func:`train_maskable_ppo`, :func:`train_self_play` and :class:`SB3Policy`). The networks are
small MLPs: one thread trains them as fast as two, while torch's default (one thread per
core) collapses when other processes share the cores (on a busy 2-core machine: ~600 steps/s
on one thread, 46–85 steps/s on two). The count is set with ``torch.set_num_threads`` for the
duration of the call only: training sets it before building the model and restores the
previous value when ``learn`` returns (or raises); :class:`SB3Policy` does the same around
each load and forward pass (~1 µs). ``torch_threads=None`` leaves torch's setting alone
(torch's default, ``OMP_NUM_THREADS``, or the caller's own ``torch.set_num_threads``).

Sources: [CIG18]'s mixed evaluation (partners copied in every other seat; docs/papers.md §2), the
PettingZoo SB3 tutorial above, sb3-contrib's ``MaskablePPO`` documentation
(https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html).
"""

from __future__ import annotations

import contextlib
import copy
import numbers
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pettingzoo.utils
from gymnasium import spaces

from agents import _rules as R
from agents.evaluate import hle_hand_size
from agents.policy import Policy, RuleAgent, make
from hanabi_env import _engine as E
from hanabi_env import _view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame, PlayerView

__all__ = [
    "HanabiPartnerEnv",
    "SB3ActionMaskWrapper",
    "SB3Policy",
    "as_policy",
    "legal_mask",
    "load_model",
    "mask_fn",
    "train_maskable_ppo",
    "train_self_play",
]

SEED_LIMIT = 2**62


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
        if self._view is None or any(
            a.shape != b.shape for a, b in zip(self._view, raw, strict=True)
        ):
            self._view = V.View(*(np.array(a, copy=True) for a in raw))
            self._mask = np.zeros(int(raw.cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
        else:
            for dst, src in zip(self._view, raw, strict=True):
                np.copyto(dst, src)
        R.legal_mask_view(self._view, self._mask)
        return self._mask.copy()


def _check_torch_threads(torch_threads: int | None) -> int | None:
    """Validate a ``torch_threads`` argument: None, or an int >= 1.

    Returns:
        ``torch_threads`` as an ``int``, or None.

    Raises:
        TypeError: Not an int (bools are rejected too) and not None.
        ValueError: Less than 1.
    """
    if torch_threads is None:
        return None
    if isinstance(torch_threads, bool) or not isinstance(torch_threads, numbers.Integral):
        raise TypeError(
            f"torch_threads must be an int >= 1 or None, got "
            f"{type(torch_threads).__name__} {torch_threads!r}"
        )
    if torch_threads < 1:
        raise ValueError(f"torch_threads={torch_threads} is out of range; allowed: >= 1 or None")
    return int(torch_threads)


@contextlib.contextmanager
def _torch_threads(torch_threads: int | None) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(torch_threads)``, then restore the old value.

    ``None`` leaves torch alone (and does not import it). Only the intra-op thread count is
    changed (``torch.set_num_interop_threads`` can be set once per process, so it is never
    touched). Nothing is set when the count already matches.

    Raises:
        TypeError, ValueError: A bad ``torch_threads`` (:func:`_check_torch_threads`).
    """
    n = _check_torch_threads(torch_threads)
    if n is None:
        yield
        return
    import torch

    previous = torch.get_num_threads()
    if previous == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


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
        self.observation_space = spaces.Box(0, 1, (self.game.observation_size,), np.int8)
        self.action_space = spaces.Discrete(self.game.n_actions)
        self._learner = 0
        self._partner = 0
        self._seats: list[Policy | None] = []
        self._zero_mask = np.zeros(self.game.n_actions, dtype=bool)
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
            ``(observation, info)``: the learner's ``(n,)`` int8 vector and a dict with
            ``partner`` (name), ``seat``, ``score`` and ``illegal_action``.

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
        """``(n_actions,)`` bool legal moves of the learner (all False when not on turn)."""
        if self._done or self.game.current_player != self._learner:
            return self._zero_mask.copy()
        return self.game.legal_mask().astype(bool)

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
            reward += g.step(int(self._seats[cur].act(g.view(cur))))
        return reward

    def _obs(self) -> np.ndarray:
        return self.game.observation(self._learner)

    def _info(self, illegal: bool) -> dict:
        return {
            "partner": self.partner_names[self._partner],
            "seat": self._learner,
            "score": self.game.score,
            "illegal_action": illegal,
        }


# --------------------------------------------------------------------------------------------
# SB3 models as policies
# --------------------------------------------------------------------------------------------

_MODELS: dict[tuple, Any] = {}


def load_model(path: str | Path, algo: str = "MaskablePPO"):
    """Load a saved SB3 model on the CPU, once per process (cached by path and file version).

    A forked worker reuses a model its parent had loaded. Torch's thread count is not changed
    here: :class:`SB3Policy` sets it around each load and forward pass (``torch_threads``).

    Args:
        path: The ``.zip`` written by ``model.save``.
        algo: ``"MaskablePPO"`` (sb3-contrib).

    Returns:
        The model (``sb3_contrib.MaskablePPO``).

    Raises:
        ValueError: Unknown ``algo``.
        FileNotFoundError: No such file.
        ImportError: sb3-contrib is not installed (``pip install ".[rl]"``).
    """
    if algo != "MaskablePPO":
        raise ValueError(f"algo={algo!r} is not allowed; allowed: 'MaskablePPO'")
    p = Path(path).expanduser().resolve()
    if not p.exists() and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"no SB3 model at {path}")
    st = p.stat()
    key = (str(p), algo, st.st_mtime_ns, st.st_size)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'SB3 policies need the rl extra: pip install ".[rl]" (torch, sb3-contrib)'
        ) from exc
    model = _MODELS.get(key)
    if model is None:
        model = MaskablePPO.load(str(p), device="cpu")
        _MODELS[key] = model
    return model


class SB3Policy(Policy):
    """A saved ``MaskablePPO`` model as a policy (see the module docstring).

    The model sees the canonical observation vector of the seat (``view.encode``) and the
    legal-move mask computed from the view (:func:`legal_mask`), passed as ``action_masks`` to
    ``model.predict``. Deterministic policies take the most likely legal move; sampled ones
    draw from the masked action distribution with their own generator, re-seeded by
    :meth:`reset`, so results depend only on the seeds (never on torch's global generator).

    The policy pickles without the model: only the path travels to worker processes, and
    :func:`load_model` loads it once per process.

    Torch runs on ``torch_threads`` threads (default 1) in whichever process acts: the policy
    sets ``torch.set_num_threads(torch_threads)`` around each model load and forward pass and
    restores the previous value afterwards, so torch's setting is unchanged between moves.

    Args:
        path: The model's ``.zip`` (``model.save(path)``).
        deterministic: Argmax (True) or sample (False).
        seed: Seed of the sampling generator.
        name: Display name (default ``"sb3:<file stem>"``).
        observation_type: ``"card_knowledge"`` or ``"minimal"``; None infers it from the
            model's observation size and the game configuration.
        torch_threads: Torch threads while loading and acting (int >= 1), or None to leave
            torch's setting alone.

    Raises:
        FileNotFoundError: No model at ``path``.
        ValueError: Bad ``observation_type``, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
    """

    def __init__(
        self,
        path: str | Path,
        deterministic: bool = True,
        seed: int = 0,
        name: str | None = None,
        observation_type: str | None = None,
        torch_threads: int | None = 1,
    ):
        """See the class docstring."""
        threads = _check_torch_threads(torch_threads)
        p = Path(path).expanduser().resolve()
        if not p.exists() and p.with_suffix(".zip").exists():
            p = p.with_suffix(".zip")
        if not p.is_file():
            raise FileNotFoundError(f"no SB3 model at {path}")
        if observation_type not in (None, "card_knowledge", "minimal"):
            raise ValueError(
                f"observation_type={observation_type!r} is not allowed; allowed: None, "
                "'card_knowledge', 'minimal'"
            )
        self.path = str(p)
        self.deterministic = bool(deterministic)
        self.seed = int(seed)
        self.name = name or f"sb3:{p.stem}"
        self.observation_type = observation_type
        self.torch_threads = threads
        self.rng = np.random.default_rng(self.seed)
        self._model = None
        self._mask = _ViewMask()

    @property
    def model(self):
        """The loaded model (``MaskablePPO``; loaded on first use, once per process)."""
        if self._model is None:
            with _torch_threads(self.torch_threads):
                self._model = load_model(self.path)
        return self._model

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_model"] = None  # workers reload from the path (cached per process)
        state["_mask"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        state.setdefault("torch_threads", 1)  # pickled before the option existed
        self.__dict__.update(state)
        self._mask = _ViewMask()

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling generator when ``seed`` is given (the policy has no memory)."""
        if seed is not None:
            self.rng = np.random.default_rng(int(seed))

    def _obs_type(self, view: PlayerView) -> str:
        size = int(self.model.observation_space.shape[0])
        names = (self.observation_type,) if self.observation_type else ("card_knowledge", "minimal")
        for name in names:
            if V.observation_size(view.raw.cfg, V.OBSERVATION_TYPES[name]) == size:
                return name
        raise ValueError(
            f"{self.name}: the model takes observations of size {size}, which matches no "
            f"observation type in {names} of this game ({view.n_players} players, hand size "
            f"{view.hand_size}); it was trained for another configuration"
        )

    def action_probabilities(self, view: PlayerView) -> np.ndarray:
        """The masked action distribution of the model at ``view``.

        Returns:
            ``(n_actions,)`` float64 probabilities, zero on illegal moves, summing to 1.

        Raises:
            ValueError: The view has no legal move (game over), or the observation size does
                not fit the model.
        """
        obs, mask = self._inputs(view)
        with _torch_threads(self.torch_threads):
            return self._probs(obs, mask)

    def _inputs(self, view: PlayerView) -> tuple[np.ndarray, np.ndarray]:
        obs = view.encode(self._obs_type(view))
        mask = self._mask(view).astype(bool)
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal move (seat {view.seat})")
        return obs, mask

    def _probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        policy = self.model.policy
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(obs_t, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        return probs / probs.sum()

    def act(self, view: PlayerView) -> int:
        """A legal move uid for ``view``'s seat (must be on turn)."""
        obs, mask = self._inputs(view)
        model = self.model
        with _torch_threads(self.torch_threads):
            if self.deterministic:
                action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            else:
                probs = self._probs(obs, mask)
        if self.deterministic:
            action = int(np.asarray(action).reshape(-1)[0])
        else:
            cdf = np.cumsum(probs)
            action = int(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"))
            action = min(action, len(cdf) - 1)
        if not mask[action]:  # pragma: no cover - the mask forbids it
            raise RuntimeError(f"{self.name} chose the illegal move {action}")
        return action

    def __repr__(self) -> str:
        """Name, path and mode."""
        mode = "deterministic" if self.deterministic else "sampled"
        return f"SB3Policy({self.name!r}, path={self.path!r}, {mode})"


# --------------------------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------------------------


def train_maskable_ppo(
    partners: Sequence[Policy | str | Sequence[int]],
    total_timesteps: int,
    seed: int = 0,
    n_envs: int = 1,
    path: str | Path | None = None,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    **ppo_kwargs: Any,
):
    """Train ``MaskablePPO`` on :class:`HanabiPartnerEnv` against a partner pool, on the CPU.

    Args:
        partners: The training pool (policies, baseline names, rule lists, SB3 policies).
        total_timesteps: Learner decisions to train on, >= 1.
        seed: Seeds the model (``MaskablePPO(seed=...)``) and the environments
            (env ``i`` is reset with ``seed + i``).
        n_envs: Environments stepped in lock-step (``DummyVecEnv``), >= 1.
        path: Where to save the model (``.zip``), or None.
        env_kwargs: Other :class:`HanabiPartnerEnv` arguments (``players``, ``scoring``,
            ``seat``, ``weights``, ...).
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (int >= 1;
            default 1, see the module docstring), set with ``torch.set_num_threads`` and
            restored to the previous value when training ends (or fails); None leaves
            torch's setting alone.
        **ppo_kwargs: ``MaskablePPO`` arguments (``n_steps``, ``batch_size``,
            ``learning_rate``, ``ent_coef``, ``policy_kwargs``, ...).

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError: ``total_timesteps`` or ``n_envs`` < 1, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
        ImportError: sb3-contrib is not installed.
    """
    threads = _check_torch_threads(torch_threads)
    if int(total_timesteps) < 1:
        raise ValueError(f"total_timesteps={total_timesteps} is out of range; allowed: >= 1")
    if int(n_envs) < 1:
        raise ValueError(f"n_envs={n_envs} is out of range; allowed: >= 1")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    kwargs = dict(env_kwargs or {})
    vec = make_vec_env(
        HanabiPartnerEnv,
        n_envs=int(n_envs),
        seed=int(seed),
        env_kwargs={"partners": partners, **kwargs},
    )
    return _learn(MaskablePPO, vec, seed, total_timesteps, path, verbose, threads, ppo_kwargs)


def _learn(algorithm, env, seed, total_timesteps, path, verbose, torch_threads, ppo_kwargs):
    """Train an ``MlpPolicy`` on ``env`` (CPU, ``torch_threads`` threads); save; close ``env``."""
    try:
        with _torch_threads(torch_threads):
            model = algorithm(
                "MlpPolicy", env, seed=int(seed), device="cpu", verbose=verbose, **ppo_kwargs
            )
            model.learn(total_timesteps=int(total_timesteps))
            if path is not None:
                model.save(str(path))
    finally:
        env.close()
    return model


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
        super().reset(seed, options)
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


def train_self_play(
    total_timesteps: int,
    seed: int = 0,
    path: str | Path | None = None,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    torch_threads: int | None = 1,
    **ppo_kwargs: Any,
):
    """Self-play ``MaskablePPO`` through the AEC env (one model in every seat).

    PettingZoo's SB3 action-masking pattern: :func:`hanabi_env.env` →
    :class:`SB3ActionMaskWrapper` → sb3-contrib's ``ActionMasker(env, mask_fn)`` →
    ``MaskablePPO``. Population training: load the result as :class:`SB3Policy` and add it to
    the pool of :func:`train_maskable_ppo`.

    Args:
        total_timesteps: Moves to train on (all seats), >= 1.
        seed: Seeds the model and the env's first reset.
        path: Where to save the model (``.zip``), or None.
        env_kwargs: :func:`hanabi_env.env` arguments (``players``, ``scoring``, ...).
        verbose: SB3 verbosity.
        torch_threads: Torch threads while building and training the model (int >= 1;
            default 1, see the module docstring), set with ``torch.set_num_threads`` and
            restored to the previous value when training ends (or fails); None leaves
            torch's setting alone.
        **ppo_kwargs: ``MaskablePPO`` arguments.

    Returns:
        The trained ``sb3_contrib.MaskablePPO`` model.

    Raises:
        ValueError: ``total_timesteps`` < 1, or ``torch_threads`` < 1.
        TypeError: ``torch_threads`` is not an int or None.
        ImportError: sb3-contrib is not installed.
    """
    threads = _check_torch_threads(torch_threads)
    if int(total_timesteps) < 1:
        raise ValueError(f"total_timesteps={total_timesteps} is out of range; allowed: >= 1")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    import hanabi_env

    env = SB3ActionMaskWrapper(hanabi_env.env(**(env_kwargs or {})))
    env.reset(seed=int(seed))
    env = ActionMasker(env, mask_fn)
    return _learn(MaskablePPO, env, seed, total_timesteps, path, verbose, threads, ppo_kwargs)
