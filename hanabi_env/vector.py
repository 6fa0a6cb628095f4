"""Hanabi as a Gymnasium vector env: ``num_envs`` games stepped in lockstep in compiled code.

`HanabiVectorEnv(num_envs, **hanabi_v5 arguments)` follows Gymnasium's
:class:`gymnasium.vector.VectorEnv` API: ``reset(seed=...)`` returns ``(obs, infos)`` and
``step(actions)`` returns ``(obs, rewards, terminations, truncations, infos)``, each a batch over
the games. Hanabi is turn-based: each game's observation is that of its **seat to move**, and
one action per game is the move of that seat, so one policy plays every seat (self-play), as
through PettingZoo's AEC loop, but with one kernel call per step of all games instead of a
Python loop per move (:mod:`hanabi_env.batch`).

| Property | Value |
|---|---|
| Import | `from hanabi_env.vector import HanabiVectorEnv` |
| Sub-env | `hanabi_env.env(**kwargs)`, its seat to move at each step |
| Observations | `(num_envs, obs_dim)`: each game's seat to move, `observation_dtype` |
| Actions | `(num_envs,)` HLE move uids, `MultiDiscrete([n_actions] * num_envs)` |
| Action masks | `infos["action_mask"]`, `(num_envs, n_actions)` int8 (0/1) |
| Rewards | `(num_envs,)` float64: the score change of the move (as in the AEC env) |
| Terminations | `(num_envs,)` bool: the game's end, or an illegal move (`illegal_reward`) |
| Truncations | always False (a Hanabi game always ends) |
| Autoreset | `autoreset_mode`: `"next_step"` (default), `"same_step"` or `"disabled"` |

**infos** (every key with its Gymnasium ``_key`` mask, all True): ``action_mask``;
``seat`` ``(num_envs,)`` int64, the seat each observation belongs to (the seat to move; at a
game's end the seat that made the last move); ``score`` ``(num_envs,)`` int64;
``illegal_action`` ``(num_envs,)`` bool; the behaviour metrics of every seat so far in the
game, ``communicativeness``, ``ipp`` and ``risk_aversion`` ``(num_envs, players)`` float64
(0.0 where undefined) with ``communicativeness_defined`` ... ``(num_envs, players)`` bool
(docs/rules.md §5; :func:`hanabi_env.metrics.info_metrics`, the AEC env's contract, docs/marl.md
§3); and with ``all_observations=True``, ``all_observations`` ``(num_envs,
players, obs_dim)``: every seat's observation, for centralised critics.

**Seeds.** ``reset(seed=s)`` seeds game ``i`` with ``s + i`` (or ``seed[i]`` for a list), as
Gymnasium's ``SyncVectorEnv`` does, and each game then deals exactly what
``hanabi_env.env(**kwargs)`` deals after ``reset(seed=s + i)`` and after each later ``reset()``:
observations are bit-identical to the AEC env's on the same seeds (a test checks it), and do
not depend on ``num_envs`` or on ``threads``.

**Autoreset modes** (https://farama.org/Vector-Autoreset-Mode): with ``"next_step"``, the step
after a game ended deals the next game (its action is ignored; reward 0, not terminated);
with ``"same_step"`` the ended game is dealt anew in the same step: the returned observation is
the new game's, and ``infos["final_obs"]`` (an object array, ``None`` elsewhere, mask
``infos["_final_obs"]``) and ``infos["final_info"]`` hold the last game's; with ``"disabled"``,
call ``reset(options={"reset_mask": mask})`` yourself.

**Memory and closing.** Each game takes about :func:`bytes_per_game` bytes (its state, its
rows of the buffers and of the observation space, a step's outputs); ``num_envs`` is refused
(``ValueError`` naming the memory needed and the most allowed) above :data:`MAX_ENVS` or above
what fits in :data:`MEMORY_SHARE` of the machine's physical memory. ``close()`` stops the threads
and frees the games' arrays; ``reset`` and ``step`` then raise Gymnasium's
``ClosedEnvironmentError``, and a second ``close()`` does nothing.

**Speed.** Games are stepped by ``threads`` threads (default 1; the kernels release the GIL),
each over a fixed range of games, so results never depend on it. ``benchmarks/bench_vector.py``
measures steps per second against OpenSpiel and JaxMARL.

Source: Gymnasium's vector API (https://gymnasium.farama.org/api/vector/) and the AEC env's
conventions (:mod:`hanabi_env.env`, docs/anchors.md §1).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.error import ClosedEnvironmentError
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hanabi_env import batch as B
from hanabi_env import engine as E
from hanabi_env import validate
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.metrics import INFO_METRICS, RATIOS
from hanabi_env.seeding import SEED_LIMIT
from hanabi_env.spaces import OBSERVATION_DTYPES, numpy_dtype, observation_space
from hanabi_env.validate import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_mapping,
    check_seed,
)

__all__ = [
    "AUTORESET_MODES",
    "MAX_ENVS",
    "MEMORY_SHARE",
    "OBSERVATION_DTYPES",
    "HanabiVectorEnv",
    "bytes_per_game",
    "observation_space",
]

AUTORESET_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
"""The ``autoreset_mode`` names and Gymnasium's modes."""

_BLOCK = 32  # deal seeds drawn at a time from each game's generator
MAX_ENVS = 1 << 18
"""Most games one vector env holds, whatever the memory (262,144; about 12 GiB with the
defaults, :func:`bytes_per_game`)."""
MEMORY_SHARE = 0.5
"""Share of this machine's physical memory (``os.sysconf``) the games may take: ``num_envs``
is refused when ``num_envs * bytes_per_game(...)`` exceeds it."""
_GAME_OVERHEAD = 8 << 10  # per game: deal generator, seed block, per-game scalars and infos
_METRIC_SPEC = np.array([RATIOS[m] for m in INFO_METRICS], dtype=np.float64)


def bytes_per_game(
    config: HanabiConfig,
    observation_dtype: str = "float64",
    all_observations: bool = False,
    autoreset_mode: str = "next_step",
) -> int:
    """Bytes of memory one game of a :class:`HanabiVectorEnv` takes at most (an estimate).

    The game's state (:class:`hanabi_env.batch.Batch`), its rows of the env's buffers and of
    the batched observation space's bounds, the outputs of a step (copies of the observation,
    the mask and the infos) twice, for a training loop still holds the previous step's while
    the next one is made, a ``"same_step"`` reset's final observation and info, and 8 KiB for
    the rest (deal generator, seeds, per-game scalars). ``obs_dim``-sized terms count
    ``observation_dtype``'s bytes; ``all_observations`` adds ``players * obs_dim`` per copy.
    Measured against :mod:`tracemalloc` by ``tests/hanabi_env/test_vector.py``.

    Args:
        config: The games' settings.
        observation_dtype: As :class:`HanabiVectorEnv`.
        all_observations: As :class:`HanabiVectorEnv`.
        autoreset_mode: As :class:`HanabiVectorEnv`.

    Returns:
        Bytes per game (an upper bound of what the env allocates per game, within ~20%).

    Raises:
        TypeError, ValueError: A bad argument (named, with what is allowed).
    """
    if not isinstance(config, HanabiConfig):
        raise TypeError(f"config must be a HanabiConfig, got {type(config).__name__}")
    check_bool("all_observations", all_observations)
    same_step = check_choice("autoreset_mode", autoreset_mode, AUTORESET_MODES) == "same_step"
    one = E.new_state(config)
    state = sum(a.nbytes for a in (one.scal, one.deck, one.counters, one.rng, one.packed))
    obs_dim = V.observation_size(one.cfg, V.OBSERVATION_TYPES[config.observation_type])
    obs = obs_dim * numpy_dtype(observation_dtype).itemsize
    seats = config.players * obs if all_observations else 0
    mask = int(one.cfg[E.CFG_N_ACTIONS])
    step_out = obs + seats + mask + same_step * (obs + 2 * seats + 2 * mask)
    held = obs + seats + mask + 2 * obs + 2 * obs_dim  # buffers, the space's bounds and flags
    return int(state + held + 2 * step_out + _GAME_OVERHEAD)


def _check_num_envs(n: int, each: int) -> int:
    """``n`` unless ``n`` games of ``each`` bytes pass :data:`MAX_ENVS` or the memory share."""
    memory = validate.memory_limit()
    by_memory = int(memory * MEMORY_SHARE) // each
    most = min(MAX_ENVS, by_memory)
    if n <= most:
        return n
    share = f"{MEMORY_SHARE:.0%} of this machine's {memory / 2**30:,.1f} GiB"
    why = "MAX_ENVS" if most == MAX_ENVS else share
    raise ValueError(
        f"num_envs={n:,} is out of range: {n:,} games would need about "
        f"{n * each / 2**30:,.1f} GiB of memory ({each:,} bytes each with these options); "
        f"allowed: <= {most:,} ({why})"
    )


class HanabiVectorEnv(VectorEnv):
    """``num_envs`` Hanabi games in lockstep, a Gymnasium ``VectorEnv`` (module docstring).

    Args:
        num_envs: Games stepped together: at least 1, at most :data:`MAX_ENVS` (2**18), and
            no more than fit in :data:`MEMORY_SHARE` (half) of this machine's physical memory
            at :func:`bytes_per_game` bytes each (about 46 KB with the defaults, 0.5 MB with 5
            players, ``all_observations`` and ``"same_step"``).
        colors: As :func:`hanabi_env.env`, and so are ``ranks``, ``players``, ``hand_size``,
            ``max_information_tokens``, ``max_life_tokens``, ``observation_type``,
            ``random_start_player``, ``scoring`` and ``hand_order`` (hanabi_v5's arguments and
            defaults; hand size 5 at every player count, see docs/rules.md §0.1).
        observation_dtype: ``"float64"`` (default, hanabi_v5's ``Box(-inf, inf)``),
            ``"float32"`` or ``"int8"`` (``Box(0, 1)``).
        autoreset_mode: ``"next_step"`` (default), ``"same_step"`` or ``"disabled"``.
        all_observations: Also return every seat's observation in ``infos``.
        illegal_reward: Reward of an illegal move, which ends its game (as ``env()``'s
            ``TerminateIllegalWrapper``).
        threads: Threads that step the games (each a fixed range of games), >= 1.
        copy: Return copies of the observation and mask buffers (default, as Gymnasium's
            ``SyncVectorEnv``); False returns the env's own buffers, overwritten by the next
            ``step`` or ``reset`` (saves a copy per step).

    Raises:
        TypeError, ValueError: A bad argument (named, with what is allowed); for ``num_envs``
            over the limit, the message gives the memory it would need and the most allowed.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium convention (class-level dict)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int,
        colors: int = 5,
        ranks: int = 5,
        players: int = 2,
        hand_size: int = 5,
        max_information_tokens: int = 8,
        max_life_tokens: int = 3,
        observation_type: str = "card_knowledge",
        random_start_player: bool = False,
        scoring: str = "strict",
        hand_order: str = "shift",
        observation_dtype: str = "float64",
        autoreset_mode: str = "next_step",
        all_observations: bool = False,
        illegal_reward: float = -1.0,
        threads: int = 1,
        copy: bool = True,
    ):
        """See the class docstring."""
        n = check_int("num_envs", num_envs, 1)
        self.config = HanabiConfig(
            colors=colors,
            ranks=ranks,
            players=players,
            hand_size=hand_size,
            max_information_tokens=max_information_tokens,
            max_life_tokens=max_life_tokens,
            observation_type=observation_type,
            random_start_player=random_start_player,
            scoring=scoring,
            hand_order=hand_order,
        )
        check_choice("autoreset_mode", autoreset_mode, AUTORESET_MODES)
        self.autoreset_mode = AUTORESET_MODES[autoreset_mode]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.all_observations = check_bool("all_observations", all_observations)
        self.illegal_reward = check_float("illegal_reward", illegal_reward)
        self.threads = check_int("threads", threads, 1, 64)
        self.copy = check_bool("copy", copy)
        each = bytes_per_game(self.config, observation_dtype, all_observations, autoreset_mode)
        self.num_envs = _check_num_envs(n, each)
        self.closed = False
        self._batch = B.new_batch(self.config, n)
        self._obs_type = V.OBSERVATION_TYPES[self.config.observation_type]
        obs_dim = V.observation_size(self._batch.cfg, self._obs_type)
        n_actions = int(self._batch.cfg[9])  # CFG_N_ACTIONS
        self.single_observation_space = observation_space(obs_dim, observation_dtype)
        self.single_action_space = spaces.Discrete(n_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.observation_dtype = observation_dtype
        dtype = numpy_dtype(observation_dtype)
        self._obs = np.zeros((n, obs_dim), dtype=dtype)
        self._mask = np.zeros((n, n_actions), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._done = np.zeros(n, dtype=np.int8)
        self._illegal = np.zeros(n, dtype=np.int8)
        self._seat = np.zeros(n, dtype=np.int64)
        self._score = np.zeros(n, dtype=np.int64)
        self._deals = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros(n, dtype=np.bool_)  # next_step: dealt at the next step
        self._buf = np.zeros((n, _BLOCK), dtype=np.int64)  # drawn deal seeds, per game
        self._pos = np.full(n, _BLOCK, dtype=np.int64)  # next unread entry of _buf
        self._gens: list[np.random.Generator] = []
        self._all = np.zeros((n, players, obs_dim), dtype=dtype) if self.all_observations else None
        bounds = np.linspace(0, n, self.threads + 1).astype(np.int64)
        self._ranges = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        # the calling thread steps the first range itself, the pool the others
        self._pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        self._has_reset = False

    # ------------------------------------------------------------------------------ API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every game (or those of ``options["reset_mask"]``).

        Args:
            seed: None (fresh entropy), an int ``s`` (game ``i`` seeded with ``s + i``) or one
                seed (or None) per game.
            options: ``{"reset_mask": (num_envs,) bool array}`` deals only those games (the
                others keep their state); ``{"deal_seeds": (num_envs,) ints}`` deals those
                exact deals instead of drawing them (``seed`` then only seeds the deals of the
                later games, and only at the first reset). Other keys are refused.

        Returns:
            ``(obs, infos)``: ``(num_envs, obs_dim)`` observations of each game's seat to move
            and the infos of the module docstring.

        Raises:
            ClosedEnvironmentError: After ``close()`` (:mod:`gymnasium.error`).
            TypeError, ValueError: A bad seed, mask, deal seed or option key.
        """
        self._check_open("reset")
        n = self.num_envs
        options = check_mapping("options", options)
        unknown = sorted(map(str, set(options) - {"reset_mask", "deal_seeds"}))
        if unknown:
            raise ValueError(f"options {unknown} are not allowed; allowed: reset_mask, deal_seeds")
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(n, dtype=np.bool_)
        elif not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n,)):
            raise TypeError(f"options['reset_mask'] must be a ({n},) bool numpy array")
        elif not self._has_reset and not mask.all():
            raise ValueError("the first reset() deals every game: no options['reset_mask']")
        deals = options.pop("deal_seeds", None)
        if deals is not None:
            deals = np.asarray(deals)
            if deals.shape != (n,) or deals.dtype.kind not in "iu":
                raise TypeError(f"options['deal_seeds'] must be {n} ints")
            for s in deals[mask].tolist():
                check_seed("options['deal_seeds']", s)
            if not self._gens:  # the games after these are drawn from ``seed``
                self._seed_generators(seed, mask)
        else:
            self._seed_generators(seed, mask)
            self._draw_deals(mask)
            deals = self._deals
        games = np.flatnonzero(mask).astype(np.int64)
        B.reset_games(
            self._batch, games, deals[games].astype(np.int64), self.config.random_start_player
        )
        self._pending[mask] = False
        self._has_reset = True
        self._observe(games)
        self._done[:] = 0
        self._illegal[:] = 0
        return self._out(self._obs), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one move in every game (see the module docstring for resets and rewards).

        Args:
            actions: ``(num_envs,)`` integer move uids in ``[0, n_actions)``, one per game
                (ignored, whatever its value, for a game dealt at this step). A move uid that
                is not legal ends its game (``illegal_reward``).

        Returns:
            ``(obs, rewards, terminations, truncations, infos)``.

        Raises:
            ClosedEnvironmentError: After ``close()`` (:mod:`gymnasium.error`).
            RuntimeError: Before the first ``reset``, or with ``autoreset_mode="disabled"``
                when a game that ended has not been reset.
            TypeError: ``actions`` not ``num_envs`` integers.
            ValueError: An action outside ``[0, n_actions)`` for a game that moves (as
                ``env()``'s ``ActionOutOfRange``); nothing is played.
        """
        self._check_open("step")
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise TypeError(
                f"actions must be {self.num_envs} integer move uids, got "
                f"{acts.dtype} array of shape {acts.shape}"
            )
        reset_now = self._pending.copy()
        n_actions = int(self.single_action_space.n)  # type: ignore[attr-defined]
        outside = np.flatnonzero(((acts < 0) | (acts >= n_actions)) & ~reset_now)
        if outside.size:
            i = int(outside[0])
            raise ValueError(
                f"actions[{i}]={int(acts[i])} is out of range; allowed: [0, {n_actions - 1}] "
                f"(move uids; {outside.size} game(s) out of range)"
            )
        self._actions = acts.astype(np.int64, copy=False)
        if self.autoreset_mode == AutoresetMode.DISABLED and reset_now.any():
            raise RuntimeError(
                "a game ended and autoreset_mode='disabled': call "
                "reset(options={'reset_mask': ...}) for it first"
            )
        self._draw_deals(reset_now)
        self._reset_now = reset_now
        self._run(self._step_range)
        done = self._done.astype(np.bool_)
        infos = self._infos()
        obs = self._out(self._obs)
        rewards = self._rewards.copy()
        rewards[self._illegal.astype(np.bool_)] = self.illegal_reward
        if self.autoreset_mode == AutoresetMode.SAME_STEP and done.any():
            infos = self._same_step_reset(done, obs, infos)
            obs = self._out(self._obs)
        elif self.autoreset_mode != AutoresetMode.SAME_STEP:
            self._pending = done.copy()
        return obs, rewards, done, np.zeros(self.num_envs, dtype=np.bool_), infos

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the stepping threads and free the games' arrays (``close()`` calls it once).

        After ``close()``, ``reset`` and ``step`` raise Gymnasium's
        :class:`~gymnasium.error.ClosedEnvironmentError`; a second ``close()`` does nothing.
        """
        pool, self._pool = getattr(self, "_pool", None), None
        if pool is not None:
            pool.shutdown()
        if not hasattr(self, "_batch"):  # the constructor refused its arguments
            return
        b = self._batch
        empty = [np.empty((0, *a.shape[1:]), dtype=a.dtype) for a in b[1:]]
        self._batch = B.Batch(b.cfg, *empty)
        for name in ("_obs", "_mask", "_buf", "_all"):
            buf = getattr(self, name)
            if buf is not None:
                setattr(self, name, np.empty((0, *buf.shape[1:]), dtype=buf.dtype))
        self._gens = []

    def _check_open(self, method: str) -> None:
        if self.closed:
            raise ClosedEnvironmentError(
                f"HanabiVectorEnv.{method}() after close(): the env is closed; make a new one"
            )

    # -------------------------------------------------------------------------- internals
    def _out(self, buf: np.ndarray) -> np.ndarray:
        return buf.copy() if self.copy else buf

    def _seed_generators(self, seed, mask: np.ndarray) -> None:
        n = self.num_envs
        if seed is None:
            seeds: list = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            base = check_seed("seed", seed)
            seeds = [base + i for i in range(n)]
        elif isinstance(seed, Sequence) and len(seed) == n:
            seeds = [check_seed(f"seed[{i}]", s, allow_none=True) for i, s in enumerate(seed)]
        else:
            raise TypeError(f"seed must be None, an int or a list of {n} ints/None")
        if not self._gens:
            self._gens = [np.random.default_rng(s) for s in seeds]
            return
        for i in np.flatnonzero(mask).tolist():
            if seeds[i] is not None or seed is None:
                self._gens[i] = np.random.default_rng(seeds[i])
                self._pos[i] = _BLOCK

    def _draw_deals(self, which: np.ndarray) -> None:
        """The next deal seed of each game in ``which`` from its generator, into ``_deals``.

        Each generator's draws are taken in blocks of :data:`_BLOCK` (the same numbers as one
        draw at a time), so that a step's draws are one vectorised read.
        """
        games = np.flatnonzero(which)
        if not games.size:
            return
        pos = self._pos[games]
        stale = pos >= _BLOCK
        if stale.any():
            for i in games[stale].tolist():
                self._buf[i] = self._gens[i].integers(0, SEED_LIMIT, _BLOCK)
                self._pos[i] = 0
            pos = self._pos[games]
        self._deals[games] = self._buf[games, pos]
        self._pos[games] = pos + 1

    def _run(self, func) -> None:
        if self._pool is None:
            func(0, self.num_envs)
        else:
            self._in_threads(func, self._ranges)

    def _in_threads(self, func, args: list) -> None:
        """``func(*a)`` for each ``a`` of ``args``: the first here, the rest in the pool."""
        rest = [self._pool.submit(func, *a) for a in args[1:]]  # type: ignore[union-attr]
        func(*args[0])
        for fut in rest:
            fut.result()

    def _observe(self, games: np.ndarray) -> None:
        """Observe ``games`` (ascending indices), split over the threads by game range."""
        parts = [games[(games >= lo) & (games < hi)] for lo, hi in self._ranges]
        if self._pool is None or len(games) < 64:
            parts = [games]
        run = lambda g: B.vector_observe(  # noqa: E731
            self._batch, g, self._obs_type, self._obs, self._mask, self._seat, self._score
        )
        if len(parts) == 1 or self._pool is None:
            run(parts[0])
        else:
            self._in_threads(run, [(part,) for part in parts])

    def _step_range(self, lo: int, hi: int) -> None:
        B.vector_step(
            self._batch,
            lo,
            hi,
            self._actions,
            self._reset_now,
            self._deals,
            self.config.random_start_player,
            self._obs_type,
            self._obs,
            self._mask,
            self._rewards,
            self._done,
            self._illegal,
            self._seat,
            self._score,
        )

    def _infos(self) -> dict[str, Any]:
        infos: dict[str, Any] = {
            "action_mask": self._out(self._mask),
            "seat": self._seat.copy(),
            "score": self._score.copy(),
            "illegal_action": self._illegal.astype(np.bool_),
        }
        # the AEC env's contract (metrics.info_metrics), per seat, in one compiled pass
        counters = self._batch.counters
        values = np.empty((len(INFO_METRICS), *counters.shape[:2]), dtype=np.float64)
        defined = np.empty(values.shape, dtype=np.bool_)
        B.info_metric_arrays(counters, _METRIC_SPEC, values, defined)
        for k, m in enumerate(INFO_METRICS):
            infos[m] = values[k]
            infos[f"{m}_defined"] = defined[k]
        if self._all is not None:
            B.observe_all_seats(self._batch, self._obs_type, self._all)
            infos["all_observations"] = self._all.copy()
        n = self.num_envs
        for key in list(infos):  # Gymnasium's "_key" flags (writable: wrappers may add to them)
            infos[f"_{key}"] = np.ones(n, dtype=np.bool_)
        return infos

    def _same_step_reset(self, done: np.ndarray, obs: np.ndarray, infos: dict) -> dict:
        """Deal the ended games now; their last observation and info go to ``final_*``."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done).tolist():
            final_obs[i] = obs[i].copy()  # obs may be the buffer the reset overwrites
        final_info = {k: np.array(v) for k, v in infos.items() if not k.startswith("_")}
        final_info.update({f"_{k}": done.copy() for k in list(final_info)})
        self._draw_deals(done)
        games = np.flatnonzero(done).astype(np.int64)
        B.reset_games(self._batch, games, self._deals[games], self.config.random_start_player)
        self._observe(games)
        self._done[games] = 0  # the new games' infos are a fresh deal's (as after reset())
        self._illegal[games] = 0
        fresh = self._infos()
        fresh["final_obs"], fresh["_final_obs"] = final_obs, done.copy()
        fresh["final_info"], fresh["_final_info"] = final_info, done.copy()
        return fresh
